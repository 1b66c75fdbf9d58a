"""The season's database and its service (`chgk-console season`, docs/tournament.md): a result
counted once (a repeat ignored, a different one a conflict that changes nothing), kill -9 of a
writer at any instant losing no committed result, migrations and a backup; the service fed as
its broker would feed it; and the process on the organiser's broker with two tables bridged to
it, one result arriving twice and one conflicting, the organiser's page in Chromium."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from playwright.sync_api import expect

from console.season.config import load_season_config
from console.season.db import SCHEMA_VERSION, SeasonDb, SeasonDbError
from console.season.model import GameResult, Ruling, Team
from console.season.service import SeasonService
from tests.conftest import free_port
from tests.host_screen_pages import LINK_UP, chromium
from tests.support.bridged_hall import Hall, bridged_hall, workdir  # noqa: F401  (the fixture)

ROOT = Path(__file__).resolve().parent.parent
TEAMS = ["a", "b", "c", "d"]
SHOTS = os.environ.get("CHGK_SCREENSHOTS", "")  # a folder to save the page's picture in


def record(team: str, score: tuple[int, int], stage: str = "qualifier",
           hall: dict[str, int] | None = None, **indicators: int) -> dict[str, Any]:
    """A table console's game_record (docs/mqtt-table.md), as it publishes it."""
    return {"type": "game_record", "t_ns": 1, "stage": stage, "target": 6, "team": team,
            "opponent": "Зрители", "score": {"team": score[0], "club": score[1]},
            "winner": "team" if score[0] > score[1] else "club",
            "decisive_round": False, "rounds": [],
            "indicators": {"won_superblitz": False, "won_zeitnot": False, "won_duplet": False,
                           "won_sector12": False, "unused_help": 0, **indicators},
            "table_points": score[0], "wrong_answers": score[1], "saved_minutes": 0,
            "consolation": [{"team": t, "name": t, "hall": p, "table": 0, "wrong": 0, "points": p}
                            for t, p in (hall or {}).items()], "seq": 5}


def config(folder: Path, port: int = 1, *, http_port: int = 0, ws_port: int = 9001, user: str = "",
           password: str = "") -> Path:
    path = folder / "season.toml"
    path.write_text(
        f'[season]\nname = "Чемпионат"\nformat = "chto"\ndatabase = "db/season.db"\n'
        f'[mqtt]\nhost = "127.0.0.1"\nport = {port}\nusername = "{user}"\npassword = "{password}"\n'
        f'[page]\nhttp_port = {http_port}\nbind = "127.0.0.1"\nws_port = {ws_port}\n'
        + "".join(f'[[teams]]\nid = "{t}"\nname = "Команда {t}"\n' for t in TEAMS)
        + '[[teams]]\nid = "x"\nname = "Гости"\nregistered = false\nplayers = 3\n', encoding="utf-8")
    return path


def result(team: str, score: tuple[int, int], source: str = "t1") -> GameResult:
    return GameResult(f"qualifier:{team}", "qualifier", team, *score, source=source)


def test_a_result_counts_once_a_repeat_is_ignored_and_a_conflict_changes_nothing(tmp_path: Path) -> None:
    db = SeasonDb(tmp_path / "s.db")
    assert db.offer_result(result("a", (6, 2)), "t0") == "recorded"
    assert db.offer_result(result("a", (6, 2), source="t2"), "t1") == "repeat"  # another path, same result
    assert db.offer_result(result("a", (6, 3), source="t2"), "t2") == "conflict"
    assert {k: r.shown for k, r in db.results().items()} == {"qualifier:a": "6:2"}
    assert [a[2] for a in db.arrivals()] == ["recorded", "repeat", "conflict"]
    assert db.conflicts()[0]["result"]["score"] == [6, 3] and db.conflicts()[0]["source"] == "t2"


def test_the_schema_is_migrated_kept_and_a_newer_one_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    db = SeasonDb(path)
    db.add_team(Team("a", "Совы"))
    db.set_ruling(Ruling("third_place", ("a",), "жребий"), "оргкомитет", "t")
    db.close()
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    raw.close()
    with pytest.raises(SeasonDbError, match="newer"):
        SeasonDb(path)
    (tmp_path / "junk.db").write_bytes(b"not a database at all" * 100)
    with pytest.raises(SeasonDbError, match="not a season database"):
        SeasonDb(tmp_path / "junk.db")


