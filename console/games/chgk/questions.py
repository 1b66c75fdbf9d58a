"""Questions for the «12-й сектор»: packages in the text format of the ChGK question base.

Contract: `load_questions(path)` reads a package file of db.chgk.info («База вопросов», the text
import format of `chgk/chgkdb-parser`) and returns its questions as frozen `Question`s, or
raises `QuestionFileError` whose message names the file, the line and the problem.
`question_pool(config_source, name)` reads the table's question file once, at the engine's
construction, into the pure `QuestionPool` the table engine draws from (the draw itself is a
rules decision, in console/engine/chgk/question_draw.py, seeded with the game's seed so a replay of
the journal draws the same questions). `Question` lives there too and is re-exported here.

The format, as read here:

* A package is a sequence of blocks separated by blank lines. A block starts with a field line
  `Имя:` (the value may start on the same line: `Ответ: Волга.`) and its text runs until the
  next field line. Field names are matched ignoring case and ё/е, with optional spaces before
  the colon (`Ответ :`). A field line starts in column 0: indented lines are paragraphs of the
  text (the base indents paragraphs by three spaces). The base's hard line breaks are joined:
  a line of 50 characters or more (the base wraps at 70-80) goes on with the next one unless
  that one is indented or blank; a shorter line keeps its break (verse, a list). An editors'
  note of the base (a line `z-checkdb: ...`, any `z-...:`) is kept out of the text, in
  `Question.extra`.
* Package fields: `Чемпионат:` (or `Пакет:`), `Дата:`, `Редактор:`, `Автор:`, and `Тур:`,
  which may appear several times; every question belongs to the latest `Тур:` (None before the
  first). `Дата:`, `Редактор:` and `Автор:` between a `Тур:` and its first question apply to
  that tour only. `URL:`, `Инфо:`, `Вид:`, `Копирайт:`, `Обработан:` and unknown names
  outside a question are accepted and ignored.
* Question fields: `Вопрос N:` (N digits, dotted parts allowed, `Вопрос 12.` also accepted),
  `Ответ:` (required), `Зачет:`/`Зачёт:`, `Незачет:`/`Незачёт:`, `Комментарий:`/`Комментарии:`,
  `Источник:`/`Источники:`, `Автор:`/`Авторы:`. A question without its own `Автор:` takes the
  tour's or the package's. Any other field in a question (`Рейтинг:`, `Вид:`, `Копирайт:`, a
  misplaced `Дата:`, or a name this module does not know) goes to `Question.extra` under the
  name as written.

Leniency rules (documented so that a real-world file is read predictably):

* A field line normally starts a block (follows a blank line). Without the blank line, a
  `Вопрос N` line or a known name alone on its line (`Ответ:`) still starts a field, so a
  forgotten blank line does not merge fields, while `Источник: …` inside a wrapped paragraph
  stays text. An unknown name is taken as a field only alone (`Имя:` and nothing else) at the
  start of a block; otherwise the line is text. `Вопрос` must start with a capital letter.
* Text after a blank line that is not a field line continues the previous field, blank line
  included (the strict parser rejects it; hand-made files have it).
* Inside `<раздатка>…</раздатка>` nothing is a field line; the handout is cut out of the
  question text into `Question.handout`. `(pic: NNN.jpg)` in the question text or handout is cut
  out into `Question.images`. Both are looked for in the question text only; other fields and
  `(aud: …)` references are kept verbatim.

Errors (`QuestionFileError`): undecodable bytes or a NUL byte (a binary or UTF-16 file), an
empty file or one without questions, text before the first field, `Вопрос` without a readable
number, a number used twice in one tour, a question without text or without an answer, a
question field before any question, a field given twice in one question (usually a lost
`Вопрос N:` line), a second `Чемпионат:`, a second `Дата:`/`Редактор:`/`Автор:` in the
header or in one tour, an unclosed or stray `<раздатка>` tag.

Encoding (`load_questions`): an explicit `encoding=` is used as given. Otherwise the bytes are
tried as UTF-8 (a BOM is dropped); if that fails, they are decoded as KOI8-R and as CP1251 and
the decoding that yields more of the ten most frequent Russian letters, in lower case
(о е а и н т с р в л), wins; ties go to KOI8-R, the base's historical encoding. The two
encodings swap the upper- and lower-case Cyrillic ranges, so the wrong one turns running text
into capitals and scores near zero. If neither yields any, the file is reported as
undecodable at the line of the first invalid UTF-8 byte.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

from console.engine.chgk.question_draw import Question, QuestionPool

__all__ = ["Question", "QuestionFileError", "load_questions", "parse_package", "question_file_path",
           "question_pool"]


class QuestionFileError(ValueError):
    """A bad question file: `str()` names the file, the line and the problem."""

    def __init__(self, problem: str, source: str | None = None, line: int | None = None) -> None:
        where = source or ""
        if source is not None and line is not None:
            where = f"{source}:{line}"
        super().__init__(f"{where}: {problem}" if where else problem)
        self.source, self.line, self.problem = source, line, problem


# --- fields -------------------------------------------------------------------------------

_PACKAGE, _DATE, _EDITOR, _TOUR, _IGNORED = "package", "date", "editor", "tour", "ignored"
_QUESTION, _ANSWER, _ACCEPTED, _REJECTED = "question", "answer", "accepted", "rejected"
_COMMENT, _SOURCES, _AUTHORS, _EXTRA = "comment", "sources", "authors", "extra"

# Keys are lower case with ё folded to е.
_KNOWN = {
    "чемпионат": _PACKAGE, "пакет": _PACKAGE, "дата": _DATE, "редактор": _EDITOR,
    "редакторы": _EDITOR, "тур": _TOUR, "url": _IGNORED, "инфо": _IGNORED, "вид": _IGNORED,
    "копирайт": _IGNORED, "обработан": _IGNORED, "рейтинг": _IGNORED,
    "ответ": _ANSWER, "зачет": _ACCEPTED, "незачет": _REJECTED, "комментарий": _COMMENT,
    "комментарии": _COMMENT, "источник": _SOURCES, "источники": _SOURCES, "автор": _AUTHORS,
    "авторы": _AUTHORS,
}
_QUESTION_FIELDS = {_ANSWER: "answer", _ACCEPTED: "accepted", _REJECTED: "rejected",
                    _COMMENT: "comment", _SOURCES: "sources", _AUTHORS: "authors"}

_FIELD_RE = re.compile(r"(?P<name>[^\W\d_]+)[ \t]*:[ \t]*(?P<rest>.*)")
# "Вопрос 1:", "Вопрос 12.", "Вопрос 3 :", "Вопрос 1.:", "Вопрос 2.1:", "Вопрос №4:", "Вопрос 5".
_QUESTION_RE = re.compile(
    r"В(?i:опрос)\s*(?:№\s*)?(?P<num>\d+(?:\.\d+)*)\s*(?:(?:\.\s*:|[.:])\s*(?P<rest>.*))?")
# At the start of a block, a line meant as a question header that cannot be read: "Вопрос:", "Вопрос 1а:".
_BAD_QUESTION_RE = re.compile(r"(?i:вопрос)(?:\s*[.:].*|\s*\S+\s*:\s*)")
_TAG_RE = re.compile(r"<(?P<close>/?)\s*раздатка\s*>", re.IGNORECASE)
_HANDOUT_RE = re.compile(r"<\s*раздатка\s*>(?P<body>.*?)<\s*/\s*раздатка\s*>", re.IGNORECASE | re.DOTALL)
_PIC_RE = re.compile(r"\(\s*pic:\s*(?P<name>[^()\s]+)\s*\)", re.IGNORECASE)
# An editors' note of the base («z-checkdb: ...», «z-...: ...»), on a line of its own anywhere:
# kept with the question's other fields (`Question.extra`), never in the host's text.
_NOTE_RE = re.compile(r"(?P<name>[zZ]-[\w-]+)[ \t]*:[ \t]*(?P<rest>.*)")
# A line at least this long is one the base wrapped (it wraps at 70-80 characters): the next
# line, unless indented (a paragraph's start), continues it. Shorter lines (verse) keep theirs.
_WRAPPED = 50
_CUT = "\x00"  # marks where a handout or picture was cut out


def _fold(name: str) -> str:
    return name.lower().replace("ё", "е")


@dataclass
class _Field:
    kind: str
    label: str  # the name as written
    line: int
    number: str | None = None
    lines: list[str] = field(default_factory=list)

    @property
    def value(self) -> str:
        return _joined(textwrap.dedent("\n".join(self.lines)).strip())


def _joined(text: str) -> str:
    """`text` with the base's hard line breaks joined into paragraphs: a wrapped line (see
    `_WRAPPED`) goes on with the next one unless that one is indented or blank (a paragraph's
    start); a short line keeps its break (verse, lists)."""
    out: list[str] = []
    for line in text.split("\n"):
        if (out and out[-1].strip() and line.strip() and not line[:1].isspace()
                and len(out[-1]) >= _WRAPPED):
            out[-1] = f"{out[-1].rstrip()} {line.strip()}"
        else:
            out.append(line)
    return "\n".join(line.strip() if line.strip() else "" for line in out)


def _header(line: str, block_start: bool, source: str, lineno: int) -> _Field | None:
    """The field that `line` starts, or None if it is text."""
    if m := _QUESTION_RE.fullmatch(line):
        found = _Field(_QUESTION, "Вопрос", lineno, m["num"])
    elif block_start and _BAD_QUESTION_RE.fullmatch(line):
        raise QuestionFileError(f"cannot read the question header {line.strip()!r} (expected «Вопрос N:»)",
                                source, lineno)
    elif m := _FIELD_RE.fullmatch(line):
        name = m["name"]
        kind = _KNOWN.get(_fold(name))
        if kind is None:
            # An unknown name is a field only alone on the first line of a block.
            if not (block_start and not m["rest"] and name[0].isupper()):
                return None
            kind = _EXTRA
        elif not block_start and m["rest"]:
            return None  # "Источник: ..." inside a wrapped paragraph is text
        found = _Field(kind, name, lineno)
    else:
        return None
    if m["rest"]:
        found.lines.append(m["rest"])
    return found


def _split_fields(text: str, source: str) -> tuple[list[_Field], int]:
    """The file's fields in order, and the number of its last non-blank line."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    fields: list[_Field] = []
    current: _Field | None = None
    block_start = True
    handout_from: int | None = None  # line of an open <раздатка>
    for lineno, raw in enumerate(lines, 1):
        line = raw.rstrip()
        note = _NOTE_RE.fullmatch(line.strip()) if handout_from is None else None
        if note is not None:  # out of the text; the field it sits in goes on after it
            if current is not None:
                fields.append(_Field(_EXTRA, note["name"], lineno, lines=[note["rest"]]))
            continue
        starts: _Field | None = None
        if handout_from is None and line.strip():
            starts = _header(line, block_start, source, lineno)
        if starts is not None:
            current = starts
            fields.append(current)
        elif current is None:
            if line.strip():
                raise QuestionFileError(
                    "text before the first field (a package starts with a line like «Чемпионат:»)",
                    source, lineno)
            continue
        else:
            current.lines.append(line)
        block_start = not line.strip() and handout_from is None
        if current.kind == _QUESTION:
            for tag in _TAG_RE.finditer(line):
                if not tag["close"]:
                    if handout_from is not None:
                        raise QuestionFileError(
                            f"<раздатка> inside the <раздатка> opened at line {handout_from}",
                            source, lineno)
                    handout_from = lineno
                elif handout_from is None:
                    raise QuestionFileError("</раздатка> without an opening <раздатка>", source, lineno)
                else:
                    handout_from = None
    if handout_from is not None:
        raise QuestionFileError("<раздатка> is never closed (no </раздатка>)", source, handout_from)
    last = max((n for n, line in enumerate(lines, 1) if line.strip()), default=1)
    return fields, last


