"""Replay: scenarios in virtual time, bad lines, and the journal replaying to the same decisions."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from console.engine.model import NS_PER_MS, Host, HostAction, Press, Watermark
from console.games import config_from_dict
from console.shell.runtime import Console
from console.tools.replay import replay_file, replay_lines
from tests.engine_harness import svoya_of

ROOT = Path(__file__).resolve().parent.parent


def replay(text: str) -> tuple[int, list[dict[str, Any]], str]:
    out, err = io.StringIO(), io.StringIO()
    status = replay_lines(io.StringIO(text), "scenario.jsonl", out, err)
    return status, [json.loads(line) for line in out.getvalue().splitlines()], err.getvalue()


def test_every_example_replays() -> None:
    examples = sorted((ROOT / "examples").glob("*.jsonl"))
    assert len(examples) > 10
    for example in examples:
        status, events, err = replay(example.read_text(encoding="utf-8"))
        assert status == 0, (example.name, err)
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1)), example.name


@pytest.mark.process  # the command as a process: what is tested (each example: above, in process)
def test_an_example_replays_from_the_command_line() -> None:
    example = ROOT / "examples" / "photo-finish.jsonl"
    done = subprocess.run([sys.executable, "-m", "console.cli", "replay", str(example)],
                          capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events == replay(example.read_text(encoding="utf-8"))[1]  # the same as in process


def test_photo_finish_example_is_decided_on_source_time() -> None:
    _status, events, _ = replay((ROOT / "examples" / "photo-finish.jsonl").read_text())
    decision = next(e for e in events if e["type"] == "signal_accepted")
    assert decision["player"] == "gleb"  # pressed first, delivered last
    assert [(p["player"], p["behind_ms"]) for p in decision["presses"]] == [
        ("gleb", 0.0), ("anna", 0.07), ("boris", 1.72)]


def test_bad_lines_are_named_and_the_rest_is_replayed() -> None:
    status, events, err = replay(
        '{"at_ms": 0, "host": "next"}\n'
        "not json\n"
        '{"at_ms": 5, "host": "dance"}\n'
        '{"at_ms": 30, "press": "mcu:0", "arrive_ms": 2}\n'
        '{"at_ms": 7, "press": "mcu:0", "host": "next"}\n'
        '{"at_ms": 10, "press": "mcu:1"}\n'
    )
    assert status == 1
    assert "scenario.jsonl:2: not JSON" in err
    assert "scenario.jsonl:3: unknown host action 'dance'" in err
    assert "scenario.jsonl:4: arrive_ms is more than 20 ms before at_ms" in err
    assert "scenario.jsonl:5: a step needs exactly one of" in err
    assert [e["type"] for e in events][:2] == ["question_started", "signal_accepted"]
    assert events[1]["player"] == "p2"


def test_hostile_lines_are_named_not_tracebacks() -> None:
    """Absurd nesting, non-finite times, a null where a number goes: each line is named and
    skipped, the rest replayed."""
    status, events, err = replay(
        '{"at_ms": 0, "host": "next"}\n'
        + '{"at_ms": 1, "host": ' + "[" * 5000 + "]" * 5000 + "}\n"
        + '{"at_ms": NaN, "host": "next"}\n'
        + '{"at_ms": Infinity, "host": "next"}\n'
        + '{"at_ms": 10, "press": "mcu:1"}\n'
    )
    assert status == 1
    assert "scenario.jsonl:2: not a scenario step (nested too deeply)" in err
    assert "scenario.jsonl:3: at_ms must be a (finite) number" in err
    assert "scenario.jsonl:4: at_ms must be a (finite) number" in err
    assert "Traceback" not in err
    assert [e["type"] for e in events][:2] == ["question_started", "signal_accepted"]


def test_a_time_too_big_for_a_float_is_a_named_line() -> None:
    huge = "1" + "0" * 400  # valid JSON; no float holds it
    status, _events, err = replay(f'{{"at_ms": 0, "host": "next"}}\n{{"at_ms": {huge}, "host": "next"}}\n')
    assert status == 1
    assert "scenario.jsonl:2: at_ms must be a (finite) number" in err


def test_a_binary_file_is_named_and_refused(tmp_path: Path) -> None:
    path = tmp_path / "photo.jpg"
    path.write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00")
    out, err = io.StringIO(), io.StringIO()
    assert replay_file(str(path), out, err) == 2
    assert f"replay: {path}: not a scenario (not UTF-8 text" in err.getvalue()


def test_an_unusable_config_line_stops_replay() -> None:
    status, events, err = replay('{"config": {"players": []}}\n{"at_ms": 0, "host": "next"}\n')
    assert status == 2 and events == []
    assert "2 to 4 players" in err


def test_the_journal_replays_to_the_same_decisions() -> None:
    """What the console decided live, replay decides again from its journal."""
    config = config_from_dict({
        "game": {"signal_window_s": 0.15, "answer_window_s": 0.1, "seed": 5},
        "players": [{"id": f"p{i}", "name": f"Игрок {i}", "pad": f"mcu:{i}"} for i in range(3)],
        "sources": {"mcu": {"kind": "simulated_mcu", "max_delay_ms": 2}},
    }, "test")
    journal = io.StringIO()
    now = [1_000_000 * NS_PER_MS]  # the console's clock, stepped by hand (no sleeping)
    console = Console(config, journal=journal, clock=lambda: now[0])
    live: list[dict[str, Any]] = []
    console.wire_watchers.append(live.append)

    def wait(ms: float) -> None:
        """`ms` pass: what falls due meanwhile fires at its time, as the console's timer fires it."""
        end = now[0] + round(ms * NS_PER_MS)
        while (due := console.referee.next_deadline()) is not None and due <= end:
            now[0] = max(now[0], due)
            console.fire_due(now[0])
        now[0] = end

    console.host(HostAction.NEXT)
    wait(10)
    # A tie inside one MCU scan, then the 3-s clock (0.1 s here) runs out.
    console.feed([Press("mcu", "mcu:1", now[0]), Press("mcu", "mcu:2", now[0]), Watermark("mcu", now[0])])
    console.host(HostAction.NAME)
    wait(200)
    console.feed([Host(HostAction.RESET, now[0])])
    console.host(HostAction.READING_FINISHED)
    wait(300)  # nobody signals: the window closes on the console's timer
    status, replayed, err = replay(journal.getvalue())
    assert status == 0, err

    def decisions(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in e.items() if k != "t_ns"} for e in events]

    assert [e["type"] for e in live] == [
        "question_started", "signal_accepted", "answer_clock_started", "answer_judged",
        "signals_reset", "reading_finished", "question_ended"]
    assert decisions(replayed) == decisions(live)


