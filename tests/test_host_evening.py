"""Issue 7's acceptance test: a host runs whole games with `chgk-console run` on the simulated
devices using only the host's screen and the host's keys, against the shipped broker lockdown.

- «Своя игра» with a question pack (`run --pack`, the documented TOML format, 2 themes × 2
  questions): every question from the pack's text on the host's screen, the players' presses
  from the simulated MCU over its pty, the host's actions from the screen's buttons and from
  a key device (tests/fake_keyboard.py: real input_event records, `kind = "stream"`), one
  appeal on the way (`reverse`), to the game's end: the winner and the final scores on the
  hall's scoreboard and on the host's screen.
- The «Что? Где? Когда?» table to the end of the smallest game the rules allow (a qualifier:
  to 6, 000 1.1.1): the simulated top (drivers/sim_top.py's physics streamed as ANGLE frames
  by a simulated MCU) is spun for every round and the console finds where it stopped; the
  rounds are judged from the screen and the keys, one result corrected (`correct_round`), to
  «Игра окончена» on the board and the host's screen.

One broker and one browser for the module; each game its own daemon and browser context (a
fresh host login).
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from evdev import ecodes
from playwright.sync_api import Browser, Page, expect

from drivers.sim_mcu import SimulatedMcu
from drivers.sim_top import LiveTopFeed, SimTop
from tests.conftest import free_port
from tests.fake_keyboard import FakeKeyboard
from tests.host_screen_pages import (
    BASE,
    LINK_UP,
    WAIT_MS,
    Lockdown,
    chromium,
    click,
    console_toml,
    enabled_actions,
    lockdown,
    log_in_as_host,
    running_daemon,
    wait_serving,
)

KEYBOARD = "usb-Presenter_Clicker-event-kbd"  # the by-id-like link the config names

# The pack, in the documented TOML format (docs/packs.md): two themes of two questions.
PACK = """name = "Вечер в клубе"

[[themes]]
name = "Реки"

[[themes.questions]]
value = 10
text = "Самая длинная река Европы."
answer = "Волга"
wrong = ["Дунай"]

[[themes.questions]]
value = 20
text = "На этой реке стоит Иркутск."
answer = "Ангара"
comment = "Байкал — озеро, из него Ангара вытекает."

[[themes]]
name = "Столицы"

[[themes.questions]]
value = 10
text = "Столица Австралии."
answer = "Канберра"
wrong = ["Сидней"]

[[themes.questions]]
value = 20
text = "Столица Канады."
answer = "Оттава"
"""


@dataclass
class Evening:
    broker: Lockdown
    browser: Browser
    tmp: Path


@dataclass
class Hall:
    host: Page
    board: Page
    keys: FakeKeyboard


@pytest.fixture(scope="module")
def evening(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Evening]:
    with lockdown() as broker, chromium() as browser:
        yield Evening(broker, browser, tmp_path_factory.mktemp("evening"))


def status(broker: Lockdown) -> dict[str, object]:
    """The console's retained status, read as the host account reads it."""
    done = subprocess.run(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(broker.port), "-u", "host",
                           "-P", broker.passwords["host"], "-t", f"{BASE}/status", "-C", "1", "-W", "3"],
                          capture_output=True, text=True, timeout=10)
    return json.loads(done.stdout) if done.returncode == 0 and done.stdout.strip() else {}


def wait_sources(broker: Lockdown, *sources: str, within: float = 20.0) -> None:
    """Until the console is online with every source connected (the players' or the top's MCU
    and the host's key device): a key or a press sent before would find nobody listening."""
    deadline = time.monotonic() + within
    while True:
        seen = status(broker)
        connected = seen.get("sources") if seen.get("state") == "online" else None
        if isinstance(connected, dict) and all(connected.get(s) == "connected" for s in sources):
            return
        assert time.monotonic() < deadline, f"sources not connected: {seen}"
        time.sleep(0.2)