# --- questions ----------------------------------------------------------------------------


def _cut_lines(text: str) -> str:
    """Drop lines left empty by cutting, then the marks themselves."""
    kept = [line for line in text.split("\n") if not (_CUT in line and not line.replace(_CUT, "").strip())]
    return "\n".join(kept).replace(_CUT, "").strip()


def _split_question_text(raw: str) -> tuple[str, str | None, tuple[str, ...]]:
    """Question text without handouts and pictures; the handout text; the picture names."""
    handouts: list[str] = []

    def take_handout(m: re.Match[str]) -> str:
        body = textwrap.dedent(m["body"].strip("\n")).strip()
        if body:
            handouts.append(body)
        return _CUT

    text = _HANDOUT_RE.sub(take_handout, textwrap.dedent(raw))
    images: list[str] = []

    def take_pic(m: re.Match[str]) -> str:
        images.append(m["name"])
        return _CUT

    text = _joined(_cut_lines(_PIC_RE.sub(take_pic, text)))
    handout = _cut_lines(_PIC_RE.sub(take_pic, "\n\n".join(handouts))) if handouts else None
    return text, handout or None, tuple(images)


@dataclass
class _Context:
    """Package or tour-level values that questions inherit."""

    date: str | None = None
    editor: str | None = None
    authors: str | None = None
    lines: dict[str, int] = field(default_factory=dict)  # kind -> line where it was given

    def set(self, f: _Field, source: str, where: str) -> None:
        if f.kind in self.lines:
            raise QuestionFileError(
                f"second «{f.label}:» {where} (the first is at line {self.lines[f.kind]})", source, f.line)
        self.lines[f.kind] = f.line
        setattr(self, {_DATE: "date", _EDITOR: "editor", _AUTHORS: "authors"}[f.kind], f.value or None)


