"""The button box / top sensor on a serial line: a real MCU, or one simulated on a pty."""

from __future__ import annotations

from console.runtime import Console
from console.sources import SourceSettings, Stop
from drivers.sim_mcu import SimulatedMcu


def attach_serial(console: Console, name: str, settings: SourceSettings) -> Stop | None:
    console.add_mcu(name, settings.port, settings.baudrate)
    return None


def attach_simulated(console: Console, name: str, settings: SourceSettings) -> Stop | None:
    """An MCU simulated on a pseudo-terminal speaking the real protocol (the demo's table)."""
    sim = SimulatedMcu(pads=settings.pads)
    sim.start()
    console.add_mcu(name, sim.port, settings.baudrate)
    return sim.stop
