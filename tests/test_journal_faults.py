"""The journal's disk faults, tried as a club would meet them: `chgk-console run` as a process
(real mosquitto, the simulated box), its journal on a small tmpfs that the test fills up or
makes read-only, and kill -9 to end each run. Nothing decided is lost and the host is told:
the lines wait in memory while the disk refuses them (journal_status failing, the retained
status's journal), reach it once it takes them again, and the next start resumes them all.

Mounting needs root (CI runs as root); elsewhere these tests are skipped with that reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import functools
import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.resume import evening_config, record_evening
from console.games import config_from_dict, load_config
from console.shell import resume
from drivers.sim_mcu import SimulatedMcu
from tests.conftest import Broker, until
from tests.support.mqtt_console import Display, display
from tests.support.resume_process import (
    SVOYA,
    box_connected,
    daemon,
    events_after,
    online,
    question,
    scores,
    sim,
    state_where,
    write_config,
)

__all__ = ["sim"]  # the simulated box, a fixture of tests/support/resume_process.py
TOPICS = ("chgk/t1/events", "chgk/t1/state", "chgk/t1/status")


def _mount(*args: str) -> None:
    subprocess.run(["mount", *args], check=True, capture_output=True, text=True)


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    """A 2-MiB tmpfs at tmp_path/journal (where write_config puts the journal)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs for the journal needs root (CI runs as root)")
    where = tmp_path / "journal"
    where.mkdir()
    try:
        _mount("-t", "tmpfs", "-o", "size=2m,mode=0755", "tmpfs", str(where))
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"cannot mount a tmpfs here: {exc}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False, capture_output=True)


def fill(where: Path) -> Path:
    """Fill the file system at `where` to the last byte; the filler file, to free it again."""
    filler = where / "filler"
    with filler.open("wb", buffering=0) as out:
        chunk = b"\0" * 65536
        with contextlib.suppress(OSError):
            while True:
                out.write(chunk)
        with contextlib.suppress(OSError):  # the last few bytes
            while True:
                out.write(b"\0")
    try:
        probe = where / "probe"
        probe.write_bytes(b"x")
    except OSError as exc:
        assert exc.errno == errno.ENOSPC
    else:
        raise AssertionError("the disk did not fill up")
    return filler


def journal_said(d: Display, after: int, state: str) -> list[dict[str, Any]]:
    return [e for e in events_after(d, after, "journal_status") if e["state"] == state]


def last_status(d: Display) -> dict[str, Any]:
    return next(p for t, p in reversed(d.seen) if t.endswith("/status"))


async def resumed_scores(d: Display, config: Path, run: int) -> dict[str, int]:
    """Start the daemon again: the scores it resumed the fight with."""
    mark = len(d.seen)
    async with daemon(config, run):
        resumed = await d.wait_for(lambda: events_after(d, mark, "resumed"), within=20)
        state = await state_where(d, lambda p: p["seq"] >= resumed[0]["seq"], after=mark)
        return scores(state)


async def test_a_disk_that_fills_up_mid_fight_loses_nothing_once_it_has_room_again(
        mosquitto: Broker, tmp_path: Path, disk: Path, sim: SimulatedMcu) -> None:
    config = write_config(tmp_path, mosquitto, SVOYA.format(port=sim.port))
    async with display(mosquitto, *TOPICS) as d:
        async with daemon(config, 1) as first:
            await online(d, 0)
            await box_connected(d)
            assert last_status(d)["journal"]["state"] == "writing"
            await question(d, mosquitto, sim, 0, b"correct")  # Аня +10, on the disk
            filler = fill(disk)
            mark = len(d.seen)
            # The journal's last page still has room for a few lines: questions until it is full.
            for _ in range(12):
                full = await question(d, mosquitto, sim, 1, b"correct")  # Боря, while the disk fills
                if journal_said(d, mark, "failing"):
                    break
            said = journal_said(d, mark, "failing")
            assert said and "No space left on device" in said[0]["detail"]
            full = await question(d, mosquitto, sim, 0, b"correct")  # Аня, decided with the disk full
            await d.wait_for(lambda: last_status(d).get("journal", {}).get("state") == "failing")
            filler.unlink()  # room again: what waited reaches the disk within a second or two
            await d.wait_for(lambda: journal_said(d, mark, "writing"), within=10)
            assert last_status(d)["journal"]["state"] == "writing"
            first.send_signal(signal.SIGKILL)
            await first.wait()
        assert await resumed_scores(d, config, 2) == scores(full) and scores(full)["p2"] > 0