class _Builder:
    def __init__(self, source: str) -> None:
        self.source = source
        self.questions: list[Question] = []
        self.tournament: str | None = None
        self.tournament_line: int | None = None
        self.package = _Context()
        self.tour: _Context | None = None
        self.tour_name: str | None = None
        self.numbers: dict[str, int] = {}  # question number -> line, in the current tour
        self.question: _Field | None = None
        self.parts: dict[str, _Field] = {}
        self.extra: dict[str, str] = {}

    def add(self, f: _Field) -> None:
        if f.kind == _PACKAGE:
            self.set_tournament(f)
        elif f.kind in (_QUESTION, _TOUR):
            self.finish_question()
            if f.kind == _QUESTION:
                self.start_question(f)
            else:
                self.tour, self.tour_name, self.numbers = _Context(), f.value or None, {}
        elif self.question is not None:
            self.add_to_question(f)
        elif f.kind in (_DATE, _EDITOR, _AUTHORS):
            if self.tour is not None:
                self.tour.set(f, self.source, "in this tour")
            else:
                self.package.set(f, self.source, "in the package header")
        elif f.kind in _QUESTION_FIELDS:
            raise QuestionFileError(f"«{f.label}:» before any «Вопрос N:»", self.source, f.line)
        # Package-level URL, Инфо, Вид, Копирайт, Обработан, Рейтинг and unknown names: ignored.

    def set_tournament(self, f: _Field) -> None:
        if self.tournament_line is not None:
            raise QuestionFileError(
                f"second «{f.label}:» (one file holds one package; the first is at line "
                f"{self.tournament_line})", self.source, f.line)
        if self.question is not None or self.questions or self.tour is not None:
            raise QuestionFileError(f"«{f.label}:» after the tours or questions began", self.source, f.line)
        self.tournament, self.tournament_line = f.value or None, f.line

    def start_question(self, f: _Field) -> None:
        assert f.number is not None
        if f.number in self.numbers:
            raise QuestionFileError(
                f"question number {f.number} is used twice in this tour (first at line "
                f"{self.numbers[f.number]}); a «Тур:» line missing?", self.source, f.line)
        self.numbers[f.number] = f.line
        self.question, self.parts, self.extra = f, {}, {}

    def add_to_question(self, f: _Field) -> None:
        assert self.question is not None
        if f.kind in _QUESTION_FIELDS:
            if f.kind in self.parts:
                raise QuestionFileError(
                    f"second «{f.label}:» in question {self.question.number} (the first is at line "
                    f"{self.parts[f.kind].line}); a «Вопрос N:» line missing?", self.source, f.line)
            self.parts[f.kind] = f
        elif f.label in self.extra:
            self.extra[f.label] += "\n\n" + f.value
        else:
            self.extra[f.label] = f.value

    def finish_question(self) -> None:
        q = self.question
        if q is None:
            return
        self.question = None
        assert q.number is not None
        text, handout, images = _split_question_text("\n".join(q.lines))
        if not (text or handout or images):
            raise QuestionFileError(f"question {q.number} has no text", self.source, q.line)
        values = {name: (self.parts[kind].value or None) if kind in self.parts else None
                  for kind, name in _QUESTION_FIELDS.items()}
        answer = values.pop("answer")
        if not answer:
            raise QuestionFileError(f"question {q.number} has no «Ответ:»", self.source, q.line)
        tour = self.tour or _Context()
        package = self.package
        self.questions.append(Question(
            number=q.number, text=text, answer=answer,
            accepted=values["accepted"], rejected=values["rejected"], comment=values["comment"],
            sources=values["sources"], authors=values["authors"] or tour.authors or package.authors,
            tournament=self.tournament, tour=self.tour_name,
            date=tour.date or package.date, editor=tour.editor or package.editor,
            handout=handout, images=images, extra=self.extra,
        ))


