"""«Эрудит-квартет» (seed 004 §III): team fights on the «Своя игра» buttons.

Contract: `GAME` is this game's registry entry (console/games/kind.py); `quartet_rules(config,
seed)` gives the fight's parameters or raises `ConfigError` naming the key. Each team's seat is
a ``[[players]]`` entry (its id, its name, its pad: the button), and ``[[quartet.teams]]`` with
the same id gives the team's roster; ``[quartet]`` the round types, the stage, the host's
deadlines and the lot's seed. The «Своя игра» keys of ``[game]`` (values, windows, policies)
judge each theme; with ``game.pack`` the fight plays the pack's themes in order, one per theme
(3.7: fixed in advance), named from it unless the host names them, with the questions on the
host's screen; a pack that cannot be read is a config error here. Host commands are the «Своя
игра» ones, ``{"action": "next"}`` and so on, and the fight's: ``{"action": "<QuartetAction>",
...}`` with the arguments it uses (``team``, ``players``, ``player``, ``themes``, ``name``,
``penalty``, ``gross``; docs/mqtt-quartet.md).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from console.config import Config, ConfigError
from console.engine.corrections import UNDO, AdjustScore, CorrectionAction, Reverse, Undo
from console.engine.model import NS_PER_S, Host, HostAction, Press, SourceLink, Watermark
from console.engine.quartet.fight import QuartetFight
from console.engine.quartet.rules import (
    Penalty,
    QuartetAction,
    QuartetHost,
    QuartetRules,
    QuartetTeam,
    RoundType,
    Stage,
)
from console.games.kind import BUTTONS, GameInput, GameKind, JsonObject, only_keys
from console.games.quartet.config import QuartetSection
from console.games.svoya.kind import input_line as svoya_line
from console.games.svoya.kind import journal_header as svoya_header
from console.games.svoya.kind import pack_path, pack_themes, question_interrupted, svoya_rules
from console.games.svoya.kind import parse_command as svoya_command

ARGS = ("team", "players", "player", "themes", "name", "penalty", "gross", "question", "reason")
# The «Своя игра» commands that judge a theme (the fight ends by its rounds, not `end_game`).
SVOYA_ACTIONS = frozenset([*(a.value for a in HostAction if a is not HostAction.END_GAME),
                           *(a.value for a in CorrectionAction), UNDO])
STEP_ARGS = (*ARGS, "delta")  # a host step: the fight's arguments, or a correction's


def quartet_rules(config: Config, seed: int | None = None) -> QuartetRules:
    """The fight's parameters (see the module docstring); ConfigError naming the key."""
    q, src = config.section(QuartetSection), config.source
    seats = {p.id: p for p in config.players}
    for i, team in enumerate(q.teams, 1):
        if team.id not in seats:
            raise ConfigError(src, f"quartet.teams[{i}].id",
                              f"{team.id!r} has no seat: add a [[players]] entry with id = {team.id!r} "
                              "(the team's name and its button's pad)")
    listed = {t.id for t in q.teams}
    for i, p in enumerate(config.players, 1):
        if p.id not in listed:
            raise ConfigError(src, f"players[{i}].id", f"seat {p.id!r} has no team: add [[quartet.teams]] "
                                                        f"with id = {p.id!r} and its players")
    rounds: list[RoundType] = []
    for r in q.rounds:
        try:
            rounds.append(RoundType(r))
        except ValueError:
            raise ConfigError(src, "quartet.rounds", f"{r!r} is not one of "
                                                     f"{', '.join(t.value for t in RoundType)}") from None
    teams = tuple(QuartetTeam(t.id, seats[t.id].name, seats[t.id].pad, t.players) for t in q.teams)
    svoya = svoya_rules(config, seed)  # the seats as its players: each theme's referee starts from it
    pack, problem = pack_themes(config)
    if problem is not None:  # a fight's themes are fixed in advance (3.7): a pack not read is an error
        raise ConfigError(src, "game.pack", problem)
    try:
        return QuartetRules(teams=teams, svoya=svoya, rounds=tuple(rounds), stage=Stage(q.stage),
                            assign_ns=round(q.assign_s * NS_PER_S), choose_ns=round(q.choose_s * NS_PER_S),
                            seed=q.seed if seed is None else seed, pack=pack)
    except ValueError as exc:
        raise ConfigError(src, "quartet.teams", str(exc)) from exc


def check(config: Config) -> None:
    if not config.section(QuartetSection).teams:
        raise ConfigError(config.source, "quartet.teams", "a fight has 2 to 4 teams (004 3.1): "
                                                          "add [[quartet.teams]] with their players")
    quartet_rules(config)


def parse_command(command: JsonObject, at: int) -> GameInput:
    """A «Своя игра» command (a host action, or a correction: an appeal, 4.1-4.3), parsed as
    «Своя игра» parses it, or ``{"action": <QuartetAction>, ...arguments}``."""
    action = str(command.get("action"))
    if action in SVOYA_ACTIONS:
        return svoya_command(command, at)
    only_keys(command, ("action", *ARGS))
    try:
        kind = QuartetAction(action)
    except ValueError:
        raise ValueError(f"unknown action {action!r}") from None
    return host_command(kind, command, at)


