"""The table's and the sports timer's host view: `host_actions` is exactly what the engine takes now,
`host_question` is the 12th sector's question for the host only.

The shared host-screen contract: the host's screen enables exactly the buttons listed in
``host_actions``. Checked by brute force: random walks through whole games (several rule sets,
hand-stepped time) try, at every step, every host command with every argument that could be
valid on a scratch copy of the referee; an action is listed exactly when one of them is taken.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from console.engine.chgk.events import TableCommandRefused
from console.engine.chgk.question_draw import Question, QuestionPool
from console.engine.chgk.referee import ChgkReferee
from console.engine.chgk.rules import (
    ChgkAction,
    ChgkHost,
    ChgkRules,
    PickSource,
    SectorKind,
    SectorPicked,
    Side,
    Stage,
)
from console.engine.chgk.table import TableGame, TableSetup
from console.engine.model import Output
from console.engine.sports.timer import SportsAction, SportsHost
from console.schemas import validate
from console.wire import events_json
from tests.chgk_harness import MS, TEAMS, S, SportsClock, Table, make_rules

A = ChgkAction
Command = SectorPicked | ChgkHost
QUESTIONS = QuestionPool(tuple(
    Question(number=str(n), text=f"Текст вопроса {n}", answer=f"Ответ {n}", comment=f"Комментарий {n}",
             rejected="Незачёт" if n % 2 else None, images=("pic.jpg",) if n == 1 else (),
             tournament="Учебный пакет")
    for n in range(1, 4)))


def candidates(table: Table, now: int) -> Iterator[tuple[str, Command]]:
    """Every host command with every argument that could possibly be valid, by action name."""
    ref = table.ref
    n = ref.rules.sectors
    sectors = range(1, n + 1)
    for s in sectors:
        yield "pick_sector", SectorPicked(s, now, PickSource.HOST)
    plain = (A.NEW_GAME, A.DRAW_LOTOTRON, A.START_TIMER, A.EARLY_ANSWER, A.PLAYER_LEAVES, A.ANSWER_CORRECT,
             A.ANSWER_WRONG, A.FORTOCHKA, A.EXTRA_TIME, A.CLUB_HELP, A.USE_SAVED_MINUTE, A.HINT_FROM_HALL,
             A.DECISIVE_ROUND, A.CANCEL_ROUND, A.PAUSE, A.RESUME)
    for action in plain:
        yield action.value, ChgkHost(action, now)
    for a in sectors:
        for b in sectors:
            yield A.MOVE_QUESTION.value, ChgkHost(A.MOVE_QUESTION, now, sector=a, to_sector=b)
    played = ref.snapshot(now)["rounds_played"]
    assert isinstance(played, int)
    rounds = played + 1
    for team in TEAMS:
        for number in (None, *range(1, rounds + 1)):
            for part in (None, 1, 2, 3):
                yield A.HALL_CORRECT.value, ChgkHost(A.HALL_CORRECT, now, team=team.id, round=number,
                                                     part=part)
    for s in sectors:
        yield A.REFILL.value, ChgkHost(A.REFILL, now, sector=s)
    for to in (None, Side.TEAM, Side.CLUB):
        yield A.CORRECT_ROUND.value, ChgkHost(A.CORRECT_ROUND, now, to=to, reason="ошибся кнопкой")


def refused(out: list[Output]) -> bool:
    return any(isinstance(o, TableCommandRefused) for o in out)


def scratch_copy(ref: ChgkReferee) -> ChgkReferee:
    """A copy of the referee to try commands on. The rules and the questions are immutable:
    shared; the lototron's generator is copied through its state (deepcopy is 100x slower)."""
    memo: dict[int, Any] = {id(ref.rules): ref.rules, id(QUESTIONS): QUESTIONS}
    for value in vars(ref).values():
        if isinstance(value, random.Random):
            twin = random.Random()
            twin.setstate(value.getstate())
            memo[id(value)] = twin
    return copy.deepcopy(ref, memo)


