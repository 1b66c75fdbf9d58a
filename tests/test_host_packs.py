"""The pack and its round chosen on the tablet (issue 19: «An evening has several fights: choose
the pack and its next round from the tablet»), in Chromium against `chgk-console run` with the
shipped lockdown and its journal. The console lists its pack folder's packs and their rounds
on the host's screen; a round pressed begins a new fight there with the scores at zero, on the
host's screen and the hall's board; a pack copied in later is listed after «Обновить список»;
one that cannot be read is said and changes nothing; a restart resumes the chosen pack. The
configured pack's problem is shown until a pack is chosen."""

from __future__ import annotations

import zipfile
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from drivers.sim_mcu import SimulatedMcu
from tests.conftest import free_port
from tests.host_screen_pages import (
    LINK_UP,
    WAIT_MS,
    chromium,
    click,
    confirm,
    console_toml,
    lockdown,
    log_in_as_host,
    running_daemon,
    wait_serving,
)
from tests.support.packs import evening_pack

# The configured pack is not there: the console starts on numbered themes and says so.
GAME = ('[game]\nkind = "svoya"\nthemes = 0\nanswer_window_s = 10.0\npack_dir = "packs"\n'
        'pack = "packs/lost.siq"\n'
        '[[players]]\nid = "p1"\nname = "Аня"\npad = "mcu:0"\n'
        '[[players]]\nid = "p2"\nname = "Боря"\npad = "mcu:1"\n')


def pack_entry(file: str) -> str:
    return f'#packs-list li[data-file="{file}"]'


def open_pages(browser: Browser, url: str, password: str) -> tuple[Page, Page]:
    board = browser.new_page()
    board.goto(f"{url}/scoreboard")
    board.wait_for_function(LINK_UP, timeout=20_000)
    host = browser.new_context().new_page()
    host.goto(f"{url}/host")
    log_in_as_host(host, password)
    return host, board


def test_a_pack_and_its_round_chosen_on_the_tablet(tmp_path: Path) -> None:
    packs = tmp_path / "packs"
    packs.mkdir()
    evening_pack(packs)
    sim = SimulatedMcu(pads=2)
    sim.start()
    try:
        with lockdown() as broker, chromium() as browser:
            http_port = free_port()
            config = tmp_path / "console.toml"
            source = f'[sources.mcu]\nkind = "serial_mcu"\nport = "{sim.port}"\n'
            config.write_text(console_toml(broker, GAME + source, http_port,
                                           journal=str(tmp_path / "journal.jsonl")), encoding="utf-8")
            url = f"http://127.0.0.1:{http_port}"
            with running_daemon(config):
                wait_serving(f"{url}/host")
                host, board = open_pages(browser, url, broker.passwords["host"])
                expect(host.locator("#problems")).to_contain_text("lost.siq", timeout=WAIT_MS)
                entry = host.locator(pack_entry("evening.siq"))
                expect(entry).to_contain_text("Осенний вечер", timeout=WAIT_MS)
                rounds = entry.locator("button")
                expect(rounds).to_have_text(["Первый раунд · тем: 2", "Второй раунд · тем: 3"])

                # A point in the numbered fight, then round 2 of the pack: a new fight from zero.
                expect(rounds.nth(1)).to_be_enabled(timeout=WAIT_MS)
                click(host, "next")
                expect(host.locator("#phase")).to_contain_text("читается", timeout=WAIT_MS)
                expect(rounds.nth(1)).to_be_disabled()  # mid-question: between questions only
                sim.press(0)
                expect(host.locator('.player[data-player="p1"].answering')).to_be_visible(timeout=WAIT_MS)
                click(host, "name")
                click(host, "correct")
                expect(board.locator('.player[data-player="p1"] .score')).to_have_text("10", timeout=WAIT_MS)
                rounds.nth(1).click()
                confirm(host)
                expect(host.locator("#pack-now")).to_have_text("Играем: Осенний вечер, Второй раунд",
                                                                timeout=WAIT_MS)
                expect(host.locator("#situation")).to_have_text("Дальше: Моря, вопрос 1 за 20")
                expect(host.locator("#problems")).to_be_hidden()  # the pack played is read
                expect(board.locator('.player[data-player="p1"] .score')).to_have_text("0", timeout=WAIT_MS)
                click(host, "next")
                expect(host.locator("#question .text")).to_have_text("Моря за 20", timeout=WAIT_MS)
                expect(board.locator("#question")).to_have_text("«Моря» · 20 очков", timeout=WAIT_MS)

                # A pack copied onto the console later; then one that is not a pack at all.
                evening_pack(tmp_path).rename(packs / "second.siq")
                (packs / "broken.siq").write_bytes(b"PK not a zip")
                host.locator("#packs-refresh").click()
                expect(host.locator(pack_entry("second.siq")).locator("button")).to_have_count(
                    2, timeout=WAIT_MS)
                expect(host.locator(pack_entry("broken.siq"))).to_contain_text("не играется")
                click(host, "cancel")
                confirm(host)
                expect(host.locator("#phase")).to_have_text("между вопросами", timeout=WAIT_MS)
                # A pack spoiled after it was listed: said, and the fight goes on as it was.
                (packs / "second.siq").write_bytes(b"PK spoiled")
                host.locator(pack_entry("second.siq")).locator("button").first.click()
                confirm(host)
                expect(host.locator("#notices")).to_contain_text("пакет second.siq не загружен",
                                                                 timeout=WAIT_MS)
                expect(host.locator("#pack-now")).to_have_text("Играем: Осенний вечер, Второй раунд")
                expect(host.locator("#situation")).to_have_text("Дальше: Моря, вопрос 1 за 20")

            # A restart (the journal resumed): the chosen pack and round, as the host left them.
            with zipfile.ZipFile(packs / "evening.siq", "a") as z:  # the file changed: the journal holds it
                z.writestr("unrelated.txt", "x")
            with running_daemon(config):
                wait_serving(f"{url}/host")
                host, board = open_pages(browser, url, broker.passwords["host"])
                expect(host.locator("#pack-now")).to_have_text("Играем: Осенний вечер, Второй раунд",
                                                                timeout=WAIT_MS)
                expect(host.locator("#situation")).to_have_text("Дальше: Моря, вопрос 1 за 20")
                click(host, "next")
                expect(host.locator("#question .text")).to_have_text("Моря за 20", timeout=WAIT_MS)
    finally:
        sim.stop()
