"""What an input source sees of the console: a narrow host, not the whole runtime.

Contract (python-can's backends see a bus, not the application): a backend in this package
turns its device's callbacks into calls on a `SourceHost` and registers what the console
must run or light. It never sees the referee, the config or the MQTT link.

* `takes(role)`: whether the game takes `role` (BUTTONS, ANGLE) at all; `takes_angles_from`
  whether it takes the top's angle from this source (the table reads one sensor).
* `feed(inputs)`: inputs stamped at their source, to the referee now; `scan(presses, mark)`:
  an ordered source's scan and the watermark after it (the host may leave out a mark nothing
  waits on); `admit_press(pad, at)`: whether a press is worth handing on at all (a repeat
  of one just made changes nothing: console/shell/coalesce.py).
* `read_time(received)`: when an input of a source with no clock of its own (a Buzz!
  report) read at `received` is taken to have happened, and from when it is unsure (read
  just after a hold: the hold's start, for both); a `Watermark`'s ``lost_from`` carries it.
* `angle(sample)`: one reading of the top's sensor, thinned to the configured rate and
  handed on with the others of the same read.
* `host_command(command, at)`: a host key's or pedal's action as the game's input
  (ValueError naming the problem, so a bad binding fails at start, not at the first press).
* `button_edge`, `pads_down`: the held-button view (it decides nothing); `owns(pad)`: whether
  a player (team) has the pad now.
* `report_status`, `report_error`: what the host screen and the log say of the source;
  `report_details`: what else the host's screen shows of it (the phones' code and clocks).
* `add_local_input`, `add_lamps`, `add_link`: what the console starts, lights and runs;
  `add_command(source, handle)`: the host's commands addressed to the source (the phones'
  `free_seat`), ValueError naming what is wrong with one.
* `clock`: the console's one timebase (host monotonic ns; a test's scripted clock).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from typing import Any, Protocol

from console.engine.model import AngleSample, Press, Watermark

__all__ = ["LampOutput", "LocalInput", "RunningLink", "SourceHost"]


class LocalInput(Protocol):
    """An input driver on this machine (pins, USB, evdev), started and closed with the console."""

    def start(self, loop: asyncio.AbstractEventLoop) -> None: ...
    def close(self) -> None: ...


class LampOutput(Protocol):
    """A source's lamps: bit i is pad i; a blinking lamp blinks whatever `on` says."""

    def set_lamps(self, on: int, blink: int) -> None: ...


class RunningLink(LampOutput, Protocol):
    """A link the console runs as a task until it stops (an MCU on a serial line), with lamps;
    `drain()` reads and hands on at once whatever waits on it (the console, held up, calls it
    before it judges an overdue deadline)."""

    @property
    def connected(self) -> bool: ...
    def run(self) -> Coroutine[Any, Any, None]: ...
    def drain(self) -> None: ...


class SourceHost(Protocol):
    """See the module docstring."""

    @property
    def clock(self) -> Callable[[], int]: ...
    def takes(self, role: str) -> bool: ...
    def takes_angles_from(self, source: str) -> bool: ...
    def feed(self, inputs: Sequence[object]) -> None: ...
    def read_time(self, received: int) -> tuple[int, int | None]: ...
    def scan(self, presses: list[Press], mark: Watermark) -> None: ...
    def admit_press(self, pad: str, at_ns: int) -> bool: ...
    def angle(self, sample: AngleSample) -> None: ...
    def host_command(self, command: Mapping[str, object], at: int) -> object: ...
    def watches_buttons(self) -> bool: ...
    def owns(self, pad: str) -> bool: ...
    def button_edge(self, source: str, pad: str, pressed: bool, at_ns: int) -> None: ...
    def pads_down(self, source: str, pads: Iterable[str], at_ns: int) -> None: ...
    def report_status(self, source: str, state: str, detail: str) -> None: ...
    def report_error(self, source: str, message: str) -> None: ...
    def report_details(self, source: str, details: Mapping[str, object]) -> None: ...
    def add_local_input(self, local: LocalInput) -> None: ...
    def add_lamps(self, source: str, lamps: LampOutput) -> None: ...
    def add_link(self, source: str, link: RunningLink) -> None: ...
    def add_command(self, source: str, handle: Callable[[Mapping[str, object]], None]) -> None: ...
