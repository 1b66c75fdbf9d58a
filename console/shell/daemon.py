"""`chgk-console run`: the daemon under systemd (or by hand) with a config file.

Contract: starts every configured source, the sound, the MQTT link (the embedded broker if
`mqtt.host` is empty), tells systemd READY=1 once the broker has accepted the connection,
pings the watchdog from the event loop (so a blocked loop trips it), re-checks the config on
SIGHUP (a running fight is never rebuilt under the players: changes apply at the next
start), and stops cleanly on SIGTERM/SIGINT with "offline" published. A second console for
the same node or journal exits at once, touching nothing (console/shell/instance_lock.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import signal
import time
from pathlib import Path

from console.config import Config, ConfigError
from console.games import load_config
from console.shell import instance_lock, resume, sdnotify
from console.shell.broker import BrokerUnavailable, EmbeddedBroker
from console.shell.display_server import DisplayServer
from console.shell.host_keys import add_host_inputs
from console.shell.journal_files import JournalFiles, Resumed, set_aside
from console.shell.protocol_export import ProtocolExport
from console.shell.runtime import Console
from console.shell.sound import open_player
from console.sources import Stop

log = logging.getLogger("chgk.daemon")


async def run_daemon(config: Config, config_path: str, *, resume_file: str | None = None,
                     fresh: bool = False) -> int | Path:
    """Run until stopped: the exit code, or the journal the host chose to resume with its own
    settings (the caller starts `run --resume` on it: console/shell/resume_offer.py)."""
    try:
        locks = instance_lock.acquire(config)  # before anything is read, renamed or published
    except instance_lock.AlreadyRunning as exc:
        log.error("%s", exc)
        return 1
    try:
        found = _find(config, resume_file, fresh)
        if isinstance(found, str):
            log.error("journal: %s", found)
            return 1
        return await _run(found[0], config_path, found[1], own_settings=resume_file is not None)
    finally:
        locks.release()


def _find(config: Config, resume_file: str | None, fresh: bool
          ) -> tuple[Config, resume.Resumption | resume.NotResumed | None] | str:
    """The config to run and the journal to resume (console/shell/resume.py), before this
    start's journal is created: today's, or `resume_file` with its own settings, or none
    (`fresh`: today's is set aside first); or what stops the start."""
    now = time.monotonic_ns()
    if fresh:
        today = resume.find_journal(config.console.journal)
        if today is not None:
            log.info("journal: --fresh: %s kept as %s", today, set_aside(today, resume.NOT_RESUMED))
        return config, None
    if resume_file is None:
        return config, resume.prepare(config, now)
    own = resume.with_journal_settings(config, Path(resume_file))
    if isinstance(own, str):
        return f"--resume: {own}"
    found = resume.load(Path(resume_file), own, now)
    if isinstance(found, resume.NotResumed):
        return f"--resume: {resume_file} cannot be resumed: {found.why}"
    return own, found


async def _run(config: Config, config_path: str, found: resume.Resumption | resume.NotResumed | None,
               *, own_settings: bool) -> int | Path:
    # A resumed fight's journal goes on in its own file (no copy); a fresh one gets a new file.
    journal = (Resumed(found.path, found.keep_bytes, needs_newline=found.needs_newline)
               if isinstance(found, resume.Resumption) else open_journal(config.console.journal))
    player = open_player(config.sound.device or None, config.sound.enabled, log,
                         volume=config.sound.volume)
    console = Console(config, cue_player=player, journal=journal, own_settings=own_settings,
                      resume=found if isinstance(found, resume.Resumption) else None)
    stops: list[Stop] = []
    for name, source in config.sources.items():
        stop_source = source.attach(console.sources, name)
        if stop_source is not None:
            stops.append(stop_source)

    add_host_inputs(console.sources, config.host)  # pedals and key devices (console/shell/host_keys.py)
    resume.announce(console, found)  # voids what was interrupted, says it resumed
    if console.own.offer is None:  # else once the host has chosen (console/shell/resume_offer.py)
        console.journal.commit()  # synced and named: the journal to resume from now on

    def ready() -> None:
        """Once, when the referee, the buttons and the lamps run: the game can be played,
        broker or not (so systemd never restarts a daemon that only waits for mosquitto)."""
        # Everything allocated so far lives as long as the daemon: keep the cyclic collector
        # from walking it again and again (a full collection is a pause on the press path).
        gc.collect()
        gc.freeze()
        sdnotify.notify(f"READY=1\nSTATUS=Игра на столе {config.console.node}: готово, "
                        "ждём брокер MQTT")

    def broker_connected() -> None:
        sdnotify.notify(f"STATUS=Игра на столе {config.console.node}: готово, табло на связи")

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    chosen: list[Path] = []

    def resume_chosen(path: Path) -> None:
        chosen.append(path)
        stop.set()

    console.own.on_resume = resume_chosen
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    loop.add_signal_handler(signal.SIGHUP, _recheck, config_path)

    embedded = not config.mqtt.host
    host = "127.0.0.1" if embedded else config.mqtt.host
    broker = (EmbeddedBroker(config.mqtt.port, config.mqtt.ws_port) if embedded
              else contextlib.nullcontext())
    display = DisplayServer(config.display.bind, config.display.http_port, ws_port=config.mqtt.ws_port,
                            base=f"{config.mqtt.prefix}/{config.console.node}", board=console.game.board,
                            host_pages=console.game.host_pages, scripts=console.game.scripts,
                            mqtt_username=config.display.mqtt_username,
                            mqtt_password=config.display.mqtt_password,
                            protocol=protocol_of(console), media=console.own.hall_media,
                            pages=console.game.pages, login_pages=console.game.login_pages,
                            game=console.kind)
    try:
        async with broker, asyncio.TaskGroup() as tasks:
            daemon = tasks.create_task(console.run(host, config.mqtt.port, on_ready=broker_connected),
                                       name="console")
            if config.display.http_port:
                try:
                    await display.start()
                except OSError as exc:  # the page is a convenience; the game goes on without it
                    log.error("displays: cannot serve on %s:%d (%s)", config.display.bind,
                              config.display.http_port, exc.strerror)
            watchdog = tasks.create_task(_watchdog(), name="watchdog")
            await asyncio.sleep(0)  # the console task starts its links and GPIO in its first step
            ready()
            await stop.wait()
            log.info("stopping")
            sdnotify.notify("STOPPING=1")
            daemon.cancel()
            watchdog.cancel()
            await display.close()
    except BrokerUnavailable as exc:
        log.error("mqtt: the embedded broker %s; if a broker already runs on this machine, "
                  'set [mqtt] host = "127.0.0.1" to use it', exc)
        return 1
    finally:
        player.close()
        for stop_source in stops:
            stop_source()
        console.journal.close()  # the last sync, then the file
    return chosen[0] if chosen else 0


def open_journal(path: str) -> JournalFiles | None:
    """One journal file per start (journal.jsonl -> journal-20261130-190501.jsonl): each file
    begins with its own config line, so it replays on its own. The journal creates it, under
    a name no resume reads until its beginning is on the disk (console/shell/journal_files.py)."""
    return JournalFiles(Path(path)) if path else None


def protocol_of(console: Console) -> ProtocolExport | None:
    """The live protocol for the host's tablet: for a game the export protocols, whose journal
    is kept (its file changes name once, when its beginning is committed: asked each time)."""
    if not console.game.protocolled or not console.journal.open:
        return None
    return ProtocolExport(lambda: console.journal.name)


def _recheck(config_path: str) -> None:
    try:
        load_config(config_path)
    except ConfigError as exc:
        log.error("SIGHUP: %s (the running game keeps its current config)", exc)
        return
    log.info("SIGHUP: %s is valid; changes take effect at the next start "
             "(a fight in progress is never rebuilt under the players)", config_path)


async def _watchdog() -> None:
    interval = sdnotify.watchdog_interval()
    if interval is None:
        return
    while True:
        sdnotify.notify("WATCHDOG=1")
        await asyncio.sleep(interval)
