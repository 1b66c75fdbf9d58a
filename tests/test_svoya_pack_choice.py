"""«Своя игра»: a pack and its round chosen on the tablet (issue 19: «An evening has several
fights: choose the pack and its next round from the tablet»), on a hand-stepped clock and with
real pack files. A chosen round begins a new fight at its first theme with every score at
zero (004 App.3); its questions go in ascending order (004 App.2); between questions only;
«Новая игра» begins the chosen pack again, `next_fight` goes on in it; the journal holds the
pack whole, so a replay needs no file."""

from __future__ import annotations

from pathlib import Path

import pytest

from console.engine.model import HostAction
from console.engine.svoya.pack_choice import ChoosePack
from console.games.svoya.kind import GAME
from console.games.svoya.packs import catalogue, choice, choice_from_line
from console.packs import PackError
from console.shell.pack_shelf import PackShelf
from tests.engine_harness import MS, S, Table, make_rules
from tests.support.packs import evening_pack, play_one


def upcoming(t: Table) -> tuple[object, object]:
    nxt = t.ref.snapshot(t.now)["next"]
    assert isinstance(nxt, dict)
    return nxt["theme_name"], nxt["value"]


def choose(t: Table, path: Path, round_number: int) -> None:
    t.deliver(choice(path, round_number, t.now))


def test_the_folders_packs_are_listed_with_their_rounds(tmp_path: Path) -> None:
    evening_pack(tmp_path)
    (tmp_path / "broken.siq").write_bytes(b"not a zip")
    (tmp_path / "notes.txt").write_text("не пакет", encoding="utf-8")
    shelf = catalogue(tmp_path)
    assert shelf["problem"] is None
    listed = {p["file"]: p for p in shelf["packs"]}
    assert set(listed) == {"evening.siq", "broken.siq"}  # only packs' suffixes
    assert listed["evening.siq"]["name"] == "Осенний вечер"
    # The final's bets are not a round a fight plays.
    assert listed["evening.siq"]["rounds"] == [{"name": "Первый раунд", "themes": 2},
                                               {"name": "Второй раунд", "themes": 3}]
    assert "rounds" not in listed["broken.siq"] and listed["broken.siq"]["problem"]
    missing = catalogue(tmp_path / "нет")
    assert missing["packs"] == [] and "нет" in missing["problem"]


def test_app3_a_round_chosen_begins_a_new_fight_at_its_first_theme_from_zero(tmp_path: Path) -> None:
    t = Table(make_rules())
    play_one(t)
    assert t.scores["p1"] == 10
    choose(t, evening_pack(tmp_path), 2)
    chosen = t.last("pack_chosen")
    assert (chosen["file"], chosen["name"], chosen["round"], chosen["round_name"], chosen["theme"],
            chosen["themes"]) == ("evening.siq", "Осенний вечер", 2, "Второй раунд", 3, 5)
    started = t.last("game_started")
    assert started["theme"] == 3 and set(started["scores"].values()) == {0}
    assert upcoming(t) == ("Моря", 20)  # the round's first theme, its lowest value first (App.2)
    play_one(t, "p2")
    assert t.scores["p2"] == 20
    question = t.ref.host_snapshot(t.now)["host_question"]
    assert question is None  # between questions: the next card is not shown yet
    t.host(HostAction.NEXT)
    card = t.ref.host_snapshot(t.now)["host_question"]
    assert isinstance(card, dict) and card["text"] == "Моря за 40" and card["answer"] == "Ответ 40"


def test_a_pack_is_chosen_between_questions_only(tmp_path: Path) -> None:
    t = Table(make_rules())
    t.host(HostAction.NEXT)
    choose(t, evening_pack(tmp_path), 1)
    assert t.last("error")["details"]["reason"] == "идёт вопрос (пакет меняют между вопросами)"
    assert t.events("pack_chosen") == [] and t.ref.rules.pack == ()
    t.press("p1")
    t.advance(100 * MS)
    assert t.answerer() == "p1"  # the question goes on as it was


