"""What the MCU session hands its transport: the inputs it passes on and what to do next.

Contract: `PadEdge` (one scan's pads changing, timed by the MCU), `AngleReading` (the top's
sensor, timed by the MCU), `Watermark` (every edge stamped up to then has been handed on),
`HeldPads` (a HEARTBEAT's mask of the pads down),
`StatusChanged` and `Problem` (English sentences) are the `McuInput`s a transport hands on
to the console; `SessionOutput` is one session call's answer (frames to write, inputs to hand
on, whether to close the port), `McuStats` the session's diagnostic counters. Plain frozen
records (the output and the counters mutable): no behaviour.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias

from drivers.link_state import LinkState

__all__ = [
    "AngleReading",
    "HeldPads",
    "McuInput",
    "McuStats",
    "PadEdge",
    "Problem",
    "SessionOutput",
    "StatusChanged",
    "Watermark",
]


@dataclass(frozen=True, slots=True)
class PadEdge:
    """One scan's worth of pads changing state, timed by the MCU."""

    pads: tuple[int, ...]  # pad indices (0-based) in this scan
    pressed: bool  # True for PRESS, False for RELEASE
    at_ns: int  # host monotonic ns when it happened at the MCU (via ClockModel)
    mcu_us: int  # unwrapped MCU stamp
    seq: int


# Not frozen: the table makes 250 a second, and a frozen dataclass's __init__ sets each field
# through object.__setattr__, four times slower.
@dataclass(slots=True)
class AngleReading:
    """One reading of the top's angle sensor (an ANGLE frame), timed by the MCU; not to be
    changed once made, like the other inputs."""

    raw: int  # 0..4095 per turn
    status: int  # firmware_proto.AngleStatus bits
    at_ns: int  # host monotonic ns when the MCU read it (via ClockModel); never decreases
    mcu_us: int  # unwrapped MCU stamp
    seq: int


@dataclass(frozen=True, slots=True)
class Watermark:
    """Every press/release stamped up to host time ``ns`` has been handed on, except that,
    when ``lost_from_ns`` is set, inputs stamped after it may be missing (frames lost and not
    sent again) or placed at their arrival instead of their own time (the clock could not be
    trusted): a decision over that span is not guaranteed."""

    ns: int
    lost_from_ns: int | None = None


@dataclass(frozen=True, slots=True)
class HeldPads:
    """A HEARTBEAT: exactly the pads in ``pads`` are down (debounced) at host time ``at_ns``
    (PROTOCOL.md 4.4); every edge stamped before it has been handed on."""

    pads: tuple[int, ...]
    at_ns: int


@dataclass(frozen=True, slots=True)
class StatusChanged:
    """The link's state changed (drivers/link_state.py), with an English sentence naming the port."""

    state: LinkState
    detail: str


@dataclass(frozen=True, slots=True)
class Problem:
    """One English sentence about a protocol problem (bad frame, lost frames, restart...)."""

    message: str


McuInput: TypeAlias = PadEdge | Watermark | AngleReading | HeldPads | StatusChanged | Problem


@dataclass(slots=True)
class SessionOutput:
    """What one call of the session asks of its transport, to be done in this order: write
    ``writes`` to the port, hand on ``inputs``, then, if ``close``, close the port."""

    writes: list[bytes] = field(default_factory=list)
    inputs: list[McuInput] = field(default_factory=list)
    close: bool = False  # the session is over (the device went silent or the port was lost)


@dataclass(slots=True)
class McuStats:
    """Counters since the session was created (for diagnostics)."""

    frames: int = 0  # frames decoded successfully
    errors: int = 0  # undecodable frames, out-of-order sequence numbers, unexpected messages
    lost_frames: int = 0  # frames known missing from sequence-number gaps (not repaired)
    repaired_frames: int = 0  # missing frames the device sent again on RESEND
    reconnects: int = 0  # times the link became connected again after having been connected
