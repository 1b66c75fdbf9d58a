"""The «Что? Где? Когда?» table's config sections: ``[table]``, ``[spin]`` and ``[[teams]]``.

Contract: `SECTIONS` gives console.games each section's parser, `CHOICES` the allowed values
of its keys; the table's kind (kind.py) reads them with ``config.section(TableSection)``. Each
key is checked as every key is (console/config.py: type, range, unknown keys); what the rules
make of them is kind.py's `table_setup`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from console.config import SectionParser, parse_array, parse_section

__all__ = ["CHOICES", "SECTIONS", "SpinSection", "TableSection", "TableTeams", "TeamSection"]


@dataclass(frozen=True)
class TableSection:
    """The «Что? Где? Когда?» table (game.kind = "chgk")."""

    SECTION: ClassVar[str] = "table"
    MAY_BE_NEGATIVE: ClassVar[frozenset[str]] = frozenset({"zero_offset_deg"})

    rules: str = "tto"  # "tto" (seed 000: 12 sectors) or "belgorod" (seed 003: 13 sectors)
    sectors: int = 0  # 0: as the rules say
    widths_deg: tuple[float, ...] = ()  # one per sector, clockwise from sector 1; () = equal
    zero_offset_deg: float = 0.0  # sensor angle at the boundary before sector 1 (calibrate)
    clockwise_increases: bool = True  # the sensor's raw angle grows when the arrow turns clockwise
    boundary_margin_deg: float = 2.0  # a stop this close to a boundary is confirmed by the host
    stage: str = "qualifier"  # qualifier (to 6), semifinal (to 7), final (to 8)
    blitz: tuple[int, ...] = ()  # special sectors, by number
    superblitz: tuple[int, ...] = ()
    duplet: tuple[int, ...] = ()
    zeitnot: tuple[int, ...] = ()
    sector13: tuple[int, ...] = ()
    sector12: tuple[int, ...] = ()
    fortochka: int = 0  # the hidden sector (0: none); published only on the host topic
    team: str = ""  # the team at the table ("" = drawn by the lototron or set by the host)
    question_file: str = ""  # the 12th sector's questions (db.chgk.info text format)
    record_dir: str = ""  # where each game's record is kept ("" = not kept)
    seed: int = 0  # lototron and question draws (0: fresh, logged)
    angle_source: str = ""  # the [sources.NAME] that reads the top ("" = the only MCU source)


@dataclass(frozen=True)
class SpinSection:
    """The top's stop detector (see console/engine/spin/detector.py for what each does)."""

    SECTION: ClassVar[str] = "spin"

    min_rotation_deg: float = 360.0
    start_speed_dps: float = 90.0
    stop_speed_dps: float = 30.0
    still_window_deg: float = 1.5
    hold_ms: float = 200.0
    live_rate_hz: float = 20.0
    nudge_deg: float = 3.0
    silence_ms: float = 500.0
    # The detector needs no more: a faster stream (an AS5600 read at 1 kHz) is thinned to
    # this, which keeps the daemon's CPU low on a Pi; 0 keeps every sample.
    max_rate_hz: float = 250.0


@dataclass(frozen=True)
class TeamSection:
    id: str
    name: str
    main: bool = True  # in the main tournament (consolation standings, 000 1.7)


@dataclass(frozen=True)
class TableTeams:
    """The teams of the table's game (``[[teams]]``; the tournament's service reads them too)."""

    SECTION: ClassVar[str] = "teams"

    teams: tuple[TeamSection, ...] = ()


CHOICES = {"table.rules": ("tto", "belgorod"), "table.stage": ("qualifier", "semifinal", "final")}


def _teams(data: Mapping[str, Any], source: str) -> TableTeams:
    return TableTeams(tuple(parse_section(TeamSection, t, f"teams[{i}]", source)
                            for i, t in enumerate(parse_array(data, "teams", source), 1)))


SECTIONS: dict[str, SectionParser] = {
    "table": lambda data, source: parse_section(TableSection, data.get("table", {}), "table", source,
                                                CHOICES),
    "spin": lambda data, source: parse_section(SpinSection, data.get("spin", {}), "spin", source),
    "teams": _teams,
}
