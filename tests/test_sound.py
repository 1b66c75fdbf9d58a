"""Tests for console.shell.sound.

The playback tests use real PortAudio and real ALSA, no mocks: a subprocess runs
with HOME pointing at a temporary directory whose ``.asoundrc`` routes the ALSA
"default" PCM into the ``file`` plugin, which writes the raw samples to disk.  A
subprocess is required because PortAudio reads the ALSA configuration once, when
``sounddevice`` is imported (Pa_Initialize).
"""

from __future__ import annotations

import ctypes.util
import itertools
import json
import logging
import os
import subprocess
import sys
import threading
from array import array
from pathlib import Path

import pytest

from console.shell.sound import (
    Cue,
    NullPlayer,
    SoundDevicePlayer,
    SoundUnavailable,
    _Mixer,
    open_player,
    render_cue,
)

REPO = Path(__file__).resolve().parents[1]
SR = 48000

needs_portaudio = pytest.mark.skipif(
    ctypes.util.find_library("portaudio") is None,
    reason="PortAudio library missing (Debian: apt-get install libportaudio2)",
)

# The ALSA "null" PCM is not paced by a clock, so PortAudio runs the callback as fast
# as it can and the file grows by ~40 MB/s; the 0.5 s runs below stay around 20 MB.
CAPTURE_ASOUNDRC = """\
pcm.!default {{ type plug; slave.pcm "cuefile" }}
pcm.cuefile {{ type file; slave.pcm "nullout"; file "{out}"; format "raw" }}
pcm.nullout {{ type null }}
"""

BROKEN_ASOUNDRC = """\
pcm.!default { type hw; card "NoSuchCard" }
"""

PLAY_SCRIPT = """\
import sys, time
from console.shell.sound import Cue, SoundDevicePlayer

player = SoundDevicePlayer(device="default")
player.open()
for name in sys.argv[1:]:
    player.play(Cue(name))
time.sleep(0.5)
player.close()
"""

OPEN_PLAYER_SCRIPT = """\
import json, logging, sys
from console.shell.sound import open_player

records = []

class Collect(logging.Handler):
    def emit(self, record):
        records.append([record.levelname, record.getMessage()])

log = logging.getLogger("sound-test")
log.addHandler(Collect())
log.setLevel(logging.DEBUG)
log.propagate = False
player = open_player(json.loads(sys.argv[1]), True, log, volume=0.8)
print(json.dumps({"type": type(player).__name__, "records": records}))
"""


