"""SIGame packages (.siq): a zip archive whose content.xml holds the rounds, themes and questions.

Contract: `read_siq(path)` gives the `Pack`, or raises `PackError` naming the file and the
problem. Both layouts of content.xml are read (the format is SIGame's, by Vladimir Khil):

* version 4 (ygpackage3.0): ``question/scenario/atom`` — atoms of type text/say are text,
  image/voice/video are media (``@name`` is a file inside the package), atoms after a
  ``marker`` atom belong to the answer; ``right/answer`` and ``wrong/answer``;
* version 5 (siq_5): ``question/params/param[@name="question"]/item`` — items of type text
  are text, image/audio/video/html are media (``isRef="True"``: a file inside the package);
  a ``param[@name="answer"]`` is what is shown with the answer.

Media are never extracted: the host sees "media: <file>" in the question's text. What is
shown with the answer goes into the comment, after the pack's own comment
(``info/comments``). Element names are matched without their XML namespace.

Special cells (SIGame's question types: v4 ``question/type[@name]`` with its ``param``s, v5
``question/@type`` with ``params/param[@name="theme"|"price"]``) are kept and marked for the
host (`PackQuestion.special`): кот в мешке (cat, bagcat, secret, secretPublicPrice,
secretOpenerPrice), аукцион (auction, stake), ставки всех (stakeAll), без риска (sponsored,
noRisk), отвечают все (forAll). A select question (``answerType`` select) keeps its
``answerOptions``. A cell the sports rules cannot play is left out and named in
`Pack.skipped`: an empty cell (price -1 or none), a cat that gives points with no question
(secretNoQuestion, bagcat knows="never"), a question with nothing to read or no right answer
(an HTML mini-game); the pack is refused only when nothing is left to play.

Hostile archives are refused before they cost memory: the central directory is sized and
counted from the end-of-archive record before `zipfile` reads it, content.xml's declared size
is capped and its bytes are counted while they are inflated; the XML is parsed with defusedxml
(no DTD, no entities).
"""

from __future__ import annotations

import struct
import xml.etree.ElementTree as ET
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path

import defusedxml
import defusedxml.ElementTree as SafeET

from console.packs.model import Pack, PackError, PackQuestion, Round, Theme

__all__ = ["MAX_CONTENT_BYTES", "MAX_DIRECTORY_BYTES", "MAX_ENTRIES", "read_siq"]

MAX_ENTRIES = 20_000  # files in the archive (a big pack has a few thousand media files)
MAX_DIRECTORY_BYTES = 8 * 1024 * 1024  # the archive's central directory
MAX_CONTENT_BYTES = 32 * 1024 * 1024  # content.xml, inflated (a large pack's is ~2 MB)
CONTENT = "content.xml"
_EOCD = b"PK\x05\x06"
_EOCD_SIZE = 22
_CHUNK = 64 * 1024
MEDIA_V4 = {"image", "voice", "video", "audio"}
MEDIA_V5 = {"image", "audio", "video", "html"}


def read_siq(path: str | Path) -> Pack:
    source = str(path)
    _check_directory(path, source)
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile as exc:
        raise PackError(source, f"not a SIGame package: not a valid zip archive ({exc})") from None
    except OSError as exc:
        raise PackError(source, f"cannot read it ({exc.strerror or exc})") from None
    try:
        with archive:
            infos = archive.infolist()
            if len(infos) > MAX_ENTRIES:
                raise PackError(source, f"{len(infos)} files in the archive (at most {MAX_ENTRIES})")
            info = next((i for i in infos if i.filename == CONTENT), None)
            if info is None:
                raise PackError(source, f"no {CONTENT} in the archive (not a SIGame package)")
            data = _read_capped(archive, info, source)
    except (zipfile.BadZipFile, zlib.error, EOFError) as exc:  # a bad CRC, a broken stream
        raise PackError(source, f"{CONTENT} is damaged in the archive ({exc})") from None
    except NotImplementedError as exc:  # an unsupported compression method
        raise PackError(source, f"{CONTENT} cannot be unpacked ({exc})") from None
    except RuntimeError as exc:  # an encrypted entry
        raise PackError(source, f"{CONTENT} cannot be unpacked ({exc})") from None
    except OSError as exc:
        raise PackError(source, f"cannot read it ({exc.strerror or exc})") from None
    return parse_content(data, source)


def _check_directory(path: str | Path, source: str) -> None:
    """Refuse an archive whose central directory is too big or lists too many files, from its
    end-of-archive record, before zipfile builds an object per entry."""
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            tail_size = min(size, _EOCD_SIZE + 0xFFFF)  # the record, then a comment of up to 64 KiB
            f.seek(size - tail_size)
            tail = f.read(tail_size)
    except OSError as exc:
        raise PackError(source, f"cannot read it ({exc.strerror or exc})") from None
    at = tail.rfind(_EOCD)
    if at < 0 or len(tail) - at < _EOCD_SIZE:
        raise PackError(source, "not a SIGame package: not a zip archive")
    entries, directory_bytes = struct.unpack("<HI", tail[at + 10:at + 16])
    # 0xFFFF / 0xFFFFFFFF mean "see the zip64 record": counted again once zipfile has read it.
    if entries != 0xFFFF and entries > MAX_ENTRIES:
        raise PackError(source, f"{entries} files in the archive (at most {MAX_ENTRIES})")
    if directory_bytes != 0xFFFFFFFF and directory_bytes > MAX_DIRECTORY_BYTES:
        raise PackError(source, f"the archive's directory is {directory_bytes} bytes "
                                f"(at most {MAX_DIRECTORY_BYTES})")


