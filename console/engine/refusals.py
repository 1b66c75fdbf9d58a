"""Why an engine refuses something: a code for a program, its Russian text in one table.

Contract: an engine never writes a refusal's words itself. It names the reason with a `Why`
code and the values the text needs (`why(Why.NO_PLAYER, player="p9", players="p1, p2")`);
`Reason.text` is the Russian the host reads, from `TEXTS`. A refusal's JSON carries both:
``details.code`` (stable: a program or a page may branch on it) and ``details.reason`` (the
words, which may be reworded). A text cites the seed's clause where a rule says so.
tests/test_refusals.py checks that every code has a text and every text's fields are given.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

__all__ = ["TEXTS", "Reason", "Why", "why"]


class Why(StrEnum):
    """Every reason an engine gives for refusing a host's action, a press or a jury's edit."""

    # shared by the button games
    GAME_OVER_START_NEW = "game_over_start_new"  # «Новая игра» starts the next
    FIGHT_OVER_NEW_GAME = "fight_over_new_game"  # «Новая игра» starts the next
    FIGHT_OVER_NEW_FIGHT = "fight_over_new_fight"  # «Новый бой» starts the next
    FIGHT_ALREADY_OVER = "fight_already_over"
    FIGHT_OVER = "fight_over"
    QUESTION_IN_PLAY = "question_in_play"  # finish or withdraw it first
    NO_QUESTION_IN_PLAY = "no_question_in_play"
    NOBODY_ANSWERING = "nobody_answering"
    NEED_REASON = "need_reason"
    ADJUSTMENT_OUT_OF_RANGE = "adjustment_out_of_range"
    REVERSE_DURING_QUESTION = "reverse_during_question"
    REVERSE_WITHDRAWN = "reverse_withdrawn"
    REVERSE_NOBODY_ANSWERED = "reverse_nobody_answered"
    PAUSE_ONLY_WHILE_COUNTING = "pause_only_while_counting"
    COUNT_NOT_PAUSED = "count_not_paused"
    COUNT_NOT_RUNNING = "count_not_running"
    UNBOUND_PAD_PLAYER = "unbound_pad_player"
    UNBOUND_PAD_TEAM = "unbound_pad_team"
    # names (players, teams, towns, answers)
    NAME_MISSING = "name_missing"
    NAME_TOO_LONG = "name_too_long"
    NAME_TAKEN = "name_taken"
    TEXT_CONTROL_CHARACTERS = "text_control_characters"
    TEXT_DIRECTION_CHARACTERS = "text_direction_characters"
    TEXT_INVISIBLE = "text_invisible"
    # «Своя игра»
    NO_PLAYER = "no_player"
    MAX_PLAYERS = "max_players"
    MIN_PLAYERS = "min_players"
    PAD_NOT_OF_BOX = "pad_not_of_box"
    PAD_TAKEN = "pad_taken"
    PLAYERS_BETWEEN_QUESTIONS = "players_between_questions"
    PACK_BETWEEN_QUESTIONS = "pack_between_questions"
    NOT_READING = "not_reading"
    NAME_NOT_NEEDED_LAMP_CLOCK = "name_not_needed_lamp_clock"
    ANSWERER_ALREADY_NAMED = "answerer_already_named"
    SHORT_FORM_NOT_NEEDED = "short_form_not_needed"
    ANSWER_ALREADY_STARTED = "answer_already_started"
    ANSWER_TIME_OVER = "answer_time_over"
    RESET_ONLY_AFTER_WRONG = "reset_only_after_wrong"
    PACK_PLAYED_OUT = "pack_played_out"
    ALL_BUTTONS_CONNECTED = "all_buttons_connected"
    REVERSE_NO_QUESTION_IN_GAME = "reverse_no_question_in_game"
    REVERSE_ALREADY_SVOYA = "reverse_already_svoya"
    NOTHING_TO_UNDO = "nothing_to_undo"
    # «Брейн-ринг»
    NO_TEAM_OF_FIGHT = "no_team_of_fight"
    MIN_TEAMS = "min_teams"
    TEAMS_BETWEEN_QUESTIONS = "teams_between_questions"
    TEAMS_BEFORE_FIGHT = "teams_before_fight"
    UNDO_ONLY_JUST_GIVEN = "undo_only_just_given"
    REVERSE_NO_QUESTION_IN_FIGHT = "reverse_no_question_in_fight"
    REVERSE_ALREADY = "reverse_already"
    TIME_ONCE_AFTER_READING = "time_once_after_reading"
    TIME_ALREADY_OVER = "time_already_over"
    # «Эрудит-квартет»
    ROUND_NOT_OVER = "round_not_over"
    SHOOTOUT_FIRST = "shootout_first"
    APPEAL_NOWHERE = "appeal_nowhere"
    APPEAL_TEAM_NOT_IN_THEME = "appeal_team_not_in_theme"
    APPEAL_NEEDS_QUESTION = "appeal_needs_question"
    APPEAL_TEAM_DID_NOT_ANSWER = "appeal_team_did_not_answer"
    APPEAL_ALREADY_COUNTED = "appeal_already_counted"
    OPEN_ROUND_THEMES_FIRST = "open_round_themes_first"
    THEME_NAMED_BEFORE_PLAY = "theme_named_before_play"
    THEME_NAMED_BETWEEN_THEMES = "theme_named_between_themes"
    THEME_NAME_MISSING = "theme_name_missing"
    OPEN_ROUND_THEMES_NAMED = "open_round_themes_named"
    NEXT_THEME_ALREADY_NAMED = "next_theme_already_named"
    DARK_ORDER_FIRST = "dark_order_first"
    NO_TEAM_IN_FIGHT = "no_team_in_fight"
    NO_TEAM_IN_FIGHT_OF = "no_team_in_fight_of"
    PLAYERS_BETWEEN_THEMES = "players_between_themes"
    HALF_DARK_ONE_PLAYER = "half_dark_one_player"
    HALF_DARK_THEME_FIRST = "half_dark_theme_first"
    ORDER_FOR_WHOLE_ROUND = "order_for_whole_round"
    ORDER_FIXED = "order_fixed"
    DARK_ORDER_BEFORE_THEME = "dark_order_before_theme"
    NOT_IN_SHOOTOUT = "not_in_shootout"
    SHOOTOUT_THEME_FIRST = "shootout_theme_first"
    SHOOTOUT_ONE_PLAYER = "shootout_one_player"
    NOT_A_PLAYER_OF_TEAM = "not_a_player_of_team"
    NOT_A_PLAYER_OF_TEAM_LISTED = "not_a_player_of_team_listed"
    NOT_A_PLAYER_OF_EMPTY_TEAM = "not_a_player_of_empty_team"
    PLAYER_ABSENT = "player_absent"
    THEME_STARTS_BETWEEN_THEMES = "theme_starts_between_themes"
    THEME_NOT_NAMED = "theme_not_named"
    THEME_PLAYERS_MISSING = "theme_players_missing"
    PENALTY_DURING_THEME = "penalty_during_theme"
    PENALTY_NO_PLAYER = "penalty_no_player"
    PENALTY_KIND_MISSING = "penalty_kind_missing"
    PENALTY_WARNING_FIRST = "penalty_warning_first"
    PENALTY_NO_QUESTION_YET = "penalty_no_question_yet"
    ALREADY_PRESENT = "already_present"
    ALREADY_ABSENT = "already_absent"
    RENAME_WHILE_PLAYING = "rename_while_playing"
    RENAME_SAME = "rename_same"
    THEME_OVER_REVERSE_OR_APPEAL = "theme_over_reverse_or_appeal"
    NO_SUCH_ACTION_QUARTET = "no_such_action_quartet"
    THEME_NOT_IN_PLAY = "theme_not_in_play"
    ORDER_NAMES_EACH_THEME = "order_names_each_theme"
    ORDER_FOUR_DIFFERENT = "order_four_different"
    ORDER_COUNT = "order_count"
    ALREADY_PLAYED_IN_ROUND = "already_played_in_round"
    TEAM_PLAYED_ALL_THEMES = "team_played_all_themes"
    TEAM_MUST_PLAY_THEME = "team_must_play_theme"
    # «Что? Где? Когда?»
    HALL_NOTHING_TO_COUNT = "hall_nothing_to_count"
    LOTOTRON_NO_TEAMS = "lototron_no_teams"
    LOTOTRON_ONLY_AT_START = "lototron_only_at_start"
    TEAM_ALREADY_AT_TABLE = "team_already_at_table"
    LOTOTRON_ALL_DRAWN = "lototron_all_drawn"
    NO_SECTOR_LEFT = "no_sector_left"
    COUNT_ALREADY_RUNNING = "count_already_running"
    EARLY_ANSWER_TO_JUDGE = "early_answer_to_judge"
    TIME_UP_TO_JUDGE = "time_up_to_judge"
    COUNT_ALREADY_PAUSED = "count_already_paused"
    EARLY_ANSWER_BEFORE_COUNT = "early_answer_before_count"
    LEAVE_ONLY_IN_TIME_TROUBLE = "leave_only_in_time_trouble"
    LEAVE_BEFORE_COUNT = "leave_before_count"
    ONE_PLAYER_LEFT = "one_player_left"
    DISCUSSION_NOT_STARTED = "discussion_not_started"
    FORTOCHKA_ALREADY = "fortochka_already"
    FORTOCHKA_PLACED = "fortochka_placed"
    FORTOCHKA_NUMBERED_ONLY = "fortochka_numbered_only"
    FORTOCHKA_LAST_ROUND = "fortochka_last_round"
    NOTHING_TO_CHOOSE = "nothing_to_choose"
    CORRECTION_NEEDS_REASON = "correction_needs_reason"
    CORRECTION_ROUND_IN_PLAY = "correction_round_in_play"
    NO_ROUND_IN_GAME = "no_round_in_game"
    ROUND_SET_BY_RULES = "round_set_by_rules"
    ROUND_FORTOCHKA_BY_RULES = "round_fortochka_by_rules"
    ROUND_HINT_BY_RULES = "round_hint_by_rules"
    CORRECTION_AFTER_DECISIVE = "correction_after_decisive"
    CORRECTION_AFTER_PICK = "correction_after_pick"
    POINT_ALREADY_TEAM = "point_already_team"
    POINT_ALREADY_CLUB = "point_already_club"
    ROUND_STOPPED_EARLY = "round_stopped_early"
    REFILL_ONLY_IN_FINAL = "refill_only_in_final"
    REFILL_ROUNDS = "refill_rounds"
    SECTOR_STILL_FULL = "sector_still_full"
    NO_DECISIVE_ROUND = "no_decisive_round"
    DECISIVE_ALREADY = "decisive_already"
    DECISIVE_SCORE = "decisive_score"
    DECISIVE_NOT_NEEDED = "decisive_not_needed"
    HALL_TEAM_MISSING = "hall_team_missing"
    HALL_TEAM_AT_TABLE = "hall_team_at_table"
    ROUND_NOT_PLAYED = "round_not_played"
    ROUND_HAS_NO_PART = "round_has_no_part"
    HALL_ALREADY_COUNTED = "hall_already_counted"
    HELP_NOT_AT_TABLE = "help_not_at_table"
    HELP_USED = "help_used"
    HELP_ONLY_BEHIND = "help_only_behind"
    NO_MINUTE_SAVED = "no_minute_saved"
    HELP_NOT_IN_TIME_TROUBLE = "help_not_in_time_trouble"
    EARLY_ANSWER_NOTHING_TO_EXTEND = "early_answer_nothing_to_extend"
    MOVE_BEFORE_LAST_ROUND = "move_before_last_round"
    MOVE_SAME_SECTOR = "move_same_sector"
    MOVE_SECTOR_PLAYED = "move_sector_played"
    ROUND_IN_PLAY = "round_in_play"
    NO_ROUND_IN_PLAY = "no_round_in_play"
    SECTOR_MISSING = "sector_missing"
    NO_SUCH_SECTOR = "no_such_sector"
    NO_TEAM = "no_team"
    # the sports stage (seed 003)
    TIMER_ACTIONS_ONLY = "timer_actions_only"
    QUESTION_STILL_RUNNING = "question_still_running"
    UNKNOWN_SHEET_ACTION = "unknown_sheet_action"
    SHEET_WHY_MISSING = "sheet_why_missing"
    SHEET_WHY_TOO_LONG = "sheet_why_too_long"
    TEAM_NAME_MISSING = "team_name_missing"
    TEAM_NAME_TOO_LONG = "team_name_too_long"
    TEAM_NAME_TAKEN = "team_name_taken"
    TOWN_TOO_LONG = "town_too_long"
    ANSWER_TOO_LONG = "answer_too_long"
    SHEET_CLOSED = "sheet_closed"
    SHEET_NOT_CLOSED = "sheet_not_closed"
    MAX_TEAMS = "max_teams"
    TEAM_NUMBER_RANGE = "team_number_range"
    TEAM_NUMBER_TAKEN = "team_number_taken"
    TOUR_RANGE = "tour_range"
    TOUR_MASK = "tour_mask"
    MASK_DISPUTED = "mask_disputed"
    CELL_VALUE_MISSING = "cell_value_missing"
    NOT_IN_QUESTION_SHOOTOUT = "not_in_question_shootout"
    CELL_DISPUTED = "cell_disputed"
    NOT_DISPUTED = "not_disputed"
    DECISION_VALUE = "decision_value"
    DISPUTES_BETWEEN_TOURS = "disputes_between_tours"
    APPEAL_OPEN_ALREADY = "appeal_open_already"
    APPEAL_ANSWER_COUNTED = "appeal_answer_counted"
    APPEAL_NO_ANSWER_TEXT = "appeal_no_answer_text"
    APPEAL_NOT_SIMILAR = "appeal_not_similar"
    TEAM_NUMBER_MISSING = "team_number_missing"
    NO_TEAM_NUMBER = "no_team_number"
    APPEAL_NOT_OPEN = "appeal_not_open"
    QUESTION_ALREADY_DROPPED = "question_already_dropped"
    QUESTION_NOT_DROPPED = "question_not_dropped"
    DISPUTES_UNDECIDED = "disputes_undecided"
    APPEAL_UNDECIDED = "appeal_undecided"
    SHOOTOUT_UNPLAYED = "shootout_unplayed"
    SHOOTOUT_TEAMS = "shootout_teams"
    QUESTION_NUMBER_RANGE = "question_number_range"
    QUESTION_NUMBER_MISSING = "question_number_missing"


# The host's words for each code: `str.format` templates, filled from `Reason.args`.
TEXTS: Final[Mapping[Why, str]] = {
    Why.GAME_OVER_START_NEW: "игра окончена: следующую начните кнопкой «Новая игра»",
    Why.FIGHT_OVER_NEW_GAME: "бой окончен: следующий начните кнопкой «Новая игра»",
    Why.FIGHT_OVER_NEW_FIGHT: "бой окончен: следующий начните кнопкой «Новый бой»",
    Why.FIGHT_ALREADY_OVER: "бой уже окончен",
    Why.FIGHT_OVER: "бой окончен",
    Why.QUESTION_IN_PLAY: "идёт вопрос (сначала доиграйте или снимите его)",
    Why.NO_QUESTION_IN_PLAY: "вопрос не идёт",
    Why.NOBODY_ANSWERING: "никто не отвечает",
    Why.NEED_REASON: "нужна причина",
    Why.ADJUSTMENT_OUT_OF_RANGE: "поправка — целое число, не ноль и не больше {most} по модулю",
    Why.REVERSE_DURING_QUESTION: "идёт вопрос: решение меняют после вопроса, до следующего",
    Why.REVERSE_WITHDRAWN: "последний вопрос снят (счёт правят кнопкой «Поправить счёт»)",
    Why.REVERSE_NOBODY_ANSWERED: "на сыгранный вопрос никто не отвечал",
    Why.PAUSE_ONLY_WHILE_COUNTING: "паузу берут, пока идёт отсчёт",
    Why.COUNT_NOT_PAUSED: "отсчёт не на паузе",
    Why.COUNT_NOT_RUNNING: "отсчёт не идёт",
    Why.UNBOUND_PAD_PLAYER: "нажата кнопка «{pad}», за которой не закреплён игрок",
    Why.UNBOUND_PAD_TEAM: "нажата кнопка «{pad}», за которой не закреплена команда",

    Why.NAME_MISSING: "нужно {word}",
    Why.NAME_TOO_LONG: "{word} длиннее {most} знаков",
    Why.NAME_TAKEN: "{who} «{name}» уже есть",
    Why.TEXT_CONTROL_CHARACTERS: ("{word} с управляющими символами (перевод строки, NUL, escape) — наберите "
                                  "его заново"),
    Why.TEXT_DIRECTION_CHARACTERS: "{word} с символами смены направления текста — наберите его заново",
    Why.TEXT_INVISIBLE: "{word} из одних невидимых символов — нужно видимое {word}",

    Why.NO_PLAYER: "нет игрока «{player}» (игроки: {players})",
    Why.MAX_PLAYERS: "в бою не больше 4 игроков (прил. 1)",
    Why.MIN_PLAYERS: "в бою не меньше 2 игроков (прил. 1)",
    Why.PAD_NOT_OF_BOX: "кнопка «{pad}» — не кнопка пульта (источник:номер, источники: {sources})",
    Why.PAD_TAKEN: "кнопка «{pad}» уже у игрока {owner}",
    Why.PLAYERS_BETWEEN_QUESTIONS: "идёт вопрос (игроков меняют между вопросами)",
    Why.PACK_BETWEEN_QUESTIONS: "идёт вопрос (пакет меняют между вопросами)",
    Why.NOT_READING: "сейчас не читается ни один вопрос",
    Why.NAME_NOT_NEEDED_LAMP_CLOCK: ("3 секунды на ответ идут с момента, когда загорелась лампа: "
                                     "отвечающего называть не нужно"),
    Why.ANSWERER_ALREADY_NAMED: "отвечающий уже назван",
    Why.SHORT_FORM_NOT_NEEDED: "вопрос дочитан до конца: краткая форма не нужна (прил. 6)",
    Why.ANSWER_ALREADY_STARTED: "ответ уже начат",
    Why.ANSWER_TIME_OVER: "3 секунды уже истекли",
    Why.RESET_ONLY_AFTER_WRONG: "сброс нужен только после неверного ответа (прил. 9)",
    Why.PACK_PLAYED_OUT: "пакет сыгран до конца: «Новая игра» начнёт его сначала",
    Why.ALL_BUTTONS_CONNECTED: "все кнопки на связи: вопрос идёт как обычно",
    Why.REVERSE_NO_QUESTION_IN_GAME: "с начала игры не сыграно ни одного вопроса",
    Why.REVERSE_ALREADY_SVOYA: ("решение по этому вопросу уже пересмотрено, а решения по апелляциям "
                                "не пересматриваются (004 4.3)"),
    Why.NOTHING_TO_UNDO: ("нечего отменять: после решения игра уже пошла дальше "
                          "(сброс, следующий вопрос или снятие); после вопроса — «Пересмотреть решение»"),

    Why.NO_TEAM_OF_FIGHT: "нет команды «{team}» (команды: {teams})",
    Why.MIN_TEAMS: "в бою не меньше 2 команд (§5)",
    Why.TEAMS_BETWEEN_QUESTIONS: "идёт вопрос (команды меняют между вопросами)",
    Why.TEAMS_BEFORE_FIGHT: ("команды добавляют и убирают перед боем, до его первого вопроса "
                             "(начните «Новый бой»)"),
    Why.UNDO_ONLY_JUST_GIVEN: "отменить можно только что данное решение, пока ничего не случилось после него",
    Why.REVERSE_NO_QUESTION_IN_FIGHT: "в этом бою не сыграно ни одного вопроса",
    Why.REVERSE_ALREADY: "решение по этому вопросу уже пересмотрено",
    Why.TIME_ONCE_AFTER_READING: "«Время!» дают после чтения вопроса, один раз",
    Why.TIME_ALREADY_OVER: "время уже вышло",

    Why.ROUND_NOT_OVER: "раунд ещё не окончен",
    Why.SHOOTOUT_FIRST: "сначала нужна перестрелка за место (3.10)",
    Why.APPEAL_NOWHERE: ("апелляцию подают сразу после темы, до начала чтения следующей (4.1): "
                         "сейчас её некуда отнести"),
    Why.APPEAL_TEAM_NOT_IN_THEME: "команда «{team}» не играла тему «{theme}» ({seats})",
    Why.APPEAL_NEEDS_QUESTION: "укажите номер вопроса в теме и решение жюри (4.1)",
    Why.APPEAL_TEAM_DID_NOT_ANSWER: "команда «{team}» не отвечала на вопрос {question} темы «{theme}»",
    Why.APPEAL_ALREADY_COUNTED: "ответ команды «{team}» на вопрос {question} уже засчитан",
    Why.OPEN_ROUND_THEMES_FIRST: "ведущий называет {themes} темы открытого раунда до его начала (3.6.1)",
    Why.THEME_NAMED_BEFORE_PLAY: ("в {round} раунде каждую тему называют перед тем, как её играть "
                                  "(3.6.2, 3.6.3)"),
    Why.THEME_NAMED_BETWEEN_THEMES: "тему называют между темами (или для перестрелки)",
    Why.THEME_NAME_MISSING: "нужно название темы (в пакете тем больше нет)",
    Why.OPEN_ROUND_THEMES_NAMED: "темы открытого раунда названы до его начала (3.6.1)",
    Why.NEXT_THEME_ALREADY_NAMED: "следующая тема уже названа («{theme}»)",
    Why.DARK_ORDER_FIRST: ("в тёмном раунде сначала все команды называют порядок игроков (3.6.3): "
                           "ждём {waiting}"),
    Why.NO_TEAM_IN_FIGHT: "в этом бою нет команды «{team}»",
    Why.NO_TEAM_IN_FIGHT_OF: "в этом бою нет команды «{team}» ({teams})",
    Why.PLAYERS_BETWEEN_THEMES: "игроков расставляют между темами раунда",
    Why.HALF_DARK_ONE_PLAYER: ("в полутёмном раунде команда выбирает одного игрока на названную тему "
                               "(3.6.2): укажите игрока"),
    Why.HALF_DARK_THEME_FIRST: "сначала ведущий называет тему, потом у команды 20 секунд на выбор (3.6.2)",
    Why.ORDER_FOR_WHOLE_ROUND: ("в {round} раунде команда называет порядок игроков на весь раунд "
                                "({clause}): укажите игрока на каждую тему"),
    Why.ORDER_FIXED: "порядок выхода игроков в ходе раунда менять нельзя ({clause})",
    Why.DARK_ORDER_BEFORE_THEME: ("в тёмном раунде порядок игроков называют до того, как ведущий назовёт "
                                  "первую тему (3.6.3)"),
    Why.NOT_IN_SHOOTOUT: "команда «{team}» не участвует в перестрелке ({pending})",
    Why.SHOOTOUT_THEME_FIRST: ("сначала ведущий называет тему перестрелки, потом 20 секунд на выбор "
                               "игрока (3.10)"),
    Why.SHOOTOUT_ONE_PLAYER: "в перестрелке от команды играет один игрок: укажите его (3.10)",
    Why.NOT_A_PLAYER_OF_TEAM: "«{player}» не игрок команды «{team}»",
    Why.NOT_A_PLAYER_OF_TEAM_LISTED: "«{player}» не игрок команды «{team}» ({players})",
    Why.NOT_A_PLAYER_OF_EMPTY_TEAM: "«{player}» не игрок команды «{team}» (игроков нет)",
    Why.PLAYER_ABSENT: "{player} отсутствует (3.8)",
    Why.THEME_STARTS_BETWEEN_THEMES: "тему начинают между темами (или для перестрелки)",
    Why.THEME_NOT_NAMED: "сначала ведущий называет тему (3.6.2, 3.6.3)",
    Why.THEME_PLAYERS_MISSING: "не назван игрок на эту тему от команд: {teams}",
    Why.PENALTY_DURING_THEME: "наказание назначают, пока идёт тема (3.5)",
    Why.PENALTY_NO_PLAYER: "у команды «{team}» нет игрока за столом в этой теме (3.5)",
    Why.PENALTY_KIND_MISSING: ("выберите наказание: предупреждение, ответ не засчитан или минус "
                               "стоимость вопроса (3.5)"),
    Why.PENALTY_WARNING_FIRST: ("за первое нарушение — предупреждение; незачёт ответа или минус — за "
                                "повторное или грубое (3.5): для грубого отметьте «Грубое нарушение»"),
    Why.PENALTY_NO_QUESTION_YET: ("в этой теме ещё не задан ни один вопрос, а наказание — незачёт ответа "
                                  "или минус стоимость текущего вопроса (3.5)"),
    Why.ALREADY_PRESENT: "{player} уже в списке присутствующих",
    Why.ALREADY_ABSENT: "{player} уже в списке отсутствующих",
    Why.RENAME_WHILE_PLAYING: "{player} играет эту тему: имя поправляется после неё",
    Why.RENAME_SAME: "игрока уже зовут «{name}»",
    Why.THEME_OVER_REVERSE_OR_APPEAL: ("тема уже окончена: решение по её последнему вопросу меняют "
                                       "«Пересмотреть решение» или апелляцией (4.1)"),
    Why.NO_SUCH_ACTION_QUARTET: "в «Эрудит-квартете» бой идёт по раундам и темам: этого действия у него нет",
    Why.THEME_NOT_IN_PLAY: "тема сейчас не идёт (сначала «Игроки за столом: начать тему»)",
    Why.ORDER_NAMES_EACH_THEME: "порядок называет игрока (или никого) на каждую из {themes} тем ({clause})",
    Why.ORDER_FOUR_DIFFERENT: ("в раунде играют четыре разных игрока: один игрок не может играть две темы "
                               "(3.4)"),
    Why.ORDER_COUNT: ("команда «{team}» играет в этом раунде тем: {plays}, по числу игроков на месте "
                      "(3.4, 3.8); в порядке названо игроков: {named}"),
    Why.ALREADY_PLAYED_IN_ROUND: ("{player} уже играл(а) в этом раунде: в раунде играют четыре разных "
                                  "игрока (3.4)"),
    Why.TEAM_PLAYED_ALL_THEMES: ("команда «{team}» уже сыграла все свои темы в этом раунде ({plays}) "
                                 "и пропускает эту (3.8)"),
    Why.TEAM_MUST_PLAY_THEME: ("команда «{team}» должна играть эту тему: игроков на месте, ещё не "
                               "игравших в раунде, — {to_play}, тем осталось — {left} (3.4, 3.8)"),

    Why.HALL_NOTHING_TO_COUNT: "не осталось ответа зала, который можно засчитать",
    Why.LOTOTRON_NO_TEAMS: "для лототрона не заданы команды",
    Why.LOTOTRON_ONLY_AT_START: "команду вытягивают в начале игры, до её первого раунда (000 2.1)",
    Why.TEAM_ALREADY_AT_TABLE: "команда «{team}» уже за столом",
    Why.LOTOTRON_ALL_DRAWN: "все команды уже вытянуты",
    Why.NO_SECTOR_LEFT: "на столе не осталось сектора, который можно сыграть",
    Why.COUNT_ALREADY_RUNNING: "отсчёт уже идёт",
    Why.EARLY_ANSWER_TO_JUDGE: "объявлен досрочный ответ: оцените его",
    Why.TIME_UP_TO_JUDGE: "время вышло: оцените ответ",
    Why.COUNT_ALREADY_PAUSED: "отсчёт уже на паузе",
    Why.EARLY_ANSWER_BEFORE_COUNT: "капитан объявляет досрочный ответ до начала отсчёта (003 6.1.5)",
    Why.LEAVE_ONLY_IN_TIME_TROUBLE: ("игроки выходят из-за стола ради времени только на «цейтноте» "
                                     "(000 4.2 в)"),
    Why.LEAVE_BEFORE_COUNT: "игроки выходят до начала отсчёта (000 4.2 в)",
    Why.ONE_PLAYER_LEFT: "за столом остался один игрок",
    Why.DISCUSSION_NOT_STARTED: "обсуждение не началось: сначала «Время!» или досрочный ответ",
    Why.FORTOCHKA_ALREADY: "форточка выпадает раз за игру и уже выпала (000 4.2 д)",
    Why.FORTOCHKA_PLACED: "место форточки задано заранее (сектор {sector})",
    Why.FORTOCHKA_NUMBERED_ONLY: ("форточкой может оказаться только что вскрытый конверт номерного "
                                  "сектора (000 4.2 д)"),
    Why.FORTOCHKA_LAST_ROUND: "в последнем раунде форточку не играют, а другого сектора не осталось",
    Why.NOTHING_TO_CHOOSE: "выбирать не из чего",
    Why.CORRECTION_NEEDS_REASON: "для исправления нужна причина",
    Why.CORRECTION_ROUND_IN_PLAY: ("идёт раунд {round}: исправляют итог уже оценённого раунда, "
                                   "и только до выбора следующего сектора"),
    Why.NO_ROUND_IN_GAME: "в этой игре не сыграно ни одного раунда",
    Why.ROUND_SET_BY_RULES: "итог раунда {round} задан правилами, а не оценкой ответа: {rule}",
    Why.ROUND_FORTOCHKA_BY_RULES: ("итог раунда {round} задан правилами, а не оценкой ответа: это форточка: "
                                   "её очко по правилам следует за ответом в предыдущем раунде (000 4.2 д)"),
    Why.ROUND_HINT_BY_RULES: ("итог раунда {round} задан правилами, а не оценкой ответа: после подсказки из "
                              "зала раунд по правилам проигран (000 6.4)"),
    Why.CORRECTION_AFTER_DECISIVE: ("раунд {round} исправить уже нельзя: после него взят решающий раунд "
                                    "(003 6.4)"),
    Why.CORRECTION_AFTER_PICK: "раунд {round} исправить уже нельзя: после него уже выбран сектор",
    Why.POINT_ALREADY_TEAM: "очко раунда {round} и так у знатоков",
    Why.POINT_ALREADY_CLUB: "очко раунда {round} и так у стороны «{opponent}»",
    Why.ROUND_STOPPED_EARLY: ("раунд {round} остановлен на вопросе {asked} из {parts}: "
                              "остальные вопросы не задавались, очко знатокам отдать нельзя"),
    Why.REFILL_ONLY_IN_FINAL: ("освободившиеся сектора заполняют только в финале (000 3.8.1); сейчас — "
                               "{stage}"),
    Why.REFILL_ROUNDS: ("конверты докладывают после раундов с 1-го по {until}-й (000 3.8.1); "
                        "сыграно раундов: {played}"),
    Why.SECTOR_STILL_FULL: "на секторе {sector} ещё лежит конверт",
    Why.NO_DECISIVE_ROUND: "за этим столом решающего раунда нет (003 6.4)",
    Why.DECISIVE_ALREADY: "решающий раунд уже взят",
    Why.DECISIVE_SCORE: "решающий раунд берут, набрав {at} очков (003 6.4); у знатоков {team}",
    Why.DECISIVE_NOT_NEEDED: ("решающий раунд берут, только когда без него знатокам не обойти соперников "
                              "(003 6.4): при счёте {team}:{club} и оставшихся секторах ({left}) ещё можно"),
    Why.HALL_TEAM_MISSING: "укажите команду зала",
    Why.HALL_TEAM_AT_TABLE: "«{team}» играет за столом, а не в зале",
    Why.ROUND_NOT_PLAYED: "раунд {round} не сыгран",
    Why.ROUND_HAS_NO_PART: "в раунде {round} нет вопроса {part}",
    Why.HALL_ALREADY_COUNTED: "«{team}»: этот ответ уже засчитан",
    Why.HELP_NOT_AT_TABLE: "«{help}» за этим столом нет",
    Why.HELP_USED: "«{help}»: эта помощь даётся раз за игру и уже использована (000 6.1-6.2)",
    Why.HELP_ONLY_BEHIND: ("эту помощь берут только при отставании в счёте (000 6.1-6.2, 003 6.3.3); "
                           "счёт {team}:{club}"),
    Why.NO_MINUTE_SAVED: "досрочным ответом не сэкономлено ни минуты (003 6.1.5)",
    Why.HELP_NOT_IN_TIME_TROUBLE: "на «цейтноте» помощь не действует (000 6.1-6.2)",
    Why.EARLY_ANSWER_NOTHING_TO_EXTEND: "объявлен досрочный ответ: продлевать нечего",
    Why.MOVE_BEFORE_LAST_ROUND: ("вопрос не переносят перед раундом, который может оказаться последним "
                                 "(003 6.3.1)"),
    Why.MOVE_SAME_SECTOR: "конверт переносят на другой сектор, а выбран тот же",
    Why.MOVE_SECTOR_PLAYED: "сектор {sector} уже сыгран: конверта на нём нет",
    Why.ROUND_IN_PLAY: "идёт раунд {round} в секторе {sector} (сначала доиграйте или снимите его)",
    Why.NO_ROUND_IN_PLAY: "раунд не идёт (сначала выбирают сектор)",
    Why.SECTOR_MISSING: "укажите сектор ({name})",
    Why.NO_SUCH_SECTOR: "на столе из {sectors} секторов нет сектора {sector}",
    Why.NO_TEAM: "нет команды «{team}»",

    Why.TIMER_ACTIONS_ONLY: "спортивный секундомер принимает от ведущего только «Время!» и «Снять отсчёт»",
    Why.QUESTION_STILL_RUNNING: "вопрос {question} ещё идёт ({phase})",
    Why.UNKNOWN_SHEET_ACTION: "неизвестное действие {action}",
    Why.SHEET_WHY_MISSING: "нужна причина: она остаётся в протоколе",
    Why.SHEET_WHY_TOO_LONG: "причина длиннее {most} знаков",
    Why.TEAM_NAME_MISSING: "нужно название команды",
    Why.TEAM_NAME_TOO_LONG: "название длиннее {most} знаков",
    Why.TEAM_NAME_TAKEN: "команда «{name}» уже есть",
    Why.TOWN_TOO_LONG: "город длиннее {most} знаков",
    Why.ANSWER_TOO_LONG: "ответ длиннее {most} знаков",
    Why.SHEET_CLOSED: "протокол закрыт: сначала «Открыть протокол»",
    Why.SHEET_NOT_CLOSED: "протокол не закрыт",
    Why.MAX_TEAMS: "команд уже {most}",
    Why.TEAM_NUMBER_RANGE: "номер команды {number}: от 1 до 9999",
    Why.TEAM_NUMBER_TAKEN: "команда с номером {number} уже есть («{name}»)",
    Why.TOUR_RANGE: "тур {tour}: от 1 до {tours}",
    Why.TOUR_MASK: "ответы за тур — {per} знаков из 1, 0 и ?, получено «{mask}»",
    Why.MASK_DISPUTED: ("ответ на вопрос {question} спорный: его решают «Решением по спорному» "
                        "с причиной (003 5.4.2); в маске оставьте «?»"),
    Why.CELL_VALUE_MISSING: "нужен ответ: 1, 0 или ?",
    Why.NOT_IN_QUESTION_SHOOTOUT: "команда {team} не играет в перестрелке на вопросе {question}",
    Why.CELL_DISPUTED: "ответ спорный: его решают «Решением по спорному» с причиной (003 5.4.2)",
    Why.NOT_DISPUTED: "ответ команды {team} на вопрос {question} не спорный",
    Why.DECISION_VALUE: "решение по спорному: 1 (засчитан) или 0 (не засчитан)",
    Why.DISPUTES_BETWEEN_TOURS: ("решения по спорным ответам принимаются между турами (003 5.4.2): "
                                 "идёт тур {tour}"),
    Why.APPEAL_OPEN_ALREADY: "уже рассматривается апелляция команды {team} на вопрос {question}",
    Why.APPEAL_ANSWER_COUNTED: "ответ команды {team} на вопрос {question} уже засчитан",
    Why.APPEAL_NO_ANSWER_TEXT: "нет текста ответа команды {team} на вопрос {question}: введите его",
    Why.APPEAL_NOT_SIMILAR: "команды {teams} не в списке похожих ответов",
    Why.TEAM_NUMBER_MISSING: "нужен номер команды",
    Why.NO_TEAM_NUMBER: "нет команды с номером {number}",
    Why.APPEAL_NOT_OPEN: "апелляция не открыта",
    Why.QUESTION_ALREADY_DROPPED: "вопрос {question} уже снят",
    Why.QUESTION_NOT_DROPPED: "вопрос {question} не снят",
    Why.DISPUTES_UNDECIDED: "не решены спорные ответы: {count}",
    Why.APPEAL_UNDECIDED: "не решена апелляция",
    Why.SHOOTOUT_UNPLAYED: "не сыграна перестрелка за выход в победители: команды {teams} (003 5.5)",
    Why.SHOOTOUT_TEAMS: "в перестрелке на вопросе {question} играют команды {playing}, не {stray}",
    Why.QUESTION_NUMBER_RANGE: "вопрос {question}: от 1 до {last}",
    Why.QUESTION_NUMBER_MISSING: "нужен номер вопроса",
}


@dataclass(frozen=True, slots=True)
class Reason:
    """Why something was refused: `code`, and the values its text is filled with."""

    code: Why
    args: Mapping[str, str | int | None] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """The host's words (Russian): the code's template filled with `args`."""
        return TEXTS[self.code].format_map(self.args)

    def __str__(self) -> str:
        return self.text


def why(code: Why, **args: str | int | None) -> Reason:
    """The reason `code`, its text filled with `args` (`why(Why.NO_TEAM, team="t9")`)."""
    return Reason(code, args)
