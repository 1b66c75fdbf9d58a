"""Question packs: SIGame packages (v4 and v5 layouts of content.xml) and TOML packs, and
the one PackError for every broken or hostile file. Every .siq here is built in the test."""

from __future__ import annotations

import io
import struct
import zipfile
from pathlib import Path

import pytest

from console.packs import PackError, load_pack
from console.packs.siq import MAX_CONTENT_BYTES, MAX_ENTRIES
from tests.support.packs import siq

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "packs" / "club-evening.toml"

V4 = """<?xml version="1.0" encoding="utf-8"?>
<package name="Пакет v4" version="4" id="x" xmlns="http://vladimirkhil.com/ygpackage3.0.xsd">
  <info><authors><author>Автор</author></authors></info>
  <rounds>
    <round name="Первый раунд">
      <themes>
        <theme name="Реки">
          <questions>
            <question price="100">
              <scenario><atom>Самая длинная река Европы.</atom></scenario>
              <right><answer>Волга</answer><answer>Ра</answer></right>
              <wrong><answer>Дунай</answer></wrong>
              <info><comments>Ра — древнее имя Волги.</comments></info>
            </question>
            <question price="200">
              <scenario>
                <atom type="say">Что за река на фото?</atom>
                <atom type="image">@nile.jpg</atom>
                <atom type="marker"/>
                <atom type="image">@nile-answer.jpg</atom>
              </scenario>
              <right><answer>Нил</answer></right>
              <wrong/>
            </question>
          </questions>
        </theme>
      </themes>
    </round>
    <round name="Финал" type="final">
      <themes><theme name="Ставки"><questions>
        <question price="0"><scenario><atom>?</atom></scenario><right><answer>!</answer></right></question>
      </questions></theme></themes>
    </round>
  </rounds>
</package>
"""

V5 = """<?xml version="1.0" encoding="utf-8"?>
<package name="Пакет v5" version="5" id="y" xmlns="https://github.com/VladimirKhil/SI/blob/master/assets/siq_5.xsd">
  <rounds>
    <round name="Раунд">
      <themes>
        <theme name="Звуки">
          <questions>
            <question price="10">
              <params>
                <param name="question" type="content">
                  <item>Послушайте и назовите композитора.</item>
                  <item type="audio" isRef="True">Мелодия 1.mp3</item>
                </param>
                <param name="answer" type="content">
                  <item type="image" isRef="True">portrait.jpg</item>
                </param>
              </params>
              <right><answer>Чайковский</answer></right>
              <wrong><answer>Глинка</answer></wrong>
            </question>
            <question price="20">
              <params><param name="question" type="content">
                <item type="image" isRef="True">a.png</item>
              </param></params>
              <right><answer>Картина</answer></right>
            </question>
          </questions>
        </theme>
      </themes>
    </round>
  </rounds>
</package>
"""


def refused(path: Path) -> str:
    with pytest.raises(PackError) as caught:
        load_pack(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: "), message  # names the file
    return message


def test_a_v4_package_reads_rounds_themes_questions_answers_and_media(tmp_path: Path) -> None:
    pack = load_pack(siq(tmp_path, V4))
    assert pack.name == "Пакет v4"
    assert [r.name for r in pack.rounds] == ["Первый раунд", "Финал"]
    assert pack.rounds[1].final
    first, second = pack.rounds[0].themes[0].questions
    assert (first.value, first.text, first.answer, first.right, first.wrong, first.comment) == (
        100, "Самая длинная река Европы.", "Волга", ("Волга", "Ра"), ("Дунай",), "Ра — древнее имя Волги.")
    # Media are shown as "media: <file>"; what follows the marker is shown with the answer.
    assert second.text == "Что за река на фото?\nmedia: nile.jpg"
    assert second.media == ("nile.jpg",)
    assert second.comment == "media: nile-answer.jpg"
    # The final round (bets) is not played by a fight.
    assert [t.name for t in pack.played_themes()] == ["Реки"]


def test_a_v5_package_reads_the_question_param_items(tmp_path: Path) -> None:
    pack = load_pack(siq(tmp_path, V5))
    theme = pack.played_themes()[0]
    assert theme.name == "Звуки"
    first, second = theme.questions
    assert first.text == "Послушайте и назовите композитора.\nmedia: Мелодия 1.mp3"
    assert (first.answer, first.wrong, first.media) == ("Чайковский", ("Глинка",), ("Мелодия 1.mp3",))
    assert first.comment == "media: portrait.jpg"
    assert (second.text, second.media, second.wrong) == ("media: a.png", ("a.png",), ())


def test_the_example_toml_pack_reads(tmp_path: Path) -> None:
    pack = load_pack(EXAMPLE)
    assert [t.name for t in pack.played_themes()] == ["Реки", "Столицы"]
    assert all([q.value for q in t.questions] == [10, 20, 30, 40, 50] for t in pack.played_themes())
    nile = pack.played_themes()[0].questions[3]
    assert (nile.text, nile.media) == ("Назовите реку на карте.\nmedia: nile.png", ("nile.png",))


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("<package><rounds><round name='r'>", "not valid XML"),
        ("<notapackage/>", "not <package>"),
        ("<package/>", "no <rounds>"),
        ("<package><rounds/></package>", "no questions to play"),
    ],
)
def test_bad_content_is_one_error_naming_the_file_and_the_problem(
        tmp_path: Path, content: str, problem: str) -> None:
    message = refused(siq(tmp_path, content))
    assert problem in message


