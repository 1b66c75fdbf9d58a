"""Shared fixtures: a real mosquitto broker on a free loopback port."""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass(frozen=True)
class Broker:
    host: str
    port: int
    ws_port: int | None = None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_mosquitto(workdir: Path, ws_port: int | None = None,
                    port: int | None = None) -> tuple[subprocess.Popen[bytes], int]:
    """Start mosquitto on `port` (default: a free one) on loopback, and a WebSocket listener
    on `ws_port`."""
    if shutil.which("mosquitto") is None:
        pytest.fail("mosquitto is not installed (apt-get install mosquitto); .ci/run installs it")
    port = port or free_port()
    conf = workdir / "mosquitto.conf"
    websockets = f"listener {ws_port} 127.0.0.1\nprotocol websockets\n" if ws_port else ""
    conf.write_text(
        f"listener {port} 127.0.0.1\nallow_anonymous true\nset_tcp_nodelay true\n"
        f"persistence false\nlog_dest stderr\n{websockets}"
    )
    proc = subprocess.Popen(["mosquitto", "-c", str(conf)], stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return proc, port
        if proc.poll() is not None:
            pytest.fail(f"mosquitto exited with {proc.returncode}")
        time.sleep(0.02)
    proc.kill()
    pytest.fail("mosquitto did not start listening")


@pytest.fixture
def mosquitto(tmp_path: Path) -> Iterator[Broker]:
    proc, port = start_mosquitto(tmp_path)
    try:
        yield Broker("127.0.0.1", port)
    finally:
        proc.terminate()
        proc.wait(timeout=5)


@pytest.fixture
def mosquitto_ws(tmp_path: Path) -> Iterator[Broker]:
    """mosquitto with a WebSocket listener too, as browser displays need."""
    ws_port = free_port()
    proc, port = start_mosquitto(tmp_path, ws_port)
    try:
        yield Broker("127.0.0.1", port, ws_port)
    finally:
        proc.terminate()
        proc.wait(timeout=5)


async def until(condition: Callable[[], object], within: float = 5.0) -> None:
    """Wait until `condition()` holds: for state changed by driver threads and loop callbacks."""
    async with asyncio.timeout(within):
        while not condition():  # noqa: ASYNC110 - the state has no event to wait on
            await asyncio.sleep(0.005)


def daemon_config(tmp_path: Path, mqtt: str) -> Path:
    """A config for `chgk-console run` on a simulated MCU with two players, no sound and no
    hall-board server; `mqtt` is the [mqtt] section's body (e.g. 'host = "127.0.0.1"\nport = 1')."""
    path = tmp_path / "console.toml"
    path.write_text(
        '[console]\nnode = "t1"\njournal = ""\n\n'
        + "".join(f'[[players]]\nid = "p{i}"\nname = "Игрок {i}"\npad = "sim:{i}"\n\n' for i in range(2))
        + f'[sources.sim]\nkind = "simulated_mcu"\n\n[mqtt]\n{mqtt}\n\n'
        + "[sound]\nenabled = false\n\n[display]\nhttp_port = 0\n",
        encoding="utf-8",
    )
    return path

