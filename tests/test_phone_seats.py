"""The phones' seats (drivers/phone_seats.py) on a hand-stepped clock: joining, clocks,
presses and the source's watermark (issue 35)."""

from __future__ import annotations

from dataclasses import dataclass, field

from drivers.link_state import LinkState
from drivers.phone_seats import LOST_AFTER_NS, PhoneSeats, SeatsOutput

MS = 1_000_000
T0 = 1_000_000 * MS  # the console's clock at the start (ns)


@dataclass
class Phone:
    """A phone's page: its clock is the console's shifted (`skew_ms`), messages reach the
    console `one_way_ms` after they leave and the other way too."""

    name: str
    skew_ms: float
    one_way_ms: float = 3.0
    joined: dict[str, object] = field(default_factory=dict)

    def ms(self, console_ns: int) -> float:
        return console_ns / MS - T0 / MS + self.skew_ms


def hello(seats: PhoneSeats, phone: Phone, now: int, **message: object) -> SeatsOutput:
    out = seats.receive(phone.name, {"type": "hello", "code": "4821", **message}, now)
    for conn, sent in out.sends:
        if conn == phone.name and sent["type"] == "joined":
            phone.joined = sent
    return out


def sync_all(seats: PhoneSeats, phones: list[Phone], now: int, rounds: int = 3) -> int:
    """Answer the console's sync requests for `rounds` of its timer; returns the time after."""
    by_name = {p.name: p for p in phones}
    for _ in range(rounds):
        for conn, sent in seats.on_timer(now).sends:
            if sent["type"] == "sync":
                phone = by_name[str(conn)]
                at_phone = now + round(phone.one_way_ms * MS)
                back = at_phone + round(phone.one_way_ms * MS)
                seats.receive(conn, {"type": "sync", "id": sent["id"], "rx": phone.ms(at_phone),
                                     "tx": phone.ms(at_phone)}, back)
        now += 200 * MS
    return now


def beat(seats: PhoneSeats, phone: Phone, at: int) -> SeatsOutput:
    """The phone says "not pressed as of" console time `at`; it arrives one way later."""
    return seats.receive(phone.name, {"type": "hb", "at": phone.ms(at)}, at + round(phone.one_way_ms * MS))


def seated(n: int = 2) -> tuple[PhoneSeats, list[Phone], int]:
    seats = PhoneSeats("phones", 4, "4821", secret=b"test")
    phones = [Phone(f"p{i}", skew_ms=12_345.678 * (i + 1)) for i in range(n)]
    now = T0
    for phone in phones:
        hello(seats, phone, now)
    return seats, phones, sync_all(seats, phones, now)


def test_a_phone_joins_with_the_code_and_is_refused_without_it() -> None:
    seats = PhoneSeats("phones", 2, "4821", secret=b"test")
    anna, boris, vera = Phone("a", 0), Phone("b", 0), Phone("v", 0)
    wrong = seats.receive("a", {"type": "hello", "code": "1111"}, T0)
    assert wrong.sends == [("a", {"type": "refused", "reason": "неверный код"})]
    hello(seats, anna, T0)
    hello(seats, boris, T0)
    assert (anna.joined["seat"], anna.joined["pad"], boris.joined["pad"]) == (0, "phones:0", "phones:1")
    assert anna.joined["token"] != boris.joined["token"]
    full = hello(seats, vera, T0)
    assert full.sends == [("v", {"type": "refused", "reason": "все места заняты"})]
    # Nothing but a hello is taken from a phone that has no seat.
    stranger = seats.receive("x", {"type": "press", "at": 5.0}, T0)
    assert stranger.presses == [] and stranger.sends[0][1]["type"] == "refused"


def test_a_phone_comes_back_to_its_seat_by_its_token_and_no_other_can_take_it() -> None:
    seats, (anna, _), now = seated()
    token = anna.joined["token"]
    seats.closed(anna.name, now)
    # Another phone with the code gets a free seat, never Anna's, which she keeps.
    vera = Phone("v", 0)
    hello(seats, vera, now, want=0)
    assert vera.joined["seat"] == 2
    back = seats.receive("a2", {"type": "hello", "token": token}, now)
    assert back.sends[0][1]["seat"] == 0
    forged = seats.receive("z", {"type": "hello", "token": "0" * 24}, now)
    assert forged.sends[0][1] == {"type": "refused", "reason": "этот телефон не узнан: введите код"}


