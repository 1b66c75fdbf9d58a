#!/usr/bin/env python3
"""Screenshots of the host's screen and the hall's boards at a few moments of each game, for
docs/host-screen.md: `.venv/bin/python scripts/host-screen-screenshots.py` (from the repo's
root) rewrites docs/screenshots/*.png; `... host-screen-screenshots.py quartet` (game names:
svoya, table, sports, quartet, brainring; sheet, the sports stage's jury page, standings and
protocol; and organiser, the tournament's page) only those pictures.

The same set-up as the browser tests (tests/host_screen_pages.py): mosquitto with the shipped
lockdown, `chgk-console run` as a process on a simulated MCU, Debian's Chromium through
Playwright; the host's screen at a phone's size, the boards at a TV's. The moments are played
from the host's screen itself. Not a test: it asserts only what it needs to go on.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import Browser, Page, ViewportSize, expect  # noqa: E402

from console.tournament.draw import draw_groups  # noqa: E402
from drivers.sim_mcu import SimulatedMcu  # noqa: E402
from tests.conftest import free_port  # noqa: E402
from tests.host_screen_pages import (  # noqa: E402
    LINK_UP,
    Lockdown,
    chromium,
    click,
    console_toml,
    lockdown,
    log_in_as_host,
    running_daemon,
    wait_serving,
)
from tests.test_tournament_service import SEED, TEAMS  # noqa: E402

OUT = ROOT / "docs" / "screenshots"
PHONE: ViewportSize = {"width": 412, "height": 915}
TV: ViewportSize = {"width": 1280, "height": 720}
PACK = ROOT / "examples" / "packs" / "club-evening.toml"
QUESTIONS = ROOT / "console" / "data" / "questions-demo.txt"
SVOYA = ('[game]\nkind = "svoya"\nthemes = 0\n'
         f'pack = "{PACK}"\npack_dir = "{PACK.parent}"\n'
         '[[players]]\nid = "p1"\nname = "Аня"\npad = "mcu:0"\n'
         '[[players]]\nid = "p2"\nname = "Боря"\npad = "mcu:1"\n'
         '[[players]]\nid = "p3"\nname = "Вера"\npad = "mcu:2"\n')
TABLE = ('[game]\nkind = "chgk"\n[sources.top]\nkind = "simulated_mcu"\npads = 1\n'
         '[[teams]]\nid = "t1"\nname = "Совы"\n[[teams]]\nid = "t2"\nname = "Ежи"\n'
         f'[table]\nteam = "t1"\nfortochka = 5\nsector12 = [8]\nquestion_file = "{QUESTIONS}"\n')
SPORTS = '[game]\nkind = "sports"\n'
BRAINRING = ('[game]\nkind = "brainring"\n'
             '[[brainring.teams]]\nid = "t1"\nname = "Совы"\npads = ["mcu:0", "mcu:1"]\n'
             '[[brainring.teams]]\nid = "t2"\nname = "Ежи"\npads = ["mcu:2", "mcu:3"]\n')
QUARTET_TEAMS = {"t1": ("Совы", ("Аня", "Боря", "Вика", "Гоша", "Даша")),
                 "t2": ("Ежи", ("Ель", "Жора", "Зоя", "Ира")),
                 "t3": ("Лисы", ("Кира", "Лёва", "Мила", "Нина")),
                 "t4": ("Бобры", ("Олег", "Паша", "Рита", "Саша"))}
QUARTET = ('[game]\nkind = "quartet"\n'
           f'pack = "{PACK}"\n'
           + "".join(f'[[players]]\nid = "{t}"\nname = "{name}"\npad = "mcu:{i}"\n'
                     for i, (t, (name, _)) in enumerate(QUARTET_TEAMS.items()))
           + "".join(f'[[quartet.teams]]\nid = "{t}"\nplayers = {list(players)}\n'.replace("'", '"')
                     for t, (_, players) in QUARTET_TEAMS.items()))


def shot(page: Page, name: str, at: str = "") -> None:
    """The page as a screen shows it: from its top, or scrolled to `at` (a selector)."""
    if at:  # to the top of the screen: the action bar is fixed at its foot
        page.locator(at).evaluate("e => e.scrollIntoView({block: 'start'})")
    else:
        page.evaluate("window.scrollTo(0, 0)")  # a click scrolled it
    page.wait_for_timeout(300)  # the countdowns and the top settle on a frame
    # The screen, not the whole page: the action bar is fixed at its foot.
    page.screenshot(path=str(OUT / f"{name}.png"))
    print(f"docs/screenshots/{name}.png")


def game(browser: Browser, broker: Lockdown, part: str, play: Callable[[Page, Page], None]) -> None:
    """`chgk-console run` with the game's `part` (and a journal, for the fight's protocol), the
    board and the logged-in host's screen."""
    http_port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "console.toml"
        config.write_text(console_toml(broker, part, http_port, journal=str(Path(tmp) / "journal.jsonl")),
                          encoding="utf-8")
        with running_daemon(config):
            url = f"http://127.0.0.1:{http_port}"
            wait_serving(f"{url}/host")
            board = browser.new_page(viewport=TV)
            board.goto(f"{url}/")
            board.wait_for_function(LINK_UP, timeout=20_000)
            host = browser.new_page(viewport=PHONE)
            host.goto(f"{url}/host")
            log_in_as_host(host, broker.passwords["host"])
            play(host, board)
            host.close()
            board.close()


