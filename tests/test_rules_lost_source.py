"""A button source lost while signals count never burns the question (issue 15, §2). The
regulation knows no unplugged box (the organisers decide what it does not cover, 004 IV 4.4);
what holds is its rule that signals count until 7 s after the reading (004 App.4) and the
first one answers (App.5), judged by when each press happened: so the window waits for the
box, its presses of the meantime are judged when it is back, and a decision over the span it
was away names it (``inputs_lost``) for the host to keep or withdraw."""

from __future__ import annotations

from console.engine.model import HostAction, Press, SourceLink, Watermark
from tests.engine_harness import MCU, MS, PLAYERS, S, Table, make_rules


def table(**rules: object) -> Table:
    return Table(make_rules(players=PLAYERS[:3], sources={"mcu": MCU}, **rules))


def read(t: Table) -> int:
    """A question announced and read to the end; the window's base (004 App.4)."""
    t.host(HostAction.NEXT)
    t.advance(1 * S)
    t.host(HostAction.READING_FINISHED)
    return t.now


def base_lost(t: Table) -> int:
    """What a restarted box says on its first watermark: everything since its last one before
    it went (here, when it went) may be lost (drivers/mcu_session.py)."""
    (held,) = t.events("signals_held")
    return int(held["since_ns"])


def test_the_window_waits_for_a_lost_box_and_judges_what_it_stamped_meanwhile_004_app4() -> None:
    t = table()
    base = read(t)
    t.advance(2 * S)
    t.deliver(SourceLink("mcu", False, t.now))  # unplugged 2 s into the window
    (held,) = t.events("signals_held")
    assert (held["source"], held["since_ns"]) == ("mcu", base + 2 * S)
    t.advance(8 * S)  # the 7 s are long over: nothing is decided while the box is away
    assert t.events("question_ended") == [] and t.ref.phase == "open"
    t.deliver(SourceLink("mcu", True, t.now))  # back 10 s in
    (resumed,) = t.events("signals_resumed")
    assert (resumed["held_ms"], resumed["given_up"]) == (8000.0, False)
    # It kept its power: the press it stamped at 5 s (in time) comes now, then its watermark,
    # which says nothing was lost (it sent all it stamped meanwhile again: issue 31).
    t.deliver(Press("mcu", "mcu:1", base + 5 * S))
    t.deliver(Watermark("mcu", t.now))
    accepted = t.last("signal_accepted")
    assert accepted["player"] == "p2" and "inputs_lost" not in accepted  # nothing to put to the host
    assert t.answerer() == "p2"


def test_a_box_back_that_could_not_send_all_again_is_named_in_the_decision_004_app4() -> None:
    """Away longer than the box keeps its frames (16, PROTOCOL.md 5.9): what it still held is
    judged on its stamps, and its watermark says a press may be missing since before it went:
    the decision is put to the host (004 IV 4.4)."""
    t = table()
    base = read(t)
    t.advance(2 * S)
    t.deliver(SourceLink("mcu", False, t.now))
    t.advance(8 * S)
    t.deliver(SourceLink("mcu", True, t.now))
    t.deliver(Press("mcu", "mcu:1", base + 5 * S))
    t.deliver(Watermark("mcu", t.now, lost_from=base + 2 * S))
    accepted = t.last("signal_accepted")
    assert accepted["player"] == "p2" and accepted["inputs_lost"] == ["mcu"]


def test_a_box_back_with_nothing_in_time_ends_the_question_naming_it_004_app4() -> None:
    t = table()
    read(t)
    t.advance(2 * S)
    t.deliver(SourceLink("mcu", False, t.now))
    t.advance(8 * S)
    t.deliver(SourceLink("mcu", True, t.now))  # it lost its power: it has nothing to send
    t.deliver(Watermark("mcu", t.now, lost_from=base_lost(t)))
    ended = t.last("question_ended")
    assert ended["reason"] == "no_signal" and ended["inputs_lost"] == ["mcu"]


