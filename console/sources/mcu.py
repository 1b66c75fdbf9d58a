"""The button box / top sensor on a serial line: a real MCU, or one simulated on a pty.

Contract: `add_mcu(host, name, port, baudrate)` builds the MCU link of source `name` and
hands it to the console (`SourceHost.add_link`), which runs it (and its reconnects) and sets
its lamps. `McuFeed` is the link's translation into the console's inputs: in a game that
takes buttons, each scan's presses and the watermark after it go to the referee together
(`SourceHost.scan`), a HEARTBEAT's held pads and each edge to the held-button view after
the referee's decision; in a game that takes the top's angle from this source, the sensor's
readings do (`SourceHost.angle`). `SerialMcuSettings` and `SimulatedMcuSettings` are this backend's kinds in
the source registry: their `[sources.NAME]` settings and `attach`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from console.engine.model import AngleSample, Press
from console.engine.model import Watermark as SourceWatermark
from console.sources import ANGLE, BUTTONS, SourceSettings, Stop
from console.sources.host import SourceHost
from drivers.mcu_serial import AngleReading, HeldPads, McuLink, PadEdge, Watermark
from drivers.sim_mcu import SimulatedMcu
from firmware_proto import MAX_PADS

__all__ = ["McuFeed", "SerialMcuSettings", "SimulatedMcuSettings", "add_mcu"]

log = logging.getLogger("chgk.console")


class McuFeed:
    """One MCU's callbacks, in the console's terms (see the module docstring). The link calls
    them in device order: a scan's edges, then the watermark that settles them."""

    def __init__(self, host: SourceHost, source: str) -> None:
        self.host = host
        self.source = source
        self.pads = [f"{source}:{pad}" for pad in range(MAX_PADS)]  # built once: the press path
        self._scan: list[Press] = []  # presses of the scan being delivered
        self._edges: list[PadEdge] = []  # its edges, for the held-button view
        self._watch_held = host.watches_buttons()

    def edge(self, edge: PadEdge) -> None:
        """A scan: its presses wait for the watermark the link sends right after."""
        if self._watch_held:
            self._edges.append(edge)
        if edge.pressed:
            admit = self.host.admit_press
            for pad in edge.pads:
                name = self.pads[pad]
                if admit(name, edge.at_ns):
                    self._scan.append(Press(self.source, name, edge.at_ns))

    def watermark(self, mark: Watermark) -> None:
        """The MCU has reported everything up to `mark.ns` (and may have lost what came after
        `mark.lost_from_ns`): the scan and the mark go in one go; the held-button view takes
        the scan's edges after that decision, whatever the referee did with it."""
        scan, self._scan = self._scan, []
        try:
            self.host.scan(scan, SourceWatermark(self.source, mark.ns, mark.lost_from_ns))
        finally:
            edges, self._edges = self._edges, []
            for edge in edges:
                for pad in edge.pads:
                    try:  # the view decides nothing: one edge it fails on must not hide the others
                        self.host.button_edge(self.source, self.pads[pad], edge.pressed, edge.at_ns)
                    except Exception:
                        log.exception("the held-button view failed on %s", self.pads[pad])

    def held(self, held: HeldPads) -> None:
        """A HEARTBEAT: exactly these pads are down (it corrects what lost frames or a pad down
        before the box connected left wrong in the held-button view)."""
        self.host.pads_down(self.source, [self.pads[pad] for pad in held.pads], held.at_ns)

    def angle(self, reading: AngleReading) -> None:
        """An angle sample of the top, on the host timebase."""
        self.host.angle(AngleSample(reading.at_ns, reading.raw, reading.status))


def add_mcu(host: SourceHost, name: str, port: str, baudrate: int) -> McuLink:
    """An MCU on a serial port: its pads for the button games, the top's angle at the table."""
    feed = McuFeed(host, name)
    buttons = host.takes(BUTTONS)
    # At the table only the configured angle source feeds the stop detector (games/chgk/kind.py).
    angle = host.takes(ANGLE) and host.takes_angles_from(name)
    link = McuLink(
        port,
        name=name,
        baudrate=baudrate,
        # Pads wired to a box at the table (or a top sensor on a buzzer box) play no part.
        on_edge=feed.edge if buttons else (lambda edge: None),
        on_watermark=feed.watermark if buttons else None,
        on_status=lambda state, detail: host.report_status(name, state, detail),
        on_error=lambda message: host.report_error(name, message),
        on_angle=feed.angle if angle else None,
        angle_rate_hz=host.angle_rate_hz() if angle else 0.0,
        on_held=feed.held if buttons and host.watches_buttons() else None,
    )
    host.add_link(name, link)
    return link


@dataclass(frozen=True, kw_only=True)
class SerialMcuSettings(SourceSettings):
    """``kind = "serial_mcu"``: a button box or top sensor on a serial port."""

    port: str = ""  # the device path (best its /dev/serial/by-id/ link)
    baudrate: int = 115200

    def pad_count(self) -> int:
        return MAX_PADS  # the wire protocol's pad mask is 16 bits (firmware_proto/PROTOCOL.md)

    def problem(self) -> tuple[str, str] | None:
        return None if self.port else ("port", "a serial_mcu source needs a port")

    def device(self) -> str:
        return self.port

    def replayed(self) -> dict[str, object]:
        return {**super().replayed(), **({"port": self.port} if self.port else {})}

    def attach(self, host: SourceHost, name: str) -> Stop | None:
        add_mcu(host, name, self.port, self.baudrate)
        return None


@dataclass(frozen=True, kw_only=True)
class SimulatedMcuSettings(SourceSettings):
    """``kind = "simulated_mcu"``: an MCU simulated on a pseudo-terminal speaking the real
    protocol (the demo's table)."""

    pads: int = 4  # how many pads it has
    baudrate: int = 115200

    def pad_count(self) -> int:
        return self.pads

    def replayed(self) -> dict[str, object]:
        return {**super().replayed(), "pads": self.pads}

    def attach(self, host: SourceHost, name: str) -> Stop | None:
        sim = SimulatedMcu(pads=self.pads)
        sim.start()
        add_mcu(host, name, sim.port, self.baudrate)
        return sim.stop
