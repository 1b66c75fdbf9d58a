"""Shared fixtures: a real mosquitto broker on a free loopback port."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import shutil
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from console.shell.runtime import Console
from console.sources.mcu import add_mcu
from drivers.mcu_serial import McuLink
from drivers.sim_mcu import SimulatedMcu


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--install", action="store_true",
                     help="also run scripts/install-pi.sh in a debootstrapped Debian 12 (minutes; CI does)")
    parser.addoption("--hardware", action="store_true",
                     help="also run tests/hardware on the real devices of this Pi (docs/hardware-tests.md)")
    parser.addoption("--hardware-interactive", action="store_true",
                     help="with --hardware: also the tests that ask someone at the table to press a button")
    parser.addoption("--fast", action="store_true",
                     help="the fast tier: in-process tests only (no broker, process or browser)")


# The fast tier (`pytest --fast`, README): every test but those that start a broker, a process or
# a browser, or wait in real time for seconds, or are judged against real time (`timing`). A test
# is left out by its `process` mark, a fixture below, or its module here; the tier refuses any
# process a test of it starts, so a test that belongs here says so at once.
PROCESS_FIXTURES = frozenset({"mosquitto", "mosquitto_ws", "workdir", "chip", "built"})
PROCESS_MODULES = frozenset({
    "test_bench_cpu_smoke", "test_bench_latency_smoke", "test_bench_noise_smoke", "test_bench_phones_smoke",
    "test_bench_press_path_smoke",
    "test_bench_resume_smoke", "test_bench_sheet_smoke", "test_bench_storm_smoke", "test_bench_table_smoke",
    "test_bridge", "test_broker_lockdown", "test_cli", "test_console_mqtt", "test_demo_ports",
    "test_display_server", "test_firmware_c", "test_firmware_referee", "test_firmware_sim",
    "test_hall_boards", "test_hall_media", "test_host_evening", "test_host_keys_daemon", "test_host_packs",
    "test_host_protocol", "test_host_roster", "test_host_screen_bench", "test_host_screen_brainring",
    "test_host_screen_problems", "test_host_screen_quartet", "test_host_screen_server",
    "test_host_screen_svoya", "test_host_screen_table", "test_install_pi", "test_instance_lock",
    "test_journal_faults", "test_mdns", "test_mqtt_link", "test_mqtt_tls",
    "test_pages_follow_game", "test_pages_login",
    "test_pages_sources", "test_power_cut", "test_resume_process", "test_run_games", "test_scoreboard",
    "test_scoreboard_outcome", "test_sdnotify", "test_sim_box", "test_sound",
    "test_sound_device_gone", "test_sports_pause", "test_sports_sheet_pages", "test_sports_sheet_process",
    "test_stall_process", "test_systemd_unit", "test_terminal_hangup", "test_tournament_service",
})


# Tests judged against real time that other work on the machine can upset (a stall of a real
# process, the firmware on simavr in real time, a thread held up on purpose): scripts/test.sh
# runs the rest in parallel first, then these with nothing else beside them. Marked by module,
# by the simulated chip's fixture, or by `@pytest.mark.timing`.
# test_run_games: a game under `run` with the simulated box in the daemon's own process, no
# error allowed; in the parallel pass the box's thread and the loop starved each other enough
# for the daemon to distrust the box's clock (and say so) once.
TIMING_MODULES = frozenset({"test_stall_process", "test_calibrate", "test_sim_top_serial",
                            "test_display_slow_clients", "test_instance_lock", "test_run_games"})
TIMING_FIXTURES = frozenset({"chip"})


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "process: starts a broker, a process or a browser (not in --fast)")
    config.addinivalue_line("markers", "timing: judged against real time: run after the rest, apart "
                                       "(scripts/test.sh)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        module = item.module.__name__.rsplit(".", 1)[-1] if isinstance(item, pytest.Function) else ""
        fixtures = set(getattr(item, "fixturenames", ()))
        if module in PROCESS_MODULES or PROCESS_FIXTURES & fixtures:
            item.add_marker(pytest.mark.process)
        if module in TIMING_MODULES or TIMING_FIXTURES & fixtures:
            item.add_marker(pytest.mark.timing)
    if config.getoption("--fast"):
        # Nor those judged against real time: three workers on two cores make them late now
        # and then (a slow-client flood's real page load once), and a tier to run while working
        # must not cry wolf. They run in the suite's second pass (`pytest -m timing`).
        keep = [item for item in items
                if item.get_closest_marker("process") is None and item.get_closest_marker("timing") is None]
        config.hook.pytest_deselected(items=[item for item in items if item not in keep])
        items[:] = keep


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection made (every test module, its items: a heap of some 160 000 objects)
    lives as long as the session: kept out of the cyclic collector's walks, as the daemon
    keeps its startup objects (console/shell/daemon.py). Walked, each full collection held
    the GIL for about 100 ms, and every thread with it: a simulated box stamping frames it
    could not send, a loop's timer, a reader judging real time."""
    gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True)