def _read_capped(archive: zipfile.ZipFile, info: zipfile.ZipInfo, source: str) -> bytes:
    """content.xml, refused if it says or turns out to be larger than the cap (a zip bomb)."""
    if info.file_size > MAX_CONTENT_BYTES:
        raise PackError(source, f"{CONTENT} is {info.file_size} bytes unpacked "
                                f"(at most {MAX_CONTENT_BYTES}): a zip bomb or not a question pack")
    chunks: list[bytes] = []
    total = 0
    with archive.open(info) as f:
        while chunk := f.read(_CHUNK):
            total += len(chunk)
            if total > MAX_CONTENT_BYTES or total > info.file_size:
                raise PackError(source, f"{CONTENT} unpacks to more than its declared {info.file_size} "
                                        f"bytes (at most {MAX_CONTENT_BYTES}): a zip bomb")
            chunks.append(chunk)
    return b"".join(chunks)


# ---------------------------------------------------------------------- content.xml


def parse_content(data: bytes, source: str) -> Pack:
    """The pack described by a content.xml's bytes (`source` names it in errors)."""
    try:
        root: ET.Element = SafeET.fromstring(data, forbid_dtd=True)
    except ET.ParseError as exc:
        raise PackError(source, f"{CONTENT} is not valid XML ({exc})") from None
    except defusedxml.DefusedXmlException as exc:
        raise PackError(source, f"{CONTENT} is refused: {exc} (DTDs and entities are not allowed)") from None
    except RecursionError:
        raise PackError(source, f"{CONTENT} is nested too deeply") from None
    if _local(root.tag) != "package":
        raise PackError(source, f"{CONTENT}: the root element is <{_local(root.tag)}>, not <package>")
    rounds_el = _child(root, "rounds")
    if rounds_el is None:
        raise PackError(source, f"{CONTENT}: no <rounds>")
    pack = _pack_of(root, rounds_el, source)
    if not any(q for t in pack.played_themes() for q in t.questions):
        why = f" ({len(pack.skipped)} cells left out, the first: {pack.skipped[0]})" if pack.skipped else ""
        raise PackError(source, f"the pack has no questions to play{why}")
    return pack


# SIGame's question types (v4 type names and v5 ones) -> what the console calls them.
SPECIAL = {"cat": "cat", "bagcat": "cat", "secret": "cat", "secretPublicPrice": "cat",
           "secretOpenerPrice": "cat", "auction": "auction", "stake": "auction",
           "stakeAll": "stake_all", "sponsored": "no_risk", "noRisk": "no_risk", "forAll": "for_all"}
PLAIN = {"", "simple"}


class Skipped(Exception):
    """A cell the sports rules cannot play: left out, named in `Pack.skipped`."""


def _pack_of(root: ET.Element, rounds_el: ET.Element, source: str) -> Pack:
    skipped: list[str] = []
    rounds = tuple(_round(r, i, skipped) for i, r in enumerate(_children(rounds_el, "round"), 1))
    return Pack(name=(root.get("name") or "").strip(), source=source, rounds=rounds, skipped=tuple(skipped))


def _round(el: ET.Element, number: int, skipped: list[str]) -> Round:
    name = (el.get("name") or "").strip() or f"Раунд {number}"
    where = f"round {number} «{name}»"
    themes_el = _child(el, "themes")
    themes = () if themes_el is None else tuple(
        _theme(t, i, where, skipped) for i, t in enumerate(_children(themes_el, "theme"), 1))
    return Round(name=name, themes=themes, final=el.get("type") == "final")


def _theme(el: ET.Element, number: int, round_where: str, skipped: list[str]) -> Theme:
    name = (el.get("name") or "").strip()
    where = f"{round_where}, theme {number}"
    if not name:
        name = f"Тема {number}"
        skipped.append(f"{where}: the theme has no name; played as «{name}»")
    where = f"{where} «{name}»"
    questions: list[PackQuestion] = []
    questions_el = _child(el, "questions")
    for i, q in enumerate(() if questions_el is None else _children(questions_el, "question"), 1):
        try:
            questions.append(_question(q))
        except Skipped as why:
            skipped.append(f"{where}, question {i}: {why}; left out")
    return Theme(name=name, questions=tuple(questions))


