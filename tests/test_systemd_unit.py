"""Checks on systemd/chgk-console.service, the unit that runs the console on the Pi."""

from __future__ import annotations

import configparser
import shlex
from pathlib import Path

import pytest

UNIT = Path(__file__).resolve().parents[1] / "systemd" / "chgk-console.service"


@pytest.fixture(scope="module")
def unit() -> configparser.ConfigParser:
    # strict=False: systemd allows repeated keys; interpolation=None: "$MAINPID" and
    # "%" specifiers are systemd's, not configparser's.
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read_string(UNIT.read_text(encoding="utf-8"))
    return parser


def test_sections(unit: configparser.ConfigParser) -> None:
    assert {"Unit", "Service", "Install"} <= set(unit.sections())


def test_notify_and_watchdog(unit: configparser.ConfigParser) -> None:
    service = unit["Service"]
    assert service["Type"] == "notify"
    assert service["NotifyAccess"] == "main"
    # The daemon pings at half this period (console.shell.sdnotify.watchdog_interval).
    assert int(service["WatchdogSec"]) > 0
    assert service["Restart"] == "on-failure"


def test_exec_start_runs_console_with_config(unit: configparser.ConfigParser) -> None:
    argv = shlex.split(unit["Service"]["ExecStart"])
    assert Path(argv[0]).name == "chgk-console"
    assert Path(argv[0]).is_absolute()  # systemd requires absolute paths here
    assert argv[1:3] == ["run", "--config"]
    assert argv[3].endswith(".toml")
    assert unit["Service"]["ExecReload"] == "/bin/kill -HUP $MAINPID"


def test_lgpio_gets_a_writable_working_directory(unit: configparser.ConfigParser) -> None:
    service = unit["Service"]
    runtime = "/run/" + service["RuntimeDirectory"]
    assert service["WorkingDirectory"] == runtime
    assert service["Environment"] == f"LG_WD={runtime}"


def test_runs_unprivileged_with_device_groups(unit: configparser.ConfigParser) -> None:
    service = unit["Service"]
    assert service["User"] == "chgk"
    groups = set(service["SupplementaryGroups"].split())
    assert {"gpio", "input", "dialout", "plugdev", "audio"} <= groups
    assert service["NoNewPrivileges"] == "true"
    assert service["ProtectSystem"] == "strict"
    # These would hide /dev/gpiochip*, serial ports and /dev/snd from the daemon.
    for breaking in ("PrivateDevices", "DevicePolicy", "DeviceAllow"):
        assert breaking not in service


def test_ordering(unit: configparser.ConfigParser) -> None:
    after = unit["Unit"]["After"].split()
    assert "mosquitto.service" in after
    assert "network-online.target" in after
    assert "mosquitto.service" in unit["Unit"]["Wants"].split()
    assert unit["Install"]["WantedBy"] == "multi-user.target"


def test_every_directive_has_a_comment() -> None:
    previous = ""
    for number, line in enumerate(UNIT.read_text(encoding="utf-8").splitlines(), 1):
        stripped = line.strip()
        if stripped and not stripped.startswith(("#", ";", "[")):
            assert previous.startswith("#"), f"line {number} has no comment above: {line}"
        previous = stripped
