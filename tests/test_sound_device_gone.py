"""Fault: the sound card goes away in the middle of a game and comes back (issue 8).

Real PortAudio and real ALSA, as in tests/test_sound.py, in a subprocess whose ALSA "default" is
the file plugin writing into a pseudo-terminal the test reads: the card. Unplugging it is what
the kernel does to a USB card: the running stream's writes fail (the pty's other side closes:
EIO) and the device can no longer be opened (ALSA's config, which alsa-lib re-reads when it
changes, now names a card that is not there). Plugging it back is a new pty and the config
pointing at it again.

The player (console/shell/sound.py, opened by open_player as the daemon opens it) must never
raise or hold the caller (the event loop) while the card is gone; it says once that the output
stopped, retries on later cues at most every REOPEN_INTERVAL_S (0.3 s here instead of 5 s), and
once the card is back a cue is heard on it, whole.
"""

from __future__ import annotations

import ctypes.util
import json
import os
import pty
import subprocess
import sys
import threading
import time
import tty
from pathlib import Path
from typing import Any

import pytest

from console.shell.sound import Cue, render_cue

REPO = Path(__file__).resolve().parents[1]
SR = 48000
ALSA_CONF = "/usr/share/alsa/alsa.conf"

pytestmark = pytest.mark.skipif(ctypes.util.find_library("portaudio") is None,
                                reason="PortAudio library missing (Debian: apt-get install libportaudio2)")

CARD = """\
pcm.!default {{ type plug; slave.pcm "card" }}
pcm.card {{ type file; slave.pcm "nullout"; file "{path}"; format "raw" }}
pcm.nullout {{ type null }}
"""
GONE = 'pcm.!default { type hw; card "UnpluggedCard" }\n'

# The game's side: a cue per line on stdin, how long play() held the caller and what the
# player logged, as a JSON line on stdout.
PLAYER = """\
import json, logging, sys, time
from console.shell import sound

sound.REOPEN_INTERVAL_S = 0.3
records = []

class Collect(logging.Handler):
    def emit(self, record):
        records.append(record.getMessage())

log = logging.getLogger("chgk.sound")
log.addHandler(Collect())
log.setLevel(logging.INFO)
player = sound.open_player("default", True, log, volume=0.8)
print(json.dumps({"type": type(player).__name__, "records": records}), flush=True)
for line in sys.stdin:
    if line.strip() == "quit":
        break
    start = time.monotonic()
    player.play(sound.Cue.SIGNAL)
    print(json.dumps({"held_s": time.monotonic() - start, "records": records}), flush=True)
player.close()
"""


class Card:
    """One plugged-in card: a pty whose every byte the test keeps."""

    def __init__(self) -> None:
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)  # raw bytes, no echo: the pty is a plain pipe for samples
        self.path = os.ttyname(self.slave)
        self.pcm = bytearray()
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:  # the master was closed: unplugged
                return
            if not data:
                return
            with self._lock:
                self.pcm += data

    def samples(self) -> bytes:
        with self._lock:
            return bytes(self.pcm)

    def unplug(self) -> None:
        # The slave first: with no slave left open anywhere the reader's read ends at once.
        os.close(self.slave)
        os.close(self.master)  # the stream's writes fail with EIO from now on
        self._reader.join(timeout=2)


def sound(pcm: bytes) -> bytes:
    """From the first to the last non-zero byte, whole samples (empty if silent)."""
    start = (len(pcm) - len(pcm.lstrip(b"\0"))) // 2 * 2
    end = len(pcm.rstrip(b"\0"))
    return pcm[start:(end + 1) // 2 * 2] if end else b""


def play(proc: subprocess.Popen[str]) -> dict[str, Any]:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("signal\n")
    proc.stdin.flush()
    answer: dict[str, Any] = json.loads(proc.stdout.readline())
    return answer


def configure(asoundrc: Path, text: str) -> None:
    """A new file, not the old one rewritten: alsa-lib notices a changed config by its inode
    and its mtime in whole seconds, and these changes come within one second."""
    new = asoundrc.with_suffix(".new")
    new.write_text(text)
    os.replace(new, asoundrc)


def wait_for(check: Any, within: float) -> None:
    deadline = time.monotonic() + within
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_the_card_unplugged_mid_game_costs_only_cues_and_is_picked_up_again(tmp_path: Path) -> None:
    asoundrc = tmp_path / "card.conf"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ALSA_")}
    # alsa-lib re-reads the files of ALSA_CONFIG_PATH when one changes (not ~/.asoundrc, which
    # alsa.conf pulls in), so the card's config is the last of those files.
    env.update(HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / ".config"), PYTHONPATH=str(REPO),
               ALSA_CONFIG_PATH=f"{ALSA_CONF}:{asoundrc}")
    first = Card()
    configure(asoundrc, CARD.format(path=first.path))
    cue = sound(render_cue(Cue.SIGNAL, SR, volume=0.8))
    errors = (tmp_path / "stderr").open("w")  # ALSA's complaints: a file, never a pipe that fills
    proc = subprocess.Popen([sys.executable, "-c", PLAYER], env=env, cwd=tmp_path, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors)
    second: Card | None = None
    try:
        assert proc.stdout is not None
        opened = json.loads(proc.stdout.readline())
        assert opened["type"] == "SoundDevicePlayer", opened

        play(proc)
        wait_for(lambda: sound(first.samples()) == cue, within=5)  # heard, whole, on the card

        first.unplug()
        configure(asoundrc, GONE)  # alsa-lib re-reads a config file that changed
        time.sleep(0.3)  # the running stream meets the dead device
        gone = []
        for _ in range(8):  # cues while the card is gone, 0.1 s apart
            gone.append(play(proc))
            time.sleep(0.1)
        # The loop is never held longer than PortAudio takes to try opening a device.
        assert max(answer["held_s"] for answer in gone) < 0.25, gone
        logged = gone[-1]["records"][len(opened["records"]):]
        assert logged[0] == "sound: the output stopped (device unplugged?); reopening it", logged
        retries = [r for r in logged if r.startswith("sound: still no output")]
        # Tried again on later cues, but not on every one: at most every 0.3 s (cues 0.1 s apart).
        assert 1 <= len(retries) < len(gone), logged
        assert retries[0].endswith("retrying in 0.3 s"), retries
        assert "sound: output reopened" not in logged

        second = Card()
        configure(asoundrc, CARD.format(path=second.path))
        deadline = time.monotonic() + 5
        while not sound(second.samples()):
            assert time.monotonic() < deadline, "the card came back but no cue was heard on it"
            back = play(proc)
            time.sleep(0.4)
        assert back["records"][-1] == "sound: output reopened", back["records"]
        assert sound(second.samples()) == cue  # the cue after the reopening, played whole
        assert proc.stdin is not None
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        assert proc.wait(timeout=10) == 0, (tmp_path / "stderr").read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        errors.close()
        if second is not None:
            second.unplug()
