"""«Своя игра» (seed 004, App.1-11): players' buttons, the host's keys, the referee.

Contract: `GAME` is this game's registry entry (console/games/kind.py); `svoya_rules(config,
seed)` gives the referee's parameters or raises `ConfigError` naming the key. `referee(config,
seed)` builds the referee with the configured pack (`game.pack`, docs/packs.md): a pack that
cannot be read is not played, and the referee carries the problem for the console to report.
Host commands are `HostAction`s and the corrections (`adjust_score`, `reverse`).
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any

from console.config import Config, ConfigError
from console.engine.corrections import UNDO, AdjustScore, CorrectionAction, Reverse, Undo
from console.engine.model import NS_PER_MS, NS_PER_S, Host, HostAction, Press, SourceLink, Watermark
from console.engine.svoya.pack_choice import CHOOSE_PACK, ChoosePack
from console.engine.svoya.question import Phase
from console.engine.svoya.referee import SvoyaReferee
from console.engine.svoya.roster import ROSTER_ARGS, RosterAction, RosterChange
from console.engine.svoya.rules import (
    AnswerClock,
    FalseStartPolicy,
    PackTheme,
    Player,
    SvoyaRules,
    TiePolicy,
)
from console.games.button_games import correction_line, parse_correction, source_timings, text
from console.games.kind import BUTTONS, GameInput, GameKind, JsonObject, PackChoice, only_keys
from console.games.svoya.packs import catalogue, choice, choice_from_line, choice_line, fight_rounds
from console.packs import PackError, load_pack

log = logging.getLogger("chgk.svoya")

STEP_ARGS = ("player", "delta", "reason", "name", "pad", "file", "round", "round_name", "start", "themes",
             "skipped")


def svoya_rules(config: Config, seed: int | None = None,
                pack: tuple[PackTheme, ...] = ()) -> SvoyaRules:
    """The referee's parameters; raises ConfigError naming the key on a rule violation."""
    g = config.game
    timings = source_timings(config)
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
            lost_source_wait_ns=round(g.lost_source_wait_s * NS_PER_S),
            seed=g.seed if seed is None else seed,
            pack=pack,
        )
    except ValueError as exc:
        raise ConfigError(config.source, _key_of(str(exc)), str(exc)) from exc


def _key_of(problem: str) -> str:
    """The config key a rule's problem is about (its players unless it says otherwise)."""
    if "values" in problem:
        return "game.values"
    if problem.startswith("themes"):
        return "game.themes"
    return "players"


def check(config: Config) -> None:
    """The rules' own checks: 2-4 players, ascending values, a pad each."""
    svoya_rules(config)


def pack_path(config: Config) -> Path | None:
    """Where `game.pack` is: relative to the config file's folder; None when unset."""
    return Path(config.source).parent / config.game.pack if config.game.pack else None


def pack_themes(config: Config) -> tuple[tuple[PackTheme, ...], str | None]:
    """The configured pack's themes for the referee, or () and why it is not played."""
    themes, problem, _skipped = read_pack_themes(config)
    return themes, problem


def read_pack_themes(config: Config) -> tuple[tuple[PackTheme, ...], str | None, tuple[str, ...]]:
    """`pack_themes`, and the pack's cells left out (each with why: console.packs)."""
    path = pack_path(config)
    if path is None:
        return (), None, ()
    # The problem goes to the retained status, which is public: the file by its name, never
    # the server's path to it (the log has that).
    try:
        pack = load_pack(path)
    except PackError as exc:
        log.error("pack %s: %s", path, exc.problem)
        return (), (f"{path.name}: {exc.problem}; the game goes on without the pack (numbered themes "
                    "at game.values)"), ()
    themes = tuple(t for _, round_themes in fight_rounds(pack) for t in round_themes)
    if not themes:
        return (), (f"{path.name}: the pack has no question with a positive value to play; "
                    "the game goes on without it"), pack.skipped
    log.info("pack %s: %d themes (%s)", path, len(themes), ", ".join(t.name for t in themes[:8]))
    return themes, None, pack.skipped


