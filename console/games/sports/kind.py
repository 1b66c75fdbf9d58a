"""The sports «Что? Где? Когда?» stage (seed 003 5.2-5.5): the count per question in a hall and
the game jury's results sheet.

Contract: `GAME` is this game's registry entry (console/games/kind.py); `sports_rules(config)`
gives the timer's parameters from ``[sports]`` and `sheet_of(config)` the sheet with the
configured teams, or raise `ConfigError` naming the key. The stage takes no players' buttons and
no top: the teams hand in answer sheets, the host starts each count with a key or the host
screen, and the jury keeps the sheet from its own page (``<base>/jury/command``,
docs/sports-sheet.md). The host's tablet may add and edit the stage's teams too.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import Any

from console.config import Config, ConfigError
from console.engine.events import CommandRefused
from console.engine.model import NS_PER_S
from console.engine.sports.sheet import Sheet, SheetAction, SheetEdit, SheetRules, Verdict
from console.engine.sports.stage import SportsStage
from console.engine.sports.timer import SportsAction, SportsHost, SportsRules
from console.games.kind import GameInput, GameKind, JsonObject, only_keys
from console.games.sports.config import SportsSection

# What a sheet edit may carry (besides "action"), by key: its JSON type.
_EDIT_KEYS: dict[str, type | tuple[type, ...]] = {
    "by": str, "team": int, "question": int, "teams": list, "tour": int, "mask": str, "verdict": (str, int),
    "answer": str, "name": str, "town": str, "rating_id": int, "why": str, "when": str}
HOST_SHEET_ACTIONS = (SheetAction.ADD_TEAM, SheetAction.EDIT_TEAM)  # the organiser's tablet's


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


def sheet_of(config: Config) -> Sheet:
    """A new sheet with ``[[sports.teams]]``: numbered on from the one before when not given."""
    s = config.section(SportsSection)
    sheet = Sheet(SheetRules(s.tours, s.questions_per_tour, s.winners, s.hide_last_tour))
    for i, team in enumerate(s.teams, 1):
        add = SheetEdit(SheetAction.ADD_TEAM, 0, "config", team=team.number or None, name=team.name,
                        town=team.town, rating_id=team.rating_id or None)
        refused = [o for o in sheet.handle(add, 0, None) if isinstance(o, CommandRefused)]
        if refused:
            raise ConfigError(config.source, f"sports.teams[{i}]", str(refused[0].details.get("reason")))
    return Sheet.with_teams(sheet.rules, sheet.teams.values())  # the config's teams are no change


def check(config: Config) -> None:
    sports_rules(config)
    sheet_of(config)


def edit(command: JsonObject, at: int, by: str) -> SheetEdit:
    """A sheet edit from its JSON (``{"action": "set_question", "question": 3, "teams": [1, 7]}``);
    ValueError naming what is wrong."""
    only_keys(command, ("action", *_EDIT_KEYS))
    try:
        action = SheetAction(str(command.get("action")))
    except ValueError:
        raise ValueError(f"unknown sheet action {str(command.get('action'))[:40]!r}") from None
    args: dict[str, Any] = {}
    for key, want in _EDIT_KEYS.items():
        if key not in command or command[key] is None:
            continue
        value = command[key]
        if not isinstance(value, want) or isinstance(value, bool):
            raise ValueError(f"{key} must be {_TYPE_NAMES.get(want, 'a string')}")
        args[key] = value
    if "teams" in args:
        teams = args["teams"]
        if len(teams) > 500 or not all(isinstance(t, int) and not isinstance(t, bool) for t in teams):
            raise ValueError("teams must be a list of team numbers")
        args["teams"] = tuple(teams)
    if "verdict" in args:
        args["verdict"] = Verdict(str(args["verdict"])) if str(args["verdict"]) in ("0", "1", "?") else None
        if args["verdict"] is None:
            raise ValueError("verdict must be 1, 0 or ?")
    shown = str(args.pop("by", ""))[:40]
    return SheetEdit(action, at, f"{by}: {shown}" if shown else by, **args)


_TYPE_NAMES: dict[Any, str] = {int: "a number", list: "a list", (str, int): "1, 0 or ?"}


def parse_command(command: JsonObject, at: int) -> GameInput:
    """The host's: ``{"action": "start" | "cancel" | "pause" | "resume"}``, and the stage's teams
    (``add_team``, ``edit_team``: the sheet's edits of the same name)."""
    if command.get("action") in HOST_SHEET_ACTIONS:
        # Dated as the jury's edits are (console/shell/command_intake.py): the console's wall
        # clock at receipt, journalled with the edit, so the sheet's log says when.
        return edit({**command, "when": time.strftime("%Y-%m-%d %H:%M:%S")}, at, "host")
    only_keys(command, ("action",))
    return SportsHost(SportsAction(str(command.get("action"))), at)


def parse_jury_command(command: JsonObject, at: int) -> GameInput:
    """The jury's page's: any sheet edit (console/engine/sports/sheet.py `SheetAction`)."""
    return edit(command, at, "jury")


def parse_step(step: str, line: JsonObject, at: int) -> GameInput:
    value = line[step]
    if not isinstance(value, str):
        raise ValueError(f"{step} must be a string")
    if step == "sheet":
        by = line.get("by", "")
        return edit({"action": value, **{k: v for k, v in line.items() if k in _EDIT_KEYS and k != "by"}},
                    at, str(by) if by else "")
    return SportsHost(SportsAction(value), at)


def input_line(inp: GameInput) -> tuple[dict[str, Any], int] | None:
    if isinstance(inp, SheetEdit):
        return inp.line(), inp.at
    return ({"host": inp.action.value}, inp.at) if isinstance(inp, SportsHost) else None


def interrupted(engine: Any, at: int) -> tuple[tuple[GameInput, ...], str] | None:
    """The running count, withdrawn (its ``cancel``; the question keeps its number): the host
    starts it again (003 5.3). The sheet's edits were each journalled when taken: none is lost."""
    if engine.running_timer() is None:
        return None
    return (SportsHost(SportsAction.CANCEL, at),), "count"


def journal_header(config: Config, seed: int) -> dict[str, Any]:
    """The config a replay needs: the game, its timer's settings and the stage's teams."""
    section = config.section(SportsSection)
    own = {k: v for k, v in vars(section).items() if k != "teams"}
    return {"game": {"kind": "sports"}, "sports": {**own, "teams": [asdict(t) for t in section.teams]}}


def sheet_parts(engine: Any) -> dict[str, Any]:
    parts: dict[str, Any] = engine.parts()
    return parts


GAME = GameKind(
    name="sports",
    protocolled=True,
    title="спортивное «Что? Где? Когда?»",
    takes=frozenset(),
    host_pedal=False,
    check=check,
    seed=lambda config: 0,
    engine=lambda config, seed, now: SportsStage(sports_rules(config), sheet_of(config)),
    parse_command=parse_command,
    command_help=f'expected {{"action": one of {", ".join(a.value for a in SportsAction)}, '
                 f'{", ".join(a.value for a in HOST_SHEET_ACTIONS)}}}',
    steps=("host", "sheet"),
    step_args={"sheet": tuple(_EDIT_KEYS)},
    parse_step=parse_step,
    journal_header=journal_header,
    scenario_defaults={},
    inputs=(SportsHost, SheetEdit),
    board="timer.html",
    host_pages=("host-sports.js",),
    interrupted=interrupted,
    input_line=input_line,
    parse_jury_command=parse_jury_command,
    jury_help=f'expected {{"action": one of {", ".join(a.value for a in SheetAction)}, ...}}',
    retained_parts=sheet_parts,
    pages={"/jury": "jury.html", "/standings": "standings.html"},
    login_pages=frozenset({"jury.html"}),
    scripts=("jury.js",),
)
