"""`chgk-console bench cpu`: µs of CPU the daemon's own Python spends per input, to judge a Pi.

One process, no broker, no serial line: the console (console/shell/runtime.py) fed on a
hand-stepped clock what its sources hand it, each input's CPU time taken with
`time.process_time_ns` (this process's CPU, not the wall clock: a stall of the machine does
not count):

* ``press_us``: one PRESS frame of the MCU through `McuSession.receive` and `McuFeed` to the
  lamps and the `signal_accepted` event's JSON («Своя игра»; bench/press_path.py's table);
* ``angle_sample_us``: one ANGLE sample of a spinning top through the table's spin detector
  («Что? Где? Когда?», a 1-kHz stream, as from the box);
* ``host_command_us``: one host command from MQTT (`Console.on_command`: the JSON parsed,
  checked, journalled-free, judged, the event published), `next` and `cancel` alternately.

And a speed yardstick of this machine's Python: ``nbody_s``, the time of the Computer Language
Benchmarks Game's n-body in pure Python for 500 000 steps, against the published time of the
same program on a Raspberry Pi 4 (5 000 000 steps in 158.26 s at 1.5 GHz, Python 3, the
performance governor: chaitanyamehta.github.io, «Performance Analysis of Languages on
Raspberry Pi»), gives ``pi4_ratio`` (how many times slower a Pi 4's core runs this Python); a
Pi 5's core is taken as 2737.49 / 1477.83 = 1.85 times a Pi 4's (sysbench cpu, one thread:
leoncode.co.uk, «Raspberry Pi CPU Benchmarks»). From them: each input's estimated µs on a
Pi 4 and a Pi 5, and what a button storm (`storm_presses_per_s`, as bench storm's chatter)
— at most: each press costed as a full decision — and a 1-kHz spin would cost of one core
there. Prints figures; asserts nothing.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from bench.latency import machine
from bench.press_path import PressTable
from bench.report import print_result
from console.engine.model import AngleSample, HostAction
from console.games import config_from_dict
from console.shell.runtime import Console

MS = 1_000_000
PI4_NBODY_S_PER_STEP = 158.26 / 5_000_000  # the published Pi 4 figure (see the module docstring)
PI5_OVER_PI4 = 2737.49 / 1477.83  # sysbench single-thread, Pi 5 over Pi 4
STORM_PRESSES_PER_S = 2000  # a chattering box: 8 pads bouncing (bench storm)
SPIN_RATE_HZ = 1000


def main(samples: int = 2000, as_json: bool = False) -> int:
    press = _presses(samples)
    angle = _angles(samples * 5)
    command = _commands(samples)
    nbody_s, steps = nbody(500_000)
    ratio = (PI4_NBODY_S_PER_STEP * steps) / nbody_s
    pi4 = {"press_us": press * ratio, "angle_sample_us": angle * ratio, "host_command_us": command * ratio}
    result: dict[str, Any] = {
        "machine": machine(),
        "press_us": round(press, 1),
        "angle_sample_us": round(angle, 1),
        "host_command_us": round(command, 1),
        "nbody_s": round(nbody_s, 2),
        "pi4_ratio": round(ratio, 2),
        "pi4_us": {k: round(v, 1) for k, v in pi4.items()},
        "pi5_us": {k: round(v / PI5_OVER_PI4, 1) for k, v in pi4.items()},
        # Every press decided in full: an upper bound (a storm's repeats are coalesced or
        # refused, cheaper than a decision).
        "pi4_storm_core_percent_at_most": round(pi4["press_us"] * STORM_PRESSES_PER_S / 1e4, 1),
        "pi4_spin_1khz_core_percent": round(pi4["angle_sample_us"] * SPIN_RATE_HZ / 1e4, 1),
        "pi5_spin_1khz_core_percent": round(pi4["angle_sample_us"] / PI5_OVER_PI4 * SPIN_RATE_HZ / 1e4, 1),
    }
    print_result(result, as_json)
    return 0


def _presses(samples: int) -> float:
    """The median µs of CPU of one press, from the frame to the event's JSON."""
    table = PressTable()
    for _ in range(200):  # warm: the first questions build what the later ones reuse
        table.question()
    runs: list[float] = []
    for _ in range(samples):
        table.now += 100 * MS
        table.console.host(HostAction.NEXT)
        frame = table.device.press(table.now + 10 * MS)
        table.now += 10 * MS + 300_000
        table.stamps = {}
        start = time.process_time_ns()
        table.hand_on(table.session.receive(frame, table.now).inputs)
        runs.append((time.process_time_ns() - start) / 1000)
        table.now += MS
        table.console.host(HostAction.CORRECT)
    return statistics.median(runs)


