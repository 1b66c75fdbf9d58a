"""The floor under `bench table`'s CPU figure: a process that only wakes for the box's bursts.

It opens a simulated box's port as the daemon does (`drivers.mcu_serial.open_port`), watches
it on the daemon's event loop (`console.shell.event_loop.run_loop`) and reads and drops what
comes: what waking once a burst costs in Python before any decoding, judging or publishing.
`bench table` runs it, as its own process, on a second simulated box streaming the same top in
the same window, and prints the daemon's CPU as a ratio to it (this machine's speed varies
from hour to hour; the ratio much less).

Usage: ``python -m bench.wake_floor PORT``; prints ``ready`` once it reads the port, and runs
until SIGTERM (status 0).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys

from console.shell.event_loop import run_loop
from drivers.mcu_serial import open_port

_READ_CHUNK = 4096  # as the daemon's link reads


def _drop_what_came(fd: int) -> None:
    with contextlib.suppress(BlockingIOError):
        os.read(fd, _READ_CHUNK)


async def _read_until_stopped(path: str) -> int:
    port = open_port(path, 115200)
    loop = asyncio.get_running_loop()
    stopped = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stopped.set)
    loop.add_reader(port.fileno(), _drop_what_came, port.fileno())
    print("ready", flush=True)
    try:
        await stopped.wait()
    finally:
        loop.remove_reader(port.fileno())
        port.close()
    return 0


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m bench.wake_floor PORT", file=sys.stderr)
        return 2
    return run_loop(_read_until_stopped(argv[0]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
