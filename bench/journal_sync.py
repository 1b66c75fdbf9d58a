"""What making the journal durable costs on the press path (`python -m bench.journal_sync [DIR]`).

A real `Console` («Своя игра», 3 players) with a real journal file in DIR (default: the system's
temporary directory; give the card's directory, e.g. /var/lib/chgk-console, on a Pi). Each
sample is one question: the host's "next", one press and its watermark (the decision
``signal_accepted``: a lamp lights), the host's "correct". For the press it measures, on
`time.perf_counter_ns`:

* ``press_to_lamp_us``: from handing the press to `Console.feed` to the lamp frame being
  handed to the MCU link (a stand-in that records the time);
* ``press_loop_us``: from the same start until `feed` returns: how long the event loop is
  held by the press (a second press waits that long for its own lamp).

in three modes: ``flush`` (the journal as before: written and flushed to the kernel, never
synced), ``syncer_thread`` (what the console does: `sync_soon()` after the lamps and events,
the fdatasync on the journal's own thread), ``inline_fdatasync`` (the alternative: an
fdatasync in the loop right after the lamps and events). It also times a bare ``fdatasync``
of the file after one line. Prints figures (percentiles, µs) and the machine; asserts nothing.
"""

from __future__ import annotations

import gc
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from console.engine.model import Host, HostAction, Press, Watermark
from console.games import config_from_dict
from console.shell.runtime import Console

SAMPLES = 300
MODES = ("flush", "syncer_thread", "inline_fdatasync")


class LampStandIn:
    """Takes the lamp masks as an MCU link would, and notes when."""

    def __init__(self) -> None:
        self.at: int | None = None

    def set_lamps(self, on: int, blink: int) -> None:
        if on and self.at is None:
            self.at = time.perf_counter_ns()


def _config() -> Any:
    return config_from_dict({
        "game": {"seed": 7},
        "players": [{"id": f"p{i}", "name": f"Игрок {i}", "pad": f"mcu:{i}"} for i in range(3)],
        "sources": {"mcu": {"kind": "simulated_mcu", "pads": 3}},
    }, "bench")


def run_mode(mode: str, directory: Path, samples: int) -> dict[str, list[float]]:
    path = directory / f"bench-journal-{mode}-{os.getpid()}.jsonl"
    with path.open("w", encoding="utf-8") as file:
        console = Console(_config(), journal=file)
        lamp = LampStandIn()
        console.sources.links["mcu"] = lamp  # type: ignore[assignment]  # only set_lamps is called
        journal = console.journal
        if mode == "flush":
            journal.sync_soon = lambda: None  # type: ignore[method-assign]
        elif mode == "inline_fdatasync":
            def sync_inline() -> None:
                journal.sync_now()

            journal.sync_soon = sync_inline  # type: ignore[method-assign]
        lamp_us: list[float] = []
        loop_us: list[float] = []
        t = 1_000_000_000
        for i in range(samples):
            t += 1_000_000_000
            console.feed([Host(HostAction.NEXT, t)], now=t)
            time.sleep(0.002)  # let a sync of the previous step finish, as seconds pass at the table
            lamp.at = None
            pad = f"mcu:{i % 3}"
            start = time.perf_counter_ns()
            console.feed([Press("mcu", pad, t + 500_000_000), Watermark("mcu", t + 500_000_000)],
                         now=t + 500_000_000)
            end = time.perf_counter_ns()
            assert lamp.at is not None, "the press lit no lamp"
            lamp_us.append((lamp.at - start) / 1000)
            loop_us.append((end - start) / 1000)
            console.feed([Host(HostAction.CORRECT, t + 600_000_000)], now=t + 600_000_000)
            time.sleep(0.002)
        journal.close()
    path.unlink()
    return {"press_to_lamp_us": lamp_us, "press_loop_us": loop_us}


def bare_fdatasync(directory: Path, samples: int) -> list[float]:
    path = directory / f"bench-fdatasync-{os.getpid()}.jsonl"
    took: list[float] = []
    with path.open("w", encoding="utf-8") as file:
        for i in range(samples):
            file.write(json.dumps({"at_ms": i, "press": "mcu:0"}) + "\n")
            file.flush()
            start = time.perf_counter_ns()
            os.fdatasync(file.fileno())
            took.append((time.perf_counter_ns() - start) / 1000)
    path.unlink()
    return took


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)

    def pct(p: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))], 1)

    return {"p50": pct(50), "p90": pct(90), "p99": pct(99), "max": round(ordered[-1], 1),
            "mean": round(statistics.fmean(ordered), 1)}


def main(argv: list[str]) -> int:
    directory = Path(argv[0]) if argv else Path(tempfile.gettempdir())
    samples = int(argv[1]) if len(argv) > 1 else SAMPLES
    gc.collect()
    gc.freeze()
    figures: dict[str, Any] = {
        "machine": f"{platform.machine()} {os.cpu_count()} CPUs, {platform.system()} {platform.release()}, "
                   f"Python {platform.python_version()}",
        "directory": str(directory),
        "samples": samples,
        "bare_fdatasync_us": summary(bare_fdatasync(directory, samples)),
    }
    for mode in MODES:
        measured = run_mode(mode, directory, samples)
        figures[mode] = {name: summary(values) for name, values in measured.items()}
    print(json.dumps(figures, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
