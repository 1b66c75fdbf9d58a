"""User-facing Russian text for «Брейн-ринг» (the protocol, the terminal).

Contract: `PRESS_REASONS` names why a press did not count, for every `PressReason` (a test
checks); `END_REASONS` how a question ended, for every `QuestionEnd`; `describe(event, names)`
one line for a fight's event (the terminal demo).
"""

from __future__ import annotations

from collections.abc import Mapping

from console.engine.brainring.events import (
    AnswerJudged,
    CountStarted,
    ExtraQuestions,
    FalseStart,
    FightOver,
    PressIgnored,
    QuestionEnded,
    QuestionStarted,
    SignalAccepted,
    TimeUp,
)
from console.engine.events import Event

PRESS_REASONS = {
    "between_questions": "между вопросами",
    "out_of_question": "команда уже выбыла из вопроса (фальстарт или неверный ответ)",
    "sent_out": "игрок удалён",
    "answering": "отвечает другая команда",
    "late": "после конца времени",
    "delivered_too_late": "нажатие дошло позже заявленной задержки; решение уже принято",
    "paused": "во время паузы",
    "not_in_extra": "не играет дополнительные вопросы",
}
END_REASONS = {"correct": "взят", "unanswered": "не взят", "cancelled": "снят"}
FALSE_START = "фальстарт (до «Время!»)"  # a press during the reading: the team is out of the question


def describe(event: Event, names: Mapping[str, str]) -> str | None:
    """One Russian line for a fight's event, as the terminal demo prints it (`names`: team id ->
    name); None for an event it does not narrate."""
    def who(team: str | None) -> str:
        return names.get(team or "", team or "—")

    match event:
        case QuestionStarted(question=question, stake=stake, extra=extra):
            return f"{'Дополнительный в' if extra else 'В'}опрос {question} ({stake} очк.): читается"
        case CountStarted(seconds=seconds, teams_in_play=teams):
            return f"Время! {seconds:g} с; играют: {', '.join(who(t) for t in teams)}"
        case FalseStart(team=team):
            return f"Фальстарт: {who(team)}"
        case SignalAccepted(team=team, tie=tie):
            return f"Первый сигнал: {who(team)}{' (одновременно, по жребию)' if tie else ''}"
        case PressIgnored(team=team, reason=reason):
            return f"Не засчитано: {who(team)} — {PRESS_REASONS.get(reason, reason)}"
        case AnswerJudged(team=team, correct=correct, delta=delta, score=score):
            return f"{who(team)}: {'верно' if correct else 'неверно'}, {delta:+d} → {score}"
        case TimeUp():
            return "Время вышло"
        case QuestionEnded(question=question, reason=reason, winner=winner):
            taken = f": {who(winner)}" if winner else ""
            return f"Вопрос {question} {END_REASONS.get(reason, reason)}{taken}"
        case ExtraQuestions(tied=tied):
            return f"Ничья: дополнительные вопросы играют {', '.join(who(t) for t in tied)}"
        case FightOver(winner=winner, scores=scores):
            return f"Бой окончен: победа {who(winner)} ({' : '.join(str(v) for v in scores.values())})"
    return None