async def test_a_start_on_a_full_disk_never_hides_the_fight_and_writes_once_it_can(
        mosquitto: Broker, tmp_path: Path, disk: Path, sim: SimulatedMcu) -> None:
    """Started on a full card, the console cannot even begin its journal: it says so, the
    fight of the journal before it is resumed all the same (its file is not renamed until this
    start's journal is on the disk), and once there is room the new journal is written whole."""
    config = write_config(tmp_path, mosquitto, SVOYA.format(port=sim.port))
    async with display(mosquitto, *TOPICS) as d:
        async with daemon(config, 1) as first:
            await online(d, 0)
            await box_connected(d)
            before = await question(d, mosquitto, sim, 0, b"correct")
            first.send_signal(signal.SIGKILL)
            await first.wait()
        filler = fill(disk)
        mark = len(d.seen)
        async with daemon(config, 2) as second:
            resumed = await d.wait_for(lambda: events_after(d, mark, "resumed"), within=20)
            assert resumed
            await d.wait_for(lambda: journal_said(d, mark, "failing"))
            await box_connected(d, mark)
            during = await question(d, mosquitto, sim, 1, b"correct")  # decided with no journal on disk
            assert scores(during)["p1"] == scores(before)["p1"]
            filler.unlink()
            await d.wait_for(lambda: journal_said(d, mark, "writing"), within=10)
            second.send_signal(signal.SIGKILL)
            await second.wait()
        assert await resumed_scores(d, config, 3) == scores(during)
    assert parts(disk) == []  # the journal begun on the full disk was named once it was written


def parts(where: Path) -> list[str]:
    return sorted(p.name for p in where.iterdir() if p.name.endswith(".part"))


async def test_a_read_only_journal_directory_is_said_and_written_once_it_is_writable(
        mosquitto: Broker, tmp_path: Path, disk: Path, sim: SimulatedMcu) -> None:
    config = write_config(tmp_path, mosquitto, SVOYA.format(port=sim.port))
    _mount("-o", "remount,ro", str(disk))
    async with display(mosquitto, *TOPICS) as d:
        async with daemon(config, 1) as first:
            await online(d, 0)
            said = await d.wait_for(lambda: journal_said(d, 0, "failing"))
            assert "Read-only file system" in said[0]["detail"]
            assert last_status(d)["journal"]["state"] == "failing"  # a page opened now sees it
            await d.wait_for(lambda: [e for e in d.events("source_status") if e["state"] == "connected"])
            scored = await question(d, mosquitto, sim, 0, b"correct")
            _mount("-o", "remount,rw", str(disk))
            await d.wait_for(lambda: journal_said(d, 0, "writing"), within=10)
            first.send_signal(signal.SIGKILL)
            await first.wait()
        assert await resumed_scores(d, config, 2) == scores(scored) == {"p1": scores(scored)["p1"], "p2": 0}


EVENING = ('[game]\nkind = "svoya"\nseed = 11\n[sources.mcu]\nkind = "simulated_mcu"\npads = 3\n'
           + "".join(f'[[players]]\nid = "p{i}"\nname = "Игрок {i}"\npad = "mcu:{i}"\n' for i in range(3)))


def appended(journal: Path, size: int) -> bool:
    return journal.stat().st_size != size


async def test_a_start_killed_at_any_instant_never_loses_the_evening(mosquitto: Broker,
                                                                     tmp_path: Path) -> None:
    """A 20-minute evening's journal (~25 000 lines, recorded through a real Console), then
    starts of `chgk-console run` killed with SIGKILL at chosen instants: the moment it first
    writes to the journal (its checkpoint going in), and 0.3 to 1.5 s after it was started.
    It used to lose the fight to an empty or half-copied newer journal; now every start goes
    on in the day's own file, and the last start resumes the whole evening."""
    config = write_config(tmp_path, mosquitto, EVENING)
    journal = tmp_path / "journal" / f"journal-{time.strftime('%Y%m%d')}-190000.jsonl"
    journal.parent.mkdir()
    recorded = config_from_dict(evening_config(str(journal.parent / "journal.jsonl")), "test")
    record_evening(journal, recorded, 20)
    found = resume.load(journal, load_config(str(config)), time.monotonic_ns())
    assert isinstance(found, resume.Resumption)
    expected = scores(json.loads(json.dumps(found.engine.snapshot(found.known_until))))
    assert sum(expected.values()) > 0
    for kill_after in (None, 0.3, 0.6, 1.0, 1.5):
        size = journal.stat().st_size
        async with daemon(config, 1) as proc:
            if kill_after is None:  # as soon as it writes (its checkpoint going in)
                await until(functools.partial(appended, journal, size), within=20)
            else:
                await asyncio.sleep(kill_after)
            proc.send_signal(signal.SIGKILL)
            await proc.wait()
        assert journal.exists() and list(journal.parent.glob("*.part")) == []
    async with display(mosquitto, *TOPICS) as d, daemon(config, 2):
        resumed = await d.wait_for(lambda: events_after(d, 0, "resumed"), within=20)
        assert resumed[0]["inputs"] >= found.inputs
        state = await state_where(d, lambda p: p["seq"] >= resumed[0]["seq"])
        assert scores(state) == expected
    assert [p.name for p in journal.parent.glob("journal-*")] == [journal.name]  # one file, no copies



def test_the_status_names_the_journal_as_it_stays_and_never_the_servers_path() -> None:
    """Issue 31: the retained status kept the `.part` name after the rename, with the server's
    absolute path, on a public topic."""
    from console.shell.runtime import shown_journal

    part = "/var/lib/chgk/journal-20261205-190000.jsonl.9139.part"
    final = "journal-20261205-190000.jsonl"
    assert shown_journal(part) == shown_journal(part.removesuffix(".9139.part")) == final
