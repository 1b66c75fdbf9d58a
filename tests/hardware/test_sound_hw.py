"""The real sound card, through the console's own player (console/shell/sound.py open_player).

Without anyone at the table: the output ($CHGK_HW_SOUND, else the installed config's [sound]
device, else PortAudio's default) opens as the daemon opens it (not the silent fallback), with a
low latency, and keeps running while cues play: a stream that died under a cue is found and
reported ("the output stopped") by the next cue, so two cues a second apart with no warning show
that the card took the first. Whether it is heard is for the ears: the cue plays at the
configured volume.
"""

from __future__ import annotations

import logging
import time

import pytest

from console.shell.sound import Cue, SoundDevicePlayer, open_player
from tests.hardware import devices

MAX_LATENCY_S = 0.1  # PortAudio's "low" latency on ALSA is a few ms to a few tens of ms


def test_the_sound_card_opens_and_keeps_playing(caplog: pytest.LogCaptureFixture) -> None:
    wanted = devices.sound_device()
    if wanted is None:
        pytest.skip(f"[sound] enabled = false in the installed config; set {devices.SOUND} to test "
                    f"an output anyway")
    config = devices.installed_config()
    volume = config.sound.volume if config is not None else 0.8
    log = logging.getLogger("chgk.test.sound")
    caplog.set_level(logging.INFO)
    player = open_player(wanted.value or None, True, log, volume=volume)
    try:
        if not isinstance(player, SoundDevicePlayer):
            wanted.absent(" ".join(r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING))
        latency = player.latency
        assert latency is not None and 0 < latency <= MAX_LATENCY_S, f"latency {latency} s"
        for cue in (Cue.START, Cue.SIGNAL, Cue.TIME_UP):
            player.play(cue)
            time.sleep(1.0)
        player.play(Cue.SIGNAL)  # finds a stream that stopped under the cues before
        time.sleep(0.3)
    finally:
        player.close()
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert not warnings, warnings
