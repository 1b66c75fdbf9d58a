"""Sectors of the game table and the calibration of the top's sensor (console.engine.spin.sectors).

Sector counts: 12 (seed 000, 3.8.1 «На игровом столе располагается 12 секторов») and 13
(seed 003, 6.2 «Игровой стол разделён на 13 секторов»).  Neither seed says the sectors are
equal, so given widths are supported alongside equal ones.  Numbering is clockwise, the
direction in which a played sector passes the question on (seed 003, 6.1.1).
"""

from __future__ import annotations

import pytest

from console.engine.spin.sectors import (
    RAW_PER_TURN,
    Calibration,
    CalibrationError,
    SectorMap,
    calibrate,
    circular_mean_raw,
    raw_to_deg,
)
from drivers.sim_top import SimTop

MS = 1_000_000


# -- counts and widths ------------------------------------------------------------------------


def test_twelve_equal_sectors_seed_000_3_8_1() -> None:
    table = SectorMap(12)
    assert table.widths == (30.0,) * 12
    assert table.boundaries_deg[:3] == (0.0, 30.0, 60.0)
    assert [table.sector_at(a) for a in (0.0, 29.99, 30.0, 180.0, 359.99)] == [1, 1, 2, 7, 12]
    assert table.centre_deg(1) == 15.0 and table.centre_deg(12) == 345.0


def test_thirteen_equal_sectors_seed_003_6_2() -> None:
    table = SectorMap(13)
    width = 360.0 / 13  # 27.69°
    assert table.sector_at(width - 0.01) == 1
    assert table.sector_at(width + 0.01) == 2
    assert table.sector_at(12 * width + 0.01) == 13
    assert table.centres_deg == pytest.approx([width * (i + 0.5) for i in range(13)])
    assert [table.sector_at(c) for c in table.centres_deg] == list(range(1, 14))


def test_given_widths() -> None:
    # A 13th sector twice as wide as the others (seed 003, 6.2 names it as special).
    widths = (25.714285714285715,) * 12 + (51.42857142857143,)
    assert sum(widths) == pytest.approx(360.0)
    table = SectorMap(13, widths_deg=widths)
    assert table.sector_at(308.0) == 12
    assert table.sector_at(309.0) == 13  # 12 * 25.714 = 308.57
    assert table.centre_deg(13) == pytest.approx(360.0 - 51.42857142857143 / 2)
    uneven = SectorMap(12, widths_deg=(40, 20) * 6)
    assert uneven.boundaries_deg[:4] == (0.0, 40.0, 60.0, 100.0)
    assert [uneven.sector_at(a) for a in (39.0, 41.0, 59.0, 61.0)] == [1, 2, 2, 3]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"count": 11},
        {"count": 14},
        {"count": True},
        {"count": 12, "widths_deg": (30.0,) * 11},
        {"count": 12, "widths_deg": (30.0,) * 11 + (31.0,)},
        {"count": 12, "widths_deg": (0.0, 60.0) + (30.0,) * 10},
        {"count": 12, "zero_offset_deg": float("nan")},
    ],
)
def test_invalid_maps_are_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        SectorMap(**kwargs)  # type: ignore[arg-type]


def test_wrap_at_0_and_360() -> None:
    table = SectorMap(12)
    assert table.sector_at(360.0) == 1
    assert table.sector_at(-0.5) == 12
    assert table.sector_at(725.0) == 1
    assert table.sector_at(-1e-17) == 1  # -1e-17 % 360 is 360.0 in floating point
    assert table.boundary_distance_deg(359.0) == pytest.approx(1.0)
    assert table.boundary_distance_deg(0.5) == pytest.approx(0.5)
    assert table.near_boundary(359.5, 1.0) and table.near_boundary(0.5, 1.0)
    assert not table.near_boundary(15.0, 14.9)
    assert table.near_boundary(15.0, 15.0)
    with pytest.raises(ValueError):
        table.near_boundary(15.0, -1.0)


def test_boundary_margin_on_every_boundary() -> None:
    table = SectorMap(13)
    for start in table.boundaries_deg:
        assert table.near_boundary(start + 1.9, 2.0)
        assert table.near_boundary(start - 1.9, 2.0)
        assert not table.near_boundary(start + 2.1, 2.0)


def test_next_clockwise_seed_003_6_1_1() -> None:
    table = SectorMap(13)
    assert table.next_clockwise(1) == 2
    assert table.next_clockwise(13) == 1
    with pytest.raises(ValueError):
        table.next_clockwise(14)


# -- sensor angle -> table angle ----------------------------------------------------------------


