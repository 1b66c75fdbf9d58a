"""The ChGK table demo: a game played from piped keys on the simulated table, end to end.

Real parts: the simulated top streaming ANGLE frames through a SimulatedMcu over a pty, the
real serial driver and clock sync, the spin detector, the table engine and referee, the
runtime and the embedded broker (on free ports). Sound is off; the scoreboard server is off
(http_port = 0) so that no test binds a fixed port.
"""

from __future__ import annotations

import io
import logging
import re
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from console.config import Config
from console.engine.chgk.events import TABLE_EVENTS
from console.engine.chgk.rules import ChgkAction, ChgkHost, PickSource, SectorPicked
from console.engine.spin.events import TOP_EVENTS
from console.engine.spin.sectors import SectorMap
from console.games import load_config
from console.games.chgk.texts import DESCRIBED, describe_table
from console.notices import NOTICES
from console.shell.runtime import Console
from console.tools.demo import free_port
from console.tools.demo_table import SPIN_SECONDS, TableView, run_table_demo
from drivers.sim_top import SimTop

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "console" / "data" / "demo-chgk.toml"
PLAIN = (1, 2, 4, 7, 10, 11)  # the demo table's plain question sectors
TOP_SEED = 32  # its first 1-s push stops well inside a plain sector (checked in the test)
WAIT = "." * 20  # 4 s of '.': a 1-s spin, its stop and a loaded machine's slack


def demo_config(path: Path = DEMO) -> Config:
    config = load_config(path)
    return replace(config, mqtt=replace(config.mqtt, port=free_port(), ws_port=free_port()),
                   display=replace(config.display, http_port=0))


async def play(script: str, config: Config | None = None, *, top_seed: int | None = None,
               spin_seconds: tuple[float, float] = SPIN_SECONDS) -> list[str]:
    """Run the demo on `script` (piped keys); the printed lines, timestamps removed."""
    out = io.StringIO()
    status = await run_table_demo(config or demo_config(), io.StringIO(script), out, sound=False,
                                  top_seed=top_seed, spin_seconds=spin_seconds)
    assert status == 0
    return [re.sub(r"^\[\s*[\d.]+\] ", "", line) for line in out.getvalue().splitlines()]


def after(lines: list[str], *expected: str) -> None:
    """Each expected text starts a line, in this order."""
    at = 0
    for text in expected:
        found = next((i for i in range(at, len(lines)) if lines[i].startswith(text)), None)
        assert found is not None, f"{text!r} not found after line {at}:\n" + "\n".join(lines)
        at = found + 1


async def test_spin_the_top_it_stops_on_its_sector_and_the_round_is_played() -> None:
    top = SimTop(seed=TOP_SEED, rate_hz=200.0)  # the demo's top, pushed the same way
    truth = top.spin(0, duration_s=1.0)
    sectors = SectorMap(12)
    sector = sectors.sector_at(truth.rest_deg)
    assert sector in PLAIN and sectors.boundary_distance_deg(truth.rest_deg) > 5.0  # the seed's premise

    lines = await play(f"ss{WAIT}ty..q", top_seed=TOP_SEED, spin_seconds=(1.0, 1.0))
    after(lines,
          "Демо-стол ЧГК готов",
          "Волчок ещё не успокоился",  # the second 's' while the top turns
          "Волчок закручен по часовой стрелке",
          f"Волчок остановился на секторе {sector} ",
          f"Раунд 1: сектор {sector} (волчок) — вопрос, 60 с",
          "«Время!» Обсуждение 60 с",
          "Ответ: верный",
          "Раунд 1 окончен (верный ответ): очко знатокам; счёт знатоки 1 : 0 Ведущий")
    assert not any(line.startswith("Волчок: ") for line in lines), "the live angle is for the screen only"


async def test_sectors_picked_by_hand_the_12th_sector_question_and_the_clockwise_rule() -> None:
    lines = await play("f8tx8c..q")
    after(lines,
          "Форточка задана в конфигурации (сектор 5)",
          "Раунд 1: сектор 8 (ведущий) — 12-й сектор",
          "12-й сектор: нужен случайный вопрос из базы",
          "Вопрос из базы: ",
          "«Время!» Обсуждение 60 с",
          "Ответ: неверный",
          "Раунд 1 окончен (неверный ответ): очко Ведущему; счёт знатоки 0 : 1 Ведущий",
          "Раунд 2: сектор 9 (ведущий); выпал 8, он сыгран — играет следующий по часовой — суперблиц",
          "Раунд 2 снят: сектор 9 снова в игре")
    drawn = next(line for line in lines if line.startswith("Вопрос из базы: "))
    assert " Ответ: " in drawn and "Источник: «Учебный пакет chgk-console»" in drawn


