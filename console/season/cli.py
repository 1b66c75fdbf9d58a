"""`chgk-console season --config FILE [--backup FILE]` (docs/tournament.md).

Contract: `main_season(config_path, backup)` reads the config (console/season/config.py); with
`backup` it copies the season's database there (sqlite3's online backup: consistent while the
service runs) and exits; otherwise it runs the service (console/season/service.py) until
SIGTERM or SIGINT, holding a lock beside the database (`.<name>.lock`): a second service on the
same season exits naming the first's pid. Exit status 0, or 1 with the reason on stderr (a bad
config, a database that cannot be used or, for a backup, is not there; a season already served).
"""

from __future__ import annotations

import sys
from pathlib import Path

from console.config import ConfigError
from console.season.config import load_season_config
from console.season.db import SeasonDb, SeasonDbError
from console.season.service import SeasonService
from console.shell.event_loop import run_until_stopped
from console.shell.instance_lock import AlreadyRunning, hold


def main_season(config_path: str, backup: str | None) -> int:
    try:
        config = load_season_config(config_path)
        if not Path(config.database).exists() and backup is not None:
            raise SeasonDbError(f"no season database at {config.database} to back up (the config's "
                                "[season] database, relative to its folder)")
        if backup is not None:
            db = SeasonDb(config.database)
            try:
                print(db.backup(backup))
            finally:
                db.close()
            return 0
        # One service per season: a second one on the database would answer every table twice.
        lock = hold(Path(config.database).with_name(f".{Path(config.database).name}.lock"),
                    f"the season {config.database}")
        service = SeasonService(config)
    except (ConfigError, SeasonDbError, OSError, AlreadyRunning) as exc:
        print(f"chgk-console: {exc}", file=sys.stderr)
        return 1
    try:
        return run_until_stopped(service.run)
    finally:
        if lock is not None:
            lock.close()

