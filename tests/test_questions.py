"""Question packages in the db.chgk.info text format, and the «12-й сектор» picker."""

from __future__ import annotations

from pathlib import Path

import pytest

from console.engine.chgk.question_draw import NO_QUESTION_FILE, QuestionDeck, QuestionPool
from console.games.chgk.questions import (
    Question,
    QuestionFileError,
    load_questions,
    parse_package,
    question_pool,
)

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "questions" / "sample.txt"
SAMPLE_KOI8R = ROOT / "examples" / "questions" / "sample-koi8r.txt"

MINIMAL = """\
Чемпионат:
Кубок примера

Вопрос 1:
Текст.

Ответ:
Да.
"""


def error_of(text: str, name: str = "pack.txt") -> QuestionFileError:
    with pytest.raises(QuestionFileError) as info:
        parse_package(text, name)
    return info.value


# --- the shipped fixtures -----------------------------------------------------------------


def test_the_sample_package_has_two_tours_of_four_questions() -> None:
    questions = load_questions(SAMPLE)
    assert [(q.tour, q.number) for q in questions] == [
        ("1 тур", "1"), ("1 тур", "2"), ("1 тур", "3"), ("1 тур", "4"),
        ("2 тур", "1"), ("2 тур", "2"), ("2 тур", "3"), ("2 тур", "4"),
    ]
    assert {q.tournament for q in questions} == {"Учебный пакет chgk-console"}
    assert {q.date for q in questions} == {"15-Mar-2025"}


def test_every_field_of_a_question_is_mapped() -> None:
    q = load_questions(SAMPLE)[2]
    assert q == Question(
        number="3",
        text="Перед вами созвездие, по двум звездам которого моряки находили "
             "Полярную звезду. Назовите это созвездие двумя словами.",
        answer="Большая Медведица.",
        accepted="Большой Ковш.",
        rejected="Малая Медведица.",
        comment='Прямая через две крайние звезды "ковша" указывает на Полярную звезду.',
        sources="https://ru.wikipedia.org/wiki/Большая_Медведица",
        authors="Пётр Примеров (Тестоград)",
        tournament="Учебный пакет chgk-console",
        tour="1 тур",
        date="15-Mar-2025",
        editor="Анна Образцова (Тестоград)",
        handout=None,
        images=("123.jpg",),
    )
    assert q.extra == {}


def test_the_handout_is_cut_out_of_the_question_text() -> None:
    q = load_questions(SAMPLE)[1]
    assert q.handout == "ИЮЛЬ\nАВГУСТ"
    assert q.text == ("Названия этих месяцев пришли в русский язык из латыни и происходят от "
                      "имен двух римлян. Назовите любого из них.")
    assert "раздатка" not in q.text
    assert q.images == ()


def test_the_picture_is_cut_out_of_the_question_text() -> None:
    q = load_questions(SAMPLE)[2]
    assert q.images == ("123.jpg",)
    assert "pic" not in q.text
    assert q.text.startswith("Перед вами")


def test_hard_line_breaks_are_joined_and_paragraphs_and_lists_kept() -> None:
    """Issue 19: the base wraps its text at 70-80 characters; the host reads paragraphs. A
    wrapped line goes on with the next, an indented line starts a paragraph, short lines (a
    list, verse) keep their breaks."""
    q = load_questions(SAMPLE)[3]
    assert q.text == (
        'В XIX веке первым "вокзалом" в России называли не станцию, а '
        "музыкальный павильон в Павловске.\n"
        "Свое название он получил в подражание увеселительному саду в одной "
        "европейской столице. Назовите эту столицу."
    )
    last = load_questions(SAMPLE)[-1]
    assert last.comment == ("Два жаберных сердца гонят кровь через жабры, третье - по всему телу. "
                            "Кровь голубая из-за гемоцианина, в котором есть медь.")
    # An indented list loses its common indentation, not its lines.
    assert last.sources == ("1. https://ru.wikipedia.org/wiki/Осьминоги\n"
                            "2. https://ru.wikipedia.org/wiki/Гемоцианин")


def test_verse_keeps_its_lines_and_an_editors_note_is_kept_out_of_the_text() -> None:
    text = ("Чемпионат:\nПакет\n\nВопрос 1:\n   Мороз и солнце;\nдень чудесный!\n"
            "z-checkdb: проверить источник\nЕщё ты дремлешь, друг прелестный.\n\n"
            "Ответ:\nПушкин.\nz-checkdb: дубль вопроса 5 тура 2\n\n")
    (q,) = parse_package(text)
    assert q.text == "Мороз и солнце;\nдень чудесный!\nЕщё ты дремлешь, друг прелестный."
    assert q.answer == "Пушкин."
    assert "z-checkdb" not in q.text and "checkdb" not in (q.answer or "")
    assert "проверить источник" in q.extra["z-checkdb"]


