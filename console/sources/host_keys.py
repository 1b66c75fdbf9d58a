"""The host's keys on a console: keyboards, clickers and pedals (evdev), and GPIO pedals.

Contract: `add_host_keys(console, section)` builds the reader of one ``[[host.keys]]`` device
on a `Console` and registers it as a local input (opened when the console runs, released when
it stops): each mapped key going down reaches the game as that key's host action, parsed by
the game exactly as the same action sent as a JSON host command, at the kernel's time of the
press. `add_host_inputs(console)` adds every host key and pedal of the console's config (the
daemon calls it). The device's status ("keys:<device>") is reported like a source's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from console.sources.gpio import add_pedal
from drivers.evdev_keys import KeyReader

if TYPE_CHECKING:
    from console.config import KeyDeviceSection
    from console.games.kind import JsonObject
    from console.shell.runtime import Console

__all__ = ["add_host_inputs", "add_host_keys"]


def add_host_keys(console: Console, section: KeyDeviceSection, *, retry_s: float = 1.0) -> KeyReader:
    """One key device's keys as host actions (see the module docstring)."""
    commands: dict[int, JsonObject] = {}
    for binding in section.bindings:
        command = {"action": binding.action}
        console.game.parse_command(command, 0)  # ValueError now, not at the first press
        commands[binding.code] = command
    name = section.name

    def on_key(code: int, at_ns: int) -> None:
        console.feed([console.game.parse_command(commands[code], at_ns)])

    reader = KeyReader(
        section.device, commands, kind=section.kind,
        on_key=on_key,
        on_status=lambda state, detail: console.report_status(name, state, detail),
        on_error=lambda message: console.report_error(name, message),
        clock=console.clock, retry_s=retry_s,
    )
    console.local_inputs.append(reader)
    return reader


def add_host_inputs(console: Console) -> None:
    """Every pedal (host.pedal_pin, [[host.pedals]]) and key device ([[host.keys]]) of the config."""
    host = console.config.host
    for name, pedal in host.all_pedals():
        add_pedal(console, pedal.pin, pedal.action, pin_factory=pedal.pin_factory, name=name)
    for keys in host.keys:
        add_host_keys(console, keys)