@pytest.mark.parametrize(
    ("content", "where", "problem"),
    [
        (V4.replace('price="100"', ""), "question 1", "no price"),
        (V4.replace('price="100"', 'price="сто"'), "question 1", "price 'сто' is not a whole number"),
        (V4.replace("<right><answer>Нил</answer></right>", ""), "question 2", "no right answer"),
        (V4.replace("<scenario><atom>Самая длинная река Европы.</atom></scenario>", ""),
         "question 1", "no question content"),
        (V5.replace('name="question"', 'name="other"', 1), "question 1", 'no <param name="question">'),
        (V4.replace("<scenario><atom>Самая длинная река Европы.</atom></scenario>",
                    "<scenario><atom/></scenario>"), "question 1", "the question is empty"),
    ],
)
def test_a_cell_that_cannot_be_played_is_left_out_and_named(
        tmp_path: Path, content: str, where: str, problem: str) -> None:
    """Issue 19: one bad cell refused the whole pack; now the rest is played and the host is
    told which cell was left out and why."""
    pack = load_pack(siq(tmp_path, content))
    (skipped,) = pack.skipped
    assert f", {where}: {problem}" in skipped and skipped.endswith("; left out"), skipped
    assert skipped.startswith(("round 1 «Первый раунд», theme 1 «Реки»", "round 1 «Раунд», theme 1 «Звуки»"))
    assert len(pack.played_themes()[0].questions) == 1  # the other question is played


def test_a_pack_with_every_cell_unplayable_is_refused_naming_the_first(tmp_path: Path) -> None:
    content = V5.replace('name="question"', 'name="other"')
    message = refused(siq(tmp_path, content))
    assert "no questions to play (2 cells left out, the first: round 1 «Раунд», theme 1" in message


def test_a_theme_with_no_name_is_played_under_its_number(tmp_path: Path) -> None:
    pack = load_pack(siq(tmp_path, V4.replace('<theme name="Реки">', "<theme>")))
    assert [t.name for t in pack.played_themes()] == ["Тема 1"]
    assert pack.skipped == ("round 1 «Первый раунд», theme 1: the theme has no name; played as «Тема 1»",)


def test_entities_and_dtds_are_refused(tmp_path: Path) -> None:
    billion_laughs = ('<?xml version="1.0"?><!DOCTYPE package [<!ENTITY a "aaaaaaaaaa">'
                      '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><package>&b;</package>')
    assert "DTDs and entities are not allowed" in refused(siq(tmp_path, billion_laughs))
    external = ('<?xml version="1.0"?><!DOCTYPE package [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
                "<package>&x;</package>")
    assert "DTDs and entities are not allowed" in refused(siq(tmp_path, external, "ext.siq"))


def test_a_zip_bomb_is_refused_by_its_declared_size(tmp_path: Path) -> None:
    # 40 MB of spaces deflate to ~40 kB: content.xml declares more than the cap.
    bomb = b"<package>" + b" " * (MAX_CONTENT_BYTES + 1) + b"</package>"
    message = refused(siq(tmp_path, bomb))
    assert "content.xml is" in message and "zip bomb" in message


def test_a_zip_bomb_lying_about_its_size_is_refused_while_reading(tmp_path: Path) -> None:
    """The local and central headers say 100 bytes; the stream inflates to megabytes. Reading
    stops at the declared size (the cap is counted as it goes) and the CRC then fails."""
    real = b"<package>" + b" " * 3_000_000 + b"</package>"
    path = siq(tmp_path, real)
    data = bytearray(path.read_bytes())
    declared = 100
    # Rewrite the uncompressed size in the local header (offset 22) and the central header.
    assert data[:4] == b"PK\x03\x04"
    struct.pack_into("<I", data, 22, declared)
    first_central = data.find(b"PK\x01\x02")
    assert first_central >= 0
    struct.pack_into("<I", data, first_central + 24, declared)
    path.write_bytes(bytes(data))
    assert "content.xml is damaged in the archive (Bad CRC-32" in refused(path)