def svoya(sim: SimulatedMcu) -> Callable[[Page, Page], None]:
    def play(host: Page, board: Page) -> None:
        shot(host, "host-svoya-idle")
        click(host, "next")
        click(host, "reading_finished")
        expect(host.locator("#timer")).to_have_class("signal", timeout=10_000)  # presses count now
        sim.press(1)
        sim.release(1)
        sim.press(0)
        sim.release(0)
        sim.press(2)
        sim.release(2)
        expect(host.locator("#presses li")).to_have_count(3, timeout=10_000)
        click(host, "name")
        shot(host, "host-svoya-answering")
        shot(board, "board-svoya-answering")
        click(host, "answer_started")
        click(host, "wrong")
        shot(host, "host-svoya-wrong")
        click(host, "new_game")
        shot(host, "host-svoya-confirm")
        host.click("#dialog-cancel")
        host.locator('#actions button[data-action="adjust_score"]').click()
        host.select_option("#field-player", "p2")
        host.fill("#field-delta", "10")
        host.fill("#field-reason", "апелляция: ответ засчитан")
        shot(host, "host-svoya-correction")
        host.click("#dialog-cancel")
        click(host, "reset")  # after Боря's wrong answer: Аня signals again and is right
        expect(host.locator("#timer")).to_have_class("signal", timeout=10_000)
        sim.press(0)
        sim.release(0)
        expect(host.locator('.player[data-player="p1"]')).to_have_class("player answering", timeout=10_000)
        click(host, "name")
        click(host, "correct")
        host.locator("#protocol-show").click()
        expect(host.frame_locator("#protocol-frame").locator("table").last.locator("tr")).to_have_count(
            2, timeout=10_000)
        shot(host, "host-svoya-protocol", at="#protocol-frame")
        host.locator("#protocol-show").click()
        click(host, "add_player")
        host.fill("#field-name", "Глеб")
        shot(host, "host-svoya-players")
        host.click("#dialog-cancel")
        shot(host, "host-svoya-menu", at="#menu-box")
        click(host, "add_player")
        host.click("#dialog-cancel")
        expect(host.locator("#packs-list button").first).to_be_enabled(timeout=10_000)
        shot(host, "host-svoya-packs", at="#packs-box")
    return play


def table(host: Page, board: Page) -> None:
    click(host, "pick_sector")
    host.select_option("#field-sector", "8")
    host.click("#dialog-ok")
    expect(host.locator("#question")).to_be_visible(timeout=10_000)
    click(host, "start_timer")
    host.wait_for_timeout(1500)
    shot(host, "host-table-sector12")
    shot(board, "board-table-discussion")
    click(host, "pause")
    expect(board.locator("#call")).to_have_text("Пауза", timeout=10_000)
    shot(host, "host-table-paused")
    shot(board, "board-table-paused")
    click(host, "resume")
    click(host, "answer_correct")
    click(host, "correct_round")
    host.fill("#field-reason", "ответ засчитан ошибочно")
    shot(host, "host-table-correction")
    host.click("#dialog-cancel")