def referee(config: Config, seed: int) -> SvoyaReferee:
    """The referee of `config` with its pack (see the module docstring)."""
    themes, problem, skipped = read_pack_themes(config)
    return SvoyaReferee(svoya_rules(config, seed, themes), pack_problem=problem, pack_skipped=skipped)


def parse_command(command: JsonObject, at: int) -> GameInput:
    """``{"action": "<HostAction>"}``, ``{"action": "adjust_score", "player": id, "delta": int,
    "reason": text}`` or ``{"action": "reverse", "reason": text}``. The referee judges the
    values (a known player, a reason that is not blank); this checks their types."""
    correction = parse_correction(command, at)
    if correction is not None:
        return correction
    action = command.get("action")
    if action in RosterAction.__members__.values():
        change = RosterAction(str(action))
        only_keys(command, ("action", *ROSTER_ARGS[change]))
        args = {key: text(command, key) for key in ROSTER_ARGS[change] if key in command or key != "pad"}
        return RosterChange(change, at, **args)
    only_keys(command, ("action",))
    return Host(HostAction(str(action)), at)


def parse_step(step: str, line: JsonObject, at: int) -> GameInput:
    """A ``host`` step: a host action or a correction with its arguments (console/scenario.py
    parses the presses and watermarks every button game shares)."""
    value = line[step]
    if not isinstance(value, str):
        raise ValueError(f"{step} must be a string")
    if value == CHOOSE_PACK:  # as the journal writes it: the pack whole (pack_choice.py)
        return choice_from_line(line, at)
    if value in (*CorrectionAction.__members__.values(), UNDO, *RosterAction.__members__.values()):
        return parse_command({"action": value, **{k: line[k] for k in STEP_ARGS if k in line}}, at)
    only_keys({k: v for k, v in line.items() if k in STEP_ARGS}, ())
    try:
        return Host(HostAction(value), at)
    except ValueError:
        allowed = ", ".join([*(a.value for a in HostAction), *(a.value for a in CorrectionAction), UNDO,
                             *(a.value for a in RosterAction)])
        raise ValueError(f"unknown host action {value!r} (one of {allowed})") from None


def journal_header(config: Config, seed: int) -> dict[str, Any]:
    """The config a replay needs to judge the journal's inputs the same way."""
    g = config.game
    # The pack as a full path: a replay reads it wherever the journal is.
    path = pack_path(config)
    return {
        "auto_watermark": False,
        "game": {**{k: getattr(g, k) for k in g.__dataclass_fields__}, "values": list(g.values),
                 "seed": seed, "pack": str(path.resolve()) if path else ""},
        "players": [{"id": p.id, "name": p.name, "pad": p.pad} for p in config.players],
        "sources": {name: s.replayed() for name, s in config.sources.items()},
        "host": {"max_delay_ms": config.host.max_delay_ms},
    }


def input_line(inp: GameInput) -> tuple[dict[str, Any], int] | None:
    """A correction's scenario line: ``host`` with the correction's arguments."""
    if isinstance(inp, ChoosePack):
        return {"host": CHOOSE_PACK, **choice_line(inp)}, inp.at
    if isinstance(inp, RosterChange):
        command = inp.command()
        return {"host": command.pop("action"), **command}, inp.at
    return correction_line(inp)


def referenced(inp: object) -> tuple[str, object] | None:
    """A chosen pack's themes, which its journal line holds whole: a checkpoint refers to them
    by a digest of that line instead of copying a pack of megabytes into every checkpoint."""
    if not isinstance(inp, ChoosePack):
        return None
    line = json.dumps(choice_line(inp), sort_keys=True, ensure_ascii=False).encode("utf-8", "surrogatepass")
    return f"{CHOOSE_PACK}:{hashlib.sha256(line).hexdigest()[:32]}", inp.themes


def media_pack(config: Config, engine: Any) -> str:
    """The pack the fight plays now: one chosen on the tablet, else the configured one."""
    return str(engine.pack_file or pack_path(config) or "")


