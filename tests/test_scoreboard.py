"""The scoreboard page in a real headless Chromium, fed over MQTT (WebSocket) by a real console."""

from __future__ import annotations

import asyncio
from pathlib import Path

from console.engine.model import HostAction
from console.shell.display_server import DisplayServer
from tests.browser import Browser
from tests.conftest import Broker, until
from tests.engine_harness import svoya_of
from tests.support.mqtt_console import running_console
from tests.support.scoreboard import scoreboard, table_config, text_of

NAMES = "[...document.querySelectorAll('.player .name')].map(e => e.textContent).join(',')"


async def test_the_scoreboard_shows_scores_the_answerer_and_the_photo_finish(
    mosquitto_ws: Broker, tmp_path: Path
) -> None:
    async with running_console(mosquitto_ws) as (console, sim), scoreboard(mosquitto_ws) as url:
        browser = await asyncio.to_thread(Browser, url)
        try:
            names = await asyncio.to_thread(browser.wait_for, NAMES)
            assert names == "Игрок 1,Игрок 2,Игрок 3"
            assert await asyncio.to_thread(browser.evaluate, text_of("link")) == "на связи"

            console.host(HostAction.NEXT)
            await asyncio.sleep(0.02)
            await asyncio.to_thread(sim.press, 1, 2)  # Игрок 2 and Игрок 3 in one scan: a photo finish
            await until(lambda: svoya_of(console).phase == "answering")
            winner = str(console.state()["question"]["answerer"])
            first, second = ("Игрок 2", "Игрок 3") if winner == "p2" else ("Игрок 3", "Игрок 2")
            answering = await asyncio.to_thread(
                browser.wait_for, "document.querySelector('.player.answering .name')?.textContent")
            assert answering == first
            decision = await asyncio.to_thread(browser.evaluate, text_of("decision"))
            assert decision == f"Первый сигнал: {first} · следом {second} +0.000 мс"  # the tie, shown

            console.host(HostAction.WRONG)
            score = await asyncio.to_thread(
                browser.wait_for,
                f"[...document.querySelectorAll('.player')].find(p => p.dataset.player === '{winner}')"
                "?.querySelector('.score').textContent === '-10' && 'ok'")
            assert score == "ok"
            assert await asyncio.to_thread(
                browser.evaluate, "document.querySelector('.player.out .name')?.textContent") == first
            # The 7-s window counts down on the page, from remaining_ms.
            console.host(HostAction.RESET)
            console.host(HostAction.READING_FINISHED)
            shown = await asyncio.to_thread(
                browser.wait_for, "parseFloat(document.getElementById('timer').textContent) || 0")
            assert 5.0 < shown <= 7.0
            await asyncio.to_thread(browser.screenshot, str(tmp_path / "scoreboard.png"))
            assert (tmp_path / "scoreboard.png").stat().st_size > 10_000  # a rendered page, not blank
        finally:
            await asyncio.to_thread(browser.close)


async def test_the_display_server_refuses_other_paths(mosquitto_ws: Broker) -> None:
    async with scoreboard(mosquitto_ws) as url:
        reader, writer = await asyncio.open_connection("127.0.0.1", int(url.split(":")[2].split("/")[0]))
        writer.write(b"GET /etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n")
        response = await reader.read()
        writer.close()
        assert response.startswith(b"HTTP/1.1 404")


async def test_the_table_board_follows_the_chgk_table(mosquitto_ws: Broker, tmp_path: Path) -> None:
    """The ChGK board: the sectors drawn, the score, the round and its countdown."""
    from console.engine.chgk.rules import ChgkAction, ChgkHost, PickSource, SectorPicked
    from console.games import load_config
    from console.shell.runtime import Console

    console = Console(load_config(table_config(tmp_path, mosquitto_ws.port)))
    assert mosquitto_ws.ws_port is not None
    server = DisplayServer("127.0.0.1", 0, ws_port=mosquitto_ws.ws_port, base="chgk/t1", board="table.html")
    await server.start()
    task = asyncio.create_task(console.run(mosquitto_ws.host, mosquitto_ws.port))
    try:
        browser = await asyncio.to_thread(Browser, f"http://127.0.0.1:{server.port}/")
        try:
            sectors = "document.querySelectorAll('path.sector').length"
            count = await asyncio.to_thread(browser.wait_for, sectors)
            assert count == 12
            console.feed([SectorPicked(3, console.clock(), PickSource.HOST)])  # 3 is the blitz
            console.feed([ChgkHost(ChgkAction.START_TIMER, console.clock())])
            round_text = await asyncio.to_thread(
                browser.wait_for, f"{text_of('round')}.includes('Блиц') && {text_of('round')}")
            assert round_text.startswith("Раунд 1 · сектор 3")
            shown = await asyncio.to_thread(browser.wait_for, f"parseInt({text_of('timer')}) || 0")
            assert 15 <= shown <= 20
            current = await asyncio.to_thread(browser.evaluate,
                                              "document.querySelector('path.sector.current')?.dataset.sector")
            assert current == "3"
            # Issue 34: the sector in play's name is dark on its gold, not the played grey.
            fill = await asyncio.to_thread(browser.evaluate, "getComputedStyle(document.querySelector("
                                           "'text.label.current')).fill")
            assert fill == "rgb(21, 21, 27)"
            await asyncio.to_thread(browser.screenshot, str(tmp_path / "table.png"))
        finally:
            await asyncio.to_thread(browser.close)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await server.close()
