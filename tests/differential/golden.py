"""Replay the examples and the seeded random scenarios; write or check their recorded decisions.

Each scenario's replay is recorded as its normalised decisions (`normalised`): the events in
order with the wording taken out (an error's `message`, a cue's `text`, a refusal's reason:
a text change is not a decision change; a refusal's `code` stays) and without the live readings
(`spin_angle`: the top's angle as it turns, not a decision), the line numbers replay refused,
and its exit status. They are kept in `golden.jsonl.gz` beside this file, one JSON line per
scenario (gzip: a few MB of text). `python -m tests.differential.golden --write` records them
anew and lists the scenarios whose decisions changed (run only when a rule fix changes a
decision on purpose; the commit says which and why); `--show KEY` prints a scenario's recorded
and current decisions where they first differ.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from console.tools.replay import replay_lines
from tests.differential.scenarios import KINDS, scenario

HERE = Path(__file__).parent
GOLDEN = HERE / "golden.jsonl.gz"
EXAMPLES = HERE.parent.parent / "examples"
SEEDS = {"svoya": 1500, "chgk": 800, "sports": 300, "quartet": 200, "brainring": 800}
# Keys whose values are wording for people, at any depth (and a refusal's `details.reason`; its
# `details.code` is kept: which reason it was is a decision).
TEXT_KEYS = frozenset({"message", "text"})
LIVE_TYPES = frozenset({"spin_angle"})  # readings, not decisions
_PROBLEM_LINE = re.compile(r"^replay: [^:]+:(\d+):")


def _without_texts(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_texts(v) for k, v in value.items() if k not in TEXT_KEYS}
    if isinstance(value, list):
        return [_without_texts(v) for v in value]
    return value


def normalised(lines: list[str], name: str) -> dict[str, Any]:
    """Replay `lines` and keep what it decided: the events (texts out, no `seq`, no live
    readings), the numbers of the lines it refused, and its exit status."""
    out, err = io.StringIO(), io.StringIO()
    status = replay_lines(lines, name, out, err)
    decisions = []
    for line in out.getvalue().splitlines():
        event = json.loads(line)
        if event["type"] in LIVE_TYPES:
            continue
        event.pop("seq", None)
        if isinstance(event.get("details"), dict):
            event["details"].pop("reason", None)
        decisions.append(_without_texts(event))
    problems = [int(m.group(1)) for m in map(_PROBLEM_LINE.match, err.getvalue().splitlines()) if m]
    return {"decisions": decisions, "refused_lines": problems, "exit": status}


def current(kinds: Sequence[str] = ("example", *KINDS), every: int = 1) -> dict[str, dict[str, Any]]:
    """The scenarios' decisions, keyed "<kind>:<seed>" and "example:<file>": of `kinds`
    ("example" for the examples), every `every`-th seed of each (the fast tier samples)."""
    found: dict[str, dict[str, Any]] = {}
    if "example" in kinds:
        for path in sorted(EXAMPLES.glob("*.jsonl")):
            found[f"example:{path.name}"] = normalised(path.read_text(encoding="utf-8").splitlines(),
                                                       path.name)
    for kind in KINDS:
        if kind in kinds:
            for seed in range(0, SEEDS[kind], every):
                found[f"{kind}:{seed}"] = normalised(scenario(kind, seed), f"{kind}-{seed}")
    return found


def recorded() -> dict[str, dict[str, Any]]:
    with gzip.open(GOLDEN, "rt", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    return {row.pop("key"): row for row in rows}


def write(found: dict[str, dict[str, Any]]) -> None:
    # mtime=0: the same decisions give the same bytes (no spurious change in git).
    with GOLDEN.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
        for key in sorted(found):
            line = json.dumps({"key": key, **found[key]}, ensure_ascii=False, separators=(",", ":"))
            f.write((line + "\n").encode("utf-8"))


def changed(before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]]) -> list[str]:
    """The keys whose decisions differ (or that only one side has), sorted."""
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


def first_difference(before: dict[str, Any] | None, after: dict[str, Any] | None) -> str:
    """Where a scenario's decisions first differ, in a few lines a reader can act on."""
    if before is None or after is None:
        return "recorded only" if after is None else "new (not recorded)"
    for what in ("exit", "refused_lines"):
        if before[what] != after[what]:
            return f"{what}: recorded {before[what]}, now {after[what]}"
    old, new = before["decisions"], after["decisions"]
    for i, (a, b) in enumerate(zip(old, new, strict=False)):
        if a != b:
            return (f"decision {i + 1}:\n  recorded {json.dumps(a, ensure_ascii=False)}\n"
                    f"  now      {json.dumps(b, ensure_ascii=False)}")
    return f"{len(old)} decisions recorded, {len(new)} now (the same up to the shorter)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="record the current decisions")
    parser.add_argument("--only", metavar="PREFIX", default="",
                        help='with --write: re-record only the keys starting with PREFIX ("svoya:", '
                             '"example:chgk"), keeping the other recordings as they are')
    parser.add_argument("--show", metavar="KEY", help="where KEY's decisions first differ")
    args = parser.parse_args()
    now = current()
    before = recorded() if GOLDEN.exists() else {}
    if args.show:
        print(f"{args.show}: {first_difference(before.get(args.show), now.get(args.show))}")
        return
    if args.write:
        kept = {k: v for k, v in before.items() if not k.startswith(args.only)} if args.only else {}
        new = {k: v for k, v in now.items() if k.startswith(args.only)}
        write({**kept, **new})
        moved = changed({k: v for k, v in before.items() if k.startswith(args.only)}, new)
        print(f"recorded {len(new)} scenarios in {GOLDEN}; decisions changed in {len(moved)}:")
        for key in moved:
            print(f"  {key}")
        return
    moved = changed(before, now)
    print(f"{len(moved)} of {len(before)} changed")
    for key in moved[:20]:
        print(f"{key}: {first_difference(before.get(key), now.get(key))}")


if __name__ == "__main__":
    main()