@pytest.mark.process  # `season --backup` as a process
def test_a_backup_is_the_whole_season(tmp_path: Path) -> None:
    path = config(tmp_path)
    service = SeasonService(load_season_config(str(path)))
    service.handle("chgk/t1/events", json.dumps(record("a", (6, 2))).encode())
    done = subprocess.run([sys.executable, "-m", "console.cli", "season", "--config", str(path), "--backup",
                           str(tmp_path / "copy.db")], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    copy = SeasonDb(tmp_path / "copy.db")
    assert list(copy.results()) == ["qualifier:a"] and len(copy.teams()) == 5


WRITER = """
import sys
from console.season.db import SeasonDb
from console.season.model import GameResult
db = SeasonDb(sys.argv[1])
for n in range(100_000):
    db.offer_result(GameResult(f"qualifier:t{n}", "qualifier", f"t{n}", 6, n % 6), "now")
    print(n, flush=True)
"""


@pytest.mark.process  # a writer process, killed
@pytest.mark.parametrize("after", [1, 7, 40, 150])
def test_kill_9_of_a_writer_loses_no_committed_result(tmp_path: Path, after: int) -> None:
    """A writer killed with SIGKILL after `after` results it saw committed: the database opens
    whole (integrity_check), with each of them."""
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path / "s.db")], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    committed = [int(proc.stdout.readline()) for _ in range(after)]
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    db = SeasonDb(tmp_path / "s.db")
    assert db.integrity() == "ok"
    kept = db.results()
    assert all(f"qualifier:t{n}" in kept for n in committed)


def test_the_service_counts_records_once_and_shows_a_conflict(tmp_path: Path) -> None:
    service = SeasonService(load_season_config(str(config(tmp_path))))
    service.handle("chgk/t1/events", json.dumps(record("a", (6, 1), hall={"x": 3})).encode())
    # the same record again, retained; then another console's different one; then a stranger's
    service.handle("chgk/t1/record", json.dumps(record("a", (6, 1), hall={"x": 3})).encode())
    service.handle("chgk/t2/events", json.dumps(record("a", (6, 4))).encode())
    service.handle("chgk/t2/events", json.dumps(record("zz", (6, 4))).encode())
    view = service.view()
    assert [g["game"] for g in view["games"]] == ["qualifier:a"] and view["games"][0]["score"] == [6, 1]
    assert len(view["conflicts"]) == 1 and view["conflicts"][0]["source"] == "t2"
    assert view["waiting"][0].startswith("расхождения результатов: qualifier:a")  # not settled
    assert "отборочные игры" in view["waiting"][1]


def test_the_organisers_commands_are_checked_and_kept(tmp_path: Path) -> None:
    service = SeasonService(load_season_config(str(config(tmp_path))))
    for team, score in zip(TEAMS, [(6, 1), (6, 4), (2, 6), (4, 6)], strict=True):
        service.handle("chgk/season/command", json.dumps(
            {"action": "result", "stage": "qualifier", "team": team, "score": list(score),
             "consolation": {"x": 2, "c": 2}}).encode())
    view = service.view()
    assert view["main_finalist"] == "a" and "решение оргкомитета" in view["waiting"][0]  # c and x level
    no_reason = {"action": "ruling", "step": "consolation_final", "teams": ["x"]}
    service.handle("chgk/season/command", json.dumps(no_reason).encode())
    assert service.view()["consolation_finalist"] is None  # refused: a ruling needs its reason
    service.handle("chgk/season/command", json.dumps({"action": "ruling", "step": "consolation_final",
                                                      "teams": ["x"], "why": "жребий"}).encode())
    view = service.view()
    assert view["consolation_finalist"] == "x"
    assert any(d["clause"] == "000 1.7" and "жребий" in d["text"] for d in view["decisions"])
    assert any("жребий" in d["text"] for d in view["log"])  # kept in the database with when


# ---------------------------------------------------------------------- the process


@asynccontextmanager
async def season_process(path: Path) -> AsyncIterator[None]:
    log = path.with_name("season.log").open("ab")
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "console.cli", "season", "--config",
                                                str(path), cwd=ROOT, stderr=log)
    try:
        yield
    finally:
        proc.terminate()
        async with asyncio.timeout(10):
            await proc.wait()
        log.close()
    assert proc.returncode == 0, path.with_name("season.log").read_text(encoding="utf-8")


async def publish(port: int, topic: str, payload: dict[str, Any], retain: bool = False) -> None:
    async with aiomqtt.Client("127.0.0.1", port) as client:
        await client.publish(topic, json.dumps(payload, ensure_ascii=False), qos=1, retain=retain)


async def season_state(hall: Hall, done: Any, within: float = 15.0) -> dict[str, Any]:
    async with aiomqtt.Client("127.0.0.1", hall.organiser.port, username="organiser",
                              password=hall.accounts["organiser"]) as c:
        await c.subscribe("chgk/season/state", qos=1)
        async with asyncio.timeout(within):
            async for message in c.messages:
                assert isinstance(message.payload, bytes)
                view: dict[str, Any] = json.loads(message.payload)
                if done(view):
                    return view
    raise AssertionError("unreachable")


@pytest.fixture
def hall(workdir: Path) -> Iterator[Hall]:  # noqa: F811
    with bridged_hall(workdir) as built:
        yield built


