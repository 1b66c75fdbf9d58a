"""«Своя игра» (seed 004, App.1-11): players' buttons, the host's keys, the referee.

Contract: `GAME` is this game's registry entry (console/games/kind.py); `svoya_rules(config,
seed)` gives the referee's parameters or raises `ConfigError` naming the key.
"""

from __future__ import annotations

from typing import Any

from console.config import Config, ConfigError
from console.engine.arbiter import SourceTiming
from console.engine.model import NS_PER_MS, NS_PER_S, Host, HostAction
from console.engine.rules import AnswerClock, FalseStartPolicy, Player, SvoyaRules, TiePolicy
from console.engine.svoya import SvoyaReferee
from console.games.kind import BUTTONS, GameInput, GameKind, JsonObject, only_keys
from console.scenario import press_step, watermark_step
from console.sources import source_kind


def svoya_rules(config: Config, seed: int | None = None) -> SvoyaRules:
    """The referee's parameters; raises ConfigError naming the key on a rule violation."""
    g = config.game
    timings = {
        name: SourceTiming(
            resolution_ns=s.resolution_us * 1000,
            max_delay_ns=int(s.max_delay_ms * NS_PER_MS),
            ordered=source_kind(s.kind).ordered,
        )
        for name, s in config.sources.items()
    }
    try:
        return SvoyaRules(
            players=tuple(Player(p.id, p.name, p.pad) for p in config.players),
            sources=timings,
            values=g.values,
            themes=g.themes or None,
            signal_window_ns=int(g.signal_window_s * NS_PER_S),
            answer_window_ns=int(g.answer_window_s * NS_PER_S),
            answer_clock=AnswerClock(g.answer_clock),
            false_start=FalseStartPolicy(g.false_start),
            false_start_lockout_ns=int(g.false_start_lockout_s * NS_PER_S),
            tie_policy=TiePolicy(g.tie_policy),
            tie_window_ns=g.tie_window_us * 1000 or None,
            host_max_delay_ns=int(config.host.max_delay_ms * NS_PER_MS),
            seed=g.seed if seed is None else seed,
        )
    except ValueError as exc:
        raise ConfigError(config.source, "players", str(exc)) from exc


def check(config: Config) -> None:
    """The rules' own checks: 2-4 players, ascending values, a pad each."""
    svoya_rules(config)


def parse_command(command: JsonObject, at: int) -> GameInput:
    """``{"action": "<HostAction>"}``."""
    only_keys(command, ("action",))
    return Host(HostAction(str(command.get("action"))), at)


def parse_step(step: str, line: JsonObject, at: int) -> GameInput:
    if step == "press":
        return press_step(line[step], at)
    if step == "watermark":
        return watermark_step(line[step], at)
    value = line[step]
    if not isinstance(value, str):
        raise ValueError(f"{step} must be a string")
    try:
        return Host(HostAction(value), at)
    except ValueError:
        allowed = ", ".join(a.value for a in HostAction)
        raise ValueError(f"unknown host action {value!r} (one of {allowed})") from None


def journal_header(config: Config, seed: int) -> dict[str, Any]:
    """The config a replay needs to judge the journal's inputs the same way."""
    g = config.game
    return {
        "auto_watermark": False,
        "game": {**{k: getattr(g, k) for k in g.__dataclass_fields__}, "values": list(g.values),
                 "seed": seed},
        "players": [{"id": p.id, "name": p.name, "pad": p.pad} for p in config.players],
        "sources": {
            name: {"kind": s.kind, "resolution_us": s.resolution_us, "max_delay_ms": s.max_delay_ms,
                   **({"port": s.port} if s.port else {}),
                   **({"pins": list(s.pins)} if s.pins else {}),
                   **({"pads": s.pads} if s.kind == "simulated_mcu" else {})}
            for name, s in config.sources.items()
        },
        "host": {"max_delay_ms": config.host.max_delay_ms},
    }


GAME = GameKind(
    name="svoya",
    title="«Своя игра»",
    takes=frozenset({BUTTONS}),
    host_pedal=True,
    check=check,
    seed=lambda config: config.game.seed,
    engine=lambda config, seed, now: SvoyaReferee(svoya_rules(config, seed)),
    parse_command=parse_command,
    command_help=f'expected {{"action": one of {", ".join(a.value for a in HostAction)}}}',
    steps=("press", "host", "watermark"),
    step_args={},
    parse_step=parse_step,
    journal_header=journal_header,
    scenario_defaults={
        "players": [{"id": f"p{i + 1}", "name": f"Игрок {i + 1}", "pad": f"mcu:{i}"} for i in range(4)],
        "sources": {"mcu": {"kind": "simulated_mcu", "pads": 4}},
    },
    board="scoreboard.html",
    demo="console.tools.demo:run_demo",
    demo_config="demo.toml",
)
