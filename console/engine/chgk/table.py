"""The «Что? Где? Когда?» table as one pure engine: the top's angle, the sectors, the referee.

Theory of operation: angle samples go to the spin detector (`spin.py`); when it declares the
top stopped, the sector under the arrow (`sectors.py`) is handed to the referee (`chgk.py`)
as `SectorPicked(source=top)`, which applies the clockwise rule and runs the round. A stop
within the boundary margin is not handed over: the host is asked to confirm the sector
(`sector_unsure`), and answers with the `pick_sector` action, as after a sensor fault.
Host actions and lototron/host picks go to the referee directly.

The same contract as every engine here: `handle_all(inputs, now)`, `on_timer(now)`,
`next_deadline()`, `snapshot(now)`; no I/O, no clock reads, deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from console.engine.chgk.question_draw import QuestionPool
from console.engine.chgk.referee import ChgkReferee
from console.engine.chgk.rules import ChgkAction, ChgkHost, ChgkRules, PickSource, SectorPicked
from console.engine.model import Json, Output
from console.engine.spin.detector import AngleSample, SpinConfig, SpinDetector
from console.engine.spin.events import SectorUnsure, SpinStopped
from console.engine.spin.sectors import SectorMap

TableInput = AngleSample | SectorPicked | ChgkHost


@dataclass(frozen=True)
class TableSetup:
    """Everything the table engine is built from (read from config)."""

    rules: ChgkRules = field(default_factory=ChgkRules)
    sectors: SectorMap = field(default_factory=lambda: SectorMap(12))
    spin: SpinConfig = field(default_factory=SpinConfig)
    started_at_ns: int | None = None  # starts the sensor-silence watchdog
    questions: QuestionPool = field(default_factory=QuestionPool)  # the 12th sector's (000 4.2 г)


@dataclass(frozen=True, slots=True)
class _Unsure:
    """A stop on a boundary, awaiting the host: the sector under the arrow and its neighbour."""

    sector: int
    neighbour: int
    angle_deg: float


class TableGame:
    """See the module docstring."""

    def __init__(self, setup: TableSetup) -> None:
        if setup.sectors.count != setup.rules.sectors:
            raise ValueError(f"the sector map has {setup.sectors.count} sectors but the rules "
                             f"{setup.rules.sectors}")
        self.setup = setup
        self.referee = ChgkReferee(setup.rules, setup.questions)
        self.spin = SpinDetector(setup.spin, sectors=setup.sectors, started_at_ns=setup.started_at_ns)
        self._unsure: _Unsure | None = None

    def handle(self, inp: TableInput, now: int) -> list[Output]:
        return self.handle_all((inp,), now)

    def handle_all(self, inputs: Sequence[TableInput], now: int) -> list[Output]:
        out = self.on_timer(now)
        for inp in inputs:
            if isinstance(inp, AngleSample):
                self._after_spin(self.spin.handle(inp, now), now, out)
            elif isinstance(inp, ChgkHost) and inp.action is ChgkAction.DRAW_LOTOTRON:
                out += self.referee.draw_lototron(now)
            else:
                if isinstance(inp, SectorPicked):
                    self._unsure = None  # the host (or the lototron) settled it
                out += self.referee.handle(inp, now)
        return out

    def on_timer(self, now: int) -> list[Output]:
        out: list[Output] = []
        self._after_spin(self.spin.on_timer(now), now, out)
        out += self.referee.on_timer(now)
        return out

    def next_deadline(self) -> int | None:
        deadlines = [d for d in (self.spin.next_deadline(), self.referee.next_deadline()) if d is not None]
        return min(deadlines) if deadlines else None

    def running_timer(self) -> tuple[str, int] | None:
        return self.referee.running_timer()

    def snapshot(self, now: int) -> dict[str, Json]:
        return {**self.referee.snapshot(now), "top": self._top_view()}

    def host_snapshot(self, now: int) -> dict[str, Json]:
        return {**self.referee.host_snapshot(now), "top": self._top_view()}

    def _top_view(self) -> dict[str, Json]:
        result = self.spin.result
        unsure = self._unsure
        return {
            "phase": self.spin.phase.value,
            "sensor": self.spin.health,
            # Sector widths, so a display that joins late can draw a table of unequal sectors.
            "widths_deg": list[Json](self.setup.sectors.widths),
            "speed_dps": self.spin.speed_dps,
            "last_stop": None if result is None else {
                "angle_deg": result.angle_deg, "sector": result.sector,
                "near_boundary": result.near_boundary, "stopped_at_ns": result.stopped_at_ns},
            "unsure": None if unsure is None else {
                "sector": unsure.sector, "neighbour": unsure.neighbour, "angle_deg": unsure.angle_deg},
        }

    def _after_spin(self, outputs: list[Output], now: int, out: list[Output]) -> None:
        """Pass the spin events on; a clean stop picks its sector, a boundary stop asks the host."""
        out += outputs
        for o in outputs:
            match o:
                # The detector is built with the sector map, so its stops always name a sector.
                case SpinStopped(sector=int() as sector, near_boundary=True, angle_deg=angle):
                    neighbour = self._neighbour(angle, sector, self.setup.sectors.count)
                    self._unsure = _Unsure(sector, neighbour, angle)
                    out.append(SectorUnsure(
                        t_ns=now,
                        angle_deg=angle,
                        candidates=tuple(sorted({sector, neighbour})),
                        message=f"стрелка на границе секторов {sector} и {neighbour}: подтвердите сектор",
                    ))
                case SpinStopped(sector=int() as sector, stopped_at_ns=stopped_at):
                    self._unsure = None
                    out += self.referee.handle(SectorPicked(sector, stopped_at, PickSource.TOP), now)

    def _neighbour(self, angle_deg: float, sector: int, count: int) -> int:
        """The sector on the other side of the nearer boundary."""
        sectors = self.setup.sectors
        start = sectors.boundaries_deg[sector - 1]
        end = sectors.boundaries_deg[sector % count]
        to_start = (angle_deg - start) % 360.0
        to_end = (end - angle_deg) % 360.0
        return sector % count + 1 if to_end < to_start else (sector - 2) % count + 1
