"""What a game kind is to the rest of the console: one record, one entry in the registry.

Contract: everything that differs between the games is a field of `GameKind`: which inputs
its engine takes (so config can refuse a source or a pedal that cannot play), how its rules
come from config and are checked, how its engine is built, how host commands and scenario
steps become its inputs and its own inputs become journal lines, what the journal's config
line holds, whether a pad's repeated presses may be coalesced, what a crash interrupted and
a resume voids, what it reports at start, where its top's angle and its records come from,
and which pages the hall's screens and the host's show. Code outside `console/games/` asks
the entry; it never branches on the kind's name nor on its engine's class, and imports no
game: this module imports none either (a game's inputs are opaque here: `GameInput`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Coroutine, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from console.engine.game import Game
from console.sources import ANGLE, BUTTONS

__all__ = ["ANGLE", "BUTTONS", "GameInput", "GameKind", "JsonObject", "PackChoice", "only_keys"]

if TYPE_CHECKING:

    from console.config import Config

    # (config, stdin, stdout, sound=...) -> the demo's exit status
    DemoRunner = Callable[..., Coroutine[Any, Any, int]]

# An input of some game's engine: a press, a watermark, a host action, a correction, an angle
# sample... Each game's parsers return its own classes; the shared layers only pass them on.
GameInput: TypeAlias = object
JsonObject = Mapping[str, object]


def nothing_interrupted(engine: Game[Any], at: int) -> tuple[tuple[GameInput, ...], str] | None:
    """A game with nothing a crash could leave half-done."""
    return None


def no_start_problems(engine: Game[Any]) -> tuple[tuple[str, str], ...]:
    return ()


def no_references(inp: object) -> tuple[str, object] | None:
    return None


def no_own_inputs(inp: GameInput) -> tuple[dict[str, Any], int] | None:
    return None


def any_angle_source(config: Config) -> str:
    return ""


def every_angle(config: Config) -> float:
    return 0.0


def no_records(config: Config) -> str:
    return ""


def no_media_pack(config: Config, engine: Game[Any]) -> str:
    return ""


def no_parts(engine: Game[Any]) -> Mapping[str, object]:
    return {}


def players_pads(config: Config) -> dict[str, str]:
    """Each ``[[players]]`` pad and its player's id."""
    return {p.pad: p.id for p in config.players}


@dataclass(frozen=True)
class PackChoice:
    """How a game plays a pack chosen on the tablet. `catalogue` and `choice` read files: the
    console calls them off its loop."""

    folder: Callable[[Config], Path]  # the packs' folder (config: game.pack_dir)
    catalogue: Callable[[Path], dict[str, Any]]  # (folder) -> the list the tablet shows
    # (the pack's file, its round from 1, at) -> the engine's input playing it, or PackError
    choice: Callable[[Path, int, int], GameInput]


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
    # The scenario steps it takes (docs/scenarios.md); "press" and "watermark" are parsed for
    # every game alike by console/scenario.py, the others by `parse_step`.
    steps: tuple[str, ...]
    step_args: Mapping[str, tuple[str, ...]]  # the extra keys each of its own steps may carry
    parse_step: Callable[[str, JsonObject, int], GameInput]  # (step, line, at): ValueError
    journal_header: Callable[[Config, int], dict[str, Any]]  # (config, seed) -> config line
    scenario_defaults: Mapping[str, object]  # config sections of a scenario without them
    inputs: tuple[type, ...]  # the classes of its engine's inputs (each a dataclass with its time)
    board: str  # the hall's page (console/data/<board>)
    # Its modules of the host's screen, in load order (console/data/<name>, after host.js), and
    # any other script its pages load (console/data/<name>): the display server serves them.
    host_pages: tuple[str, ...]
    scripts: tuple[str, ...] = ()
    demo: str = ""  # "module:function" running its terminal demo (`chgk-console demo`), "" if none
    demo_config: str = ""  # the demo's built-in config (console/data/<demo_config>)
    # A pad's earlier press is always at least as good as its later one, so a repeat within
    # 20 ms may be dropped unjudged (console/shell/coalesce.py).
    coalesce_presses: bool = False
    # (engine, the journal's last time) -> the host inputs voiding what a crash interrupted (the
    # withdrawal first, then what it gives back), and what it voids ("question", "round",
    # "count"); None when nothing was in play (resume).
    interrupted: Callable[[Game[Any], int], tuple[tuple[GameInput, ...], str] | None] = nothing_interrupted
    # (source, message) of each problem a new engine starts with (a pack not read, ...).
    start_problems: Callable[[Game[Any]], tuple[tuple[str, str], ...]] = no_start_problems
    # Its own inputs (not a press, watermark or plain host action) as a scenario line and the
    # time it carries (console/scenario.py writes the rest); None for any other input.
    input_line: Callable[[GameInput], tuple[dict[str, Any], int] | None] = no_own_inputs
    # A bulky part of one of its inputs (a chosen pack's themes) that the journal holds in that
    # input's line: checkpoints refer to it by the key instead of copying it each time
    # (console/shell/checkpoint.py). `referring_steps`: the steps whose lines may hold one.
    referenced: Callable[[object], tuple[str, object] | None] = no_references
    referring_steps: frozenset[str] = frozenset()
    angle_source: Callable[[Config], str] = any_angle_source  # the one source of the top ("": any)
    angle_rate_hz: Callable[[Config], float] = every_angle  # the top's samples thinned to (0: all)
    record_dir: Callable[[Config], str] = no_records  # where its games' records are kept ("": not)
    protocolled: bool = False  # its journal makes a protocol (`export`, the tablet's /protocol)
    # Every pad its engine may light, and whose it is (a player's or a team's id): the lamps'
    # masks and the held-button notices.
    pads: Callable[[Config], dict[str, str]] = players_pads
    # The pack whose pictures, sounds and videos the host may show the hall ("": none;
    # console/shell/hall_media.py).
    media_pack: Callable[[Config, Game[Any]], str] = no_media_pack  # (config, its engine now)
    # The packs the host may choose on the tablet (None: the game plays no pack).
    pack_choice: PackChoice | None = None
    # The game jury's commands (``<base>/jury/command``, its own broker account): (command,
    # at) -> its engine's input, ValueError naming the problem; None: the game has no jury.
    parse_jury_command: Callable[[JsonObject, int], GameInput] | None = None
    jury_help: str = ""  # what a jury command looks like, for error messages
    # (engine) -> what it publishes retained besides its state: suffix under ``<base>/sheet/``
    # -> payload (the sports stage's results sheet); each published when its payload changes.
    retained_parts: Callable[[Game[Any]], Mapping[str, object]] = no_parts
    # Its own pages besides the board and the host's screen: address -> console/data/<file>;
    # `login_pages` are those of them that ask for their account (the display's is not given).
    pages: Mapping[str, str] = field(default_factory=dict)
    login_pages: frozenset[str] = frozenset()

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
