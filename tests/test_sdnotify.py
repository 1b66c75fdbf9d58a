"""Tests for console.shell.sdnotify on real AF_UNIX datagram sockets."""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from console.shell.sdnotify import notify, watchdog_interval


@pytest.fixture
def receiver(tmp_path: Path) -> Iterator[tuple[socket.socket, str]]:
    """A bound datagram socket standing in for systemd, and its NOTIFY_SOCKET value."""
    path = tmp_path / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(2.0)
    try:
        yield sock, str(path)
    finally:
        sock.close()


def test_notify_sends_exact_bytes(receiver: tuple[socket.socket, str]) -> None:
    sock, address = receiver
    state = "READY=1\nSTATUS=Жду кнопки"
    assert notify(state, env={"NOTIFY_SOCKET": address}) is True
    assert sock.recv(4096) == state.encode("utf-8")


def test_notify_sends_one_datagram_per_call(receiver: tuple[socket.socket, str]) -> None:
    sock, address = receiver
    env = {"NOTIFY_SOCKET": address}
    assert notify("WATCHDOG=1", env=env)
    assert notify("STATUS=round 2", env=env)
    assert sock.recv(4096) == b"WATCHDOG=1"
    assert sock.recv(4096) == b"STATUS=round 2"


def test_notify_abstract_namespace() -> None:
    name = f"chgk-console-test-{uuid.uuid4().hex}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        sock.settimeout(2.0)
        assert notify("READY=1", env={"NOTIFY_SOCKET": "@" + name}) is True
        assert sock.recv(4096) == b"READY=1"


def test_notify_uses_os_environ_by_default(
    receiver: tuple[socket.socket, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    sock, address = receiver
    monkeypatch.setenv("NOTIFY_SOCKET", address)
    assert notify("STOPPING=1") is True
    assert sock.recv(4096) == b"STOPPING=1"


def test_notify_outside_systemd_returns_false(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    assert notify("READY=1") is False
    assert notify("READY=1", env={}) is False
    assert notify("READY=1", env={"NOTIFY_SOCKET": ""}) is False


def test_notify_missing_socket_returns_false(tmp_path: Path) -> None:
    assert notify("READY=1", env={"NOTIFY_SOCKET": str(tmp_path / "absent.sock")}) is False


def test_notify_unbound_abstract_name_returns_false() -> None:
    name = f"@chgk-console-absent-{uuid.uuid4().hex}"
    assert notify("READY=1", env={"NOTIFY_SOCKET": name}) is False


def test_notify_closed_receiver_returns_false(tmp_path: Path) -> None:
    path = tmp_path / "gone.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(path))
    # The socket file is still there but nobody listens: ECONNREFUSED.
    assert path.exists()
    assert notify("READY=1", env={"NOTIFY_SOCKET": str(path)}) is False


def test_notify_unsupported_address_returns_false() -> None:
    assert notify("READY=1", env={"NOTIFY_SOCKET": "vsock:2:1234"}) is False
    assert notify("READY=1", env={"NOTIFY_SOCKET": "relative/path"}) is False


def test_notify_full_receiver_does_not_block(receiver: tuple[socket.socket, str]) -> None:
    _, address = receiver
    env = {"NOTIFY_SOCKET": address}
    payload = "STATUS=" + "x" * 8000
    # Nobody reads: the receive queue fills up and notify must report False rather
    # than wait (it runs on the event loop thread).
    results = [notify(payload, env=env) for _ in range(1000)]
    assert results[0] is True
    assert results[-1] is False


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"WATCHDOG_USEC": "10000000"}, 5.0),
        ({"WATCHDOG_USEC": "3000000", "WATCHDOG_PID": str(os.getpid())}, 1.5),
        ({"WATCHDOG_USEC": "1"}, 0.0000005),
        ({"WATCHDOG_USEC": "10000000", "WATCHDOG_PID": str(os.getpid() + 1)}, None),
        ({"WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "not-a-pid"}, None),
        ({"WATCHDOG_PID": str(os.getpid())}, None),
        ({"WATCHDOG_USEC": "0"}, None),
        ({"WATCHDOG_USEC": "-5"}, None),
        ({"WATCHDOG_USEC": "ten seconds"}, None),
        ({"WATCHDOG_USEC": ""}, None),
        ({}, None),
    ],
)
def test_watchdog_interval(env: dict[str, str], expected: float | None) -> None:
    assert watchdog_interval(env) == expected


def test_watchdog_interval_uses_os_environ_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "10000000")
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    assert watchdog_interval() == 5.0
    monkeypatch.delenv("WATCHDOG_USEC")
    assert watchdog_interval() is None


def test_the_daemon_is_ready_without_a_broker(receiver: tuple[socket.socket, str], tmp_path: Path) -> None:
    """Under systemd (Type=notify) a daemon that reported READY only once the broker answered
    was killed and restarted every 90 s while mosquitto was down, losing the game each time.
    READY=1 comes as soon as the referee, the buttons and the lamps run."""
    import subprocess
    import sys

    from tests.conftest import daemon_config, free_port

    sock, address = receiver
    config = daemon_config(tmp_path, f'host = "127.0.0.1"\nport = {free_port()}')  # no broker there
    root = Path(__file__).resolve().parent.parent
    proc = subprocess.Popen([sys.executable, "-m", "console.cli", "run", "--config", str(config)],
                            cwd=root, env={**os.environ, "NOTIFY_SOCKET": address},
                            stderr=subprocess.DEVNULL)
    try:
        sock.settimeout(15)
        messages = [sock.recv(4096).decode()]
        while "READY=1" not in messages[-1]:
            messages.append(sock.recv(4096).decode())
        assert "ждём брокер MQTT" in messages[-1]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
