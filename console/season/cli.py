"""`chgk-console season --config FILE [--backup FILE]` (docs/tournament.md).

Contract: `main_season(config_path, backup)` reads the config (console/season/config.py); with
`backup` it copies the season's database there (sqlite3's online backup: consistent while the
service runs) and exits; otherwise it runs the service (console/season/service.py) until
SIGTERM or SIGINT. Exit status 0, or 1 with the reason on stderr (a bad config, a database that
cannot be used).
"""

from __future__ import annotations

import sys

from console.config import ConfigError
from console.season.config import load_season_config
from console.season.db import SeasonDb, SeasonDbError
from console.season.service import SeasonService
from console.shell.event_loop import run_until_stopped


def main_season(config_path: str, backup: str | None) -> int:
    try:
        config = load_season_config(config_path)
        if backup is not None:
            db = SeasonDb(config.database)
            try:
                print(db.backup(backup))
            finally:
                db.close()
            return 0
        service = SeasonService(config)
    except (ConfigError, SeasonDbError, OSError) as exc:
        print(f"chgk-console: {exc}", file=sys.stderr)
        return 1
    return run_until_stopped(service.run)

