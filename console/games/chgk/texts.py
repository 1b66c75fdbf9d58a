"""User-facing Russian text for the «Что? Где? Когда?» table: its events, stages and keys.

Contract: `describe_table(event, opponent)` gives one Russian line for any event the table
console publishes (the top's watcher, the table engine, the referee, the runtime), typed or as
its published JSON; every type is in `DESCRIBED`, and an unknown type comes back as its bare
name rather than raising, so a newer engine never breaks an older screen. The engines' events
(`console.engine.chgk.events`, `console.engine.spin.events`) are told apart by class (`match`);
published JSON of them is read back into its class first (`read_table_event`); only the
runtime's own events are described from their JSON. `opponent` names the side that scores on a wrong
answer («Ведущий» or «Зрители»). A refusal shows the engine's own reason (Russian); the
common ones a newcomer meets at the terminal get a hint with its keys instead (see `_refusal`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from console.engine.chgk.events import (
    TABLE_EVENTS,
    AnswerJudged,
    DecisiveRoundTaken,
    EarlyAnswerDeclared,
    FortochkaMoved,
    FortochkaPlaced,
    FortochkaPlayed,
    GameRecord,
    HallAnswerRecorded,
    HelpUsed,
    HintFromHall,
    LototronDrawn,
    MinuteSaved,
    NextPart,
    PlayerLeft,
    QuestionDrawn,
    QuestionMoved,
    QuestionNeeded,
    QuestionSource,
    QuestionUnavailable,
    RoundCancelled,
    RoundCorrected,
    RoundEnded,
    Score,
    SectorChosen,
    SectorRefilled,
    TableCommandRefused,
    TableGameOver,
    TableGameStarted,
    TimerExtended,
    TimerPaused,
    TimerResumed,
    TimerStarted,
    TimerWarning,
    TimeUp,
    event_from_json,
)
from console.engine.chgk.rules import HELP_TITLES, ChgkAction, Side
from console.engine.events import Event
from console.engine.spin.events import (
    TOP_EVENTS,
    Direction,
    SectorUnsure,
    SensorFault,
    SensorOk,
    SensorSilent,
    SpinAngle,
    SpinInvalid,
    SpinNudged,
    SpinStarted,
    SpinStopped,
)
from console.engine.spin.events import event_from_json as top_event_from_json
from console.notices import (
    NOTICES,
    ButtonHeld,
    ConsoleError,
    ConsoleHeld,
    FightResumed,
    SourceStatus,
    notice_from_json,
)
from console.texts import button_held_text, console_held_text, counted, source_status_text

STAGES = {"qualifier": "отборочная игра", "semifinal": "полуфинал", "final": "финал"}
PHASES = {
    "ready": "ждём сектор — крутите волчок",
    "asked": "вопрос задан — ждём «Время!»",
    "discussion": "обсуждение",
    "answer": "ответ знатоков — верно или неверно?",
    "game_over": "игра окончена",
}
TOP_PHASES = {"rest": "покоится", "moving": "трогается", "spinning": "крутится"}
# Short names of the sector kinds for the table row (the engine's TITLES are the long ones).
SHORT = {
    "question": "",
    "blitz": "Блиц",
    "superblitz": "Суперблиц",
    "duplet": "Дуплиц",
    "zeitnot": "Цейтнот",
    "sector12": "12-й",
    "sector13": "13-й",
    "fortochka": "Форточка",
}
KINDS = {
    "question": "вопрос",
    "blitz": "блиц",
    "superblitz": "суперблиц",
    "duplet": "дуплиц",
    "zeitnot": "цейтнот",
    "sector12": "12-й сектор: вопрос из базы",
    "sector13": "13-й сектор: правила объявляет ведущий",
    "fortochka": "форточка",
}
HELPS = {kind.value: title for kind, title in HELP_TITLES.items()}
ACTIONS = {
    ChgkAction.NEW_GAME: "новая игра",
    ChgkAction.DRAW_LOTOTRON: "лототрон",
    ChgkAction.START_TIMER: "«Время!»",
    ChgkAction.EARLY_ANSWER: "досрочный ответ",
    ChgkAction.PLAYER_LEAVES: "игрок покидает стол",
    ChgkAction.ANSWER_CORRECT: "верно",
    ChgkAction.ANSWER_WRONG: "неверно",
    ChgkAction.FORTOCHKA: "форточка",
    ChgkAction.EXTRA_TIME: "дополнительное время",
    ChgkAction.CLUB_HELP: "помощь клуба",
    ChgkAction.MOVE_QUESTION: "перемещение вопроса",
    ChgkAction.USE_SAVED_MINUTE: "сэкономленная минута",
    ChgkAction.HINT_FROM_HALL: "подсказка из зала",
    ChgkAction.HALL_CORRECT: "верный ответ зала",
    ChgkAction.REFILL: "новый конверт",
    ChgkAction.DECISIVE_ROUND: "решающий раунд",
    ChgkAction.CANCEL_ROUND: "снять раунд",
    ChgkAction.CORRECT_ROUND: "исправить результат раунда",
    ChgkAction.PAUSE: "пауза",
    ChgkAction.RESUME: "продолжить отсчёт",
}
SOURCES = {"top": "волчок", "lototron": "лототрон", "host": "ведущий"}
FAULTS = {
    "magnet_missing": "магнит не найден",
    "magnet_too_weak": "магнит слишком слаб",
    "magnet_too_strong": "магнит слишком силён",
}
END_REASONS = {
    "correct": "верный ответ",
    "wrong": "неверный ответ",
    "fortochka": "форточка",
    "hint": "подсказка из зала",
}
_IN_ROUND = ("asked", "discussion", "answer")
_ROUND_ACTIONS = {"start_timer", "early_answer", "answer_correct", "answer_wrong", "player_leaves",
                  "extra_time", "club_help", "fortochka", "cancel_round", "hint_from_hall"}


def seconds(value: float) -> str:
    """12.0 -> "12", 12.5 -> "12.5" (durations in the engine's events are floats)."""
    return f"{value:g}"


def players_text(n: int) -> str:
    """6 -> "6 игроков", 1 -> "1 игрок", 3 -> "3 игрока"."""
    return counted(n, "игрок", "игрока", "игроков")


def score_text(score: Score | Mapping[str, int], opponent: str) -> str:
    if isinstance(score, Score):
        return f"знатоки {score.team} : {score.club} {opponent}"
    return f"знатоки {score.get('team', 0)} : {score.get('club', 0)} {opponent}"


_DATIVE = {"Ведущий": "Ведущему", "Зрители": "Зрителям"}


def side_text(side: object, opponent: str) -> str:
    """To whom a point goes: «знатокам», «Ведущему», «Зрителям», «никому»."""
    return {"team": "знатокам", "club": _DATIVE.get(opponent, opponent)}.get(str(side), "никому")


def read_table_event(obj: Mapping[str, object]) -> Event | None:
    """The typed event a published object of the table was written from: the referee's or the
    top's; None for the runtime's own events (and unknown or ill-fitting objects)."""
    return event_from_json(obj) or top_event_from_json(obj)


def describe_table(event: Event | Mapping[str, Any], opponent: str = "Ведущий") -> str:
    """One Russian line for a table event, typed or published (see the module docstring)."""
    typed = event if isinstance(event, Event) else read_table_event(event) or notice_from_json(event)
    if typed is None:
        return str(event.get("type")) if isinstance(event, Mapping) else ""
    return _top_line(typed) or _referee_line(typed, opponent) or _notice_line(typed) or typed.TYPE


def _notice_line(e: Event) -> str | None:
    """The console's own notices (console/notices.py)."""
    match e:
        case (ConsoleError(source=source, message=message)
              | QuestionUnavailable(source=source, message=message)):
            return f"Ошибка ({source}): {message}"
        case SourceStatus(source=source, state=state):
            return source_status_text(source, state)
        case ButtonHeld():
            return button_held_text(e, {})
        case ConsoleHeld():
            return console_held_text(e)
        case FightResumed(voided=voided):
            return "Игра восстановлена по журналу" + {
                "round": "; прерванный раунд отменён — крутите волчок",
                "count": "; прерванный отсчёт отменён"}.get(voided or "", "")
    return None


def _top_line(e: Event) -> str | None:
    """The top's events (the watcher's and the table's) by class; None for another engine's."""
    match e:
        case SpinStarted(direction=direction):
            way = "по часовой стрелке" if direction is Direction.CW else "против часовой стрелки"
            return f"Волчок закручен {way}"
        case SpinAngle(angle_deg=angle, turns=turns, speed_dps=speed):
            shown = "" if speed is None else f", {abs(speed):.0f} °/с"
            return f"Волчок: {angle:5.1f}°, {abs(turns):.1f} об.{shown}"
        case SpinStopped():
            return _spin_stopped(e)
        case SpinInvalid(turns=turns):
            return f"Волчок не сделал полного оборота ({turns:.2f} об.) — не считается, крутите ещё раз"
        case SpinNudged(moved_deg=moved):
            return f"Стрелку сдвинули на {moved:.1f}° после остановки — результат прежний"
        case SensorFault(flags=flags):
            names = ", ".join(FAULTS.get(flag.value, flag.value) for flag in flags)
            return f"Датчик угла неисправен: {names} — при сбое выберите сектор вручную"
        case SensorOk():
            return "Датчик угла снова в порядке"
        case SensorSilent():
            return "Датчик угла молчит — выберите сектор вручную"
        case SectorUnsure(candidates=(a, b)):
            return f"Стрелка на границе секторов {a} и {b}: ведущий, выберите сектор клавишей"
    return None


def _spin_stopped(e: SpinStopped) -> str:
    where = "" if e.sector is None else f" на секторе {e.sector}"
    text = f"Волчок остановился{where} ({e.angle_deg:.1f}°, {e.turns:.1f} об.)"
    if e.near_boundary:
        text += " — у самой границы сектора"
    if e.degraded:
        text += "; датчик сбоил во время вращения"
    return text


def _referee_line(e: Event, opponent: str) -> str | None:
    """The referee's events by class; None for another engine's (told apart by type)."""
    match e:
        case SectorChosen():
            return _sector_chosen(e)
        case QuestionNeeded():
            return "12-й сектор: нужен случайный вопрос из базы"
        case QuestionDrawn(text=text, answer=answer, source=source):
            question = " ".join(text.split())
            said = " ".join(answer.split()).rstrip(".")
            return f"Вопрос из базы: {question} Ответ: {said}. Источник: {source}"
        case QuestionSource(source=source):
            return f"Вопрос из базы, источник: {source}"
        case FortochkaPlayed(to=to, reason=reason):
            why = {"previous_correct": "предыдущий ответ был верным",
                   "previous_wrong": "предыдущий ответ был неверным",
                   "no_previous_round": "раунд первый, предыдущего ответа нет"}.get(reason, "")
            return f"Форточка! Очко {side_text(to, opponent)}: {why}"
        case FortochkaPlaced(sector=sector):
            return f"Форточка спрятана в секторе {sector} (знает только ведущий)"
        case FortochkaMoved(sector=sector):
            return f"Форточка теперь в секторе {sector}"
        case TableGameStarted(team=team, stage=stage, target=target, players_at_table=players):
            who = f"играет команда «{team.name}»" if team else "команда не выбрана (лототрон)"
            return (f"Новая игра: {who}, {STAGES.get(stage.value, stage.value)} до {target} очков, "
                    f"за столом {players_text(players)}")
        case LototronDrawn(name=name, number=number):
            return f"Лототрон: играет команда «{name}» (№ {number})"
        case TimerStarted(part=part, parts=parts, seconds=length):
            of = f" (вопрос {part} из {parts})" if parts > 1 else ""
            return f"«Время!» Обсуждение {seconds(length)} с{of}"
        case TimerWarning(remaining_s=remaining):
            return f"Осталось {seconds(round(remaining))} секунд!"
        case TimeUp():
            return "Время вышло — ответ!"
        case TimerPaused(remaining_ms=remaining):
            return f"Пауза: отсчёт остановлен, осталось {seconds(round(remaining / 1000))} с"
        case TimerResumed(paused_ms=held):
            return f"Отсчёт продолжен (пауза {seconds(round(held / 1000))} с)"
        case TimerExtended(seconds=length):
            return f"Обсуждение продлено: всего {seconds(length)} с"
        case EarlyAnswerDeclared(saves_minute=saves):
            return "Досрочный ответ" + (" (верный сбережёт минуту)" if saves else "")
        case PlayerLeft(players_at_table=players, seconds=length):
            return f"Игрок покинул стол: осталось {players_text(players)}, на обсуждение {seconds(length)} с"
        case AnswerJudged(correct=correct, part=part, parts=parts, early=early):
            of = f" на вопрос {part} из {parts}" if parts > 1 else ""
            return f"Ответ{' досрочный' if early else ''}{of}: {'верный' if correct else 'неверный'}"
        case MinuteSaved(saved_minutes=saved):
            return f"Минута сбережена (всего {saved})"
        case NextPart(part=part, parts=parts, seconds=length):
            return f"Следующий вопрос: {part} из {parts}, {seconds(length)} с"
        case HelpUsed():
            return _help_used(e)
        case QuestionMoved(from_sector=a, to_sector=b):
            return f"Конверт перенесён с сектора {a} на сектор {b}"
        case HintFromHall(round=number, players_at_table=players):
            return f"Подсказка из зала: раунд {number} проигран, за столом осталось {players_text(players)}"
        case HallAnswerRecorded(name=name, part=part, round=number, hall_points=points):
            return (f"Зал: команда «{name}» верно ответила на вопрос {part} раунда {number} "
                    f"(очков в зале: {points})")
        case SectorRefilled(sector=sector, envelope=envelope):
            return f"На сектор {sector} положен новый конверт № {envelope}"
        case DecisiveRoundTaken(points=points):
            return f"Решающий раунд: счёт обнулён, за столом один игрок, на кону {points} очков"
        case RoundCancelled(round=number, sector=sector):
            return f"Раунд {number} снят: сектор {sector} снова в игре"
        case RoundEnded(round=number, reason=reason, result=won, score=score):
            why = END_REASONS.get(reason, reason)
            point = f"очко {side_text(won, opponent)}" if won else "очко никому"
            return f"Раунд {number} окончен ({why}): {point}; счёт {score_text(score, opponent)}"
        case RoundCorrected(round=number, result=won, reason=why, score=score, winner=winner):
            text = (f"Исправлено: очко раунда {number} — {side_text(won, opponent)} ({why}); "
                    f"счёт {score_text(score, opponent)}")
            return text if winner is not None else f"{text}; игра продолжается"
        case TableGameOver(winner=winner, score=score, rounds=rounds):
            who = "знатоки" if winner is Side.TEAM else opponent
            return f"Игра окончена: победили {who}, счёт {score_text(score, opponent)}, раундов {rounds}"
        case GameRecord(table_points=points, wrong_answers=wrong):
            return (f"Протокол игры готов: верных ответов за столом на {points} очк., "
                    f"неверных ответов {wrong}")
        case TableCommandRefused(message=message, details=details):
            return _refused(details, message)
    return None


def _sector_chosen(e: SectorChosen) -> str:
    source = SOURCES.get(e.source.value, e.source.value)
    text = f"Раунд {e.round}: сектор {e.played_sector} ({source})"
    if e.played_sector != e.picked:
        text += f"; выпал {e.picked}, он сыгран — играет следующий по часовой"
    if e.fortochka_skipped:
        text += f"; форточку на секторе {e.fortochka_skipped} пропускаем"
    if e.played_as == "fortochka" or e.seconds is None:
        return f"{text} — форточка!"
    kind = KINDS.get(e.played_as.value, e.title)
    length = f"{e.parts} вопроса по {seconds(e.seconds)} с" if e.parts > 1 else f"{seconds(e.seconds)} с"
    text += f" — {kind}, {length}"
    if e.decisive:
        text += f", решающий раунд на {e.value} очков"
    elif e.final_round:
        text += ", раунд может стать последним"
    return text


def _help_used(e: HelpUsed) -> str:
    how = {"added_to_count": "добавится к обсуждению", "extended": "обсуждение продлено",
           "new_count": "новый отсчёт"}.get(e.applied, "")
    title = e.title or HELPS.get(e.help, e.help)
    return f"{title}: +{seconds(e.seconds)} с, {how}"


def _refused(details: Mapping[str, Any], message: str) -> str:
    action = details.get("action")
    what = "выбор сектора" if action == "pick" else f"«{_action_title(action)}»"
    return f"Нельзя: {what} — {_refusal(str(action), details, message)}"


def _action_title(action: object) -> str:
    try:
        return ACTIONS[ChgkAction(str(action))].strip("«»")
    except ValueError:
        return str(action)


def _refusal(action: str, details: Mapping[str, Any], message: str) -> str:
    """Why an action was refused: a Russian hint for the usual slips, else the engine's reason."""
    phase = str(details.get("phase"))
    if phase == "game_over":
        return "игра окончена (g — новая игра)"
    if action == "pick" and phase in _IN_ROUND:
        return "раунд ещё идёт: закончите его или снимите (c)"
    if action in _ROUND_ACTIONS and phase == "ready":
        return "раунд не начат: крутите волчок (s) или выберите сектор цифрой"
    if action in ("answer_correct", "answer_wrong") and phase == "asked":
        return "сначала «Время!» (t) или досрочный ответ (e)"
    if action == "start_timer" and phase == "discussion":
        return "отсчёт уже идёт"
    if action in ("extra_time", "club_help") and "score" in details:
        score = details["score"]
        return f"просить помощь может только отстающая команда (счёт {score['team']}:{score['club']})"
    if action == "start_timer" and phase == "answer":
        return "время вышло или объявлен досрочный ответ — оцените ответ (y / x)"
    return str(details.get("reason") or message)


# Every event type the table's screens can show: the top's, the referee's, the console's own.
DESCRIBED = frozenset(cls.TYPE for cls in (*TABLE_EVENTS, *TOP_EVENTS, *NOTICES))
