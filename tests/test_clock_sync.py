"""ClockModel against synthetic MCU clocks with known offset and drift."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from drivers.clock_sync import ClockModel


@dataclass(frozen=True)
class SyntheticMcu:
    """An MCU timer: ``mcu_us = floor(host_ns / 1000 * (1 + drift)) + offset_us``."""

    offset_us: int
    drift_ppm: float

    def read(self, host_ns: int) -> int:
        return int(host_ns / 1000 * (1 + self.drift_ppm * 1e-6)) + self.offset_us

    def truth_ns(self, mcu_us: int) -> float:
        """The host time at which the timer read ``mcu_us`` (exact inverse, before flooring)."""
        return (mcu_us - self.offset_us) * 1000 / (1 + self.drift_ppm * 1e-6)


def round_trip(mcu: SyntheticMcu, send_ns: int, to_mcu_ns: int, from_mcu_ns: int) -> tuple[int, int, int]:
    """(send, recv, mcu_us) for a ping that takes ``to_mcu_ns`` out and ``from_mcu_ns`` back."""
    return send_ns, send_ns + to_mcu_ns + from_mcu_ns, mcu.read(send_ns + to_mcu_ns)


def feed(
    model: ClockModel,
    mcu: SyntheticMcu,
    *,
    start_ns: int,
    count: int,
    interval_ns: int,
    rng: random.Random,
    to_mcu: tuple[int, int],
    from_mcu: tuple[int, int],
) -> int:
    """Feed ``count`` pings with delays drawn uniformly from the given ranges; returns last send."""
    t = start_ns
    for _ in range(count):
        t += interval_ns
        assert model.add_sample(*round_trip(mcu, t, rng.randint(*to_mcu), rng.randint(*from_mcu)))
    return t


def test_not_ready_without_samples() -> None:
    model = ClockModel()
    assert not model.ready
    with pytest.raises(RuntimeError):
        model.to_host_ns(0)
    with pytest.raises(RuntimeError):
        _ = model.uncertainty_ns


def test_single_sample_gives_offset_at_nominal_rate() -> None:
    model = ClockModel()
    assert model.add_sample(1_000_000, 1_400_000, 77)  # midpoint 1_200_000 ns is MCU 77 µs
    assert model.ready
    assert model.to_host_ns(77) == 1_200_000
    assert model.to_host_ns(1077) == 2_200_000  # nominal: 1 µs == 1000 ns
    assert model.to_host_ns(0) == 1_123_000
    assert model.drift_ppm == 0.0
    assert model.uncertainty_ns == 200_000


def test_rejects_long_and_negative_round_trips() -> None:
    model = ClockModel(max_rtt_ns=5_000_000)
    assert not model.add_sample(0, 5_000_001, 10)
    assert not model.add_sample(10_000, 9_999, 10)
    assert not model.ready
    assert model.add_sample(0, 5_000_000, 10)  # exactly at the limit is fine
    assert model.sample_count == 1
    # A rejected sample after an accepted one leaves the mapping alone.
    before = model.to_host_ns(1000)
    assert not model.add_sample(100_000_000, 200_000_000, 500)
    assert model.to_host_ns(1000) == before


def test_offset_mode_prefers_the_tightest_recent_round_trip() -> None:
    mcu = SyntheticMcu(offset_us=123_456, drift_ppm=0.0)
    model = ClockModel()
    # Very asymmetric but long trip (error 4 ms), then a tight symmetric one (error 0).
    model.add_sample(*round_trip(mcu, 10_000_000, 9_000_000, 1_000_000))
    model.add_sample(*round_trip(mcu, 20_000_000, 100_000, 100_000))
    assert model.to_host_ns(mcu.read(25_000_000)) == 25_000_000
    assert model.uncertainty_ns == 100_000


@pytest.mark.parametrize("drift_ppm", [50.0, -120.0, 0.0])
def test_fit_tracks_offset_and_drift_with_symmetric_jitter(drift_ppm: float) -> None:
    rng = random.Random(1234)
    mcu = SyntheticMcu(offset_us=5_000_000_000, drift_ppm=drift_ppm)
    model = ClockModel()
    start = 3_600 * 10**9  # an hour of host uptime
    # 100 pings a second apart; each leg 0.1..1 ms, so any single midpoint is off by <= 0.45 ms.
    last = feed(
        model,
        mcu,
        start_ns=start,
        count=100,
        interval_ns=10**9,
        rng=rng,
        to_mcu=(100_000, 1_000_000),
        from_mcu=(100_000, 1_000_000),
    )
    assert model.drift_ppm == pytest.approx(drift_ppm, abs=5.0)
    # Averaging 100 samples brings the error well below the single-sample bound:
    # check every second of the window and a second past the last ping (where presses land).
    for host_ns in range(start, last + 2 * 10**9, 10**9 // 3):
        stamp = mcu.read(host_ns)
        assert abs(model.to_host_ns(stamp) - mcu.truth_ns(stamp)) < 100_000, host_ns


def test_drift_without_fit_accumulates_but_fit_removes_it() -> None:
    """The reason for the fit: at 200 ppm an offset-only model is off by 0.2 ms per second."""
    mcu = SyntheticMcu(offset_us=42, drift_ppm=200.0)
    offset_only = ClockModel(min_fit_samples=10**6)
    fitted = ClockModel()
    for i in range(1, 11):
        sample = round_trip(mcu, i * 10**9, 50_000, 50_000)
        offset_only.add_sample(*sample)
        fitted.add_sample(*sample)
    stamp = mcu.read(20 * 10**9)  # ten seconds after the last ping
    truth = mcu.truth_ns(stamp)
    assert abs(offset_only.to_host_ns(stamp) - truth) > 1_500_000
    assert abs(fitted.to_host_ns(stamp) - truth) < 5_000
    assert fitted.drift_ppm == pytest.approx(200.0, abs=1.0)


def test_asymmetric_link_error_stays_within_uncertainty() -> None:
    """Out 3 ms, back 1 ms: midpoints are biased by 1 ms, under the 2 ms stated bound."""
    rng = random.Random(7)
    mcu = SyntheticMcu(offset_us=10**9, drift_ppm=-120.0)
    model = ClockModel()
    last = feed(
        model,
        mcu,
        start_ns=10**12,
        count=50,
        interval_ns=500_000_000,
        rng=rng,
        to_mcu=(3_000_000, 3_000_000),
        from_mcu=(1_000_000, 1_000_000),
    )
    assert model.uncertainty_ns == 2_000_000
    for host_ns in (10**12 + 10**9, last, last + 10**9):
        stamp = mcu.read(host_ns)
        error = model.to_host_ns(stamp) - mcu.truth_ns(stamp)
        assert abs(error) <= model.uncertainty_ns + 1_000
        assert error == pytest.approx(-1_000_000, abs=50_000)  # the bias is exactly the asymmetry


@pytest.mark.parametrize("samples", [1, 3, 30])
def test_mapping_is_monotonic(samples: int) -> None:
    rng = random.Random(99)
    mcu = SyntheticMcu(offset_us=17, drift_ppm=-120.0)
    model = ClockModel()
    feed(
        model,
        mcu,
        start_ns=0,
        count=samples,
        interval_ns=100_000_000,
        rng=rng,
        to_mcu=(10_000, 2_000_000),
        from_mcu=(10_000, 2_000_000),
    )
    stamps = sorted(rng.randrange(0, 10**8) for _ in range(2000))
    stamps += list(range(5_000_000, 5_000_100))  # consecutive microseconds
    stamps.sort()
    mapped = [model.to_host_ns(s) for s in stamps]
    assert mapped == sorted(mapped)


def test_large_magnitudes_keep_sub_microsecond_precision() -> None:
    """Host ns ~1e15 (11 days uptime), MCU µs past the fifth 32-bit wrap."""
    mcu = SyntheticMcu(offset_us=2**32 * 5 - 10**15 // 1000, drift_ppm=50.0)
    start = 10**15
    assert mcu.read(start) > 2**32 * 5 - 1
    model = ClockModel()
    for i in range(100):  # noiseless, so only the 1 µs quantisation of the timer remains
        model.add_sample(*round_trip(mcu, start + i * 10**9, 20_000, 20_000))
    assert model.drift_ppm == pytest.approx(50.0, abs=0.05)
    for host_ns in range(start, start + 101 * 10**9, 7 * 10**9 + 1):
        stamp = mcu.read(host_ns)
        assert abs(model.to_host_ns(stamp) - mcu.truth_ns(stamp)) < 2_000
    # One microsecond apart on the MCU is ~one microsecond apart on the host.
    stamp = mcu.read(start + 50 * 10**9)
    assert model.to_host_ns(stamp + 1) - model.to_host_ns(stamp) in (999, 1000)


def test_window_forgets_old_samples() -> None:
    """After a step in the offset, only the last ``window`` samples count."""
    model = ClockModel(window=10, min_fit_samples=4)
    for i in range(10):
        model.add_sample(i * 10**9, i * 10**9 + 8_000_000, i * 10**6)  # rtt 8 ms
    assert model.uncertainty_ns == 4_000_000
    for i in range(10, 20):  # the host clock is 5 ms later now, with tighter pings
        model.add_sample(i * 10**9 + 5_000_000, i * 10**9 + 5_200_000, i * 10**6)
    assert model.sample_count == 10
    assert model.uncertainty_ns == 100_000
    assert model.to_host_ns(25 * 10**6) == 25 * 10**9 + 5_100_000
    assert model.drift_ppm == pytest.approx(0.0, abs=1e-6)


def test_uncertainty_grows_when_the_tightest_round_trip_leaves_the_window() -> None:
    """The bound is the window's smallest RTT (kept per sample, not per press): once that
    sample is pushed out, the bound is the next smallest, and a reset forgets it."""
    model = ClockModel(window=3, min_fit_samples=2)
    for i, rtt in enumerate((100_000, 600_000, 400_000, 800_000)):
        model.add_sample(i * 10**9, i * 10**9 + rtt, i * 10**6)
        assert model.uncertainty_ns == {0: 50_000, 1: 50_000, 2: 50_000, 3: 200_000}[i]
    model.reset()
    with pytest.raises(RuntimeError):
        _ = model.uncertainty_ns


def test_timer_restart_discards_history() -> None:
    model = ClockModel(min_fit_samples=3)
    for i in range(5):
        model.add_sample(i * 10**9, i * 10**9 + 100_000, 10**9 + i * 10**6)
    # The MCU rebooted: its timer is back near zero.
    assert model.add_sample(6 * 10**9, 6 * 10**9 + 100_000, 1_000)
    assert model.sample_count == 1
    assert model.to_host_ns(2_000) == 6 * 10**9 + 50_000 + 1_000_000


def test_reset_and_validation() -> None:
    model = ClockModel()
    model.add_sample(0, 10, 0)
    model.reset()
    assert not model.ready
    with pytest.raises(ValueError):
        ClockModel(window=0)
    with pytest.raises(ValueError):
        ClockModel(min_fit_samples=1)


def test_implausible_fit_falls_back_to_offset() -> None:
    """A rate 10 % off nominal is a broken clock, not drift: do not let it skew the mapping."""
    model = ClockModel(min_fit_samples=3)
    for i in range(5):
        model.add_sample(i * 10**9, i * 10**9 + 1_000, int(i * 10**6 * 1.1))
    assert model.drift_ppm == 0.0
    assert model.to_host_ns(int(4 * 10**6 * 1.1)) == 4 * 10**9 + 500
