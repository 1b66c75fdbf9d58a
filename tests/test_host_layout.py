"""The host's screen laid out by the moment (issue 34), in every game kind, as a club runs it:
`chgk-console run` as a process with the shipped lockdown, the host's screen in Chromium at a
phone's size (390×844) and a tablet's (800×1280), both open at once on the same console.

During a question, what the host must read at a glance is the first screen: the question
(theme, value, answer, the text's first lines where the game has a text), its phase, the
running clock and the first press, each inside the viewport and not under the fixed action
bar, with a notice or two shown. The evening's tools (the button check, the menu, packs,
protocol) are one tap away (the header's «Меню»), below the game, and the destructive
«Новая игра» is never in the question's bar.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from drivers.sim_mcu import SimulatedMcu
from tests.conftest import free_port
from tests.host_screen_pages import (
    WAIT_MS,
    Lockdown,
    chromium,
    click,
    console_toml,
    lockdown,
    log_in_as_host,
    running_daemon,
    wait_serving,
)

pytestmark = pytest.mark.process

DEVICES = {"phone": (390, 844), "tablet": (800, 1280)}
QUESTIONS = Path(__file__).resolve().parent.parent / "console" / "data" / "questions-demo.txt"
# A question as long as a club's pack has them (about 300 characters), so the check is not
# passed by a one-line question.
LONG_TEXT = ("Этот город основан в 1703 году на болотистых берегах реки, впадающей в залив; "
             "его строили по регулярному плану, каменные дома велено было возводить только в нём, "
             "а по всей остальной стране каменное строительство на время запретили. "
             "Больше двухсот лет он был столицей империи. Назовите этот город.")
PACK = ('name = "Длинный вопрос"\n[[themes]]\nname = "Города"\n'
        f'[[themes.questions]]\nvalue = 10\ntext = "{LONG_TEXT}"\nanswer = "Санкт-Петербург"\n'
        '[[themes.questions]]\nvalue = 20\ntext = "Столица Канады."\nanswer = "Оттава"\n'
        '[[themes]]\nname = "Реки"\n'
        '[[themes.questions]]\nvalue = 10\ntext = "Самая длинная река Европы."\nanswer = "Волга"\n'
        '[[themes.questions]]\nvalue = 20\ntext = "На этой реке стоит Иркутск."\nanswer = "Ангара"\n')


@dataclass
class Kind:
    """A game kind's config part (the source added by the test) and how the host brings it to
    a question whose clock runs, from the phone's screen; `presses`: the game has players'
    buttons (two are pressed next); `text`: its question has a text."""

    part: Callable[[Path], str]
    play: Callable[[Page], None]
    presses: bool = True
    text: bool = True


def press(sim: SimulatedMcu, *pads: int) -> None:
    for pad in pads:
        sim.press(pad)
        sim.release(pad)


def play_svoya(host: Page) -> None:
    click(host, "next")
    click(host, "reading_finished")
    expect(host.locator("#timer")).to_have_class("signal", timeout=WAIT_MS)


def play_quartet(host: Page) -> None:
    click(host, "start_round")
    for i, name in enumerate(("Города", "Реки", "Поэты", "Кино")):
        host.fill(f"#field-themes-{i}", name)
    host.click("#dialog-ok")
    for _ in range(4):
        click(host, "assign")
        host.click("#dialog-ok")
        expect(host.locator("#dialog")).to_be_hidden()
    click(host, "start_theme")
    play_svoya(host)


def play_brainring(host: Page) -> None:
    click(host, "next")
    click(host, "time")
    expect(host.locator("#clock")).to_be_visible(timeout=WAIT_MS)


def play_table(host: Page) -> None:
    click(host, "pick_sector")
    host.select_option("#field-sector", "8")
    host.click("#dialog-ok")
    expect(host.locator("#question .text")).not_to_be_empty(timeout=WAIT_MS)
    click(host, "start_timer")
    expect(host.locator("#clock")).to_be_visible(timeout=WAIT_MS)


def play_sports(host: Page) -> None:
    click(host, "start")
    expect(host.locator("#clock")).to_be_visible(timeout=WAIT_MS)


PLAYERS = "".join(f'[[players]]\nid = "p{i + 1}"\nname = "{name}"\npad = "mcu:{i}"\n'
                  for i, name in enumerate(("Аня", "Боря", "Вера", "Гоша")))
KINDS = {
    "svoya": Kind(lambda pack: f'[game]\nkind = "svoya"\nthemes = 0\npack = "{pack}"\n{PLAYERS}',
                  play_svoya),
    "quartet": Kind(lambda pack: f'[game]\nkind = "quartet"\npack = "{pack}"\n{PLAYERS}'
                    + "".join(f'[[quartet.teams]]\nid = "p{i}"\nplayers = ["{i}а", "{i}б", "{i}в", "{i}г"]\n'
                              for i in range(1, 5)), play_quartet),
    "brainring": Kind(lambda pack: '[game]\nkind = "brainring"\n'
                      '[[brainring.teams]]\nid = "t1"\nname = "Совы"\npads = ["mcu:0", "mcu:1"]\n'
                      '[[brainring.teams]]\nid = "t2"\nname = "Ежи"\npads = ["mcu:2", "mcu:3"]\n',
                      play_brainring, text=False),
    "chgk": Kind(lambda pack: '[game]\nkind = "chgk"\n[[teams]]\nid = "t1"\nname = "Совы"\n'
                 '[[teams]]\nid = "t2"\nname = "Ежи"\n'
                 f'[table]\nteam = "t1"\nsector12 = [8]\nquestion_file = "{QUESTIONS}"\n', play_table,
                 presses=False),
    "sports": Kind(lambda pack: '[game]\nkind = "sports"\n', play_sports, presses=False, text=False),
}


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as chrome:
        yield chrome


@pytest.fixture(scope="module")
def broker() -> Iterator[Lockdown]:
    with lockdown() as locked:
        yield locked


def boxes(page: Page) -> dict[str, dict[str, float] | None]:
    """Where the moment's parts are on the screen (None: not shown), the bar's top and the
    header's foot, the page scrolled to its top as the host finds it."""
    page.evaluate("window.scrollTo(0, 0)")
    where: dict[str, dict[str, float] | None] = page.evaluate("""() => {
        const box = (selector) => {
            const e = document.querySelector(selector);
            if (!e || !e.checkVisibility()) return null;
            const r = e.getBoundingClientRect();
            return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height};
        };
        return {bar: box("#action-bar"), header: box("header"), situation: box("#situation"),
                phase: box("#phase"), timer: box("#timer"), first: box("#presses li.first"),
                theme: box("#question .theme"), answer: box("#question .answer"),
                text: box("#question .text")};
    }""")
    return where


