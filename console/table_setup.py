"""The «Что? Где? Когда?» table's engine parameters, built from the validated config.

Contract: `table_setup(config)` returns the `TableSetup` the table engine is built from, or
raises `ConfigError` naming the file, the key and the problem (a special sector that does not
exist, two specials on one sector, widths that do not sum to 360°, ...).
"""

from __future__ import annotations

from console.config import Config, ConfigError
from console.engine.chgk_rules import ChgkRules, SectorKind, Stage, Team
from console.engine.model import NS_PER_MS
from console.engine.sectors import SectorMap
from console.engine.spin import SpinConfig
from console.engine.table import TableSetup

SPECIAL_KEYS = {
    "blitz": SectorKind.BLITZ,
    "superblitz": SectorKind.SUPERBLITZ,
    "duplet": SectorKind.DUPLET,
    "zeitnot": SectorKind.ZEITNOT,
    "sector13": SectorKind.SECTOR13,
    "sector12": SectorKind.SECTOR12,
}


def table_setup(config: Config, seed: int | None = None, started_at_ns: int | None = None) -> TableSetup:
    t = config.table
    src = config.source
    special: dict[int, SectorKind] = {}
    for key, kind in SPECIAL_KEYS.items():
        for sector in getattr(t, key):
            if sector in special:
                raise ConfigError(src, f"table.{key}", f"sector {sector} is already {special[sector].value}")
            special[sector] = kind
    teams = tuple(Team(team.id, team.name, team.main) for team in config.teams)
    overrides: dict[str, object] = {
        "special": special,
        "fortochka_sector": t.fortochka or None,
        "stage": Stage(t.stage),
        "teams": teams,
        "seed": t.seed if seed is None else seed,
    }
    if t.sectors:
        overrides["sectors"] = t.sectors
    if t.team:
        overrides["table_team"] = t.team
    try:
        rules = ChgkRules.belgorod(**overrides) if t.rules == "belgorod" else ChgkRules.tto(**overrides)
    except ValueError as exc:
        raise ConfigError(src, "table", str(exc)) from exc
    try:
        sectors = SectorMap(rules.sectors, t.widths_deg or None, t.zero_offset_deg, t.clockwise_increases)
    except ValueError as exc:
        raise ConfigError(src, "table.widths_deg", str(exc)) from exc
    s = config.spin
    try:
        spin = SpinConfig(
            min_rotation_deg=s.min_rotation_deg,
            start_speed_dps=s.start_speed_dps,
            stop_speed_dps=s.stop_speed_dps,
            still_window_deg=s.still_window_deg,
            hold_ns=int(s.hold_ms * NS_PER_MS),
            live_rate_hz=s.live_rate_hz,
            nudge_deg=s.nudge_deg,
            silence_ns=int(s.silence_ms * NS_PER_MS) or None,
            boundary_margin_deg=t.boundary_margin_deg,
        )
    except ValueError as exc:
        raise ConfigError(src, "spin", str(exc)) from exc
    return TableSetup(rules=rules, sectors=sectors, spin=spin, started_at_ns=started_at_ns)
