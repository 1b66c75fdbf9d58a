"""«Брейн-ринг»: the judgement just given taken back at once, mid-question too (issue 19: «undo
of the last judgement at once … journaled with its reason like every correction»), on a
hand-stepped clock: the fight as it stood before the verdict, the team answering again with
its count stopped where its press stopped it (../shared/RULES.md §5: a press stops the count)."""

from __future__ import annotations

from console.engine.corrections import Undo
from tests.brainring_harness import MS, Ring, S


def test_a_mistaken_wrong_is_taken_back_at_once_and_the_team_answers_again() -> None:
    """A «Неверно» keyed by mistake: undone mid-question, the rebound withdrawn, the team
    answers again with its count stopped where its press stopped it (RULES.md §5: the press
    stops the count)."""
    ring = Ring()
    ring.question_read()
    ring.advance(12 * S)
    ring.press("mcu:0")
    ring.advance(20 * MS)
    ring.host("wrong")
    assert ring.last("count_started")["by"] == "rebound"
    ring.advance(2 * S)
    ring.deliver(Undo(reason="нажал не ту кнопку", at=ring.now))
    undone = ring.last("judgement_undone")
    assert (undone["team"], undone["correct"], undone["delta"]) == ("t1", False, 0)
    state = ring.state()
    assert state["phase"] == "answering" and state["question"]["answering"] == "t1"
    assert state["question"]["stopped_remaining_ms"] == 48_000.0 and state["question"]["out"] == []
    ring.host("correct")
    assert ring.scores == {"t1": 1, "t2": 0}
    ring.deliver(Undo(reason="и это", at=ring.now))  # the question's end is undone too
    assert ring.scores == {"t1": 0, "t2": 0} and ring.state()["phase"] == "answering"


def test_an_undo_after_something_else_happened_is_refused() -> None:
    ring = Ring()
    ring.question_read()
    ring.press("mcu:0")
    ring.advance(20 * MS)
    ring.host("wrong")
    ring.advance(1 * S)
    ring.press("mcu:2")  # the other team took the turn in the rebound
    ring.advance(20 * MS)
    assert "undo" not in ring.ref.host_actions(ring.now)
    ring.deliver(Undo(reason="поздно", at=ring.now))
    assert ring.last("error")["details"]["reason"].startswith("отменить можно только что данное решение")
    assert ring.state()["question"]["answering"] == "t2"


def test_an_undone_judgement_and_its_state_fit_the_schemas() -> None:
    from console.schemas import validate

    ring = Ring()
    ring.question_read()
    ring.press("mcu:2")
    ring.advance(20 * MS)
    ring.host("correct")
    states = [ring.state()]
    ring.deliver(Undo(reason="ошибка", at=ring.now))
    states.append(ring.state())
    for seq, event in enumerate(ring.events(), 1):
        validate("brainring_event", {**event, "seq": seq})
    for state in states:
        validate("brainring_state", {**state, "seq": 1, "game": "brainring"})
    assert "undo" in states[0]["host_actions"]
