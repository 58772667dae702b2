"""Durable records of games in one SQLite file: batches planned up front, resumable.

Pipeline position: runs, beside the runner.  ``cardlang simulate --db FILE`` plans a
batch (one ``games`` row per game, with its seed and its seats' agents) before playing
anything, then writes each finished game (its row, every decision and every seat's
result) in one transaction.  A run killed at any moment, even with SIGKILL, loses at most
the game in flight; running the same command again finds the batch by its identity
(``BatchSpec.key``) and plays only the games still planned.  Holds the store
(``RunStore``: schema, migrations, planning and saving rows, reading them back), the
values it reads and writes (``BatchSpec``, ``PlannedGame``, ``Outcome``, ``StoredGame``)
and ``read_decisions``; replaying a stored game is replay.py's business (records keep no
state: the same seed and the same choices give the same game).  It opens the file it is
given and knows no default: where a user's records go by default is the command line's
rule (cli/records.py), which reads the environment so that nothing here does.

The standard library's sqlite3, WAL journal (readers never block the writer), synchronous
NORMAL (a commit survives the process being killed; only a power cut can lose the last
ones).  The ``meta`` table names the application and the schema version.

Like all of runs/, it may import agents, information, compiler, engine, language and
errors; it needs only the standard library and ``cardlang.errors`` at run time (the
engine's ``GameResult`` and the runner's ``Decision`` are types here).
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import math
import re
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cardlang.engine.gamemaster import Limits
from cardlang.engine.state import COMPLETED, CUTOFF, FAILED
from cardlang.engine.tally import CardCounts
from cardlang.engine.work import DEFAULT_MAX_GAME_WORK, DEFAULT_MAX_WORK
from cardlang.errors import I64_MIN, UsageError
from cardlang.inputs import regular_file
from cardlang.runs.rows import AGENTS, NAMES, NUMBERS, PARAMS, SEATS, RowCheck

if TYPE_CHECKING:
    from cardlang.engine.gamemaster import GameResult
    from cardlang.runs.runner import Decision

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
_DECISION_COLUMNS = (
    "game_id, idx, seat, situation, action_key, option_index, options, illegal, "
    "illegal_keys, seconds, value, option_values, standings, policy"
)

#: The columns of the card tables after game_id, as ``_cards`` reads them.
_CARD_COLUMNS = {
    "card_picks": ("seat", "situation", "card", "picks", "first_turn"),
    "card_owned": ("seat", "card", "cards"),
}

_PAGE = 1000  # planned games read at a time, so a huge batch is never held in memory

#: What the records hold of a game, checked as each row is read (rows.py): the states
#: of a game row, and how a played game ended ("forfeit": a tournament's agent forfeited).
STATUSES = ("planned", "done")
END_REASONS = (COMPLETED, FAILED, f"{CUTOFF}:decisions", f"{CUTOFF}:steps", "forfeit")
#: The most seats a recorded game may have, and the most options of a decision: far
#: beyond any game, and small enough that no reader is asked to make absurd lists.
MAX_SEATS = 1024
MAX_OPTIONS = 10**9


def now() -> str:
    """A timestamp for the records: UTC, ISO 8601, milliseconds."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def file_sha256(text: str) -> str:
    """The hash that ties records to the exact text of a game file."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class BatchSpec:
    """What identifies a batch: the same command on the same game text is the same batch.

    The game file's path (as given, and absolute) is kept for people and for replay,
    but is not part of the identity (the hash is).  Limits are: they decide which games
    are cut off.
    """

    game_path: str
    game_file: str
    game_sha256: str
    params: dict[str, str]
    root_seed: int
    games: int
    agents: tuple[str, ...]
    rotate_seats: bool
    max_decisions: int
    max_steps: int
    max_work: int = DEFAULT_MAX_WORK
    max_game_work: int = DEFAULT_MAX_GAME_WORK

    def key(self, sized: bool = True) -> str:
        """The batch's identity as a hash.  ``sized=False``: without its number of games,
        for a batch whose game i is the same whatever the number (a simulate batch: a
        larger --games extends it rather than playing the same seeds in a new one)."""
        identity = asdict(self)
        del identity["game_path"], identity["game_file"]
        if not sized:
            del identity["games"]
            identity["extensible"] = True
        if self.max_work == DEFAULT_MAX_WORK:  # a batch made before there was one
            del identity["max_work"]
        if self.max_game_work == DEFAULT_MAX_GAME_WORK:  # likewise
            del identity["max_game_work"]
        identity["agents"] = list(self.agents)
        text = json.dumps(identity, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class PlannedGame:
    """A game of a batch not played yet: everything needed to play it."""

    id: int
    idx: int
    seed: int
    agents: tuple[str, ...]


@dataclass(frozen=True)
class Outcome:
    """A finished game as the batch summary counts it, from a result or from the records."""

    end_reason: str
    decisions: int
    turns: int
    credits: tuple[float, ...]
    winners: tuple[int, ...]
    team_of: tuple[int, ...] = ()
    error_kind: str | None = None
    error_text: str | None = None  # the rule or agent error as rendered (several lines)
    scores: tuple[int | None, ...] = ()  # per seat (None: a failed game has none)
    cards: CardCounts | None = None  # the seats' picks and cards, where they were counted

    @property
    def completed(self) -> bool:
        return self.end_reason == COMPLETED

    @property
    def failed_seat(self) -> int | None:
        """The seat whose agent failed the game (``AgentError.kind``: ``agent P1: ...``),
        or None (a rule error, or no failure)."""
        match = _AGENT_KIND.match(self.error_kind or "")
        return int(match.group(1)) if match else None

    @classmethod
    def of(cls, result: GameResult) -> Outcome:
        error = result.error
        return cls(
            end_reason=result.end_reason,
            decisions=result.decisions,
            turns=result.turns,
            credits=result.credits,
            winners=result.winners,
            team_of=result.team_of,
            error_kind=error.kind() if error is not None else None,
            error_text=error.render() if error is not None else None,
            scores=result.scores,
            cards=result.cards,
        )


_AGENT_KIND = re.compile(r"agent P(\d+): ")
_SCORE = re.compile(r"-|-?\d{1,19}")  # a seat's score in the listing, or none


@dataclass(frozen=True)
class StoredGame:
    """One game row with its batch's settings: what replaying it needs."""

    id: int
    batch_id: int
    idx: int
    seed: int
    agents: tuple[str, ...]
    status: str
    end_reason: str | None
    game_path: str  # as the simulate command named it
    game_file: str  # absolute, to find it from anywhere
    game_sha256: str
    params: dict[str, str]
    max_decisions: int
    max_steps: int
    max_work: int = DEFAULT_MAX_WORK
    max_game_work: int = DEFAULT_MAX_GAME_WORK
    error_kind: str | None = None  # why it failed, if it did (Outcome.error_kind)
    error: str | None = None  # the error as rendered

    @property
    def limits(self) -> Limits:
        """The limits its batch was played under: a replay uses the same."""
        return Limits(self.max_decisions, self.max_steps, self.max_work, self.max_game_work)


