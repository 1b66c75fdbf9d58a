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

KINDS = ("svoya", "chgk", "sports", "quartet", "brainring")

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
    if kind == "brainring" and seed >= BRAINRING_PAUSES_FROM:
        lines = _brainring(rng, (*_BRAINRING_HOST, "pause", "resume"))
    else:
        lines = {"svoya": _svoya, "chgk": _chgk, "sports": _sports, "quartet": _quartet,
                 "brainring": _brainring}[kind](rng)
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


_QUARTET_ROSTER = ("Аня", "Боря", "Вика", "Гоша", "Даша")
_QUARTET_NOISE = ("start_round", "name_theme", "start_theme", "next", "reading_finished", "name",
                  "correct", "wrong", "reset", "cancel")


def _quartet(rng: random.Random) -> list[dict[str, Any]]:
    """A fight of 2-4 teams played round by round as the host would (orders given, themes named
    and started, each theme's questions judged with presses in and out of turn), with penalties,
    absences, appeals and corrections, and now and then an action out of turn (refused)."""
    teams = [f"t{i}" for i in range(rng.randint(2, 4))]
    rounds = rng.sample(["open", "half_dark", "dark"], rng.randint(1, 3))
    seed = rng.randint(1, 1000)
    stage = rng.choice(["group", "semifinal", "consolation", "final"])
    config = {"game": {"kind": "quartet", "seed": seed},
              "players": [{"id": t, "name": f"Команда {t}", "pad": f"mcu:{i}"} for i, t in enumerate(teams)],
              "quartet": {"rounds": rounds, "stage": stage, "seed": rng.randint(1, 1000),
                          "teams": [{"id": t, "players": list(_QUARTET_ROSTER)} for t in teams]},
              "sources": {"mcu": {"kind": "simulated_mcu", "pads": 4}}}
    lines: list[dict[str, Any]] = [{"config": config}]
    clock = [0.0]

    def host(action: str, *, pause: tuple[float, ...] = (0.5, 20.0, 400.0, 1500.0, 2900.0),
             **args: Any) -> None:
        clock[0] += rng.choice(pause)
        if rng.random() < 0.04:  # something out of turn: refused, nothing changes
            lines.append({"at_ms": round(clock[0], 3), "host": rng.choice(_QUARTET_NOISE)})
        lines.append({"at_ms": round(clock[0], 3), "host": action, **args})

    def question() -> None:
        """Announced, read; teams press in turn until one is right or all are wrong (App.8-10);
        sometimes nobody presses and the window closes (App.10.3)."""
        host("next")
        host("reading_finished")
        in_play = list(teams)
        while in_play:
            if rng.random() < 0.15:
                clock[0] += 7100.0  # nobody signals in time
                return
            team = rng.choice(in_play)
            clock[0] += rng.choice([0.5, 40.0, 900.0, 3000.0])
            lines.append({"at_ms": round(clock[0], 3), "press": f"mcu:{teams.index(team)}"})
            if rng.random() < 0.2:  # a near tie from another team
                other = f"mcu:{rng.randrange(len(teams))}"
                lines.append({"at_ms": round(clock[0] + 0.05, 3), "press": other})
            host("name", pause=(20.0, 100.0))
            if rng.random() < 0.5:
                host("correct", pause=(500.0, 2500.0))
                return
            host("wrong", pause=(500.0, 2500.0))
            in_play.remove(team)
            if in_play:
                host("reset", pause=(20.0, 400.0))

    for kind in rounds:
        if kind == "open":
            host("start_round", themes=[f"Тема {rng.randint(1, 20)}" for _ in range(4)])
        else:
            host("start_round")
        if kind != "half_dark":
            for team in teams:
                host("assign", team=team, players=rng.sample(_QUARTET_ROSTER, 4))
        for _ in range(4):
            if kind != "open":
                host("name_theme", name=f"Тема {rng.randint(1, 20)}")
            if kind == "half_dark":
                for team in teams:
                    host("assign", team=team, player=rng.choice(_QUARTET_ROSTER))
            host("start_theme")
            for _ in range(5):
                question()
            extra = rng.random()
            team = rng.choice(teams)
            if extra < 0.1:
                host("penalty", team=team, penalty=rng.choice(["warning", "void", "minus"]),
                     gross=rng.random() < 0.3)
            elif extra < 0.2:
                host("appeal", team=team, question=rng.randint(1, 5), reason="дуальный ответ")
            elif extra < 0.25:
                host("absent", team=team, player=rng.choice(_QUARTET_ROSTER))
            elif extra < 0.3:
                host("adjust_score", player=team, delta=rng.choice([-10, 10, 20]), reason="поправка")
    return lines


