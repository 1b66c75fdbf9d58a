"""The cues out as OSC ([osc], issue 20): a real UDP socket receives the message of each cue
the referee asks for, as QLab would; off by default; a bad address is a config error."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from pythonosc.osc_message import OscMessage

from console.config import ConfigError
from console.engine.model import NS_PER_MS as MS
from console.engine.model import Cue, HostAction
from console.games import config_from_dict, game
from console.shell.runtime import Console
from console.sources.mcu import McuFeed
from drivers.mcu_serial import PadEdge, Watermark
from tests.support.clock import Clock


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
        feed = McuFeed(console.sources, "mcu")
        feed.edge(PadEdge((1,), True, clock.now, clock.now // 1000, 0))
        feed.watermark(Watermark(clock.now))  # the press takes the turn: the signal's cue
        message = OscMessage(show.recv(1024))
        assert (message.address, message.params) == ("/club/cue/signal", ["table7"])


def test_osc_is_off_by_default_and_a_bad_address_is_named() -> None:
    assert Console(config(), clock=Clock()).osc is None
    with pytest.raises(ConfigError, match=r"console\.toml: osc\.address: an OSC address starts with /"):
        config(enabled=True, address="chgk")


def test_a_host_name_is_resolved_off_the_loop_and_one_that_does_not_resolve_stops_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 31: a name that takes seconds to resolve held the loop at every cue, and one that
    did not resolve at boot (the show laptop off) kept the console from starting. The name is
    now resolved on a thread of its own: neither the console's start nor a cue asks DNS on the
    calling thread, and the cues reach the name's address once it resolves."""
    import threading

    from console.shell import osc_cues

    real = socket.getaddrinfo
    asked_on: list[str] = []
    resolves = threading.Event()

    def slow_dns(host: Any, *args: Any, **kwargs: Any) -> Any:
        asked_on.append(threading.current_thread().name)
        if host == "show-laptop.club" and not resolves.is_set():
            raise socket.gaierror(socket.EAI_NONAME, "not known")
        return real("127.0.0.1" if host == "show-laptop.club" else host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", slow_dns)
    monkeypatch.setattr(osc_cues, "RESOLVE_RETRY_S", 0.05)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as show:
        show.bind(("127.0.0.1", 0))
        show.settimeout(5)
        console = Console(config(enabled=True, host="show-laptop.club", port=show.getsockname()[1]),
                          clock=Clock())  # starts although the name does not resolve
        assert console.osc is not None
        console.osc.send(Cue.START)  # dropped, said once: nothing resolved yet
        resolves.set()
        for _ in range(200):
            console.osc.send(Cue.START)
            show.settimeout(0.05)
            try:
                message = OscMessage(show.recv(1024))
                break
            except TimeoutError:
                continue
        else:
            raise AssertionError("the cue never reached the resolved address")
        assert message.address.endswith("/cue/start")
        assert "MainThread" not in asked_on and set(asked_on) == {"osc-resolve"}
        console.osc.close()
