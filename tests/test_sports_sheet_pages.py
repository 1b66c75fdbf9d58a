"""The sports stage's sheet kept from the jury's page (/jury) in Chromium against `chgk-console
run` and the shipped broker lockdown, the hall's standings board (/standings) following, and
the results files read back (seed 003 5.2-5.5; the association's rules 1.5, 1.6.1, 1.6.2).

One evening, in order: a tour of 12 questions entered for 20 teams by their numbers; a
dispute marked and decided; an appeal upheld that finds a close answer of another team; a
question removed; a tie across the 5th place shot out; the .xlsx for the rating site read
back with openpyxl. And the lockdown: the jury can change the sheet and nothing else, the
hall reads the standings and not the answers, the host cannot write the jury's sheet.
"""

from __future__ import annotations

import io
import json
import subprocess
import urllib.request
from pathlib import Path

from openpyxl import load_workbook
from playwright.sync_api import Page, expect

from tests.host_screen_pages import (
    BASE,
    LINK_UP,
    WAIT_MS,
    Lockdown,
    Pages,
    click,
    confirm,
    console_with_pages,
)

# Team t answers questions 1..POINTS[t-1] of tour 1 right: 5, 6 and 7 tie on 7 across the 5th place.
POINTS = [11, 10, 9, 8, 7, 7, 7, 5, 4, 4, 3, 3, 2, 2, 1, 1, 1, 0, 0, 0]
TEAMS = "".join(f'[[sports.teams]]\nname = "Команда {n}"\ntown = "Город {n % 3}"\nrating_id = {1000 + n}\n'
                for n in range(1, len(POINTS) + 1))
GAME = f'[game]\nkind = "sports"\n[sports]\n{TEAMS}'


def log_in_as_jury(page: Page, password: str) -> None:
    page.wait_for_selector("#login:not([hidden])")
    page.fill("#login-user", "jury")
    page.fill("#login-password", password)
    page.click("#login-ok")
    page.wait_for_function(LINK_UP)


def taken(jury: Page, text: str) -> None:
    """The jury's last change says `text` (the console took the edit)."""
    expect(jury.locator("#log li").first).to_contain_text(text, timeout=WAIT_MS)


def right_of(question: int) -> list[int]:
    return [t for t, p in enumerate(POINTS, start=1) if p >= question]


def standings_row(board: Page, team: int) -> list[str]:
    return [str(c) for c in board.locator(f'#rows tr[data-team="{team}"] td').all_inner_texts()]


def sub(broker: Lockdown, user: str, topic: str) -> list[str]:
    """The topics `user` may read under `topic` (the retained ones, within a second)."""
    done = subprocess.run(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(broker.port), "-u", user,
                           "-P", broker.passwords[user], "-t", topic, "-v", "-W", "1"],
                          capture_output=True, text=True, timeout=10)
    return sorted({line.split(" ", 1)[0] for line in done.stdout.splitlines() if line})


def retained(broker: Lockdown, user: str, topic: str) -> str:
    """The retained payload on `topic`, read as `user`."""
    done = subprocess.run(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(broker.port), "-u", user,
                           "-P", broker.passwords[user], "-t", topic, "-C", "1", "-W", "5"],
                          capture_output=True, text=True, timeout=10, check=True)
    return done.stdout


def pub(broker: Lockdown, user: str, topic: str, payload: str) -> None:
    subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(broker.port), "-u", user, "-P",
                    broker.passwords[user], "-q", "1", "-t", topic, "-m", payload], check=True, timeout=10)


def jury_page(pages: Pages) -> Page:
    jury = pages.browser.new_context().new_page()
    jury.goto(f"{pages.url}/jury")
    log_in_as_jury(jury, pages.broker.passwords["jury"])
    expect(jury.locator("#chips button")).to_have_count(len(POINTS), timeout=WAIT_MS)
    return jury


