"""The Belgorod championship's season (seed 003 §5-6): the two stages of the selection, BINGO,
the series and the final's candidate.

Contract: `decide(teams, first_stage, results, slots, settings)` is the season as far as its
games allow: decisions with their clauses, the final rating, the series' order and standings,
what is awaited next. Pure: the same inputs always give the same season.

- The first stage (5.2-5.5) is the sports stage: its places and winners, shoot-outs included,
  come from the jury's sheet (console/engine/sports/sheet.py) or are typed by the organiser.
- The second stage (5.6) is the TV game at the table on the same questions: each team's game
  against the club; a team that wins it won the stage.
- BINGO (5.7): the final rating from the second stage's outcome and the first stage's place.
  The seed puts BINGO's amounts in its §8, which the seed does not have: every amount is a
  setting (`Bingo`): by default 5, 4, 3, 2, 1 for the first stage's places 1-5 (a shared place
  counts as its best) and 3 for a win in the second stage. Equal BINGO: the better first-stage
  place first.
- The series (5.8): the winners of either stage and the last series' finalist. The captains
  choose the order of its games in BINGO order (6.5): each choice is checked (the chooser's
  turn, a free game); the revanche is the series' last game (6.7), the last finalist's. Nine
  teams or more may play it in two independent parts (6.6, a setting).
- The series' standings: a win above a loss, then the bigger margin, then more points; on an
  equal score the team that played later is ahead (6.5.1); the best team is the final's
  candidate (6.5.2), one per part when the series is played in two.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from console.season.model import Decision, GameResult, Team

__all__ = ["BelgorodSeason", "Bingo", "FirstStage", "SlotRefused", "check_slot", "decide",
           "first_stage_from_sheet", "next_chooser"]


@dataclass(frozen=True, slots=True)
class Bingo:
    """BINGO's amounts (003 5.7; §8, which gives them, is not in the seed)."""

    for_place: tuple[int, ...] = (5, 4, 3, 2, 1)  # the first stage's places 1, 2, ...
    for_win: int = 3  # a win in the second stage
    series_parts: int = 0  # 1 or 2 (6.6); 0: two from nine teams on, else one


@dataclass(frozen=True, slots=True)
class FirstStage:
    """The sports stage's outcome: each team's place (its first position: a shared place counts
    as its best) and the winners (5.5)."""

    places: Mapping[str, int]
    winners: tuple[str, ...]


class SlotRefused(Exception):
    """Why a captain's choice of a series game cannot be taken (Russian)."""


@dataclass
class BelgorodSeason:
    decisions: list[Decision] = field(default_factory=list)
    waiting: list[str] = field(default_factory=list)
    bingo: dict[str, int] = field(default_factory=dict)
    rating: list[str] = field(default_factory=list)  # the final rating, best first (5.7)
    entrants: tuple[str, ...] = ()  # the series' teams (5.8)
    order: dict[int, str] = field(default_factory=dict)  # game number -> team (6.5, 6.7)
    series: list[list[str]] = field(default_factory=list)  # each part's standings, best first
    candidates: tuple[str, ...] = ()  # the final's candidate(s) (6.5.2)

    def say(self, step: str, text: str, clause: str, teams: Sequence[str] = ()) -> None:
        self.decisions.append(Decision(step, text, clause, tuple(teams)))


def decide(teams: Sequence[Team], first: FirstStage | None, results: Mapping[str, GameResult],
           slots: Sequence[tuple[str, int]], bingo: Bingo = Bingo(),
           last_finalist: str = "") -> BelgorodSeason:
    season = BelgorodSeason()
    names = {t.id: t.name for t in teams}
    if first is None:
        season.waiting.append("итоги первого этапа: протокол жюри (003 5.2-5.5)")
        return season
    season.say("first_stage", "Победители первого этапа: " + ", ".join(names[t] for t in first.winners),
               "003 5.5", first.winners)
    second = {r.team: r for r in results.values() if r.stage == "second_stage"}
    # The last finalist enters the series by right (5.8): its second-stage game is not awaited.
    missing = [t.id for t in teams if t.id not in second and t.id != last_finalist]
    if missing:
        season.waiting.append("игры второго этапа: " + ", ".join(names[t] for t in missing) + " (003 5.6)")
        return season
    won = tuple(t.id for t in teams if t.id in second and second[t.id].won)
    season.say("second_stage", "Победили во втором этапе: " + (", ".join(names[t] for t in won) or "никто"),
               "003 5.6", won)
    _rating(season, teams, first, second, bingo, names)
    entrants = [t for t in season.rating if t in first.winners or t in won or t == last_finalist]
    season.entrants = tuple(entrants)
    season.say("series", "В серию: " + ", ".join(f"{names[t]} ({season.bingo[t]} БИНГО)" for t in entrants)
               + (f"; финалист прошлой серии — {names[last_finalist]}" if last_finalist in names else ""),
               "003 5.8", entrants)
    season.order = order_of(season, slots, last_finalist)
    games = len(entrants)
    if len(season.order) < games:
        chooser = next_chooser(season, slots, last_finalist)
        season.waiting.append(f"выбор капитанов (003 6.5): выбирает {names[chooser]}" if chooser
                              else "порядок игр серии")
        return season
    parts = _parts(games, bingo)
    shown = ", ".join(f"{n}. {names[t]}" for n, t in sorted(season.order.items()))
    season.say("series_order", f"Порядок игр серии: {shown}"
               + (f"; реванш — последняя игра ({names[last_finalist]})" if last_finalist in entrants else ""),
               "003 6.5, 6.7", [season.order[n] for n in sorted(season.order)])
    played = {r.team: r for r in results.values() if r.stage == "series"}
    missing = [season.order[n] for n in sorted(season.order) if season.order[n] not in played]
    if missing:
        season.waiting.append("игры серии: " + ", ".join(names[t] for t in missing) + " (003 6.1)")
        return season
    slot_of = {t: n for n, t in season.order.items()}
    candidates = []
    for i, part in enumerate(parts):
        ranked = sorted((season.order[n] for n in part), reverse=True,
                        key=lambda t: (played[t].won, played[t].margin, played[t].team_score, slot_of[t]))
        season.series.append(ranked)
        best = ranked[0]
        candidates.append(best)
        level = [t for t in ranked[1:] if played[t].shown == played[best].shown]
        later = (f"; при равном счёте {played[best].shown} впереди игравшая позже (003 6.5.1), "
                 + "позади: " + ", ".join(names[t] for t in level)) if level else ""
        where = f" {i + 1}-го этапа серии (003 6.6)" if len(parts) > 1 else " серии"
        season.say("candidate", f"Лучшая команда{where}: {names[best]} ({played[best].shown}) — "
                   "претендент на финал" + later, "003 6.5.2", [best])
    season.candidates = tuple(candidates)
    return season


