"""A phone's clock mapped onto the console's and its presses judged (issue 35; drivers/
phone_clock.py), on a hand-stepped timeline: a phone whose clock is 5 s behind the console's,
over a link with Wi-Fi's jitter (a late hop on most packets, spikes of 200 ms), its stamps
rounded as browsers round them, and a page that forges its stamps."""

from __future__ import annotations

import random

from drivers.phone_clock import NS_PER_MS, TOUCH_ALLOWANCE_MS, PhoneClock

OFFSET_NS = 5_000 * NS_PER_MS  # the console's clock minus the phone's


def phone_ms(console_ns: int, rounding_ms: float = 0.005) -> float:
    """The phone's performance.now() at console time `console_ns`, rounded as its browser does."""
    exact = (console_ns - OFFSET_NS) / NS_PER_MS
    return round(exact / rounding_ms) * rounding_ms


def one_way_ns(rng: random.Random) -> int:
    """Wi-Fi: 2 ms at best, a late hop on most packets, now and then a 200-ms spike."""
    late = rng.uniform(0, 40) if rng.random() < 0.6 else rng.uniform(0, 3)
    spike = 200 if rng.random() < 0.02 else 0
    return round((2 + late + spike) * NS_PER_MS)


def synced(rng: random.Random, exchanges: int = 40, rounding_ms: float = 0.005) -> tuple[PhoneClock, int]:
    """A clock after `exchanges` round trips 100 ms apart; the console's time after them."""
    clock = PhoneClock()
    now = 1_000_000 * NS_PER_MS
    for _ in range(exchanges):
        arrive = now + one_way_ns(rng)
        answer = arrive + NS_PER_MS  # the page answers 1 ms after the request arrives
        assert clock.exchange(now, phone_ms(arrive, rounding_ms), phone_ms(answer, rounding_ms),
                              answer + one_way_ns(rng))
        now += 100 * NS_PER_MS
    return clock, now


def test_the_offset_is_the_least_delayed_exchanges_within_half_its_delay() -> None:
    for seed in range(20):
        clock, _ = synced(random.Random(seed))
        best = clock.best()
        error = clock.offset_error_ns()
        assert best is not None and error is not None
        assert abs(best.offset_ns - OFFSET_NS) <= error + 1  # RFC 5905: at most half the delay
        assert error <= 5 * NS_PER_MS  # 40 samples hold a quiet one: a few ms, not Wi-Fi's 40
        assert best.delay_ns == min(clock.round_trips_ns())


def test_an_exchange_that_cannot_be_true_is_not_used() -> None:
    clock = PhoneClock()
    assert not clock.exchange(10 * NS_PER_MS, 5.0, 6.0, 9 * NS_PER_MS)  # answered before asked
    assert not clock.exchange(10 * NS_PER_MS, 6.0, 5.0, 20 * NS_PER_MS)  # sent before received
    assert not clock.exchange(10 * NS_PER_MS, 0.0, 30.0, 20 * NS_PER_MS)  # held longer than the trip
    assert clock.best() is None
    assert clock.press(1.0, 30 * NS_PER_MS).refused == "телефон ещё не сверил часы с пультом"


def test_the_stamps_rounding_is_found_from_the_stamps() -> None:
    """Firefox rounds Event.timeStamp to 2 ms, or to 100 ms resisting fingerprinting."""
    for rounding, found in ((100.0, 100.0), (2.0, 2.0), (1.0, 1.0), (0.1, 0.1), (0.005, 0.005)):
        clock, _ = synced(random.Random(1), rounding_ms=rounding)
        assert clock.granularity_ms == found, rounding
    coarse, _ = synced(random.Random(2), rounding_ms=100.0)
    coarse.heartbeat(1_234_567.0)  # one stamp off the 100-ms grid: 1 ms at best
    assert coarse.granularity_ms == 1.0


def test_a_press_is_mapped_with_its_uncertainty_and_holds_the_truth() -> None:
    rng = random.Random(3)
    clock, now = synced(rng)
    pressed = now + 10 * NS_PER_MS
    verdict = clock.press(phone_ms(pressed), pressed + one_way_ns(rng))
    assert verdict.at_ns is not None and verdict.refused is None and not verdict.clamped
    assert abs(verdict.at_ns - pressed) <= verdict.uncertainty_ns
    error = clock.offset_error_ns()
    assert error is not None
    assert verdict.uncertainty_ns == error + round(0.005 * NS_PER_MS) + round(TOUCH_ALLOWANCE_MS * NS_PER_MS)


def test_a_press_claimed_before_the_phones_own_not_pressed_is_refused() -> None:
    """Heartbeats are watermarks: "not pressed as of t" then a press stamped before t is a
    page contradicting itself."""
    rng = random.Random(4)
    clock, now = synced(rng)
    clock.heartbeat(phone_ms(now))
    for claimed in (now, now - 30 * NS_PER_MS):
        verdict = clock.press(phone_ms(claimed), now + 50 * NS_PER_MS)
        assert verdict.at_ns is None
        assert verdict.refused == "нажатие раньше, чем телефон сам сообщил «не нажато»"
    assert clock.press(phone_ms(now + NS_PER_MS), now + 50 * NS_PER_MS).at_ns is not None


def test_a_press_claimed_later_than_it_could_have_happened_is_clamped() -> None:
    """No press arrives sooner than the least one-way delay measured: one claimed later than
    its receipt minus that delay is put back to it."""
    rng = random.Random(5)
    clock, now = synced(rng)
    least = min(clock.round_trips_ns()) // 2
    received = now + 100 * NS_PER_MS
    verdict = clock.press(phone_ms(received + 50 * NS_PER_MS), received)  # claims the future
    assert verdict.clamped and verdict.at_ns == received - least


def test_a_forged_page_gains_no_more_than_its_bound() -> None:
    """A page that back-dates every press as far as it dares (just after its last heartbeat)
    against an honest one: over 500 presses its largest gain stays within one heartbeat
    interval plus the offset's error (`forgery_bound_ns`)."""
    rng = random.Random(6)
    clock, now = synced(rng)
    interval = 80 * NS_PER_MS
    largest = 0
    for _ in range(500):
        beat = now + rng.randrange(interval)  # the last heartbeat sent before the press
        clock.heartbeat(phone_ms(beat))
        pressed = beat + rng.randrange(1, interval)  # the true press, before the next heartbeat
        forged = clock.press(phone_ms(beat) + 0.01, pressed + one_way_ns(rng))
        assert forged.at_ns is not None
        largest = max(largest, pressed - forged.at_ns)
        now = beat + interval
    assert 0 < largest <= clock.forgery_bound_ns(interval)