def test_a_jury_keeps_the_stage_from_its_page_and_the_hall_and_the_files_follow(tmp_path: Path) -> None:
    journal = str(tmp_path / "journal.jsonl")
    with console_with_pages(tmp_path, GAME, journal=journal, board="/standings") as pages:
        jury, board = jury_page(pages), pages.board
        # 5.2/5.4: tour 1 by question, the right teams' numbers typed (a range for the first ones)
        for q in range(1, 13):
            jury.fill("#q", str(q))
            teams = right_of(q)
            typed = f"1-{teams[-1]}" if q == 1 else " ".join(map(str, teams))
            jury.fill("#q-right", typed)
            jury.press("#q-right", "Enter")
            taken(jury, f"вопрос {q}: верно —")
        expect(board.locator('#rows tr[data-team="1"] td.total')).to_have_text("11", timeout=WAIT_MS)
        assert standings_row(board, 5)[0] == "5–7"  # 5, 6, 7 share 5th-7th

        # 5.4.2 / 1.5: team 8's answer to question 6 disputed, the hall told it is preliminary, decided
        jury.fill("#q", "6")
        jury.fill("#cell-team", "8")
        jury.fill("#cell-answer", "Гагарин")
        jury.click("#cell-dispute")
        taken(jury, "команда 8, вопрос 6: спорный")
        expect(board.locator("#note")).to_contain_text("предварительно", timeout=WAIT_MS)
        jury.fill("#dispute-why", "критерии допускают фамилию")
        jury.click('#disputed li[data-team="8"] button[data-verdict="1"]')
        taken(jury, "спорный ответ команды 8 на вопрос 6 засчитан")
        expect(board.locator('#rows tr[data-team="8"] td.total')).to_have_text("6", timeout=WAIT_MS)

        # A mistyped question or range is refused on the page and nothing is sent (a 0 once wrote
        # question 1's verdicts over; a backward range recorded «верно — никто»).
        jury.fill("#q", "0")
        jury.fill("#q-right", "1")
        jury.click("#q-save")
        expect(jury.locator("#error-text")).to_have_text("«0» — не номер вопроса")
        jury.fill("#q", "3")
        jury.fill("#q-right", "7-3")
        jury.click("#q-save")
        expect(jury.locator("#error-text")).to_contain_text("«7-3» — диапазон задом наперёд")
        jury.click("#error-close")
        taken(jury, "спорный ответ команды 8 на вопрос 6 засчитан")  # still the last change

        # 1.6.1: the answers to question 12 typed; an appeal finds team 2's close answer, not 3's or 4's
        jury.fill("#q", "12")
        for team, answer in ((1, "Пётр Первый"), (2, "петр первый."), (3, "Пётр I"), (4, "Екатерина")):
            jury.fill("#cell-team", str(team))
            jury.fill("#cell-answer", answer)
            jury.click("#cell-answer-save")
            taken(jury, f"команда {team}, вопрос 12: ответ")
        jury.fill("#a-team", "1")
        jury.fill("#a-question", "12")
        jury.click("#a-open")
        expect(jury.locator("#candidates li")).to_have_count(1, timeout=WAIT_MS)
        expect(jury.locator("#candidates li")).to_contain_text("№2")
        jury.fill("#a-why", "допустимая форма имени")
        jury.click("#a-uphold")
        taken(jury, "засчитано командам 1, 2")

        # 1.6.2: question 1 removed for everyone
        jury.fill("#r-question", "1")
        jury.fill("#r-why", "неточность в вопросе")
        jury.click("#r-remove")
        taken(jury, "вопрос 1 снят")

        # 5.5: the stage's last question entered (nobody right); 5, 6, 7 still tie across 5th: a shoot-out
        jury.fill("#q", "36")
        jury.fill("#q-right", "")
        jury.click("#q-save")
        taken(jury, "вопрос 36: верно — никто")
        expect(jury.locator("#shootout-info")).to_contain_text("Вопрос 37: играют команды 5", timeout=WAIT_MS)
        expect(board.locator("#note")).to_contain_text("перестрелка", timeout=WAIT_MS)
        jury.fill("#s-right", "6")
        jury.click("#s-save")
        taken(jury, "вопрос 37: верно — 6")
        expect(board.locator("#title")).to_contain_text("Победители этапа", timeout=WAIT_MS)
        assert board.locator("#rows tr.winner").evaluate_all("rs => rs.map(r => Number(r.dataset.team))") == \
            [1, 2, 3, 4, 6]
        assert standings_row(board, 6)[0] == "5" and standings_row(board, 5)[0] == "6–7"

        # The organiser's tablet adds a team that came late: it is in the jury's sheet at once
        click(pages.host, "add_team")
        pages.host.fill("#field-name", "Опоздавшие")
        pages.host.fill("#field-town", "Курск")
        confirm(pages.host)
        taken(jury, "команда 21 «Опоздавшие» добавлена")
        expect(jury.locator("#chips button")).to_have_count(21, timeout=WAIT_MS)

        # A bad edit is refused with a message naming it, and changes nothing
        jury.fill("#cell-team", "42")
        jury.click("#cell-dispute")
        expect(jury.locator("#error-text")).to_contain_text("нет команды с номером 42", timeout=WAIT_MS)

        # The files: the rating site's .xlsx read back, and the masks
        with urllib.request.urlopen(f"{pages.url}/protocol.xlsx", timeout=60) as answer:
            book = load_workbook(io.BytesIO(answer.read()))
        rows = list(book.active.iter_rows(values_only=True))
        assert list(rows[0]) == ["Team ID", "Название", "Город", *range(1, 37)]
        assert len(rows) == 22
        first = rows[1]
        assert first[:3] == (1001, "Команда 1", "Город 1")
        assert first[3] == "X" and first[4:14] == (1,) * 10 and first[14] == 1  # Q1 removed, Q12 on appeal
        assert rows[8][3 + 5] == 1  # team 8's disputed answer to question 6, decided right
        with urllib.request.urlopen(f"{pages.url}/protocol.txt", timeout=60) as answer:
            masks = answer.read().decode()
        assert "1\tКоманда 1\tX11111111111" + "0" * 24 in masks
        with urllib.request.urlopen(f"{pages.url}/protocol", timeout=60) as answer:
            protocol = answer.read().decode()
        winners = ", ".join(f"Команда {n}" for n in (1, 2, 3, 4, 6))
        assert f"Победители этапа (5, 003 5.5): {winners}" in protocol
        assert "допустимая форма имени" in protocol and "неточность в вопросе" in protocol


