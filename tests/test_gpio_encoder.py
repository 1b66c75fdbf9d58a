"""GpioEncoder against gpiozero's own MockFactory (real gpiozero devices and pins, not mocked),
and its pure quadrature decoder and angle counter.

Pins A and B are driven through the quadrature sequence; MockPin calls the encoder's
handlers synchronously with ticks = time.monotonic() at drive time, which an
:class:`tests.gpio_mock.EdgeSpy` in front of each handler records, so a test knows the exact
edge time of each step.  Only gpiozero's public API is used, here as in the driver.
"""

from __future__ import annotations

import asyncio
import io
import itertools
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from console.engine.spin.detector import AngleSample
from console.games import config_from_dict
from console.shell.runtime import Console
from console.sources.gpio import add_encoder
from drivers.gpio_buttons import GpioError
from drivers.gpio_encoder import EncoderAngle, EncoderReading, GpioEncoder, Quadrature
from drivers.gpio_pins import ticks_to_ns
from tests.conftest import until
from tests.gpio_mock import EdgeSpy

A, B, Z = 5, 6, 13
MS = 1_000_000


@dataclass
class Rig:
    factory: MockFactory
    readings: list[EncoderReading] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    opened: list[GpioEncoder] = field(default_factory=list)
    spies: dict[int, EdgeSpy] = field(default_factory=dict)

    def open(self, **kwargs: Any) -> GpioEncoder:
        """A started encoder on A/B (and the index if given), with a spy on each pin."""
        kwargs.setdefault("pin_factory", self.factory)
        kwargs.setdefault("on_error", self.errors.append)
        kwargs.setdefault("keepalive_s", None)
        kwargs.setdefault("counts_per_rev", 16)
        restamp = kwargs.pop("restamp", None)
        encoder = GpioEncoder(A, B, on_reading=self.readings.append, **kwargs)
        encoder.start(asyncio.get_running_loop())
        self.opened.append(encoder)
        for number in (A, B, kwargs.get("pin_index")):
            if number is not None:
                self.spies[number] = EdgeSpy(self.pin(number), restamp=restamp)
        return encoder

    def pin(self, number: int) -> Any:
        return self.factory.pin(number)

    def step(self, count: int = 1) -> None:
        """``count`` full quadrature cycles: clockwise (A leads B) if positive."""
        a, b = self.pin(A), self.pin(B)
        first, second = (a, b) if count > 0 else (b, a)
        for _ in range(abs(count)):
            first.drive_low()
            second.drive_low()
            first.drive_high()
            second.drive_high()

    def last_edge_ns(self, count: int) -> int:
        """Ticks of the edge that completed the last step of ``step(count)``."""
        return self.spies[B if count > 0 else A].last_ns

    def index(self) -> None:
        z = self.pin(Z)
        z.drive_low()
        z.drive_high()


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    mock = MockFactory()
    yield mock
    # gpiozero issue #1087: closing a device does not release its mock pin; start clean.
    mock.reset()


@pytest.fixture
def rig(factory: MockFactory) -> Iterator[Rig]:
    rig = Rig(factory)
    yield rig
    for encoder in rig.opened:
        encoder.close()


async def handoff() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


# -- the pure counter -------------------------------------------------------------------------


def test_counts_map_to_the_12_bit_scale() -> None:
    angle = EncoderAngle(16)
    assert angle.reading(0, 0) == EncoderReading(0, 0, 1, 0, False)
    assert angle.reading(1, 5).raw == 256
    assert angle.reading(-1, 6).raw == 3840
    assert angle.reading(16 * 3 + 4, 7).raw == 1024
    odd = EncoderAngle(360)
    assert odd.reading(90, 0).raw == 1024
    assert odd.reading(1, 0).raw == round(4096 / 360)


def test_index_references_and_checks_the_count() -> None:
    angle = EncoderAngle(16, index_angle_deg=90.0, slip_tolerance=1)
    reading, slip = angle.index(7, 100)
    assert (reading.raw, reading.referenced, slip) == (1024, True, None)
    assert angle.reading(8, 101).raw == 1280
    assert angle.index(7 + 16, 102)[1] is None  # a turn later, spot on
    assert angle.index(7 + 32 + 1, 103)[1] is None  # within the tolerance
    assert angle.index(7 + 48 + 1 + 3, 104)[1] == 3  # 3 steps ahead: corrected and reported
    assert angle.reading(7 + 48 + 4, 105).raw == 1024
    assert angle.index(7 + 64 + 4 - 2, 106)[1] == -2


