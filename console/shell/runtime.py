"""The asyncio shell around the referee: drivers in, decisions out, one loop, one timer, one clock.

Contract: every input reaches the referee through `Console.feed` stamped with the time it
happened at its source; the referee's outputs are carried out at once, in this order: events
to MQTT (written to the socket in this loop turn), lamps (one serial write), cues; the
retained state follows in the next loop turn. A driver, the broker or the sound card failing
is reported and the game goes on; nothing here raises into a driver callback.

The console is a thin shell over parts that each do one job and reach it through narrow
callables: the sources' host (console/shell/sources_hub.py: what every input backend talks
to), the referee's one timer and the read-out of the console's own hold-ups
(console/shell/deadlines.py), the console's own host actions (console/shell/own_actions.py),
the lag watch (console/shell/lag_watch.py), the journal and its checkpoints, the publisher.
"""

from __future__ import annotations

import asyncio
import logging
import random
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from console.config import Config
from console.engine.events import Event
from console.engine.game import Game
from console.engine.model import Host, HostAction, Output, PlayCue, Press, SetLamps, Watermark
from console.games import game
from console.games.kind import GameInput, GameKind
from console.notices import ConsoleError, JournalStatus
from console.scenario import step_to_json
from console.shell.checkpoint import Checkpoints, checkpoint_key, code_fingerprint
from console.shell.command_intake import CommandIntake
from console.shell.deadlines import Deadlines
from console.shell.error_reports import ErrorReports
from console.shell.journal import Journal, clock_line, decides
from console.shell.journal_files import JournalFiles, Resumed
from console.shell.lag_watch import LagWatch
from console.shell.mqtt_link import MqttLink
from console.shell.mqtt_wire import Topics
from console.shell.osc_cues import OscCues
from console.shell.own_actions import OwnActions
from console.shell.publisher import Publisher
from console.shell.records import GameRecords
from console.shell.resumption import Resumption
from console.shell.sound import CuePlayer, NullPlayer
from console.shell.sources_hub import SourcesHub
from console.shell.state_publishing import StatePublishing
from console.shell.timers import Timers
from console.state_people import pads

log = logging.getLogger("chgk.console")


ERRORS_PER_SECOND = 10  # of one source, shown one by one; the rest are counted
# A checkpoint (the referee's whole state) after this many journal lines, between questions:
# a resume replays at most about this many (docs/performance.md, `bench resume`).
CHECKPOINT_LINES = 3_000
EVENTS_BEFORE_RUN = 100  # kept for the MQTT link from before it exists (a start's problems)
MAX_ERROR_CHARS = 2000  # an error event's message, which may quote what a client sent


