"""A phone as a button (issue 35): its clock mapped onto the console's, and its presses judged.

Pure (no I/O, no clock reads), as `clock_sync.ClockModel` is for the wired box; the phone
source feeds it what the page sends (../shared/notes/phones.md):

* **The offset.** The console stamps ``sent_ns`` right before sending a sync request; the page
  answers with its own times (``performance.now()`` ms) when the request arrived
  (``phone_rx_ms``) and when it answered (``phone_tx_ms``); the console stamps
  ``received_ns`` as it reads the answer. NTP's four-timestamp exchange (RFC 5905 §8):
  ``offset = ((t1 − t0) + (t2 − t3)) / 2`` and ``delay = (t3 − t0) − (t2 − t1)``; the offset's
  error is at most half the delay. Of the last `SAMPLES` exchanges the least delayed one is
  used (the clock filter): over Wi-Fi most round trips carry a late hop, the least delayed is
  the nearest to the truth.
* **The granularity.** Browsers round ``Event.timeStamp`` (Firefox to 2 ms, or 100 ms with
  fingerprinting resistance); it is found from the stamps themselves: the coarsest of 100, 2,
  1, 0.1 and 0.005 ms that every stamp seen is a multiple of.
* **A press's uncertainty**: the offset's error, the granularity, and the declared allowance
  for the phone's touch pipeline (10-30 ms between devices, `TOUCH_ALLOWANCE_MS`), which no
  algorithm removes.
* **Heartbeats as watermarks.** While armed, the page says every 50-100 ms "not pressed as of
  my time t". A press claimed at or before a "not pressed" the phone already sent is refused
  (the page contradicts itself: a forged stamp); a press claimed later than it could have
  been (its receipt minus the least one-way delay measured) is clamped to that. So a forged
  page that back-dates its presses gains at most the time since its last heartbeat (one
  interval) plus the offset's error (half the least round trip): `forgery_bound_ns`.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

__all__ = ["TOUCH_ALLOWANCE_MS", "PhoneClock", "PhonePress"]

NS_PER_MS = 1_000_000
SAMPLES = 32  # the exchanges the least delayed is chosen from (a few seconds' worth)
# Coarsest first: what browsers round Event.timeStamp to (Firefox 100 or 2 ms, a plain page
# 0.1 ms, a cross-origin isolated one 5 µs).
GRANULARITIES_MS = (100.0, 2.0, 1.0, 0.1, 0.005)
TOUCH_ALLOWANCE_MS = 20.0  # ± half the 10-30 ms spread of touch pipelines (Google WALT)


@dataclass(frozen=True, slots=True)
class Exchange:
    """One sync round trip: console ns and phone ms."""

    sent_ns: int
    phone_rx_ms: float
    phone_tx_ms: float
    received_ns: int

    @property
    def delay_ns(self) -> int:
        return (self.received_ns - self.sent_ns) - round((self.phone_tx_ms - self.phone_rx_ms) * NS_PER_MS)

    @property
    def offset_ns(self) -> int:
        """Console time minus phone time, in ns (console ns = phone ms × 10⁶ + offset)."""
        return round(((self.sent_ns - self.phone_rx_ms * NS_PER_MS)
                      + (self.received_ns - self.phone_tx_ms * NS_PER_MS)) / 2)


@dataclass(frozen=True, slots=True)
class PhonePress:
    """A press mapped onto the console's clock: `at_ns` (None: refused, `refused` says why),
    ± `uncertainty_ns`; `clamped`: the page claimed it later than it could have happened."""

    at_ns: int | None
    uncertainty_ns: int
    clamped: bool = False
    refused: str | None = None


class PhoneClock:
    """One phone's clock and watermarks; see the module docstring."""

    def __init__(self, *, touch_allowance_ms: float = TOUCH_ALLOWANCE_MS) -> None:
        self._exchanges: deque[Exchange] = deque(maxlen=SAMPLES)
        self._best: Exchange | None = None  # the least delayed of them: found once per exchange
        self._stamps_seen = 0
        self._granularity_ms = GRANULARITIES_MS[0]
        self._touch_ns = round(touch_allowance_ms * NS_PER_MS)
        self._not_pressed_ms: float | None = None  # the latest "not pressed as of" the phone sent
        self._least_one_way_ns: int | None = None

    # ------------------------------------------------------------------ what the page sends

    def exchange(self, sent_ns: int, phone_rx_ms: float, phone_tx_ms: float, received_ns: int) -> bool:
        """A sync round trip; False (and not used) for one that cannot be true: an answer
        before its request, or the phone answering before it received."""
        ex = Exchange(sent_ns, phone_rx_ms, phone_tx_ms, received_ns)
        if received_ns < sent_ns or phone_tx_ms < phone_rx_ms or ex.delay_ns < 0:
            return False
        self._exchanges.append(ex)
        self._best = min(self._exchanges, key=lambda kept: kept.delay_ns)
        one_way = ex.delay_ns // 2
        if self._least_one_way_ns is None or one_way < self._least_one_way_ns:
            self._least_one_way_ns = one_way
        self._observe(phone_rx_ms)
        self._observe(phone_tx_ms)
        return True

    def heartbeat(self, phone_ms: float) -> None:
        """"Not pressed as of `phone_ms`" (the page's time): a watermark."""
        self._observe(phone_ms)
        if self._not_pressed_ms is None or phone_ms > self._not_pressed_ms:
            self._not_pressed_ms = phone_ms

    def press(self, phone_ms: float, received_ns: int) -> PhonePress:
        """A press the page stamped `phone_ms` (its event's timeStamp), read at `received_ns`."""
        best = self.best()
        if best is None:
            return PhonePress(None, 0, refused="телефон ещё не сверил часы с пультом")
        if self._not_pressed_ms is not None and phone_ms <= self._not_pressed_ms:
            return PhonePress(None, 0, refused="нажатие раньше, чем телефон сам сообщил «не нажато»")
        self._observe(phone_ms)
        at = round(phone_ms * NS_PER_MS) + best.offset_ns
        latest = received_ns - (self._least_one_way_ns or 0)
        clamped = at > latest
        return PhonePress(min(at, latest), self.uncertainty_ns(), clamped=clamped)

    # ------------------------------------------------------------------ what the host sees

    def best(self) -> Exchange | None:
        """The least delayed of the recent exchanges (None before the first)."""
        return self._best

    def to_console_ns(self, phone_ms: float) -> int | None:
        best = self.best()
        return None if best is None else round(phone_ms * NS_PER_MS) + best.offset_ns

    @property
    def granularity_ms(self) -> float:
        """The coarsest rounding every stamp seen fits (1 ms until a stamp is seen)."""
        return self._granularity_ms if self._stamps_seen else 1.0

    def offset_error_ns(self) -> int | None:
        best = self.best()
        return None if best is None else best.delay_ns // 2

    def uncertainty_ns(self) -> int:
        """± around a press's mapped time: the offset's error, the granularity, the touch."""
        return (self.offset_error_ns() or 0) + round(self.granularity_ms * NS_PER_MS) + self._touch_ns

    def round_trips_ns(self) -> list[int]:
        return [ex.delay_ns for ex in self._exchanges]

    def forgery_bound_ns(self, heartbeat_ns: int) -> int:
        """What a page forging its stamps can gain at most, heartbeats every `heartbeat_ns`."""
        return heartbeat_ns + (self.offset_error_ns() or 0)

    def _observe(self, phone_ms: float) -> None:
        """Narrow the granularity to the coarsest rounding this stamp still fits."""
        self._stamps_seen += 1
        while self._granularity_ms > GRANULARITIES_MS[-1] and not _multiple(phone_ms, self._granularity_ms):
            self._granularity_ms = next(g for g in GRANULARITIES_MS if g < self._granularity_ms)


def _multiple(value_ms: float, of_ms: float) -> bool:
    return abs(value_ms / of_ms - round(value_ms / of_ms)) < 1e-6
