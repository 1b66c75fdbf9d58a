"""The JSON Lines scenario format: timed inputs, as written by the journal and read by replay.

One JSON object per line (docs/scenarios.md):

* optional first line ``{"config": {...}}``: the game, players and sources, keyed as in the
  TOML config; ``"auto_watermark": false`` there means the scenario lists watermarks itself;
* ``{"at_ms": 1500.0, "press": "mcu:1"}``: a press that happened at 1500 ms on pad ``mcu:1``;
  ``"arrive_ms"`` (default: ``at_ms``) is when the console received it;
* ``{"at_ms": 1600, "host": "correct"}``: a host action (see ``HostAction``);
* ``{"at_ms": 1600, "watermark": "mcu"}``: the source has reported everything up to then.

Times are milliseconds on any common origin (the journal writes host monotonic time).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from console.engine.model import NS_PER_MS, Host, HostAction, Input, Press, Watermark


class ScenarioError(ValueError):
    """A line that is not a valid scenario step; the message names the line and the problem."""


@dataclass(frozen=True, slots=True)
class Step:
    input: Input
    arrive: int  # host ns when the console received it


def step_to_json(inp: Input, arrive: int) -> dict[str, Any]:
    """The scenario line for an input received at `arrive` (for the journal)."""
    line: dict[str, Any]
    if isinstance(inp, Press):
        line = {"at_ms": inp.at / NS_PER_MS, "press": inp.pad}
        at = inp.at
    elif isinstance(inp, Watermark):
        line = {"at_ms": inp.up_to / NS_PER_MS, "watermark": inp.source}
        at = inp.up_to
    else:
        line = {"at_ms": inp.at / NS_PER_MS, "host": inp.action.value}
        at = inp.at
    if arrive != at:
        line["arrive_ms"] = arrive / NS_PER_MS
    return line


def parse_step(text: str, where: str) -> Step:
    """Parse one scenario line; `where` (e.g. "file.jsonl:7") is used in error messages."""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"{where}: not JSON ({exc.msg})") from exc
    if not isinstance(obj, dict):
        raise ScenarioError(f"{where}: expected a JSON object")
    at = _ms(obj, "at_ms", where)
    arrive = _ms(obj, "arrive_ms", where) if "arrive_ms" in obj else at
    if arrive < at:
        raise ScenarioError(f"{where}: arrive_ms is before at_ms (an input cannot arrive before it happens)")
    kinds = [k for k in ("press", "host", "watermark") if k in obj]
    if len(kinds) != 1:
        raise ScenarioError(f"{where}: a step needs exactly one of press, host, watermark")
    unknown = set(obj) - {"at_ms", "arrive_ms", *kinds}
    if unknown:
        raise ScenarioError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    value = obj[kinds[0]]
    if not isinstance(value, str):
        raise ScenarioError(f"{where}: {kinds[0]} must be a string")
    if kinds[0] == "press":
        source, sep, _ = value.partition(":")
        if not sep:
            raise ScenarioError(f"{where}: press {value!r} should look like 'mcu:0'")
        return Step(Press(source, value, at), arrive)
    if kinds[0] == "watermark":
        return Step(Watermark(value, at), arrive)
    try:
        action = HostAction(value)
    except ValueError:
        allowed = ", ".join(a.value for a in HostAction)
        raise ScenarioError(f"{where}: unknown host action {value!r} (one of {allowed})") from None
    return Step(Host(action, at), arrive)


def _ms(obj: dict[str, Any], key: str, where: str) -> int:
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ScenarioError(f"{where}: {key} must be a number of milliseconds")
    return round(value * NS_PER_MS)
