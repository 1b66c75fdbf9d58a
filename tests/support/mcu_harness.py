"""McuSession driven by hand, no I/O: a `Device` that builds a firmware's frames stamped with
its own timer, and a `Harness` (a session, its device, a hand-stepped clock) collecting what the
session hands on; `connected_harness()` is one already connected and past its first HEARTBEAT."""

from __future__ import annotations

from dataclasses import dataclass, field

from drivers.mcu_session import (
    McuInput,
    McuSession,
    PadEdge,
    Problem,
    SessionOutput,
    StatusChanged,
    Watermark,
)
from firmware_proto import (
    PROTOCOL_VERSION,
    STAMP_MODULUS,
    Angle,
    Angles,
    FrameDecoder,
    Heartbeat,
    Hello,
    HelloRequest,
    Message,
    Ping,
    Pong,
    Press,
    ProtocolError,
    Release,
    encode,
)

__all__ = [
    "MS",
    "PORT",
    "RTT",
    "T0",
    "TIMEOUT",
    "Device",
    "Harness",
    "S",
    "connected_harness",
    "decode_one",
    "sent",
]

PORT = "/dev/ttyTEST"
MS = 1_000_000
S = 1_000_000_000
T0 = 5_000 * S  # host monotonic ns at which the port opens
RTT = 200_000  # 0.2 ms round trips, symmetric: the device acts at the midpoint


@dataclass
class Device:
    """A firmware driven by hand: its timer reads ``(host_ns / 1000) * (1 + drift) + offset``."""

    offset_us: int = 123_456_789
    drift_ppm: float = 0.0
    seq: int = 0

    def us(self, host_ns: int) -> int:
        return round(host_ns / 1000 * (1 + self.drift_ppm / 1e6) + self.offset_us) % STAMP_MODULUS

    def _next_seq(self) -> int:
        seq, self.seq = self.seq, (self.seq + 1) % (1 << 16)
        return seq

    def hello(self, host_ns: int, version: int = PROTOCOL_VERSION, firmware: str = "test 1.0") -> bytes:
        return encode(Hello(version, 4, 1, self.us(host_ns), firmware))

    def press(self, host_ns: int, pads: int) -> bytes:
        return encode(Press(self._next_seq(), self.us(host_ns), pads))

    def release(self, host_ns: int, pads: int) -> bytes:
        return encode(Release(self._next_seq(), self.us(host_ns), pads))

    def heartbeat(self, host_ns: int, held: int = 0) -> bytes:
        return encode(Heartbeat(self._next_seq(), self.us(host_ns), held))

    def angle(self, host_ns: int, raw: int, status: int = 1) -> bytes:
        return encode(Angle(self._next_seq(), self.us(host_ns), raw, status))

    def angles(self, readings: list[tuple[int, int]], status: int = 1) -> bytes:
        """An ANGLES frame of ``(host ns read, raw)`` readings, oldest first."""
        newest = self.us(readings[-1][0])
        pairs = tuple(((newest - self.us(at)) % STAMP_MODULUS, raw) for at, raw in readings)
        return encode(Angles(self._next_seq(), newest, status, pairs))

    def pong(self, ping_frame: bytes, host_ns: int) -> bytes:
        ping = decode_one(ping_frame)
        assert isinstance(ping, Ping)
        return encode(Pong(ping.ping_id, self.us(host_ns)))


def decode_one(frame: bytes) -> Message:
    (msg,) = FrameDecoder().feed(frame)
    assert not isinstance(msg, ProtocolError), msg
    return msg


def sent(out: SessionOutput) -> list[Message]:
    return [decode_one(frame) for frame in out.writes]


@dataclass
class Harness:
    """A session, its device and a hand-stepped clock; collects what the session hands on."""

    session: McuSession = field(default_factory=lambda: McuSession(PORT))
    device: Device = field(default_factory=Device)
    now: int = T0
    inputs: list[McuInput] = field(default_factory=list)
    writes: list[Message] = field(default_factory=list)

    def take(self, out: SessionOutput) -> SessionOutput:
        self.inputs += out.inputs
        self.writes += sent(out)
        return out

    def open(self) -> SessionOutput:
        return self.take(self.session.opened(self.now))

    def recv(self, data: bytes, after_ns: int = 0) -> SessionOutput:
        self.now += after_ns
        return self.take(self.session.receive(data, self.now))

    def timer(self, at: int | None = None, *, backlog: bool = False) -> SessionOutput:
        if at is not None:
            self.now = at
        return self.take(self.session.on_timer(self.now, backlog=backlog))

    def handshake(self) -> None:
        """Open, answer the HELLO_REQUEST after RTT (stamped at its midpoint), send the PING
        that is due at once and answer it too."""
        out = self.open()
        assert sent(out) == [HelloRequest(PROTOCOL_VERSION)]
        self.recv(self.device.hello(self.now + RTT // 2), RTT)
        assert self.session.connected
        self.ping_round()

    def ping_round(self) -> None:
        deadline = self.session.next_deadline()
        assert deadline is not None
        out = self.timer(max(self.now, deadline))
        (ping_frame,) = out.writes
        self.recv(self.device.pong(ping_frame, self.now + RTT // 2), RTT)

    def of(self, kind: type[McuInput]) -> list[McuInput]:
        return [item for item in self.inputs if type(item) is kind]

    def edges(self) -> list[PadEdge]:
        return [item for item in self.inputs if isinstance(item, PadEdge)]

    def watermarks(self) -> list[int]:
        return [item.ns for item in self.inputs if isinstance(item, Watermark)]

    def statuses(self) -> list[tuple[str, str]]:
        return [(i.state, i.detail) for i in self.inputs if isinstance(i, StatusChanged)]

    def problems(self) -> list[str]:
        return [item.message for item in self.inputs if isinstance(item, Problem)]


TIMEOUT = 50 * MS  # the session's default wait for the frames asked for again


def connected_harness(device: Device | None = None) -> Harness:
    """Connected, clock seeded, and one HEARTBEAT seen (a gap shows against a known number)."""
    h = Harness(device=device or Device())
    h.handshake()
    h.recv(h.device.heartbeat(h.now), 1 * MS)
    h.inputs.clear()
    return h
