"""`chgk-console bench display`: a press on the MCU to the pages' DOM showing it.

Everything on loopback as on the table: a real mosquitto (TCP_NODELAY, a WebSocket listener
for the pages), the daemon as a separate process (`chgk-console run`, serving its pages)
whose serial MCU is a simulated MCU on a pseudo-terminal owned by this benchmark, and a
headless Chromium (Debian's /usr/bin/chromium through Playwright) with two pages open: the
hall's scoreboard and the host's screen (`/host`).

For each sample the host's "next" goes in through the command topic; once both pages show the
question in play, a MutationObserver in each page is armed for the player about to press, a
PRESS frame is written to the serial line (t0, this process's wall clock) and each page records
when its DOM first shows that player answering (`.player.answering[data-player=…]`, from the
retained state the console publishes after its decision): `performance.timeOrigin +
performance.now()`, the browser's wall clock. The two clocks are the same machine's; the
offset between them (a few µs to a ms) is measured per page before sampling, from the
tightest of several round trips, and taken off. `press_to_dom_ms = seen - t0` per page: the
serial line, the console's decision, MQTT to the broker and over WebSocket to Chromium, the
page's JSON parse and DOM update (not the paint: a headless page has no screen to wait for).
Then "correct" ends the question and the next sample starts.

Prints figures (p50, p99, mean, max per page; how busy the CPUs were; the machine); asserts
nothing. Target on this machine: p99 <= 100 ms for each page.
"""

from __future__ import annotations

import datetime
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.latency import cpu_times, free_port, machine, summary, wait_port, write_line
from bench.report import missing_tools, print_result, stop_processes
from drivers.sim_mcu import SimulatedMcu

NODE = "bench"
PLAYERS = 4
CHROMIUM = "/usr/bin/chromium"
PAGES = ("scoreboard", "host")
# Records when the page's DOM first shows the armed player answering (see the docstring).
OBSERVER = """() => {
  window.__armed = null; window.__seen = null;
  new MutationObserver(() => {
    const armed = window.__armed;
    if (armed && document.querySelector(`.player.answering[data-player="${armed}"]`)) {
      window.__seen = performance.timeOrigin + performance.now();
      window.__armed = null;
    }
  }).observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
}"""
IN_PLAY = f"document.querySelectorAll('.player.in_play').length === {PLAYERS}"
IDLE = f"document.querySelectorAll('.player.idle').length === {PLAYERS}"


def main(samples: int = 200, as_json: bool = False) -> int:
    if missing_tools(("mosquitto", "mosquitto_pub")):
        return 2
    if not Path(CHROMIUM).exists():
        print(f"bench: {CHROMIUM} not found (apt-get install chromium)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="chgk-bench-display-") as tmp:
        result = _run(Path(tmp), samples)
    print_result(result, as_json)
    return 0


def _run(tmp: Path, samples: int) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright  # a test extra: only this benchmark needs it

    port, ws_port, http_port = free_port(), free_port(), free_port()
    (tmp / "mosquitto.conf").write_text(
        f"listener {port} 127.0.0.1\nallow_anonymous true\nset_tcp_nodelay true\n"
        f"persistence false\nlog_dest none\nlistener {ws_port} 127.0.0.1\nprotocol websockets\n")
    procs: list[subprocess.Popen[bytes]] = []
    sim = SimulatedMcu(pads=PLAYERS, link_path=str(tmp / "mcu"))
    sim.start()
    try:
        procs.append(subprocess.Popen(["mosquitto", "-c", str(tmp / "mosquitto.conf")]))
        wait_port(port)
        (tmp / "console.toml").write_text(_config(sim.port, port, ws_port, http_port), encoding="utf-8")
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "console.cli", "run", "--config", str(tmp / "console.toml")],
            stderr=open(tmp / "daemon.log", "wb"),  # noqa: SIM115 - lives as long as the process
        ))
        commands = subprocess.Popen(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(port), "--nodelay",
                                     "-l", "-q", "1", "-t", f"chgk/{NODE}/host/command"],
                                    stdin=subprocess.PIPE)
        procs.append(commands)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            chromium = browser.version
            try:
                pages = {name: browser.new_page() for name in PAGES}
                _open(pages, http_port, tmp)
                offsets = {name: _clock_offset_ns(page) for name, page in pages.items()}
                cpu_before = cpu_times()
                seen_ms: dict[str, list[float]] = {name: [] for name in PAGES}
                lost = 0
                while len(seen_ms["host"]) < samples and lost < samples // 10 + 3:
                    try:
                        one = _sample(len(seen_ms["host"]) % PLAYERS, sim, commands, pages, offsets)
                    except TimeoutError:
                        lost += 1  # counted, and the table is brought back to idle
                        write_line(commands, b'{"action":"cancel"}')
                        time.sleep(0.5)
                        continue
                    for name in PAGES:
                        seen_ms[name].append(one[name])
                busy, steal, total = (after - before
                                      for after, before in zip(cpu_times(), cpu_before, strict=True))
            finally:
                browser.close()
    finally:
        stop_processes(procs)
        sim.stop()
    if not seen_ms["host"]:
        raise RuntimeError("no sample completed; see the daemon's log")
    return {
        "samples": len(seen_ms["host"]),
        "lost_samples": lost,
        "press_to_dom_ms": {name: summary(values) for name, values in seen_ms.items()},
        "clock_offset_ms": {name: round(offset / 1e6, 3) for name, offset in offsets.items()},
        "cpu_busy_percent": round(100 * busy / total, 1) if total else None,
        "cpu_steal_percent": round(100 * steal / total, 1) if total else None,
        "machine": {**machine(), "chromium": chromium},
        "date": datetime.date.today().isoformat(),
    }


