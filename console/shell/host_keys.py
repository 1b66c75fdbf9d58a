"""The host's keys on a console: keyboards, clickers and pedals (evdev), and GPIO pedals.

Contract: `add_host_keys(host, section)` builds the reader of one ``[[host.keys]]`` device
on a `SourceHost` and registers it as a local input (opened when the console runs, released when
it stops): each mapped key going down reaches the game as that key's host action, parsed by
the game exactly as the same action sent as a JSON host command, at the kernel's time of the
press. `add_host_inputs(host, section)` adds every host key and pedal of the config's
``[host]`` (the daemon calls it). The device's status ("keys:<device>") is reported like a source's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from console.sources.gpio import add_pedal
from drivers.evdev_keys import KeyReader

if TYPE_CHECKING:
    from collections.abc import Mapping

    from console.config import HostSection, KeyDeviceSection
    from console.sources.host import SourceHost

__all__ = ["add_host_inputs", "add_host_keys"]


def add_host_keys(host: SourceHost, section: KeyDeviceSection, *, retry_s: float = 1.0) -> KeyReader:
    """One key device's keys as host actions (see the module docstring)."""
    commands: dict[int, Mapping[str, object]] = {}
    for binding in section.bindings:
        command = {"action": binding.action}
        host.host_command(command, 0)  # ValueError now, not at the first press
        commands[binding.code] = command
    name = section.name

    def on_key(code: int, at_ns: int) -> None:
        host.feed([host.host_command(commands[code], at_ns)])

    reader = KeyReader(
        section.device, commands, kind=section.kind,
        on_key=on_key,
        on_status=lambda state, detail: host.report_status(name, state, detail),
        on_error=lambda message: host.report_error(name, message),
        clock=host.clock, retry_s=retry_s,
    )
    host.add_local_input(reader)
    return reader


def add_host_inputs(host: SourceHost, section: HostSection) -> None:
    """Every pedal (host.pedal_pin, [[host.pedals]]) and key device ([[host.keys]]) of `section`."""
    for name, pedal in section.all_pedals():
        add_pedal(host, pedal.pin, pedal.action, pin_factory=pedal.pin_factory, name=name)
    for keys in section.keys:
        add_host_keys(host, keys)