def _fast_tier_starts_no_process(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """In the fast tier a test that starts a process fails, naming where to mark it."""
    if not request.config.getoption("--fast"):
        return

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("the fast tier starts no process: mark this test `@pytest.mark.process` "
                             "or list its module in tests/conftest.py PROCESS_MODULES")

    monkeypatch.setattr(subprocess, "Popen", refused)


@dataclass(frozen=True)
class Broker:
    host: str
    port: int
    ws_port: int | None = None


def _ephemeral_range() -> tuple[int, int]:
    """The kernel's range for the local ports of outgoing connections."""
    try:
        low, high = map(int, Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    except (OSError, ValueError):
        low, high = 32768, 60999  # Linux's default
    return low, high


def _port_band() -> range:
    """Where test servers listen: outside the ephemeral range (below it, or above it when it
    leaves too little room below), so no client connection can be given one meanwhile."""
    low, high = _ephemeral_range()
    return range(10_000, low) if low - 10_000 >= 5_000 else range(high + 1, 65_536)


_BAND = _port_band()
# Where this run starts in the band: its own place, so two test runs on one machine (a CI
# run beside a developer's) do not walk the same ports in the same order.
_next_port = _BAND.start + (os.getpid() * 7919) % len(_BAND)
_handed_out: set[int] = set()


def free_port() -> int:
    """A loopback TCP port for a server a test starts: outside the kernel's ephemeral range
    (binding port 0 picks from that range, which every outgoing connection draws from too, and
    two calls could return the same port), never handed out twice in a run, and free (bound
    and released) when handed out. A server that still fails to bind it is retried on a new
    port by its starter (start_mosquitto, Browser)."""
    global _next_port
    for _ in range(len(_BAND)):
        port = _next_port
        _next_port = _BAND.start + (_next_port - _BAND.start + 1) % len(_BAND)
        if port in _handed_out:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue  # someone listens there (or did a moment ago)
        _handed_out.add(port)
        return port
    raise RuntimeError(f"no free port left in {_BAND}")


def start_mosquitto(workdir: Path, ws_port: int | None = None,
                    port: int | None = None) -> tuple[subprocess.Popen[bytes], int]:
    """Start mosquitto on `port` (default: a free one) on loopback, and a WebSocket listener
    on `ws_port`; ready once every listener accepts connections.

    A port found free may be taken by another process before mosquitto binds it (a browser's
    debugging port, a daemon under test): mosquitto then opens its other listener and exits.
    With a TCP port chosen here, that is retried on a new one (`mosquitto_ws` retries its own
    WebSocket port); a caller's own TCP port fails the test."""
    if shutil.which("mosquitto") is None:
        pytest.fail("mosquitto is not installed (apt-get install mosquitto); .ci/run installs it")
    chosen = port is None
    for _attempt in range(3 if chosen else 1):
        tcp = port or free_port()
        conf = workdir / "mosquitto.conf"
        websockets = f"listener {ws_port} 127.0.0.1\nprotocol websockets\n" if ws_port else ""
        conf.write_text(
            f"listener {tcp} 127.0.0.1\nallow_anonymous true\nset_tcp_nodelay true\n"
            f"persistence false\nlog_dest stderr\n{websockets}"
        )
        proc = subprocess.Popen(["mosquitto", "-c", str(conf)], stderr=subprocess.DEVNULL)
        if _listening(proc, [tcp, *([ws_port] if ws_port else [])]):
            return proc, tcp
        proc.kill()
        proc.wait(timeout=5)
    pytest.fail("mosquitto did not start listening (its ports were taken)")


def _listening(proc: subprocess.Popen[bytes], ports: list[int]) -> bool:
    """True once every port accepts connections and mosquitto is still running after it."""
    deadline = time.monotonic() + 10
    waiting = list(ports)
    while time.monotonic() < deadline and proc.poll() is None:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", waiting[0])) == 0:
                waiting.pop(0)
                if not waiting:
                    time.sleep(0.1)  # a listener that failed to bind makes it exit just now
                    return proc.poll() is None
                continue
        time.sleep(0.02)
    return False


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
    for _attempt in range(3):  # the WebSocket port may be taken between choosing and binding
        ws_port = free_port()
        try:
            proc, port = start_mosquitto(tmp_path, ws_port)
        except pytest.fail.Exception:
            continue
        break
    else:
        pytest.fail("mosquitto did not start listening (its ports were taken)")
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


@contextlib.asynccontextmanager
async def linked(console: Console, sim: SimulatedMcu) -> AsyncIterator[tuple[McuLink, list[dict[str, Any]]]]:
    """`console`'s MCU link (source "mcu") to `sim`, running, connected and its clock synchronised;
    the wire events the console would publish are collected. No broker."""
    events: list[dict[str, Any]] = []
    console.wire_watchers.append(events.append)
    link = add_mcu(console.sources, "mcu", sim.port, 115200)
    task = asyncio.create_task(link.run())
    try:
        await until(lambda: link.connected and link.clock.ready)
        yield link, events
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


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

