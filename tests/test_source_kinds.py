"""The source registry (console/sources): a kind is one backend module's settings class and one
entry; a `[sources.NAME]` table becomes that class, with the kind's own defaults and checks."""

from __future__ import annotations

import dataclasses

import pytest

from console.config import ConfigError
from console.games import config_from_dict
from console.sources import SourceSettings, kinds, source_kind
from console.sources.buzz import BuzzSettings
from console.sources.gpio import GpioButtonsSettings, GpioEncoderSettings
from console.sources.mcu import SerialMcuSettings, SimulatedMcuSettings
from console.sources.phones import PhonesSettings


def with_source(**source: object) -> dict[str, object]:
    return {
        "console": {"node": "t", "journal": ""},
        "players": [{"id": "a", "name": "Анна", "pad": "s:0"}, {"id": "b", "name": "Борис", "pad": "s:1"}],
        "sources": {"s": source},
        "sound": {"enabled": False},
    }


def test_each_kind_is_its_backends_settings_class_which_attaches_it() -> None:
    expected = {"serial_mcu": SerialMcuSettings, "simulated_mcu": SimulatedMcuSettings,
                "gpio": GpioButtonsSettings, "gpio_encoder": GpioEncoderSettings, "buzz": BuzzSettings,
                "phones": PhonesSettings}
    assert {name: source_kind(name).settings() for name in kinds()} == expected
    for name, settings in expected.items():
        assert issubclass(settings, SourceSettings)
        assert settings.attach is not SourceSettings.attach  # a kind that cannot attach is no kind
        assert f"{settings.__module__}:{settings.__name__}" == source_kind(name).settings_path


@pytest.mark.parametrize(("source", "cls", "values"), [
    ({"kind": "serial_mcu", "port": "/dev/ttyACM0"}, SerialMcuSettings,
     {"port": "/dev/ttyACM0", "baudrate": 115200, "resolution_us": 1, "max_delay_ms": 5.0}),
    ({"kind": "simulated_mcu", "pads": 2}, SimulatedMcuSettings, {"pads": 2}),
    ({"kind": "gpio", "pins": [5, 6], "pin_factory": "mock"}, GpioButtonsSettings,
     {"pins": (5, 6), "pull_up": True, "presence_pin": -1}),
    # A Buzz! brings its own timing: its USB poll (console/sources/buzz.py).
    ({"kind": "buzz"}, BuzzSettings,
     {"resolution_us": 10_000, "max_delay_ms": 20.0, "buzzer_buttons": ("red",)}),
])
def test_a_table_becomes_its_kinds_settings_with_their_defaults(
        source: dict[str, object], cls: type[SourceSettings], values: dict[str, object]) -> None:
    settings = config_from_dict(with_source(**source), "t").sources["s"]
    assert type(settings) is cls
    assert {key: getattr(settings, key) for key in values} == values


def test_another_kinds_key_is_left_unread_as_in_the_shipped_template_but_no_kinds_key_is_refused() -> None:
    # config/console.toml's [sources.mcu] lists every kind's keys with a comment each.
    settings = config_from_dict(with_source(kind="serial_mcu", port="/dev/ttyACM0", pads=4, pins=[],
                                            counts_per_turn=0, pin_factory=""), "t").sources["s"]
    assert settings == SerialMcuSettings(kind="serial_mcu", port="/dev/ttyACM0")
    with pytest.raises(ConfigError, match=r"sources\.s\.pots: unknown key \(known: baudrate, kind, "):
        config_from_dict(with_source(kind="serial_mcu", port="/dev/ttyACM0", pots=4), "t")


def test_a_replays_header_keeps_the_kind_its_timing_and_where_it_is() -> None:
    """The journal's header as earlier versions wrote it: a resume compares it with the config."""
    def replayed(**source: object) -> dict[str, object]:
        return config_from_dict(with_source(**source), "t").sources["s"].replayed()
    assert replayed(kind="serial_mcu", port="/dev/x", baudrate=9600) == {
        "kind": "serial_mcu", "resolution_us": 1, "max_delay_ms": 5.0, "port": "/dev/x"}
    assert replayed(kind="simulated_mcu") == {
        "kind": "simulated_mcu", "resolution_us": 1, "max_delay_ms": 5.0, "pads": 4}
    assert replayed(kind="gpio", pins=[5, 6], pin_factory="mock", max_delay_ms=8.0) == {
        "kind": "gpio", "resolution_us": 1, "max_delay_ms": 8.0, "pins": [5, 6]}
    assert replayed(kind="buzz") == {"kind": "buzz", "resolution_us": 10_000, "max_delay_ms": 20.0}


def test_settings_are_frozen_records() -> None:
    settings = SerialMcuSettings(kind="serial_mcu", port="/dev/x")
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.port = "/dev/y"  # type: ignore[misc]
