"""User-facing Russian text of «Своя игра» (terminal, host screen, displays).

Contract: `describe` gives one Russian line for an event of the «Своя игра» referee (and the
shared notices, console/texts.py), chosen by the event's class; the tables below name every
phase, status, end reason, ignored-press reason and host action in Russian (the schema tests
check that each has its text).
"""

from __future__ import annotations

from collections.abc import Mapping

from console.engine.events import Event
from console.engine.svoya.events import (
    AnswerClockStarted,
    AnswerJudged,
    AnswerStarted,
    GameOver,
    GameStarted,
    JudgementReversed,
    JudgementUndone,
    PadAwaited,
    PadBound,
    PlayerAdded,
    PlayerRemoved,
    PlayerRenamed,
    PressIgnored,
    QuestionEnded,
    QuestionStarted,
    ReadingFinished,
    ScoreAdjusted,
    SignalAccepted,
    SignalsHeld,
    SignalsReset,
    SignalsResumed,
    SignalsWaitOver,
    ThemeSkipped,
)
from console.texts import describe_notice

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
    "window_closed": "нажатие в срок дошло после закрытия окна (позже заявленной задержки источника)",
    "question_cancelled": "вопрос снят ведущим",
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
    "end_question": "закончить вопрос без потерянных кнопок",
    "end_game": "закончить бой (победитель по очкам)",
    "skip_theme": "пропустить остаток темы",
    "next_fight": "новый бой дальше по пакету",
    "adjust_score": "изменить счёт (с причиной)",
    "reverse": "изменить решение по вопросу (апелляция)",
    "undo": "отменить решение (ошибочное нажатие)",
    "rename_player": "переименовать игрока",
    "add_player": "добавить игрока",
    "remove_player": "убрать игрока",
    "bind_pad": "назначить кнопку нажатием",
}

def describe(event: Event, names: Mapping[str, str]) -> str:
    """One Russian line for an event, naming players by their names (`names`: id -> name)."""

    def who(player: str | None) -> str:
        return names.get(str(player), str(player))

    match event:
        case QuestionStarted(theme=theme, value=value, theme_name=str(name)):
            return f"Тема «{name}», вопрос за {value}: сигналы принимаются"
        case QuestionStarted(theme=theme, value=value):
            return f"Тема {theme}, вопрос за {value}: сигналы принимаются"
        case ReadingFinished():
            return "Вопрос дочитан: 7 секунд на сигнал"
        case SignalAccepted():
            return _signal_accepted(event, names)
        case AnswerClockStarted(player=player):
            return f"{who(player)}: 3 секунды, чтобы начать ответ"
        case AnswerStarted(player=player):
            return f"{who(player)} отвечает"
        case AnswerJudged(player=player, correct=correct, by=by, delta=delta, score=score):
            verdict = "верно" if correct else "неверно"
            if by == "timeout":
                verdict = "ответ не начат за 3 секунды — неверно"
            return f"{who(player)}: {verdict}, {delta:+d} → {score}"
        case SignalsHeld(source=source):
            return (f"Пауза: нет связи с кнопками {source} — решение ждёт их возвращения "
                    "(нажатия за это время будут засчитаны по их времени)")
        case SignalsWaitOver(source=source):
            return (f"Кнопки {source} не вернулись: снимите вопрос (он будет сыгран заново) "
                    "или закончите его без них")
        case SignalsResumed(source=source, given_up=False):
            return f"Кнопки {source} снова на связи: игра продолжается"
        case SignalsResumed(source=source):
            return (f"Кнопки {source} не вернулись: вопрос решается без них "
                    "(решение под сомнением — можно снять вопрос)")
        case SignalsReset(window_ends_ns=None):
            return "Сброс: сигналы снова принимаются; если сигнала нет — продолжайте чтение"
        case SignalsReset():
            return "Сброс: сигналы снова принимаются"
        case QuestionEnded(reason=reason, winner=winner, inputs_lost=lost):
            text = f"Вопрос окончен: {END_REASONS[reason]}" + (f" ({who(winner)})" if winner else "")
            if lost:
                text += (f"; внимание: нажатия с {', '.join(lost)} могли потеряться — проверьте "
                         "решение (можно отменить вопрос)")
            return text
        case PressIgnored(player=player, reason=reason):
            return f"Сигнал {who(player)} не засчитан: {IGNORED[reason]}"
        case GameOver(scores=scores, ranking=ranking):
            return "Бой окончен: " + ", ".join(f"{who(p)} {scores[p]}" for p in ranking)
        case GameStarted(theme=theme) if theme > 1:
            return f"Новый бой с темы {theme}: счёт обнулён"
        case GameStarted():
            return "Новая игра: счёт обнулён"
        case PlayerRenamed(name=name, was=was):
            return f"{was} теперь {name}"
        case PlayerAdded(name=name, pad=pad):
            return f"В бою новый игрок: {name} (кнопка {pad}), счёт 0"
        case PlayerRemoved(name=name, score=score):
            return f"{name} выбыл из боя (его счёт {score})"
        case PadBound(player=player, pad=pad, was=was):
            return f"Кнопка {who(player)}: {pad} (была {was})"
        case PadAwaited(name=name):
            return f"Нажмите кнопку, которая станет кнопкой {name}"
        case ThemeSkipped(theme=theme, theme_name=name, skipped=skipped):
            return f"Тема {f'«{name}»' if name else theme} пропущена (не сыграно вопросов: {skipped})"
        case ScoreAdjusted(player=player, delta=delta, score=score, reason=reason):
            return f"Счёт исправлен: {who(player)} {delta:+d} → {score} (причина: {reason})"
        case JudgementUndone(player=player, correct=correct, delta=delta, score=score, reason=reason):
            verdict = "«верно»" if correct else "«неверно»"
            return (f"Решение {verdict} отменено: {who(player)} отвечает снова, {delta:+d} → {score} "
                    f"(причина: {reason})")
        case JudgementReversed(player=player, correct=correct, delta=delta, score=score, reason=reason):
            verdict = "верно" if correct else "неверно"
            return (f"Решение изменено: ответ {who(player)} — {verdict}, {delta:+d} → {score} "
                    f"(причина: {reason})")
    notice = describe_notice(event, names, ACTIONS)
    return event.TYPE if notice is None else notice


def _signal_accepted(event: SignalAccepted, names: Mapping[str, str]) -> str:
    text = f"Первый сигнал: {names.get(event.player, event.player)}"
    if event.stop_reading:
        text += " — остановите чтение (можно дать краткую форму)"
    others = event.presses[1:]
    if others:
        text += "; следом " + ", ".join(
            f"{names.get(p.player, p.player)} +{p.behind_ms:.3f} мс" for p in others)
    if event.tie and event.tie_policy is not None:
        text += f" (ничья, решено: {event.tie_policy.value})"
    if event.inputs_lost:
        text += (f"; внимание: нажатия с {', '.join(event.inputs_lost)} могли потеряться "
                 "или прийти без точного времени — проверьте решение")
    return text

