"""The retained state: published after every change, and again now and then while a clock runs.

Contract: `StatePublishing(link, state, host_state, parts, counting, timers, sheet_prefix)`;
`publish()` hands the MQTT link (`link()`, None before it runs: nothing is sent) the public
state, its flat values (console/shell/flat_topics.py, only those that changed) and the host's
state, STATE_DELAY_S later (several calls in a row publish once), and at once the game's other
retained parts that changed (console/shell/retained_parts.py).
`keep_fresh()`, called after every change, republishes the state every STATE_REFRESH_S while
`counting()` (a countdown runs), so a display that connects mid-window gets a retained
`remaining_ms` that is at most that old.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from console.shell.flat_topics import flat_values
from console.shell.mqtt_link import MqttLink
from console.shell.mqtt_wire import Topics, encode
from console.shell.retained_parts import RetainedParts
from console.shell.timers import Timers

__all__ = ["STATE_DELAY_S", "STATE_REFRESH_S", "StatePublishing"]

STATE_REFRESH_S = 0.5  # how stale a retained countdown may be for a display that joins late
# The snapshot follows the event that changed it this much later: the event carries the
# decision, and building and sending the snapshot (~150 µs of CPU on a Pi-class core) would
# otherwise compete with the broker and the displays for the CPU while they deliver it.
STATE_DELAY_S = 0.005


class StatePublishing:
    """See the module docstring."""

    def __init__(self, *, link: Callable[[], MqttLink | None], state: Callable[[], dict[str, Any]],
                 host_state: Callable[[], dict[str, Any]], parts: Callable[[], Mapping[str, object]],
                 counting: Callable[[], bool], timers: Timers, topics: Topics) -> None:
        self._link = link
        self._state = state
        self._host_state = host_state
        self._parts = parts
        self._counting = counting
        self._timers = timers
        self._topics = topics
        self._sent_parts = RetainedParts(self._publish_retained, topics.sheet)
        self._refresh: asyncio.TimerHandle | None = None
        self._due = False  # a publication of the state is armed
        self._flat: dict[str, str] = {}  # the flat topics' values as last published

    def publish(self) -> None:
        link = self._link()
        if link is None:
            return
        if not self._due:
            self._due = True
            if self._timers.call_later(STATE_DELAY_S, self._flush) is None:
                self._flush()  # (driven by hand: at once)
        self._sent_parts.publish(self._parts())

    def _flush(self) -> None:
        self._due = False
        link = self._link()
        if link is None:
            return
        state = self._state()
        link.retain(self._topics.state, encode(state))
        values = flat_values(state)
        for name, value in values.items():  # only what changed
            if self._flat.get(name) != value:
                self._flat[name] = value
                link.retain(f"{self._topics.flat}/{name}", value.encode())
        for name in [n for n in self._flat if n not in values]:  # a player who left
            del self._flat[name]
            link.retain(f"{self._topics.flat}/{name}", b"")  # an empty retained message deletes it
        link.retain(self._topics.host_state, encode(self._host_state()))

    def keep_fresh(self) -> None:
        if self._refresh is not None or self._link() is None or not self._counting():
            return

        def refresh() -> None:
            self._refresh = None
            if self._counting():
                self.publish()
                self.keep_fresh()

        self._refresh = self._timers.call_later(STATE_REFRESH_S, refresh)

    def _publish_retained(self, topic: str, payload: dict[str, Any]) -> None:
        link = self._link()
        if link is not None:
            link.publish_retained(topic, payload)
