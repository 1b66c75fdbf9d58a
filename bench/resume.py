"""What resuming a fight costs as the evening grows (`chgk-console bench resume`).

A busy «Своя игра» evening is recorded first: a question a minute, each with 12 s of the
MCU's scan watermarks (the reading and the window, 100 a second), a press and the verdict,
played through a real `Console` on a hand clock with a real journal, so the journal is what a
live console writes (its checkpoints included: console/shell/checkpoint.py), about 1 200
lines a minute (a 3-hour evening: ~216 000 lines, ~14 MB). Then, for 10 minutes, 1 hour and 3
hours of it, a fresh Python process does what `chgk-console run` does at start (find today's
journal, read it, build the console on it, announce) and reports:

* ``resume_s``: the time that takes (median of three processes);
* ``rss_mb``: the process's peak resident memory after it (VmHWM), and ``fresh_rss_mb`` a
  fresh start's (no journal), so ``rss_vs_fresh`` is the share the evening's length adds;
* ``lines`` and ``mb``: the journal's size; ``replayed``: the lines read after its last
  checkpoint (each evening is cut at the worst moment for a crash: just before its last
  checkpoint was written, so a resume replays the most lines it ever has to).

The same is measured with the checkpoints taken out (``full_replay_s``, ``full_rss_mb``), as
a journal of an older version would be resumed: the floor the checkpoints are judged
against, in the same run. Prints figures; asserts nothing.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.report import print_result
from console.config import Config
from console.engine.model import Host, HostAction, Press, Watermark
from console.games import config_from_dict
from console.shell.runtime import Console

MINUTES = (10.0, 60.0, 180.0)
PLAYERS = 3
NS = 1_000_000_000
MS = 1_000_000
WATERMARK_NS = 10 * MS  # the box's scans while signals count
RUNS = 3


def evening_config(journal: str = "") -> dict[str, Any]:
    return {
        "console": {"node": "bench", "journal": journal},
        "game": {"seed": 11},
        "players": [{"id": f"p{i}", "name": f"Игрок {i}", "pad": f"mcu:{i}"} for i in range(PLAYERS)],
        "sources": {"mcu": {"kind": "simulated_mcu", "pads": PLAYERS}},
        "sound": {"enabled": False},
    }


class _Clock:
    def __init__(self, now: int) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


def record_evening(path: Path, config: Config, minutes: float, *, start_ns: int = 1_000 * NS) -> int:
    """Play `minutes` of the evening (see the module docstring) through a Console writing its
    journal at `path`, the power going while the last question is being answered; the number
    of questions played."""
    clock = _Clock(start_ns)
    console = Console(config, clock=clock, journal=path.open("w", encoding="utf-8"))

    def at(t: int, *inputs: object) -> None:
        clock.now = t
        console.fire_due(t)
        console.feed(list(inputs), now=t)

    def question(q: int, *, judged: bool = True) -> None:
        t0 = start_ns + q * 60 * NS
        at(t0, Host(HostAction.NEXT, t0))
        for k in range(1, 1200):
            t = t0 + k * WATERMARK_NS
            if k == 500:
                at(t, Host(HostAction.READING_FINISHED, t))
            at(t, Watermark("mcu", t))
        pressed = t0 + 11_500 * MS + 3 * MS
        at(pressed, Press("mcu", f"mcu:{q % PLAYERS}", pressed), Watermark("mcu", pressed))
        if judged:
            at(t0 + 13 * NS, Host(HostAction.CORRECT, t0 + 13 * NS))

    questions = max(1, int(minutes))
    for q in range(questions - 1):
        question(q)
    question(questions - 1, judged=False)  # the power goes while Игрок answers
    console.journal.close()
    return questions


# The peak resident memory of this process's own image (VmHWM: ru_maxrss would count the
# parent's memory at the fork before the exec, and the parent grows with the recorded evening).
_MEASURE = """
import json, sys, time
from pathlib import Path
from console.games import config_from_dict
from console.shell import resume
from console.shell.journal_files import Resumed
from console.shell.runtime import Console
config = config_from_dict(json.loads(sys.argv[1]), "bench")
started = time.perf_counter()
found = resume.prepare(config, time.monotonic_ns())
journal = (Resumed(found.path, found.keep_bytes, needs_newline=found.needs_newline)
           if isinstance(found, resume.Resumption) else None)
