"""`chgk-console sim-box`: the simulated box on its own pty drives `chgk-console run` on a
config with a real `serial_mcu` source, as a host rehearses an evening without the hardware:
its keys press the buttons (the press reaches the console's journal), unplug the box (the
console says it lost it) and plug it back (and found it again)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import Broker, free_port

ROOT = Path(__file__).resolve().parent.parent

CONFIG = """
[console]
node = "rehearsal"
journal = "{journal}"

[game]
themes = 1

[[players]]
id = "p1"
name = "Аня"
pad = "mcu:0"

[[players]]
id = "p2"
name = "Боря"
pad = "mcu:1"

[sources.mcu]
kind = "serial_mcu"
port = "{port}"

[mqtt]
host = ""
port = {mqtt}
ws_port = {ws}

[display]
http_port = {http}

[sound]
enabled = false
"""


def wait_until(what: Callable[[], bool], why: Callable[[], str], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not what():
        assert time.monotonic() < deadline, why()
        time.sleep(0.05)


def quit_box(box: subprocess.Popen[str]) -> None:
    """The box's 'q': it quits cleanly."""
    assert box.stdin is not None
    box.stdin.write("q")
    box.stdin.close()
    assert box.wait(timeout=10) == 0


def stop(box: subprocess.Popen[str], console: subprocess.Popen[bytes] | None) -> None:
    """Whatever the test left running: the box killed, the console stopped as systemd stops it."""
    box.kill()
    if console is not None:
        console.terminate()
        assert console.wait(timeout=10) == 0


def test_the_simulated_box_rehearses_run_on_a_serial_config(tmp_path: Path) -> None:
    link = tmp_path / "box"
    box = subprocess.Popen([sys.executable, "-m", "console.cli", "sim-box", "--pads", "2",
                            "--link", str(link)], cwd=ROOT, stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, text=True)
    assert box.stdin is not None and box.stdout is not None
    console = None
    try:
        first = box.stdout.readline()
        assert f"на {link}" in first, first  # the port to put in the config is said
        assert f'port = "{link}"' in box.stdout.readline()
        assert "u — отключить пульт" in box.stdout.readline()
        journal = tmp_path / "journal.jsonl"
        config = tmp_path / "console.toml"
        config.write_text(CONFIG.format(journal=journal, port=link, mqtt=free_port(), ws=free_port(),
                                        http=free_port()), encoding="utf-8")
        log = tmp_path / "daemon.log"
        with log.open("wb") as out:
            console = subprocess.Popen([sys.executable, "-m", "console.cli", "run", "--config", str(config)],
                                       cwd=ROOT, stderr=out)

        def said(words: str, times: int = 1) -> Callable[[], bool]:
            return lambda: log.read_text(encoding="utf-8").count(words) >= times

        def the_log() -> str:
            return log.read_text(encoding="utf-8")

        wait_until(said("mcu: connected"), the_log)
        box.stdin.write("2")
        box.stdin.flush()
        assert box.stdout.readline().strip() == "кнопка 1 нажата"

        def pressed() -> bool:
            return any(json.loads(line).get("press") == "mcu:1"
                       for path in tmp_path.glob("journal-*.jsonl")
                       for line in path.read_text(encoding="utf-8").splitlines())

        wait_until(pressed, lambda: "no press of mcu:1 in the journal:\n" + the_log())

        box.stdin.write("u")
        box.stdin.flush()
        assert box.stdout.readline().strip() == "пульт отключён"
        wait_until(said("mcu: disconnected"), the_log)
        box.stdin.write("p")
        box.stdin.flush()
        assert box.stdout.readline().strip() == f"пульт подключён: {link}"
        wait_until(said("mcu: connected", 2), the_log)
        quit_box(box)
    finally:
        stop(box, console)


TABLE = """
[console]
node = "rehearsal"
journal = ""

[game]
kind = "chgk"

[table]
team = "t1"

[[teams]]
id = "t1"
name = "Совы"

[[teams]]
id = "t2"
name = "Ежи"

[sources.mcu]
kind = "serial_mcu"
port = "{port}"

[mqtt]
host = "127.0.0.1"
port = {mqtt}

[display]
http_port = {http}

[sound]
enabled = false
"""


def table_state(broker: Broker) -> dict[str, Any]:
    """The table's retained state, as a display reads it (mosquitto_sub)."""
    done = subprocess.run(["mosquitto_sub", "-h", broker.host, "-p", str(broker.port), "-C", "1", "-W", "5",
                           "-t", "chgk/rehearsal/state"], capture_output=True, text=True, timeout=10)
    return dict(json.loads(done.stdout)) if done.stdout.strip() else {}


def test_the_simulated_box_spins_the_top_of_the_table_under_run(tmp_path: Path, mosquitto: Broker) -> None:
    """Issue 34: `sim-box` could not spin the top, so the ChGK table could not be rehearsed
    under `run`. With --top the box streams the top's angle as the real one does; `s` spins it
    and the table stops on a sector (003 6.1.1: the top chooses the question)."""
    link = tmp_path / "box"
    box = subprocess.Popen([sys.executable, "-m", "console.cli", "sim-box", "--pads", "1", "--top",
                            "--link", str(link)], cwd=ROOT, stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, text=True)
    assert box.stdin is not None and box.stdout is not None
    console = None
    try:
        assert "и волчок" in box.stdout.readline()
        box.stdout.readline()
        assert "s — крутить волчок" in box.stdout.readline()
        config = tmp_path / "console.toml"
        config.write_text(TABLE.format(port=link, mqtt=mosquitto.port, http=free_port()), encoding="utf-8")
        log = tmp_path / "daemon.log"
        with log.open("wb") as out:
            console = subprocess.Popen([sys.executable, "-m", "console.cli", "run", "--config", str(config)],
                                       cwd=ROOT, stderr=out)
        wait_until(lambda: "mcu: connected" in log.read_text(encoding="utf-8"),
                   lambda: log.read_text(encoding="utf-8"))
        assert table_state(mosquitto)["top"]["last_stop"] is None
        box.stdin.write("s")
        box.stdin.flush()
        assert box.stdout.readline().strip() == "волчок раскручен"

        def stopped() -> bool:
            # The arrow's sector chosen, or (the arrow on a boundary) put to the host: `unsure`.
            state = table_state(mosquitto)
            return state["top"]["last_stop"] is not None and (
                isinstance(state["current"], dict) or state["top"]["unsure"] is not None)

        wait_until(stopped, lambda: f"no stop: {table_state(mosquitto)}\n" + log.read_text(encoding="utf-8"),
                   seconds=40)
        quit_box(box)
    finally:
        stop(box, console)
