"""The cues out as OSC ([osc], issue 20): a real UDP socket receives the message of each cue
the referee asks for, as QLab would; off by default; a bad address is a config error."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from pythonosc.osc_message import OscMessage

from console.config import ConfigError
from console.engine.model import NS_PER_MS as MS
from console.engine.model import HostAction
from console.games import config_from_dict, game
from console.shell.runtime import Console
from console.sources.mcu import McuFeed
from drivers.mcu_serial import PadEdge, Watermark
from tests.test_schemas import Clock


def config(**osc: Any) -> Any:
    return config_from_dict({**game("svoya").scenario_defaults, "console": {"node": "table7"},
                             "sound": {"enabled": False}, "osc": osc}, "console.toml")


def test_each_cue_is_an_osc_message_to_the_show_computer() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as show:
        show.bind(("127.0.0.1", 0))
        show.settimeout(5)
        port = show.getsockname()[1]
        clock = Clock()
        console = Console(config(enabled=True, port=port, address="/club"), clock=clock)
        console.host(HostAction.NEXT)
        console.host(HostAction.READING_FINISHED)
        clock.now += 100 * MS
        feed = McuFeed(console, "mcu")
        feed.edge(PadEdge((1,), True, clock.now, clock.now // 1000, 0))
        feed.watermark(Watermark(clock.now))  # the press takes the turn: the signal's cue
        message = OscMessage(show.recv(1024))
        assert (message.address, message.params) == ("/club/cue/signal", ["table7"])


def test_osc_is_off_by_default_and_a_bad_address_is_named() -> None:
    assert Console(config(), clock=Clock()).osc is None
    with pytest.raises(ConfigError, match=r"console\.toml: osc\.address: an OSC address starts with /"):
        config(enabled=True, address="chgk")
