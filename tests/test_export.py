"""`chgk-console export JOURNAL` (issue 19): a fight's protocol as an organiser files it, from
the journal the console keeps, the way a user runs it: CSV and JSON with every question's
presses (stamp and delay behind the first), verdicts and scores after, and an HTML protocol
that prints (Chromium renders it to a PDF)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from console.engine.model import NS_PER_MS as MS
from console.engine.model import HostAction
from console.games import load_config
from console.shell.runtime import Console
from console.sources.mcu import McuFeed
from drivers.mcu_serial import PadEdge, Watermark
from tests.cli_run import Done, cli
from tests.host_screen_pages import chromium
from tests.support.clock import Clock
from tests.support.demo import DEMO_TOML

ROOT = Path(__file__).resolve().parent.parent


def export(journal: Path, out: Path) -> Done:
    return cli("export", str(journal), "--out", str(out))


def a_journal(tmp_path: Path) -> Path:
    """An evening the console journals: a wrong answer, then a right one behind a second press
    0.35 ms later; a mistaken «Неверно» undone; a score adjusted."""
    clock = Clock()
    journal = io.StringIO()
    console = Console(load_config(DEMO_TOML), clock=clock, journal=journal)
    feed = McuFeed(console.sources, "sim")

    def scan(*pads: int, at: int) -> None:
        feed.edge(PadEdge(pads, True, at, at // 1000, 0))
        feed.watermark(Watermark(at))

    console.host(HostAction.NEXT)
    clock.now += 100 * MS
    console.host(HostAction.READING_FINISHED)
    clock.now += 500 * MS
    scan(1, at=clock.now)
    clock.now += 20 * MS
    console.host(HostAction.NAME)
    console.host(HostAction.WRONG)
    console.host(HostAction.RESET)
    clock.now += 300 * MS
    t = clock.now
    scan(0, at=t)
    scan(2, at=t + 350_000)
    clock.now += 20 * MS
    console.host(HostAction.NAME)
    console.host(HostAction.CORRECT)
    console.host(HostAction.NEXT)
    clock.now += 100 * MS
    console.host(HostAction.READING_FINISHED)
    scan(3, at=clock.now)
    clock.now += 20 * MS
    console.host(HostAction.NAME)
    console.host(HostAction.WRONG)
    console.commands.on_command(json.dumps({"action": "undo", "reason": "не та кнопка"}).encode())
    console.host(HostAction.CORRECT)
    console.commands.on_command(json.dumps({"action": "adjust_score", "player": "p2", "delta": 5,
                                   "reason": "апелляция"}).encode())
    path = tmp_path / "2026-12-03.jsonl"
    path.write_text(journal.getvalue(), encoding="utf-8")
    return path


@pytest.mark.process  # the command as a process: what is tested
def test_a_journal_exports_to_csv_json_and_a_protocol_that_prints(tmp_path: Path) -> None:
    journal = a_journal(tmp_path)
    done = export(journal, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    paths = [Path(p) for p in done.stdout.split()]
    assert [p.name for p in paths] == ["2026-12-03.csv", "2026-12-03.json", "2026-12-03.html"]
    rows = list(csv.reader(io.StringIO(paths[0].read_text(encoding="utf-8"))))
    assert rows[0][:3] == ["бой", "вопрос", "стоимость"]
    first = rows[1]
    assert first[2] == "10" and "Анна (sim:0" in first[3] and "+0,35 мс" in first[3]
    # Issue 34: times as a person reads them (from the question's start), never raw nanoseconds.
    assert "Вера (sim:2, 0,920 с от начала вопроса, +0,35 мс" in first[3] and " нс" not in first[3]
    assert first[4] == "Борис: неверно -10; Анна: верно +10" and first[5] == "взят"
    second = rows[2]
    assert second[4] == ("Глеб: неверно -20; Глеб: решение отменено (+20); Глеб: верно +20; "
                         "Борис: поправка +5 (апелляция)")
    assert second[7] == "Анна 10; Борис -5; Вера 0; Глеб 20"
    document = json.loads(paths[1].read_text(encoding="utf-8"))
    assert document["game"] == "svoya"
    assert [p["name"] for p in document["standings"][0]["places"]] == ["Глеб", "Анна", "Вера", "Борис"]
    with chromium() as browser:
        page = browser.new_page()
        page.goto(paths[2].as_uri())
        assert page.locator("h1").inner_text() == "Протокол игры «Своя игра»"
        assert page.locator("table").first.locator("tr").nth(1).inner_text().startswith("1\tГлеб\t20")
        pdf = page.pdf(format="A4")
    assert pdf.startswith(b"%PDF") and len(pdf) > 5000


def test_the_brainring_example_exports_its_fight(tmp_path: Path) -> None:
    done = export(ROOT / "examples" / "brainring-club.jsonl", tmp_path)
    assert done.returncode == 0, done.stderr
    rows = list(csv.reader(io.StringIO((tmp_path / "brainring-club.csv").read_text(encoding="utf-8"))))
    assert [r[2] for r in rows[1:]] == ["1", "2", "3"]  # the stakes rising (club)
    assert rows[-1][5:7] == ["взят", "Совы"]


def test_a_game_it_cannot_protocol_or_a_file_that_is_not_a_journal_is_said(tmp_path: Path) -> None:
    done = export(ROOT / "examples" / "table-game.jsonl", tmp_path)
    assert done.returncode == 1 and "a 'chgk' game" in done.stderr
    bad = tmp_path / "notes.jsonl"
    bad.write_text("hello\n", encoding="utf-8")
    done = export(bad, tmp_path)
    assert done.returncode == 1 and "not a journal" in done.stderr


def test_an_evenings_journals_export_to_one_protocol_its_fights_numbered_on(tmp_path: Path) -> None:
    """A console restarted mid-evening begins a second journal: `export J1 J2` files the
    evening as one protocol, the second journal's fight as fight 2; journals of two different
    games are refused, naming the odd one."""
    first = a_journal(tmp_path)
    second = first.with_name("2026-12-03-2.jsonl")
    second.write_text(first.read_text(encoding="utf-8"), encoding="utf-8")
    done = cli("export", str(first), str(second), "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    paths = [Path(p) for p in done.stdout.split()]
    assert [p.name for p in paths] == ["evening-2026-12-03.csv", "evening-2026-12-03.json",
                                       "evening-2026-12-03.html"]
    document = json.loads(paths[1].read_text(encoding="utf-8"))
    assert [q["fight"] for q in document["questions"]] == [1, 1, 2, 2]
    assert [s["fight"] for s in document["standings"]] == [1, 2]
    assert document["journals"] == [first.name, second.name]
    mixed = cli("export", str(first), str(ROOT / "examples" / "brainring-club.jsonl"), "--out", str(tmp_path))
    assert mixed.returncode == 1 and "brainring-club.jsonl: a 'brainring' game" in mixed.stderr


def test_the_tablets_protocol_covers_the_evenings_journals_of_the_day(tmp_path: Path) -> None:
    from console.shell.protocol_export import evening_of

    for name in ("journal-20261203-180000.jsonl", "journal-20261203-190501.jsonl",
                 "journal-20261203-190501-2.jsonl", "journal-20261202-230000.jsonl",
                 "journal-20261203-210000.jsonl", "notes.jsonl"):
        (tmp_path / name).write_text("", encoding="utf-8")
    now = tmp_path / "journal-20261203-190501-2.jsonl"
    assert [p.name for p in evening_of(now)] == ["journal-20261203-180000.jsonl",
                                                 "journal-20261203-190501.jsonl", now.name]
    part = tmp_path / "journal-20261203-220000.jsonl.4242.part"  # not committed yet: itself
    assert evening_of(part) == [part]


def test_a_damaged_journal_keeps_every_good_line_and_says_which_were_not(tmp_path: Path) -> None:
    """Issue 31: one invalid byte, a last line cut inside a Cyrillic letter (a power cut), a time
    that is no time (1e308 ms: an infinity in ns): the export keeps every other line, names the
    bad ones."""
    import io as _io

    from console.tools.export import export

    header = json.dumps({"config": {"game": {"kind": "svoya"}, "players": [
        {"id": "p1", "name": "=HYPERLINK(1)", "pad": "mcu:0"}, {"id": "p2", "name": "Боря", "pad": "mcu:1"}],
        "sources": {"mcu": {"kind": "simulated_mcu", "pads": 2}}}}, ensure_ascii=False)
    journal = tmp_path / "journal.jsonl"
    journal.write_bytes(header.encode() + b'\n{"at_ms": 1000, "host": "next"}\n\xff\xfe broken\n'
                        + b'{"at_ms": 1e308, "host": "cancel"}\n{"at_ms": 2000, "host": "reading_finished"}\n'
                        + '{"at_ms": 3000, "host": "на'.encode()[:-1])
    warn = _io.StringIO()
    paths = export(journal, tmp_path / "out", warn=warn)
    said = warn.getvalue()
    assert "journal.jsonl:3: not UTF-8" in said and "journal.jsonl:6: not UTF-8" in said
    assert "journal.jsonl:4: at_ms must be" in said
    doc = json.loads(paths[1].read_text(encoding="utf-8"))
    assert len(doc["skipped_lines"]) == 3 and doc["questions"]  # the good lines were played


def test_a_wrong_answer_on_the_3_s_says_so_in_the_protocol(tmp_path: Path) -> None:
    """Issue 34: «Анна: неверно −10» did not say she never began in time (004 App.7)."""
    clock = Clock()
    journal = io.StringIO()
    console = Console(load_config(DEMO_TOML), clock=clock, journal=journal)
    feed = McuFeed(console.sources, "sim")
    console.host(HostAction.NEXT)
    clock.now += 100 * MS
    console.host(HostAction.READING_FINISHED)
    clock.now += 500 * MS
    feed.edge(PadEdge((0,), True, clock.now, clock.now // 1000, 0))
    feed.watermark(Watermark(clock.now))
    clock.now += 20 * MS
    console.host(HostAction.NAME)
    clock.now += 3100 * MS
    console.fire_due()
    path = tmp_path / "2026-12-05.jsonl"
    path.write_text(journal.getvalue(), encoding="utf-8")
    done = export(path, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    csv_path = next(p for p in (Path(line) for line in done.stdout.split()) if p.suffix == ".csv")
    rows = list(csv.reader(io.StringIO(csv_path.read_text(encoding="utf-8"))))
    assert rows[1][4] == "Анна: неверно (ответ не начат за 3 секунды) -10"


def test_a_brainring_false_start_is_in_the_protocol(tmp_path: Path) -> None:
    """Issue 34: the «Брейн-ринг» protocol left out a false start (§5: a press during the
    reading puts the team out of the question)."""
    done = export(ROOT / "examples" / "brainring-fight.jsonl", tmp_path)
    assert done.returncode == 0, done.stderr
    rows = list(csv.reader(io.StringIO((tmp_path / "brainring-fight.csv").read_text(encoding="utf-8"))))
    assert [r[3] for r in rows[1:] if "фальстарт (до «Время!»)" in r[3]], rows
