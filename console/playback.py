"""Playing a scenario through a fresh engine in virtual time: replay's and resume's one way.

Contract: `read_scenario(lines, name, err)` reads a JSON Lines scenario (docs/scenarios.md)
into a `Scenario` (its config, with the game's defaults for what it leaves out; its steps;
each refused line named on `err`), or None when its config is unusable. `play(scenario)`
feeds a fresh engine (the scenario's seed) every step at its arrival time on a
`VirtualTable`: every deadline the engine announces in between fires at its exact time, as
it would have on the table; a journal's ``{"clock_ms": ...}`` line (written when the console
decided on its own timer) only moves the clock on; a checkpoint line (console/shell/checkpoint.py)
is skipped: `play` starts from one when given its engine. `chgk-console replay`
(console/tools/replay.py) prints what it decides; resuming a fight from the journal
(console/shell/resume.py) goes on from it, so a resumed referee is exactly the replayed one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TextIO

from console.config import Config, ConfigError
from console.engine.game import Game
from console.engine.model import NS_PER_MS, Output, Press, Watermark
from console.games import config_from_dict, game, names
from console.scenario import AnyInput, ScenarioError, Step, parse_step, time_ms
from console.sources import source_kind

__all__ = ["ClockStep", "Scenario", "StuckTimer", "VirtualTable", "play", "read_scenario",
           "with_scan_watermarks"]


class StuckTimer(RuntimeError):
    """An engine's timer that does not move on (see `VirtualTable.advance_to`)."""


class VirtualTable:
    """An engine driven on a virtual clock: inputs at their arrival times, deadlines on time."""

    def __init__(self, referee: Game[Any], start: int = 0) -> None:
        self.referee = referee
        self.now = start
        self.outputs: list[Output] = []

    def advance_to(self, t: int) -> None:
        """Move the clock to `t`, firing each deadline on the way at its exact time. An engine
        whose `on_timer(d)` leaves its next deadline at or before `d` would never let the clock
        move on: `StuckTimer` says so instead of hanging."""
        fired: int | None = None
        while (deadline := self.referee.next_deadline()) is not None and deadline <= t:
            if fired is not None and deadline <= fired:
                raise StuckTimer(f"{type(self.referee).__name__}.on_timer({fired}) left its next "
                                 f"deadline at {deadline}: a timer that never moves on")
            self.now = max(self.now, deadline)
            self.outputs += self.referee.on_timer(self.now)
            fired = deadline
        self.now = max(self.now, t)

    def deliver(self, inp: AnyInput, arrive: int | None = None) -> list[Output]:
        """Handle `inp` arriving at `arrive` (default: now), after the deadlines before it."""
        self.advance_to(self.now if arrive is None else arrive)
        out = self.referee.handle_all([inp], self.now)
        self.outputs += out
        return out

    def run_out(self, limit: int = 10_000) -> None:
        """Fire the remaining deadlines (the scenario ended; the table's clock runs on)."""
        for _ in range(limit):
            deadline = self.referee.next_deadline()
            if deadline is None:
                return
            self.advance_to(deadline)


@dataclass(frozen=True, slots=True)
class ClockStep:
    """A journal's ``{"clock_ms": ...}``: the console's clock reached `arrive` (host ns)."""

    arrive: int


AnyStep = Step | ClockStep


def with_scan_watermarks(steps: list[AnyStep], config: Config) -> list[AnyStep]:
    """After each scan of an ordered source (its presses at one time), add its watermark."""
    ordered = {name for name, s in config.sources.items() if source_kind(s.kind).ordered}
    result: list[AnyStep] = []
    for i, step in enumerate(steps):
        result.append(step)
        if not isinstance(step, Step):
            continue
        inp = step.input
        if not isinstance(inp, Press) or inp.source not in ordered:
            continue
        after = steps[i + 1] if i + 1 < len(steps) else None
        following = after.input if isinstance(after, Step) else None
        same_scan = (isinstance(following, Press) and following.source == inp.source
                     and following.at == inp.at and after is not None and after.arrive == step.arrive)
        if not same_scan:
            result.append(Step(Watermark(inp.source, inp.at), step.arrive))
    return result


