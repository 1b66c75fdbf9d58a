"""Thinning the top's angle stream (console/shell/angle_thinning.py): at most one sample per
1 / spin.max_rate_hz, a change of sensor status always kept, and a stream an MCU's session
already thinned on its own clock passed whole though its crystal runs fast."""

from __future__ import annotations

from console.shell.angle_thinning import AngleThinning

MS = 1_000_000


def test_a_fast_stream_keeps_one_sample_per_interval() -> None:
    thinning = AngleThinning(250.0)  # 4 ms
    kept = [t for t in range(0, 20 * MS, MS) if thinning.admit(t, 1)]
    assert kept == [0, 4 * MS, 8 * MS, 12 * MS, 16 * MS]


def test_a_change_of_status_is_always_kept() -> None:
    thinning = AngleThinning(250.0)
    assert thinning.admit(0, 1)
    assert not thinning.admit(MS, 1)
    assert thinning.admit(2 * MS, 0b011)  # the magnet too weak: kept at once


def test_samples_thinned_on_a_fast_crystal_all_pass() -> None:
    # The session kept one reading per 4 000 µs of the device's clock; the device runs 200 ppm
    # fast, so here they come 3 999.2 µs apart.
    thinning = AngleThinning(250.0)
    spacing = 4 * MS - 800
    assert all(thinning.admit(i * spacing, 1) for i in range(50))


def test_zero_keeps_every_sample() -> None:
    thinning = AngleThinning(0.0)
    assert all(thinning.admit(t, 1) for t in range(0, 100, 1))
