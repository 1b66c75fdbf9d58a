"""The console's MQTT link: retained state, event stream, status with a last will, host commands.

The topics and the one encoding of every payload are console/shell/mqtt_wire.py's; driving
paho's socket from the event loop is console/shell/paho_socket.py's.

Contract: publishing never blocks or raises in the caller. Messages wait in memory in the
order console/shell/outbox.py keeps (events in order and never dropped, the live angle and
each retained topic newest only, all retained topics again on reconnect) and are handed to
paho-mqtt's public ``Client.publish``; the link reconnects on its own. One QoS per topic
(``qos()``): the live angle at QoS 0, all else at QoS 1. An event is held until the broker
has acknowledged it, so a display may see an event twice (same ``seq``), never miss one the
console still holds. A queue past ``QUEUE_LIMIT`` while the broker is away is said loudly
(an error, once until it drains), not shed. Nagle is off (TCP_NODELAY): a decision must not
wait 40 ms for an ACK. The state snapshot is console/shell/state_publishing.py's.

How: paho's public external-event-loop API, driven from the asyncio loop with no network
thread (console/shell/paho_socket.py): an event leaves inside the call that decided it. Acks
are each message's ``is_published()`` after paho reads or writes (``on_publish`` builds two
objects per call, a QoS 0 write too: half a live angle's cost). Up to ``MAX_INFLIGHT`` are
out at once, in order. The blocking TCP connect (and name lookup) runs in the executor.

TLS (``tls=TlsSettings(...)``, console/mqtt_tls.py, docs/broker.md): the context is built
(its files read) and handed to paho's public ``tls_set_context``/``tls_insecure_set`` in the
executor too, and paho's ``connect()`` does the TLS handshake there, within its connect
timeout: the event loop waits for neither. A certificate that fails verification is logged
as such and retried like an unreachable broker (console/shell/broker_retries.py).

Stopping: cancel the task running `run()`; it says "offline" (within a second) and returns.
Every wait on the broker is bounded (connect and CONNACK together, SUBACK, each PUBACK); a
broker that stops answering is a lost link. A connection given up is closed at once (one
still connecting in the executor as soon as that returns): retries pile up no sockets.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from console.mqtt_tls import TlsSettings, client_context
from console.shell.broker_retries import BrokerRetries
from console.shell.mqtt_wire import MAX_MESSAGE_BYTES, Topics, encode, plain_command
from console.shell.outbox import BrokerBarriers, Message, Outbox
from console.shell.paho_socket import PahoSocket, close_client, no_delay

log = logging.getLogger("chgk.mqtt")

QUEUE_LIMIT = 5000  # about an hour of a busy game: more waiting is said loudly (never dropped)
BROKER_TIMEOUT_S = 10.0  # connect + CONNACK, SUBACK, each PUBACK
GOODBYE_TIMEOUT_S = 1.0  # saying "offline" when stopping
KEEPALIVE_S = 60
MAX_INFLIGHT = 20  # messages handed to paho and not yet acknowledged; the rest wait in order
EVENT_QOS = 1  # decisions: acknowledged, so none is lost with a connection (docs/mqtt.md)
ANGLE_QOS = 0  # the live angle, up to 20 a second: a lost sample is superseded by the next
RETAINED_QOS = 1
OK = MQTTErrorCode.MQTT_ERR_SUCCESS


class LinkLost(Exception):
    """The connection to the broker is gone, refused, or stopped answering."""


class MqttLink:
    """One broker connection, kept up for the daemon's life (see the module docstring)."""

    def __init__(
        self,
        host: str,
        port: int,
        topics: Topics,
        *,
        on_command: Callable[[bytes], None],
        on_retained_command: Callable[[bytes, str], None] | None = None,
        on_jury_command: Callable[[bytes], None] | None = None,
        on_connected: Callable[[], None] | None = None,
        on_oversize: Callable[[str, int], None] | None = None,
        username: str = "",
        password: str = "",
        reconnect_interval: float = 1.0,
        broker_timeout: float = BROKER_TIMEOUT_S,
        tls: TlsSettings | None = None,
    ) -> None:
        self._host, self._port, self._tls = host, port, tls
        self.topics = topics
        self._on_command = on_command
        self._on_retained_command = on_retained_command
        self._on_jury_command = on_jury_command  # None: the game has no jury (not subscribed)
        self._on_connected = on_connected
        self._on_oversize = on_oversize  # (topic, bytes) of a message the broker would drop
        self._username, self._password = username or None, password or None
        self._reconnect_interval = reconnect_interval
        self._broker_timeout = broker_timeout
        # What waits for the broker and in what order (console/shell/outbox.py).
        self._outbox = Outbox(topics.angle, max_inflight=MAX_INFLIGHT, queue_limit=QUEUE_LIMIT)
        self._status: dict[str, Any] = {"state": "online"}
        self.connected = False
        # The connection being driven (one at a time): its client, once its socket is watched.
        self._loop: asyncio.AbstractEventLoop  # run()'s
        self._client: mqtt.Client | None = None
        self._socket: PahoSocket | None = None  # its socket, watched
        self._ready = False  # handing messages to paho: from the SUBACK until lost or stopping
        self._connack = False
        self._suback_mid: int | None = None  # the SUBSCRIBE waiting for its SUBACK
        self._lost: str | None = None  # why this connection is lost, once it is
        self._lost_event = asyncio.Event()
        self._progress = asyncio.Event()  # a CONNACK, SUBACK or PUBACK came, or the link was lost
        self._commands: list[tuple[bytes, bool, str]] = []  # (payload, retained, topic): `_after_io`
        self._retries = BrokerRetries(host, port, reconnect_interval)  # said, not flooded
        self._barriers = BrokerBarriers()  # `after_broker`'s callers (console/shell/outbox.py)

    def qos(self, topic: str) -> int:
        """The one QoS every message on `topic` is published with."""
        return ANGLE_QOS if topic == self.topics.angle else EVENT_QOS

    # ------------------------------------------------------------------ publishing

    @property
    def queued_events(self) -> int:
        """How many events wait for the broker (not counting those handed to paho)."""
        return self._outbox.queued_events

    def publish_event(self, event: dict[str, Any], topic: str | None = None) -> None:
        """Publish a non-retained message, in order with the others (default: the event stream).
        On the live angle's topic only the newest waits: a sample is superseded by the next."""
        self._outbox.put_event(topic or self.topics.events, encode(event))
        if self._outbox.over_limit():
            log.error("mqtt: %d events wait for the broker (%s); none is dropped, but the "
                      "displays are that far behind and memory grows until it is back",
                      self._outbox.queued_events, self._lost or "not connected yet")
        if self._ready:
            self._pump()

    def publish_retained(self, topic: str, payload: dict[str, Any]) -> None:
        """Publish a retained message (newest wins) on `topic`."""
        self._retain(topic, encode(payload))

    def retain(self, topic: str, payload: bytes) -> None:
        """Publish an encoded retained message (newest wins) on `topic`."""
        self._retain(topic, payload)

    def set_status(self, **fields: Any) -> None:
        """Update the retained status (e.g. the state of each button source)."""
        self._status.update(fields)
        self._retain(self.topics.status, encode(self._status))

    def after_broker(self, callback: Callable[[], None]) -> None:
        """Call `callback` once the broker has acknowledged a message sent from now on (the
        retained status, published again): everything the broker held for the console before
        it, a host command sent during a stall of the console included, has then been read and
        handled, since the broker forwards in order on the one connection. At once while the
        link is not up (nothing can be read from it); when the link is lost before the ack."""
        if not self._ready:
            callback()
            return
        self._barriers.wait(callback)
        self._retain(self.topics.status, encode(self._status))

    def _release_barriers(self, callbacks: list[Callable[[], None]]) -> None:
        for callback in callbacks:
            try:
                callback()
            except Exception:  # a caller's bug must never take the link down
                log.exception("mqtt: a caller waiting for the broker failed")

    def _retain(self, topic: str, payload: bytes) -> None:
        self._outbox.retain(topic, payload)  # (re-published after a reconnect)
        if self._ready:
            self._pump()

    def _pump(self) -> None:
        """Hand paho what waits, in order (events, then the newest of each retained topic),
        while the link is up and fewer than MAX_INFLIGHT are unacknowledged. paho writes each
        packet at once when the socket takes it; what it could not write waits for the writer."""
        client = self._client
        if client is None:
            return
        outbox = self._outbox
        while self._ready and (message := outbox.take()) is not None:
            self._send(client, message)
        if outbox.over_limit() is False:
            log.warning("mqtt: the events waiting for the broker are being delivered (%d left)",
                        outbox.queued_events)
        if self._socket is not None:
            self._socket.wants_write()

    def _send(self, client: mqtt.Client, message: Message) -> None:
        """One message to paho; one paho refuses outright (over MQTT's size limit, a wildcard
        in the topic) is logged and dropped: one bad message must never take the link down. One
        over the shipped broker's limit (MAX_MESSAGE_BYTES: its message_size_limit, which drops
        it without a word) is not sent either, and said (`on_oversize`)."""
        topic, payload, retain = message
        qos = RETAINED_QOS if retain else self.qos(topic)
        if len(payload) > MAX_MESSAGE_BYTES:
            log.error("mqtt: a message of %d bytes to %s is over the broker's limit (%d): not sent",
                      len(payload), topic, MAX_MESSAGE_BYTES)
            if self._on_oversize is not None:
                self._on_oversize(topic, len(payload))
            return
        try:
            info = client.publish(topic, payload, qos, retain)
        except ValueError as exc:
            log.error("mqtt: dropped a message of %d bytes to %s: %s", len(payload), topic, exc)
            return
        if info.rc != OK:  # the connection broke under the write; paho has closed it
            self._outbox.sent(info.mid, message)
            self._lose(f"publishing failed: {mqtt.error_string(info.rc)}")
        elif not info.is_published():  # QoS 1 until its PUBACK; QoS 0 until written
            self._outbox.sent(info.mid, message, info.is_published)
        if topic == self.topics.status:  # its PUBACK releases who waits for the broker
            self._barriers.status_sent(info.mid)

    # ------------------------------------------------------------------ paho's callbacks

    def _on_connect(self, client: mqtt.Client, _userdata: Any, _flags: mqtt.ConnectFlags,
                    reason_code: ReasonCode, _properties: Properties | None) -> None:
        if client is self._client:
            if reason_code.is_failure:
                self._lose(f"the broker refused the connection: {reason_code}")
            else:
                self._connack = True
            self._progress.set()

    def _on_disconnect(self, client: mqtt.Client, _userdata: Any, _flags: mqtt.DisconnectFlags,
                       reason_code: ReasonCode, _properties: Properties | None) -> None:
        if client is self._client:
            self._lose(f"disconnected: {reason_code}")

    def _on_subscribe(self, client: mqtt.Client, _userdata: Any, mid: int,
                      reason_codes: list[ReasonCode], _properties: Properties | None) -> None:
        if client is self._client and mid == self._suback_mid:
            self._suback_mid = None
            if any(code.is_failure for code in reason_codes):
                log.error("mqtt: the broker refused the subscription to %s (%s): no host commands",
                          self.topics.command, reason_codes)
            self._progress.set()

    def _published(self) -> None:
        """Note the messages paho has marked published (a PUBACK read, a QoS 0 one written
        whole), and wake who waits on the broker (`_until`) to look again."""
        for mid in self._outbox.through():
            released = self._barriers.acked(mid)
            if released is not None:
                # After the commands this read brought (`_after_io`): they came before the ack.
                self._loop.call_soon(self._release_barriers, released)
        self._progress.set()

    def _on_message(self, client: mqtt.Client, _userdata: Any, message: mqtt.MQTTMessage) -> None:
        # Handled once paho's read returns (`_after_io`): the console's answer is then written
        # at once, not queued behind paho's callback lock. A retained command is one the broker
        # stored and replays at every (re)subscription: it is reported, never executed.
        topic, payload = message.topic, bytes(message.payload)
        if client is not self._client:
            return
        if topic.startswith(self.topics.do + "/"):
            payload = plain_command(topic.removeprefix(self.topics.do + "/"), payload)
        elif topic not in (self.topics.command, self.topics.jury):
            return
        self._commands.append((payload, bool(message.retain), topic))

    def _on_socket_close(self, client: mqtt.Client, _userdata: Any, _sock: mqtt.SocketLike) -> None:
        if client is self._client and self._socket is not None:
            self._socket.unwatch()

    def _lose(self, reason: str) -> None:
        if self._lost is None:
            self._lost = reason
        self._ready = False
        # Nothing more comes on this connection: whoever waits for the broker waits no more.
        self._release_barriers(self._barriers.lost())
        self._lost_event.set()
        self._progress.set()

    # ------------------------------------------------------------------ the socket

    def _watch(self, client: mqtt.Client) -> None:
        """Drive `client` from the event loop (console/shell/paho_socket.py)."""
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_subscribe = self._on_subscribe
        client.on_message = self._on_message
        client.on_socket_close = self._on_socket_close
        watched = PahoSocket(self._loop, client, on_io=self._after_io, lose=self._lose)
        if not watched.watch():
            raise LinkLost("the connection closed as it opened")
        self._client, self._socket = client, watched
        self._pump()  # a CONNECT paho could not write whole

    def _after_io(self) -> None:
        """What paho's read (or write) brought: the acks noted, the commands handed on, then
        what waits sent."""
        self._published()
        if self._commands:
            commands, self._commands = self._commands, []
            for payload, retained, topic in commands:
                try:
                    if topic == self.topics.jury and not retained and self._on_jury_command is not None:
                        self._on_jury_command(payload)
                    elif not retained:
                        self._on_command(payload)
                    elif self._on_retained_command is not None:
                        self._on_retained_command(payload, topic)
                except Exception:  # a bad command must never take the link down
                    log.exception("mqtt: handling a host command failed")
        self._pump()  # room freed by the acks just read; paho's own answers (PUBACK, PINGRESP)

    # ------------------------------------------------------------------ the connection

    async def run(self) -> None:
        """Connect, publish, and receive commands forever; reconnect when the broker goes away."""
        self._loop = asyncio.get_running_loop()
        while True:
            try:
                await self._session()
            # OSError: the TCP connect or the name lookup; ValueError: a host name the resolver
            # rejects. Anything else is a bug, and stops the console (it resumes from the journal).
            except (LinkLost, OSError, ValueError) as failed:
                self._retries.failed(failed, connected=self.connected, now=self._loop.time())
            self.connected = False
            await asyncio.sleep(self._reconnect_interval)

    async def _session(self) -> None:
        client = mqtt.Client(CallbackAPIVersion.VERSION2, reconnect_on_failure=False)
        if self._username is not None:
            client.username_pw_set(self._username, self._password)
        client.will_set(self.topics.status, encode({"state": "offline"}), RETAINED_QOS, retain=True)
        client.max_inflight_messages_set(0)  # the link keeps its own bound (MAX_INFLIGHT)
        client.on_socket_open = no_delay
        self._lost, self._connack, self._suback_mid = None, False, None
        self._lost_event.clear()
        # paho's connect() blocks (name lookup, TCP connect, up to its 5 s connect timeout;
        # with TLS the files read and the handshake too).
        connecting = self._loop.run_in_executor(None, self._connect, client)
        try:
            try:
                async with asyncio.timeout(self._broker_timeout):
                    await asyncio.shield(connecting)  # a stop must not wait for the thread
                    self._watch(client)
                    await self._until(lambda: self._connack)
            except TimeoutError:
                raise LinkLost(f"no CONNACK within {self._broker_timeout:g} s") from None
            self.connected = True
            log.info("mqtt: connected to %s:%s", self._host, self._port)
            try:
                await self._serve(client)
            except asyncio.CancelledError:
                await self._say_offline(client)
                raise
        finally:
            self._end(client, connecting)

    def _connect(self, client: mqtt.Client) -> MQTTErrorCode:
        """In the executor: TLS set up (if configured), then paho's blocking connect."""
        if self._tls is not None:
            client.tls_set_context(client_context(self._tls))
            client.tls_insecure_set(self._tls.insecure)
        return client.connect(self._host, self._port, KEEPALIVE_S)

    async def _until(self, done: Callable[[], bool]) -> None:
        """Wait until `done()` (the caller bounds the wait); the link lost meanwhile raises."""
        while not done():
            if self._lost is not None:
                raise LinkLost(self._lost)
            self._progress.clear()
            await self._progress.wait()

    async def _serve(self, client: mqtt.Client) -> None:
        topics = [(self.topics.command, 1), (f"{self.topics.do}/+", 1)]
        if self._on_jury_command is not None:
            topics.append((self.topics.jury, 1))
        result, mid = client.subscribe(topics)
        if result != OK:
            raise LinkLost(f"subscribing failed: {mqtt.error_string(result)}")
        self._suback_mid = mid
        self._pump()
        try:
            async with asyncio.timeout(self._broker_timeout):
                await self._until(lambda: self._suback_mid is None)
        except TimeoutError:
            raise LinkLost(f"no SUBACK within {self._broker_timeout:g} s") from None
        # The newest of every retained topic, whatever was published before this connection.
        self._outbox.reconnected()
        self._retain(self.topics.status, encode(self._status))
        self._ready = True
        self._retries.reached()
        if self._on_connected is not None:
            self._on_connected()
        self._pump()
        await self._keep_up(client)

    async def _keep_up(self, client: mqtt.Client) -> None:
        """Until the link is lost: paho's keep-alive each second, and every PUBACK bounded."""
        loop = self._loop
        tick = min(1.0, self._broker_timeout / 4)
        watched: int | None = None  # the oldest unacknowledged message, and since when
        since = misc_at = loop.time()
        while True:
            try:
                async with asyncio.timeout(tick):
                    await self._lost_event.wait()
            except TimeoutError:  # a tick
                pass
            if self._lost is not None:
                raise LinkLost(self._lost)
            now = loop.time()
            if now - misc_at >= 1.0:
                misc_at = now
                if client.loop_misc() != OK:  # no PINGRESP within the keep-alive
                    self._lose("the broker stopped answering pings")
                    continue
                self._pump()
            oldest = self._outbox.oldest_unacked
            if oldest is None or oldest != watched:
                watched, since = oldest, now
            elif now - since >= self._broker_timeout:
                raise LinkLost(f"no PUBACK within {self._broker_timeout:g} s")

    async def _say_offline(self, client: mqtt.Client) -> None:
        """A clean stop: say "offline" ourselves (the will covers only a lost link), bounded."""
        self._ready = False
        if self._lost is not None:
            return
        offline = encode({**self._status, "state": "offline"})
        try:
            info = client.publish(self.topics.status, offline, RETAINED_QOS, retain=True)
            self._pump()
            async with asyncio.timeout(GOODBYE_TIMEOUT_S):
                await self._until(lambda: info.rc != OK or info.is_published())
        except (TimeoutError, LinkLost, ValueError) as exc:
            log.warning("mqtt: could not say offline before stopping (%r)", exc)

    def _end(self, client: mqtt.Client, connecting: asyncio.Future[MQTTErrorCode]) -> None:
        """The session is over: stop driving its client, keep what it had not delivered, and
        close its connection now (or, with the TCP connect still running in the executor, as
        soon as that returns: only then is there a socket to close)."""
        self._ready = False
        if self._socket is not None:
            self._socket.unwatch()
        self._client, self._socket = None, None
        self._outbox.lost()  # its unacknowledged events first next time
        if connecting.done():
            close_client(client, connecting)
        else:
            connecting.add_done_callback(lambda done: close_client(client, done))

