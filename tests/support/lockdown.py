"""mosquitto with the shipped lockdown (config/mosquitto/chgk-console.conf, its ACL and the
accounts of scripts/mosquitto-passwords.sh) on free loopback ports, its tests in
tests/test_broker_lockdown.py: the `locked` fixture (a `LockedBroker`) in a `workdir` the broker
can read after it drops root; `locked_config` (the shipped conf with only its four replaceable
lines changed), `make_passwords` (the shipped script run), `wait_listening`; and
`running_console`, the real console logged in with the `console` account."""

from __future__ import annotations

import asyncio
import re
import shutil
import socket
import subprocess
import tempfile
import time
import tomllib
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import aiomqtt
import pytest

from console.games import config_from_dict
from console.shell.runtime import Console
from console.sources.mcu import add_mcu
from drivers.sim_mcu import SimulatedMcu
from tests.conftest import free_port

__all__ = ["ACL", "BASE", "CONF", "SCRIPT", "LockedBroker", "locked", "locked_config", "make_passwords",
           "running_console", "wait_listening", "workdir"]

ROOT = Path(__file__).resolve().parents[2]
CONF = ROOT / "config" / "mosquitto" / "chgk-console.conf"
ACL = ROOT / "config" / "mosquitto" / "acl"
SCRIPT = ROOT / "scripts" / "mosquitto-passwords.sh"
# The conf's only lines a test may change (its header comment lists them).
TCP_LISTENER = "listener 1883"
WS_LISTENER = "listener 9001"
PASSWORD_FILE = "password_file /etc/mosquitto/chgk-console.passwd"
ACL_FILE = "acl_file /etc/mosquitto/chgk-console.acl"

BASE = "chgk/t1"


@dataclass(frozen=True)
class LockedBroker:
    port: int
    ws_port: int
    passwords: dict[str, str]  # account -> password, as the script printed them
    printed: str  # the script's whole output (TOML for the console's [mqtt])

    def client(self, user: str | None, *, websockets: bool = False,
               password: str | None = None) -> aiomqtt.Client:
        """A client logged in as `user` (None: anonymous), over TCP or the WebSocket listener."""
        if password is None and user is not None:
            password = self.passwords.get(user, "")
        return aiomqtt.Client("127.0.0.1", self.ws_port if websockets else self.port,
                              username=user, password=password,
                              transport="websockets" if websockets else "tcp", timeout=5)


def locked_config(port: int, ws_port: int, password_file: Path, acl_file: Path) -> str:
    """The shipped conf with only its four replaceable lines changed (each must be there once)."""
    lines = CONF.read_text(encoding="utf-8").splitlines()
    changes = {
        TCP_LISTENER: f"listener {port} 127.0.0.1",
        WS_LISTENER: f"listener {ws_port} 127.0.0.1",
        PASSWORD_FILE: f"password_file {password_file}",
        ACL_FILE: f"acl_file {acl_file}",
    }
    for line in changes:
        assert lines.count(line) == 1, f"the shipped conf must have the line {line!r} once"
    return "\n".join(changes.get(line, line) for line in lines) + "\n"


def make_passwords(password_file: Path, *args: str) -> tuple[dict[str, str], str]:
    """Run the shipped script; the passwords it printed, and its whole output."""
    done = subprocess.run([str(SCRIPT), *args, str(password_file)], check=True,
                          capture_output=True, text=True, timeout=30)
    out = done.stdout
    mqtt = tomllib.loads(out)  # the console's part is TOML, ready for [mqtt]
    assert mqtt["username"] == "console"
    passwords = {"console": mqtt["password"]}
    for user in ("host", "display", "jury"):
        found = re.search(rf"^# .*: user {user}, password (\S+)$", out, re.MULTILINE)
        assert found, out
        passwords[user] = found[1]
    return passwords, out


@pytest.fixture
def workdir() -> Iterator[Path]:
    """A directory the broker can read after it drops root (pytest's tmp_path is 0700 root's)."""
    path = Path(tempfile.mkdtemp(prefix="chgk-broker-"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def locked(workdir: Path) -> Iterator[LockedBroker]:
    """mosquitto with the shipped lockdown on free loopback ports."""
    if shutil.which("mosquitto") is None or shutil.which("mosquitto_passwd") is None:
        pytest.fail("mosquitto is not installed (apt-get install mosquitto); .ci/run installs it")
    passwords, printed = make_passwords(workdir / "passwd")
    acl = workdir / "acl"
    shutil.copyfile(ACL, acl)
    acl.chmod(0o644)
    port, ws_port = free_port(), free_port()
    conf = workdir / "mosquitto.conf"
    conf.write_text(locked_config(port, ws_port, workdir / "passwd", acl), encoding="utf-8")
    log = (workdir / "mosquitto.log").open("wb")
    proc = subprocess.Popen(["mosquitto", "-c", str(conf)], stdout=log, stderr=log)
    try:
        wait_listening(proc, port, workdir)
        wait_listening(proc, ws_port, workdir)
        yield LockedBroker(port, ws_port, passwords, printed)
    finally:
        proc.terminate()
        proc.wait(timeout=5)
        log.close()


def wait_listening(proc: subprocess.Popen[bytes], port: int, workdir: Path) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        if proc.poll() is not None:
            log = (workdir / "mosquitto.log").read_text(errors="replace")
            pytest.fail(f"mosquitto exited with {proc.returncode}:\n{log}")
        time.sleep(0.02)
    pytest.fail("mosquitto did not start listening")


@asynccontextmanager
async def running_console(broker: LockedBroker, password: str) -> AsyncIterator[Console]:
    """The real console («Своя игра», a simulated MCU) logged in with the `console` account."""
    sim = SimulatedMcu(pads=4)
    sim.start()
    config = config_from_dict(
        {
            "console": {"node": "t1", "journal": ""},
            "players": [{"id": f"p{i + 1}", "name": f"Игрок {i + 1}", "pad": f"mcu:{i}"}
                        for i in range(2)],
            "sources": {"mcu": {"kind": "serial_mcu", "port": sim.port}},
            "sound": {"enabled": False},
            "mqtt": {"username": "console", "password": password},
        },
        "test",
    )
    console = Console(config)
    add_mcu(console.sources, "mcu", sim.port, 115200)
    connected = asyncio.Event()
    task = asyncio.create_task(console.run("127.0.0.1", broker.port, on_ready=connected.set))
    try:
        async with asyncio.timeout(5):
            await connected.wait()
        yield console
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        sim.stop()
