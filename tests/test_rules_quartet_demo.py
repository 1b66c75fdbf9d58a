"""`chgk-console demo --game quartet`: a fight played from piped keys on the simulated table,
through the real serial driver and the fight engine (3.3-3.9, App.3-5)."""

from __future__ import annotations

import io
import re

from console.games import game
from console.tools.demo_quartet import run_demo
from tests.support.demo import demo_config


async def play(script: str) -> list[str]:
    out = io.StringIO()
    assert await run_demo(demo_config("quartet"), io.StringIO(script), out, sound=False) == 0
    return [re.sub(r"^\[\s*[\d.]+\] ", "", line) for line in out.getvalue().splitlines()]


async def test_a_theme_is_played_from_the_keys() -> None:
    """The demo starts the open round with four themes, seats every team (Лисы have three
    players: they skip the fourth theme, 3.8), starts the theme, and a team's button and the
    host's keys judge its first question (App.3-5)."""
    lines = await play("o" "p" "t" "n." "f." "2.." "a" "y" "." "q")
    assert ("Раунд 1: открытый раунд; темы: Тема 1, Тема 2, Тема 3, Тема 4; "
            "играют меньше тем: Лисы — 3") in lines
    assert "Лисы: Кот, Лев, Мир, —" in lines
    assert "Тема «Тема 1»: за столом Совы — Аня, Ежи — Ель, Лисы — Кот, Выдры — Оля" in lines
    assert "Первый сигнал: Ежи" in lines
    assert "Ежи: верно, +10 → 10" in lines


async def test_the_demo_is_the_registered_one() -> None:
    kind = game("quartet")
    assert kind.demo_runner() is run_demo and kind.board == "quartet.html"
