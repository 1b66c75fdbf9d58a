"""Issue 6's differential check: every example and 2,600 seeded random scenarios replay to
the same output (events, errors, exit status) as the engines before the typed-event reshaping.

A rule fix that changes a decision on purpose re-records the outputs
(`python -m tests.differential.golden --write`) in its own commit, naming what changed.
"""

from __future__ import annotations

import json

from tests.differential.golden import GOLDEN, current


def test_every_scenario_replays_as_recorded() -> None:
    recorded = json.loads(GOLDEN.read_text(encoding="utf-8"))
    now = current()
    assert now.keys() == recorded.keys()
    changed = sorted(k for k in recorded if now[k] != recorded[k])
    assert not changed, f"{len(changed)} scenarios replay differently: {changed[:20]}"
