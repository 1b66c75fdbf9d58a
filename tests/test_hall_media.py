"""A question's picture shown to the hall on the host's command (issue 19: «media (image,
audio, video) are shown to the hall on the host's command, not just "медиа: file"»): the
pack's file found by its name (console/shell/hall_media.py), then, in Chromium against
`chgk-console run --pack` with the shipped lockdown, «Показать залу» on the host's screen puts
it over the hall's board, a board opened later shows it too, and «Убрать с экрана зала» takes
it away."""

from __future__ import annotations

import struct
import zipfile
import zlib
from pathlib import Path

from playwright.sync_api import expect

from console.shell.hall_media import HallMedia
from drivers.sim_mcu import SimulatedMcu
from tests.host_screen_pages import WAIT_MS, click, console_with_pages

PACKAGE = """<?xml version="1.0" encoding="utf-8"?>
<package name="Картинки" version="4" id="m" xmlns="http://vladimirkhil.com/ygpackage3.0.xsd">
  <rounds><round name="Раунд"><themes><theme name="Реки"><questions>
    <question price="10">
      <scenario><atom type="say">Что за река на карте?</atom><atom type="image">@карта реки.png</atom>
        <atom type="voice">@гимн.mp3</atom></scenario>
      <right><answer>Волга</answer></right>
    </question>
  </questions></theme></themes></round></rounds>
</package>
"""
GAME = ('[game]\nkind = "svoya"\nthemes = 0\n'
        '[[players]]\nid = "p1"\nname = "Аня"\npad = "mcu:0"\n'
        '[[players]]\nid = "p2"\nname = "Боря"\npad = "mcu:1"\n')


def png(width: int, height: int) -> bytes:
    """A real PNG (grey pixels), so the browser decodes it and says its size."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def package(tmp_path: Path) -> Path:
    """The pack as SIGame writes it: the media under Images/ and Audio/, names URL-escaped."""
    path = tmp_path / "pictures.siq"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("content.xml", PACKAGE)
        z.writestr("Images/%D0%BA%D0%B0%D1%80%D1%82%D0%B0%20%D1%80%D0%B5%D0%BA%D0%B8.png", png(40, 30))
        z.writestr("Audio/гимн.mp3", b"ID3 not really a song")
    return path


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
