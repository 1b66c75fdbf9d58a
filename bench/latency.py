"""`chgk-console bench latency`: press to display, press to lamp, and the broker's own floor.

Everything runs on loopback as on the table: a real mosquitto (TCP_NODELAY on), the daemon
as a separate process (`chgk-console run`) whose serial MCU is a simulated MCU on a
pseudo-terminal owned by this benchmark, and mosquitto's C subscriber. For each sample:

* press: a PRESS frame is written to the serial line (t0); the subscriber receives the
  ``signal_accepted`` event (t1); the simulated MCU reads the LAMPS frame (t2).
* floor: the same payload is written to `mosquitto_pub -l` (t3) and received by the same
  subscriber (t4): what any publisher costs on this machine.
* serial floor: a LAMPS-sized frame is written to a second pseudo-terminal (t5) whose other
  end is held by a process that only echoes what it reads, and read back here (t6): the two
  pty hops of press -> lamp, with no console in between.

t1 and t4 are taken by mosquitto_sub itself (`-F %U`, the wall clock when it handles the
message, mapped onto the monotonic clock), so neither is delayed by this Python process,
whose simulated-MCU thread is busy with the lamp frame at about that moment.

`press_to_subscriber = t1 - t0`, `press_to_lamp = t2 - t0`, `floor = t4 - t3`,
`serial_floor = t6 - t5`; ratio is press/floor at each percentile. The console sets the
lamps before it publishes the event, so the lamp should come first: `lamp_lead_ms = t1 - t2`
(positive when it did) and `lamp_before_subscriber`, the share of samples in which it did,
show whether it does. The
machine (CPUs, architecture, kernel, Python, mosquitto) and the date come with the figures,
and `cpu_busy_percent`: how busy all CPUs were while sampling (this benchmark, the daemon and
mosquitto included; anything else running on the machine shows up there, and in the tails),
of which `cpu_steal_percent` was taken by the hypervisor (a VM's neighbours).
The host's "next" and "correct" keys go in through the console's MQTT command topic between
samples. Prints figures; asserts nothing.
"""

from __future__ import annotations

import datetime
import os
import platform
import pty
import queue
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tty
from pathlib import Path
from typing import Any

from bench.report import missing_tools, print_result, stop_processes
from drivers.sim_mcu import SimulatedMcu
from firmware_proto import Lamps, encode

NODE = "bench"
LAMPS_FRAME = encode(Lamps(1, 0))  # what the console writes when pad 0 wins
FLOOR_TOPIC = "bench/floor"
# Between a sample's steps. Real presses are seconds apart; this is longer than the 5 ms by
# which the state snapshot follows each decision, so one sample's traffic does not overlap
# the next one's, and short enough for 300 samples in well under a minute.
GAP_S = 0.02


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def summary(values: list[float]) -> dict[str, float]:
    return {"p50": round(percentile(values, 50), 4), "p99": round(percentile(values, 99), 4),
            "mean": round(statistics.fmean(values), 4), "max": round(max(values), 4)}


