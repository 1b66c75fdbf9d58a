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
    rounds = tuple(_round(r, i, source) for i, r in enumerate(_children(rounds_el, "round"), 1))
    pack = Pack(name=(root.get("name") or "").strip(), source=source, rounds=rounds)
    if not any(q for t in pack.played_themes() for q in t.questions):
        raise PackError(source, "the pack has no questions to play")
    return pack


def _round(el: ET.Element, number: int, source: str) -> Round:
    name = (el.get("name") or "").strip() or f"Раунд {number}"
    where = f"round {number} «{name}»"
    themes_el = _child(el, "themes")
    themes = () if themes_el is None else tuple(
        _theme(t, f"{where}, theme {i}", source) for i, t in enumerate(_children(themes_el, "theme"), 1))
    return Round(name=name, themes=themes, final=el.get("type") == "final")


def _theme(el: ET.Element, where: str, source: str) -> Theme:
    name = (el.get("name") or "").strip()
    if not name:
        raise PackError(source, f"{where}: the theme has no name")
    where = f"{where} «{name}»"
    questions_el = _child(el, "questions")
    questions = () if questions_el is None else tuple(
        _question(q, f"{where}, question {i}", source)
        for i, q in enumerate(_children(questions_el, "question"), 1))
    return Theme(name=name, questions=questions)


def _question(el: ET.Element, where: str, source: str) -> PackQuestion:
    price = (el.get("price") or "").strip()
    try:
        value = int(price)
    except ValueError:
        raise PackError(source, f"{where}: price {price!r} is not a whole number" if price
                        else f"{where}: no price") from None
    params = _child(el, "params")
    scenario = _child(el, "scenario")
    if params is not None:
        shown = [p for p in _children(params, "param") if p.get("name") == "question"]
        if not shown:
            raise PackError(source, f"{where}: no <param name=\"question\"> (the question's content)")
        question_parts = [part for p in shown for part in _items_v5(p)]
        answer_parts = [part for p in _children(params, "param") if p.get("name") == "answer"
                        for part in _items_v5(p)]
    elif scenario is not None:
        question_parts, answer_parts = _atoms_v4(scenario)
    else:
        raise PackError(source, f"{where}: no question content (neither <params> nor <scenario>)")
    texts = [text for text, _ in question_parts if text]
    if not texts:
        raise PackError(source, f"{where}: the question is empty")
    right_el = _child(el, "right")
    right = () if right_el is None else _answers(right_el)
    if not right:
        raise PackError(source, f"{where}: no right answer (<right><answer>)")
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
    )


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