def test_after_a_restart_a_phone_asks_for_the_seat_it_had() -> None:
    seats = PhoneSeats("phones", 4, "4821", secret=b"another process")
    anna = Phone("a", 0)
    hello(seats, anna, T0, token="stale", want=2)
    assert anna.joined["seat"] == 2


def test_a_press_is_placed_on_the_consoles_clock_from_the_phones_own_stamp() -> None:
    seats, (anna, boris), now = seated()
    beat(seats, anna, now)
    beat(seats, boris, now)
    pressed_at = now + 37 * MS
    # Read 60 ms after it happened (a slow Wi-Fi hop): placed by its stamp, not its arrival.
    out = seats.receive(anna.name, {"type": "press", "at": anna.ms(pressed_at)}, pressed_at + 60 * MS)
    ((pad, at),) = out.presses
    assert pad == "phones:0"
    assert abs(at - pressed_at) <= 1 * MS  # symmetric paths: the offset is exact to rounding


def test_the_watermark_is_the_least_of_the_live_phones_and_never_goes_back() -> None:
    seats, (anna, boris), now = seated()
    assert beat(seats, anna, now + 50 * MS).mark_ns is None  # Boris has not said yet
    out = beat(seats, boris, now + 30 * MS)
    assert out.mark_ns is not None and abs(out.mark_ns - (now + 30 * MS)) <= MS
    moved = beat(seats, boris, now + 90 * MS)
    assert moved.mark_ns is not None and abs(moved.mark_ns - (now + 50 * MS)) <= MS  # Anna's now
    assert beat(seats, boris, now + 80 * MS).mark_ns is None  # an older one moves nothing


def test_a_press_is_never_behind_the_watermark_already_said() -> None:
    seats, (anna, boris), now = seated()
    beat(seats, anna, now + 50 * MS)
    mark = beat(seats, boris, now + 50 * MS).mark_ns
    assert mark is not None
    # Anna's press stamped after her heartbeat but mapped (by a clamp) at most to its arrival
    # minus the least one-way delay: still after what the source said was complete.
    out = seats.receive(anna.name, {"type": "press", "at": anna.ms(now + 51 * MS)}, now + 51 * MS)
    ((_, at),) = out.presses
    assert at > mark


def test_a_press_stamped_before_the_phones_own_not_pressed_is_refused_and_said() -> None:
    seats, (anna, _), now = seated()
    beat(seats, anna, now + 50 * MS)
    out = seats.receive(anna.name, {"type": "press", "at": anna.ms(now + 20 * MS)}, now + 60 * MS)
    assert out.presses == []
    assert out.sends == [(anna.name, {"type": "press_refused",
                                      "reason": "нажатие раньше, чем телефон сам сообщил «не нажато»"})]
    assert out.problems and "места 1" in out.problems[0]


def test_a_press_before_the_clock_is_known_is_refused() -> None:
    seats = PhoneSeats("phones", 2, "4821", secret=b"test")
    anna = Phone("a", 0)
    hello(seats, anna, T0)
    out = seats.receive(anna.name, {"type": "press", "at": 1.0}, T0)
    assert out.presses == [] and out.sends[0][1]["type"] == "press_refused"


def test_a_silent_phone_makes_the_source_lost_until_it_speaks_again() -> None:
    seats, (anna, boris), now = seated()
    beat(seats, anna, now)
    beat(seats, boris, now)
    deadline = seats.next_deadline()
    assert deadline is not None and deadline <= now + LOST_AFTER_NS + 10 * MS
    assert beat(seats, anna, now + LOST_AFTER_NS - 10 * MS).state is None  # both still within
    later = now + LOST_AFTER_NS + 50 * MS
    # Anna keeps beating, Boris's phone fell asleep: the timer finds it out.
    out = seats.on_timer(later)
    assert out.state is not None and out.state[0] is LinkState.DISCONNECTED
    assert "места 2 молчит" in out.state[1]
    woke = beat(seats, boris, later + 100 * MS)
    assert woke.state is not None and woke.state[0] is LinkState.CONNECTED


