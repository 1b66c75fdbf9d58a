"""`chgk-console demo --game chgk`: a «Что? Где? Когда?» game at a simulated table, from the terminal.

Contract: `run_table_demo(config, stdin, stdout)` runs the console (`Console`, game.kind =
"chgk") on a simulated table until 'q' or the end of input and returns the exit status (2: the
config cannot be played on). A simulated top (`SimTop`) streams its angle as ANGLE frames
through a `SimulatedMcu` over a pseudo-terminal, so the real serial driver, clock sync, spin
detector, table engine and referee run exactly as on the club's table; an embedded broker
serves displays when no broker is configured (`mqtt.host` empty), as in `console.tools.demo`.

Keys (listed on screen): 's' spins the top with a random push; the host's actions are single
keys (`HOST_KEYS`); digits pick a sector by hand (`SECTOR_KEYS`: 1..9, 0 = 10, '-' = 11,
'=' = 12, '+' = 13), as after a stop on a boundary or a failed sensor. On a terminal the
host's screen is redrawn as the game goes (it shows where the fortochka lies: it is the
host's view); with piped input (scripts, tests) each event is printed as a timestamped
Russian line, '.' waits 0.2 s, and the live angle (`spin_angle`, up to 20 a second) is left out.
"""

from __future__ import annotations

import logging
import random
import shutil
import sys
import textwrap
import time
from collections import deque
from typing import Any, TextIO

from console.config import Config
from console.engine.chgk.events import QuestionDrawn, RoundCancelled, RoundEnded, TableGameStarted
from console.engine.chgk.rules import ChgkAction, ChgkHost, PickSource, SectorPicked
from console.engine.chgk.table import TableGame
from console.engine.events import Event
from console.engine.spin.events import SpinAngle, SpinStarted
from console.games.chgk.config import TableSection
from console.games.chgk.texts import (
    ACTIONS,
    HELPS,
    KINDS,
    PHASES,
    SHORT,
    STAGES,
    TOP_PHASES,
    describe_table,
    players_text,
    seconds,
)
from console.shell.runtime import Console
from console.shell.sound import open_player
from console.sources.mcu import SimulatedMcuSettings, add_mcu
from console.tools.demo import QUIT_KEY, demo_network, demo_services, screen_loop, wait_connected
from drivers.sim_mcu import SimulatedMcu
from drivers.sim_top import LiveTopFeed, SimTop

log = logging.getLogger("chgk.demo")

# SimTop samples at 1 kHz by default; the demo streams 200 Hz. The stop detector is tuned for
# 100 Hz-1 kHz (console/engine/spin/detector.py: 12 samples still fill its 60-ms speed window, and the
# stop is reported well within the 300-ms budget), while every sample costs a frame over the
# pty, a decode, a clock mapping and a pass through the engine on the event loop: a fifth of
# that keeps the demo light on a laptop or a Raspberry Pi and changes nothing on screen.
SAMPLE_RATE_HZ = 200.0
# How long a random push keeps the top running: long enough to watch the arrow, short
# enough not to keep the table waiting (SimTop's own range is 3-10 s).
SPIN_SECONDS = (3.0, 6.0)
SPIN_KEY = "s"
HOST_KEYS = {
    "t": ChgkAction.START_TIMER,
    "e": ChgkAction.EARLY_ANSWER,
    "y": ChgkAction.ANSWER_CORRECT,
    "x": ChgkAction.ANSWER_WRONG,
    "p": ChgkAction.PLAYER_LEAVES,
    "h": ChgkAction.EXTRA_TIME,
    "k": ChgkAction.CLUB_HELP,
    "f": ChgkAction.FORTOCHKA,
    "l": ChgkAction.DRAW_LOTOTRON,
    "c": ChgkAction.CANCEL_ROUND,
    "g": ChgkAction.NEW_GAME,
}
SECTOR_KEYS = "1234567890-=+"  # key i picks sector i + 1
REDRAW_S = 0.1  # the live angle and the countdown on screen
RECENT = 8  # events kept on screen