def test_field_name_variants_of_the_sample() -> None:
    questions = load_questions(SAMPLE)
    assert questions[0].accepted == "Ga."  # Зачет:
    assert questions[1].accepted == "Юлий Цезарь; Цезарь; Октавиан Август; Август."  # Зачёт:
    assert questions[2].rejected == "Малая Медведица."  # Незачёт:
    assert questions[-1].authors == "Анна Образцова, Пётр Примеров (Тестоград)"  # Авторы:
    assert questions[-1].sources is not None and questions[-1].sources.startswith("1. ")  # Источники:


def test_a_tour_editor_overrides_the_package_editor_for_that_tour_only() -> None:
    editors = [(q.tour, q.editor) for q in load_questions(SAMPLE)]
    assert editors[0] == ("1 тур", "Анна Образцова (Тестоград)")
    assert editors[4] == ("2 тур", "Пётр Примеров (Тестоград)")


def test_the_koi8r_copy_gives_the_same_questions_as_the_utf8_package() -> None:
    raw = SAMPLE_KOI8R.read_bytes()
    with pytest.raises(UnicodeDecodeError):
        raw.decode("utf-8")  # so the detection is really exercised
    koi8 = load_questions(SAMPLE_KOI8R)
    utf8 = load_questions(SAMPLE)
    assert len(koi8) == 3
    assert koi8 == utf8[: len(koi8)]


def test_source_line_of_a_sample_question() -> None:
    assert load_questions(SAMPLE)[2].source_line() == (
        "«Учебный пакет chgk-console», 1 тур, вопрос 3 (15-Mar-2025); автор: Пётр Примеров (Тестоград)"
    )


FULL = ("Кубок", "Тур 2", "01-Jan-2024", "Анна")


@pytest.mark.parametrize(("tournament", "tour", "date", "authors", "expected"), [
    (*FULL, "«Кубок», Тур 2, вопрос 7 (01-Jan-2024); автор: Анна"),
    (None, "Тур 2", "01-Jan-2024", "Анна", "Тур 2, вопрос 7 (01-Jan-2024); автор: Анна"),
    ("Кубок", None, "01-Jan-2024", "Анна", "«Кубок», вопрос 7 (01-Jan-2024); автор: Анна"),
    ("Кубок", "Тур 2", None, "Анна", "«Кубок», Тур 2, вопрос 7; автор: Анна"),
    ("Кубок", "Тур 2", "01-Jan-2024", None, "«Кубок», Тур 2, вопрос 7 (01-Jan-2024)"),
    (None, None, None, None, "Вопрос 7"),
    ("«Кубок»", "Тур 2", "01-Jan-2024", "Анна", "«Кубок», Тур 2, вопрос 7 (01-Jan-2024); автор: Анна"),
    ("Кубок\nпримера", "Тур 2", "01-Jan-2024", "Анна,\nБорис",
     "«Кубок примера», Тур 2, вопрос 7 (01-Jan-2024); автор: Анна, Борис"),
])
def test_source_line_omits_missing_parts(
    tournament: str | None, tour: str | None, date: str | None, authors: str | None, expected: str
) -> None:
    q = Question(number="7", text="?", answer="!", tournament=tournament, tour=tour, date=date,
                 authors=authors)
    assert q.source_line() == expected


# --- format variants ----------------------------------------------------------------------


@pytest.mark.parametrize(("header", "number"), [
    ("Вопрос 1:", "1"),
    ("Вопрос 12.", "12"),
    ("Вопрос 3 :", "3"),
    ("Вопрос 4.:", "4"),
    ("Вопрос 2.1:", "2.1"),
    ("Вопрос №5:", "5"),
    ("Вопрос 6", "6"),
    ("ВОПРОС 7:", "7"),
])
def test_question_number_variants(header: str, number: str) -> None:
    [q] = parse_package(f"{header}\nТекст.\n\nОтвет:\nДа.\n")
    assert (q.number, q.text, q.answer) == (number, "Текст.", "Да.")


def test_values_may_start_on_the_field_line_and_names_may_have_a_space_before_the_colon() -> None:
    [q] = parse_package("Чемпионат: Кубок\n\nВопрос 1: Сколько?\nВсего?\n\n"
                        "Ответ : Три.\n\nЗачёт:Три штуки.\n")
    assert (q.tournament, q.text, q.answer, q.accepted) == ("Кубок", "Сколько?\nВсего?", "Три.", "Три штуки.")