def test_after_the_configured_wait_the_host_ends_the_question_without_the_box_004_iv_4_4() -> None:
    t = table(lost_source_wait_ns=5 * S)
    read(t)
    t.advance(2 * S)
    assert "end_question" not in t.ref.host_actions(t.now)  # every source there: nothing to end
    t.deliver(SourceLink("mcu", False, t.now))
    (held,) = t.events("signals_held")
    assert held["wait_ends_ns"] == held["since_ns"] + 5 * S
    t.advance(4900 * MS)
    assert t.events("signals_wait_over") == []
    t.advance(200 * MS)  # the wait is over: the host is asked, the question waits for the host
    (over,) = t.events("signals_wait_over")
    assert over["source"] == "mcu"
    t.advance(60 * S)
    assert t.events("question_ended") == [] and t.ref.next_deadline() is None  # no busy clock
    assert {"cancel", "end_question"} <= set(t.ref.host_actions(t.now))
    t.host(HostAction.END_QUESTION)  # ended without the box
    (resumed,) = t.events("signals_resumed")
    assert resumed["given_up"] is True
    ended = t.last("question_ended")
    assert ended["reason"] == "no_signal" and ended["inputs_lost"] == ["mcu"]


def test_or_the_host_withdraws_it_to_play_it_again_004_app9() -> None:
    t = table(lost_source_wait_ns=5 * S)
    read(t)
    t.deliver(SourceLink("mcu", False, t.now))
    t.advance(6 * S)
    t.host(HostAction.CANCEL)
    assert t.last("question_ended")["reason"] == "cancelled"
    upcoming = t.ref.snapshot(t.now)["next"]
    assert isinstance(upcoming, dict) and (upcoming["theme"], upcoming["number"]) == (1, 1)  # again


def test_a_press_before_the_box_was_lost_is_decided_as_usual_004_app5() -> None:
    """A press the box reported (and vouched for) before it went away takes the turn at once:
    only what comes after its last word waits for it."""
    t = table()
    read(t)
    t.advance(1 * S)
    t.press("p3")
    t.deliver(SourceLink("mcu", False, t.now + 1))
    assert t.answerer() == "p3" and t.last("signal_accepted").get("inputs_lost") is None


def test_a_question_ended_while_the_box_was_away_may_be_withdrawn_after_its_end_004_app9() -> None:
    """«Nobody signalled» over a span the box was away is put to the host: it may withdraw the
    question even after its end, with no score change, and it is played again (as after a
    reset the reading may begin again, App.9; the organisers' call, IV 4.4). An ordinary end
    is final."""
    t = table()
    read(t)
    t.advance(2 * S)
    t.deliver(SourceLink("mcu", False, t.now))
    t.advance(8 * S)
    t.deliver(SourceLink("mcu", True, t.now))
    t.deliver(Watermark("mcu", t.now, lost_from=base_lost(t)))
    assert t.last("question_ended")["inputs_lost"] == ["mcu"]
    assert "cancel" in t.ref.host_actions(t.now)
    t.advance(1 * S)
    t.host(HostAction.CANCEL)
    withdrawn = t.last("question_ended")
    assert (withdrawn["reason"], withdrawn["number"]) == ("cancelled", 1)
    upcoming = t.ref.snapshot(t.now)["next"]
    assert isinstance(upcoming, dict) and (upcoming["theme"], upcoming["number"]) == (1, 1)
    # Played again, nobody signals, every source there: that end is final.
    read(t)
    t.advance(8 * S)
    ended = t.last("question_ended")
    assert ended["reason"] == "no_signal" and "inputs_lost" not in ended
    assert "cancel" not in t.ref.host_actions(t.now)
    t.host(HostAction.CANCEL)
    assert t.last("error")["details"]["action"] == "cancel"  # refused: the question is over


def test_the_count_stands_still_while_the_window_waits_for_the_box_004_app4() -> None:
    """Issue 34: the host's clock ran on to 0.0 under «идёт время на сигнал» while the board
    said «Пауза». While the window waits for the lost box, the state's count stands still at
    what it had left when the box was lost, and says it waits (`paused`)."""
    t = table()
    base = read(t)
    t.advance(2 * S)
    t.deliver(SourceLink("mcu", False, t.now))
    t.advance(3 * S)
    timer = t.ref.snapshot(t.now)["timer"]
    assert isinstance(timer, dict)
    assert (timer["kind"], timer["paused"], timer["remaining_ms"]) == ("signal", True, 5000)
    assert timer["ends_ns"] == base + 7 * S
    t.deliver(SourceLink("mcu", True, t.now))
    t.deliver(Watermark("mcu", t.now))
    back = t.ref.snapshot(t.now)["timer"]  # back with nothing pressed, 5 s into the 7: it runs on
    assert isinstance(back, dict) and "paused" not in back and back["remaining_ms"] == 2000