class TableView:
    """The host's screen of the table: redrawn on a terminal, one line per event otherwise.

    Everything shown comes from the table's host snapshot (so the fortochka's place is shown:
    this is the host's screen, never the hall's) and from the events; the live angle is the
    latest `spin_angle` event, the countdown the snapshot's timer at the moment of drawing.
    """

    def __init__(self, console: Console, out: TextIO, *, interactive: bool, broker: str) -> None:
        self.console, self.table, self.out = console, table_of(console), out
        self.interactive, self.broker = interactive, broker
        self.opponent = self.table.setup.rules.opponent
        self.recent: deque[str] = deque(maxlen=RECENT)
        self.angle: SpinAngle | None = None  # the latest spin_angle of the spin in progress
        self.question: QuestionDrawn | None = None  # the 12th sector's question of this round
        self._started = time.monotonic()

    def on_event(self, event: Event) -> None:
        match event:
            case SpinAngle():
                self.angle = event  # on screen at the next redraw; far too many for lines
                return
            case SpinStarted():
                self.angle = None
            case QuestionDrawn():
                self.question = event
            case RoundEnded() | RoundCancelled() | TableGameStarted():
                self.question = None
        self.say(describe_table(event, self.opponent))

    def say(self, line: str) -> None:
        """Show one line: among the recent events on screen, or printed with its time."""
        if self.interactive:
            self.recent.append(line)
            self.draw()
        else:
            self.out.write(f"[{time.monotonic() - self._started:7.3f}] {line}\n")
            self.out.flush()

    def live(self) -> bool:
        """Something moves on screen by itself: the top turns or a countdown runs."""
        return self.table.spin.phase.value != "rest" or self.table.running_timer() is not None

    def draw(self) -> None:
        if not self.interactive:
            return
        s: dict[str, Any] = self.table.host_snapshot(self.console.clock())  # read as JSON
        lines = ["«Что? Где? Когда?» — демо-стол, экран ведущего", f"MQTT: {self.broker}", ""]
        team = f"«{s['team']['name']}»" if s["team"] else "команда не выбрана (l — лототрон)"
        score = s["score"]
        lines.append(f"Знатоки {score['team']} : {score['club']} {self.opponent}   · игра до {s['target']} "
                     f"очков · {STAGES[s['stage']]} · {team}")
        lines.append(self._round_line(s))
        timer = s["timer"]
        clock = f" · осталось {timer['remaining_ms'] / 1000:4.1f} с" if timer else ""
        now = PHASES[s["phase"]]
        if s["phase"] == "ready" and s["top"]["unsure"]:
            now = "стрелка на границе — выберите сектор цифрой"
        lines.append(f"Сейчас: {now}{clock}")
        lines.append(f"Волчок: {self._top_line(s['top'])}")
        lines.append(self._helps_line(s))
        lines.append("")
        lines += self._sector_rows(s)
        if self.question is not None:
            lines.append("")
            lines += self._question_lines(self.question)
        lines.append("")
        lines += [f"  {line}" for line in self.recent]
        lines.append("")
        lines += key_help(self.table)
        width = shutil.get_terminal_size().columns - 1  # a wrapped line would scroll the screen
        # Each screen line cut alone: the addresses are several lines in one (the header's
        # overlay address was cut off with the board's).
        lines = [part for line in lines for part in line.split("\n")]
        lines = [line if len(line) <= width else line[:width - 1] + "…" for line in lines]
        self.out.write("\x1b[H\x1b[2J" + "\n".join(lines) + "\n")
        self.out.flush()

    def _round_line(self, s: dict[str, Any]) -> str:
        r = s["current"]
        if r is None:
            return f"Раундов сыграно: {s['rounds_played']}"
        text = f"Раунд {r['round']}: сектор {r['sector']} — {KINDS[r['played_as']]}"
        if r["parts"] > 1:
            text += f", вопрос {r['part']} из {r['parts']}"
        text += f", {seconds(r['seconds'])} с"
        if r["early"]:
            text += ", досрочный ответ"
        return text

    def _top_line(self, top: dict[str, Any]) -> str:
        if top["phase"] != "rest":
            a = self.angle
            if a is None:
                return TOP_PHASES[top["phase"]]
            sector = self.table.setup.sectors.sector_at(a.angle_deg)
            speed = "" if a.speed_dps is None else f", {abs(a.speed_dps):.0f} °/с"
            return (f"{TOP_PHASES[top['phase']]} — {a.angle_deg:5.1f}° (сектор {sector}), "
                    f"{abs(a.turns):.1f} об.{speed}")
        if top["unsure"]:
            a, b = sorted({top["unsure"]["sector"], top["unsure"]["neighbour"]})
            return f"остановился на границе секторов {a} и {b} — выберите сектор клавишей"
        stop = top["last_stop"]
        if stop is not None:
            return f"остановился на секторе {stop['sector']} ({float(stop['angle_deg']):.1f}°)"
        return TOP_PHASES["rest"]

    def _helps_line(self, s: dict[str, Any]) -> str:
        helps = [f"{HELPS[k]} — {'есть' if state == 'available' else 'использована'}"
                 for k, state in s["helps"].items()]
        if s["saved_minutes"]:
            helps.append(f"сбережённых минут: {s['saved_minutes']}")
        return f"Помощь: {'; '.join(helps) or 'нет'}.  За столом {players_text(s['players_at_table'])}"

    def _sector_rows(self, s: dict[str, Any]) -> list[str]:
        current = s["current"]["sector"] if s["current"] else None
        arrow = self._arrow_sector(s["top"])
        hidden = s["fortochka"]["sector"]  # host only
        cells = []
        for sector in s["sectors"]:
            n = sector["sector"]
            kind = "fortochka" if n == hidden else sector["kind"]
            mark = ("▶" if n == current else " ") + ("↑" if n == arrow else " ")
            cells.append(f"{mark}{n:>2} {SHORT[kind]:<9} {'✓' if sector['played'] else '·'}")
        rows = ["Стол (✓ сыгран, · ещё в игре, ▶ играется, ↑ стрелка):"]
        rows += ["  " + " ".join(cells[i:i + 4]) for i in range(0, len(cells), 4)]
        return rows

    def _arrow_sector(self, top: dict[str, Any]) -> int | None:
        if top["phase"] != "rest" and self.angle is not None:
            return self.table.setup.sectors.sector_at(self.angle.angle_deg)
        stop = top["last_stop"]
        return None if stop is None else int(stop["sector"])

    @staticmethod
    def _question_lines(q: QuestionDrawn) -> list[str]:
        text = textwrap.wrap(" ".join(q.text.split()), 76)
        if len(text) > 6:  # the host reads it from the card; the screen keeps room for the game
            text = [*text[:6], "…"]
        return ["Вопрос из базы (12-й сектор):", *(f"  {line}" for line in text),
                f"  Ответ: {' '.join(q.answer.split())}", f"  Источник: {q.source}"]


