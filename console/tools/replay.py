"""Replay: feed a JSON Lines scenario through the referee in virtual time, print its events.

Contract: `replay_file(path, out, err)` writes one event per line to `out`, the same JSON the
console publishes on MQTT, and returns an exit status (0: every line was good; 1: some lines
were refused, each named on `err`, and the rest was still replayed; 2: the scenario's config
is unusable). The playing is console/playback.py's (`read_scenario`, `play`), shared with
resuming a fight from the journal.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TextIO

from console.engine.model import Output
from console.playback import VirtualTable, play, read_scenario
from console.shell.mqtt_wire import encode
from console.wire import events_json

__all__ = ["VirtualTable", "replay_file", "replay_lines"]


def replay_lines(lines: Iterable[str], name: str, out: TextIO, err: TextIO) -> int:
    scenario = read_scenario(lines, name, err)
    if scenario is None:
        return 2
    seq = 0

    def printed(outputs: list[Output]) -> None:
        nonlocal seq
        seq = _print_events(outputs, seq, out)

    table = play(scenario, on_step=printed)
    before = len(table.outputs)
    table.run_out()
    _print_events(table.outputs[before:], seq, out)
    return 1 if scenario.bad else 0


def replay_file(path: str, out: TextIO, err: TextIO) -> int:
    try:
        with open(path, encoding="utf-8") as f:
            return replay_lines(f, path, out, err)
    except OSError as exc:
        print(f"replay: {path}: {exc.strerror}", file=err)
        return 2
    except UnicodeDecodeError as exc:
        print(f"replay: {path}: not a scenario (not UTF-8 text: {exc.reason} at byte {exc.start})", file=err)
        return 2


def _print_events(outputs: list[Output], seq: int, out: TextIO) -> int:
    for event in events_json(outputs):
        seq += 1
        event["seq"] = seq
        out.write(encode(event).decode() + "\n")
    return seq