async def test_results_from_two_bridged_consoles_count_once_and_the_page_follows(hall: Hall) -> None:
    """Two tables' brokers bridged to the organiser's (the shipped confs): table t1's record of
    a's qualifier arrives as its event and again as its retained record; table t2 sends a
    different result for the same game (a conflict, counted nowhere); the organiser's page shows
    the season, the next step and each decision's clause, and takes a game typed by hand."""
    http_port = free_port()
    path = config(hall.workdir, hall.organiser.port, http_port=http_port,
                  ws_port=hall.organiser.ws_port or 0, user="organiser", password=hall.accounts["organiser"])
    async with season_process(path):
        await season_state(hall, lambda v: v["teams"])
        t1, t2 = hall.tables["t1"].port, hall.tables["t2"].port
        await publish(t1, "chgk/t1/events", record("a", (6, 1), hall={"x": 4}))
        await publish(t1, "chgk/t1/record", record("a", (6, 1), hall={"x": 4}), retain=True)
        await publish(t2, "chgk/t2/events", record("a", (6, 5)))
        await publish(t2, "chgk/t2/events", record("b", (6, 3), hall={"x": 1}, won_zeitnot=True))
        await publish(t1, "chgk/t1/events", record("c", (2, 6)))
        view = await season_state(hall, lambda v: len(v["games"]) == 3 and v["conflicts"])
        assert {g["game"]: g["score"] for g in view["games"]} == {
            "qualifier:a": [6, 1], "qualifier:b": [6, 3], "qualifier:c": [2, 6]}
        assert [c["source"] for c in view["conflicts"]] == ["t2"]

        def page_check() -> None:
            with pytest.raises(urllib.error.HTTPError, match="404"):  # the console's pages are not here
                urllib.request.urlopen(f"http://127.0.0.1:{http_port}/host", timeout=10)
            with chromium() as browser:
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                page.goto(f"http://127.0.0.1:{http_port}/")
                page.wait_for_selector("#login:not([hidden])", timeout=20_000)
                page.fill("#login-password", hall.accounts["organiser"])
                page.click("#login-ok")
                page.wait_for_function(LINK_UP, timeout=20_000)
                expect(page.locator("#next")).to_contain_text("Команда d", timeout=10_000)
                expect(page.locator("#conflicts")).to_contain_text("6:5 от t2")
                page.select_option("#r-stage", "qualifier")
                page.select_option("#r-team", "d")
                page.fill("#r-score", "5")  # mistyped: refused, in Russian, on the page
                page.click("#result-form button")
                expect(page.locator("#refusal.bad")).to_contain_text("счёт — два числа через двоеточие",
                                                                     timeout=10_000)
                page.fill("#r-score", "5:6")
                page.fill("#r-points", "x=2")
                page.check('[data-indicator="won_zeitnot"]')  # 000 1.6.1 б, typed with the game
                page.click("#result-form button")
                expect(page.locator("#refusal.good")).to_contain_text("qualifier:d (5:6, hand): учтён",
                                                                      timeout=10_000)
                expect(page.locator('#decisions li[data-step="main_final"]')).to_contain_text(
                    "Команда a (6:1)", timeout=10_000)
                clause = page.locator('#decisions li[data-step="main_final"] .clause')
                expect(clause).to_have_text(" (000 1.6)")
                expect(page.locator('#decisions li[data-step="consolation_final"]')).to_contain_text("Гости")
                if SHOTS:  # the docs' picture (docs/screenshots), when asked for
                    page.screenshot(path=str(Path(SHOTS) / "organiser-season.png"))

        await asyncio.to_thread(page_check)
        view = await season_state(hall, lambda v: v["consolation_finalist"])
        assert view["consolation_finalist"] == "x" and view["consolation"]["x"] == 7  # 4 + 1 + 2
        typed = next(g for g in view["games"] if g["game"] == "qualifier:d")
        assert typed["indicators"]["won_zeitnot"] == 1 and typed["indicators"]["won_superblitz"] == 0
        # A second service on the same season (a laptop's beside the Pi's) exits, naming the first.
        second = await asyncio.create_subprocess_exec(sys.executable, "-m", "console.cli", "season",
                                                      "--config", str(path), cwd=ROOT,
                                                      stderr=asyncio.subprocess.PIPE)
        _, err = await asyncio.wait_for(second.communicate(), 60)
        assert second.returncode == 1 and "already runs the season" in err.decode(), err.decode()


