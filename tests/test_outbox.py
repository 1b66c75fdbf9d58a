"""The MQTT link's queue policy, without a connection (console/shell/outbox.py): events in order
and never dropped, the newest angle and retained topics only, a bound on what is unacknowledged,
what a lost connection puts back, the loud limit."""

from __future__ import annotations

from functools import partial

from console.shell.outbox import Message, Outbox

ANGLE = "chgk/t1/angle"


def drain(box: Outbox) -> list[Message]:
    taken = []
    while (message := box.take()) is not None:
        taken.append(message)
    return taken


def test_events_first_in_order_then_the_newest_angle_then_the_newest_of_each_retained_topic() -> None:
    box = Outbox(ANGLE, max_inflight=100, queue_limit=10)
    box.retain("status", b"s1")
    box.put_event(ANGLE, b"a1")
    box.put_event("events", b"e1")
    box.retain("state", b"x")
    box.put_event(ANGLE, b"a2")
    box.retain("status", b"s2")
    box.put_event("events", b"e2")
    assert drain(box) == [Message("events", b"e1", False), Message("events", b"e2", False),
                          Message(ANGLE, b"a2", False), Message("status", b"s2", True),
                          Message("state", b"x", True)]


def test_at_most_max_inflight_unacknowledged() -> None:
    box = Outbox(ANGLE, max_inflight=2, queue_limit=10)
    for i in range(4):
        box.put_event("events", f"e{i}".encode())
    for mid in (1, 2):
        message = box.take()
        assert message is not None
        box.sent(mid, message)
    assert box.take() is None and box.oldest_unacked == 1
    box.acked(1)
    assert box.take() == Message("events", b"e2", False) and box.oldest_unacked == 2


def test_a_lost_connection_puts_its_unacknowledged_events_back_first_and_resends_retained() -> None:
    box = Outbox(ANGLE, max_inflight=10, queue_limit=10)
    for topic, payload in (("events", b"e1"), (ANGLE, b"a1"), ("events", b"e2")):
        box.put_event(topic, payload)
    box.retain("status", b"s")
    for mid, message in enumerate(drain(box), 1):
        box.sent(mid, message)
    box.put_event("events", b"e3")
    box.lost()
    box.reconnected()
    assert drain(box) == [Message("events", b"e1", False), Message("events", b"e2", False),
                          Message("events", b"e3", False), Message("status", b"s", True)]


def test_the_limit_is_said_once_crossing_and_once_back_under_half() -> None:
    box = Outbox(ANGLE, max_inflight=100, queue_limit=4)
    said = []
    for i in range(6):
        box.put_event("events", bytes([i]))
        said.append(box.over_limit())
    assert said == [None, None, None, None, True, None]
    box.take()
    box.take()
    assert box.over_limit() is None  # 4 wait: not yet under half
    box.take()
    box.take()
    assert box.over_limit() is False and box.over_limit() is None
    assert box.queued_events == 2


def test_what_the_sender_reports_through_is_acknowledged_in_the_order_sent() -> None:
    """The link hands each message's own "published yet?" (paho's `is_published`) to `sent`;
    `through()` acknowledges those that say so, in the order sent, and only once."""
    box = Outbox(ANGLE, max_inflight=3, queue_limit=10)
    for i in range(4):
        box.put_event("events", f"e{i}".encode())
    published = {1: False, 2: False, 3: False}
    for mid in (1, 2, 3):
        message = box.take()
        assert message is not None
        box.sent(mid, message, partial(published.__getitem__, mid))
    assert box.through() == [] and box.take() is None  # three out: no room
    published[3] = published[2] = True
    assert box.through() == [2, 3] and box.oldest_unacked == 1
    assert box.through() == []
    assert box.take() == Message("events", b"e3", False)
    box.lost()  # a lost connection forgets what it was waiting for
    published[1] = True
    assert box.through() == []
