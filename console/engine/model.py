"""Inputs and outputs of the rules engines.

Inputs are past-tense facts stamped with the time they happened at their source (host
monotonic nanoseconds, the one timebase of the console). Outputs are imperatives the
runtime carries out. Both are plain frozen records so that a scenario can be replayed and
the same inputs always give the same outputs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TypeAlias

from console.engine.events import Event
from firmware_proto import ANGLE_STATUS_MASK, RAW_PER_TURN, AngleStatus

NS_PER_MS = 1_000_000
NS_PER_S = 1_000_000_000

# JSON-shaped data: what a snapshot (the retained state topic) is made of.
Json: TypeAlias = "bool | int | float | str | list[Json] | dict[str, Json] | None"


class HostAction(StrEnum):
    """What the host can do, from the pedal, the keys or the tablet."""

    NEXT = "next"  # announce the next question's value (signals count from here)
    READING_FINISHED = "reading_finished"
    NAME = "name"  # name the answerer: starts the 3-s answer clock (004 App.5, App.7)
    SHORT_FORM = "short_form"  # the short form of an interrupted question was given (App.6-7)
    ANSWER_STARTED = "answer_started"  # the answerer began to answer in time
    CORRECT = "correct"
    WRONG = "wrong"
    RESET = "reset"  # reset the system after a wrong answer (App.8-9)
    CANCEL = "cancel"  # withdraw the current question, no score change
    NEW_GAME = "new_game"  # scores to zero, back to the first theme
    END_QUESTION = "end_question"  # a button source is lost: decide the question without it
    END_GAME = "end_game"  # end the fight now, between questions (its winner by the scores)
    SKIP_THEME = "skip_theme"  # between questions: the rest of the theme is not played
    NEXT_FIGHT = "next_fight"  # a new fight, scores to zero, from the pack's next theme on


@dataclass(frozen=True, slots=True)
class Press:
    """A player's button went down at `at` (source time) on `pad` of `source`."""

    source: str
    pad: str
    at: int


@dataclass(frozen=True, slots=True)
class Watermark:
    """`source` has delivered every input that happened at or before `up_to`; with
    `lost_from`, inputs after that time may be missing or placed at their arrival (frames lost
    on the line, a clock that could not be trusted): decisions over that span are not sure."""

    source: str
    up_to: int
    lost_from: int | None = None


@dataclass(frozen=True, slots=True)
class Host:
    """The host did `action` at `at`."""

    action: HostAction
    at: int


@dataclass(frozen=True, slots=True)
class SourceLink:
    """Input source `source` was lost at `at` (unplugged, gone silent: `up` False), or is back
    (`up` True). What it stamped meanwhile may still come when it is back."""

    source: str
    up: bool
    at: int


Input = Press | Watermark | Host
# The field holding an input's time at its source, by the names every engine's inputs use.
STAMP_FIELDS = ("at", "up_to", "at_ns")


def input_stamp(inp: object) -> int | None:
    """When `inp` happened at its source (host ns), or None for an input that names no time."""
    for name in STAMP_FIELDS:
        value = getattr(inp, name, None)
        if isinstance(value, int):
            return value
    return None

# The angle sensor's status bits (AS5600 STATUS), as on the wire: the protocol owns them.
STATUS_MAGNET_DETECTED = int(AngleStatus.MAGNET_DETECTED)


@dataclass(frozen=True, slots=True)
class AngleSample:
    """The top's angle sensor read ``raw`` (0..4095 per turn) with ``status`` (bits as on the
    wire) at ``at_ns`` (host monotonic ns, e.g. an MCU stamp mapped by clock sync)."""

    at_ns: int
    raw: int
    status: int = STATUS_MAGNET_DETECTED

    def __post_init__(self) -> None:
        if not 0 <= self.raw < RAW_PER_TURN:
            raise ValueError(f"raw must be 0..{RAW_PER_TURN - 1}, got {self.raw}")
        if self.status & ~ANGLE_STATUS_MASK:
            raise ValueError(f"status must use only bits 0..2, got {self.status:#04x}")


class LampMode(StrEnum):
    OFF = "off"
    ON = "on"
    BLINK = "blink"


class Cue(StrEnum):
    """The sound cues an engine asks for (console/shell/sound.py plays each as its tone)."""

    SIGNAL = "signal"  # a buzzer signal was accepted: short bright beep, ~150 ms
    TIME_UP = "time_up"  # time is up: lower, longer tone, ~600 ms
    WARNING = "warning"  # "10 seconds left": short double beep
    START = "start"  # timer started: short rising blip
    FINAL_BEEPS = "final_beeps"  # the count is about to end: three short beeps («Брейн-ринг»)
    FALSE_START = "false_start"  # a press before «Время!»: a low falling buzz («Брейн-ринг»)


@dataclass(frozen=True, slots=True)
class SetLamps:
    """Set every pad's lamp; pads not listed are off."""

    lamps: dict[str, LampMode] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PlayCue:
    cue: Cue


# An engine's event is published (the same JSON goes to MQTT, the journal and replay output).
Output = Event | SetLamps | PlayCue


def ns_to_ms(ns: int) -> float:
    """Nanoseconds to milliseconds, rounded to the microsecond for display."""
    return round(ns / NS_PER_MS, 3)
