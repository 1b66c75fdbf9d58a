"""Issue 6's differential check: every example and the seeded random scenarios of every game
kind replay to the same decisions as recorded (tests/differential/golden.py: the events with
their wording taken out, the refused lines, the exit status).

A rule fix that changes a decision on purpose re-records them
(`python -m tests.differential.golden --write`, which lists the scenarios that changed) in its
own commit, naming what changed.
"""

from __future__ import annotations

import pytest

from tests.differential.golden import changed, current, first_difference, normalised, recorded
from tests.differential.scenarios import KINDS

FAST_EVERY = 4  # the fast tier replays every fourth seed (README); the whole suite every one


@pytest.mark.parametrize("kind", ["example", *KINDS])
def test_every_scenario_replays_as_recorded(kind: str, request: pytest.FixtureRequest) -> None:
    every = FAST_EVERY if request.config.getoption("--fast") else 1
    now = current((kind,), every=every)
    # The kind's recorded scenarios (a sample's, in the fast tier): one recorded and no longer
    # replayed is a change too.
    before = {key: row for key, row in recorded().items()
              if key.partition(":")[0] == kind and (every == 1 or key in now)}
    moved = changed(before, now)
    shown = "\n".join(f"{k}: {first_difference(before.get(k), now.get(k))}" for k in moved[:5])
    assert not moved, f"{len(moved)} scenarios decide differently ({', '.join(moved[:20])}):\n{shown}"


def test_every_game_kind_has_seeded_scenarios() -> None:
    from console.games import names

    assert set(KINDS) == set(names())
    assert {k.partition(":")[0] for k in recorded()} == {*KINDS, "example"}


def test_the_normaliser_keeps_decisions_and_drops_wording() -> None:
    """A refusal's words are not a decision, its action, phase and reason's code are; a changed
    decision is named with where it first differs."""
    lines = ['{"at_ms": 0, "host": "correct"}', '{"at_ms": 5, "host": "next"}', "not json"]
    got = normalised(lines, "s.jsonl")
    error = got["decisions"][0]
    assert error["type"] == "error" and "message" not in error
    assert error["details"] == {"action": "correct", "phase": "idle", "code": "nobody_answering"}
    assert got["refused_lines"] == [3] and got["exit"] == 1
    other = normalised(lines[1:2], "s.jsonl")
    assert "decision 1" in first_difference(got, {**got, "decisions": other["decisions"]})
