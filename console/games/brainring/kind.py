"""«Брейн-ринг» (../shared/RULES.md §5): team fights on the buttons, the host's «Время!».

Contract: `GAME` is this game's registry entry (console/games/kind.py); `brainring_rules(config,
seed)` gives the referee's parameters from ``[brainring]`` (over its preset) and its
``[[brainring.teams]]`` (each team's pads), or raises `ConfigError` naming the key. The box's
timing comes from ``[sources]``, the tie window and a lost box's wait from ``[game]``. Host
commands are ``{"action": "<BrainringAction>"}`` and the corrections: ``{"action":
"adjust_score", "player": TEAM, "delta": N, "reason": TEXT}`` and ``{"action": "reverse",
"reason": TEXT}`` (docs/mqtt-brainring.md).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from console.config import Config, ConfigError
from console.engine.brainring.question import Phase
from console.engine.brainring.referee import BrainringReferee
from console.engine.brainring.rules import (
    BrainringAction,
    BrainringHost,
    BrainringRules,
    Rebound,
    SendOut,
    Team,
)
from console.engine.brainring.teams import TEAM_ARGS, TeamAction, TeamChange
from console.engine.corrections import UNDO, AdjustScore, CorrectionAction, Reverse, Undo
from console.engine.model import NS_PER_MS, NS_PER_S, Press, SourceLink, Watermark
from console.games.brainring.config import BrainringSection
from console.games.button_games import CORRECTION_ARGS, correction_line, parse_correction, source_timings
from console.games.kind import BUTTONS, GameInput, GameKind, JsonObject, only_keys

ACTIONS = tuple(a.value for a in BrainringAction)
CORRECTIONS = (*(a.value for a in CorrectionAction), UNDO)
TEAM_CHANGES = tuple(a.value for a in TeamAction)
# A correction's arguments, or a team change's.
STEP_ARGS = tuple(dict.fromkeys(k for args in (*CORRECTION_ARGS.values(), *TEAM_ARGS.values()) for k in args))


def brainring_rules(config: Config, seed: int | None = None) -> BrainringRules:
    """The referee's parameters (see the module docstring); ConfigError naming the key."""
    b, src = config.section(BrainringSection), config.source
    if not b.teams:
        raise ConfigError(src, "brainring.teams", "a fight needs 2 teams or more: add [[brainring.teams]] "
                                                  'with id, name and pads = ["mcu:0", ...]')
    shortest = min(b.count_s, b.rebound_s)
    if b.warning_s >= shortest:
        raise ConfigError(src, "brainring.warning_s", f"the beeps must come before a count ends "
                                                      f"({shortest} s), got {b.warning_s} s")
    try:
        return BrainringRules(
            teams=tuple(Team(t.id, t.name, t.pads) for t in b.teams),
            sources=source_timings(config),
            count_ns=round(b.count_s * NS_PER_S),
            rebound_ns=round(b.rebound_s * NS_PER_S),
            rebound=Rebound(b.rebound),
            points=b.points,
            target=b.target,
            questions=b.questions,
            rising_stakes=b.rising_stakes,
            send_out=SendOut(b.send_out),
            warning_ns=round(b.warning_s * NS_PER_S),
            tie_window_ns=config.game.tie_window_us * 1000 or None,
            host_max_delay_ns=int(config.host.max_delay_ms * NS_PER_MS),
            lost_source_wait_ns=round(config.game.lost_source_wait_s * NS_PER_S),
            seed=b.seed if seed is None else seed,
        )
    except ValueError as exc:
        raise ConfigError(src, _key_of(str(exc)), str(exc)) from exc


def _key_of(problem: str) -> str:
    """The ``[brainring]`` key a rule's problem is about (its teams unless it says otherwise)."""
    for word, key in (("an end", "brainring.target"), ("target", "brainring.target"),
                      ("points", "brainring.points"), ("warning", "brainring.warning_s")):
        if word in problem:
            return key
    return "brainring.teams"


def check(config: Config) -> None:
    brainring_rules(config)


