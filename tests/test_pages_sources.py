"""Every page shows each source's health from the moment it opens (issue 15, §3), in Chromium
against `chgk-console run` as a process on the shipped lockdown: the button box unplugged
before the pages open, the hall's board says «нет связи: mcu» (not «на связи»), the host's
screen names the device and its state from the retained status, and its «Внимание» lists
what was said before it opened (the retained ``host/notices``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from console.engine.model import HostAction
from console.games import load_config
from console.shell.journal_files import JournalFiles
from console.shell.runtime import Console
from drivers.sim_mcu import SimulatedMcu
from tests.conftest import free_port
from tests.host_screen_pages import (
    LINK_UP,
    WAIT_MS,
    chromium,
    console_toml,
    lockdown,
    running_daemon,
    wait_serving,
)

GAME = ('[game]\nkind = "svoya"\n'
        '[[players]]\nid = "p1"\nname = "Аня"\npad = "mcu:0"\n'
        '[[players]]\nid = "p2"\nname = "Боря"\npad = "mcu:1"\n')


def test_a_page_opened_after_the_box_was_lost_says_so(tmp_path_factory: pytest.TempPathFactory) -> None:
    sim = SimulatedMcu(pads=2)
    sim.start()
    try:
        with lockdown() as broker, chromium() as browser:
            http_port = free_port()
            config = Path(tmp_path_factory.mktemp("sources")) / "console.toml"
            config.write_text(console_toml(broker, GAME + f'[sources.mcu]\nkind = "serial_mcu"\n'
                                                         f'port = "{sim.port}"\n', http_port),
                              encoding="utf-8")
            with running_daemon(config):
                url = f"http://127.0.0.1:{http_port}"
                wait_serving(f"{url}/host")
                first = browser.new_page()
                first.goto(f"{url}/scoreboard")
                first.wait_for_function(LINK_UP, timeout=20_000)  # the box connected: «на связи»
                sim.stop()  # the box unplugged by a foot
                expect(first.locator("#link")).to_have_text("нет связи: mcu", timeout=WAIT_MS)
                board = browser.new_page()  # a hall screen switched on after that
                board.goto(f"{url}/scoreboard")
                expect(board.locator("#link")).to_have_text("нет связи: mcu", timeout=WAIT_MS)
                expect(board.locator("#link")).to_have_class("offline")
                host = browser.new_context().new_page()  # the host's tablet, opened after it too
                host.goto(f"{url}/host")
                host.wait_for_selector("#login:not([hidden])")
                host.fill("#login-user", "host")
                host.fill("#login-password", broker.passwords["host"])
                host.click("#login-ok")
                expect(host.locator("#sources")).to_have_text(
                    "Устройство mcu: нет связи — проверьте кабель и питание", timeout=WAIT_MS)
                notices = host.locator("#notices li")
                expect(notices.first).to_contain_text("Устройство mcu: нет связи", timeout=WAIT_MS)
                expect(host.locator("#notices-box")).to_be_visible()
    finally:
        sim.stop()



def test_the_host_screen_offers_a_fight_kept_under_another_config(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """docs/journal.md: started with a player renamed, the console keeps today's fight and the
    host's screen offers it (the retained status, so a tablet opened later sees it too): the
    host starts afresh from the tablet, the fight is kept aside, never deleted."""
    folder = Path(tmp_path_factory.mktemp("offer"))
    journal = folder / "journal" / "journal.jsonl"
    sim = SimulatedMcu(pads=2)
    sim.start()
    try:
        with lockdown() as broker, chromium() as browser:
            http_port = free_port()
            source = f'[sources.mcu]\nkind = "serial_mcu"\nport = "{sim.port}"\n'
            first = folder / "first.toml"
            first.write_text(console_toml(broker, GAME + source, http_port).replace(
                'journal = ""', f'journal = "{journal}"'), encoding="utf-8")
            earlier = Console(load_config(first), journal=JournalFiles(journal))  # the fight so far
            earlier.journal.commit()
            earlier.host(HostAction.NEXT)
            earlier.journal.close()
            (kept,) = journal.parent.glob("journal-*.jsonl")
            renamed = folder / "renamed.toml"
            renamed.write_text(first.read_text(encoding="utf-8").replace('name = "Боря"', 'name = "Борис"'),
                               encoding="utf-8")
            with running_daemon(renamed):
                url = f"http://127.0.0.1:{http_port}"
                wait_serving(f"{url}/host")
                host = browser.new_context().new_page()
                host.goto(f"{url}/host")
                host.wait_for_selector("#login:not([hidden])")
                host.fill("#login-user", "host")
                host.fill("#login-password", broker.passwords["host"])
                host.click("#login-ok")
                offer = host.locator("#resume-offer")
                expect(offer).to_be_visible(timeout=WAIT_MS)
                expect(offer).to_contain_text(kept.name)
                expect(offer).to_contain_text("отличаются игроки")
                host.click("#start-fresh")
                expect(offer).to_be_hidden(timeout=WAIT_MS)
                expect(host.locator("#notices li").first).to_contain_text("Начат новый бой", timeout=WAIT_MS)
            assert kept.with_name(kept.name.replace(".jsonl", ".not-resumed.jsonl")).exists()
    finally:
        sim.stop()