def accepted_now(table: Table) -> dict[str, Command]:
    """For each action the referee would take now, one command it takes (tried on copies; a
    refusal changes nothing, so a copy is used until it takes a command)."""
    now = table.now
    found: dict[str, Command] = {}
    scratch = scratch_copy(table.ref)
    for name, command in candidates(table, now):
        if name in found:
            continue
        if not refused(scratch.handle(command, now)):
            found[name] = command
            scratch = scratch_copy(table.ref)
    return found


RULE_SETS = {
    "tto": make_rules(special={3: SectorKind.BLITZ, 9: SectorKind.SUPERBLITZ, 6: SectorKind.DUPLET,
                               12: SectorKind.ZEITNOT, 8: SectorKind.SECTOR12}, fortochka_sector=5),
    "tto-no-fortochka-place": make_rules(special={3: SectorKind.BLITZ, 12: SectorKind.ZEITNOT},
                                         table_team=None, seed=3),
    "belgorod": ChgkRules.belgorod(teams=TEAMS, table_team="t2", stage=Stage.SEMIFINAL,
                                   special={2: SectorKind.BLITZ, 13: SectorKind.SECTOR13,
                                            7: SectorKind.SECTOR12},
                                   fortochka_sector=10),
    "final": make_rules(stage=Stage.FINAL, special={4: SectorKind.DUPLET, 11: SectorKind.ZEITNOT}),
}
# Listed actions are taken more often when they move the game on, so the walks reach game ends.
WEIGHT = {"pick_sector": 6, "start_timer": 6, "answer_correct": 4, "answer_wrong": 4, "new_game": 0.2}


def walk(rules: ChgkRules, seed: int, steps: int) -> Iterator[tuple[Table, list[str], dict[str, Command]]]:
    """A random game: at each step the host view and what the referee takes, then one of those."""
    rng = random.Random(seed)
    table = Table(rules)
    table.ref = ChgkReferee(rules, QUESTIONS)
    table.engine = table.ref
    for _ in range(steps):
        if rng.random() < 0.3:
            table.advance(rng.choice((1, 5, 15, 45, 70)) * S)  # warnings and ends fire on time
        listed = table.host_snap()["host_actions"]
        accepted = accepted_now(table)
        yield table, listed, accepted
        names = sorted(accepted)
        name = rng.choices(names, weights=[WEIGHT.get(n, 1) for n in names])[0]
        table.advance(rng.choice((0, 100 * MS, 2 * S)))
        command = accepted[name]
        if isinstance(command, SectorPicked):
            table.deliver(SectorPicked(command.sector, table.now, PickSource.HOST))
        else:
            table.deliver(dataclasses.replace(command, at=table.now))


@functools.cache
def walked(rules_name: str) -> tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...]:
    """(phase, listed, taken) at every step of two random games under `rules_name`."""
    return tuple((table.snap()["phase"], tuple(listed), tuple(accepted))
                 for seed in (1, 8) for table, listed, accepted in walk(RULE_SETS[rules_name], seed, 60))


@pytest.mark.parametrize("rules_name", sorted(RULE_SETS))
def test_host_actions_are_exactly_the_commands_the_referee_takes(rules_name: str) -> None:
    """Every listed action is taken (with some valid argument) and every unlisted one refused,
    at every step of random whole games under each rule set (000, 003 and the final's refills)."""
    seen: set[str] = set()
    for phase, listed, accepted in walked(rules_name):
        assert sorted(listed) == sorted(accepted), \
            f"listed but refused: {sorted(set(listed) - set(accepted))}, taken but not listed: " \
            f"{sorted(set(accepted) - set(listed))} (phase {phase})"
        seen |= set(listed)
    # The walks are not vacuous: the game's main actions all came up, corrections included.
    assert {"pick_sector", "start_timer", "answer_correct", "answer_wrong", "correct_round",
            "hall_correct", "new_game", "cancel_round"} <= seen


def test_the_walks_reach_the_rarer_actions() -> None:
    """Help, BINGO, refills, the decisive round, the fortochka key and the lototron are listed at
    some step of the walks (so the exactness check above covered them taken as well as refused)."""
    seen = {name for rules_name in RULE_SETS for _, listed, _ in walked(rules_name) for name in listed}
    assert {"extra_time", "club_help", "move_question", "refill", "fortochka", "draw_lototron",
            "player_leaves", "early_answer", "hint_from_hall", "use_saved_minute", "pause", "resume"} <= seen


