"""User-facing Russian text the games share: the console's own notices (terminal, host screen).

Contract: `describe_notice(event, names, actions)` gives one Russian line for an event every
game can publish (a refused command, the console's own errors, a source's state, a held
button, a resumed fight, the journal's health), or None for a game's own event; each game's `texts` module
describes its own events and falls back to this. `SOURCE_STATES` names every source state.
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

# One word per LinkState (drivers/link_state.py); the host screen shows the same (host.js).
SOURCE_STATES = {
    "connected": "подключено",
    "disconnected": "нет связи",
    "incompatible": "другая версия прошивки",
    "resyncing": "часы устройства сбились: пересинхронизация, проверьте решения",
}

# The journal's health (console/shell/journal.py); the host screen says the same (host.js).
JOURNAL_FAILING = ("Журнал не записывается (диск полон, извлечён или только для чтения): игра идёт, "
                   "решения хранятся в памяти и будут записаны, как только диск их примет; "
                   "не выключайте пульт")
JOURNAL_BACK = "Журнал снова записывается: ничего не потеряно"


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
        case CommandRefused(message=message) | ConsoleError(message=message):
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
            return (f"Бой {journal} записан с другими настройками — выберите: продолжить его "
                    "или начать новый")
        case ResumeOffered(state="accepted", journal=journal):
            return f"Продолжаем бой {journal} с его настройками: пульт перезапускается"
        case ResumeOffered(journal=journal, implicit=implicit):
            return (f"Начат новый бой{' (вы продолжили игру)' if implicit else ''}; "
                    f"журнал прежнего сохранён как {journal}")
        case FightResumed(voided=voided):
            return "Бой восстановлен по журналу" + ("; прерванный вопрос отменён и будет сыгран заново"
                                                    if voided else "")
    return None


def source_status_text(source: str, state: str) -> str:
    """A button source's state as the host reads it."""
    return f"Устройство {source}: {SOURCE_STATES.get(state, state)}"


def console_held_text(event: ConsoleHeld) -> str:
    """The console's own hold, as the host reads it."""
    held = f"{event.held_ms / 1000:.1f}".replace(".", ",")
    return (f"Пульт задержался на {held} с (система была занята): нажатия за это время "
            "засчитаны по их времени, решение принято после их чтения")


def button_held_text(event: ButtonHeld, names: Mapping[str, str]) -> str:
    """A button held down, or its release, as the host reads it."""
    whose = f"игрока {names.get(event.player, event.player)}" if event.player else "без игрока"
    button = f"Кнопка {event.pad} ({whose})"
    seconds = f"{event.held_ms / 1000:.1f}".replace(".", ",")
    if event.state == "held":
        return (f"{button} зажата уже {seconds} с: залипла или её держат; "
                "остальные кнопки работают, её нажатие засчитано один раз")
    return f"{button} отпущена (была нажата {seconds} с)"