def test_a_belgorod_season_through_the_service(tmp_path: Path) -> None:
    """Belgorod (003 §5-6) fed as the broker would feed it: the first stage from a table's
    closed sheet (its retained parts), the TV games' records (the second stage, then the
    series), the captains' choices checked, the final's candidate."""
    from console.engine.sports.sheet import Sheet, SheetRules, TeamEntry
    from console.engine.sports.stage import SportsStage
    from console.engine.sports.timer import SportsRules
    from console.games.sports.kind import edit

    names = [f"Команда {n}" for n in range(1, 9)]
    path = tmp_path / "season.toml"
    path.write_text('[season]\nformat = "belgorod"\ndatabase = "s.db"\nlast_finalist = "t8"\n'
                    '[page]\nhttp_port = 0\n'
                    + "".join(f'[[teams]]\nid = "t{n}"\nname = "{names[n - 1]}"\n' for n in range(1, 9)),
                    encoding="utf-8")
    service = SeasonService(load_season_config(str(path)))
    stage = SportsStage(SportsRules(), Sheet.with_teams(SheetRules(), [TeamEntry(n, names[n - 1])
                                                                      for n in range(1, 9)]))
    for n in range(1, 9):
        mask = "1" * (12 - n) + "0" * n
        stage.handle(edit({"action": "set_team", "team": n, "tour": 1, "mask": mask}, 1, "jury"), 1)
    for suffix in ("jury", "teams"):  # not closed yet: preliminary, not taken
        service.handle(f"chgk/t1/sheet/{suffix}", json.dumps(stage.parts()[suffix]).encode())
    assert service.view()["first_stage"] is None
    stage.handle(edit({"action": "close_sheet"}, 2, "jury"), 2)
    service.handle("chgk/t1/sheet/jury", json.dumps(stage.parts()["jury"]).encode())
    view = service.view()
    assert view["first_stage"]["winners"] == ["t1", "t2", "t3", "t4", "t5"]
    for n in range(1, 9):  # the second stage: t6 wins
        service.handle("chgk/t2/events", json.dumps(record(f"t{n}", (6, 2) if n == 6 else (1, 6))).encode())
    view = service.view()
    assert view["entrants"] == ["t1", "t2", "t3", "t6", "t4", "t5", "t8"] and view["next_chooser"] == "t1"
    # refused: not t2's turn; game 7 is the revanche's (6.7)
    service.handle("chgk/season/command", b'{"action": "choose_slot", "team": "t2", "slot": 1}')
    service.handle("chgk/season/command", b'{"action": "choose_slot", "team": "t1", "slot": 7}')
    assert service.view()["order"] == {"7": "t8"}
    for team, slot in (("t1", 6), ("t2", 1), ("t3", 2), ("t6", 3), ("t4", 4), ("t5", 4)):
        service.handle("chgk/season/command", json.dumps({"action": "choose_slot", "team": team,
                                                          "slot": slot}).encode())
    # t5's choice was refused (game 4 is t4's); t4's own was a mistaken click: taken back, chosen again
    assert service.view()["next_chooser"] == "t5"
    service.handle("chgk/season/command", b'{"action": "undo_slot"}')
    assert service.view()["next_chooser"] == "t4" and "4" not in service.view()["order"]
    for team, slot in (("t4", 4), ("t5", 5)):
        service.handle("chgk/season/command", json.dumps({"action": "choose_slot", "team": team,
                                                          "slot": slot}).encode())
    for team in ("t1", "t2", "t3", "t6", "t4", "t5", "t8"):  # the series: t3 and t5 win 6:4
        score = (6, 4) if team in ("t3", "t5") else (3, 6)
        service.handle("chgk/t2/events", json.dumps(record(team, score)).encode())
    view = service.view()
    assert view["candidates"] == ["t5"] and not view["waiting"]  # 6:4 both: t5 played later (6.5.1)
    assert [d["clause"] for d in view["decisions"]][-1] == "003 6.5.2"
    service.handle("chgk/season/command", b'{"action": "undo_slot"}')  # t5's game is played: kept
    assert "уже сыграна" in service.said[-1]["message"] and service.view()["order"]["5"] == "t5"


def test_check_config_reads_a_seasons_config(tmp_path: Path) -> None:
    """`chgk-console check-config` on the shipped config/season.toml, and on a registered team of
    8 players (000 1.3: 5 or 6), named by its key."""
    import io

    from console.tools.check_config import check_config

    out, err = io.StringIO(), io.StringIO()
    assert check_config(str(ROOT / "config" / "season.toml"), out, err) == 0, err.getvalue()
    assert "OK — the season" in out.getvalue() and "5 teams (4 registered)" in out.getvalue()
    bad = tmp_path / "bad.toml"
    bad.write_text('[season]\nformat = "chto"\n[[teams]]\nid = "a"\nname = "A"\nplayers = 8\n',
                   encoding="utf-8")
    assert check_config(str(bad), out, err) == 1
    assert "teams[1].players: a registered team has 5 or 6 players (000 1.3), got 8" in err.getvalue()


def test_a_record_twice_is_one_game_and_its_consoles_new_version_replaces_it(tmp_path: Path) -> None:
    """Found in review: a Belgorod table's record comes as its event and again retained (and at
    every restart): it is the same second-stage game, never a series game too. A table's record
    republished after a late hall answer (the same console) replaces the counted one."""
    path = tmp_path / "season.toml"
    path.write_text('[season]\nformat = "belgorod"\ndatabase = "s.db"\nlast_finalist = "t3"\n'
                    '[page]\nhttp_port = 0\n'
                    + "".join(f'[[teams]]\nid = "t{n}"\nname = "Команда {n}"\n' for n in range(1, 4)),
                    encoding="utf-8")
    service = SeasonService(load_season_config(str(path)))
    game = json.dumps(record("t1", (6, 2))).encode()
    service.handle("chgk/tab/events", game)
    service.handle("chgk/tab/record", game)
    assert [g["game"] for g in service.view()["games"]] == ["second_stage:t1"]
    (tmp_path / "c").mkdir()
    chto_path = config(tmp_path / "c")
    chto = SeasonService(load_season_config(str(chto_path)))
    chto.handle("chgk/t1/events", json.dumps(record("a", (6, 1), hall={"x": 3})).encode())
    later = record("a", (6, 1), hall={"x": 5})  # republished after a late hall answer
    chto.handle("chgk/t1/record", json.dumps(later).encode())
    view = chto.view()
    assert view["consolation"]["x"] == 5 and not view["conflicts"]


