"""User-facing Russian text for «Брейн-ринг» (the protocol, the terminal).

Contract: `PRESS_REASONS` names why a press did not count, for every `PressReason` (a test
checks); `END_REASONS` how a question ended, for every `QuestionEnd`.
"""

from __future__ import annotations

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
