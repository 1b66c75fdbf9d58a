"""What a season's rules decide and what they read: shared by «Что? То? Там?» (seed 000) and the
Belgorod championship (seed 003).

Contract: a `GameResult` is one game as it was played at the central table (from a console's
`game_record`, docs/mqtt-table.md, or typed by the organiser for a game played without one):
its stage, the team at the table, the score against the club, the tie-break indicators of
000 1.6.1 and each team's consolation points of that game (000 1.7). A `Decision` is one step
the rules took: what it says in Russian, the clause it applies, the teams it names. `Ruling`
is the organiser's own decision where the seed leaves a tie open (recorded, with its reason).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["INDICATORS", "Decision", "GameResult", "Ruling", "Team"]

# 000 1.6.1 а-д, in the order of their weight: won superblitz, won «цейтнот», won «дуплиц»,
# won the 12th sector (each true beats false), and help and hints not used (more is better).
INDICATORS = ("won_superblitz", "won_zeitnot", "won_duplet", "won_sector12", "unused_help")
INDICATOR_NAMES = {"won_superblitz": "выигранный суперблиц (000 1.6.1 а)",
                   "won_zeitnot": "выигранный «цейтнот» (000 1.6.1 б)",
                   "won_duplet": "выигранный «дуплиц» (000 1.6.1 в)",
                   "won_sector12": "выигранный 12-й сектор (000 1.6.1 г)",
                   "unused_help": "неиспользованные помощь и подсказки (000 1.6.1 д)"}


@dataclass(frozen=True, slots=True)
class Team:
    id: str
    name: str
    registered: bool = True  # 000 1.3 (a main-tournament team); False: plays game days only (1.4)
    players: int = 6
    town: str = ""


@dataclass(frozen=True, slots=True)
class GameResult:
    game: str  # its key in the season: "<stage>:<team>" (one game per team and stage)
    stage: str  # 000: qualifier, semifinal, final, vprisyadku; 003: second_stage, series
    team: str  # the team at the table
    team_score: int
    club_score: int
    indicators: Mapping[str, int] = field(default_factory=dict)
    # team -> its "hall", "table", "wrong" and "points" in this game (000 1.7)
    consolation: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    day: int = 0  # the game day (000 1.2), 0: not said
    order: int = 0  # its place in the order the games were played (003 6.5.1)
    source: str = ""  # the console's node, or "hand"
    # The table game it is: "<node>@<started_at_ns>" from its record (docs/mqtt-table.md), the same
    # in every version of it; "" when typed by hand or from a console too old to say.
    played: str = ""
    # 000's finals: "main" or "consolation", which final it was when it came (both are stage
    # "final"): a later correction that changes the pairing is put to the organiser, not swapped.
    final_of: str = ""

    @property
    def won(self) -> bool:
        return self.team_score > self.club_score

    @property
    def margin(self) -> int:
        return self.team_score - self.club_score

    @property
    def shown(self) -> str:
        return f"{self.team_score}:{self.club_score}"

    def document(self) -> dict[str, Any]:
        return {"game": self.game, "stage": self.stage, "team": self.team,
                "score": [self.team_score, self.club_score],
                "indicators": dict(self.indicators),
                "consolation": {t: dict(c) for t, c in self.consolation.items()},
                "day": self.day, "order": self.order, "source": self.source,
                **({"played": self.played} if self.played else {}),
                **({"final_of": self.final_of} if self.final_of else {})}

    @classmethod
    def from_document(cls, doc: Mapping[str, Any]) -> GameResult:
        team_score, club_score = doc["score"]
        return cls(str(doc["game"]), str(doc["stage"]), str(doc["team"]), int(team_score), int(club_score),
                   {str(k): int(v) for k, v in doc.get("indicators", {}).items()},
                   {str(t): {str(k): int(v) for k, v in c.items()}
                    for t, c in doc.get("consolation", {}).items()},
                   int(doc.get("day", 0)), int(doc.get("order", 0)), str(doc.get("source", "")),
                   str(doc.get("played", "")), str(doc.get("final_of", "")))

    def same_result(self, other: GameResult) -> bool:
        """The same game's result again (a repeat), whatever brought it (which table game and
        which final it is name the game, not its result)."""
        mine, theirs = self.document(), other.document()
        for doc in (mine, theirs):
            for key in ("source", "order", "played", "final_of"):
                doc.pop(key, None)
        return mine == theirs


@dataclass(frozen=True, slots=True)
class Decision:
    step: str  # a key: "main_final", "consolation_final", "semifinal", ...
    text: str  # in Russian, for the organiser's page
    clause: str  # the seed's clause it applies ("000 1.6.1 б")
    teams: tuple[str, ...] = ()
    final: bool = True  # False: it may still change (games to come)


@dataclass(frozen=True, slots=True)
class Ruling:
    step: str
    teams: tuple[str, ...]
    why: str
