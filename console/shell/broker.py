"""An embedded MQTT broker on loopback, so the demo needs nothing but Python.

Contract: `EmbeddedBroker(port, ws_port)` listens on 127.0.0.1 only (TCP for the console and
tools, WebSocket for browser displays); `async with` starts and stops it. Production configs
point at mosquitto instead (C, persistence, systemd watchdog); amqtt is fine for one table.
"""

from __future__ import annotations

import logging
from types import TracebackType
from typing import Any

log = logging.getLogger("chgk.broker")


class BrokerUnavailable(Exception):
    """The embedded broker cannot listen (its port is taken, most often by a mosquitto)."""


class EmbeddedBroker:
    def __init__(self, port: int, ws_port: int) -> None:
        self.port, self.ws_port = port, ws_port
        self._broker: Any = None

    async def __aenter__(self) -> EmbeddedBroker:
        from amqtt.broker import Broker  # imported here: only the demo needs it

        # amqtt logs every connection at INFO; the console's own log says what matters.
        for name in ("amqtt", "transitions"):
            logging.getLogger(name).setLevel(logging.WARNING)
        self._broker = Broker(
            {
                "listeners": {
                    "default": {"type": "tcp", "bind": f"127.0.0.1:{self.port}"},
                    "ws": {"type": "ws", "bind": f"127.0.0.1:{self.ws_port}"},
                },
                "plugins": {
                    # Loopback only, so anonymous access reaches nobody beyond this machine.
                    "amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True},
                },
            }
        )
        amqtt_log = logging.getLogger("amqtt")
        amqtt_log.setLevel(logging.CRITICAL)  # a failed start: said below in one line, not its traceback
        try:
            await self._broker.start()
        except Exception as exc:  # amqtt's BrokerError wraps the OSError of a taken port
            raise BrokerUnavailable(f"cannot listen on 127.0.0.1:{self.port} and :{self.ws_port} "
                                    f"({exc})") from exc
        finally:
            amqtt_log.setLevel(logging.WARNING)
        log.info("embedded MQTT broker on 127.0.0.1:%d (WebSocket :%d)", self.port, self.ws_port)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self._broker.shutdown()
