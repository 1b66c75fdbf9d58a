"""`chgk-console demo`: the whole console on a simulated button table, driven from the terminal.

The simulated MCU speaks firmware_proto over a pseudo-terminal, so the real serial driver,
clock sync and referee run exactly as on the table; an embedded broker serves displays
when no broker is configured. Keys 1-4 press the players' buttons; the host's keys are
listed on screen. On a terminal the screen is redrawn as the game goes; with piped input
(scripts, tests) each event is printed as a line and '.' waits 0.2 s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import sys
import termios
import threading
import time
import tty
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Protocol, TextIO, TypeVar

from console.config import Config
from console.engine.events import Event
from console.engine.model import HostAction
from console.games.svoya.texts import ACTIONS, PHASES, STATUS, describe
from console.shell.broker import EmbeddedBroker
from console.shell.display_server import HOST_PAGE, OVERLAY_PAGE, DisplayServer
from console.shell.mdns import local_name
from console.shell.runtime import Console
from console.shell.sound import open_player
from console.sources.mcu import SimulatedMcuSettings, add_mcu
from drivers.sim_mcu import SimulatedMcu

log = logging.getLogger("chgk.demo")

HOST_KEYS = {
    "n": HostAction.NEXT,
    "f": HostAction.READING_FINISHED,
    "a": HostAction.NAME,
    "k": HostAction.SHORT_FORM,
    "b": HostAction.ANSWER_STARTED,
    "y": HostAction.CORRECT,
    "x": HostAction.WRONG,
    "r": HostAction.RESET,
    "c": HostAction.CANCEL,
    "g": HostAction.NEW_GAME,
}
PAUSE_KEY, QUIT_KEY = ".", "q"
CONNECT_WAIT_S = 5.0
V = TypeVar("V", bound="DemoView")


class ScreenView:
    """What every demo's view does: a redrawn screen on a terminal (`draw`, which a game's view
    writes with `screen`), one timestamped line per narrated event otherwise. A game's view
    says each event's line (`line`: None for one it does not narrate)."""

    def __init__(self, console: Console, out: TextIO, *, interactive: bool, broker: str = "") -> None:
        self.console, self.out, self.interactive, self.broker = console, out, interactive, broker
        self.names = {p.id: p.name for p in console.config.players}
        self.recent: deque[str] = deque(maxlen=8)
        self._started = time.monotonic()

    def line(self, event: Event) -> str | None:
        raise NotImplementedError

    def draw(self) -> None:
        raise NotImplementedError

    def on_event(self, event: Event) -> None:
        line = self.line(event)
        if line is None:
            return
        if self.interactive:
            self.recent.append(line)
            self.draw()
        else:
            self.out.write(f"[{time.monotonic() - self._started:7.3f}] {line}\n")
            self.out.flush()

    def screen(self, lines: list[str]) -> None:
        self.out.write("\x1b[H\x1b[2J" + "\n".join(lines) + "\n")
        self.out.flush()


class TerminalView(ScreenView):
    """Shows «Своя игра»: a redrawn screen on a terminal, event lines otherwise."""

    def line(self, event: Event) -> str | None:
        return describe(event, self.names)

    def draw(self) -> None:
        if not self.interactive:
            return
        state = self.console.state()
        lines = ["«Своя игра» — демо-стол", f"MQTT: {self.broker}"]
        q = state["question"]
        if q:
            reading = {"in_progress": "читается", "stopped": "ОСТАНОВЛЕНО", "finished": "дочитан"}
            lines.append(f"Тема {q['theme']} · вопрос {q['number']} · {q['value']} очков · "
                         f"вопрос {reading[q['reading']]}")
        elif state["next"]:
            nxt = state["next"]
            lines.append(f"Следующий: тема {nxt['theme']}, {nxt['value']} очков")
        timer = state["timer"]
        clock = ""
        if timer:
            label = "на сигнал" if timer["kind"] == "signal" else "начать ответ"
            clock = f" · {label}: {timer['remaining_ms'] / 1000:4.1f} с"
        lines.append(f"Фаза: {PHASES[state['phase']]}{clock}")
        lines.append("")
        for i, p in enumerate(state["players"], 1):
            lamp = "●" if p["status"] == "answering" else " "
            lines.append(f" {lamp} [{i}] {p['name']:<10} {p['score']:>6}  {STATUS[p['status']]}")
        lines.append("")
        lines += [f"  {line}" for line in self.recent]
        lines.append("")
        lines.append(f"Кнопки игроков: 1-{len(state['players'])}.   {QUIT_KEY}: выход.   Ведущий:")
        keys = [f"{k} {ACTIONS[a.value]}" for k, a in HOST_KEYS.items()]
        lines += ["  " + "   ".join(keys[i:i + 4]) for i in range(0, len(keys), 4)]
        self.screen(lines)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def port_is_free(port: int) -> bool:
    """Whether a listener could take `port` now. The probe binds as the listeners do, with
    SO_REUSEADDR (asyncio's and amqtt's default on Linux): a previous run's connections left in
    TIME_WAIT do not count as taken, while a live listener (a mosquitto) still does."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


@dataclass(frozen=True)
class DemoNetwork:
    """Where the demo's broker is: the embedded one on loopback unless a broker is configured."""

    host: str
    port: int
    ws_port: int
    embedded: bool
    http_port: int  # the hall's board (0 = off)

    @property
    def where(self) -> str:
        return f"{self.host}:{self.port}" + (f" (WebSocket :{self.ws_port})" if self.embedded else "")


