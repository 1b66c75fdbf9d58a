"""What a fight publishes (docs/mqtt-quartet.md): every event and state of a whole fight passes
its schema, the schema's copies of the «Своя игра» events are the referee's own, and every
fight event, phase, round type, penalty and tie-break step has its Russian text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from console.engine.corrections import AdjustScore
from console.engine.events import Event
from console.engine.quartet.events import FightOver
from console.engine.quartet.fight import FightPhase
from console.engine.quartet.rules import Penalty, RoundType, Stage
from console.games.quartet.texts import BY, PENALTIES, PHASES, ROUND_TYPES, STAGES, by_text, describe
from console.schemas import load_schema, validate
from tests.quartet_harness import Fight, make_rules


def whole_fight() -> tuple[Fight, list[dict[str, Any]]]:
    """A fight with a penalty, a short team, a shoot-out and a lot: states along the way."""
    f = Fight(make_rules(stage=Stage.GROUP))
    states = [f.fight.snapshot(f.now)]
    f.cmd("new_fight")
    f.cmd("absent", team="t4", player="Сёма")
    f.cmd("start_round", themes=["А", "Б", "В", "Г"])
    f.assign_all({"t4": ["Оля", "Петя", "Рая", None]})
    f.cmd("start_theme")
    f.cmd("penalty", team="t1", penalty="warning")
    states.append(f.fight.snapshot(f.now))
    host = f.fight.host_snapshot(f.now)  # the host's view: the public one, plus what only the host sees
    assert "penalty" in host["host_actions"]  # type: ignore[operator]
    assert {k: v for k, v in host.items() if k in states[-1]} == states[-1]
    f.theme_questions(("t2", ("-t1", "t3")))
    for _ in range(3):
        f.theme()
    f.deliver(AdjustScore(player="t2", delta=10, reason="апелляция: ответ засчитан", at=f.now))  # 4.1
    states.append(f.fight.snapshot(f.now))
    f.cmd("present", team="t4", player="Сёма")
    f.cmd("rename_member", team="t4", player="Сёма", name="Семён")
    f.round_half_dark()
    f.round_dark()
    states.append(f.fight.snapshot(f.now))
    return f, states


def test_a_whole_fight_passes_the_schemas() -> None:
    f, states = whole_fight()
    events = f.events()
    types = {e["type"] for e in events}
    assert {"fight_started", "round_started", "players_assigned", "theme_started", "penalty_given",
            "theme_ended", "presence_changed", "member_renamed", "theme_named", "theme_corrected"} <= types
    for e in events:
        validate("quartet_event", {**e, "seq": 1})
    for s in states:
        validate("quartet_state", {**s, "seq": 1, "game": "quartet"})


def test_the_fight_over_event_passes_its_schema() -> None:
    f = Fight(make_rules(rounds=(RoundType.OPEN,)))
    f.round_open([("t2", None, None, None, "t1"), ("t3",)])
    f.cmd("name_theme", name="П")
    f.cmd("assign", team="t2", player="Ель")
    f.cmd("assign", team="t3", player="Кот")
    f.cmd("start_theme")
    f.theme_questions(("t2",))
    over = f.events("fight_over")[-1]
    assert over["by"] == ["total", "shootout", "total"]
    validate("quartet_event", {**over, "seq": 3})
    validate("quartet_event", {**f.events("shootout_needed")[-1], "seq": 2})
    validate("quartet_state", {**f.fight.snapshot(f.now), "seq": 4, "game": "quartet"})


def test_the_referees_events_and_state_pass_the_svoya_schemas() -> None:
    """The theme's referee publishes its own events and state: they are checked against
    schemas/event.schema.json and state.schema.json, which the quartet schemas point to."""
    f, _ = whole_fight()
    quartet = set(load_schema("quartet_event")["properties"]["type"]["enum"])
    own = {"fight_started", "round_started", "theme_named", "players_assigned", "assign_time_up",
           "theme_started", "theme_ended", "theme_corrected", "penalty_given", "presence_changed",
           "member_renamed", "shootout_needed", "fight_over"}
    svoya_events = [e for e in f.events() if e["type"] not in own]
    assert {e["type"] for e in svoya_events} >= {"question_started", "signal_accepted", "answer_judged"}
    for e in svoya_events:
        assert e["type"] in quartet
        validate("event", {**e, "seq": 1})
    f.cmd("new_fight")
    f.cmd("start_round", themes=["А", "Б", "В", "Г"])
    f.assign_all(None)
    f.cmd("start_theme")
    f.question(("-t1",))
    theme = f.fight.snapshot(f.now)["theme"]
    assert isinstance(theme, dict) and isinstance(theme["referee"], dict)
    validate("state", {**theme["referee"], "seq": 1, "game": "svoya"})


def test_every_fight_event_has_its_russian_line() -> None:
    f, _ = whole_fight()
    fight_types = {"fight_started", "round_started", "theme_named", "players_assigned", "assign_time_up",
                   "theme_started", "theme_ended", "theme_corrected", "penalty_given", "presence_changed",
                   "member_renamed", "shootout_needed", "fight_over"}
    seen = set()
    for out in f.outputs:
        if isinstance(out, Event) and out.TYPE in fight_types:
            line = describe(out, {"t1": "Совы"})
            assert line and line.strip(), out
            seen.add(out.TYPE)
    assert {"fight_started", "round_started", "theme_started", "penalty_given", "theme_corrected"} <= seen
    assert "Совы" in (describe(next(o for o in f.outputs if isinstance(o, Event)
                                    and o.TYPE == "penalty_given"), {"t1": "Совы"}) or "")


@pytest.mark.parametrize(("table", "values"), [
    (PHASES, [p.value for p in FightPhase]), (ROUND_TYPES, [r.value for r in RoundType]),
    (STAGES, [s.value for s in Stage]), (PENALTIES, [p.value for p in Penalty]),
])
def test_every_name_has_its_text(table: dict[str, str], values: list[str]) -> None:
    assert sorted(table) == sorted(values)


def test_every_tie_break_step_reads_in_russian() -> None:
    assert by_text("taken_40") == "по взятым за 40"
    # The fight's result says what decided each place (3.10-3.11), after the place it decided.
    f = Fight(make_rules(rounds=(RoundType.OPEN,)))
    f.round_open([("t2", None, None, None, "t1"), ("t3",)])
    f.cmd("name_theme", name="П")
    f.cmd("assign", team="t2", player="Ель")
    f.cmd("assign", team="t3", player="Кот")
    f.cmd("start_theme")
    f.theme_questions(("t2",))
    (over,) = [o for o in f.outputs if isinstance(o, FightOver)]
    assert over.by == ("total", "shootout", "total")
    line = describe(over, {})
    assert line is not None
    parts = line.removeprefix("Итог боя: ").split(", ")
    assert [p.split(" — ")[1:] for p in parts] == [[], ["по сумме очков"], ["по перестрелке"],
                                                    ["по сумме очков"]]
    assert set(BY) == {"total", "plus", "shootout", "lot"}


def test_the_fights_words_live_in_one_place() -> None:
    """The phases, round types, stages and penalties are named once (console/data/quartet-
    texts.js, which the console's texts read too): no page or module that shows the fight
    spells one of them itself, so they cannot drift apart again (a penalty was «незачёт ответа»
    here and «ответ не засчитан» on the host's screen)."""
    root = Path(__file__).resolve().parent.parent
    words = {*PHASES.values(), *(w.removesuffix(" раунд") for w in ROUND_TYPES.values()), *STAGES.values(),
             *PENALTIES.values()}
    assert "незачёт ответа" in words and "полутёмный" in words
    for name in ("console/data/host-quartet.js", "console/data/quartet.html", "console/data/organiser.html",
                 "console/games/quartet/texts.py"):
        text = (root / name).read_text(encoding="utf-8")
        spelled = sorted(w for w in words if f'"{w}"' in text or f"'{w}'" in text)
        assert spelled == [], f"{name} spells {spelled} itself"