def _run(home: Path, script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``script`` in a fresh interpreter whose ALSA config comes only from ``home``."""
    # ALSA_CONFIG_PATH and friends would bypass ~/.asoundrc; XDG_CONFIG_HOME would add
    # the developer's ~/.config/alsa/asoundrc.
    env = {k: v for k, v in os.environ.items() if not k.startswith("ALSA_")}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), PYTHONPATH=str(REPO))
    return subprocess.run(
        [sys.executable, "-c", script, *args],
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _capture(home: Path, script: str, *args: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    """Run ``script`` with ALSA's "default" writing the raw samples to a file; (run, file)."""
    out = home / "out.raw"
    (home / ".asoundrc").write_text(CAPTURE_ASOUNDRC.format(out=out))
    return _run(home, script, *args), out


def _samples(pcm: bytes) -> array[int]:
    return array("h", pcm)


def _nonzero_span(pcm: bytes) -> array[int]:
    """Samples from the first to the last non-zero sample (empty if all silent)."""
    start = len(pcm) - len(pcm.lstrip(b"\0"))
    end = len(pcm.rstrip(b"\0"))
    if end == 0:
        return array("h")
    return _samples(pcm[start // 2 * 2 : (end - 1) // 2 * 2 + 2])


def _zero_crossings(samples: array[int]) -> int:
    signs = [s > 0 for s in samples if s != 0]
    return sum(1 for a, b in itertools.pairwise(signs) if a != b)


# ------------------------------------------------------------------ real ALSA output


@needs_portaudio
def test_signal_is_written_to_alsa_bit_exact(tmp_path: Path) -> None:
    proc, out = _capture(tmp_path, PLAY_SCRIPT, Cue.SIGNAL.value)

    assert proc.returncode == 0, proc.stderr
    pcm = out.read_bytes()
    assert len(pcm) > 0 and len(pcm) % 2 == 0
    played = _nonzero_span(pcm)
    # The plug PCM passes mono S16 straight to the file plugin, so the one cue must
    # come out sample for sample as rendered (at the player's default volume 0.8).
    expected = _nonzero_span(render_cue(Cue.SIGNAL, SR, volume=0.8))
    assert abs(len(played) - 0.150 * SR) < 0.002 * SR  # ~150 ms of sound, played once
    assert played == expected
    # The stream was running before the cue was triggered: there is silence around it.
    assert len(pcm) // 2 > len(played)


DEVICE_LOST_SCRIPT = """\
import json, logging, sys, time
from console.shell.sound import Cue, SoundDevicePlayer

records = []

class Collect(logging.Handler):
    def emit(self, record):
        records.append(record.getMessage())

logging.getLogger("chgk.sound").addHandler(Collect())
logging.getLogger("chgk.sound").setLevel(logging.INFO)
player = SoundDevicePlayer(device="default")
player.open()
player._stream.abort()  # the stream stops under the player, as when the device is pulled
time.sleep(0.2)
player.play(Cue.SIGNAL)  # reopens the output, then plays
time.sleep(0.5)
active = bool(player._stream is not None and player._stream.active)
player.close()
print(json.dumps({"records": records, "active": active}))
"""


@needs_portaudio
def test_an_output_that_stops_by_itself_is_reopened_on_the_next_cue(tmp_path: Path) -> None:
    proc, out = _capture(tmp_path, DEVICE_LOST_SCRIPT)

    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["active"]
    assert result["records"] == ["sound: the output stopped (device unplugged?); reopening it",
                                 "sound: output reopened"]
    # The file device was opened again: it holds the cue, played whole after the reopening.
    expected = _nonzero_span(render_cue(Cue.SIGNAL, SR, volume=0.8))
    assert _nonzero_span(out.read_bytes()) == expected


OPEN_AT_VOLUME_SCRIPT = """\
import logging, sys, time
from console.shell.sound import Cue, open_player

player = open_player("default", True, logging.getLogger("sound-test"), volume=float(sys.argv[1]))
player.play(Cue.SIGNAL)
time.sleep(0.5)
player.close()
print(type(player).__name__)
"""


@needs_portaudio
def test_open_player_plays_the_cues_at_the_configured_volume(tmp_path: Path) -> None:
    """Issue 8: `[sound] volume` reaches the speaker. The same cue through players opened at
    0.4 and 0.8 comes out with peaks in the ratio 0.4 : 0.8, sample for sample as rendered."""
    peaks: dict[float, int] = {}
    for volume in (0.4, 0.8):
        home = tmp_path / str(volume)
        home.mkdir()
        proc, out = _capture(home, OPEN_AT_VOLUME_SCRIPT, str(volume))
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.split() == ["SoundDevicePlayer"]
        played = _nonzero_span(out.read_bytes())
        assert played == _nonzero_span(render_cue(Cue.SIGNAL, SR, volume=volume))
        peaks[volume] = max(abs(s) for s in played)
    assert peaks[0.4] == round(0.7 * 32767 * 0.4)
    assert abs(peaks[0.4] / peaks[0.8] - 0.5) < 1e-4


def test_every_caller_passes_the_configured_volume() -> None:
    """The daemon and both demos open the player with `config.sound.volume`: `volume` is a
    required keyword of open_player, so a call without it fails mypy, and this checks it is
    the config's and not a constant."""
    for module in ("console/shell/daemon.py", "console/tools/demo.py", "console/tools/demo_table.py"):
        text = (REPO / module).read_text(encoding="utf-8")
        assert text.count("open_player(") == 1, module
        assert "volume=config.sound.volume" in text, module


@needs_portaudio
def test_open_stream_without_cues_writes_only_silence(tmp_path: Path) -> None:
    proc, out = _capture(tmp_path, PLAY_SCRIPT)

    assert proc.returncode == 0, proc.stderr
    pcm = out.read_bytes()
    assert len(pcm) > 0  # the stream really ran ...
    assert pcm.strip(b"\0") == b""  # ... and produced nothing but zeros


@needs_portaudio
@pytest.mark.parametrize(
    ("device", "reason"),
    [
        # sounddevice finds no device named "default" (ALSA could not open it).
        ("default", "No output device matching 'default'"),
        # PortAudio has no default output device at all.
        (None, "PortAudio: Error querying device -1"),
    ],
)
def test_open_player_falls_back_to_null_with_one_warning(
    tmp_path: Path, device: str | None, reason: str
) -> None:
    (tmp_path / ".asoundrc").write_text(BROKEN_ASOUNDRC)

    proc = _run(tmp_path, OPEN_PLAYER_SCRIPT, json.dumps(device))

    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["type"] == "NullPlayer"
    warnings = [msg for level, msg in result["records"] if level == "WARNING"]
    assert warnings == [f"sound: no audio output ({reason}); running without cues"]
    assert all(level != "ERROR" for level, _ in result["records"])


# ------------------------------------------------------------------------ render_cue


@pytest.mark.parametrize(
    ("cue", "low", "high"),
    [
        (Cue.SIGNAL, 0.140, 0.160),
        (Cue.TIME_UP, 0.550, 0.650),
        (Cue.WARNING, 0.150, 0.350),
        (Cue.START, 0.050, 0.200),
    ],
)
def test_render_cue_length(cue: Cue, low: float, high: float) -> None:
    pcm = render_cue(cue, SR)
    assert len(pcm) % 2 == 0
    assert low * SR <= len(pcm) // 2 <= high * SR


def test_render_cue_length_scales_with_sample_rate() -> None:
    assert len(render_cue(Cue.SIGNAL, 44100)) // 2 == round(0.150 * 44100)


@pytest.mark.parametrize("cue", list(Cue))
@pytest.mark.parametrize("volume", [1.0, 0.8, 0.25])
def test_render_cue_peak_within_int16(cue: Cue, volume: float) -> None:
    samples = _samples(render_cue(cue, SR, volume=volume))
    peak = max(abs(s) for s in samples)
    assert peak == round(0.7 * 32767 * volume)
    assert 0 < peak < 32767  # headroom: a single cue never sits at the clipping rail


@pytest.mark.parametrize("cue", list(Cue))
def test_render_cue_fades_in_and_out(cue: Cue) -> None:
    samples = _samples(render_cue(cue, SR))
    peak = max(abs(s) for s in samples)
    assert samples[0] == 0
    assert samples[-1] == 0
    one_ms = SR // 1000
    # 1 ms into a 5 ms raised-cosine fade the gain is below 0.1.
    assert max(abs(s) for s in samples[:one_ms]) < 0.12 * peak
    assert max(abs(s) for s in samples[-one_ms:]) < 0.12 * peak


def test_render_cue_is_silent_volume_zero() -> None:
    assert render_cue(Cue.SIGNAL, SR, volume=0.0).strip(b"\0") == b""


def test_warning_is_two_beeps() -> None:
    samples = _samples(render_cue(Cue.WARNING, SR))
    runs: list[int] = []  # lengths of zero runs
    run = 0
    for s in samples:
        run = run + 1 if s == 0 else 0
        if run == 1:
            runs.append(0)
        if run:
            runs[-1] = run
    assert max(runs) >= 0.05 * SR  # a real pause between the two beeps


def test_cue_pitches_differ() -> None:
    def rate(cue: Cue) -> float:
        samples = _samples(render_cue(cue, SR))
        return _zero_crossings(samples) / len(samples)

    assert rate(Cue.TIME_UP) < rate(Cue.SIGNAL)  # "lower" tone
    start = _samples(render_cue(Cue.START, SR))
    half = len(start) // 2
    assert _zero_crossings(start[:half]) < _zero_crossings(start[half:])  # rising


def test_render_cue_is_deterministic() -> None:
    assert render_cue(Cue.START, SR) == render_cue(Cue.START, SR)
    assert len({render_cue(cue, SR) for cue in Cue}) == len(Cue)


@pytest.mark.parametrize(("rate", "volume"), [(0, 1.0), (SR, 1.5), (SR, -0.1)])
def test_render_cue_rejects_bad_arguments(rate: int, volume: float) -> None:
    with pytest.raises(ValueError):
        render_cue(Cue.SIGNAL, rate, volume=volume)


# ----------------------------------------------------------------------------- mixer


def _block(n: int) -> tuple[bytearray, memoryview]:
    raw = bytearray(b"\x55" * (2 * n))  # garbage: fill() must overwrite every sample
    return raw, memoryview(raw).cast("h")


def _view(values: list[int]) -> memoryview:
    return memoryview(array("h", values))


def test_mixer_silence_without_cues() -> None:
    mixer = _Mixer()
    raw, out = _block(64)
    mixer.fill(out)
    assert raw == bytearray(128)


def test_mixer_plays_one_cue_across_blocks_then_silence() -> None:
    mixer = _Mixer()
    cue = list(range(1, 101))
    mixer.trigger(_view(cue))
    played: list[int] = []
    for size in (30, 30, 30, 30):
        _, out = _block(size)
        mixer.fill(out)
        played.extend(out.tolist())
    assert played == [*cue, *([0] * 20)]


def test_mixer_sums_overlapping_cues_with_clipping() -> None:
    mixer = _Mixer()
    mixer.trigger(_view([30000, 1000, -30000, 5]))
    mixer.trigger(_view([10000, 2000, -10000]))
    _, out = _block(6)
    mixer.fill(out)
    assert out.tolist() == [32767, 3000, -32768, 5, 0, 0]


def test_mixer_second_cue_starts_in_a_later_block() -> None:
    mixer = _Mixer()
    mixer.trigger(_view([100] * 6))
    _, out = _block(4)
    mixer.fill(out)
    mixer.trigger(_view([1, 2, 3]))
    mixer.fill(out)
    assert out.tolist() == [101, 102, 3, 0]


def test_mixer_drops_oldest_beyond_max_voices() -> None:
    mixer = _Mixer(max_voices=3)
    for value in (1, 10, 100, 1000):
        mixer.trigger(_view([value] * 4))
    _, out = _block(4)
    mixer.fill(out)
    assert out.tolist() == [1110] * 4


def test_mixer_trigger_from_another_thread() -> None:
    mixer = _Mixer(max_voices=4)
    cue = _view([1] * 8)
    stop = threading.Event()

    def hammer() -> None:
        while not stop.is_set():
            mixer.trigger(cue)

    thread = threading.Thread(target=hammer)
    thread.start()
    try:
        _, out = _block(16)
        for _ in range(2000):
            mixer.fill(out)
            assert all(0 <= s <= 4 for s in out.tolist())
    finally:
        stop.set()
        thread.join()


# ---------------------------------------------------------------------------- players


def test_null_player_records_cues() -> None:
    player = NullPlayer()
    player.play(Cue.START)
    player.play(Cue.SIGNAL)
    player.close()
    assert player.played == [Cue.START, Cue.SIGNAL]
    assert player.closed


def test_sounddevice_player_constructor_opens_nothing() -> None:
    player = SoundDevicePlayer(device="no such device")
    assert not player.is_open
    assert player.latency is None
    player.play(Cue.SIGNAL)  # not open: ignored, never raises
    player.close()
    player.close()  # idempotent


def test_sounddevice_player_rejects_bad_volume() -> None:
    with pytest.raises(ValueError):
        SoundDevicePlayer(device=None, volume=2.0)


def test_open_without_sounddevice_raises_sound_unavailable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A None entry makes `import sounddevice` fail, as when the package is absent.
    monkeypatch.setitem(sys.modules, "sounddevice", None)
    with pytest.raises(SoundUnavailable, match="PortAudio library unavailable"):
        SoundDevicePlayer(device=None).open()


def test_open_player_without_sounddevice_returns_null_player(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(sys.modules, "sounddevice", None)
    log = logging.getLogger("sound-test")
    with caplog.at_level(logging.DEBUG, logger="sound-test"):
        player = open_player(None, True, log, volume=0.8)
    assert isinstance(player, NullPlayer)
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert warnings[0].getMessage().endswith("; running without cues")


def test_open_player_disabled_returns_null_player_quietly(
    caplog: pytest.LogCaptureFixture,
) -> None:
    log = logging.getLogger("sound-test")
    with caplog.at_level(logging.DEBUG, logger="sound-test"):
        player = open_player("default", False, log, volume=0.8)
    assert isinstance(player, NullPlayer)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
