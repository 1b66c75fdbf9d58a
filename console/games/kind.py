"""What a game kind is to the rest of the console: one record, one entry in the registry.

Contract: everything that differs between «Своя игра», the ChGK table and the sports timer is
a field of `GameKind`: which inputs its engine takes (so config can refuse a source or a pedal
that cannot play), how its rules come from config and are checked, how its engine is built,
how host commands and scenario steps become its inputs, what the journal's config line holds,
and which page the hall's screens show. Code outside `console/games/` asks the entry; it never
branches on the kind's name.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Coroutine, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from console.engine.chgk.rules import ChgkHost, SectorPicked
from console.engine.game import Game
from console.engine.model import Input
from console.engine.quartet.rules import QuartetHost
from console.engine.spin.detector import AngleSample
from console.engine.sports.timer import SportsHost
from console.engine.svoya.corrections import Correction
from console.sources import ANGLE, BUTTONS

__all__ = ["ANGLE", "BUTTONS", "GameInput", "GameKind", "JsonObject", "only_keys"]

if TYPE_CHECKING:

    from console.config import Config

    # (config, stdin, stdout, sound=...) -> the demo's exit status
    DemoRunner = Callable[..., Coroutine[Any, Any, int]]

GameInput = Input | Correction | ChgkHost | SectorPicked | AngleSample | SportsHost | QuartetHost
JsonObject = Mapping[str, object]



@dataclass(frozen=True)
class GameKind:
    """One game the console can run (see the module docstring)."""

    name: str  # game.kind in config
    title: str  # in Russian, for the screens and check-config
    takes: frozenset[str]  # BUTTONS and/or ANGLE: the inputs its engine takes from sources
    host_pedal: bool  # its host actions can be put on a foot pedal
    check: Callable[[Config], None]  # the rules' own checks: ConfigError naming the key
    seed: Callable[[Config], int]  # the configured draw seed (0: a fresh one at start)
    # (config, seed, started_at_ns: the live start, None in a replay) -> a new engine
    engine: Callable[[Config, int, int | None], Game[Any]]
    parse_command: Callable[[JsonObject, int], GameInput]  # (command, at): ValueError naming the problem
    command_help: str  # what a host command looks like, for error messages
    steps: tuple[str, ...]  # the scenario steps it takes (docs/scenarios.md)
    step_args: Mapping[str, tuple[str, ...]]  # the extra keys each step may carry
    parse_step: Callable[[str, JsonObject, int], GameInput]  # (step, line, at): ValueError
    journal_header: Callable[[Config, int], dict[str, Any]]  # (config, seed) -> config line
    scenario_defaults: Mapping[str, object]  # config sections of a scenario without them
    board: str  # the hall's page (console/data/<board>)
    demo: str = ""  # "module:function" running its terminal demo (`chgk-console demo`), "" if none
    demo_config: str = ""  # the demo's built-in config (console/data/<demo_config>)

    def demo_runner(self) -> DemoRunner | None:
        """The function running this game's terminal demo, imported now; None if it has none."""
        if not self.demo:
            return None
        module, _, function = self.demo.partition(":")
        runner: DemoRunner = getattr(importlib.import_module(module), function)
        return runner


def only_keys(command: JsonObject, allowed: Iterable[str]) -> None:
    """ValueError naming the keys of a host command that its game does not know."""
    unknown = set(command) - set(allowed)
    if unknown:
        raise ValueError(f"unknown key(s) {', '.join(sorted(unknown))}")