def test_the_last_finalist_needs_no_second_stage_game(tmp_path: Path) -> None:
    """Found in review: 003 5.8 takes the last series' finalist by right; the season does not
    wait for a second-stage game of it."""
    from console.season.belgorod import FirstStage
    from console.season.belgorod import decide as decide_belgorod

    teams = [Team(f"t{n}", f"К{n}") for n in range(1, 5)]
    first = FirstStage({"t1": 1, "t2": 2, "t3": 3}, ("t1",))
    second = {f"second_stage:t{n}": GameResult(f"second_stage:t{n}", "second_stage", f"t{n}", 2, 6)
              for n in range(1, 4)}
    s = decide_belgorod(teams, first, second, [], last_finalist="t4")
    assert set(s.entrants) == {"t1", "t4"} and "выбор капитанов" in s.waiting[0]


# ---------------------------------------------------------------------- found at a season's run-through


def belgorod_service(tmp_path: Path, teams: int = 3) -> SeasonService:
    path = tmp_path / "season.toml"
    path.write_text('[season]\nformat = "belgorod"\ndatabase = "s.db"\nlast_finalist = "t1"\n'
                    '[page]\nhttp_port = 0\n'
                    + "".join(f'[[teams]]\nid = "t{n}"\nname = "Команда {n}"\n' for n in range(1, teams + 1)),
                    encoding="utf-8")
    return SeasonService(load_season_config(str(path)))


def table_game(team: str, score: tuple[int, int], started: int, **more: Any) -> bytes:
    """A record of the table game that began at `started` (its name in every version of it)."""
    return json.dumps({**record(team, score, **more), "started_at_ns": started}).encode()


def games_of(service: SeasonService) -> dict[str, list[int]]:
    return {g["game"]: g["score"] for g in service.view()["games"]}


def test_a_backup_is_refused_where_there_is_no_season_or_the_target_is_not_a_database(tmp_path: Path) -> None:
    """`season --backup` with a mistyped database path made an empty season and "backed it up";
    onto a file that is not a database it failed with a traceback. Both are refused, naming why,
    and nothing is made or overwritten."""
    from console.season.cli import main_season

    path = config(tmp_path)
    assert main_season(str(path), str(tmp_path / "copy.db")) == 1
    assert not (tmp_path / "db" / "season.db").exists() and not (tmp_path / "copy.db").exists()
    SeasonDb(tmp_path / "db" / "season.db").close()
    notes = tmp_path / "notes.db"
    notes.write_text("не база данных\n" * 100, encoding="utf-8")
    assert main_season(str(path), str(notes)) == 1
    assert notes.read_text(encoding="utf-8").startswith("не база данных")
    assert main_season(str(path), str(tmp_path / "copy.db")) == 0 and (tmp_path / "copy.db").exists()


def test_a_belgorod_tables_game_is_told_from_another_by_the_game_its_record_names(tmp_path: Path) -> None:
    """003 5.6 and 5.8: a team's table game is its second-stage game, its next one its series
    game. A second-stage record published again with a late hall answer, or corrected to another
    score, is that game still (until now the first became a series game); a series game with
    the same score as the team's second-stage game is a series game (until now dropped as a
    repeat). From another table too."""
    service = belgorod_service(tmp_path)
    service.handle("chgk/t2/events", table_game("t2", (2, 6), 100))
    service.handle("chgk/t2/record", table_game("t2", (2, 6), 100, hall={"t3": 1}))  # a late hall answer
    service.handle("chgk/t2/record", table_game("t2", (3, 6), 100, hall={"t3": 1}))  # a verdict corrected
    assert games_of(service) == {"second_stage:t2": [3, 6]}
    service.handle("chgk/t3/events", table_game("t2", (3, 6), 900))  # its series game, the same score
    service.handle("chgk/t3/record", table_game("t2", (3, 6), 900))  # and its retained record
    assert games_of(service) == {"second_stage:t2": [3, 6], "series:t2": [3, 6]}
    service.handle("chgk/t2/record", table_game("t2", (3, 6), 100, hall={"t3": 1}))  # at a restart
    assert games_of(service) == {"second_stage:t2": [3, 6], "series:t2": [3, 6]}
    assert not service.view()["conflicts"]
    # A console too old to name its games: the same result again is still the same game.
    service.handle("chgk/t9/events", json.dumps(record("t3", (6, 2))).encode())
    service.handle("chgk/t9/record", json.dumps(record("t3", (6, 2))).encode())
    assert "series:t3" not in games_of(service)


