"""A question's picture shown to the hall on the host's command (issue 19: «media (image,
audio, video) are shown to the hall on the host's command, not just "медиа: file"»): the
pack's file found by its name (console/shell/hall_media.py), then, in Chromium against
`chgk-console run --pack` with the shipped lockdown, «Показать залу» on the host's screen puts
it over the hall's board, a board opened later shows it too, and «Убрать с экрана зала» takes
it away."""

from __future__ import annotations

import json
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

from playwright.sync_api import expect

from console.shell.hall_media import HallMedia
from drivers.sim_mcu import SimulatedMcu
from tests.host_screen_pages import WAIT_MS, click, console_with_pages
from tests.support.packs import PACKAGE, package, png

GAME = ('[game]\nkind = "svoya"\nthemes = 0\n'
        '[[players]]\nid = "p1"\nname = "Аня"\npad = "mcu:0"\n'
        '[[players]]\nid = "p2"\nname = "Боря"\npad = "mcu:1"\n')


def test_the_packs_files_are_found_by_name_and_nothing_else(tmp_path: Path) -> None:
    media = HallMedia(lambda: str(package(tmp_path)), lambda shown: None)
    picture = media.find("карта реки.png")  # stored URL-escaped, as SIGame does
    assert picture is not None and picture.kind == "image" and picture.content_type == "image/png"
    song = media.find("гимн.mp3")
    assert song is not None and song.kind == "audio" and song.data.startswith(b"ID3")
    assert media.find("content.xml") is None and media.find("нет.png") is None
    (tmp_path / "beside.toml").write_text("", encoding="utf-8")
    (tmp_path / "map.png").write_bytes(png(2, 2))
    beside = HallMedia(lambda: str(tmp_path / "beside.toml"), lambda shown: None)
    found = beside.find("map.png")
    assert found is not None and found.kind == "image"
    assert beside.find("../" + tmp_path.name + "/map.png") is not None  # resolved inside: fine
    assert beside.find("../../etc/passwd") is None and beside.find("beside.toml") is None


def test_the_host_shows_the_hall_a_questions_picture(tmp_path: Path) -> None:
    sim = SimulatedMcu(pads=2)
    sim.start()
    try:
        source = f'[sources.mcu]\nkind = "serial_mcu"\nport = "{sim.port}"\n'
        pack = str(package(tmp_path))
        with console_with_pages(tmp_path, GAME + source, "--pack", pack, board="/scoreboard") as pages:
            url, browser, host, board = pages.url, pages.browser, pages.host, pages.board
            click(host, "next")
            show = host.locator('#question .media button[data-media="карта реки.png"]')
            expect(show).to_have_text("Показать залу", timeout=WAIT_MS)
            show.click()
            picture = board.locator("#hall-media img")
            expect(picture).to_be_visible(timeout=WAIT_MS)
            board.wait_for_function("document.querySelector('#hall-media img').naturalWidth === 40",
                                    timeout=WAIT_MS)  # the file itself, decoded
            late = browser.new_page()  # a board opened now shows it too (the retained status)
            late.goto(f"{url}/scoreboard")
            expect(late.locator("#hall-media img")).to_be_visible(timeout=WAIT_MS)
            expect(show).to_have_text("Убрать с экрана зала", timeout=WAIT_MS)
            show.click()
            for page in (board, late):
                expect(page.locator("#hall-media")).to_have_count(0, timeout=WAIT_MS)
            sound = host.locator('#question .media button[data-media="гимн.mp3"]')
            sound.click()
            expect(board.locator("#hall-media audio")).to_have_count(1, timeout=WAIT_MS)
    finally:
        sim.stop()


SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
       '<script>localStorage.setItem("svg-ran", "yes")</script><rect width="10" height="10"/></svg>')
VIDEO_BYTES = 60 * 1024 * 1024


def big_package(tmp_path: Path) -> Path:
    """A pack with a 60-MB video (stored: a zip keeps video as it is), a picture and an SVG."""
    path = tmp_path / "big.siq"
    xml = PACKAGE.replace('<atom type="voice">@гимн.mp3</atom>',
                          '<atom type="video">@clip.mp4</atom><atom type="image">@evil.svg</atom>')
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("content.xml", xml)
        z.writestr("Images/%D0%BA%D0%B0%D1%80%D1%82%D0%B0%20%D1%80%D0%B5%D0%BA%D0%B8.png", png(40, 30))
        z.writestr("Images/evil.svg", SVG)
        with z.open("Video/clip.mp4", "w") as video:
            block = bytes(range(256)) * 4096
            for _ in range(VIDEO_BYTES // len(block)):
                video.write(block)
    return path


def get(url: str) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def rss_mb(config: Path) -> float:
    """The daemon's resident memory (its /proc status), found by its config's path."""
    pid = subprocess.run(["pgrep", "-f", f"console.cli run --config {config}"], capture_output=True,
                         text=True, check=True).stdout.split()[0]
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("VmRSS")).split()[1]) / 1024


def test_only_the_shown_file_is_served_streamed_and_sandboxed(tmp_path: Path) -> None:
    """Issue 31, each as reproduced on `chgk-console run` with the lockdown: an answer's
    picture is nobody's before it is shown; 16 unread requests for a 60-MB video keep the
    daemon's memory small (the file is streamed, at most 8 at once); a pack's SVG opened in the
    console's origin runs no script there (the host's login is kept in that origin)."""
    sim = SimulatedMcu(pads=2)
    sim.start()
    try:
        source = f'[sources.mcu]\nkind = "serial_mcu"\nport = "{sim.port}"\n'
        pack = str(big_package(tmp_path))
        with console_with_pages(tmp_path, GAME + source, "--pack", pack, board="/scoreboard") as pages:
            url = pages.url
            picture = f"{url}/media/{urllib.parse.quote('карта реки.png')}"
            assert get(picture)[0] == 404  # not shown yet: not served
            click(pages.host, "next")
            pages.broker.publish("host", json.dumps({"action": "show_media", "name": "evil.svg"}))
            expect(pages.board.locator("#hall-media img")).to_be_visible(timeout=WAIT_MS)
            status, headers, body = get(f"{url}/media/evil.svg")
            assert status == 200 and body == SVG.encode()
            assert headers["Content-Security-Policy"].startswith("sandbox")
            assert get(picture)[0] == 404  # another file of the pack: still not served
            svg = pages.browser.new_page()
            svg.goto(f"{url}/media/evil.svg")
            svg.wait_for_timeout(300)  # a frame for a script that must not run
            origin = pages.browser.new_page()
            origin.goto(f"{url}/scoreboard")
            assert origin.evaluate("localStorage.getItem('svg-ran')") is None
            pages.broker.publish("host", json.dumps({"action": "show_media", "name": "clip.mp4"}))
            expect(pages.board.locator("#hall-media video")).to_have_count(1, timeout=WAIT_MS)
            before = rss_mb(pages.config)
            readers = []
            for _ in range(16):  # requests that never read their answer
                s = socket.create_connection(("127.0.0.1", int(url.rsplit(":", 1)[1])))
                s.sendall(b"GET /media/clip.mp4 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                readers.append(s)
            time.sleep(2)  # what they would take, the daemon would have read by now
            grown = rss_mb(pages.config) - before
            for s in readers:
                s.close()
            assert grown < 100, f"the daemon grew {grown:.0f} MB for 16 unread requests of a 60-MB video"
            status, headers, body = get(f"{url}/media/clip.mp4")  # a reader that reads gets it whole
            assert status == 200 and len(body) == VIDEO_BYTES
    finally:
        sim.stop()
