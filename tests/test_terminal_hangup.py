"""`chgk-console run` started by hand in a terminal keeps running when the terminal closes
(the kernel's SIGHUP to it), and under systemd SIGHUP keeps its meaning: the config is checked
again and the running fight is left as it is (console/shell/daemon.py)."""

from __future__ import annotations

import os
import pty
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.conftest import free_port

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "console" / "data" / "demo.toml"


def table_config(tmp_path: Path) -> tuple[Path, int]:
    """The demo's simulated table on free ports, without sound, and its page port."""
    http = free_port()
    text = DEMO.read_text(encoding="utf-8")
    text = text.replace("port = 1883", f"port = {free_port()}")
    text = text.replace("ws_port = 9001", f"ws_port = {free_port()}")
    text = text.replace("enabled = true", "enabled = false")
    path = tmp_path / "console.toml"
    path.write_text(text + f'\n[display]\nhttp_port = {http}\n', encoding="utf-8")
    return path, http


def read_until(fd: int, words: bytes, seconds: float) -> bytes:
    """The terminal's output until `words` appear in it (or the time is up)."""
    seen = b""
    deadline = time.monotonic() + seconds
    while words not in seen and time.monotonic() < deadline:
        try:
            seen += os.read(fd, 65536)
        except OSError:
            break
    return seen


def test_closing_the_terminal_does_not_stop_the_console(tmp_path: Path) -> None:
    config, http = table_config(tmp_path)
    pid, terminal = pty.fork()
    if pid == 0:  # the child: the console, on the terminal as a user starts it
        os.chdir(ROOT)
        os.execv(sys.executable, [sys.executable, "-m", "console.cli", "run", "--config", str(config)])
    try:
        started = read_until(terminal, b"mqtt: connected", 60)
        assert b"mqtt: connected" in started, started.decode(errors="replace")
        os.close(terminal)  # the window is closed: the kernel hangs up the session's terminal
        os.kill(pid, signal.SIGHUP)  # and the shell passes SIGHUP on to its jobs
        time.sleep(1)
        os.kill(pid, signal.SIGHUP)  # its log now goes to a terminal that is gone
        time.sleep(1)
        assert os.waitpid(pid, os.WNOHANG) == (0, 0), "the console stopped with its terminal"
        with urllib.request.urlopen(f"http://127.0.0.1:{http}/host", timeout=10) as page:
            assert page.status == 200
    finally:
        os.kill(pid, signal.SIGTERM)
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_sighup_checks_the_config_again_and_keeps_the_game(tmp_path: Path) -> None:
    config, http = table_config(tmp_path)
    log = config.with_name("daemon.log")
    with log.open("wb") as out:
        console = subprocess.Popen([sys.executable, "-m", "console.cli", "run", "--config", str(config)],
                                   cwd=ROOT, stderr=out)
    try:
        wait_for_text(log, "mqtt: connected")
        console.send_signal(signal.SIGHUP)
        wait_for_text(log, "is valid; changes take effect at the next start")
        config.write_text(config.read_text(encoding="utf-8") + "\n[nonsense]\n", encoding="utf-8")
        console.send_signal(signal.SIGHUP)
        wait_for_text(log, "the running game keeps its current config")
        assert "nonsense" in log.read_text(encoding="utf-8")  # the error names what is wrong
        assert console.poll() is None
        with urllib.request.urlopen(f"http://127.0.0.1:{http}/host", timeout=10) as page:
            assert page.status == 200
    finally:
        console.terminate()
        assert console.wait(timeout=10) == 0, log.read_text(encoding="utf-8")


def wait_for_text(log: Path, words: str, seconds: float = 60) -> None:
    """Until the daemon's log says `words`."""
    deadline = time.monotonic() + seconds
    while words not in log.read_text(encoding="utf-8"):
        assert time.monotonic() < deadline, log.read_text(encoding="utf-8")
        time.sleep(0.05)
