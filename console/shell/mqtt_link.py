"""The console's MQTT link: retained state, event stream, status with a last will, host commands.

Topics (documented in docs/mqtt.md, payloads in schemas/):

* ``<prefix>/<node>/status``  retained, ``{"state": "online"|"offline", ...}``; the will is "offline";
* ``<prefix>/<node>/state``   retained snapshot of the game, so a late display is right at once;
* ``<prefix>/<node>/events``  non-retained stream of decisions, one JSON object per event;
* ``<prefix>/<node>/host/command``  the host's tablet sends ``{"action": "correct"}`` here.

Contract: publishing never blocks or raises in the caller; messages wait in an in-memory queue
(events in order, retained topics newest only) and one sender task hands them to aiomqtt's
public ``Client.publish``, so they also wait while the broker is away (the newest state is
always re-sent on reconnect) and the link reconnects on its own. One QoS per topic
(``TOPIC_QOS``): events, host events and every retained topic at QoS 1, the live angle at
QoS 0. An event leaves the queue only once the broker has acknowledged it, so a link lost
mid-send re-sends it on reconnect: a display may see an event twice (same ``seq``), never
miss one the console still holds. Nagle is off (TCP_NODELAY, aiomqtt's public
``socket_options``; paho sets no socket options of its own): a decision must not wait 40 ms
for an ACK. The state snapshot, which is larger and only needs to be right, follows 5 ms after
the event that changed it, coalesced.

Stopping: cancel the task running `run()`; it says "offline" (within a second) and returns.
Every wait on the broker is bounded by `asyncio.timeout`, never by aiomqtt's own timeout: that
one is `asyncio.wait_for`, which on Python 3.11 swallows a cancellation arriving in the same
loop iteration as the broker's answer (CPython gh-86296), and the daemon then never stops.
A connection attempt given up (no CONNACK in time, or the console stopping) is closed at once,
through aiomqtt's public calls (`_give_up`), so retries cannot pile up open sockets.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import socket
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import aiomqtt

log = logging.getLogger("chgk.mqtt")

# The snapshot follows the event that changed it this much later: the event carries the
# decision, and building and sending the snapshot (~150 µs of CPU on a Pi-class core) would
# otherwise compete with the broker and the displays for the CPU while they deliver it.
STATE_DELAY_S = 0.005
QUEUE_LIMIT = 5000  # about an hour of a busy game; older events go first if the broker is away
BROKER_TIMEOUT_S = 10.0  # connect, subscribe, an acknowledged publish
GOODBYE_TIMEOUT_S = 1.0  # saying "offline" when stopping, and disconnecting
EVENT_QOS = 1  # decisions: acknowledged, so none is lost with a connection (docs/mqtt.md)
ANGLE_QOS = 0  # the live angle, 30 a second: a lost sample is superseded by the next
RETAINED_QOS = 1

# One encoder for every payload, built once (public API; its C accelerator is used where the
# interpreter has it). No circular check: payloads are trees built by console/wire.py.
_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False)


def encode(payload: dict[str, Any]) -> bytes:
    """The one JSON encoding of every payload (UTF-8, Russian text as is, compact)."""
    return _JSON.encode(payload).encode()


class Topics:
    def __init__(self, prefix: str, node: str) -> None:
        base = f"{prefix}/{node}"
        self.base = base
        self.status = f"{base}/status"
        self.state = f"{base}/state"
        self.events = f"{base}/events"
        self.command = f"{base}/host/command"
        self.angle = f"{base}/angle"  # the top's live angle while it spins (table)
        self.record = f"{base}/record"  # the last game's record, retained (table)
        self.host_state = f"{base}/host/state"  # the host's view: hidden sectors too (table)
        self.host_events = f"{base}/host/events"  # events only the host may see (table)


class MqttLink:
    """One broker connection, kept up for the daemon's life (see the module docstring)."""

    def __init__(
        self,
        host: str,
        port: int,
        topics: Topics,
        *,
        on_command: Callable[[bytes], None],
        on_connected: Callable[[], None] | None = None,
        username: str = "",
        password: str = "",
        reconnect_interval: float = 1.0,
        broker_timeout: float = BROKER_TIMEOUT_S,
    ) -> None:
        self._host, self._port = host, port
        self.topics = topics
        self._on_command = on_command
        self._on_connected = on_connected
        self._username, self._password = username or None, password or None
        self._reconnect_interval = reconnect_interval
        self._broker_timeout = broker_timeout
        self._events: deque[tuple[str, bytes]] = deque(maxlen=QUEUE_LIMIT)  # waiting, in order
        self._retained: dict[str, bytes] = {}  # waiting, newest per topic
        self._last_retained: dict[str, bytes] = {}
        self._wake = asyncio.Event()
        self._status: dict[str, Any] = {"state": "online"}
        self._angle_topic = topics.angle
        self._state_due: Callable[[], dict[str, Any]] | None = None
        self._host_state_due: Callable[[], dict[str, Any]] | None = None
        self.connected = False

    def qos(self, topic: str) -> int:
        """The one QoS every message on `topic` is published with."""
        return ANGLE_QOS if topic == self._angle_topic else EVENT_QOS

    # ------------------------------------------------------------------ publishing

    def publish_event(self, event: dict[str, Any], topic: str | None = None) -> None:
        """Publish a non-retained message, in order with the others (default: the event stream)."""
        self._events.append((topic or self.topics.events, encode(event)))
        self._wake.set()

    def publish_retained(self, topic: str, payload: dict[str, Any]) -> None:
        """Publish a retained message (newest wins) on `topic`."""
        self._retain(topic, encode(payload))

    def publish_state(self, make_state: Callable[[], dict[str, Any]],
                      make_host_state: Callable[[], dict[str, Any]] | None = None) -> None:
        """Publish the state `make_state()` returns (and the host's, if given), soon: several
        calls in a row publish once."""
        first = self._state_due is None
        self._state_due = make_state
        self._host_state_due = make_host_state
        if first:
            asyncio.get_running_loop().call_later(STATE_DELAY_S, self._flush_state)

    def set_status(self, **fields: Any) -> None:
        """Update the retained status (e.g. the state of each button source)."""
        self._status.update(fields)
        self._retain(self.topics.status, encode(self._status))

    def _flush_state(self) -> None:
        make_state, self._state_due = self._state_due, None
        make_host_state, self._host_state_due = self._host_state_due, None
        if make_state is not None:
            self._retain(self.topics.state, encode(make_state()))
        if make_host_state is not None:
            self._retain(self.topics.host_state, encode(make_host_state()))

    def _retain(self, topic: str, payload: bytes) -> None:
        self._retained[topic] = payload
        self._last_retained[topic] = payload  # re-published after a reconnect
        self._wake.set()

    # ------------------------------------------------------------------ the connection

    async def run(self) -> None:
        """Connect, publish, and receive commands forever; reconnect when the broker goes away."""
        while True:
            lost: aiomqtt.MqttError | None = None
            try:
                await self._session()
            except* aiomqtt.MqttError as group:  # a group: the session's tasks run in a TaskGroup
                lost = group.exceptions[0]  # type: ignore[assignment]
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                # Told to stop while the link failed: on 3.11 a TaskGroup that sees both keeps
                # only the error, so the stop is honoured here (never back to reconnecting).
                raise asyncio.CancelledError
            if lost is not None:
                if self.connected:
                    log.warning("mqtt: lost the broker at %s:%s (%s); reconnecting",
                                self._host, self._port, lost)
                else:
                    log.warning("mqtt: cannot reach the broker at %s:%s (%s); retrying",
                                self._host, self._port, lost)
                self.connected = False
            await asyncio.sleep(self._reconnect_interval)

    async def _session(self) -> None:
        will = aiomqtt.Will(self.topics.status, encode({"state": "offline"}), qos=RETAINED_QOS,
                            retain=True)
        client = aiomqtt.Client(
            self._host,
            self._port,
            username=self._username,
            password=self._password,
            will=will,
            socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)],
            max_queued_incoming_messages=1000,
            timeout=math.inf,  # aiomqtt awaits plainly; _bounded() bounds it (module docstring)
        )
        async with _connected(client, self._broker_timeout):
            self.connected = True
            log.info("mqtt: connected to %s:%s", self._host, self._port)
            try:
                await self._serve(client)
            except asyncio.CancelledError:
                # A clean stop: say "offline" ourselves; the will only covers a lost link.
                try:
                    async with asyncio.timeout(GOODBYE_TIMEOUT_S):
                        await self._say_offline(client)
                except (aiomqtt.MqttError, TimeoutError) as exc:
                    log.warning("mqtt: could not say offline before stopping (%r)", exc)
                raise

    async def _serve(self, client: aiomqtt.Client) -> None:
        async with _bounded(self._broker_timeout):
            await client.subscribe(self.topics.command, qos=1)
        # The newest of every retained topic, whatever was published before this connection.
        self._retained.update(self._last_retained)
        self._retain(self.topics.status, encode(self._status))
        if self._on_connected is not None:
            self._on_connected()
        async with asyncio.TaskGroup() as tasks:
            tasks.create_task(self._receive(client), name="mqtt-receive")
            await self._send(client)

    async def _say_offline(self, client: aiomqtt.Client) -> None:
        await client.publish(self.topics.status, encode({**self._status, "state": "offline"}),
                             qos=RETAINED_QOS, retain=True)

    async def _send(self, client: aiomqtt.Client) -> None:
        """Publish what waits: events in order, then the newest retained state and status."""
        while True:
            while self._events or self._retained:
                if self._events:
                    topic, payload = self._events[0]
                    await self._publish(client, topic, payload, qos=self.qos(topic))
                    self._events.popleft()  # only once the broker has taken it
                else:
                    topic, payload = next(iter(self._retained.items()))
                    await self._publish(client, topic, payload, qos=RETAINED_QOS, retain=True)
                    if self._retained.get(topic) is payload:  # not replaced meanwhile
                        del self._retained[topic]
            self._wake.clear()
            await self._wake.wait()

    async def _publish(self, client: aiomqtt.Client, topic: str, payload: bytes, *, qos: int,
                       retain: bool = False) -> None:
        """Publish one message, bounded in time; a message paho refuses outright (over MQTT's
        size limit) is logged and dropped: one bad message must never take the link down.

        The bound is `asyncio.timeout` inline, not `_bounded()`: this is the press path, and
        the generator-based context manager cost ~25 µs of a cold press (about 5 % of what the
        link adds between the referee's decision and the send)."""
        try:
            async with asyncio.timeout(self._broker_timeout):
                await client.publish(topic, payload, qos=qos, retain=retain)
        except TimeoutError:
            raise _no_answer(self._broker_timeout) from None
        except ValueError as exc:
            log.error("mqtt: dropped a message of %d bytes to %s: %s", len(payload), topic, exc)

    async def _receive(self, client: aiomqtt.Client) -> None:
        async for message in client.messages:
            if message.topic.matches(self.topics.command):
                payload = message.payload
                try:
                    self._on_command(payload if isinstance(payload, bytes) else str(payload).encode())
                except Exception:  # a bad command must never take the link down
                    log.exception("mqtt: handling a host command failed")


