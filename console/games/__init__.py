"""The registry of game kinds, and the config loading that checks a config against its game.

Contract: `game(name)` gives the `GameKind` of ``game.kind = name``, importing its module on
first use (a game's engine is loaded only when it is played); `names()` lists them.
`load_config(path)` / `config_from_dict(data, source)` read and validate a config, the game's
own rules included, raising `ConfigError` that names the file, the key and the problem.
A new game is one package here (console/games/<name>/: `kind.py` with its `GAME` record,
`config.py` with its config sections) and one line in `_MODULES` (docs/adding-a-game.md).
Every game's config sections are parsed whichever game is played (a config may keep another
game's sections), so `config.py` of a game imports nothing heavier than its rules' enums.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from console.config import Config, ConfigError, GameSections, SectionParser, parse_config, read_config
from console.games.kind import GameKind
from console.sources import source_kind

# game.kind -> its package (kind.py: its GAME record, imported lazily; config.py: its sections).
_MODULES = {
    "svoya": "console.games.svoya",
    "chgk": "console.games.chgk",
    "sports": "console.games.sports",
    "quartet": "console.games.quartet",
    "brainring": "console.games.brainring",
}
_LOADED: dict[str, GameKind] = {}


def names() -> tuple[str, ...]:
    """Every game.kind the console can run."""
    return tuple(_MODULES)


def game(name: str) -> GameKind:
    """The game kind called `name`; KeyError for a name that is not one."""
    found = _LOADED.get(name)
    if found is None:
        record = importlib.import_module(f"{_MODULES[name]}.kind").GAME
        assert isinstance(record, GameKind) and record.name == name
        found = _LOADED[name] = record
    return found


@functools.cache
def sections() -> GameSections:
    """Every game's config sections and choices (their config modules, imported once)."""
    parsers: dict[str, SectionParser] = {}
    choices: dict[str, tuple[str, ...]] = {}
    for package in _MODULES.values():
        module = importlib.import_module(f"{package}.config")
        parsers.update(module.SECTIONS)
        choices.update(module.CHOICES)
    return GameSections(parsers, choices)


def load_config(path: str | Path) -> Config:
    """Read a TOML config and validate it, its game's rules included."""
    return checked(read_config(path, sections()))


def config_from_dict(data: Mapping[str, Any], source: str) -> Config:
    """Validate an already-parsed config (a TOML file's, or a replay scenario's header)."""
    return checked(parse_config(data, source, sections()))


def checked(config: Config) -> Config:
    """`config`, once its sources and pedal fit its game and its game's rules accept it."""
    if config.game.kind not in _MODULES:
        raise ConfigError(config.source, "game.kind",
                          f"{config.game.kind!r} is not one of {', '.join(_MODULES)}")
    kind = game(config.game.kind)
    _check_inputs(config, kind)
    kind.check(config)
    if config.game.one_input_kind:
        _check_one_input_kind(config, kind)
    return config


def _check_one_input_kind(config: Config, kind: GameKind) -> None:
    """game.one_input_kind: the players' (teams') buttons are all of one kind of source."""
    used: dict[str, list[str]] = {}  # source kind -> the pads of it that someone plays
    for pad in kind.pads(config):
        source = config.sources.get(pad.partition(":")[0])
        if source is not None:
            used.setdefault(source.kind, []).append(pad)
    if len(used) > 1:
        mix = "; ".join(f"{kind_name}: {', '.join(pads)}" for kind_name, pads in used.items())
        raise ConfigError(config.source, "game.one_input_kind",
                          f"the buttons are of {len(used)} kinds ({mix}): give everyone the same kind, "
                          "or set it to false")


def _check_inputs(config: Config, kind: GameKind) -> None:
    """Each source must give the game something it takes, and the pedal must be its host's:
    anything else would reach an engine that cannot take it."""
    src = config.source
    if kind.takes and not config.sources:  # the sports timer needs no hardware
        raise ConfigError(src, "sources", "at least one source is needed ([sources.NAME])")
    for name, section in config.sources.items():
        roles = source_kind(section.kind).roles
        if not roles & kind.takes:
            games = ", ".join(n for n in names() if roles & game(n).takes)
            raise ConfigError(src, f"sources.{name}.kind",
                              f"a {section.kind} source does not play in game.kind = {kind.name!r} "
                              f"(only in {games})")
    if config.host.pedal_pin >= 0 and not kind.host_pedal:
        pedal_games = ", ".join(repr(n) for n in names() if game(n).host_pedal)
        raise ConfigError(src, "host.pedal_pin", f"the foot pedal plays only in game.kind = {pedal_games} "
                                                 "(its actions are that game's host's)")
    for key, action in config.host.actions():  # [[host.pedals]] and [[host.keys]]: this game's actions
        try:
            kind.parse_command({"action": action}, 0)
        except ValueError:
            raise ConfigError(src, key, f"{action!r} is not a host action of game.kind = {kind.name!r} "
                                        f"({kind.command_help})") from None