def demo_network(config: Config) -> DemoNetwork:
    """The configured ports, or free ones where they are taken (e.g. a mosquitto runs here)."""
    embedded = not config.mqtt.host
    port, ws_port = config.mqtt.port, config.mqtt.ws_port
    if embedded and not (port_is_free(port) and port_is_free(ws_port)):
        port, ws_port = free_port(), free_port()
    http_port = config.display.http_port
    if http_port and not port_is_free(http_port):
        http_port = free_port()
    return DemoNetwork("127.0.0.1" if embedded else config.mqtt.host, port, ws_port, embedded, http_port)


@dataclass(frozen=True)
class DemoAddresses:
    """Where to connect: the broker, and every page the display server serves."""

    mqtt: str
    pages: tuple[str, ...]  # "табло: http://127.0.0.1:8080/", one per page

    @property
    def text(self) -> str:
        """The broker, then one page per line (shown after "MQTT: " on the demo's screen)."""
        return "\n".join((self.mqtt, *self.pages))

    def banner(self, ready: str) -> str:
        """The piped output's ready banner: the pages first and the `ready` line last, so a
        script reading up to the ready line has every address."""
        return "".join(f"{page}\n" for page in self.pages) + f"{ready} MQTT: {self.mqtt}\n"


def page_label(page: str, board: str) -> str:
    if page == board:
        return "табло"
    return "пульт" if page == HOST_PAGE else "оверлей" if page == OVERLAY_PAGE else "страница"


@asynccontextmanager
async def demo_services(config: Config, console: Console,
                        net: DemoNetwork) -> AsyncIterator[DemoAddresses]:
    """The broker (embedded if none is configured), the console and the hall's board, for a
    demo's lifetime; yields where to connect. The pages are the display server's own page
    table, so a page added there is listed here too."""
    broker = EmbeddedBroker(net.port, net.ws_port) if net.embedded else contextlib.nullcontext()
    display = DisplayServer("127.0.0.1", net.http_port, ws_port=net.ws_port,
                            base=f"{config.mqtt.prefix}/{config.console.node}", board=console.game.board,
                            host_pages=console.game.host_pages, scripts=console.game.scripts,
                            mqtt_username=config.display.mqtt_username,
                            mqtt_password=config.display.mqtt_password, game=console.kind)
    async with broker, asyncio.TaskGroup() as tasks:
        daemon = tasks.create_task(console.run(net.host, net.port), name="console")
        pages: tuple[str, ...] = ()
        if net.http_port:
            await display.start()
            pages = tuple(f"{page_label(page, console.game.board)}: {address}"
                          for address, page in display.page_addresses("127.0.0.1"))
            # The demo answers on this computer only; `run` answers the club's network by name.
            port = config.display.http_port or 8080
            pages += (f"в сети (chgk-console run): http://{local_name()}:{port}/host",)
        try:
            yield DemoAddresses(net.where, pages)
        finally:
            daemon.cancel()
            await display.close()


Button = tuple[SimulatedMcu, int]  # a player's button on the simulated table: its MCU and pad


class DemoView(Protocol):
    """What a demo shows the game on (TerminalView here, QuartetView for the quartet)."""

    broker: str

    def on_event(self, event: Event) -> None: ...
    def draw(self) -> None: ...


async def run_demo(config: Config, stdin: TextIO, stdout: TextIO, *, sound: bool = True) -> int:
    """Run the demo until 'q' or the end of input; returns the exit status."""
    return await play_on_simulated_table(
        config, stdin, stdout, sound=sound, ready="Демо-стол готов.", keys=svoya_keys,
        view=lambda console, interactive, where: TerminalView(console, stdout, interactive=interactive,
                                                            broker=where))


def svoya_keys(console: Console, buttons: list[Button]) -> Callable[[str], None]:
    """«Своя игра»'s keys: the host's (HOST_KEYS), the players' buttons 1-4."""

    def on_key(key: str) -> None:
        if key in HOST_KEYS:
            console.host(HOST_KEYS[key])
        else:
            press_button(buttons, key)

    return on_key


def press_button(buttons: list[Button], key: str) -> bool:
    """Key 1, 2, ... presses that player's button on the simulated box (released 0.15 s
    later); False for any other key."""
    if not (key.isdigit() and 1 <= int(key) <= len(buttons)):
        return False
    sim, pad = buttons[int(key) - 1]
    sim.press(pad)
    asyncio.get_running_loop().call_later(0.15, sim.release, pad)
    return True