class RunStore:
    """An open records database.  ``RunStore.open`` checks that it is one of ours."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path

    # ------------------------------------------------------------ opening
    @classmethod
    def open(cls, path: str | Path, *, create: bool = True) -> RunStore:
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

    def __enter__(self) -> RunStore:
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

    # ------------------------------------------------------------ batches
    def plan(
        self,
        spec: BatchSpec,
        planner: Callable[[], Iterable[tuple[int, Sequence[str]]]],
        secret: str | None = None,
        extensible: bool = False,
    ) -> tuple[int, bool]:
        """The batch's id, and whether it is new.  A new batch gets one planned game per
        ``(seed, seat agents)`` that ``planner`` yields, all in the same transaction, so a
        batch is either fully planned or absent; with its ``secret`` (a tournament's key
        for its seeds: ``batch_secret``), kept in the same transaction.  ``extensible``:
        game i of the planner does not depend on the number of games, so the batch is
        found whatever ``spec.games``, and a larger number plans the games it lacks (a
        smaller one leaves it as it is: ``batch_games`` says how many it holds)."""
        key = spec.key(sized=not extensible)
        with self.transaction() as conn:
            row = conn.execute("SELECT id, games FROM batches WHERE key = ?", (key,)).fetchone()
            if row is not None:
                check = self._check("batches", f"with key {key[:12]}...")
                batch_id = check.integer("id", row[0], 1)
                held = check.integer("games", row[1], 0)
                if extensible and spec.games > held:
                    more = itertools.islice(enumerate(planner()), held, spec.games)
                    conn.executemany(
                        "INSERT INTO games (batch_id, idx, seed, agents) VALUES (?, ?, ?, ?)",
                        ((batch_id, i, seed, json.dumps(list(a))) for i, (seed, a) in more),
                    )
                    conn.execute(
                        "UPDATE batches SET games = ? WHERE id = ?", (spec.games, batch_id)
                    )
                return batch_id, False
            cur = conn.execute(
                "INSERT INTO batches (key, game_path, game_file, game_sha256, params, "
                "root_seed, games, agents, rotate_seats, max_decisions, max_steps, created, "
                "max_work, max_game_work) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    spec.game_path,
                    spec.game_file,
                    spec.game_sha256,
                    json.dumps(spec.params, sort_keys=True),
                    spec.root_seed,
                    spec.games,
                    json.dumps(list(spec.agents)),
                    int(spec.rotate_seats),
                    spec.max_decisions,
                    spec.max_steps,
                    now(),
                    spec.max_work,
                    spec.max_game_work,
                ),
            )
            batch_id = int(cur.lastrowid or 0)
            if secret is not None:
                conn.execute("INSERT INTO meta VALUES (?, ?)", (_secret_key(batch_id), secret))
            conn.executemany(
                "INSERT INTO games (batch_id, idx, seed, agents) VALUES (?, ?, ?, ?)",
                (
                    (batch_id, idx, seed, json.dumps(list(agents)))
                    for idx, (seed, agents) in enumerate(planner())
                ),
            )
        return batch_id, True

    def batch_secret(self, batch_id: int) -> str | None:
        """The secret a batch was planned with (a tournament's), or None."""
        row = self.conn.execute(
            "SELECT value FROM meta WHERE key = ?", (_secret_key(batch_id),)
        ).fetchone()
        if row is None:
            return None
        secret = self._check("meta", repr(_secret_key(batch_id))).text("value", row[0])
        if not 32 <= len(secret) <= 128 or not all(c in "0123456789abcdef" for c in secret):
            raise self._check("meta", repr(_secret_key(batch_id))).fail(
                "value", secret, "a tournament secret (32 to 128 lowercase hex digits)"
            )
        return secret

    def count(self, batch_id: int, status: str) -> int:
        """How many of the batch's games are 'planned' or 'done'."""
        row = self.conn.execute(
            "SELECT count(*) FROM games WHERE batch_id = ? AND status = ?", (batch_id, status)
        ).fetchone()
        return int(row[0])

    def batch_games(self, batch_id: int) -> int:
        """How many games the batch holds, planned or played."""
        row = self.conn.execute("SELECT games FROM batches WHERE id = ?", (batch_id,)).fetchone()
        return self._check("batches", batch_id).integer("games", row[0]) if row is not None else 0

    def check_batch(self, batch_id: int) -> None:
        """Refuse a batch whose games cannot all be counted: a game row of a status that
        is neither planned nor done, a done game without its results, or fewer or more
        game rows than the batch holds.  Without this, a resumed batch would skip such a
        game for ever and report itself interrupted."""
        odd = self.conn.execute(
            "SELECT id, status FROM games WHERE batch_id = ? AND "
            "(status IS NULL OR status NOT IN (?, ?)) ORDER BY idx LIMIT 1",
            (batch_id, *STATUSES),
        ).fetchone()
        if odd is not None:
            raise self._check("games", odd[0]).fail("status", odd[1], "planned or done")
        bare = self.conn.execute(
            "SELECT id FROM games g WHERE batch_id = ? AND status = 'done' AND NOT EXISTS "
            "(SELECT 1 FROM results r WHERE r.game_id = g.id) ORDER BY idx LIMIT 1",
            (batch_id,),
        ).fetchone()
        if bare is not None:
            raise UsageError(
                f"{self.path}: table games, row {bare[0]}: the game is done but table "
                "results holds no row of it; the records are damaged"
            )
        with self._snapshot():  # another process may extend the batch meanwhile
            rows = self.conn.execute(
                "SELECT count(*) FROM games WHERE batch_id = ?", (batch_id,)
            ).fetchone()[0]
            held = self.batch_games(batch_id)
        if rows != held:
            raise UsageError(
                f"{self.path}: table batches, row {batch_id}: column games says {held:,} "
                f"games, but table games holds {rows:,} of the batch; the records are damaged"
            )

    def pending(self, batch_id: int) -> Iterator[PlannedGame]:
        """The batch's games still to play, in order, read a page at a time (the caller
        writes between pages, so no cursor stays open across writes).  A batch whose
        games cannot all be counted is refused first (``check_batch``)."""
        self.check_batch(batch_id)
        last = -1
        while True:
            rows = self.conn.execute(
                "SELECT id, idx, seed, agents FROM games WHERE batch_id = ? AND "
                "status = 'planned' AND idx > ? ORDER BY idx LIMIT ?",
                (batch_id, last, _PAGE),
            ).fetchall()
            if not rows:
                return
            for row in rows:
                yield self._planned(row)
            last = rows[-1][1]

    def _planned(self, row: Sequence[Any]) -> PlannedGame:
        """A planned game from its (id, idx, seed, agents) row, checked."""
        check = self._check("games", row[0])
        return PlannedGame(
            check.integer("id", row[0], 1),
            check.integer("idx", row[1]),
            check.integer("seed", row[2]),
            tuple(check.json("agents", row[3], AGENTS)),
        )

    def finished(self, batch_id: int) -> Iterator[tuple[tuple[str, ...], Outcome]]:
        """The batch's finished games in order: each seat's agent, and the outcome (a
        batch whose games cannot all be counted is refused first: ``check_batch``)."""
        self.check_batch(batch_id)
        rows = self.conn.execute(
            "SELECT g.id, g.agents, g.end_reason, g.decisions, g.turns, g.team_of, "
            "g.error_kind, g.error, r.credit, r.rank, r.score, r.seat, g.cards_counted "
            "FROM games g JOIN results r "
            "ON r.game_id = g.id WHERE g.batch_id = ? AND g.status = 'done' "
            "ORDER BY g.idx, r.seat",
            (batch_id,),
        )
        picks = self._card_rows(batch_id, "card_picks")
        owned = self._card_rows(batch_id, "card_owned")
        for game_id, group in itertools.groupby(rows, key=lambda r: r[0]):
            seats = list(group)
            agents, outcome = self._finished(seats)
            if seats[0][12] is not None:  # its counts per card type were written
                cards = self._cards(game_id, len(agents), picks.take(game_id), owned.take(game_id))
                outcome = dataclasses.replace(outcome, cards=cards)
            yield agents, outcome

    def _card_rows(self, batch_id: int, table: str) -> _RowsByGame:
        """The rows of ``table`` (card_picks or card_owned: ``_CARD_COLUMNS``) of the
        batch's finished games, in the games' order."""
        columns = ", ".join(f"c.{name}" for name in _CARD_COLUMNS[table])
        rows = self.conn.cursor().execute(
            f"SELECT c.game_id, {columns} FROM {table} c JOIN games g ON g.id = c.game_id "
            "WHERE g.batch_id = ? AND g.status = 'done' ORDER BY g.idx",
            (batch_id,),
        )
        return _RowsByGame(rows)

    def _cards(
        self, game_id: object, seats: int, picks: list[Sequence[Any]], owned: list[Sequence[Any]]
    ) -> CardCounts:
        """A game's counts per card type from its rows, each value checked."""
        check = self._check("card_picks", f"(game {game_id})")
        pick_rows = sorted(
            (
                check.integer("seat", row[1], 0, seats - 1),
                check.text("situation", row[2]),
                check.text("card", row[3]),
                check.integer("picks", row[4], 1),
                check.integer("first_turn", row[5]),
            )
            for row in picks
        )
        check = self._check("card_owned", f"(game {game_id})")
        owned_rows = sorted(
            (
                check.integer("seat", row[1], 0, seats - 1),
                check.text("card", row[2]),
                check.integer("cards", row[3], 1),
            )
            for row in owned
        )
        return CardCounts.of(pick_rows, owned_rows)

    def _finished(self, seats: list[Sequence[Any]]) -> tuple[tuple[str, ...], Outcome]:
        """A finished game's agents and outcome from its rows (one per seat), checked:
        one results row per agent, every value of the type and range it is written with."""
        first = seats[0]
        check = self._check("games", first[0])
        agents = tuple(check.json("agents", first[1], AGENTS))
        if len(seats) != len(agents):
            raise check.fail("agents", first[1], f"{len(seats)} agents, one per results row")
        end_reason = check.text("end_reason", first[2], END_REASONS)
        credits, ranks, scores = self._seat_results(first[0], seats)
        completed = end_reason == COMPLETED
        return agents, Outcome(
            end_reason=end_reason,
            decisions=check.integer("decisions", first[3]),
            turns=check.integer("turns", first[4]),
            credits=credits,
            winners=tuple(s for s, rank in enumerate(ranks) if completed and rank == 1),
            team_of=tuple(check.optional_json("team_of", first[5], SEATS) or ()),
            error_kind=check.optional_text("error_kind", first[6]),
            error_text=check.optional_text("error", first[7]),
            scores=scores,
        )

    def _seat_results(
        self, game_id: object, seats: list[Sequence[Any]]
    ) -> tuple[tuple[float, ...], tuple[int | None, ...], tuple[int | None, ...]]:
        """Each seat's credit, rank and score from a game's results rows (columns 8 to
        11 of ``finished``'s query: credit, rank, score, seat), seats 0, 1, ... in order."""
        credits, ranks, scores = [], [], []
        for expected, row in enumerate(seats):
            check = self._check("results", f"(game {game_id}, seat {row[11]!r})")
            check.integer("seat", row[11], expected, expected)
            credits.append(check.real("credit", row[8], 0.0))
            ranks.append(check.optional_integer("rank", row[9], 1, MAX_SEATS))
            scores.append(check.optional_integer("score", row[10], I64_MIN))
        return tuple(credits), tuple(ranks), tuple(scores)

    # ------------------------------------------------------------ games
    def save(
        self,
        game: PlannedGame,
        result: GameResult,
        trace: Sequence[Decision],
        started: str,
        ended: str,
    ) -> bool:
        """Write one finished game, its decisions and its results in one transaction.

        False (and nothing written) if the game is already done: another process on the
        same batch finished it first.
        """
        outcome = Outcome.of(result)
        failed = result.end_reason == FAILED
        with self.transaction() as conn:
            cur = conn.execute(
                "UPDATE games SET status = 'done', started = ?, ended = ?, end_reason = ?, "
                "decisions = ?, turns = ?, team_of = ?, error_kind = ?, error = ?, "
                "cards_counted = ? WHERE id = ? AND status = 'planned'",
                (
                    started,
                    ended,
                    result.end_reason,
                    result.decisions,
                    result.turns,
                    json.dumps(list(result.team_of)) if result.team_of else None,
                    outcome.error_kind,
                    outcome.error_text,
                    None if result.cards is None else 1,
                    game.id,
                ),
            )
            if cur.rowcount == 0:
                return False
            if result.cards is not None:
                _save_cards(conn, game.id, result.cards)
            conn.executemany(
                f"INSERT INTO decisions ({_DECISION_COLUMNS}) VALUES ({', '.join('?' * 14)})",
                (_decision_row(game.id, i, d) for i, d in enumerate(trace)),
            )
            conn.executemany(
                "INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    (
                        game.id,
                        seat,
                        game.agents[seat],
                        None if failed else result.scores[seat],
                        None if failed else result.ranks[seat],
                        result.credits[seat],
                        _tiebreaks(result, seat),
                    )
                    for seat in range(len(result.scores))
                ),
            )
        return True

    def game(self, game_id: int) -> StoredGame:
        """A stored game by id, with its batch's settings."""
        row = self.conn.execute(
            "SELECT g.id, g.batch_id, g.idx, g.seed, g.agents, g.status, g.end_reason, "
            "b.game_path, b.game_file, b.game_sha256, b.params, b.max_decisions, b.max_steps, "
            "g.error_kind, g.error, b.max_work, b.max_game_work "
            "FROM games g JOIN batches b ON b.id = g.batch_id WHERE g.id = ?",
            (game_id,),
        ).fetchone()
        if row is None:
            last = self.conn.execute("SELECT max(id) FROM games").fetchone()[0]
            known = f"its games are 1-{last}" if last else "it holds no games"
            raise UsageError(f"no game {game_id} in {self.path} ({known})")
        return self._stored(row)

    def _stored(self, row: Sequence[Any]) -> StoredGame:
        """A ``game`` row (a game with its batch's settings), every column checked."""
        game = self._check("games", row[0])
        batch = self._check("batches", row[1])
        status = game.text("status", row[5], STATUSES)
        # a planned game has not ended: whatever its end_reason holds is not read
        end_reason = None if status == "planned" else game.text("end_reason", row[6], END_REASONS)
        return StoredGame(
            id=game.integer("id", row[0], 1),
            batch_id=batch.integer("id", row[1], 1),
            idx=game.integer("idx", row[2]),
            seed=game.integer("seed", row[3]),
            agents=tuple(game.json("agents", row[4], AGENTS)),
            status=status,
            end_reason=end_reason,
            game_path=batch.text("game_path", row[7]),
            game_file=batch.text("game_file", row[8]),
            game_sha256=batch.text("game_sha256", row[9]),
            params=batch.json("params", row[10], PARAMS),
            max_decisions=batch.integer("max_decisions", row[11], 1),
            max_steps=batch.integer("max_steps", row[12], 1),
            max_work=DEFAULT_MAX_WORK if row[15] is None else batch.integer("max_work", row[15], 1),
            max_game_work=(
                DEFAULT_MAX_GAME_WORK
                if row[16] is None
                else batch.integer("max_game_work", row[16], 1)
            ),
            error_kind=game.optional_text("error_kind", row[13]),
            error=game.optional_text("error", row[14]),
        )

    def done_games(self, game_sha256: str | None = None) -> list[int]:
        """The ids of the games played to their end, in order; with ``game_sha256``, only
        those of batches of the game file with that text."""
        sql = "SELECT g.id FROM games g JOIN batches b ON b.id = g.batch_id WHERE g.status = 'done'"
        args: tuple[Any, ...] = ()
        if game_sha256 is not None:
            sql += " AND b.game_sha256 = ?"
            args = (game_sha256,)
        return [row[0] for row in self.conn.execute(sql + " ORDER BY g.id", args)]

    def choices(self, game_id: int) -> list[tuple[int, int, int]]:
        """A game's moves in order: (seat, option index, number of options), checked."""
        rows = self.conn.execute(
            "SELECT idx, seat, option_index, options FROM decisions WHERE game_id = ? ORDER BY idx",
            (game_id,),
        ).fetchall()
        out = []
        for expected, (idx, seat, index, options) in enumerate(rows):
            check = self._decision_check(game_id, expected, idx)
            out.append(self._choice(check, seat, index, options))
        return out

    def _decision_check(self, game_id: int, expected: int, idx: object) -> RowCheck:
        """The checks of a game's decision row ``expected`` (0, 1, ... in order): a
        decision missing from the middle would replay another game."""
        check = self._check("decisions", f"(game {game_id}, idx {idx!r})")
        check.integer("idx", idx, expected, expected)
        return check

    @staticmethod
    def _choice(
        check: RowCheck, seat: object, index: object, options: object
    ) -> tuple[int, int, int]:
        """(seat, option index, options) of a decision row, each in its range."""
        count = check.integer("options", options, 1, MAX_OPTIONS)
        return (
            check.integer("seat", seat, 0, MAX_SEATS - 1),
            check.integer("option_index", index, 0, count - 1),
            count,
        )

    def decisions(self, game_id: int) -> list[dict[str, Any]]:
        """A game's decisions in order, as dicts (see ``read_decisions``), checked."""
        cursor = self.conn.execute(
            f"SELECT {_DECISION_COLUMNS} FROM decisions WHERE game_id = ? ORDER BY idx",
            (game_id,),
        )
        names = [column[0] for column in cursor.description]
        out = []
        for expected, row in enumerate(cursor):
            values = dict(zip(names, row, strict=True))
            out.append(
                self._decision(self._decision_check(game_id, expected, values["idx"]), values)
            )
        return out

    def _decision(self, check: RowCheck, row: dict[str, Any]) -> dict[str, Any]:
        """A stored decision with every column checked and its JSON columns decoded
        (None stays None)."""
        seat, index, options = self._choice(check, row["seat"], row["option_index"], row["options"])
        keys = check.optional_json("illegal_keys", row["illegal_keys"], NAMES) or []
        return dict(
            row,
            seat=seat,
            situation=check.text("situation", row["situation"]),
            action_key=check.text("action_key", row["action_key"]),
            option_index=index,
            options=options,
            illegal=check.integer("illegal", row["illegal"], len(keys), len(keys)),
            illegal_keys=keys,
            seconds=check.real("seconds", row["seconds"], 0.0),
            value=check.optional_real("value", row["value"]),
            option_values=check.optional_json("option_values", row["option_values"], NUMBERS),
            standings=check.optional_json("standings", row["standings"], NUMBERS),
            policy=check.optional_json("policy", row["policy"], NUMBERS),
        )

    def listing(self) -> list[tuple[Any, ...]]:
        """One row per game for ``cardlang transcript --db FILE``, checked: id, batch,
        index in batch, seed, status, end reason, decisions, agents (a list), scores (text:
        one per seat, '-' for none), game path."""
        rows = self.conn.execute(
            "SELECT g.id, g.batch_id, g.idx, g.seed, g.status, g.end_reason, g.decisions, "
            "g.agents, (SELECT group_concat(coalesce(r.score, '-'), ' ') FROM "
            "(SELECT score FROM results WHERE game_id = g.id ORDER BY seat) r), b.game_path "
            "FROM games g JOIN batches b ON b.id = g.batch_id ORDER BY g.id"
        ).fetchall()
        return [self._listed(row) for row in rows]

    @staticmethod
    def _scores_text(check: RowCheck, text: object) -> str:
        """The listing's scores (the query joins each seat's score or '-' by spaces):
        only numbers and dashes reach the terminal."""
        if text is None:
            return ""
        if not isinstance(text, str) or not all(_SCORE.fullmatch(part) for part in text.split(" ")):
            raise RowCheck(check.path, "results", f"(game {check.row})").fail(
                "score", text, "a whole number or null"
            )
        return text

    def _listed(self, row: Sequence[Any]) -> tuple[Any, ...]:
        """A ``listing`` row, checked."""
        check = self._check("games", row[0])
        status = check.text("status", row[4], STATUSES)
        end_reason = None if status == "planned" else check.text("end_reason", row[5], END_REASONS)
        return (
            check.integer("id", row[0], 1),
            check.integer("batch_id", row[1], 1),
            check.integer("idx", row[2]),
            check.integer("seed", row[3]),
            status,
            end_reason,
            check.optional_integer("decisions", row[6]),
            check.json("agents", row[7], AGENTS),
            self._scores_text(check, row[8]),
            self._check("batches", row[1]).text("game_path", row[9]),
        )


