"""Games played elsewhere, imported into the records: ``cardlang import-log LOG --game FILE``.

A log is a CSV file (or a SQLite file with a table ``moves``) with one row per move, in
the order played, and these columns:

``game``
    the game's id in the log (any text); its rows are its moves, in order;
``seed``
    the cardlang seed that deals it (the same on every row of a game);
``seat``
    the seat that moves (0-based);
``move``
    the move: its option index (a whole number) or the option's label as
    ``cardlang transcript`` prints it;
``player`` (optional)
    who played the seat, kept as the seat's agent name (default ``imported``).

Each game is replayed from its seed (cardlang's deal), each move checked to be the
mover's and legal, and the game must end with its last move; then it is written as a
batch of the records, like ``cardlang simulate --db`` writes one, so ``fit-opponent``,
``transcript --db`` and every reader of records take it.  A move that does not replay is
reported with its line of the log.  Importing the same log again adds nothing, and
completes an import that was interrupted.
"""

from __future__ import annotations

import csv
import hashlib
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardlang.engine.protocol import Engine
from cardlang.errors import I64_MAX, CardlangError
from cardlang.information.vocabulary import Vocabulary, option_key
from cardlang.inputs import regular_file
from cardlang.runs.runner import Decision
from cardlang.runs.store import BatchSpec, RunStore, file_sha256, now

COLUMNS = ("game", "seed", "seat", "move")
DEFAULT_PLAYER = "imported"


class LogImportError(CardlangError):
    """A log that cannot be imported: the message names the line and why."""


@dataclass
class LoggedGame:
    name: str
    seed: int
    line: int  # of its first move
    moves: list[tuple[int, int, str]] = field(default_factory=list)  # (line, seat, move)
    players: dict[int, str] = field(default_factory=dict)


def read_log(path: Path) -> list[LoggedGame]:
    """The games of a log, in the order they first appear."""
    regular_file(path, "game log")  # a pipe or a device would be read for ever
    rows = _sqlite_rows(path) if _is_sqlite(path) else _csv_rows(path)
    games: dict[str, LoggedGame] = {}
    for line, row in _readable(rows, path):
        missing = [c for c in COLUMNS if row.get(c) in (None, "")]
        if missing:
            raise LogImportError(
                f"{path}:{line}: no {', '.join(missing)} (columns: {', '.join(COLUMNS)})"
            )
        name = str(row["game"])
        seed, seat = (
            _whole(row["seed"], path, line, "seed"),
            _whole(row["seat"], path, line, "seat"),
        )
        g = games.setdefault(name, LoggedGame(name, seed, line))
        if g.seed != seed:
            raise LogImportError(f"{path}:{line}: game {name} has seed {g.seed} above, {seed} here")
        g.moves.append((line, seat, str(row["move"]).strip()))
        player = row.get("player")
        if player:
            g.players[seat] = str(player)
    if not games:
        raise LogImportError(f"{path}: no moves")
    return list(games.values())


