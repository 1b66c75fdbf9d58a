"""The phones' evening keys (console/sources/phone_keys.py): a restart finds the same join code
and seat key, so each phone's token still opens its seat; a new evening gets new ones; a file
that cannot be read or written costs the seats, never the start (issue 35)."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from console.sources.phone_keys import EVENING_LASTS_S, evening_keys
from drivers.phone_seats import PhoneSeats

NOW = 1_765_000_000.0


def test_a_restart_the_same_evening_keeps_the_code_and_every_seats_token(tmp_path: Path) -> None:
    kept = tmp_path / "phones.json"
    first = evening_keys(str(kept), "", NOW)
    assert first.problem is None and len(first.code) == 4 and first.code.isdigit()
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600  # the key opens seats: the console's user only
    again = evening_keys(str(kept), "", NOW + 3 * 3600)  # kill -9 three hours in
    assert (again.code, again.secret) == (first.code, first.secret)
    before = PhoneSeats("phones", 4, first.code, secret=first.secret)
    after = PhoneSeats("phones", 4, again.code, secret=again.secret)
    assert [s.token for s in before.seats] == [s.token for s in after.seats]


def test_a_new_evening_gets_a_new_code_and_key(tmp_path: Path) -> None:
    kept = tmp_path / "phones.json"
    first = evening_keys(str(kept), "", NOW)
    later = evening_keys(str(kept), "", NOW + EVENING_LASTS_S + 1)
    assert later.secret != first.secret and later.problem is None
    assert json.loads(kept.read_text())["secret"] == later.secret.hex()  # kept for this evening now
    assert evening_keys(str(kept), "", NOW - 60).secret != later.secret  # a clock set back: not trusted


def test_the_configured_code_is_the_code_and_nothing_kept_is_new_keys_each_start(tmp_path: Path) -> None:
    kept = tmp_path / "phones.json"
    first = evening_keys(str(kept), "", NOW)
    assert evening_keys(str(kept), "5555", NOW + 1).code == "5555"
    assert evening_keys(str(kept), "5555", NOW + 2).secret == first.secret
    unkept = evening_keys("", "", NOW), evening_keys("", "", NOW)
    assert unkept[0].secret != unkept[1].secret and unkept[0].problem is None


def test_a_broken_or_unwritable_file_costs_the_seats_and_says_so(tmp_path: Path) -> None:
    kept = tmp_path / "phones.json"
    kept.write_text("{not json", encoding="utf-8")
    keys = evening_keys(str(kept), "", NOW)
    assert keys.problem is not None and "cannot be read" in keys.problem and str(kept) in keys.problem
    assert json.loads(kept.read_text())["code"] == keys.code  # replaced: the next restart keeps these
    nowhere = evening_keys(str(tmp_path / "no such dir" / "phones.json"), "", NOW)
    assert nowhere.problem is not None and "cannot keep the seats" in nowhere.problem
    assert len(nowhere.code) == 4
