"""The quartet's host actions offer an appeal exactly while one is heard (seed 004 4.1-4.3):
right after a theme, until the next theme's reading starts, the theme's corrections are listed
(so the host's screen enables them) and taken; once its first question is announced they are
not."""

from __future__ import annotations

from console.engine.corrections import AdjustScore, Reverse
from console.engine.model import HostAction
from tests.quartet_harness import Fight


def actions(f: Fight) -> list[str]:
    listed = f.fight.host_snapshot(f.now)["host_actions"]
    assert isinstance(listed, list)
    return [str(a) for a in listed]


def test_an_appeal_is_offered_right_after_a_theme_and_no_later() -> None:
    """4.1: the appeal right after the theme, before the next; 4.3: its decision is final, so
    a reversal is offered once."""
    f = Fight()
    f.cmd("start_round", themes=["А", "Б", "В", "Г"])
    f.assign_all(None)
    assert "reverse" not in actions(f) and "adjust_score" not in actions(f)  # nothing played yet
    f.theme(("t2", None, None, None, ("-t1",)))
    listed = actions(f)
    assert "reverse" in listed and "adjust_score" in listed
    assert "next" not in listed and "new_game" not in listed  # the theme's referee judges no more
    f.deliver(Reverse(reason="дуальный ответ засчитан", at=f.now))
    assert "reverse" not in actions(f) and "adjust_score" in actions(f)
    f.cmd("start_theme")  # the next theme's players sit down; its reading has not started
    assert "reverse" not in actions(f)  # reversed once already (4.3); its own referee judged nothing


def test_an_appeal_is_heard_until_the_next_themes_reading_starts() -> None:
    """4.1: «до начала чтения следующей темы»: the next theme's players may already sit at
    the table; the appeal is refused once its first question is announced."""
    f = Fight()
    f.cmd("start_round", themes=["А", "Б", "В", "Г"])
    f.assign_all(None)
    f.theme(("t2", None, None, None, ("-t1",)))  # t1 wrong on the last question
    f.cmd("start_theme")  # the next theme: seated, nothing read yet
    assert "reverse" in actions(f)
    f.deliver(Reverse(reason="дуальный ответ засчитан", at=f.now))
    corrected = f.events("theme_corrected")
    assert corrected and corrected[-1]["theme"] == 1 and corrected[-1]["scores"]["t1"] == 50
    f.cmd("penalty", team="t1", penalty="warning")  # the new theme is in play meanwhile
    f.host(HostAction.NEXT)  # its reading starts: the appeal is over
    assert "reverse" not in actions(f)
    before = len(f.events("theme_corrected"))
    f.deliver(AdjustScore(player="t2", delta=10, reason="поздно", at=f.now))
    assert len(f.events("theme_corrected")) == before  # no longer the last theme's


def test_an_upheld_appeal_counts_as_the_question_taken_in_every_indicator() -> None:
    """4.1 with 3.10: a dual answer found right on appeal, on any question of the theme, is
    that question taken: the total moves from −10 to +10, and the total without minuses and
    the count by value (which break a tie, 3.10) count it too, as they would a right answer."""
    f = Fight()
    f.cmd("start_round", themes=["А", "Б", "В", "Г"])
    f.assign_all(None)
    f.theme((("-t1", "t2"), None, None, None, None))  # t1 wrong on the 10, t2 right after it
    assert "appeal" in actions(f)
    before = f.fight.tallies()["t1"]
    assert before.total == -10 and before.plus == 0 and before.taken == {}
    refused = f.refusals(f.cmd("appeal", team="t1", question=2, reason="дуальный ответ"))
    assert refused and "не отвечала на вопрос 2" in refused[0]
    f.cmd("appeal", team="t1", question=1, reason="дуальный ответ засчитан жюри")
    corrected = f.events("theme_corrected")[-1]
    assert corrected["scores"]["t1"] == 10 and corrected["reason"] == "дуальный ответ засчитан жюри"
    after = f.fight.tallies()["t1"]
    assert after.total == 10 and after.plus == 10 and after.taken == {10: 1}
    refused = f.refusals(f.cmd("appeal", team="t1", question=1, reason="ещё раз"))
    assert refused and "уже засчитан" in refused[0]
    f.cmd("start_theme")
    f.host(HostAction.NEXT)  # the next theme's reading starts: no appeal now (4.1)
    assert "appeal" not in actions(f)
    refused = f.refusals(f.cmd("appeal", team="t2", question=1, reason="поздно"))
    assert refused and "(4.1)" in refused[0]
