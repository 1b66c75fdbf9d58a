"""«Своя игра»: an evening of several fights on one pack, and a theme skipped (issue 19: «continue
a pack across fights, skip a theme»), on a hand-stepped clock. The themes of a fight keep their
order and their questions go in ascending order (004 App.2); a fight of `themes` themes ends
after its last; `next_fight` begins the next fight at the pack's first theme not begun, scores
to zero (004 App.3: everyone starts at 0), and `new_game` begins the pack again."""

from __future__ import annotations

from console.engine.model import Host, HostAction
from console.engine.svoya.rules import HostCard, PackTheme
from tests.engine_harness import S, Table, make_rules
from tests.support.packs import play_one

PACK = tuple(PackTheme(name, tuple(HostCard(value=v, text=f"{name} {v}", answer="да") for v in (10, 20)))
             for name in ("Реки", "Горы", "Озёра", "Моря", "Леса"))


def position(t: Table) -> tuple[object, object]:
    upcoming = t.ref.snapshot(t.now)["next"]
    assert isinstance(upcoming, dict)
    return upcoming["theme_name"], upcoming["value"]


def test_app2_a_skipped_theme_leaves_its_questions_and_the_next_theme_begins() -> None:
    t = Table(make_rules(pack=PACK, themes=2))
    play_one(t)
    assert position(t) == ("Реки", 20)
    t.host(HostAction.SKIP_THEME)
    skipped = t.last("theme_skipped")
    assert (skipped["theme"], skipped["theme_name"], skipped["skipped"]) == (1, "Реки", 1)
    assert position(t) == ("Горы", 10)  # its first question: ascending order (App.2)
    t.host(HostAction.SKIP_THEME)  # the fight's last theme: the fight is over
    assert t.last("game_over")["scores"]["p1"] == 10
    assert "skip_theme" not in t.ref.host_actions(t.now)


def test_app2_a_theme_is_skipped_only_between_questions() -> None:
    t = Table(make_rules(pack=PACK))
    t.host(HostAction.NEXT)
    t.host(HostAction.SKIP_THEME)
    assert t.last("error")["details"]["reason"] == "идёт вопрос (сначала доиграйте или снимите его)"
    assert t.events("theme_skipped") == []


def test_app3_the_next_fight_goes_on_in_the_pack_from_zero() -> None:
    t = Table(make_rules(pack=PACK, themes=2))
    for _ in range(3):
        play_one(t, "p2")
    assert position(t) == ("Горы", 20)  # theme 2 partly played
    t.host(HostAction.NEXT_FIGHT)  # mid-fight too: the theme partly played is left
    started = t.last("game_started")
    assert started["theme"] == 3 and set(started["scores"].values()) == {0}
    assert position(t) == ("Озёра", 10)
    upcoming = t.ref.snapshot(t.now)["next"]
    assert isinstance(upcoming, dict) and upcoming["themes"] == 4  # this fight ends after theme 4
    for _ in range(4):
        play_one(t)
    assert t.last("game_over")["scores"]["p1"] == 60  # themes 3 and 4: 10 + 20 + 10 + 20
    t.host(HostAction.NEXT_FIGHT)  # after a fight's end: on to theme 5, the pack's last
    assert t.last("game_started")["theme"] == 5
    play_one(t)
    play_one(t)
    assert t.last("game_over")["scores"]["p1"] == 30  # the pack ran out before `themes`
    t.host(HostAction.NEXT_FIGHT)
    assert t.last("error")["details"]["reason"] == "пакет сыгран до конца: «Новая игра» начнёт его сначала"
    t.host(HostAction.NEW_GAME)
    assert t.last("game_started")["theme"] == 1 and position(t) == ("Реки", 10)


def test_without_a_pack_the_next_fight_numbers_its_themes_on() -> None:
    t = Table(make_rules(values=(10, 20), themes=1))
    play_one(t)
    play_one(t)
    assert t.events("game_over")
    t.host(HostAction.NEXT_FIGHT)
    assert t.last("game_started")["theme"] == 2
    play_one(t)
    play_one(t)
    assert len(t.events("game_over")) == 2


def test_the_quartet_refuses_what_is_not_the_fights() -> None:
    """The quartet's fight goes by its rounds (004 3.1): a theme's referee never takes these."""
    from console.engine.quartet.fight import QuartetFight
    from tests.quartet_harness import make_rules as quartet_rules

    fight = QuartetFight(quartet_rules())
    for action in (HostAction.SKIP_THEME, HostAction.NEXT_FIGHT, HostAction.END_GAME):
        out = fight.handle(Host(action, 1 * S), 1 * S)
        assert [o.details["action"] for o in out if hasattr(o, "details")] == [action.value]
