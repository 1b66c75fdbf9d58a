"""SIGame's special cells, in both layouts of content.xml (issue 19: 9 of 61 packages of
SIGame's own repository were refused whole for one of them). Each cell type the format
defines (SIGame's public source, SIPackages/Core/QuestionTypes.cs, and the v4 <type> params
theme, cost, knows, self) is read: those the sports rules can play are kept and marked for the
host, those they cannot (an empty cell, a cat with no question, an HTML mini-game with no
answer) are left out and named. Every package here is built by the test."""

from __future__ import annotations

import json
from pathlib import Path

from console.packs import load_pack
from tests.support.packs import siq

V4_SPECIAL = """<?xml version="1.0" encoding="utf-8"?>
<package name="Особые v4" version="4" xmlns="http://vladimirkhil.com/ygpackage3.0.xsd">
  <rounds><round name="Раунд"><themes><theme name="Разное"><questions>
    <question price="100"><scenario><atom>Обычный.</atom></scenario>
      <right><answer>Да</answer></right></question>
    <question price="200">
      <type name="cat"><param name="theme">Звери</param><param name="cost">300</param></type>
      <scenario><atom>Кто мяукает?</atom></scenario><right><answer>Кот</answer></right></question>
    <question price="300">
      <type name="bagcat"><param name="theme">Птицы</param><param name="cost">[100;500]</param>
        <param name="self">true</param><param name="knows">after</param></type>
      <scenario><atom>Кто каркает?</atom></scenario><right><answer>Ворона</answer></right></question>
    <question price="400">
      <type name="bagcat"><param name="theme">Подарок</param><param name="cost">0</param>
        <param name="knows">never</param></type>
      <scenario/><right><answer/></right></question>
    <question price="500">
      <type name="auction"/><scenario><atom>Аукцион.</atom></scenario>
      <right><answer>Ставка</answer></right></question>
    <question price="600">
      <type name="sponsored"/><scenario><atom>Без риска.</atom></scenario>
      <right><answer>Риск</answer></right></question>
    <question price="-1"/>
  </questions></theme></themes></round></rounds>
</package>
"""

V5_SPECIAL = """<?xml version="1.0" encoding="utf-8"?>
<package name="Особые v5" version="5" xmlns="https://github.com/VladimirKhil/SI/blob/master/assets/siq_5.xsd">
  <rounds><round name="Раунд"><themes><theme name="Всё"><questions>
    <question price="100" type="secret">
      <params><param name="theme">Реки</param>
        <param name="price" type="numberSet">100</param>
        <param name="question" type="content"><item>Самая длинная?</item></param></params>
      <right><answer>Нил</answer></right></question>
    <question price="200" type="secretNoQuestion">
      <params><param name="theme">Приз</param><param name="price" type="numberSet">200</param></params>
      <right/></question>
    <question price="300" type="stake">
      <params><param name="question" type="content"><item>Ставки.</item></param></params>
      <right><answer>Да</answer></right></question>
    <question price="400" type="stakeAll">
      <params><param name="question" type="content"><item>Ставят все.</item></param></params>
      <right><answer>Все</answer></right></question>
    <question price="500" type="noRisk">
      <params><param name="question" type="content"><item>Без риска.</item></param></params>
      <right><answer>Нет</answer></right></question>
    <question price="600" type="forAll">
      <params><param name="question" type="content"><item>Для всех.</item></param></params>
      <right><answer>Все</answer></right></question>
    <question price="700">
      <params>
        <param name="question" type="content"><item>Какая река самая длинная?</item></param>
        <param name="answerType">select</param>
        <param name="answerOptions" type="group">
          <param name="A" type="content"><item>Нил</item></param>
          <param name="B" type="content"><item>Волга</item></param>
          <param name="C" type="content"><item type="image" isRef="True">c.png</item></param>
        </param>
      </params>
      <right><answer>A</answer></right></question>
    <question price="800">
      <params><param name="question" type="content"><item type="html">game.html</item></param></params>
      <right/></question>
  </questions></theme></themes></round></rounds>
</package>
"""


def test_every_v4_special_cell_loads_marked_or_left_out_with_its_reason(tmp_path: Path) -> None:
    pack = load_pack(siq(tmp_path, V4_SPECIAL))
    played = pack.played_themes()[0].questions
    assert [(q.value, q.special, q.special_note) for q in played] == [
        (100, "", ""), (200, "cat", "тема «Звери», стоимость 300"),
        (300, "cat", "тема «Птицы», стоимость [100;500]"), (500, "auction", ""), (600, "no_risk", "")]
    where = "round 1 «Раунд», theme 1 «Разное»"
    assert pack.skipped == (
        f"{where}, question 4: a cat in the bag with no question (its points are given at once); left out",
        f"{where}, question 7: an empty cell (price -1); left out")


def test_every_v5_special_cell_loads_marked_or_left_out_with_its_reason(tmp_path: Path) -> None:
    pack = load_pack(siq(tmp_path, V5_SPECIAL))
    played = pack.played_themes()[0].questions
    assert [(q.value, q.special) for q in played] == [
        (100, "cat"), (300, "auction"), (400, "stake_all"), (500, "no_risk"), (600, "for_all"), (700, "")]
    assert played[0].special_note == "тема «Реки», стоимость 100"
    select = played[-1]
    assert select.options == ("A: Нил", "B: Волга", "C: media: c.png")
    assert select.answer == "A"
    where = "round 1 «Раунд», theme 1 «Всё»"
    assert pack.skipped == (
        f"{where}, question 2: a cat in the bag with no question (its points are given at once); left out",
        f"{where}, question 8: no right answer (<right><answer>): the host could not judge it; left out")


def test_the_host_is_told_of_the_cells_left_out_and_sees_a_cat_for_what_it_is(tmp_path: Path) -> None:
    """A pack with special cells, played by the console: the cells left out are one notice
    naming each; the cat in the bag is on the host's card with its theme and price, and the
    select question with its options (the public state shows neither)."""
    from console.engine.model import HostAction
    from console.games import game
    from console.schemas import validate
    from tests.support.packs import console_with

    siq(tmp_path, V4_SPECIAL, name="v4.siq")
    console, _clock, _events = console_with("v4.siq", tmp_path)
    ((source, message),) = game("svoya").start_problems(console.referee)
    assert source == "pack_cells"
    assert message.startswith("2 cells of the pack cannot be played by these rules and are left out: ")
    assert "question 4: a cat in the bag with no question" in message
    assert "question 7: an empty cell" in message
    siq(tmp_path, V5_SPECIAL, name="v5.siq")
    console, _clock, _events = console_with("v5.siq", tmp_path)
    console.host(HostAction.NEXT)
    card = console.host_state()["host_question"]
    assert card["special"] == {"kind": "cat", "note": "тема «Реки», стоимость 100"}
    validate("state", console.host_state())
    assert "special" not in json.dumps(console.state())  # the hall's state has no card
