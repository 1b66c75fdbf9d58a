"""The console running the ChGK table: the 12th sector's question, the game record on disk."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from console.engine.chgk.rules import ChgkAction, ChgkHost, PickSource, SectorPicked
from console.games import load_config
from console.shell.runtime import Console

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "console" / "data" / "demo-chgk.toml"


def table(tmp_path: Path, **table: str) -> tuple[Console, list[dict[str, Any]]]:
    lines = [line for line in DEMO.read_text(encoding="utf-8").splitlines()
             if line.split("=")[0].strip() not in table]
    at = lines.index("[table]") + 1
    lines[at:at] = [f'{key} = "{value}"' for key, value in table.items()]
    text = "\n".join(lines) + "\n"
    (tmp_path / "console.toml").write_text(text, encoding="utf-8")
    shutil.copy(DEMO.parent / "questions-demo.txt", tmp_path / "questions-demo.txt")
    console = Console(load_config(tmp_path / "console.toml"))
    events: list[dict[str, Any]] = []
    console.wire_watchers.append(events.append)
    return console, events


def test_the_12th_sector_draws_a_question_from_the_file_and_names_its_source_000_4_2_g(
    tmp_path: Path,
) -> None:
    console, events = table(tmp_path)
    console.feed([SectorPicked(8, console.clock(), PickSource.HOST)])  # sector 8 is the 12th sector
    kinds = [e["type"] for e in events]
    assert "question_needed" in kinds
    drawn = next(e for e in events if e["type"] == "question_drawn")
    assert drawn["audience"] == "host" and drawn["text"] and drawn["answer"]
    public = next(e for e in events if e["type"] == "question_source")
    assert public["source"] == drawn["source"] and "«" in public["source"]
    assert "answer" not in public  # the answer is for the host only


def test_without_a_question_file_the_host_is_told(tmp_path: Path) -> None:
    console, events = table(tmp_path, question_file="")
    console.feed([SectorPicked(8, console.clock(), PickSource.HOST)])
    error = next(e for e in events if e["type"] == "error")
    assert "question" in error["message"]


def test_the_game_record_is_kept_on_disk_000_1_6_1(tmp_path: Path) -> None:
    console, events = table(tmp_path, record_dir=str(tmp_path / "records"))
    for sector in (1, 2, 4, 7, 10, 11):  # plain questions; 6 correct answers win a qualifier
        now = console.clock()
        console.feed([SectorPicked(sector, now, PickSource.HOST)])
        console.feed([ChgkHost(ChgkAction.START_TIMER, console.clock())])
        console.feed([ChgkHost(ChgkAction.ANSWER_CORRECT, console.clock())])
    record = next(e for e in events if e["type"] == "game_record")
    files = list((tmp_path / "records").glob("game-*.json"))
    assert len(files) == 1
    kept = json.loads(files[0].read_text(encoding="utf-8"))
    assert kept["score"] == record["score"] and "indicators" in kept


def test_the_table_journal_replays_to_the_same_decisions(tmp_path: Path) -> None:
    """The journal of a table (angle samples, host actions) judged again by replay."""
    import io

    from console.engine.spin.detector import AngleSample
    from console.engine.spin.sectors import SectorMap
    from console.tools.replay import replay_lines

    config = load_config(table(tmp_path)[0].config.source)
    journal = io.StringIO()
    console = Console(config, journal=journal)
    live: list[dict[str, Any]] = []
    console.wire_watchers.append(live.append)
    sectors = SectorMap(12)
    t0 = console.clock()
    rest = sectors.centre_deg(4)
    for i in range(4000):  # 3 s slowing down from 2.5 turns to rest at sector 4's centre, then 1 s still
        u = min(i / 3000, 1.0)
        angle = rest - 900.0 + 900.0 * (1 - (1 - u) ** 2)
        t = t0 + i * 1_000_000
        console.feed([AngleSample(t, round(sectors.raw_at(angle % 360.0)) % 4096)], now=t)
    console.feed([ChgkHost(ChgkAction.START_TIMER, t0 + 4_100_000_000)], now=t0 + 4_100_000_000)
    console.feed([ChgkHost(ChgkAction.ANSWER_WRONG, t0 + 4_200_000_000)], now=t0 + 4_200_000_000)

    out, err = io.StringIO(), io.StringIO()
    assert replay_lines(io.StringIO(journal.getvalue()), "journal", out, err) == 0, err.getvalue()
    replayed = [json.loads(line) for line in out.getvalue().splitlines()]

    def decisions(events: list[dict[str, Any]]) -> list[tuple[str, Any]]:
        return [(e["type"], e.get("played_sector", e.get("sector"))) for e in events
                if e["type"] in ("spin_started", "spin_stopped", "sector_chosen", "round_ended")]

    assert decisions(live) == decisions(replayed)
    assert ("sector_chosen", 4) in decisions(live)


def test_two_starts_in_the_same_second_keep_both_game_records(tmp_path: Path) -> None:
    """A Pi without a clock boots to the same saved time: a second start must not overwrite
    the first one's record (files are created exclusively, a taken name gets -2)."""
    records = tmp_path / "records"
    consoles = [table(tmp_path, record_dir=str(records)) for _ in range(2)]
    consoles[1][0].records.started_wall = consoles[0][0].records.started_wall  # the same second
    for console, _events in consoles:
        for sector in (1, 2, 4, 7, 10, 11):
            console.feed([SectorPicked(sector, console.clock(), PickSource.HOST)])
            console.feed([ChgkHost(ChgkAction.START_TIMER, console.clock())])
            console.feed([ChgkHost(ChgkAction.ANSWER_CORRECT, console.clock())])
    names = sorted(p.name for p in records.glob("game-*.json"))
    assert len(names) == 2 and any(name.endswith("-1-2.json") for name in names), names
    assert not list(records.glob("*.tmp"))