def test_the_organisers_result_settles_a_conflict_and_stays_settled(tmp_path: Path) -> None:
    """Two tables sent different results for one game (a conflict, counted nowhere new): the
    organiser's typed result is counted instead, the conflict is gone, and the overruled version
    coming again (a table's retained record at each restart) reopens nothing. Each conflict is
    listed once, though it came as the event and as the retained record."""
    service = SeasonService(load_season_config(str(config(tmp_path))))
    service.handle("chgk/t1/events", json.dumps(record("a", (6, 1))).encode())
    for topic in ("chgk/t2/events", "chgk/t2/record"):
        service.handle(topic, json.dumps(record("a", (6, 4))).encode())
    view = service.view()
    assert len(view["conflicts"]) == 1 and view["waiting"][0].startswith("расхождения результатов")
    service.handle("chgk/season/command", json.dumps({"action": "result", "stage": "qualifier", "team": "a",
                                                      "score": [6, 4]}).encode())
    assert games_of(service)["qualifier:a"] == [6, 4]
    service.handle("chgk/t1/record", json.dumps(record("a", (6, 1))).encode())  # the table's, again
    view = service.view()
    assert view["conflicts"] == [] and not view["waiting"][0].startswith("расхождения")
    assert games_of(service)["qualifier:a"] == [6, 4]
    assert [fate for _, _, fate in service.db.arrivals()][-2:] == ["corrected", "overruled"]


def test_a_correction_that_changes_the_finals_pairs_does_not_swap_the_titles(tmp_path: Path) -> None:
    """000 1.6-1.7, 7.2-7.3: the finals were played (Команда a in the main final, Команда b in the
    consolation final); then a's qualifier is corrected so that b reaches the main final and a
    the consolation one. The season does not give a's main-final win to b's title: it waits for
    the organiser, and counts the finals by today's pairs once they are typed again."""
    service = SeasonService(load_season_config(str(config(tmp_path))))

    def typed(**command: Any) -> None:
        service.handle("chgk/season/command", json.dumps({"action": "result", **command}).encode())

    service.handle("chgk/t1/events", json.dumps(record("a", (6, 1), hall={"b": 4})).encode())
    typed(stage="qualifier", team="b", score=[6, 3], consolation={"a": 5, "x": 2})
    typed(stage="qualifier", team="c", score=[2, 6])
    typed(stage="qualifier", team="d", score=[4, 6])
    view = service.view()
    assert (view["main_finalist"], view["consolation_finalist"]) == ("a", "b")
    service.handle("chgk/t1/events", json.dumps(record("a", (8, 6), stage="final", hall={"x": 3})).encode())
    typed(stage="final", team="b", score=[7, 8], consolation={"x": 1})
    titles = {d["step"]: d["teams"] for d in service.view()["decisions"]}
    assert titles["champion"] == ["a"] and titles["silver"] == ["b"]
    typed(stage="qualifier", team="a", score=[6, 5], consolation={"b": 4})  # a's qualifier corrected
    view = service.view()
    assert (view["main_finalist"], view["consolation_finalist"]) == ("b", "a")
    assert "champion" not in {d["step"] for d in view["decisions"]}
    assert "Команда b сыграла утешительный финал, а по нынешним результатам выходит в основной финал" \
        in view["waiting"][0]
    typed(stage="final", team="a", score=[8, 6], consolation={"x": 3})  # counted by today's pairs
    typed(stage="final", team="b", score=[7, 8], consolation={"x": 1})
    titles = {d["step"]: d["teams"] for d in service.view()["decisions"]}
    assert titles["champion"] == ["b"] and titles["silver"] == ["a"] and not service.view()["waiting"]


@pytest.mark.parametrize(("command", "said"), [
    ({"score": [6]}, "счёт — два числа через двоеточие"),
    ({"score": [None, 2]}, "счёт — два числа через двоеточие"),
    ({"score": "6:2"}, "счёт — два числа через двоеточие"),
    ({"score": [6, 2], "consolation": {"x": None}}, "баллы зала — команда=число"),
    ({"score": [6, 2], "consolation": {"zz": 3}}, "в баллах зала команды, которых нет в сезоне: zz"),
    ({"score": [6, 2], "team": "x"}, "не заявлена и играет только в зале (000 1.4)"),
    ({"score": [6, 2], "indicators": {"won_superblitz": "да"}}, "показатели 000 1.6.1"),
])
def test_a_typed_result_that_cannot_be_counted_is_refused_in_russian(tmp_path: Path, command: dict[str, Any],
                                                                      said: str) -> None:
    """What the organiser mistypes (a score without its second number, a word for a number, a
    team that is not in the season among the hall's points, a qualifier of a team that did not
    register, 000 1.4) is refused with what was wrong, in Russian, and the season is unchanged."""
    service = SeasonService(load_season_config(str(config(tmp_path))))
    service.handle("chgk/season/command", json.dumps({"action": "result", "stage": "qualifier", "team": "a",
                                                      **command}).encode())
    events = list(service.said)  # what the page is told
    assert [e["type"] for e in events] in (["command_refused"], ["result_foreign"]), events
    assert said in events[0]["message"] and games_of(service) == {}


