"""The tournament service on the organiser's machine (`chgk-console tournament`, docs/tournament.md).

Contract: `TournamentService(config)` opens the store (console/tournament/store.py) in
``state_dir``; with none yet it runs the public draw (seed 004 2.3.3) with the configured seed,
or a fresh one, logs the seed and the groups, and saves them before anything else, so a restart
never draws again. `run()` (async) serves the organiser's page (console/data/organiser.html, by
the display server's code) and keeps an MQTT session with the organiser's broker until
cancelled, where every table's broker bridges its public topics (config/mosquitto/
bridge-table.conf):

- it reads ``<prefix>/+/events`` (a fight's ``fight_over``) and ``<prefix>/+/state`` (the
  retained state of a fight that is over carries the same places: a result the service missed,
  e.g. a fight that ended before the service first ran, is found there), each offered to the
  book (console/tournament/book.py), which counts a fight's result once: a repeat is ignored,
  a different one for the same fight is a problem the page shows, never a change;
- a result's document is saved (atomically) inside the message's callback: paho acknowledges a
  QoS 1 message only after that callback returns, so a result the broker counts as delivered is
  on disk; a service stopped before that gets it again (its session is persistent:
  ``clean_session`` false with a fixed client id, QoS 1 subscriptions);
- it publishes, retained at QoS 1: ``<prefix>/tournament/grid`` (the whole grid, standings,
  teams' names, problems, tables; `Book.view`), ``<prefix>/tournament/standings`` and
  ``<prefix>/tournament/status`` (online; the will says offline); and each result's fate on
  ``<prefix>/tournament/events`` (``result_recorded``, ``result_repeated``,
  ``result_conflict``, ``result_waiting``, ``result_foreign``);
- it takes the organiser's command on ``<prefix>/tournament/command`` (not retained):
  ``{"action": "runner_up_shootout", "scores": {team: points}}``, the shoot-out among the
  runners-up tied for the final (2.2.3, 3.10), which the final waits on.

The MQTT client is paho's, on its own network thread (`loop_start`): every book change happens
on that thread, one message at a time. `export(config, folder)` writes the stored tournament's
standings CSV and grid JSON without connecting to anything.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from console.shell.display_server import DisplayServer
from console.tournament.book import Book, lines_from_event, lines_from_state
from console.tournament.config import TournamentConfig
from console.tournament.draw import draw_groups
from console.tournament.export import standings_csv
from console.tournament.store import StoreError, TournamentStore

__all__ = ["TournamentService", "export", "open_book"]

log = logging.getLogger("chgk.tournament")

QOS = 1
NODE = "tournament"  # the service's own topics: <prefix>/tournament/...
BRIDGES = "bridges"  # the bridges' notifications: <prefix>/bridges/bridge-<node>


def open_book(config: TournamentConfig, store: TournamentStore) -> Book:
    """The stored tournament, or a new one from the public draw (saved at once)."""
    doc = store.load()
    if doc is not None:
        book = Book.from_document(doc)
        log.info("tournament %r from %s: draw seed %d, %d results", book.name, store.path,
                 book.tournament.draw.seed, len(book.order))
        return book
    seed = config.seed or secrets.randbelow(2**31 - 1) + 1
    draw = draw_groups([t.id for t in config.teams], seed)
    book = Book(config.name, config.teams, draw)
    store.save(book.document())
    names = dict((t.id, t.name) for t in config.teams)
    log.info("the public draw (004 2.3.3), seed %d: %s", seed,
             "; ".join(f"{g}: {', '.join(names[t] for t in teams)}" for g, teams in draw.groups.items()))
    return book


def export(config: TournamentConfig, folder: str) -> list[Path]:
    store = TournamentStore(config.state_dir)
    doc = store.load()
    if doc is None:
        raise StoreError(f"no tournament in {store.path} yet (run the service first: it makes the draw)")
    book = Book.from_document(doc)
    # The grid as the page has it: the tournament's name, the teams' names, what waits, the problems.
    grid = {k: v for k, v in book.view().items() if k != "tables"}
    return store.export(folder, standings_csv(book.tournament, book.teams), grid)


class TournamentService:
    def __init__(self, config: TournamentConfig) -> None:
        self.config = config
        self.prefix = config.mqtt.prefix
        self.store = TournamentStore(config.state_dir)
        self.book = open_book(config, self.store)
        self._saved = self.book.document()
        self.page: DisplayServer | None = None
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=config.mqtt.client_id,
                                  clean_session=False, protocol=mqtt.MQTTv311)
        if config.mqtt.username:
            self.client.username_pw_set(config.mqtt.username, config.mqtt.password)
        self.client.will_set(self.topic("status"), json.dumps({"state": "offline"}), QOS, retain=True)
        self.client.reconnect_delay_set(1, 5)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self._last_grid = ""

    def topic(self, name: str) -> str:
        return f"{self.prefix}/{NODE}/{name}"

    # ------------------------------------------------------------------ running

    async def run(self) -> None:
        page = self.config.page
        if page.http_port:
            self.page = DisplayServer(page.bind, page.http_port, ws_port=page.ws_port,
                                      base=f"{self.prefix}/{NODE}", board="organiser.html",
                                      scripts=("quartet-texts.js",),
                                      mqtt_username=page.mqtt_username, mqtt_password=page.mqtt_password,
                                      console_pages=False)
            await self.page.start()
            log.info("the organiser's page: http://%s:%d/", page.bind, self.page.port)
        self.client.connect_async(self.config.mqtt.host, self.config.mqtt.port, keepalive=30)
        self.client.loop_start()
        try:
            await asyncio.Event().wait()  # until cancelled
        finally:
            info = self.client.publish(self.topic("status"), json.dumps({"state": "offline"}), QOS,
                                       retain=True)
            with contextlib.suppress(RuntimeError, ValueError):  # not connected: the will says it
                await asyncio.to_thread(info.wait_for_publish, 1.0)
            self.client.disconnect()
            self.client.loop_stop()
            if self.page is not None:
                await self.page.close()

    # ------------------------------------------------------------------ MQTT (paho's thread)

    def _on_connect(self, client: mqtt.Client, userdata: object, flags: object, reason: Any,
                    properties: object) -> None:
        if reason.is_failure:
            log.error("the organiser's broker refused the service: %s", reason)
            return
        log.info("connected to the organiser's broker %s:%d", self.config.mqtt.host, self.config.mqtt.port)
        client.subscribe([(f"{self.prefix}/+/events", QOS), (f"{self.prefix}/+/state", QOS),
                          (f"{self.prefix}/+/status", QOS), (f"{self.prefix}/{BRIDGES}/+", QOS),
                          (self.topic("command"), QOS)])
        client.publish(self.topic("status"), json.dumps({"state": "online", "name": self.book.name}),
                       QOS, retain=True)
        self._last_grid = ""
        self._publish_grid()

    def _on_message(self, client: mqtt.Client, userdata: object, message: mqtt.MQTTMessage) -> None:
        if message.retain and message.topic == self.topic("command"):
            return  # a command left retained is never carried out again
        try:
            self.handle(message.topic, bytes(message.payload))
        except Exception:  # one bad message must not stop paho's thread (and the service)
            log.exception("a message on %s could not be handled", message.topic)

    def handle(self, topic: str, payload: bytes) -> None:
        """One message from the broker (public for tests that feed the service directly)."""
        parts = topic.split("/")
        if parts == [self.prefix, NODE, "command"]:
            self._command(payload)
            return
        if len(parts) != 3 or parts[0] != self.prefix or parts[1] == NODE:
            return
        _, node, kind = parts
        if node == BRIDGES:
            table = kind.removeprefix("bridge-")
            self._table(table, bridge=payload.strip() == b"1")
            return
        try:
            data = json.loads(payload)
        except (UnicodeDecodeError, json.JSONDecodeError):
            return
        if not isinstance(data, dict):
            return
        if kind == "status":
            self._table(node, console=data.get("state"))
            return
        try:
            lines = (lines_from_event(data) if kind == "events" else
                     lines_from_state(data) if kind == "state" else None)
        except (KeyError, TypeError, ValueError, AssertionError) as exc:
            log.warning("table %s: a fight's places that cannot be read (%s) on %s", node, exc, topic)
            self.publish(self.topic("events"), json.dumps(
                {"type": "result_unreadable", "table": node, "fight": None,
                 "message": f"стол {node}: результат боя не прочитан ({exc}): не учтён"}, ensure_ascii=False))
            return
        if kind == "state":
            self._table(node, phase=data.get("phase"), teams=self._teams_of(data))
        if lines is None:
            return
        offer = self.book.offer(node, lines)
        self._save()
        if offer.kind == "recorded":
            log.info("table %s: the result of %s recorded", node, offer.fight)
        elif offer.message:
            log.warning("%s", offer.message)
        self.publish(self.topic("events"), json.dumps(
            {"type": f"result_{'repeated' if offer.kind == 'repeat' else offer.kind}", "table": node,
             "fight": offer.fight, "message": offer.message}, ensure_ascii=False))
        self._publish_grid()

    def _command(self, payload: bytes) -> None:
        """The organiser's command: {"action": "runner_up_shootout", "scores": {team: points}},
        the shoot-out among the runners-up tied for the final (2.2.3, 3.10)."""
        try:
            try:
                command = json.loads(payload)
            except (UnicodeDecodeError, json.JSONDecodeError):
                raise ValueError("команда — объект JSON") from None
            if not isinstance(command, dict) or command.get("action") != "runner_up_shootout":
                raise ValueError('команда одна: {"action": "runner_up_shootout", "scores": {команда: очки}}')
            scores = command.get("scores")
            if not isinstance(scores, dict) or not all(isinstance(v, int) and not isinstance(v, bool)
                                                       for v in scores.values()):
                raise ValueError("scores — очки каждой команды перестрелки: {команда: очки}")
            race = self.book.tournament.runner_up()
            due = sorted(race.pending[0].teams) if race is not None and race.pending else []
            if sorted(map(str, scores)) != due:
                raise ValueError("перестрелка сейчас не нужна" if not due else
                                 f"в перестрелке играют {', '.join(due)}; пришли очки для "
                                 f"{', '.join(sorted(map(str, scores)))} (2.2.3, 3.10)")
            self.book.runner_up_shootout({str(k): int(v) for k, v in scores.items()})
        except ValueError as exc:
            log.warning("organiser's command refused: %s", exc)
            self.publish(self.topic("events"), json.dumps({"type": "command_refused", "message": str(exc)},
                                                          ensure_ascii=False))
            return
        log.info("the runners-up's shoot-out recorded: %s", scores)
        self._save()
        self._publish_grid()

    def _teams_of(self, state: dict[str, Any]) -> list[str]:
        teams = state.get("teams")
        return [str(t.get("id")) for t in teams if isinstance(t, dict)] if isinstance(teams, list) else []

    def _table(self, node: str, **info: Any) -> None:
        entry = self.book.tables.setdefault(node, {"bridge": None, "console": None, "phase": None,
                                                   "fight": None})
        if "teams" in info:
            teams = set(info.pop("teams"))
            entry["fight"] = self.book.fight_of(teams) if teams else None
        entry.update(info)
        self._publish_grid()  # sent only if the page's view changed

    def _save(self) -> None:
        doc = self.book.document()
        if doc == self._saved:
            return  # a repeat changes nothing: nothing written
        try:
            self.store.save(doc)
            self._saved = doc
        except OSError as exc:
            # Kept in memory and written with the next save; after a restart the tables'
            # retained states of finished fights bring their results again.
            log.error("cannot save the tournament in %s: %s", self.store.path, exc.strerror)

    def _publish_grid(self) -> None:
        view = self.book.view()
        text = json.dumps(view, ensure_ascii=False)
        if text == self._last_grid:
            return  # nothing changed (a state message of a fight in play): no grid sent again
        self._last_grid = text
        self.publish(self.topic("grid"), text, retain=True)
        self.publish(self.topic("standings"), json.dumps(view["standings"], ensure_ascii=False), retain=True)

    def publish(self, topic: str, text: str, *, retain: bool = False) -> None:
        """At QoS 1; paho keeps it while the broker is away and sends it on reconnecting."""
        self.client.publish(topic, text, QOS, retain=retain)
