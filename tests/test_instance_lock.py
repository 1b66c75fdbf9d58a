"""A second `chgk-console run` on the same node or the same journal exits at once with a
clear message and touches nothing (console/shell/instance_lock.py): it used to rename the
live journal, overwrite the retained status and state, and a later restart lost a +20."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from drivers.sim_mcu import SimulatedMcu
from tests.conftest import Broker
from tests.support.mqtt_console import display
from tests.support.resume_process import (
    ROOT,
    SVOYA,
    box_connected,
    daemon,
    online,
    play,
    question,
    scores,
    sim,
    write_config,
)

__all__ = ["sim"]  # the simulated box, a fixture of tests/support/resume_process.py


async def second_run(config: Path) -> tuple[int, str]:
    """`chgk-console run` on `config` while the first runs: its exit code and its log."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "console.cli", "run", "--config", str(config), cwd=ROOT,
        stderr=asyncio.subprocess.PIPE)
    async with asyncio.timeout(20):
        _, err = await proc.communicate()
    assert proc.returncode is not None
    return proc.returncode, err.decode("utf-8", errors="replace")


def files(directory: Path) -> dict[str, int]:
    return {p.name: p.stat().st_size for p in sorted(directory.iterdir()) if not p.name.startswith(".")}


async def test_a_second_console_on_the_same_node_or_journal_exits_and_touches_nothing(
        mosquitto: Broker, tmp_path: Path, sim: SimulatedMcu) -> None:
    config = write_config(tmp_path, mosquitto, SVOYA.format(port=sim.port))
    journal_dir = tmp_path / "journal"
    topics = ("chgk/t1/events", "chgk/t1/state", "chgk/t1/status")
    async with display(mosquitto, *topics) as d, daemon(config, 1):
        await online(d, 0)
        await box_connected(d)
        scored = await question(d, mosquitto, sim, 0)
        before = files(journal_dir)

        # The same config started again (by hand beside the service, say).
        mark = len(d.seen)
        code, log = await second_run(config)
        assert code != 0 and "already runs node 't1'" in log and "touches nothing" in log, log
        # Another journal, the same node and broker: the node is taken.
        other_journal = tmp_path / "other" / "journal.jsonl"
        other = tmp_path / "other.toml"
        other.write_text(config.read_text(encoding="utf-8").replace(
            str(journal_dir / "journal.jsonl"), str(other_journal)), encoding="utf-8")
        code, log = await second_run(other)
        assert code != 0 and "already runs node 't1'" in log, log
        # Another node, the same journal: the journal is taken.
        same_journal = tmp_path / "same-journal.toml"
        same_journal.write_text(config.read_text(encoding="utf-8").replace('node = "t1"', 'node = "t2"'),
                                encoding="utf-8")
        code, log = await second_run(same_journal)
        assert code != 0 and "already runs the journal" in log, log

        assert files(journal_dir) == before  # nothing renamed, created or written
        assert not other_journal.parent.exists() or files(other_journal.parent) == {}
        await asyncio.sleep(0.3)  # anything a second console published would be here by now
        heard = [(t, p) for t, p in d.seen[mark:]
                 if t.endswith("/status") or p.get("type") in ("resumed", "error")]
        assert heard == []  # the displays heard nothing of them: no status, no resume
        # The first console plays on, its score intact.
        state = await play(d, mosquitto, b'{"action": "next"}', lambda p: p["phase"] == "reading")
        assert scores(state) == scores(scored) == {"p1": scored["players"][0]["score"], "p2": 0}


async def test_a_console_killed_leaves_no_lock_behind(mosquitto: Broker, tmp_path: Path,
                                                       sim: SimulatedMcu) -> None:
    """The kernel releases the lock with the process, however it ends: after kill -9 the
    next start runs (and resumes), with nothing stale to clear by hand."""
    config = write_config(tmp_path, mosquitto, SVOYA.format(port=sim.port))
    topics = ("chgk/t1/events", "chgk/t1/state", "chgk/t1/status")
    async with display(mosquitto, *topics) as d:
        async with daemon(config, 1) as first:
            await online(d, 0)
            await play(d, mosquitto, b'{"action": "next"}', lambda p: p["phase"] == "reading")
            first.kill()
            await first.wait()
        mark = len(d.seen)
        async with daemon(config, 2):
            await online(d, mark)
