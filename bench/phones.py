"""`chgk-console bench phones`: how fairly phones are judged over a club's Wi-Fi (issue 35).

Everything on loopback: a real mosquitto, the daemon as its own process (`chgk-console run`,
«Своя игра», a `phones` source), headless Chromium (Debian's, through Playwright) with one
browser context per phone, each page behind its own emulated Wi-Fi link
(bench/wifi_link.py: 20 ± 20 ms a hop, 2 % of hops 200 ms more, and before a third of the
presses the phone's radio asleep for 100-1 000 ms around it). All pages share this machine's
clock, so each press's true time is known: a page presses at a scheduled instant by
dispatching a `pointerdown` on its button then (its `timeStamp` is the truth), and phone.js
sends it as a player's tap would be sent.

* **Order**: for each true gap between two phones' presses (5, 10, 20, 30, 50, 100 ms), `samples`
  questions, the earlier phone alternating: the share the console ordered right, the share it
  declared a photo finish (`signal_accepted` with ``tie``), and its wrong calls (the later press
  taking the turn, no tie), besides questions left undecided.
* **A forged page**: a third page rewrites every press it sends to claim it `d` ms earlier (5 to
  200 ms): the share of such presses taken, and the largest gain, the true time minus where
  the console placed a taken press (the page's own clock error included).
* **CPU**: 24 phones (WebSocket clients of this process, as phone.js speaks) beating at 20 Hz and
  answering syncs, against the same daemon idle for as long: µs of the daemon's CPU per
  heartbeat, % of a core here, and on a Pi 4 by `bench cpu`'s yardstick (n-body here against
  its published Pi 4 time).

Prints one JSON object (or one line per key); asserts nothing. Returns 0, 2 if a tool is missing.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import json
import os
import queue
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.cpu import PI4_NBODY_S_PER_STEP, nbody
from bench.latency import Lines, free_port, machine, wait_port, wall_to_monotonic_offset, write_line
from bench.report import missing_tools, print_result, stop_processes
from bench.wifi_link import WifiLink

CHROMIUM = "/usr/bin/chromium"
NODE = "bench"
CODE = "2468"
GAPS_MS = (5, 10, 20, 30, 50, 100)
FORGED_MS = (5, 10, 20, 40, 60, 80, 100, 130, 200)
CPU_PHONES, CPU_HZ, CPU_SECONDS = 24, 20, 15
SLEEP_SHARE = 1 / 3  # of the presses with the phone's radio asleep around them
LEAD_S = 0.4  # from scheduling a press to it
DECISION_S = 6.0  # the longest a question waits for its decision here
FORGED_TRIALS = 3  # presses at each forged claim, at least (a quarter of `samples` if more)
NBODY_STEPS = 500_000  # the yardstick's length (bench cpu's n-body), for the Pi 4 estimate
NS_PER_MS = 1_000_000

# Pressing at a scheduled instant on the machine's clock (performance.timeOrigin + now() is
# the wall clock the benchmark reads): a timer, then a spin to the instant, then a pointerdown
# on the button, whose timeStamp is returned (the truth, wall ms).
PRESS_AT = """(at) => new Promise((resolve) => {
  const fire = () => {
    while (performance.timeOrigin + performance.now() < at) { /* spin to the instant */ }
    const event = new PointerEvent("pointerdown", {bubbles: true, cancelable: true});
    document.getElementById("buzz").dispatchEvent(event);
    resolve(performance.timeOrigin + event.timeStamp);
  };
  setTimeout(fire, Math.max(0, at - (performance.timeOrigin + performance.now()) - 4));
})"""
# A page that claims its presses `window.forgeMs` earlier than they were.
FORGE = """(() => {
  const send = WebSocket.prototype.send;
  window.forgeMs = 0;
  WebSocket.prototype.send = function (data) {
    const message = JSON.parse(data);
    if (message.type === "press") { message.at -= window.forgeMs; data = JSON.stringify(message); }
    return send.call(this, data);
  };
})();"""


def main(samples: int = 20, as_json: bool = False) -> int:
    if missing_tools(("mosquitto", "mosquitto_sub", "mosquitto_pub")):
        return 2
    if not Path(CHROMIUM).exists():
        print(f"bench phones: needs Debian's chromium ({CHROMIUM})", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="chgk-bench-phones-") as tmp:
        result = _run(Path(tmp), samples)
    print_result(result, as_json)
    return 0


def _run(tmp: Path, samples: int) -> dict[str, Any]:
    rng = random.Random(35)
    port, phones_port = free_port(), free_port()
    (tmp / "mosquitto.conf").write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\n"
                                        "set_tcp_nodelay true\npersistence false\nlog_dest none\n")
    procs: list[subprocess.Popen[bytes]] = []
    try:
        procs.append(subprocess.Popen(["mosquitto", "-c", str(tmp / "mosquitto.conf")]))
        wait_port(port)
        (tmp / "console.toml").write_text(_config(port, phones_port), encoding="utf-8")
        with open(tmp / "daemon.log", "wb") as log:
            daemon = subprocess.Popen([sys.executable, "-m", "console.cli", "run", "--config",
                                       str(tmp / "console.toml")], stderr=log)
        procs.append(daemon)
        mqtt = ["-h", "127.0.0.1", "-p", str(port), "--nodelay"]
        sub = subprocess.Popen(["mosquitto_sub", *mqtt, "-F", "%U %t %p", "-t", f"chgk/{NODE}/events"],
                               stdout=subprocess.PIPE)
        commands = subprocess.Popen(["mosquitto_pub", *mqtt, "-l", "-q", "1",
                                     "-t", f"chgk/{NODE}/host/command"], stdin=subprocess.PIPE)
        procs += [sub, commands]
        wait_port(phones_port, timeout=30)
        time.sleep(1.0)
        idle, order, forged, busy = asyncio.run(_measure(daemon.pid, phones_port, commands, Lines(sub),
                                                         samples, rng))
    finally:
        stop_processes(procs)
    nbody_s, steps = nbody(NBODY_STEPS)
    pi4_ratio = PI4_NBODY_S_PER_STEP / (nbody_s / steps)
    beats = CPU_PHONES * CPU_HZ * CPU_SECONDS
    cost_s = max(0.0, busy - idle)
    percent = 100 * cost_s / CPU_SECONDS
    return {
        "samples_per_gap": samples,
        "order": order,
        "forged": forged,
        "cpu": {"phones": CPU_PHONES, "heartbeat_hz": CPU_HZ, "seconds": CPU_SECONDS,
                "daemon_idle_percent": round(100 * idle / CPU_SECONDS, 2),
                "daemon_busy_percent": round(100 * busy / CPU_SECONDS, 2),
                "us_per_heartbeat": round(1e6 * cost_s / beats, 1),
                "percent_of_core": round(percent, 2),
                "pi4_ratio": round(pi4_ratio, 2), "pi4_percent_of_core": round(percent * pi4_ratio, 1)},
        "link": {"hop_ms": "20 ± 20", "spike": "2 % +200 ms", "radio_asleep": "1 in 3 presses, 100-1000 ms"},
        "machine": machine(),
        "date": datetime.date.today().isoformat(),
    }


def _config(port: int, phones_port: int) -> str:
    players = "".join(f'[[players]]\nid = "{p}"\nname = "{p.upper()}"\npad = "phones:{i}"\n'
                      for i, p in enumerate(("a", "b", "f")))
    return (f'[console]\nnode = "{NODE}"\njournal = ""\nlog_level = "warning"\n\n'
            '[game]\nkind = "svoya"\nthemes = 0\nseed = 1\nsignal_window_s = 30\n\n' + players
            + f'\n[sources.phones]\nkind = "phones"\nport = {phones_port}\nbind = "127.0.0.1"\n'
            f'code = "{CODE}"\nseats = 32\n\n[mqtt]\nhost = "127.0.0.1"\nport = {port}\n\n'
            '[sound]\nenabled = false\n\n[display]\nhttp_port = 0\n')


async def _measure(pid: int, phones_port: int, commands: subprocess.Popen[bytes], lines: Lines, samples: int,
                   rng: random.Random) -> tuple[float, dict[str, Any], dict[str, Any], float]:
    """The daemon idle, the phones in browsers, then the CPU of 24 phones beating."""
    idle = await _daemon_cpu(pid, CPU_SECONDS)
    order, forged = await _in_browsers(phones_port, commands, lines, samples, rng)
    return idle, order, forged, await _phones_cpu(pid, phones_port)


async def _in_browsers(phones_port: int, commands: subprocess.Popen[bytes], lines: Lines, samples: int,
                       rng: random.Random) -> tuple[dict[str, Any], dict[str, Any]]:
    from playwright.async_api import async_playwright  # a test extra: only this benchmark needs it

    offset_ns = wall_to_monotonic_offset()
    links = [WifiLink(phones_port, random.Random(rng.random())) for _ in range(3)]
    ports = [await link.start() for link in links]
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-background-timer-throttling",
                  "--disable-renderer-backgrounding"])
        pages = []
        for seat, link_port in enumerate(ports):
            context = await browser.new_context()
            page = await context.new_page()
            if seat == 2:
                await page.add_init_script(FORGE)
            await page.goto(f"http://127.0.0.1:{link_port}/?c={CODE}")
            seated = f"document.getElementById('seat').textContent.startsWith('Место {seat + 1}')"
            await page.wait_for_function(seated, timeout=30_000)
            pages.append(page)
        await asyncio.sleep(3.0)  # the clocks' first exchanges
        trial = _Trials(commands, lines, offset_ns)
        order: dict[str, Any] = {}
        for gap in GAPS_MS:
            tally = {"ordered_right": 0, "photo_finish": 0, "wrong": 0, "undecided": 0}
            for i in range(samples):
                first, second = (0, 1) if i % 2 == 0 else (1, 0)
                for link in links[:2]:
                    if rng.random() < SLEEP_SHARE:  # the radio asleep around the press
                        length = rng.uniform(0.1, 1.0)
                        start = asyncio.get_running_loop().time() + LEAD_S - rng.uniform(0, length)
                        link.sleep(start, length)
                verdict = await trial.race(pages[first], pages[second], gap, "ab"[first], "ab"[second])
                tally[verdict] += 1
            order[str(gap)] = {key: round(n / samples, 3) if key in ("ordered_right", "photo_finish") else n
                               for key, n in tally.items()}
        forged: dict[str, Any] = {"claimed_earlier_ms": {}}
        largest = 0.0
        for claimed in FORGED_MS:
            await pages[2].evaluate(f"window.forgeMs = {claimed}")
            gains = [await trial.alone(pages[2]) for _ in range(max(FORGED_TRIALS, samples // 4))]
            taken = [g for g in gains if g is not None]
            forged["claimed_earlier_ms"][str(claimed)] = {
                "taken": round(len(taken) / len(gains), 2),
                "gain_ms_max": round(max(taken), 1) if taken else None}
            largest = max([largest, *taken])
        forged["largest_gain_ms"] = round(largest, 1)
        await browser.close()
    for link in links:
        await link.close()
    return order, forged


class _Trials:
    """Questions opened by the host's commands, decided as the console's events say."""

    def __init__(self, commands: subprocess.Popen[bytes], lines: Lines, offset_ns: int) -> None:
        self.commands, self.lines, self.offset_ns = commands, lines, offset_ns

    async def _open(self) -> None:
        with contextlib.suppress(queue.Empty):  # what a question left undecided said late
            while True:
                self.lines.queue.get_nowait()
        write_line(self.commands, b'{"action":"next"}')
        write_line(self.commands, b'{"action":"reading_finished"}')
        await asyncio.sleep(0.3)

    async def _decision(self) -> dict[str, Any] | None:
        def accepted(line: bytes) -> bool:
            return b'"signal_accepted"' in line
        try:
            _, line = await asyncio.to_thread(self.lines.wait, accepted, DECISION_S)
        except (TimeoutError, queue.Empty):
            return None
        decided: dict[str, Any] = json.loads(line.partition(b" ")[2])
        return decided

    async def _close(self) -> None:
        write_line(self.commands, b'{"action":"cancel"}')
        await asyncio.sleep(0.15)

    async def race(self, first: Any, second: Any, gap_ms: int, first_id: str, second_id: str) -> str:
        """Two phones press `gap_ms` apart: how the console called it."""
        await self._open()
        at = time.time() * 1000 + LEAD_S * 1000
        truths = await asyncio.gather(first.evaluate(PRESS_AT, at), second.evaluate(PRESS_AT, at + gap_ms))
        decided = await self._decision()
        await self._close()
        if decided is None:
            return "undecided"
        if decided.get("tie"):
            return "photo_finish"
        earlier = first_id if truths[0] <= truths[1] else second_id
        return "ordered_right" if decided.get("player") == earlier else "wrong"

    async def alone(self, page: Any) -> float | None:
        """One phone presses alone: how much earlier than its true time the console placed it
        (ms), or None when the press was not taken."""
        await self._open()
        truth_ms = float(await page.evaluate(PRESS_AT, time.time() * 1000 + LEAD_S * 1000))
        decided = await self._decision()
        await self._close()
        if decided is None:
            return None
        truth_ns = round(truth_ms * NS_PER_MS) - self.offset_ns
        return (truth_ns - int(decided["press_at_ns"])) / NS_PER_MS


async def _daemon_cpu(pid: int, seconds: float) -> float:
    """The daemon's CPU seconds over the next `seconds`."""
    before = _cpu_seconds(pid)
    await asyncio.sleep(seconds)
    return _cpu_seconds(pid) - before


