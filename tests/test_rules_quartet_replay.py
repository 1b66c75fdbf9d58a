"""Whole «Эрудит-квартет» fights as replay scenarios (examples/quartet-*.jsonl): replayed with
`chgk-console replay`, each gives the places the regulation gives through the tie-break steps
of 3.10-3.11: the total, the total without minuses, the questions taken at 50, then 40; a
shoot-out where a place leads further, then the lot; in the final, extra themes only.

The examples are written by the builders below, from fights played on the hand-stepped clock
(`python -m tests.test_rules_quartet_replay` rewrites them); a test checks they are current.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from console.engine.model import NS_PER_S as S
from console.engine.model import HostAction, Output, Press, Watermark
from console.engine.quartet.rules import QuartetTeam, RoundType, Stage
from console.games import game
from console.scenario import step_to_json
from console.tools.replay import replay_lines
from tests.quartet_harness import ROSTERS, Fight, make_rules

ROOT = Path(__file__).resolve().parent.parent
NAMES = {"t1": "Совы", "t2": "Ежи", "t3": "Лисы", "t4": "Выдры"}


class Recording(Fight):
    """A fight on the hand-stepped clock that keeps every input as a scenario line."""

    def __init__(self, rounds: tuple[RoundType, ...], stage: Stage) -> None:
        teams = tuple(QuartetTeam(t, NAMES[t], f"mcu:{i}", players)
                      for i, (t, players) in enumerate(ROSTERS.items()))
        super().__init__(make_rules(teams=teams, rounds=rounds, stage=stage, seed=2026), start=0)
        self.lines: list[dict[str, Any]] = [{"config": {
            "auto_watermark": False,
            "game": {"kind": "quartet", "seed": 2026},
            "players": [{"id": t.id, "name": t.name, "pad": t.pad} for t in teams],
            "sources": {"mcu": {"kind": "simulated_mcu", "pads": 4}},
            "quartet": {"rounds": [r.value for r in rounds], "stage": stage.value, "seed": 2026,
                        "teams": [{"id": t.id, "players": list(t.players)} for t in teams]},
        }}]

    def deliver(self, inp: Any, arrive: int | None = None) -> list[Output]:
        out = super().deliver(inp, arrive)
        self.lines.append(step_to_json(inp, self.now, game("quartet")))
        return out


def group_shootout_then_lot() -> Recording:
    """A group fight of three rounds: t1 first on total; t2, t3 and t4 tied on every indicator
    for places 2-4, across the place that leads to the semi-finals: a shoot-out; t3 wins it,
    t2 and t4 tie again for 3rd/4th, which leads nowhere: the lot (3.10)."""
    f = Recording((RoundType.OPEN, RoundType.HALF_DARK, RoundType.DARK), Stage.GROUP)
    f.cmd("new_fight")
    f.round_open([("t2", "t3", "t4", "t1", "t1"), ("t3", "t4", "t2"), ("t4", "t2", "t3")])
    f.round_half_dark([(None, None, None, None, ("-t2", "-t3", "-t4"))])
    f.round_dark()
    f.cmd("name_theme", name="Перестрелка")
    for team, player in (("t2", "Ель"), ("t3", "Кот"), ("t4", "Оля")):
        f.cmd("assign", team=team, player=player)
    f.theme(("t3",))
    return f


def indicators() -> Recording:
    """One open round, four teams on 60 each: the total without minuses puts t1 first; then
    the questions taken at 50 put t2 above t3, and at 40 t3 above t4 (3.10)."""
    f = Recording((RoundType.OPEN,), Stage.GROUP)
    f.round_open([("t2", "t1", "t4", "t1", "t1"), ("t4", "t3", None, "t3", "t2"),
                  (None, "t4", None, None, ("-t1",))])
    return f


def final_extra_themes() -> Recording:
    """A final of one open round: t1 and t2 tie on points though t1 has more without minuses
    and more taken at 50; in the final no indicators apply: an extra theme decides (3.11)."""
    f = Recording((RoundType.OPEN,), Stage.FINAL)
    f.round_open([(None, "t2", "t3", None, "t1"), (None, None, None, ("-t1", "t2"), "t1"), ("t4",)])
    f.cmd("name_theme", name="Дополнительная тема")
    f.cmd("assign", team="t1", player="Даша")
    f.cmd("assign", team="t2", player="Ира")
    f.theme((None, "t2"))
    return f


BUILDERS: dict[str, Callable[[], Recording]] = {
    "quartet-group-shootout-lot.jsonl": group_shootout_then_lot,
    "quartet-indicators.jsonl": indicators,
    "quartet-final-extra-theme.jsonl": final_extra_themes,
}
EXPECTED: dict[str, tuple[list[str | None], list[str]]] = {
    "quartet-group-shootout-lot.jsonl": (["t1", "t3", None, None], ["total", "shootout", "lot"]),
    "quartet-indicators.jsonl": (["t1", "t2", "t3", "t4"], ["plus", "taken_50", "taken_40"]),
    "quartet-final-extra-theme.jsonl": (["t2", "t1", "t3", "t4"], ["shootout", "total", "total"]),
}


def text(recording: Recording) -> str:
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in recording.lines)


def replayed(name: str) -> list[dict[str, Any]]:
    out, err = io.StringIO(), io.StringIO()
    lines = (ROOT / "examples" / name).read_text(encoding="utf-8").splitlines()
    assert replay_lines(lines, name, out, err) == 0, err.getvalue()
    return [json.loads(line) for line in out.getvalue().splitlines() if line.startswith("{")]


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_the_example_is_what_its_builder_writes(name: str) -> None:
    """examples/quartet-*.jsonl are generated: `python -m tests.test_rules_quartet_replay`."""
    assert (ROOT / "examples" / name).read_text(encoding="utf-8") == text(BUILDERS[name]())


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_a_replayed_fight_gives_the_regulations_places(name: str) -> None:
    """3.9-3.11 through `chgk-console replay`: the places and what decided each."""
    events = replayed(name)
    over = [e for e in events if e["type"] == "fight_over"]
    assert len(over) == 1 and [e for e in events if e["type"] == "error"] == []
    order, by = EXPECTED[name]
    places = [p["team"] for p in over[0]["places"]]
    assert over[0]["by"] == by
    assert [p if o is not None else None for p, o in zip(places, order, strict=True)] == order
    if "lot" in by:
        (lot,) = over[0]["lots"]
        assert lot["seed"] == "2026:t2,t4" and places[2:] == lot["order"]


def test_the_group_fights_totals_are_the_sums_of_its_themes() -> None:
    """3.9: a team's result is the sum of its points over every theme of every round."""
    events = replayed("quartet-group-shootout-lot.jsonl")
    ended = [e for e in events if e["type"] == "theme_ended" and not e["shootout"]]
    assert len(ended) == 12
    over = next(e for e in events if e["type"] == "fight_over")
    for p in over["places"]:
        assert p["total"] == sum(e["scores"].get(p["team"], 0) for e in ended)