def table_of(console: Console) -> TableGame:
    """The table engine a console runs (the table demo needs game.kind = "chgk")."""
    table = console.referee
    assert isinstance(table, TableGame), "the table demo needs game.kind = 'chgk'"
    return table


def key_help(table: TableGame) -> list[str]:
    """The keys, in Russian, for this table (13 sectors or 12; the fortochka key when needed)."""
    count = table.setup.rules.sectors
    picks = "1…9, 0, -, = — сектор 1…12" + (", + — 13" if count == 13 else "")
    keys = [f"{key} {ACTIONS[action]}" for key, action in HOST_KEYS.items()
            if action is not ChgkAction.FORTOCHKA or table.setup.rules.fortochka_sector is None]
    lines = [f"Клавиши: {SPIN_KEY} — крутить волчок;  {picks} вручную;  {QUIT_KEY} — выход", "Ведущий:"]
    return lines + ["  " + "   ".join(keys[i:i + 4]) for i in range(0, len(keys), 4)]


class TableKeys:
    """What each key does: spin the top, a host action, a sector picked by hand."""

    def __init__(self, console: Console, feed: LiveTopFeed, view: TableView, *,
                 rng: random.Random, spin_seconds: tuple[float, float]) -> None:
        self.console, self.table, self.feed, self.view = console, table_of(console), feed, view
        self.rng, self.spin_seconds = rng, spin_seconds

    def press(self, key: str) -> None:
        rules = self.table.setup.rules
        if key == SPIN_KEY:
            # A random push: the top draws its speed, the demo how long it runs.
            if self.feed.spin_now(duration_s=self.rng.uniform(*self.spin_seconds)) is None:
                self.view.say("Волчок ещё не успокоился — подождите, пока он замрёт")
        elif key in HOST_KEYS:
            action = HOST_KEYS[key]
            if action is ChgkAction.FORTOCHKA and rules.fortochka_sector is not None:
                # The engine would refuse it too; the host is told why in their own words.
                self.view.say(f"Форточка задана в конфигурации (сектор {rules.fortochka_sector}): "
                              "она срабатывает сама, клавиша f не нужна")
                return
            self.console.feed([ChgkHost(action, self.console.clock())])
        elif key in SECTOR_KEYS[:rules.sectors]:
            sector = SECTOR_KEYS.index(key) + 1
            self.console.feed([SectorPicked(sector, self.console.clock(), PickSource.HOST)])


