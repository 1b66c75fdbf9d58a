"""`chgk-console demo`'s addresses (issue 7): restarted right after a run it keeps its configured
ports, and it prints every page's address.

A run's listeners close their connections when it stops, which leaves them in TIME_WAIT on the
listeners' ports for a minute. The listeners bind with SO_REUSEADDR, so those ports can be
listened on again at once; the demo's check whether a port is taken (by a mosquitto, say) must
judge the same way, or a quick restart moves the board and the broker to random ports.
"""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from console.shell.display_server import DisplayServer
from tests.conftest import free_port

ROOT = Path(__file__).resolve().parent.parent
READY = "готов. MQTT: "  # «Демо-стол готов.», «Демо-стол ЧГК готов.»


def free_ports(n: int) -> list[int]:
    """`n` distinct ports nobody listens on now (tests/conftest.py: never handed out twice)."""
    return [free_port() for _ in range(n)]


def demo_config(tmp_path: Path, mqtt: int, ws: int, http: int) -> Path:
    text = (ROOT / "console" / "data" / "demo.toml").read_text(encoding="utf-8")
    text = text.replace("port = 1883", f"port = {mqtt}").replace("ws_port = 9001", f"ws_port = {ws}")
    assert f"port = {mqtt}" in text and f"ws_port = {ws}" in text
    path = tmp_path / "demo.toml"
    path.write_text(text + f"\n[display]\nhttp_port = {http}\n", encoding="utf-8")
    return path


def start_demo(*args: str) -> tuple[subprocess.Popen[str], str]:
    """A demo with `args`, and its output up to its ready line (the pages' addresses come
    before it, the broker's in it)."""
    demo = subprocess.Popen([sys.executable, "-m", "console.cli", "demo", "--no-sound", *args],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=ROOT)
    assert demo.stdout is not None
    out = ""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = demo.stdout.readline()
        if not line:
            break
        out += line
        if READY in line:
            return demo, out
    demo.kill()
    raise AssertionError(f"the demo never got ready: {demo.communicate()[1]}")


def stop_demo(demo: subprocess.Popen[str]) -> str:
    """'q', and the rest of the demo's output (which follows its ready line)."""
    out, err = demo.communicate("q", timeout=30)
    assert demo.returncode == 0, err
    return out


def http_get(port: int, path: str) -> str:
    """The status line of GET `path`; the server closes the connection (Connection: close)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    return answer.split(b"\r\n", 1)[0].decode()


def time_wait_ports() -> set[int]:
    """Local ports of this machine's IPv4 TCP sockets in TIME_WAIT (state 06)."""
    ports = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[3] == "06":
            ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def test_a_restart_right_after_a_run_keeps_the_configured_ports(tmp_path: Path) -> None:
    mqtt, ws, http = free_ports(3)
    config = demo_config(tmp_path, mqtt, ws, http)
    where = f"127.0.0.1:{mqtt} (WebSocket :{ws})"

    first, ready = start_demo("--config", str(config))
    assert where in ready and f"http://127.0.0.1:{http}/" in ready
    # Connections the demo's listeners close when it stops: TIME_WAIT on their ports.
    assert http_get(http, "/") == "HTTP/1.1 200 OK"
    held = [socket.create_connection(("127.0.0.1", port), timeout=5) for port in (mqtt, ws)]
    stop_demo(first)
    for conn in held:
        conn.close()
    assert http in time_wait_ports(), "the premise: the first run left TIME_WAIT on the board's port"

    second, ready = start_demo("--config", str(config))
    out = stop_demo(second)
    assert where in ready, ready + out
    assert f"табло: http://127.0.0.1:{http}/\n" in ready, ready


def test_a_port_someone_listens_on_is_still_given_up(tmp_path: Path) -> None:
    """The other side of the check: a live listener (a mosquitto on 0.0.0.0, say) is taken."""
    mqtt, ws, http = free_ports(3)
    with socket.socket() as mosquitto:
        mosquitto.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        mosquitto.bind(("0.0.0.0", mqtt))
        mosquitto.listen()
        demo, ready = start_demo("--config", str(demo_config(tmp_path, mqtt, ws, http)))
        out = stop_demo(demo)
    assert f"127.0.0.1:{mqtt} " not in ready, ready + out
    assert "Демо-стол готов. MQTT: 127.0.0.1:" in ready


@pytest.mark.parametrize("game", ["svoya", "chgk"])
def test_the_demo_prints_every_page_address_and_each_answers(game: str) -> None:
    """One line per page of the display server's page table (a page added there is listed
    without touching the demo), each an address that answers."""
    table = list(DisplayServer("127.0.0.1", 0, ws_port=0, base="").pages)
    assert "/" in table and "/scoreboard" in table
    demo, ready = start_demo("--game", game)
    try:
        pages = re.findall(r"^(\S+): (http://127\.0\.0\.1:(\d+)(/\S*))$", ready, re.MULTILINE)
        assert [path for _, _, _, path in pages] == table, ready
        assert {label for label, _, _, _ in pages} == {"табло", "пульт", "оверлей"}  # boards, /host, /overlay
        for _, address, port, path in pages:
            assert http_get(int(port), path) == "HTTP/1.1 200 OK", address
    finally:
        stop_demo(demo)
