"""User-facing Russian text the games share: the console's own notices (terminal, host screen).

Contract: `describe_notice(event, names, actions)` gives one Russian line for an event every
game can publish (a refused command, the console's own errors, a source's state, a held
button, a resumed fight, the journal's health), or None for a game's own event; each game's `texts` module
describes its own events and falls back to this. `SOURCE_STATES` names every source state.

`PAGE_TEXTS` is the one source of these lines: the display server hands it to the host's
screen (``window.CHGK.texts``), which fills the same templates (``{name}`` placeholders) for
the same events, so a notice reads the same on the terminal and on the screen.
"""

from __future__ import annotations

from collections.abc import Mapping

from console.engine.events import CommandRefused, Event
from console.notices import (
    ButtonHeld,
    ConsoleError,
    ConsoleHeld,
    FightResumed,
    JournalStatus,
    ResumeOffered,
    SourceStatus,
)

# One word per LinkState (drivers/link_state.py).
SOURCE_STATES = {
    "connected": "подключено",
    "disconnected": "нет связи — проверьте кабель и питание",
    "incompatible": "другая версия прошивки — обновите прошивку пульта",
    "resyncing": "часы устройства сбились: пересинхронизация, проверьте решения",
}

# The journal's health (console/shell/journal.py).
JOURNAL_FAILING = ("Журнал не записывается (диск полон, извлечён или только для чтения): игра идёт, "
                   "решения хранятся в памяти и будут записаны, как только диск их примет; "
                   "не выключайте пульт")
JOURNAL_BACK = "Журнал снова записывается: ничего не потеряно"

# The console's own problems by where they come from (ConsoleError.source), each saying what to
# do; a source's name otherwise (`device_problem`). The detail stays as the console logs it.
PROBLEMS = {
    "mqtt": "Команда от другого клиента не принята: игра не изменилась",
    "jury": "Команда жюри не принята: протокол не изменился",
    "journal": "Журнал игры не пишется: игра идёт; не выключайте пульт и позовите техника",
    # Read-side problems of resuming (console/shell/resume.py `announce`): the journal is written.
    "resume_partial": ("Игра продолжена, но журнал прочитан не целиком (сбой питания?): "
                       "проверьте счёт и последнее решение; журнал пишется"),
    "resume_refused": ("Прошлая игра не продолжена: её журнал не читается; начата новая игра, "
                       "старый журнал сохранён — позовите техника после боя"),
    "record": "Протокол игры не сохранён: игра идёт; позовите техника после боя",
    "pack": "Пакет вопросов не прочитан: выберите другой пакет в меню или проверьте файл",
    "pack_cells": "Пакет вопросов прочитан, но часть вопросов пропущена: играйте дальше, "
                  "пропущенных вопросов не будет",
    "button_check": "Проверка кнопок не прошла: проверьте кабель кнопок и начните её снова",
    "console": "Сбой пульта (игра идёт дальше): если повторяется — позовите техника",
}

# What a resume voids (FightResumed.voided) and plays again.
VOIDED = {"question": "вопрос", "round": "раунд", "count": "отсчёт"}

# Templates for the lines with figures ({name}: filled by Python's str.format and by the page).
PAGE_TEXTS: dict[str, object] = {
    "source_states": SOURCE_STATES,
    "source_status": "Устройство {source}: {state}",
    "device_problem": ("Неполадка устройства «{source}»: проверьте его кабель; "
                       "если повторяется — позовите техника"),
    "problems": PROBLEMS,
    "journal_failing": JOURNAL_FAILING,
    "journal_back": JOURNAL_BACK,
    "console_held": ("Пульт задержался на {held} с (система была занята): нажатия за это время "
                     "засчитаны по их времени, решение принято после их чтения"),
    "button_held": ("Кнопка {pad} ({whose}) зажата уже {seconds} с: залипла или её держат; "
                    "остальные кнопки работают, её нажатие засчитано один раз"),
    "button_released": "Кнопка {pad} ({whose}) отпущена (была нажата {seconds} с)",
    "player_of": "игрока {name}",
    "no_player": "без игрока",
    "resume_offered": ("Бой {journal} записан с другими настройками — выберите: "
                       "продолжить его или начать новый"),
    "resume_accepted": "Продолжаем бой {journal} с его настройками: пульт перезапускается",
    "resume_declined": "Начат новый бой; журнал прежнего сохранён как {journal}",
    "resume_declined_implicit": ("Начат новый бой (вы продолжили игру); "
                                 "журнал прежнего сохранён как {journal}"),
    "resumed": "Игра восстановлена после перезапуска по журналу {journal}",
    "voided": "; {what} отменён и будет сыгран заново",
    "voided_what": VOIDED,
    "given_back": "; снятые за него очки возвращены: {players}",
    "torn": "; последняя строка журнала была оборвана",
}


