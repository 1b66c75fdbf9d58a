"""The MQTT link's life on its own: it stops when its task is cancelled, whatever it is
waiting on, it gives up a connection the broker never answers without leaving it open, and an
event leaves inside the call that publishes it.

The link drives paho-mqtt's public external-loop API from the event loop; every wait on the
broker is bounded with asyncio.timeout (Python 3.11's asyncio.wait_for swallows a cancellation
that arrives in the same loop iteration as the awaited answer, CPython gh-86296: a console
stopped just then would run on forever). (A broker that goes away and comes back is in
test_console_mqtt.py: the game goes on.)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import aiomqtt
import pytest

from console.shell.mqtt_link import QUEUE_LIMIT, MqttLink
from console.shell.mqtt_wire import Topics, encode
from tests.conftest import Broker, start_mosquitto, until


async def stop(task: asyncio.Task[None]) -> bool:
    """Cancel `task`; True if it stopped within 3 s (if not, it is cancelled once more)."""
    task.cancel()
    return await stopped(task)


async def stopped(task: asyncio.Task[None]) -> bool:
    """True if `task`, cancelled already, stops within 3 s (if not, it is cancelled again)."""
    try:
        async with asyncio.timeout(3):
            await asyncio.shield(task)
    except asyncio.CancelledError:
        pass
    except TimeoutError:
        task.cancel()
        return False
    return True


async def test_the_link_stops_when_cancelled_at_any_moment_after_connecting(mosquitto: Broker) -> None:
    still_running = []
    for step in range(60):
        connected = asyncio.Event()
        link = MqttLink(mosquitto.host, mosquitto.port, Topics("chgk", "t1"),
                        on_command=lambda _payload: None, on_connected=connected.set)
        task = asyncio.create_task(link.run())
        async with asyncio.timeout(5):
            await connected.wait()
        # Acknowledged publishes in flight, as right after a console connects; the cancellation
        # lands at a different moment among the broker's answers each time.
        for n in range(3):
            link.publish_retained(link.topics.state, {"n": n})
        for _ in range(step % 12):
            await asyncio.sleep(0)
        if not await stop(task):
            still_running.append(step)
    assert still_running == []


async def test_the_link_stops_when_cancelled_at_any_moment_while_connecting(tmp_path: Path) -> None:
    """Stopped during its TCP connect, while waiting for the CONNACK, or as it comes: the
    link stops each time, and no connection is left open, not even one whose TCP connect was
    still running in the executor when the stop came (it is closed once the connect returns)."""
    broker, port = start_mosquitto(tmp_path)
    before = open_fds()
    try:
        still_running = []
        for step in range(60):
            link = MqttLink("127.0.0.1", port, Topics("chgk", "t1"),
                            on_command=lambda _payload: None)
            task = asyncio.create_task(link.run())
            for _ in range(step):  # connecting to mosquitto on loopback: ~40 loop iterations
                await asyncio.sleep(0)
            if not await stop(task):
                still_running.append(step)
        assert still_running == []
        await until(lambda: open_fds() <= before, within=5)
    finally:
        broker.terminate()
        broker.wait(timeout=5)
        await asyncio.sleep(0.1)


def open_fds() -> int:
    """How many file descriptors this process has open (Linux)."""
    return len(os.listdir("/proc/self/fd"))


class SilentBroker:
    """A broker that accepts connections but never sends CONNACK (hung, or a dead host behind
    a proxy), on loopback. Both ends of every connection are in this process, so an attempt
    the console leaves open shows twice: in the connections held here, and as two more file
    descriptors of this process (paho would close it only at its keepalive, a minute on)."""

    def __init__(self) -> None:
        self.fds_at_attempt: list[int] = []  # this process's, as each attempt reaches it
        self.open_now = 0
        self.waiting_for_connack = 0  # open connections whose CONNECT has come

    async def start(self) -> int:
        self.server = await asyncio.start_server(self.serve, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.fds_at_attempt.append(open_fds())
        self.open_now += 1
        heard = False
        try:
            if await reader.read(1024):  # the CONNECT: never answered
                heard = True
                self.waiting_for_connack += 1
            while await reader.read(1024):
                pass
        finally:
            self.open_now -= 1  # the console closed its side
            self.waiting_for_connack -= heard
            writer.close()


async def test_retries_against_a_broker_that_never_answers_leave_no_connection_open() -> None:
    """Each attempt is given up in time and its socket closed, so the retries of a long
    evening cannot run the console out of file descriptors."""
    broker = SilentBroker()
    port = await broker.start()
    link = MqttLink("127.0.0.1", port, Topics("chgk", "t1"), on_command=lambda _payload: None,
                    reconnect_interval=0.05, broker_timeout=0.2)
    task = asyncio.create_task(link.run())
    try:
        await until(lambda: len(broker.fds_at_attempt) >= 8, within=20)
        assert not link.connected
        # The first attempt may open what lasts (the executor the link connects in): from the
        # second on, not one descriptor more.
        assert broker.fds_at_attempt[-1] <= broker.fds_at_attempt[1], broker.fds_at_attempt
        assert broker.open_now <= 1  # only the attempt in progress
    finally:
        assert await stop(task)
        broker.server.close()


async def test_a_link_stopped_while_waiting_for_the_connack_stops_at_once_and_closes_it() -> None:
    """The console stopped while the broker keeps it waiting for the CONNACK: it stops at
    once, not when the broker bound (10 s) runs out, and leaves that connection closed."""
    broker = SilentBroker()
    port = await broker.start()
    before = open_fds()
    link = MqttLink("127.0.0.1", port, Topics("chgk", "t1"), on_command=lambda _payload: None)
    task = asyncio.create_task(link.run())
    try:
        await until(lambda: broker.waiting_for_connack == 1)
        started = asyncio.get_running_loop().time()
        assert await stop(task)
        assert asyncio.get_running_loop().time() - started < 0.5
        await until(lambda: broker.open_now == 0, within=2)
        await asyncio.sleep(0.05)  # the broker's side closes a loop iteration later
        assert open_fds() <= before
    finally:
        task.cancel()
        broker.server.close()


async def test_a_message_paho_refuses_is_dropped_and_the_link_stays_up(mosquitto: Broker) -> None:
    """paho refuses some messages outright with ValueError (over MQTT's size limit, a wildcard
    in the topic): that message is dropped with a log line, the link and the rest go on."""
    connected = asyncio.Event()
    link = MqttLink(mosquitto.host, mosquitto.port, Topics("chgk", "t1"),
                    on_command=lambda _payload: None, on_connected=connected.set)
    task = asyncio.create_task(link.run())
    try:
        async with aiomqtt.Client(mosquitto.host, mosquitto.port) as watcher:
            await watcher.subscribe("chgk/t1/events", qos=1)
            async with asyncio.timeout(5):
                await connected.wait()
            link.publish_event({"type": "refused"}, topic="chgk/t1/bad/#")  # paho: ValueError
            link.publish_event({"type": "after"}, topic="chgk/t1/events")
            async with asyncio.timeout(5):
                message = await anext(aiter(watcher.messages))
            assert isinstance(message.payload, bytes)
            assert json.loads(message.payload) == {"type": "after"}
            assert link.connected and not task.done()
    finally:
        assert await stop(task)


async def mqtt_packets(reader: asyncio.StreamReader) -> AsyncIterator[tuple[int, bytes]]:
    """The MQTT packets a client sends: (first byte, body)."""
    while header := await reader.read(1):
        length, shift = 0, 0
        while True:  # the remaining length: 7 bits a byte, low bits first
            byte = (await reader.readexactly(1))[0]
            length |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        yield header[0], await reader.readexactly(length)


def answer(kind: int, body: bytes) -> bytes:
    """A minimal MQTT 3.1.1 broker's answer to a client's packet (b"" for none)."""
    if kind == 0x10:  # CONNECT
        return b"\x20\x02\x00\x00"
    if kind == 0x82:  # SUBSCRIBE: granted QoS 1
        return b"\x90\x03" + body[:2] + b"\x01"
    if kind >> 4 == 3 and (kind >> 1) & 3:  # PUBLISH at QoS 1: PUBACK its packet id
        topic_end = 2 + int.from_bytes(body[:2], "big")
        return b"\x40\x02" + body[topic_end:topic_end + 2]
    if kind == 0xC0:  # PINGREQ
        return b"\xd0\x00"
    return b""


async def test_a_stop_that_comes_as_the_broker_is_lost_still_stops() -> None:
    """The machine shutting down stops the broker and the console together: the connection
    drops a few loop iterations before the stop, in the same one, or while the link is saying
    "offline". The link stops each time and never goes back to reconnecting."""
    connections: list[asyncio.StreamWriter] = []

    async def broker(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(writer)
        try:
            async for kind, body in mqtt_packets(reader):
                writer.write(answer(kind, body))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(broker, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    still_running = []
    try:
        for offset in range(-4, 8):  # < 0: the stop first, the broker lost -offset turns later
            connected = asyncio.Event()
            link = MqttLink("127.0.0.1", port, Topics("chgk", "t1"),
                            on_command=lambda _payload: None, on_connected=connected.set,
                            reconnect_interval=0.01)
            task = asyncio.create_task(link.run())
            async with asyncio.timeout(5):
                await connected.wait()
            if offset < 0:
                task.cancel()
            for _ in range(abs(offset)):
                await asyncio.sleep(0)
            connections[-1].close()
            if offset >= 0:
                task.cancel()
            if not await stopped(task) or not task.cancelled():
                still_running.append(offset)
        assert still_running == []
    finally:
        server.close()


async def test_an_event_the_broker_never_acknowledges_is_sent_again_on_the_next_connection() -> None:
    """A broker that takes a PUBLISH and never answers it (hung, or the link half-dead): the
    wait for the PUBACK is bounded, the connection is given up, and the event, which the
    console still holds, goes out again on the next one (docs/mqtt.md: a display may see an
    event twice, never miss one). A minimal MQTT 3.1.1 broker: the first connection never
    acknowledges a PUBLISH, later ones do."""
    received: list[list[bytes]] = []  # the PUBLISH payloads of each connection

    async def broker(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connection = len(received)
        received.append([])
        try:
            async for kind, body in mqtt_packets(reader):
                if kind == 0x10:  # CONNECT
                    writer.write(b"\x20\x02\x00\x00")
                elif kind == 0x82:  # SUBSCRIBE: granted QoS 1
                    writer.write(b"\x90\x03" + body[:2] + b"\x01")
                elif kind >> 4 == 3:  # PUBLISH, QoS 1: topic, packet id, payload
                    topic_end = 2 + int.from_bytes(body[:2], "big")
                    received[connection].append(body[topic_end + 2:])
                    if connection > 0:
                        writer.write(b"\x40\x02" + body[topic_end:topic_end + 2])
                elif kind == 0xC0:  # PINGREQ
                    writer.write(b"\xd0\x00")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(broker, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    link = MqttLink("127.0.0.1", port, Topics("chgk", "t1"), on_command=lambda _payload: None,
                    reconnect_interval=0.05, broker_timeout=0.3)
    event = {"type": "signal_accepted", "seq": 1}
    link.publish_event(event)
    task = asyncio.create_task(link.run())
    try:
        await until(lambda: len(received) >= 2 and encode(event) in received[1], within=10)
        assert received[0][0] == encode(event)  # sent once, never acknowledged
        assert received[1][0] == encode(event)  # first again, before anything newer
    finally:
        assert await stop(task)
        server.close()


class ThreadBroker:
    """A minimal MQTT 3.1.1 broker in a thread of its own, on loopback, for one connection:
    it answers as `answer()` says and sets `arrived` when a PUBLISH carrying `wanted` comes.
    Being in a thread, it receives while the test's event loop is blocked."""

    def __init__(self, wanted: bytes) -> None:
        self.wanted = wanted
        self.arrived = threading.Event()
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.server.getsockname()[1])
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        conn, _ = self.server.accept()
        with conn, conn.makefile("rb") as stream:
            while header := stream.read(1):
                length, shift = 0, 0
                while True:
                    byte = stream.read(1)[0]
                    length |= (byte & 0x7F) << shift
                    shift += 7
                    if not byte & 0x80:
                        break
                kind, body = header[0], stream.read(length)
                conn.sendall(answer(kind, body))
                if kind >> 4 == 3:
                    topic_end = 2 + int.from_bytes(body[:2], "big")
                    if body[topic_end + (2 if (kind >> 1) & 3 else 0):] == self.wanted:
                        self.arrived.set()

    def close(self) -> None:
        self.server.close()
        self.thread.join(timeout=5)