class _RowsByGame:
    """A query's rows grouped by game (its first column), taken game by game in the order
    the query gives them: a game without rows takes none."""

    def __init__(self, rows: Iterable[Sequence[Any]]) -> None:
        self._groups = itertools.groupby(rows, key=lambda r: r[0])
        self._next = next(self._groups, None)

    def take(self, game_id: object) -> list[Sequence[Any]]:
        if self._next is None or self._next[0] != game_id:
            return []
        rows = list(self._next[1])
        self._next = next(self._groups, None)
        return rows


def _save_cards(conn: sqlite3.Connection, game_id: int, cards: CardCounts) -> None:
    """A game's counts per card type (tables ``card_picks`` and ``card_owned``), in
    place of any a planned game's row kept (one set back to planned by hand)."""
    conn.execute("DELETE FROM card_picks WHERE game_id = ?", (game_id,))
    conn.execute("DELETE FROM card_owned WHERE game_id = ?", (game_id,))
    conn.executemany(
        "INSERT INTO card_picks VALUES (?, ?, ?, ?, ?, ?)",
        ((game_id, *row) for row in cards.picks),
    )
    conn.executemany(
        "INSERT INTO card_owned VALUES (?, ?, ?, ?)", ((game_id, *row) for row in cards.owned)
    )


