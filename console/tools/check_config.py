"""`chgk-console check-config FILE`: is this config one the console will run as meant?

Contract: `check_config(path, out, err)` prints one OK line (the game, who is on which button,
the sources) or the config's problems, each naming its key (an array's entries counted from 1,
as a person counts the ``[[players]]``), and returns the exit status: 0 when it is good, 1 when
it is not. Every problem is found in one run: a key found wrong is taken out and the rest
checked again, until the rest is good or what is left cannot be checked without the key (a key
that is required, the game's kind, the whole file). Beyond the keys, it builds the game as
`run` would and reports what the game would start with a problem (a question pack or a question
file that cannot be read, a pack's cells left out): status 1, the organiser fixes it before the
evening. A serial port that does not exist now is a warning (status 0: the box may be plugged
in later), and so is a pack folder (game.pack_dir) with no pack to choose, or a pack in it that
cannot be played. A tournament service's config (it has a ``[tournament]`` section,
docs/tournament.md) is checked as one, and so is a season's (a ``[season]`` section).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from console.config import ConfigError, read_toml
from console.games import config_from_dict, game, load_config

# Enough for any config a person wrote; a bound in case a key's removal ever kept the same problem.
MOST_PROBLEMS = 50


def check_config(path: str, out: TextIO, err: TextIO) -> int:
    try:
        data = read_toml(path)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        data = {}  # load_config says what is wrong with it
    if "tournament" in data:
        return _check_tournament(path, out, err)
    if "season" in data:
        return _check_season(path, out, err)
    try:
        config = load_config(path)
    except ConfigError as exc:
        for wrong in every_problem(path, data, exc):
            print(f"chgk-console: {wrong}", file=err)
        return 1
    kind = game(config.game.kind)
    engine = kind.engine(config, kind.seed(config) or 1, None)
    problems = kind.start_problems(engine)
    names = {p.id: p.name for p in config.players}
    owners: dict[str, list[str]] = {}
    for pad, owner in kind.pads(config).items():
        owners.setdefault(names.get(owner, owner), []).append(pad)
    buttons = ", ".join(f"{owner} ({', '.join(pads)})" for owner, pads in owners.items())
    sources = ", ".join(config.sources) or "none"
    print(f"{path}: {'OK' if not problems else 'problems'} — {kind.title}"
          + (f"; buttons: {buttons}" if buttons else "") + f"; sources: {sources}", file=out)
    for name, section in config.sources.items():
        device = section.device()
        if device.startswith("/dev/") and not Path(device).exists():
            print(f"warning: sources.{name}.port: {device} does not exist now "
                  "(the box unplugged? the console waits for it and says so)", file=out)
    if kind.pack_choice is not None:
        _report_packs(kind.pack_choice.folder(config), kind.pack_choice.catalogue, out)
    for source, problem in problems:
        print(f"problem: {source}: {problem}", file=out)
    return 1 if problems else 0


def every_problem(path: str, data: dict[str, Any], first: ConfigError) -> list[ConfigError]:
    """`first` and the problems after it: each key found wrong is taken out of `data` and the
    rest checked again. Stops where taking the key out cannot help: the game's kind, the whole
    file, or a key the rest needs (a required one: what comes after it is not guessed at)."""
    found = [first]
    while len(found) < MOST_PROBLEMS:
        last = found[-1]
        if last.key in ("", "-", "game.kind") or not _take_out(data, last.key):
            break
        try:
            config_from_dict(data, path)
            break
        except ConfigError as exc:
            if exc.key == last.key:
                break  # required: what it would say next depends on it
            found.append(exc)
    return found


KEY_STEP = re.compile(r"([^.\[\]]+)(?:\[(\d+)\])?")


def _take_out(data: dict[str, Any], key: str) -> bool:
    """Remove `key` ("players[2].pad": entries counted from 1) from `data`; False if absent."""
    steps: list[str | int] = []
    for name, index in KEY_STEP.findall(key):
        steps.append(name)
        if index:
            steps.append(int(index) - 1)
    node: Any = data
    for step in steps[:-1]:
        inside = (0 <= step < len(node) if isinstance(node, list) else False) if isinstance(step, int) \
            else isinstance(node, dict) and step in node
        if not inside:
            return False
        node = node[step]
    last = steps[-1]
    if isinstance(last, str) and isinstance(node, dict) and last in node:
        del node[last]
        return True
    return False


def _report_packs(folder: Path, catalogue: Callable[[Path], dict[str, Any]], out: TextIO) -> None:
    """The packs the host may choose on the tablet (game.pack_dir): how many, and a warning for
    a folder that gives none or a pack that cannot be played (status 0: the evening can start
    on the configured pack, and a pack may be copied in later)."""
    shelf = catalogue(folder)
    playable = [p for p in shelf["packs"] if "rounds" in p]
    if shelf["problem"] or not playable:
        print(f"warning: game.pack_dir: no pack to choose on the tablet in {folder}"
              + (f" ({shelf['problem']})" if shelf["problem"] else ""), file=out)
    else:
        print(f"packs to choose on the tablet: {len(playable)} in {folder}", file=out)
    for pack in shelf["packs"]:
        if "rounds" not in pack:
            print(f"warning: game.pack_dir: {pack['file']} cannot be played: {pack['problem']}", file=out)


def _check_tournament(path: str, out: TextIO, err: TextIO) -> int:
    from console.tournament.config import load_tournament_config

    try:
        config = load_tournament_config(path)
    except ConfigError as exc:
        print(f"chgk-console: {exc}", file=err)
        return 1
    print(f"{path}: OK — the tournament «{config.name}» (chgk-console tournament): "
          f"{len(config.teams)} teams; broker {config.mqtt.host}:{config.mqtt.port}", file=out)
    return 0


def _check_season(path: str, out: TextIO, err: TextIO) -> int:
    from console.season.config import FORMATS, load_season_config

    try:
        config = load_season_config(path)
    except ConfigError as exc:
        print(f"chgk-console: {exc}", file=err)
        return 1
    registered = sum(t.registered for t in config.teams)
    print(f"{path}: OK — the season «{config.name}», {FORMATS[config.format]} (chgk-console season): "
          f"{len(config.teams)} teams ({registered} registered); database {config.database}; "
          f"broker {config.mqtt_host}:{config.mqtt_port}", file=out)
    return 0