def test_zachet_with_and_without_yo_and_nezachet() -> None:
    for yo in ("е", "ё"):
        [q] = parse_package(f"Вопрос 1:\nТ.\n\nОтвет:\nА.\n\nЗач{yo}т:\nБ.\n\nНезач{yo}т:\nВ.\n")
        assert (q.accepted, q.rejected) == ("Б.", "В.")


def test_a_missing_blank_line_before_a_field_line_alone_is_tolerated() -> None:
    [q, q2] = parse_package("Вопрос 1:\nТекст.\nОтвет:\nДа.\nКомментарий:\nНу.\n"
                            "Вопрос 2: Еще.\nОтвет:\nНет.\n")
    assert (q.text, q.answer, q.comment) == ("Текст.", "Да.", "Ну.")
    assert (q2.text, q2.answer) == ("Еще.", "Нет.")


def test_a_field_name_with_a_value_inside_a_paragraph_is_text() -> None:
    [q] = parse_package("Вопрос 1:\nТекст.\n\nОтвет:\nДа.\n\nКомментарий:\nСм. ниже.\n"
                        "Источник: Википедия.\nвопрос 2: не заголовок.\n\nИсточник:\nКнига.\n")
    assert q.comment == "См. ниже.\nИсточник: Википедия.\nвопрос 2: не заголовок."
    assert q.sources == "Книга."


def test_text_after_a_blank_line_continues_the_field() -> None:
    [q] = parse_package("Вопрос 1:\nПервый абзац.\n\nВторой абзац.\n\nОтвет:\nДа.\n")
    assert q.text == "Первый абзац.\n\nВторой абзац."


def test_crlf_line_endings() -> None:
    [q] = parse_package("Вопрос 1:\r\nСтрока 1\r\nСтрока 2\r\n\r\nОтвет:\r\nДа.\r\n")
    assert (q.text, q.answer) == ("Строка 1\nСтрока 2", "Да.")


def test_unknown_fields_of_a_question_go_to_extra() -> None:
    [q] = parse_package(
        "Вопрос 1:\nТекст.\n\nОтвет:\nДа.\n\nРейтинг:\n42\n\nПримечание:\nВопрос из разминки.\n"
    )
    assert q.extra == {"Рейтинг": "42", "Примечание": "Вопрос из разминки."}
    assert q.comment is None


def test_an_unknown_name_inside_a_block_is_text() -> None:
    [q] = parse_package("Вопрос 1:\nВнимание:\nв вопросе есть замены.\nНапример: эта.\n\nОтвет:\nДа.\n")
    assert q.text == "Внимание:\nв вопросе есть замены.\nНапример: эта."
    assert q.extra == {}


def test_unknown_and_informational_package_fields_are_ignored() -> None:
    text = ("Чемпионат:\nК\n\nURL:\n/x\n\nИнфо:\nСпасибо.\n\nВид:\nЧ\n\nКопирайт:\n(c)\n\n"
            "Благодарности:\nВсем.\n\n")
    [q] = parse_package(text + "Вопрос 1:\nТ.\n\nОтвет:\nД.\n")
    assert q.tournament == "К"
    assert q.extra == {}


def test_package_and_tour_authors_are_the_default_for_questions_without_one() -> None:
    text = ("Чемпионат:\nК\n\nАвтор:\nВсе вместе\n\nВопрос 1:\nТ.\n\nОтвет:\nД.\n\n"
            "Тур:\nТур 2\n\nАвтор:\nБорис\n\nВопрос 1:\nТ.\n\nОтвет:\nД.\n\n"
            "Вопрос 2:\nТ.\n\nОтвет:\nД.\n\nАвтор:\nВера\n")
    assert [(q.tour, q.authors) for q in parse_package(text)] == [
        (None, "Все вместе"), ("Тур 2", "Борис"), ("Тур 2", "Вера")]


def test_each_question_keeps_its_tour_and_numbers_restart_per_tour() -> None:
    text = ("Тур:\nПервый\n\nВопрос 1:\nА\n\nОтвет:\nа\n\nВопрос 2:\nБ\n\nОтвет:\nб\n\n"
            "Тур:\nВторой\n\nДата:\n02-Feb-2024\n\nВопрос 1:\nВ\n\nОтвет:\nв\n")
    questions = parse_package(text)
    assert [(q.tour, q.number, q.text, q.date) for q in questions] == [
        ("Первый", "1", "А", None), ("Первый", "2", "Б", None), ("Второй", "1", "В", "02-Feb-2024")]


