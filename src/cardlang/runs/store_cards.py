"""A game's counts per card type in the records: written with the game, read back by batch.

Pipeline position: runs, under the store (store.py and its parts).  Where a batch counted
them (``games.cards_counted`` 1), each finished game keeps every seat's picks per
situation and card type with the game's turn of the first (``card_picks``) and the cards
each seat owned at the end (``card_owned``): the engine's ``CardCounts``
(engine/tally.py).  store_batches.py writes them with ``save_cards`` in the game's
transaction and reads a batch's back, game by game, with ``BatchCards``; what they add
up to is cards.py's business.

Like all of runs/, it may import agents, information, compiler, engine, language and
errors; it needs only the standard library and ``cardlang.errors`` at run time.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from cardlang.engine.tally import CardCounts
from cardlang.runs.rows import RowCheck

#: The columns of the card tables after game_id, as ``BatchCards`` reads them.
_CARD_COLUMNS = {
    "card_picks": ("seat", "situation", "card", "picks", "first_turn"),
    "card_owned": ("seat", "card", "cards"),
}


def save_cards(conn: sqlite3.Connection, game_id: int, cards: CardCounts) -> None:
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


class BatchCards:
    """The counts per card type of a batch's finished games, taken game by game in the
    games' order (``of``) as the batch's games are read: each table is read by one
    query, never held whole."""

    def __init__(self, conn: sqlite3.Connection, path: Path, batch_id: int) -> None:
        self._path = path
        self._picks = _rows_by_game(conn, batch_id, "card_picks")
        self._owned = _rows_by_game(conn, batch_id, "card_owned")

    def of(self, game_id: object, seats: int) -> CardCounts:
        """The counts of the batch's next game with counts, ``game_id`` of ``seats``
        seats, from its rows, each value checked."""
        check = RowCheck(self._path, "card_picks", f"(game {game_id})")
        pick_rows = sorted(
            (
                check.integer("seat", row[1], 0, seats - 1),
                check.text("situation", row[2]),
                check.text("card", row[3]),
                check.integer("picks", row[4], 1),
                check.integer("first_turn", row[5]),
            )
            for row in self._picks.take(game_id)
        )
        check = RowCheck(self._path, "card_owned", f"(game {game_id})")
        owned_rows = sorted(
            (
                check.integer("seat", row[1], 0, seats - 1),
                check.text("card", row[2]),
                check.integer("cards", row[3], 1),
            )
            for row in self._owned.take(game_id)
        )
        return CardCounts.of(pick_rows, owned_rows)


def _rows_by_game(conn: sqlite3.Connection, batch_id: int, table: str) -> _RowsByGame:
    """The rows of ``table`` (card_picks or card_owned: ``_CARD_COLUMNS``) of the
    batch's finished games, in the games' order (a cursor of its own: the batch's games
    are read beside it)."""
    columns = ", ".join(f"c.{name}" for name in _CARD_COLUMNS[table])
    rows = conn.cursor().execute(
        f"SELECT c.game_id, {columns} FROM {table} c JOIN games g ON g.id = c.game_id "
        "WHERE g.batch_id = ? AND g.status = 'done' ORDER BY g.idx",
        (batch_id,),
    )
    return _RowsByGame(rows)


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
