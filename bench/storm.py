"""`chgk-console bench storm`: four pads chattering at 1 kHz while questions are played (issue 10).

Everything runs on loopback as `bench latency` does: a real mosquitto, the daemon as its own
process (`chgk-console run`, journal on) whose serial MCU is a simulated MCU on a pty owned by
this benchmark, and mosquitto's C subscriber on the events topic. For `seconds` (10), a thread
makes every pad press and release 1000 times a second (staggered: 8000 PRESS/RELEASE frames a
second on the line), while the host plays questions through the command topic as fast as the
console answers: "next", the storm's first press takes the turn (`signal_accepted`),
"correct". Then the storm stops and the last events are waited for.

Figures:

* ``events_lost``: events the daemon published (the last ``seq`` on the events topic, as its
  retained state says) that the subscriber never received; must be 0.
* ``press_to_subscriber_ms``: from the winning press (``signal_accepted.press_at_ns``, the
  MCU's stamp on the host's monotonic clock, which this process shares) to the subscriber's
  receipt (mosquitto_sub's own ``%U`` stamp mapped onto that clock); target p99 <= 50 ms.
* ``cpu_percent_of_one_core``: the daemon's user+system CPU time over the storm's wall time.
* ``journal_bytes_per_s``: how fast the journal grew during the storm.

Prints figures; asserts nothing.
"""

from __future__ import annotations

import datetime
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.latency import (
    NODE,
    Lines,
    free_port,
    machine,
    summary,
    wait_port,
    write_line,
)
from bench.report import missing_tools, print_result, stop_processes
from drivers.sim_mcu import SimulatedMcu

__all__ = ["main", "run"]

PADS = 4
CHATTER_HZ = 1000  # presses a second per pad (each with its release)


def main(seconds: float = 10.0, as_json: bool = False) -> int:
    if missing_tools(("mosquitto", "mosquitto_sub", "mosquitto_pub")):
        return 2
    with tempfile.TemporaryDirectory(prefix="chgk-storm-") as tmp:
        result = run(Path(tmp), seconds)
    print_result(result, as_json)
    return 0