def test_with_no_phone_the_watermark_follows_the_clock() -> None:
    seats = PhoneSeats("phones", 2, "4821", secret=b"test")
    first = seats.on_timer(T0).mark_ns
    assert first == T0
    due = seats.next_deadline()
    assert due is not None and due > T0
    assert seats.on_timer(due).mark_ns == due


def test_the_host_frees_a_seat_and_its_old_token_no_longer_counts() -> None:
    seats, (anna, boris), now = seated()
    token = anna.joined["token"]
    out = seats.leave(0, now)
    assert out.sends == [(anna.name, {"type": "refused", "reason": "ведущий освободил это место"})]
    again = seats.receive("a2", {"type": "hello", "token": token}, now)
    assert again.sends[0][1]["type"] == "refused"
    # Boris alone holds the watermark now.
    mark = beat(seats, boris, now + 10 * MS).mark_ns
    assert mark is not None and abs(mark - (now + 10 * MS)) <= MS


def test_bad_messages_are_problems_that_change_nothing() -> None:
    seats, (anna, _), now = seated()
    for message in ({"type": "press", "at": "soon"}, {"type": "press", "at": float("nan")},
                    {"type": "hb"}, {"type": "dance"}, {"type": "sync", "id": 999, "rx": 1, "tx": 1}):
        out = seats.receive(anna.name, message, now)
        assert out.presses == [] and out.mark_ns is None
        assert len(out.problems) == 1 and "seat 1" in out.problems[0]


def test_the_lamps_reach_each_phone_as_its_own() -> None:
    seats, _, _ = seated()
    out = seats.lamps(on=0b01, blink=0b10)
    assert dict((str(c), m["mode"]) for c, m in out.sends) == {"p0": "on", "p1": "blink"}


def test_the_host_sees_each_phones_clock() -> None:
    seats, _, now = seated()
    rows = seats.health(now)
    assert [row["seat"] for row in rows] == [1, 2]
    assert rows[0]["round_trip_ms"] == [6.0, 6.0]  # 3 ms each way
    assert float(str(rows[0]["uncertainty_ms"])) >= 20.0  # the touch pipeline's allowance at least


def test_a_page_opened_again_has_its_clock_known_afresh() -> None:
    seats, (anna, boris), now = seated()
    beat(seats, anna, now)
    token = anna.joined["token"]
    seats.closed(anna.name, now)
    reopened = Phone("a2", skew_ms=-50_000.0)  # a new page: a new time origin, far behind the old
    seats.receive(reopened.name, {"type": "hello", "token": token}, now + 100 * MS)
    early = seats.receive(reopened.name, {"type": "press", "at": reopened.ms(now + 100 * MS)}, now + 101 * MS)
    assert early.presses == []  # not before its clock is known again
    now = sync_all(seats, [reopened, boris], now + 100 * MS)
    beat(seats, reopened, now)
    out = seats.receive(reopened.name, {"type": "press", "at": reopened.ms(now + 10 * MS)}, now + 13 * MS)
    ((_, at),) = out.presses  # not refused for the old page's heartbeats, placed by the new clock
    assert abs(at - (now + 10 * MS)) <= MS


def test_a_phone_nobody_plays_holds_nothing_up() -> None:
    """A spectator's phone joined with the code: asleep, it neither makes the source lost nor
    holds its watermark; its press still goes on (the host may be binding its pad)."""
    owners = {"phones:0"}
    seats = PhoneSeats("phones", 4, "4821", secret=b"test", owned=lambda pad: pad in owners)
    anna, spectator = Phone("a", 1_000.0), Phone("s", 2_000.0)
    hello(seats, anna, T0)
    hello(seats, spectator, T0)
    now = sync_all(seats, [anna, spectator], T0)
    beat(seats, spectator, now)
    mark = beat(seats, anna, now + 40 * MS).mark_ns  # Anna's alone counts
    assert mark is not None and abs(mark - (now + 40 * MS)) <= MS
    later = now + LOST_AFTER_NS + 100 * MS
    beat(seats, anna, later - 10 * MS)
    assert seats.on_timer(later).state is None  # the spectator's silence loses nothing
    out = seats.receive(spectator.name, {"type": "press", "at": spectator.ms(later)}, later + 3 * MS)
    assert [pad for pad, _ in out.presses] == ["phones:1"]
    assert [row["owned"] for row in seats.health(later)] == [True, False]
    owners.add("phones:1")  # the host gave it to a player: from now on its silence counts
    beat(seats, anna, later + LOST_AFTER_NS + 50 * MS)
    lost = seats.on_timer(later + LOST_AFTER_NS + 60 * MS).state  # the timer finds it
    assert lost is not None and lost[0] is LinkState.DISCONNECTED and "места 2" in lost[1]