def host_command(kind: QuartetAction, args: JsonObject, at: int) -> QuartetHost:
    """A fight command from its JSON arguments; ValueError naming a badly typed one."""
    def text(key: str) -> str | None:
        value = args.get(key)
        if value is not None and not isinstance(value, str):
            raise ValueError(f"{key} must be a string")
        return value

    def texts(key: str, nulls: bool) -> tuple[Any, ...] | None:
        value = args.get(key)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) or (nulls and v is None) for v in value):
            raise ValueError(f"{key} must be an array of strings{' (or null)' if nulls else ''}")
        return tuple(value)

    penalty = text("penalty")
    if penalty is not None and penalty not in Penalty.__members__.values():
        raise ValueError(f"penalty must be one of {', '.join(p.value for p in Penalty)}")
    gross = args.get("gross", False)
    if not isinstance(gross, bool):
        raise ValueError("gross must be true or false")
    question = args.get("question")
    if question is not None and (isinstance(question, bool) or not isinstance(question, int) or question < 1):
        raise ValueError("question must be the question's number in the theme (1, 2, ...)")
    reason = text("reason")
    if reason is not None and (not reason.strip() or len(reason) > 500):
        raise ValueError("reason must be a text of 1 to 500 characters")
    return QuartetHost(kind, at, team=text("team"), players=texts("players", True), player=text("player"),
                       themes=texts("themes", False), name=text("name"),
                       penalty=None if penalty is None else Penalty(penalty), gross=gross,
                       question=question, reason=reason)


def parse_step(step: str, line: JsonObject, at: int) -> GameInput:
    """A ``host`` step: a «Своя игра» action or correction, or a fight's command with its
    arguments (console/scenario.py parses presses and watermarks, ``lost_from_ms`` included)."""
    value = line[step]
    if not isinstance(value, str):
        raise ValueError(f"{step} must be a string")
    return parse_command({"action": value, **{k: v for k, v in line.items() if k in STEP_ARGS}}, at)


def journal_header(config: Config, seed: int) -> dict[str, Any]:
    """The config a replay needs: the «Своя игра» part, the seats and [quartet]."""
    q = config.section(QuartetSection)
    return {**svoya_header(config, seed),
            "game": {**svoya_header(config, seed)["game"], "kind": "quartet"},
            "quartet": {"rounds": list(q.rounds), "stage": q.stage, "assign_s": q.assign_s,
                        "choose_s": q.choose_s, "seed": seed,
                        "teams": [{"id": t.id, "players": list(t.players)} for t in q.teams]}}


def _engine(config: Config, seed: int, now: int | None) -> QuartetFight:
    return QuartetFight(replace(quartet_rules(config, seed), seed=seed))


def input_line(inp: GameInput) -> tuple[dict[str, Any], int] | None:
    """A fight's command or a correction: ``host`` with its arguments."""
    if isinstance(inp, QuartetHost):
        command = inp.command()
        return {"host": command.pop("action"), **command}, inp.at
    return svoya_line(inp)


def interrupted(engine: Any, at: int) -> tuple[tuple[GameInput, ...], str] | None:
    """The question in play of the theme in play, withdrawn as in «Своя игра»; the theme's
    points taken stand (they are the quartet's, counted by the theme)."""
    referee = engine.referee
    voided = None if referee is None else question_interrupted(referee, at)
    return None if voided is None else ((voided[0],), voided[1])


_ACTIONS = [*(a.value for a in HostAction if a is not HostAction.END_GAME),
            *(a.value for a in CorrectionAction), UNDO, *(a.value for a in QuartetAction)]

GAME = GameKind(
    name="quartet",
    title="«Эрудит-квартет»",
    takes=frozenset({BUTTONS}),
    host_pedal=True,
    check=check,
    seed=lambda config: config.section(QuartetSection).seed,
    engine=_engine,
    parse_command=parse_command,
    command_help=f'expected {{"action": one of {", ".join(_ACTIONS)}, ...its arguments}}',
    steps=("press", "host", "watermark", "link"),
    step_args={"host": STEP_ARGS},
    parse_step=parse_step,
    journal_header=journal_header,
    scenario_defaults={
        "players": [{"id": f"t{i + 1}", "name": f"Команда {i + 1}", "pad": f"mcu:{i}"} for i in range(4)],
        "sources": {"mcu": {"kind": "simulated_mcu", "pads": 4}},
        "quartet": {"teams": [{"id": f"t{i + 1}", "players": [f"Игрок {i + 1}.{j + 1}" for j in range(4)]}
                              for i in range(4)]},
    },
    inputs=(Press, Watermark, Host, SourceLink, AdjustScore, Reverse, Undo, QuartetHost),
    board="quartet.html",
    # Each theme is judged by «Своя игра»: its module (actions, phases) comes first.
    host_pages=("host-svoya.js", "quartet-texts.js", "host-quartet.js"),
    scripts=("quartet-texts.js",),  # the hall's board and the host's screen share its words
    demo="console.tools.demo_quartet:run_demo",
    demo_config="demo-quartet.toml",
    coalesce_presses=True,  # its themes are judged by the «Своя игра» referee
    interrupted=interrupted,
    input_line=input_line,
    media_pack=lambda config, engine: str(pack_path(config) or ""),
)