async def test_an_event_leaves_inside_the_call_that_publishes_it() -> None:
    """No task hop, no loop turn: when publish_event returns, the event's PUBLISH has been
    written (a press's event leaves in the press's own callback; docs/performance.md). The
    broker runs in a thread and the event loop is blocked while the test waits for it, so only
    bytes written within the call can reach it; the status published on connecting may still
    be waiting for its PUBACK meanwhile."""
    event = {"type": "signal_accepted", "seq": 7}
    broker = ThreadBroker(encode(event))
    connected = asyncio.Event()
    link = MqttLink("127.0.0.1", broker.port, Topics("chgk", "t1"),
                    on_command=lambda _payload: None, on_connected=connected.set)
    task = asyncio.create_task(link.run())
    try:
        async with asyncio.timeout(5):
            await connected.wait()
        link.publish_event(event)
        assert broker.arrived.wait(timeout=2)  # blocks the loop: nothing else can send it
    finally:
        assert await stop(task)
        broker.close()


async def test_a_host_the_resolver_rejects_is_retried_not_fatal() -> None:
    """`getaddrinfo` raises UnicodeError (not OSError) for "broker..lan": the link must keep
    retrying like for any lost broker, never end the daemon (and the buttons with it)."""
    link = MqttLink("broker..lan", 1883, Topics("chgk", "t1"), on_command=lambda _payload: None,
                    reconnect_interval=0.02)
    task = asyncio.create_task(link.run())
    await asyncio.sleep(0.3)  # several attempts
    assert not task.done(), task.exception() if task.done() else None
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


