"""The registry of game kinds, and the config loading that checks a config against its game.

Contract: `game(name)` gives the `GameKind` of ``game.kind = name``, importing its module on
first use (a game's engine is loaded only when it is played); `names()` lists them.
`load_config(path)` / `config_from_dict(data, source)` read and validate a config, the game's
own rules included, raising `ConfigError` that names the file, the key and the problem.
A new game is one module in this package with a `GAME` record, and one line in `_MODULES`.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from console.config import Config, ConfigError, parse_config, read_config
from console.games.kind import GameKind
from console.sources import source_kind

# game.kind -> the module that defines its GAME record (imported lazily).
_MODULES = {
    "svoya": "console.games.svoya.kind",
    "chgk": "console.games.chgk.kind",
    "sports": "console.games.sports.kind",
    "quartet": "console.games.quartet.kind",
}
_LOADED: dict[str, GameKind] = {}


def names() -> tuple[str, ...]:
    """Every game.kind the console can run."""
    return tuple(_MODULES)


def game(name: str) -> GameKind:
    """The game kind called `name`; KeyError for a name that is not one."""
    found = _LOADED.get(name)
    if found is None:
        record = importlib.import_module(_MODULES[name]).GAME
        assert isinstance(record, GameKind) and record.name == name
        found = _LOADED[name] = record
    return found


def load_config(path: str | Path) -> Config:
    """Read a TOML config and validate it, its game's rules included."""
    return checked(read_config(path))


def config_from_dict(data: Mapping[str, Any], source: str) -> Config:
    """Validate an already-parsed config (a TOML file's, or a replay scenario's header)."""
    return checked(parse_config(data, source))


def checked(config: Config) -> Config:
    """`config`, once its sources and pedal fit its game and its game's rules accept it."""
    if config.game.kind not in _MODULES:
        raise ConfigError(config.source, "game.kind",
                          f"{config.game.kind!r} is not one of {', '.join(_MODULES)}")
    kind = game(config.game.kind)
    _check_inputs(config, kind)
    kind.check(config)
    return config


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
