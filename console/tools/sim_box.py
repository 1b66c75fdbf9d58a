"""`chgk-console sim-box`: the simulated button box on its own pseudo-terminal, for rehearsing
an evening on the real config without the hardware.

Contract: starts a `SimulatedMcu` (the real wire protocol, drivers/sim_mcu.py), prints the
port to put in the config's `[sources.NAME] port` of a `serial_mcu` source (a stable symlink
with `--link`), then presses buttons from the keys until 'q' or the end of input: `1`-`9`
press and release the buttons 0-8 (`0` the tenth), `u` unplugs the box and `p` plugs it back
(the console's «нет связи» and its recovery, rehearsed), '.' waits 0.2 s (scripts). With
`top`, the box also carries the ChGK table's angle sensor (the source a `[table]` reads its
top from) and streams a simulated top's angle as the real box does; `s` spins it by hand (a
random push of 3-6 s), so the table is rehearsed under `run` too. The top is mounted as an
uncalibrated config expects (zero offset, clockwise increasing). On a pipe it prints a line
for each key it acted on. Exit status 0, or 2 for a bad argument.
"""

from __future__ import annotations

import asyncio
import random
import sys
from contextlib import ExitStack
from typing import TextIO

from console.texts import counted
from console.tools.demo import terminal_keys
from console.tools.demo_table import SAMPLE_RATE_HZ, SPIN_SECONDS
from drivers.sim_mcu import SimulatedMcu
from drivers.sim_top import LiveTopFeed, SimTop

HOLD_S = 0.15  # how long a key holds its button down: a short press, as a player's
UNPLUG_KEY, PLUG_KEY, SPIN_KEY = "u", "p", "s"
KEY_PADS = {str(i): i - 1 for i in range(1, 10)} | {"0": 9}


def main_sim_box(pads: int, link: str | None, stdin: TextIO, stdout: TextIO, *, top: bool = False) -> int:
    """Run the box until 'q' or the end of `stdin`; see the module docstring."""
    try:
        box = SimulatedMcu(pads=pads, link_path=link)
    except ValueError as exc:
        print(f"chgk-console sim-box: {exc}", file=sys.stderr)
        return 2
    with ExitStack() as running:
        running.enter_context(box)
        feed = running.enter_context(LiveTopFeed(SimTop(rate_hz=SAMPLE_RATE_HZ), box)) if top else None
        say(stdout, f"Имитатор пульта ({counted(pads, 'кнопка', 'кнопки', 'кнопок')}"
                    f"{' и волчок' if top else ''}) на {box.port}")
        say(stdout, f'В конфиге: [sources.mcu] kind = "serial_mcu", port = "{box.port}"')
        say(stdout, f"Кнопки: 1-{min(pads, 9)}{' и 0' if pads >= 10 else ''} нажимают, "
                    + ("s — крутить волчок, " if top else "")
                    + "u — отключить пульт, p — подключить, q — выход")
        asyncio.run(press_from_keys(box, pads, stdin, stdout, feed))
    return 0


async def press_from_keys(box: SimulatedMcu, pads: int, stdin: TextIO, stdout: TextIO,
                          feed: LiveTopFeed | None = None) -> None:
    """Act on each key until 'q' or the end of input (a release waits `HOLD_S`, not the keys)."""
    loop = asyncio.get_running_loop()
    interactive = stdin.isatty()
    spins = random.Random()
    async for key in terminal_keys(stdin, interactive, idle_s=3600, on_idle=lambda: None):
        pad = KEY_PADS.get(key)
        if key == SPIN_KEY and feed is not None:
            spun = feed.spin_now(duration_s=spins.uniform(*SPIN_SECONDS))
            say(stdout, "волчок ещё крутится" if spun is None else "волчок раскручен")
        elif pad is not None and pad < pads and box.plugged:
            box.press(pad)
            loop.call_later(HOLD_S, release, box, pad)
            say(stdout, f"кнопка {pad} нажата")
        elif key == UNPLUG_KEY and box.plugged:
            box.unplug()
            say(stdout, "пульт отключён")
        elif key == PLUG_KEY and not box.plugged:
            box.replug()
            say(stdout, f"пульт подключён: {box.port}")
    await asyncio.sleep(HOLD_S)  # the last press is released before the box goes away


def release(box: SimulatedMcu, pad: int) -> None:
    if box.plugged:  # unplugged meanwhile: the box forgot its buttons with its power
        box.release(pad)


def say(out: TextIO, line: str) -> None:
    out.write(line + "\n")
    out.flush()