def test_inline_handout_and_several_pictures() -> None:
    [q] = parse_package(
        "Вопрос 1:\n(pic: 1.jpg) Что общего? <раздатка>ABBA (pic: 2.png)</раздатка>\n"
        "(PIC: 3.gif)\n\nОтвет: Палиндромы.\n"
    )
    assert q.text == "Что общего?"
    assert q.handout == "ABBA"
    assert q.images == ("1.jpg", "3.gif", "2.png")


def test_field_lines_inside_a_handout_are_handout_text() -> None:
    [q] = parse_package("Вопрос 1:\n<раздатка>\nОтвет: 42\n\nАвтор: никто\n</раздатка>\nЧто это?\n\n"
                        "Ответ:\nШутка.\n")
    assert q.handout == "Ответ: 42\n\nАвтор: никто"
    assert (q.text, q.answer, q.authors) == ("Что это?", "Шутка.", None)


def test_a_question_with_only_a_picture_is_accepted() -> None:
    [q] = parse_package("Вопрос 1:\n(pic: 9.jpg)\n\nОтвет:\nКот.\n")
    assert (q.text, q.images) == ("", ("9.jpg",))


def test_questions_are_hashable_and_comparable() -> None:
    a = parse_package(MINIMAL + "\nРейтинг:\n1\n")
    b = parse_package(MINIMAL + "\nРейтинг:\n1\n")
    assert a == b
    assert len({a[0], b[0]}) == 1


# --- errors name the file and the line ----------------------------------------------------


@pytest.mark.parametrize(("text", "line", "words"), [
    ("", 1, "empty"),
    ("\n  \n\n", 1, "empty"),
    ("Просто текст\n\nВопрос 1:\nТ\n\nОтвет:\nД\n", 1, "text before the first field"),
    ("\n\nЧемпионат:\nК\n\nВопрос 1:\nТекст\n\nКомментарий:\nНет ответа.\n", 6, "question 1 has no «Ответ:»"),
    ("Вопрос 1:\nТ\n\nОтвет:\n\nАвтор:\nА\n", 1, "no «Ответ:»"),
    ("Вопрос 1:\n\nОтвет:\nД\n", 1, "question 1 has no text"),
    ("Чемпионат:\nК\n\nОтвет:\nД\n", 4, "«Ответ:» before any «Вопрос N:»"),
    ("Вопрос 1:\nТ\n\nОтвет:\nД\n\nОтвет:\nЕ\n", 7, "second «Ответ:» in question 1 (the first is at line 4)"),
    ("Вопрос 1:\nТ\n\nОтвет:\nД\n\nВопрос 1:\nТ\n\nОтвет:\nД\n", 7, "number 1 is used twice"),
    ("Вопрос:\nТ\n\nОтвет:\nД\n", 1, "cannot read the question header"),
    ("Вопрос 1:\nТ\n\nОтвет:\nД\n\nВопрос 2а:\nТ\n\nОтвет:\nД\n", 7, "cannot read the question header"),
    ("Вопрос 1:\n<раздатка>\nТ\n\nОтвет:\nД\n", 2, "<раздатка> is never closed"),
    ("Вопрос 1:\nТ</раздатка>\n\nОтвет:\nД\n", 2, "</раздатка> without an opening"),
    ("Чемпионат:\nА\n\nЧемпионат:\nБ\n\nВопрос 1:\nТ\n\nОтвет:\nД\n", 4, "second «Чемпионат:»"),
    ("Чемпионат:\nА\n\nДата:\n1\n\nДата:\n2\n", 7, "second «Дата:» in the package header"),
    ("Чемпионат:\nА\n\nДата:\n1\n\nИнфо:\nНичего.\n\n", 8, "no questions"),
], ids=["empty", "blank", "text-first", "no-answer", "empty-answer", "no-text", "answer-first",
        "answer-twice", "number-twice", "no-number", "bad-number", "handout-unclosed", "handout-stray",
        "package-twice", "date-twice", "no-questions"])
def test_malformed_packages(text: str, line: int, words: str) -> None:
    error = error_of(text)
    assert (error.source, error.line) == ("pack.txt", line)
    assert str(error).startswith(f"pack.txt:{line}: ")
    assert words in str(error)


