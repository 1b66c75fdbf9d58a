"""The sports «Что? Где? Когда?» timer (seed 003 5.2-5.3): a countdown per question in a hall.

Contract: `GAME` is this game's registry entry (console/games/kind.py); `sports_rules(config)`
gives the timer's parameters from ``[sports]`` or raises `ConfigError` naming the key. The
timer takes no players' buttons and no top: the teams hand in answer sheets, and the host
starts each count with a key or the host screen.
"""

from __future__ import annotations

from typing import Any

from console.config import Config, ConfigError
from console.engine.model import NS_PER_S
from console.engine.sports.timer import SportsAction, SportsHost, SportsRules, SportsTimer
from console.games.kind import GameInput, GameKind, JsonObject, only_keys
from console.games.sports.config import SportsSection


def sports_rules(config: Config) -> SportsRules:
    """The timer's parameters (``[sports]``); ConfigError naming the key when they do not fit."""
    s = config.section(SportsSection)
    if s.warning_at_s >= s.count_s:
        raise ConfigError(config.source, "sports.warning_at_s",
                          f"the warning must come before the end of the count ({s.count_s} s), "
                          f"got {s.warning_at_s} s")
    try:
        return SportsRules(
            count_ns=round(s.count_s * NS_PER_S),
            warning_at_ns=round(s.warning_at_s * NS_PER_S),
            collection_ns=round(s.collection_s * NS_PER_S),
            tours=s.tours,
            questions_per_tour=s.questions_per_tour,
        )
    except ValueError as exc:  # a time too short to count in nanoseconds
        raise ConfigError(config.source, "sports", str(exc)) from exc


def check(config: Config) -> None:
    sports_rules(config)


def parse_command(command: JsonObject, at: int) -> GameInput:
    """``{"action": "start" | "cancel"}``."""
    only_keys(command, ("action",))
    return SportsHost(SportsAction(str(command.get("action"))), at)


def parse_step(step: str, line: JsonObject, at: int) -> GameInput:
    value = line[step]
    if not isinstance(value, str):
        raise ValueError(f"{step} must be a string")
    return SportsHost(SportsAction(value), at)


def input_line(inp: GameInput) -> tuple[dict[str, Any], int] | None:
    return ({"host": inp.action.value}, inp.at) if isinstance(inp, SportsHost) else None


def interrupted(engine: Any, at: int) -> tuple[GameInput, str] | None:
    """The running count, withdrawn (its ``cancel``; the question keeps its number): the host
    starts it again (003 5.3)."""
    if engine.running_timer() is None:
        return None
    return SportsHost(SportsAction.CANCEL, at), "count"


def journal_header(config: Config, seed: int) -> dict[str, Any]:
    """The config a replay needs: the game and its timer's settings."""
    return {"game": {"kind": "sports"}, "sports": dict(vars(config.section(SportsSection)))}


GAME = GameKind(
    name="sports",
    title="спортивное «Что? Где? Когда?»",
    takes=frozenset(),
    host_pedal=False,
    check=check,
    seed=lambda config: 0,
    engine=lambda config, seed, now: SportsTimer(sports_rules(config)),
    parse_command=parse_command,
    command_help=f'expected {{"action": one of {", ".join(a.value for a in SportsAction)}}}',
    steps=("host",),
    step_args={},
    parse_step=parse_step,
    journal_header=journal_header,
    scenario_defaults={},
    inputs=(SportsHost,),
    board="timer.html",
    host_pages=("host-sports.js",),
    interrupted=interrupted,
    input_line=input_line,
)
