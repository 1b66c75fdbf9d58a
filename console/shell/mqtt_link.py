"""The console's MQTT link: retained state, event stream, status with a last will, host commands.

Topics (documented in docs/mqtt.md, payloads in schemas/):

* ``<prefix>/<node>/status``  retained, ``{"state": "online"|"offline", ...}``; the will is "offline";
* ``<prefix>/<node>/state``   retained snapshot of the game, so a late display is right at once;
* ``<prefix>/<node>/events``  non-retained stream of decisions, one JSON object per event;
* ``<prefix>/<node>/host/command``  the host's tablet sends ``{"action": "correct"}`` here;
  a command the broker delivers as retained is never executed (``on_retained_command``);
* ``<prefix>/<node>/host/do/<action>``  the same command as a plain payload (a show
  controller's button: `plain_command`), and ``<prefix>/<node>/flat/...`` retained plain values
  of the state (console/shell/flat_topics.py), published as they change;
* ``<prefix>/<node>/jury/command``  the game jury's sheet edits (a game with a jury only:
  subscribed when ``on_jury_command`` is given), and ``<prefix>/<node>/sheet/...`` its retained
  parts (`publish_retained`).

Contract: publishing never blocks or raises in the caller. Messages wait in memory (events in
order, the live angle and the retained topics newest only) and are handed to paho-mqtt's public
``Client.publish`` in that order; while the broker is away they wait (the newest of every
retained topic is always re-sent on reconnect), and the link reconnects on its own. One QoS
per topic (``qos()``): events, host events and every retained topic at QoS 1, the live angle
at QoS 0. An event is held until the broker has acknowledged it, so a link lost mid-send
re-sends it first on the next connection: a display may see an event twice (same ``seq``),
never miss one the console still holds. Nagle is off (TCP_NODELAY, set in paho's public
``on_socket_open``): a decision must not wait 40 ms for an ACK. Events are never dropped: the
live angle (~30 a second while the top spins) does not share their queue, and a queue grown
past ``QUEUE_LIMIT`` while the broker is away is said loudly in the log (an error, once until
it drains), not shed. The state snapshot, which is
larger and only needs to be right, follows 5 ms after the event that changed it, coalesced.

How: paho's public external-event-loop API, driven from the asyncio loop (no network thread):
the socket's reader calls ``loop_read()``, a writer is registered only while ``want_write()``,
``loop_misc()`` runs each second (keep-alive). With no network thread and no
``on_socket_register_write`` callback, paho's ``publish()`` writes the packet at once when the
socket can take it, so an event leaves inside the call that decided it (the press's own serial
callback), not a task hop and an awaited confirmation later (docs/performance.md). Acks come
back through ``on_publish``; up to ``MAX_INFLIGHT`` messages are out at once, in order.
The blocking TCP connect (and name lookup) runs in the loop's default executor.

TLS (``tls=TlsSettings(...)``, console/mqtt_tls.py, docs/broker.md): the context is
built (its files read) and handed to paho's public ``tls_set_context``/``tls_insecure_set``
in the executor too, and paho's ``connect()`` does the TLS handshake there, within its connect
timeout: the event loop waits for neither. Reading drains the SSL object: a TLS record read for
one packet may bring the next ones along into the SSL buffer, where the socket's readiness
cannot see them, so the reader reads on while ``pending()`` says bytes wait there (as paho's
own ``loop()`` does). A broker certificate that fails verification is logged as such (an
error naming the problem) and retried like an unreachable broker.

Stopping: cancel the task running `run()`; it says "offline" (within a second) and returns.
Every wait on the broker is bounded by `asyncio.timeout` (connect and CONNACK together,
SUBACK, each PUBACK); a broker that stops answering is a lost link. A connection given up
(no CONNACK in time, or the console stopping) is closed at once with paho's ``disconnect()``;
one whose TCP connect was still running in the executor is closed as soon as that returns,
so retries cannot pile up open sockets.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import ssl
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from console.mqtt_tls import TlsSettings, client_context
from console.shell.flat_topics import flat_values
from console.shell.outbox import Message, Outbox

log = logging.getLogger("chgk.mqtt")

# The snapshot follows the event that changed it this much later: the event carries the
# decision, and building and sending the snapshot (~150 µs of CPU on a Pi-class core) would
# otherwise compete with the broker and the displays for the CPU while they deliver it.
STATE_DELAY_S = 0.005
QUEUE_LIMIT = 5000  # about an hour of a busy game: more waiting is said loudly (never dropped)
BROKER_TIMEOUT_S = 10.0  # connect + CONNACK, SUBACK, each PUBACK
GOODBYE_TIMEOUT_S = 1.0  # saying "offline" when stopping
RETRY_SAID_EVERY_S = 60.0  # a broker that cannot be reached is said again this often
KEEPALIVE_S = 60
MAX_INFLIGHT = 20  # messages handed to paho and not yet acknowledged; the rest wait in order
EVENT_QOS = 1  # decisions: acknowledged, so none is lost with a connection (docs/mqtt.md)
ANGLE_QOS = 0  # the live angle, 30 a second: a lost sample is superseded by the next
RETAINED_QOS = 1
OK = MQTTErrorCode.MQTT_ERR_SUCCESS

# One encoder for every payload, built once (public API; its C accelerator is used where the
# interpreter has it). No circular check: payloads are trees built by console/wire.py.
_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False)


def plain_command(action: str, payload: bytes) -> bytes:
    """A command sent as a plain payload on ``<base>/host/do/<action>`` (a show controller's
    button) as the JSON command the console takes: the payload, when a JSON object, gives the
    arguments (``{"reason": "..."}``); anything else (empty, "1", "press") is no argument."""
    args: Any = None
    try:
        args = json.loads(payload) if payload.strip() else None
    except (ValueError, RecursionError):
        args = None
    return encode({**(args if isinstance(args, dict) else {}), "action": action})


def encode(payload: dict[str, Any]) -> bytes:
    """The one JSON encoding of every payload (UTF-8, Russian text as is, compact). Text that is
    not valid Unicode (a file name's undecodable bytes, kept by Python as lone surrogates) is
    written as its JSON escape: a payload is always encoded, the link never stuck on one."""
    return _JSON.encode(payload).encode("utf-8", "backslashreplace")


# config/mosquitto/chgk-console.conf's message_size_limit: a larger payload the broker takes and
# forwards to no one.
MAX_MESSAGE_BYTES = 65536


class LinkLost(Exception):
    """The connection to the broker is gone, refused, or stopped answering."""


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
        self.host_notices = f"{base}/host/notices"  # the last notices, retained (the host's «Внимание»)
        self.flat = f"{base}/flat"  # plain retained values for show control (console/shell/flat_topics.py)
        self.do = f"{base}/host/do"  # + "/<action>": a host command as a plain payload (Companion)
        self.jury = f"{base}/jury/command"  # the game jury's sheet (the sports stage; its own account)
        self.sheet = f"{base}/sheet"  # + "/<part>": the jury's sheet, retained (the sports stage)


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
        self._host, self._port = host, port
        self._tls = tls
        self.topics = topics
        self._on_command = on_command
        self._on_retained_command = on_retained_command
        self._on_jury_command = on_jury_command  # None: the game has no jury (not subscribed)
        self._on_connected = on_connected
        self._on_oversize = on_oversize  # (topic, bytes) of a message the broker would drop
        self._username, self._password = username or None, password or None
        self._reconnect_interval = reconnect_interval
        self._broker_timeout = broker_timeout
        # What waits for the broker and in what order (console/shell/outbox.py): events never
        # dropped, the newest live angle and retained topics, what paho has not had acked.
        self._outbox = Outbox(topics.angle, max_inflight=MAX_INFLIGHT, queue_limit=QUEUE_LIMIT)
        self._status: dict[str, Any] = {"state": "online"}
        self._angle_topic = topics.angle
        self._state_due: Callable[[], dict[str, Any]] | None = None
        self._host_state_due: Callable[[], dict[str, Any]] | None = None
        self.connected = False
        # The connection being driven (one at a time): its client, once its socket is watched.
        self._loop: asyncio.AbstractEventLoop  # run()'s
        self._client: mqtt.Client | None = None
        self._fd = -1
        self._writing = False  # the socket watched for writing: paho has bytes it could not send
        self._ready = False  # handing messages to paho: from the SUBACK until lost or stopping
        self._connack = False
        self._suback_mid: int | None = None  # the SUBSCRIBE waiting for its SUBACK
        self._lost: str | None = None  # why this connection is lost, once it is
        self._lost_event = asyncio.Event()
        self._progress = asyncio.Event()  # a CONNACK, SUBACK or PUBACK came, or the link was lost
        # (payload, retained, its topic), handled once paho's read returns
        self._commands: list[tuple[bytes, bool, str]] = []
        self._flat: dict[str, str] = {}  # the flat topics' values as last published
        self._retries = 0  # tries since the broker was last reached (`_say_unreachable`)
        self._retry_said: float | None = None  # when that was last said (loop time)
        # `after_broker`: callers waiting for the next status handed to paho, then for its PUBACK.
        self._barrier_waiting: list[Callable[[], None]] = []
        self._barrier_mids: dict[int, list[Callable[[], None]]] = {}

    def qos(self, topic: str) -> int:
        """The one QoS every message on `topic` is published with."""
        return ANGLE_QOS if topic == self._angle_topic else EVENT_QOS

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

    def after_broker(self, callback: Callable[[], None]) -> None:
        """Call `callback` once the broker has acknowledged a message sent from now on (the
        retained status, published again): everything the broker held for the console before
        it, a host command sent during a stall of the console included, has then been read and
        handled, since the broker forwards in order on the one connection. At once while the
        link is not up (nothing can be read from it); when the link is lost before the ack."""
        if not self._ready:
            callback()
            return
        self._barrier_waiting.append(callback)
        self._retain(self.topics.status, encode(self._status))

    def _release_barriers(self, callbacks: list[Callable[[], None]]) -> None:
        for callback in callbacks:
            try:
                callback()
            except Exception:  # a caller's bug must never take the link down
                log.exception("mqtt: a caller waiting for the broker failed")

    def _flush_state(self) -> None:
        make_state, self._state_due = self._state_due, None
        make_host_state, self._host_state_due = self._host_state_due, None
        if make_state is not None:
            state = make_state()
            self._retain(self.topics.state, encode(state))
            values = flat_values(state)
            for name, value in values.items():  # only what changed
                if self._flat.get(name) != value:
                    self._flat[name] = value
                    self._retain(f"{self.topics.flat}/{name}", value.encode())
            for name in [n for n in self._flat if n not in values]:  # a player who left
                del self._flat[name]
                self._retain(f"{self.topics.flat}/{name}", b"")  # an empty retained message deletes it
        if make_host_state is not None:
            self._retain(self.topics.host_state, encode(make_host_state()))

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
        if not self._writing and self._fd >= 0 and client.want_write():
            self._loop.add_writer(self._fd, self._writable)
            self._writing = True

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
            self._outbox.sent(info.mid, message)
        if topic == self.topics.status and self._barrier_waiting:  # its PUBACK releases them
            self._barrier_mids[info.mid] = self._barrier_waiting
            self._barrier_waiting = []

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

    def _on_publish(self, client: mqtt.Client, _userdata: Any, mid: int,
                    _reason_code: ReasonCode, _properties: Properties) -> None:
        if client is self._client:
            self._outbox.acked(mid)
            self._progress.set()
            released = self._barrier_mids.pop(mid, None)
            if released is not None:
                # After this read's commands are handled (`_readable` hands them on after
                # paho's read returns): a command that came before the ack must come first.
                self._loop.call_soon(self._release_barriers, released)

    def _on_message(self, client: mqtt.Client, _userdata: Any, message: mqtt.MQTTMessage) -> None:
        # Handled once paho's read returns: the console's answer is then written at once,
        # not queued behind paho's callback lock.
        if client is self._client and message.topic == self.topics.command:
            # A retained command is one the broker stored and replays at every (re)subscription:
            # executing it would, say, wipe the scores with a stale new_game at each reconnect.
            self._commands.append((bytes(message.payload), bool(message.retain), message.topic))
        elif client is self._client and message.topic.startswith(self.topics.do + "/"):
            command = plain_command(message.topic.removeprefix(self.topics.do + "/"), bytes(message.payload))
            self._commands.append((command, bool(message.retain), message.topic))
        elif client is self._client and message.topic == self.topics.jury:
            self._commands.append((bytes(message.payload), bool(message.retain), message.topic))

    def _on_socket_close(self, client: mqtt.Client, _userdata: Any, _sock: mqtt.SocketLike) -> None:
        if client is self._client:
            self._unwatch()

    def _lose(self, reason: str) -> None:
        if self._lost is None:
            self._lost = reason
        self._ready = False
        # Nothing more comes on this connection: whoever waits for the broker waits no more.
        waiting = [cb for cbs in self._barrier_mids.values() for cb in cbs] + self._barrier_waiting
        self._barrier_mids, self._barrier_waiting = {}, []
        self._release_barriers(waiting)
        self._lost_event.set()
        self._progress.set()

    # ------------------------------------------------------------------ the socket

    def _watch(self, client: mqtt.Client) -> None:
        """Drive `client` from the event loop: read when its socket is readable."""
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_subscribe = self._on_subscribe
        client.on_publish = self._on_publish
        client.on_message = self._on_message
        client.on_socket_close = self._on_socket_close
        sock = client.socket()
        if sock is None:
            raise LinkLost("the connection closed as it opened")
        self._client = client
        self._fd = sock.fileno()
        self._loop.add_reader(self._fd, self._readable)
        self._pump()  # a CONNECT paho could not write whole

    def _unwatch(self) -> None:
        if self._fd >= 0:
            self._loop.remove_reader(self._fd)
            if self._writing:
                self._loop.remove_writer(self._fd)
        self._fd = -1
        self._writing = False

    def _readable(self) -> None:
        client = self._client
        if client is None:
            return
        try:
            rc = client.loop_read()
            # TLS: what the SSL object has buffered already, the socket will not signal.
            while rc == OK and client is self._client and _ssl_pending(client):
                rc = client.loop_read()
        except Exception as exc:  # raised in a callback, or by the socket: the link is in doubt
            self._lose(f"reading from the broker failed: {exc!r}")
            rc = OK
        if rc != OK:
            self._lose(f"reading from the broker failed: {mqtt.error_string(rc)}")
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

    def _writable(self) -> None:
        client = self._client
        if client is None:
            return
        try:
            rc = client.loop_write()
        except Exception as exc:
            self._lose(f"writing to the broker failed: {exc!r}")
            rc = OK
        if rc != OK:
            self._lose(f"writing to the broker failed: {mqtt.error_string(rc)}")
        if self._writing and not client.want_write():
            self._loop.remove_writer(self._fd)
            self._writing = False

    # ------------------------------------------------------------------ the connection

    async def run(self) -> None:
        """Connect, publish, and receive commands forever; reconnect when the broker goes away."""
        self._loop = asyncio.get_running_loop()
        while True:
            try:
                await self._session()
            except ssl.SSLCertVerificationError as refused:  # before OSError: it is one
                log.error("mqtt: the broker at %s:%s failed TLS verification: %s (is mqtt.ca_file "
                          "the CA that signed its certificate, for this host name? docs/broker.md); "
                          "retrying", self._host, self._port, refused.verify_message or refused)
            except ssl.SSLError as failed:
                log.error("mqtt: TLS with the broker at %s:%s failed (%s); retrying",
                          self._host, self._port, failed)
            except (LinkLost, OSError) as lost:  # OSError: the TCP connect or the name lookup
                if self.connected:
                    log.warning("mqtt: lost the broker at %s:%s (%s); reconnecting",
                                self._host, self._port, lost)
                    self._retries, self._retry_said = 0, None
                else:
                    self._say_unreachable(lost)
            except ValueError as bad:
                # A host name the resolver rejects (UnicodeError is one: an empty or over-long
                # label): the broker is not the game, so the buttons and the referee go on.
                # Anything else is a bug, and stops the console (it resumes from the journal).
                log.error("mqtt: cannot connect to %s:%s (%s); retrying", self._host, self._port, bad)
            self.connected = False
            await asyncio.sleep(self._reconnect_interval)

    def _say_unreachable(self, why: object) -> None:
        """The broker still cannot be reached: said once, then once a minute with the count of
        tries (a broker away for the evening must not fill the log), each try at debug."""
        self._retries += 1
        now = self._loop.time()
        if self._retry_said is None or now - self._retry_said >= RETRY_SAID_EVERY_S:
            more = f", {self._retries} tries so far" if self._retries > 1 else ""
            log.warning("mqtt: cannot reach the broker at %s:%s (%s); retrying every %g s%s",
                        self._host, self._port, why, self._reconnect_interval, more)
            self._retry_said = now
        else:
            log.debug("mqtt: cannot reach the broker at %s:%s (%s)", self._host, self._port, why)

    async def _session(self) -> None:
        client = mqtt.Client(CallbackAPIVersion.VERSION2, reconnect_on_failure=False)
        if self._username is not None:
            client.username_pw_set(self._username, self._password)
        client.will_set(self.topics.status, encode({"state": "offline"}), RETAINED_QOS, retain=True)
        client.max_inflight_messages_set(0)  # the link keeps its own bound (MAX_INFLIGHT)
        client.on_socket_open = _no_delay
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
        if self._retries:
            log.info("mqtt: reached the broker at %s:%s after %d tries", self._host, self._port,
                     self._retries)
        self._retries, self._retry_said = 0, None
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
            except TimeoutError:
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
        self._client = None
        self._unwatch()
        self._outbox.lost()  # its unacknowledged events first next time
        if connecting.done():
            _close(client, connecting)
        else:
            connecting.add_done_callback(lambda done: _close(client, done))


def _no_delay(_client: mqtt.Client, _userdata: Any, sock: mqtt.SocketLike) -> None:
    """paho's on_socket_open: Nagle off before the CONNECT goes (paho sets no option itself)."""
    if isinstance(sock, socket.socket):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def _ssl_pending(client: mqtt.Client) -> int:
    """Bytes the connection's SSL object holds already decrypted (0 without TLS)."""
    sock = client.socket()
    return sock.pending() if isinstance(sock, ssl.SSLSocket) else 0


def _close(client: mqtt.Client, connecting: asyncio.Future[MQTTErrorCode]) -> None:
    """Close a connection the link is done with, at once. With no network thread, paho's
    `disconnect()` writes DISCONNECT and closes the socket within the call; a socket that
    cannot take even that is closed as it is."""
    if connecting.cancelled() or connecting.exception() is not None:
        return  # no connection was made (and the failure is seen, not left unretrieved)
    if client.socket() is None:
        return
    client.disconnect()
    sock = client.socket()
    if sock is not None:
        sock.close()
