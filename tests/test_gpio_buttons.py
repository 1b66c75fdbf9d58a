"""GpioButtons against gpiozero's own MockFactory (real device classes, gpiozero not mocked).

MockPin.drive_low()/drive_high() call the pin's handler synchronously with ticks =
time.monotonic() at drive time; an :class:`tests.gpio_mock.EdgeSpy` in front of the driver's
handler (gpiozero's public ``Pin.when_changed``) records them, so a test knows the exact edge
time and can hold the loop to tell it apart from the delivery time.  Only gpiozero's public
API is used, here as in the driver.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from drivers.gpio_buttons import EdgeLockout, GpioButtons, GpioError, GpioPress
from tests.gpio_mock import EdgeSpy
from tests.support.gpio import HeldPin

MS = 1_000_000


@dataclass
class Delivery:
    press: GpioPress
    received_ns: int  # time.monotonic_ns() inside on_edge
    thread: int
    on_loop: bool  # on_edge ran inside the running event loop


@dataclass
class Rig:
    factory: MockFactory
    deliveries: list[Delivery] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    opened: list[GpioButtons] = field(default_factory=list)
    spies: list[EdgeSpy] = field(default_factory=list)

    def on_edge(self, press: GpioPress) -> None:
        try:
            asyncio.get_running_loop()
            on_loop = True
        except RuntimeError:
            on_loop = False
        self.deliveries.append(Delivery(press, time.monotonic_ns(), threading.get_ident(), on_loop))

    @property
    def presses(self) -> list[GpioPress]:
        return [d.press for d in self.deliveries]

    def open(self, pins: list[int], **kwargs: Any) -> GpioButtons:
        """GpioButtons on the running loop, closed at teardown."""
        kwargs.setdefault("pin_factory", self.factory)
        kwargs.setdefault("on_error", self.errors.append)
        buttons = GpioButtons(pins, on_edge=self.on_edge, **kwargs)
        buttons.start(asyncio.get_running_loop())
        self.opened.append(buttons)
        return buttons

    def pin(self, number: int) -> Any:
        return self.factory.pin(number)

    def spy(self, number: int, **kwargs: Any) -> EdgeSpy:
        """An EdgeSpy on pin ``number`` (after open), kept alive by the rig."""
        spy = EdgeSpy(self.pin(number), **kwargs)
        self.spies.append(spy)
        return spy


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
    for buttons in rig.opened:
        buttons.close()


async def handoff() -> None:
    """Let the loop run the callbacks handed over with call_soon_threadsafe."""
    for _ in range(5):
        await asyncio.sleep(0)


class OwnClockFactory(MockFactory):  # type: ignore[misc]
    """A factory counting on its own clock, like pigpio's daemon microsecond counter."""

    @staticmethod
    def ticks() -> int:
        return 3_141_592_653


# -- the press path ---------------------------------------------------------------------------


async def test_press_carries_edge_time_not_delivery_time(rig: Rig) -> None:
    rig.open([17, 27])
    pin, spy = rig.pin(27), rig.spy(27)
    pin.drive_low()
    edge = spy.last_ns
    assert rig.deliveries == []  # handed off, not called from gpiozero's handler
    time.sleep(0.05)  # noqa: ASYNC251  -- hold the loop: delivery is now 50 ms late
    await handoff()

    [delivery] = rig.deliveries
    assert delivery.press.pad == 1
    assert delivery.press.pressed
    assert abs(delivery.press.at_ns - edge) <= 1_000
    assert delivery.received_ns - delivery.press.at_ns >= 50 * MS
    assert delivery.on_loop
    assert delivery.thread == threading.get_ident()


async def test_edge_from_a_foreign_thread_reaches_the_loop_thread(rig: Rig) -> None:
    rig.open([17])
    pin, spy = rig.pin(17), rig.spy(17)
    before = time.monotonic_ns()
    driver = threading.Thread(target=pin.drive_low)
    driver.start()
    driver.join()
    after = time.monotonic_ns()
    await handoff()

    [delivery] = rig.deliveries
    assert delivery.on_loop
    assert delivery.thread == threading.get_ident() != driver.ident
    assert before <= delivery.press.at_ns <= after
    assert abs(delivery.press.at_ns - spy.last_ns) <= 1_000