def test_host_actions_order_and_names_are_the_commands_of_the_host_screen() -> None:
    """The list is in the order of the commands (pick_sector, then ChgkAction's), by their JSON names."""
    t = Table()
    listed = t.host_snap()["host_actions"]
    order = ["pick_sector", *(a.value for a in ChgkAction)]
    assert listed == sorted(listed, key=order.index)
    assert listed == ["pick_sector", "new_game"]  # a seated team, no round yet, no BINGO at 000
    t.play(1, True)
    listed = t.host_snap()["host_actions"]
    assert listed == ["pick_sector", "new_game", "hall_correct", "correct_round"]
    assert listed == sorted(listed, key=order.index)


def test_the_table_engine_publishes_host_actions_with_the_top() -> None:
    """The whole table engine (top, sectors, referee) shows the referee's host view and its top."""
    engine = TableGame(TableSetup(rules=RULE_SETS["tto"]))
    host: dict[str, Any] = engine.host_snapshot(0)
    assert host["host_actions"][0] == "pick_sector" and host["host_question"] is None
    assert "top" in host and "host_actions" not in engine.snapshot(0)


def test_host_question_is_the_drawn_12th_sector_question_for_the_host_only() -> None:
    """000 4.2 г: the 12th sector's question is drawn from the package; the host's view carries
    its text, answer and comment until the next pick; the public state and events never do."""
    rules = RULE_SETS["tto"]
    t = Table(rules)
    t.ref = ChgkReferee(rules, QUESTIONS)
    t.engine = t.ref
    assert t.host_snap()["host_question"] is None
    t.pick(8)
    drawn = t.last("question_drawn")
    q = t.host_snap()["host_question"]
    assert q == {"theme": None, "value": None, "text": drawn["text"], "answer": drawn["answer"],
                 "comment": drawn["comment"], "wrong": [x for x in ["Незачёт"] if q["wrong"]],
                 "media": q["media"], "accepted": None, "handout": None, "source": drawn["source"]}
    assert q["text"].startswith("Текст вопроса") and q["comment"].startswith("Комментарий")
    t.host(A.START_TIMER)
    t.advance(10 * S)
    t.host(A.ANSWER_CORRECT)
    assert t.host_snap()["host_question"] == q  # read out after the verdict
    public = json.dumps([t.snap(), t.public_events()], ensure_ascii=False)
    assert q["text"] not in public and q["answer"] not in public and q["comment"] not in public
    t.pick(1)
    assert t.host_snap()["host_question"] is None  # the next round's envelope is the host's own


def test_sports_timer_host_actions() -> None:
    """003 5.3: «Время!» starts a count between counts; a running count (the minute or the
    collection of answers) can only be cancelled. Each listed action is taken, the other refused."""
    clock = SportsClock()

    def check() -> None:
        host: dict[str, Any] = clock.timer.host_snapshot(clock.now)
        assert host["host_question"] is None
        validate("sports_state", {**host, "seq": 0, "game": "sports"})  # as the runtime publishes it
        for action in SportsAction:
            scratch = copy.deepcopy(clock.timer)
            out = events_json(scratch.handle(SportsHost(action, clock.now), clock.now))
            taken = not any(e["type"] == "error" for e in out)
            assert taken == (action.value in host["host_actions"]), (action, host)

    check()
    clock.host(SportsAction.START)
    for dt in (0, 30, 25, 10, 8):  # counting, after the warning, collecting, closed
        clock.advance(dt * S)
        check()
    assert clock.timer.host_snapshot(clock.now)["host_actions"] == ["start"]


def test_a_host_view_is_json() -> None:
    t = Table(RULE_SETS["belgorod"])
    t.play(1, False)
    assert json.loads(json.dumps(t.host_snap())) == t.host_snap()
    snap: dict[str, Any] = t.host_snap()
    assert snap["correction"] == {"round": 1, "sector": 1, "result": "club", "to": "team"}
