"""What the browser tests of the host's screen (tests/test_host_screen*.py) and the screenshot
script (scripts/host-screen-screenshots.py) stand on: the shipped broker lockdown, that can be
stopped and started again on the same ports; `chgk-console run` as a process on a simulated
MCU the test presses; and Chromium through Playwright (Debian's /usr/bin/chromium: nothing
downloads a browser).

Synchronous on purpose: Playwright's sync API runs its own event loop and cannot be used
inside pytest-asyncio's, and a browser per module is started once for all its tests. The
daemon still runs through tests/daemon_process.py (an asyncio helper), in a thread of its own.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.conftest import free_port
from tests.daemon_process import daemon_process
from tests.support.lockdown import ACL, locked_config, make_passwords, wait_listening

CHROMIUM = "/usr/bin/chromium"
NODE = "t1"
BASE = f"chgk/{NODE}"
LINK_UP = "document.getElementById('link').textContent === 'на связи'"
WAIT_MS = 10_000  # for what a page shows after the console decided: generous on a loaded machine
# An action's button: in the fixed bar (the question's) or the page's «Бой и игроки» (the evening's).
ACTION_BUTTON = '#actions button[data-action="{action}"], #menu-actions button[data-action="{action}"]'
ANY_ENABLED = "#actions button:not([disabled]), #menu-actions button:not([disabled])"


@dataclass
class Lockdown:
    """mosquitto with the shipped configuration and accounts (tests/test_broker_lockdown.py),
    on loopback ports that stay the same across stop() and start()."""

    workdir: Path
    port: int = field(default_factory=free_port)
    ws_port: int = field(default_factory=free_port)
    passwords: dict[str, str] = field(default_factory=dict)
    printed: str = ""  # the script's output: the console's [mqtt] lines
    proc: subprocess.Popen[bytes] | None = None

    def __post_init__(self) -> None:
        self.passwords, self.printed = make_passwords(self.workdir / "passwd")
        acl = self.workdir / "acl"
        shutil.copyfile(ACL, acl)
        acl.chmod(0o644)
        (self.workdir / "mosquitto.conf").write_text(
            locked_config(self.port, self.ws_port, self.workdir / "passwd", acl), encoding="utf-8")

    def start(self) -> None:
        log = (self.workdir / "mosquitto.log").open("ab")
        self.proc = subprocess.Popen(["mosquitto", "-c", str(self.workdir / "mosquitto.conf")],
                                     stdout=log, stderr=log)
        log.close()
        wait_listening(self.proc, self.port, self.workdir)
        wait_listening(self.proc, self.ws_port, self.workdir)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=5)
            self.proc = None

    def publish(self, user: str, payload: str) -> None:
        """A host command as `user`, by mosquitto_pub (QoS 1: acknowledged when it returns)."""
        subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(self.port), "-u", user,
                        "-P", self.passwords[user], "-q", "1", "-t", f"{BASE}/host/command",
                        "-m", payload], check=True, timeout=10)


@contextmanager
def lockdown() -> Iterator[Lockdown]:
    """A started Lockdown in a directory mosquitto can read after dropping root."""
    workdir = Path(tempfile.mkdtemp(prefix="chgk-host-screen-"))
    workdir.chmod(0o755)
    broker = Lockdown(workdir)
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def console_toml(broker: Lockdown, game: str, http_port: int, *, journal: str = "") -> str:
    """`chgk-console run`'s config against the lockdown: the console's login as the script
    printed it, the pages' display login, the board served on `http_port`; `game` is the
    game's own part (its [game], sources, players or teams); no journal unless `journal`."""
    return (f'[console]\nnode = "{NODE}"\njournal = "{journal}"\n{game}'
            f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\nws_port = {broker.ws_port}\n'
            f"{broker.printed}"
            f'[display]\nhttp_port = {http_port}\nbind = "127.0.0.1"\nmqtt_username = "display"\n'
            f'mqtt_password = "{broker.passwords["display"]}"\n[sound]\nenabled = false\n')