async def test_two_pins_pressed_in_order(rig: Rig) -> None:
    rig.open([17, 27])
    rig.pin(17).drive_low()
    time.sleep(0.001)  # noqa: ASYNC251  -- two distinct edge times
    rig.pin(27).drive_low()
    await handoff()

    assert [(p.pad, p.pressed) for p in rig.presses] == [(0, True), (1, True)]
    assert rig.presses[0].at_ns < rig.presses[1].at_ns


async def test_bounce_counts_the_first_edge_once(rig: Rig) -> None:
    rig.open([17], lockout_ns=100 * MS)
    pin, spy = rig.pin(17), rig.spy(17)
    pin.drive_low()
    first = spy.last_ns
    pin.drive_high()
    pin.drive_low()
    await handoff()
    assert [(p.pressed, p.at_ns) for p in rig.presses] == [(True, first)]

    await asyncio.sleep(0.15)
    pin.drive_high()
    pin.drive_low()  # within the release's lockout: bounce
    pin.drive_high()
    await asyncio.sleep(0.15)
    pin.drive_low()
    pressed_again = spy.last_ns
    await handoff()
    assert [p.pressed for p in rig.presses] == [True, False, True]
    assert rig.presses[2].at_ns == pressed_again
    assert rig.errors == []


async def test_release_is_reported(rig: Rig) -> None:
    rig.open([17], lockout_ns=10 * MS)
    pin, spy = rig.pin(17), rig.spy(17)
    pin.drive_low()
    await asyncio.sleep(0.05)
    pin.drive_high()
    released = spy.last_ns
    await handoff()

    assert [(p.pad, p.pressed) for p in rig.presses] == [(0, True), (0, False)]
    assert rig.presses[1].at_ns == released > rig.presses[0].at_ns


async def test_tap_shorter_than_the_lockout_still_releases(rig: Rig) -> None:
    # The release falls inside the press's lockout; without settling, the pad would stay
    # "pressed" and swallow the next press.
    rig.open([17], lockout_ns=20 * MS)
    pin = rig.pin(17)
    pin.drive_low()
    pin.drive_high()
    await handoff()
    assert [p.pressed for p in rig.presses] == [True]

    await asyncio.sleep(0.1)
    assert [p.pressed for p in rig.presses] == [True, False]
    assert rig.presses[1].at_ns == rig.presses[0].at_ns + 20 * MS

    pin.drive_low()
    await handoff()
    assert [p.pressed for p in rig.presses] == [True, False, True]


async def test_active_high_without_pull_up(rig: Rig) -> None:
    rig.open([22], pull_up=False, lockout_ns=10 * MS)
    pin = rig.pin(22)
    assert pin.pull == "down"
    pin.drive_high()
    await asyncio.sleep(0.05)
    pin.drive_low()
    await handoff()
    assert [(p.pad, p.pressed) for p in rig.presses] == [(0, True), (0, False)]


async def test_a_single_pin_serves_as_the_pedal(rig: Rig) -> None:
    pedal = rig.open([4])
    assert pedal.pins == (4,)
    rig.pin(4).drive_low()
    await handoff()
    assert [(p.pad, p.pressed) for p in rig.presses] == [(0, True)]


async def test_a_failing_on_edge_does_not_stop_other_pads(rig: Rig) -> None:
    def on_edge(press: GpioPress) -> None:
        if press.pad == 0:
            raise ValueError("consumer bug")
        rig.on_edge(press)

    buttons = GpioButtons([17, 27], on_edge=on_edge, pin_factory=rig.factory)
    buttons.start(asyncio.get_running_loop())
    rig.opened.append(buttons)
    rig.pin(17).drive_low()
    rig.pin(27).drive_low()
    await handoff()
    assert [p.pad for p in rig.presses] == [1]


# -- clocks -----------------------------------------------------------------------------------


async def test_edge_stamped_on_another_clock_is_stamped_on_arrival_and_reported(rig: Rig) -> None:
    rig.open([17, 27])
    for number in (17, 27):  # the kernel before 5.7 stamps edges on CLOCK_REALTIME
        rig.spy(number, restamp=lambda ticks: time.time())
    before = time.monotonic_ns()
    rig.pin(17).drive_low()
    rig.pin(27).drive_low()
    after = time.monotonic_ns()
    await handoff()

    assert [p.pad for p in rig.presses] == [0, 1]
    assert all(before <= p.at_ns <= after for p in rig.presses)
    [error] = rig.errors  # once, not per edge
    assert "GPIO pin 17" in error and "clock" in error.lower()