@contextmanager
def evening_console(evening: Evening, name: str, game: str, source: str, keys: dict[str, str],
                    *args: str) -> Iterator[Hall]:
    """`chgk-console run` (with `args`) on `game`, a key device mapped as `keys`; the board
    and the host's screen (a fresh browser context: the host logs in), once every source is in."""
    workdir = evening.tmp / name
    workdir.mkdir()
    keyboard = FakeKeyboard(workdir / KEYBOARD)
    keyboard.plug()
    mapping = "".join(f'{key} = "{action}"\n' for key, action in keys.items())
    part = game + f'[host.keys]\ndevice = "{keyboard.link}"\nkind = "stream"\n{mapping}'
    http_port = free_port()
    config = workdir / "console.toml"
    config.write_text(console_toml(evening.broker, part, http_port), encoding="utf-8")
    context = evening.browser.new_context()
    try:
        with running_daemon(config, *args):
            url = f"http://127.0.0.1:{http_port}"
            wait_serving(f"{url}/host")
            wait_sources(evening.broker, source, f"keys:{KEYBOARD}")
            keyboard.release_slave()
            board = context.new_page()
            board.goto(f"{url}/")
            board.wait_for_function(LINK_UP, timeout=20_000)
            host = context.new_page()
            host.goto(f"{url}/host")
            log_in_as_host(host, evening.broker.passwords["host"])
            yield Hall(host, board, keyboard)
    finally:
        context.close()
        keyboard.close()


# ------------------------------------------------------------------ «Своя игра» with a pack

SVOYA = ('[game]\nkind = "svoya"\nthemes = 0\n'
         '[[players]]\nid = "p1"\nname = "Аня"\npad = "mcu:0"\n'
         '[[players]]\nid = "p2"\nname = "Боря"\npad = "mcu:1"\n'
         '[[players]]\nid = "p3"\nname = "Вера"\npad = "mcu:2"\n')
SVOYA_KEYS = {"KEY_PAGEDOWN": "next", "KEY_B": "reading_finished", "KEY_ENTER": "correct",
              "KEY_BACKSPACE": "wrong"}


def card(player: str) -> str:
    return f'.player[data-player="{player}"]'


def scores(hall: Hall, **expected: int) -> None:
    for page in (hall.host, hall.board):
        for player, points in expected.items():
            expect(page.locator(f"{card(player)} .score")).to_have_text(str(points), timeout=WAIT_MS)


def ask(hall: Hall, theme: str, value: int, text: str, answer: str, *, by_key: bool) -> None:
    """The next question, read from the host's screen, then the reading finished: the window
    for the signals counts."""
    host = hall.host
    if by_key:
        hall.keys.tap(ecodes.KEY_PAGEDOWN)
    else:
        click(host, "next")
    question = host.locator("#question")
    expect(question.locator(".text")).to_have_text(text, timeout=WAIT_MS)
    expect(question.locator(".answer")).to_have_text(f"Ответ: {answer}")
    expect(host.locator("#situation")).to_have_text(f"{theme} · {value} очков")
    expect(hall.board.locator("#question")).to_contain_text(theme)
    assert answer not in hall.board.locator("body").inner_text()  # the host's only
    if by_key:
        hall.keys.tap(ecodes.KEY_B)
    else:
        click(host, "reading_finished")
    expect(host.locator("#timer")).to_have_class("signal", timeout=WAIT_MS)


def buzz(sim: SimulatedMcu, hall: Hall, pad: int, player: str) -> None:
    """A player's press on the MCU; it lights them on both pages."""
    sim.press(pad)
    sim.release(pad)
    for page in (hall.host, hall.board):
        expect(page.locator(card(player))).to_have_class("player answering", timeout=WAIT_MS)


