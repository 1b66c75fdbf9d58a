"""«Своя игра»'s packs on the disk: what a fight plays of a pack, the packs the host may choose
on the tablet, and the input that plays one.

Contract: `fight_rounds(pack)` gives the pack's rounds a fight can play, each with its themes
as the referee plays them (questions of positive value, in ascending order: 004 App.2; the
final round's bets are not played). `catalogue(folder)` lists the packs of a folder (`.siq`
and `.toml`) for the tablet: each `{"file", "name", "rounds": [{"name", "themes"}]}`, or
`{"file", "problem"}` for one that cannot be played. `choice(path, round, at)` reads one and
gives the `ChoosePack` that plays it from round `round`, or raises `PackError` saying why not.
These read files: the console calls them off its loop. `choice_line(choice)` is the input's
journal line (the pack whole), `choice_from_line(line, at)` reads one back.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

from console.engine.svoya.pack_choice import CHOOSE_PACK, ChoosePack
from console.engine.svoya.rules import HostCard, PackTheme
from console.packs import Pack, PackError, load_pack

__all__ = ["PACK_SUFFIXES", "catalogue", "choice", "choice_from_line", "choice_line", "fight_rounds"]

PACK_SUFFIXES = (".siq", ".toml")
_CARD_LISTS = ("wrong", "media", "options")  # a card's fields that are tuples of text
MAX_LISTED = 200  # a folder of more packs than a tablet's list can show is cut here
# The list goes out in the retained status: it stays well under the broker's 64 KiB (150 packs
# with long Cyrillic names made 87 KB); the packs past it are said, not listed.
LIST_BUDGET_BYTES = 32 * 1024


def fight_rounds(pack: Pack) -> tuple[tuple[str, tuple[PackTheme, ...]], ...]:
    """The pack's rounds a fight plays, each (its name, its themes), in the pack's order."""
    rounds = []
    for number, r in enumerate((r for r in pack.rounds if not r.final), 1):
        themes = tuple(
            PackTheme(name=t.name, cards=tuple(
                HostCard(value=q.value, text=q.text, answer=" / ".join(q.right), comment=q.comment,
                         wrong=q.wrong, media=q.media, special=q.special, special_note=q.special_note,
                         options=q.options)
                # Questions of a theme are asked in ascending order of value (004 App.2); the final
                # round's zero-price questions are not played.
                for q in sorted(t.questions, key=lambda q: q.value) if q.value > 0))
            for t in r.themes)
        themes = tuple(t for t in themes if t.cards)
        if themes:
            rounds.append((r.name or f"Раунд {number}", themes))
    return tuple(rounds)


def catalogue(folder: Path) -> dict[str, Any]:
    """The packs of `folder` as the tablet lists them (see the module docstring), and
    `problem` when the folder itself cannot be read."""
    # The retained status is public: it names the folder, never the server's path to it (the
    # log and `check-config` say that).
    named = folder.name
    try:
        files = sorted(p for p in folder.iterdir() if p.suffix.lower() in PACK_SUFFIXES and p.is_file())
    except FileNotFoundError:
        return {"folder": named, "packs": [],
                "problem": f"папки пакетов «{named}» нет: создайте её и положите в неё пакеты (.siq, .toml)"}
    except OSError as exc:
        return {"folder": named, "packs": [],
                "problem": f"папка пакетов «{named}» не читается ({exc.strerror})"}
    packs: list[dict[str, Any]] = []
    used, cut = 0, 0
    folder_real = folder.resolve()
    for path in files[:MAX_LISTED]:
        entry = _entry(path, folder_real)
        size = len(json.dumps(entry, ensure_ascii=False).encode("utf-8", "backslashreplace"))
        if used + size > LIST_BUDGET_BYTES:
            cut = len(files[:MAX_LISTED]) - len(packs)
            break
        used += size
        packs.append(entry)
    problem = (f"в папке {len(files)} пакетов: в список поместились первые {len(packs)}; "
               "уберите лишние из папки") if cut or len(files) > MAX_LISTED else None
    return {"folder": named, "packs": packs, "problem": problem}


def _entry(path: Path, folder: Path) -> dict[str, Any]:
    """One file of the folder as the tablet lists it."""
    name = path.name
    shown = name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    if shown != name:  # a name from a Windows stick (cp1251): nothing can name it back to us
        return {"file": shown, "problem": "имя файла не в UTF-8 (записан в Windows?): переименуйте его"}
    if not path.resolve().is_relative_to(folder):
        return {"file": name, "problem": "ссылка на файл вне папки пакетов: не читается"}
    try:
        pack = load_pack(path)
    except PackError as exc:
        return {"file": name, "problem": exc.problem}
    rounds = fight_rounds(pack)
    if not rounds:
        return {"file": name, "problem": "в пакете нет вопросов с положительной ценой"}
    return {"file": name, "name": pack.name or path.stem,
            "rounds": [{"name": rname, "themes": len(themes)} for rname, themes in rounds]}


def choice(path: Path, round_number: int, at: int) -> ChoosePack:
    """The input playing the pack at `path` from its round `round_number` (1-based)."""
    pack = load_pack(path)
    rounds = fight_rounds(pack)
    if not rounds:
        raise PackError(str(path), "в пакете нет вопросов с положительной ценой")
    if not 1 <= round_number <= len(rounds):
        raise PackError(str(path), f"в пакете нет раунда {round_number} (раундов: {len(rounds)})")
    start = sum(len(themes) for _, themes in rounds[:round_number - 1])
    return ChoosePack(at=at, file=str(path.resolve()), name=pack.name or path.stem, round=round_number,
                      round_name=rounds[round_number - 1][0], start=start,
                      themes=tuple(t for _, themes in rounds for t in themes), skipped=pack.skipped)


def choice_line(chosen: ChoosePack) -> dict[str, Any]:
    """The input as the journal writes it (its scenario step's keys beside ``host``)."""
    return {"file": chosen.file, "name": chosen.name, "round": chosen.round, "round_name": chosen.round_name,
            "start": chosen.start, "skipped": list(chosen.skipped),
            "themes": [{"name": t.name, "cards": [asdict(c) for c in t.cards]} for t in chosen.themes]}


def choice_from_line(line: Mapping[str, Any], at: int) -> ChoosePack:
    """The input a journal line or scenario step holds; ValueError names what is wrong."""
    try:
        themes = tuple(PackTheme(str(t["name"]), tuple(_card(card) for card in t["cards"]))
                       for t in line["themes"])
        return ChoosePack(at=at, file=str(line["file"]), name=str(line["name"]), round=int(line["round"]),
                          round_name=str(line["round_name"]), start=int(line["start"]), themes=themes,
                          skipped=tuple(map(str, line.get("skipped", ()))))
    except (KeyError, TypeError) as exc:
        raise ValueError(f"{CHOOSE_PACK}: not a pack as the journal writes it ({exc!r})") from None


def _card(card: Mapping[str, Any]) -> HostCard:
    return HostCard(value=int(card["value"]), text=str(card["text"]), answer=str(card["answer"]),
                    comment=str(card.get("comment", "")), special=str(card.get("special", "")),
                    special_note=str(card.get("special_note", "")),
                    **{k: tuple(map(str, card.get(k, ()))) for k in _CARD_LISTS})