async def _phones_cpu(pid: int, phones_port: int) -> float:
    """The daemon's CPU seconds over CPU_SECONDS with CPU_PHONES phones beating at CPU_HZ."""
    from websockets.asyncio.client import connect

    stop = asyncio.Event()

    async def phone() -> None:
        async with connect(f"ws://127.0.0.1:{phones_port}/ws") as ws:
            origin = time.monotonic()

            def now_ms() -> float:  # the page's performance.now()
                return (time.monotonic() - origin) * 1000
            await ws.send(json.dumps({"type": "hello", "code": CODE}))

            async def beats() -> None:
                while not stop.is_set():
                    await ws.send(json.dumps({"type": "hb", "at": now_ms() - 50}))
                    await asyncio.sleep(1 / CPU_HZ)

            beating = asyncio.create_task(beats())
            while not stop.is_set():
                try:
                    message = json.loads(await asyncio.wait_for(ws.recv(), timeout=0.5))
                except TimeoutError:
                    continue
                if message.get("type") == "sync":
                    await ws.send(json.dumps({"type": "sync", "id": message["id"], "rx": now_ms(),
                                              "tx": now_ms()}))
            beating.cancel()

    tasks = [asyncio.create_task(phone()) for _ in range(CPU_PHONES)]
    await asyncio.sleep(3.0)  # joined, clocks settling
    busy = await _daemon_cpu(pid, CPU_SECONDS)
    stop.set()
    for task in tasks:
        with contextlib.suppress(Exception):
            await task
    return busy


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

