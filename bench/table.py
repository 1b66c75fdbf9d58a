"""`chgk-console bench table`: the daemon's cost of watching the top, and how soon it sees a stop.

Everything runs on loopback, as `bench latency` does: a real mosquitto, the daemon as a separate
process (`chgk-console run`, `[game] kind = "chgk"`, its `serial_mcu` source on a
pseudo-terminal), and mosquitto's C subscriber on the events topic. On the device side of the
pty a simulated MCU (:class:`drivers.sim_mcu.SimulatedMcu`) streams the readings of a simulated
top (:class:`drivers.sim_top.SimTop`, seeded) at ``rate_hz`` in real time, in bursts of 40 ms
as the firmware gathers them (ANGLES frames of up to 13 readings, PROTOCOL.md 4.11;
:class:`drivers.sim_top.LiveTopFeed`), from threads of this process: their CPU is not the
daemon's.

Once the daemon is connected and the stream has run for a warm-up, a window of ``seconds``
starts. In it the top is spun again and again: each spin's run-down lasts 3-10 s (drawn from
a seeded generator; the last one shortened so that its true stop is at least 1.2 s before the
window ends), and the next spin starts 1 s after the previous one's true stop (later if the
arrow still rocks then). After each stop the host's ``cancel_round`` goes in through the MQTT
command topic, so that every spin picks a sector as in a game.

Measured over the window:

* ``cpu_percent_of_one_core``: the daemon's utime + stime (``/proc/<pid>/stat``, all threads)
  divided by the window's wall time, x100 (clock ticks: 10 ms each); ``cpu_ns_percent_of_one_core``
  the same from the kernel's per-thread schedstat (nanoseconds on a CPU, the threads running
  at the window's end; None where the kernel keeps none);
* ``floor_cpu_percent_of_one_core``, ``floor_wakeups_per_s``: the same for a process that only
  wakes for the bursts of a second simulated box streaming the same top in the same window
  and drops what it reads (:mod:`bench.wake_floor`), ``floor_ns_percent_of_one_core`` its
  schedstat figure; ``cpu_over_floor`` the daemon's figure as a ratio to it, in nanoseconds
  where the kernel counts them (this machine's speed moves from hour to hour, the ratio much
  less; the floor is only some ten ticks in 40 s, too coarse for a ratio);
* ``max_rss_mb``: the daemon's peak resident set (``VmHWM``) at the end of the window;
* ``stop_detect_ms``: per spin, from the true stop (``SpinTruth.stopped_ns``, host monotonic)
  to the ``spin_stopped`` event at the subscriber (its ``%U`` wall clock mapped onto the
  monotonic clock, as in `bench latency`);
* ``stop_detect_event_ms``: the event's own ``t_ns - stopped_at_ns`` (the daemon's view, from
  its estimate of the stop); ``stopped_at_error_ms``: that estimate minus the true stop;
  ``event_to_subscriber_ms``: from the event's ``t_ns`` to the subscriber.

``spins`` counts the spins whose stop falls in the window, ``detected`` those that got a
``spin_stopped`` event (the first one after the spin started and before the next did);
``samples_read`` the readings the box took in the window (by their time), ``samples_sent``
those it sent (the daemon asks it for the table's rate: ANGLE_RATE, PROTOCOL.md 4.12);
``daemon_wakeups_per_s`` how often the daemon's loop thread went to sleep and was woken
(voluntary context switches of its main thread: once per serial write of the MCU, whether it
sends a frame or a burst, plus timers, heartbeats and MQTT); ``link_errors`` the errors the
MCU link reported (lost or bad frames), the first of them in ``link_error_messages``.
Prints one JSON object (or one line per key); asserts nothing about speed. Returns 0, 1 if
no spin was detected, 2 if a tool is missing.
"""

from __future__ import annotations

import json
import os
import queue
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.latency import Lines, free_port, percentile, wait_port, write_line
from bench.report import stop_processes
from drivers.sim_mcu import SimulatedMcu
from drivers.sim_top import LiveTopFeed, SimTop, SpinTruth

NODE = "bench"
SOURCE = "table"  # the [sources.NAME] of the top's MCU
SEED = 7
NS_PER_S = 1_000_000_000
WARMUP_S = 2.0  # streaming before the window: clock sync settles, the detector finds its rest
FIRST_SPIN_S = 0.5  # from the window's start
GAP_S = 1.0  # from a true stop to the next spin
DURATION_S = (3.0, 10.0)  # of a spin's run-down, as SimTop draws them
TAIL_S = 1.2  # at least this much of the window after the last true stop (detection, the event)
MIN_DURATION_S = 1.0


