"""The daemon's own files: one journal per start, never appended to another start's."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import console.shell.daemon as daemon


def test_two_starts_in_the_same_second_get_a_journal_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Pi without a clock boots to the same saved time: both starts would name their journal
    alike; each must begin with its own config line to replay, so the second gets -2."""
    monkeypatch.setattr(time, "strftime", lambda _format: "20261130-190501")
    first = daemon.open_journal(str(tmp_path / "journal.jsonl"))
    second = daemon.open_journal(str(tmp_path / "journal.jsonl"))
    assert first is not None and second is not None
    first.write("first\n")
    second.write("second\n")
    first.close()
    second.close()
    assert (tmp_path / "journal-20261130-190501.jsonl").read_text() == "first\n"
    assert (tmp_path / "journal-20261130-190501-2.jsonl").read_text() == "second\n"
