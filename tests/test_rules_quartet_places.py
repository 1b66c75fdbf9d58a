"""The places of a fight through every tie-break step (seed 004 3.10-3.11), on the pure ranking."""

from __future__ import annotations

from console.engine.quartet.places import PendingShootout, Shootout, Tally, rank
from console.engine.quartet.rules import Stage

VALUES = (10, 20, 30, 40, 50)


def t(total: int, plus: int | None = None, **taken: int) -> Tally:
    return Tally(total=total, plus=total if plus is None else plus,
                 taken={int(k.removeprefix("v")): n for k, n in taken.items()})


def test_the_higher_total_takes_the_higher_place() -> None:
    """3.10: the team with the greater sum of points places higher."""
    p = rank({"a": t(30), "b": t(90), "c": t(-10), "d": t(0)}, Stage.GROUP, VALUES, (), 1)
    assert p.order == ("b", "a", "d", "c") and p.by == ("total", "total", "total") and p.decided


def test_tied_totals_go_to_the_total_without_minuses() -> None:
    """3.10: first indicator: the sum of points without the minuses."""
    p = rank({"a": t(50, plus=90), "b": t(50, plus=70), "c": t(100), "d": t(0)}, Stage.GROUP, VALUES, (), 1)
    assert p.order == ("c", "a", "b", "d") and p.by == ("total", "plus", "total")


def test_then_the_questions_taken_at_50_then_40_and_down() -> None:
    """3.10: then the number of questions taken at 50, at 40, at 30 and so on."""
    tallies = {
        "a": t(100, v50=1, v30=1, v20=1),  # 50+30+20
        "b": t(100, v40=2, v20=1),  # 40+40+20
        "c": t(100, v40=1, v30=2),  # 40+30+30
        "d": t(100, v50=1, v40=1, v10=1),  # 50+40+10
    }
    p = rank(tallies, Stage.GROUP, VALUES, (), 1)
    assert p.order == ("d", "a", "b", "c")
    assert p.by == ("taken_40", "taken_50", "taken_40")


def test_a_tie_across_the_advancing_place_waits_for_a_shootout() -> None:
    """3.10: if the indicators do not separate teams competing for a place that leads further
    (2nd/3rd of a group: the semi-final), a shoot-out theme is played."""
    tallies = {"a": t(100), "b": t(40), "c": t(40), "d": t(0)}
    p = rank(tallies, Stage.GROUP, VALUES, (), 1)
    assert p.pending == (PendingShootout(teams=("b", "c"), first=2, last=3),) and not p.decided
    p = rank(tallies, Stage.GROUP, VALUES, (Shootout(frozenset({"b", "c"}), {"b": -10, "c": 0}),), 1)
    assert p.order == ("a", "c", "b", "d") and p.by == ("total", "shootout", "total") and p.decided


def test_a_tie_for_third_and_fourth_before_the_final_is_drawn_by_lot() -> None:
    """3.10: 3rd and 4th places at every stage but the final are drawn by lot; the draw is
    seeded, logged with its seed, and the same whenever the places are computed again."""
    tallies = {"a": t(100), "b": t(50), "c": t(0), "d": t(0)}
    first = rank(tallies, Stage.GROUP, VALUES, (), 7)
    assert first.decided and first.by[2] == "lot" and first.order[:2] == ("a", "b")
    (lot,) = first.lots
    assert lot.teams == ("c", "d") and lot.seed == "7:c,d" and lot.order == first.order[2:]
    assert rank(tallies, Stage.GROUP, VALUES, (), 7) == first
    orders = {rank(tallies, Stage.GROUP, VALUES, (), seed).order[2:] for seed in range(1, 40)}
    assert orders == {("c", "d"), ("d", "c")}  # a real draw, not a fixed order


def test_a_tie_for_first_in_a_group_leads_nowhere_and_is_drawn() -> None:
    """3.10: both of the first two go to the semi-finals, so no shoot-out: the lot (the
    regulation names the lot for ties no place depends on)."""
    p = rank({"a": t(60), "b": t(60), "c": t(0), "d": t(-10)}, Stage.GROUP, VALUES, (), 3)
    assert p.decided and p.by[0] == "lot"


def test_three_teams_tied_across_the_advancing_place_then_the_rest_by_lot() -> None:
    """3.10: three teams tied for places 2-4 of a group shoot out; two of them still tied for
    3rd-4th after it need no other shoot-out: they are drawn by lot."""
    tallies = {"a": t(100), "b": t(20), "c": t(20), "d": t(20)}
    p = rank(tallies, Stage.GROUP, VALUES, (), 5)
    assert p.pending == (PendingShootout(teams=("b", "c", "d"), first=2, last=4),)
    so = Shootout(frozenset({"b", "c", "d"}), {"b": 0, "c": 30, "d": 0})
    p = rank(tallies, Stage.GROUP, VALUES, (so,), 5)
    assert p.decided and p.order[:2] == ("a", "c") and p.by == ("total", "shootout", "lot")


def test_in_a_semifinal_both_first_and_second_lead_further() -> None:
    """2.2.3, 3.10: the semi-final's winner goes to the final and its runner-up may as the best
    second: ties across 1st/2nd and 2nd/3rd are shot out, 3rd/4th drawn."""
    p = rank({"a": t(50), "b": t(50), "c": t(10), "d": t(10)}, Stage.SEMIFINAL, VALUES, (), 1)
    assert p.pending == (PendingShootout(teams=("a", "b"), first=1, last=2),)
    assert p.by[2] == "lot"


def test_in_a_consolation_fight_nothing_is_shot_out() -> None:
    """2.2.2, 3.10: a consolation fight leads nowhere: any tie left is drawn."""
    p = rank({"a": t(50), "b": t(50), "c": t(50), "d": t(50)}, Stage.CONSOLATION, VALUES, (), 1)
    assert p.decided and p.by == ("lot", "lot", "lot")


def test_the_final_uses_no_indicators_and_plays_extra_themes_until_decided() -> None:
    """3.11: in the final the indicators do not apply; extra themes are played until the winner
    and the prize-winners are decided, as many as it takes."""
    tallies = {"a": t(50, plus=150, v50=3), "b": t(50, plus=60, v10=1, v50=1), "c": t(0), "d": t(-20)}
    p = rank(tallies, Stage.FINAL, VALUES, (), 1)
    assert p.pending == (PendingShootout(teams=("a", "b"), first=1, last=2),)
    again = Shootout(frozenset({"a", "b"}), {"a": 10, "b": 10})
    p = rank(tallies, Stage.FINAL, VALUES, (again,), 1)
    assert p.pending == (PendingShootout(teams=("a", "b"), first=1, last=2),)
    decided = Shootout(frozenset({"a", "b"}), {"a": 0, "b": 20})
    p = rank(tallies, Stage.FINAL, VALUES, (again, decided), 1)
    assert p.order == ("b", "a", "c", "d") and p.by == ("shootout", "total", "total")


def test_in_the_final_third_and_fourth_are_also_played_for() -> None:
    """3.10-3.11: in the final the 3rd/4th tie is not drawn but played for."""
    p = rank({"a": t(90), "b": t(50), "c": t(0, plus=40), "d": t(0)}, Stage.FINAL, VALUES, (), 1)
    assert p.pending == (PendingShootout(teams=("c", "d"), first=3, last=4),) and p.lots == ()