@asynccontextmanager
async def _bounded(seconds: float) -> AsyncIterator[None]:
    """Bound a wait on the broker; running out of time is a lost link (aiomqtt.MqttError)."""
    try:
        async with asyncio.timeout(seconds):
            yield
    except TimeoutError:
        raise _no_answer(seconds) from None


def _no_answer(seconds: float) -> aiomqtt.MqttError:
    return aiomqtt.MqttError(f"the broker did not answer within {seconds:g} s")


@asynccontextmanager
async def _connected(client: aiomqtt.Client, seconds: float) -> AsyncIterator[None]:
    """`async with client`, with connecting and disconnecting bounded in time.

    aiomqtt connects in a task of its own, awaited through `asyncio.shield`: the bound, or the
    console stopping, ends our wait for the CONNACK and never aiomqtt's. Were aiomqtt's wait
    cancelled, its future for the CONNACK would be left cancelled, and its disconnect callback
    would raise on it before paho closes the socket, so `_give_up` could not close it.
    A disconnect that gets no answer is logged, not raised: it must not replace the error or
    the cancellation that is ending the session."""
    connecting = asyncio.ensure_future(client.__aenter__())
    try:
        async with _bounded(seconds):
            await asyncio.shield(connecting)
    except BaseException:
        await _give_up(client, connecting)
        raise
    try:
        yield
    finally:
        await _disconnect(client)


