"""Audible cues for the referee console.

Contract:

* Cues are synthesised once at startup as 16-bit signed, native-endian PCM with the
  standard library only (``array`` and ``math``): no numpy, no sound files on disk.
* :class:`SoundDevicePlayer` plays them through ONE persistent
  ``sounddevice.RawOutputStream`` opened by :meth:`SoundDevicePlayer.open`
  (``latency='low'``, callback-based mixer).  Triggering a cue only queues a
  reference to a pre-rendered buffer, so a cue starts within one audio block and
  nothing is opened, allocated in bulk or blocked on at trigger time.
* :meth:`CuePlayer.play` is non-blocking, callable from the asyncio loop thread
  and never raises.
* :func:`open_player` never raises: if audio is disabled or unavailable the console
  runs with a :class:`NullPlayer` (one warning line in the log when unavailable).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from array import array
from collections import deque
from dataclasses import dataclass
from typing import Any, Protocol

from console.engine.model import Cue

__all__ = [
    "Cue",
    "CuePlayer",
    "NullPlayer",
    "SoundDevicePlayer",
    "SoundUnavailable",
    "open_player",
    "render_cue",
]

_INT16_MAX = 32767
_INT16_MIN = -32768
# Peak of a cue at volume 1.0, as a fraction of full scale.  The headroom keeps two
# overlapping cues from clipping hard (the mixer still clips, it just rarely has to).
_PEAK = 0.7
# Fade length at both ends of every tone: a step from/to zero is an audible click.
_FADE_S = 0.005
# A burst of triggers (e.g. a glitching button) must not grow memory or CPU without
# bound; beyond this many simultaneous cues the oldest one is dropped.
_MAX_VOICES = 8
REOPEN_INTERVAL_S = 5.0  # a dead output stream is reopened on a cue, at most this often

log = logging.getLogger("chgk.sound")


class SoundUnavailable(Exception):
    """Audio output cannot be used; ``str(exc)`` is the human-readable reason."""


class CuePlayer(Protocol):
    """Something that can play cues."""

    def play(self, cue: Cue) -> None:
        """Start playing ``cue``; non-blocking, loop-thread safe, never raises."""

    def close(self) -> None:
        """Stop playback and release the audio device; idempotent."""


# --------------------------------------------------------------------------- synthesis


@dataclass(frozen=True, slots=True)
class _Tone:
    """One segment of a cue: a sine sweep from ``f_start`` to ``f_end``; 0 Hz is a pause."""

    duration: float  # seconds
    f_start: float  # Hz
    f_end: float | None = None  # Hz; None means a steady tone
    overtone: float = 0.0  # relative level of the 2nd harmonic; makes a tone "brighter"


_SHAPES: dict[Cue, tuple[_Tone, ...]] = {
    # High and short with an overtone so it cuts through a noisy room.
    Cue.SIGNAL: (_Tone(0.150, 1760.0, overtone=0.35),),
    # Low and long: clearly distinct from SIGNAL even when heard from across the room.
    Cue.TIME_UP: (_Tone(0.600, 440.0, overtone=0.25),),
    # Two beeps separated by a pause: 90 + 70 + 90 ms.
    Cue.WARNING: (_Tone(0.090, 1320.0), _Tone(0.070, 0.0), _Tone(0.090, 1320.0)),
    # An octave sweep up reads as "go".
    Cue.START: (_Tone(0.120, 660.0, f_end=1320.0),),
    # Three short beeps, 80 + 80 ms apart: the count is about to end.
    Cue.FINAL_BEEPS: (_Tone(0.080, 1320.0), _Tone(0.080, 0.0), _Tone(0.080, 1320.0),
                      _Tone(0.080, 0.0), _Tone(0.080, 1320.0)),
    # A low buzz sweeping down reads as "no": distinct from every other cue.
    Cue.FALSE_START: (_Tone(0.350, 330.0, f_end=220.0, overtone=0.5),),
}


def _render_tone(tone: _Tone, sample_rate: int) -> list[float]:
    """Render one segment as floats in [-1, 1] (before peak normalisation)."""
    n = round(tone.duration * sample_rate)
    if tone.f_start <= 0.0:
        return [0.0] * n
    f_end = tone.f_start if tone.f_end is None else tone.f_end
    fade = max(1, min(round(_FADE_S * sample_rate), n // 2))
    out: list[float] = []
    phase = 0.0
    for i in range(n):
        # Accumulate phase (rather than sin(2*pi*f*t)) so a sweep has no discontinuities.
        freq = tone.f_start + (f_end - tone.f_start) * (i / n)
        value = math.sin(phase) + tone.overtone * math.sin(2.0 * phase)
        phase += 2.0 * math.pi * freq / sample_rate
        # Raised-cosine fade: exactly 0 at the first and last sample, no click.
        edge = min(i, n - 1 - i)
        if edge < fade:
            value *= 0.5 - 0.5 * math.cos(math.pi * edge / fade)
        out.append(value)
    return out


def render_cue(cue: Cue, sample_rate: int, *, volume: float = 1.0) -> bytes:
    """Return ``cue`` as mono 16-bit signed native-endian PCM at ``sample_rate`` Hz.

    Every tone segment has a short (5 ms) raised-cosine fade in and out, so the first
    and last samples are 0.  The absolute peak is ``round(0.7 * 32767 * volume)``;
    ``volume`` must be within [0, 1].  Deterministic: the same arguments always give
    the same bytes.
    """
    if sample_rate <= 0:
        raise ValueError(f"sample_rate must be positive, got {sample_rate}")
    if not 0.0 <= volume <= 1.0:
        raise ValueError(f"volume must be within [0, 1], got {volume}")
    floats: list[float] = []
    for tone in _SHAPES[cue]:
        floats.extend(_render_tone(tone, sample_rate))
    # Normalise so the peak is exact regardless of overtones.
    top = max((abs(v) for v in floats), default=0.0)
    scale = _PEAK * _INT16_MAX * volume / top if top > 0.0 else 0.0
    return array("h", (round(v * scale) for v in floats)).tobytes()


# ------------------------------------------------------------------------------ mixing


class _Voice:
    """A cue being played: its samples and how far the mixer has got."""

    __slots__ = ("pos", "samples")

    def __init__(self, samples: memoryview) -> None:
        self.samples = samples  # format 'h', interleaved if the stream is stereo
        self.pos = 0


class _Mixer:
    """Sums the active cues into output blocks.

    :meth:`trigger` may be called from any thread; :meth:`fill` runs on the PortAudio
    callback thread and is the only code touching ``_voices``.  The hand-over is a
    ``deque``, whose ``append``/``popleft`` are atomic in CPython, so neither side
    ever waits for a lock held by the other.
    """

    def __init__(self, max_voices: int = _MAX_VOICES) -> None:
        self._max_voices = max_voices
        self._pending: deque[memoryview] = deque(maxlen=max_voices)
        self._voices: list[_Voice] = []
        # Reused for silence so the callback does not allocate a block per call.
        self._zeros = memoryview(array("h", bytes(2 * 4096)))

    def trigger(self, samples: memoryview) -> None:
        """Queue a pre-rendered buffer (format 'h') for playback from the next block."""
        self._pending.append(samples)

    def reset(self) -> None:
        """Forget everything queued or playing; only call while no callback runs."""
        self._pending.clear()
        self._voices.clear()

    def fill(self, out: memoryview) -> None:
        """Overwrite ``out`` (a writable memoryview, format 'h') with the next samples."""
        voices = self._voices
        while self._pending:
            try:
                samples = self._pending.popleft()
            except IndexError:  # cannot happen with a single consumer; be safe anyway
                break
            if len(voices) >= self._max_voices:
                voices.pop(0)
            voices.append(_Voice(samples))

        n = len(out)
        if not voices:
            self._silence(out, 0, n)
            return

        # The common case is a single cue: a straight slice copy, no per-sample Python.
        first = voices[0]
        count = min(n, len(first.samples) - first.pos)
        out[:count] = first.samples[first.pos : first.pos + count]
        first.pos += count
        self._silence(out, count, n)

        # Overlapping cues are rare and short, so a per-sample loop is affordable.
        finished = first.pos >= len(first.samples)
        for voice in voices[1:]:
            src, pos = voice.samples, voice.pos
            count = min(n, len(src) - pos)
            for i in range(count):
                value = out[i] + src[pos + i]
                if value > _INT16_MAX:
                    value = _INT16_MAX
                elif value < _INT16_MIN:
                    value = _INT16_MIN
                out[i] = value
            voice.pos = pos + count
            finished = finished or voice.pos >= len(src)
        if finished:
            voices[:] = [v for v in voices if v.pos < len(v.samples)]

    def _silence(self, out: memoryview, start: int, stop: int) -> None:
        """Zero ``out[start:stop]`` from the shared zero buffer (grown if ever too small)."""
        length = stop - start
        if length <= 0:
            return
        if length > len(self._zeros):
            self._zeros = memoryview(array("h", bytes(2 * length)))
        out[start:stop] = self._zeros[:length]


# ----------------------------------------------------------------------------- players


class NullPlayer:
    """A :class:`CuePlayer` that plays nothing and records cues in ``played``.

    Used when audio is disabled in the config or unavailable, and in tests.
    """

    def __init__(self) -> None:
        self.played: list[Cue] = []
        self.closed = False

    def play(self, cue: Cue) -> None:
        """Record ``cue``; never raises."""
        self.played.append(cue)

    def close(self) -> None:
        """Mark the player closed (recording continues: it is harmless)."""
        self.closed = True


class SoundDevicePlayer:
    """A :class:`CuePlayer` on one persistent PortAudio output stream.

    ``device`` is whatever ``sounddevice`` accepts: an index, a (sub)string of the
    device name such as ``"default"``, or None for PortAudio's default output.  The
    constructor renders the cues but opens nothing; :meth:`open` opens the stream.
    The stream is mono: prefer an ALSA plug device ("default", "plughw:...") which
    converts rate and upmixes to both speakers.  PortAudio opens a stereo-only raw
    ``hw:`` device too, but may then play the cue on one channel only.
    """

    def __init__(
        self, device: str | int | None, sample_rate: int = 48000, volume: float = 0.8
    ) -> None:
        self._device = device
        self._sample_rate = sample_rate
        # Rendered here, once: triggering a cue later only queues a view of this buffer.
        self._cues = {
            cue: memoryview(array("h", render_cue(cue, sample_rate, volume=volume))) for cue in Cue
        }
        self._mixer = _Mixer()
        self._stream: Any = None  # sounddevice.RawOutputStream once open
        self._portaudio_error: type[Exception] = Exception
        # Serialises open() and close(), which shutdown code may call from another
        # thread; play() only reads the handle and never waits on this lock.
        self._lock = threading.Lock()
        # Set by PortAudio's thread when the stream stops on its own (a USB speaker pulled,
        # the device gone): the next cue reopens it, at most every REOPEN_INTERVAL_S.
        self._stopped_by_itself = False
        self._next_reopen = 0.0

    @property
    def sample_rate(self) -> int:
        """Stream sample rate in Hz."""
        return self._sample_rate

    @property
    def is_open(self) -> bool:
        """True between a successful :meth:`open` and :meth:`close`."""
        return self._stream is not None

    def open(self) -> None:
        """Open and start the output stream; no-op if already open.

        Imports ``sounddevice`` here, not at module import, so a missing PortAudio
        library cannot break importing the console.  Raises :class:`SoundUnavailable`
        if the library is missing (``OSError``/``ImportError``), no device matches
        ``device`` (``ValueError``), or PortAudio refuses the device
        (``sounddevice.PortAudioError``: no device, busy, unsupported format).
        """
        with self._lock:
            if self._stream is not None:
                return
            self._open_locked()

    def _open_locked(self) -> None:
        """open(), with the lock held (also by _reopen, so that close() cannot interleave)."""
        try:
            import sounddevice
        except (OSError, ImportError) as exc:
            raise SoundUnavailable(f"PortAudio library unavailable: {exc}") from exc
        self._portaudio_error = sounddevice.PortAudioError

        try:
            stream = sounddevice.RawOutputStream(
                samplerate=self._sample_rate,
                device=self._device,
                channels=1,
                dtype="int16",
                latency="low",
                callback=self._callback,
                finished_callback=self._on_finished,
            )
        except ValueError as exc:
            # Raised by sounddevice itself when no device matches the name.
            raise SoundUnavailable(str(exc)) from exc
        except sounddevice.PortAudioError as exc:
            raise SoundUnavailable(f"PortAudio: {exc}") from exc

        self._mixer.reset()
        self._stopped_by_itself = False
        try:
            stream.start()
        except sounddevice.PortAudioError as exc:
            stream.close(ignore_errors=True)
            raise SoundUnavailable(f"PortAudio: {exc}") from exc
        self._stream = stream

    @property
    def latency(self) -> float | None:
        """Output latency reported by PortAudio in seconds, None when not open."""
        stream = self._stream
        return None if stream is None else float(stream.latency)

    def play(self, cue: Cue) -> None:
        """Queue ``cue``; it starts with the next audio block.  Never raises.

        Silently ignored when the player is not open.
        """
        if self._stream is None:
            return
        if self._stopped_by_itself and not self._reopen():
            return
        samples = self._cues.get(cue)
        if samples is not None:
            self._mixer.trigger(samples)

    def close(self) -> None:
        """Stop and close the stream; idempotent, swallows PortAudio errors at shutdown."""
        with self._lock:
            stream, self._stream = self._stream, None
            if stream is None:
                return
            try:
                stream.stop()
            except self._portaudio_error:
                pass  # the device may already be gone; closing is all that is left
            finally:
                stream.close(ignore_errors=True)

    def _on_finished(self) -> None:
        """PortAudio: the stream has stopped. Unless close() stopped it, it died."""
        if self._stream is not None:
            self._stopped_by_itself = True

    def _reopen(self) -> bool:
        """Reopen a stream that died; True if sound is back. Rate-limited, never raises."""
        now = time.monotonic()
        if now < self._next_reopen:
            return False
        self._next_reopen = now + REOPEN_INTERVAL_S
        log.warning("sound: the output stopped (device unplugged?); reopening it")
        # Under the lock: a close() from another thread (shutdown) waits, and one that came
        # first has left no stream to reopen. It blocks the loop for the few ms PortAudio
        # takes to open a device, only while the sound is broken and every REOPEN_INTERVAL_S.
        with self._lock:
            dead = self._stream
            if dead is None:
                return False
            self._stream = None
            dead.close(ignore_errors=True)
            try:
                self._open_locked()
            except Exception as exc:  # SoundUnavailable, or anything else: the game goes on
                log.warning("sound: still no output (%s); retrying in %g s", exc, REOPEN_INTERVAL_S)
                self._stream = dead  # closed: play() keeps trying on later cues
                self._stopped_by_itself = True
                return False
        log.info("sound: output reopened")
        return True

    def _callback(self, outdata: Any, frames: int, time: Any, status: Any) -> None:
        """PortAudio callback: fill the block from the mixer, silence on any failure."""
        out = memoryview(outdata).cast("B").cast("h")
        try:
            self._mixer.fill(out)
        except Exception:
            # An exception escaping the callback would abort the stream for good;
            # better lose the current cues than every future one.
            self._mixer.reset()
            out[:] = array("h", bytes(len(out) * 2))


def open_player(
    device: str | int | None, enabled: bool, log: logging.Logger, *, volume: float
) -> CuePlayer:
    """Return a ready player; never raises.

    ``enabled=False`` gives a :class:`NullPlayer` without touching audio.  Otherwise a
    :class:`SoundDevicePlayer` on ``device`` is opened with its cues rendered at
    ``volume`` (``[sound] volume``: 0.0 silent .. 1.0 full; required, so no caller can
    forget the config's); if that fails, exactly one warning is logged and a
    :class:`NullPlayer` is returned, so a table without speakers still referees games.
    """
    if not enabled:
        log.info("sound: disabled in config; running without cues")
        return NullPlayer()
    try:
        player = SoundDevicePlayer(device, volume=volume)
        player.open()
    except SoundUnavailable as exc:
        log.warning("sound: no audio output (%s); running without cues", exc)
        return NullPlayer()
    except Exception as exc:  # the console must come up even if audio setup has a bug
        log.warning("sound: no audio output (unexpected %r); running without cues", exc)
        return NullPlayer()
    latency = player.latency
    log.info(
        "sound: output %r, %d Hz mono, latency %.1f ms, volume %g",
        device,
        player.sample_rate,
        (latency or 0.0) * 1000.0,
        volume,
    )
    return player
