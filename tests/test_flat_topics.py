"""The flat topics' plain values (console/shell/flat_topics.py) from each kind of state."""

from __future__ import annotations

from console.shell.flat_topics import flat_values
from console.shell.mqtt_wire import plain_command
from tests.brainring_harness import Ring


def test_a_brainring_count_and_the_team_answering() -> None:
    ring = Ring()
    ring.question_read()
    ring.advance(12_300_000_000)
    counting = flat_values(ring.ref.snapshot(ring.now))
    assert counting["phase"] == "counting" and counting["count"] == "48"  # 47.7 s left: 48 shown
    ring.press("mcu:2")
    answering = flat_values(ring.ref.snapshot(ring.now))
    assert answering["answering"] == "Ежи" and answering["count"] == "-"
    assert (answering["score/t1"], answering["name/t2"]) == ("0", "Ежи")


def test_a_state_without_players_gives_what_it_has() -> None:
    assert flat_values({"phase": "counting", "timer": {"remaining_ms": 999}}) == {"phase": "counting",
                                                                                 "count": "1"}
    assert flat_values({"phase": "idle", "timer": None}) == {"phase": "idle", "count": "-"}


def test_a_plain_payload_is_the_command_and_a_json_object_its_arguments() -> None:
    assert plain_command("next", b"") == b'{"action":"next"}'
    assert plain_command("next", b"press") == b'{"action":"next"}'
    sent = '{"reason": "апелляция", "action": "new_game"}'.encode()
    assert plain_command("reverse", sent) == (
        '{"reason":"апелляция","action":"reverse"}'.encode())  # the topic names the action
