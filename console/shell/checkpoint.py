"""Checkpoints in the journal: the referee's whole state now and then, so a resume replays only
what came after the last one, however long the evening.

Contract: `checkpoint_line(engine, at_ns, inputs, own_settings)` is a journal line
``{"checkpoint": …, "code": …, "at_ms": …, "inputs": …, "own_settings": …}`` holding the
engine (pickled, base64) as it is after the journal's lines before it, `at_ns` the last time
those lines know (engine ns); `read_checkpoint(text)` gives it back as a `Checkpoint`, or None
when the line is not one, is damaged, or was written by other code (`code`: a fingerprint of
the engines' and games' sources and the Python version): a resume then replays the journal
from its start, as without checkpoints. `is_checkpoint(text)` tells such a line apart
cheaply (replay skips them: they add nothing to what the lines say).

Why pickle: the engines are plain Python objects (dataclasses, lists, a seeded Random), and a
generic snapshot must hold every one of them exactly, or a resumed referee would differ from
the one that ran. Unpickling runs code, so a checkpoint is unpickled only when it carries this
console's own signature (`sig`: an HMAC-SHA256 of the code fingerprint and the blob under
`checkpoint_key(journal)`, a secret made on first use beside the configured journal, readable by
the console's user only). A journal written elsewhere, or crafted (`run --resume FILE` of a
file from a USB stick, a journal edited by hand), is replayed from its JSON lines, which run
nothing: its checkpoints are skipped, never unpickled.

What a journal line already holds whole (a chosen pack's themes: `GameKind.referenced`) is not
copied into every checkpoint: `checkpoint_line`'s `refs` (the object's id -> its key) makes the
pickle refer to it by key, and `read_checkpoint`'s `resolve` gives the object back for a key
(read again from the journal's own lines); a key it cannot give makes the checkpoint unusable,
and the journal is replayed from its start, as without one.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import functools
import hashlib
import hmac
import io
import os
import pickle
import secrets
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from console.engine.game import Game
from console.engine.model import NS_PER_MS

__all__ = ["Checkpoint", "Checkpoints", "checkpoint_key", "checkpoint_line", "code_fingerprint",
           "is_checkpoint", "read_checkpoint"]

KEY_FILE = ".checkpoint.key"  # beside the configured journal: this console's signing secret

_PREFIX = '{"checkpoint"'
_SOURCES = ("engine", "games")  # the code a pickled engine is made of (console/<these>)


@dataclass(frozen=True)
class Checkpoint:
    engine: Game[Any]
    at_ns: int  # the last time the journal's lines before it know (engine ns)
    inputs: int  # inputs the engine had been given
    own_settings: bool  # the fight was resumed with its journal's own settings (run --resume)


@functools.cache
def code_fingerprint() -> str:
    """The engines' and games' source files and the Python version, hashed: a checkpoint of
    other code is never unpickled into this one."""
    digest = hashlib.sha256(sys.version.encode())
    root = Path(__file__).resolve().parent.parent
    for folder in _SOURCES:
        for path in sorted((root / folder).rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:32]


_UNSAVED: dict[Path, bytes] = {}  # keys this process made but could not write yet (a full card)


def checkpoint_key(journal: str | Path, *, create: bool = False) -> bytes | None:
    """The console's secret for its checkpoints, in the folder of the configured journal
    (`[console] journal`), mode 0600. A reader (a resume) gets None when there is none: no
    checkpoint is then unpickled, the whole journal is replayed. The writer (`create`) makes
    it on first use; on a card that takes nothing it keeps one in memory, so this start's
    checkpoints wait with the journal's other lines, and writes it as soon as it can (until
    then a resume replays the whole journal: slower, never wrong)."""
    if not str(journal):
        return None
    path = Path(journal).parent / KEY_FILE
    try:
        key = path.read_bytes()
        if len(key) >= 32:
            _UNSAVED.pop(path, None)
            return key
    except FileNotFoundError:
        if not create:
            return None
    except OSError:
        return _UNSAVED.get(path) if create else None
    key = _UNSAVED.setdefault(path, secrets.token_bytes(32))
    # Written beside, then linked into place: a full card or a crash leaves no half key, and of
    # two starts racing the first link wins (and the other's checkpoints are replayed over).
    draft = path.with_name(f"{KEY_FILE}.{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as file:
            file.write(key)
            file.flush()
            os.fsync(file.fileno())
        os.link(draft, path)
        _UNSAVED.pop(path, None)
    except OSError:
        pass  # kept in memory; tried again at the next checkpoint
    finally:
        with contextlib.suppress(OSError):
            draft.unlink()
    return key


def _signature(key: bytes, code: str, blob: str) -> str:
    return hmac.new(key, f"{code}\n{blob}".encode("ascii"), hashlib.sha256).hexdigest()


class _Referring(pickle.Pickler):
    """Pickles the objects of `refs` (by id) as their key (see the module docstring)."""

    def __init__(self, file: io.BytesIO, refs: Mapping[int, str]) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._refs = refs

    def persistent_id(self, obj: Any) -> str | None:
        return self._refs.get(id(obj))


class _Resolving(pickle.Unpickler):
    """Unpickles a key as the object `resolve` gives for it (see the module docstring)."""

    def __init__(self, file: io.BytesIO, resolve: Callable[[str], object]) -> None:
        super().__init__(file)
        self._resolve = resolve

    def persistent_load(self, pid: Any) -> object:
        try:
            return self._resolve(str(pid))
        except KeyError:
            raise pickle.UnpicklingError(f"the journal holds no {pid!r}") from None


def checkpoint_line(engine: Game[Any], at_ns: int, inputs: int, own_settings: bool,
                    key: bytes, refs: Mapping[int, str] | None = None) -> dict[str, Any]:
    """The checkpoint's journal line (see the module docstring); `refs`: id -> key of the
    objects the journal's lines hold (kept alive by the caller while this runs)."""
    buffer = io.BytesIO()
    _Referring(buffer, refs or {}).dump(engine)
    blob = base64.b64encode(buffer.getvalue()).decode("ascii")
    code = code_fingerprint()
    return {"checkpoint": blob, "code": code, "sig": _signature(key, code, blob),
            "at_ms": at_ns / NS_PER_MS, "inputs": inputs, "own_settings": own_settings}


