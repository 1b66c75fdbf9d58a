"""User-facing Russian text for events and states (terminal, host screen, displays)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PHASES = {
    "idle": "ожидание вопроса",
    "reading": "чтение вопроса",
    "open": "приём сигналов",
    "answering": "ответ",
    "await_reset": "неверно, ждём сброса",
    "game_over": "бой окончен",
}
STATUS = {"idle": "", "in_play": "в игре", "answering": "ОТВЕЧАЕТ", "out": "выбыл из вопроса"}
END_REASONS = {
    "correct": "правильный ответ",
    "all_wrong": "все ответили неверно",
    "no_signal": "время вышло, сигналов нет",
    "cancelled": "вопрос снят",
}
IGNORED = {
    "false_start": "фальстарт (до объявления стоимости)",
    "false_start_lockout": "блокировка после фальстарта",
    "before_reset": "до сброса системы",
    "out_of_question": "уже ответил неверно на этот вопрос",
    "late": "позже 7 секунд",
    "answerer_chosen": "отвечающий уже определён",
    "delivered_too_late": "нажатие дошло позже заявленной задержки источника; решение уже принято",
}
ACTIONS = {
    "next": "объявить стоимость (следующий вопрос)",
    "reading_finished": "вопрос дочитан",
    "name": "назвать отвечающего (пошли 3 с)",
    "short_form": "краткая форма дана",
    "answer_started": "игрок начал отвечать",
    "correct": "верно",
    "wrong": "неверно",
    "reset": "сброс системы",
    "cancel": "снять вопрос",
    "new_game": "новая игра",
}


def describe(event: Mapping[str, Any], names: Mapping[str, str]) -> str:
    """One Russian line for an event, naming players by their names."""
    kind = event.get("type")

    def who(key: str = "player") -> str:
        player = event.get(key)
        return names.get(str(player), str(player))

    if kind == "question_started":
        return f"Тема {event['theme']}, вопрос за {event['value']}: сигналы принимаются"
    if kind == "reading_finished":
        return "Вопрос дочитан: 7 секунд на сигнал"
    if kind == "signal_accepted":
        text = f"Первый сигнал: {who()}"
        if event.get("stop_reading"):
            text += " — остановите чтение (можно дать краткую форму)"
        others = [p for p in event.get("presses", [])[1:]]
        if others:
            text += "; следом " + ", ".join(
                f"{names.get(p['player'], p['player'])} +{p['behind_ms']:.3f} мс" for p in others)
        if event.get("tie"):
            text += f" (ничья, решено: {event.get('tie_policy')})"
        return text
    if kind == "answer_clock_started":
        return f"{who()}: 3 секунды, чтобы начать ответ"
    if kind == "answer_started":
        return f"{who()} отвечает"
    if kind == "answer_judged":
        verdict = "верно" if event["correct"] else "неверно"
        if event.get("by") == "timeout":
            verdict = "не начал ответ за 3 секунды — неверно"
        return f"{who()}: {verdict}, {event['delta']:+d} → {event['score']}"
    if kind == "signals_reset":
        if event.get("window_ends_ns") is None:
            return "Сброс: сигналы снова принимаются; если сигнала нет — продолжайте чтение"
        return "Сброс: сигналы снова принимаются"
    if kind == "question_ended":
        text = f"Вопрос окончен: {END_REASONS.get(str(event['reason']), event['reason'])}"
        return text + (f" ({who('winner')})" if event.get("winner") else "")
    if kind == "press_ignored":
        reason = IGNORED.get(str(event.get("reason")), str(event.get("reason")))
        return f"Сигнал {who()} не засчитан: {reason}"
    if kind == "game_over":
        ranking = ", ".join(f"{names.get(p, p)} {event['scores'][p]}" for p in event["ranking"])
        return f"Бой окончен: {ranking}"
    if kind == "game_started":
        return "Новая игра: счёт обнулён"
    if kind == "error":
        return f"Ошибка: {event.get('message')}"
    if kind == "source_status":
        state = {"connected": "подключено", "disconnected": "отключено",
                 "incompatible": "несовместимая прошивка"}.get(str(event.get("state")), event.get("state"))
        return f"Устройство {event.get('source')}: {state}"
    return str(kind)