class Console:
    """The daemon's core, independent of how it was started (run, demo, tests, bench); its
    `sources` are the sources' `SourceHost` (console/sources/host.py)."""

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
        self.publisher = Publisher(self.topics, before_run=EVENTS_BEFORE_RUN)
        # The retained state, and the game's parts besides it (console/shell/state_publishing.py).
        self.retained = StatePublishing(
            link=lambda: self.mqtt, state=self.state, host_state=self.host_state,
            parts=lambda: self.game.retained_parts(self.referee),
            counting=lambda: self.referee.running_timer() is not None, timers=self.timers,
            topics=self.topics)
        self.errors = ErrorReports(self._show_error, clock, per_second=ERRORS_PER_SECOND,
                                   max_chars=MAX_ERROR_CHARS)
        # The journal's health, as the retained status says it (None: no journal kept).
        self.journal_status: dict[str, str] | None = None
        self.journal = Journal(journal, self.report_error, shift_ns=resume.shift_ns if resume else 0,
                               on_state=self._journal_state)
        if self.journal.open and self.journal.failing is None:
            self.journal_status = {"state": "writing", "detail": shown_journal(self.journal.name)}
        self.records = GameRecords(self.game.record_dir(config), self.report_error)
        self.lag = LagWatch(clock)
        self.deadlines = Deadlines(
            clock=clock, timers=self.timers, next_deadline=lambda: self.referee.next_deadline(),
            on_timer=lambda now: self.referee.on_timer(now), decided=self._decided, feed=self.feed,
            say=self._publish, report_error=self.report_error, read_out=lambda: self.sources.drain(),
            has_broker=lambda: self.mqtt is not None,
            after_broker=lambda callback: self.mqtt.after_broker(callback) if self.mqtt else None)
        self.sources = SourcesHub(
            self.game, config, clock=clock, timers=self.timers, pads_now=self._pads_now, feed=self.feed,
            publish=self._publish, report_error=self.report_error, read_time=self.lag.read_time,
            on_status=lambda states: self._status(sources=states),
            on_details=lambda details: self._status(devices=details),
            owner_names=lambda: self.own.button_owners(),
            deadline_pending=lambda: self.deadlines.due is not None)
        osc = config.osc
        self.osc = OscCues(osc.host, osc.port, osc.address, config.console.node) if osc.enabled else None
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
        # The console's own host actions: the offered journal, packs, hall media, the check of
        # the buttons (console/shell/own_actions.py); a start's problems are said from here.
        self.own = OwnActions(
            self.game, config, clock=clock, engine=lambda: self._checkpoints.engine, pads_now=self._pads_now,
            feed=self.feed, publish=self._publish, report_error=self.report_error, set_status=self._status,
            set_lamps=self.sources.set_lamps, journal=self.journal, source_command=self.sources.command)
        # The host's and the jury's commands over MQTT (console/shell/command_intake.py).
        self.commands = CommandIntake(
            self.game, command_topic=self.topics.command, clock=clock, alive_at=lambda: self.lag.alive_at,
            take=self.own.take, feed=self.feed, report_error=self.report_error)

    @property
    def watchers(self) -> list[Callable[[Event], None]]:
        """Called with each typed event, as published."""
        return self.publisher.watchers

    @property
    def wire_watchers(self) -> list[Callable[[dict[str, Any]], None]]:
        """Called with each event's JSON, as published."""
        return self.publisher.wire_watchers

    # ------------------------------------------------------------------ inputs

    def feed(self, inputs: Sequence[GameInput], now: int | None = None) -> None:
        """Hand inputs to the referee (received at `now`, default: the clock) and act on them;
        received late for a deadline the referee is owed, as `Deadlines.place` says."""
        now = self.clock() if now is None else now
        self.lag.noted(now)  # reading an input is a sign of life: the watch's timer waits
        checked = self.own.checked(inputs)
        if inputs and not checked:  # all presses of a check of the buttons: nothing for the game
            return
        inputs = checked
        self.own.played_on(inputs)  # (a journal offered: the host plays on, the fresh game it is)
        placed = self.deadlines.place(inputs, now)
        if placed is None:
            return  # fed once the overdue deadline is decided
        now = placed
        self.sources.inputs_fed(inputs)
        if self.journal.open:
            self.journal.write(*(step_to_json(inp, now, self.game) for inp in inputs))
            self._checkpoints.inputs += len(inputs)
            for inp in inputs:
                if type(inp) is not Press and type(inp) is not Watermark:  # (the press path)
                    ref = self.game.referenced(inp)
                    if ref is not None:
                        self._checkpoints.refer(*ref)
        self._carry_out(self.referee.handle_all(inputs, now), now)

    def fire_due(self, now: int | None = None) -> None:
        """Fire what is due at `now` (default: the clock), as the timer does when it is on time:
        for a console driven by hand, outside an event loop (tests, benchmarks)."""
        self.deadlines.settle(self.clock() if now is None else now)

    def host(self, action: HostAction, at: int | None = None) -> None:
        self.feed([Host(action, self.clock() if at is None else at)])

    def _pads_now(self) -> dict[str, str]:
        """Each button of the game and whose it is: as the referee has them now (the host may
        have added, removed or re-bound players on the tablet), else as configured."""
        return pads(self.referee.snapshot(self.clock())) or self.game.pads(self.config)

    def report_error(self, source: str, message: str) -> None:
        """A driver or command problem: logged and published, rate-limited per source
        (console/shell/error_reports.py); the game is not touched."""
        self.errors.report(source, message)

    def _show_error(self, source: str, message: str, now: int) -> None:
        log.warning("%s: %s", source, message)
        self._publish(ConsoleError(t_ns=now, source=source, message=message))

    # ------------------------------------------------------------------ the journal

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
        self._status(journal=self.journal_status)
        self._publish(JournalStatus(t_ns=self.clock(), state=state, detail=detail))

    # ------------------------------------------------------------------ outputs

    def _decided(self, outputs: list[Output], now: int, held_ns: int) -> None:
        """What a deadline decided at `now` (`held_ns`: that late, held up), carried out."""
        if self.journal.open and decides(outputs):  # a resume must know the clock got this far
            self.journal.write(clock_line(now, held_ns))
        self._carry_out(outputs, now)

    def _carry_out(self, outputs: list[Output], now: int) -> None:
        # The lamps first: a player's own lamp is the feedback that matters most at the table;
        # then the referee's events in its order, then the cues.
        for out in outputs:
            if isinstance(out, SetLamps):
                self.own.referee_lamps(out.lamps)  # (held while a check of the buttons lights its own)
        for out in outputs:
            if isinstance(out, Event):
                self._publish(out)
        for out in outputs:
            if isinstance(out, PlayCue):
                self.cues.play(out.cue)
                if self.osc is not None:
                    self.osc.send(out.cue)
        # The live angle (up to 20 a second while the top spins) changes nothing a late display
        # needs at once: it has its own topic, and the state follows the next real change.
        if not all(isinstance(out, Event) and out.LIVE for out in outputs):
            self.retained.publish()
        self.deadlines.arm()
        self.retained.keep_fresh()
        if self.journal.lines >= CHECKPOINT_LINES and self.deadlines.due is None:
            # Between questions (no deadline pending: nothing on the press path to delay).
            self._checkpoint(max(now, self.deadlines.fed_at) + self._checkpoints.shift_ns)
        if self.journal.open and decides(outputs):  # after the lamps and the event: off their path
            self.journal.sync_soon()

    def _publish(self, event: Event) -> None:
        wire = self.publisher.publish(event)
        if event.CHANGES_PADS:
            self.sources.players_changed(self._pads_now())
        if event.STARTS_GAME:  # a game's records are kept by game (console/shell/records.py)
            self.records.game_started()
        elif event.RECORD:
            self.records.keep(wire)

    def _status(self, **parts: Any) -> None:
        """Parts of the retained status (none before the MQTT link: `run` sets them all)."""
        if self.mqtt is not None:
            self.mqtt.set_status(**parts)

    def _oversize(self, topic: str, size: int) -> None:
        """A message the broker would drop unsaid: said to the host (a short one) instead."""
        if topic.endswith("/events"):
            return  # an event this size is a bug: logged by the link, not said in another event
        self.report_error("mqtt", f"a message to {topic} of {size} bytes is over the broker's limit: "
                                  "not sent")

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

    # ------------------------------------------------------------------ running

    async def run(
        self, broker_host: str, broker_port: int, *, on_ready: Callable[[], None] | None = None
    ) -> None:
        """Run the MQTT link, every MCU link and the lag watch until cancelled."""
        self.mqtt = MqttLink(
            broker_host,
            broker_port,
            self.topics,
            on_command=self.commands.on_command,
            on_retained_command=self.commands.on_retained_command,
            on_jury_command=None if self.game.parse_jury_command is None else self.commands.on_jury_command,
            on_oversize=self._oversize,
            on_connected=on_ready,
            username=self.config.mqtt.username,
            password=self.config.mqtt.password,
            tls=self.config.mqtt.tls_settings(),
        )
        self.mqtt.set_status(sources=dict(self.sources.status), node=self.config.console.node,
                             game=self.kind, seed=self.seed,
                             **({} if self.journal_status is None else {"journal": self.journal_status}),
                             **({"devices": dict(self.sources.details)} if self.sources.details else {}),
                             **self.own.status())
        self.publisher.attach(self.mqtt)  # what was kept before: in order, with its numbers
        self.retained.publish()
        if self.own.pack_shelf is not None:
            self.own.pack_shelf.refresh()  # the tablet's list, in the status once it is read
        self.sources.start_local_inputs()
        broken = self.deadlines.broken = asyncio.get_running_loop().create_future()
        try:
            async with asyncio.TaskGroup() as tasks:
                tasks.create_task(self.mqtt.run(), name="mqtt")
                for name, link in self.sources.links.items():
                    tasks.create_task(link.run(), name=f"mcu-{name}")
                tasks.create_task(_until(broken), name="referee")  # fails with a timer bug
                # A failing journal tries the disk again on the lag watch's ticks (every RETRY_S).
                tasks.create_task(self.lag.run(self.journal.retry), name="lag")
        finally:
            self.deadlines.broken = None
            self.sources.close_local_inputs()


def shown_journal(name: str) -> str:
    """The journal as the public status names it: its file's name as it will stay (not the
    `.part` name it has until its beginning is committed), never the server's path."""
    return re.sub(r"\.\d+\.part$", "", Path(name).name)


async def _until(done: asyncio.Future[None]) -> None:
    """Wait for `done` (a task of run's group: its failure stops the group)."""
    await done