# Said with each point given back by a void (in the protocol and on the host's screen).
VOID_REFUND = "вопрос прерван перезапуском пульта и будет сыгран заново: минус за него снят"


def question_interrupted(referee: SvoyaReferee, at: int) -> tuple[GameInput, str] | None:
    """The question in play, cancelled (the host's ``cancel``) and, not being counted as
    played, played again: the host reads it anew, as after a reset he may begin the reading
    again (004 App.9). None when no question is in play."""
    if referee.phase in (Phase.IDLE, Phase.GAME_OVER):
        return None
    return Host(HostAction.CANCEL, at), "question"


def interrupted(engine: Any, at: int) -> tuple[tuple[GameInput, ...], str] | None:
    """The question in play voided as a host expects of a question played again from scratch:
    withdrawn, and every minus taken on it by a wrong answer given back by a correction that
    says why (004 4.1: the host corrects a score; what a crash does the rules leave to the
    organisers, IV 4.4). Decisions of earlier questions stand."""
    voided = question_interrupted(engine, at)
    if voided is None:
        return None
    cancel, what = voided
    refunds = tuple(AdjustScore(player=player, delta=points, reason=VOID_REFUND, at=at)
                    for player, points in engine.minuses_in_play().items())
    return (cancel, *refunds), what


def start_problems(engine: Any) -> tuple[tuple[str, str], ...]:
    """A pack that could not be read: the referee starts without it, and the host is told."""
    problem, skipped = engine.pack_problem, engine.pack_skipped
    found = [("pack", problem)] if problem else []
    if skipped:  # the rest of the pack is played; the host knows what is not
        shown = "; ".join(skipped[:5]) + (f"; and {len(skipped) - 5} more" if len(skipped) > 5 else "")
        found.append(("pack_cells", f"{len(skipped)} cells of the pack cannot be played by these rules "
                                    f"and are left out: {shown}"))
    return tuple(found)


GAME = GameKind(
    name="svoya",
    protocolled=True,
    title="«Своя игра»",
    takes=frozenset({BUTTONS}),
    host_pedal=True,
    check=check,
    seed=lambda config: config.game.seed,
    engine=lambda config, seed, now: referee(config, seed),
    parse_command=parse_command,
    command_help=(f'expected {{"action": one of {", ".join(a.value for a in HostAction)}}}, '
                  '{"action": "adjust_score", "player": ID, "delta": N, "reason": TEXT} or '
                  '{"action": "reverse", "reason": TEXT} or {"action": "undo", "reason": TEXT} or, '
                  'between questions, {"action": "rename_player", "player": ID, "name": TEXT}, '
                  '{"action": "add_player", "name": TEXT[, "pad": PAD]}, '
                  '{"action": "remove_player", "player": ID} or {"action": "bind_pad", "player": ID}'),
    steps=("press", "host", "watermark", "link"),
    step_args={"host": STEP_ARGS},
    parse_step=parse_step,
    journal_header=journal_header,
    scenario_defaults={
        "players": [{"id": f"p{i + 1}", "name": f"Игрок {i + 1}", "pad": f"mcu:{i}"} for i in range(4)],
        "sources": {"mcu": {"kind": "simulated_mcu", "pads": 4}},
    },
    inputs=(Press, Watermark, Host, SourceLink, AdjustScore, Reverse, Undo, RosterChange, ChoosePack),
    board="scoreboard.html",
    host_pages=("host-svoya.js",),
    demo="console.tools.demo:run_demo",
    demo_config="demo.toml",
    coalesce_presses=True,  # an earlier press of a pad is never worse than its later one
    interrupted=interrupted,
    start_problems=start_problems,
    input_line=input_line,
    referenced=referenced,
    referring_steps=frozenset({CHOOSE_PACK}),
    media_pack=media_pack,
    pack_choice=PackChoice(folder=lambda config: Path(config.source).parent / config.game.pack_dir,
                           catalogue=catalogue, choice=choice),
)