def _open(pages: dict[str, Any], http_port: int, tmp: Path) -> None:
    """Both pages loaded, connected and showing the idle game; the observers installed."""
    deadline = time.monotonic() + 30
    for name, page in pages.items():
        while True:
            try:
                page.goto(f"http://127.0.0.1:{http_port}/{name}")
                break
            except Exception as exc:  # the daemon is still starting its display server
                if time.monotonic() > deadline:
                    log = (tmp / "daemon.log").read_text(errors="replace")
                    raise RuntimeError(f"the pages did not load ({exc}); the daemon's log:\n{log}") from exc
                time.sleep(0.2)
        page.wait_for_function(f"document.getElementById('link').textContent === 'на связи' && {IDLE}",
                               timeout=30_000)
        page.evaluate(OBSERVER)


def _clock_offset_ns(page: Any) -> int:
    """The page's wall clock minus this process's, from the tightest of 30 round trips."""
    best: tuple[int, int] | None = None
    for _ in range(30):
        before = time.time_ns()
        browser_ms = page.evaluate("performance.timeOrigin + performance.now()")
        after = time.time_ns()
        if best is None or after - before < best[0]:
            best = (after - before, round(browser_ms * 1e6) - (before + after) // 2)
    assert best is not None
    return best[1]


def _sample(pad: int, sim: SimulatedMcu, commands: subprocess.Popen[bytes], pages: dict[str, Any],
            offsets: dict[str, int]) -> dict[str, float]:
    """One question, pad `pad` presses: press to each page's DOM, in ms."""
    player = f"p{pad + 1}"
    write_line(commands, b'{"action":"next"}')
    _wait_all(pages, IN_PLAY)
    for page in pages.values():
        page.evaluate(f"window.__seen = null; window.__armed = '{player}'")
    t0 = time.time_ns()
    sim.press(pad)
    seen = {name: _wait_seen(page) for name, page in pages.items()}
    sim.release(pad)
    write_line(commands, b'{"action":"correct"}')
    _wait_all(pages, IDLE)
    return {name: (seen[name] - offsets[name] - t0) / 1e6 for name in PAGES}


def _wait_all(pages: dict[str, Any], expression: str) -> None:
    for page in pages.values():
        try:
            page.wait_for_function(expression, timeout=5000)
        except Exception as exc:  # Playwright's TimeoutError: a lost sample
            raise TimeoutError(str(exc)) from exc


def _wait_seen(page: Any) -> int:
    """The page's record of the press, in its clock's ns (polled: the record is made in the
    page, so polling does not delay it)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        seen = page.evaluate("window.__seen")
        if seen is not None:
            return round(float(seen) * 1e6)
        time.sleep(0.005)
    raise TimeoutError("the page never showed the press")


def _config(serial_port: str, mqtt_port: int, ws_port: int, http_port: int) -> str:
    players = "".join(f'[[players]]\nid = "p{i + 1}"\nname = "Игрок {i + 1}"\npad = "mcu:{i}"\n\n'
                      for i in range(PLAYERS))
    return (
        f'[console]\nnode = "{NODE}"\njournal = ""\nlog_level = "warning"\n\n'
        f"[game]\nthemes = 0\nseed = 1\n\n{players}"
        f'[sources.mcu]\nkind = "serial_mcu"\nport = "{serial_port}"\n\n'
        f'[mqtt]\nhost = "127.0.0.1"\nport = {mqtt_port}\nws_port = {ws_port}\n\n'
        f'[sound]\nenabled = false\n\n[display]\nhttp_port = {http_port}\nbind = "127.0.0.1"\n'
    )
