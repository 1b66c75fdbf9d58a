"""Resuming the fight from today's journal at start: a restart (kill -9, the watchdog, a power
cut) loses nothing that was decided.

Contract: `prepare(config)` finds today's journal (`find_journal`) and reads it (`load`):
the referee of its last checkpoint (console/shell/checkpoint.py; a fresh engine, the seed
from the journal's header, when it has none of this code) is given the lines after it
exactly as `chgk-console replay` feeds them (console/playback.py: `read_scenario` and
`play`), up to the last time the journal knows the console was running (its last input or
clock line). It gives a `Resumption` for `Console(resume=...)` (the replayed referee and
seed; this start goes on in the same file, console/shell/journal_files.py `Resumed`), a
`NotResumed` when the journal's config header differs from the current config (other
players, another game: it is left as it is and offered to the host, console/shell/resume_offer.py;
`with_journal_settings` is the config that resumes it with its own settings) or when it
cannot be resumed at all (set aside as ``*.not-resumed.jsonl``, never deleted), or None (no
journal of today, nothing in it, or `console.resume = false`). `announce(console, found)`
then, on the running console: voids what the crash interrupted, publishes ``resumed``
(`FightResumed`), reports a torn last line or skipped lines, or offers the mismatched journal.

What is voided is the game's to say (`GameKind.interrupted`, with its clause; the rules know
no crash, the organisers decide what the regulation does not cover, 004 IV 4.4, and decisions
already taken stand, 004 IV 4.3): «Своя игра» and the quartet cancel the question in play, to
be played again (004 App.9); the ChGK table withdraws the round in play and goes back to the
spin (003 6.1.1); the sports timer withdraws the running count (003 5.3). A press or a verdict
made while the console was down was never judged; a window or a count cannot be resumed.

Time: a decision the console took on its own timer wrote a clock line, so the replay reaches
it. After a reboot the host's monotonic clock starts again near zero, below the journal's
times; the resumed referee is then run `shift_ns` ahead of the host clock (`TimeShifted`) and
the journal writes its times shifted alike (console/shell/journal.py), so the engine's time
never goes back and the journal stays one timebase.
"""

from __future__ import annotations

import dataclasses
import io
import json
import logging
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from console.config import Config
from console.engine.corrections import AdjustScore
from console.engine.game import Game
from console.engine.model import NS_PER_MS, Json, Output
from console.games import game
from console.games.kind import GameInput, GameKind
from console.notices import FightResumed
from console.playback import ClockStep, play, read_scenario
from console.scenario import ScenarioError, parse_step
from console.shell.checkpoint import checkpoint_key
from console.shell.journal_files import set_aside
from console.shell.journal_read import read_journal
from console.shell.resume_offer import NOT_RESUMED
from console.shell.resumption import NotResumed, Resumption
from console.sources import SourceSettings

if TYPE_CHECKING:
    from console.shell.runtime import Console

__all__ = ["NOT_RESUMED", "NotResumed", "Resumption", "TimeShifted", "announce", "find_journal",
           "load", "prepare", "with_journal_settings"]

log = logging.getLogger("chgk.resume")

PAST_MIDNIGHT_S = 6 * 3600  # yesterday's journal still counts if written this recently
SHIFT_MARGIN_NS = NS_PER_MS  # after a reboot: the first new time this far past the journal's last
TIME_FIELDS = ("at", "up_to", "at_ns", "lost_from")  # the inputs' times (console/engine/model.py...)
# Hardware addresses, not rules: a box moved to another USB port must not stop a resume.
_ADDRESSES = ("port", "pins")


