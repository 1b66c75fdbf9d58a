"""`chgk-console demo --game brainring`: a «Брейн-ринг» fight on the simulated button table.

The same table as the «Своя игра» demo (console/tools/demo.py: the simulated MCU on a pty, the
embedded broker, the hall's board): keys 1-2 press the teams' buttons (each team's first), the
host's keys run the fight (`n` the next question, `t` «Время!», `y` correct, `x` wrong, `c`
withdraw the question, `w` the next fight). Piped input prints one line per event.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from console.config import Config
from console.engine.brainring.rules import BrainringAction, BrainringHost
from console.engine.events import Event
from console.games.brainring.config import BrainringSection
from console.games.brainring.texts import describe
from console.shell.runtime import Console
from console.tools.demo import Button, ScreenView, play_on_simulated_table, press_button

KEYS = {"n": ("следующий вопрос", BrainringAction.NEXT), "t": ("«Время!»", BrainringAction.TIME),
        "y": ("верно", BrainringAction.CORRECT), "x": ("неверно", BrainringAction.WRONG),
        "c": ("снять вопрос", BrainringAction.CANCEL), "w": ("следующий бой", BrainringAction.NEW_FIGHT)}


class BrainringView(ScreenView):
    """Shows the fight: a redrawn screen on a terminal, event lines otherwise."""

    def __init__(self, console: Console, out: TextIO, *, interactive: bool) -> None:
        super().__init__(console, out, interactive=interactive)
        self.names = {t.id: t.name for t in console.config.section(BrainringSection).teams}

    def line(self, event: Event) -> str | None:
        return describe(event, self.names)

    def draw(self) -> None:
        if not self.interactive:
            return
        s = self.console.state()
        timer = s.get("timer")
        clock = f" · {timer['remaining_ms'] / 1000:4.1f} с" if isinstance(timer, dict) else ""
        lines = ["«Брейн-ринг» — демо-стол", f"MQTT: {self.broker}", f"Фаза: {s['phase']}{clock}", ""]
        for i, team in enumerate(s["teams"], 1):
            lines.append(f"  [{i}] {team['name']:<12} {team['score']:>4}")
        lines += ["", *[f"  {line}" for line in self.recent], "",
                  "Кнопки команд: 1-{}.   q: выход.   Ведущий:".format(len(s["teams"])),
                  "  " + "   ".join(f"{k} {text}" for k, (text, _) in KEYS.items())]
        self.screen(lines)


async def run_demo(config: Config, stdin: TextIO, stdout: TextIO, *, sound: bool = True) -> int:
    """Run the fight's demo until 'q' or the end of input; returns the exit status."""
    return await play_on_simulated_table(
        config, stdin, stdout, sound=sound, ready="Демо-стол «Брейн-ринга» готов.", keys=brainring_keys,
        view=lambda console, interactive, _where: BrainringView(console, stdout, interactive=interactive))


def brainring_keys(console: Console, buttons: list[Button]) -> Callable[[str], None]:
    """The host's keys (KEYS), the teams' buttons 1, 2, ..."""

    def on_key(key: str) -> None:
        if key in KEYS:
            console.feed([BrainringHost(KEYS[key][1], console.clock())])
        else:
            press_button(buttons, key)

    return on_key
