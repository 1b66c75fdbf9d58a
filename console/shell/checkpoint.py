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
the one that ran. The journal is the console's own file in its own directory (written and
read by the same service user), so unpickling it trusts nothing the console did not write.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import pickle
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from console.engine.game import Game
from console.engine.model import NS_PER_MS

__all__ = ["Checkpoint", "checkpoint_line", "code_fingerprint", "is_checkpoint", "read_checkpoint"]

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


def checkpoint_line(engine: Game[Any], at_ns: int, inputs: int, own_settings: bool) -> dict[str, Any]:
    blob = base64.b64encode(pickle.dumps(engine, protocol=pickle.HIGHEST_PROTOCOL)).decode("ascii")
    return {"checkpoint": blob, "code": code_fingerprint(), "at_ms": at_ns / NS_PER_MS,
            "inputs": inputs, "own_settings": own_settings}


def is_checkpoint(text: str) -> bool:
    return text.lstrip().startswith(_PREFIX)


def read_checkpoint(obj: object) -> Checkpoint | None:
    """A checkpoint line's JSON object back as the engine it holds (see the module docstring)."""
    if not isinstance(obj, dict) or obj.get("code") != code_fingerprint():
        return None
    blob, at_ms, inputs = obj.get("checkpoint"), obj.get("at_ms"), obj.get("inputs")
    if not isinstance(blob, str) or not isinstance(at_ms, int | float) or not isinstance(inputs, int):
        return None
    try:
        engine = pickle.loads(base64.b64decode(blob, validate=True))  # our own file: see above
    except (binascii.Error, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError,
            ValueError):
        return None
    return Checkpoint(engine, round(at_ms * NS_PER_MS), inputs, obj.get("own_settings") is True)
