"""The quartet's host actions offer an appeal exactly while one is heard (seed 004 4.1-4.3):
right after a theme, until the next one starts, the theme's corrections are listed (so the host's
screen enables them); once the next theme has started they are not."""

from __future__ import annotations

from console.engine.svoya.corrections import Reverse
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
    f.cmd("start_theme")  # the next theme: too late for an appeal on the last one (4.1)
    assert "reverse" not in actions(f)  # its own referee has judged nothing yet
