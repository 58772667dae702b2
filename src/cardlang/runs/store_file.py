"""A records file: its schema and the migrations of older versions, opening it, transactions.

Pipeline position: runs, under the store (store.py and its parts).  ``RecordsFile`` is an
open connection to one SQLite file of cardlang's records: ``open`` refuses any other file
(a directory, a pipe, another application's database, a newer schema), lays out the
schema in a new one and brings an older one up to this version (``_MIGRATIONS``); its
``transaction`` and ``_snapshot`` are what the parts that write and read rows
(store_batches.py, store_games.py) run their statements in.  The ``meta`` table names the
application and the schema version.

The standard library's sqlite3 in autocommit mode with explicit transactions, WAL journal
(readers never block the writer), synchronous NORMAL (a commit survives the process
being killed; only a power cut can lose the last ones).

Like all of runs/, it may import agents, information, compiler, engine, language and
errors; it needs only the standard library and ``cardlang.errors`` at run time.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Self

from cardlang.errors import UsageError
from cardlang.inputs import regular_file
from cardlang.runs.rows import RowCheck
from cardlang.runs.store_values import now

APPLICATION = "cardlang-runs"
SCHEMA_VERSION = 6

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS batches (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    game_path TEXT NOT NULL,
    game_file TEXT NOT NULL,
    game_sha256 TEXT NOT NULL,
    params TEXT NOT NULL,
    root_seed INTEGER NOT NULL,
    games INTEGER NOT NULL,
    agents TEXT NOT NULL,
    rotate_seats INTEGER NOT NULL,
    max_decisions INTEGER NOT NULL,
    max_steps INTEGER NOT NULL,
    created TEXT NOT NULL,
    max_work INTEGER,
    max_game_work INTEGER
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    batch_id INTEGER NOT NULL REFERENCES batches(id),
    idx INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    agents TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'planned',
    started TEXT,
    ended TEXT,
    end_reason TEXT,
    decisions INTEGER,
    turns INTEGER,
    team_of TEXT,
    error_kind TEXT,
    error TEXT,
    cards_counted INTEGER,
    UNIQUE (batch_id, idx)
);
CREATE INDEX IF NOT EXISTS games_by_status ON games (batch_id, status, idx);
CREATE TABLE IF NOT EXISTS decisions (
    game_id INTEGER NOT NULL REFERENCES games(id),
    idx INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    situation TEXT NOT NULL,
    action_key TEXT NOT NULL,
    option_index INTEGER NOT NULL,
    options INTEGER NOT NULL,
    illegal INTEGER NOT NULL,
    illegal_keys TEXT,
    seconds REAL NOT NULL,
    value REAL,
    option_values TEXT,
    standings TEXT,
    policy TEXT,
    PRIMARY KEY (game_id, idx)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS results (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    agent TEXT NOT NULL,
    score INTEGER,
    rank INTEGER,
    credit REAL NOT NULL,
    tiebreaks TEXT,
    PRIMARY KEY (game_id, seat)
) WITHOUT ROWID;
"""
#: Each game's counts per card type (engine/tally.py), written where its batch counted
#: them (``games.cards_counted`` 1): every seat's picks per situation and card type with
#: the game's turn of the first, and the cards each seat owned at the end.
_CARD_TABLES = (
    """CREATE TABLE IF NOT EXISTS card_picks (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    situation TEXT NOT NULL,
    card TEXT NOT NULL,
    picks INTEGER NOT NULL,
    first_turn INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat, situation, card)
) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS card_owned (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    card TEXT NOT NULL,
    cards INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat, card)
) WITHOUT ROWID""",
)
_SCHEMA += ";\n".join(_CARD_TABLES) + ";\n"

#: Schema changes that an older file is brought through, in order: version -> statements
#: that make it the next version.  Version 2 adds the search agents' traces to
#: ``decisions`` (NULL in games recorded before: they were never estimated); version 3
#: adds a search's move distribution (``policy``, the neural agent's training target);
#: version 4 the batch's work budget (``max_work``; NULL in batches made before: they
#: ran with none, and replay with the default); version 5 the game's whole work budget
#: (``max_game_work``; NULL in batches made before, which replay with the default);
#: version 6 the counts per card type (``card_picks``, ``card_owned`` and
#: ``games.cards_counted``; NULL in games played before: none were counted).
_MIGRATIONS: dict[int, tuple[str, ...]] = {
    1: (
        "ALTER TABLE decisions ADD COLUMN value REAL",
        "ALTER TABLE decisions ADD COLUMN option_values TEXT",
        "ALTER TABLE decisions ADD COLUMN standings TEXT",
    ),
    2: ("ALTER TABLE decisions ADD COLUMN policy TEXT",),
    3: ("ALTER TABLE batches ADD COLUMN max_work INTEGER",),
    4: ("ALTER TABLE batches ADD COLUMN max_game_work INTEGER",),
    5: ("ALTER TABLE games ADD COLUMN cards_counted INTEGER", *_CARD_TABLES),
}


