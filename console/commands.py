"""Host commands from the tablet (MQTT `<prefix>/<node>/host/command`), parsed into inputs.

Contract: `parse_command(kind, command, at)` turns a decoded JSON object into the engine input
it means, stamped `at` (when it was received), or raises ValueError with a message that names
what is wrong. Nothing here decides whether the action is allowed now: the engine does, and
refuses with an error event.

* «Своя игра»: ``{"action": "<HostAction>"}``.
* sports ChGK timer (003 5.3): ``{"action": "start" | "cancel"}``.
* ChGK table: ``{"action": "<ChgkAction>", ...}`` with the arguments the action uses
  (``sector``, ``to_sector``, ``team``, ``round``, ``part``), or
  ``{"action": "pick_sector", "sector": N}``: the host picks the sector (a stop on a boundary,
  a failed sensor, a sector chosen without the top).
"""

from __future__ import annotations

from typing import Any

from console.engine.chgk_rules import ChgkAction, ChgkHost, PickSource, SectorPicked
from console.engine.model import Host, HostAction
from console.engine.sports_timer import SportsAction, SportsHost

PICK_SECTOR = "pick_sector"
_INT_ARGS = ("sector", "to_sector", "round", "part")


def parse_command(kind: str, command: dict[str, Any], at: int) -> Host | ChgkHost | SectorPicked | SportsHost:
    if kind == "chgk":
        return _chgk(command, at)
    if kind == "sports":
        if set(command) - {"action"}:
            raise ValueError(f"unknown key(s) {', '.join(sorted(set(command) - {'action'}))}")
        return SportsHost(SportsAction(str(command.get("action"))), at)
    unknown = set(command) - {"action"}
    if unknown:
        raise ValueError(f"unknown key(s) {', '.join(sorted(unknown))}")
    return Host(HostAction(str(command.get("action"))), at)


def command_help(kind: str) -> str:
    if kind == "sports":
        return f'expected {{"action": one of {", ".join(a.value for a in SportsAction)}}}'
    if kind == "chgk":
        actions = ", ".join([PICK_SECTOR, *(a.value for a in ChgkAction)])
        return f'expected {{"action": one of {actions}, and its arguments}}'
    return f'expected {{"action": one of {", ".join(a.value for a in HostAction)}}}'


def _chgk(command: dict[str, Any], at: int) -> ChgkHost | SectorPicked:
    action = command.get("action")
    unknown = set(command) - {"action", "team", *_INT_ARGS}
    if unknown:
        raise ValueError(f"unknown key(s) {', '.join(sorted(unknown))}")
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
    if action == PICK_SECTOR:
        if set(args) != {"sector"}:
            raise ValueError("pick_sector takes exactly one argument: sector")
        return SectorPicked(args["sector"], at, PickSource.HOST)
    return ChgkHost(ChgkAction(str(action)), at, **args)