async def _disconnect(client: aiomqtt.Client) -> None:
    try:
        async with asyncio.timeout(GOODBYE_TIMEOUT_S):
            await client.__aexit__(None, None, None)
    except (TimeoutError, aiomqtt.MqttError) as exc:
        log.warning("mqtt: no clean disconnect from the broker (%r)", exc)


async def _give_up(client: aiomqtt.Client, connecting: asyncio.Task[aiomqtt.Client]) -> None:
    """Leave a connection attempt the session will not use, closed, without waiting.

    Retries against a broker that accepts connections but never answers must not pile up
    open sockets (an evening of them would run the console out of file descriptors), and a
    console stopped meanwhile must stop now. With aiomqtt's public calls only:

    * connected after all (stopped just as the CONNACK came): disconnect as usual;
    * failed (refused, or a negative CONNACK): paho has closed its socket already;
    * still waiting for the CONNACK: aiomqtt's `__aexit__` asks paho to disconnect in its
      first step, and paho writes DISCONNECT and closes the socket from the event loop's
      writer callback a moment later, whoever waits. `__aexit__` then waits for a
      disconnection that aiomqtt reports only for a connection it considers established,
      so that wait is cut short at once; only then is the attempt cancelled (in this
      order aiomqtt's disconnect callback finds its disconnect settled and lets paho close).

    Not covered: a TCP connect still running in aiomqtt's executor thread (the console
    stopped mid-connect, or a name lookup slower than the bound) cannot be called back; its
    connection stays, until paho's keepalive (a minute) if the broker never answers, for the
    event loop's life if it does. paho gives up a TCP connect itself after 5 s, inside the
    10 s bound, so retries meet this only with a name lookup that hangs."""
    if connecting.done():
        if not connecting.cancelled() and connecting.exception() is None:
            await _disconnect(client)
        return
    # Whatever the cut-short wait ends with, the attempt is being given up already.
    with contextlib.suppress(Exception):
        async with asyncio.timeout(0):
            await client.__aexit__(None, None, None)
    connecting.cancel()
