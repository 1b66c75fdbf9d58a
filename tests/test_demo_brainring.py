"""`chgk-console demo --game brainring` (issue 34: «Брейн-ринг» had no terminal demo): a fight
played from piped keys on the simulated table, through the real serial driver and the
referee (../shared/RULES.md §5: «Время!», the first signal answers, the score)."""

from __future__ import annotations

import io
import re

from console.games import game
from console.tools.demo_brainring import run_demo
from tests.support.demo import demo_config


async def play(script: str) -> list[str]:
    out = io.StringIO()
    assert await run_demo(demo_config("brainring"), io.StringIO(script), out, sound=False) == 0
    return [re.sub(r"^\[\s*[\d.]+\] ", "", line) for line in out.getvalue().splitlines()]


async def test_a_question_is_played_from_the_keys() -> None:
    """The host starts the question and says «Время!»; team 2's button takes the turn (the
    first signal answers, §5); «верно» gives it the point; a press of team 1 during the next
    reading is a false start (§5)."""
    lines = await play("n." "t." "2.." "y." "n." "1.." "q")  # ("." waits 0.2 s, as a host would)
    assert "Вопрос 1 (1 очк.): читается" in lines
    assert any(line.startswith("Время! 60 с; играют: Совы, Ежи") for line in lines)
    assert "Первый сигнал: Ежи" in lines
    assert "Ежи: верно, +1 → 1" in lines
    assert "Фальстарт: Совы" in lines


async def test_the_demo_is_the_registered_one() -> None:
    kind = game("brainring")
    assert kind.demo_runner() is run_demo and kind.board == "brainring.html"
