"""What the MQTT link says of a broker it cannot reach, lost, or reaches again: said, not flooded.

Contract: `BrokerRetries(host, port, interval_s)`; `failed(exc, connected, now)` logs one failed
try or lost connection (`exc`: the session's LinkLost, OSError, SSL error or a host name the
resolver rejects; `connected`: the link was up; `now`: the loop's time): a certificate that
fails verification or a TLS failure is an error naming the problem, a lost connection a
warning, an unreachable broker a warning once and then once every RETRY_SAID_EVERY_S with the
count of tries (a broker away for the evening must not fill the log), each try at debug.
`reached()` says the broker is reached again after failed tries.
"""

from __future__ import annotations

import logging
import ssl

__all__ = ["RETRY_SAID_EVERY_S", "BrokerRetries"]

log = logging.getLogger("chgk.mqtt")

RETRY_SAID_EVERY_S = 60.0  # a broker that cannot be reached is said again this often


class BrokerRetries:
    """See the module docstring."""

    def __init__(self, host: str, port: int, interval_s: float) -> None:
        self._where = f"{host}:{port}"
        self._interval_s = interval_s
        self.tries = 0  # tries since the broker was last reached
        self._said: float | None = None  # when that was last said (loop time)

    def failed(self, exc: Exception, *, connected: bool, now: float) -> None:
        if isinstance(exc, ssl.SSLCertVerificationError):  # before OSError: it is one
            log.error("mqtt: the broker at %s failed TLS verification: %s (is mqtt.ca_file the CA "
                      "that signed its certificate, for this host name? docs/broker.md); retrying",
                      self._where, exc.verify_message or exc)
        elif isinstance(exc, ssl.SSLError):
            log.error("mqtt: TLS with the broker at %s failed (%s); retrying", self._where, exc)
        elif isinstance(exc, ValueError):
            # A host name the resolver rejects (UnicodeError is one: an empty or over-long
            # label): the broker is not the game, so the buttons and the referee go on.
            log.error("mqtt: cannot connect to %s (%s); retrying", self._where, exc)
        elif connected:
            log.warning("mqtt: lost the broker at %s (%s); reconnecting", self._where, exc)
            self.tries, self._said = 0, None
        else:
            self._unreachable(exc, now)

    def reached(self) -> None:
        if self.tries:
            log.info("mqtt: reached the broker at %s after %d tries", self._where, self.tries)
        self.tries, self._said = 0, None

    def _unreachable(self, why: object, now: float) -> None:
        self.tries += 1
        if self._said is None or now - self._said >= RETRY_SAID_EVERY_S:
            more = f", {self.tries} tries so far" if self.tries > 1 else ""
            log.warning("mqtt: cannot reach the broker at %s (%s); retrying every %g s%s",
                        self._where, why, self._interval_s, more)
            self._said = now
        else:
            log.debug("mqtt: cannot reach the broker at %s (%s)", self._where, why)