def _rating(season: BelgorodSeason, teams: Sequence[Team], first: FirstStage,
            second: Mapping[str, GameResult], bingo: Bingo, names: Mapping[str, str]) -> None:
    for t in teams:
        place = first.places.get(t.id, 0)
        by_place = bingo.for_place[place - 1] if 0 < place <= len(bingo.for_place) else 0
        season.bingo[t.id] = by_place + (bingo.for_win if t.id in second and second[t.id].won else 0)
    season.rating = sorted((t.id for t in teams),
                           key=lambda t: (-season.bingo[t], first.places.get(t, 10**6), t))
    season.say("rating", "Итоговый рейтинг по БИНГО: " + ", ".join(
        f"{names[t]} {season.bingo[t]}" for t in season.rating), "003 5.7", season.rating)


def order_of(season: BelgorodSeason, slots: Sequence[tuple[str, int]], last_finalist: str) -> dict[int, str]:
    """The series' games as chosen so far, the revanche in the last one (6.7)."""
    order = {slot: team for team, slot in slots}
    if last_finalist in season.entrants:
        order[len(season.entrants)] = last_finalist
    return order


def next_chooser(season: BelgorodSeason, slots: Sequence[tuple[str, int]], last_finalist: str) -> str | None:
    """The captain whose turn it is: the most BINGO among those who have not chosen (6.5)."""
    chosen = {team for team, _ in slots} | {last_finalist}
    return next((t for t in season.rating if t in season.entrants and t not in chosen), None)


def check_slot(season: BelgorodSeason, slots: Sequence[tuple[str, int]], team: str, slot: int,
               last_finalist: str, names: Mapping[str, str]) -> None:
    """SlotRefused unless `team` may take game `slot` now (6.5: in BINGO order; 6.7: the last
    game is the revanche's)."""
    if team not in season.entrants:
        raise SlotRefused(f"{names.get(team, team)} не в серии (003 5.8)")
    chooser = next_chooser(season, slots, last_finalist)
    if chooser is None:
        raise SlotRefused("порядок игр серии уже выбран")
    if team != chooser:
        raise SlotRefused(f"сейчас выбирает {names[chooser]}: капитаны выбирают по количеству БИНГО "
                          "(003 6.5)")
    games = len(season.entrants)
    taken = order_of(season, slots, last_finalist)
    if not 1 <= slot <= games:
        raise SlotRefused(f"игр в серии {games}: номер от 1 до {games}")
    if slot in taken:
        why = "реванш — последняя игра серии (003 6.7)" if taken[slot] == last_finalist else "она занята"
        raise SlotRefused(f"игра {slot} уже за командой {names[taken[slot]]}: {why}")


def _parts(games: int, bingo: Bingo) -> list[list[int]]:
    """The series' games by part: one, or two independent ones (6.6: nine teams or more)."""
    parts = bingo.series_parts or (2 if games >= 9 else 1)
    if parts == 1:
        return [list(range(1, games + 1))]
    half = (games + 1) // 2
    return [list(range(1, half + 1)), list(range(half + 1, games + 1))]


def first_stage_from_sheet(jury: Mapping[str, Any], sheet_teams: Mapping[str, Any],
                           teams: Sequence[Team]) -> FirstStage:
    """The first stage from the sports stage's sheet as the console publishes it (its
    ``sheet/jury`` and ``sheet/teams`` parts, console/engine/sports/stage.py), its teams matched
    to the season's by name; ValueError naming what does not fit (a sheet not closed, a team
    the season does not know, a shoot-out not over)."""
    if not jury.get("closed"):
        raise ValueError("протокол первого этапа не закрыт жюри: результаты предварительные")
    if jury.get("next_shootout"):
        raise ValueError("перестрелка первого этапа не окончена (003 5.5)")
    ids = {t.name: t.id for t in teams}
    names = {int(t["team"]): str(t["name"]) for t in sheet_teams.get("teams", [])}
    places: dict[str, int] = {}
    winners: list[str] = []
    for number, _total, shown, _position, winner, _shootout, _tours in jury.get("standings", []):
        name = names.get(int(number), "")
        if name not in ids:
            raise ValueError(f"команды «{name}» (№{number}) нет среди команд сезона")
        places[ids[name]] = int(str(shown).split("–")[0])
        if winner:
            winners.append(ids[name])
    return FirstStage(places, tuple(winners))