def _journal_config() -> Any:
    return config_from_dict({
        "game": {"seed": 5},
        "players": [{"id": f"p{i}", "name": f"Игрок {i}", "pad": f"mcu:{i}"} for i in range(3)],
        "sources": {"mcu": {"kind": "simulated_mcu", "max_delay_ms": 2}},
    }, "test")


def test_a_journal_on_a_full_disk_is_said_once_and_no_press_is_lost() -> None:
    with open("/dev/full", "w", encoding="utf-8") as journal:  # every write: ENOSPC
        console = Console(_journal_config(), journal=journal)
        events: list[dict[str, Any]] = []
        console.wire_watchers.append(events.append)
        console.host(HostAction.NEXT, at=1_000)
        console.feed([Press("mcu", "mcu:1", 2_000), Watermark("mcu", 2_000)], now=3_000)
        console.feed([Press("mcu", "mcu:2", 4_000), Watermark("mcu", 4_000)], now=5_000)
        console.journal.retry(10**10)  # still full: tried again, nothing more said
        assert console.journal.failing is not None and "No space left on device" in console.journal.failing
        assert console.journal_status == {"state": "failing", "detail": console.journal.failing}
    assert svoya_of(console).phase == "answering"
    assert [e["player"] for e in events if e["type"] == "signal_accepted"] == ["p1"]
    assert [e["type"] for e in events if e["type"] in ("error", "journal_status")] == []  # said before


def test_a_journal_on_a_full_device_at_start_does_not_stop_the_console() -> None:
    with open("/dev/full", "w", encoding="utf-8") as journal:  # every flush: ENOSPC
        console = Console(_journal_config(), journal=journal)
        events: list[dict[str, Any]] = []
        console.wire_watchers.append(events.append)
        console.host(HostAction.NEXT, at=1_000)
        console.feed([Press("mcu", "mcu:0", 2_000), Watermark("mcu", 2_000)], now=3_000)
    assert [e["type"] for e in events][:2] == ["question_started", "signal_accepted"]