def find_journal(journal: str, now_s: float | None = None) -> Path | None:
    """Today's journal: the newest of `journal`'s dated files (daemon.py names them
    journal-YYYYMMDD-HHMMSS[-N].jsonl) of today, or of yesterday if written in the last
    PAST_MIDNIGHT_S (a fight that went past midnight); an empty file is never it."""
    if not journal:
        return None
    base = Path(journal)
    now_s = time.time() if now_s is None else now_s
    today = time.strftime("%Y%m%d", time.localtime(now_s))
    yesterday = time.strftime("%Y%m%d", time.localtime(now_s - 86400))
    pattern = re.compile(rf"{re.escape(base.stem)}-(\d{{8}})-(\d{{6}})(?:-(\d+))?{re.escape(base.suffix)}")
    found: list[tuple[float, str, int, Path]] = []
    try:
        entries = list(base.parent.iterdir())
    except OSError:
        return None
    for path in entries:
        match = pattern.fullmatch(path.name)
        if match is None:
            continue
        date, clock, n = match.group(1), match.group(2), int(match.group(3) or 1)
        try:
            stat = path.stat()
        except OSError:
            continue
        if stat.st_size == 0:
            continue  # an empty file (a start that wrote nothing, one made by hand) hides no fight
        mtime = stat.st_mtime
        if date == today or (date == yesterday and now_s - mtime < PAST_MIDNIGHT_S):
            found.append((mtime, date + clock, n, path))
    return max(found)[3] if found else None


def load(path: Path, config: Config, now: int) -> Resumption | NotResumed | None:
    """Replay the journal at `path` for `config`; `now` is the host clock (ns). None: nothing
    in it to resume (no input yet). From its last checkpoint when it has one of this code
    (console/shell/checkpoint.py), else from its start."""
    current = game(config.game.kind)
    references: dict[str, object] = {}

    def referenced(lines: Iterable[str]) -> Mapping[str, object]:
        references.update(_references(lines, current, path.name))
        return references

    try:
        read = read_journal(path, checkpoint_key(config.console.journal), referenced)
    except OSError as exc:
        return NotResumed(path, None, f"cannot read it ({exc.strerror})")
    if not read.header.lstrip().startswith('{"config"'):
        return NotResumed(path, None, "it does not begin with a config line")
    problems = io.StringIO()
    scenario = read_scenario([read.header, *read.lines], path.name, problems)
    if scenario is None or scenario.header is None:
        return NotResumed(path, None, f"its config line is unusable ({problems.getvalue().strip()})")
    journal_kind = game(scenario.config.game.kind)
    journal_seed = journal_kind.seed(scenario.config)
    seed = current.seed(config) or journal_seed
    expected = json.loads(json.dumps(current.journal_header(config, seed)))
    differs = _differences(expected, scenario.header["config"])
    if differs:
        return NotResumed(path, None, f"its config differs from this one in {', '.join(differs)}",
                          differs=tuple(differs))
    inputs = sum(not isinstance(step, ClockStep) for step in scenario.steps)
    checkpoint = read.checkpoint
    if checkpoint is None and inputs == 0:
        return None
    table = play(scenario) if checkpoint is None else play(scenario, checkpoint.engine, checkpoint.at_ns)
    for step in scenario.steps:  # the engine holds these very objects: later checkpoints refer to them
        ref = None if isinstance(step, ClockStep) else current.referenced(step.input)
        if ref is not None:
            references[ref[0]] = ref[1]
    known_until = table.now
    shift = max(0, known_until + SHIFT_MARGIN_NS - now)
    engine = table.referee
    skipped = tuple(line.removeprefix("replay: ") for line in problems.getvalue().splitlines())
    return Resumption(path=path, seed=journal_seed, referee=TimeShifted(engine, shift) if shift else engine,
                      engine=engine, known_until=known_until, shift_ns=shift,
                      inputs=inputs + (checkpoint.inputs if checkpoint else 0), torn=read.torn,
                      skipped=skipped, keep_bytes=read.keep_bytes, needs_newline=read.needs_newline,
                      own_settings=read.own_settings, references=references)


def _references(lines: Iterable[str], kind: GameKind, name: str) -> dict[str, object]:
    """What the lines hold that a checkpoint may refer to (`GameKind.referenced`): only the
    lines of its referring steps are parsed (a cheap text test first)."""
    marks = tuple(f'"{step}"' for step in kind.referring_steps)
    found: dict[str, object] = {}
    for n, text in enumerate(lines, 2):
        if marks and any(mark in text for mark in marks):
            try:
                step = parse_step(text, f"{name}:{n}", kind, journal=True)
            except ScenarioError:
                continue
            ref = kind.referenced(step.input)
            if ref is not None:
                found[ref[0]] = ref[1]
    return found