def test_new_game_begins_the_chosen_pack_again_and_next_fight_goes_on_in_it(tmp_path: Path) -> None:
    t = Table(make_rules(themes=2))
    choose(t, evening_pack(tmp_path), 1)
    for _ in range(4):
        play_one(t)
    assert t.last("game_over")["scores"]["p1"] == 60  # the fight's two themes
    t.host(HostAction.NEXT_FIGHT)
    assert t.last("game_started")["theme"] == 3 and upcoming(t) == ("Моря", 20)  # on into round 2
    t.host(HostAction.NEW_GAME)
    assert t.last("game_started")["theme"] == 1 and upcoming(t) == ("Реки", 10)


def test_a_round_the_pack_does_not_have_is_said(tmp_path: Path) -> None:
    with pytest.raises(PackError, match="нет раунда 3 \\(раундов: 2\\)"):
        choice(evening_pack(tmp_path), 3, 0)


def test_the_journal_holds_the_pack_whole(tmp_path: Path) -> None:
    chosen = choice(evening_pack(tmp_path), 2, 5 * S)
    line, at = GAME.input_line(chosen) or ({}, 0)
    assert at == 5 * S and line["host"] == "choose_pack"
    assert GAME.parse_step("host", line, at) == chosen  # every card, as it was read
    with pytest.raises(ValueError, match="choose_pack: not a pack as the journal writes it"):
        choice_from_line({"file": "x.siq"}, 0)


def test_the_tablet_names_a_file_of_the_folder_and_nothing_else(tmp_path: Path) -> None:
    folder = tmp_path / "packs"
    folder.mkdir()
    evening_pack(folder)
    (tmp_path / "outside.siq").write_bytes(b"")
    got: list[object] = []
    problems: list[str] = []
    shelf = PackShelf(folder, read_list=catalogue, read_choice=lambda path, n: choice(path, n, 0),
                      on_list=got.append, on_choice=got.append, on_problem=problems.append)
    for bad, why in ((dict(file="../outside.siq"), "there is no pack '../outside.siq'"),
                     (dict(file="evening.siq", round=0), "round must be a whole number from 1"),
                     (dict(file="evening.siq", round="2"), "round must be a whole number from 1"),
                     (dict(round=1), "needs the pack's file name"),
                     (dict(file="evening.siq", path="/etc"), "path")):
        with pytest.raises(ValueError, match=why):
            shelf.command({"action": "choose_pack", **bad})
    assert got == [] and problems == []
    shelf.command({"action": "choose_pack", "file": "evening.siq", "round": 2})
    assert isinstance(got[-1], ChoosePack) and got[-1].start == 2
    (folder / "empty.siq").write_bytes(b"PK")
    shelf.command({"action": "choose_pack", "file": "empty.siq"})
    assert len(got) == 1 and problems and problems[0].startswith("пакет empty.siq не загружен: ")


def test_a_chosen_pack_is_logged_by_its_name_not_printed_whole(tmp_path: Path,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    """Issue 34: the log line for a chosen pack printed the whole pack, answers included (~30 KB
    for a real one); and a name not in the folder is refused without the server's path."""
    folder = tmp_path / "packs"
    folder.mkdir()
    evening_pack(folder)
    chosen: list[object] = []
    shelf = PackShelf(folder, read_list=catalogue, read_choice=lambda path, n: choice(path, n, 0),
                      on_list=lambda _: None, on_choice=chosen.append, on_problem=lambda _: None)
    with caplog.at_level("INFO", logger="chgk.packs"):
        shelf.command({"action": "choose_pack", "file": "evening.siq", "round": 2})
    assert isinstance(chosen[-1], ChoosePack)
    lines = [r.getMessage() for r in caplog.records if "pack chosen" in r.getMessage()]
    assert lines == ["pack chosen: evening.siq, round 2"]
    with pytest.raises(ValueError) as refused:
        shelf.command({"action": "choose_pack", "file": "nope.siq"})
    assert str(tmp_path) not in str(refused.value) and "«packs»" in str(refused.value)