console = Console(config, journal=journal, resume=found if isinstance(found, resume.Resumption) else None)
resume.announce(console, found)
took = time.perf_counter() - started
console.journal.close()
inputs = found.inputs if isinstance(found, resume.Resumption) else 0
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"s": took, "rss_kb": peak, "inputs": inputs}))
"""


def _measure(config: dict[str, Any]) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", _MEASURE, json.dumps(config)], capture_output=True,
                          text=True, check=True, cwd=Path(__file__).resolve().parent.parent)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _runs(config: dict[str, Any], journal: Path, original: bytes, runs: int) -> tuple[float, float]:
    """Median resume time (s) and peak RSS (MB) of `runs` starts, each on the journal as recorded."""
    times, rss = [], []
    for _ in range(runs):
        journal.write_bytes(original)  # each start appends its checkpoint: start from the record
        result = _measure(config)
        times.append(result["s"])
        rss.append(result["rss_kb"] / 1024)
    return statistics.median(times), statistics.median(rss)


def _without_checkpoints(data: bytes) -> bytes:
    return b"".join(line for line in data.splitlines(keepends=True) if not line.startswith(b'{"checkpoint"'))


def _cut_before_last_checkpoint(data: bytes) -> bytes:
    """The journal as a crash just before its last checkpoint left it: the worst moment, the
    most lines after a checkpoint for a resume to replay."""
    lines = data.splitlines(keepends=True)
    last = max((i for i, line in enumerate(lines) if line.startswith(b'{"checkpoint"')), default=None)
    return data if last is None else b"".join(lines[:last])


def _after_last_checkpoint(data: bytes) -> int:
    lines = data.splitlines()
    last = max((i for i, line in enumerate(lines) if line.startswith(b'{"checkpoint"')), default=0)
    return len(lines) - last - 1


def main(*, as_json: bool = False, minutes: tuple[float, ...] = MINUTES, runs: int = RUNS) -> int:
    result: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        fresh_kb = statistics.median(_measure(evening_config(str(Path(tmp) / "none" / "j.jsonl")))["rss_kb"]
                                     for _ in range(runs))
        result["fresh_rss_mb"] = round(fresh_kb / 1024, 1)
        for length in minutes:
            folder = Path(tmp) / f"m{int(length)}"
            folder.mkdir()
            journal = folder / f"journal-{time.strftime('%Y%m%d')}-190000.jsonl"
            config = evening_config(str(folder / "journal.jsonl"))
            record_evening(journal, config_from_dict(config, "bench"), length)
            original = _cut_before_last_checkpoint(journal.read_bytes())
            key = f"{int(length)}min"
            took, rss = _runs(config, journal, original, runs)
            full_took, full_rss = _runs(config, journal, _without_checkpoints(original), runs)
            result[f"{key}_lines"] = original.count(b"\n")
            result[f"{key}_mb"] = round(len(original) / 1e6, 1)
            result[f"{key}_replayed"] = _after_last_checkpoint(original)
            result[f"{key}_resume_s"] = round(took, 3)
            result[f"{key}_rss_mb"] = round(rss, 1)
            result[f"{key}_rss_vs_fresh"] = round(rss / (fresh_kb / 1024), 3)
            result[f"{key}_full_replay_s"] = round(full_took, 3)
            result[f"{key}_full_rss_mb"] = round(full_rss, 1)
    print_result(result, as_json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(as_json="--json" in sys.argv))
