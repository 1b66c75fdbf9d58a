"""Replay the examples and the seeded random scenarios; write or check their recorded outputs.

The recorded outputs (`golden.json` beside this file) were taken from the engines before the
typed-event reshaping (issue 6). `python -m tests.differential.golden --write` records them
anew; it is run only when a rule fix changes a decision on purpose, and the commit says which
scenarios changed and why.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
from pathlib import Path

from console.tools.replay import replay_lines
from tests.differential.scenarios import KINDS, scenario

HERE = Path(__file__).parent
GOLDEN = HERE / "golden.json"
EXAMPLES = HERE.parent.parent / "examples"
SEEDS = {"svoya": 1500, "chgk": 800, "sports": 300}


def replayed(lines: list[str], name: str) -> str:
    """Replay's whole output for `lines`: its events, then its stderr and exit status."""
    out, err = io.StringIO(), io.StringIO()
    status = replay_lines(lines, name, out, err)
    return f"{out.getvalue()}--- stderr\n{err.getvalue()}--- exit {status}\n"


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def current() -> dict[str, str]:
    """Every scenario's output digest, keyed "<kind>:<seed>" and "example:<file>"."""
    found: dict[str, str] = {}
    for path in sorted(EXAMPLES.glob("*.jsonl")):
        lines = path.read_text(encoding="utf-8").splitlines()
        found[f"example:{path.name}"] = digest(replayed(lines, path.name))
    for kind in KINDS:
        for seed in range(SEEDS[kind]):
            found[f"{kind}:{seed}"] = digest(replayed(scenario(kind, seed), f"{kind}-{seed}"))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="record the current outputs")
    parser.add_argument("--only", metavar="PREFIX", default="",
                        help='with --write: re-record only the keys starting with PREFIX ("svoya:", '
                             '"example:chgk"), keeping the other recordings as they are')
    args = parser.parse_args()
    now = current()
    recorded = json.loads(GOLDEN.read_text(encoding="utf-8"))
    if args.write:
        kept = {k: v for k, v in recorded.items() if not k.startswith(args.only)} if args.only else {}
        new = {k: v for k, v in now.items() if k.startswith(args.only)}
        GOLDEN.write_text(json.dumps({**kept, **new}, indent=0, sort_keys=True) + "\n", encoding="utf-8")
        changed = sorted(k for k in new if recorded.get(k) != new[k])
        print(f"recorded {len(new)} outputs in {GOLDEN}; {len(changed)} changed: {changed[:50]}")
        return
    changed = sorted(k for k in recorded if now.get(k) != recorded[k])
    print(f"{len(changed)} of {len(recorded)} changed: {changed[:50]}")


if __name__ == "__main__":
    main()
