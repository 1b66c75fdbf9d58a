"""The fight's protocol on the host's tablet, in Chromium against `chgk-console run` with its
journal and the shipped lockdown: «Показать ход боя» shows each question played (value, the
presses with their delays, the verdicts, the scores after) and follows the fight while shown;
the printable page and the CSV and JSON an organiser files come from the same journal
(console/shell/protocol_export.py, console/tools/export.py). Without a journal there is none,
and the screen does not offer it."""

from __future__ import annotations

import csv
import io
import json
import urllib.request
from pathlib import Path

from playwright.sync_api import Page, expect

from drivers.sim_mcu import SimulatedMcu
from tests.host_screen_pages import WAIT_MS, click, confirm, console_with_pages

GAME = ('[game]\nkind = "svoya"\nthemes = 0\nanswer_window_s = 10.0\n'
        '[[players]]\nid = "p1"\nname = "Аня"\npad = "mcu:0"\n'
        '[[players]]\nid = "p2"\nname = "Боря"\npad = "mcu:1"\n')

SCORE = '.player[data-player="{}"] .score'
# The protocol is an export of the journal in a child process at a lower priority (nice 10:
# console/shell/protocol_export.py); beside a busy machine it waits its turn for the CPU.
EXPORT_WAIT_MS = 90_000


def ask(host: Page, sim: SimulatedMcu, *pads: int) -> None:
    """The next question read out, then `pads` pressed in this order."""
    click(host, "next")
    click(host, "reading_finished")
    expect(host.locator("#clock")).to_be_visible(timeout=WAIT_MS)
    for pad in pads:
        sim.press(pad)
        sim.release(pad)
    expect(host.locator("#presses li")).to_have_count(len(pads), timeout=WAIT_MS)


def fetch(url: str) -> tuple[str, dict[str, str]]:
    with urllib.request.urlopen(url, timeout=60) as answer:
        return answer.read().decode("utf-8"), dict(answer.headers)


def test_the_protocol_follows_the_fight_on_the_tablet(tmp_path: Path) -> None:
    sim = SimulatedMcu(pads=2)
    sim.start()
    try:
        source = f'[sources.mcu]\nkind = "serial_mcu"\nport = "{sim.port}"\n'
        journal = str(tmp_path / "journal.jsonl")
        with console_with_pages(tmp_path, GAME + source, journal=journal) as pages:
            url, host = pages.url, pages.host
            expect(host.locator("#protocol-box")).to_be_visible(timeout=WAIT_MS)

            # Question 1 (10): Аня first, Боря behind her; Аня right.
            ask(host, sim, 0, 1)
            click(host, "correct")
            expect(host.locator(SCORE.format("p1"))).to_have_text("10", timeout=WAIT_MS)
            host.click("#protocol-show")
            frame = host.frame_locator("#protocol-frame")
            rows = frame.locator("table").last.locator("tr")
            expect(rows).to_have_count(2, timeout=EXPORT_WAIT_MS)  # the head and question 1
            expect(rows.nth(1)).to_contain_text("Аня: верно +10")
            expect(rows.nth(1)).to_contain_text(" мс")  # Боря's delay behind her
            expect(rows.nth(1)).to_contain_text("Аня 10; Боря 0")  # the scores after

            # Question 2 (20), while the protocol is shown: Боря wrong, then nobody.
            ask(host, sim, 1)
            click(host, "wrong")
            expect(host.locator(SCORE.format("p2"))).to_have_text("-20", timeout=WAIT_MS)
            expect(rows).to_have_count(2)  # the question is not over: no row yet
            click(host, "cancel")
            confirm(host)
            expect(rows).to_have_count(3, timeout=EXPORT_WAIT_MS)  # followed without a click
            expect(rows.nth(2)).to_contain_text("Боря: неверно -20")

            # The organiser's files, from the same journal.
            table, headers = fetch(f"{url}/protocol.csv")
            assert headers["Content-Disposition"] == 'attachment; filename="protocol.csv"'
            lines = list(csv.reader(io.StringIO(table)))
            assert len(lines) == 3, lines  # a head and the two questions
            document, _ = fetch(f"{url}/protocol.json")
            questions = json.loads(document)["questions"]
            assert [q["value"] for q in questions] == [10, 20]
            assert [p["who"] for p in questions[0]["presses"]] == ["p1", "p2"]
            assert questions[0]["presses"][1]["behind_ms"] > 0
            printable, headers = fetch(f"{url}/protocol")
            assert headers["Content-Type"].startswith("text/html") and "Протокол игры" in printable
    finally:
        sim.stop()