def test_a_whole_svoya_fight_with_a_pack_from_the_screen_and_keys(evening: Evening) -> None:
    pack = evening.tmp / "evening-pack.toml"
    pack.write_text(PACK, encoding="utf-8")
    sim = SimulatedMcu(pads=4)
    sim.start()
    try:
        mcu = f'[sources.mcu]\nkind = "serial_mcu"\nport = "{sim.port}"\n'
        with evening_console(evening, "svoya", SVOYA + mcu, "mcu", SVOYA_KEYS, "--pack", str(pack)) as hall:
            host, board = hall.host, hall.board
            expect(host.locator("#title")).to_have_text("Своя игра", timeout=WAIT_MS)
            expect(host.locator("#situation")).to_have_text("Дальше: Реки, вопрос 1 за 10")

            # Реки, 10: Аня first, Боря 2nd; «Верно» on the key; then an appeal reverses it.
            ask(hall, "Реки", 10, "Самая длинная река Европы.", "Волга", by_key=True)
            expect(host.locator("#question .wrong")).to_have_text("Не засчитывать: Дунай")
            buzz(sim, hall, 0, "p1")
            sim.press(1)
            sim.release(1)
            expect(host.locator("#presses li")).to_have_count(2, timeout=WAIT_MS)
            expect(host.locator("#presses li").nth(1)).to_contain_text("Боря — +")
            hall.keys.tap(ecodes.KEY_ENTER)
            scores(hall, p1=10, p2=0, p3=0)
            click(host, "reverse")
            host.fill("#field-reason", "апелляция: названа не та река")
            host.click("#dialog-ok")
            scores(hall, p1=-10, p2=0, p3=0)
            assert "reverse" not in enabled_actions(host)  # an appeal's decision is final (004 4.3)

            # Реки, 20: Боря wrong (the key), the reset, Вера right (the screen).
            ask(hall, "Реки", 20, "На этой реке стоит Иркутск.", "Ангара", by_key=False)
            buzz(sim, hall, 1, "p2")
            hall.keys.tap(ecodes.KEY_BACKSPACE)
            for page in (host, board):
                expect(page.locator(card("p2"))).to_have_class("player out", timeout=WAIT_MS)
            click(host, "reset")
            expect(host.locator("#timer")).to_have_class("signal", timeout=WAIT_MS)
            # The reset has reached the console (the timer alone may still show the window before
            # "wrong"): a press made earlier is rightly ignored, waiting for the reset.
            expect(host.locator("#phase")).to_contain_text("идёт время на сигнал", timeout=WAIT_MS)
            buzz(sim, hall, 2, "p3")
            click(host, "correct")
            scores(hall, p1=-10, p2=-20, p3=20)

            # The second theme: Вера, then Аня.
            ask(hall, "Столицы", 10, "Столица Австралии.", "Канберра", by_key=True)
            buzz(sim, hall, 2, "p3")
            hall.keys.tap(ecodes.KEY_ENTER)
            scores(hall, p1=-10, p2=-20, p3=30)
            ask(hall, "Столицы", 20, "Столица Канады.", "Оттава", by_key=False)
            buzz(sim, hall, 0, "p1")
            click(host, "correct")

            # The pack is played out: the fight is over, on both pages, with its winner.
            scores(hall, p1=10, p2=-20, p3=30)
            expect(board.locator("#decision")).to_have_text("Победитель: Вера (30)", timeout=WAIT_MS)
            expect(host.locator("#situation")).to_have_text("Бой окончен · победитель: Вера (30)")
            expect(host.locator("#phase")).to_have_text("бой окончен")
            expect(host.locator("#question")).to_be_hidden()
            allowed = enabled_actions(host)
            assert "new_game" in allowed and not {"next", "reading_finished", "correct"} & allowed
    finally:
        sim.stop()


# ------------------------------------------------------------------ the ChGK table

TABLE = ('[game]\nkind = "chgk"\n'
         '[[teams]]\nid = "t1"\nname = "Совы"\n[[teams]]\nid = "t2"\nname = "Ежи"\n'
         '[table]\nteam = "t1"\nstage = "qualifier"\n')
TABLE_KEYS = {"KEY_E": "early_answer", "KEY_Y": "answer_correct", "KEY_N": "answer_wrong"}
SECTOR_DEG = 30.0  # 12 equal sectors, sector 1 clockwise from 0° (the config's calibration)
SPIN_S = 1.0  # short spins: six rounds within the test's time
SPIN_UP_S = 0.1
SAMPLE_RATE_HZ = 200.0  # as `chgk-console demo` streams the top


class Top:
    """The simulated top on the table's MCU, spun by hand so it stops mid-sector on `sector`
    (two turns and more: well past the detector's minimal rotation)."""

    def __init__(self, sim: SimulatedMcu) -> None:
        self.top = SimTop(seed=11, rate_hz=SAMPLE_RATE_HZ, start_deg=100.0)
        self.feed = LiveTopFeed(self.top, sim)

    def spin_to(self, sector: int) -> None:
        settled = self.top.settled_ns()
        at = time.monotonic_ns() + self.top.period_ns
        if settled is not None and at < settled:
            time.sleep((settled - at) / 1e9)
            at = time.monotonic_ns() + self.top.period_ns
        target = (sector - 0.5) * SECTOR_DEG
        rotation = (target - self.top.angle_deg(at)) % 360.0 + 720.0
        # No viscous braking: the rotation is ω0·(spin-up + run-down)/2 exactly.
        truth = self.top.spin(at, omega0_dps=2 * rotation / (SPIN_UP_S + SPIN_S), duration_s=SPIN_S,
                              spinup_s=SPIN_UP_S, viscous_share=0.0)
        assert abs(truth.rest_deg - target) < 0.5


