"""The journal made durable: synced after every decision, never before the lamps, on its own
thread; a decision taken on the console's own timer leaves a clock line that replay reads."""

from __future__ import annotations

import asyncio
import errno
import io
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from console.engine.model import HostAction, Press, Watermark
from console.games import config_from_dict
from console.notices import JournalStatus
from console.shell.journal import RETRY_S, Journal
from console.shell.journal_files import JournalFiles
from console.shell.runtime import Console
from console.tools.replay import replay_lines

MS = 1_000_000
S = 1_000_000_000


def quiet(source: str, message: str) -> None:
    raise AssertionError(f"{source}: {message}")


def svoya_config(**game: Any) -> Any:
    return config_from_dict({
        "game": {"seed": 5, **game},
        "players": [{"id": f"p{i}", "name": f"Игрок {i}", "pad": f"mcu:{i}"} for i in range(3)],
        "sources": {"mcu": {"kind": "simulated_mcu", "pads": 3}},
    }, "test")


class Lamps:
    def __init__(self, order: list[str]) -> None:
        self.order = order

    def set_lamps(self, on: int, blink: int) -> None:
        self.order.append(f"lamp {on}")


def wait_for(predicate: Any, within: float = 5.0) -> bool:
    """The syncer is a thread: wait for it (not a rules test; no engine time involved)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.005)
    return bool(predicate())


def test_a_decision_is_synced_after_its_lamp_and_event(tmp_path: Path) -> None:
    order: list[str] = []
    with (tmp_path / "journal.jsonl").open("w", encoding="utf-8") as file:
        console = Console(svoya_config(), journal=file)
        console.sources.links["mcu"] = Lamps(order)  # type: ignore[assignment]  # only set_lamps is used
        console.watchers.append(lambda event: order.append(event.TYPE))
        journal = console.journal
        asked = journal.sync_soon

        def noted() -> None:
            order.append("sync")
            asked()

        journal.sync_soon = noted  # type: ignore[method-assign]
        console.host(HostAction.NEXT, at=1_000 * MS)
        order.clear()
        console.feed([Press("mcu", "mcu:1", 2_000 * MS), Watermark("mcu", 2_000 * MS)], now=2_001 * MS)
        assert order == ["lamp 2", "signal_accepted", "sync"]
        assert wait_for(lambda: journal.syncs >= 1)  # the syncer got to it (requests coalesce)
        journal.close()


def test_inputs_that_decide_nothing_ask_for_no_sync(tmp_path: Path) -> None:
    with (tmp_path / "journal.jsonl").open("w", encoding="utf-8") as file:
        console = Console(svoya_config(), journal=file)
        asked: list[int] = []
        console.journal.sync_soon = lambda: asked.append(1)  # type: ignore[method-assign]
        console.feed([Watermark("mcu", 1_000 * MS)], now=1_000 * MS)  # nothing decided
        assert asked == []
        console.host(HostAction.NEXT, at=2_000 * MS)
        assert asked == [1]
        console.journal.close()


def test_the_syncer_really_syncs_and_close_syncs_the_rest(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    real = os.fdatasync

    def counted(fd: int) -> None:
        synced.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fdatasync", counted)
    file = (tmp_path / "journal.jsonl").open("w", encoding="utf-8")
    journal = Journal(file, lambda source, message: None)
    journal.write({"at_ms": 1, "host": "next"})
    journal.sync_soon()
    assert wait_for(lambda: journal.syncs == 1)
    assert synced == [file.fileno()]
    journal.write({"at_ms": 2, "host": "cancel"})
    journal.close()
    assert len(synced) == 2 and file.closed
    assert (tmp_path / "journal.jsonl").read_text(encoding="utf-8").count("\n") == 2


def test_a_sync_that_fails_is_said_once_and_the_journal_kept_until_the_disk_recovers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_fdatasync = os.fdatasync
    disk_ok = False

    def disk(fd: int) -> None:
        if not disk_ok:
            raise OSError(errno.EIO, "Input/output error")
        real_fdatasync(fd)

    monkeypatch.setattr(os, "fdatasync", disk)
    states: list[tuple[str, str]] = []
    journal = Journal((tmp_path / "journal.jsonl").open("w", encoding="utf-8"), quiet,
                      on_state=lambda state, detail: states.append((state, detail)))
    journal.write({"at_ms": 1, "host": "next"})
    # The syncer thread fails; the loop's thread hears of it at its next request.
    def asked_and_told() -> bool:
        journal.sync_soon()
        return bool(states)

    assert wait_for(asked_and_told)
    journal.sync_soon()
    journal.write({"at_ms": 2, "host": "correct"})
    assert len(states) == 1 and states[0][0] == "failing"
    assert "cannot sync" in states[0][1] and "Input/output error" in states[0][1]
    assert journal.open and journal.failing is not None
    journal.retry(10 * S)  # the disk still fails: nothing more said
    assert len(states) == 1
    disk_ok = True
    journal.retry(10 * S + round(RETRY_S * S) // 2)  # too soon after the last try
    assert len(states) == 1
    journal.retry(12 * S)
    assert [s for s, _ in states] == ["failing", "writing"] and journal.failing is None
    assert (tmp_path / "journal.jsonl").read_text(encoding="utf-8").count("\n") == 2
    journal.close()


def syncers() -> int:
    return sum(thread.name == "journal-sync" for thread in threading.enumerate())


def test_an_in_memory_journal_needs_no_syncer() -> None:
    before = syncers()
    journal = Journal(io.StringIO(), lambda source, message: None)
    journal.write({"at_ms": 1, "host": "next"})
    journal.sync_soon()
    assert syncers() == before and journal.syncs == 0


def test_a_timer_decision_leaves_a_clock_line_that_replay_reads() -> None:
    """004 App.10: the window closes with no signal on the console's own timer; the journal
    says how far the clock got, so a journal cut right after still ends the question."""
    journal = io.StringIO()
    console = Console(svoya_config(signal_window_s=0.05), journal=journal)

    async def play() -> None:
        console.host(HostAction.NEXT)
        console.host(HostAction.READING_FINISHED)
        await asyncio.sleep(0.2)

    asyncio.run(play())
    lines = [json.loads(line) for line in journal.getvalue().splitlines()]
    assert "clock_ms" in lines[-1] and set(lines[-1]) == {"clock_ms"}
    assert lines[-1]["clock_ms"] > lines[-2]["at_ms"] + 50
    out, err = io.StringIO(), io.StringIO()
    assert replay_lines(io.StringIO(journal.getvalue()), "journal", out, err) == 0, err.getvalue()
    assert [json.loads(e)["type"] for e in out.getvalue().splitlines()][-1] == "question_ended"


def test_a_journal_shifted_after_a_reboot_writes_every_time_shifted() -> None:
    file = io.StringIO()
    journal = Journal(file, lambda source, message: None, shift_ns=5_000 * MS)
    journal.write({"at_ms": 1.0, "arrive_ms": 2.0, "press": "mcu:0"})
    journal.write({"clock_ms": 3.0})
    journal.write({"config": {"game": {"seed": 1}}})
    assert [json.loads(line) for line in file.getvalue().splitlines()] == [
        {"at_ms": 5001.0, "arrive_ms": 5002.0, "press": "mcu:0"}, {"clock_ms": 5003.0},
        {"config": {"game": {"seed": 1}}}]


def test_replay_refuses_a_bad_clock_line() -> None:
    out, err = io.StringIO(), io.StringIO()
    status = replay_lines(io.StringIO('{"at_ms": 0, "host": "next"}\n{"clock_ms": "soon"}\n'),
                          "j", out, err)
    assert status == 1 and "j:2: clock_ms must be a (finite) number" in err.getvalue()


def test_a_journal_that_could_not_be_created_at_start_is_created_when_it_can_be(tmp_path: Path) -> None:
    """Nothing waited in memory is lost: the journal made later begins with the config line
    and holds the host's action taken while it could not be written, and replays."""
    blocked = tmp_path / "disk"
    blocked.write_text("", encoding="utf-8")
    states: list[str] = []
    console = Console(svoya_config(), journal=JournalFiles(blocked / "journal.jsonl"))
    console.watchers.append(lambda e: states.append(e.state) if isinstance(e, JournalStatus) else None)
    assert console.journal_status is not None  # failing from the start (said before any watcher)
    assert console.journal_status["state"] == "failing" and "create" in console.journal_status["detail"]
    console.host(HostAction.NEXT)
    blocked.unlink()
    blocked.mkdir()
    console.journal.retry(time.monotonic_ns())
    assert states == ["writing"] and console.journal_status["state"] == "writing"
    console.journal.close()
    (written,) = blocked.iterdir()
    assert not written.name.endswith(".part")  # committed once written
    lines = written.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith('{"config"') and '"host": "next"' in lines[1]
    out = io.StringIO()
    assert replay_lines(lines, written.name, out, io.StringIO()) == 0
    assert "question_started" in out.getvalue()
