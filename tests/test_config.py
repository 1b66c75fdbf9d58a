"""Config loading: every problem names the file, the key and what is wrong."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any, get_args, get_type_hints

import pytest

from console.config import Config, ConfigError
from console.engine.model import NS_PER_S
from console.engine.svoya.rules import AnswerClock
from console.games import config_from_dict, load_config
from console.games.brainring.config import BrainringSection
from console.games.chgk.config import SpinSection, TableSection, TeamSection
from console.games.quartet.config import QuartetSection
from console.games.sports.config import SportsSection
from console.games.svoya.kind import svoya_rules

ROOT = Path(__file__).resolve().parent.parent
GOOD = """
[game]
answer_clock = "lamp"
signal_window_s = 5

[[players]]
id = "a"
name = "Анна"
pad = "mcu:0"

[[players]]
id = "b"
name = "Борис"
pad = "mcu:1"

[sources.mcu]
kind = "serial_mcu"
port = "/dev/ttyACM0"
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "console.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_shipped_configs_load() -> None:
    for path in (ROOT / "config" / "console.toml", ROOT / "console" / "data" / "demo.toml"):
        config = load_config(path)
        assert len(svoya_rules(config).players) == 4


def test_values_reach_the_rules(tmp_path: Path) -> None:
    rules = svoya_rules(load_config(write(tmp_path, GOOD)))
    assert rules.answer_clock is AnswerClock.LAMP
    assert rules.signal_window_ns == 5 * NS_PER_S
    assert rules.sources["mcu"].ordered


@pytest.mark.parametrize(
    ("change", "key", "words"),
    [
        (("[game]", "[game]\nanwser_clock = 1"), "game.anwser_clock", "unknown key"),
        (('answer_clock = "lamp"', 'answer_clock = "bell"'), "game.answer_clock", "not one of"),
        (("signal_window_s = 5", 'signal_window_s = "7"'), "game.signal_window_s", "a finite number"),
        (("signal_window_s = 5", "signal_window_s = inf"), "game.signal_window_s", "a finite number"),
        (("signal_window_s = 5", "signal_window_s = nan"), "game.signal_window_s", "got nan"),
        (("signal_window_s = 5", f"signal_window_s = {10**400}"), "game.signal_window_s", "a finite number"),
        (("signal_window_s = 5", "signal_window_s = -7"), "game.signal_window_s", "must be positive"),
        (('name = "Борис"\n', ""), "players[2].name", "is required"),
        (('pad = "mcu:1"', 'pad = "usb:1"'), "players[2].pad", "not in [sources]"),
        (('pad = "mcu:1"', 'pad = "mcu:x"'), "players[2].pad", "should look like"),
        (('port = "/dev/ttyACM0"', ""), "sources.mcu.port", "needs a port"),
        (('kind = "serial_mcu"', 'kind = "carrier_pigeon"'), "sources.mcu.kind", "not one of"),
        (('kind = "serial_mcu"', 'kind = "serial_mcu"\nbaud = 9600'), "sources.mcu.baud", "unknown key"),
        (('kind = "serial_mcu"', 'kind = "serial_mcu"\nbaudrate = "x"'), "sources.mcu.baudrate", "integer"),
        (('kind = "serial_mcu"\n', ""), "sources.mcu.kind", "is required"),
        (("[game]", "[gmae]"), "gmae", "unknown section"),
        (('pad = "mcu:1"', 'pad = "mcu:0"'), "players", "pad 'mcu:0' is both"),
    ],
)
def test_bad_values_name_file_key_and_problem(
    tmp_path: Path, change: tuple[str, str], key: str, words: str
) -> None:
    path = write(tmp_path, GOOD.replace(*change, 1))
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert message.startswith(str(path))
    assert key in message and words in message


def test_one_player_is_refused_with_the_clause(tmp_path: Path) -> None:
    text = GOOD.split("[[players]]")
    path = write(tmp_path, text[0] + "[[players]]" + text[1] + GOOD[GOOD.index("[sources.mcu]"):])
    with pytest.raises(ConfigError, match="2 to 4 players"):
        load_config(path)


def test_broken_toml_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(write(tmp_path, "[game\n"))
    with pytest.raises(ConfigError, match="file not found"):
        load_config(tmp_path / "nope.toml")


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"\xff\xfe[game]\n", "not UTF-8 text"),
        (b"a = " + b"[" * 5000 + b"]" * 5000 + b"\n", "nested too deeply"),
        (None, "cannot read it"),  # a directory where the file should be
    ],
)
def test_unreadable_config_files_are_config_errors(tmp_path: Path, content: bytes | None, words: str) -> None:
    """check-config, run and the SIGHUP re-check all name the file and the problem."""
    path = tmp_path / "console.toml"
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    with pytest.raises(ConfigError, match=words) as caught:
        load_config(path)
    assert str(caught.value).startswith(str(path))


