"""The JSON Lines scenario format: timed inputs, as written by the journal and read by replay.

One JSON object per line (docs/scenarios.md):

* optional first line ``{"config": {...}}``: the game, players and sources, keyed as in the
  TOML config; ``"auto_watermark": false`` there means the scenario lists watermarks itself;
* ``{"at_ms": 1500.0, "press": "mcu:1"}``: a press that happened at 1500 ms on pad ``mcu:1``;
  ``"arrive_ms"`` (default: ``at_ms``) is when the console received it;
* ``{"at_ms": 1600, "host": "correct"}``: a host action (see ``HostAction``);
* ``{"at_ms": 1600, "watermark": "mcu"}``: the source has reported everything up to then.

At the «Что? Где? Когда?» table (``game.kind = "chgk"``) also:

* ``{"at_ms": 1500, "angle": 2048, "status": 1}``: the top's angle sensor read 2048 of 4096
  (``status``: sensor flags, default 1 = magnet detected);
* ``{"at_ms": 1600, "host": "start_timer"}``: a table host action, with its arguments
  (``sector``, ``to_sector``, ``team``, ``round``, ``part``) as in the MQTT command;
* ``{"at_ms": 1600, "pick": 5, "source": "host"}``: sector 5 was picked by the host, the
  lototron or the top.

Times are milliseconds on any common origin (the journal writes host monotonic time).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, TypeGuard

from console.config import finite_number
from console.engine.model import NS_PER_MS, Host, Press, SourceLink, Watermark
from console.games.kind import GameInput, GameKind

AnyInput = GameInput
# The steps every game that takes buttons shares, parsed here alike (their extra keys):
# a press, a source's watermark, a source lost or back (``"link": "mcu", "up": false``).
SHARED_STEPS: dict[str, tuple[str, ...]] = {"press": (), "watermark": ("lost_from_ms",), "link": ("up",)}


class ScenarioError(ValueError):
    """A line that is not a valid scenario step; the message names the line and the problem."""


@dataclass(frozen=True, slots=True)
class Step:
    input: AnyInput
    arrive: int  # host ns when the console received it


def step_to_json(inp: AnyInput, arrive: int, game: GameKind) -> dict[str, Any]:
    """The scenario line for an input of `game` received at `arrive` (for the journal): a
    press, a watermark and a plain host action are written here, the game's own inputs by
    its kind (`GameKind.input_line`)."""
    line: dict[str, Any]
    if isinstance(inp, Press):
        line, at = {"press": inp.pad}, inp.at
    elif isinstance(inp, Watermark):
        line, at = {"watermark": inp.source}, inp.up_to
        if inp.lost_from is not None:
            line["lost_from_ms"] = inp.lost_from / NS_PER_MS
    elif isinstance(inp, Host):
        line, at = {"host": inp.action.value}, inp.at
    elif isinstance(inp, SourceLink):
        line, at = {"link": inp.source, "up": inp.up}, inp.at
    else:
        own = game.input_line(inp)
        if own is None:
            raise TypeError(f"{type(inp).__name__} is not an input of {game.name}")
        line, at = own
    line = {"at_ms": at / NS_PER_MS, **line}
    if arrive != at:
        line["arrive_ms"] = arrive / NS_PER_MS
    return line


def parse_step(text: str, where: str, game: GameKind, *, journal: bool = False) -> Step:
    """Parse one scenario line of a `game`; `where` (e.g. "file.jsonl:7") names it in errors.
    `journal`: the line is from a console's own journal, where an input may have been handed on
    before it happened (see MAPPING_SLACK_MS), so an early ``arrive_ms`` is no error there."""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"{where}: not JSON ({exc.msg})") from exc
    except RecursionError:
        raise ScenarioError(f"{where}: not a scenario step (nested too deeply)") from None
    if not isinstance(obj, dict):
        raise ScenarioError(f"{where}: expected a JSON object")
    at = _ms(obj, "at_ms", where)
    arrive = _ms(obj, "arrive_ms", where) if "arrive_ms" in obj else at
    if not journal and arrive < at - round(MAPPING_SLACK_MS * NS_PER_MS):
        raise ScenarioError(f"{where}: arrive_ms is more than {MAPPING_SLACK_MS:g} ms before at_ms "
                            "(an input cannot arrive before it happens)")
    kinds = [k for k in game.steps if k in obj]
    if len(kinds) != 1:
        raise ScenarioError(f"{where}: a step needs exactly one of {', '.join(game.steps)}")
    step = kinds[0]
    args = SHARED_STEPS[step] if step in SHARED_STEPS else game.step_args.get(step, ())
    allowed = {"at_ms", "arrive_ms", step, *args}
    unknown = set(obj) - allowed
    if unknown:
        names = ", ".join(sorted(unknown))
        raise ScenarioError(f"{where}: unknown key(s) {names[:200]}{'…' if len(names) > 200 else ''}")
    try:
        if step == "press":
            return Step(press_step(obj[step], at), arrive)
        if step == "watermark":
            return Step(watermark_step(obj[step], at, obj.get("lost_from_ms")), arrive)
        if step == "link":
            return Step(link_step(obj[step], at, obj.get("up")), arrive)
        return Step(game.parse_step(step, obj, at), arrive)
    except (ValueError, TypeError, OverflowError) as exc:  # e.g. "status": null
        raise ScenarioError(f"{where}: {exc}") from None


# An input stamped by a device's own clock is mapped onto the console's with the clock fit's
# error (drivers/clock_sync.py), so the console may journal a press a little after it received it;
# McuSession refuses a mapping more than 5 ms plus the fit's bound ahead of arrival.  Such a line
# is what the console saw and must replay; anything further ahead is a made-up scenario, except in
# the console's own journal: read late for a deadline (held up, or a burst read after it), what
# was read together and began before the deadline is judged, all of it, just before it
# (console/shell/deadlines.py `place`), and journalled so, to be replayed so.
MAPPING_SLACK_MS = 20.0

def press_step(value: object, at: int) -> Press:
    """``"press": "mcu:1"``: a press of pad 1 of source ``mcu`` at `at`."""
    if not isinstance(value, str):
        raise ValueError("press must be a string")
    source, sep, _ = value.partition(":")
    if not sep:
        raise ValueError(f"press {value!r} should look like 'mcu:0'")
    return Press(source, value, at)


def link_step(value: object, at: int, up: object) -> SourceLink:
    """``"link": "mcu", "up": false``: source ``mcu`` was lost at `at` (``true``: it is back)."""
    if not isinstance(value, str) or not value:
        raise ValueError("link must be a source's name")
    if not isinstance(up, bool):
        raise ValueError("link needs up: true (the source is back) or false (lost)")
    return SourceLink(value, up, at)


def watermark_step(value: object, at: int, lost_from_ms: object = None) -> Watermark:
    """``"watermark": "mcu"``: source ``mcu`` has reported everything up to `at`; with
    ``"lost_from_ms"``, presses after that time may be missing."""
    if not isinstance(value, str):
        raise ValueError("watermark must be a string")
    if lost_from_ms is None:
        return Watermark(value, at)
    if not time_ms(lost_from_ms):
        raise ValueError("lost_from_ms must be a (finite) number of milliseconds")
    return Watermark(value, at, round(lost_from_ms * NS_PER_MS))


# A time of a line: 10^13 ms is over 300 years of a monotonic clock; more is not a time (and
# 1e308 ms in nanoseconds is an infinity no integer holds).
MAX_MS = 1e13


def time_ms(value: object) -> TypeGuard[int | float]:
    """Whether `value` is a line's time in milliseconds: a finite number within MAX_MS."""
    return finite_number(value) and abs(value) <= MAX_MS


def _ms(obj: dict[str, Any], key: str, where: str) -> int:
    value = obj.get(key)
    if time_ms(value):
        return round(value * NS_PER_MS)
    raise ScenarioError(f"{where}: {key} must be a (finite) number of milliseconds, at most {MAX_MS:g}")
