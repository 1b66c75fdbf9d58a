"""Phones as buttons (issue 35): the seats phones take, their clocks, presses and watermarks.

Pure (no I/O, no clock reads: `now` is passed in, console ns), as `McuSession` is for the
wired box; drivers/phone_server.py carries its messages over a WebSocket.

Contract:

* `PhoneSeats(source, seats, code)`: ``seats`` places, pad ``<source>:<k>`` for seat k. A
  connection (`conn`: anything hashable the server picks) says ``hello`` with the evening's
  join ``code`` (and ``want``, the seat it had, to sit there again after the console
  restarted) or with the ``token`` its seat was given; it is answered ``joined`` (its seat,
  pad and token) or ``refused`` (why, in Russian: the page shows it); after `MAX_WRONG_CODES`
  wrong codes within a minute nobody joins by code for a while (said to the host). A token is the seat's
  own: another phone cannot take a seat whose token it lacks, and the seat stays its phone's
  when the page goes away (`closed`), until the host frees it (`leave`). A page is told whose
  button it is (`owner_names`: a player's or team's name) when it joins, and when that
  changes at the next `tell_owners`.
* `receive(conn, message, now)` takes one message (a JSON object) of a phone: ``hello``;
  ``sync`` (the answer to the console's request: the phone's own receive and send times, ms);
  ``hb`` ("not pressed as of my time ``at``", ms); ``press`` (the pointerdown's own
  ``timeStamp``, ms). `on_timer(now)` sends the sync requests that are due and finds the
  phones gone silent. `SeatsOutput` says what follows: messages to send, presses on the
  console's clock, the source's watermark, its state, problems for the host.
* Clocks: each seat's `PhoneClock` (phone_clock.py) maps its stamps onto the console's clock
  from NTP-style exchanges, fast (every `SYNC_FAST_NS`) until it has `SETTLED_EXCHANGES`, then
  every `SYNC_NS`. A press before its phone's first exchange, or at or before a "not pressed"
  its phone already sent, is refused and said to the host; one claimed later than it could
  have happened is clamped. A page opened again starts its clock afresh.
* The source's watermark is the least "not pressed as of" of its live seats that a player
  (a team) has (`owned`: a spectator's phone holds nothing up, its presses still go on, as a
  press binding its pad would), each on the console's clock, and never goes back; with no
  such seat it is the console's clock itself (`on_timer`): nothing can come. A press is
  never placed at or behind it.
* A player's seat that was live and has said nothing for `lost_after_ns` (its page closed, its
  phone asleep) makes the source lost (state ``disconnected``): an open window waits for it as
  for an unplugged box, until it speaks again or the host frees the seat. Only `on_timer` finds
  a phone silent, never a message of another: after a stall of the console, the server reads
  what waited on the sockets before its timer judges (drivers/phone_server.py).
"""

from __future__ import annotations

import hashlib
import hmac
import math
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field

from drivers.link_state import LinkState
from drivers.phone_clock import PhoneClock

__all__ = ["LOST_AFTER_NS", "PhoneSeats", "SeatsOutput"]

NS_PER_MS = 1_000_000
SYNC_FAST_NS = 200 * NS_PER_MS  # until a phone's clock has settled
SYNC_NS = 1_000 * NS_PER_MS  # then: the least delayed of the last 32 is a half minute's worth
SETTLED_EXCHANGES = 8
LOST_AFTER_NS = 1_000 * NS_PER_MS  # heartbeats come every 50-100 ms; a Wi-Fi spike is 200 ms
HEARTBEAT_MS = 80  # what the page is told to keep (it also keeps the phone's radio awake)
IDLE_MARK_NS = HEARTBEAT_MS * NS_PER_MS  # with no live seat, the watermark follows the clock this often
MAX_PENDING_SYNCS = 4  # requests unanswered at once: more is a page that does not answer
# A 4-digit code is guessed in 10 000 tries: after this many wrong ones in GUESSES_NS, nobody
# joins by code until the oldest of them is a minute old (a phone with its token still does).
MAX_WRONG_CODES = 10
GUESSES_NS = 60_000 * NS_PER_MS
# When the host's screen flags a phone: silent longer than a few heartbeats; a round trip that a
# good Wi-Fi does not take; a press known less well than a tie window and a half.
HEARD_FLAG_MS = 300
ROUND_TRIP_FLAG_MS = 100.0
UNCERTAINTY_FLAG_MS = 30.0