@contextlib.asynccontextmanager
async def gate(to: Broker) -> AsyncIterator[tuple[int, asyncio.Event]]:
    """A TCP port in front of the broker that drops every connection until the event is set,
    then forwards to `to`: the broker away, then back, for a link that keeps retrying."""
    open_ = asyncio.Event()

    async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError):
            while data := await src.read(65536):
                dst.write(data)
                await dst.drain()
        dst.close()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if not open_.is_set():
            writer.close()
            return
        up_reader, up_writer = await asyncio.open_connection(to.host, to.port)
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1], open_
    finally:
        server.close()


async def test_decisions_are_never_pushed_out_by_the_live_angle_while_the_broker_is_away(
        mosquitto: Broker) -> None:
    """Issue 10: the live angle (QoS 0, up to 20 a second) waits newest-only, beside the events,
    so 10 000 samples while the broker is away leave every decision in the queue; once the
    broker is back each one arrives, in order (the old shared queue of 5000 lost the first)."""
    topics = Topics("chgk", "t1")
    async with gate(mosquitto) as (port, broker_back), \
            aiomqtt.Client(mosquitto.host, mosquitto.port) as watcher:
        await watcher.subscribe("chgk/t1/#", qos=1)
        link = MqttLink("127.0.0.1", port, topics, on_command=lambda _payload: None,
                        reconnect_interval=0.05)
        task = asyncio.create_task(link.run())
        try:
            await asyncio.sleep(0.1)  # a few refused connections
            for i in range(10_000):
                link.publish_event({"type": "spin_angle", "i": i}, topic=topics.angle)
                if i % 1000 == 0:
                    link.publish_event({"type": "answer_judged", "n": i // 1000})
            assert link.queued_events == 10 and not link.connected
            broker_back.set()
            decisions: list[int] = []
            angles: list[int] = []
            async with asyncio.timeout(10):
                async for message in watcher.messages:
                    assert isinstance(message.payload, bytes)
                    payload = json.loads(message.payload)
                    if message.topic.matches(topics.angle):
                        angles.append(payload["i"])
                    elif message.topic.matches(topics.events):
                        decisions.append(payload["n"])
                    if len(decisions) == 10 and angles:
                        break
            assert decisions == list(range(10))
            assert angles == [9_999]  # only the newest sample waited
        finally:
            assert await stop(task)


def test_an_events_queue_over_its_limit_is_said_loudly_and_nothing_is_dropped(
        caplog: pytest.LogCaptureFixture) -> None:
    link = MqttLink("127.0.0.1", 1, Topics("chgk", "t1"), on_command=lambda _payload: None)
    for n in range(QUEUE_LIMIT + 100):
        link.publish_event({"type": "answer_judged", "n": n})
    assert link.queued_events == QUEUE_LIMIT + 100
    errors = [r for r in caplog.records if r.levelname == "ERROR"]
    assert len(errors) == 1 and "none is dropped" in errors[0].getMessage()


async def test_a_broker_away_for_long_is_said_once_then_once_a_minute(
        mosquitto: Broker, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 19: an unreachable broker was a WARNING a second for the whole evening. It is said
    at the first failure, then (here the minute shortened) with the count of tries; being
    reached again is said once too."""
    import console.shell.broker_retries as broker_retries

    caplog.set_level("INFO", logger="chgk.mqtt")
    async with gate(mosquitto) as (port, open_):
        reached = asyncio.Event()
        link = MqttLink("127.0.0.1", port, Topics("chgk", "t1"), on_command=lambda _payload: None,
                        on_connected=reached.set, reconnect_interval=0.02)
        monkeypatch.setattr(broker_retries, "RETRY_SAID_EVERY_S", 0.25)
        task = asyncio.create_task(link.run())
        try:
            await asyncio.sleep(0.6)  # dozens of tries
            said = [r.getMessage() for r in caplog.records if "cannot reach" in r.getMessage()
                    and r.levelname == "WARNING"]
            assert 2 <= len(said) <= 4, said
            assert said[0].endswith("retrying every 0.02 s") and "tries so far" in said[-1]
            open_.set()
            await asyncio.wait_for(reached.wait(), 5)
            assert any("reached the broker" in r.getMessage() for r in caplog.records)
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