# -- the pure quadrature decoder ----------------------------------------------------------------

FORWARD = [(0, True), (1, True), (0, False), (1, False)]  # A leads B: one full cycle
BACKWARD = [(1, True), (0, True), (1, False), (0, False)]  # B leads A


def decoder_at_rest() -> Quadrature:
    decoder = Quadrature()
    decoder.seed(0, False)
    decoder.seed(1, False)
    return decoder


def feed(decoder: Quadrature, edges: list[tuple[int, bool]]) -> list[str | None]:
    return [decoder.edge(line, active) for line, active in edges]


def test_a_full_cycle_counts_one_step_on_its_last_edge() -> None:
    decoder = decoder_at_rest()
    assert feed(decoder, FORWARD) == [None, None, None, "step"]
    assert decoder.steps == 1
    assert feed(decoder, FORWARD) == [None, None, None, "step"]
    assert decoder.steps == 2


def test_back_again_counts_down_through_zero() -> None:
    decoder = decoder_at_rest()
    feed(decoder, FORWARD)
    assert feed(decoder, BACKWARD) == [None, None, None, "step"]
    assert decoder.steps == 0
    assert feed(decoder, BACKWARD) == [None, None, None, "step"]
    assert decoder.steps == -1
    assert decoder.lost == 0


def test_a_wiggle_within_a_cycle_counts_nothing() -> None:
    decoder = decoder_at_rest()
    # Three edges forward, then the same three back: at rest again, no step either way.
    assert feed(decoder, [*FORWARD[:3], (0, True), (1, False), (0, False)]) == [None] * 6
    assert decoder.steps == 0
    # A turned back by one edge and on again: still one step for the cycle.
    assert feed(decoder, [(0, True), (1, True), (1, False), (1, True), (0, False), (1, False)]) == [
        None, None, None, None, None, "step"]
    assert decoder.steps == 1


def test_an_edge_to_the_level_a_line_already_has_is_a_lost_edge() -> None:
    decoder = decoder_at_rest()
    assert decoder.edge(0, True) is None
    assert decoder.edge(0, True) == "lost"  # A's release and press in between were not seen
    assert decoder.lost == 1
    # The position did not move: the rest of the cycle still completes one step.
    assert feed(decoder, FORWARD[1:]) == [None, None, "step"]
    assert decoder.steps == 1


def test_unknown_levels_move_nothing_and_an_edge_outranks_the_seed() -> None:
    decoder = Quadrature()
    assert decoder.edge(0, True) is None  # B unknown: A's level is noted, nothing counted
    decoder.seed(0, False)  # read after A's edge: too late, the edge said True
    decoder.seed(1, False)
    assert feed(decoder, FORWARD[1:]) == [None, None, "step"]


def test_starting_within_a_cycle_counts_at_its_end() -> None:
    decoder = Quadrature()
    decoder.seed(0, True)
    decoder.seed(1, True)  # both active: half a cycle on from rest
    assert feed(decoder, FORWARD[2:]) == [None, "step"]
    assert decoder.steps == 1


def test_counter_validation() -> None:
    with pytest.raises(ValueError):
        EncoderAngle(3)
    with pytest.raises(ValueError):
        EncoderAngle(16, slip_tolerance=-1)


# -- on MockFactory ---------------------------------------------------------------------------


async def test_each_step_is_stamped_with_its_edge(rig: Rig) -> None:
    rig.open()
    for expected_steps in (1, 2, 3):
        rig.step(1)
        edge_ns = rig.last_edge_ns(1)
        await asyncio.sleep(0.002)  # delivered later than it happened
        await handoff()
        reading = rig.readings[-1]
        assert reading.steps == expected_steps
        assert reading.raw == expected_steps * 256
        assert reading.at_ns == edge_ns < time.monotonic_ns() - 1 * MS
        assert reading.referenced is False
    assert len(rig.readings) == 3


async def test_counter_clockwise_steps_count_down_and_wrap(rig: Rig) -> None:
    rig.open()
    rig.step(-1)
    await handoff()
    assert (rig.readings[-1].steps, rig.readings[-1].raw) == (-1, 3840)


async def test_forward_then_back_counts_up_then_down_with_each_edge_time(rig: Rig) -> None:
    rig.open()
    rig.step(2)
    await handoff()
    forward = rig.last_edge_ns(2)
    rig.step(-1)
    await handoff()
    back = rig.last_edge_ns(-1)
    assert [(r.steps, r.raw, r.at_ns) for r in rig.readings] == [(2, 512, forward), (1, 256, back)]
    assert rig.errors == []


