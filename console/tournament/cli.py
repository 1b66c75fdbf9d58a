"""`chgk-console tournament --config FILE [--export DIR]` (docs/tournament.md).

Contract: `main_tournament(config_path, export_dir)` reads the config (console/tournament/
config.py); with `export_dir` it writes the stored tournament's standings.csv and
tournament.json there and exits; otherwise it runs the service (console/tournament/service.py)
until SIGTERM or SIGINT, holding a lock in the state folder (`.tournament.lock`): a second
service on the same tournament exits naming the first's pid. Exit status 0, or 1 with the
reason on stderr (a bad config, a store that cannot be read, a tournament already served).
"""

from __future__ import annotations

import sys
from pathlib import Path

from console.config import ConfigError
from console.shell.event_loop import run_until_stopped
from console.shell.instance_lock import AlreadyRunning, hold
from console.tournament.config import load_tournament_config
from console.tournament.service import TournamentService, export
from console.tournament.store import StoreError


def main_tournament(config_path: str, export_dir: str | None) -> int:
    try:
        config = load_tournament_config(config_path)
        if export_dir is not None:
            for path in export(config, export_dir):
                print(path)
            return 0
        # One service per tournament: two would share the broker session and both write the store.
        lock = hold(Path(config.state_dir) / ".tournament.lock", f"the tournament in {config.state_dir}")
        service = TournamentService(config)
    except (ConfigError, StoreError, ValueError, KeyError, OSError, AlreadyRunning) as exc:
        print(f"chgk-console: {exc}", file=sys.stderr)
        return 1
    try:
        return run_until_stopped(service.run)
    finally:
        if lock is not None:
            lock.close()

