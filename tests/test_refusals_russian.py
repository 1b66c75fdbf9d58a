"""Every refusal the host can meet is said in Russian: the engines' reasons are shown on the
host's screen as they are (console/data/host.js). Checked over the examples and seeded random
scenarios of every game kind (tests/differential), which are built to try actions out of turn
and meet each engine's refusals, and over the quartet's own scripted fights.
"""

from __future__ import annotations

import io
import json
import re

from console.engine.events import CommandRefused, refusal
from console.engine.refusals import TEXTS, Why, why
from console.games.svoya.texts import describe
from console.tools.replay import replay_lines
from tests.differential.golden import EXAMPLES
from tests.differential.scenarios import KINDS, scenario

CYRILLIC = re.compile("[а-яё]", re.IGNORECASE)
ENGLISH = re.compile("[A-Za-z]{2,} [A-Za-z]{2,}")  # two English words in a row: a sentence left over
SEEDS = 60  # per kind: over 500 refusals of more than 40 reasons (asserted below)


def refusals(lines: list[str], name: str) -> list[dict[str, object]]:
    out = io.StringIO()
    replay_lines(lines, name, out, io.StringIO())
    events = [json.loads(line) for line in out.getvalue().splitlines() if line.startswith("{")]
    return [e for e in events if e.get("type") == "error" and "action" in e.get("details", {})]


def test_every_refusal_gives_its_reason_in_russian() -> None:
    seen: list[dict[str, object]] = []
    for path in sorted(EXAMPLES.glob("*.jsonl")):
        seen += refusals(path.read_text(encoding="utf-8").splitlines(), path.name)
    for kind in KINDS:
        for seed in range(SEEDS):
            seen += refusals(scenario(kind, seed), f"{kind}-{seed}")
    actions = {str(e["details"]["action"]) for e in seen}  # type: ignore[index]
    assert len(seen) > 500 and len(actions) > 20  # the corpus does meet the refusals
    for e in seen:
        details = e["details"]
        assert isinstance(details, dict)
        reason = str(details["reason"])
        assert CYRILLIC.search(reason) and not ENGLISH.search(reason), e
        # The action by its button's Russian name, never its id (console/engine/action_titles.py).
        assert re.fullmatch(r"«[^a-z_»]+» сейчас нельзя: (?s:.+)", str(e["message"])), e
        assert str(e["message"]).endswith(f" сейчас нельзя: {reason}"), e
        # Its code, for a program, names the same words (console/engine/refusals.py).
        code = Why(str(details["code"]))
        assert CYRILLIC.search(TEXTS[code]) and reason.startswith(TEXTS[code].split("{")[0]), e
    codes = {str(e["details"]["code"]) for e in seen}  # type: ignore[index]
    assert len(codes) > 40  # many reasons met, each with its own code


def test_the_terminal_says_a_refusal_with_the_actions_russian_name() -> None:
    """The demo's screen (console/texts.py): the action by its name on the keys' list, then the
    engine's reason; an error without an action (a press from a pad nobody is on) as it is."""
    refused = refusal(1, "next", why(Why.QUESTION_IN_PLAY), "reading")
    assert describe(refused, {}) == ("Нельзя: «объявить стоимость (следующий вопрос)» — "
                                     "идёт вопрос (сначала доиграйте или снимите его)")
    unknown = CommandRefused(t_ns=1, message="нажата кнопка «mcu:7», за которой не закреплён игрок",
                             details={"source": "mcu", "pad": "mcu:7", "at_ns": 1})
    assert describe(unknown, {}) == "Ошибка: нажата кнопка «mcu:7», за которой не закреплён игрок"


def test_the_quartet_terminal_names_its_own_actions_in_russian() -> None:
    """The quartet demo's screen named a refused fight action by its id («name_theme»)."""
    from console.engine.quartet.events import ThemeNamed
    from console.engine.quartet.rules import QuartetAction
    from console.games.quartet.texts import ACTIONS as FIGHT_ACTIONS
    from console.games.quartet.texts import describe as describe_fight

    assert set(FIGHT_ACTIONS) == {a.value for a in QuartetAction}
    refused = refusal(1, "name_theme", why(Why.THEME_NOT_NAMED), "ready")
    assert describe_fight(refused, {}) == ("Нельзя: «назвать тему» — "
                                           "сначала ведущий называет тему (3.6.2, 3.6.3)")
    # A theme named by its number only is said once; a named one keeps its name.
    def named(name: str) -> ThemeNamed:
        return ThemeNamed(t_ns=1, round=1, theme=2, name=name, shootout=False, choose_ends_ns=None)

    assert describe_fight(named("Тема 2"), {}) == "Тема 2"
    assert describe_fight(named("Реки"), {}) == "Тема 2: Реки"


def test_counts_take_their_russian_plural() -> None:
    """Issue 34: «(4 кнопок)» on the simulated box's first line."""
    from console.texts import counted

    words = ("кнопка", "кнопки", "кнопок")
    assert [counted(n, *words) for n in (1, 2, 4, 5, 11, 12, 21, 22, 25, 111)] == [
        "1 кнопка", "2 кнопки", "4 кнопки", "5 кнопок", "11 кнопок", "12 кнопок", "21 кнопка",
        "22 кнопки", "25 кнопок", "111 кнопок"]


def test_a_player_out_on_the_3_s_is_named_without_a_gendered_verb() -> None:
    """Issue 34: «Анна — не начал отвечать вовремя»: the console does not know a player's gender,
    so it says what happened to the answer, not what the player did (004 App.7)."""
    from console.engine.svoya.events import AnswerJudged
    from console.games.svoya.texts import describe

    text = describe(AnswerJudged(t_ns=0, player="p1", correct=False, by="timeout", delta=-10, score=-10,
                                 value=10),
                    {"p1": "Анна"})
    assert text == "Анна: ответ не начат за 3 секунды — неверно, -10 → -10"
