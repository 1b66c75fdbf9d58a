"""The fight's players from the tablet (issue 19: «players from the tablet: rename, add and
remove, bind a pad by pressing it; journaled»), in Chromium against `chgk-console run` with
the shipped lockdown and its journal: each change is on the host's screen and the hall's board
at once, a button pressed for a player becomes theirs (and lights for them), and a restart
resumes the fight with the players as the host left them."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from drivers.sim_mcu import SimulatedMcu
from tests.conftest import free_port
from tests.host_screen_pages import (
    LINK_UP,
    WAIT_MS,
    chromium,
    click,
    confirm,
    console_toml,
    enabled_actions,
    lockdown,
    log_in_as_host,
    running_daemon,
    wait_serving,
)

GAME = ('[game]\nkind = "svoya"\nthemes = 0\nanswer_window_s = 10.0\n'
        '[[players]]\nid = "p1"\nname = "Аня"\npad = "mcu:0"\n'
        '[[players]]\nid = "p2"\nname = "Боря"\npad = "mcu:1"\n'
        '[[players]]\nid = "p3"\nname = "Вера"\npad = "mcu:2"\n')


def card(player: str, part: str = "") -> str:
    return f'.player[data-player="{player}"]' + (f" .{part}" if part else "")


def names(page: Page) -> list[str]:
    return [str(n) for n in page.eval_on_selector_all(".player .name", "ns => ns.map(n => n.textContent)")]


def dialog(host: Page, action: str, **fields: str) -> None:
    click(host, action)
    for name, value in fields.items():
        field = host.locator(f"#field-{name}")
        if field.evaluate("f => f.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)
    confirm(host)


def test_players_renamed_added_removed_and_given_a_button_from_the_tablet(tmp_path: Path) -> None:
    sim = SimulatedMcu(pads=4)
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
                board = browser.new_page()
                board.goto(f"{url}/scoreboard")
                board.wait_for_function(LINK_UP, timeout=20_000)
                host = browser.new_context().new_page()
                host.goto(f"{url}/host")
                log_in_as_host(host, broker.passwords["host"])
                expect(host.locator(".player")).to_have_count(3, timeout=WAIT_MS)

                dialog(host, "rename_player", player="p1", name="Анна")
                for page in (host, board):
                    expect(page.locator(card("p1", "name"))).to_have_text("Анна", timeout=WAIT_MS)
                dialog(host, "add_player", name="Глеб")  # no button given: the next free one pressed
                awaited = "она станет кнопкой «Глеб»"
                expect(host.locator("#situation")).to_contain_text(awaited, timeout=WAIT_MS)
                sim.press(3)
                sim.release(3)
                for page in (host, board):
                    expect(page.locator(card("p4", "name"))).to_have_text("Глеб", timeout=WAIT_MS)
                assert "add_player" not in enabled_actions(host)  # four is the most (004 App.1)
                dialog(host, "remove_player", player="p3")
                for page in (host, board):
                    expect(page.locator(".player")).to_have_count(3, timeout=WAIT_MS)
                dialog(host, "bind_pad", player="p2")
                expect(host.locator("#situation")).to_contain_text("кнопкой «Боря»", timeout=WAIT_MS)
                sim.press(2)  # the button Вера left: Боря's now
                sim.release(2)
                expect(host.locator("#situation")).not_to_contain_text("свободную кнопку", timeout=WAIT_MS)

                click(host, "next")
                expect(host.locator(card("p2"))).to_have_class("player in_play", timeout=WAIT_MS)
                sim.press(2)
                sim.release(2)
                expect(host.locator(card("p2"))).to_have_class("player answering", timeout=WAIT_MS)
                assert sim.wait_lamps(lambda on, blink: on == 1 << 2, timeout=5) is not None  # his lamp
                click(host, "correct")
                expect(board.locator(card("p2", "score"))).to_have_text("10", timeout=WAIT_MS)
                shown = names(board)
            # A restart resumes the journal: the players as the host left them, the score kept.
            with running_daemon(config):
                wait_serving(f"{url}/host")
                board.reload()
                expect(board.locator(card("p2", "score"))).to_have_text("10", timeout=WAIT_MS)
                assert names(board) == shown == ["Анна", "Боря", "Глеб"]
    finally:
        sim.stop()
