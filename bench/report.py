"""What every benchmark's `main` does around its own run: check the tools it needs, print.

Contract: `missing_tools(tools)` prints which of `tools` is not installed and returns True
if any is; `print_result(result, as_json)` prints the figures as one JSON line or aligned
``key: value`` lines; `stop_processes(procs)` ends what a benchmark started (last first).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence


def missing_tools(tools: Iterable[str]) -> bool:
    """True (and said on stderr) if one of `tools` is not on PATH."""
    for tool in tools:
        if shutil.which(tool) is None:
            print(f"bench: {tool} not found (apt-get install mosquitto mosquitto-clients)", file=sys.stderr)
            return True
    return False


def print_result(result: Mapping[str, object], as_json: bool) -> None:
    if as_json:
        print(json.dumps(result))
        return
    width = max(map(len, result), default=0)
    for key, value in result.items():
        print(f"{key:>{width}}: {value}")


def stop_processes(procs: Sequence[subprocess.Popen[bytes]]) -> None:
    """Terminate `procs`, the last started first, and wait for each (killed after 5 s)."""
    for proc in reversed(procs):
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