def prepare(config: Config, now: int) -> Resumption | NotResumed | None:
    """Today's journal for `config` read (see the module docstring). One of another config is
    left as it is for the host to choose; one that cannot be resumed at all is set aside."""
    if not config.console.resume:
        return None
    path = find_journal(config.console.journal)
    if path is None:
        return None
    found = load(path, config, now)
    if isinstance(found, NotResumed) and found.differs and _chosen_before(path):
        # The host chose this fight's own settings earlier this evening (`run --resume`): a
        # restart (a crash, the watchdog) keeps that choice instead of asking again.
        own = with_journal_settings(config, path)
        if isinstance(own, Config):
            log.info("journal: %s was resumed with its own settings before: again", path)
            return load(path, own, now)
    if isinstance(found, NotResumed) and not found.differs:
        kept = set_aside(path, NOT_RESUMED)
        found = dataclasses.replace(found, kept_as=kept)
        log.warning("journal: %s not resumed: %s; a fresh game (the journal is kept as %s)",
                    path, found.why, kept or path)
    elif isinstance(found, NotResumed):
        log.warning("journal: %s not resumed: %s; a fresh game until the host chooses (the journal is "
                    "left as it is: `run --resume %s` resumes it with its own settings)",
                    path, found.why, path)
    elif found is not None:
        log.info("journal: resuming the fight of %s (%d inputs%s)", path, found.inputs,
                 f", clock shifted by {found.shift_ns} ns after a reboot" if found.shift_ns else "")
    return found


def with_journal_settings(config: Config, path: Path) -> Config | str:
    """`config` with the game's settings of the journal at `path` (its game, rules, players
    and pack, from its config line), this machine's own kept (the sources' ports and pins,
    the broker, the sound): so the fight it holds can be resumed; or what stops that."""
    try:
        with path.open(encoding="utf-8", errors="replace") as file:
            first = file.readline()
    except OSError as exc:
        return f"cannot read {path} ({exc.strerror})"
    problems = io.StringIO()
    scenario = read_scenario([first], path.name, problems)
    if scenario is None or scenario.header is None:
        return f"{path.name} does not begin with a usable config line {problems.getvalue().strip()}".strip()
    own = scenario.config
    # The journal's sources as it judged them, each at this machine's address if it has one.
    sources = {name: _at_address(source, config.sources[name]) if name in config.sources else source
               for name, source in own.sources.items()}
    return dataclasses.replace(config, game=own.game, players=own.players, sources=sources,
                               sections=own.sections)


def _at_address(judged: SourceSettings, here: SourceSettings) -> SourceSettings:
    """The journal's settings of a source with this machine's address of it (the keys both
    kinds have: a serial port, GPIO pins and their factory)."""
    keys = {f.name for f in dataclasses.fields(judged)} & {f.name for f in dataclasses.fields(here)}
    return dataclasses.replace(judged, **{key: getattr(here, key) for key in (*_ADDRESSES, "pin_factory")
                                          if key in keys})


def _chosen_before(path: Path) -> bool:
    """Whether the fight at `path` was resumed with its own settings (`run --resume`): its
    last checkpoint says so."""
    try:
        return read_journal(path).own_settings
    except OSError:
        return False