async def screen_loop(stdin: TextIO, interactive: bool, view: DemoView, on_key: Callable[[str], None], *,
                      live: Callable[[], bool], idle_s: float = 0.1) -> None:
    """Every demo's screen loop: each key typed goes to `on_key` until 'q' or the end of
    input; between keys the view is redrawn every `idle_s` while `live()` (a count runs)."""

    def redraw() -> None:
        if live():
            view.draw()

    async for key in terminal_keys(stdin, interactive, idle_s=idle_s, on_idle=redraw):
        on_key(key)


async def play_on_simulated_table(
        config: Config, stdin: TextIO, stdout: TextIO, *, sound: bool, ready: str,
        view: Callable[[Console, bool, str], V],
        keys: Callable[[Console, list[Button]], Callable[[str], None]]) -> int:
    """A demo on the simulated button table: the config's simulated MCUs started, the console
    on them, the embedded broker and the display server, `view(console, interactive, broker)`
    watching the events, then the screen loop with the game's `keys(console, buttons)` until
    'q' or the end of input; returns the exit status (2 with no simulated_mcu source)."""
    simulated = {name: s for name, s in config.sources.items() if isinstance(s, SimulatedMcuSettings)}
    sims = {name: SimulatedMcu(pads=s.pads) for name, s in simulated.items()}
    if not sims:
        print("demo: the config has no simulated_mcu source to play on", file=sys.stderr)
        return 2
    for sim in sims.values():
        sim.start()
    player = open_player(config.sound.device or None, config.sound.enabled and sound, log,
                         volume=config.sound.volume)
    console = Console(config, cue_player=player)
    for name, sim in sims.items():
        add_mcu(console.sources, name, sim.port, simulated[name].baudrate)
    # Key 1, 2, ... presses the first button of each player or team, in the config's order.
    first: dict[str, str] = {}
    for pad, owner in console.game.pads(config).items():
        first.setdefault(owner, pad)
    buttons = [(sims[source], int(index)) for pad in first.values()
               for source, _, index in [pad.partition(":")] if source in sims]
    net = demo_network(config)
    interactive = stdin.isatty() and stdout.isatty()
    shown = view(console, interactive, net.where)
    console.watchers.append(shown.on_event)
    try:
        async with demo_services(config, console, net) as where:
            shown.broker = where.text
            await wait_connected(sims, console)
            shown.draw()
            if not interactive:
                stdout.write(where.banner(ready))
                stdout.flush()
            await screen_loop(stdin, interactive, shown, keys(console, buttons),
                              live=lambda: console.referee.next_deadline() is not None)
    finally:
        player.close()
        for sim in sims.values():
            sim.stop()
    return 0


async def wait_connected(sims: dict[str, SimulatedMcu], console: Console) -> None:
    """Until the console's link to every simulated MCU is up (at most CONNECT_WAIT_S)."""
    deadline = time.monotonic() + CONNECT_WAIT_S
    while time.monotonic() < deadline:
        if all(console.sources.links[name].connected for name in sims):
            return
        await asyncio.sleep(0.02)
    log.warning("demo: the simulated MCU did not connect within %.0f s", CONNECT_WAIT_S)


async def terminal_keys(stdin: TextIO, interactive: bool, *, idle_s: float,
                        on_idle: Callable[[], None]) -> AsyncIterator[str]:
    """The keys typed (cbreak mode on a terminal, characters on a pipe), one by one, until
    'q' or the end of input; `on_idle()` every `idle_s` without a key (to redraw a
    countdown); '.' waits 0.2 s here (scripts). The terminal's mode is restored on exit."""
    keys: asyncio.Queue[str | None] = asyncio.Queue()
    loop = asyncio.get_running_loop()

    reconfigure = getattr(stdin, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(errors="replace")  # a byte that is no character is no key, not a dead reader

    def read_keys() -> None:  # a thread: a blocking read(1) is the portable way to get keys
        while True:
            try:
                ch = stdin.read(1)
            except (OSError, ValueError):  # stdin closed under us: the end of the input
                ch = ""
            loop.call_soon_threadsafe(keys.put_nowait, ch or None)
            if not ch:
                return

    old_mode = None
    if interactive:
        old_mode = termios.tcgetattr(stdin.fileno())
        tty.setcbreak(stdin.fileno())
    threading.Thread(target=read_keys, name="demo-keys", daemon=True).start()
    try:
        while True:
            try:
                async with asyncio.timeout(idle_s):  # not wait_for: it can swallow a cancellation
                    key = await keys.get()
            except TimeoutError:
                on_idle()
                continue
            if key is None or key == QUIT_KEY:
                return
            if key == PAUSE_KEY:
                await asyncio.sleep(0.2)
            else:
                yield key
                # Let the loop read what the key caused: a pasted flood of presses would
                # otherwise fill the simulated MCU's line, which only this loop drains.
                await asyncio.sleep(0)
    finally:
        if old_mode is not None:
            termios.tcsetattr(stdin.fileno(), termios.TCSADRAIN, old_mode)