async def test_factory_on_its_own_clock_is_refused(rig: Rig) -> None:
    own = OwnClockFactory()
    try:
        with pytest.raises(GpioError, match=r"OwnClockFactory keeps time on its own clock"):
            rig.open([17], pin_factory=own)
    finally:
        own.reset()


@pytest.mark.parametrize(
    ("ticks", "ns"),
    [(0.0, 0), (1.5, 1_500_000_000), (123.456789012, 123_456_789_012), (7, 7_000_000_000)],
)
def test_ticks_to_ns(ticks: float, ns: int) -> None:
    assert GpioButtons.ticks_to_ns(ticks) == ns


def test_ticks_to_ns_round_trips_lgpio_stamps() -> None:
    # lgpio hands gpiozero kernel nanoseconds, which gpiozero divides by 1e9.
    for kernel_ns in (1, 999_999_999, 86_400 * 10**9 + 123_456_789, 5 * 10**14 + 7):
        assert GpioButtons.ticks_to_ns(kernel_ns / 1_000_000_000) == kernel_ns


# -- claiming pins and factories --------------------------------------------------------------


async def test_unknown_pin_factory_name(rig: Rig) -> None:
    with pytest.raises(GpioError, match=r"unknown pin factory 'nosuchfactory'; gpiozero knows: .*lgpio"):
        rig.open([17], pin_factory="nosuchfactory")


async def test_same_pin_twice_across_instances(rig: Rig) -> None:
    rig.open([17, 27])
    with pytest.raises(GpioError, match=r"GPIO pin 27 \(pad 0\).*already in use"):
        rig.open([27])
    # The first claim is undisturbed.
    rig.pin(27).drive_low()
    await handoff()
    assert [p.pad for p in rig.presses] == [1]


async def test_same_pin_twice_in_one_list_claims_nothing(rig: Rig) -> None:
    with pytest.raises(GpioError, match=r"GPIO pin 17 \(pad 2\).*already in use"):
        rig.open([17, 27, 17])
    rig.open([17, 27])  # the failed start released what it had claimed


async def test_invalid_pin(rig: Rig) -> None:
    with pytest.raises(GpioError, match=r"GPIO pin 99 \(pad 0\)"):
        rig.open([99])


async def test_named_factory_is_installed_as_gpiozero_default(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Device, "pin_factory", None)
    rig.open([17], pin_factory="Mock")
    installed = Device.pin_factory
    try:
        assert isinstance(installed, MockFactory) and installed is not rig.factory
        installed.pin(17).drive_low()
        await handoff()
        assert [p.pad for p in rig.presses] == [0]
        rig.open([27], pin_factory="mock")  # a second source shares the process's factory
        assert Device.pin_factory is installed
    finally:
        for buttons in rig.opened:
            buttons.close()
        installed.reset()


async def test_named_factory_reuses_the_process_factory(rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Device, "pin_factory", rig.factory)
    rig.open([17], pin_factory="mock")
    rig.pin(17).drive_low()
    await handoff()
    assert [p.pad for p in rig.presses] == [0]


async def test_named_factory_other_than_the_process_factory(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Device, "pin_factory", rig.factory)
    with pytest.raises(GpioError, match=r"'native' was asked for, .* already uses gpiozero's MockFactory"):
        rig.open([17], pin_factory="native")


async def test_default_factory_is_gpiozero_s_choice(rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Device, "pin_factory", rig.factory)
    rig.open([17], pin_factory="")
    rig.pin(17).drive_low()
    await handoff()
    assert [p.pad for p in rig.presses] == [0]


async def test_default_factory_unavailable(rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "nosuchfactory")
    with pytest.raises(GpioError, match="nosuchfactory"):
        rig.open([17], pin_factory="")


# -- life cycle -------------------------------------------------------------------------------


async def test_close_releases_pins_and_drops_undelivered_edges(rig: Rig) -> None:
    buttons = rig.open([17, 27], lockout_ns=20 * MS)
    rig.pin(17).drive_low()
    rig.pin(27).drive_low()
    rig.pin(27).drive_high()  # leaves a settle timer pending
    buttons.close()
    buttons.close()  # idempotent
    await asyncio.sleep(0.05)
    assert rig.presses == []

    rig.pin(17).drive_high()
    rig.pin(17).drive_low()  # no longer watched
    await handoff()
    assert rig.presses == []
    rig.open([17, 27])  # the pins are free again