@pytest.mark.parametrize(
    ("data", "key", "words"),
    [
        # The pedal's actions are the «Своя игра» host's: at the table it would cancel counts.
        ({"game": {"kind": "sports"}, "host": {"pedal_pin": 22}}, "host.pedal_pin", "only in game.kind"),
        ({"game": {"kind": "svoya"}, "sources": {"top": {"kind": "gpio_encoder", "pins": [5, 6],
                                                        "counts_per_turn": 600}},
          "players": []}, "sources.top.kind", "does not play in game.kind = 'svoya'"),
        ({"game": {"kind": "chgk"}, "sources": {"top": {"kind": "gpio_encoder", "pins": [5, 6],
                                                        "counts_per_turn": 2}}},
         "sources.top", "counts_per_turn (at least 4)"),
        # The sports timer takes no buttons: a button box there used to flood "not allowed now".
        ({"game": {"kind": "sports"}, "sources": {"mcu": {"kind": "simulated_mcu"}}},
         "sources.mcu.kind", "does not play in game.kind = 'sports'"),
        ({"game": {"kind": "chgk"}, "sources": {"b": {"kind": "gpio", "pins": [5]}}},
         "sources.b.kind", "does not play in game.kind = 'chgk'"),
        ({"game": {"kind": "poker"}}, "game.kind", "is not one of svoya, chgk, sports"),
        # The pedal and a players' source used to silently replace each other.
        ({"sources": {"pedal": {"kind": "gpio", "pins": [5, 6]}}, "host": {"pedal_pin": 22},
          "players": [{"id": "a", "name": "A", "pad": "pedal:0"},
                      {"id": "b", "name": "B", "pad": "pedal:1"}]},
         "sources.pedal", "the host's foot pedal"),
        ({"sources": {"b": {"kind": "gpio", "pins": [5, 22]}}, "host": {"pedal_pin": 22},
          "players": [{"id": "a", "name": "A", "pad": "b:0"}, {"id": "b", "name": "B", "pad": "b:1"}]},
         "host.pedal_pin", "pin 22 is already sources.b's"),
        ({"game": {"kind": "sports"}, "sports": {"count_s": 30, "warning_at_s": 50}},
         "sports.warning_at_s", "before the end of the count"),
        ({"game": {"kind": "sports"}, "sports": {"tours": 0}}, "sports.tours", "must be positive"),
    ],
)
def test_sources_and_the_pedal_must_fit_the_game(data: dict[str, Any], key: str, words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        config_from_dict(data, "console.toml")
    assert f"console.toml: {key}: " in str(caught.value) and words in str(caught.value)


def test_the_sports_timer_takes_its_rules_from_the_config(tmp_path: Path) -> None:
    """[sports] reaches the timer: a 45-s count with the warning at 35 s (003 5.3 in a hall
    that plays shorter questions)."""
    from console.engine.sports.timer import SportsAction, SportsHost
    from console.games import game

    config = config_from_dict({"game": {"kind": "sports"}, "sports": {"count_s": 45, "warning_at_s": 35,
                                                                      "collection_s": 5}}, "t")
    timer = game("sports").engine(config, 1, None)
    timer.handle_all([SportsHost(SportsAction.START, 0)], 0)
    assert timer.next_deadline() == 35 * NS_PER_S
    types = [type(o).__name__ for o in timer.on_timer(45 * NS_PER_S)]
    assert "SportsTimeUp" in types
    assert timer.next_deadline() == 50 * NS_PER_S


def test_the_shipped_config_documents_every_section() -> None:
    text = (ROOT / "config" / "console.toml").read_text(encoding="utf-8")
    for section in ("[sports]", "count_s", "warning_at_s", "collection_s", "tours", "questions_per_tour"):
        assert section in text, section


@pytest.mark.parametrize(
    ("data", "key", "words"),
    [
        ({"mqtt": {"port": 70000}}, "mqtt.port", "at most 65535"),
        ({"display": {"http_port": 65536}}, "display.http_port", "at most 65535"),
        ({"mqtt": {"ws_port": 99999}}, "mqtt.ws_port", "at most 65535"),
        ({"sound": {"volume": 1.5}}, "sound.volume", "at most 1.0"),
        ({"sound": {"volume": -0.1}}, "sound.volume", "must not be negative"),
        ({"console": {"node": "table+1"}}, "console.node", "may not contain '+'"),
        ({"console": {"node": "hall/1"}}, "console.node", "may not contain '/'"),
        ({"console": {"node": ""}}, "console.node", "may not be empty"),
        ({"mqtt": {"prefix": "chgk/#"}}, "mqtt.prefix", "may not contain '#'"),
        ({"mqtt": {"prefix": "club//chgk"}}, "mqtt.prefix", "may not be empty"),
    ],
)
def test_out_of_range_ports_volumes_and_wildcards_are_refused(
    data: dict[str, Any], key: str, words: str
) -> None:
    """check-config names the key: a port past 65535, a volume past full scale, an MQTT
    wildcard in a topic name would otherwise fail only on game day."""
    base = {"game": {"kind": "sports"}}
    with pytest.raises(ConfigError) as caught:
        config_from_dict({**base, **data}, "console.toml")
    assert f"console.toml: {key}: " in str(caught.value) and words in str(caught.value)


def test_a_prefix_with_levels_is_fine() -> None:
    config = config_from_dict({"game": {"kind": "sports"}, "mqtt": {"prefix": "club/chgk"}}, "t")
    assert config.mqtt.prefix == "club/chgk"


def _documented_keys(text: str) -> dict[str, set[str]]:
    """Section -> the keys written as `key =` (commented out or not) under its header.

    `[sources.mcu]` and `[[players]]` count for their section (`sources`, `players`); a header
    or key may be commented out (`# [table]`, `# blitz = []`) to document a key without
    setting it."""
    header = re.compile(r"^#?\s*\[\[?([a-z_]+)(?:\.[A-Za-z0-9_]+)?\]\]?\s*$")
    key = re.compile(r"^#?\s*([a-z_0-9]+)\s*=")
    found: dict[str, set[str]] = {}
    section = ""
    for line in text.splitlines():
        if (match := header.match(line)) is not None:
            section = match.group(1)
            found.setdefault(section, set())
        elif section and (match := key.match(line)) is not None:
            found[section].add(match.group(1))
    return found


def _section_types() -> dict[str, type[Any]]:
    """Config's sections and the dataclass of each (`players` -> PlayerSection, ...)."""
    hints = get_type_hints(Config)
    sections: dict[str, type[Any]] = {}
    for f in dataclasses.fields(Config):
        hint = hints[f.name]
        candidates = [hint, *get_args(hint)]
        classes = [c for c in candidates if isinstance(c, type) and dataclasses.is_dataclass(c)]
        if classes:
            sections[f.name] = classes[0]
    # The games' own sections (console/games/<game>/config.py), every one of them listed here.
    games = {"table": TableSection, "spin": SpinSection, "sports": SportsSection, "teams": TeamSection,
             "quartet": QuartetSection, "brainring": BrainringSection}
    assert set(config_from_dict({"game": {"kind": "sports"}}, "empty.toml").sections) == set(games)
    return {**sections, **games}


def test_the_shipped_config_documents_every_key() -> None:
    """Issue 8: config/console.toml documents every key the code accepts, of every game (the
    keys of another game commented out), so a key added to console/config.py without a line
    there fails here."""
    documented = _documented_keys((ROOT / "config" / "console.toml").read_text(encoding="utf-8"))
    sections = _section_types()
    assert set(sections) == {"console", "game", "players", "sources", "host", "mqtt", "sound", "osc",
                             "display", "table", "spin", "sports", "teams", "quartet", "brainring"}
    missing = [f"{name}.{f.name}" for name, cls in sections.items()
               for f in dataclasses.fields(cls) if f.name not in documented.get(name, set())]
    assert missing == [], f"undocumented in config/console.toml: {', '.join(missing)}"


def test_the_documentation_check_sees_a_missing_key() -> None:
    """The walker above is not vacuous: a key under another section's header, or absent, is
    not counted as documented."""
    found = _documented_keys("[sound]\nenabled = true\n# [table]\n# blitz = [3]\n# volume = 1\n")
    assert found == {"sound": {"enabled"}, "table": {"blitz", "volume"}}


@pytest.mark.parametrize("host", ["broker..lan", "a" * 64 + ".lan"])
def test_a_broker_host_the_resolver_would_refuse_is_a_config_error(host: str) -> None:
    with pytest.raises(ConfigError, match=r"console.toml: mqtt.host: .* is not a valid host name"):
        config_from_dict({"game": {"kind": "sports"}, "mqtt": {"host": host}}, "console.toml")


@pytest.mark.parametrize(
    ("sources", "named", "words"),
    [
        ({"a": {"kind": "simulated_mcu"},
          "b": {"kind": "gpio_encoder", "pins": [5, 6], "counts_per_turn": 600}},
         "", "sources a, b can all read the top"),
        ({"a": {"kind": "simulated_mcu"}}, "b", "'b' is not a source that reads the top"),
    ],
)
def test_the_table_takes_the_angle_of_one_source(sources: dict[str, Any], named: str, words: str) -> None:
    """Two sources feeding one stop detector would interleave their angles: the table needs
    table.angle_source to name the one that reads the top."""
    with pytest.raises(ConfigError, match=f"console.toml: table.angle_source: .*{words}"):
        config_from_dict({"game": {"kind": "chgk"}, "sources": sources, "table": {"angle_source": named}},
                         "console.toml")
    if not named:  # naming one of them is enough
        config = config_from_dict({"game": {"kind": "chgk"}, "sources": sources,
                                   "table": {"angle_source": "a"}}, "console.toml")
        assert config.section(TableSection).angle_source == "a"