@dataclass
class SeatsOutput:
    """What a message or a timer led to (see the module docstring)."""

    sends: list[tuple[Hashable, dict[str, object]]] = field(default_factory=list)
    presses: list[tuple[str, int]] = field(default_factory=list)  # (pad, console ns)
    mark_ns: int | None = None  # the source's watermark, when it moved
    state: tuple[LinkState, str] | None = None  # when it changed: (state, detail)
    problems: list[str] = field(default_factory=list)
    # A press placed less precisely than UNCERTAINTY_FLAG_MS (a browser rounding its stamps to
    # 100 ms, a clock still rough): from when the source's decisions are not sure (the
    # watermark's ``lost_from``), so the host is asked rather than told a winner it cannot know.
    imprecise_from: int | None = None


@dataclass
class _Seat:
    index: int
    pad: str
    token: str
    clock: PhoneClock
    conn: Hashable | None = None
    heard_ns: int = 0  # when it last said anything (console ns)
    mark_ns: int | None = None  # its latest "not pressed as of", on the console's clock
    next_sync_ns: int = 0
    pending: dict[int, int] = field(default_factory=dict)  # sync id -> sent at (console ns)
    exchanges: int = 0
    owner: str = ""  # whose button its page was told it is ("": nobody's yet)

    @property
    def live(self) -> bool:
        """Counts for the watermark: its clock is known (a seat not yet synced holds nothing)."""
        return self.exchanges > 0


