"""Resuming the fight from the journal at start (console/shell/resume.py), stepped by hand: the
same scores and state, the interrupted question or round voided, a torn last line left out,
a journal of another config kept aside, a reboot's clock that starts again near zero."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path
from typing import Any

import pytest

from console.engine.chgk.rules import ChgkAction, ChgkHost, PickSource, SectorPicked
from console.engine.model import Host, HostAction, Press, Watermark
from console.engine.spin.detector import AngleSample
from console.engine.sports.timer import SportsAction, SportsHost
from console.games import config_from_dict, game, names
from console.games.kind import GameInput
from console.games.svoya.kind import VOID_REFUND
from console.notices import ConsoleError, FightResumed
from console.playback import play, read_scenario
from console.shell import resume
from console.shell.checkpoint import checkpoint_key
from console.shell.daemon import open_journal
from console.shell.journal_files import Resumed
from console.shell.journal_read import read_journal
from console.shell.runtime import Console
from console.texts import describe_notice
from tests.quartet_harness import Fight
from tests.support.clock import Clock
from tests.support.resumed_fights import restarted, resumed_events, svoya_config, table_config

MS = 1_000_000
S = 1_000 * MS


def press(console: Console, pad: int, t: int) -> None:
    console.feed([Press("mcu", f"mcu:{pad}", t), Watermark("mcu", t)], now=t + MS)


def svoya_fight(path: Path, clock: Clock) -> Console:
    """Two questions played (p1 +10, p2 -20 then p0 +20), the third one's turn taken by p2."""
    console = Console(svoya_config(), clock=clock, journal=path.open("w", encoding="utf-8"))
    for action, pad in ((HostAction.CORRECT, 1), (HostAction.WRONG, 2)):
        clock.now += S
        console.host(HostAction.NEXT, at=clock.now)
        clock.now += S
        console.host(HostAction.READING_FINISHED, at=clock.now)
        clock.now += S
        press(console, pad, clock.now)
        clock.now += S
        console.host(action, at=clock.now)
    clock.now += S
    console.host(HostAction.RESET, at=clock.now)
    clock.now += S
    press(console, 0, clock.now)
    clock.now += S
    console.host(HostAction.CORRECT, at=clock.now)
    clock.now += S
    console.host(HostAction.NEXT, at=clock.now)
    clock.now += S
    press(console, 2, clock.now)  # during the reading: p2 has the turn, then the power goes
    return console


def scores(state: dict[str, Any]) -> dict[str, int]:
    return {p["id"]: p["score"] for p in state["players"]}


def replayed_state(journal: Path, now: int) -> dict[str, Any]:
    scenario = read_scenario(journal.read_text(encoding="utf-8").splitlines(), journal.name, io.StringIO())
    assert scenario is not None
    return play(scenario).referee.snapshot(now)


def test_a_voided_question_gives_back_the_minuses_taken_on_it(tmp_path: Path) -> None:
    """Issue 34: the question voided by a crash is played again from scratch, so the minus a
    wrong answer took on it is given back (004 App.3 took it; 004 4.1: a correction with its
    reason, in the protocol), while earlier questions' decisions stand (004 IV 4.3)."""
    clock = Clock(1_000 * S)
    before = svoya_fight(tmp_path / "journal-1.jsonl", clock)
    clock.now += S
    before.host(HostAction.WRONG, at=clock.now)  # p2 wrong on the 30: -30
    clock.now += S
    before.host(HostAction.RESET, at=clock.now)
    clock.now += S
    press(before, 1, clock.now)  # p1 has the turn when the power goes
    crashed = before.state()
    assert crashed["phase"] == "answering" and scores(crashed) == {"p0": 20, "p1": 10, "p2": -50}
    clock.now += 30 * S
    console, events = restarted(tmp_path / "journal-1.jsonl", svoya_config(), clock)
    assert scores(console.state()) == {"p0": 20, "p1": 10, "p2": -20}
    assert [e["type"] for e in events] == ["question_ended", "score_adjusted", "resumed"]
    refund = events[1]
    assert (refund["player"], refund["delta"], refund["reason"]) == ("p2", 30, VOID_REFUND)
    assert events[2]["given_back"] == {"p2": 30}  # and the host is told (the notice's line):
    said = describe_notice(FightResumed(t_ns=0, journal="j", inputs=1, voided="question",
                                        given_back={"p2": 30}, torn=False), {"p2": "Вера"}, {})
    assert said == ("Игра восстановлена после перезапуска по журналу j; вопрос отменён и будет сыгран "
                    "заново; снятые за него очки возвращены: Вера +30")
    assert console.state()["next"]["value"] == 30  # the same question comes again
    console.journal.close()
    live = {k: v for k, v in console.state(clock.now).items() if k not in ("seq", "game")}
    assert replayed_state(tmp_path / "journal-1.jsonl", clock.now) == live  # the refund is journaled