def chatter(sim: SimulatedMcu, stop: threading.Event, counts: list[int]) -> None:
    """Every pad presses and releases CHATTER_HZ times a second, the pads staggered: the edges
    due by now are sent (in a burst when this thread was late), until `stop`."""
    edges_per_s = PADS * CHATTER_HZ * 2
    start = time.monotonic()
    sent = 0
    while not stop.is_set():
        due = int((time.monotonic() - start) * edges_per_s)
        while sent < due and not stop.is_set():
            pad, phase = (sent // 2) % PADS, sent % 2
            if phase == 0:
                sim.press(pad)
                counts[0] += 1
            else:
                sim.release(pad)
            sent += 1
        time.sleep(0.0002)
    for pad in range(PADS):  # leave no pad down
        sim.release(pad)


def journal_size(tmp: Path) -> int:
    """The journal's bytes so far (the console names each start's file after the configured
    one, with the date and time: docs/journal.md)."""
    return sum(path.stat().st_size for path in tmp.glob("journal*.jsonl"))


def cpu_seconds(pid: int) -> float:
    """The process's user + system CPU time so far (/proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(tmp: Path, seconds: float) -> dict[str, Any]:
    port = free_port()
    (tmp / "mosquitto.conf").write_text(
        f"listener {port} 127.0.0.1\nallow_anonymous true\nset_tcp_nodelay true\n"
        "persistence false\nlog_dest none\n"
    )
    journal = tmp / "journal.jsonl"
    procs: list[subprocess.Popen[bytes]] = []
    sim = SimulatedMcu(pads=PADS, link_path=str(tmp / "mcu"))
    sim.start()
    stop = threading.Event()
    try:
        procs.append(subprocess.Popen(["mosquitto", "-c", str(tmp / "mosquitto.conf")]))
        wait_port(port)
        (tmp / "console.toml").write_text(_config(sim.port, port, journal))
        daemon = subprocess.Popen(
            [sys.executable, "-m", "console.cli", "run", "--config", str(tmp / "console.toml")],
            stderr=open(tmp / "daemon.log", "wb"),  # noqa: SIM115 - lives as long as the process
        )
        procs.append(daemon)
        mqtt = ["-h", "127.0.0.1", "-p", str(port), "--nodelay"]
        sub = subprocess.Popen(["mosquitto_sub", *mqtt, "-q", "1", "-F", "%U %t %p",
                                "-t", f"chgk/{NODE}/events"], stdout=subprocess.PIPE)
        procs.append(sub)
        lines = Lines(sub)
        commands = subprocess.Popen(["mosquitto_pub", *mqtt, "-l", "-q", "1",
                                     "-t", f"chgk/{NODE}/host/command"], stdin=subprocess.PIPE)
        procs.append(commands)
        received: dict[int, tuple[int, dict[str, Any]]] = {}  # seq -> (receipt ns, event)
        _wait_ready(sim, commands, lines, received, tmp)
        first = min(received)  # the subscriber may have missed what came before it subscribed

        counts = [0]
        journal_before = journal_size(tmp)
        cpu_before, wall_before = cpu_seconds(daemon.pid), time.monotonic()
        storm = threading.Thread(target=chatter, args=(sim, stop, counts), daemon=True)
        storm.start()
        questions = 0
        question_failures = 0
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                write_line(commands, b'{"action":"next"}')
                _collect(lines, received, "signal_accepted")
                write_line(commands, b'{"action":"correct"}')
                _collect(lines, received, "question_ended")
                questions += 1
            except (TimeoutError, queue.Empty):
                question_failures += 1
                write_line(commands, b'{"action":"cancel"}')
        stop.set()
        storm.join(timeout=10)
        wall = time.monotonic() - wall_before
        cpu = cpu_seconds(daemon.pid) - cpu_before
        journal_bytes = journal_size(tmp) - journal_before
        published = _published_seq(mqtt)
        _drain(lines, received, published)
    finally:
        stop.set()
        stop_processes(procs)
        sim.stop()
    delays = [(at - event["press_at_ns"]) / 1e6 for at, event in received.values()
              if event["type"] == "signal_accepted"]
    return {
        "seconds": round(wall, 2),
        "pads": PADS,
        "presses_sent": counts[0],
        "questions": questions,
        "question_failures": question_failures,
        "events_published": published - first + 1,
        "events_received": len([s for s in received if first <= s <= published]),
        "events_lost": published - first + 1 - len([s for s in received if first <= s <= published]),
        "press_to_subscriber_ms": summary(delays) if delays else None,
        "cpu_percent_of_one_core": round(100 * cpu / wall, 1),
        "journal_bytes_per_s": round(journal_bytes / wall),
        "machine": machine(),
        "date": datetime.date.today().isoformat(),
    }


Received = dict[int, tuple[int, dict[str, Any]]]  # seq -> (receipt ns, event)


def _record(stamp: int, line: bytes, received: Received) -> dict[str, Any] | None:
    _topic, _, payload = line.partition(b" ")
    try:
        event: dict[str, Any] = json.loads(payload)
    except ValueError:
        return None
    received.setdefault(int(event["seq"]), (stamp, event))
    return event


def _collect(lines: Lines, received: dict[int, tuple[int, dict[str, Any]]], kind: str,
             timeout: float = 5.0) -> None:
    """Record every event received until one of `kind`."""
    deadline = time.monotonic() + timeout
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError(f"no {kind} in time")
        stamp, line = lines.queue.get(timeout=remaining)
        event = _record(stamp, line, received)
        if event is not None and event["type"] == kind:
            return


def _drain(lines: Lines, received: dict[int, tuple[int, dict[str, Any]]], published: int) -> None:
    """Record what is still on its way, until every published event is in or 3 s of quiet."""
    first = min(received)
    while len([s for s in received if first <= s <= published]) < published - first + 1:
        try:
            stamp, line = lines.queue.get(timeout=3.0)
        except queue.Empty:
            return
        _record(stamp, line, received)


def _published_seq(mqtt: list[str]) -> int:
    """The last seq on the events topic, as the daemon's retained state says (read after the
    state has settled: it follows each event by a few ms)."""
    time.sleep(0.5)
    out = subprocess.run(["mosquitto_sub", *mqtt, "-C", "1", "-W", "5", "-t", f"chgk/{NODE}/state"],
                         capture_output=True, check=True)
    return int(json.loads(out.stdout)["seq"])


def _config(serial_port: str, mqtt_port: int, journal: Path) -> str:
    players = "".join(f'[[players]]\nid = "p{i + 1}"\nname = "Игрок {i + 1}"\npad = "mcu:{i}"\n\n'
                      for i in range(PADS))
    return (
        f'[console]\nnode = "{NODE}"\njournal = "{journal}"\nresume = false\nlog_level = "warning"\n\n'
        f"[game]\nthemes = 0\nseed = 1\n\n{players}"
        f'[sources.mcu]\nkind = "serial_mcu"\nport = "{serial_port}"\n\n'
        f'[mqtt]\nhost = "127.0.0.1"\nport = {mqtt_port}\n\n[sound]\nenabled = false\n'
        "\n[display]\nhttp_port = 0\n"
    )


def _wait_ready(sim: SimulatedMcu, commands: subprocess.Popen[bytes], lines: Lines,
                received: dict[int, tuple[int, dict[str, Any]]], tmp: Path) -> None:
    """Up when a harmless command comes back as an event (recorded too) and the MCU link has
    set the lamps (the referee's first output, sent once the link is connected)."""
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        write_line(commands, b'{"action":"cancel"}')  # refused in idle: an error event, no effect
        try:
            _collect(lines, received, "error", timeout=0.5)
        except (TimeoutError, queue.Empty):
            continue
        if sim.wait_lamps(lambda on, blink: True, timeout=max(0.0, deadline - time.monotonic())):
            return
    log = (tmp / "daemon.log").read_text(errors="replace")
    raise RuntimeError(f"the daemon did not come up; its log:\n{log}")