def parse_package(text: str, name: str = "<text>") -> list[Question]:
    """The questions of one package in the db.chgk.info text format, in file order."""
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise QuestionFileError("the file is empty", name, 1)
    fields, last_line = _split_fields(text, name)
    builder = _Builder(name)
    for f in fields:
        builder.add(f)
    builder.finish_question()
    if not builder.questions:
        raise QuestionFileError("no questions (no «Вопрос N:» line)", name, last_line)
    return builder.questions


# --- files --------------------------------------------------------------------------------

_FREQUENT = frozenset("оеаинтсрвл")  # the ten most frequent letters of Russian text


def _russian_score(text: str) -> int:
    return sum(1 for ch in text if ch in _FREQUENT)


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _decode(data: bytes, source: str, encoding: str | None) -> str:
    if encoding is not None:
        try:
            return data.decode(encoding)
        except LookupError:
            raise QuestionFileError(f"unknown encoding {encoding!r}", source) from None
        except UnicodeDecodeError as exc:
            raise QuestionFileError(
                f"byte 0x{data[exc.start]:02x} is not valid {encoding}", source, _line_of(data, exc.start)
            ) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        utf8_error = exc
    candidates: list[tuple[int, str]] = []
    for legacy in ("koi8-r", "cp1251"):
        try:
            decoded = data.decode(legacy)
        except UnicodeDecodeError:
            continue
        candidates.append((_russian_score(decoded), decoded))
    score, text = max(candidates, key=lambda c: c[0])  # the first (KOI8-R) wins a tie
    if score == 0:
        raise QuestionFileError(
            f"undecodable: byte 0x{data[utf8_error.start]:02x} is not UTF-8, and the file is not "
            "Russian text in KOI8-R or CP1251 either (give the encoding explicitly)",
            source, _line_of(data, utf8_error.start))
    return text


