"""What the game started with wrong stays on the host's screen (issue 19): a question pack
that cannot be read was one error event a screen opened later never saw. Now the retained
status keeps it (`problems`), so the host's screen shows it, reloaded too, for as long as the
console runs so; against `chgk-console run` and the shipped lockdown, in Chromium."""

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

GAME = ('[game]\nkind = "svoya"\npack = "evening.siq"\n[sources.mcu]\nkind = "simulated_mcu"\npads = 2\n'
        '[[players]]\nid = "p1"\nname = "Аня"\npad = "mcu:0"\n'
        '[[players]]\nid = "p2"\nname = "Боря"\npad = "mcu:1"\n')


def test_a_pack_that_cannot_be_read_stays_on_the_host_screen(tmp_path: Path) -> None:
    with lockdown() as broker, chromium() as browser:
        http_port = free_port()
        config = tmp_path / "console.toml"
        config.write_text(console_toml(broker, GAME, http_port), encoding="utf-8")
        with running_daemon(config):
            url = f"http://127.0.0.1:{http_port}"
            wait_serving(f"{url}/host")
            host = browser.new_context().new_page()
            host.goto(f"{url}/host")
            log_in_as_host(host, broker.passwords["host"])
            problems = host.locator("#problems")
            expect(problems).to_be_visible(timeout=WAIT_MS)
            expect(problems).to_contain_text("Пакет вопросов не прочитан")
            expect(problems).to_contain_text("evening.siq: file not found")
            host.reload()  # a screen opened later: the retained status says it
            host.wait_for_function(LINK_UP, timeout=WAIT_MS)
            expect(host.locator("#problems")).to_contain_text("Пакет вопросов не прочитан", timeout=WAIT_MS)
            # Issue 34: the same notice again is folded with a count, never three lines.
            for _ in range(3):
                broker.publish("host", '{"action": "no_such_action"}')
            folded = host.locator("#notices li", has_text="no_such_action")
            expect(folded).to_have_count(1, timeout=WAIT_MS)
            expect(folded).to_contain_text("(×3)", timeout=WAIT_MS)
