"""Many tables' brokers bridged to the organiser's, as tests/test_bridge.py runs them: the
shipped config/mosquitto/organiser.conf (the accounts and ACL of scripts/organiser-passwords.sh)
and bridge-table.conf, each used as written but for the lines its header names.
`bridged_hall(workdir)` starts the organiser's mosquitto and two tables' (t1, t2), each bridged
to it, and gives the `Hall`; `workdir` is a fixture: a folder mosquitto can read after it drops
root."""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import free_port
from tests.tls_pki import Pki

__all__ = ["Hall", "Mosquitto", "bridged_hall", "workdir"]

ROOT = Path(__file__).resolve().parents[2]
MOSQ = ROOT / "config" / "mosquitto"
BRIDGE = MOSQ / "bridge-table.conf"
ORGANISER = MOSQ / "organiser.conf"
SCRIPT = ROOT / "scripts" / "organiser-passwords.sh"


def replaced(template: Path, changes: dict[str, str], extra: str = "") -> str:
    """The shipped file with only the named lines changed (each must be there exactly once)."""
    lines = template.read_text(encoding="utf-8").splitlines()
    for line in changes:
        assert lines.count(line) == 1, f"{template.name} must have the line {line!r} once"
    return "\n".join(changes.get(line, line) for line in lines) + "\n" + extra


@dataclass
class Mosquitto:
    """A mosquitto process on a config file; stop() and start() again keep its persistence."""

    conf: Path
    port: int
    ws_port: int | None = None
    proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        log = self.conf.with_suffix(".log").open("ab")
        self.proc = subprocess.Popen(["mosquitto", "-c", str(self.conf)], stdout=log, stderr=log)
        log.close()
        deadline = time.monotonic() + 10
        for port in [self.port, *([self.ws_port] if self.ws_port else [])]:
            while True:
                assert self.proc.poll() is None, self.conf.with_suffix(".log").read_text(errors="replace")
                with socket.socket() as s:
                    if s.connect_ex(("127.0.0.1", port)) == 0:
                        break
                assert time.monotonic() < deadline, f"mosquitto is not listening on {port}"
                time.sleep(0.02)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)  # saves its persistence file on the way out
            self.proc.wait(timeout=10)


@dataclass
class Hall:
    organiser: Mosquitto
    tables: dict[str, Mosquitto]
    accounts: dict[str, str]  # account -> password (scripts/organiser-passwords.sh's output)
    workdir: Path


@pytest.fixture
def workdir() -> Iterator[Path]:
    """A folder mosquitto can read after it drops root (pytest's tmp_path is root's 0700)."""
    path = Path(tempfile.mkdtemp(prefix="chgk-bridge-"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def persistence(folder: Path) -> str:
    folder.mkdir()
    folder.chmod(0o777)  # the broker writes its file as the mosquitto user
    return f"persistence_location {folder}/\nlog_dest stderr\n"


@contextmanager
def bridged_hall(workdir: Path, pki: Pki | None = None) -> Iterator[Hall]:
    """The organiser's broker and two tables' brokers bridged to it, all started. With `pki`,
    the organiser's TLS listener is on (the shipped commented lines) and both bridges use it:
    t1 with the CA that signed the organiser's certificate, t2 with another CA."""
    if shutil.which("mosquitto") is None or shutil.which("mosquitto_passwd") is None:
        pytest.fail("mosquitto is not installed (apt-get install mosquitto); .ci/run installs it")
    done = subprocess.run([str(SCRIPT), "--tables", "t1,t2", str(workdir / "passwd"), str(workdir / "acl")],
                          check=True, capture_output=True, text=True, timeout=30)
    accounts = dict(line.split(" ", 1) for line in done.stdout.splitlines() if not line.startswith("#"))
    assert set(accounts) == {"organiser", "display", "bridge-t1", "bridge-t2"}
    (workdir / "passwd").chmod(0o644)
    (workdir / "acl").chmod(0o644)
    port, ws_port, tls_port = free_port(), free_port(), free_port()
    organiser_lines = {
        "listener 1883": f"listener {port} 127.0.0.1",
        "listener 9001": f"listener {ws_port} 127.0.0.1",
        "password_file /etc/mosquitto/chgk-organiser.passwd": f"password_file {workdir / 'passwd'}",
        "acl_file /etc/mosquitto/chgk-organiser.acl": f"acl_file {workdir / 'acl'}",
    }
    if pki is not None:
        organiser_lines |= {
            "#listener 8883": f"listener {tls_port} 127.0.0.1",
            "#certfile /etc/mosquitto/certs/chgk-organiser.pem": f"certfile {pki.server}",
            "#keyfile /etc/mosquitto/certs/chgk-organiser.key": f"keyfile {pki.server_key}",
        }
    conf = workdir / "organiser.conf"
    conf.write_text(replaced(ORGANISER, organiser_lines, persistence(workdir / "organiser-db")),
                    encoding="utf-8")
    organiser = Mosquitto(conf, port, ws_port)
    tables = {}
    for node in ("t1", "t2"):
        table_port = free_port()
        table_conf = workdir / f"{node}.conf"
        bridge_lines = {
            "connection chgk-table-t1": f"connection chgk-table-{node}",
            "address organiser.local:1883": f"address 127.0.0.1:{tls_port if pki else port}",
            "remote_clientid bridge-t1": f"remote_clientid bridge-{node}",
            "remote_username bridge-t1": f"remote_username bridge-{node}",
            "remote_password CHANGE-ME": f"remote_password {accounts[f'bridge-{node}']}",
            "notification_topic chgk/bridges/bridge-t1": f"notification_topic chgk/bridges/bridge-{node}",
        }
        if pki is not None:
            ca = pki.ca if node == "t1" else pki.other_ca
            bridge_lines["#bridge_cafile /etc/mosquitto/certs/chgk-ca.pem"] = f"bridge_cafile {ca}"
        # The table's own listener (anonymous here: the lockdown is tests/test_broker_lockdown.py's),
        # then the shipped bridge file with its six lines set for this table.
        table_conf.write_text(
            f"listener {table_port} 127.0.0.1\nallow_anonymous true\n"
            + persistence(workdir / f"{node}-db")
            + replaced(BRIDGE, bridge_lines), encoding="utf-8")
        tables[node] = Mosquitto(table_conf, table_port)
    brokers = [organiser, *tables.values()]
    try:
        for broker in brokers:
            broker.start()
        yield Hall(organiser, tables, accounts, workdir)
    finally:
        for broker in brokers:
            broker.stop()
