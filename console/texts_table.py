"""User-facing Russian text for the «Что? Где? Когда?» table: its events, stages and keys.

Contract: `describe_table(event, opponent)` gives one Russian line for any event the table
console publishes (the top's watcher, the table engine, the referee, the runtime); every type
is in `DESCRIBED`, and an unknown type comes back as its bare name rather than raising, so a
newer engine never breaks an older screen. `opponent` names the side that scores on a wrong
answer («Ведущий» or «Зрители»). The engine's own refusal reasons are English; the common
ones a newcomer meets get a Russian hint instead (see `_refusal`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from console.engine.chgk_rules import HELP_TITLES, ChgkAction
from console.texts import describe as describe_svoya

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
    "duplet": "Дуплет",
    "zeitnot": "Цейтнот",
    "sector12": "12-й",
    "sector13": "13-й",
    "fortochka": "Форточка",
}
KINDS = {
    "question": "вопрос",
    "blitz": "блиц",
    "superblitz": "суперблиц",
    "duplet": "дуплет",
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
    if n % 10 == 1 and n % 100 != 11:
        return f"{n} игрок"
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return f"{n} игрока"
    return f"{n} игроков"


def score_text(score: Mapping[str, int], opponent: str) -> str:
    return f"знатоки {score.get('team', 0)} : {score.get('club', 0)} {opponent}"


_DATIVE = {"Ведущий": "Ведущему", "Зрители": "Зрителям"}


def side_text(side: object, opponent: str) -> str:
    """To whom a point goes: «знатокам», «Ведущему», «Зрителям», «никому»."""
    return {"team": "знатокам", "club": _DATIVE.get(opponent, opponent)}.get(str(side), "никому")


def describe_table(event: Mapping[str, Any], opponent: str = "Ведущий") -> str:
    """One Russian line for a table event (see the module docstring)."""
    kind = str(event.get("type"))
    text = _TEXTS.get(kind)
    return text(event, opponent) if text else kind


def _spin_started(e: Mapping[str, Any], _: str) -> str:
    way = "по часовой стрелке" if e.get("direction") == "cw" else "против часовой стрелки"
    return f"Волчок закручен {way}"


def _spin_angle(e: Mapping[str, Any], _: str) -> str:
    speed = e.get("speed_dps")
    shown = "" if speed is None else f", {abs(float(speed)):.0f} °/с"
    return f"Волчок: {float(e['angle_deg']):5.1f}°, {abs(float(e['turns'])):.1f} об.{shown}"


def _spin_stopped(e: Mapping[str, Any], _: str) -> str:
    where = f" на секторе {e['sector']}" if "sector" in e else ""
    text = f"Волчок остановился{where} ({float(e['angle_deg']):.1f}°, {float(e['turns']):.1f} об.)"
    if e.get("near_boundary"):
        text += " — у самой границы сектора"
    if e.get("degraded"):
        text += "; датчик сбоил во время вращения"
    return text


def _spin_invalid(e: Mapping[str, Any], _: str) -> str:
    return f"Волчок не сделал полного оборота ({float(e['turns']):.2f} об.) — не считается, крутите ещё раз"


def _spin_nudged(e: Mapping[str, Any], _: str) -> str:
    return f"Стрелку сдвинули на {float(e['moved_deg']):.1f}° после остановки — результат прежний"


def _sensor_fault(e: Mapping[str, Any], _: str) -> str:
    flags = ", ".join(FAULTS.get(str(f), str(f)) for f in e.get("flags", []))
    return f"Датчик угла неисправен: {flags} — при сбое выберите сектор вручную"


def _sector_unsure(e: Mapping[str, Any], _: str) -> str:
    a, b = e["candidates"]
    return f"Стрелка на границе секторов {a} и {b}: ведущий, выберите сектор клавишей"


def _sector_chosen(e: Mapping[str, Any], _: str) -> str:
    played = e["played_sector"]
    source = SOURCES.get(str(e.get("source")), str(e.get("source")))
    text = f"Раунд {e['round']}: сектор {played} ({source})"
    if played != e["picked"]:
        text += f"; выпал {e['picked']}, он сыгран — играет следующий по часовой"
    if e.get("fortochka_skipped"):
        text += f"; форточку на секторе {e['fortochka_skipped']} пропускаем"
    kind = KINDS.get(str(e["played_as"]), str(e.get("title")))
    if e["played_as"] == "fortochka":
        return f"{text} — форточка!"
    parts = int(e["parts"])
    length = f"{parts} вопроса по {seconds(e['seconds'])} с" if parts > 1 else f"{seconds(e['seconds'])} с"
    text += f" — {kind}, {length}"
    if e.get("decisive"):
        text += f", решающий раунд на {e['value']} очков"
    elif e.get("final_round"):
        text += ", раунд может стать последним"
    return text


def _question_drawn(e: Mapping[str, Any], _: str) -> str:
    question = " ".join(str(e.get("text", "")).split())
    answer = " ".join(str(e.get("answer", "")).split()).rstrip(".")
    return f"Вопрос из базы: {question} Ответ: {answer}. Источник: {e.get('source')}"


def _fortochka_played(e: Mapping[str, Any], opponent: str) -> str:
    why = {"previous_correct": "предыдущий ответ был верным",
           "previous_wrong": "предыдущий ответ был неверным",
           "no_previous_round": "раунд первый, предыдущего ответа нет"}.get(str(e.get("reason")), "")
    return f"Форточка! Очко {side_text(e.get('to'), opponent)}: {why}"


def _game_started(e: Mapping[str, Any], _: str) -> str:
    team = e.get("team")
    who = f"играет команда «{team['name']}»" if team else "команда не выбрана (лототрон)"
    return (f"Новая игра: {who}, {STAGES.get(str(e['stage']), e['stage'])} до {e['target']} очков, "
            f"за столом {players_text(int(e['players_at_table']))}")


def _timer_started(e: Mapping[str, Any], _: str) -> str:
    part = f" (вопрос {e['part']} из {e['parts']})" if int(e.get("parts", 1)) > 1 else ""
    return f"«Время!» Обсуждение {seconds(e['seconds'])} с{part}"


def _answer_judged(e: Mapping[str, Any], _: str) -> str:
    verdict = "верный" if e["correct"] else "неверный"
    part = f" на вопрос {e['part']} из {e['parts']}" if int(e.get("parts", 1)) > 1 else ""
    early = " досрочный" if e.get("early") else ""
    return f"Ответ{early}{part}: {verdict}"


def _help_used(e: Mapping[str, Any], _: str) -> str:
    how = {"added_to_count": "добавится к обсуждению", "extended": "обсуждение продлено",
           "new_count": "новый отсчёт"}.get(str(e.get("applied")), "")
    title = e.get("title") or HELPS.get(str(e.get("help")), e.get("help"))
    return f"{title}: +{seconds(e['seconds'])} с, {how}"


def _round_ended(e: Mapping[str, Any], opponent: str) -> str:
    reason = END_REASONS.get(str(e.get("reason")), str(e.get("reason")))
    won = e.get("result")
    points = f"очко {side_text(won, opponent)}" if won else "очко никому"
    return f"Раунд {e['round']} окончен ({reason}): {points}; счёт {score_text(e['score'], opponent)}"


def _game_over(e: Mapping[str, Any], opponent: str) -> str:
    winner = "знатоки" if e.get("winner") == "team" else opponent
    return (f"Игра окончена: победили {winner}, счёт {score_text(e['score'], opponent)}, "
            f"раундов {e['rounds']}")


def _game_record(e: Mapping[str, Any], _: str) -> str:
    return (f"Протокол игры готов: верных ответов за столом на {e['table_points']} очк., "
            f"неверных ответов {e['wrong_answers']}")


def _error(e: Mapping[str, Any], _: str) -> str:
    details = e.get("details") or {}
    action = details.get("action")
    if action is None:  # from the runtime or a driver, not a refused action
        source = e.get("source")
        return f"Ошибка{f' ({source})' if source else ''}: {e.get('message')}"
    what = "выбор сектора" if action == "pick" else f"«{_action_title(action)}»"
    return f"Нельзя: {what} — {_refusal(str(action), details, str(e.get('message', '')))}"


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
    _, _, reason = message.partition(" is not allowed now: ")
    return f"правила не позволяют ({reason or message})"


def _fixed(text: str) -> Callable[[Mapping[str, Any], str], str]:
    return lambda _e, _o: text


_TEXTS: dict[str, Callable[[Mapping[str, Any], str], str]] = {
    # the top's watcher (console/engine/spin.py)
    "spin_started": _spin_started,
    "spin_angle": _spin_angle,
    "spin_stopped": _spin_stopped,
    "spin_invalid": _spin_invalid,
    "spin_nudged": _spin_nudged,
    "sensor_fault": _sensor_fault,
    "sensor_ok": _fixed("Датчик угла снова в порядке"),
    "sensor_silent": _fixed("Датчик угла молчит — выберите сектор вручную"),
    # the table engine (console/engine/table.py)
    "sector_unsure": _sector_unsure,
    # the referee (console/engine/chgk.py)
    "sector_chosen": _sector_chosen,
    "question_needed": _fixed("12-й сектор: нужен случайный вопрос из базы"),
    "fortochka_played": _fortochka_played,
    "fortochka_placed": lambda e, _: f"Форточка спрятана в секторе {e['sector']} (знает только ведущий)",
    "fortochka_moved": lambda e, _: f"Форточка теперь в секторе {e['sector']}",
    "game_started": _game_started,
    "lototron_drawn": lambda e, _: f"Лототрон: играет команда «{e['name']}» (№ {e['number']})",
    "timer_started": _timer_started,
    "timer_warning": lambda e, _: f"Осталось {seconds(round(float(e['remaining_s'])))} секунд!",
    "time_up": _fixed("Время вышло — ответ!"),
    "timer_extended": lambda e, _: f"Обсуждение продлено: всего {seconds(e['seconds'])} с",
    "early_answer": lambda e, _: "Досрочный ответ" + (" (верный сбережёт минуту)" if e.get("saves_minute")
                                                      else ""),
    "player_left": lambda e, _: (f"Игрок покинул стол: осталось {players_text(int(e['players_at_table']))}, "
                                 f"на обсуждение {seconds(e['seconds'])} с"),
    "answer_judged": _answer_judged,
    "minute_saved": lambda e, _: f"Минута сбережена (всего {e['saved_minutes']})",
    "next_part": lambda e, _: f"Следующий вопрос: {e['part']} из {e['parts']}, {seconds(e['seconds'])} с",
    "help_used": _help_used,
    "question_moved": lambda e, _: (f"Конверт перенесён с сектора {e['from_sector']} "
                                    f"на сектор {e['to_sector']}"),
    "hint_from_hall": lambda e, _: (f"Подсказка из зала: раунд {e['round']} проигран, "
                                    f"за столом осталось {players_text(int(e['players_at_table']))}"),
    "hall_answer_recorded": lambda e, _: (f"Зал: команда «{e['name']}» верно ответила на вопрос {e['part']} "
                                          f"раунда {e['round']} (очков в зале: {e['hall_points']})"),
    "sector_refilled": lambda e, _: f"На сектор {e['sector']} положен новый конверт № {e['envelope']}",
    "decisive_round": lambda e, _: (f"Решающий раунд: счёт обнулён, за столом один игрок, "
                                    f"на кону {e['points']} очков"),
    "round_cancelled": lambda e, _: f"Раунд {e['round']} снят: сектор {e['sector']} снова в игре",
    "round_ended": _round_ended,
    "game_over": _game_over,
    "game_record": _game_record,
    "error": _error,
    # the runtime (console/runtime.py)
    "question_drawn": _question_drawn,
    "question_source": lambda e, _: f"Вопрос из базы, источник: {e.get('source')}",
    "source_status": lambda e, _: describe_svoya(e, {}),
}
DESCRIBED = frozenset(_TEXTS)