def _angles(samples: int) -> float:
    """The median µs of CPU of one angle sample of a spinning top, at 1 kHz."""
    now = [1_000 * 1_000_000_000]
    config = config_from_dict({
        "console": {"node": "bench", "journal": ""}, "game": {"kind": "chgk"},
        "sources": {"top": {"kind": "simulated_mcu", "pads": 1}},
        "teams": [{"id": "t1", "name": "Совы"}], "table": {"team": "t1"}, "sound": {"enabled": False},
    }, "bench")
    console = Console(config, clock=lambda: now[0])
    raw = 0
    runs: list[float] = []
    for i in range(samples + 500):
        now[0] += MS  # 1 kHz
        raw = (raw + 37) % 4096  # a top turning about 9 turns a second
        start = time.process_time_ns()
        console.feed([AngleSample(now[0], raw)])
        if i >= 500:
            runs.append((time.process_time_ns() - start) / 1000)
    return statistics.median(runs)


def _commands(samples: int) -> float:
    """The median µs of CPU of one host command from MQTT (`next`, then `cancel`)."""
    table = PressTable()
    runs: list[float] = []
    for i in range(samples + 200):
        table.now += 100 * MS
        payload = b'{"action": "next"}' if i % 2 == 0 else b'{"action": "cancel"}'
        start = time.process_time_ns()
        table.console.commands.on_command(payload)
        if i >= 200:
            runs.append((time.process_time_ns() - start) / 1000)
    return statistics.median(runs)


def nbody(steps: int) -> tuple[float, int]:
    """The Benchmarks Game's n-body (the plain Python program's arithmetic), `steps` steps:
    (seconds of CPU, steps)."""
    pi = 3.14159265358979323
    solar_mass = 4 * pi * pi
    days_per_year = 365.24
    dpy = days_per_year
    pos = [[0.0, 0.0, 0.0],
           [4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01],
           [8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01],
           [1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01],
           [1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01]]
    vel = [[0.0, 0.0, 0.0],
           [1.66007664274403694e-03 * dpy, 7.69901118419740425e-03 * dpy, -6.90460016972063023e-05 * dpy],
           [-2.76742510726862411e-03 * dpy, 4.99852801234917238e-03 * dpy, 2.30417297573763929e-05 * dpy],
           [2.96460137564761618e-03 * dpy, 2.37847173959480950e-03 * dpy, -2.96589568540237556e-05 * dpy],
           [2.68067772490389322e-03 * dpy, 1.62824170038242295e-03 * dpy, -9.51592254519715870e-05 * dpy]]
    mass = [solar_mass, 9.54791938424326609e-04 * solar_mass, 2.85885980666130812e-04 * solar_mass,
            4.36624404335156298e-05 * solar_mass, 5.15138902046611451e-05 * solar_mass]
    pairs = [(i, j) for i in range(len(pos)) for j in range(i + 1, len(pos))]
    dt = 0.01
    start = time.process_time()
    for _ in range(steps):
        for i, j in pairs:
            p1, p2, v1, v2 = pos[i], pos[j], vel[i], vel[j]
            dx, dy, dz = p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2]
            mag = dt * ((dx * dx + dy * dy + dz * dz) ** (-1.5))
            b1m, b2m = mass[i] * mag, mass[j] * mag
            v1[0] -= dx * b2m
            v1[1] -= dy * b2m
            v1[2] -= dz * b2m
            v2[0] += dx * b1m
            v2[1] += dy * b1m
            v2[2] += dz * b1m
        for r, v in zip(pos, vel, strict=True):
            r[0] += dt * v[0]
            r[1] += dt * v[1]
            r[2] += dt * v[2]
    return time.process_time() - start, steps