def test_the_jury_changes_the_sheet_and_nothing_else(tmp_path: Path) -> None:
    """The lockdown: the jury's account cannot start a count, the host's cannot write the sheet,
    the hall's reads the standings and no answer."""
    with console_with_pages(tmp_path, GAME, board="/standings") as pages:
        jury, broker = jury_page(pages), pages.broker
        pub(broker, "jury", f"{BASE}/host/command", '{"action": "start"}')  # dropped by the broker
        pub(broker, "host", f"{BASE}/jury/command", '{"action": "close_sheet"}')  # dropped
        pub(broker, "display", f"{BASE}/jury/command", '{"action": "close_sheet"}')  # dropped
        jury.fill("#q", "3")
        jury.fill("#q-right", "4")
        jury.click("#q-save")  # the marker: the jury's own edit, taken after the ones above
        taken(jury, "вопрос 3: верно — 4")
        assert "протокол закрыт" not in jury.locator("#status").inner_text()
        state = json.loads(retained(broker, "host", f"{BASE}/state"))
        assert state["phase"] == "idle" and state["question"] == 0  # no count started
        assert sub(broker, "display", f"{BASE}/sheet/#") == [f"{BASE}/sheet/standings"]
        jury_topics = sub(broker, "jury", f"{BASE}/sheet/#")
        assert f"{BASE}/sheet/q/3" in jury_topics and f"{BASE}/sheet/jury" in jury_topics
        # The jury's refusals are the jury's page's, not the host's; a malformed jury command is
        # the jury's too, not a device to check the cable of.
        pub(broker, "jury", f"{BASE}/jury/command", '{"action": "decide", "team": 1, "question": 3, '
                                                    '"verdict": "1", "why": "x"}')  # not disputed
        expect(jury.locator("#error-text")).to_contain_text("не спорный", timeout=WAIT_MS)
        pub(broker, "jury", f"{BASE}/jury/command", "{not json")
        expect(pages.host.locator("#notices")).to_contain_text("Команда жюри не принята", timeout=WAIT_MS)
        assert "кабель" not in pages.host.locator("#notices").inner_text()
        assert pages.host.locator("#refusal").is_hidden()
