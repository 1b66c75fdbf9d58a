"""Where each event goes: its topic, its number, the MQTT link, the screens that watch.

Contract: `Publisher.publish(event)` writes the event as its JSON (`console.wire`), numbers it
on its topic (each topic counts its own messages, so a gap on one always means a lost message:
``seq``), routes it — host-only events (``AUDIENCE = "host"``, e.g. where the «форточка» lies)
to ``host/events``, the top's live angle to ``angle``, everything else to ``events``, and a
game record also, retained, to ``record`` — and hands it to the MQTT link. The last
`NOTICES_KEPT` notices (the console's own: a source's state, a problem, a held button or
console, a resumed fight; and any decision whose inputs may have been lost) are kept, each
with the wall-clock time it was said, and published retained on ``host/notices`` whenever one
is added, so a host's screen opened later shows what happened before it (its «Внимание»). Before there is a
link (a problem found while starting) up to `before_run` events are kept and published first,
in order with their numbers, once `attach` gives the link. Then every watcher gets the typed
event and every `wire_watcher` its JSON; a watcher that fails is logged and does not cut the
others short. Returns the JSON.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from console.engine.events import Event
from console.shell.mqtt_link import MqttLink
from console.shell.mqtt_wire import Topics
from console.wire import event_json

__all__ = ["Publisher"]

log = logging.getLogger("chgk.console")

NOTICES_KEPT = 20  # a host reads «Внимание» at a glance; an evening's worth is the journal's


class Publisher:
    """See the module docstring."""

    def __init__(self, topics: Topics, *, before_run: int) -> None:
        self.topics = topics
        self.mqtt: MqttLink | None = None
        self.watchers: list[Callable[[Event], None]] = []  # the typed events (the demo's screen)
        self.wire_watchers: list[Callable[[dict[str, Any]], None]] = []  # their JSON, as published
        self.events_seq = 0  # the last number on the events topic: the state says what it reflects
        self._seqs: dict[str, int] = {}
        self._before_run: list[tuple[str, dict[str, Any]]] = []
        self._before_run_limit = before_run
        self.notices: deque[dict[str, Any]] = deque(maxlen=NOTICES_KEPT)

    def attach(self, mqtt: MqttLink) -> None:
        """Publish through `mqtt` from now on; what was kept before goes first, in order."""
        self.mqtt = mqtt
        for topic, wire in self._before_run:
            mqtt.publish_event(wire, topic)
        self._before_run.clear()
        # Always retained: a screen opened later finds no stale list of an earlier run.
        mqtt.publish_retained(self.topics.host_notices, {"notices": list(self.notices)})

    def publish(self, event: Event) -> dict[str, Any]:
        wire = event_json(event)
        if event.AUDIENCE == "host":
            topic = self.topics.host_events
        elif event.LIVE:  # the top's live angle
            topic = self.topics.angle
        else:
            topic = self.topics.events
        seq = self._seqs[topic] = self._seqs.get(topic, 0) + 1
        wire["seq"] = seq
        if topic == self.topics.events:
            self.events_seq = seq
        if event.NOTICE or wire.get("inputs_lost"):
            self.notices.append({"time": time.strftime("%H:%M:%S"), "event": wire})
            if self.mqtt is not None:
                self.mqtt.publish_retained(self.topics.host_notices, {"notices": list(self.notices)})
        if self.mqtt is not None:
            self.mqtt.publish_event(wire, topic)
            if event.RECORD:
                self.mqtt.publish_retained(self.topics.record, wire)
        elif len(self._before_run) < self._before_run_limit:
            self._before_run.append((topic, wire))  # e.g. a journal that failed at start
        for watch in self.watchers:
            try:
                watch(event)
            except Exception:  # a watcher (the demo's screen) must not cut the outputs short
                log.exception("a watcher of the events failed")
        for watch_wire in self.wire_watchers:
            try:
                watch_wire(wire)
            except Exception:
                log.exception("a watcher of the events failed")
        return wire
