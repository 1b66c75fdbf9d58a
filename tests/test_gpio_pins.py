"""drivers.gpio_pins: edge stamps, and EdgeInput on gpiozero's MockFactory (public API only)."""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory

from drivers.gpio_pins import EdgeInput, PinEdge, stamp_edge, ticks_to_ns
from tests.gpio_mock import EdgeSpy

NOW_NS = 5_000_000_000_000


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    mock = MockFactory()
    yield mock
    mock.reset()  # gpiozero issue #1087: closing a device does not release its mock pin


def test_stamp_is_the_ticks_when_they_can_be_on_the_monotonic_clock() -> None:
    assert stamp_edge(4999.5, NOW_NS) == (4_999_500_000_000, True)
    assert stamp_edge(5000.0005, NOW_NS) == (5_000_000_500_000, True)  # float rounding slack


def test_stamp_falls_back_to_arrival_for_future_or_unusable_ticks() -> None:
    assert stamp_edge(time.time(), NOW_NS) == (NOW_NS, False)  # CLOCK_REALTIME (kernel < 5.7)
    assert stamp_edge(None, NOW_NS) == (NOW_NS, False)
    assert stamp_edge(float("nan"), NOW_NS) == (NOW_NS, False)
    assert stamp_edge(float("inf"), NOW_NS) == (NOW_NS, False)


def test_every_edge_reaches_the_sink_with_its_ticks(factory: MockFactory) -> None:
    edges: list[PinEdge] = []
    edge_input = EdgeInput(17, pull_up=True, sink=edges.append, pin_factory=factory)
    try:
        assert edge_input.level is True  # the pull-up
        gc.collect()  # the pin holds its handler weakly: the owner's reference must do
        spy = EdgeSpy(factory.pin(17))  # asserts that a handler is still hooked
        factory.pin(17).drive_low()
        factory.pin(17).drive_high()
        assert [(e.high, e.on_clock) for e in edges] == [(False, True), (True, True)]
        assert [e.at_ns for e in edges] == [ticks_to_ns(t) for t in spy.ticks]
        spy.report(time.monotonic(), 2)  # lgpio's watchdog level: no edge
        assert len(edges) == 2
    finally:
        edge_input.close()


def test_a_failing_sink_is_logged_not_raised(factory: MockFactory, caplog: pytest.LogCaptureFixture) -> None:
    def sink(edge: PinEdge) -> None:
        raise ValueError("consumer bug")

    edge_input = EdgeInput(17, pull_up=True, sink=sink, pin_factory=factory)
    try:
        factory.pin(17).drive_low()  # would raise into gpiozero's thread otherwise
    finally:
        edge_input.close()
    assert "GPIO pin 17: edge lost" in caplog.text


def test_close_unhooks_and_releases_the_pin(factory: MockFactory) -> None:
    edges: list[PinEdge] = []
    edge_input = EdgeInput(17, pull_up=False, sink=edges.append, pin_factory=factory)
    assert factory.pin(17).pull == "down"
    edge_input.close()
    edge_input.close()  # idempotent
    assert factory.pin(17).when_changed is None
    factory.pin(17).drive_high()
    assert edges == []
    again = EdgeInput(17, pull_up=False, sink=edges.append, pin_factory=factory)  # free again
    again.close()


def test_a_pin_in_use_is_refused_and_left_to_its_owner(factory: MockFactory) -> None:
    edges: list[PinEdge] = []
    owner = EdgeInput(17, pull_up=True, sink=edges.append, pin_factory=factory)
    try:
        with pytest.raises(Exception, match="in use"):
            EdgeInput(17, pull_up=True, sink=edges.append, pin_factory=factory)
        factory.pin(17).drive_low()
        assert len(edges) == 1
    finally:
        owner.close()
