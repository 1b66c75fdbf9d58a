"""Seeded random scenarios of every game kind, for the differential test of replay.

`scenario(kind, seed)` writes the lines of one scenario (docs/scenarios.md): a config line
with randomly chosen policies, then a few dozen steps — presses from an ordered and an
unordered source with random delivery delays, host actions in and out of turn, the top's
angle samples and picks. Most steps are plausible; some are deliberately refused, so the
engines' errors are covered too. The same (kind, seed) always gives the same lines.
"""

from __future__ import annotations

import json
import random
from typing import Any

KINDS = ("svoya", "chgk", "sports")

_SVOYA_HOST = ("next", "reading_finished", "name", "short_form", "answer_started", "correct",
               "wrong", "reset", "cancel", "new_game")
_SVOYA_LIKELY = ("next", "reading_finished", "name", "correct", "wrong", "reset")
_CHGK_HOST = ("new_game", "draw_lototron", "start_timer", "early_answer", "player_leaves",
              "answer_correct", "answer_wrong", "fortochka", "extra_time", "club_help",
              "move_question", "use_saved_minute", "hint_from_hall", "hall_correct", "refill",
              "decisive_round", "cancel_round")
_CHGK_LIKELY = ("draw_lototron", "start_timer", "answer_correct", "answer_wrong", "early_answer")


def scenario(kind: str, seed: int) -> list[str]:
    """The JSON lines of scenario `seed` of game `kind`."""
    rng = random.Random(f"{kind}:{seed}")
    lines = {"svoya": _svoya, "chgk": _chgk, "sports": _sports}[kind](rng)
    return [json.dumps(line, ensure_ascii=False) for line in lines]


def _svoya(rng: random.Random) -> list[dict[str, Any]]:
    players = rng.randint(2, 4)
    gpio_player = players > 2 and rng.random() < 0.5  # the last player on a slow GPIO source
    game: dict[str, Any] = {
        "false_start": rng.choice(["ignore", "lockout"]),
        "answer_clock": rng.choice(["host", "lamp"]),
        "tie_policy": rng.choice(["random", "pad_order"]),
        "seed": rng.randint(1, 1000),
    }
    if rng.random() < 0.5:
        game["themes"] = 1
    sources: dict[str, Any] = {"mcu": {"kind": "simulated_mcu", "pads": 4}}
    pads = [f"mcu:{i}" for i in range(players)]
    if gpio_player:
        sources["btn"] = {"kind": "gpio", "pins": [17], "max_delay_ms": 8, "resolution_us": 1}
        pads[-1] = "btn:0"
    config = {"game": game, "sources": sources,
              "players": [{"id": f"p{i}", "name": f"Игрок {i}", "pad": pad} for i, pad in enumerate(pads)]}
    lines: list[dict[str, Any]] = [{"config": config}]
    t = 0.0
    for _ in range(rng.randint(20, 60)):
        t += rng.choice([0.5, 3.0, 40.0, 400.0, 1500.0, 2900.0, 3100.0, 7100.0])
        roll = rng.random()
        if roll < 0.45:
            pad = rng.choice(pads)
            at = round(t, 3)
            step: dict[str, Any] = {"at_ms": at, "press": pad}
            if rng.random() < 0.4:
                step["arrive_ms"] = round(at + rng.choice([0.1, 2.0, 7.5, 30.0]), 3)
            lines.append(step)
            if rng.random() < 0.2:  # a second pad in the same scan, or a near tie
                other = rng.choice(pads)
                if other != pad:
                    lines.append({"at_ms": round(at + rng.choice([0.0, 0.001, 0.05]), 3), "press": other})
        else:
            action = rng.choice(_SVOYA_LIKELY if rng.random() < 0.85 else _SVOYA_HOST)
            lines.append({"at_ms": round(t, 3), "host": action})
    return lines


def _chgk(rng: random.Random) -> list[dict[str, Any]]:
    rules = rng.choice(["tto", "belgorod"])
    table: dict[str, Any] = {"rules": rules, "seed": rng.randint(1, 1000), "team": ""}
    if rules == "tto":
        table["stage"] = rng.choice(["qualifier", "final"])
        table["blitz"], table["superblitz"], table["duplet"] = [3], [9], [6]
        table["zeitnot"], table["sector12"], table["fortochka"] = [12], [8], rng.choice([0, 5])
    teams = [{"id": f"t{i}", "name": f"Команда {i}"} for i in range(rng.randint(1, 3))]
    lines: list[dict[str, Any]] = [{"config": {"game": {"kind": "chgk"}, "table": table, "teams": teams}}]
    t = 0.0
    lines.append({"at_ms": t, "host": "new_game"})
    for _ in range(rng.randint(20, 60)):
        t += rng.choice([10.0, 500.0, 5000.0, 30000.0, 61000.0])
        roll = rng.random()
        if roll < 0.15:
            lines.append({"at_ms": round(t, 3), "pick": rng.randint(1, 13), "source": "host"})
        elif roll < 0.25:  # a short spin of the top: angle samples slowing to a stop
            angle, speed = rng.randrange(4096), rng.uniform(20.0, 60.0)
            for _ in range(400):
                t += 10.0
                angle = (angle + int(speed)) % 4096
                speed = max(0.0, speed - rng.uniform(0.1, 0.4))
                lines.append({"at_ms": round(t, 3), "angle": angle})
                if speed == 0.0:
                    break
            for _ in range(40):
                t += 10.0
                lines.append({"at_ms": round(t, 3), "angle": angle})
        else:
            action = rng.choice(_CHGK_LIKELY if rng.random() < 0.7 else _CHGK_HOST)
            step = {"at_ms": round(t, 3), "host": action}
            if action in ("move_question", "refill") or rng.random() < 0.1:
                step["sector"] = rng.randint(1, 13)
            if action == "move_question":
                step["to_sector"] = rng.randint(1, 13)
            if action in ("hall_correct", "new_game") and rng.random() < 0.7:
                step["team"] = rng.choice(teams)["id"]
            if action == "hall_correct":
                step["round"] = rng.randint(1, 4)
                if rng.random() < 0.3:
                    step["part"] = rng.randint(1, 3)
            lines.append(step)
    return lines


def _sports(rng: random.Random) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = [{"config": {"game": {"kind": "sports"}}}]
    t = 0.0
    for _ in range(rng.randint(5, 20)):
        t += rng.choice([100.0, 20000.0, 55000.0, 71000.0])
        lines.append({"at_ms": t, "host": rng.choice(["start", "start", "cancel"])})
    return lines
