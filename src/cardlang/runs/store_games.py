"""Stored games read back: for replay, transcripts, opponent models and learning.

Pipeline position: runs, under the store (store.py), which is ``GameRecords`` and
store_batches.py's writers on one file.  A game is read back by id with its batch's
settings (``game``: a ``StoredGame``, what replay.py needs besides its moves), its moves
(``choices``), its decisions with the traces the agents left (``decisions``,
``read_decisions``), and the games of a file as ``cardlang transcript --db`` lists them
(``listing``).  Records keep no state: the same seed and the same choices give the same
game.  Every value is checked as it is read (rows.py): the file is the user's.

Like all of runs/, it may import agents, information, compiler, engine, language and
errors; it needs only the standard library and ``cardlang.errors`` at run time.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cardlang.engine.work import DEFAULT_MAX_GAME_WORK, DEFAULT_MAX_WORK
from cardlang.errors import UsageError
from cardlang.runs.rows import AGENTS, PARAMS, RowCheck
from cardlang.runs.store_decisions import DECISION_COLUMNS, choice, decision_of
from cardlang.runs.store_file import RecordsFile
from cardlang.runs.store_values import END_REASONS, STATUSES, StoredGame

_SCORE = re.compile(r"-|-?\d{1,19}")  # a seat's score in the listing, or none


class GameRecords(RecordsFile):
    """The records of games, read back one by one, checked."""

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
            out.append(choice(check, seat, index, options))
        return out

    def _decision_check(self, game_id: int, expected: int, idx: object) -> RowCheck:
        """The checks of a game's decision row ``expected`` (0, 1, ... in order): a
        decision missing from the middle would replay another game."""
        check = self._check("decisions", f"(game {game_id}, idx {idx!r})")
        check.integer("idx", idx, expected, expected)
        return check

    def decisions(self, game_id: int) -> list[dict[str, Any]]:
        """A game's decisions in order, as dicts (see ``read_decisions``), checked."""
        cursor = self.conn.execute(
            f"SELECT {DECISION_COLUMNS} FROM decisions WHERE game_id = ? ORDER BY idx",
            (game_id,),
        )
        names = [column[0] for column in cursor.description]
        out = []
        for expected, row in enumerate(cursor):
            values = dict(zip(names, row, strict=True))
            out.append(decision_of(self._decision_check(game_id, expected, values["idx"]), values))
        return out

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


def read_decisions(db: str | Path | GameRecords, game_id: int) -> list[dict[str, Any]]:
    """The recorded decisions of game ``game_id``, in order, one dict per decision:
    ``idx``, ``seat``, ``situation``, ``action_key``, ``option_index``, ``options``,
    ``illegal`` and ``illegal_keys`` (a list), ``seconds``, and the agent's trace where
    it left one (else None): ``value`` (the chosen option's estimated value for the
    mover), ``option_values`` (one per option, None where not estimated) and
    ``standings`` (each seat's estimated standing in [0, 1]).

    ``db`` is a records file or an open ``RunStore``.  The measures of decisions
    (heuristics) are computed from these.
    """
    if isinstance(db, GameRecords):
        return db.decisions(game_id)
    with GameRecords.open(db, create=False) as store:
        store.game(game_id)  # a clear error for a game the file does not hold
        return store.decisions(game_id)