async def test_a_game_played_to_the_end_then_a_new_game_and_the_lototron() -> None:
    lines = await play("t" + "".join(f"{key}ty" for key in "12470-") + "1gl..q")
    after(lines,
          "Нельзя: «Время!» — раунд не начат",
          "Раунд 1: сектор 1 (ведущий)",
          "Раунд 6: сектор 11 (ведущий) — вопрос, 60 с, раунд может стать последним",
          "Раунд 6 окончен (верный ответ): очко знатокам; счёт знатоки 6 : 0 Ведущий",
          "Игра окончена: победили знатоки, счёт знатоки 6 : 0 Ведущий, раундов 6",
          "Протокол игры готов",
          "Нельзя: выбор сектора — игра окончена (g — новая игра)",
          "Новая игра: команда не выбрана (лототрон), отборочная игра до 6 очков, за столом 6 игроков",
          "Лототрон: играет команда «")


async def test_a_13_sector_table_takes_plus_for_sector_13_and_the_hall_scores(tmp_path: Path) -> None:
    text = DEMO.read_text(encoding="utf-8").replace('rules = "tto"', 'rules = "belgorod"')
    (tmp_path / "demo.toml").write_text(text, encoding="utf-8")
    shutil.copy(DEMO.parent / "questions-demo.txt", tmp_path / "questions-demo.txt")
    lines = await play("+tx..q", demo_config(tmp_path / "demo.toml"))
    after(lines,
          "Раунд 1: сектор 13 (ведущий) — вопрос, 60 с",
          "Раунд 1 окончен (неверный ответ): очко Зрителям; счёт знатоки 0 : 1 Зрители")


async def test_no_driver_callback_fails_while_the_table_runs(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR):
        await play("1t.....q")
    failures = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert failures == []


def test_the_host_screen_shows_score_round_countdown_the_table_and_the_hidden_fortochka() -> None:
    console = Console(demo_config())
    out = io.StringIO()
    view = TableView(console, out, interactive=True, broker="127.0.0.1:1883")
    console.watchers.append(view.on_event)
    console.feed([SectorPicked(6, console.clock(), PickSource.HOST)])  # the duplet
    console.feed([ChgkHost(ChgkAction.START_TIMER, console.clock())])
    screen = out.getvalue().split("\x1b[H\x1b[2J")[-1]
    for text in ("Знатоки 0 : 0 Ведущий", "игра до 6 очков", "«Совы»",
                 "Раунд 1: сектор 6 — дуплиц, вопрос 1 из 2, 30 с",
                 "Сейчас: обсуждение · осталось", "Волчок: покоится", "Помощь клуба — есть",
                 "За столом 6 игроков", "5 Форточка", "6 Дуплиц", "3 Блиц", "8 12-й", "12 Цейтнот",
                 "«Время!» Обсуждение 30 с (вопрос 1 из 2)", "s — крутить волчок", "t «Время!»"):
        assert text in screen, f"{text!r} not on screen:\n{screen}"
    assert "f форточка" not in screen  # the fortochka is configured: no key for it


def test_every_address_in_the_header_is_shown_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 34: the header's addresses are several lines in one; cut to the terminal's width as
    one, the board's address and everything after it (the overlay's) were cut off."""
    monkeypatch.setenv("COLUMNS", "80")
    console = Console(demo_config())
    out = io.StringIO()
    pages = ("табло: http://127.0.0.1:8080/", "пульт: http://127.0.0.1:8080/host",
             "оверлей: http://127.0.0.1:8080/overlay")
    view = TableView(console, out, interactive=True, broker="\n".join(("127.0.0.1:1883", *pages)))
    view.draw()
    screen = out.getvalue().split("\x1b[H\x1b[2J")[-1].splitlines()
    for page in pages:
        assert page in screen, screen[:8]


def test_every_table_event_type_has_a_russian_line() -> None:
    emitted = {cls.TYPE for cls in NOTICES}  # the console's own (console/notices.py)
    emitted |= {cls.TYPE for cls in TABLE_EVENTS}  # the referee's typed events (engine/chgk_events.py)
    emitted |= {cls.TYPE for cls in TOP_EVENTS}  # the top's typed events (engine/spin_events.py)
    assert len(emitted) > 30
    assert emitted <= DESCRIBED, f"no Russian line for {sorted(emitted - DESCRIBED)}"
    assert describe_table({"type": "something_new"}) == "something_new"  # a newer engine does not break it


def test_refusals_get_a_russian_hint_or_the_engine_reason() -> None:
    def refused(action: str, phase: str, why: str = "x", **details: object) -> str:
        message = f"«{action}» сейчас нельзя: {why}"
        return describe_table({"type": "error", "t_ns": 1, "message": message,
                               "details": {"action": action, "phase": phase, "reason": why, **details}})

    assert refused("answer_correct", "asked") == (
        "Нельзя: «верно» — сначала «Время!» (t) или досрочный ответ (e)")
    assert "отстающая команда (счёт 1:0)" in refused("club_help", "asked", score={"team": 1, "club": 0})
    assert refused("refill", "ready", "сектора заполняют только в финале") == (
        "Нельзя: «новый конверт» — сектора заполняют только в финале")
    assert describe_table({"type": "error", "t_ns": 1, "source": "questions", "message": "no file"}) == (
        "Ошибка (questions): no file")
