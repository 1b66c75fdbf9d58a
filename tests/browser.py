"""A real headless Chromium for display tests, driven over the DevTools protocol (no driver).

Chromium is started as the project's probe does (no sandbox as root, no background
networking: this machine has no network beyond loopback), with a fresh profile.
"""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import Any

from websockets.sync.client import ClientConnection, connect

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--window-size=1280,720"]


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Browser:
    """One page in headless Chromium; `evaluate()` runs JavaScript in it and returns the value."""

    def __init__(self, url: str) -> None:
        path = chromium_path()
        assert path, "chromium is not installed (apt-get install chromium); scripts/test.sh installs it"
        # Chromium's helper processes may still write into the profile for a moment after the
        # browser exits: a leftover file in /tmp must not fail the test.
        self._profile = tempfile.TemporaryDirectory(prefix="chgk-chromium-", ignore_cleanup_errors=True)
        # Port 0: Chromium picks its own DevTools port and writes it into the profile
        # (DevToolsActivePort), so no port chosen here can be taken before it binds.
        self._proc = subprocess.Popen(
            [path, *CHROMIUM_FLAGS, f"--user-data-dir={self._profile.name}",
             "--remote-debugging-port=0", url],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        self._ids = itertools.count(1)
        self._ws = self._attach()

    def _devtools_port(self) -> int | None:
        try:
            first = (Path(self._profile.name) / "DevToolsActivePort").read_text().split("\n")[0]
        except OSError:
            return None
        return int(first) if first.strip().isdigit() else None

    def _attach(self) -> ClientConnection:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            port = self._devtools_port()
            if port is None:
                time.sleep(0.05)
                continue
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=1) as r:
                    pages = [t for t in json.load(r) if t.get("type") == "page"]
                if pages:
                    return connect(pages[0]["webSocketDebuggerUrl"], max_size=None)
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError("chromium did not open its DevTools port")

    def command(self, method: str, **params: Any) -> dict[str, Any]:
        ident = next(self._ids)
        self._ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            reply = json.loads(self._ws.recv(timeout=10))
            if reply.get("id") == ident:
                assert "error" not in reply, reply["error"]
                result: dict[str, Any] = reply["result"]
                return result

    def evaluate(self, expression: str) -> Any:
        result = self.command("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    def wait_for(self, expression: str, within: float = 10.0) -> Any:
        """Poll `expression` until it is truthy (the page updates from MQTT on its own time)."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.05)
        raise AssertionError(f"page never satisfied: {expression}")

    def screenshot(self, path: str) -> None:
        import base64

        data = self.command("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self) -> None:
        self._ws.close()
        self._proc.terminate()
        try:
            self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._proc.kill()
        self._profile.cleanup()

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
