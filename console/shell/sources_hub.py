"""The sources' host: what every input backend talks to, and nothing of the rest of the console.

Contract: `SourcesHub` is the `SourceHost` of console/sources/host.py (a backend turns its
device's callbacks into calls on it, as python-can's backends see a bus). It keeps what the
console runs, lights and starts for its sources (MCU links, lamp outputs, local inputs), each
source's state, the held-button view and its timer, the batching and thinning of the top's
angle and the press coalescer. It reaches the console only through the narrow callables it is
built with: `feed(inputs, now)` hands inputs to the referee (now None: the clock),
`publish(event)` says a notice, `on_status(states)` puts the sources' states in the retained
status and `on_details(details)` what the host's screen shows of them beyond it (the phones'
join code and clocks), `deadline_pending()` says whether the referee waits on a deadline, `read_time` is the
lag watch's. The console asks it back to light the lamps (`set_lamps`), to read out every link
before an overdue decision (`drain`), to start and close the local inputs, and tells it when
the players' pads change (`players_changed`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from console.config import Config
from console.engine.events import Event
from console.engine.model import AngleSample, LampMode, Press, SourceLink, Watermark
from console.games.kind import BUTTONS, GameInput, GameKind
from console.notices import SourceStatus
from console.shell.angle_thinning import AngleThinning
from console.shell.coalesce import PressCoalescer
from console.shell.held_buttons import HeldButtons
from console.shell.lamps import LampMasks
from console.shell.timers import Timers
from console.sources.host import LampOutput, LocalInput, RunningLink
from drivers.link_state import LinkState

__all__ = ["COALESCE_NS", "SourcesHub"]

log = logging.getLogger("chgk.console")

COALESCE_NS = 20_000_000  # a pad's repeats this soon after its last press change nothing


class SourcesHub:
    """See the module docstring."""

    def __init__(
        self,
        game: GameKind,
        config: Config,
        *,
        clock: Callable[[], int],
        timers: Timers,
        pads_now: Callable[[], dict[str, str]],
        feed: Callable[[Sequence[Any], int | None], None],
        publish: Callable[[Event], None],
        report_error: Callable[[str, str], None],
        read_time: Callable[[int], tuple[int, int | None]],
        on_status: Callable[[dict[str, str]], None],
        deadline_pending: Callable[[], bool],
        on_details: Callable[[dict[str, Mapping[str, object]]], None] = lambda details: None,
        owner_names: Callable[[], Mapping[str, str]] = dict,
    ) -> None:
        self.clock = clock
        self._game = game
        self._timers = timers
        self._feed = feed
        self._publish = publish
        self.report_error = report_error
        self.read_time = read_time
        self._on_status = on_status
        self._on_details = on_details
        self.owner_names = owner_names  # each owned pad and its owner's name, as the game's state has them
        self.details: dict[str, Mapping[str, object]] = {}  # what the host's screen shows of a source
        self._commands: dict[str, Callable[[Mapping[str, object]], None]] = {}  # the host's, by source
        self._deadline_pending = deadline_pending
        self.links: dict[str, RunningLink] = {}  # serial inputs, run as tasks (console/sources/mcu.py)
        self.local_inputs: list[LocalInput] = []  # started and closed with run (console/sources/gpio.py)
        self.lamp_outputs: dict[str, LampOutput] = {}  # lamps of sources that are not MCU links
        self.status: dict[str, str] = {}  # each source's state (drivers/link_state.py)
        self._lost: set[str] = set()  # button sources lost after being connected
        self._lamps = LampMasks(game.pads(config))
        self._angle_rate_hz = game.angle_rate_hz(config)
        self._thinning = AngleThinning(self._angle_rate_hz)
        self._angle_source = game.angle_source(config)
        self._angles: list[AngleSample] = []  # angle samples of the serial read being delivered
        # Where a pad's earlier press is always at least as good as a later one (the kind says:
        # «Своя игра», the quartet), its repeats are dropped (console/shell/coalesce.py).
        self.coalescer = PressCoalescer(COALESCE_NS) if game.coalesce_presses else None
        # Buttons held down (console/shell/held_buttons.py): beside the referee, never in its way.
        hold_s = config.console.held_button_s
        self.held = HeldButtons(round(hold_s * 1e9), pads_now()) if hold_s > 0 else None
        self._pads_now = pads_now
        self._owners: dict[str, str] | None = None  # whose each pad is: read once, then as changed
        self._held_timer: asyncio.TimerHandle | None = None
        self._held_due: int | None = None

    # ------------------------------------------------------------------ SourceHost

    def takes(self, role: str) -> bool:
        """Whether the game takes `role` (console.sources: BUTTONS, ANGLE) from sources."""
        return role in self._game.takes

    def takes_angles_from(self, source: str) -> bool:
        """Whether the top's angle from `source` feeds the game (the table reads one sensor)."""
        return self._angle_source in ("", source)

    def angle_rate_hz(self) -> float:
        """The most angle samples a second the game needs (spin.max_rate_hz; 0: all)."""
        return self._angle_rate_hz

    def feed(self, inputs: Sequence[object]) -> None:
        self._feed(inputs, None)

    def host_command(self, command: Mapping[str, object], at: int) -> GameInput:
        """A host key's or pedal's action as the game's input; ValueError naming the problem."""
        return self._game.parse_command(command, at)

    def admit_press(self, pad: str, at_ns: int) -> bool:
        """Whether a press is worth handing on: a repeat of one just made changes nothing."""
        return self.coalescer is None or self.coalescer.admit(pad, at_ns)

    def scan(self, presses: list[Press], mark: Watermark) -> None:
        """An ordered source's scan and the watermark after it, to the referee in one go; a
        mark alone that nothing waits on (a flood's coalesced scans) is not journalled."""
        if presses or mark.lost_from is not None or self.coalescer is None or self._deadline_pending():
            self._feed([*presses, mark], None)

    def watches_buttons(self) -> bool:
        """Whether the held-button view runs (console.held_button_s > 0)."""
        return self.held is not None

    def pads_down(self, source: str, pads: Iterable[str], at_ns: int) -> None:
        """Exactly `pads` of `source` are down at `at_ns` (an MCU's HEARTBEAT: it corrects what
        lost frames or a pad down before the box connected left wrong in the held-button view)."""
        if self.held is not None:
            for notice in self.held.seen_down(source, set(pads), at_ns, self.clock()):
                self._publish(notice)
            self._arm_held_timer()

    def add_local_input(self, local: LocalInput) -> None:
        self.local_inputs.append(local)

    def add_lamps(self, source: str, lamps: LampOutput) -> None:
        self.lamp_outputs[source] = lamps

    def add_link(self, source: str, link: RunningLink) -> None:
        self.links[source] = link

    def add_command(self, source: str, handle: Callable[[Mapping[str, object]], None]) -> None:
        self._commands[source] = handle

    def command(self, source: str, command: Mapping[str, object]) -> None:
        """The host's `command` to `source` (ValueError: no such source takes commands, or what
        its handler found wrong)."""
        handle = self._commands.get(source)
        if handle is None:
            known = ", ".join(self._commands) or "none"
            raise ValueError(f"source {source!r} takes no commands (those that do: {known})")
        handle(command)

    def button_edge(self, source: str, pad: str, pressed: bool, at_ns: int) -> None:
        """A pad of `source` went down or up at `at_ns`, for the held-button view only (the
        referee gets its presses separately); a held pad's release is reported here."""
        held = self.held
        if held is None:
            return
        if pressed:
            held.down(source, pad, at_ns)
            self._arm_held_timer()
        else:
            notice = held.up(pad, at_ns, self.clock())
            if notice is not None:
                self._publish(notice)

    def angle(self, sample: AngleSample) -> None:
        """An angle sample of the top, on the host timebase, from any source (an MCU, the GPIO
        encoder). The samples of one read (an MCU sends them in bursts) go to the table
        together, in one feed, right after."""
        if not self._thinning.admit(sample.at_ns, sample.status):
            return  # thinned to spin.max_rate_hz (a change of sensor status always passes)
        self._angles.append(sample)
        if len(self._angles) == 1:
            self._timers.call_soon(self._feed_angles)  # (driven by hand: at once)

    def report_status(self, source: str, state: str, detail: str) -> None:
        """A source's state: published, retained in the status, and, for a button source that
        was connected and is lost (or back after that), handed to the referee (`SourceLink`):
        an open window waits for what it stamped meanwhile."""
        log.info("%s: %s (%s)", source, state, detail)
        before = self.status.get(source)
        self.status[source] = state
        if self.held is not None and state != LinkState.CONNECTED:
            self.held.forget(source)  # its pads are unknown until it is back (its HEARTBEAT says)
        self._on_status(dict(self.status))
        now = self.clock()
        if state != before:  # one event per change of state: a lost port that will not open
            # again yet («end of file», then «cannot open») is one «нет связи», its reasons logged
            self._publish(SourceStatus(t_ns=now, source=source, state=state, detail=detail))
        if BUTTONS in self._game.takes:
            if before == LinkState.CONNECTED and state == LinkState.DISCONNECTED:
                self._lost.add(source)
                self._feed([SourceLink(source, False, now)], now)
            elif state == LinkState.CONNECTED and source in self._lost:
                self._lost.discard(source)
                self._feed([SourceLink(source, True, now)], now)

    def report_details(self, source: str, details: Mapping[str, object]) -> None:
        """What the host's screen shows of `source` beyond its state, in the retained status."""
        self.details[source] = details
        self._on_details(dict(self.details))

    # ------------------------------------------------------------------ the console's side

    def set_lamps(self, lamps: dict[str, LampMode]) -> None:
        """Light the players' lamps as the referee (or the check of the buttons) says."""
        for source, (on, blink) in self._lamps.masks(lamps, self.links).items():
            self.links[source].set_lamps(on, blink)
        if self.lamp_outputs:  # Buzz! handsets, GPIO lamps (console/sources/buzz.py, gpio.py)
            for source, (on, blink) in self._lamps.masks(lamps, self.lamp_outputs).items():
                self.lamp_outputs[source].set_lamps(on, blink)

    def drain(self) -> None:
        """Read out at once what waits on every link (the console was held up): what they read
        is fed now, judged by when it happened."""
        for link in self.links.values():
            link.drain()

    def owns(self, pad: str) -> bool:
        """Whether a player (a team) has `pad` now."""
        if self._owners is None:
            self._owners = self._pads_now()
        return pad in self._owners

    def players_changed(self, pads: dict[str, str]) -> None:
        """Whose each pad is now (the host changed the players): the held-button view names them."""
        self._owners = dict(pads)
        if self.held is not None:
            self.held.set_players(pads)

    def inputs_fed(self, inputs: Sequence[GameInput]) -> None:
        """The referee is handed `inputs`: anything but a press or a mark starts the coalescing
        again (a press after the host's action is not a repeat of one before it)."""
        if self.coalescer is not None and any(not isinstance(inp, Press | Watermark) for inp in inputs):
            self.coalescer.reset()

    def start_local_inputs(self) -> None:
        """Claim the pins of the local inputs, each reported connected or not (run does this)."""
        loop = asyncio.get_running_loop()
        for local in self.local_inputs:
            local.start(loop)

    def close_local_inputs(self) -> None:
        """Free the pins of the local inputs (run does this when it stops)."""
        for local in self.local_inputs:
            local.close()

    def on_held_timer(self) -> None:
        """Report the pads down too long by now, and arm for the next."""
        self._held_timer = self._held_due = None
        if self.held is not None:
            for notice in self.held.due(self.clock()):
                self._publish(notice)
            self._arm_held_timer()

    def _arm_held_timer(self) -> None:
        """Keep a timer armed for the held-button view's next deadline (only an earlier one
        re-arms it: a chattering pad moves it with every press; an early firing re-arms)."""
        due = self.held.next_deadline() if self.held is not None else None
        if due is None or (self._held_due is not None and self._held_due <= due):
            return
        if not self._timers.live:
            return  # driven by hand (plumbing tests): call on_held_timer by hand
        if self._held_timer is not None:
            self._held_timer.cancel()
        self._held_due = due
        self._held_timer = self._timers.call_later((due - self.clock()) / 1e9, self.on_held_timer)

    def _feed_angles(self) -> None:
        angles, self._angles = self._angles, []
        if angles:
            self._feed(angles, None)
