"""The button box / top sensor on a serial line: a real MCU, or one simulated on a pty.

Contract: `add_mcu(console, name, port, baudrate)` builds the MCU link of source `name` on a
`Console`: in a game that takes buttons, each scan's presses and the watermark after it go to
the referee; in a game that takes the top's angle, the sensor's readings do. The console runs
the link (and its reconnects) and sets its lamps. The `attach_*` functions are this backend's
entries in the source registry.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from console.sources import ANGLE, BUTTONS, SourceSettings, Stop
from drivers.mcu_serial import McuLink
from drivers.sim_mcu import SimulatedMcu

if TYPE_CHECKING:
    from console.shell.runtime import Console

__all__ = ["add_mcu", "attach_serial", "attach_simulated"]


def add_mcu(console: Console, name: str, port: str, baudrate: int) -> McuLink:
    """An MCU on a serial port: its pads for «Своя игра», the top's angle at the table."""
    buttons = BUTTONS in console.game.takes
    # At the table only the configured angle source feeds the stop detector (games/chgk.py).
    angle = ANGLE in console.game.takes and console.config.table.angle_source in ("", name)
    link = McuLink(
        port,
        name=name,
        baudrate=baudrate,
        # Pads wired to a box at the table (or a top sensor on a buzzer box) play no part.
        # partial, not lambda: one Python frame less on the press path (docs/performance.md).
        on_edge=partial(console.mcu_edge, name) if buttons else (lambda edge: None),
        on_watermark=partial(console.mcu_watermark, name) if buttons else None,
        on_lost=partial(console.mcu_lost, name) if buttons else None,
        on_status=lambda state, detail: console.report_status(name, state, detail),
        on_error=lambda message: console.report_error(name, message),
        on_angle=console.mcu_angle if angle else None,
        on_held=partial(console.mcu_held, name) if buttons else None,
    )
    console.links[name] = link
    return link


def attach_serial(console: Console, name: str, settings: SourceSettings) -> Stop | None:
    add_mcu(console, name, settings.port, settings.baudrate)
    return None


def attach_simulated(console: Console, name: str, settings: SourceSettings) -> Stop | None:
    """An MCU simulated on a pseudo-terminal speaking the real protocol (the demo's table)."""
    sim = SimulatedMcu(pads=settings.pads)
    sim.start()
    add_mcu(console, name, sim.port, settings.baudrate)
    return sim.stop