def round_on(hall: Hall, top: Top, number: int, aimed: int, sector: int | None = None) -> None:
    """The top spun for round `number`: it stops on `aimed`; the round is played on `sector`
    (the next unplayed one clockwise when `aimed` was played, 003 6.1.1)."""
    sector = aimed if sector is None else sector
    top.spin_to(aimed)
    expect(hall.board.locator("path.sector.current")).to_have_attribute("data-sector", str(sector),
                                                                         timeout=WAIT_MS)
    expect(hall.host.locator("#situation")).to_contain_text(f"раунд {number}, сектор {sector}")
    expect(hall.host.locator("#phase")).to_contain_text("вопрос на столе")


def early(hall: Hall, *, by_key: bool) -> None:
    """The captain answers at once (003 6.1.5): the answer waits for the host's verdict."""
    if by_key:
        hall.keys.tap(ecodes.KEY_E)
    else:
        click(hall.host, "early_answer")
    expect(hall.host.locator("#phase")).to_contain_text("ответ команды", timeout=WAIT_MS)


def score(hall: Hall, team: int, club: int) -> None:
    expect(hall.board.locator("#score")).to_have_text(f"{team} : {club}", timeout=WAIT_MS)
    expect(hall.host.locator("#situation")).to_contain_text(f"Совы {team} : {club}")


def test_a_whole_table_game_from_the_screen_and_keys(evening: Evening) -> None:
    sim = SimulatedMcu(pads=1)
    sim.start()
    top = Top(sim)
    try:
        source = f'[sources.top]\nkind = "serial_mcu"\nport = "{sim.port}"\n'
        with evening_console(evening, "table", TABLE + source, "top", TABLE_KEYS) as hall:
            host, board = hall.host, hall.board
            top.feed.start()
            expect(host.locator("#title")).to_have_text("Что? Где? Когда? — стол", timeout=WAIT_MS)
            score(hall, 0, 0)

            # Round 1: a wrong answer keyed in by mistake, corrected before the next spin.
            round_on(hall, top, 1, 3)
            early(hall, by_key=True)
            hall.keys.tap(ecodes.KEY_N)
            score(hall, 0, 1)
            click(host, "correct_round")
            expect(host.locator("#dialog-text")).to_contain_text("Раунд 1 (сектор 3)")
            host.fill("#field-reason", "ответ знатоков был верным")
            host.click("#dialog-ok")
            score(hall, 1, 0)

            # Rounds 2-6: the top stops where it stops; the team answers right each time.
            round_on(hall, top, 2, 7)
            early(hall, by_key=False)
            hall.keys.tap(ecodes.KEY_Y)
            score(hall, 2, 0)
            round_on(hall, top, 3, 7, sector=8)  # on a played sector: the next one clockwise
            early(hall, by_key=True)
            click(host, "answer_correct")
            score(hall, 3, 0)
            for number, sector, team in ((4, 11, 4), (5, 2, 5)):
                round_on(hall, top, number, sector)
                early(hall, by_key=True)
                hall.keys.tap(ecodes.KEY_Y)
                score(hall, team, 0)
            assert "correct_round" in enabled_actions(host)
            round_on(hall, top, 6, 12)
            early(hall, by_key=True)
            click(host, "answer_correct")

            # Six points: the game is over, on the board and on the host's screen.
            score(hall, 6, 0)
            expect(board.locator("#winner")).to_have_text("Игра окончена: победили знатоки «Совы», 6 : 0",
                                                          timeout=WAIT_MS)
            expect(host.locator("#situation")).to_contain_text("победа команды")
            expect(host.locator("#phase")).to_contain_text("игра окончена")
            allowed = enabled_actions(host)
            assert "new_game" in allowed and not {"pick_sector", "early_answer", "answer_correct"} & allowed
    finally:
        top.feed.stop()
        sim.stop()