class PhoneSeats:
    """See the module docstring."""

    def __init__(self, source: str, seats: int, code: str, *, secret: bytes,
                 lost_after_ns: int = LOST_AFTER_NS, touch_allowance_ms: float | None = None,
                 owned: Callable[[str], bool] = lambda pad: True,
                 owner_names: Callable[[], Mapping[str, str]] = dict) -> None:
        if seats < 1:
            raise ValueError(f"seats must be at least 1, got {seats}")
        self.source, self.code = source, code
        self._secret = secret
        self._lost_after_ns = lost_after_ns
        self._touch_ms = touch_allowance_ms
        self._owned = owned  # whether a player (team) has the pad: a spectator's phone holds nothing
        self._owner_names = owner_names  # each owned pad and its owner's name, for the phones' pages
        self.seats = [_Seat(k, f"{source}:{k}", self._token(k), self._clock()) for k in range(seats)]
        self._by_conn: dict[Hashable, _Seat] = {}
        self._mark_ns: int | None = None
        self._state = LinkState.CONNECTED
        self._sync_id = 0
        self._wrong: list[int] = []  # when wrong join codes came (console ns), the last minute's
        self._out = SeatsOutput()

    # ------------------------------------------------------------------ what the phones send

    def receive(self, conn: Hashable, message: Mapping[str, object], now: int) -> SeatsOutput:
        out = self._out = SeatsOutput()
        kind = message.get("type")
        seat = self._by_conn.get(conn)
        if kind == "hello":
            self._hello(conn, message, now)
        elif seat is None:
            out.sends.append((conn, {"type": "refused", "reason": "сначала введите код"}))
        else:
            seat.heard_ns = now
            try:
                if kind == "sync":
                    self._synced(seat, message, now)
                elif kind == "hb":
                    self._heartbeat(seat, _ms(message, "at"))
                elif kind == "press":
                    self._press(seat, _ms(message, "at"), now)
                else:
                    raise ValueError(f"unknown message type {kind!r}")
            except ValueError as exc:
                out.problems.append(f"phone at seat {seat.index + 1}: {exc}")
        self._settle(now)
        return out

    def closed(self, conn: Hashable, now: int) -> SeatsOutput:
        """The page's connection ended: the seat keeps its token and goes silent."""
        out = self._out = SeatsOutput()
        seat = self._by_conn.pop(conn, None)
        if seat is not None and seat.conn == conn:
            seat.conn = None
            seat.pending.clear()
        self._settle(now)
        return out

    def leave(self, index: int, now: int) -> SeatsOutput:
        """The host frees seat `index`: its phone is let go, it no longer holds the watermark."""
        out = self._out = SeatsOutput()
        seat = self.seats[index]
        if seat.conn is not None:
            self._by_conn.pop(seat.conn, None)
            out.sends.append((seat.conn, {"type": "refused", "reason": "ведущий освободил это место"}))
        self.seats[index] = _Seat(index, seat.pad, self._token(index, generation=now), self._clock())
        self._settle(now)
        return out

    def on_timer(self, now: int) -> SeatsOutput:
        out = self._out = SeatsOutput()
        for seat in self.seats:
            if seat.conn is not None and now >= seat.next_sync_ns and len(seat.pending) < MAX_PENDING_SYNCS:
                self._sync_id += 1
                seat.pending[self._sync_id] = now
                seat.next_sync_ns = now + (SYNC_FAST_NS if seat.exchanges < SETTLED_EXCHANGES else SYNC_NS)
                out.sends.append((seat.conn, {"type": "sync", "id": self._sync_id}))
        if not self._counted():
            self._advance(now)  # no phone can press for a time already past
        self._settle(now, timer=True)
        return out

    @property
    def mark_ns(self) -> int | None:
        """The source's watermark as it stands (None before it first had one)."""
        return self._mark_ns

    def next_deadline(self) -> int | None:
        """When `on_timer` is next due."""
        times = [seat.next_sync_ns for seat in self.seats if seat.conn is not None]
        times += [seat.heard_ns + self._lost_after_ns for seat in self._counted()
                  if self._state is LinkState.CONNECTED]
        if not self._counted():
            times.append((self._mark_ns or 0) + IDLE_MARK_NS)
        return min(times, default=None)

    # ------------------------------------------------------------------ lamps

    def lamps(self, on: int, blink: int) -> SeatsOutput:
        """The referee's lamps (bit k: seat k), to each phone whose lamp it is."""
        out = self._out = SeatsOutput()
        for seat in self.seats:
            if seat.conn is not None:
                bit = 1 << seat.index
                mode = "blink" if blink & bit else "on" if on & bit else "off"
                out.sends.append((seat.conn, {"type": "lamp", "mode": mode}))
        return out

    def tell_owners(self) -> SeatsOutput:
        """Tell each open page whose button it is now, where that changed since it was told
        (the host bound the seat to a player, renamed or removed one)."""
        out = self._out = SeatsOutput()
        names = self._owner_names()
        for seat in self.seats:
            owner = names.get(seat.pad, "")
            if seat.conn is not None and owner != seat.owner:
                seat.owner = owner
                out.sends.append((seat.conn, {"type": "owner", "name": owner}))
        return out

    # ------------------------------------------------------------------ what the host sees

    def health(self, now: int) -> list[dict[str, object]]:
        """Each taken seat's clock as the host's screen shows it, with `flag`: what is wrong
        with it in Russian ("" when nothing is: FLAGS says when)."""
        rows: list[dict[str, object]] = []
        for seat in self.seats:
            if seat.conn is None and not seat.live:
                continue
            trips = sorted(seat.clock.round_trips_ns())
            p95 = _ms_of(_quantile(trips, 0.95))
            error = seat.clock.offset_error_ns()
            best = seat.clock.best()
            uncertainty = round(seat.clock.uncertainty_ns() / NS_PER_MS, 1)
            heard = round((now - seat.heard_ns) / NS_PER_MS) if seat.heard_ns else None
            flags = [why for bad, why in (
                (seat.conn is None, "страница закрыта"),
                (not seat.live, "часы ещё не сверены"),
                (heard is not None and heard > HEARD_FLAG_MS, "молчит"),
                (p95 is not None and p95 > ROUND_TRIP_FLAG_MS, "медленная сеть"),
                (uncertainty > UNCERTAINTY_FLAG_MS, "неточное время"),
            ) if bad]
            rows.append({
                "seat": seat.index + 1, "pad": seat.pad, "online": seat.conn is not None,
                "owned": self._owned(seat.pad),
                "offset_ms": None if best is None else round(best.offset_ns / NS_PER_MS, 1),
                "offset_error_ms": _ms_of(error),
                "round_trip_ms": [_ms_of(_quantile(trips, 0.5)), p95],
                "granularity_ms": seat.clock.granularity_ms,
                "uncertainty_ms": uncertainty,
                "heard_ms_ago": heard,
                "flag": ", ".join(flags),
            })
        return rows

    # ------------------------------------------------------------------ inside

    def _hello(self, conn: Hashable, message: Mapping[str, object], now: int) -> None:
        out = self._out
        token, code, want = message.get("token"), message.get("code"), message.get("want")
        seat: _Seat | None = None
        if isinstance(token, str) and token:
            seat = next((s for s in self.seats if hmac.compare_digest(s.token, token)), None)
            if seat is None and code is None:
                out.sends.append((conn, {"type": "refused", "reason": "этот телефон не узнан: введите код"}))
                return
        if seat is None:
            self._wrong = [at for at in self._wrong if now - at < GUESSES_NS]
            if len(self._wrong) >= MAX_WRONG_CODES:  # someone is guessing: no one joins by code a while
                out.sends.append((conn, {"type": "refused", "reason": "слишком много неверных кодов: "
                                                                      "подождите минуту"}))
                return
            if str(code) != self.code:
                self._wrong.append(now)
                if len(self._wrong) == MAX_WRONG_CODES:
                    out.problems.append(f"{MAX_WRONG_CODES} wrong join codes within a minute: joining by "
                                        "code is paused for a minute (someone may be guessing it)")
                out.sends.append((conn, {"type": "refused", "reason": "неверный код"}))
                return
            free = [s for s in self.seats if s.conn is None and not s.live]
            wanted = [s for s in free if isinstance(want, int) and s.index == want]
            seat = next(iter(wanted or free), None)
            if seat is None:
                out.sends.append((conn, {"type": "refused", "reason": "все места заняты"}))
                return
        if seat.conn is not None and seat.conn != conn:  # the same phone again (a reload): the old page goes
            self._by_conn.pop(seat.conn, None)
            out.sends.append((seat.conn, {"type": "refused", "reason": "место открыто на другой странице"}))
        self._by_conn.pop(conn, None)
        seat.conn, seat.heard_ns, seat.next_sync_ns = conn, now, now
        seat.pending.clear()
        # A page opened again has a clock of its own (a new time origin): known again from its
        # syncs. What the old page pressed and never sent is gone with it: nothing to wait for.
        seat.clock, seat.exchanges = self._clock(), 0
        self._by_conn[conn] = seat
        seat.owner = self._owner_names().get(seat.pad, "")
        out.sends.append((conn, {"type": "joined", "seat": seat.index, "pad": seat.pad, "token": seat.token,
                                 "heartbeat_ms": HEARTBEAT_MS, "owner": seat.owner}))

    def _synced(self, seat: _Seat, message: Mapping[str, object], now: int) -> None:
        sync_id = message.get("id")
        sent_ns = seat.pending.pop(sync_id, None) if isinstance(sync_id, int) else None
        if sent_ns is None:
            raise ValueError(f"an answer to no sync request (id {sync_id!r})")
        if not seat.clock.exchange(sent_ns, _ms(message, "rx"), _ms(message, "tx"), now):
            raise ValueError("a sync answer that cannot be true (answered before it was asked)")
        seat.exchanges += 1

    def _heartbeat(self, seat: _Seat, phone_ms: float) -> None:
        seat.clock.heartbeat(phone_ms)
        mapped = seat.clock.to_console_ns(phone_ms)
        if mapped is not None and (seat.mark_ns is None or mapped > seat.mark_ns):
            seat.mark_ns = mapped

    def _press(self, seat: _Seat, phone_ms: float, now: int) -> None:
        press = seat.clock.press(phone_ms, now)
        if press.at_ns is None:
            self._out.sends.append((seat.conn, {"type": "press_refused", "reason": press.refused}))
            self._out.problems.append(f"телефон места {seat.index + 1}: {press.refused}")
            return
        # Never at or behind what the source already said was complete (a clamp, or a later
        # offset estimate, could place it there): just after it, the earliest it can still be.
        at = max(press.at_ns, (seat.mark_ns or -math.inf) + 1, (self._mark_ns or -math.inf) + 1)
        at = int(at)
        self._out.presses.append((seat.pad, at))
        seat.mark_ns = at  # everything it pressed up to its press has been said
        if press.uncertainty_ns > UNCERTAINTY_FLAG_MS * NS_PER_MS:
            out = self._out
            start = at - press.uncertainty_ns
            out.imprecise_from = start if out.imprecise_from is None else min(out.imprecise_from, start)
            out.problems.append(f"телефон места {seat.index + 1}: время нажатия известно лишь с точностью "
                                f"±{press.uncertainty_ns / NS_PER_MS:.0f} мс: решение под вопросом")

    def _settle(self, now: int, *, timer: bool = False) -> None:
        """The source's watermark and state after what happened at `now`. A phone is found
        silent only by the `timer`: what a phone says is read before the timer that would
        judge it, so a console that was itself held up reads what waited first."""
        live = self._counted()
        marks = [mark for seat in live if (mark := seat.mark_ns) is not None]
        if live and len(marks) == len(live):
            self._advance(min(marks))
        if not timer and self._state is LinkState.CONNECTED:
            return  # none found silent here: the timer does that, after the sockets are read
        silent = [seat for seat in live if now - seat.heard_ns > self._lost_after_ns]
        state = LinkState.DISCONNECTED if silent else LinkState.CONNECTED
        if state is not self._state:
            self._state = state
            detail = (", ".join(f"телефон места {seat.index + 1} молчит" for seat in silent) if silent
                      else f"телефонов: {len([s for s in self.seats if s.conn is not None])}")
            self._out.state = (state, detail)

    def _counted(self) -> list[_Seat]:
        """The seats that hold the watermark and can make the source lost: live, and a player's."""
        return [seat for seat in self.seats if seat.live and self._owned(seat.pad)]

    def _advance(self, mark_ns: int) -> None:
        if self._mark_ns is None or mark_ns > self._mark_ns:
            self._mark_ns = mark_ns
            self._out.mark_ns = mark_ns

    def _clock(self) -> PhoneClock:
        return PhoneClock() if self._touch_ms is None else PhoneClock(touch_allowance_ms=self._touch_ms)

    def _token(self, index: int, generation: int = 0) -> str:
        key = f"{self.source}:{index}:{generation}".encode()
        return hmac.new(self._secret, key, hashlib.sha256).hexdigest()[:24]


def _ms(message: Mapping[str, object], key: str) -> float:
    value = message.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{key!r} must be a time in ms, got {value!r}")
    return float(value)


def _quantile(values: list[int], q: float) -> int | None:
    return values[min(len(values) - 1, int(q * len(values)))] if values else None


def _ms_of(ns: int | None) -> float | None:
    return None if ns is None else round(ns / NS_PER_MS, 1)