async def test_a_lost_edge_is_reported_once_a_second_with_a_count(rig: Rig) -> None:
    rig.open()
    spy = rig.spies[A]
    spy.report(time.monotonic(), 1)  # A reports high while it is high: an edge went missing
    spy.report(time.monotonic(), 1)
    await handoff()
    assert len(rig.errors) == 1 and "2 edge(s) lost" in rig.errors[0]
    spy.report(time.monotonic(), 1)  # within the second: held back, then counted
    await handoff()
    assert len(rig.errors) == 1
    await asyncio.sleep(1.05)
    assert len(rig.errors) == 2 and "1 edge(s) lost" in rig.errors[1]
    rig.step(1)  # counting goes on
    await handoff()
    assert rig.readings[-1].steps == 1


async def test_edges_stamped_in_the_future_are_stamped_on_arrival_and_reported(rig: Rig) -> None:
    rig.open(restamp=lambda ticks: ticks + 3600.0)  # an edge an hour from now: another clock
    before = time.monotonic_ns()
    rig.step(2)
    after = time.monotonic_ns()
    await handoff()
    assert before <= rig.readings[-1].at_ns <= after
    [error] = rig.errors  # once
    assert "future" in error


async def test_an_active_high_index_without_pull_up(rig: Rig) -> None:
    encoder = rig.open(pin_index=Z, index_pull_up=False, index_angle_deg=180.0)
    z = rig.pin(Z)
    assert z.pull == "down"
    z.drive_high()  # the activating edge
    await handoff()
    assert encoder.referenced and (rig.readings[-1].raw, rig.readings[-1].steps) == (2048, 0)
    z.drive_low()
    await handoff()
    assert len(rig.readings) == 1


async def test_a_half_step_wiggle_counts_nothing(rig: Rig) -> None:
    rig.open()
    a = rig.pin(A)
    a.drive_low()
    a.drive_high()  # back to idle without completing a cycle
    await handoff()
    assert rig.readings == []


async def test_steps_between_loop_turns_collapse_into_the_latest(rig: Rig) -> None:
    rig.open()
    rig.step(5)  # the loop does not run in between: one reading, the latest count
    await handoff()
    assert [(r.steps, r.at_ns) for r in rig.readings] == [(5, rig.last_edge_ns(5))]


async def test_index_makes_the_angle_absolute(rig: Rig) -> None:
    encoder = rig.open(pin_index=Z, index_angle_deg=90.0)
    rig.step(3)
    await handoff()
    assert not encoder.referenced and rig.readings[-1].raw == 768
    rig.index()
    falling_ns = ticks_to_ns(rig.spies[Z].ticks[-2])
    await handoff()
    at_index = rig.readings[-1]
    assert (at_index.raw, at_index.steps, at_index.referenced) == (1024, 3, True)
    assert at_index.at_ns == falling_ns  # stamped by the falling (activating) edge
    assert len(rig.readings) == 2  # the rising (releasing) edge is no index
    rig.step(2)
    await handoff()
    assert (rig.readings[-1].raw, rig.readings[-1].referenced) == (1024 + 512, True)
    assert encoder.referenced
    # A turn later the index agrees with the count: no complaint.
    rig.step(14)
    rig.index()
    await handoff()
    assert rig.errors == []
    assert rig.readings[-1].raw == 1024


async def test_slip_at_the_index_is_corrected_and_reported(rig: Rig) -> None:
    rig.open(pin_index=Z)
    rig.index()
    rig.step(16 + 3)  # three steps more than a turn before the mark comes round
    rig.index()
    await handoff()
    assert len(rig.errors) == 1 and "off by 3 step(s)" in rig.errors[0]
    assert rig.readings[-1].raw == 0


async def test_keepalive_repeats_the_angle_in_time_order(rig: Rig) -> None:
    rig.open(keepalive_s=0.01)
    rig.step(2)
    # Repeated (three readings at least), however late a loaded machine runs the timer.
    await until(lambda: len(rig.readings) >= 3)
    assert {r.raw for r in rig.readings} == {512}
    stamps = [r.at_ns for r in rig.readings]
    assert stamps == sorted(stamps)
    assert stamps[-1] > stamps[0]
    assert stamps[-1] <= time.monotonic_ns()


