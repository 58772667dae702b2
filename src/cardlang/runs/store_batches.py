"""A batch played through the records: planned up front, its games saved one by one, resumed.

Pipeline position: runs, under the store (store.py), which is ``BatchRecords`` and
store_games.py's readers on one file.  ``run_batch`` and the tournament plan a batch
(``plan``: one ``games`` row per game, with its seed and its seats' agents, before
anything is played), play the games still ``pending`` and ``save`` each finished one
(its row, every decision, every seat's result and its counts per card type) in one
transaction; ``finished`` counts the games already played back into the summary.  A run
killed at any moment, even with SIGKILL, loses at most the game in flight; running the
same command again finds the batch by its identity (``BatchSpec.key``) and plays only
the games still planned.  A tournament's batch keeps its secret (the key of its seeds)
in the ``meta`` table, written in the transaction that plans it.

Like all of runs/, it may import agents, information, compiler, engine, language and
errors; it needs only the standard library and ``cardlang.errors`` at run time (the
engine's ``GameResult`` and the runner's ``Decision`` are types here).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from cardlang.engine.state import COMPLETED, FAILED
from cardlang.errors import I64_MIN, UsageError
from cardlang.runs.rows import AGENTS, SEATS
from cardlang.runs.store_cards import BatchCards, save_cards
from cardlang.runs.store_decisions import DECISION_COLUMNS, decision_row
from cardlang.runs.store_file import RecordsFile
from cardlang.runs.store_values import (
    END_REASONS,
    MAX_SEATS,
    STATUSES,
    BatchSpec,
    Outcome,
    PlannedGame,
    now,
)

if TYPE_CHECKING:
    from cardlang.engine.gamemaster import GameResult
    from cardlang.runs.runner import Decision

_PAGE = 1000  # planned games read at a time, so a huge batch is never held in memory


class BatchRecords(RecordsFile):
    """The records of batches: planning one, its games to play, saving each, counting
    the finished ones back."""

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
                save_cards(conn, game.id, result.cards)
            conn.executemany(
                f"INSERT INTO decisions ({DECISION_COLUMNS}) VALUES ({', '.join('?' * 14)})",
                (decision_row(game.id, i, d) for i, d in enumerate(trace)),
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
        cards = BatchCards(self.conn, self.path, batch_id)
        for game_id, group in itertools.groupby(rows, key=lambda r: r[0]):
            seats = list(group)
            agents, outcome = self._finished(seats)
            if seats[0][12] is not None:  # its counts per card type were written
                outcome = dataclasses.replace(outcome, cards=cards.of(game_id, len(agents)))
            yield agents, outcome

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


def _tiebreaks(result: GameResult, seat: int) -> str | None:
    values = result.tiebreak_scores[seat] if result.tiebreak_scores else ()
    return json.dumps(list(values)) if values else None


def _secret_key(batch_id: int) -> str:
    return f"batch-secret:{batch_id}"
