"""`chgk-console demo --game quartet`: an «Эрудит-квартет» fight on the simulated button table.

The same table as the «Своя игра» demo (console/tools/demo.py: the simulated MCU on a pty, the
embedded broker, the hall's board), with the fight's host commands on keys: the demo plays the
organiser's part where a command needs arguments - it names the open round's themes «Тема N»
(or the pack's), names each theme, and seats every team's next present player (the order of
the roster; a team short of players skips the last themes, 3.8). Keys 1-4 press the teams'
buttons; the «Своя игра» host keys judge the theme. Piped input prints one line per event.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TextIO

from console.config import Config
from console.engine.events import Event
from console.engine.quartet.rules import THEMES_PER_ROUND, QuartetAction, QuartetHost
from console.games.quartet.texts import ACTIONS as FIGHT_ACTIONS
from console.games.quartet.texts import PHASES, ROUND_TYPES
from console.games.quartet.texts import describe as describe_fight
from console.games.svoya.texts import ACTIONS
from console.games.svoya.texts import describe as describe_svoya
from console.shell.runtime import Console
from console.tools.demo import HOST_KEYS, Button, ScreenView, play_on_simulated_table, svoya_keys

FIGHT_KEYS = {key: (FIGHT_ACTIONS[action.value], action) for key, action in (
    ("o", QuartetAction.START_ROUND), ("m", QuartetAction.NAME_THEME), ("p", QuartetAction.ASSIGN),
    ("t", QuartetAction.START_THEME))}


def fight_commands(action: QuartetAction, state: Mapping[str, Any], at: int) -> list[QuartetHost]:
    """The commands the demo sends for a fight key, its arguments filled in from the state."""
    themes = state["themes"]
    played = sum(1 for t in themes if not t["shootout"])
    if action is QuartetAction.START_ROUND:
        rounds = state["rounds"]
        kind = rounds[min(played // THEMES_PER_ROUND, len(rounds) - 1)]
        names = tuple(f"Тема {played + i + 1}" for i in range(THEMES_PER_ROUND))
        # With a pack the open round is named from it; without one the demo names the four.
        return [QuartetHost(action, at, themes=names if kind == "open" and not state.get("pack") else None)]
    if action is QuartetAction.NAME_THEME:
        return [QuartetHost(action, at, name=None if state.get("pack") else f"Тема {len(themes) + 1}")]
    if action is QuartetAction.ASSIGN:
        return [QuartetHost(action, at, team=team["id"], **seating(state, team))
                for team in state["teams"]]
    return [QuartetHost(action, at)]


def seating(state: Mapping[str, Any], team: Mapping[str, Any]) -> dict[str, Any]:
    """A team's next players in roster order: the round's order (open, dark) or the next
    theme's player (half-dark, shoot-out; "" = the team skips it)."""
    present = [p["name"] for p in team["players"] if p["present"]]
    rnd = state["round"]
    if rnd is None:  # a shoot-out: any present player
        return {"player": present[0] if present else ""}
    plays = rnd["plays"][team["id"]]
    if rnd["type"] != "half_dark":
        return {"players": tuple([*present[:plays], *[None] * (THEMES_PER_ROUND - plays)])}
    used = [p for p in rnd["order"].get(team["id"], [])[:rnd["theme"] - 1] if p]
    left = [p for p in present if p not in used]
    return {"player": left[0] if left and len(used) < plays else ""}


class QuartetView(ScreenView):
    """Shows the fight: a redrawn screen on a terminal, event lines otherwise."""

    def line(self, event: Event) -> str | None:
        return describe_fight(event, self.names) or describe_svoya(event, self.names)

    def draw(self) -> None:
        if not self.interactive:
            return
        s = self.console.state()
        lines = ["«Эрудит-квартет» — демо-стол", f"MQTT: {self.broker}"]
        rnd, theme, timer = s["round"], s["theme"], s["timer"]
        if rnd:
            lines.append(f"Раунд {rnd['number']}: {ROUND_TYPES[rnd['type']]}")
        if theme:
            shootout = " (перестрелка)" if theme["shootout"] else ""
            lines.append(f"Тема {theme['number']}: {theme['name']}{shootout}")
        clock = f" · {timer['remaining_ms'] / 1000:4.1f} с" if timer else ""
        lines += [f"Фаза: {PHASES[s['phase']]}{clock}", ""]
        seats = {seat["team"]: seat["player"] for seat in theme["seats"]} if theme else {}
        for i, team in enumerate(s["teams"], 1):
            lines.append(f"  [{i}] {team['name']:<12} {team['total']:>6}  {seats.get(team['id'], '')}")
        lines += ["", *[f"  {line}" for line in self.recent], ""]
        keys = [f"{k} {text}" for k, (text, _) in FIGHT_KEYS.items()]
        keys += [f"{k} {ACTIONS[a.value]}" for k, a in HOST_KEYS.items()]
        lines.append(f"Кнопки команд: 1-{len(s['teams'])}.   q: выход.   Ведущий:")
        lines += ["  " + "   ".join(keys[i:i + 4]) for i in range(0, len(keys), 4)]
        self.screen(lines)


async def run_demo(config: Config, stdin: TextIO, stdout: TextIO, *, sound: bool = True) -> int:
    """Run the fight's demo until 'q' or the end of input; returns the exit status."""
    return await play_on_simulated_table(
        config, stdin, stdout, sound=sound, ready="Демо-стол квартета готов.", keys=quartet_keys,
        view=lambda console, interactive, _where: QuartetView(console, stdout, interactive=interactive))


def quartet_keys(console: Console, buttons: list[Button]) -> Callable[[str], None]:
    """The fight's keys (FIGHT_KEYS), then «Своя игра»'s, which judge each theme."""
    svoya = svoya_keys(console, buttons)

    def on_key(key: str) -> None:
        if key in FIGHT_KEYS:
            state = {**console.state(), "pack": bool(console.config.game.pack)}
            console.feed(fight_commands(FIGHT_KEYS[key][1], state, console.clock()))
        else:
            svoya(key)

    return on_key