async def run_table_demo(
    config: Config,
    stdin: TextIO,
    stdout: TextIO,
    *,
    sound: bool = True,
    top_seed: int | None = None,
    spin_seconds: tuple[float, float] = SPIN_SECONDS,
) -> int:
    """Run the table demo until 'q' or the end of input; returns the exit status.

    `top_seed` makes the simulated top (its start angle, pushes and noise) reproducible;
    `spin_seconds` bounds how long a push keeps it running (tests use short spins).
    """
    if config.game.kind != "chgk":
        print("demo: the table demo needs game.kind = \"chgk\"", file=sys.stderr)
        return 2
    simulated = {name: s for name, s in config.sources.items() if isinstance(s, SimulatedMcuSettings)}
    sims = {name: SimulatedMcu(pads=s.pads) for name, s in simulated.items()}
    angle_source = config.section(TableSection).angle_source or next(iter(sims), "")
    if angle_source not in sims:
        print("demo: the config has no simulated_mcu source for the top (see table.angle_source)",
              file=sys.stderr)
        return 2
    for sim in sims.values():
        sim.start()
    player = open_player(config.sound.device or None, config.sound.enabled and sound, log,
                         volume=config.sound.volume)
    console = Console(config, cue_player=player)
    for name, sim in sims.items():
        add_mcu(console.sources, name, sim.port, simulated[name].baudrate)
    # The top is mounted as the config's calibration says, so the engine's sectors are the top's.
    table = config.section(TableSection)
    top = SimTop(seed=top_seed, rate_hz=SAMPLE_RATE_HZ, sensor_offset_deg=table.zero_offset_deg,
                 clockwise_increases=table.clockwise_increases)
    feed = LiveTopFeed(top, sims[angle_source])

    net = demo_network(config)
    interactive = stdin.isatty() and stdout.isatty()
    view = TableView(console, stdout, interactive=interactive, broker=net.where)
    console.watchers.append(view.on_event)
    keys = TableKeys(console, feed, view, rng=random.Random(top_seed), spin_seconds=spin_seconds)
    try:
        async with demo_services(config, console, net) as where:
            view.broker = where.text
            await wait_connected(sims, console)
            feed.start()
            view.draw()
            if not interactive:
                stdout.write(where.banner("Демо-стол ЧГК готов."))
                stdout.flush()
            await screen_loop(stdin, interactive, view, keys.press, live=view.live, idle_s=REDRAW_S)
    finally:
        feed.stop()
        player.close()
        for sim in sims.values():
            sim.stop()
    return 0