def _question(el: ET.Element) -> PackQuestion:
    price = (el.get("price") or "").strip()
    if not price:
        raise Skipped("no price")
    try:
        value = int(price)
    except ValueError:
        raise Skipped(f"price {price!r} is not a whole number") from None
    if value < 0:
        raise Skipped("an empty cell (price -1)")
    special, note = _special(el)
    params = _child(el, "params")
    scenario = _child(el, "scenario")
    options: tuple[str, ...] = ()
    if params is not None:
        shown = [p for p in _children(params, "param") if p.get("name") == "question"]
        if not shown:
            raise Skipped("no <param name=\"question\"> (nothing to read)")
        question_parts = [part for p in shown for part in _items_v5(p)]
        answer_parts = [part for p in _children(params, "param") if p.get("name") == "answer"
                        for part in _items_v5(p)]
        options = _options(params)
    elif scenario is not None:
        question_parts, answer_parts = _atoms_v4(scenario)
    else:
        raise Skipped("no question content (neither <params> nor <scenario>)")
    texts = [text for text, _ in question_parts if text]
    if not texts:
        raise Skipped("the question is empty")
    right_el = _child(el, "right")
    right = () if right_el is None else _answers(right_el)
    if not right:
        raise Skipped("no right answer (<right><answer>): the host could not judge it")
    wrong_el = _child(el, "wrong")
    wrong = () if wrong_el is None else _answers(wrong_el)
    comments = [_text_of(_child(info, "comments")) for info in _children(el, "info")]
    comment = "\n".join([c for c in comments if c] + [text for text, _ in answer_parts if text])
    return PackQuestion(
        value=value,
        text="\n".join(texts),
        answer=right[0],
        right=right,
        wrong=wrong,
        comment=comment,
        media=tuple(m for _, m in question_parts if m is not None),
        special=special,
        special_note=note,
        options=options,
    )


def _special(el: ET.Element) -> tuple[str, str]:
    """The cell's special type and what the pack says of it (its theme, its price), or
    ("", ""); Skipped for one that gives points with no question to play."""
    type_el = _child(el, "type")
    if type_el is not None:  # v4: <type name="cat"><param name="theme">...</param>...</type>
        kind = (type_el.get("name") or "").strip()
        found = {p.get("name"): _text_of(p) for p in _children(type_el, "param")}
    else:  # v5: <question type="secret"> with params theme and price
        kind = (el.get("type") or "").strip()
        params = _child(el, "params")
        found = {} if params is None else {p.get("name"): _text_of(p) for p in _children(params, "param")
                                           if p.get("name") in ("theme", "price")}
        found["cost"] = found.pop("price", "")
    if kind == "secretNoQuestion" or (kind == "bagcat" and found.get("knows") == "never"):
        raise Skipped("a cat in the bag with no question (its points are given at once)")
    if kind in PLAIN:
        return "", ""
    special = SPECIAL.get(kind)
    if special is None:
        raise Skipped(f"a question of an unknown type {kind!r}")
    details = [f"тема «{found['theme']}»" if found.get("theme") else "",
               f"стоимость {found['cost']}" if found.get("cost") else ""]
    return special, ", ".join(d for d in details if d)


def _options(params: ET.Element) -> tuple[str, ...]:
    """A select question's options (v5 ``answerOptions``: a group of content params), each
    "<its name>: <its text>"; () for any other question."""
    group = next((p for p in _children(params, "param") if p.get("name") == "answerOptions"), None)
    if group is None:
        return ()
    options: list[str] = []
    for option in _children(group, "param"):
        text = " ".join(t for t, _ in _items_v5(option) if t)
        if text:
            options.append(f"{option.get('name') or len(options) + 1}: {text}")
    return tuple(options)


Part = tuple[str, str | None]  # (what the host reads, the media file or None)


def _items_v5(param: ET.Element) -> Iterator[Part]:
    if param.get("type", "simple") != "content":  # a simple parameter: its text is the content
        text = _text_of(param)
        if text:
            yield text, None
        return
    for item in _children(param, "item"):
        kind = item.get("type", "text")
        value = _text_of(item)
        if not value:
            continue
        if kind in MEDIA_V5:
            yield f"media: {value}", value
        else:
            yield value, None


def _atoms_v4(scenario: ET.Element) -> tuple[list[Part], list[Part]]:
    question: list[Part] = []
    answer: list[Part] = []
    target = question
    for atom in _children(scenario, "atom"):
        kind = atom.get("type", "text")
        if kind == "marker":  # what follows is shown with the answer
            target = answer
            continue
        value = _text_of(atom)
        if not value:
            continue
        if kind in MEDIA_V4:
            name = value[1:] if value.startswith("@") else value  # "@name": a file in the package
            target.append((f"media: {name}", name))
        else:
            target.append((value, None))
    return question, answer


def _answers(el: ET.Element) -> tuple[str, ...]:
    return tuple(text for a in _children(el, "answer") if (text := _text_of(a)))


def _text_of(el: ET.Element | None) -> str:
    return "" if el is None else "".join(el.itertext()).strip()


def _local(tag: object) -> str:
    return str(tag).rpartition("}")[2]


def _children(el: ET.Element, name: str) -> Iterator[ET.Element]:
    return (c for c in el if _local(c.tag) == name)


def _child(el: ET.Element, name: str) -> ET.Element | None:
    return next(_children(el, name), None)