def load_questions(path: str | Path, encoding: str | None = None) -> list[Question]:
    """The questions of a package file; UTF-8, KOI8-R or CP1251 detected unless `encoding` given."""
    source = str(path)
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise QuestionFileError("file not found", source) from None
    except OSError as exc:
        raise QuestionFileError(f"cannot read the file ({exc.strerror})", source) from None
    if (nul := data.find(b"\x00")) >= 0:
        raise QuestionFileError("NUL byte: not a text file (UTF-16 is not supported)", source,
                                _line_of(data, nul))
    return parse_package(_decode(data, source, encoding), source)


# --- picking ------------------------------------------------------------------------------


def question_file_path(config_source: str, name: str) -> Path | None:
    """Where `table.question_file` is: relative to the config file's folder; None when unset."""
    if not name:
        return None
    return Path(config_source).parent / name


def question_pool(config_source: str, name: str) -> QuestionPool:
    """The table's questions, read once when its engine is built (see the module docstring).

    A file that cannot be read is no reason to stop the game: the pool carries the problem and
    the engine reports it when the 12th sector wants a question, as before the engine drew.
    """
    path = question_file_path(config_source, name)
    if path is None:
        return QuestionPool()
    try:
        return QuestionPool(tuple(load_questions(path)))
    except (QuestionFileError, OSError) as exc:
        return QuestionPool(problem=f"cannot read the 12th sector's questions: {exc}")

