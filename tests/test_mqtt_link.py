"""The MQTT link's life on its own: it stops when its task is cancelled, whatever it is
waiting on, and it gives up a connection the broker never answers without leaving it open.

Python 3.11's asyncio.wait_for swallows a cancellation that arrives in the same loop iteration
as the awaited answer (CPython gh-86296); aiomqtt bounds its waits with it, so a console stopped
just as the broker acknowledged something used to run on forever (the daemon ignored SIGTERM).
(A broker that goes away and comes back is in test_console_mqtt.py: the game goes on.)
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path

import aiomqtt

from console.shell.mqtt_link import MqttLink, Topics, encode
from tests.conftest import Broker, start_mosquitto, until


async def stop(task: asyncio.Task[None]) -> bool:
    """Cancel `task`; True if it stopped within 3 s (if not, it is cancelled once more)."""
    task.cancel()
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
    link stops each time (the attempt is given up through aiomqtt's public calls)."""
    broker, port = start_mosquitto(tmp_path)
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
    finally:
        # A TCP connect the stop came in the middle of finishes in aiomqtt's thread, and that
        # connection stays (mqtt_link._give_up): it ends with the broker, while this loop runs.
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
        # The first attempt may open what lasts (the executor aiomqtt connects in): from the
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


async def test_a_stop_that_comes_as_the_broker_is_lost_still_stops(mosquitto: Broker) -> None:
    """The machine shutting down stops the broker and the console together: the link fails
    in the same loop iteration as it is cancelled. On 3.11 its TaskGroup then keeps only the
    error; the link must stop all the same, not go back to reconnecting."""
    link = MqttLink(mosquitto.host, mosquitto.port, Topics("chgk", "t1"),
                    on_command=lambda _payload: None, reconnect_interval=0.05)
    broker_lost = asyncio.Event()

    async def receive_until_the_broker_is_lost(_client: aiomqtt.Client) -> None:
        await broker_lost.wait()
        raise aiomqtt.MqttError("Disconnected during message iteration")

    link._receive = receive_until_the_broker_is_lost  # type: ignore[method-assign,assignment]
    task = asyncio.create_task(link.run())
    await until(lambda: link.connected)
    broker_lost.set()
    assert await stop(task)  # in the same iteration as the failure
    assert task.cancelled()


async def test_an_event_the_broker_never_acknowledges_is_sent_again_on_the_next_connection() -> None:
    """A broker that takes a PUBLISH and never answers it (hung, or the link half-dead): the
    wait for the PUBACK is bounded, the connection is given up, and the event, which the
    console still holds, goes out again on the next one (docs/mqtt.md: a display may see an
    event twice, never miss one). A minimal MQTT 3.1.1 broker: the first connection never
    acknowledges a PUBLISH, later ones do."""
    received: list[list[bytes]] = []  # the PUBLISH payloads of each connection

    async def packets(reader: asyncio.StreamReader) -> AsyncIterator[tuple[int, bytes]]:
        while header := await reader.read(1):
            length, shift = 0, 0
            while True:  # the remaining length: 7 bits a byte, low bits first
                byte = (await reader.readexactly(1))[0]
                length |= (byte & 0x7F) << shift
                shift += 7
                if not byte & 0x80:
                    break
            yield header[0], await reader.readexactly(length)

    async def broker(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connection = len(received)
        received.append([])
        try:
            async for kind, body in packets(reader):
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
