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
from console.shell.journal import Journal
from console.shell.runtime import Console
from console.tools.replay import replay_lines

MS = 1_000_000


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
        console.links["mcu"] = Lamps(order)  # type: ignore[assignment]  # only set_lamps is used
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


def test_a_sync_that_fails_is_reported_once_and_the_journal_dropped(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(fd: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "fdatasync", broken)
    reports: list[str] = []
    journal = Journal((tmp_path / "journal.jsonl").open("w", encoding="utf-8"),
                      lambda source, message: reports.append(f"{source}: {message}"))
    journal.write({"at_ms": 1, "host": "next"})
    # The syncer thread fails; the loop's thread hears of it at its next request.
    def asked_and_told() -> bool:
        journal.sync_soon()
        return bool(reports)

    assert wait_for(asked_and_told)
    journal.sync_soon()
    assert len(reports) == 1 and "cannot sync" in reports[0] and "Input/output error" in reports[0]
    assert not journal.open


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