def test_zero_offset_and_direction() -> None:
    plain = SectorMap(12)
    assert plain.angle_deg(0) == 0.0
    assert plain.angle_deg(1024) == 90.0
    assert plain.angle_deg(4096 + 1024) == 90.0

    offset = SectorMap(12, zero_offset_deg=100.0)
    assert offset.angle_deg(100.0 / 360 * RAW_PER_TURN) == pytest.approx(0.0, abs=1e-9)
    assert offset.angle_deg(0) == pytest.approx(260.0)
    assert offset.sector_at(offset.angle_deg(0)) == 9

    reversed_ = SectorMap(12, zero_offset_deg=100.0, clockwise_increases=False)
    # Clockwise on the table is decreasing raw: 10° clockwise of the zero reads 90°.
    assert reversed_.angle_deg(90.0 / 360 * RAW_PER_TURN) == pytest.approx(10.0)
    assert reversed_.angle_deg(110.0 / 360 * RAW_PER_TURN) == pytest.approx(350.0)
    for table in (plain, offset, reversed_):
        for angle in (0.0, 0.5, 123.4, 359.9):
            assert angle_close(table.angle_deg(table.raw_at(angle)), angle)
            assert 0.0 <= table.raw_at(angle) < RAW_PER_TURN


def angle_close(a: float, b: float, tol: float = 1e-9) -> bool:
    return abs((a - b + 180.0) % 360.0 - 180.0) <= tol


def test_raw_to_deg() -> None:
    assert raw_to_deg(0) == 0.0
    assert raw_to_deg(2048) == 180.0
    assert raw_to_deg(-1024) == 270.0


# -- calibration ------------------------------------------------------------------------------


def test_calibrate_clockwise_increasing() -> None:
    cal = calibrate(1000, [1010, 1040, 1090, 1150])
    assert isinstance(cal, Calibration)
    assert cal.zero_offset_deg == pytest.approx(1000 * 360 / 4096)
    assert cal.clockwise_increases is True


def test_calibrate_decreasing_across_the_wrap() -> None:
    # Zero at raw 20; turning clockwise the reading goes down through 0 to 4000.
    cal = calibrate([18, 20, 22, 20], [10, 4090, 4040, 4000])
    assert cal.clockwise_increases is False
    assert cal.zero_offset_deg == pytest.approx(20 * 360 / 4096)
    table = cal.apply(SectorMap(13))
    assert table.angle_deg(20) == pytest.approx(0.0, abs=1e-9)
    assert table.angle_deg(4000) == pytest.approx(116 * 360 / 4096)  # 116 counts clockwise


def test_zero_readings_averaged_on_the_circle() -> None:
    mean = circular_mean_raw([4094, 2])
    assert 0.0 <= mean < RAW_PER_TURN
    assert min(mean, RAW_PER_TURN - mean) < 1e-6
    assert circular_mean_raw([100, 102]) == pytest.approx(101.0)


@pytest.mark.parametrize(
    ("zero", "turn", "why"),
    [
        ([], [100], "no readings"),
        ([0, 1024, 2048, 3072], [100], "spread"),
        (100, [], "no readings"),
        (100, [102, 101, 103], "moved only"),
        (100, [600, 1200, 1800, 2400], "less than half a turn"),
    ],
)
def test_calibration_errors_say_what_to_redo(zero: int | list[int], turn: list[int], why: str) -> None:
    with pytest.raises(CalibrationError, match=why):
        calibrate(zero, turn)


def test_calibration_refuses_readings_out_of_range() -> None:
    with pytest.raises(ValueError):
        calibrate(4096, [10])
    with pytest.raises(ValueError):
        calibrate(10, [10, -1])


@pytest.mark.parametrize(("offset", "clockwise_increases"), [(0.0, True), (123.4, False), (359.0, True)])
def test_calibration_ritual_on_the_simulated_top(offset: float, clockwise_increases: bool) -> None:
    """Point the (noisy) simulated arrow at the boundary, turn it 15° clockwise, calibrate."""
    top = SimTop(seed=5, start_deg=0.0, sensor_offset_deg=offset, clockwise_increases=clockwise_increases)
    zero = [raw for _, raw, _ in top.samples(0, 200 * MS)]
    end = top.nudge(300 * MS, 15.0, duration_s=0.5)
    turn = [raw for _, raw, _ in top.samples(300 * MS, end + 100 * MS)]
    cal = calibrate(zero, turn)
    assert cal.clockwise_increases is clockwise_increases
    assert angle_close(cal.zero_offset_deg, offset, tol=0.1)
    table = cal.apply(SectorMap(12))
    assert table.sector_at(table.angle_deg(turn[-1])) == 1