def test_svoya_resumes_with_the_scores_and_the_interrupted_question_voided(tmp_path: Path) -> None:
    """004 IV 4.3: decisions taken stand; the question in play (no wrong answer on it yet) is
    cancelled with no score change and comes again (004 App.9: the host may begin the reading
    anew)."""
    clock = Clock(1_000 * S)
    before = svoya_fight(tmp_path / "journal-1.jsonl", clock)
    crashed = before.state()
    assert crashed["phase"] == "answering" and scores(crashed) == {"p0": 20, "p1": 10, "p2": -20}
    clock.now += 30 * S  # the daemon restarts (no reboot: the monotonic clock went on)
    console, events = restarted(tmp_path / "journal-1.jsonl", svoya_config(), clock)
    state = console.state()
    assert scores(state) == scores(crashed)
    assert state["phase"] == "idle" and state["question"] is None
    assert state["next"] == crashed["next"]
    assert isinstance(state["next"], dict) and (state["next"]["number"], state["next"]["value"]) == (3, 30)
    assert [e["type"] for e in events] == ["question_ended", "resumed"]
    assert events[0]["reason"] == "cancelled" and events[0]["scores"] == scores(crashed)
    assert {k: events[1][k] for k in ("journal", "inputs", "voided", "torn")} == {
        "journal": "journal-1.jsonl", "inputs": 17, "voided": "question", "torn": False}
    assert console.seed == before.seed
    # The question is played again, and the day's journal (appended to) replays to the same state.
    clock.now += S
    console.host(HostAction.NEXT, at=clock.now)
    clock.now += S
    press(console, 1, clock.now)
    clock.now += S
    console.host(HostAction.CORRECT, at=clock.now)
    assert scores(console.state()) == {"p0": 20, "p1": 40, "p2": -20}
    console.journal.close()
    live = {k: v for k, v in console.state(clock.now).items() if k not in ("seq", "game")}
    assert replayed_state(tmp_path / "journal-1.jsonl", clock.now) == live
    assert sorted(p.name for p in tmp_path.iterdir()) == ["journal-1.jsonl"]  # no copy