def is_checkpoint(text: str) -> bool:
    return text.lstrip().startswith(_PREFIX)


def _nothing_referenced(ref: str) -> object:
    raise KeyError(ref)


def read_checkpoint(obj: object, key: bytes | None,
                    resolve: Callable[[str], object] = _nothing_referenced) -> Checkpoint | None:
    """A checkpoint line's JSON object back as the engine it holds, when it carries this
    console's signature under `key` (see the module docstring); None otherwise. `resolve`
    gives an object it refers to by key (KeyError: the journal holds none)."""
    if key is None or not isinstance(obj, dict) or obj.get("code") != code_fingerprint():
        return None
    blob, at_ms, inputs, sig = obj.get("checkpoint"), obj.get("at_ms"), obj.get("inputs"), obj.get("sig")
    if not isinstance(blob, str) or not isinstance(at_ms, int | float) or not isinstance(inputs, int):
        return None
    if not isinstance(sig, str) or not hmac.compare_digest(sig, _signature(key, obj["code"], blob)):
        return None  # not this console's: never unpickled
    try:
        # Signed by this console: see above.
        engine = _Resolving(io.BytesIO(base64.b64decode(blob, validate=True)), resolve).load()
    except (binascii.Error, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError,
            ValueError):
        return None
    return Checkpoint(engine, round(at_ms * NS_PER_MS), inputs, obj.get("own_settings") is True)


class Checkpoints:
    """What a console's checkpoints are made of, kept between them: the engine as the journal's
    times have it (`engine`; a resumed one may run ahead of the console's clock by `shift_ns`),
    how many inputs it was given, whether it runs on its journal's own settings (every checkpoint
    says so, and a later restart keeps that choice), and what it holds that a journal line holds
    whole (`refer`: a chosen pack; checkpoints refer to it by key instead of copying it)."""

    def __init__(self, engine: Game[Any], *, shift_ns: int = 0, inputs: int = 0, own_settings: bool = False,
                 references: Mapping[str, object] | None = None) -> None:
        self.engine = engine
        self.shift_ns = shift_ns
        self.inputs = inputs
        self.own_settings = own_settings
        # id -> (key, the object: kept alive, so that its id is never another's)
        self._references = {id(obj): (ref, obj) for ref, obj in (references or {}).items()}

    def refer(self, ref: str, obj: object) -> None:
        self._references[id(obj)] = (ref, obj)

    def line(self, at_ns: int, key: bytes) -> dict[str, Any]:
        """The checkpoint's journal line now (`at_ns`: the journal's time, engine ns)."""
        refs = {i: ref for i, (ref, _) in self._references.items()}
        return checkpoint_line(self.engine, at_ns, self.inputs, self.own_settings, key, refs)