def parse_command(command: JsonObject, at: int) -> GameInput:
    """A fight's action, or a correction parsed as «Своя игра» parses it (the team's id as
    its ``player``)."""
    action = str(command.get("action"))
    correction = parse_correction(command, at)
    if correction is not None:
        return correction
    if action in TEAM_CHANGES:
        change = TeamAction(action)
        only_keys(command, ("action", *TEAM_ARGS[change]))
        args: dict[str, str] = {}
        for key in TEAM_ARGS[change]:
            value = command.get(key)
            if not isinstance(value, str):
                raise ValueError(f"{action}: {key} must be a string, got {value!r}")
            args[key] = value
        return TeamChange(change, at, team=args.get("team", ""), name=args.get("name", ""))
    only_keys(command, ("action",))
    try:
        return BrainringHost(BrainringAction(action), at)
    except ValueError:
        known = ", ".join((*ACTIONS, *CORRECTIONS, *TEAM_CHANGES))
        raise ValueError(f"unknown action {action!r} (one of {known})") from None


def parse_step(step: str, line: JsonObject, at: int) -> GameInput:
    """A ``host`` step: an action, or a correction with its arguments."""
    value = line[step]
    if not isinstance(value, str):
        raise ValueError(f"{step} must be a string")
    args = {k: line[k] for k in STEP_ARGS if k in line}
    if value not in CORRECTIONS and value not in TEAM_CHANGES:
        only_keys(args, ())
    return parse_command({"action": value, **args}, at)


def input_line(inp: GameInput) -> tuple[dict[str, Any], int] | None:
    if isinstance(inp, BrainringHost):
        return {"host": inp.action.value}, inp.at
    if isinstance(inp, TeamChange):
        command = inp.command()
        return {"host": command.pop("action"), **command}, inp.at
    return correction_line(inp)


def journal_header(config: Config, seed: int) -> dict[str, Any]:
    """The config a replay needs: the fight's settings (its preset applied), the teams, the box."""
    b = config.section(BrainringSection)
    own = {f.name: getattr(b, f.name) for f in fields(b) if f.name not in ("teams", "preset")}
    return {
        "auto_watermark": False,
        "game": {"kind": "brainring", "tie_window_us": config.game.tie_window_us,
                 "lost_source_wait_s": config.game.lost_source_wait_s},
        "brainring": {**own, "seed": seed,
                      "teams": [{"id": t.id, "name": t.name, "pads": list(t.pads)} for t in b.teams]},
        "sources": {name: s.replayed() for name, s in config.sources.items()},
        "host": {"max_delay_ms": config.host.max_delay_ms},
    }


def interrupted(engine: Any, at: int) -> tuple[tuple[GameInput, ...], str] | None:
    """The question in play, withdrawn with no score change and played again under its number
    (the host's ``cancel``): its count cannot be known to have been fair."""
    if engine.phase in (Phase.IDLE, Phase.FIGHT_OVER):
        return None
    return (BrainringHost(BrainringAction.CANCEL, at),), "question"


GAME = GameKind(
    name="brainring",
    protocolled=True,
    title="«Брейн-ринг»",
    takes=frozenset({BUTTONS}),
    host_pedal=True,
    check=check,
    seed=lambda config: config.section(BrainringSection).seed,
    engine=lambda config, seed, now: BrainringReferee(brainring_rules(config, seed)),
    parse_command=parse_command,
    command_help=(f'expected {{"action": one of {", ".join(ACTIONS)}}}, '
                  '{"action": "adjust_score", "player": TEAM, "delta": N, "reason": TEXT} or '
                  '{"action": "reverse", "reason": TEXT} or, between questions, '
                  '{"action": "rename_team", "team": ID, "name": TEXT}, {"action": "bind_pad", "team": ID}, '
                  '{"action": "add_team", "name": TEXT} or {"action": "remove_team", "team": ID}'),
    steps=("press", "host", "watermark", "link"),
    step_args={"host": STEP_ARGS},
    parse_step=parse_step,
    journal_header=journal_header,
    scenario_defaults={
        "brainring": {"teams": [{"id": "t1", "name": "Команда 1", "pads": ["mcu:0", "mcu:1"]},
                                {"id": "t2", "name": "Команда 2", "pads": ["mcu:2", "mcu:3"]}]},
        "sources": {"mcu": {"kind": "simulated_mcu", "pads": 4}},
    },
    inputs=(Press, Watermark, SourceLink, BrainringHost, AdjustScore, Reverse, Undo, TeamChange),
    board="brainring.html",
    host_pages=("host-brainring.js",),
    interrupted=interrupted,
    input_line=input_line,
    pads=lambda config: {pad: t.id for t in config.section(BrainringSection).teams for pad in t.pads},
    demo="console.tools.demo_brainring:run_demo",
    demo_config="demo-brainring.toml",
)

__all__ = ["GAME", "brainring_rules"]
