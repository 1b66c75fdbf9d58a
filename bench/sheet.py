"""`chgk-console bench sheet`: what the sports stage's results sheet costs the console, to judge a
Pi in a hall of 50 teams.

One process, no broker: the console (console/shell/runtime.py) on a sports stage of 50 teams,
each jury command given to `Console.on_jury_command` as it comes from MQTT (JSON parsed, checked,
the sheet changed, the event published) and the sheet's retained parts rebuilt after it as the
MQTT link would publish them (`GameKind.retained_parts`); CPU time with `time.process_time_ns`:

* ``tour_by_question_ms``: a tour's verdicts entered by question (12 commands, each a question's
  right teams), and ``tour_by_team_ms`` by team (50 commands, each a team's 12-letter mask);
* ``edit_us``: the median of one such edit, parts included;
* ``similar_search_ms``: finding the answers close to an appealed one (`open_appeal`) on a sheet of
  50 teams × 45 questions (3 tours of 15), every cell with an answer text: the median and the
  slowest over every question (the appeal is then rejected, so each search starts from the
  same sheet).

Each figure is also given for a Pi 4 as `bench cpu` estimates one (this machine's n-body time
against the published Pi 4 time: bench/cpu.py); the target is a similar-answer search within
1 s on a Pi 4. Prints figures; asserts nothing.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from typing import Any

from bench.cpu import PI4_NBODY_S_PER_STEP, nbody
from bench.latency import machine
from bench.report import print_result
from console.games import config_from_dict
from console.shell.runtime import Console

TEAMS = 50
QUESTIONS = 45  # 3 tours of 15, a format the field plays (a 3 × 12 stage is smaller)
WORDS = ("Пётр Первый", "Екатерина Вторая", "Гагарин", "Менделеев", "Пушкин", "Лермонтов", "Толстой",
         "Чайковский", "Ломоносов", "Суворов", "Кутузов", "Королёв")


class SheetTable:
    """The console on a 50-team sports stage, fed jury commands on a hand-stepped clock."""

    def __init__(self, teams: int = TEAMS, per_tour: int = 12) -> None:
        self.now = 1_000 * 1_000_000_000
        config = config_from_dict({
            "console": {"node": "bench", "journal": ""}, "game": {"kind": "sports"},
            "sports": {"questions_per_tour": per_tour,
                       "teams": [{"name": f"Команда {n}", "town": "Белгород"} for n in range(1, teams + 1)]},
            "sound": {"enabled": False},
        }, "bench")
        self.console = Console(config, clock=lambda: self.now)
        self.teams = teams

    def jury(self, command: dict[str, Any]) -> float:
        """µs of CPU for one command and the parts it makes the console publish."""
        self.now += 1_000_000
        payload = json.dumps(command, ensure_ascii=False).encode()
        start = time.process_time_ns()
        self.console.commands.on_jury_command(payload)
        self.console.game.retained_parts(self.console.referee)
        return (time.process_time_ns() - start) / 1000


def main(as_json: bool = False, teams: int = TEAMS, nbody_steps: int = 500_000) -> int:
    """The figures for a hall of `teams` (fewer, and a shorter yardstick: the smoke test)."""
    rng = random.Random(5)
    by_question = SheetTable(teams)
    tour_q = [by_question.jury({"action": "set_question", "question": q,
                                "teams": [t for t in range(1, teams + 1) if rng.random() < 0.4]})
              for q in range(1, 13)]
    by_team = SheetTable(teams)
    masks = ["".join(rng.choice("1000") for _ in range(12)) for _ in range(teams)]
    tour_t = [by_team.jury({"action": "set_team", "team": t, "tour": 1, "mask": masks[t - 1]})
              for t in range(1, teams + 1)]
    searches = _searches(rng, teams)
    nbody_s, steps = nbody(nbody_steps)
    ratio = (PI4_NBODY_S_PER_STEP * steps) / nbody_s
    edits = [*tour_q, *tour_t]
    figures = {
        "tour_by_question_ms": sum(tour_q) / 1000, "tour_by_team_ms": sum(tour_t) / 1000,
        "edit_us": statistics.median(edits),
        "similar_search_ms": statistics.median(searches) / 1000,
        "similar_search_max_ms": max(searches) / 1000,
    }
    result: dict[str, Any] = {
        "machine": machine(), "teams": teams, "questions": QUESTIONS,
        **{k: round(v, 2) for k, v in figures.items()},
        "nbody_s": round(nbody_s, 2), "pi4_ratio": round(ratio, 2),
        "pi4": {k: round(v * ratio, 2) for k, v in figures.items()},
        "pi4_similar_search_within_1_s": figures["similar_search_max_ms"] * ratio < 1000,
    }
    print_result(result, as_json)
    return 0


def _searches(rng: random.Random, teams: int) -> list[float]:
    """µs of CPU of each question's appeal search on a full sheet with answer texts."""
    table = SheetTable(teams, per_tour=QUESTIONS // 3)
    for q in range(1, QUESTIONS + 1):
        for t in range(1, teams + 1):
            answer = rng.choice(WORDS)
            if rng.random() < 0.3:  # a typo or a case: the close answers an appeal must find
                answer = answer.lower() if rng.random() < 0.5 else answer[:-1]
            table.jury({"action": "set_cell", "team": t, "question": q, "verdict": "0", "answer": answer})
    runs = []
    for q in range(1, QUESTIONS + 1):
        runs.append(table.jury({"action": "open_appeal", "team": 1, "question": q}))
        table.jury({"action": "reject_appeal", "why": "bench"})
    return runs