def test_the_table_resumes_with_the_score_and_the_round_in_play_withdrawn(tmp_path: Path) -> None:
    """003 6.1.1: the round in play is withdrawn (no score, its envelope unplayed) and the
    table goes back to the spin; the round played before stands (004 IV 4.3 in spirit)."""
    clock = Clock(1_000 * S)
    before = Console(table_config(), clock=clock, journal=(tmp_path / "j1.jsonl").open("w", encoding="utf-8"))
    steps: list[GameInput] = [SectorPicked(3, 0, PickSource.HOST), ChgkHost(ChgkAction.EARLY_ANSWER, 0),
             ChgkHost(ChgkAction.ANSWER_CORRECT, 0),
             SectorPicked(7, 0, PickSource.HOST), ChgkHost(ChgkAction.START_TIMER, 0)]
    for step in steps:
        clock.now += 2 * S
        before.feed([resume.shifted(step, clock.now)])  # each at 0 + now
    crashed = before.state()
    assert crashed["phase"] == "discussion" and crashed["score"] == {"team": 1, "club": 0}
    clock.now += 20 * S
    console, events = restarted(tmp_path / "j1.jsonl", table_config(), clock)
    state = console.state()
    assert state["phase"] == "ready" and state["score"] == crashed["score"]
    assert [e["type"] for e in events] == ["round_cancelled", "resumed"]
    assert events[0]["sector"] == 7 and events[1]["voided"] == "round"
    played = {s["sector"]: s["played"] for s in state["sectors"]}
    assert played[3] and not played[7]  # the withdrawn envelope is back in play
    assert state["current"] is None and state["rounds_played"] == crashed["rounds_played"] == 1


def test_readings_judged_before_they_happened_are_resumed_not_skipped(tmp_path: Path) -> None:
    """Read late for a deadline (a stall, here the count's 10-s warning), what was read together
    and began before it is judged, all of it, just before it (console/shell/deadlines.py
    `place`) and journalled so: some lines arrive before they happened. The console's own
    journal is replayed as written, none of them skipped and no problem said."""
    clock = Clock(1_000 * S)
    path = tmp_path / "j1.jsonl"
    before = Console(table_config(), clock=clock, journal=path.open("w", encoding="utf-8"))
    clock.now += S
    before.feed([SectorPicked(3, clock.now, PickSource.HOST)])
    clock.now += S
    before.feed([ChgkHost(ChgkAction.START_TIMER, clock.now)])
    warning = clock.now + 50 * S
    clock.now = warning + 600 * MS  # the top's readings of the last 0.7 s, read at once
    before.feed([AngleSample(at, 2000) for at in range(warning - 100 * MS, clock.now, 4 * MS)])
    crashed = before.state()
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:]]
    early = [line for line in lines if "angle" in line and line["arrive_ms"] < line["at_ms"] - 20]
    assert early  # the case this test is about
    clock.now += 5 * S
    found = resume.load(path, table_config(), clock())
    assert isinstance(found, resume.Resumption) and found.skipped == ()
    console, events = restarted(path, table_config(), clock)
    assert [e for e in events if e["type"] == "error"] == []
    assert console.state()["score"] == crashed["score"]


def test_a_torn_last_line_is_left_out_and_reported(tmp_path: Path) -> None:
    clock = Clock(1_000 * S)
    svoya_fight(tmp_path / "j1.jsonl", clock).journal.close()
    with (tmp_path / "j1.jsonl").open("ab") as f:
        f.write(b'{"at_ms": 1234567.0, "host": "cor')  # the power went mid-write
    clock.now += 5 * S
    console, events = restarted(tmp_path / "j1.jsonl", svoya_config(), clock)
    assert scores(console.state()) == {"p0": 20, "p1": 10, "p2": -20}
    errors = [e for e in events if e["type"] == "error"]
    assert len(errors) == 1 and errors[0]["source"] == "resume_partial"  # not "journal": it is written
    assert "was torn" in errors[0]["message"] and '"host": "cor' in errors[0]["message"]
    assert events[-1]["type"] == "resumed" and events[-1]["torn"] is True
    console.journal.close()
    appended = (tmp_path / "j1.jsonl").read_text(encoding="utf-8")
    assert "1234567" not in appended and appended.endswith("\n")  # the torn fragment was cut off
    assert all(json.loads(line) for line in appended.splitlines())  # every line whole