_BRAINRING_HOST = ("next", "time", "correct", "wrong", "cancel", "new_fight", "new_game",
                   "adjust_score", "reverse")
# The host's pause came later: the scenarios from this seed on take it too (the ones before
# are kept as they were recorded).
BRAINRING_PAUSES_FROM = 600
_BRAINRING_LIKELY = ("next", "time", "correct", "wrong")


def _brainring(rng: random.Random, actions: tuple[str, ...] = _BRAINRING_HOST) -> list[dict[str, Any]]:
    """A game of fights of 2-3 teams under a random preset and settings: presses before and
    after «Время!» from an ordered and an unordered source, near ties, judgements, corrections."""
    teams = rng.randint(2, 3)
    sources: dict[str, Any] = {"mcu": {"kind": "simulated_mcu", "pads": 6}}
    pads = [[f"mcu:{2 * i}", f"mcu:{2 * i + 1}"] for i in range(teams)]
    if rng.random() < 0.5:
        sources["btn"] = {"kind": "gpio", "pins": [17], "max_delay_ms": 8, "resolution_us": 1}
        pads[-1].append("btn:0")
    brainring: dict[str, Any] = {
        "preset": rng.choice(["sports", "tv", "club"]), "seed": rng.randint(1, 1000),
        "teams": [{"id": f"t{i}", "name": f"Команда {i}", "pads": p} for i, p in enumerate(pads)]}
    if rng.random() < 0.3:
        brainring.update(target=0, questions=rng.randint(1, 4))
    if rng.random() < 0.3:
        brainring["rebound"] = rng.choice(["fixed", "remaining"])
    lines: list[dict[str, Any]] = [{"config": {"game": {"kind": "brainring"}, "sources": sources,
                                               "brainring": brainring}}]
    every_pad = [pad for team in pads for pad in team]
    t = 0.0
    for _ in range(rng.randint(20, 60)):
        t += rng.choice([0.5, 3.0, 40.0, 400.0, 900.0, 4000.0, 15000.0, 21000.0, 61000.0])
        at = round(t, 3)
        if rng.random() < 0.45:
            step: dict[str, Any] = {"at_ms": at, "press": rng.choice(every_pad)}
            if rng.random() < 0.4:
                step["arrive_ms"] = round(at + rng.choice([0.1, 2.0, 7.5, 30.0]), 3)
            lines.append(step)
            if rng.random() < 0.2:
                lines.append({"at_ms": round(at + rng.choice([0.0, 0.001, 0.05]), 3),
                              "press": rng.choice(every_pad)})
            continue
        action = rng.choice(_BRAINRING_LIKELY if rng.random() < 0.85 else actions)
        host: dict[str, Any] = {"at_ms": at, "host": action}
        if action == "adjust_score":
            host.update(player=f"t{rng.randrange(teams)}", delta=rng.choice([-1, 1, 2]), reason="поправка")
        elif action == "reverse":
            host["reason"] = "апелляция"
        lines.append(host)
        if action == "time" and "pause" in actions and rng.random() < 0.4:
            # A dispute in the count: held a while, maybe with presses made meanwhile.
            t += rng.choice([3.0, 900.0, 15000.0, 59990.0])
            lines.append({"at_ms": round(t, 3), "host": "pause"})
            if rng.random() < 0.5:
                lines.append({"at_ms": round(t + rng.choice([0.0, 0.001, 500.0]), 3),
                              "press": rng.choice(every_pad)})
            t += rng.choice([1000.0, 30000.0, 90000.0])
            lines.append({"at_ms": round(t, 3), "host": "resume"})
    return lines