def main() -> None:
    """Write examples/quartet-*.jsonl from the builders above."""
    for name, build in BUILDERS.items():
        (ROOT / "examples" / name).write_text(text(build()), encoding="utf-8")
        print(f"wrote examples/{name}")


if __name__ == "__main__":
    main()


def test_a_lossy_watermark_of_a_quartet_journal_replays_and_is_judged_the_same() -> None:
    """A quartet's journal keeps a watermark's lost span (``lost_from_ms``) as «Своя игра»'s
    does, and replay takes it back (it was refused with «unknown key(s) lost_from_ms», so
    resume skipped it): the turn it decided still says the MCU may have lost presses
    (004 §III 3.3: each theme is judged by the «Своя игра» referee; App.3: the first signal)."""
    f = Recording((RoundType.OPEN,), Stage.GROUP)
    f.cmd("start_round", themes=[f"Тема {i}" for i in range(1, 5)])
    f.assign_all(None)
    f.cmd("start_theme")
    f.host(HostAction.NEXT)
    f.advance(S)
    f.deliver(Press("mcu", f.pads["t2"], f.now))
    f.deliver(Watermark("mcu", f.now, lost_from=f.now - S // 2))
    (live,) = f.events("signal_accepted")
    assert live["inputs_lost"] == ["mcu"]
    assert any("lost_from_ms" in line for line in f.lines)
    out, err = io.StringIO(), io.StringIO()
    assert replay_lines(text(f).splitlines(), "quartet.jsonl", out, err) == 0, err.getvalue()
    replayed_events = [json.loads(line) for line in out.getvalue().splitlines()]
    (again,) = [e for e in replayed_events if e["type"] == "signal_accepted"]
    assert {k: v for k, v in again.items() if k != "seq"} == live
