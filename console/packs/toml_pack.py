"""The console's own pack format: one TOML file, written by hand (docs/packs.md).

Contract: `read_toml_pack(path)` gives the `Pack`, or raises `PackError` naming the file and
the problem (the key, with the theme and question numbers). The file::

    name = "Пакет клуба"                 # optional
    [[themes]]
    name = "Реки"                        # required
    round = "Первый раунд"               # optional: consecutive themes of one round
    [[themes.questions]]
    value = 10                           # required, a positive integer
    text = "…"                           # required (or media)
    answer = "…"                         # required
    accept = ["…"]                       # other answers to accept
    wrong = ["…"]                        # answers not to accept
    comment = "…"
    media = ["map.png"]                  # files shown with the question

Unknown keys are errors (a typo must not lose an answer on game day).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from console.packs.model import Pack, PackError, PackQuestion, Round, Theme

__all__ = ["MAX_TOML_BYTES", "read_toml_pack"]

MAX_TOML_BYTES = 4 * 1024 * 1024
_PACK_KEYS = {"name", "themes"}
_THEME_KEYS = {"name", "round", "questions"}
_QUESTION_KEYS = {"value", "text", "answer", "accept", "wrong", "comment", "media"}
DEFAULT_ROUND = "Раунд 1"


def read_toml_pack(path: str | Path) -> Pack:
    source = str(path)
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_TOML_BYTES + 1)
    except FileNotFoundError:
        raise PackError(source, "file not found") from None
    except OSError as exc:
        raise PackError(source, f"cannot read it ({exc.strerror or exc})") from None
    if len(data) > MAX_TOML_BYTES:
        raise PackError(source, f"larger than {MAX_TOML_BYTES} bytes: not a question pack")
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise PackError(source, f"not a SIGame package (not a zip) nor a TOML pack (not UTF-8 text: "
                                f"{exc.reason} at byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise PackError(source, f"not a SIGame package (not a zip) nor a valid TOML pack ({exc})") from None
    except RecursionError:
        raise PackError(source, "not a valid TOML pack (nested too deeply)") from None
    return parse_toml_pack(doc, source)


def parse_toml_pack(doc: dict[str, Any], source: str) -> Pack:
    """The pack in an already-parsed TOML document."""
    _only(doc, _PACK_KEYS, "", source)
    name = _string(doc, "name", "", source, required=False)
    themes_raw = doc.get("themes")
    if not isinstance(themes_raw, list) or not themes_raw:
        raise PackError(source, "themes: at least one [[themes]] is needed")
    rounds: list[tuple[str, list[Theme]]] = []
    for i, raw in enumerate(themes_raw, 1):
        where = f"themes[{i}]"
        if not isinstance(raw, dict):
            raise PackError(source, f"{where}: must be a table ([[themes]])")
        _only(raw, _THEME_KEYS, where, source)
        theme_name = _string(raw, "name", where, source)
        round_name = _string(raw, "round", where, source, required=False) or (
            rounds[-1][0] if rounds else DEFAULT_ROUND)
        questions_raw = raw.get("questions")
        if not isinstance(questions_raw, list) or not questions_raw:
            raise PackError(source, f"{where}.questions: at least one [[themes.questions]] is needed")
        questions = tuple(_question(q, f"{where}.questions[{j}]", source)
                          for j, q in enumerate(questions_raw, 1))
        if not rounds or rounds[-1][0] != round_name:
            rounds.append((round_name, []))
        rounds[-1][1].append(Theme(name=theme_name, questions=questions))
    return Pack(name=name, source=source,
                rounds=tuple(Round(name=n, themes=tuple(ts)) for n, ts in rounds))


def _question(raw: object, where: str, source: str) -> PackQuestion:
    if not isinstance(raw, dict):
        raise PackError(source, f"{where}: must be a table ([[themes.questions]])")
    _only(raw, _QUESTION_KEYS, where, source)
    value = raw.get("value")
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise PackError(source, f"{where}.value: must be a positive integer, got {value!r}"
                        if "value" in raw else f"{where}.value: is required")
    media = _strings(raw, "media", where, source)
    text = _string(raw, "text", where, source, required=not media)
    answer = _string(raw, "answer", where, source)
    shown = [text] if text else []
    shown += [f"media: {m}" for m in media]
    return PackQuestion(
        value=value,
        text="\n".join(shown),
        answer=answer,
        right=(answer, *_strings(raw, "accept", where, source)),
        wrong=_strings(raw, "wrong", where, source),
        comment=_string(raw, "comment", where, source, required=False),
        media=media,
    )


def _only(table: dict[str, Any], allowed: set[str], where: str, source: str) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        prefix = f"{where}." if where else ""
        raise PackError(source, f"{prefix}{unknown[0]}: unknown key (known: {', '.join(sorted(allowed))})")


def _string(table: dict[str, Any], key: str, where: str, source: str, *, required: bool = True) -> str:
    name = f"{where}.{key}" if where else key
    value = table.get(key)
    if value is None:
        if required:
            raise PackError(source, f"{name}: is required")
        return ""
    if not isinstance(value, str):
        raise PackError(source, f"{name}: must be a string, got {value!r}")
    if required and not value.strip():
        raise PackError(source, f"{name}: must not be empty")
    return value.strip()


def _strings(table: dict[str, Any], key: str, where: str, source: str) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise PackError(source, f"{where}.{key}: must be an array of strings")
    return tuple(v.strip() for v in value if v.strip())
