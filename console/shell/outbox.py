"""What the console has to publish and the order it goes in, without a connection: the MQTT
link's queue policy. Pure (no socket, no clock, no event loop).

Contract: events wait in order and are never dropped (`put_event`); of the live angle only the
newest waits (`put_angle`: a sample is superseded by the next); of each retained topic only the
newest waits (`retain`), and every retained topic's newest goes again on each new connection
(`reconnected`). `take(room)` hands on the next message to send while fewer than `max_inflight`
are unacknowledged: events first, then the angle, then the retained topics; `sent(mid, ...,
through)` notes one handed to the broker and not yet acknowledged, `acked(mid)` its
acknowledgement, `through()` the acknowledgements its `through` callables report, and
`lost()` puts the events that were not acknowledged back first, in order, for the next
connection (a retained topic goes again anyway; an angle is superseded). `oldest_unacked` is
the first of those. `over_limit()` says whether more than `queue_limit` events wait: True once
when it is crossed, False once when the queue is back under half of it, None otherwise.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import NamedTuple

__all__ = ["BrokerBarriers", "Message", "Outbox"]


class Message(NamedTuple):
    topic: str
    payload: bytes
    retain: bool


class Outbox:
    """See the module docstring."""

    def __init__(self, angle_topic: str, *, max_inflight: int, queue_limit: int) -> None:
        self._angle_topic = angle_topic
        self._max_inflight = max_inflight
        self._queue_limit = queue_limit
        self._events: deque[tuple[str, bytes]] = deque()  # waiting, in order; never dropped
        self._angle: bytes | None = None  # the newest live angle waiting
        self._retained: dict[str, bytes] = {}  # waiting, newest per topic
        self._last_retained: dict[str, bytes] = {}  # every retained topic's newest, for a reconnect
        # Handed to the broker on this connection, not acknowledged yet, in the order sent.
        self._inflight: dict[int, Message] = {}
        self._through: dict[int, Callable[[], bool]] = {}  # whether each of those is, by now
        self._over = False  # more than queue_limit events wait (said once)

    @property
    def queued_events(self) -> int:
        return len(self._events)

    @property
    def oldest_unacked(self) -> int | None:
        return next(iter(self._inflight), None)

    def put_event(self, topic: str, payload: bytes) -> None:
        if topic == self._angle_topic:
            self._angle = payload
        else:
            self._events.append((topic, payload))

    def retain(self, topic: str, payload: bytes) -> None:
        self._retained[topic] = payload
        self._last_retained[topic] = payload

    def take(self) -> Message | None:
        """The next message to hand on (None: nothing waits, or too many are unacknowledged)."""
        if len(self._inflight) >= self._max_inflight:
            return None
        if self._events:
            topic, payload = self._events.popleft()
            return Message(topic, payload, False)
        if self._angle is not None:
            payload, self._angle = self._angle, None
            return Message(self._angle_topic, payload, False)
        if self._retained:
            topic = next(iter(self._retained))
            return Message(topic, self._retained.pop(topic), True)
        return None

    def sent(self, mid: int, message: Message, through: Callable[[], bool] | None = None) -> None:
        """`message` handed to the broker as `mid`; `through()` (if given) says when it is
        acknowledged (or, at QoS 0, written whole): `through` looks."""
        self._inflight[mid] = message
        if through is not None:
            self._through[mid] = through

    def acked(self, mid: int) -> None:
        self._inflight.pop(mid, None)
        self._through.pop(mid, None)

    def through(self) -> list[int]:
        """The messages whose `through()` now says so, in the order sent; acknowledged here."""
        done = [mid for mid, through in self._through.items() if through()]
        for mid in done:
            self.acked(mid)
        return done

    def reconnected(self) -> None:
        """A new connection: the newest of every retained topic goes again."""
        self._retained.update(self._last_retained)

    def lost(self) -> None:
        """The connection is over: its unacknowledged events go first next time."""
        back = [(m.topic, m.payload) for m in self._inflight.values()
                if not m.retain and m.topic != self._angle_topic]
        self._inflight.clear()
        self._through.clear()
        self._events.extendleft(reversed(back))

    def over_limit(self) -> bool | None:
        """True once when more than queue_limit events wait, False once when back under half."""
        if not self._over and len(self._events) > self._queue_limit:
            self._over = True
            return True
        if self._over and len(self._events) <= self._queue_limit // 2:
            self._over = False
            return False
        return None


class BrokerBarriers:
    """Who waits for the broker to acknowledge the status sent after they asked (`MqttLink.
    after_broker`): `wait(callback)` before that status is handed on, `status_sent(mid)` when it
    is, `acked(mid)` the callbacks its acknowledgement releases, `lost()` every one still
    waiting (nothing more comes on a lost connection). Pure: the link calls them."""

    def __init__(self) -> None:
        self._waiting: list[Callable[[], None]] = []
        self._by_mid: dict[int, list[Callable[[], None]]] = {}

    def wait(self, callback: Callable[[], None]) -> None:
        self._waiting.append(callback)

    def status_sent(self, mid: int) -> None:
        if self._waiting:
            self._by_mid[mid], self._waiting = self._waiting, []

    def acked(self, mid: int) -> list[Callable[[], None]] | None:
        return self._by_mid.pop(mid, None)

    def lost(self) -> list[Callable[[], None]]:
        waiting = [cb for cbs in self._by_mid.values() for cb in cbs] + self._waiting
        self._by_mid, self._waiting = {}, []
        return waiting