def wall_to_monotonic_offset() -> int:
    """time.time_ns() - time.monotonic_ns(), from the tightest of a few paired readings."""
    best: tuple[int, int] | None = None
    for _ in range(50):
        a = time.monotonic_ns()
        wall = time.time_ns()
        b = time.monotonic_ns()
        if best is None or b - a < best[0]:
            best = (b - a, wall - (a + b) // 2)
    assert best is not None
    return best[1]


class Lines:
    """mosquitto_sub's output (`%U topic payload`): each line with its receive time, monotonic."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.queue: queue.Queue[tuple[int, bytes]] = queue.Queue()
        self._offset = wall_to_monotonic_offset()
        threading.Thread(target=self._pump, args=(proc,), daemon=True).start()

    def _pump(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            stamp, _, rest = line.partition(b" ")
            seconds, _, nanos = stamp.partition(b".")
            wall = int(seconds) * 1_000_000_000 + int(nanos.ljust(9, b"0")[:9])
            self.queue.put((wall - self._offset, rest))

    def wait(self, predicate: Any, timeout: float = 5.0) -> tuple[int, bytes]:
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("the subscriber printed nothing matching in time")
            stamp, line = self.queue.get(timeout=remaining)
            if predicate(line):
                return stamp, line


# The peer of the serial floor: echoes what it reads on its end of the pty (fd argv[1]) until
# the benchmark closes its end (EIO on a pty).
_ECHO = """
import os, sys
fd = int(sys.argv[1])
try:
    while data := os.read(fd, 64):
        os.write(fd, data)
except OSError:
    pass
"""


class SerialFloor:
    """A pseudo-terminal with an echoing process on its far end: one write-and-read-back
    crosses a pty twice, as a PRESS in and a LAMPS frame out do, with nothing in between."""

    def __init__(self) -> None:
        self._ours, theirs = pty.openpty()
        tty.setraw(theirs)  # bytes as they are, like the console's serial port
        self.proc = subprocess.Popen([sys.executable, "-c", _ECHO, str(theirs)], pass_fds=(theirs,))
        os.close(theirs)

    def round_trip_ns(self, frame: bytes) -> int:
        start = time.monotonic_ns()
        os.write(self._ours, frame)
        got = b""
        while len(got) < len(frame):
            got += os.read(self._ours, 64)
        return time.monotonic_ns() - start

    def close(self) -> None:
        os.close(self._ours)


def write_line(proc: subprocess.Popen[bytes], payload: bytes) -> int:
    assert proc.stdin is not None
    stamp = time.monotonic_ns()
    proc.stdin.write(payload + b"\n")
    proc.stdin.flush()
    return stamp


def is_event(kind: str) -> Any:
    marker = f'"type":"{kind}"'.encode()
    return lambda line: line.startswith(b"chgk/") and marker in line


def main(samples: int = 300, as_json: bool = False, journal: bool = False) -> int:
    """`journal`: the daemon keeps its journal, as the shipped config does (in the benchmark's
    temporary folder, on the same file system); by default it keeps none."""
    if missing_tools(("mosquitto", "mosquitto_sub", "mosquitto_pub")):
        return 2
    with tempfile.TemporaryDirectory(prefix="chgk-bench-", dir="/var/tmp" if journal else None) as tmp:
        result = _run(Path(tmp), samples, journal)
    print_result(result, as_json)
    return 0


def _run(tmp: Path, samples: int, journal: bool) -> dict[str, Any]:
    port = free_port()
    (tmp / "mosquitto.conf").write_text(
        f"listener {port} 127.0.0.1\nallow_anonymous true\nset_tcp_nodelay true\n"
        "persistence false\nlog_dest none\n"
    )
    procs: list[subprocess.Popen[bytes]] = []
    serial_floor: SerialFloor | None = None
    sim = SimulatedMcu(pads=4, link_path=str(tmp / "mcu"))
    sim.start()
    try:
        procs.append(subprocess.Popen(["mosquitto", "-c", str(tmp / "mosquitto.conf")]))
        wait_port(port)
        (tmp / "console.toml").write_text(_config(sim.port, port, tmp / "journal.jsonl" if journal else None))
        daemon = subprocess.Popen(
            [sys.executable, "-m", "console.cli", "run", "--config", str(tmp / "console.toml")],
            stderr=open(tmp / "daemon.log", "wb"),  # noqa: SIM115 - lives as long as the process
        )
        procs.append(daemon)
        mqtt = ["-h", "127.0.0.1", "-p", str(port), "--nodelay"]
        sub = subprocess.Popen(["mosquitto_sub", *mqtt, "-F", "%U %t %p", "-t", f"chgk/{NODE}/events",
                                "-t", FLOOR_TOPIC], stdout=subprocess.PIPE)
        procs.append(sub)
        lines = Lines(sub)
        commands = subprocess.Popen(["mosquitto_pub", *mqtt, "-l", "-q", "1",
                                     "-t", f"chgk/{NODE}/host/command"], stdin=subprocess.PIPE)
        floor_pub = subprocess.Popen(["mosquitto_pub", *mqtt, "-l", "-t", FLOOR_TOPIC],
                                     stdin=subprocess.PIPE)
        procs += [commands, floor_pub]
        serial_floor = SerialFloor()
        procs.append(serial_floor.proc)
        _wait_ready(sim, commands, lines, tmp)
        cpu_before = cpu_times()
        press_ms: list[float] = []
        lamp_ms: list[float] = []
        floor_ms: list[float] = []
        serial_floor_ms: list[float] = []
        lost = 0
        while len(press_ms) < samples and lost < samples // 10 + 3:
            try:
                one_press, one_lamp, one_floor = _sample(sim, commands, floor_pub, lines)
            except (TimeoutError, queue.Empty):
                lost += 1  # reported, and the table is brought back to idle
                write_line(commands, b'{"action":"cancel"}')
                time.sleep(0.5)
                continue
            press_ms.append(one_press)
            lamp_ms.append(one_lamp)
            floor_ms.append(one_floor)
            time.sleep(GAP_S)
            serial_floor_ms.append(serial_floor.round_trip_ns(LAMPS_FRAME) / 1e6)
        busy, steal, total = (after - before
                              for after, before in zip(cpu_times(), cpu_before, strict=True))
    finally:
        if serial_floor is not None:
            serial_floor.close()  # its echo sees the end of file and stops
        stop_processes(procs)
        sim.stop()
    if not press_ms:
        raise RuntimeError("no sample completed; see the daemon's log")
    to_subscriber, floor = summary(press_ms), summary(floor_ms)
    lead_ms = [press - lamp for press, lamp in zip(press_ms, lamp_ms, strict=True)]
    return {
        "samples": len(press_ms),
        "journal": journal,
        "lost_samples": lost,
        "press_to_subscriber_ms": to_subscriber,
        "floor_ms": floor,
        "ratio": {q: round(to_subscriber[q] / floor[q], 3) for q in ("p50", "p99")},
        "press_to_lamp_ms": summary(lamp_ms),
        "serial_floor_ms": summary(serial_floor_ms),
        "lamp_lead_ms": summary(lead_ms),
        "lamp_before_subscriber": round(sum(lead > 0 for lead in lead_ms) / len(lead_ms), 3),
        "cpu_busy_percent": round(100 * busy / total, 1) if total else None,
        "cpu_steal_percent": round(100 * steal / total, 1) if total else None,
        "machine": machine(),
        "date": datetime.date.today().isoformat(),
    }


def cpu_times() -> tuple[int, int, int]:
    """(busy, steal, total) jiffies of all CPUs so far, from /proc/stat (idle and iowait are
    not busy; steal, time the hypervisor gave to someone else, is)."""
    with open("/proc/stat") as stat:
        fields = [int(f) for f in stat.readline().split()[1:]]
    total = sum(fields[:8])  # guest time is already counted in user time
    return total - fields[3] - fields[4], fields[7], total


def machine() -> dict[str, Any]:
    """What the figures were measured on: they mean little without it."""
    version = subprocess.run(["mosquitto", "-h"], capture_output=True, text=True, check=False)
    return {
        "cpus": os.cpu_count(),
        "nproc": len(os.sched_getaffinity(0)),  # what `nproc` prints: the CPUs this may use
        "arch": platform.machine(),  # `uname -m`
        "kernel": platform.release(),
        "python": sys.version.split()[0],
        "mosquitto": version.stdout.split("\n", 1)[0].removeprefix("mosquitto version "),
    }


def _sample(sim: SimulatedMcu, commands: subprocess.Popen[bytes], floor_pub: subprocess.Popen[bytes],
            lines: Lines) -> tuple[float, float, float]:
    """One question: (press to subscriber, press to lamp, floor), in ms."""
    write_line(commands, b'{"action":"next"}')
    lines.wait(is_event("question_started"))
    time.sleep(GAP_S)
    lamps_before = len(sim.lamp_log)
    t0 = sim.press(0)
    t1, event_line = lines.wait(is_event("signal_accepted"))
    if sim.wait_lamps(lambda on, blink: bool(on & 1), timeout=5.0) is None:
        raise TimeoutError("the lamp did not light")
    t2 = next(ns for ns, on, _ in sim.lamp_log[lamps_before:] if on & 1)
    sim.release(0)
    write_line(commands, b'{"action":"correct"}')
    lines.wait(is_event("question_ended"))
    time.sleep(GAP_S)
    payload = event_line.split(b" ", 1)[1].rstrip(b"\n")
    t3 = write_line(floor_pub, payload)
    t4, _ = lines.wait(lambda line: line.startswith(FLOOR_TOPIC.encode()))
    return (t1 - t0) / 1e6, (t2 - t0) / 1e6, (t4 - t3) / 1e6


def _config(serial_port: str, mqtt_port: int, journal: Path | None) -> str:
    players = "".join(f'[[players]]\nid = "p{i + 1}"\nname = "Игрок {i + 1}"\npad = "mcu:{i}"\n\n'
                      for i in range(4))
    return (
        f'[console]\nnode = "{NODE}"\njournal = "{journal or ""}"\nresume = false\nlog_level = "warning"\n\n'
        f"[game]\nthemes = 0\nseed = 1\n\n{players}"
        f'[sources.mcu]\nkind = "serial_mcu"\nport = "{serial_port}"\n\n'
        f'[mqtt]\nhost = "127.0.0.1"\nport = {mqtt_port}\n\n[sound]\nenabled = false\n'
        "\n[display]\nhttp_port = 0\n"
    )


def wait_port(port: int, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(GAP_S)
    raise RuntimeError(f"mosquitto did not listen on {port}")


def _wait_ready(sim: SimulatedMcu, commands: subprocess.Popen[bytes], lines: Lines, tmp: Path) -> None:
    """Up when a harmless command comes back as an event and the MCU link has set the lamps."""
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        write_line(commands, b'{"action":"cancel"}')  # refused in idle: an error event, no effect
        try:
            lines.wait(is_event("error"), timeout=0.5)
        except (TimeoutError, queue.Empty):
            continue
        # The referee's first output turns every lamp off; the link sends it once connected.
        if sim.wait_lamps(lambda on, blink: True, timeout=max(0.0, deadline - time.monotonic())):
            return
    log = (tmp / "daemon.log").read_text(errors="replace")
    raise RuntimeError(f"the daemon did not come up; its log:\n{log}")