@dataclass(frozen=True)
class Scenario:
    """A scenario or journal read: its config line (None without one), the config a replay
    judges it with, its steps in arrival order, and how many lines were refused."""

    header: dict[str, Any] | None
    config: Config
    steps: list[AnyStep]
    bad: int


def read_scenario(lines: Iterable[str], name: str, err: TextIO) -> Scenario | None:
    """Parse a scenario, naming each refused line on `err` (the rest is kept); None (said on
    `err`) when its config is unusable."""
    numbered = [(number, text) for number, text in enumerate(lines, 1) if text.strip()]
    header: dict[str, Any] | None = None
    if numbered and numbered[0][1].lstrip().startswith('{"config"'):
        number, text = numbered.pop(0)
        try:
            header = _header(text, f"{name}:{number}")
        except ScenarioError as exc:
            print(f"replay: {exc}", file=err)
            return None
    game_section = (header or {}).get("config", {}).get("game", {})
    kind = str(game_section.get("kind", "svoya")) if isinstance(game_section, dict) else "svoya"
    # An unknown kind is reported by the config check below; its lines are read as svoya's.
    rules = game(kind if kind in names() else "svoya")
    steps: list[AnyStep] = []
    bad = 0
    for number, text in numbered:
        if text.lstrip().startswith('{"checkpoint"'):
            continue  # the engine's state at that point: the lines before it say the same
        try:
            clock = _clock_step(text, f"{name}:{number}")
            steps.append(clock if clock is not None
                         else parse_step(text, f"{name}:{number}", rules, journal=header is not None))
        except ScenarioError as exc:
            print(f"replay: {exc}; line skipped", file=err)
            bad += 1
    raw_config = dict(header.get("config", {})) if header else {}
    auto_watermark = raw_config.pop("auto_watermark", True)
    try:
        config = config_from_dict({**rules.scenario_defaults, **raw_config}, f"{name} (config line)")
    except ConfigError as exc:
        print(f"replay: {exc}", file=err)
        return None
    steps.sort(key=lambda s: s.arrive)  # stable: lines arriving together keep their order
    if auto_watermark:
        steps = with_scan_watermarks(steps, config)
    return Scenario(header, config, steps, bad)


def play(scenario: Scenario, engine: Game[Any] | None = None, start: int | None = None,
         on_step: Callable[[list[Output]], None] | None = None) -> VirtualTable:
    """A fresh engine (the scenario's seed), or `engine` as it was at `start` (a journal's
    checkpoint: console/shell/checkpoint.py), fed every step at its arrival time; `on_step`
    gets each step's outputs (the deadlines before it included), which are not kept after
    (a resume of a long evening would hold every event of it). The clock stops at the last
    step."""
    steps = scenario.steps
    if engine is None:
        config = scenario.config
        kind_game = game(config.game.kind)
        # No live start: a replay's sensor watchdog starts with the journal's first sample.
        engine = kind_game.engine(config, kind_game.seed(config), None)
        start = steps[0].arrive if steps else 0
    table = VirtualTable(engine, start=start or 0)
    for step in steps:
        if isinstance(step, ClockStep):
            table.advance_to(step.arrive)
        else:
            table.deliver(step.input, step.arrive)
        if on_step is not None:
            on_step(table.outputs)
        table.outputs.clear()
    return table


def _header(text: str, where: str) -> dict[str, Any]:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"{where}: config line is not JSON ({exc.msg})") from exc
    except RecursionError:
        raise ScenarioError(f"{where}: config line nested too deeply") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("config"), dict):
        raise ScenarioError(f"{where}: the config line must be {{\"config\": {{...}}}}")
    return obj


def _clock_step(text: str, where: str) -> ClockStep | None:
    """A ``{"clock_ms": ...}`` line as a ClockStep; None for any other line."""
    if '"clock_ms"' not in text:
        return None
    try:
        obj = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return None  # parse_step names the problem
    if not isinstance(obj, dict) or not {"clock_ms"} <= set(obj) <= {"clock_ms", "held_ms"}:
        return None
    value = obj["clock_ms"]
    if not time_ms(value):
        raise ScenarioError(f"{where}: clock_ms must be a (finite) number of milliseconds")
    return ClockStep(round(value * NS_PER_MS))
