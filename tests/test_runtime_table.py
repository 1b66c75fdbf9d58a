"""The console running the ChGK table: the 12th sector's question, the game record on disk."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from console.config import load_config
from console.engine.chgk_rules import ChgkAction, ChgkHost, PickSource, SectorPicked
from console.runtime import Console

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
    console.watchers.append(events.append)
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
