"""One game at the «Что? Где? Когда?» table: the referee's bookkeeping between inputs.

Contract: `Ledger` holds what one game has decided so far (the team at the table, the
sectors, the score, the round in play and the finished rounds, help used, saved minutes, the
hall's answers, the winner) and the checks every action starts with (`require_ready`,
`require_round`, `sector_arg`, `team_named`), which raise `NotAllowed` and change nothing.
`start_count` starts a discussion count and says so. A new game is a new `Ledger`; the
lototron's box, which outlives games, stays with the referee.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from console.engine.chgk.board import SectorTable
from console.engine.chgk.events import RoundRecord, Score, TeamView, TimerStarted
from console.engine.chgk.question_draw import Question
from console.engine.chgk.round import Count, NotAllowed, Phase, RoundInPlay
from console.engine.chgk.rules import ChgkRules, HelpKind, Side
from console.engine.model import NS_PER_S, Cue, Json, Output, PlayCue
from console.engine.refusals import Why, why


@dataclass
class Ledger:
    rules: ChgkRules
    team: str | None
    table: SectorTable
    players: int
    score: dict[Side, int] = field(default_factory=lambda: {Side.TEAM: 0, Side.CLUB: 0})
    phase: Phase = Phase.READY
    round: RoundInPlay | None = None
    rounds: list[RoundRecord] = field(default_factory=list)
    helps_used: set[HelpKind] = field(default_factory=set)
    saved_minutes: int = 0
    fortochka_fell: bool = False  # played, or revealed and passed over in a final round
    decisive: bool = False
    hall: dict[tuple[int, int], list[str]] = field(default_factory=dict)  # (round, part): teams right
    wrong_answers: int = 0
    answer_points: int = 0  # table points won by answers (the fortochka's do not count, 000 4.2 д)
    winner: Side | None = None
    correctable: bool = False  # the last round's verdict may still be corrected (chgk_correct)
    question: Question | None = None  # the 12th sector's question drawn for the last round picked
    # When the game began: its new_game, or for a referee's first game the first input it took.
    # With the table's node it names the game in every version of its record (a season tells a
    # republished game from a new one by it, console/season/service.py).
    started_at_ns: int | None = None

    @classmethod
    def new(cls, rules: ChgkRules, team: str | None) -> Ledger:
        return cls(rules=rules, team=team, table=SectorTable(rules), players=rules.table_players)

    # ------------------------------------------------------------------ the score

    def score_record(self) -> Score:
        return Score(team=self.score[Side.TEAM], club=self.score[Side.CLUB])

    def score_json(self) -> dict[str, Json]:
        return {side.value: points for side, points in self.score.items()}

    def final_round(self) -> bool:
        """A round that may be the last: either side is a point from winning, or the decisive one."""
        return self.decisive or max(self.score.values()) >= self.rules.target - 1

    # ------------------------------------------------------------------ the hall

    def hall_points(self) -> dict[str, int]:
        points = {t.id: 0 for t in self.rules.teams}
        for teams in self.hall.values():
            for team in teams:
                points[team] += 1
        return points

    def drop_hall(self, number: int) -> None:
        """Forget the hall's answers to round `number` (cancelled, or its envelope was the fortochka)."""
        for key in [k for k in self.hall if k[0] == number]:
            del self.hall[key]

    # ------------------------------------------------------------------ the count

    def start_count(self, r: RoundInPlay, at: int, length: int, now: int, out: list[Output]) -> None:
        r.count = Count(started_at=at, deadline=at + length, warn_at=None, fired_at=at)
        r.count.arm_warning(self.rules.warning_before_ns, at)
        self.phase = Phase.DISCUSSION
        out.append(TimerStarted(t_ns=now, round=r.number, part=r.part, parts=r.parts, started_at_ns=at,
                                deadline_ns=r.count.deadline, warning_ns=r.count.warn_at,
                                seconds=length / NS_PER_S))
        out.append(PlayCue(Cue.START))

    # ------------------------------------------------------------------ checks

    def require_ready(self) -> None:
        if self.phase is Phase.GAME_OVER:
            raise NotAllowed(why(Why.GAME_OVER_START_NEW))
        r = self.round
        if r is not None:
            raise NotAllowed(why(Why.ROUND_IN_PLAY, round=r.number, sector=r.sector))

    def require_round(self) -> RoundInPlay:
        if self.phase is Phase.GAME_OVER:
            raise NotAllowed(why(Why.GAME_OVER_START_NEW))
        if self.round is None:
            raise NotAllowed(why(Why.NO_ROUND_IN_PLAY))
        return self.round

    def sector_arg(self, value: int | None, name: str) -> int:
        if value is None:
            raise NotAllowed(why(Why.SECTOR_MISSING, name=name))
        if value not in self.table:
            raise NotAllowed(why(Why.NO_SUCH_SECTOR, sectors=self.rules.sectors, sector=value),
                             field=name, value=value)
        return value

    def team_named(self, team: str) -> None:
        if team not in {t.id for t in self.rules.teams}:
            raise NotAllowed(why(Why.NO_TEAM, team=team), team=team)

    def team_view(self) -> TeamView | None:
        if self.team is None:
            return None
        team = next(t for t in self.rules.teams if t.id == self.team)
        return TeamView(id=team.id, name=team.name, main=team.main)