def test_load_errors_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("Чемпионат:\nК\n\nВопрос 1:\nТекст.\n", encoding="utf-8")
    with pytest.raises(QuestionFileError, match=r"bad\.txt:4: question 1 has no «Ответ:»"):
        load_questions(path)
    with pytest.raises(QuestionFileError, match=r"missing\.txt: file not found"):
        load_questions(tmp_path / "missing.txt")


# --- encodings ----------------------------------------------------------------------------


def test_cp1251_and_utf8_with_bom_are_detected(tmp_path: Path) -> None:
    text = SAMPLE.read_text(encoding="utf-8")
    expected = load_questions(SAMPLE)
    for encoding in ("cp1251", "utf-8-sig", "koi8-r"):
        path = tmp_path / f"{encoding}.txt"
        path.write_bytes(text.encode(encoding))
        assert load_questions(path) == expected, encoding


def test_an_explicit_encoding_overrides_detection(tmp_path: Path) -> None:
    path = tmp_path / "pack.txt"
    path.write_bytes(MINIMAL.encode("koi8-r"))
    assert load_questions(path)[0].tournament == "Кубок примера"
    # Read as CP1251 on purpose: the header is not recognised, so the file is rejected.
    with pytest.raises(QuestionFileError, match=r"pack\.txt:1: text before the first field"):
        load_questions(path, encoding="cp1251")
    with pytest.raises(QuestionFileError, match="unknown encoding 'no-such-codec'"):
        load_questions(path, encoding="no-such-codec")


def test_undecodable_bytes_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "pack.txt"
    path.write_bytes("Чемпионат:\nК\n\nВопрос 1:\n".encode() + b"\xff\xfe bad\n\n" + "Ответ:\nД\n".encode())
    with pytest.raises(QuestionFileError, match=r"pack\.txt:5: byte 0xff is not valid utf-8"):
        load_questions(path, encoding="utf-8")
    latin = tmp_path / "latin.txt"
    latin.write_bytes(b"Question 1:\nCaf\xe9?\n\nAnswer:\nYes.\n")
    with pytest.raises(QuestionFileError, match=r"latin\.txt:2: undecodable: byte 0xe9 is not UTF-8"):
        load_questions(latin)


def test_a_binary_file_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "pack.txt"
    path.write_bytes(MINIMAL.encode("utf-16"))
    with pytest.raises(QuestionFileError, match=r"pack\.txt:1: NUL byte: not a text file"):
        load_questions(path)


# --- the draw (console/engine/chgk/question_draw.py) and the pool -------------------------------


def deck(questions: list[Question], seed: int) -> QuestionDeck:
    return QuestionDeck(QuestionPool(tuple(questions)), seed)


def test_the_deck_never_repeats_and_says_when_the_questions_run_out() -> None:
    questions = load_questions(SAMPLE)
    d = deck(questions, seed=7)
    drawn = [d.draw() for _ in questions]
    assert sorted(drawn, key=questions.index) == questions  # type: ignore[arg-type]
    assert d.remaining == 0
    assert d.draw() == (f"no questions left: all {len(questions)} questions have been played in this game",)


def test_the_same_seed_draws_the_same_questions_in_the_same_order() -> None:
    questions = load_questions(SAMPLE)
    first, again = deck(questions, seed=2025), deck(list(questions), seed=2025)
    assert [first.draw() for _ in questions] == [again.draw() for _ in questions]


def test_different_seeds_give_different_orders() -> None:
    questions = load_questions(SAMPLE)

    def order(seed: int) -> tuple[int, ...]:
        d = deck(questions, seed)
        return tuple(questions.index(q) for _ in questions if isinstance(q := d.draw(), Question))

    assert order(1) == order(1)
    assert len({order(seed) for seed in range(10)}) > 1


def test_without_questions_the_draw_says_why_as_the_console_did() -> None:
    assert QuestionDeck(QuestionPool(), seed=1).draw() == (NO_QUESTION_FILE,)
    unreadable = QuestionPool(problem="cannot read the 12th sector's questions: x")
    assert QuestionDeck(unreadable, seed=1).draw() == (unreadable.problem, NO_QUESTION_FILE)


def test_the_pool_reads_the_file_relative_to_the_config_and_keeps_a_problem(tmp_path: Path) -> None:
    config = tmp_path / "console.toml"
    (tmp_path / "pack.txt").write_bytes(SAMPLE.read_bytes())
    assert question_pool(str(config), "pack.txt").questions == tuple(load_questions(SAMPLE))
    assert question_pool(str(config), "") == QuestionPool()
    missing = question_pool(str(config), "missing.txt")
    assert missing.questions == () and missing.problem is not None
    assert missing.problem.startswith("cannot read the 12th sector's questions: ")