def test_too_many_entries_are_refused_before_the_directory_is_read(tmp_path: Path) -> None:
    message = refused(siq(tmp_path, V4, extra=MAX_ENTRIES))
    assert f"at most {MAX_ENTRIES}" in message


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"PK\x03\x04 truncated archive", "not a zip archive"),
        (b"", "not a zip archive"),
        ("чистый текст".encode(), "not a zip archive"),
    ],
)
def test_a_siq_that_is_not_a_zip_is_refused(tmp_path: Path, data: bytes, problem: str) -> None:
    path = tmp_path / "broken.siq"
    path.write_bytes(data)
    assert problem in refused(path)


def test_a_zip_without_content_xml_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.siq"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("readme.txt", "hello")
    assert "no content.xml" in refused(path)


def test_a_damaged_entry_is_refused(tmp_path: Path) -> None:
    path = siq(tmp_path, V4)
    data = bytearray(path.read_bytes())
    start = 30 + len("content.xml")  # the first entry's data follows its local header
    for i in range(start + 10, start + 60):
        data[i] ^= 0x5A
    path.write_bytes(bytes(data))
    assert "content.xml is damaged in the archive" in refused(path)


def test_missing_files_and_directories(tmp_path: Path) -> None:
    assert "file not found" in refused(tmp_path / "nope.siq")
    assert "is a directory" in refused(tmp_path)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("name = 'x'", "themes: at least one [[themes]] is needed"),
        ("[[themes]]\nname = 'Реки'", "themes[1].questions: at least one"),
        ("[[themes]]\nname = 'Реки'\n[[themes.questions]]\ntext = 'q'\nanswer = 'a'", "value: is required"),
        ("[[themes]]\nname = 'Реки'\n[[themes.questions]]\nvalue = -5\ntext = 'q'\nanswer = 'a'",
         "themes[1].questions[1].value: must be a positive integer"),
        ("[[themes]]\nname = 'Реки'\n[[themes.questions]]\nvalue = 10\ntext = 'q'", "answer: is required"),
        ("[[themes]]\nname = 'Реки'\n[[themes.questions]]\nvalue = 10\nanswer = 'a'", "text: is required"),
        ("[[themes]]\nname = 'Реки'\n[[themes.questions]]\nvalue = 10\ntext = 'q'\nanswer = 'a'\n"
         "ansver = 'b'", "ansver: unknown key"),
        ("[[themes]]\nname = ''\n[[themes.questions]]\nvalue = 10\ntext = 'q'\nanswer = 'a'",
         "themes[1].name: must not be empty"),
        ("[[themes]\nname = 1", "nor a valid TOML pack"),
    ],
)
def test_bad_toml_packs(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "pack.toml"
    path.write_text(text, encoding="utf-8")
    assert problem in refused(path)


def test_a_binary_file_that_is_not_a_zip_nor_toml(tmp_path: Path) -> None:
    path = tmp_path / "pack.bin"
    path.write_bytes(b"\xff\xfe\x00garbage")
    assert "not UTF-8" in refused(path)


def test_media_only_toml_question_and_rounds(tmp_path: Path) -> None:
    path = tmp_path / "pack.toml"
    path.write_text("[[themes]]\nname = 'А'\nround = 'Р1'\n[[themes.questions]]\nvalue = 10\n"
                    "media = ['x.png']\nanswer = 'a'\n"
                    "[[themes]]\nname = 'Б'\n[[themes.questions]]\nvalue = 10\ntext = 'q'\nanswer = 'b'\n"
                    "[[themes]]\nname = 'В'\nround = 'Р2'\n[[themes.questions]]\nvalue = 10\ntext = 'q'\n"
                    "answer = 'c'\n", encoding="utf-8")
    pack = load_pack(path)
    assert [(r.name, [t.name for t in r.themes]) for r in pack.rounds] == [("Р1", ["А", "Б"]), ("Р2", ["В"])]
    assert pack.rounds[0].themes[0].questions[0].text == "media: x.png"


def test_the_reader_does_not_depend_on_the_file_name(tmp_path: Path) -> None:
    """A SIGame package renamed .zip is still read as one (by its bytes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("content.xml", V5)
    path = tmp_path / "pack.zip"
    path.write_bytes(buffer.getvalue())
    assert load_pack(path).name == "Пакет v5"
