"""`chgk-console check-config`: what a new user met (issue 19) — the key a rule's problem is
about, a duplicate named, a file saved with a BOM, no «-:» placeholder, a pack or a question
file that cannot be read, a serial port that is not there, the tournament's own config — each
said plainly by the command as a user runs it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_run import Done, cli

ROOT = Path(__file__).resolve().parent.parent
SVOYA = ('[game]\nkind = "svoya"\n{game}[sources.mcu]\nkind = "simulated_mcu"\npads = 4\n'
         '[[players]]\nid = "p1"\nname = "Аня"\npad = "mcu:0"\n'
         '[[players]]\nid = "p2"\nname = "Боря"\npad = "mcu:1"\n')


def check(tmp_path: Path, text: str | bytes) -> Done:
    path = tmp_path / "console.toml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return cli("check-config", str(path))


def test_a_good_config_is_ok_with_who_is_on_which_button(tmp_path: Path) -> None:
    done = check(tmp_path, SVOYA.format(game=""))
    assert done.returncode == 0, done.stderr
    first = done.stdout.splitlines()[0]
    assert first.endswith("OK — «Своя игра»; buttons: Аня (mcu:0), Боря (mcu:1); sources: mcu")


def test_the_packs_to_choose_on_the_tablet_are_counted_and_a_bad_one_named(tmp_path: Path) -> None:
    """game.pack_dir (issue 19: «choose the pack and its next round from the tablet»): the host
    learns before the evening whether the tablet will have packs to offer."""
    done = check(tmp_path, SVOYA.format(game=""))
    assert done.returncode == 0
    assert f"warning: game.pack_dir: no pack to choose on the tablet in {tmp_path / 'packs'}" in done.stdout
    packs = tmp_path / "packs"
    packs.mkdir()
    (packs / "club.toml").write_bytes((ROOT / "examples" / "packs" / "club-evening.toml").read_bytes())
    (packs / "broken.siq").write_bytes(b"not a zip")
    done = check(tmp_path, SVOYA.format(game=""))
    assert done.returncode == 0  # the evening can start: a pack may be fixed or copied in later
    assert f"packs to choose on the tablet: 1 in {packs}" in done.stdout
    assert "warning: game.pack_dir: broken.siq cannot be played: " in done.stdout


def test_unordered_values_are_blamed_on_game_values_not_the_players(tmp_path: Path) -> None:
    done = check(tmp_path, SVOYA.format(game="values = [20, 10]\n"))
    assert done.returncode == 1
    assert "console.toml: game.values: question values must be given in ascending order" in done.stderr


def test_a_pad_mapped_twice_says_which_pad_and_whose(tmp_path: Path) -> None:
    done = check(tmp_path, SVOYA.format(game="").replace('pad = "mcu:1"', 'pad = "mcu:0"'))
    assert done.returncode == 1
    assert "players: pad 'mcu:0' is both 'p1''s and 'p2''s" in done.stderr
    done = check(tmp_path, SVOYA.format(game="").replace('id = "p2"', 'id = "p1"'))
    assert "players: player id 'p1' is given to two players" in done.stderr


def test_a_file_saved_with_a_byte_order_mark_reads(tmp_path: Path) -> None:
    done = check(tmp_path, b"\xef\xbb\xbf" + SVOYA.format(game="").encode())
    assert done.returncode == 0, done.stderr


def test_a_problem_of_the_whole_file_has_no_placeholder_key(tmp_path: Path) -> None:
    done = check(tmp_path, "[game\n")
    assert done.returncode == 1
    assert "console.toml: not valid TOML (" in done.stderr and ": -:" not in done.stderr


def test_a_pack_that_cannot_be_read_is_a_problem_not_ok(tmp_path: Path) -> None:
    done = check(tmp_path, SVOYA.format(game='pack = "evening.siq"\n'))
    assert done.returncode == 1
    assert "problems — «Своя игра»" in done.stdout
    assert "problem: pack: evening.siq: file not found" in done.stdout


def test_the_tables_question_file_that_cannot_be_read_is_a_problem(tmp_path: Path) -> None:
    done = check(tmp_path, '[game]\nkind = "chgk"\n[sources.top]\nkind = "simulated_mcu"\n'
                           '[[teams]]\nid = "t1"\nname = "Совы"\n[table]\nteam = "t1"\n'
                           'question_file = "sector12.txt"\n')
    assert done.returncode == 1
    assert "problem: questions: cannot read the 12th sector's questions:" in done.stdout
    assert "players: ;" not in done.stdout  # the table has no buttons: none are listed


def test_a_serial_port_that_is_not_there_is_a_warning(tmp_path: Path) -> None:
    done = check(tmp_path, SVOYA.format(game="").replace(
        'kind = "simulated_mcu"\npads = 4', 'kind = "serial_mcu"\nport = "/dev/ttyACM9"'))
    assert done.returncode == 0, done.stderr
    assert "warning: sources.mcu.port: /dev/ttyACM9 does not exist now" in done.stdout


@pytest.mark.process
def test_the_tournaments_config_is_checked_as_the_tournaments() -> None:
    """As a user runs it: the installed command, a process of its own."""
    done = subprocess.run([sys.executable, "-m", "console.cli", "check-config", "config/tournament.toml"],
                          capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    assert "OK — the tournament «" in done.stdout and "24 teams" in done.stdout


def test_every_mistake_is_said_in_one_run_counting_entries_from_one(tmp_path: Path) -> None:
    """Issue 34: three mistakes took three runs, and «players[3]» counted from zero. Now each
    is said at once, an array's entries counted as a person counts them."""
    text = SVOYA.format(game="signal_window_s = -1\nanswer_window = 3\n") \
        .replace('name = "Боря"\n', 'name = "Боря"\nbutton = 2\n') + '[sound]\nvolume = "громко"\n'
    done = check(tmp_path, text)
    assert done.returncode == 1
    said = done.stderr.splitlines()
    assert len(said) == 4, said
    for key in ("game.signal_window_s", "game.answer_window", "players[2].button", "sound.volume"):
        assert sum(f"console.toml: {key}: " in line for line in said) == 1, (key, said)
    # A required key wrong stops there: nothing after it is guessed at.
    text = SVOYA.format(game="signal_window_s = -1\n").replace('pad = "mcu:1"', 'pad = "mcu:9"')
    done = check(tmp_path, text)
    assert done.returncode == 1
    assert [line.split("console.toml: ")[1].split(":")[0] for line in done.stderr.splitlines()] == [
        "game.signal_window_s", "players[2].pad"]
    assert "players[2].pad: 'mcu:9': source 'mcu' has pads 0..3" in done.stderr


@pytest.mark.parametrize("kind", ["svoya", "quartet", "brainring", "chgk", "sports"])
def test_each_game_kinds_rehearsal_config_is_good_and_in_the_readme(kind: str) -> None:
    """Issue 34: a rehearsal of each game kind, described in the README, on a shipped config
    (examples/rehearsal/<kind>.toml: the simulated box under `chgk-console run`)."""
    path = ROOT / "examples" / "rehearsal" / f"{kind}.toml"
    done = cli("check-config", str(path))
    assert done.returncode == 0, done.stderr
    assert f"examples/rehearsal/{kind}.toml" in (ROOT / "README.md").read_text(encoding="utf-8")
