"""The refusal table (console/engine/refusals.py): every code has Russian words, every field a
text names is one the engines give, and every code is given somewhere (issue 30: a refusal is a
code for a program, its Russian text in one table)."""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

from console.engine.events import refusal
from console.engine.refusals import TEXTS, Why, why
from console.schemas import load_schema

ENGINE = Path(__file__).resolve().parents[1] / "console" / "engine"
CYRILLIC = re.compile("[а-яё]", re.IGNORECASE)


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_code_has_russian_words_and_only_one_text() -> None:
    assert set(TEXTS) == set(Why)
    for code, text in TEXTS.items():
        assert CYRILLIC.search(text), code
    assert len(set(TEXTS.values())) == len(TEXTS)  # two codes for one text would be one code


def test_every_code_is_given_by_an_engine_with_the_fields_its_text_names() -> None:
    """Each `why(Why.X, ...)` in the engines fills exactly the fields of X's text (a missing one
    would raise when the host meets it; an extra one is a value the words forgot)."""
    given: set[str] = set()
    for path in ENGINE.rglob("*.py"):
        if path.name == "refusals.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and getattr(node.value, "id", None) == "Why":
                given.add(node.attr)
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "why"):
                continue
            first = node.args[0]
            codes = ([first.attr] if isinstance(first, ast.Attribute)
                     else [b.attr for b in (first.body, first.orelse) if isinstance(b, ast.Attribute)]
                     if isinstance(first, ast.IfExp) else [])
            names = {k.arg for k in node.keywords if k.arg}
            for name in codes:
                assert fields(TEXTS[Why[name]]) == names, f"{path.name}:{node.lineno}: {name} given {names}"
    assert given == {code.name for code in Why}, set(Why.__members__) ^ given


def test_a_refusal_carries_its_code_and_its_words() -> None:
    refused = refusal(5, "correct", why(Why.NO_PLAYER, player="p9", players="p1, p2"), "idle")
    assert refused.details == {"action": "correct", "phase": "idle", "code": "no_player",
                               "reason": "нет игрока «p9» (игроки: p1, p2)"}
    assert refused.message == "«Верно» сейчас нельзя: нет игрока «p9» (игроки: p1, p2)"


def test_a_text_missing_a_field_fails_loudly_not_with_a_brace() -> None:
    with pytest.raises(KeyError):
        _ = why(Why.NO_PLAYER, player="p9").text


@pytest.mark.parametrize("kind", ["event", "table_event"])
def test_the_published_schemas_list_every_code(kind: str) -> None:
    """A display author validates a refusal's `details.code` against the schema's list."""
    assert load_schema(kind)["$defs"]["refusal_code"]["enum"] == [code.value for code in Why]
