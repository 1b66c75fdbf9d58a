"""The «Что? Где? Когда?» table (seeds 000 and 003): the top, the sectors, the rounds.

Contract: `GAME` is this game's registry entry (console/games/kind.py). `table_setup(config,
seed, started_at_ns)` returns the `TableSetup` the table engine is built from, or raises
`ConfigError` naming the file, the key and the problem (a special sector that does not exist,
two specials on one sector, widths that do not sum to 360°, ...). Host commands are
``{"action": "<ChgkAction>", ...}`` with the arguments the action uses (``sector``,
``to_sector``, ``team``, ``round``, ``part``; ``to`` and ``reason`` for ``correct_round``),
or ``{"action": "pick_sector", "sector": N}``:
the host picks the sector (a stop on a boundary, a failed sensor, no top at all).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from console.config import Config, ConfigError
from console.engine.chgk.round import Phase
from console.engine.chgk.rules import (
    ChgkAction,
    ChgkHost,
    ChgkRules,
    PickSource,
    SectorKind,
    SectorPicked,
    Side,
    Stage,
    Team,
)
from console.engine.chgk.table import TableGame, TableSetup
from console.engine.model import NS_PER_MS
from console.engine.spin.detector import STATUS_MAGNET_DETECTED, AngleSample, SpinConfig
from console.engine.spin.sectors import SectorMap
from console.games.chgk.config import SpinSection, TableSection, TableTeams
from console.games.chgk.questions import question_file_path, question_pool
from console.games.kind import ANGLE, GameInput, GameKind, JsonObject, only_keys
from console.sources import source_kind

PICK_SECTOR = "pick_sector"
SPECIAL_KEYS = {
    "blitz": SectorKind.BLITZ,
    "superblitz": SectorKind.SUPERBLITZ,
    "duplet": SectorKind.DUPLET,
    "zeitnot": SectorKind.ZEITNOT,
    "sector13": SectorKind.SECTOR13,
    "sector12": SectorKind.SECTOR12,
}
_INT_ARGS = ("sector", "to_sector", "round", "part")
HOST_ARGS = ("sector", "to_sector", "team", "round", "part", "to", "reason")
MAX_REASON = 500  # characters of a correction's reason: a sentence, not a document


def table_setup(config: Config, seed: int | None = None, started_at_ns: int | None = None) -> TableSetup:
    """The table engine's parameters (see the module docstring)."""
    t = config.section(TableSection)
    src = config.source
    special: dict[int, SectorKind] = {}
    for key, kind in SPECIAL_KEYS.items():
        for sector in getattr(t, key):
            if sector in special:
                raise ConfigError(src, f"table.{key}", f"sector {sector} is already {special[sector].value}")
            special[sector] = kind
    teams = tuple(Team(team.id, team.name, team.main) for team in config.section(TableTeams).teams)
    overrides: dict[str, object] = {
        "special": special,
        "fortochka_sector": t.fortochka or None,
        "stage": Stage(t.stage),
        "teams": teams,
        "seed": t.seed if seed is None else seed,
    }
    if t.sectors:
        overrides["sectors"] = t.sectors
    if t.team:
        overrides["table_team"] = t.team
    try:
        rules = ChgkRules.belgorod(**overrides) if t.rules == "belgorod" else ChgkRules.tto(**overrides)
    except ValueError as exc:
        raise ConfigError(src, "table", str(exc)) from exc
    try:
        sectors = SectorMap(rules.sectors, t.widths_deg or None, t.zero_offset_deg, t.clockwise_increases)
    except ValueError as exc:
        raise ConfigError(src, "table.widths_deg", str(exc)) from exc
    s = config.section(SpinSection)
    try:
        spin = SpinConfig(
            min_rotation_deg=s.min_rotation_deg,
            start_speed_dps=s.start_speed_dps,
            stop_speed_dps=s.stop_speed_dps,
            still_window_deg=s.still_window_deg,
            hold_ns=int(s.hold_ms * NS_PER_MS),
            live_rate_hz=s.live_rate_hz,
            nudge_deg=s.nudge_deg,
            silence_ns=int(s.silence_ms * NS_PER_MS) or None,
            boundary_margin_deg=t.boundary_margin_deg,
        )
    except ValueError as exc:
        raise ConfigError(src, "spin", str(exc)) from exc
    return TableSetup(rules=rules, sectors=sectors, spin=spin, started_at_ns=started_at_ns)


def angle_source(config: Config) -> str | None:
    """The one ``[sources.NAME]`` whose angle readings the table takes: ``table.angle_source``
    if set, else the only source that can read the top; None without one. ConfigError naming
    ``table.angle_source`` when the name is not such a source, or when several could read the
    top and none is named (their readings would interleave in the one stop detector)."""
    readers = [name for name, s in config.sources.items() if ANGLE in source_kind(s.kind).roles]
    named = config.section(TableSection).angle_source
    if named:
        if named not in readers:
            raise ConfigError(config.source, "table.angle_source",
                              f"{named!r} is not a source that reads the top "
                              f"(those are: {', '.join(readers) or 'none'})")
        return named
    if len(readers) > 1:
        raise ConfigError(config.source, "table.angle_source",
                          f"sources {', '.join(readers)} can all read the top: name the one that does")
    return readers[0] if readers else None


def check(config: Config) -> None:
    table_setup(config)
    angle_source(config)