def sports(host: Page, board: Page) -> None:
    shot(host, "host-sports-idle")
    click(host, "start")
    host.wait_for_timeout(1500)
    shot(host, "host-sports-counting")
    shot(board, "board-sports-counting")
    click(host, "pause")
    expect(board.locator("#phase")).to_contain_text("Пауза", timeout=10_000)
    shot(host, "host-sports-paused")
    shot(board, "board-sports-paused")
    click(host, "resume")
    click(host, "cancel")
    shot(host, "host-sports-confirm")
    host.click("#dialog-cancel")


def brainring(sim: SimulatedMcu) -> Callable[[Page, Page], None]:
    def play(host: Page, board: Page) -> None:
        click(host, "next")
        click(host, "time")
        expect(host.locator("#clock")).to_be_visible(timeout=10_000)
        host.wait_for_timeout(1500)
        shot(board, "board-brainring-counting")
        click(host, "pause")
        expect(board.locator("#count")).to_contain_text("пауза", timeout=10_000)
        shot(host, "host-brainring-paused")
        click(host, "resume")
        expect(host.locator("#timer")).not_to_contain_text("пауза", timeout=10_000)  # a press now counts
        sim.press(2)
        sim.release(2)
        expect(host.locator('.player[data-player="t2"]')).to_contain_text("ОТВЕЧАЕТ", timeout=10_000)
        shot(host, "host-brainring-answering")
        click(host, "correct")
        click(host, "rename_team")
        host.fill("#field-name", "Совы-2")
        shot(host, "host-brainring-teams")
        host.click("#dialog-cancel")
    return play


def quartet(sim: SimulatedMcu) -> Callable[[Page, Page], None]:
    def play(host: Page, board: Page) -> None:
        click(host, "start_round")
        for i, name in enumerate(("Реки", "Столицы", "Поэты", "Кино")):
            host.fill(f"#field-themes-{i}", name)
        host.click("#dialog-ok")
        expect(host.locator("#timer-kind")).to_have_text("минута на расстановку", timeout=10_000)
        click(host, "assign")
        host.select_option("#field-players-0", "Даша")
        host.wait_for_timeout(1500)  # the minute counts down
        shot(host, "host-quartet-assign")
        host.click("#dialog-ok")
        for team in ("t2", "t3", "t4"):
            click(host, "assign")
            expect(host.locator("#field-team")).to_have_value(team)
            host.click("#dialog-ok")
        click(host, "start_theme")
        click(host, "next")
        click(host, "reading_finished")
        expect(host.locator("#timer")).to_have_class("signal", timeout=10_000)
        for pad in (2, 0, 3):
            sim.press(pad)
            sim.release(pad)
        expect(host.locator("#presses li")).to_have_count(3, timeout=10_000)
        shot(host, "host-quartet-theme")
        shot(board, "board-quartet-theme")
        click(host, "correct")
    return play


SHEET_TEAMS = ("Совы", "Ежи", "Лисы", "Бобры", "Еноты", "Волки", "Зубры", "Рыси", "Барсуки", "Кроты",
               "Сойки", "Дятлы")
TOWNS = ("Белгород", "Курск", "Старый Оскол")
SHEET = ('[game]\nkind = "sports"\n[sports]\nhide_last_tour = false\n'
         + "".join(f'[[sports.teams]]\nname = "{name}"\ntown = "{TOWNS[i % 3]}"\nrating_id = {4100 + i}\n'
                   for i, name in enumerate(SHEET_TEAMS)))


