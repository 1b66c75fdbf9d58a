"""The live protocol (console/shell/protocol_export.py): `chgk-console export` in a child
process on the journal as it stands; none without a journal, a reason for a broken one, and one
export for the three files of one journal state."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from console.shell.protocol_export import ProtocolExport, ProtocolUnavailable

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "svoya-basic.jsonl"


async def test_no_journal_no_protocol() -> None:
    got = await ProtocolExport(lambda: "").get("csv")
    assert isinstance(got, ProtocolUnavailable) and "журнал не ведётся" in got.why


@pytest.mark.process  # the command as a process: what is tested
async def test_a_file_that_is_no_journal_is_said_not_crashed(tmp_path: Path) -> None:
    broken = tmp_path / "journal-1.jsonl"
    broken.write_text("это не журнал\n", encoding="utf-8")
    got = await ProtocolExport(lambda: str(broken)).get("html")
    assert isinstance(got, ProtocolUnavailable) and "протокол не построен" in got.why
    assert "not a journal" in got.why  # the export's own words on what is wrong


@pytest.mark.process  # the command as a process: what is tested
async def test_the_three_files_come_from_one_export_until_the_journal_grows(tmp_path: Path) -> None:
    journal = tmp_path / "journal-20261203-190000.jsonl"
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)
    journal.write_text("".join(lines[:-1]), encoding="utf-8")
    protocol = ProtocolExport(lambda: str(journal))
    first = await protocol.get("json")
    assert isinstance(first, bytes)
    questions = len(json.loads(first)["questions"])
    journal.write_text("".join(lines[:-1]), encoding="utf-8")  # the same bytes: kept
    assert await protocol.get("json") is first
    csv = await protocol.get("csv")
    assert isinstance(csv, bytes) and csv.count(b"\n") == questions + 1
    journal.write_text("".join(lines), encoding="utf-8")  # it grew: exported again
    again = await protocol.get("json")
    assert isinstance(again, bytes) and again is not first
