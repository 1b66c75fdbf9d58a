"""The scoreboard says what happened (issue 7), in a real headless Chromium fed by a real
console: no countdown while presses do not count (a wrong answer waiting for the reset), no
stale «Первый сигнал» once the answer is judged, the question's outcome and who took it, a
reversed judgement, and the fight's winner."""

from __future__ import annotations

import asyncio

from console.engine.model import HostAction
from tests.browser import Browser
from tests.conftest import Broker, until
from tests.engine_harness import svoya_of
from tests.support.mqtt_console import running_console
from tests.support.scoreboard import scoreboard, text_of

DECISION = text_of("decision")


def says(prefix: str) -> str:
    """An expression: the decision line once it starts with `prefix` (else false)."""
    return f"{DECISION}.startsWith('{prefix}') && {DECISION}"


async def test_the_scoreboard_says_the_outcome_and_hides_dead_countdowns(mosquitto_ws: Broker) -> None:
    async with running_console(mosquitto_ws) as (console, sim), scoreboard(mosquitto_ws) as url:
        browser = await asyncio.to_thread(Browser, url)
        try:
            await asyncio.to_thread(browser.wait_for, "document.querySelectorAll('.player').length === 3")
            console.host(HostAction.NEXT)
            console.host(HostAction.READING_FINISHED)
            shown = await asyncio.to_thread(
                browser.wait_for, "parseFloat(document.getElementById('timer').textContent) || 0")
            assert 5.0 < shown <= 7.0  # the window is open: it counts down
            await asyncio.sleep(0.02)
            await asyncio.to_thread(sim.press, 1)
            await until(lambda: svoya_of(console).phase == "answering")
            first = await asyncio.to_thread(browser.wait_for, says("Первый сигнал"))
            assert first.startswith("Первый сигнал: Игрок 2")
            console.host(HostAction.NAME)
            console.host(HostAction.WRONG)
            # Waiting for the reset, presses do not count: no countdown, no stale first signal.
            said = await asyncio.to_thread(browser.wait_for, says("Неверно"))
            assert said == "Неверно. Ждём сброса"
            assert console.state()["timer"] is not None  # the window still runs in the state...
            assert await asyncio.to_thread(browser.evaluate, text_of("timer")) == ""  # ...not on the board
            console.host(HostAction.RESET)
            await asyncio.sleep(0.05)  # a press before the reset would not count (App.8)
            await asyncio.to_thread(sim.press, 0)
            await until(lambda: svoya_of(console).phase == "answering")
            console.host(HostAction.NAME)
            console.host(HostAction.CORRECT)
            outcome = await asyncio.to_thread(browser.wait_for, says("Верно"))
            assert outcome == "Верно! Вопрос взял(а) Игрок 1 (+10)"
            console.commands.on_command('{"action": "reverse", "reason": "ответ неточен"}'.encode())
            reversed_text = await asyncio.to_thread(
                browser.wait_for, says("Решение изменено"))
            assert reversed_text == "Решение изменено: ответ Игрок 1 не засчитан"
            header = await asyncio.to_thread(browser.evaluate, text_of("question"))
            assert header == "Далее: Тема 1 · 20"
            console.commands.on_command(
                b'{"action": "adjust_score", "player": "p3", "delta": 50, "reason": "x"}')
            console.host(HostAction.NEW_GAME)
            await asyncio.to_thread(browser.wait_for, f"{DECISION} === ''")
        finally:
            await asyncio.to_thread(browser.close)