def sheet(browser: Browser, broker: Lockdown) -> None:
    """The sports stage's sheet (docs/sports-sheet.md): three tours entered, a dispute and an
    appeal open, a tie across the 5th place; the jury's page, the hall's standings, the protocol."""
    import json
    import random

    http_port = free_port()
    rng = random.Random(3)

    def jury(command: dict[str, object]) -> None:
        subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(broker.port), "-u", "jury", "-P",
                        broker.passwords["jury"], "-q", "1", "-t", "chgk/t1/jury/command",
                        "-m", json.dumps(command, ensure_ascii=False)], check=True)

    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "console.toml"
        config.write_text(console_toml(broker, SHEET, http_port, journal=str(Path(tmp) / "journal.jsonl")),
                          encoding="utf-8")
        with running_daemon(config):
            url = f"http://127.0.0.1:{http_port}"
            wait_serving(f"{url}/jury")
            strength = [0.8, 0.75, 0.7, 0.6, 0.5, 0.5, 0.45, 0.4, 0.35, 0.3, 0.25, 0.2]
            for q in range(1, 37):
                jury({"action": "set_question", "question": q, "by": "Иванова",
                      "teams": [t for t in range(1, 13) if rng.random() < strength[t - 1]]})
            for team, answer in ((3, "Пётр Первый"), (5, "петр первый"), (8, "Пётр I"), (9, "Екатерина")):
                jury({"action": "set_cell", "team": team, "question": 30, "verdict": "0", "answer": answer})
            jury({"action": "set_cell", "team": 6, "question": 34, "verdict": "?", "answer": "Менделеев"})
            jury({"action": "remove_question", "question": 17, "why": "ошибка в тексте вопроса",
                  "by": "Иванова"})
            jury({"action": "open_appeal", "team": 3, "question": 30})
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"{url}/jury")
            page.wait_for_selector("#login:not([hidden])")
            page.fill("#login-password", broker.passwords["jury"])
            page.click("#login-ok")
            page.wait_for_function(LINK_UP)
            page.fill("#q", "30")
            page.locator("#q").dispatch_event("change")
            expect(page.locator("#candidates li")).to_have_count(1, timeout=10_000)
            shot(page, "jury-sheet")
            board = browser.new_page(viewport=TV)
            board.goto(f"{url}/standings")
            board.wait_for_function(LINK_UP, timeout=20_000)
            expect(board.locator("#rows tr")).to_have_count(12, timeout=10_000)
            shot(board, "board-sports-standings")
            protocol = browser.new_page(viewport={"width": 1000, "height": 1100})
            protocol.goto(f"{url}/protocol")
            shot(protocol, "protocol-sports-stage")
            for p in (page, board, protocol):
                p.close()


def organiser(browser: Browser) -> None:
    """The organiser's page (docs/tournament.md): the draw, two group fights played, the
    standings, as `chgk-console tournament` serves it with a plain mosquitto."""
    from tests.conftest import start_mosquitto
    from tests.test_tournament_service import fight_over, play, write_config

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        ws_port, http_port = free_port(), free_port()
        broker, port = start_mosquitto(folder, ws_port)
        config = write_config(folder, port=port)
        config.write_text(config.read_text(encoding="utf-8").replace(
            "[page]\nhttp_port = 0\n",
            f'[page]\nhttp_port = {http_port}\nbind = "127.0.0.1"\nws_port = {ws_port}\n'),
            encoding="utf-8")
        service = subprocess.Popen(
            [sys.executable, "-m", "console.cli", "tournament", "--config", str(config)],
            cwd=ROOT, stderr=subprocess.DEVNULL)
        try:
            page = browser.new_page(viewport=TV)
            wait_serving(f"http://127.0.0.1:{http_port}/")
            page.goto(f"http://127.0.0.1:{http_port}/")
            page.wait_for_function(LINK_UP, timeout=20_000)
            groups = draw_groups(TEAMS, SEED).groups
            for node, group in (("t1", "A"), ("t3", "C")):
                teams = groups[group]
                subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(port), "-q", "1",
                                "-t", f"chgk/{node}/events", "-s"],
                               input=fight_over(play(teams, list(reversed(teams)))), check=True)
                expect(page.locator(f'[data-fight="group-{group}"]')).to_contain_text(
                    f"стол {node}", timeout=10_000)
            shot(page, "organiser-groups")
            page.close()
        finally:
            service.terminate()
            service.wait(timeout=10)
            broker.terminate()
            broker.wait(timeout=5)


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    only = set(sys.argv[1:])  # game names; none: every game
    sim = SimulatedMcu(pads=4)
    sim.start()
    try:
        with lockdown() as broker, chromium() as browser:
            mcu = f'[sources.mcu]\nkind = "serial_mcu"\nport = "{sim.port}"\n'
            games: dict[str, tuple[str, Callable[[Page, Page], None]]] = {
                "svoya": (SVOYA + mcu, svoya(sim)),
                "table": (TABLE, table),
                "sports": (SPORTS, sports),
                "quartet": (QUARTET + mcu, quartet(sim)),
                "brainring": (BRAINRING + mcu, brainring(sim)),
            }
            for name, (part, play) in games.items():
                if not only or name in only:
                    game(browser, broker, part, play)
            if not only or "sheet" in only:
                sheet(browser, broker)
            if not only or "organiser" in only:
                organiser(browser)
    finally:
        sim.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