def test_guessing_the_code_pauses_joining_by_code_but_not_by_token() -> None:
    """A 4-digit code falls to 10 000 tries: after 10 wrong codes within a minute nobody joins by
    code for a while, and the host is told; a phone with its seat's token still comes back."""
    seats, (anna, _), now = seated()
    token = anna.joined["token"]
    seats.closed(anna.name, now)
    outs = [seats.receive(f"guess{i}", {"type": "hello", "code": f"{i:04d}"}, now + i * MS)
            for i in range(10)]
    assert all(out.sends[0][1]["reason"] == "неверный код" for out in outs)
    assert [len(out.problems) for out in outs] == [0] * 9 + [1]
    late = seats.receive("vera", {"type": "hello", "code": "4821"}, now + 20 * MS)
    assert late.sends[0][1]["reason"] == "слишком много неверных кодов: подождите минуту"
    back = seats.receive("anna2", {"type": "hello", "token": token}, now + 21 * MS)
    assert back.sends[0][1]["type"] == "joined" and back.sends[0][1]["seat"] == 0
    after = seats.receive("vera", {"type": "hello", "code": "4821"}, now + 61_000 * MS)
    assert after.sends[0][1]["type"] == "joined"


def test_each_page_is_told_whose_button_it_is_when_it_joins_and_when_that_changes() -> None:
    owners = {"phones:0": "Аня"}
    seats = PhoneSeats("phones", 3, "4821", secret=b"test", owner_names=lambda: owners)
    anna, boris = Phone("a", 0), Phone("b", 0)
    hello(seats, anna, T0)
    hello(seats, boris, T0)
    assert (anna.joined["owner"], boris.joined["owner"]) == ("Аня", "")
    assert seats.tell_owners().sends == []  # nothing changed: nothing said
    owners.update({"phones:1": "Боря", "phones:2": "Вера"})  # the host gave seat 2 to Боря
    owners["phones:0"] = "Анна"  # and renamed Аня
    told = seats.tell_owners().sends
    assert sorted(told, key=str) == [("a", {"type": "owner", "name": "Анна"}),
                                     ("b", {"type": "owner", "name": "Боря"})]  # seat 3: no page
    del owners["phones:1"]  # Боря removed from the game
    assert seats.tell_owners().sends == [("b", {"type": "owner", "name": ""})]


@dataclass
class CoarsePhone(Phone):
    """A browser that rounds its stamps to 100 ms (Firefox's resistFingerprinting, Tor)."""

    def ms(self, console_ns: int) -> float:
        return round(super().ms(console_ns) / 100) * 100


def test_a_press_known_less_well_than_the_photo_finish_covers_leaves_the_decision_not_sure() -> None:
    seats = PhoneSeats("phones", 4, "4821", secret=b"test")
    fine, coarse = Phone("f", skew_ms=1_000.0), CoarsePhone("c", skew_ms=2_000.0)
    for phone in (fine, coarse):
        hello(seats, phone, T0)
    now = sync_all(seats, [fine, coarse], T0, rounds=12)
    beat(seats, fine, now)
    beat(seats, coarse, now)
    sharp = seats.receive(fine.name, {"type": "press", "at": fine.ms(now + 30 * MS)}, now + 33 * MS)
    assert sharp.presses and sharp.imprecise_from is None and sharp.problems == []
    # Its stamp rounded to 100 ms: the press is known to ±100 ms and more, beyond any photo
    # finish the source declares, so its decisions are not sure from its earliest possible time.
    blunt = seats.receive(coarse.name, {"type": "press", "at": coarse.ms(now + 140 * MS)}, now + 143 * MS)
    ((_, at),) = blunt.presses
    assert blunt.imprecise_from is not None and at - blunt.imprecise_from > 100 * MS
    assert "решение под вопросом" in blunt.problems[0] and "места 2" in blunt.problems[0]
