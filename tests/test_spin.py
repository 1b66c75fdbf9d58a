"""The spin detector against the simulated top, in virtual time (no sleeping, no threads).

Each test schedules spins, nudges and faults on a seeded :class:`SimTop`, feeds its samples
to a :class:`SpinDetector` the way the runtime will (every sample handled ``DELAY`` after it
was taken, ``on_timer`` called at every ``next_deadline()`` in between) and checks the
events against what the simulation says really happened.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

import pytest

from console.engine.spin.detector import AngleSample, SpinConfig, SpinDetector, SpinPhase, fault_flags
from console.engine.spin.events import SensorFlag, SpinResult
from console.engine.spin.sectors import SectorMap
from console.wire import events_json, to_json
from drivers.sim_top import SimTop, SpinTruth

MS = 1_000_000
S = 1_000_000_000
DELAY = 2 * MS  # sample taken -> handled (serial link, event loop)
STOP_BUDGET = 300 * MS  # the stop must be reported within this of the true stop
ANGLE_TOLERANCE_DEG = 0.75
REST_TIME_TOLERANCE = 60 * MS  # stopped_at_ns vs the true stop (measured: -48..+45 ms)
BURST_NS = 40 * MS  # how long a box gathers the top's readings (the firmware's ANGLE_BATCH_US)


def drive(
    det: SpinDetector,
    samples: Iterable[tuple[int, int, int]],
    *,
    until_ns: int,
    delay_ns: int = DELAY,
    burst_ns: int | None = None,
) -> list[dict[str, Any]]:
    """Feed ``samples`` like the runtime: timers at their deadlines, samples ``delay_ns`` late.
    With ``burst_ns``, as a box's bursts reach the table (PROTOCOL.md 5.8): every sample of a
    burst handed at one ``now``, its newest one's time plus ``delay_ns``."""
    if burst_ns is None:
        bursts: Iterable[list[tuple[int, int, int]]] = ([sample] for sample in samples)
    else:
        bursts = (list(group) for _, group in itertools.groupby(samples, key=lambda s: s[0] // burst_ns))
    events: list[dict[str, Any]] = []
    for burst in bursts:
        now = burst[-1][0] + delay_ns
        fire_timers(det, now, events)
        for t, raw, status in burst:
            events += unwrap(det.handle(AngleSample(t, raw, status), now))
    fire_timers(det, until_ns, events)
    return events


def fire_timers(det: SpinDetector, up_to: int, events: list[dict[str, Any]]) -> None:
    for _ in range(100):
        due = det.next_deadline()
        if due is None or due > up_to:
            return
        events += unwrap(det.on_timer(due))
    raise AssertionError("next_deadline() did not move on after on_timer()")


def unwrap(outputs: Iterable[object]) -> list[dict[str, Any]]:
    outputs = list(outputs)
    events = events_json(outputs)
    assert len(events) == len(outputs)  # the detector only emits events
    return events


def result_json(result: SpinResult) -> dict[str, Any]:
    """The standing result as the fields of its `spin_stopped`."""
    found: dict[str, Any] = to_json(result)
    return found


def without_latency(stopped: dict[str, Any]) -> dict[str, Any]:
    """A `spin_stopped` object without what belongs to the event, not to the result."""
    return {k: v for k, v in stopped.items() if k not in ("type", "t_ns", "latency_ms")}


def kinds(events: list[dict[str, Any]], *, live: bool = False) -> list[str]:
    return [e["type"] for e in events if live or e["type"] != "spin_angle"]


def only(events: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    found = [e for e in events if e["type"] == kind]
    assert len(found) == 1, f"expected one {kind}, got {kinds(events)}"
    return found[0]


def angle_error(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


def spin_once(seed: int, rate_hz: float, **spin: Any) -> tuple[SimTop, SpinTruth, list[dict[str, Any]]]:
    top = SimTop(seed=seed, rate_hz=rate_hz)
    truth = top.spin(500 * MS, **spin)
    end = truth.stopped_ns + 2 * S
    events = drive(SpinDetector(), top.samples(0, end), until_ns=end)
    return top, truth, events


def check_stop(truth: SpinTruth, stopped: dict[str, Any]) -> None:
    late = stopped["t_ns"] - truth.stopped_ns
    assert 0 < late <= STOP_BUDGET, f"stop reported {late / MS:.1f} ms after the true stop"
    assert abs(stopped["stopped_at_ns"] - truth.stopped_ns) <= REST_TIME_TOLERANCE
    assert stopped["latency_ms"] == pytest.approx((stopped["t_ns"] - stopped["stopped_at_ns"]) / MS)
    # Without a SectorMap angle_deg is the sensor angle, which SimTop mounts at offset 0, and
    # there is no sector to name (the table always has a map).
    assert stopped["sector"] is None and stopped["near_boundary"] is None
    assert angle_error(stopped["angle_deg"], truth.rest_raw * 360 / 4096) <= ANGLE_TOLERANCE_DEG
    assert stopped["turns"] == pytest.approx(truth.turns, abs=0.02)


# -- random spins -------------------------------------------------------------------------------


@pytest.mark.parametrize("rate_hz", [1000.0, 100.0])
def test_fifty_random_spins_start_and_stop_once_on_time_at_the_rest_angle(rate_hz: float) -> None:
    lates = []
    for seed in range(50):
        _, truth, events = spin_once(seed, rate_hz)
        assert kinds(events) == ["spin_started", "spin_stopped"], f"seed {seed}"
        started = events[kinds(events, live=True).index("spin_started")]
        assert truth.started_ns <= started["started_at_ns"] < started["t_ns"] < truth.stopped_ns
        assert started["direction"] == "cw"
        stopped = only(events, "spin_stopped")
        check_stop(truth, stopped)
        assert stopped["direction"] == "cw" and stopped["degraded"] is False
        lates.append(stopped["t_ns"] - truth.stopped_ns)

        live = [e for e in events if e["type"] == "spin_angle"]
        gaps = [b["t_ns"] - a["t_ns"] for a, b in itertools.pairwise(live)]
        live_hz = SpinConfig().live_rate_hz
        assert min(gaps) >= S / live_hz, f"more than {live_hz:g} spin_angle events per second"
        spinning_s = (stopped["t_ns"] - started["t_ns"]) / S
        assert len(live) >= 0.8 * live_hz * spinning_s - 1, f"the displays get ~{live_hz:g} updates a second"
        assert all(started["t_ns"] <= e["t_ns"] <= stopped["t_ns"] for e in live)
    assert max(lates) <= STOP_BUDGET


def test_counter_clockwise_spin() -> None:
    _, truth, events = spin_once(7, 1000.0, direction=-1)
    assert kinds(events) == ["spin_started", "spin_stopped"]
    assert only(events, "spin_started")["direction"] == "ccw"
    stopped = only(events, "spin_stopped")
    assert stopped["direction"] == "ccw"
    check_stop(truth, stopped)


def test_same_inputs_same_events() -> None:
    assert spin_once(11, 1000.0)[2] == spin_once(11, 1000.0)[2]


def test_sector_and_calibrated_angle_with_a_reversed_offset_sensor() -> None:
    """Sensor under the table (counting anticlockwise), mounted 123.4° off; 13 sectors (003 6.2)."""
    sectors = SectorMap(13, zero_offset_deg=123.4, clockwise_increases=False)
    checked = 0
    for seed in range(10):
        top = SimTop(seed=seed, sensor_offset_deg=123.4, clockwise_increases=False)
        truth = top.spin(500 * MS)
        end = truth.stopped_ns + S
        det = SpinDetector(sectors=sectors)
        events = drive(det, top.samples(0, end), until_ns=end)
        stopped = only(events, "spin_stopped")
        assert stopped["direction"] == "cw"  # the top spun clockwise, whatever the sensor counts
        assert angle_error(stopped["angle_deg"], truth.rest_deg) <= ANGLE_TOLERANCE_DEG
        assert stopped["near_boundary"] == sectors.near_boundary(stopped["angle_deg"], 2.0)
        if sectors.boundary_distance_deg(truth.rest_deg) > ANGLE_TOLERANCE_DEG:
            assert stopped["sector"] == sectors.sector_at(truth.rest_deg)
            checked += 1
        # Clockwise at speed (at the very end the wobble rocks it back and forth).
        live = [e["speed_dps"] for e in events if e["type"] == "spin_angle" and e["speed_dps"]]
        assert all(speed > 0 for speed in live if abs(speed) > 50)
    assert checked >= 8


# -- spins that do not count --------------------------------------------------------------------


def test_short_spin_is_invalid() -> None:
    # 200 °/s run down in 1.5 s: ~160°, fast enough to be a spin attempt, short of a turn.
    _, truth, events = spin_once(3, 1000.0, omega0_dps=200.0, duration_s=1.5, viscous_share=0.0)
    assert kinds(events) == ["spin_invalid"]
    invalid = events[0]
    assert invalid["reason"] == "too_short"
    assert invalid["turns"] == pytest.approx(truth.turns, abs=0.02) and invalid["turns"] < 1
    assert 0 < invalid["t_ns"] - truth.stopped_ns <= STOP_BUDGET


def test_just_under_a_turn_is_invalid_just_over_counts() -> None:
    for omega0, expected in ((400.0, ["spin_invalid"]), (560.0, ["spin_started", "spin_stopped"])):
        # viscous_share 0, spin-up 0.1 s: rotation = omega0 * (1.5 / 2 + 0.1 / 2) = 0.8 * omega0
        _, truth, events = spin_once(5, 1000.0, omega0_dps=omega0, duration_s=1.5,
                                     viscous_share=0.0, spinup_s=0.1)
        assert kinds(events) == expected, (omega0, truth.turns)


def test_noise_only_never_starts() -> None:
    for rate in (1000.0, 100.0):
        top = SimTop(seed=1, rate_hz=rate, noise_lsb=3)
        det = SpinDetector()
        assert drive(det, top.samples(0, 60 * S), until_ns=60 * S) == []
        assert det.phase is SpinPhase.REST
        assert abs(det.speed_dps or 0.0) < 15


def test_touching_the_arrow_before_any_spin_emits_nothing() -> None:
    top = SimTop(seed=2)
    t = 1 * S
    for delta in (10.0, -25.0, 4.0, 60.0, -2.0):  # quick pushes (peak > 90 °/s) and creeps
        t = top.nudge(t, delta, duration_s=0.15) + 400 * MS
    for delta in (1.5, -2.0, 1.0, -1.5, 2.0, -1.0) * 5:  # a hand resting on the arrow, trembling
        t = top.nudge(t, delta, duration_s=0.08)
    det = SpinDetector()
    assert drive(det, top.samples(0, t + S), until_ns=t + S) == []
    assert det.result is None


# -- after the stop ---------------------------------------------------------------------------


def test_nudge_after_the_stop_is_reported_and_the_result_stands() -> None:
    top = SimTop(seed=4)
    truth = top.spin(500 * MS)
    first = top.nudge(truth.stopped_ns + 2 * S, 8.0)
    creep = top.nudge(first + S, 1.5, duration_s=1.0)  # under nudge_deg: nothing
    second = top.nudge(creep + S, -20.0)
    end = second + S
    det = SpinDetector()
    events = drive(det, top.samples(0, end), until_ns=end)
    assert kinds(events) == ["spin_started", "spin_stopped", "spin_nudged", "spin_nudged"]
    stopped = only(events, "spin_stopped")
    nudges = [e for e in events if e["type"] == "spin_nudged"]
    assert truth.stopped_ns + 2 * S < nudges[0]["at_ns"] < first
    assert nudges[0]["result_angle_deg"] == stopped["angle_deg"]
    assert 3.0 < nudges[0]["moved_deg"] < 8.5
    assert creep + S < nudges[1]["at_ns"] < second
    assert det.result is not None and result_json(det.result) == without_latency(stopped)
    assert det.phase is SpinPhase.REST


def test_a_new_spin_supersedes_the_result() -> None:
    top = SimTop(seed=8)
    first = top.spin(500 * MS)
    second = top.spin(first.stopped_ns + 3 * S)
    end = second.stopped_ns + S
    det = SpinDetector()
    events = drive(det, top.samples(0, end), until_ns=end)
    # Re-spinning moves the arrow, so the old result is first reported nudged.
    assert kinds(events) == ["spin_started", "spin_stopped", "spin_nudged", "spin_started", "spin_stopped"]
    stops = [e for e in events if e["type"] == "spin_stopped"]
    check_stop(first, stops[0])
    check_stop(second, stops[1])
    assert det.result is not None and result_json(det.result) == without_latency(stops[1])


def test_short_respin_after_a_result_is_invalid_and_clears_it() -> None:
    top = SimTop(seed=9)
    truth = top.spin(500 * MS)
    top.spin(truth.stopped_ns + 2 * S, omega0_dps=200.0, duration_s=1.5, viscous_share=0.0)
    end = truth.stopped_ns + 5 * S
    det = SpinDetector()
    events = drive(det, top.samples(0, end), until_ns=end)
    assert kinds(events) == ["spin_started", "spin_stopped", "spin_nudged", "spin_invalid"]
    assert det.result is None


# -- stopping on time ---------------------------------------------------------------------------


def test_stop_is_declared_on_the_timer_when_samples_stop_coming() -> None:
    """A source that sends only on change falls silent at rest: next_deadline() declares the stop."""
    top = SimTop(seed=12)
    truth = top.spin(500 * MS)
    end = truth.stopped_ns + 2 * S
    config = SpinConfig(silence_ns=None)
    det = SpinDetector(config)
    # The sensor sends until 20 ms after the stop, then nothing (its reading no longer changes).
    events = drive(det, top.samples(0, truth.stopped_ns + 20 * MS), until_ns=end)
    stopped = only(events, "spin_stopped")
    assert stopped["t_ns"] > truth.stopped_ns + 20 * MS + DELAY  # on the timer, after the last sample
    check_stop(truth, stopped)
    assert det.next_deadline() is None


@pytest.mark.parametrize("seed", range(8))
def test_bursts_handed_at_one_time_start_and_stop_once_on_time(seed: int) -> None:
    """A box reading at 250 Hz sends its readings every 40 ms (as the table keeps them): each
    burst's samples come at one host time. The spin starts and stops once, within the budget,
    at its resting angle, and the live angle comes at most ``live_rate_hz`` times a second."""
    top = SimTop(seed=100 + seed, rate_hz=250.0)
    truth = top.spin(500 * MS)
    end = truth.stopped_ns + 2 * S
    events = drive(SpinDetector(), top.samples(0, end), until_ns=end, burst_ns=BURST_NS)
    assert kinds(events) == ["spin_started", "spin_stopped"]
    check_stop(truth, only(events, "spin_stopped"))
    live = [e["t_ns"] for e in events if e["type"] == "spin_angle"]
    assert live and all(later - earlier >= 50 * MS for earlier, later in itertools.pairwise(live))


def test_bursts_that_stop_coming_still_give_the_stop_on_the_timer() -> None:
    """The bursts end 20 ms after the top stops (a source silent at rest): the stop comes from
    on_timer between bursts, after the last burst's samples were all handed at one time."""
    top = SimTop(seed=12, rate_hz=250.0)
    truth = top.spin(500 * MS)
    end = truth.stopped_ns + 2 * S
    det = SpinDetector(SpinConfig(silence_ns=None))
    events = drive(det, top.samples(0, truth.stopped_ns + 20 * MS), until_ns=end, burst_ns=BURST_NS)
    stopped = only(events, "spin_stopped")
    assert stopped["t_ns"] > truth.stopped_ns + 20 * MS + DELAY  # on the timer, after the last burst
    check_stop(truth, stopped)


def test_hold_time_is_configurable() -> None:
    declared = []
    for hold in (200 * MS, 100 * MS):
        top = SimTop(seed=13)
        truth = top.spin(500 * MS)
        end = truth.stopped_ns + 2 * S
        det = SpinDetector(SpinConfig(hold_ns=hold))
        declared.append(only(drive(det, top.samples(0, end), until_ns=end), "spin_stopped")["t_ns"])
    # At least the difference of the holds (the longer run may also start later).
    assert declared[0] - declared[1] >= 100 * MS
    # Too short a hold: the still run starts while the top crawls its last degree, and this
    # one is declared stopped before it really is.
    assert declared[1] < truth.stopped_ns < declared[0]


# -- sensor health ------------------------------------------------------------------------------


def test_magnet_missing_is_a_fault_and_its_garbage_never_starts_a_spin() -> None:
    top = SimTop(seed=14)
    top.fault(1 * S, 3 * S, status=0)
    det = SpinDetector()
    events = drive(det, top.samples(0, 4 * S), until_ns=4 * S)
    assert kinds(events) == ["sensor_fault", "sensor_ok"]
    assert events[0]["flags"] == ["magnet_missing"] and events[0]["status"] == 0
    assert events[0]["at_ns"] == 1 * S and events[1]["at_ns"] == 3 * S
    assert det.stats.no_angle == 2000


def test_fault_reported_once_per_change() -> None:
    top = SimTop(seed=15)
    top.fault(1 * S, 2 * S, status=0b011)
    top.fault(2 * S, 3 * S, status=0b101)
    det = SpinDetector()
    events = drive(det, top.samples(0, 4 * S), until_ns=4 * S)
    assert [(e["type"], e.get("flags")) for e in events] == [
        ("sensor_fault", ["magnet_too_weak"]),
        ("sensor_fault", ["magnet_too_strong"]),
        ("sensor_ok", None),
    ]


def test_fault_during_a_spin_marks_it_degraded_but_the_rest_angle_holds() -> None:
    top = SimTop(seed=16)
    truth = top.spin(500 * MS)
    middle = (truth.started_ns + truth.stopped_ns) // 2
    top.fault(middle, middle + 200 * MS, status=0)  # 200 ms without an angle, mid-spin
    end = truth.stopped_ns + 2 * S
    events = drive(SpinDetector(), top.samples(0, end), until_ns=end)
    assert kinds(events) == ["spin_started", "sensor_fault", "sensor_ok", "spin_stopped"]
    stopped = only(events, "spin_stopped")
    assert stopped["degraded"] is True
    assert 0 < stopped["t_ns"] - truth.stopped_ns <= STOP_BUDGET
    assert angle_error(stopped["angle_deg"], truth.rest_raw * 360 / 4096) <= ANGLE_TOLERANCE_DEG


def test_weak_magnet_at_the_stop_still_stops_on_time() -> None:
    """Too weak: the AS5600 still measures, with more noise; the result is marked degraded."""
    top = SimTop(seed=19)
    truth = top.spin(500 * MS)
    top.fault(truth.stopped_ns - 2 * S, truth.stopped_ns + 3 * S, status=0b011)
    end = truth.stopped_ns + 2 * S
    events = drive(SpinDetector(), top.samples(0, end), until_ns=end)
    assert kinds(events) == ["spin_started", "sensor_fault", "spin_stopped"]
    stopped = only(events, "spin_stopped")
    assert stopped["degraded"] is True
    assert 0 < stopped["t_ns"] - truth.stopped_ns <= STOP_BUDGET
    assert angle_error(stopped["angle_deg"], truth.rest_raw * 360 / 4096) <= ANGLE_TOLERANCE_DEG


def test_silence_is_reported_once_and_recovers() -> None:
    top = SimTop(seed=17)
    top.silence(1 * S, 2 * S)
    det = SpinDetector()
    events = drive(det, top.samples(0, 3 * S), until_ns=3 * S)
    assert kinds(events) == ["sensor_silent", "sensor_ok"]
    silent, ok = events
    last = 1 * S - top.period_ns
    assert silent["last_sample_ns"] == last
    assert silent["t_ns"] == last + DELAY + 500 * MS  # nothing *received* for 500 ms
    assert ok["at_ns"] == 2 * S


def test_a_sensor_that_never_speaks_is_silent() -> None:
    det = SpinDetector(started_at_ns=10 * S)
    assert det.next_deadline() == 10 * S + 500 * MS
    assert unwrap(det.on_timer(10 * S + 499 * MS)) == []
    events = unwrap(det.on_timer(10 * S + 500 * MS))
    assert events == [{"type": "sensor_silent", "t_ns": 10 * S + 500 * MS, "last_sample_ns": None}]
    assert det.next_deadline() is None
    assert SpinDetector().next_deadline() is None  # no start time: the watchdog waits for a sample


def test_silence_mid_spin_then_resting_top() -> None:
    top = SimTop(seed=18)
    truth = top.spin(500 * MS)
    top.silence(truth.stopped_ns - 1 * S, truth.stopped_ns + 1 * S)
    end = truth.stopped_ns + 3 * S
    events = drive(SpinDetector(), top.samples(0, end), until_ns=end)
    assert kinds(events) == ["spin_started", "sensor_silent", "sensor_ok", "spin_stopped"]
    stopped = only(events, "spin_stopped")
    assert stopped["degraded"] is True
    assert angle_error(stopped["angle_deg"], truth.rest_raw * 360 / 4096) <= ANGLE_TOLERANCE_DEG


# -- inputs -----------------------------------------------------------------------------------


def test_out_of_order_samples_are_ignored() -> None:
    det = SpinDetector()
    assert unwrap(det.handle(AngleSample(10 * MS, 100), 10 * MS)) == []
    assert unwrap(det.handle(AngleSample(5 * MS, 3000), 11 * MS)) == []
    assert det.stats.out_of_order == 1


def test_sample_and_config_validation() -> None:
    with pytest.raises(ValueError):
        AngleSample(0, 4096)
    with pytest.raises(ValueError):
        AngleSample(0, 0, 0x08)
    with pytest.raises(ValueError):
        SpinConfig(hold_ns=0)
    with pytest.raises(ValueError):
        SpinConfig(stop_speed_dps=100.0, start_speed_dps=90.0)
    with pytest.raises(ValueError):
        SpinConfig(silence_ns=0)


def test_fault_flags() -> None:
    assert fault_flags(0b001) == ()
    assert fault_flags(0b000) == (SensorFlag.MAGNET_MISSING,)
    assert fault_flags(0b111) == (SensorFlag.MAGNET_TOO_WEAK, SensorFlag.MAGNET_TOO_STRONG)