def in_first_screen(where: dict[str, dict[str, float] | None], part: str, width: int, *,
                    lines: float | None = None) -> None:
    """`part` is shown between the header and the bar (its first `lines` lines, if given)."""
    box, bar, header = where[part], where["bar"], where["header"]
    assert box is not None, f"{part} is not shown"
    assert bar is not None and header is not None
    bottom = box["bottom"] if lines is None else min(box["bottom"], box["top"] + lines * 26)
    assert box["top"] >= header["bottom"] - 0.5, f"{part} is under the header: {box}"
    assert bottom <= bar["top"] + 0.5, f"{part} is under the action bar ({bar['top']:.0f}): {box}"
    assert box["left"] >= 0 and box["right"] <= width + 0.5, f"{part} runs off the screen: {box}"


@pytest.mark.parametrize("kind", list(KINDS))
def test_the_question_in_play_is_the_first_screen(browser: Browser, broker: Lockdown, kind: str,
                                                  tmp_path: Path) -> None:
    game = KINDS[kind]
    sim = SimulatedMcu(pads=4)
    sim.start()
    pack = tmp_path / "pack.toml"
    pack.write_text(PACK, encoding="utf-8")
    http_port = free_port()
    config = tmp_path / "console.toml"
    source = f'[sources.mcu]\nkind = "serial_mcu"\nport = "{sim.port}"\n' if kind != "sports" else ""
    config.write_text(console_toml(broker, game.part(pack) + source, http_port), encoding="utf-8")
    contexts = []
    try:
        with running_daemon(config):
            url = f"http://127.0.0.1:{http_port}"
            wait_serving(f"{url}/host")
            pages: dict[str, Page] = {}
            for device, (width, height) in DEVICES.items():
                context = browser.new_context(viewport={"width": width, "height": height})
                contexts.append(context)
                page = context.new_page()
                page.goto(f"{url}/host")
                log_in_as_host(page, broker.passwords["host"])
                pages[device] = page
            host = pages["phone"]
            # Two notices before the question: they must not push the question down.
            broker.publish("host", '{"action": "dance"}')
            broker.publish("host", '{"action": "fly"}')
            game.play(host)
            moments = ["clock"] + (["presses"] if game.presses else [])
            for moment in moments:
                if moment == "presses":
                    press(sim, 2, 0)
                for device, page in pages.items():
                    width, _ = DEVICES[device]
                    expect(page.locator("#notice-count")).to_be_visible(timeout=WAIT_MS)
                    parts = ["situation", "phase"]
                    if moment == "clock":
                        expect(page.locator("#clock")).to_be_visible(timeout=WAIT_MS)
                        parts.append("timer")
                    else:
                        expect(page.locator("#presses li")).to_have_count(2, timeout=WAIT_MS)
                        parts.append("first")
                    if game.text:
                        parts += ["theme", "answer"]
                    where = boxes(page)
                    for part in parts:
                        in_first_screen(where, part, width)
                    if game.text:
                        in_first_screen(where, "text", width, lines=3)
            for page in pages.values():
                # The evening's tools: one tap on «Меню» brings them; a reset («Новая игра»,
                # «Новый бой») is among them, never in the question's bar.
                for reset in ("new_game", "new_fight", "next_fight"):
                    assert page.locator(f'#actions button[data-action="{reset}"]').count() == 0
                page.click("#to-tools")
                expect(page.locator("#tools")).to_be_in_viewport()
                page.click("#to-game")
                expect(page.locator("#situation")).to_be_in_viewport()
            page_text = " ".join(page.inner_text("body") for page in pages.values())
            for wrong in ("undefined", "NaN"):
                assert wrong not in page_text
    finally:
        for context in contexts:
            context.close()
        sim.stop()