def _decision_row(game_id: int, idx: int, d: Decision) -> tuple[Any, ...]:
    """One ``decisions`` row.  A trace's values are JSON lists (null where the agent
    formed no estimate; a non-finite number counts as none, so the text stays JSON);
    ``value`` repeats the chosen option's, for SQL that needs no JSON."""
    illegal = json.dumps(d.illegal) if d.illegal else None
    row: tuple[Any, ...] = (game_id, idx, d.seat, d.situation, d.action_key, d.option_index)
    row += (d.options, len(d.illegal), illegal, d.seconds)
    if d.trace is None:
        return row + (None, None, None, None)
    values = [_finite(v) for v in d.trace.option_values]
    standings = [_finite(v) for v in d.trace.standings]
    policy = d.trace.policy
    return row + (
        values[d.option_index],
        json.dumps(values),
        json.dumps(standings) if standings else None,
        json.dumps([_finite(p) for p in policy]) if policy is not None else None,
    )


def read_decisions(db: str | Path | RunStore, game_id: int) -> list[dict[str, Any]]:
    """The recorded decisions of game ``game_id``, in order, one dict per decision:
    ``idx``, ``seat``, ``situation``, ``action_key``, ``option_index``, ``options``,
    ``illegal`` and ``illegal_keys`` (a list), ``seconds``, and the agent's trace where
    it left one (else None): ``value`` (the chosen option's estimated value for the
    mover), ``option_values`` (one per option, None where not estimated) and
    ``standings`` (each seat's estimated standing in [0, 1]).

    ``db`` is a records file or an open ``RunStore``.  The measures of decisions
    (heuristics) are computed from these.
    """
    if isinstance(db, RunStore):
        return db.decisions(game_id)
    with RunStore.open(db, create=False) as store:
        store.game(game_id)  # a clear error for a game the file does not hold
        return store.decisions(game_id)


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def _tiebreaks(result: GameResult, seat: int) -> str | None:
    values = result.tiebreak_scores[seat] if result.tiebreak_scores else ()
    return json.dumps(list(values)) if values else None


def _secret_key(batch_id: int) -> str:
    return f"batch-secret:{batch_id}"
