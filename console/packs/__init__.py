"""Question packs for «Своя игра»: SIGame packages (.siq) and the console's TOML packs.

Contract: `load_pack(path)` reads a pack by its kind (a zip archive: SIGame; otherwise the
TOML format of docs/packs.md) into a frozen `Pack`, or raises one `PackError` whose message
names the file and the problem, whatever went wrong (missing file, not a zip, a zip bomb, bad
XML or TOML, missing fields, a name or text longer than the screens and the broker take:
`check_sizes`, naming the field). A pack is read once, at start; its media files are never
extracted.
"""

from __future__ import annotations

from pathlib import Path

from console.packs.model import Pack, PackError, PackQuestion, Round, Theme
from console.packs.siq import read_siq
from console.packs.toml_pack import read_toml_pack

__all__ = ["MAX_ANSWER", "MAX_NAME", "MAX_TEXT", "Pack", "PackError", "PackQuestion", "Round", "Theme",
           "check_sizes", "load_pack"]

ZIP_MAGIC = b"PK"


def load_pack(path: str | Path) -> Pack:
    """The pack in `path` (see the module docstring)."""
    source = str(path)
    try:
        with open(path, "rb") as f:
            magic = f.read(2)
    except FileNotFoundError:
        raise PackError(source, "file not found") from None
    except IsADirectoryError:
        raise PackError(source, "is a directory, not a pack") from None
    except OSError as exc:
        raise PackError(source, f"cannot read it ({exc.strerror or exc})") from None
    pack = read_siq(path) if magic == ZIP_MAGIC or source.lower().endswith(".siq") else read_toml_pack(path)
    check_sizes(pack)
    return pack


# What one field of a pack may hold: the host's card, the hall's board and the retained state
# carry them, and a message over the broker's 64 KiB is dropped without a word.
MAX_NAME = 200  # the pack's, a round's or a theme's name
MAX_TEXT = 4000  # a question's text (a long one is a page)
MAX_ANSWER = 1000  # an answer, a wrong answer, a comment, an option, a media file's name


def check_sizes(pack: Pack) -> None:
    """PackError naming the first field longer than it may be (where, and how long)."""
    def over(text: str, limit: int, where: str) -> None:
        if len(text) > limit:
            raise PackError(pack.source, f"{where}: {len(text)} знаков, больше {limit}")

    over(pack.name, MAX_NAME, "название пакета")
    for r_no, rnd in enumerate(pack.rounds, 1):
        over(rnd.name, MAX_NAME, f"раунд {r_no}: название")
        for t_no, theme in enumerate(rnd.themes, 1):
            where = f"раунд {r_no}, тема {t_no}"
            over(theme.name, MAX_NAME, f"{where}: название")
            for question in theme.questions:
                at = f"{where}, вопрос за {question.value}"
                over(question.text, MAX_TEXT, f"{at}: текст")
                for field in (question.answer, *question.right, *question.wrong, question.comment,
                              *question.media, *question.options, question.special_note):
                    over(field, MAX_ANSWER, f"{at}: ответ, комментарий или файл")