def announce(console: Console, found: Resumption | NotResumed | None) -> None:
    """On the console built with `found`: void what was interrupted, say it resumed; offer a
    journal of another config to the host (`Console.offer_resume`)."""
    if isinstance(found, NotResumed):
        if found.offered:
            console.own.offer_resume(found.path, found.differs)
            return
        kept = f"; the journal is kept as {found.kept_as.name}" if found.kept_as else ""
        console.report_error("resume_refused",
                             f"{found.path.name} not resumed: {found.why}; a fresh game{kept}")
        return
    if found is None:
        return
    # What resuming could not read is said as such: the journal itself is being written (the
    # "journal" source says it is not).
    if found.torn is not None:
        shown = found.torn if len(found.torn) <= 120 else found.torn[:120] + "…"
        console.report_error("resume_partial", f"the last line of {found.path.name} was torn (a power cut "
                                               f"mid-write?) and is left out: {shown!r}; the rest is resumed")
    if found.skipped:
        more = f" (and {len(found.skipped) - 1} more)" if len(found.skipped) > 1 else ""
        console.report_error("resume_partial", f"resuming: {len(found.skipped)} line(s) of {found.path.name} "
                                               f"left out: {found.skipped[0]}{more}; the rest is resumed")
    voided = console.game.interrupted(found.engine, found.known_until)
    if voided is not None:
        inputs, _what = voided
        raw = found.known_until - found.shift_ns  # the host clock's time of the journal's last
        console.feed([shifted(inp, -found.shift_ns) for inp in inputs], now=raw)
    console.publisher.publish(FightResumed(
        t_ns=console.clock() + found.shift_ns, journal=found.path.name, inputs=found.inputs,
        voided=None if voided is None else voided[1], torn=found.torn is not None,
        given_back={} if voided is None else given_back(voided[0])))
    console.retained.publish()


def given_back(inputs: tuple[GameInput, ...]) -> dict[str, int]:
    """The points the void's corrections give back, by player."""
    return {inp.player: inp.delta for inp in inputs if isinstance(inp, AdjustScore)}


def shifted(inp: GameInput, by: int) -> GameInput:
    """`inp` (a dataclass, as every engine's input is) with each of its times (TIME_FIELDS)
    moved by `by` ns."""
    assert dataclasses.is_dataclass(inp) and not isinstance(inp, type)
    changes = {f.name: getattr(inp, f.name) + by for f in dataclasses.fields(inp)
               if f.name in TIME_FIELDS and isinstance(getattr(inp, f.name), int)}
    return dataclasses.replace(inp, **changes)


class TimeShifted:
    """An engine run `shift_ns` ahead of the host clock: every time in (inputs, `now`) is moved
    forward, every time out (deadlines) back; events keep the engine's times, as the journal."""

    def __init__(self, engine: Game[Any], shift_ns: int) -> None:
        self.engine = engine
        self.shift_ns = shift_ns

    def handle_all(self, inputs: Sequence[GameInput], now: int) -> list[Output]:
        return self.engine.handle_all([shifted(i, self.shift_ns) for i in inputs], now + self.shift_ns)

    def on_timer(self, now: int) -> list[Output]:
        return self.engine.on_timer(now + self.shift_ns)

    def next_deadline(self) -> int | None:
        deadline = self.engine.next_deadline()
        return None if deadline is None else deadline - self.shift_ns

    def snapshot(self, now: int) -> dict[str, Json]:
        return self.engine.snapshot(now + self.shift_ns)

    def host_snapshot(self, now: int) -> dict[str, Json]:
        return self.engine.host_snapshot(now + self.shift_ns)

    def running_timer(self) -> tuple[str, int] | None:
        timer = self.engine.running_timer()
        return None if timer is None else (timer[0], timer[1] - self.shift_ns)


def _differences(expected: dict[str, Any], found: object) -> list[str]:
    """The config sections in which the journal's header differs from the current config's:
    ``["kind"]`` when it is another game altogether (its sections are another game's: naming
    them one by one would tell the host nothing)."""
    if not isinstance(found, dict):
        return ["everything"]
    if _kind(expected) != _kind(found):
        return ["kind"]
    return sorted(key for key in expected.keys() | found.keys()
                  if _comparable(key, expected.get(key)) != _comparable(key, found.get(key)))


def _kind(header: dict[str, Any]) -> object:
    game = header.get("game")
    return game.get("kind", "svoya") if isinstance(game, dict) else None


def _comparable(section: str, value: object) -> object:
    if section == "sources" and isinstance(value, dict):
        return {name: {k: v for k, v in s.items() if k not in _ADDRESSES} if isinstance(s, dict) else s
                for name, s in value.items()}
    return value
