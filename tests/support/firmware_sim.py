"""The button box firmware on simavr's ATmega328P (firmware/sim/box_sim): `built` (a module
fixture) makes box_sim and box.elf from a copy of firmware/; `chip` runs them, a `Chip` with its
UART on a pseudo-terminal and its pad pins driven by the test at exact simulated cycles. The
chip's figures (CPU_HZ, RESOLUTION_US, DEBOUNCE_US), and `needs_firmware_sim`, the mark that
skips a test with the reason where avr-gcc, make, gcc or simavr's library is missing."""

from __future__ import annotations

import queue
import shutil
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

__all__ = ["CPU_HZ", "DEBOUNCE_US", "RESOLUTION_US", "Chip", "built", "chip", "needs_firmware_sim"]

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
CPU_HZ = 16_000_000
RESOLUTION_US = 20  # what HELLO states (TIMER_RESOLUTION_US in firmware/box/main.c)
DEBOUNCE_US = 5000

_MISSING = [tool for tool in ("avr-gcc", "make", "gcc") if shutil.which(tool) is None]
if not Path("/usr/include/simavr/sim_avr.h").exists():
    _MISSING.append("libsimavr-dev")
needs_firmware_sim = pytest.mark.skipif(
    bool(_MISSING), reason=f"needs {', '.join(_MISSING)} (Debian: gcc-avr avr-libc make gcc libsimavr-dev)"
)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(box_sim, box.elf), built from a copy of firmware/ so the tree stays clean."""
    dest = tmp_path_factory.mktemp("fw") / "firmware"
    shutil.copytree(FIRMWARE, dest, ignore=shutil.ignore_patterns("build", "*.elf", "*.hex"))
    subprocess.run(["make", "-C", str(dest), "sim"], check=True, capture_output=True, timeout=120)
    return dest / "build" / "box_sim", dest / "box" / "box.elf"


@dataclass
class Chip:
    """A running box_sim: its pty, and what it reports about pins and lamps."""

    proc: subprocess.Popen[str]
    port: str
    pins: queue.Queue[tuple[int, int, int]] = field(default_factory=queue.Queue)  # pad, level, cycle
    lamps: list[int] = field(default_factory=list)
    ptys: queue.Queue[str] = field(default_factory=queue.Queue)  # each new pty after a plug

    def drive(self, *changes: tuple[int, int, int]) -> None:
        """(pad, after_us, level) changes, timed from one simulated instant."""
        self._say("pins " + " ".join(f"{p}:{us}:{lv}" for p, us, lv in changes))

    def unplug(self) -> None:
        """The cable out: the host's port ends; the chip keeps its power and runs on."""
        self._say("unplug")

    def plug(self) -> str:
        """The cable back: the new pty's path."""
        self._say("plug")
        return self.ptys.get(timeout=2)

    def _say(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def edge_cycles(self, count: int) -> list[tuple[int, int, int]]:
        return [self.pins.get(timeout=2) for _ in range(count)]


@pytest.fixture
def chip(built: tuple[Path, Path]) -> Iterator[Chip]:
    box_sim, elf = built
    proc = subprocess.Popen([str(box_sim), str(elf)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    port = ""
    for line in proc.stdout:  # simavr prints what it loaded first
        if line.startswith("PTY "):
            port = line.split()[1]
            break
    assert port, "box_sim did not start"
    sim = Chip(proc, port)
    stdout = proc.stdout

    def reader() -> None:
        for line in stdout:
            words = line.split()
            if words[:1] == ["PIN"]:
                sim.pins.put((int(words[1]), int(words[2]), int(words[3])))
            elif words[:1] == ["LAMPS"]:
                sim.lamps.append(int(words[1]))
            elif words[:1] == ["PTY"]:
                sim.ptys.put(words[1])

    threading.Thread(target=reader, daemon=True).start()
    try:
        yield sim
    finally:
        proc.kill()
        proc.wait()