@dataclass
class _Events:
    """What the subscriber saw, each with its receive time (host monotonic ns)."""

    stops: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    invalid: int = 0
    link_errors: list[str] = field(default_factory=list)
    status: list[bytes] = field(default_factory=list)


def main(seconds: float = 60.0, as_json: bool = False, rate_hz: float = 1000.0) -> int:
    """Run the benchmark for a window of ``seconds`` with the top read at ``rate_hz``; print
    the figures (one JSON object if ``as_json``). Returns 0, 1 if no spin was detected (the
    figures are printed anyway), 2 if mosquitto or its clients are missing."""
    if seconds <= 0 or rate_hz <= 0:
        raise ValueError(f"seconds and rate_hz must be positive, got {seconds}, {rate_hz}")
    for tool in ("mosquitto", "mosquitto_sub", "mosquitto_pub"):
        if shutil.which(tool) is None:
            print(f"bench: {tool} not found (apt-get install mosquitto mosquitto-clients)", file=sys.stderr)
            return 2
    with tempfile.TemporaryDirectory(prefix="chgk-bench-table-") as tmp:
        result = _run(Path(tmp), seconds, rate_hz)
    if as_json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>29}: {value}")
    if not result["detected"]:
        print("bench: no spin was detected; see the daemon's log", file=sys.stderr)
        return 1
    return 0