async def test_restart_ignores_the_previous_session(rig: Rig) -> None:
    buttons = rig.open([17])
    pin = rig.pin(17)
    pin.drive_low()  # handed off to the first session
    buttons.close()
    pin.drive_high()
    buttons.start(asyncio.get_running_loop())
    await handoff()
    assert rig.presses == []  # the first session's edge is gone

    pin.drive_low()
    await handoff()
    assert [p.pressed for p in rig.presses] == [True]
    with pytest.raises(RuntimeError, match="already started"):
        buttons.start(asyncio.get_running_loop())


async def test_pad_pressed_at_start_is_reported_and_counts_after_a_release(rig: Rig) -> None:
    rig.factory.pin_class = HeldPin
    rig.open([17], lockout_ns=10 * MS)
    await handoff()
    assert rig.presses == []
    [error] = rig.errors
    assert "pad 0 (GPIO pin 17) is pressed at start" in error

    pin = rig.pin(17)
    pin.held = False  # the wiring lets go
    pin.drive_high()
    await asyncio.sleep(0.05)
    pin.drive_low()
    await handoff()
    assert [p.pressed for p in rig.presses] == [False, True]


def test_constructor_validates() -> None:
    with pytest.raises(ValueError, match="at least one pin"):
        GpioButtons([], on_edge=lambda press: None)
    with pytest.raises(ValueError, match="lockout_ns"):
        GpioButtons([17], on_edge=lambda press: None, lockout_ns=-1)


# -- EdgeLockout: the debounce rules on synthetic times ---------------------------------------

L = 30 * MS


def test_lockout_first_edge_counts_with_its_own_time() -> None:
    lockout = EdgeLockout(L)
    assert lockout.feed(True, 1_000) == [(True, 1_000)]
    assert lockout.pressed


def test_lockout_ignores_bounce_within_the_lockout() -> None:
    lockout = EdgeLockout(L)
    lockout.feed(True, 0)
    assert lockout.feed(False, 1 * MS) == []
    assert lockout.feed(True, 2 * MS) == []
    assert lockout.settle_at_ns is None  # settled back on the accepted level
    assert lockout.feed(False, L) == [(False, L)]  # exactly at the end counts


def test_lockout_needs_a_release_before_the_next_press() -> None:
    lockout = EdgeLockout(L)
    lockout.feed(True, 0)
    assert lockout.feed(True, 10 * L) == []  # a second press edge without a release
    assert lockout.feed(False, 11 * L) == [(False, 11 * L)]
    assert lockout.feed(True, 11 * L + L - 1) == []  # the release is locked too
    assert lockout.feed(False, 11 * L + L - 1) == []  # back to the accepted level
    assert lockout.settle_at_ns is None
    assert lockout.feed(True, 13 * L) == [(True, 13 * L)]


def test_lockout_settles_a_level_hidden_inside_the_lockout() -> None:
    lockout = EdgeLockout(L)
    lockout.feed(True, 0)
    assert lockout.feed(False, 5 * MS) == []
    assert lockout.settle_at_ns == L
    assert lockout.settle(L - 1) is None
    assert lockout.settle(L + 7) == (False, L)  # stamped when the lockout ended
    assert lockout.settle_at_ns is None
    assert not lockout.pressed


def test_lockout_feed_settles_before_a_later_edge() -> None:
    lockout = EdgeLockout(L)
    lockout.feed(True, 0)
    lockout.feed(False, 5 * MS)  # hidden release
    # The next press comes long after: first the release, then the press.
    assert lockout.feed(True, 10 * L) == [(False, L), (True, 10 * L)]


def test_lockout_settled_edge_starts_its_own_lockout() -> None:
    lockout = EdgeLockout(L)
    lockout.feed(True, 0)
    lockout.feed(False, 5 * MS)
    assert lockout.feed(True, L + 1) == [(False, L)]  # the press is within the release's lockout
    assert lockout.settle(2 * L) == (True, 2 * L)


def test_lockout_starting_pressed() -> None:
    lockout = EdgeLockout(L, pressed=True)
    assert lockout.feed(True, 0) == []
    assert lockout.feed(False, 1) == [(False, 1)]


def test_zero_lockout_passes_every_change() -> None:
    lockout = EdgeLockout(0)
    assert lockout.feed(True, 0) == [(True, 0)]
    assert lockout.feed(False, 0) == [(False, 0)]
    assert lockout.feed(False, 1) == []
    assert lockout.feed(True, 1) == [(True, 1)]
