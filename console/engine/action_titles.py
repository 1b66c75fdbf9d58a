"""The host's actions by their Russian names, as the buttons of the host's screen call them.

Contract: `TITLES` maps every host action id of every game to its Russian name («Верно»); an
engine's refusal says the action by it (`console.engine.events.refusal_message`), so the log,
the journal's replay and any page that shows an error's `message` never show a raw id. A game
whose own button calls an action otherwise passes its own names (the sports timer's «Снять
отсчёт»). tests/test_action_titles.py checks that every action has one and that each is the
label of its button on the host's screen (console/data/host-*.js).
"""

from __future__ import annotations

__all__ = ["TITLES"]

TITLES = {
    # «Своя игра» (and the quartet's themes); the corrections of every button game
    "next": "Следующий вопрос",
    "reading_finished": "Вопрос прочитан",
    "name": "Назвать отвечающего",
    "short_form": "Краткая форма дана",
    "answer_started": "Начал отвечать",
    "correct": "Верно",
    "wrong": "Неверно",
    "reset": "Сброс: сигналы снова",
    "cancel": "Снять вопрос",
    "new_game": "Новая игра",
    "end_question": "Закончить без кнопок",
    "end_game": "Закончить бой",
    "skip_theme": "Пропустить тему",
    "next_fight": "Новый бой дальше по пакету",
    "adjust_score": "Поправить счёт",
    "undo": "Отменить решение",
    "reverse": "Пересмотреть решение",
    "rename_player": "Переименовать игрока",
    "add_player": "Добавить игрока",
    "remove_player": "Убрать игрока",
    "bind_pad": "Кнопка нажатием",
    "choose_pack": "Выбрать пакет и раунд",
    # «Брейн-ринг»
    "time": "Время!",
    "pause": "Пауза",
    "resume": "Продолжить отсчёт",
    "new_fight": "Новый бой",
    "rename_team": "Переименовать команду",
    "add_team": "Добавить команду",
    "remove_team": "Убрать команду",
    # «Что? Где? Когда?» at the table
    "pick": "Выбрать сектор",
    "pick_sector": "Выбрать сектор",
    "draw_lototron": "Лототрон",
    "start_timer": "Время!",
    "early_answer": "Досрочный ответ",
    "player_leaves": "Игрок уходит (цейтнот)",
    "answer_correct": "Верно",
    "answer_wrong": "Неверно",
    "fortochka": "Это форточка",
    "extra_time": "Помощь: доп. время",
    "club_help": "Помощь клуба",
    "use_saved_minute": "Сэкономленная минута",
    "move_question": "Перенести конверт",
    "refill": "Новый конверт",
    "hall_correct": "Зал ответил верно",
    "hint_from_hall": "Подсказка из зала",
    "decisive_round": "Решающий раунд",
    "cancel_round": "Снять раунд",
    "correct_round": "Исправить итог раунда",
    # the sports timer
    "start": "Время!",
    # «Эрудит-квартет»
    "start_round": "Начать раунд",
    "name_theme": "Назвать тему",
    "assign": "Расставить игроков",
    "start_theme": "Игроки за столом: начать тему",
    "penalty": "Наказание команде",
    "appeal": "Апелляция принята",
    "absent": "Игрок отсутствует",
    "present": "Игрок вернулся",
    "add_member": "Новый игрок команды",
    "rename_member": "Исправить имя игрока",
}