def test_lines_resuming_cannot_read_are_said_once_and_not_as_an_unwritten_journal(tmp_path: Path) -> None:
    """Two unreadable lines mid-journal (a disk's damage): the rest is resumed, and the host
    gets one notice that names the count and the first, worded as a partial read (the journal
    is being written), not «Журнал игры не пишется»."""
    clock = Clock(1_000 * S)
    svoya_fight(tmp_path / "j1.jsonl", clock).journal.close()
    lines = (tmp_path / "j1.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    damaged = [*lines[:3], '{"at_ms": 12.0, "bogus": 1}\n', "\x00\x00\x00\n", *lines[3:]]
    (tmp_path / "j1.jsonl").write_text("".join(damaged), encoding="utf-8")
    clock.now += 5 * S
    console, events = restarted(tmp_path / "j1.jsonl", svoya_config(), clock)
    assert scores(console.state()) == {"p0": 20, "p1": 10, "p2": -20}
    errors = [e for e in events if e["type"] == "error"]
    assert [e["source"] for e in errors] == ["resume_partial"], errors
    assert "2 line(s) of j1.jsonl left out" in errors[0]["message"] and "(and 1 more)" in errors[0]["message"]
    said = describe_notice(ConsoleError(t_ns=0, source="resume_partial", message="m"), {}, {})
    assert said is not None and said.startswith("Игра продолжена") and "не пишется" not in said
    console.journal.close()


def test_a_last_line_missing_only_its_newline_is_kept(tmp_path: Path) -> None:
    clock = Clock(1_000 * S)
    svoya_fight(tmp_path / "j1.jsonl", clock).journal.close()
    text = (tmp_path / "j1.jsonl").read_text(encoding="utf-8")
    (tmp_path / "j1.jsonl").write_text(text.rstrip("\n"), encoding="utf-8")
    found = resume.load(tmp_path / "j1.jsonl", svoya_config(), clock.now)
    assert isinstance(found, resume.Resumption) and found.torn is None and found.inputs == 17
    console, _ = restarted(tmp_path / "j1.jsonl", svoya_config(), clock)
    console.journal.close()
    lines = (tmp_path / "j1.jsonl").read_text(encoding="utf-8").splitlines()
    assert all(json.loads(line) for line in lines)  # the next line began a line of its own


def test_a_journal_of_another_config_is_offered_and_kept_aside_when_the_host_starts_afresh(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    base = tmp_path / "journal.jsonl"
    first = open_journal(str(base))
    assert first is not None
    clock = Clock(1_000 * S)
    old = Console(svoya_config(players=3), clock=clock, journal=first)
    old.journal.commit()  # as the daemon does at start
    old.host(HostAction.NEXT, at=clock.now)
    old.journal.close()
    [path] = tmp_path.iterdir()
    other = config_from_dict({
        "console": {"journal": str(base)},
        "players": [{"id": f"p{i}", "name": f"Игрок {i}", "pad": f"mcu:{i}"} for i in range(2)],
        "sources": {"mcu": {"kind": "simulated_mcu", "pads": 4}}}, "test")
    found = resume.prepare(other, clock.now)
    assert isinstance(found, resume.NotResumed) and found.offered
    assert "differs from this one in players" in found.why and found.differs == ("players",)
    assert path.exists() and found.kept_as is None  # nothing renamed until the host chooses
    console = Console(other, clock=clock, journal=open_journal(str(base)))
    events: list[dict[str, Any]] = []
    console.wire_watchers.append(events.append)
    resume.announce(console, found)
    assert [(e["type"], e["state"]) for e in events] == [("resume_offer", "offered")]
    assert console.state()["phase"] == "idle" and scores(console.state()) == {"p0": 0, "p1": 0}
    again = resume.prepare(other, clock.now)  # a restart now: asked again, this start not committed
    assert isinstance(again, resume.NotResumed) and again.path == path
    console.commands.on_command(b'{"action": "start_fresh"}')
    assert [(e["type"], e["state"]) for e in events][1:] == [("resume_offer", "declined")]
    kept = path.with_name(path.name.replace(".jsonl", ".not-resumed.jsonl"))
    assert kept.exists()  # (the name it had may be this start's now: a start in the same second)
    assert resume.prepare(other, clock.now) is None  # this start's journal (committed) has nothing yet
    console.journal.close()



def daily_fight(tmp_path: Path) -> tuple[Any, Clock]:
    """A question played and won in the day's journal (daemon.py's dated file in `tmp_path`), the
    console then gone: its config and clock."""
    base = tmp_path / "journal.jsonl"
    config = config_from_dict({"console": {"journal": str(base)},
                               "players": [{"id": f"p{i}", "name": f"Игрок {i}", "pad": f"mcu:{i}"}
                                           for i in range(3)],
                               "sources": {"mcu": {"kind": "simulated_mcu", "pads": 4}}}, "test")
    clock = Clock(1_000 * S)
    first = Console(config, clock=clock, journal=open_journal(str(base)))
    first.journal.commit()
    first.host(HostAction.NEXT, at=clock.now)
    clock.now += S
    press(first, 0, clock.now)
    clock.now += S
    first.host(HostAction.CORRECT, at=clock.now)
    first.journal.close()
    return config, clock


def test_each_restart_goes_on_in_the_days_journal_and_the_next_resumes_it(tmp_path: Path) -> None:
    config, clock = daily_fight(tmp_path)
    [path] = tmp_path.iterdir()
    for restart in range(2):  # two crashes in a row
        clock.now += 10 * S
        found = resume.prepare(config, clock.now)
        assert isinstance(found, resume.Resumption) and found.path == path, restart
        journal = Resumed(path, found.keep_bytes, needs_newline=found.needs_newline)
        console = Console(config, clock=clock, journal=journal, resume=found)
        resume.announce(console, found)
        console.journal.commit()
        assert scores(console.state()) == {"p0": 10, "p1": 0, "p2": 0}
        console.journal.close()
    assert list(tmp_path.glob("*.jsonl")) == [path]  # the day's one journal, appended to: no copies


def test_after_a_reboot_the_resumed_referee_runs_ahead_of_the_new_clock(tmp_path: Path) -> None:
    """The monotonic clock starts again near zero after a power cut: the referee's time must
    not go back (a press would be judged against times in its future), and this start's
    journal must stay in one timebase so that it replays to what was played live."""
    clock = Clock(5_000 * S)
    svoya_fight(tmp_path / "j1.jsonl", clock).journal.close()
    last = clock.now
    clock.now = 40 * S  # rebooted: 40 s since boot
    found = resume.load(tmp_path / "j1.jsonl", svoya_config(), 40 * S)
    console, events = restarted(tmp_path / "j1.jsonl", svoya_config(), clock)
    assert isinstance(found, resume.Resumption) and found.shift_ns > last - 40 * S
    assert events[-1]["type"] == "resumed" and events[-1]["voided"] == "question"
    assert events[0]["t_ns"] >= last  # the void is in the engine's time, after the journal's last
    clock.now += S
    console.host(HostAction.NEXT, at=clock.now)
    clock.now += S
    console.host(HostAction.READING_FINISHED, at=clock.now)
    clock.now += S
    press(console, 2, clock.now)
    clock.now += S
    console.host(HostAction.CORRECT, at=clock.now)
    live = {k: v for k, v in console.state().items() if k not in ("seq", "game")}
    assert scores(live) == {"p0": 20, "p1": 10, "p2": 10}
    console.journal.close()
    lines = [json.loads(line) for line in (tmp_path / "j1.jsonl").read_text(encoding="utf-8").splitlines()]
    times = [line.get("arrive_ms", line.get("at_ms", line.get("clock_ms"))) for line in lines[1:]]
    assert times == sorted(times)  # one timebase, the checkpoint's time included
    assert replayed_state(tmp_path / "j1.jsonl", clock.now + found.shift_ns) == live


def test_a_question_ended_by_the_clock_before_the_crash_is_not_voided(tmp_path: Path) -> None:
    """004 App.10: the window closed with no signal on the console's timer (its clock line is
    in the journal): that question is over and the next one is due, nothing to void."""
    clock = Clock(1_000 * S)
    journal = (tmp_path / "j1.jsonl").open("w", encoding="utf-8")
    console = Console(svoya_config(), clock=clock, journal=journal)
    console.host(HostAction.NEXT, at=clock.now)
    console.host(HostAction.READING_FINISHED, at=clock.now)
    deadline = console.referee.next_deadline()
    assert deadline is not None
    clock.now = deadline
    console.fire_due()  # what the loop's timer does when it is on time
    assert console.state()["last_end"]["reason"] == "no_signal"
    console.journal.close()
    clock.now += 10 * S
    restarted_console, events = restarted(tmp_path / "j1.jsonl", svoya_config(), clock)
    assert [e["type"] for e in events] == ["resumed"] and events[0]["voided"] is None
    state = restarted_console.state()
    assert state["phase"] == "idle" and state["next"]["number"] == 2


def test_every_input_kind_has_its_times_shifted() -> None:
    """Each input the engines take names its time in one of resume.TIME_FIELDS (a new input
    kind with another name would be fed to a shifted referee unshifted)."""
    classes = {cls for name in names() for cls in game(name).inputs}
    assert {Press, Watermark, Host, AngleSample, SectorPicked, ChgkHost, SportsHost} <= classes
    for cls in classes:
        names_ = {f.name for f in dataclasses.fields(cls)}
        assert names_ & set(resume.TIME_FIELDS), cls
    for inp in (Press("mcu", "mcu:0", 5), Watermark("mcu", 5), Host(HostAction.NEXT, 5),
                AngleSample(5, 100, 1), SectorPicked(3, 5, PickSource.TOP),
                ChgkHost(ChgkAction.START_TIMER, 5), SportsHost(SportsAction.START, 5)):
        moved = resume.shifted(inp, 10)
        assert type(moved) is type(inp)
        values = [getattr(moved, f.name) for f in dataclasses.fields(inp)]
        assert 15 in values and 5 not in values, inp


def test_every_voided_value_is_produced() -> None:
    def voided(kind: str) -> list[object]:
        return [e["voided"] for e in resumed_events(kind) if e["type"] == "resumed"]

    assert voided("svoya") == ["question", None]
    assert voided("table") == ["round", None, "count"]


def test_a_quartet_fight_voids_the_question_in_play_of_its_theme() -> None:
    """The «Эрудит-квартет» judges each theme with the «Своя игра» referee (004 §III 3.3):
    a crash mid-question voids that question as in «Своя игра» (004 IV 4.3, App.9) and leaves
    the theme, its seats and the points already taken; between questions nothing is voided."""
    f = Fight()
    f.cmd("start_round", themes=[f"Тема {i}" for i in range(1, 5)])
    f.assign_all(None)
    f.cmd("start_theme")
    f.question("t1")  # 10 to t1
    assert game("quartet").interrupted(f.fight, f.now) is None  # between questions: nothing in play
    f.host(HostAction.NEXT)
    f.advance(S)
    f.press("t2")  # the turn is t2's when the power goes
    before = f.fight.snapshot(f.now)
    voiding = game("quartet").interrupted(f.fight, f.now)
    assert voiding is not None and voiding[1] == "question"
    assert len(voiding[0]) == 1  # the withdrawal only: the theme's points stand
    f.deliver(voiding[0][0])
    referee = f.fight.referee
    assert referee is not None and referee.phase.value == "idle"
    after = f.fight.snapshot(f.now)
    assert after["teams"] == before["teams"]  # seats and points as they were
    assert [e["reason"] for e in f.events("question_ended")][-1] == "cancelled"


def test_a_forgotten_pack_is_offered_and_resumed_with_the_journals_own_pack(tmp_path: Path) -> None:
    """`run --pack FILE` forgotten at a restart: the journal's game section names its pack,
    so the fight is offered (it differs in `game`) and resumed with its own settings plays on
    in that pack (004 IV 4.3: the questions played stand; the next one is the pack's next)."""
    pack = Path(__file__).resolve().parent.parent / "examples" / "packs" / "club-evening.toml"
    plain = svoya_config()
    with_pack = dataclasses.replace(plain, game=dataclasses.replace(plain.game, pack=str(pack)))
    clock = Clock(1_000 * S)
    journal = tmp_path / "journal-20261202-190500.jsonl"
    before = Console(with_pack, clock=clock, journal=journal.open("w", encoding="utf-8"))
    before.host(HostAction.NEXT, at=clock.now)
    clock.now += S
    press(before, 0, clock.now)
    clock.now += S
    before.host(HostAction.CORRECT, at=clock.now)
    played = before.state()
    before.journal.close()
    forgot = svoya_config()  # the same config, no pack
    found = resume.load(journal, forgot, clock.now + S)
    assert isinstance(found, resume.NotResumed) and found.differs == ("game",)
    own = resume.with_journal_settings(forgot, journal)
    assert isinstance(own, type(forgot)) and own.game.pack == str(pack)
    clock.now += 10 * S
    console, _ = restarted(journal, own, clock)
    state = console.state()
    assert scores(state) == scores(played) and state["next"] == played["next"]
    assert state["next"]["number"] == 2 and state["next"]["theme_name"] == "Реки"  # the pack goes on


def test_after_a_reboot_a_pack_chosen_on_the_tablet_is_played_and_its_media_shown(tmp_path: Path) -> None:
    """The referee resumed ahead of a new clock (a power cut) is the same referee to the pack
    choice and the hall's media (issue 19): the chosen pack is played, its picture shown, and
    the problems status follows the chosen pack."""
    from tests.support.packs import package

    packs = tmp_path / "packs"
    packs.mkdir()
    package(packs)
    config = config_from_dict({
        "game": {"seed": 3, "pack_dir": str(packs)},
        "players": [{"id": f"p{i}", "name": f"Игрок {i}", "pad": f"mcu:{i}"} for i in range(2)],
        "sources": {"mcu": {"kind": "simulated_mcu", "pads": 2}},
    }, "test")
    clock = Clock(5_000 * S)
    first = Console(config, clock=clock, journal=(tmp_path / "j1.jsonl").open("w", encoding="utf-8"))
    first.host(HostAction.NEXT, at=clock.now)
    clock.now += S
    first.host(HostAction.CANCEL, at=clock.now)
    first.journal.close()
    clock.now = 40 * S  # rebooted: 40 s since boot
    console, events = restarted(tmp_path / "j1.jsonl", config, clock)
    assert isinstance(console.referee, resume.TimeShifted)
    console.commands.on_command(b'{"action": "choose_pack", "file": "pictures.siq"}')
    assert console.host_state()["pack"]["file"] == "pictures.siq"
    console.commands.on_command('{"action": "show_media", "name": "карта реки.png"}'.encode())
    assert console.own.hall_media.shown == {"name": "карта реки.png", "kind": "image"}
    assert [e for e in events if e["type"] == "error"] == []


def test_an_empty_journal_beside_a_fight_does_not_hide_it(tmp_path: Path) -> None:
    """Issue 31: an empty journal file that appears beside a fight (named as a later start's)
    still lets the fight resume."""
    config, clock = daily_fight(tmp_path)
    [fight] = tmp_path.glob("*.jsonl")
    import time as _time

    (tmp_path / f"journal-{_time.strftime('%Y%m%d')}-235959.jsonl").touch()  # today's, and newer
    found = resume.prepare(config, clock.now + 10 * S)
    assert isinstance(found, resume.Resumption) and found.path == fight


def big_pack(folder: Path, themes: int = 24, text_chars: int = 3900) -> Path:
    """A pack of about `themes` × 5 × `text_chars` letters (megabytes in UTF-8)."""
    lines = ['name = "Большой пакет"']
    for t in range(themes):
        lines += ["[[themes]]", f'name = "Тема {t + 1}"', 'round = "Первый раунд"']
        for q in range(5):
            body = f"Вопрос {t + 1}.{q + 1} " + "ж" * text_chars
            lines += ["[[themes.questions]]", f"value = {10 * (q + 1)}", f'text = "{body}"',
                      'answer = "ответ"']
    path = folder / "большой.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_chosen_pack_is_not_copied_into_every_checkpoint(tmp_path: Path) -> None:
    """Issue 31: a pack chosen on the tablet was pickled into every checkpoint, one at each
    restart among them (+40 MB a restart with a 30-MB pack). Its journal line holds it whole,
    once; the checkpoints refer to it, and a restart resumes from the last checkpoint with the
    pack in play."""
    packs = tmp_path / "packs"
    packs.mkdir()
    pack = big_pack(packs)
    config = config_from_dict({
        "console": {"journal": str(tmp_path / "journal.jsonl")},
        "game": {"seed": 3, "pack_dir": str(packs), "themes": 0},
        "players": [{"id": f"p{i}", "name": f"Игрок {i}", "pad": f"mcu:{i}"} for i in range(2)],
        "sources": {"mcu": {"kind": "simulated_mcu", "pads": 2}},
    }, "test")
    path = tmp_path / "journal-20261205-190000.jsonl"
    clock = Clock(5_000 * S)
    first = Console(config, clock=clock, journal=path.open("w", encoding="utf-8"))
    first.commands.on_command(json.dumps({"action": "choose_pack", "file": pack.name}).encode())
    first.host(HostAction.NEXT, at=clock.now)
    clock.now += S
    first.host(HostAction.CANCEL, at=clock.now)
    first.journal.close()
    chosen = path.stat().st_size
    assert chosen > 400_000  # the choice's line holds the pack
    for restart in range(3):
        clock.now += 10 * S
        console, events = restarted(path, config, clock)
        console.journal.close()
        grown = path.stat().st_size - chosen
        assert grown < 20_000 * (restart + 1), f"restart {restart + 1} added {grown} bytes"
        state = console.host_state()
        assert state["pack"]["file"] == pack.name and [e for e in events if e["type"] == "error"] == []
    lines = path.read_text(encoding="utf-8").splitlines()
    assert sum(line.startswith('{"checkpoint"') for line in lines) == 3
    found = resume.load(path, config, clock.now)
    assert isinstance(found, resume.Resumption)
    assert found.engine.rules.pack[0].cards[0].text.startswith("Вопрос 1.1 ")  # type: ignore[attr-defined]
    assert read_journal(path, checkpoint_key(config.console.journal), lambda _: found.references
                        ).checkpoint is not None  # resumed from the checkpoint, not a whole replay


def test_a_journal_of_another_game_is_offered_as_such_not_by_its_sections(tmp_path: Path) -> None:
    """Issue 34: after a change of game on the same node the offer listed internal keys
    («auto_watermark, spin, table, teams»): it says it was another game."""
    base = tmp_path / "journal.jsonl"
    first = open_journal(str(base))
    assert first is not None
    clock = Clock(1_000 * S)
    old = Console(svoya_config(players=3), clock=clock, journal=first)
    old.journal.commit()
    old.host(HostAction.NEXT, at=clock.now)
    old.journal.close()
    ring = config_from_dict({
        "console": {"journal": str(base)}, "game": {"kind": "brainring"},
        "brainring": {"teams": [{"id": "t1", "name": "Совы", "pads": ["mcu:0"]},
                                {"id": "t2", "name": "Ежи", "pads": ["mcu:1"]}]},
        "sources": {"mcu": {"kind": "simulated_mcu", "pads": 2}}}, "test")
    found = resume.prepare(ring, clock.now)
    assert isinstance(found, resume.NotResumed) and found.differs == ("kind",)
