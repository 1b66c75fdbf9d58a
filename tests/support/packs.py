"""Packs made by a test, and a game played on them. SIGame packages (.siq): `siq` (any
content.xml, with a picture beside it and as many empty entries as asked), `package` (PACKAGE,
whose question shows a picture and plays a song; `png` makes a real picture) and `evening_pack`
(two rounds and a final of bets). Playing: `console_with(pack, tmp_path)`, a «Своя игра» console
on a pack with a hand-stepped clock and its events; `play_one(t)`, the next question of an
engine `Table`, taken first and right by a player."""

from __future__ import annotations

import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

from console.engine.model import HostAction
from console.games import config_from_dict, game
from console.shell.runtime import Console
from tests.engine_harness import MS, S, Table
from tests.support.clock import Clock

__all__ = ["PACKAGE", "console_with", "evening_pack", "package", "play_one", "png", "siq"]

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
# evening_pack's: its rounds go in {rounds}, before the final.
ROUNDS = """<?xml version="1.0" encoding="utf-8"?>
<package name="Осенний вечер" version="4" id="e" xmlns="http://vladimirkhil.com/ygpackage3.0.xsd">
  <rounds>
{rounds}
    <round name="Финал" type="final"><themes><theme name="Ставки"><questions>
      <question price="0"><scenario><atom>Ставка</atom></scenario>
        <right><answer>Да</answer></right></question>
    </questions></theme></themes></round>
  </rounds>
</package>
"""


def siq(tmp_path: Path, content: str | bytes, name: str = "pack.siq", extra: int = 0,
        method: int = zipfile.ZIP_DEFLATED) -> Path:
    path = tmp_path / name
    with zipfile.ZipFile(path, "w", compression=method) as z:
        z.writestr("content.xml", content.encode() if isinstance(content, str) else content)
        z.writestr("Images/nile.jpg", b"\xff\xd8 not really a jpeg")
        for i in range(extra):
            z.writestr(f"Images/{i}.png", b"")
    return path


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


def siq_round(name: str, themes: list[str], values: tuple[int, ...]) -> str:
    cells = "".join(
        f'<theme name="{theme}"><questions>' + "".join(
            f'<question price="{v}"><scenario><atom>{theme} за {v}</atom></scenario>'
            f'<right><answer>Ответ {v}</answer></right></question>' for v in reversed(values))
        + "</questions></theme>" for theme in themes)
    return f'    <round name="{name}"><themes>{cells}</themes></round>'


def evening_pack(folder: Path) -> Path:
    """Two rounds (the second at doubled prices, as SIGame packs are) and a final of bets."""
    path = folder / "evening.siq"
    rounds = "\n".join((siq_round("Первый раунд", ["Реки", "Горы"], (10, 20)),
                        siq_round("Второй раунд", ["Моря", "Леса", "Озёра"], (20, 40))))
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("content.xml", ROUNDS.format(rounds=rounds))
    return path


def console_with(pack: str, tmp_path: Path,
                 **game_section: Any) -> tuple[Console, Clock, list[dict[str, Any]]]:
    config = config_from_dict({**game("svoya").scenario_defaults,
                               "game": {"pack": pack, **game_section}}, str(tmp_path / "console.toml"))
    clock = Clock()
    console = Console(config, clock=clock)
    events: list[dict[str, Any]] = []
    console.wire_watchers.append(events.append)
    return console, clock, events


def play_one(t: Table, player: str = "p1") -> None:
    """The next question: `player` first and right."""
    t.host(HostAction.NEXT)
    t.advance(100 * MS)
    t.press(player)
    t.advance(100 * MS)
    t.host(HostAction.NAME)
    t.host(HostAction.CORRECT)
    t.advance(1 * S)
