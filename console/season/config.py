"""The season service's config file (config/season.toml documents every key).

Contract: `load_season_config(path)` reads the TOML file and returns a `SeasonConfig`, or raises
`console.config.ConfigError` naming the file, the key and the problem: an unknown section or
key, a value of the wrong type, a format the service does not know, a team listed twice, a
registered «Что? То? Там?» team not of 5-6 players or another team of more than 6 (000 1.3,
1.4). The database's path is relative to the file's folder.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from console.config import ConfigError, read_toml
from console.season.belgorod import Bingo
from console.season.model import Team

__all__ = ["FORMATS", "SeasonConfig", "load_season_config"]

FORMATS = {"chto": "«Что? То? Там?» (seed 000)", "belgorod": "чемпионат Белгородской области (seed 003)"}


@dataclass(frozen=True, slots=True)
class SeasonConfig:
    name: str
    format: str  # "chto" or "belgorod"
    database: str
    teams: tuple[Team, ...]
    bingo: Bingo = field(default_factory=Bingo)
    last_finalist: str = ""  # 003 5.8: the last series' finalist (a team id), "" if none
    mqtt_host: str = "127.0.0.1"
    mqtt_port: int = 1883
    prefix: str = "chgk"
    username: str = ""
    password: str = field(default="", repr=False)
    client_id: str = "chgk-season"
    http_port: int = 8091  # 0: no page served
    bind: str = "0.0.0.0"
    ws_port: int = 9001


_KEYS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "season": {"name": str, "format": str, "database": str, "last_finalist": str},
    "bingo": {"for_place": list, "for_win": int, "series_parts": int},
    "mqtt": {"host": str, "port": int, "prefix": str, "username": str, "password": str, "client_id": str},
    "page": {"http_port": int, "bind": str, "ws_port": int},
}
_TEAM_KEYS: dict[str, type] = {"id": str, "name": str, "registered": bool, "players": int, "town": str}


def _table(data: dict[str, Any], section: str, source: str) -> dict[str, Any]:
    raw = data.get(section, {})
    if not isinstance(raw, dict):
        raise ConfigError(source, section, "must be a table")
    for key, value in raw.items():
        want = _KEYS[section].get(key)
        if want is None:
            known = ", ".join(sorted(_KEYS[section]))
            raise ConfigError(source, f"{section}.{key}", f"unknown key (known: {known})")
        if not isinstance(value, want) or (want is int and isinstance(value, bool)):
            raise ConfigError(source, f"{section}.{key}", f"must be {_kind(want)}")
    return dict(raw)


_KINDS: dict[object, str] = {str: "a string", int: "an integer", list: "an array", bool: "true or false"}


def _kind(want: type | tuple[type, ...]) -> str:
    return _KINDS.get(want, "a value")


def _team(raw: object, where: str, source: str, fmt: str) -> Team:
    if not isinstance(raw, dict):
        raise ConfigError(source, where, "must be a table")
    for key, value in raw.items():
        want = _TEAM_KEYS.get(key)
        if want is None:
            raise ConfigError(source, f"{where}.{key}", f"unknown key (known: {', '.join(_TEAM_KEYS)})")
        if not isinstance(value, want) or (want is int and isinstance(value, bool)):
            raise ConfigError(source, f"{where}.{key}", f"must be {_kind(want)}")
    if not raw.get("id") or not raw.get("name"):
        raise ConfigError(source, where, "a team needs an id and a name")
    team = Team(raw["id"], raw["name"], raw.get("registered", True), raw.get("players", 6),
                raw.get("town", ""))
    if fmt == "chto" and team.registered and not 5 <= team.players <= 6:
        raise ConfigError(source, f"{where}.players",
                          f"a registered team has 5 or 6 players (000 1.3), got {team.players}")
    if fmt == "chto" and not 1 <= team.players <= 6:
        raise ConfigError(source, f"{where}.players",
                          f"a team has at most 6 players (000 1.4), got {team.players}")
    return team


def load_season_config(path: str) -> SeasonConfig:
    try:
        data = read_toml(path)
    except UnicodeDecodeError as exc:
        raise ConfigError(path, "-", f"not valid TOML (not UTF-8 text: {exc.reason})") from exc
    except OSError as exc:
        raise ConfigError(path, "-", f"cannot read: {exc.strerror}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(path, "-", f"not valid TOML: {exc}") from exc
    for key in data:
        if key not in (*_KEYS, "teams"):
            raise ConfigError(path, key, f"unknown section (known: {', '.join([*_KEYS, 'teams'])})")
    season, bingo = _table(data, "season", path), _table(data, "bingo", path)
    mqtt, page = _table(data, "mqtt", path), _table(data, "page", path)
    fmt = season.get("format", "chto")
    if fmt not in FORMATS:
        raise ConfigError(path, "season.format", f"{fmt!r} is not one of {', '.join(FORMATS)}")
    raw_teams = data.get("teams", [])
    if not isinstance(raw_teams, list):
        raise ConfigError(path, "teams", "must be an array of tables ([[teams]])")
    teams: list[Team] = []
    for i, raw in enumerate(raw_teams):
        team = _team(raw, f"teams[{i + 1}]", path, fmt)
        if any(t.id == team.id for t in teams):
            raise ConfigError(path, f"teams[{i + 1}].id", f"team {team.id!r} is listed twice")
        teams.append(team)
    last = season.get("last_finalist", "")
    if last and not any(t.id == last for t in teams):
        raise ConfigError(path, "season.last_finalist", f"{last!r} is not a team of [[teams]]")
    places = bingo.get("for_place", list(Bingo().for_place))
    if not all(isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in places):
        raise ConfigError(path, "bingo.for_place", "BINGO for each place: non-negative integers")
    if bingo.get("series_parts", 0) not in (0, 1, 2):
        raise ConfigError(path, "bingo.series_parts", "0 (two from nine teams on), 1 or 2 (003 6.6)")
    return SeasonConfig(
        name=season.get("name", FORMATS[fmt]), format=fmt,
        database=str(Path(path).parent / season.get("database", "season.db")),
        teams=tuple(teams),
        bingo=Bingo(tuple(places), bingo.get("for_win", Bingo().for_win), bingo.get("series_parts", 0)),
        last_finalist=last,
        mqtt_host=mqtt.get("host", "127.0.0.1"), mqtt_port=mqtt.get("port", 1883),
        prefix=mqtt.get("prefix", "chgk"),
        username=mqtt.get("username", ""), password=mqtt.get("password", ""),
        client_id=mqtt.get("client_id", "chgk-season"),
        http_port=page.get("http_port", 8091), bind=page.get("bind", "0.0.0.0"),
        ws_port=page.get("ws_port", 9001))