def _text(key: str, **values: object) -> str:
    template = PAGE_TEXTS[key]
    assert isinstance(template, str)
    return template.format(**values)


def counted(n: int, one: str, few: str, many: str) -> str:
    """`n` with its noun in the Russian plural: counted(1, "кнопка", "кнопки", "кнопок") is
    «1 кнопка», 4 «4 кнопки», 5 and 11 «… кнопок», 21 «21 кнопка»."""
    if n % 10 == 1 and n % 100 != 11:
        return f"{n} {one}"
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return f"{n} {few}"
    return f"{n} {many}"


def describe_notice(event: Event, names: Mapping[str, str], actions: Mapping[str, str]) -> str | None:
    """One Russian line for a shared event (`actions`: the game's host actions by name); None
    for any other."""
    match event:
        case CommandRefused(details={"action": str(action), "reason": str(reason)}):
            return f"Нельзя: «{actions.get(action, action)}» — {reason}"
        case ConsoleError(source=source, message=message):
            problem = PROBLEMS.get(source) or _text("device_problem", source=source)
            return f"{problem} ({message})"
        case CommandRefused(message=message):
            return f"Ошибка: {message}"
        case SourceStatus(source=source, state=state):
            return source_status_text(source, state)
        case ButtonHeld():
            return button_held_text(event, names)
        case ConsoleHeld():
            return console_held_text(event)
        case JournalStatus(state="failing"):
            return JOURNAL_FAILING
        case JournalStatus():
            return JOURNAL_BACK
        case ResumeOffered(state="offered", journal=journal):
            return _text("resume_offered", journal=journal)
        case ResumeOffered(state="accepted", journal=journal):
            return _text("resume_accepted", journal=journal)
        case ResumeOffered(journal=journal, implicit=implicit):
            return _text("resume_declined_implicit" if implicit else "resume_declined", journal=journal)
        case FightResumed(journal=journal, voided=voided, given_back=given, torn=torn):
            what = VOIDED.get(voided or "", voided)
            players = ", ".join(f"{names.get(player, player)} +{points}" for player, points in given.items())
            return (_text("resumed", journal=journal) + (_text("voided", what=what) if voided else "")
                    + (_text("given_back", players=players) if given else "")
                    + (_text("torn") if torn else ""))
    return None


def source_status_text(source: str, state: str) -> str:
    """A button source's state as the host reads it."""
    return _text("source_status", source=source, state=SOURCE_STATES.get(state, state))


def console_held_text(event: ConsoleHeld) -> str:
    """The console's own hold, as the host reads it."""
    return _text("console_held", held=held_seconds(event.held_ms))


def held_seconds(ms: float) -> str:
    """A hold in seconds as the host reads it: «0,03» for 30 ms (at one decimal a short hold
    past a deadline read «0,0 с»), «1,2» from a tenth of a second on."""
    return (f"{ms / 1000:.2f}" if ms < 100 else f"{ms / 1000:.1f}").replace(".", ",")


def button_held_text(event: ButtonHeld, names: Mapping[str, str]) -> str:
    """A button held down, or its release, as the host reads it."""
    whose = (_text("player_of", name=names.get(event.player, event.player)) if event.player
             else _text("no_player"))
    seconds = f"{event.held_ms / 1000:.1f}".replace(".", ",")
    return _text("button_held" if event.state == "held" else "button_released",
                 pad=event.pad, whose=whose, seconds=seconds)
