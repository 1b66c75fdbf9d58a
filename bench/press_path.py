"""`chgk-console bench press-path`: the console's own Python on a press, warm and after idling.

One process, no broker, no pseudo-terminal: an MCU session (drivers/mcu_session.py) connected
to a device driven by hand (real protocol frames, stamps from a hand-stepped clock), and the
«Своя игра» console (console/shell/runtime.py) fed what the serial link would hand it. For each
sample the host's `next` opens a question, then one PRESS frame goes through
`McuSession.receive` and `McuFeed.edge`/`watermark` (console/sources/mcu.py), up to the lamps and the event's
JSON (what the MQTT link then hands to paho). Each stage is timed with `perf_counter_ns`:

* ``decode``: the frame to the mapped, checked edge (the session);
* ``judge``: the edge to the lamp output being called (the console and the referee);
* ``event``: the lamps to the `signal_accepted` JSON.

Two runs: ``warm``, presses back to back, and ``idle``, with `idle_ms` of sleep before each
press, as at a table (presses seconds apart) and as in `bench latency` (20 ms between steps).
The difference is what the machine charges for running code it has not run for a while
(caches, TLB; on a VM, what the hypervisor did meanwhile). Prints figures; asserts nothing.
"""

from __future__ import annotations

import asyncio
import datetime
import statistics
import time
from typing import Any

from bench.latency import machine
from bench.report import print_result
from console.engine.model import HostAction
from console.games import config_from_dict
from console.shell.runtime import Console
from console.sources.mcu import McuFeed
from drivers.mcu_session import McuSession, PadEdge, Watermark
from firmware_proto import PROTOCOL_VERSION, FrameDecoder, Hello, Ping, Pong, Press, encode

MS = 1_000_000
RTT_NS = 200_000  # the hand-driven device's round trip: 0.2 ms, answered at its midpoint
STAGES = ("decode", "judge", "event", "total")


class _Device:
    """A button box driven by hand: its timer reads host µs plus an offset."""

    def __init__(self) -> None:
        self.seq = 0

    @staticmethod
    def us(host_ns: int) -> int:
        return (host_ns // 1000 + 123_456) % (1 << 32)

    def press(self, host_ns: int) -> bytes:
        self.seq = (self.seq + 1) % (1 << 16)
        return encode(Press(self.seq, self.us(host_ns), 0b0001))


class PressTable:
    """The session, the console and the hand-stepped clock they share."""

    def __init__(self) -> None:
        config = config_from_dict({
            "console": {"node": "bench", "journal": ""},
            "players": [{"id": f"p{i + 1}", "name": f"Игрок {i + 1}", "pad": f"mcu:{i}"} for i in range(4)],
            "sources": {"mcu": {"kind": "serial_mcu", "port": "/dev/null"}},
            "sound": {"enabled": False},
            "game": {"themes": 0, "seed": 1},
        }, "bench")
        self.now = 1_000 * 1_000_000_000
        self.device = _Device()
        self.session = McuSession("bench")
        self.console = Console(config, clock=lambda: self.now)
        self.console.sources.lamp_outputs["mcu"] = self  # set_lamps below
        self.feed = McuFeed(self.console.sources, "mcu")  # what the MCU link calls on the press path
        self.console.wire_watchers.append(self._published)
        self.stamps: dict[str, int] = {}
        self._connect()

    def set_lamps(self, on: int, blink: int) -> None:
        self.stamps.setdefault("lamps", time.perf_counter_ns())

    def _published(self, wire: dict[str, Any]) -> None:
        if wire["type"] == "signal_accepted":
            self.stamps.setdefault("event", time.perf_counter_ns())

    def _connect(self) -> None:
        self.session.opened(self.now)
        self.now += RTT_NS
        hello = Hello(PROTOCOL_VERSION, 4, 1, self.device.us(self.now - RTT_NS // 2), "bench")
        self.session.receive(encode(hello), self.now)
        self._ping()

    def _ping(self) -> None:
        """Answer the session's PING if one is due (the clock's samples, as on the line)."""
        due = self.session.next_deadline()
        if due is None or due > self.now:
            return
        for frame in self.session.on_timer(self.now).writes:
            (msg,) = FrameDecoder().feed(frame)
            if isinstance(msg, Ping):
                self.now += RTT_NS
                pong = Pong(msg.ping_id, self.device.us(self.now - RTT_NS // 2))
                self.session.receive(encode(pong), self.now)

    def hand_on(self, inputs: list[Any]) -> None:
        """What McuLink does with the session's inputs on the press path."""
        for item in inputs:
            if type(item) is PadEdge:
                self.feed.edge(item)
            elif type(item) is Watermark:
                self.feed.watermark(item)

    def question(self) -> dict[str, int]:
        """One question: `next`, a press 10 ms later (read 0.3 ms after it), `correct`."""
        self._ping()
        self.now += 100 * MS
        self.console.host(HostAction.NEXT)
        frame = self.device.press(self.now + 10 * MS)
        self.now += 10 * MS + 300_000
        self.stamps = {"start": time.perf_counter_ns()}
        out = self.session.receive(frame, self.now)
        self.stamps["decoded"] = time.perf_counter_ns()
        self.hand_on(out.inputs)
        s = self.stamps
        self.now += MS
        self.console.host(HostAction.CORRECT)
        return {"decode": s["decoded"] - s["start"], "judge": s["lamps"] - s["decoded"],
                "event": s["event"] - s["lamps"], "total": s["event"] - s["start"]}


async def _measure(samples: int, idle_s: float) -> dict[str, dict[str, float]]:
    table = PressTable()
    for _ in range(200):  # the first questions load and build what every later one reuses
        table.question()
    runs: dict[str, list[float]] = {stage: [] for stage in STAGES}
    for _ in range(samples):
        if idle_s:
            await asyncio.sleep(idle_s)
        for stage, ns in table.question().items():
            runs[stage].append(ns / 1000)
    return {stage: {"p50": round(statistics.median(us), 1),
                    "p90": round(sorted(us)[int(0.9 * (len(us) - 1))], 1)} for stage, us in runs.items()}


def run(samples: int = 300, idle_ms: float = 20.0) -> dict[str, Any]:
    warm = asyncio.run(_measure(samples, 0.0))
    idle = asyncio.run(_measure(samples, idle_ms / 1000))
    return {
        "samples": samples,
        "idle_ms": idle_ms,
        "warm_us": warm,
        "idle_us": idle,
        "idle_over_warm": round(idle["total"]["p50"] / warm["total"]["p50"], 2),
        "machine": machine(),
        "date": datetime.date.today().isoformat(),
    }


def main(samples: int = 300, as_json: bool = False) -> int:
    print_result(run(samples), as_json)
    return 0