def _run(tmp: Path, seconds: float, rate_hz: float) -> dict[str, Any]:
    port = free_port()
    (tmp / "mosquitto.conf").write_text(
        f"listener {port} 127.0.0.1\nallow_anonymous true\nset_tcp_nodelay true\n"
        "persistence false\nlog_dest none\n"
    )
    procs: list[subprocess.Popen[bytes]] = []
    sim = SimulatedMcu(pads=1, link_path=str(tmp / "mcu"))
    top = SimTop(seed=SEED, rate_hz=rate_hz)
    feed = LiveTopFeed(top, sim)
    # The floor's box: the same top, the same spins, read by a process that only wakes for it.
    floor_sim = SimulatedMcu(pads=1, link_path=str(tmp / "floor"))
    floor_top = SimTop(seed=SEED, rate_hz=rate_hz)
    floor_feed = LiveTopFeed(floor_top, floor_sim)
    sim.start()
    floor_sim.start()
    try:
        broker = subprocess.Popen(["mosquitto", "-c", str(tmp / "mosquitto.conf")])
        procs.append(broker)
        wait_port(port)
        (tmp / "console.toml").write_text(_config(sim.port, port), encoding="utf-8")
        daemon = subprocess.Popen(
            [sys.executable, "-m", "console.cli", "run", "--config", str(tmp / "console.toml")],
            stderr=open(tmp / "daemon.log", "wb"),  # noqa: SIM115 - lives as long as the process
        )
        procs.append(daemon)
        mqtt = ["-h", "127.0.0.1", "-p", str(port), "--nodelay"]
        base = f"chgk/{NODE}"
        sub = subprocess.Popen(["mosquitto_sub", *mqtt, "-F", "%U %t %p", "-t", f"{base}/events",
                                "-t", f"{base}/status"], stdout=subprocess.PIPE)
        procs.append(sub)
        lines = Lines(sub)
        commands = subprocess.Popen(["mosquitto_pub", *mqtt, "-l", "-q", "1", "-t", f"{base}/host/command"],
                                    stdin=subprocess.PIPE)
        procs.append(commands)
        events = _Events()
        _wait_ready(commands, lines, events, tmp)
        floor = subprocess.Popen([sys.executable, "-m", "bench.wake_floor", floor_sim.port],
                                 stdout=subprocess.PIPE)
        procs.append(floor)
        assert floor.stdout is not None
        if floor.stdout.readline().strip() != b"ready":
            raise RuntimeError(f"the wake floor did not start (status {floor.wait()})")

        feed.start()
        floor_feed.start()
        _collect(lines, events, commands, time.monotonic_ns() + round(WARMUP_S * NS_PER_S))
        start_ns = time.monotonic_ns()
        end_ns = start_ns + round(seconds * NS_PER_S)
        truths = _schedule(top, start_ns, end_ns)
        _schedule(floor_top, start_ns, end_ns)  # the same spins: the same rate of bursts
        cpu_before = (_cpu_seconds(daemon.pid), _cpu_seconds(broker.pid), _own_cpu_seconds(),
                      _cpu_seconds(floor.pid))
        ns_before = _cpu_ns(daemon.pid), _cpu_ns(floor.pid)
        switches_before = _wakeups(daemon.pid), _wakeups(floor.pid)
        _collect(lines, events, commands, end_ns)
        if daemon.poll() is not None:
            log = (tmp / "daemon.log").read_text(errors="replace")
            raise RuntimeError(f"the daemon exited with {daemon.returncode} during the run; its log:\n{log}")
        cpu_after = (_cpu_seconds(daemon.pid), _cpu_seconds(broker.pid), _own_cpu_seconds(),
                     _cpu_seconds(floor.pid))
        ns_after = _cpu_ns(daemon.pid), _cpu_ns(floor.pid)
        switches_after = _wakeups(daemon.pid), _wakeups(floor.pid)
        wall_s = (time.monotonic_ns() - start_ns) / NS_PER_S
        max_rss_mb = _max_rss_mb(daemon.pid)
        _collect(lines, events, commands, time.monotonic_ns() + NS_PER_S // 5)  # a late last event
    finally:
        feed.stop()
        floor_feed.stop()
        stop_processes(procs)
        sim.stop()
        floor_sim.stop()

    sent = sum(1 for read_at, _, _ in feed.sent if start_ns <= read_at < end_ns)
    read = sum(1 for read_at in feed.read_ns if start_ns <= read_at < end_ns)
    daemon_cpu_s, floor_cpu_s = cpu_after[0] - cpu_before[0], cpu_after[3] - cpu_before[3]
    daemon_ns, floor_ns = (None if b is None or a is None else (a - b) / NS_PER_S
                           for b, a in zip(ns_before, ns_after, strict=True))
    # The ratio in nanoseconds where the kernel counts them: the floor is only some ten ticks
    # of utime + stime in a 40 s window, and one tick more or less moved the ratio by 10 %.
    ratio_of = (daemon_ns, floor_ns) if daemon_ns is not None and floor_ns is not None else (
        daemon_cpu_s, floor_cpu_s)
    detect_ms: list[float] = []
    event_ms: list[float] = []
    estimate_ms: list[float] = []
    hop_ms: list[float] = []
    for i, truth in enumerate(truths):
        until = truths[i + 1].started_ns if i + 1 < len(truths) else end_ns + NS_PER_S
        stop = next(((at, ev) for at, ev in events.stops if truth.started_ns <= at < until), None)
        if stop is None:
            continue
        received, event = stop
        detect_ms.append((received - truth.stopped_ns) / 1e6)
        event_ms.append((event["t_ns"] - event["stopped_at_ns"]) / 1e6)
        estimate_ms.append((event["stopped_at_ns"] - truth.stopped_ns) / 1e6)
        hop_ms.append((received - event["t_ns"]) / 1e6)
    return {
        "seconds": round(wall_s, 3),
        "rate_hz": rate_hz,
        "samples_read": read,
        "samples_sent": sent,
        "rate_sent_hz": round(sent / wall_s, 1),
        "daemon_wakeups_per_s": round((switches_after[0] - switches_before[0]) / wall_s),
        "spins": len(truths),
        "detected": len(detect_ms),
        "extra_stops": max(0, len(events.stops) - len(detect_ms)),
        "invalid_spins": events.invalid,
        "link_errors": len(events.link_errors),
        "link_error_messages": events.link_errors[:5],  # what the link said, for whoever reads a failure
        "cpu_percent_of_one_core": round(100 * daemon_cpu_s / wall_s, 2),
        "floor_cpu_percent_of_one_core": round(100 * floor_cpu_s / wall_s, 2),
        "cpu_ns_percent_of_one_core": None if daemon_ns is None else round(100 * daemon_ns / wall_s, 3),
        "floor_ns_percent_of_one_core": None if floor_ns is None else round(100 * floor_ns / wall_s, 3),
        "floor_wakeups_per_s": round((switches_after[1] - switches_before[1]) / wall_s),
        "cpu_over_floor": round(ratio_of[0] / ratio_of[1], 2) if ratio_of[1] > 0 else None,
        "max_rss_mb": round(max_rss_mb, 1),
        "stop_detect_ms": _summary(detect_ms),
        "stop_detect_event_ms": _summary(event_ms),
        "stopped_at_error_ms": _summary(estimate_ms),
        "event_to_subscriber_ms": _summary(hop_ms),
        "other_cpu_percent_of_one_core": {
            "mosquitto": round(100 * (cpu_after[1] - cpu_before[1]) / wall_s, 2),
            "bench_process": round(100 * (cpu_after[2] - cpu_before[2]) / wall_s, 2),
        },
        "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]},
    }


def _schedule(top: SimTop, start_ns: int, end_ns: int) -> list[SpinTruth]:
    """Spin after spin from the window's start, each GAP_S after the previous true stop (later
    if the arrow still rocks then); every true stop at least TAIL_S before the window's end."""
    rng = random.Random(SEED)
    truths: list[SpinTruth] = []
    at = start_ns + round(FIRST_SPIN_S * NS_PER_S)
    while True:
        room = (end_ns - at) / NS_PER_S - TAIL_S - 0.15  # 0.15: the longest spin-up
        if room < MIN_DURATION_S:
            return truths
        truth = top.spin(at, duration_s=min(rng.uniform(*DURATION_S), room))
        truths.append(truth)
        settled = top.settled_ns()
        assert settled is not None
        at = max(truth.stopped_ns + round(GAP_S * NS_PER_S), settled + top.period_ns)


def _collect(lines: Lines, events: _Events, commands: subprocess.Popen[bytes], until_ns: int) -> None:
    """Take the subscriber's lines until ``until_ns``; after each stop, the host cancels the round."""
    while True:
        remaining = (until_ns - time.monotonic_ns()) / NS_PER_S
        if remaining <= 0:
            return
        try:
            stamp, line = lines.queue.get(timeout=remaining)
        except queue.Empty:
            return
        topic, _, payload = line.rstrip(b"\n").partition(b" ")
        if topic.endswith(b"/status"):
            events.status.append(payload)
            continue
        event = json.loads(payload)
        kind = event.get("type")
        if kind == "spin_stopped":
            events.stops.append((stamp, event))
            write_line(commands, b'{"action":"cancel_round"}')  # refused after an unsure stop: harmless
        elif kind == "spin_invalid":
            events.invalid += 1
        elif kind == "error" and event.get("source") == SOURCE:
            events.link_errors.append(str(event.get("message")))


def _wait_ready(commands: subprocess.Popen[bytes], lines: Lines, events: _Events, tmp: Path) -> None:
    """Up when an unknown host command comes back as an error event (the daemon and the
    subscriber are both on the broker) and the retained status says the MCU is connected."""
    deadline = time.monotonic_ns() + 15 * NS_PER_S
    answered = False
    connected = f'"{SOURCE}":"connected"'.encode()
    while time.monotonic_ns() < deadline:
        if not answered:
            write_line(commands, b'{"action":"bench_ping"}')
        try:
            _, line = lines.queue.get(timeout=0.5)
        except queue.Empty:
            continue
        topic, _, payload = line.partition(b" ")
        if topic.endswith(b"/status"):
            events.status.append(payload)
        answered = answered or (b'"type":"error"' in payload and b"bench_ping" in payload)
        if answered and events.status and connected in events.status[-1]:
            return
    log = (tmp / "daemon.log").read_text(errors="replace")
    raise RuntimeError(f"the daemon did not come up; its log:\n{log}")


def _config(serial_port: str, mqtt_port: int) -> str:
    return (
        f'[console]\nnode = "{NODE}"\njournal = ""\nlog_level = "warning"\n\n'
        '[game]\nkind = "chgk"\n\n'
        '[table]\nrules = "tto"\nstage = "qualifier"\nteam = "t1"\nseed = 1\n\n'
        '[[teams]]\nid = "t1"\nname = "Совы"\n\n[[teams]]\nid = "t2"\nname = "Ежи"\n\n'
        f'[sources.{SOURCE}]\nkind = "serial_mcu"\nport = "{serial_port}"\n\n'
        f'[mqtt]\nhost = "127.0.0.1"\nport = {mqtt_port}\n\n[sound]\nenabled = false\n'
        "\n[display]\nhttp_port = 0\n"
    )


def _cpu_seconds(pid: int) -> float:
    """utime + stime of every thread of process ``pid`` so far, in seconds."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat.rpartition(")")[2].split()  # fields from the 3rd on: the name may hold spaces
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _cpu_ns(pid: int) -> int | None:
    """Nanoseconds on a CPU so far of every thread of process ``pid`` still running (the
    kernel's schedstat, exact where utime + stime count clock ticks); None where the kernel
    keeps no schedstat."""
    total, found = 0, False
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
            found = True
        except (FileNotFoundError, ProcessLookupError):  # no schedstat, or the thread ended
            continue
    return total if found else None


def _own_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _status_field(pid: int, name: str) -> int:
    """A number from /proc/<pid>/status (e.g. ``VmHWM`` in kB); for the counters of a thread,
    those of the main thread, which runs the daemon's event loop."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{name}:"):
            return int(line.split()[1])
    raise RuntimeError(f"no {name} in /proc/{pid}/status")


def _max_rss_mb(pid: int) -> float:
    return _status_field(pid, "VmHWM") / 1024


def _wakeups(pid: int) -> int:
    return _status_field(pid, "voluntary_ctxt_switches")


def _summary(values: list[float]) -> dict[str, float] | None:
    if not values:
        return None
    return {"p50": round(percentile(values, 50), 1), "p99": round(percentile(values, 99), 1),
            "mean": round(statistics.fmean(values), 1), "min": round(min(values), 1),
            "max": round(max(values), 1)}
