"""The phones' join code and seat key for the evening, kept so that a restart keeps the seats.

Contract: `evening_keys(path, code, now_s)` returns `EveningKeys` (the join code, the secret the
seats' tokens are made with, and a problem to tell the host or None). With `path` ("" = keep
nothing) it reads the keys kept there for this evening, or makes new ones and keeps them (JSON,
readable by the console's user only, written to a temporary file and renamed over). A restart
(kill -9, the watchdog, a power cut) then finds the same code and key: each phone's stored token
still opens its own seat and nobody types a code again. Keys made the evening before count only
until EVENING_LASTS_S after they were made (a fight may go past midnight: as the journal's resume
does), so a new evening gets a new code. A `code` set in the config is the code whatever is
kept. A file that cannot be read or written costs the restart its seats (new keys, the host
told), never the start.
"""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

__all__ = ["EVENING_LASTS_S", "EveningKeys", "evening_keys"]

EVENING_LASTS_S = 12 * 3600  # keys this old are an earlier evening's


@dataclass(frozen=True)
class EveningKeys:
    code: str
    secret: bytes
    problem: str | None = None


def evening_keys(path: str, code: str, now_s: float) -> EveningKeys:
    """See the module docstring."""
    if not path:
        return _fresh(code)
    kept = Path(path)
    problem: str | None = None
    try:
        found = _read(kept, now_s)
    except (OSError, ValueError) as exc:
        found = None
        problem = f"phones: the kept seats in {kept} cannot be read ({exc}): new seats, phones join again " \
                  "with the new code"
    if found is not None:
        return EveningKeys(code or found.code, found.secret)
    keys = _fresh(code)
    try:
        _write(kept, keys, now_s)
    except OSError as exc:
        problem = problem or (f"phones: cannot keep the seats in {kept} ({exc.strerror or exc}): after a "
                              "restart the phones join again with a new code")
    return EveningKeys(keys.code, keys.secret, problem)


def _fresh(code: str) -> EveningKeys:
    return EveningKeys(code or f"{secrets.randbelow(10_000):04d}", secrets.token_bytes(16))


def _read(path: Path, now_s: float) -> EveningKeys | None:
    """The keys kept at `path` for this evening; None when there are none or they are older."""
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    kept = json.loads(raw)
    if not isinstance(kept, dict):
        raise ValueError("not a JSON object")
    made, code, secret = kept.get("made_s"), kept.get("code"), kept.get("secret")
    if not isinstance(made, (int, float)) or not isinstance(code, str) or not isinstance(secret, str):
        raise ValueError("made_s, code and secret are missing or of the wrong type")
    if not 0 <= now_s - made < EVENING_LASTS_S:
        return None
    return EveningKeys(code, bytes.fromhex(secret))


def _write(path: Path, keys: EveningKeys, now_s: float) -> None:
    part = path.with_name(path.name + ".part")
    body = json.dumps({"made_s": now_s, "code": keys.code, "secret": keys.secret.hex()})
    fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(body)
        f.flush()
        os.fsync(f.fileno())
    os.replace(part, path)
