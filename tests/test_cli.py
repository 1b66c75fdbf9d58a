"""The command line: check-config, the demo on the simulated table, run with a bad config."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from console.shell.mdns import local_name

ROOT = Path(__file__).resolve().parent.parent


def cli(*args: str, stdin: str | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "console.cli", *args], input=stdin, text=True,
                          capture_output=True, cwd=ROOT, timeout=timeout, check=False)


def test_check_config_accepts_the_shipped_config() -> None:
    done = cli("check-config", "config/console.toml")
    assert done.returncode == 0, done.stderr
    assert "OK" in done.stdout and "Игрок 1 (mcu:0)" in done.stdout


def test_bad_config_names_file_key_and_problem_and_exits_non_zero(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text((ROOT / "config" / "console.toml").read_text(encoding="utf-8")
                   .replace('answer_clock = "host"', 'answer_clock = "gong"'), encoding="utf-8")
    for command in (("check-config", str(bad)), ("run", "--config", str(bad))):
        done = cli(*command)
        assert done.returncode == 1
        assert f"{bad}: game.answer_clock: 'gong' is not one of host, lamp" in done.stderr


def test_demo_plays_a_question_on_the_simulated_table() -> None:
    """Keys drive the simulated MCU over its pty and the host's actions; events are printed."""
    script = "n..3..a.b.y..n..f..1..x..r..2..y..q"
    done = cli("demo", "--no-sound", stdin=script)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Демо-стол готов" in out
    # Where a tablet finds the console by name once it runs (console/shell/mdns.py).
    assert f"в сети (chgk-console run): http://{local_name()}:8080/host" in out
    assert "Первый сигнал: Вера" in out
    assert "Вера: верно, +10 → 10" in out
    assert "Анна: неверно, -20 → -20" in out
    assert "Борис: верно, +20 → 20" in out


def test_demo_plays_a_pack_given_on_the_command_line() -> None:
    """`demo --pack FILE`: the pack's themes instead of the demo config's numbered ones."""
    done = cli("demo", "--no-sound", "--pack", "examples/packs/club-evening.toml", stdin="n..3..a.b.y..q")
    assert done.returncode == 0, done.stderr
    assert "Тема «Реки», вопрос за 10" in done.stdout
    assert "Вера: верно, +10 → 10" in done.stdout


def test_demo_survives_a_pasted_flood_of_keys() -> None:
    """3000 button presses pasted at once used to fill the simulated MCU's line, which only
    the demo's own loop drains: the demo hung and ignored 'q'."""
    done = cli("demo", "--no-sound", stdin="n" + "1234" * 750 + "q")
    assert done.returncode == 0, done.stderr
    assert "Первый сигнал" in done.stdout


def test_every_data_file_is_installed_with_the_package() -> None:
    """A plain `pip install .` (as on the Pi) ships only what package-data names: a page's
    script left out leaves every hall board blank."""
    import fnmatch
    import tomllib

    root = Path(__file__).resolve().parent.parent
    project = tomllib.loads((root / "pyproject.toml").read_text())
    patterns = project["tool"]["setuptools"]["package-data"]["console"]
    data = [f"data/{p.name}" for p in (root / "console" / "data").iterdir() if p.is_file()]
    missing = [name for name in data if not any(fnmatch.fnmatch(name, pattern) for pattern in patterns)]
    assert missing == []


def test_run_names_a_taken_port_of_the_embedded_broker(tmp_path: Path) -> None:
    """No broker configured and the port taken (a mosquitto already runs): a clear message
    and exit 1, not a traceback."""
    import socket

    from tests.conftest import daemon_config, free_port

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        config = daemon_config(tmp_path, f'host = ""\nport = {port}\nws_port = {free_port()}')
        proc = subprocess.run([sys.executable, "-m", "console.cli", "run", "--config", str(config)],
                              cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in proc.stderr
    assert 'set [mqtt] host = "127.0.0.1"' in proc.stderr
    assert "Traceback" not in proc.stderr


def test_run_with_stdin_closed_stops_cleanly(tmp_path: Path) -> None:
    """Started with stdin closed (`<&-`), uvloop's epoll took fd 0 and the daemon aborted
    (SIGABRT) when stopped; it must stop as usual."""
    import os
    import signal
    import time

    from tests.conftest import daemon_config, free_port

    config = daemon_config(tmp_path, f'host = "127.0.0.1"\nport = {free_port()}')  # no broker there
    log = tmp_path / "daemon.log"
    with open(log, "wb") as stderr:
        proc = subprocess.Popen([sys.executable, "-m", "console.cli", "run", "--config", str(config)],
                                cwd=ROOT, stderr=stderr, preexec_fn=lambda: os.close(0))
        deadline = time.monotonic() + 20
        while b"sim: connected" not in log.read_bytes() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert b"sim: connected" in log.read_bytes(), log.read_text(errors="replace")  # it ran
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0, log.read_text(errors="replace")
