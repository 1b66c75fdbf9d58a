"""User-facing Russian text for the «Эрудит-квартет» fight (terminal, host screen, displays).

Contract: `describe` gives one Russian line for an event of the fight, chosen by the event's
class (the «Своя игра» referee's own events of a theme: `console.texts.describe`); the tables
below name every phase, round type, stage, penalty and tie-break step in Russian (tests check
that each has its text).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import resources

from console.engine.events import CommandRefused, Event
from console.engine.quartet.events import (
    AssignTimeUp,
    FightOver,
    FightStarted,
    MemberRenamed,
    PenaltyGiven,
    PlayersAssigned,
    PresenceChanged,
    RoundStarted,
    ShootoutNeeded,
    ThemeCorrected,
    ThemeEnded,
    ThemeNamed,
    ThemeStarted,
)


def _shared_texts() -> dict[str, dict[str, str]]:
    """The fight's words the pages use too (console/data/quartet-texts.js: JSON after its name)."""
    script = (resources.files("console") / "data" / "quartet-texts.js").read_text(encoding="utf-8")
    literal = script.partition("const QUARTET_TEXTS =")[2].rstrip().removesuffix(";")
    texts: dict[str, dict[str, str]] = json.loads(literal)
    return texts


_SHARED = _shared_texts()
PHASES = _SHARED["phases"]
ROUND_TYPES = {kind: f"{word} раунд" for kind, word in _SHARED["round_types"].items()}
STAGES = _SHARED["stages"]
PENALTIES = _SHARED["penalties"]
# The fight's own host actions, by name (the theme's are «Своя игра»'s: svoya texts' ACTIONS).
ACTIONS = {
    "new_fight": "новый бой",
    "start_round": "начать раунд",
    "name_theme": "назвать тему",
    "assign": "рассадить игроков",
    "start_theme": "начать тему",
    "penalty": "штраф за общение с командой",
    "absent": "игрок отсутствует",
    "present": "игрок вернулся",
    "add_member": "новый игрок команды",
    "rename_member": "исправить имя игрока",
    "appeal": "апелляция по теме",
}
BY = {"total": "по сумме очков", "plus": "по сумме без минусов", "shootout": "по перестрелке",
      "lot": "по жребию"}


def by_text(step: str) -> str:
    """What decided a place, in Russian (``taken_50`` -> «по взятым за 50»)."""
    if step.startswith("taken_"):
        return f"по взятым за {step.removeprefix('taken_')}"
    return BY.get(step, step)


def describe(event: Event, names: Mapping[str, str]) -> str | None:
    """One Russian line for a fight event (teams by their names: `names`, id -> name); None
    for an event that is not the fight's own."""

    def team(t: str) -> str:
        return names.get(t, t)

    match event:
        case CommandRefused(details={"action": str(action), "reason": str(reason)}) if action in ACTIONS:
            return f"Нельзя: «{ACTIONS[action]}» — {reason}"
        case FightStarted():
            return f"Новый бой ({STAGES[event.stage.value]}): {', '.join(map(team, event.teams))}"
        case RoundStarted():
            line = f"Раунд {event.round}: {ROUND_TYPES[event.round_type.value]}"
            if event.themes:
                line += f"; темы: {', '.join(event.themes)}"
            short = [f"{team(t)} — {n}" for t, n in event.plays.items() if n < 4]
            if short:
                line += f"; играют меньше тем: {', '.join(short)}"
            return line
        case ThemeNamed():
            what = "Тема перестрелки" if event.shootout else f"Тема {event.theme}"
            # A theme named only by its number (no pack) is said once, not «Тема 1: Тема 1».
            named = "" if event.name == what else f": {event.name}"
            return f"{what}{named}" + (" — 20 секунд на выбор игрока" if event.choose_ends_ns else "")
        case PlayersAssigned():
            order = ", ".join(p or "—" for p in event.order)
            return f"{team(event.team)}: {order}" + (" (после срока)" if event.late else "")
        case AssignTimeUp():
            missing = ", ".join(map(team, event.missing)) or "все успели"
            return f"Время на расстановку вышло; не назвали игроков: {missing}"
        case ThemeStarted():
            seats = ", ".join(f"{team(s.team)} — {s.player}" for s in event.seats)
            return f"Тема «{event.name}»: за столом {seats}"
        case ThemeEnded():
            scores = ", ".join(f"{team(t)} {s:+d}" for t, s in event.scores.items())
            return f"Тема «{event.name}» сыграна: {scores}"
        case ThemeCorrected():
            scores = ", ".join(f"{team(t)} {s:+d}" for t, s in event.scores.items())
            return f"Апелляция по теме «{event.name}» ({event.reason}): {scores}"
        case PenaltyGiven():
            return f"{team(event.team)}: {PENALTIES[event.penalty.value]} (общение с командой)"
        case PresenceChanged():
            return f"{team(event.team)}: {event.player} {'вернулся' if event.present else 'отсутствует'}"
        case MemberRenamed():
            return f"{team(event.team)}: игрок «{event.was}» теперь «{event.name}»"
        case ShootoutNeeded():
            return "; ".join(f"Перестрелка за {p.first}–{p.last} места: {', '.join(map(team, p.teams))}"
                             for p in event.pending)
        case FightOver():
            # by[i]: what put place i+1 above place i+2 (3.10-3.11), said after the lower one.
            places = [f"{p.place}. {team(p.team)} ({p.total})" for p in event.places]
            return "Итог боя: " + ", ".join(
                place + (f" — {by_text(event.by[i - 1])}" if 0 < i <= len(event.by) else "")
                for i, place in enumerate(places))
    return None
