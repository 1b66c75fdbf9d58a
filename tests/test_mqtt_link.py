"""The MQTT link stops when its task is cancelled, whatever it is waiting on at that moment.

Python 3.11's asyncio.wait_for swallows a cancellation that arrives in the same loop iteration
as the awaited answer (CPython gh-86296); aiomqtt bounds its waits with it, so a console stopped
just as the broker acknowledged something used to run on forever (the daemon ignored SIGTERM).
"""

from __future__ import annotations

import asyncio

from console.mqtt_link import MqttLink, Topics
from tests.conftest import Broker


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
        task.cancel()
        try:
            async with asyncio.timeout(3):
                await asyncio.shield(task)
        except asyncio.CancelledError:
            pass
        except TimeoutError:
            still_running.append(step)
            task.cancel()
    assert still_running == []
