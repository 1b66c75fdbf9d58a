"""`chgk-console sim-box`: the simulated button box on its own pseudo-terminal, for rehearsing
an evening on the real config without the hardware.

Contract: starts a `SimulatedMcu` (the real wire protocol, drivers/sim_mcu.py), prints the
port to put in the config's `[sources.NAME] port` of a `serial_mcu` source (a stable symlink
with `--link`), then presses buttons from the keys until 'q' or the end of input: `1`-`9`
press and release the buttons 0-8 (`0` the tenth), `u` unplugs the box and `p` plugs it back
(the console's «нет связи» and its recovery, rehearsed), '.' waits 0.2 s (scripts). On a pipe
it prints a line for each key it acted on. Exit status 0, or 2 for a bad argument.
"""

from __future__ import annotations

import asyncio
import sys
from typing import TextIO

from console.texts import counted
from console.tools.demo import terminal_keys
from drivers.sim_mcu import SimulatedMcu

HOLD_S = 0.15  # how long a key holds its button down: a short press, as a player's
UNPLUG_KEY, PLUG_KEY = "u", "p"
KEY_PADS = {str(i): i - 1 for i in range(1, 10)} | {"0": 9}


def main_sim_box(pads: int, link: str | None, stdin: TextIO, stdout: TextIO) -> int:
    """Run the box until 'q' or the end of `stdin`; see the module docstring."""
    try:
        box = SimulatedMcu(pads=pads, link_path=link)
    except ValueError as exc:
        print(f"chgk-console sim-box: {exc}", file=sys.stderr)
        return 2
    with box:
        say(stdout, f"Имитатор пульта ({counted(pads, 'кнопка', 'кнопки', 'кнопок')}) на {box.port}")
        say(stdout, f'В конфиге: [sources.mcu] kind = "serial_mcu", port = "{box.port}"')
        say(stdout, f"Кнопки: 1-{min(pads, 9)}{' и 0' if pads >= 10 else ''} нажимают, "
                    "u — отключить пульт, p — подключить, q — выход")
        asyncio.run(press_from_keys(box, pads, stdin, stdout))
    return 0


async def press_from_keys(box: SimulatedMcu, pads: int, stdin: TextIO, stdout: TextIO) -> None:
    """Act on each key until 'q' or the end of input (a release waits `HOLD_S`, not the keys)."""
    loop = asyncio.get_running_loop()
    interactive = stdin.isatty()
    async for key in terminal_keys(stdin, interactive, idle_s=3600, on_idle=lambda: None):
        pad = KEY_PADS.get(key)
        if pad is not None and pad < pads and box.plugged:
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
