"""Replay: feed a JSON Lines scenario through the referee in virtual time, print its events.

Contract: `replay_file(path, out, err)` writes one event per line to `out`, the same JSON the
console publishes on MQTT, and returns an exit status (0: every line was good; 1: some lines
were refused, each named on `err`, and the rest was still replayed; 2: the scenario's config
is unusable). Virtual time: each input is handled at its arrival time, and every deadline
the referee announces in between fires at its exact time, as it would have on the table.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, TextIO

from console.config import Config, ConfigError
from console.engine.game import Game
from console.engine.model import Output, Press, Watermark
from console.games import config_from_dict, game, names
from console.scenario import AnyInput, ScenarioError, Step, parse_step
from console.shell.mqtt_link import encode
from console.sources import source_kind
from console.wire import events_json


class VirtualTable:
    """An engine driven on a virtual clock: inputs at their arrival times, deadlines on time."""

    def __init__(self, referee: Game[Any], start: int = 0) -> None:
        self.referee = referee
        self.now = start
        self.outputs: list[Output] = []

    def advance_to(self, t: int) -> None:
        """Move the clock to `t`, firing each deadline on the way at its exact time."""
        while (deadline := self.referee.next_deadline()) is not None and deadline <= t:
            self.now = max(self.now, deadline)
            self.outputs += self.referee.on_timer(self.now)
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


def with_scan_watermarks(steps: list[Step], config: Config) -> list[Step]:
    """After each scan of an ordered source (its presses at one time), add its watermark."""
    ordered = {name for name, s in config.sources.items() if source_kind(s.kind).ordered}
    result: list[Step] = []
    for i, step in enumerate(steps):
        result.append(step)
        inp = step.input
        if not isinstance(inp, Press) or inp.source not in ordered:
            continue
        following = steps[i + 1].input if i + 1 < len(steps) else None
        same_scan = (isinstance(following, Press) and following.source == inp.source
                     and following.at == inp.at and steps[i + 1].arrive == step.arrive)
        if not same_scan:
            result.append(Step(Watermark(inp.source, inp.at), step.arrive))
    return result


def replay_lines(lines: Iterable[str], name: str, out: TextIO, err: TextIO) -> int:
    numbered = [(number, text) for number, text in enumerate(lines, 1) if text.strip()]
    header: dict[str, Any] | None = None
    if numbered and numbered[0][1].lstrip().startswith('{"config"'):
        number, text = numbered.pop(0)
        try:
            header = _header(text, f"{name}:{number}")
        except ScenarioError as exc:
            print(f"replay: {exc}", file=err)
            return 2
    game_section = (header or {}).get("config", {}).get("game", {})
    kind = str(game_section.get("kind", "svoya")) if isinstance(game_section, dict) else "svoya"
    # An unknown kind is reported by the config check below; its lines are read as svoya's.
    rules = game(kind if kind in names() else "svoya")
    steps: list[Step] = []
    bad = 0
    for number, text in numbered:
        try:
            steps.append(parse_step(text, f"{name}:{number}", rules))
        except ScenarioError as exc:
            print(f"replay: {exc}; line skipped", file=err)
            bad += 1
    raw_config = dict(header.get("config", {})) if header else {}
    auto_watermark = raw_config.pop("auto_watermark", True)
    try:
        config = config_from_dict({**rules.scenario_defaults, **raw_config}, f"{name} (config line)")
    except ConfigError as exc:
        print(f"replay: {exc}", file=err)
        return 2
    steps.sort(key=lambda s: s.arrive)  # stable: lines arriving together keep their order
    if auto_watermark:
        steps = with_scan_watermarks(steps, config)
    kind_game = game(config.game.kind)
    # No live start: a replay's sensor watchdog starts with the journal's first sample.
    engine = kind_game.engine(config, kind_game.seed(config), None)
    table = VirtualTable(engine, start=steps[0].arrive if steps else 0)
    seq = 0
    for step in steps:
        before = len(table.outputs)
        table.deliver(step.input, step.arrive)
        seq = _print_events(table.outputs[before:], seq, out)
    before = len(table.outputs)
    table.run_out()
    _print_events(table.outputs[before:], seq, out)
    return 1 if bad else 0


def replay_file(path: str, out: TextIO, err: TextIO) -> int:
    try:
        with open(path, encoding="utf-8") as f:
            return replay_lines(f, path, out, err)
    except OSError as exc:
        print(f"replay: {path}: {exc.strerror}", file=err)
        return 2
    except UnicodeDecodeError as exc:
        print(f"replay: {path}: not a scenario (not UTF-8 text: {exc.reason} at byte {exc.start})", file=err)
        return 2


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


def _print_events(outputs: list[Output], seq: int, out: TextIO) -> int:
    for event in events_json(outputs):
        seq += 1
        event["seq"] = seq
        out.write(encode(event).decode() + "\n")
    return seq
