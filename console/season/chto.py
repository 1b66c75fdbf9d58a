"""The «Что? То? Там?» season (seed 000 §1, §7): who reaches which final, third place and the titles.

Contract: `decide(teams, results, rulings)` is the season as far as its games allow: each
`Decision` with its clause, the teams' table, and the next step (what is awaited). Pure: the
same teams and results always give the same season.

The rules, in order:
- Registered teams (1.3) play one qualifier each at the central table, to 6; game days hold two
  games, one when the number of teams is odd (1.2, 1.2.1). Teams that did not register play
  game days in the hall (1.4) and count for the consolation final (1.5).
- More than 6 registered teams (1.1.1): two semi-finals to 7, entered by the two qualifiers won
  by the biggest margin (or lost by the smallest); 1.6 and 1.7 then read «semi-final» for
  «qualifier», and the consolation points of the qualifiers and the semi-finals are summed.
- The main final (1.6): the team that won its game by the biggest margin, or lost by the
  smallest; a tie is settled by the indicators in their order (1.6.1 а-д: won superblitz, won
  «цейтнот», won «дуплиц», won the 12th sector, unused help and hints); teams equal on all of
  them all go and play one game together to 6, «вприсядку» (1.6.1 е), whose winner is the
  finalist (its result typed by the organiser: a `vprisyadku` game).
- The consolation final (1.7): the most consolation points (each game's record counts them:
  table points ×2 and −1 per wrong answer for the team at the table, 1.7.1; hall and table
  summed, 1.7.2) among the teams that did not reach the main final (1.7.3: the next one when
  the main finalist leads).
- Third place (1.8, 7.1): among the hall's teams of the final evening, only the two finals'
  points count. Titles (7.2, 7.3): the consolation finalist is the silver medallist, with the
  small cup and the sponsor's prize for a win 8:X with X < 8; the main finalist the champion,
  with the big cup and the prize for such a win.

Where the seed leaves a tie open (two teams level for a semi-final place on everything, for
the consolation final, for third place) the season waits for the organiser's `Ruling`, which
names its teams and its reason.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from console.season.model import INDICATOR_NAMES, INDICATORS, Decision, GameResult, Ruling, Team
from console.texts import counted

__all__ = ["ChtoSeason", "decide", "game_days"]

FINAL_NAMES = {"main": "основной финал", "consolation": "утешительный финал"}
SEMIFINALS_ABOVE = 6  # 1.1.1: more registered teams than this play semi-finals
SEMIFINALISTS = 2  # two semi-final games


@dataclass
class ChtoSeason:
    decisions: list[Decision] = field(default_factory=list)
    waiting: list[str] = field(default_factory=list)  # what the next step awaits, in Russian
    consolation: dict[str, int] = field(default_factory=dict)  # team -> points before the finals
    main_finalist: str | None = None
    consolation_finalist: str | None = None
    semifinalists: tuple[str, ...] = ()
    vprisyadku: tuple[str, ...] = ()
    third_place: str | None = None
    ruled: set[str] = field(default_factory=set)  # the steps an organiser's ruling settled

    def say(self, step: str, text: str, clause: str, teams: Sequence[str] = ()) -> None:
        self.decisions.append(Decision(step, text, clause, tuple(teams)))


def game_days(teams: Sequence[Team]) -> list[list[str]]:
    """The qualifiers by game day: two a day in the registration order, the last day's one
    game when their number is odd (1.2, 1.2.1)."""
    registered = [t.id for t in teams if t.registered]
    return [registered[i:i + 2] for i in range(0, len(registered), 2)]


def decide(teams: Sequence[Team], results: Mapping[str, GameResult],
           rulings: Mapping[str, Ruling]) -> ChtoSeason:
    season = ChtoSeason()
    names = {t.id: t.name for t in teams}
    registered = [t.id for t in teams if t.registered]
    played = {stage: {r.team: r for r in results.values() if r.stage == stage}
              for stage in ("qualifier", "semifinal", "final", "vprisyadku")}
    qualifiers = played["qualifier"]
    missing = [t for t in registered if t not in qualifiers]
    phase = "qualifier"
    season.consolation = _consolation(results.values(), ("qualifier", "semifinal"))
    if missing:
        season.waiting.append("отборочные игры: " + ", ".join(names[t] for t in missing) + " (000 1.2)")
        return season
    if len(registered) > SEMIFINALS_ABOVE:
        chosen = _semifinalists(season, [qualifiers[t] for t in registered], names, rulings)
        if chosen is None:
            return season
        season.semifinalists = chosen
        missing = [t for t in chosen if t not in played["semifinal"]]
        if missing:
            season.waiting.append("полуфиналы: " + ", ".join(names[t] for t in missing) + " (000 1.1.1)")
            return season
        phase = "semifinal"
    deciding = [played[phase][t] for t in (season.semifinalists or registered)]
    if not _main_final(season, deciding, played["vprisyadku"], names, phase):
        return season
    assert season.main_finalist is not None
    if not _consolation_final(season, names, rulings):
        return season
    assert season.consolation_finalist is not None
    pairs = ((season.main_finalist, "main"), (season.consolation_finalist, "consolation"))
    # Each final was counted as the one its team was in when it came (`GameResult.final_of`): a
    # result corrected since that changes the pairing does not swap the titles unnoticed.
    now_in = {team: want for team, want in pairs}
    moved = [f"{names[f.team]} сыграла {FINAL_NAMES[f.final_of]}, а по нынешним результатам выходит в "
             f"{FINAL_NAMES[now_in[f.team]]}" for f in played["final"].values()
             if f.final_of and f.team in now_in and now_in[f.team] != f.final_of]
    # A final played by a team today's results take out of the finals is not counted; said
    # while the finals wait, so the organiser knows why.
    out = [f"{names[f.team]} сыграла {FINAL_NAMES[f.final_of]}, но по нынешним результатам в финалы не "
           "выходит" for f in played["final"].values() if f.final_of and f.team not in now_in]
    if moved:
        season.waiting.append("решение оргкомитета: финалы сыграны по прежним результатам — "
                              + "; ".join(moved) + " (000 1.6, 1.7). Исправьте результат, изменивший "
                              "пары, или введите результаты финалов вручную: они будут засчитаны по "
                              "нынешним парам")
        return season
    main, consolation = (played["final"].get(team) for team, _ in pairs)
    if main is None or consolation is None:
        season.waiting.append("финалы: " + ", ".join(
            names[t] for t, f in zip((season.main_finalist, season.consolation_finalist), (main, consolation),
                                     strict=True) if f is None) + " (000 3.8: до 8 очков)"
            + "".join(f"; {x} (000 1.6, 1.7)" for x in out))
        return season
    _third_place(season, [main, consolation], names, rulings)
    _titles(season, main, consolation, names)
    return season


def points_ru(n: int) -> str:
    """«1 балл», «2 балла», «24 балла», «5 баллов»."""
    return counted(n, "балл", "балла", "баллов")


def _key(r: GameResult) -> tuple[int, ...]:
    return (r.margin, *(int(r.indicators.get(i, 0)) for i in INDICATORS))


def _semifinalists(season: ChtoSeason, games: list[GameResult], names: Mapping[str, str],
                   rulings: Mapping[str, Ruling]) -> tuple[str, ...] | None:
    # 1.1.1 enters the semi-finals by the score alone (1.6.1's indicators are the final's): a
    # tie across the cut waits for the organiser's ruling.
    ranked = sorted(games, key=lambda r: r.margin, reverse=True)
    cut = ranked[SEMIFINALISTS - 1].margin
    sure = [r.team for r in ranked if r.margin > cut]
    level = [r.team for r in ranked if r.margin == cut]
    if len(sure) + len(level) == SEMIFINALISTS:
        chosen = tuple(sure + level)
        shown = ", ".join(f"{names[t]} ({_score(games, t)})" for t in chosen)
        season.say("semifinal", f"В полуфиналы: {shown} — наибольший перевес в отборочной игре", "000 1.1.1",
                   chosen)
        return chosen
    ruling = rulings.get("semifinal")
    if ruling is None or set(ruling.teams) - set(level) or len(sure) + len(ruling.teams) != SEMIFINALISTS:
        level_names = ", ".join(names[t] for t in level)
        season.waiting.append(f"решение оргкомитета: за {SEMIFINALISTS - len(sure)} мест(а) в полуфиналах "
                              f"равны по счёту отборочной игры {level_names} (000 1.1.1: в полуфиналы — "
                              "по перевесу)")
        return None
    chosen = (*sure, *ruling.teams)
    season.ruled.add("semifinal")
    season.say("semifinal", "В полуфиналы: " + ", ".join(names[t] for t in chosen)
               + f"; из равных — по решению оргкомитета: {ruling.why}", "000 1.1.1", chosen)
    return chosen


def _main_final(season: ChtoSeason, games: list[GameResult], vprisyadku: Mapping[str, GameResult],
                names: Mapping[str, str], phase: str) -> bool:
    word = "полуфинальной" if phase == "semifinal" else "отборочной"
    best = max(r.margin for r in games)
    group = [r for r in games if r.margin == best]
    how = (f"победа в {word} игре с наибольшим перевесом" if best > 0
           else f"поражение в {word} игре с наименьшим перевесом")
    for indicator in INDICATORS:
        if len(group) == 1:
            break
        top = max(int(r.indicators.get(indicator, 0)) for r in group)
        narrowed = [r for r in group if int(r.indicators.get(indicator, 0)) == top]
        if len(narrowed) < len(group):
            level_names = ", ".join(names[r.team] for r in group)
            kept = ", ".join(names[r.team] for r in narrowed)
            season.say("main_final_tie", f"Равный счёт у {level_names}; решает {INDICATOR_NAMES[indicator]}: "
                       f"остаются {kept}", "000 1.6.1", [r.team for r in group])
            group = narrowed
    if len(group) == 1:
        team = group[0].team
        season.main_finalist = team
        season.say("main_final", f"В основной финал: {names[team]} ({group[0].shown}) — {how}", "000 1.6",
                   [team])
        return True
    tied = tuple(r.team for r in group)
    season.vprisyadku = tied
    # Its winner is the team that took the 6th point: one winning result, typed for it.
    winners = [t for t in tied if t in vprisyadku and vprisyadku[t].won and vprisyadku[t].team_score >= 6]
    if len(winners) > 1:
        season.waiting.append("игра вприсядку: победитель один — исправьте результат (000 1.6.1 е)")
        return False
    if not winners:
        season.say("vprisyadku", "Равны по счёту и всем показателям: " + ", ".join(names[t] for t in tied)
                   + " — все проходят в финал и играют одну игру вприсядку до 6 очков", "000 1.6.1 е", tied)
        season.waiting.append("игра вприсядку: " + ", ".join(names[t] for t in tied) + " (000 1.6.1 е)")
        return False
    team = winners[0]
    season.main_finalist = team
    season.say("main_final", f"В основной финал: {names[team]} — набрала победное 6-е очко в игре вприсядку "
               "(" + ", ".join(names[t] for t in tied) + ")", "000 1.6.1 е", [team])
    return True


def _consolation_final(season: ChtoSeason, names: Mapping[str, str], rulings: Mapping[str, Ruling]) -> bool:
    points = season.consolation
    others = {t: p for t, p in points.items() if t != season.main_finalist and t in names}
    if not others:
        season.waiting.append("баллы утешительного зачёта (000 1.7)")
        return False
    best = max(others.values())
    leaders = sorted(t for t, p in others.items() if p == best)
    ahead = points.get(season.main_finalist or "", -1) >= best
    if len(leaders) > 1:
        ruling = rulings.get("consolation_final")
        if ruling is None or len(ruling.teams) != 1 or ruling.teams[0] not in leaders:
            level_names = ", ".join(names[t] for t in leaders)
            season.waiting.append(f"решение оргкомитета: равны в утешительном зачёте {level_names} "
                                  f"({points_ru(best)}; 000 1.7)")
            return False
        season.consolation_finalist = ruling.teams[0]
        season.ruled.add("consolation_final")
        season.say("consolation_final", f"В утешительный финал: {names[ruling.teams[0]]} "
                   f"({points_ru(best)}); из равных — по решению оргкомитета: {ruling.why}", "000 1.7",
                   ruling.teams)
        return True
    team = leaders[0]
    season.consolation_finalist = team
    clause = "000 1.7.3" if ahead else "000 1.7"
    why = f" — следующая за {names[season.main_finalist or '']}, прошедшей в основной финал" if ahead else ""
    season.say("consolation_final", f"В утешительный финал: {names[team]} ({points_ru(best)} утешительного "
               f"зачёта){why}", clause, [team])
    return True


def _third_place(season: ChtoSeason, finals: list[GameResult], names: Mapping[str, str],
                 rulings: Mapping[str, Ruling]) -> None:
    at_table = {f.team for f in finals}
    points = _consolation(finals, ("final",), hall_only=True)
    hall = {t: p for t, p in points.items() if t not in at_table and t in names}
    if not hall:
        season.waiting.append("баллы команд в зале на финалах (000 1.8)")
        return
    best = max(hall.values())
    leaders = sorted(t for t, p in hall.items() if p == best)
    ruled = ""
    if len(leaders) > 1:
        ruling = rulings.get("third_place")
        if ruling is None or len(ruling.teams) != 1 or ruling.teams[0] not in leaders:
            level_names = ", ".join(names[t] for t in leaders)
            season.waiting.append(f"решение оргкомитета: равны за 3 место {level_names} "
                                  f"({points_ru(best)} за два финала; 000 1.8)")
            return
        leaders = list(ruling.teams)
        season.ruled.add("third_place")
        ruled = f"; из равных — по решению оргкомитета: {ruling.why}"
    season.third_place = leaders[0]
    season.say("third_place", f"3 место, Бронзовый кубок и приз от Спонсора: {names[leaders[0]]} — "
               f"{points_ru(best)} за два финала (прежние результаты обнулены){ruled}", "000 1.8, 7.1",
               leaders[:1])


def _titles(season: ChtoSeason, main: GameResult, consolation: GameResult, names: Mapping[str, str]) -> None:
    def clean_win(r: GameResult) -> bool:  # 8:X with X < 8
        return r.team_score == 8 and r.club_score < 8

    if clean_win(consolation):
        season.say("silver", f"Серебряный призёр, Малый кубок победителя и приз от Спонсора (2 место): "
                   f"{names[consolation.team]} — победа {consolation.shown}", "000 7.2", [consolation.team])
    else:
        season.say("silver", f"Звание Серебряного призёра с дипломом: {names[consolation.team]} "
                   f"(утешительный финал {consolation.shown})", "000 7.2.1", [consolation.team])
    if clean_win(main):
        season.say("champion", f"Чемпион: {names[main.team]} — победа {main.shown}; Большой кубок "
                   "победителя, диплом и приз от Спонсора (1 место)", "000 7.3", [main.team])
    else:
        season.say("champion", f"Звание Чемпиона с дипломом: {names[main.team]} "
                   f"(основной финал {main.shown})", "000 7.3.1", [main.team])


def _consolation(games: Iterable[GameResult], stages: Sequence[str],
                 hall_only: bool = False) -> dict[str, int]:
    """Each team's consolation points summed over the games of `stages` (1.1.1, 1.7.2); with
    `hall_only` the hall's points only (1.8: the finals' hall teams)."""
    total: dict[str, int] = {}
    for game in games:
        if game.stage not in stages:
            continue
        for team, c in game.consolation.items():
            total[team] = total.get(team, 0) + int(c.get("hall", 0) if hall_only else c.get("points", 0))
    return total


def _score(games: Sequence[GameResult], team: str) -> str:
    return next(r.shown for r in games if r.team == team)