def parse_command(command: JsonObject, at: int) -> GameInput:
    """A table host command (see the module docstring); ValueError naming the problem."""
    only_keys(command, ("action", *HOST_ARGS))
    args: dict[str, Any] = {}
    for key in _INT_ARGS:
        if key in command:
            value = command[key]
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{key} must be an integer, got {value!r}")
            args[key] = value
    if "team" in command:
        if not isinstance(command["team"], str):
            raise ValueError(f"team must be a string, got {command['team']!r}")
        args["team"] = command["team"]
    if "to" in command:
        if command["to"] not in tuple(Side):
            raise ValueError(f"to must be one of {', '.join(Side)}, got {command['to']!r}")
        args["to"] = Side(str(command["to"]))
    if "reason" in command:
        reason = command["reason"]
        if not isinstance(reason, str) or len(reason) > MAX_REASON:
            raise ValueError(f"reason must be a string of at most {MAX_REASON} characters")
        args["reason"] = reason
    action = command.get("action")
    if action == PICK_SECTOR:
        if set(args) != {"sector"}:
            raise ValueError("pick_sector takes exactly one argument: sector")
        return SectorPicked(args["sector"], at, PickSource.HOST)
    return ChgkHost(ChgkAction(str(action)), at, **args)


def parse_step(step: str, line: JsonObject, at: int) -> GameInput:
    value = line[step]
    if step == "angle":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError("angle must be an integer 0..4095")
        status = line.get("status", STATUS_MAGNET_DETECTED)
        if isinstance(status, bool) or not isinstance(status, int):
            raise ValueError(f"status must be an integer, got {status!r}")
        return AngleSample(at, value, status)
    if step == "pick":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError("pick must be a sector number")
        source = line.get("source", "host")
        if not isinstance(source, str):
            raise ValueError(f"{source!r} is not a valid PickSource")
        return SectorPicked(value, at, PickSource(source))
    if not isinstance(value, str):
        raise ValueError(f"{step} must be a string")
    return parse_command({"action": value, **{k: line[k] for k in HOST_ARGS if k in line}}, at)


def input_line(inp: GameInput) -> tuple[dict[str, Any], int] | None:
    """The table's inputs as scenario lines: an angle sample, a pick, a host action with the
    arguments it was given."""
    if isinstance(inp, AngleSample):
        return {"angle": inp.raw, "status": inp.status}, inp.at_ns
    if isinstance(inp, SectorPicked):
        return {"pick": inp.sector, "source": inp.source.value}, inp.at
    if isinstance(inp, ChgkHost):
        line: dict[str, Any] = {"host": inp.action.value}
        line.update({k: getattr(inp, k) for k in HOST_ARGS if getattr(inp, k) is not None})
        return line, inp.at
    return None


def interrupted(engine: Any, at: int) -> tuple[tuple[GameInput, ...], str] | None:
    """The round in play, withdrawn (``cancel_round``: no score, the envelope back on its
    sector as unplayed); the table goes back to the spin (003 6.1.1: the top chooses the next
    question). None when no round is in play."""
    if engine.referee.phase in (Phase.READY, Phase.GAME_OVER):
        return None
    return (ChgkHost(ChgkAction.CANCEL_ROUND, at),), "round"


def journal_header(config: Config, seed: int) -> dict[str, Any]:
    """The config a replay needs to judge the journal's inputs the same way."""

    def section(obj: object) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in vars(obj).items()}

    # The question file as a full path: a replay reads it wherever the journal is.
    path = question_file_path(config.source, config.section(TableSection).question_file)
    return {
        "game": {"kind": "chgk"},
        "table": {**section(config.section(TableSection)), "seed": seed,
                  "question_file": str(path.resolve()) if path else ""},
        "spin": section(config.section(SpinSection)),
        "teams": [section(t) for t in config.section(TableTeams).teams],
        # A replay has no hardware: the sources only need to exist under their names.
        "sources": {name: {"kind": "simulated_mcu"} for name in config.sources},
    }


def start_problems(engine: Any) -> tuple[tuple[str, str], ...]:
    """A question file for the 12th sector that cannot be read: the game goes on (the sector
    reports it when it wants a question), and the host is told at start."""
    problem = engine.setup.questions.problem
    return (("questions", problem),) if problem else ()


GAME = GameKind(
    name="chgk",
    title="«Что? Где? Когда?» за игровым столом",
    takes=frozenset({ANGLE}),
    host_pedal=False,
    check=check,
    seed=lambda config: config.section(TableSection).seed,
    engine=lambda config, seed, now: TableGame(replace(
        table_setup(config, seed, started_at_ns=now),
        questions=question_pool(config.source, config.section(TableSection).question_file))),
    parse_command=parse_command,
    command_help=('expected {"action": one of '
                  f'{", ".join([PICK_SECTOR, *(a.value for a in ChgkAction)])}, and its arguments}}'),
    steps=("angle", "host", "pick"),
    step_args={"host": HOST_ARGS, "angle": ("status",), "pick": ("source",)},
    parse_step=parse_step,
    journal_header=journal_header,
    scenario_defaults={"sources": {"top": {"kind": "simulated_mcu", "pads": 1}}},
    inputs=(AngleSample, SectorPicked, ChgkHost),
    board="table.html",
    host_pages=("host-chgk.js",),
    demo="console.tools.demo_table:run_table_demo",
    demo_config="demo-chgk.toml",
    interrupted=interrupted,
    start_problems=start_problems,
    input_line=input_line,
    angle_source=lambda config: config.section(TableSection).angle_source,
    angle_rate_hz=lambda config: config.section(SpinSection).max_rate_hz,
    record_dir=lambda config: config.section(TableSection).record_dir,
)
