"""«Брейн-ринг» from config: the presets and their sources (../shared/RULES.md §5), each key
over its preset, and a bad config named by its key (nothing played on it)."""

from __future__ import annotations

from typing import Any

import pytest

from console.config import ConfigError
from console.engine.brainring.rules import Rebound, SendOut
from console.engine.model import NS_PER_S
from console.games import config_from_dict
from console.games.brainring.kind import brainring_rules, parse_command

TEAMS = [{"id": "t1", "name": "Совы", "pads": ["mcu:0", "mcu:1"]},
         {"id": "t2", "name": "Ежи", "pads": ["mcu:2"]}]


def config(**brainring: Any) -> dict[str, Any]:
    return {"game": {"kind": "brainring"}, "sources": {"mcu": {"kind": "simulated_mcu", "pads": 4}},
            "brainring": {"teams": TEAMS, **brainring}}


def rules(**brainring: Any) -> Any:
    return brainring_rules(config_from_dict(config(**brainring), "console.toml"))


def test_the_default_is_the_sports_preset_windflower_2() -> None:
    r = rules()
    assert (r.count_ns, r.rebound_ns, r.rebound, r.points, r.target, r.questions) == (
        60 * NS_PER_S, 20 * NS_PER_S, Rebound.FIXED, 1, 3, 0)
    assert (r.rising_stakes, r.send_out, r.warning_ns) == (False, SendOut.OFF, 5 * NS_PER_S)
    assert r.pads["mcu:1"].id == "t1"  # a team's pads are one signal


def test_the_tv_preset_20_s_to_5() -> None:
    r = rules(preset="tv")
    assert (r.count_ns, r.target) == (20 * NS_PER_S, 5)


def test_the_club_preset_the_time_left_rising_stakes_and_send_out() -> None:
    r = rules(preset="club")
    assert (r.rebound, r.rising_stakes, r.send_out) == (Rebound.REMAINING, True, SendOut.FIGHT)


def test_a_key_overrides_its_preset() -> None:
    r = rules(preset="tv", target=3, send_out="game")
    assert (r.count_ns, r.target, r.send_out) == (20 * NS_PER_S, 3, SendOut.GAME)


@pytest.mark.parametrize(("brainring", "key", "words"), [
    ({"preset": "bbc"}, "brainring.preset", "'bbc' is not one of sports, tv, club"),
    ({"rebound": "half"}, "brainring.rebound", "half"),
    ({"send_out": "always"}, "brainring.send_out", "always"),
    ({"count_s": 0}, "brainring.count_s", ""),
    ({"warning_s": 25.0}, "brainring.warning_s", "the beeps must come before a count ends"),
    ({"target": 0, "questions": 0}, "brainring.target", "a fight needs an end"),
    ({"target": -1}, "brainring.target", "must not be negative"),
    ({"teams": TEAMS[:1]}, "brainring.teams", "2 teams or more"),
    ({"teams": [TEAMS[0], {**TEAMS[1], "pads": ["mcu:1"]}]}, "brainring.teams", "'mcu:1' is both"),
    ({"teams": [TEAMS[0], {**TEAMS[1], "pads": ["box:0"]}]}, "brainring.teams", "unknown source 'box'"),
    ({"teams": [TEAMS[0], {**TEAMS[1], "pads": []}]}, "brainring.teams", "has no button"),
    ({"teams": [TEAMS[0], {"id": "t2", "pads": ["mcu:3"]}]}, r"brainring.teams\[2\].name", "is required"),
    ({"countdown": 5}, "brainring.countdown", "unknown key"),
])
def test_a_bad_config_names_its_key(brainring: dict[str, Any], key: str, words: str) -> None:
    with pytest.raises(ConfigError, match=f"console.toml: {key}: .*{words}"):
        config_from_dict(config(**brainring), "console.toml")


def test_the_pedal_takes_the_games_actions_and_names_a_wrong_one() -> None:
    good = config_from_dict({**config(), "host": {"pedal_pin": 5, "pedal_action": "time"}}, "console.toml")
    assert good.host.pedal_action == "time"
    with pytest.raises(ConfigError, match=r"host.pedals.*'reading_finished' is not a host action of "
                                          r"game.kind = 'brainring'"):
        config_from_dict({**config(), "host": {"pedals": [{"pin": 5, "action": "reading_finished"}]}},
                         "console.toml")


@pytest.mark.parametrize(("command", "words"), [
    ({"action": "dance"}, "unknown action 'dance'"),
    ({"action": "time", "team": "t1"}, "unknown key"),
    ({"action": "adjust_score", "player": "t1", "delta": "1", "reason": "x"}, "delta must be a whole number"),
])
def test_a_bad_host_command_is_named(command: dict[str, Any], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        parse_command(command, 0)


def test_the_journals_config_line_replays_the_same_rules() -> None:
    """The journal's first line holds the fight's settings (its preset applied): a replay of it
    judges with the same rules, and it is JSON."""
    import json

    from console.games.brainring.kind import GAME

    played = config_from_dict(config(preset="club", target=4), "console.toml")
    header = json.loads(json.dumps(GAME.journal_header(played, 42)))
    header.pop("auto_watermark")  # a scenario's key, not a config section
    again = config_from_dict(header, "journal.jsonl")
    assert brainring_rules(again) == brainring_rules(played, 42)


def test_every_press_reason_and_end_has_its_russian_words() -> None:
    from console.engine.brainring.events import PressReason, QuestionEnd
    from console.games.brainring.texts import END_REASONS, PRESS_REASONS

    assert set(PRESS_REASONS) == {r.value for r in PressReason}
    assert set(END_REASONS) == {r.value for r in QuestionEnd}