async def test_readings_feed_the_spin_detector_as_samples(rig: Rig) -> None:
    rig.open()
    rig.step(1)
    await handoff()
    reading = rig.readings[-1]
    sample = AngleSample(reading.at_ns, reading.raw, reading.status)
    assert (sample.raw, sample.status) == (256, 1)


async def test_close_releases_the_pins_and_start_twice_is_refused(rig: Rig, factory: MockFactory) -> None:
    encoder = rig.open(pin_index=Z)
    with pytest.raises(RuntimeError):
        encoder.start(asyncio.get_running_loop())
    encoder.close()
    encoder.close()  # idempotent
    rig.step(1)
    await handoff()
    assert rig.readings == []


async def test_a_factory_on_its_own_clock_is_refused(factory: MockFactory) -> None:
    class OwnClockFactory(MockFactory):  # type: ignore[misc]
        @staticmethod
        def ticks() -> int:
            return 3_141_592_653

    encoder = GpioEncoder(A, B, counts_per_rev=16, on_reading=lambda r: None, pin_factory=OwnClockFactory())
    with pytest.raises(GpioError, match="own clock"):
        encoder.start(asyncio.get_running_loop())


async def test_unknown_factory_name_is_refused() -> None:
    encoder = GpioEncoder(A, B, counts_per_rev=16, on_reading=lambda r: None, pin_factory="no-such-factory")
    with pytest.raises(GpioError, match="unknown pin factory"):
        encoder.start(asyncio.get_running_loop())


def test_keepalive_validation() -> None:
    with pytest.raises(ValueError):
        GpioEncoder(A, B, counts_per_rev=16, on_reading=lambda r: None, keepalive_s=0)


async def test_pins_in_use_are_refused_with_nothing_claimed(rig: Rig) -> None:
    rig.open()
    second = GpioEncoder(A, B, counts_per_rev=16, on_reading=lambda r: None, pin_factory=rig.factory)
    with pytest.raises(GpioError, match="cannot claim GPIO pins 5/6"):
        second.start(asyncio.get_running_loop())
    third = GpioEncoder(7, 8, counts_per_rev=16, on_reading=lambda r: None, pin_factory=rig.factory,
                        pin_index=A)
    with pytest.raises(GpioError, match=r"cannot claim GPIO pin 5 \(encoder index\)"):
        third.start(asyncio.get_running_loop())
    # The A/B pins of the failed attempt were given back.
    fourth = GpioEncoder(7, 8, counts_per_rev=16, on_reading=lambda r: None, pin_factory=rig.factory)
    fourth.start(asyncio.get_running_loop())
    fourth.close()


# -- on the console ----------------------------------------------------------------------------


async def test_the_encoders_readings_are_thinned_like_an_mcus(factory: MockFactory) -> None:
    """The table's GPIO encoder feeds the stop detector through the console's angle thinning
    (spin.max_rate_hz), as an MCU's sensor does: a fast burst of steps keeps one sample per
    1/max_rate_hz; a slower run keeps each."""
    config = config_from_dict({"game": {"kind": "chgk"}, "spin": {"max_rate_hz": 5.0},
                               "sources": {"top": {"kind": "gpio_encoder", "pins": [A, B],
                                                   "counts_per_turn": 16}}}, "encoder.toml")
    journal = io.StringIO()
    console = Console(config, journal=journal)
    add_encoder(console.sources, "top", [A, B], 16, pin_factory=factory)
    rig = Rig(factory)
    console.sources.start_local_inputs()
    try:
        for _ in range(10):  # ten steps at once: a burst, mostly inside one 200-ms interval
            rig.step(1)
            await handoff()
        rig.step(1)
        await asyncio.sleep(0.25)  # the next step after the interval passes again
        rig.step(1)
        # Judged on the edges' own stamps: wait for the last step's sample rather than guess
        # how long a loaded machine takes to hand the edges over (CI beside a CPU-heavy process).
        def kept() -> list[dict[str, Any]]:
            return [json.loads(line) for line in journal.getvalue().splitlines() if '"angle"' in line]

        for _ in range(500):  # 5 s at most
            if kept() and kept()[-1]["angle"] == 12 * 256:
                break
            await asyncio.sleep(0.01)
        samples = kept()
        assert samples[0]["angle"] == 256 and samples[-1]["angle"] == 12 * 256, samples
        assert all(b["at_ms"] - a["at_ms"] >= 200 for a, b in itertools.pairwise(samples)), samples
        assert len(samples) < 12  # the burst was thinned, not journaled step by step
    finally:
        console.sources.close_local_inputs()