def test_a_ruling_is_taken_by_the_names_shown_and_only_where_it_settles_a_tie(tmp_path: Path) -> None:
    """000 1.7: b and x are level for the consolation final. A ruling naming a team not among
    the level ones is refused (it would lie unused while the season waits); one naming a level
    team by the name the page shows is taken, and the decision log has it at once."""
    service = SeasonService(load_season_config(str(config(tmp_path))))
    for team, score in zip(TEAMS, [(6, 1), (6, 4), (2, 6), (4, 6)], strict=True):
        service.handle("chgk/season/command", json.dumps(
            {"action": "result", "stage": "qualifier", "team": team, "score": list(score),
             "consolation": {"x": 2, "b": 2} if team == "a" else {}}).encode())
    ruling = {"action": "ruling", "step": "consolation_final", "why": "жребий"}
    service.handle("chgk/season/command", json.dumps({**ruling, "teams": ["c"]}).encode())
    assert "решение не принято" in service.said[-1]["message"] and service.db.rulings() == {}
    service.handle("chgk/season/command", json.dumps({**ruling, "teams": ["Гости"]}).encode())
    view = service.view()
    assert view["consolation_finalist"] == "x" and any("жребий" in d["text"] for d in view["log"])


def test_a_closed_sheet_that_cannot_be_taken_holds_the_season_and_says_why(tmp_path: Path) -> None:
    """003 5.2-5.5: the first stage comes from the jury's closed sheet. One the season cannot
    take (here a team it does not know) was refused with no trace on the page but a passing
    event: «Дальше» now says it was not taken and why, until a sheet that can be taken comes."""
    from console.engine.sports.sheet import Sheet, SheetRules, TeamEntry
    from console.engine.sports.stage import SportsStage
    from console.engine.sports.timer import SportsRules
    from console.games.sports.kind import edit

    service = belgorod_service(tmp_path)
    entries = [TeamEntry(1, "Команда 1"), TeamEntry(2, "Команда 2"), TeamEntry(3, "Чужие")]
    stage = SportsStage(SportsRules(), Sheet.with_teams(SheetRules(), entries))
    for n in (1, 2, 3):
        stage.handle(edit({"action": "set_team", "team": n, "tour": 1, "mask": "1" * (12 - n) + "0" * n},
                          1, "jury"), 1)
    stage.handle(edit({"action": "close_sheet"}, 2, "jury"), 2)
    for suffix in ("teams", "jury"):
        service.handle(f"chgk/t1/sheet/{suffix}", json.dumps(stage.parts()[suffix]).encode())
    view = service.view()
    assert view["first_stage"] is None
    assert view["waiting"][0].startswith("протокол жюри со стола t1 не принят: "), view["waiting"]


def test_a_game_typed_by_mistake_is_taken_out_but_a_tables_is_corrected_instead(tmp_path: Path) -> None:
    """000 1.6.1 е: two teams equal on everything play «вприсядку»; a second winner typed by
    mistake left the season waiting with no way out but overwriting it with 0:0. The organiser
    takes the mistaken game out (kept among the arrivals as removed); a table's game is not
    taken out (its retained record would bring it back): typing the right result replaces it."""
    service = SeasonService(load_season_config(str(config(tmp_path))))

    def command(**c: Any) -> None:
        service.handle("chgk/season/command", json.dumps(c).encode())

    service.handle("chgk/t1/events", json.dumps(record("a", (6, 3))).encode())
    for team, score in (("b", (6, 3)), ("c", (2, 6)), ("d", (4, 6))):
        command(action="result", stage="qualifier", team=team, score=list(score))
    assert service.view()["waiting"][0].startswith("игра вприсядку: Команда a, Команда b")
    command(action="result", stage="vprisyadku", team="a", score=[6, 2])
    command(action="result", stage="vprisyadku", team="b", score=[6, 4])  # a slip: b lost
    assert service.view()["waiting"][0].startswith("игра вприсядку: победитель один")
    command(action="remove_result", game="vprisyadku:b")
    view = service.view()
    assert view["main_finalist"] == "a" and "vprisyadku:b" not in games_of(service)
    assert service.db.arrivals()[-1] == ("vprisyadku:b", "hand", "removed")
    command(action="remove_result", game="qualifier:a")
    assert "пришла со стола t1" in service.said[-1]["message"] and "qualifier:a" in games_of(service)


