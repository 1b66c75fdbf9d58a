"""The daemon's own files: one journal per start, never appended to another start's, and
never the one to resume before its beginning is on the disk."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import console.shell.daemon as daemon
from console.shell.journal import Journal
from console.shell.resume import find_journal


def quiet(source: str, message: str) -> None:
    raise AssertionError(f"{source}: {message}")


def test_two_starts_in_the_same_second_get_a_journal_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Pi without a clock boots to the same saved time: both starts would name their journal
    alike; each must begin with its own config line to replay, so the second gets -2."""
    monkeypatch.setattr(time, "strftime", lambda _format: "20261130-190501")
    first = Journal(daemon.open_journal(str(tmp_path / "journal.jsonl")), quiet)
    second = Journal(daemon.open_journal(str(tmp_path / "journal.jsonl")), quiet)
    first.write({"config": "first"})
    second.write({"config": "second"})
    first.commit()
    second.commit()
    first.close()
    second.close()
    assert (tmp_path / "journal-20261130-190501.jsonl").read_text() == '{"config": "first"}\n'
    assert (tmp_path / "journal-20261130-190501-2.jsonl").read_text() == '{"config": "second"}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "journal-20261130-190501-2.jsonl", "journal-20261130-190501.jsonl"]


def test_a_journal_is_resumed_only_once_its_beginning_is_committed(tmp_path: Path) -> None:
    """A start killed before its journal's config line (and the copy of the journal it
    resumes) reached the disk leaves a part no resume reads: the older journal stays today's."""
    base = tmp_path / "journal.jsonl"
    older = Journal(daemon.open_journal(str(base)), quiet)
    older.write({"config": "older"})
    older.commit()
    older.close()
    (good,) = tmp_path.iterdir()
    newer = Journal(daemon.open_journal(str(base)), quiet)
    newer.write({"config": "newer"})  # written, not committed: the start was killed here
    assert find_journal(str(base)) == good
    newer.commit()
    assert find_journal(str(base)) != good and find_journal(str(base)) == Path(newer.name)
    newer.close()
