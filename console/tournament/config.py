"""The tournament service's config file (config/tournament.toml documents every key).

Contract: `load_tournament_config(path)` reads the TOML file and returns a `TournamentConfig`,
or raises `console.config.ConfigError` naming the file, the key and the problem: an unknown
key, a value of the wrong type, a team listed twice, not 24 teams (seed 004 2.1). The state
folder is relative to the file's folder.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from console.config import ConfigError, read_toml
from console.tournament.draw import TEAMS


@dataclass(frozen=True, slots=True)
class Team:
    id: str  # the id the tables' configs give the team's seat ([[players]] id)
    name: str


@dataclass(frozen=True, slots=True)
class TournamentMqtt:
    host: str = "127.0.0.1"
    port: int = 1883
    prefix: str = "chgk"
    username: str = ""
    password: str = field(default="", repr=False)
    client_id: str = "chgk-tournament"  # fixed: the broker keeps the service's session by it


@dataclass(frozen=True, slots=True)
class TournamentPage:
    http_port: int = 8090  # 0: no page served
    bind: str = "0.0.0.0"
    ws_port: int = 9001  # the organiser's broker's WebSocket listener, as the browser reaches it
    mqtt_username: str = ""
    mqtt_password: str = field(default="", repr=False)


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    name: str
    state_dir: str
    seed: int  # the public draw's seed; 0: a fresh one, logged and kept (2.3.3)
    teams: tuple[Team, ...]
    mqtt: TournamentMqtt
    page: TournamentPage


_KEYS: dict[str, dict[str, type]] = {
    "tournament": {"name": str, "state_dir": str, "seed": int},
    "mqtt": {"host": str, "port": int, "prefix": str, "username": str, "password": str, "client_id": str},
    "page": {"http_port": int, "bind": str, "ws_port": int, "mqtt_username": str, "mqtt_password": str},
}


def _table(data: dict[str, object], section: str, source: str) -> dict[str, object]:
    raw = data.get(section, {})
    if not isinstance(raw, dict):
        raise ConfigError(source, section, "must be a table")
    known = _KEYS[section]
    for key, value in raw.items():
        if key not in known:
            raise ConfigError(source, f"{section}.{key}", f"unknown key (known: {', '.join(sorted(known))})")
        want = known[key]
        if not isinstance(value, want) or (want is int and isinstance(value, bool)):
            kind = "a string" if want is str else "an integer"
            raise ConfigError(source, f"{section}.{key}", f"must be {kind}")
        if want is int and not 0 <= value < 2**63:  # type: ignore[operator]
            raise ConfigError(source, f"{section}.{key}", f"must not be negative, got {value}")
    return dict(raw)


def load_tournament_config(path: str) -> TournamentConfig:
    try:
        data = read_toml(path)
    except UnicodeDecodeError as exc:
        raise ConfigError(path, "-", f"not valid TOML (not UTF-8 text: {exc.reason} "
                                     f"at byte {exc.start})") from exc
    except OSError as exc:
        raise ConfigError(path, "-", f"cannot read: {exc.strerror}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(path, "-", f"not valid TOML: {exc}") from exc
    for key in data:
        if key not in (*_KEYS, "teams"):
            raise ConfigError(path, key, f"unknown section (known: {', '.join([*_KEYS, 'teams'])})")
    tournament = _table(data, "tournament", path)
    mqtt = TournamentMqtt(**_table(data, "mqtt", path))  # type: ignore[arg-type]
    page = TournamentPage(**_table(data, "page", path))  # type: ignore[arg-type]
    raw_teams = data.get("teams", [])
    if not isinstance(raw_teams, list):
        raise ConfigError(path, "teams", "must be an array of tables ([[teams]])")
    teams: list[Team] = []
    for i, raw in enumerate(raw_teams, 1):
        where = f"teams[{i}]"
        if not isinstance(raw, dict) or set(raw) - {"id", "name"} or not isinstance(raw.get("id"), str):
            raise ConfigError(path, where, "each team is a table with a string id (and a name)")
        name = raw.get("name", raw["id"])
        if not isinstance(name, str) or not raw["id"]:
            raise ConfigError(path, where, "id and name are non-empty strings")
        if any(t.id == raw["id"] for t in teams):
            raise ConfigError(path, f"{where}.id", f"team {raw['id']!r} is listed twice")
        teams.append(Team(raw["id"], name))
    if len(teams) != TEAMS:
        raise ConfigError(path, "teams", f"the grid is for {TEAMS} teams (004 2.1), got {len(teams)}")
    state_dir = str(tournament.get("state_dir", "/var/lib/chgk-tournament"))
    return TournamentConfig(
        name=str(tournament.get("name", "Эрудит-квартет")),
        state_dir=str(Path(path).parent / state_dir),  # an absolute one stays as it is
        seed=int(tournament.get("seed", 0)),  # type: ignore[call-overload]
        teams=tuple(teams), mqtt=mqtt, page=page)