def test_the_organisers_word_on_a_tables_game_confirms_keeps_what_is_left_empty_and_is_taken_back(
        tmp_path: Path) -> None:
    """Found in a second run-through. Typing the result already counted settles a conflict
    about it (it said «уже учтён» and the conflict stayed); a correction typed with the hall's
    points left empty keeps the table's (they were erased, 000 1.7); taking the correction out
    counts the table's game again and reopens what it had settled (the game was left with no
    result at all)."""
    service = SeasonService(load_season_config(str(config(tmp_path))))

    def typed(**c: Any) -> None:
        command = {"action": "result", "stage": "qualifier", **c}
        service.handle("chgk/season/command", json.dumps(command).encode())

    service.handle("chgk/t1/events", json.dumps(record("a", (6, 1), hall={"x": 3})).encode())
    service.handle("chgk/t2/events", json.dumps(record("a", (6, 4))).encode())  # a conflict
    typed(team="a", score=[6, 1])  # the counted one is right
    assert not service.view()["conflicts"] and service.db.arrivals()[-1][2] == "corrected"
    typed(team="a", score=[6, 2])  # a slip in the score; the hall's points not typed
    assert games_of(service)["qualifier:a"] == [6, 2] and service.view()["consolation"]["x"] == 3
    service.handle("chgk/season/command", b'{"action": "remove_result", "game": "qualifier:a"}')
    view = service.view()
    assert games_of(service)["qualifier:a"] == [6, 1]  # the table's again
    assert [c["source"] for c in view["conflicts"]] == ["t2"]  # and its conflict open again


def test_a_belgorod_series_game_is_only_an_entrants_and_the_last_finalist_plays_no_second_stage(
        tmp_path: Path) -> None:
    """003 5.8: the series is the stages' winners and the last series' finalist. A series result
    for a team outside it was counted; the last finalist, not in the sports stage, had its table
    game filed as a second-stage game and the series waited for it forever."""
    service = belgorod_service(tmp_path, teams=4)  # last_finalist = "t1"
    service.handle("chgk/season/command", json.dumps(
        {"action": "first_stage", "places": {"t2": 1, "t3": 2, "t4": 3}, "winners": ["t2"]}).encode())
    for started, (team, score) in enumerate((("t2", (2, 6)), ("t3", (6, 2)), ("t4", (1, 6)))):
        service.handle("chgk/tb/events", table_game(team, score, 100 + started))
    assert set(service.view()["entrants"]) == {"t1", "t2", "t3"}  # t4 won neither stage
    service.handle("chgk/season/command", json.dumps(
        {"action": "result", "stage": "series", "team": "t4", "score": [6, 3]}).encode())
    assert "не в серии (003 5.8)" in service.said[-1]["message"] and "series:t4" not in games_of(service)
    service.handle("chgk/tb/events", table_game("t1", (6, 4), 5000))  # the revanche
    assert games_of(service)["series:t1"] == [6, 4] and "second_stage:t1" not in games_of(service)


def test_a_first_stage_changed_after_games_were_played_on_it_waits_for_the_organiser(tmp_path: Path) -> None:
    """003 5.5-5.8: the second stage, BINGO and the series follow from the first stage. A sheet
    the jury reopened and closed again, changed, after second-stage games were played replaced
    the first stage silently (a series team dropped out); now the season says the sheet is
    reopened, keeps the first stage it played on, and holds the changed one until the organiser
    takes it."""
    from console.engine.sports.sheet import Sheet, SheetRules, TeamEntry
    from console.engine.sports.stage import SportsStage
    from console.engine.sports.timer import SportsRules
    from console.games.sports.kind import edit

    service = belgorod_service(tmp_path, teams=6)
    stage = SportsStage(SportsRules(), Sheet.with_teams(SheetRules(), [TeamEntry(n, f"Команда {n}")
                                                                      for n in range(1, 7)]))

    def jury(now: int, **command: Any) -> None:
        stage.handle(edit(command, now, "jury"), now)
        for suffix in ("teams", "jury"):
            service.handle(f"chgk/s1/sheet/{suffix}", json.dumps(stage.parts()[suffix]).encode())

    for n in range(1, 7):
        jury(n, action="set_team", team=n, tour=1, mask="1" * (12 - n) + "0" * n)
    jury(10, action="close_sheet")
    assert service.view()["first_stage"]["winners"] == ["t1", "t2", "t3", "t4", "t5"]
    service.handle("chgk/tb/events", table_game("t6", (6, 2), 100))  # a second-stage game
    jury(11, action="reopen_sheet", why="ошибка в протоколе")
    assert service.view()["waiting"][0].startswith("протокол жюри открыт снова (стол s1)")
    jury(12, action="set_team", team=6, tour=2, mask="1" * 12)  # t6 now first
    jury(13, action="close_sheet")
    view = service.view()
    assert view["first_stage"]["winners"] == ["t1", "t2", "t3", "t4", "t5"]  # kept: played on
    assert view["first_stage_held"] and "изменился после того" in view["waiting"][0]
    service.handle("chgk/season/command", b'{"action": "accept_first_stage"}')
    view = service.view()
    assert "t6" in view["first_stage"]["winners"] and not view["first_stage_held"]
