"""The season database: one embedded SQLite file (the standard library's sqlite3) holding a
season: its teams, every game's result as it was received, the first stage's outcome, the
captains' choices, the organiser's rulings and the decisions taken, with who and when.

Contract: `SeasonDb(path)` opens (or makes) the file in WAL mode with full syncs, and brings
its schema to `SCHEMA_VERSION` by running the migrations it lacks, each in its own
transaction (a file of a newer version is refused: `SeasonDbError`). Every change is one
transaction, committed before the call returns: after `kill -9` at any instant the file holds
every change whose call returned, and none half. `offer_result` counts a game once: the same
result again is a repeat (kept in `arrivals`, nothing changes); a newer version from the same
source (a table's record republished after a late hall answer or a correction: the latest
wins; the organiser retyping a game) updates it; a different result from another source is a
conflict (kept, shown, nothing changes). The organiser's own result ("hand") is the season's
word: it replaces one from a console ("corrected") and settles the conflicts before it; the
version it overruled, coming again (a table's retained record at every restart), is
"overruled" (kept, not shown). `backup(path)` copies the whole database with sqlite3's online
backup (consistent while the service runs).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from console.season.model import Decision, GameResult, Ruling, Team

__all__ = ["HAND", "SCHEMA_VERSION", "SeasonDb", "SeasonDbError"]

HAND = "hand"  # the source of a result the organiser typed

# Each migration takes the schema from its index to the next version (PRAGMA user_version).
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE teams (id TEXT PRIMARY KEY, name TEXT NOT NULL, registered INTEGER NOT NULL,
                        players INTEGER NOT NULL, town TEXT NOT NULL DEFAULT '',
                        ord INTEGER NOT NULL);
    CREATE TABLE results (game TEXT PRIMARY KEY, stage TEXT NOT NULL, team TEXT NOT NULL,
                          doc TEXT NOT NULL, source TEXT NOT NULL, received_at TEXT NOT NULL,
                          ord INTEGER NOT NULL);
    CREATE TABLE arrivals (id INTEGER PRIMARY KEY AUTOINCREMENT, game TEXT NOT NULL,
                           doc TEXT NOT NULL, source TEXT NOT NULL, at TEXT NOT NULL,
                           fate TEXT NOT NULL);
    CREATE TABLE first_stage (id INTEGER PRIMARY KEY CHECK (id = 1), doc TEXT NOT NULL,
                              source TEXT NOT NULL, at TEXT NOT NULL);
    CREATE TABLE slots (team TEXT PRIMARY KEY, slot INTEGER NOT NULL UNIQUE, at TEXT NOT NULL,
                        ord INTEGER NOT NULL);
    CREATE TABLE rulings (step TEXT PRIMARY KEY, teams TEXT NOT NULL, why TEXT NOT NULL,
                          by TEXT NOT NULL, at TEXT NOT NULL);
    CREATE TABLE decisions (id INTEGER PRIMARY KEY AUTOINCREMENT, step TEXT NOT NULL,
                            clause TEXT NOT NULL, text TEXT NOT NULL UNIQUE, at TEXT NOT NULL);
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)


class SeasonDbError(Exception):
    """The database cannot be used (a newer schema, not a database)."""


class SeasonDb:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()  # paho's thread changes it; a backup reads it from another
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("PRAGMA synchronous = FULL")  # a committed change survives a power cut
            self._db.execute("PRAGMA foreign_keys = ON")
            self._migrate()
        except sqlite3.DatabaseError as exc:
            raise SeasonDbError(f"{self.path}: not a season database ({exc})") from exc

    def _migrate(self) -> None:
        version = int(self._db.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise SeasonDbError(f"{self.path}: schema {version} is newer than this console's "
                                f"{SCHEMA_VERSION}")
        for number in range(version, SCHEMA_VERSION):
            with self._transaction() as db:
                db.executescript(f"BEGIN; {MIGRATIONS[number]}; PRAGMA user_version = {number + 1}; COMMIT;")

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            yield self._db

    def _change(self, sql: str, *args: Any) -> sqlite3.Cursor:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                cursor = self._db.execute(sql, args)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
            return cursor

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # ------------------------------------------------------------------ the season

    def meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self._change("INSERT INTO meta (key, value) VALUES (?, ?) "
                     "ON CONFLICT (key) DO UPDATE SET value = excluded.value", key, value)

    def teams(self) -> list[Team]:
        query = "SELECT id, name, registered, players, town FROM teams ORDER BY ord"
        rows = self._db.execute(query).fetchall()
        return [Team(r[0], r[1], bool(r[2]), int(r[3]), r[4]) for r in rows]

    def add_team(self, team: Team) -> bool:
        """The team, unless one with its id is there (then False: the first stays)."""
        cursor = self._change(
            "INSERT OR IGNORE INTO teams (id, name, registered, players, town, ord) "
            "VALUES (?, ?, ?, ?, ?, (SELECT COALESCE(MAX(ord), 0) + 1 FROM teams))",
            team.id, team.name, int(team.registered), team.players, team.town)
        return cursor.rowcount == 1

    def offer_result(self, result: GameResult, at: str) -> str:
        """"recorded", "repeat", "updated", "corrected", "overruled" or "conflict" (see the module
        docstring); every arrival is kept."""
        doc = json.dumps(result.document(), ensure_ascii=False, sort_keys=True)
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                row = self._db.execute("SELECT doc FROM results WHERE game = ?", (result.game,)).fetchone()
                if row is None:
                    fate = "recorded"
                    self._db.execute(
                        "INSERT INTO results (game, stage, team, doc, source, received_at, ord) VALUES "
                        "(?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(ord), 0) + 1 FROM results))",
                        (result.game, result.stage, result.team, doc, result.source, at))
                else:
                    fate = self._fate(GameResult.from_document(json.loads(row[0])), result, doc)
                    if fate in ("updated", "corrected"):  # its source's newer version, or the organiser's
                        self._db.execute("UPDATE results SET doc = ?, source = ?, received_at = ? "
                                         "WHERE game = ?", (doc, result.source, at, result.game))
                self._db.execute("INSERT INTO arrivals (game, doc, source, at, fate) VALUES (?, ?, ?, ?, ?)",
                                 (result.game, doc, result.source, at, fate))
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        return fate

    def _fate(self, counted: GameResult, result: GameResult, doc: str) -> str:
        if result.source == HAND and result.final_of and result.final_of != counted.final_of:
            return "corrected"  # the organiser counts a final as the one its team is in now
        if counted.same_result(result):
            # The organiser typing the counted result confirms it: a conflict about it is settled.
            return "corrected" if result.source == HAND and counted.source != HAND else "repeat"
        if counted.source == result.source:
            return "updated"
        if result.source == HAND:
            return "corrected"
        if counted.source == HAND:
            overruled = self._db.execute(
                "SELECT 1 FROM arrivals WHERE game = ? AND source = ? AND doc = ? LIMIT 1",
                (result.game, result.source, doc)).fetchone()
            if overruled is not None:
                return "overruled"
        return "conflict"

    def remove_result(self, game: str, at: str) -> GameResult | None:
        """Take a counted result out (kept in `arrivals` as "removed"); None: no such game. A
        table's version that it had replaced is counted again (the organiser's correction taken
        back), else the game has no result."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                row = self._db.execute("SELECT doc, source FROM results WHERE game = ?", (game,)).fetchone()
                if row is not None:
                    self._db.execute("INSERT INTO arrivals (game, doc, source, at, fate) "
                                     "VALUES (?, ?, ?, ?, 'removed')", (game, row[0], row[1], at))
                    before = self._db.execute(
                        "SELECT doc, source FROM arrivals WHERE game = ? AND source != ? AND fate IN "
                        "('recorded', 'updated') ORDER BY id DESC LIMIT 1", (game, HAND)).fetchone()
                    if before is None:
                        self._db.execute("DELETE FROM results WHERE game = ?", (game,))
                    else:
                        self._db.execute("UPDATE results SET doc = ?, source = ?, received_at = ? "
                                         "WHERE game = ?", (before[0], before[1], at, game))
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        return None if row is None else GameResult.from_document(json.loads(row[0]))

    def results(self) -> dict[str, GameResult]:
        rows = self._db.execute("SELECT doc, ord FROM results ORDER BY ord").fetchall()
        out = {}
        for doc, order in rows:
            data = json.loads(doc)
            data["order"] = order
            result = GameResult.from_document(data)
            out[result.game] = result
        return out

    def conflicts(self) -> list[dict[str, Any]]:
        """Each result that differs from the one counted and came after the organiser last
        settled its game (a "corrected" result): the game, what came, from where, when; the
        same version twice (a table's event, then its retained record) once."""
        counted = self.results()
        rows = self._db.execute("SELECT game, doc, source, at, fate FROM arrivals "
                                "WHERE fate IN ('conflict', 'corrected', 'removed') ORDER BY id").fetchall()
        open_: dict[tuple[str, str, str], dict[str, Any]] = {}
        # game -> the conflicts its latest correction settled (open again if it is taken back)
        settled: dict[str, dict[tuple[str, str, str], dict[str, Any]]] = {}
        for game, doc, source, at, fate in rows:
            if fate == "corrected":
                settled[game] = {k: v for k, v in open_.items() if k[0] == game}
                for key in settled[game]:
                    del open_[key]
                continue
            if fate == "removed":  # the organiser's correction taken back: what it settled is open again
                open_.update(settled.pop(game, {}))
                continue
            came = GameResult.from_document(json.loads(doc))
            if game in counted and counted[game].same_result(came):
                continue  # the counted version has come to agree with it
            open_.setdefault((game, source, doc), {"game": game, "result": json.loads(doc), "source": source,
                                                   "at": at})
        return list(open_.values())

    def arrivals(self) -> list[tuple[str, str, str]]:
        """(game, source, fate) of every result received, in order."""
        rows = self._db.execute("SELECT game, source, fate FROM arrivals ORDER BY id")
        return [(g, s, f) for g, s, f in rows]

    def set_first_stage(self, doc: dict[str, Any], source: str, at: str) -> None:
        self._change("INSERT INTO first_stage (id, doc, source, at) VALUES (1, ?, ?, ?) ON CONFLICT (id) "
                     "DO UPDATE SET doc = excluded.doc, source = excluded.source, at = excluded.at",
                     json.dumps(doc, ensure_ascii=False, sort_keys=True), source, at)

    def first_stage(self) -> dict[str, Any] | None:
        row = self._db.execute("SELECT doc FROM first_stage WHERE id = 1").fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def add_slot(self, team: str, slot: int, at: str) -> None:
        self._change("INSERT INTO slots (team, slot, at, ord) VALUES (?, ?, ?, "
                     "(SELECT COALESCE(MAX(ord), 0) + 1 FROM slots))", team, slot, at)

    def remove_last_slot(self) -> tuple[str, int] | None:
        """Take back the latest captain's choice (None: there is none)."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                row = self._db.execute("SELECT team, slot FROM slots ORDER BY ord DESC LIMIT 1").fetchone()
                if row is not None:
                    self._db.execute("DELETE FROM slots WHERE team = ?", (row[0],))
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        return None if row is None else (str(row[0]), int(row[1]))

    def slots(self) -> list[tuple[str, int]]:
        return [(t, int(s)) for t, s in self._db.execute("SELECT team, slot FROM slots ORDER BY ord")]

    def set_ruling(self, ruling: Ruling, by: str, at: str) -> None:
        self._change("INSERT INTO rulings (step, teams, why, by, at) VALUES (?, ?, ?, ?, ?) "
                     "ON CONFLICT (step) DO UPDATE SET teams = excluded.teams, why = excluded.why, "
                     "by = excluded.by, at = excluded.at",
                     ruling.step, json.dumps(list(ruling.teams)), ruling.why, by, at)

    def rulings(self) -> dict[str, Ruling]:
        rows = self._db.execute("SELECT step, teams, why FROM rulings").fetchall()
        return {s: Ruling(s, tuple(json.loads(t)), w) for s, t, w in rows}

    def log_decision(self, decision: Decision, at: str) -> bool:
        """Keep a decision the first time it is taken (its text once); True when it is new."""
        cursor = self._change("INSERT OR IGNORE INTO decisions (step, clause, text, at) "
                              "VALUES (?, ?, ?, ?)", decision.step, decision.clause, decision.text, at)
        return cursor.rowcount == 1

    def decisions(self) -> list[dict[str, str]]:
        rows = self._db.execute("SELECT step, clause, text, at FROM decisions ORDER BY id").fetchall()
        return [{"step": s, "clause": c, "text": t, "at": a} for s, c, t, a in rows]

    def integrity(self) -> str:
        """SQLite's own check of the whole file: "ok", or what is wrong."""
        return str(self._db.execute("PRAGMA integrity_check").fetchone()[0])

    def backup(self, path: str | Path) -> Path:
        """A consistent copy of the whole database at `path` (sqlite3's online backup)."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        copy = sqlite3.connect(target)
        try:
            with self._lock:
                self._db.backup(copy)
        except sqlite3.DatabaseError as exc:
            raise SeasonDbError(f"{target}: cannot back up onto it ({exc}); choose a new file") from exc
        finally:
            copy.close()
        return target
