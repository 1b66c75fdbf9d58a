"""Pages follow the console (issue 34): an evening of «Своя игра», then the console stopped and
started with «Брейн-ринг» on the same node and port. Every open page (the hall's board, the
host's screen, the stream's overlay) becomes the new game's page by itself, with no «undefined»,
«NaN» or action id, against `chgk-console run` and the shipped lockdown."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import expect

from tests.conftest import free_port
from tests.host_screen_pages import (
    LINK_UP,
    WAIT_MS,
    chromium,
    console_toml,
    lockdown,
    log_in_as_host,
    running_daemon,
    wait_serving,
)

SVOYA = ('[game]\nkind = "svoya"\n[sources.mcu]\nkind = "simulated_mcu"\npads = 2\n'
         '[[players]]\nid = "p1"\nname = "Аня"\npad = "mcu:0"\n'
         '[[players]]\nid = "p2"\nname = "Боря"\npad = "mcu:1"\n')
BRAINRING = ('[game]\nkind = "brainring"\n[sources.mcu]\nkind = "simulated_mcu"\npads = 2\n'
             '[[brainring.teams]]\nid = "t1"\nname = "Совы"\npads = ["mcu:0"]\n'
             '[[brainring.teams]]\nid = "t2"\nname = "Ежи"\npads = ["mcu:1"]\n')
NOTHING_RAW = ("undefined", "NaN", "new_fight", "pick_sector")


def test_every_open_page_becomes_the_new_games_page_by_itself(tmp_path: Path) -> None:
    with lockdown() as broker, chromium() as browser:
        http_port = free_port()
        url = f"http://127.0.0.1:{http_port}"
        config = tmp_path / "console.toml"
        config.write_text(console_toml(broker, SVOYA, http_port), encoding="utf-8")
        board, host, overlay = browser.new_page(), browser.new_page(), browser.new_page()
        with running_daemon(config):
            wait_serving(f"{url}/host")
            board.goto(f"{url}/")
            board.wait_for_function(LINK_UP, timeout=20_000)
            host.goto(f"{url}/host")
            log_in_as_host(host, broker.passwords["host"])
            overlay.goto(f"{url}/overlay")
            overlay.wait_for_function(LINK_UP, timeout=20_000)
            expect(board).to_have_title("Своя игра — табло")
            expect(host.locator("#title")).to_have_text("Своя игра", timeout=WAIT_MS)
        config.write_text(console_toml(broker, BRAINRING, http_port), encoding="utf-8")
        with running_daemon(config):
            expect(board).to_have_title("Брейн-ринг", timeout=30_000)  # reloaded by itself
            board.wait_for_function(LINK_UP, timeout=20_000)
            host.wait_for_function(LINK_UP, timeout=30_000)  # logged in again from the tab's storage
            expect(host.locator("#title")).to_have_text("Брейн-ринг", timeout=WAIT_MS)
            overlay.wait_for_function(LINK_UP, timeout=30_000)
            for page in (board, host, overlay):
                text = page.locator("body").inner_text()
                assert not [raw for raw in NOTHING_RAW if raw in text], (page.url, text)


def test_the_hosts_warnings_of_one_fight_are_not_shown_for_the_next(tmp_path: Path) -> None:
    """A host's screen left open from one fight to the next (the console started afresh with a
    new journal: same game, node and port) kept the last fight's «Внимание» lines; they are
    cleared when the console says it writes another journal, and kept across a restart that
    resumes the same one."""
    import subprocess

    with lockdown() as broker, chromium() as browser:
        http_port = free_port()
        url = f"http://127.0.0.1:{http_port}"
        config = tmp_path / "console.toml"
        config.write_text(console_toml(broker, SVOYA, http_port, journal=str(tmp_path / "one" / "j.jsonl")),
                          encoding="utf-8")
        host = browser.new_page()
        with running_daemon(config):
            wait_serving(f"{url}/host")
            host.goto(f"{url}/host")
            log_in_as_host(host, broker.passwords["host"])
            for command in ('{"action": "next"}', "{oops"):  # a question begun (a fight to resume), a slip
                subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(broker.port), "-u", "host",
                                "-P", broker.passwords["host"], "-q", "1", "-t", "chgk/t1/host/command",
                                "-m", command], check=True, timeout=10)
            expect(host.locator("#notices")).to_contain_text("не принята", timeout=WAIT_MS)
        with running_daemon(config):  # the same journal: resumed, the warning still stands
            host.wait_for_function(LINK_UP, timeout=30_000)
            expect(host.locator("#notices")).to_contain_text("не принята", timeout=WAIT_MS)
        config.write_text(console_toml(broker, SVOYA, http_port, journal=str(tmp_path / "two" / "j.jsonl")),
                          encoding="utf-8")
        with running_daemon(config):  # another journal: another fight
            host.wait_for_function(LINK_UP, timeout=30_000)
            # The new fight's own notices (its box connected) may come; the last one's do not.
            expect(host.locator("#notices")).not_to_contain_text("не принята", timeout=WAIT_MS)