def test_the_12th_sectors_question_draw_replays_from_the_journal(tmp_path: Path) -> None:
    """000 4.2 г: the 12th sector's random question is drawn by the engine with the game's seed,
    so the journal's replay asks the same questions as the live game (the journal's header
    names the question file by its full path, wherever the journal is read)."""
    from console.engine.chgk.rules import ChgkAction, ChgkHost, PickSource, SectorPicked
    from console.games import load_config

    data = Path(__file__).resolve().parent.parent / "console" / "data"
    game_dir = tmp_path / "club"
    game_dir.mkdir()
    (game_dir / "console.toml").write_text((data / "demo-chgk.toml").read_text(encoding="utf-8"),
                                           encoding="utf-8")
    (game_dir / "questions-demo.txt").write_bytes((data / "questions-demo.txt").read_bytes())
    journal = io.StringIO()
    console = Console(load_config(game_dir / "console.toml"), journal=journal)
    live: list[dict[str, Any]] = []
    console.wire_watchers.append(live.append)
    for _ in range(2):  # sector 8 is the 12th sector; cancelled, it is played again: a new draw
        console.feed([SectorPicked(8, console.clock(), PickSource.HOST)])
        console.feed([ChgkHost(ChgkAction.CANCEL_ROUND, console.clock())])

    elsewhere = tmp_path / "journals" / "game.jsonl"
    elsewhere.parent.mkdir()
    elsewhere.write_text(journal.getvalue(), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert replay_file(str(elsewhere), out, err) == 0, err.getvalue()

    def drawn(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in e.items() if k != "seq"} for e in events
                if e["type"] in ("question_drawn", "question_source")]

    live_draws = drawn(live)
    assert [e["type"] for e in live_draws] == ["question_drawn", "question_source"] * 2
    assert live_draws[0]["text"] != live_draws[2]["text"]  # no repeats within the game
    assert drawn([json.loads(line) for line in out.getvalue().splitlines()]) == live_draws


def test_a_timer_that_never_moves_on_fails_instead_of_hanging(monkeypatch: pytest.MonkeyPatch) -> None:
    """A referee whose timer leaves its deadline due (a `>` for a `>=`, a deadline a ns late)
    stops the replay with StuckTimer, naming the deadline, instead of looping for ever."""
    from console.playback import StuckTimer
    from tests.engine_harness import S, Table

    t = Table()
    t.host(HostAction.NEXT)
    t.advance(1 * S)
    t.host(HostAction.READING_FINISHED)
    monkeypatch.setattr(t.ref, "on_timer", lambda now: [])  # the bug: nothing is ever settled
    with pytest.raises(StuckTimer, match=r"on_timer\(\d+\) left its next deadline at \d+"):
        t.advance(10 * S)


def live_and_replayed(kind: str, commands: list[dict[str, object]]) -> tuple[list[str], list[str], int]:
    """The `commands` through a console of `kind` driven by hand; its events, and those its
    journal replays to (with replay's status)."""
    import tomllib

    from console.games import config_from_dict
    from console.shell.runtime import Console
    from tests.support.clock import Clock
    from tests.support.game_kinds import KINDS

    toml = '[console]\nnode = "t1"\njournal = ""\n' + KINDS[kind].config + "[sound]\nenabled = false\n"
    clock, journal = Clock(), io.StringIO()
    console = Console(config_from_dict(tomllib.loads(toml), "test"), clock=clock, journal=journal)
    events: list[dict[str, object]] = []
    console.wire_watchers.append(events.append)
    for command in commands:
        console.commands.on_command(json.dumps(command).encode())
        clock.now += 10**9
    out, err = io.StringIO(), io.StringIO()
    status = replay_lines(journal.getvalue().splitlines(), "journal", out, err)
    replayed = [json.loads(line) for line in out.getvalue().splitlines()]
    def kept(found: list[dict[str, object]]) -> list[str]:
        return [json.dumps({k: v for k, v in e.items() if k not in ("seq", "t_ns")}, ensure_ascii=False,
                           sort_keys=True) for e in found if e["type"] not in ("state", "source_status")]
    return kept(events), kept(replayed), status


def test_a_roster_change_with_an_empty_argument_replays_as_the_console_took_it() -> None:
    """Issue 31: «Своя игра»'s roster changes dropped an empty argument from their journal line,
    and replay then refused the line (exit 1): an empty name, refused by the referee, replays
    to the same refusal."""
    live, replayed, status = live_and_replayed("svoya", [
        {"action": "add_player", "name": ""}, {"action": "rename_player", "player": "p1", "name": ""}])
    assert status == 0
    refusals = [e for e in replayed if '"command_refused"' in e or '"error"' in e]
    assert len(refusals) == 2 and set(refusals) <= set(live)


def test_a_team_whose_town_is_cleared_replays_without_it() -> None:
    """Issue 31: the sports stage wrote a cleared town ("") as no town at all, so the replayed
    sheet kept the old one."""
    live, replayed, status = live_and_replayed("sports", [
        {"action": "add_team", "name": "Совы", "town": "Тверь"},
        {"action": "edit_team", "team": 1, "town": ""}])
    assert status == 0
    changes = [e for e in replayed if '"sheet_changed"' in e]
    assert len(changes) == 2 and changes == [e for e in live if '"sheet_changed"' in e]
