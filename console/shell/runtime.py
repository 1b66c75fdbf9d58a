"""The asyncio shell around the referee: drivers in, decisions out, one loop, one timer, one clock.

Contract: every input reaches the referee through `Console.feed` stamped with the time it
happened at its source; the referee's outputs are carried out at once, in this order: events
to MQTT (written to the socket in this loop turn), lamps (one serial write), cues; the
retained state follows in the next loop turn. One `asyncio.TimerHandle` is kept armed for the
referee's next deadline. A driver, the broker or the sound card failing is reported and the
game goes on; nothing here raises into a driver callback.

Held up (a stall of the Pi, a slow disk, a busy loop) past a decision it owes, the console
never counts its own lateness against a player: before it judges the overdue deadline it
reads what waited on its sources (each MCU link's port at once; sources read by threads, a
GPIO pin's edges, get HOLD_GRACE_S to hand theirs on; the broker is caught up with, a host
command sent during the hold included, by a round trip through it: `MqttLink.after_broker`,
waited for at most HOLD_BROKER_WAIT_S), and an input that happened before the deadline is
judged as read just before it (`feed`); what happened after it, or names no time, waits for
the decision and is then fed in the order it came. However the hold is first seen (the
timer late, or an input read late), it is read out the same way. The hold is said
(`ConsoleHeld`) and journalled with the decision.

A bug in the referee on its own timer stops `run` with that error (the daemon exits, systemd
starts it again and it resumes from the journal): a clock that silently stopped would cost
more than the restart.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from console.config import Config
from console.engine.events import Event
from console.engine.game import Game
from console.engine.model import (
    NS_PER_MS,
    AngleSample,
    Host,
    HostAction,
    LampMode,
    Output,
    PlayCue,
    Press,
    SetLamps,
    SourceLink,
    Watermark,
    input_stamp,
)
from console.games import game
from console.games.kind import BUTTONS, GameInput, GameKind, only_keys
from console.notices import ButtonHeld, ConsoleError, ConsoleHeld, JournalStatus, SourceStatus
from console.scenario import step_to_json
from console.shell import commands
from console.shell.angle_thinning import AngleThinning
from console.shell.button_check import ButtonCheck
from console.shell.checkpoint import Checkpoints, checkpoint_key, code_fingerprint
from console.shell.coalesce import PressCoalescer
from console.shell.commands import command_object, command_time, refusal
from console.shell.error_reports import ErrorReports
from console.shell.hall_media import HIDE_MEDIA, SHOW_MEDIA, HallMedia
from console.shell.held_buttons import HeldButtons
from console.shell.hold import Hold
from console.shell.journal import Journal, clock_line, decides
from console.shell.journal_files import JournalFiles, Resumed
from console.shell.lamps import LampMasks
from console.shell.mqtt_link import MqttLink, Topics
from console.shell.osc_cues import OscCues
from console.shell.pack_shelf import CHOOSE_PACK, LIST_PACKS, PackShelf
from console.shell.publisher import Publisher
from console.shell.records import GameRecords
from console.shell.resume_offer import RESUME_JOURNAL, SHELL_ACTIONS, START_FRESH, ResumeOffer
from console.shell.resumption import Resumption
from console.shell.retained_parts import RetainedParts
from console.shell.sound import CuePlayer, NullPlayer
from console.shell.timers import Timers
from console.sources.host import LampOutput, LocalInput, RunningLink
from console.state_people import names, pads
from drivers.link_state import LinkState

log = logging.getLogger("chgk.console")


STATE_REFRESH_S = 0.5  # how stale a retained countdown may be for a display that joins late
ERRORS_PER_SECOND = 10  # of one source, shown one by one; the rest are counted
# A checkpoint (the referee's whole state) after this many journal lines, between questions:
# a resume replays at most about this many (docs/performance.md, `bench resume`).
CHECKPOINT_LINES = 3_000
# Inputs that do not mean the host plays on (a journal offered stays offered): the sources'
# own traffic, a player's press (between questions it is a false start at most).
PASSIVE = (Press, Watermark, SourceLink, AngleSample)
EVENTS_BEFORE_RUN = 100  # kept for the MQTT link from before it exists (a start's problems)
# The host's «Проверка кнопок» (console/shell/button_check.py): the console's own commands.
CHECK_BUTTONS, END_CHECK = "check_buttons", "end_check"
# Every host action the console carries out itself, whatever the game.
OWN_ACTIONS = frozenset({*SHELL_ACTIONS, SHOW_MEDIA, HIDE_MEDIA, LIST_PACKS, CHOOSE_PACK,
                         CHECK_BUTTONS, END_CHECK})
MAX_ERROR_CHARS = 2000  # an error event's message, which may quote what a client sent
COALESCE_NS = 20_000_000  # a pad's repeats this soon after its last press change nothing
HOLD_NS = 20 * NS_PER_MS  # a timer this late means the console itself was held up
# After a hold, before the overdue decision: time for sources read by threads (GPIO edges) to
# hand on what they read meanwhile; an MCU's port is read at once (McuLink.drain).
HOLD_GRACE_S = 0.02
HOLD_GRACE_NS = round(HOLD_GRACE_S * 1e9)
# ... and for the broker to hand on what it kept for the console (a round trip: ~1 ms; longer
# only when the broker itself is held up, and then not for ever).
HOLD_BROKER_WAIT_NS = 500 * NS_PER_MS
LAG_TICK_S = 0.05  # the lag watch: how often the console notes that it runs


class Console:
    """The daemon's core, independent of how it was started (run, demo, tests, bench); the
    sources' `SourceHost` (console/sources/host.py)."""

    def __init__(
        self,
        config: Config,
        *,
        cue_player: CuePlayer | None = None,
        clock: Callable[[], int] = time.monotonic_ns,
        journal: TextIO | JournalFiles | Resumed | None = None,
        resume: Resumption | None = None,
        own_settings: bool = False,
    ) -> None:
        self.config = config
        self.clock = clock
        self.timers = Timers()  # the loop's, when one runs (console/shell/timers.py)
        self.kind = config.game.kind
        self.game: GameKind = game(self.kind)
        # Resumed (console/shell/resume.py): the journal's seed and its replayed referee.
        self.seed = resume.seed if resume else (
            self.game.seed(config) or random.SystemRandom().randrange(1, 2**31))
        self.referee: Game[Any] = resume.referee if resume else self.game.engine(config, self.seed, clock())
        self.topics = Topics(config.mqtt.prefix, config.console.node)
        self.cues: CuePlayer = cue_player or NullPlayer()
        self.mqtt: MqttLink | None = None
        self.links: dict[str, RunningLink] = {}  # serial inputs, run as tasks (console/sources/mcu.py)
        self.local_inputs: list[LocalInput] = []  # started and closed with run (console/sources/gpio.py)
        self.lamp_outputs: dict[str, LampOutput] = {}  # lamps of sources that are not MCU links
        self.source_status: dict[str, str] = {}
        self.publisher = Publisher(self.topics, before_run=EVENTS_BEFORE_RUN)
        self._parts = RetainedParts(self._publish_retained, self.topics.sheet)  # the game's besides its state
        self.watchers = self.publisher.watchers  # the typed events, as published
        self.wire_watchers = self.publisher.wire_watchers  # and their JSON
        self.errors = ErrorReports(self._show_error, clock, per_second=ERRORS_PER_SECOND,
                                   max_chars=MAX_ERROR_CHARS)
        # The journal's health, as the retained status says it (None: no journal kept).
        self.journal_status: dict[str, str] | None = None
        self.journal = Journal(journal, self.report_error, shift_ns=resume.shift_ns if resume else 0,
                               on_state=self._journal_state)
        if self.journal.open and self.journal.failing is None:
            self.journal_status = {"state": "writing", "detail": shown_journal(self.journal.name)}
        self.records = GameRecords(self.game.record_dir(config), self.report_error)
        self._lamps = LampMasks(self.game.pads(config))
        self._thinning = AngleThinning(self.game.angle_rate_hz(config))
        self._angle_source = self.game.angle_source(config)
        self._timer: asyncio.TimerHandle | None = None
        self._timer_deadline: int | None = None
        # The console's own hold-ups, read out before an overdue decision (console/shell/hold.py).
        self._hold = Hold(HOLD_NS, HOLD_GRACE_NS, HOLD_BROKER_WAIT_NS)
        # The console's sign of life (the lag watch's tick before its latest, LAG_TICK_S apart
        # while it runs): a host command cannot have been waiting unread from before it.
        self._alive_at = clock()
        self._ticked_at: int | None = None  # the lag watch's latest tick (None: it does not run)
        self._fed_at = 0  # the latest `now` fed to the referee (never goes back)
        # The referee's next deadline as of its last outputs (every change of its state is
        # carried out, which asks it): `feed` checks for an overdue one without asking again.
        self._due: int | None = None
        self._lost_links: set[str] = set()  # button sources lost after being connected
        self._broken: asyncio.Future[None] | None = None  # run's: fails with the timer's bug
        self._refresh: asyncio.TimerHandle | None = None
        # Where a pad's earlier press is always at least as good as a later one (the kind says:
        # «Своя игра», the quartet), its repeats are dropped (console/shell/coalesce.py).
        self.coalescer = PressCoalescer(COALESCE_NS) if self.game.coalesce_presses else None
        self._angles: list[AngleSample] = []  # angle samples of the serial read being delivered
        # Buttons held down (console/shell/held_buttons.py): beside the referee, never in its way.
        hold_s = config.console.held_button_s
        self.held = HeldButtons(round(hold_s * 1e9), self._pads_now()) if hold_s > 0 else None
        self._held_timer: asyncio.TimerHandle | None = None
        self._held_due: int | None = None
        # A journal of another config offered to the host (console/shell/resume_offer.py), and
        # what the daemon does when the host takes it (starts again with `run --resume FILE`).
        self.offer: ResumeOffer | None = None
        osc = config.osc
        self.osc = OscCues(osc.host, osc.port, osc.address, config.console.node) if osc.enabled else None
        self.button_check: ButtonCheck | None = None  # the last «Проверка кнопок» (it may be over)
        # The pictures, sounds and videos of the pack played now, which the host may show the hall.
        self.hall_media = HallMedia(lambda: self.game.media_pack(config, self._checkpoints.engine),
                                    self._hall_media_shown)
        # The packs the host may choose on the tablet (console/shell/pack_shelf.py; None: the
        # game plays none), listed in the retained status.
        self.pack_shelf = self._pack_shelf(config)
        # The console's own host actions, beside the game's parser (a game's action never takes
        # one of these names: tests/test_runtime.py).
        self._own_actions: dict[str, Callable[[dict[str, Any]], None]] = {
            **dict.fromkeys(SHELL_ACTIONS, lambda command: self._choose(str(command["action"]))),
            **dict.fromkeys((SHOW_MEDIA, HIDE_MEDIA), self.hall_media.command),
            **dict.fromkeys((LIST_PACKS, CHOOSE_PACK), self._pack_command),
            **dict.fromkeys((CHECK_BUTTONS, END_CHECK), self._check_command),
        }
        assert set(self._own_actions) == OWN_ACTIONS
        self._game_lamps: dict[str, LampMode] = {}  # the referee's lamps, set again after a check
        self.on_resume: Callable[[Path], None] | None = None
        # The engine as the journal's times have it (a resumed one may run ahead: TimeShifted)
        # and the rest its checkpoints are made of (console/shell/checkpoint.py).
        self._checkpoints = Checkpoints(
            resume.engine, shift_ns=resume.shift_ns, inputs=resume.inputs, references=resume.references,
            own_settings=own_settings or resume.own_settings) if resume else Checkpoints(
            self.referee, own_settings=own_settings)
        if self.journal.open:
            code_fingerprint()  # read once now, not on the loop at the first checkpoint
        if resume is None:
            self.journal.write({"config": self.game.journal_header(config, self.seed)})
        else:  # appended to the resumed journal: a checkpoint first, so the next resume starts here
            self._checkpoint(resume.known_until)
        log.info("%s ready; draw seed %d", self.game.title, self.seed)
        # What the game starts with wrong (a pack not read: the game goes on without it), said
        # once as an error and kept in the retained status for as long as it stands.
        self.problems = dict(self.game.start_problems(resume.engine if resume else self.referee))
        for source, problem in self.problems.items():
            self.report_error(source, problem)

    # ------------------------------------------------------------------ inputs

    def feed(self, inputs: Sequence[GameInput], now: int | None = None) -> None:
        """Hand inputs to the referee (received at `now`, default: the clock) and act on them.

        Received after a deadline the referee is still owed (the console was late: held up),
        inputs that all happened before it are judged as received just before it, so its
        decision sees them, as it would have had the console not been held up; otherwise the
        overdue decision is taken first."""
        now = self.clock() if now is None else now
        checked = self._checked(inputs)
        if inputs and not checked:  # all presses of a check of the buttons: nothing for the game
            return
        inputs = checked
        if self.offer is not None and any(not isinstance(i, PASSIVE) for i in inputs):
            self._choose(START_FRESH, implicit=True)  # the host plays on: the fresh game it is
        due = self._due
        if due is not None and now >= due:
            if self._hold.overdue(due, now):
                self._after_hold(due, now)  # the sources are read out first (they feed back here)
            if self._hold.since is not None:
                placed = self._hold.place(inputs, now, self._fed_at)
                if placed is None:
                    return  # fed once the overdue deadline is decided
                now = placed  # as read just before the decision
            else:
                now = self._catch_up(inputs, due, now)
        now = self._fed_at = max(self._fed_at, now)  # the referee's time never goes back
        if self.coalescer is not None and any(not isinstance(inp, Press | Watermark) for inp in inputs):
            self.coalescer.reset()
        if self.journal.open:
            self.journal.write(*(step_to_json(inp, now, self.game) for inp in inputs))
            self._checkpoints.inputs += len(inputs)
            for inp in inputs:
                if type(inp) is not Press and type(inp) is not Watermark:  # (the press path)
                    ref = self.game.referenced(inp)
                    if ref is not None:
                        self._checkpoints.refer(*ref)
        self._carry_out(self.referee.handle_all(inputs, now), now)

    def _catch_up(self, inputs: Sequence[GameInput], due: int, now: int) -> int:
        """The console reads `inputs` at `now`, late with the decision due at `due` (and maybe
        more): the decisions due before the inputs happened are taken first, each at its own
        time, and the inputs are then judged as read just before the next one (see `feed`).
        Returns the time to hand them on at."""
        held = now - due if now - due > HOLD_NS else 0
        if held and not self._hold.ending:  # (the hold being ended was said already)
            self._say_hold(due, now)
        stamps = [stamp for inp in inputs if (stamp := input_stamp(inp)) is not None]
        # When the earliest of them happened; None for none, or one that names no time.
        first = min(stamps) if stamps and len(stamps) == len(inputs) else None
        current: int | None = due
        while current is not None and current <= now:
            if first is not None and first < current:
                return max(self._fed_at, current - 1)
            self._settle(current, held)
            if self._due is not None and self._due <= current:  # still owed: decide it now
                self._settle(now, held)
                break
            current = self._due
        return now

    def fire_due(self, now: int | None = None) -> None:
        """Fire what is due at `now` (default: the clock), as the timer does when it is on time:
        for a console driven by hand, outside an event loop (tests, benchmarks)."""
        self._settle(self.clock() if now is None else now)

    def host(self, action: HostAction, at: int | None = None) -> None:
        self.feed([Host(action, self.clock() if at is None else at)])

    def on_jury_command(self, payload: bytes) -> None:
        """The game jury's command from MQTT (``<base>/jury/command``: the sports stage's sheet,
        docs/sports-sheet.md); refused like a host command when malformed, changing nothing."""
        parse = self.game.parse_jury_command
        assert parse is not None  # subscribed only for a game with a jury
        received = self.clock()
        try:
            command = command_object(payload)
            # The sheet's log says when each change was made: the console's wall clock at
            # receipt, journalled with the edit (a replay reads it, never the clock).
            command["when"] = time.strftime("%Y-%m-%d %H:%M:%S")
            inp = parse(command, command_time(command.pop("sent_ns", None), received, self._alive_at))
        except (ValueError, RecursionError) as exc:
            self.report_error("jury", refusal("jury", payload, exc, self.game.jury_help))
            return
        self.feed([inp])

    def on_command(self, payload: bytes) -> None:
        """A host command from MQTT (docs/mqtt.md); anything malformed or unknown is refused
        with an error event that names the problem, and changes nothing."""
        received = self.clock()
        try:
            command = command_object(payload)
            at = command_time(command.pop("sent_ns", None), received, self._alive_at)
            action = command.get("action")
            own = self._own_actions.get(action) if isinstance(action, str) else None
            if own is not None:
                own(command)
                return
            inp = self.game.parse_command(command, at)
        except (ValueError, RecursionError) as exc:  # RecursionError: absurdly nested JSON
            self.report_error("mqtt", refusal("host", payload, exc, self.game.command_help))
            return
        self.feed([inp])

    def _pack_command(self, command: dict[str, Any]) -> None:
        if self.pack_shelf is None:
            raise ValueError(f"{self.game.title} plays no pack: there is none to choose")
        self.pack_shelf.command(command)

    def _check_command(self, command: dict[str, Any]) -> None:
        only_keys(command, ("action",))
        self._check_buttons(str(command["action"]))

    def _pack_shelf(self, config: Config) -> PackShelf | None:
        packs = self.game.pack_choice
        if packs is None:
            return None

        def chosen(choice: object) -> None:
            before = self.game.media_pack(config, self._checkpoints.engine)
            self.feed([choice])
            if self.game.media_pack(config, self._checkpoints.engine) != before:
                self.hall_media.hide()  # what the hall was shown is the old pack's
            # What the game started with wrong was the config's pack's: now the chosen one's.
            problems = dict(self.game.start_problems(self._checkpoints.engine))
            for source, problem in problems.items():
                if self.problems.get(source) != problem:
                    self.report_error(source, problem)
            self.problems = problems
            if self.mqtt is not None:
                self.mqtt.set_status(problems=problems)

        def listed(shelf: dict[str, Any]) -> None:
            if shelf.get("problem"):
                log.info("packs in %s: %s", packs.folder(config), shelf["problem"])
            if self.mqtt is not None:
                self.mqtt.set_status(packs=shelf)

        return PackShelf(packs.folder(config), read_list=packs.catalogue,
                         read_choice=lambda path, number: packs.choice(path, number, self.clock()),
                         on_list=listed, on_choice=chosen,
                         on_problem=lambda problem: self.report_error("pack", problem))

    def _hall_media_shown(self, shown: dict[str, str] | None) -> None:
        """What the hall's boards show now: in the retained status, for a board opened later."""
        log.info("hall media: %s", f"{shown['kind']} {shown['name']}" if shown else "none")
        if self.mqtt is not None:
            self.mqtt.set_status(hall_media=shown)

    def _check_buttons(self, action: str) -> None:
        """Start or end «Проверка кнопок» (console/shell/button_check.py): between questions
        only, so that no press of the game is taken by it."""
        check = self.button_check
        if action == END_CHECK:
            if check is None or not check.active:
                self.report_error("button_check", "no check of the buttons is running")
                return
            check.active = False
            silent = check.silent()
            log.info("button check over; %s",
                     f"never pressed: {', '.join(silent)}" if silent else "every button answered")
            self._set_lamps(self._game_lamps)
        else:
            owners = self._button_owners()
            if not owners:
                self.report_error("button_check", f"{self.game.title} has no players' buttons to check")
                return
            if self.game.interrupted(self._checkpoints.engine, self.clock()) is not None:
                self.report_error("button_check", "a question is in play: the buttons are checked "
                                                  "between questions")
                return
            self.button_check = check = ButtonCheck(owners)
            self._set_lamps(check.lamps())
        if self.mqtt is not None:
            self.mqtt.set_status(button_check=check.view())

    def _button_owners(self) -> dict[str, str]:
        """Each button of the game (pad -> its owner's name, as the game's state names them)."""
        named = names(self.referee.snapshot(self.clock()))
        return {pad: named.get(owner, owner) for pad, owner in self._pads_now().items()}

    def _pads_now(self) -> dict[str, str]:
        """Each button of the game and whose it is: as the referee has them now (the host may
        have added, removed or re-bound players on the tablet), else as configured."""
        return pads(self.referee.snapshot(self.clock())) or self.game.pads(self.config)

    def _checked(self, inputs: Sequence[GameInput]) -> Sequence[GameInput]:
        """During «Проверка кнопок» the presses go to it (lit, on the status), not to the game."""
        check = self.button_check
        if check is None or not check.active or not any(isinstance(i, Press) for i in inputs):
            return inputs
        if any([check.press(i.pad, i.at) for i in inputs if isinstance(i, Press)]):
            self._set_lamps(check.lamps())
            if self.mqtt is not None:
                self.mqtt.set_status(button_check=check.view())
        return [i for i in inputs if not isinstance(i, Press)]

    def offer_resume(self, path: Path, differs: tuple[str, ...]) -> None:
        """Offer today's journal of another config to the host (console/shell/resume_offer.py)."""
        self.offer = ResumeOffer(path, differs, self.journal, self._publish, self.clock,
                                 lambda chosen: self.on_resume(chosen) if self.on_resume else None)
        self._status_offer()

    def _choose(self, action: str, *, implicit: bool = False) -> None:
        offer = self.offer
        if offer is None:
            self.report_error("mqtt", f"«{action}»: no journal is waiting to be resumed or set aside")
            return
        if action == RESUME_JOURNAL and self.on_resume is None:
            self.report_error("mqtt", f"«{action}»: this console cannot start again by itself; "
                                      f"run chgk-console run --resume {offer.path}")
            return
        self.offer = None
        offer.choose(action, implicit=implicit)
        self._status_offer()

    def _status_offer(self) -> None:
        if self.mqtt is not None:
            self.mqtt.set_status(resume_offer=None if self.offer is None else self.offer.view())

    def read_time(self, received: int) -> tuple[int, int | None]:
        """When an input from a source with no clock of its own (a Buzz! report), read at
        `received`, is taken to have happened, and from when it may be misplaced (None: sure).

        Read while the console runs on time: at `received`. Read just after a hold (the lag
        watch has not ticked for longer than a hold, or its latest tick came after one): it
        may have waited through the hold, so it is dated at the console's last sign of life
        before it, the earliest it can have happened (a press made during a stall is never
        late for the stall), and that instant begins a span whose decisions are not sure
        (`Watermark.lost_from`): they carry ``inputs_lost`` and are put to the host
        (console/shell/commands.py `read_time`)."""
        return commands.read_time(received, self._ticked_at, self._alive_at, tick_ns=round(LAG_TICK_S * 1e9),
                         hold_ns=HOLD_NS)

    def on_retained_command(self, payload: bytes, topic: str = "") -> None:
        """A command the broker kept (published with the retain flag) is never executed: it
        would run again at every reconnect. It is reported, with how to clear it: on the topic
        it was kept on (host/command, a show controller's host/do/<action>, jury/command)."""
        shown, where = payload[:200].decode("utf-8", errors="replace"), topic or self.topics.command
        self.report_error("mqtt", f"retained command {shown!r} on {where} not executed (a command must "
                                  "not be retained: it would replay at every reconnect); clear it with "
                                  f"mosquitto_pub -r -n -t {where}")

    # ------------------------------------------------------------------ the sources' host

    def takes(self, role: str) -> bool:
        """Whether the game takes `role` (console.sources: BUTTONS, ANGLE) from sources."""
        return role in self.game.takes

    def takes_angles_from(self, source: str) -> bool:
        """Whether the top's angle from `source` feeds the game (the table reads one sensor)."""
        return self._angle_source in ("", source)

    def host_command(self, command: Mapping[str, object], at: int) -> GameInput:
        """A host key's or pedal's action as the game's input; ValueError naming the problem."""
        return self.game.parse_command(command, at)

    def admit_press(self, pad: str, at_ns: int) -> bool:
        """Whether a press is worth handing on: a repeat of one just made changes nothing."""
        return self.coalescer is None or self.coalescer.admit(pad, at_ns)

    def scan(self, presses: list[Press], mark: Watermark) -> None:
        """An ordered source's scan and the watermark after it, to the referee in one go; a
        mark alone that nothing waits on (a flood's coalesced scans) is not journalled."""
        if presses or mark.lost_from is not None or self.coalescer is None or self._due is not None:
            self.feed([*presses, mark])

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

    def _arm_held_timer(self) -> None:
        """Keep a timer armed for the held-button view's next deadline (only an earlier one
        re-arms it: a chattering pad moves it with every press; an early firing re-arms)."""
        due = self.held.next_deadline() if self.held is not None else None
        if due is None or (self._held_due is not None and self._held_due <= due):
            return
        if not self.timers.live:
            return  # driven by hand (plumbing tests): call on_held_timer by hand
        if self._held_timer is not None:
            self._held_timer.cancel()
        self._held_due = due
        self._held_timer = self.timers.call_later((due - self.clock()) / 1e9, self.on_held_timer)

    def on_held_timer(self) -> None:
        """Report the pads down too long by now, and arm for the next."""
        self._held_timer = self._held_due = None
        if self.held is not None:
            notices: list[ButtonHeld] = self.held.due(self.clock())
            for notice in notices:
                self._publish(notice)
            self._arm_held_timer()

    def angle(self, sample: AngleSample) -> None:
        """An angle sample of the top, on the host timebase, from any source (an MCU, the GPIO
        encoder). The samples of one read (an MCU sends them in bursts) go to the table
        together, in one feed, right after."""
        if not self._thinning.admit(sample.at_ns, sample.status):
            return  # thinned to spin.max_rate_hz (a change of sensor status always passes)
        self._angles.append(sample)
        if len(self._angles) == 1:
            self.timers.call_soon(self._feed_angles)  # (driven by hand: at once)

    def _feed_angles(self) -> None:
        angles, self._angles = self._angles, []
        if angles:
            self.feed(angles)

    def report_error(self, source: str, message: str) -> None:
        """A driver or command problem: logged and published, rate-limited per source
        (console/shell/error_reports.py); the game is not touched."""
        self.errors.report(source, message)

    def _show_error(self, source: str, message: str, now: int) -> None:
        log.warning("%s: %s", source, message)
        self._publish(ConsoleError(t_ns=now, source=source, message=message))

    def report_status(self, source: str, state: str, detail: str) -> None:
        """A source's state: published, retained in the status, and, for a button source that
        was connected and is lost (or back after that), handed to the referee (`SourceLink`):
        an open window waits for what it stamped meanwhile."""
        log.info("%s: %s (%s)", source, state, detail)
        before = self.source_status.get(source)
        self.source_status[source] = state
        if self.held is not None and state != LinkState.CONNECTED:
            self.held.forget(source)  # its pads are unknown until it is back (its HEARTBEAT says)
        if self.mqtt is not None:
            self.mqtt.set_status(sources=dict(self.source_status))
        now = self.clock()
        if state != before:  # one event per change of state: a lost port that will not open
            # again yet («end of file», then «cannot open») is one «нет связи», its reasons logged
            self._publish(SourceStatus(t_ns=now, source=source, state=state, detail=detail))
        if BUTTONS in self.game.takes:
            if before == LinkState.CONNECTED and state == LinkState.DISCONNECTED:
                self._lost_links.add(source)
                self.feed([SourceLink(source, False, now)], now)
            elif state == LinkState.CONNECTED and source in self._lost_links:
                self._lost_links.discard(source)
                self.feed([SourceLink(source, True, now)], now)

    def _checkpoint(self, at_ns: int) -> None:
        """The referee's whole state into the journal (console/shell/checkpoint.py): a resume
        replays only what comes after it. `at_ns`: the journal's time now (engine ns)."""
        key = checkpoint_key(self.config.console.journal, create=True) if self.journal.open else None
        if key is not None:
            self.journal.write_checkpoint(self._checkpoints.line(at_ns, key))

    def _journal_state(self, state: str, detail: str) -> None:
        """The journal failed (its lines wait in memory) or is written again: said at once, to
        the host (a notice) and in the retained status, so a page opened later sees it too."""
        (log.error if state == "failing" else log.warning)("journal: %s", detail)
        self.journal_status = {"state": state, "detail": detail}
        if self.mqtt is not None:
            self.mqtt.set_status(journal=self.journal_status)
        self._publish(JournalStatus(t_ns=self.clock(), state=state, detail=detail))

    # ------------------------------------------------------------------ outputs

    def _carry_out(self, outputs: list[Output], now: int) -> None:
        # The lamps first: a player's own lamp is the feedback that matters most at the table;
        # then the referee's events in its order, then the cues.
        for out in outputs:
            if isinstance(out, SetLamps):
                self._game_lamps = out.lamps
                if self.button_check is None or not self.button_check.active:
                    self._set_lamps(out.lamps)
        for out in outputs:
            if isinstance(out, Event):
                self._publish(out)
        for out in outputs:
            if isinstance(out, PlayCue):
                self.cues.play(out.cue)
                if self.osc is not None:
                    self.osc.send(out.cue)
        # The live angle (30 a second while the top spins) changes nothing a late display
        # needs at once: it has its own topic, and the state follows the next real change.
        if not all(isinstance(out, Event) and out.LIVE for out in outputs):
            self.publish_state()
        self._arm_timer(now)
        self._keep_state_fresh()
        if self.journal.lines >= CHECKPOINT_LINES and self._due is None:
            # Between questions (no deadline pending: nothing on the press path to delay).
            self._checkpoint(max(now, self._fed_at) + self._checkpoints.shift_ns)
        if self.journal.open and decides(outputs):  # after the lamps and the event: off their path
            self.journal.sync_soon()

    def _keep_state_fresh(self) -> None:
        """While a countdown runs, republish the state now and then, so that a display that
        connects mid-window gets a retained `remaining_ms` that is at most this old."""
        if self._refresh is not None or self.mqtt is None or self.referee.running_timer() is None:
            return

        def refresh() -> None:
            self._refresh = None
            if self.referee.running_timer() is not None:
                self.publish_state()
                self._keep_state_fresh()

        self._refresh = self.timers.call_later(STATE_REFRESH_S, refresh)

    def _set_lamps(self, lamps: dict[str, LampMode]) -> None:
        for source, (on, blink) in self._lamps.masks(lamps, self.links).items():
            self.links[source].set_lamps(on, blink)
        if self.lamp_outputs:  # Buzz! handsets, GPIO lamps (console/sources/buzz.py, gpio.py)
            for source, (on, blink) in self._lamps.masks(lamps, self.lamp_outputs).items():
                self.lamp_outputs[source].set_lamps(on, blink)

    def _publish(self, event: Event) -> None:
        wire = self.publisher.publish(event)
        if event.CHANGES_PADS and self.held is not None:
            self.held.set_players(self._pads_now())
        if event.STARTS_GAME:  # a game's records are kept by game (console/shell/records.py)
            self.records.game_started()
        elif event.RECORD:
            self.records.keep(wire)

    def publish_state(self) -> None:
        if self.mqtt is not None:
            self.mqtt.publish_state(self.state, self.host_state)
            self._parts.publish(self.game.retained_parts(self.referee))

    def _oversize(self, topic: str, size: int) -> None:
        """A message the broker would drop unsaid: said to the host (a short one) instead."""
        if topic.endswith("/events"):
            return  # an event this size is a bug: logged by the link, not said in another event
        self.report_error("mqtt", f"a message to {topic} of {size} bytes is over the broker's limit: "
                                  "not sent")

    def _publish_retained(self, topic: str, payload: dict[str, Any]) -> None:
        if self.mqtt is not None:
            self.mqtt.publish_retained(topic, payload)

    def host_state(self, now: int | None = None) -> dict[str, Any]:
        """The host's view (host/state): the public state plus what only the host may see."""
        now = self.clock() if now is None else now
        return {**self.referee.host_snapshot(now), "seq": self.publisher.events_seq, "game": self.kind}

    def state(self, now: int | None = None) -> dict[str, Any]:
        now = self.clock() if now is None else now
        snapshot = self.referee.snapshot(now)
        snapshot["seq"] = self.publisher.events_seq
        snapshot["game"] = self.kind
        return snapshot

    # ------------------------------------------------------------------ the one timer

    def _arm_timer(self, now: int) -> None:
        deadline = self._due = self.referee.next_deadline()
        if self._hold.since is not None:
            return  # a hold is read out: its end decides what is due (`_end_hold`)
        if self._timer is not None:
            if self._timer_deadline is not None and (deadline is None or self._timer_deadline <= deadline):
                # Armed for no later than needed: firing early only re-arms. The usual case
                # with the top streaming, whose silence deadline moves on with every sample.
                return
            self._timer.cancel()
            self._timer = None
        if deadline is None:
            return
        # From the clock, not from `now`: a decision taken at its own (past) time after a hold
        # must not put the next deadline off by the hold's length.
        self._timer = self.timers.call_later((deadline - self.clock()) / 1e9, self._on_timer)
        self._timer_deadline = deadline

    def _on_timer(self) -> None:
        self._timer = None
        now = self.clock()
        due = self._timer_deadline
        if (due is not None and self._hold.since is None and now - due > HOLD_NS
                and self._after_hold(due, now)):
            return
        waiting = self._hold.broker_wait(now)
        if waiting is not None:
            # The grace is over, the broker not caught up yet: wait for it (`_broker_caught_up`).
            self._timer = self.timers.call_later((waiting - now) / 1e9, self._on_timer)
            return
        self._end_hold(now)

    def _after_hold(self, due: int, now: int) -> bool:
        """The decision due at `due` is still owed at `now`: the console was held up. Say so,
        read what waited on every source (see the module docstring) and decide once they are
        read out. False outside an event loop (a console driven by hand: nothing to wait for)."""
        if not self.timers.live:
            return False
        self._hold.begin(due, now, broker=self.mqtt is not None)
        self._say_hold(due, now)
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self.timers.call_later(HOLD_GRACE_S, self._on_timer)
        self._timer_deadline = due
        if self.mqtt is not None:
            # At once when the link is down; one that comes after this hold ended is ignored.
            self.mqtt.after_broker(functools.partial(self._broker_caught_up, due))
        for link in self.links.values():
            link.drain()  # what it read is fed now, judged by when it happened (`feed`)
        return True

    def _broker_caught_up(self, due: int) -> None:
        """The broker has handed on all it kept for the console: once the grace is over too,
        the hold (of the deadline `due`) is decided now."""
        if self._hold.broker_caught_up(due, self.clock()):
            if self._timer is not None:
                self._timer.cancel()
            self._on_timer()

    def _end_hold(self, now: int) -> None:
        """The sources are read out: decide what is due, then feed what waited for that, in
        the order it came (each after the decisions due before it happened: `feed`)."""
        held, deferred = self._hold.end()
        if held is not None:
            self._settle(max(self._fed_at, held), now - held)  # the overdue decision first
        self._hold.ending = True  # what was read in this hold is not a new hold
        try:
            for inputs, received in deferred:
                self.feed(inputs, received)
        finally:
            self._hold.ending = False
        self._settle(now, 0 if held is None else now - held)

    def _say_hold(self, due: int, now: int) -> None:
        """The console found the decision due at `due` still owed at `now`: say so, once."""
        if not self._hold.said(due):
            return
        log.warning("the console was held up %.0f ms past a deadline; its sources are read first",
                    (now - due) / NS_PER_MS)
        self._publish(ConsoleHeld(t_ns=now, held_ms=round((now - due) / NS_PER_MS, 3), deadline_ns=due))

    def _settle(self, now: int, held_ns: int = 0) -> None:
        """Fire what is due at `now` (`held_ns`: the decision comes that late, held up)."""
        now = max(now, self._fed_at)
        self._fed_at = now
        try:
            outputs = self.referee.on_timer(now)
        except Exception as exc:
            # A bug: the loop would only log it and the clocks would stop for the rest of the
            # evening. `run` ends with it instead (see the module docstring).
            broken = self._broken
            if broken is None or broken.done():
                raise
            log.exception("the referee failed on its timer; stopping (the journal resumes the fight)")
            self.report_error("console", "internal error on the timer (see the log): the console "
                                         "stops, restarts and resumes the fight from the journal")
            broken.set_exception(exc)
            return
        if self.journal.open and decides(outputs):  # a resume must know the clock got this far
            self.journal.write(clock_line(now, held_ns))
        self._carry_out(outputs, now)

    # ------------------------------------------------------------------ drivers

    async def run(
        self, broker_host: str, broker_port: int, *, on_ready: Callable[[], None] | None = None
    ) -> None:
        """Run the MQTT link and every MCU link until cancelled."""
        self.mqtt = MqttLink(
            broker_host,
            broker_port,
            self.topics,
            on_command=self.on_command,
            on_retained_command=self.on_retained_command,
            on_jury_command=None if self.game.parse_jury_command is None else self.on_jury_command,
            on_oversize=self._oversize,
            on_connected=on_ready,
            username=self.config.mqtt.username,
            password=self.config.mqtt.password,
            tls=self.config.mqtt.tls_settings(),
        )
        self.mqtt.set_status(sources=dict(self.source_status), node=self.config.console.node,
                             game=self.kind, seed=self.seed,
                             **({} if self.journal_status is None else {"journal": self.journal_status}),
                             **({} if self.offer is None else {"resume_offer": self.offer.view()}),
                             **({"problems": dict(self.problems)} if self.problems else {}))
        self.publisher.attach(self.mqtt)  # what was kept before: in order, with its numbers
        self.publish_state()
        if self.pack_shelf is not None:
            self.pack_shelf.refresh()  # the tablet's list, in the status once it is read
        self.start_local_inputs()
        self._broken = asyncio.get_running_loop().create_future()
        try:
            async with asyncio.TaskGroup() as tasks:
                tasks.create_task(self.mqtt.run(), name="mqtt")
                for name, link in self.links.items():
                    tasks.create_task(link.run(), name=f"mcu-{name}")
                tasks.create_task(_until(self._broken), name="referee")  # fails with a timer bug
                tasks.create_task(self._watch_lag(), name="lag")
        finally:
            self._broken = None
            self.close_local_inputs()

    async def _watch_lag(self) -> None:
        """Note every LAG_TICK_S that the console runs, and log how late the loop came when it was
        held up. A command's time is bounded by the tick before the latest: after a hold that is
        the last tick before it, for as long as what waited meanwhile is being read."""
        tick_ns = round(LAG_TICK_S * 1e9)
        last = self.clock()
        while True:
            await asyncio.sleep(LAG_TICK_S)
            now = self.clock()
            if now - last - tick_ns > HOLD_NS:
                log.warning("the console's loop was held up for %.0f ms", (now - last - tick_ns) / NS_PER_MS)
            self._alive_at, last = last, now
            self._ticked_at = now
            self.journal.retry(now)  # a failing journal tries the disk again (every RETRY_S)

    def start_local_inputs(self) -> None:
        """Claim the pins of the local inputs, each reported connected or not (run does this)."""
        loop = asyncio.get_running_loop()
        for local in self.local_inputs:
            local.start(loop)

    def close_local_inputs(self) -> None:
        """Free the pins of the local inputs (run does this when it stops)."""
        for local in self.local_inputs:
            local.close()


def shown_journal(name: str) -> str:
    """The journal as the public status names it: its file's name as it will stay (not the
    `.part` name it has until its beginning is committed), never the server's path."""
    return re.sub(r"\.\d+\.part$", "", Path(name).name)


async def _until(done: asyncio.Future[None]) -> None:
    """Wait for `done` (a task of run's group: its failure stops the group)."""
    await done
