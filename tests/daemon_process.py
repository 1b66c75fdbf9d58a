"""`chgk-console run --config FILE` as a separate process, the way systemd runs it, for tests."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@asynccontextmanager
async def daemon_process(config: Path, *args: str) -> AsyncIterator[None]:
    """Run the daemon on `config` (and `args`, e.g. ``--pack FILE``) for the body; then stop it
    with SIGTERM (killed after 10 s) and assert it exited cleanly, showing its log
    (``daemon.log`` beside the config) if not."""
    log_path = config.with_name("daemon.log")
    with log_path.open("wb") as log:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "console.cli", "run", "--config", str(config), *args, cwd=ROOT, stderr=log)
        try:
            yield
        finally:
            if proc.returncode is None:
                proc.send_signal(signal.SIGTERM)
            try:
                async with asyncio.timeout(10):
                    await proc.wait()
            except TimeoutError:
                proc.kill()
                await proc.wait()
    assert proc.returncode == 0, log_path.read_text(encoding="utf-8")
