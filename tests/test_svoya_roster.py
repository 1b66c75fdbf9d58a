"""«Своя игра»: the fight's players changed between questions (issue 19; console/engine/svoya/
roster.py), on a hand-stepped clock. A fight has 2 to 4 players (004 App.1) and everyone
starts at 0 (App.3); a question's presses are judged against the players it began with, so
changes wait for the question's end."""

from __future__ import annotations

from console.engine.model import Cue, HostAction, LampMode, Press, Watermark
from console.engine.svoya.roster import RosterAction, RosterChange
from tests.engine_harness import MS, S, Table


def change(t: Table, action: RosterAction, **args: str) -> None:
    t.deliver(RosterChange(action, t.now, **args))


def reason(t: Table) -> str:
    return str(t.last("error")["details"]["reason"])


def test_app1_a_fight_keeps_two_to_four_players() -> None:
    t = Table()  # four players
    change(t, RosterAction.ADD, name="Дима", pad="mcu:3")
    assert reason(t) == "в бою не больше 4 игроков (прил. 1)"
    for player in ("p4", "p3"):
        change(t, RosterAction.REMOVE, player=player)
    assert [e["player"] for e in t.events("player_removed")] == ["p4", "p3"]
    change(t, RosterAction.REMOVE, player="p2")
    assert reason(t) == "в бою не меньше 2 игроков (прил. 1)"
    assert "remove_player" not in t.ref.host_actions(t.now) and "add_player" in t.ref.host_actions(t.now)


def test_app3_a_player_added_starts_at_zero_under_an_id_never_given_before() -> None:
    t = Table()
    t.host(HostAction.NEXT)
    t.press("p1")
    t.advance(20 * MS)
    t.host(HostAction.NAME)
    t.host(HostAction.CORRECT)
    change(t, RosterAction.REMOVE, player="p4")
    change(t, RosterAction.ADD, name="Дима", pad="gpio:17")  # p4's button, free again
    added = t.last("player_added")
    assert added["player"] == "p5" and added["scores"] == {"p1": 10, "p2": 0, "p3": 0, "p5": 0}


def test_changes_wait_for_the_questions_end_and_each_refusal_says_why() -> None:
    t = Table()
    t.host(HostAction.NEXT)
    change(t, RosterAction.RENAME, player="p1", name="Анна")
    assert reason(t) == "идёт вопрос (игроков меняют между вопросами)"
    t.host(HostAction.CANCEL)
    change(t, RosterAction.RENAME, player="p9", name="Анна")
    assert reason(t).startswith("нет игрока «p9»")
    change(t, RosterAction.RENAME, player="p1", name="  ")
    assert reason(t) == "нужно имя"
    change(t, RosterAction.RENAME, player="p1", name="Борис")
    assert reason(t) == "игрок «Борис» уже есть"
    change(t, RosterAction.REMOVE, player="p4")
    change(t, RosterAction.ADD, name="Дима", pad="mcu:1")
    assert reason(t) == "кнопка «mcu:1» уже у игрока Борис"
    change(t, RosterAction.ADD, name="Дима", pad="usb:1")
    assert reason(t).startswith("кнопка «usb:1» — не кнопка пульта")
    assert t.events("player_renamed") == [] and t.events("player_added") == []


def test_a_button_pressed_for_a_player_becomes_theirs_and_lights_for_them() -> None:
    t = Table()
    change(t, RosterAction.REMOVE, player="p3")  # frees mcu:2
    change(t, RosterAction.BIND, player="p1")
    assert t.last("pad_awaited") == {**t.last("pad_awaited"), "player": "p1", "name": "Анна"}
    assert t.ref.host_snapshot(t.now)["awaiting_pad"] == {"player": "p1", "name": "Анна"}
    t.deliver(Press("mcu", "mcu:1", t.now))  # Борис's own: not free, a false start of his as ever
    assert t.events("pad_bound") == []
    t.deliver(Press("mcu", "mcu:2", t.now))
    t.deliver(Watermark("mcu", t.now))
    bound = t.last("pad_bound")
    assert (bound["pad"], bound["was"]) == ("mcu:2", "mcu:0")
    assert t.ref.host_snapshot(t.now)["awaiting_pad"] is None
    t.host(HostAction.NEXT)
    t.deliver(Press("mcu", "mcu:2", t.now))
    t.deliver(Watermark("mcu", t.now))
    t.advance(20 * MS)
    assert t.answerer() == "p1" and t.lamps()["mcu:2"] is LampMode.ON and "mcu:0" not in t.lamps()
    assert Cue.SIGNAL in t.cues()
    t.deliver(Press("mcu", "mcu:0", t.now))  # her old button is nobody's now
    assert "за которой не закреплён игрок" in t.last("error")["message"]


def test_an_awaited_button_is_forgotten_at_the_next_question() -> None:
    t = Table()
    change(t, RosterAction.REMOVE, player="p4")
    change(t, RosterAction.ADD, name="Дима")
    t.host(HostAction.NEXT)
    assert t.ref.host_snapshot(t.now)["awaiting_pad"] is None
    t.advance(1 * S)
    t.deliver(Press("gpio", "gpio:17", t.now))
    assert t.events("player_added") == []


def test_a_player_removed_while_their_button_is_awaited_is_not_waited_for() -> None:
    t = Table()
    change(t, RosterAction.BIND, player="p2")
    change(t, RosterAction.REMOVE, player="p2")
    assert t.ref.host_snapshot(t.now)["awaiting_pad"] is None  # the host's state stays whole
    t.deliver(Press("mcu", "mcu:3", t.now))
    t.deliver(Watermark("mcu", t.now))
    assert t.events("pad_bound") == [] and "p2" not in t.scores