def _readable(
    rows: Iterator[tuple[int, dict[str, Any]]], path: Path
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``rows``, with a file that is not text or not CSV a LogImportError."""
    try:
        yield from rows
    except UnicodeDecodeError as err:
        raise LogImportError(
            f"{path}: not a game log (byte {err.start} is not UTF-8 text; a log is a CSV "
            "file or an SQLite database)"
        ) from None
    except csv.Error as err:
        raise LogImportError(f"{path}: not a CSV game log ({err})") from None


def _is_sqlite(path: Path) -> bool:
    with path.open("rb") as f:
        return f.read(16) == b"SQLite format 3\x00"


def _csv_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    with path.open(newline="") as f:
        reader = csv.DictReader(f)
        for row in reader:
            yield reader.line_num, row


def _sqlite_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    with sqlite3.connect(path) as conn:
        conn.row_factory = sqlite3.Row
        try:
            cursor = conn.execute("SELECT * FROM moves ORDER BY rowid")
        except sqlite3.OperationalError as err:
            raise LogImportError(f"{path}: no table moves ({err})") from None
        for n, row in enumerate(cursor, 1):
            yield n, dict(row)


def _whole(value: Any, path: Path, line: int, what: str) -> int:
    try:
        n = int(str(value).strip())
    except ValueError:
        raise LogImportError(f"{path}:{line}: {what} {value!r} is not a whole number") from None
    if n < 0:
        raise LogImportError(f"{path}:{line}: {what} {n} is negative")
    if n > I64_MAX:  # the records' integers are 64-bit: SQLite could not store it
        raise LogImportError(f"{path}:{line}: {what} {n} is more than {I64_MAX}")
    return n


def replay_logged(
    master: Engine, game: Any, logged: LoggedGame, path: Path
) -> tuple[Any, list[Decision]]:
    """Play a logged game again; its result and its decisions as the records keep them."""
    vocab = Vocabulary.of(game)
    st = master.new_game(logged.seed, record=True)
    trace: list[Decision] = []
    for line, seat, move in logged.moves:
        where = f"{path}:{line}: game {logged.name}"
        if st.is_over:
            raise LogImportError(f"{where}: the game is over ({st.end_reason}) before this move")
        if st.mover != seat:
            raise LogImportError(f"{where}: seat {seat} moves, but it is seat {st.mover}'s turn")
        options = master.legal_options(st)
        index = _index_of(game, st, options, move)
        if index is None:
            labels = "; ".join(game.describe_option(st, o) for o in options[:5])
            raise LogImportError(
                f"{where}: {move!r} is not a legal move (the options: {labels} ...)"
            )
        key = option_key(game, st, options[index], seat)
        trace.append(Decision(seat, vocab.situation_of(st), key, index, len(options), (), 0.0))
        master.apply(st, index)
    if not st.is_over:
        raise LogImportError(
            f"{path}:{logged.line}: game {logged.name} goes on after its last move"
        )
    return master.result(st), trace


def _index_of(game: Any, st: Any, options: Any, move: str) -> int | None:
    if move.isdigit():
        i = int(move)
        return i if i < len(options) else None
    for i, o in enumerate(options):
        if game.describe_option(st, o) == move:
            return i
    return None


def import_log(
    db: Path,
    log: Path,
    game: Any,
    game_path: Path,
    game_text: str,
    master: Engine,
    *,
    params: dict[str, str] | None = None,
) -> tuple[int, int, int]:
    """Write the log's games into the records as one batch: its id, how many games the
    log holds and how many this import added (none when the log is there already; an
    interrupted import is completed)."""
    logged = read_log(log)
    played = [(g, *replay_logged(master, game, g, log)) for g in logged]  # all or nothing
    digest = hashlib.sha256(log.read_bytes()).hexdigest()[:16]
    nplayers = game.nplayers
    seats = [
        tuple(f"{g.players.get(p, DEFAULT_PLAYER)}@{digest}" for p in range(nplayers))
        for g in logged
    ]
    spec = BatchSpec(
        game_path=str(game_path),
        game_file=str(game_path.resolve()),
        game_sha256=file_sha256(game_text),
        params=dict(params or {}),
        root_seed=0,
        games=len(logged),
        agents=(f"import:{digest}",),
        rotate_seats=False,
        max_decisions=master.limits.max_decisions,
        max_steps=master.limits.max_steps,
        max_work=master.limits.max_work,
        max_game_work=master.limits.max_game_work,
    )
    with RunStore.open(db) as store:
        batch_id, _ = store.plan(
            spec, lambda: ((g.seed, s) for g, s in zip(logged, seats, strict=True))
        )
        # the games still planned: all of a new batch, those an interrupted import missed
        added, stamp = 0, now()
        for planned in store.pending(batch_id):
            _, result, trace = played[planned.idx]
            added += store.save(planned, result, trace, stamp, stamp)
    return batch_id, len(logged), added