@contextmanager
def running_daemon(config: Path, *args: str) -> Iterator[None]:
    """tests/daemon_process.py's `chgk-console run` (with `args`) for the body, its event loop
    in a thread; the daemon's clean exit is asserted when the body ends."""
    loop = asyncio.new_event_loop()
    started = threading.Event()
    stop = asyncio.Event()
    failure: list[BaseException] = []

    async def run() -> None:
        async with daemon_process(config, *args):
            started.set()
            await stop.wait()

    def thread_main() -> None:
        try:
            loop.run_until_complete(run())
        except BaseException as exc:  # handed to the test's thread below
            failure.append(exc)
        finally:
            started.set()
            loop.close()

    thread = threading.Thread(target=thread_main, name="daemon", daemon=True)
    thread.start()
    started.wait(timeout=30)
    try:
        yield
    finally:
        if not loop.is_closed():
            loop.call_soon_threadsafe(stop.set)
        thread.join(timeout=20)
        if failure:
            raise failure[0]


def wait_serving(url: str, within: float = 30.0) -> None:
    """Until the daemon's display server answers (the daemon takes a few seconds to start)."""
    deadline = time.monotonic() + within
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


@contextmanager
def chromium() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()


def log_in_as_host(page: Page, password: str) -> None:
    """The host's screen asks for the host account once (nothing in the page carries it)."""
    page.wait_for_selector("#login:not([hidden])")
    page.fill("#login-user", "host")
    page.fill("#login-password", password)
    page.click("#login-ok")
    page.wait_for_function(LINK_UP)


def timer_seconds(page: Page) -> float:
    """The seconds the page's countdown shows, once it shows a number: the clock's box and its
    label are drawn a frame before the count on a loaded machine."""
    page.wait_for_function("/^\\d/.test(document.getElementById('timer').textContent)", timeout=10_000)
    return float(page.locator("#timer").inner_text().split()[0])  # "12.3", or "12.3 · пауза" held


def enabled_actions(page: Page) -> set[str]:
    """The actions whose buttons the screen has enabled now (the engine takes them)."""
    return {str(a) for a in page.eval_on_selector_all(
        ANY_ENABLED, "bs => bs.map(b => b.dataset.action)")}


def click(page: Page, action: str) -> None:
    """The host's button, once the engine lists its action."""
    button = page.locator(ACTION_BUTTON.format(action=action))
    expect(button).to_be_enabled(timeout=WAIT_MS)
    button.click()


def confirm(page: Page) -> None:
    """The dialog's OK (a destructive action's question, or the arguments asked for)."""
    page.click("#dialog-ok")
    expect(page.locator("#dialog")).to_be_hidden()


@dataclass
class Pages:
    """`chgk-console run` with its pages open: the hall's board and the host's screen, logged in."""

    url: str  # the display server
    broker: Lockdown
    browser: Browser
    host: Page
    board: Page
    config: Path


@contextmanager
def console_with_pages(tmp_path: Path, game: str, *args: str, journal: str = "",
                       board: str = "/") -> Iterator[Pages]:
    """The console on `game` (its [game] and sources) against the shipped lockdown, run with
    `args`, with the hall's `board` page and the host's screen open and logged in."""
    with lockdown() as broker, chromium() as browser:
        http_port = free_port()
        config = tmp_path / "console.toml"
        config.write_text(console_toml(broker, game, http_port, journal=journal), encoding="utf-8")
        with running_daemon(config, *args):
            url = f"http://127.0.0.1:{http_port}"
            wait_serving(f"{url}/host")
            hall = browser.new_page()
            hall.goto(f"{url}{board}")
            hall.wait_for_function(LINK_UP, timeout=20_000)
            host = browser.new_context().new_page()
            host.goto(f"{url}/host")
            log_in_as_host(host, broker.passwords["host"])
            yield Pages(url, broker, browser, host, hall, config)