class RecordsFile:
    """An open records database.  ``open`` checks that it is one of ours."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path

    @classmethod
    def open(cls, path: str | Path, *, create: bool = True) -> Self:
        """Open (and with ``create``, make) a records file; a clear UsageError otherwise."""
        p = Path(path)
        if p.is_dir():
            raise UsageError(f"{p} is a directory; --db needs a file, e.g. {p / 'runs.sqlite'}")
        regular_file(p, "records database")  # a pipe or a device: SQLite would wait on it
        if not create and not p.is_file():
            raise UsageError(f"no such records database: {p}")
        if create and not p.parent.is_dir():
            raise UsageError(f"cannot create {p}: the directory {p.parent} does not exist")
        try:
            conn = sqlite3.connect(p, isolation_level=None, timeout=60)
        except sqlite3.Error as err:
            raise UsageError(f"cannot open {p}: {err}") from None
        try:
            store = cls(conn, p)
            store._check_or_create(create)
        except BaseException:
            conn.close()
            raise
        return store

    def _check_or_create(self, create: bool) -> None:
        """Refuse a file that is not cardlang's records; lay out the schema in a new one."""
        try:
            tables = {r[0] for r in self.conn.execute("SELECT name FROM sqlite_master")}
        except sqlite3.DatabaseError as err:
            raise UsageError(f"{self.path} is not a cardlang records database ({err})") from None
        if not tables:
            if not create:
                raise UsageError(f"{self.path} is an empty file, not a cardlang records database")
            self._create()
            tables.add("meta")
        meta = self._meta() if "meta" in tables else {}
        if meta.get("application") != APPLICATION:
            raise UsageError(
                f"{self.path} is an SQLite database but not cardlang's records "
                "(no cardlang meta table); choose another file"
            )
        version = self._schema_version(meta)
        if version in _MIGRATIONS:
            self._migrate(version)
        elif version != SCHEMA_VERSION:
            raise UsageError(
                f"{self.path} holds records of schema version {version}; this cardlang "
                f"reads versions 1 to {SCHEMA_VERSION} (a newer cardlang wrote it?)"
            )
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.execute("PRAGMA foreign_keys=ON")

    def _create(self) -> None:
        from cardlang import __version__

        with self.transaction():
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    self.conn.execute(statement)
            self.conn.executemany(
                "INSERT OR IGNORE INTO meta VALUES (?, ?)",
                [
                    ("application", APPLICATION),
                    ("schema_version", str(SCHEMA_VERSION)),
                    ("created", now()),
                    ("created_by", f"cardlang {__version__}"),
                ],
            )

    def _migrate(self, found: int) -> None:
        """Bring an older file up to this schema, in one transaction: columns are only
        added, so what it held reads as before (and its games replay as before).  The
        version is read again under the write lock: another process may have just
        upgraded the file."""
        try:
            with self.transaction() as conn:
                version = self._schema_version(self._meta())
                while version in _MIGRATIONS:
                    for statement in _MIGRATIONS[version]:
                        conn.execute(statement)
                    version += 1
                conn.execute(
                    "UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(version),)
                )
        except sqlite3.Error as err:  # read-only, locked, ...: say what was attempted
            raise UsageError(
                f"{self.path} holds records of schema version {found}; upgrading it to "
                f"version {SCHEMA_VERSION} failed: {err}"
            ) from None

    def _meta(self) -> dict[str, str]:
        return {k: v for k, v in self.conn.execute("SELECT key, value FROM meta")}

    def _schema_version(self, meta: dict[str, Any]) -> int:
        """The meta table's schema version, as a number (0 where it names none)."""
        text = meta.get("schema_version", "0")
        if not (isinstance(text, str) and text.isascii() and text.isdigit() and len(text) < 6):
            raise self._check("meta", "'schema_version'").fail("value", text, "a version number")
        return int(text)

    def _check(self, table: str, row: object) -> RowCheck:
        """The checks of a row of ``table`` read from this file (rows.py)."""
        return RowCheck(self.path, table, row)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; it takes the write lock at once (BEGIN IMMEDIATE), so
        two processes on one file queue instead of failing half-way."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    @contextmanager
    def _snapshot(self) -> Iterator[None]:
        """Reads that see one state of the file (one read transaction), unless a
        transaction is open already."""
        if self.conn.in_transaction:
            yield
            return
        self.conn.execute("BEGIN")
        try:
            yield
        finally:
            self.conn.execute("COMMIT")
