"""Durable records of games in one SQLite file: batches planned up front, resumable.

Pipeline position: runs, beside the runner.  ``cardlang simulate --db FILE`` plans a
batch (one ``games`` row per game, with its seed and its seats' agents) before playing
anything, then writes each finished game (its row, every decision and every seat's
result) in one transaction.  A run killed at any moment, even with SIGKILL, loses at most
the game in flight; running the same command again finds the batch by its identity
(``BatchSpec.key``) and plays only the games still planned.  Replaying a stored game is
replay.py's business (records keep no state: the same seed and the same choices give
the same game).  It opens the file it is given and knows no default: where a user's
records go by default is the command line's rule (cli/records.py), which reads the
environment so that nothing here does.

This module is the records' one public face: ``RunStore`` and the names the rest of
cardlang reads the records by.  The store is made of parts, one job each:

- store_file.py: the schema, the migrations of older files, opening a file (refusing
  one that is not cardlang's records) and its transactions (``RecordsFile``);
- store_values.py: the values read and written (``BatchSpec``, ``PlannedGame``,
  ``Outcome``, ``StoredGame``) and the bounds every row read back is checked against;
- store_batches.py: a batch planned, its pending games, each finished game saved, the
  finished ones counted back, a tournament's secret (``BatchRecords``);
- store_games.py: a stored game read back for replay, transcripts and learning
  (``GameRecords``, ``read_decisions``);
- store_decisions.py and store_cards.py: the rows of a game's decisions and of its
  counts per card type, written and read back.

Like all of runs/, it may import agents, information, compiler, engine, language and
errors; it needs only the standard library and ``cardlang.errors`` at run time.
"""

from __future__ import annotations

from cardlang.runs.store_batches import BatchRecords
from cardlang.runs.store_file import SCHEMA_VERSION
from cardlang.runs.store_games import GameRecords, read_decisions
from cardlang.runs.store_values import (
    END_REASONS,
    MAX_SEATS,
    BatchSpec,
    Outcome,
    PlannedGame,
    StoredGame,
    file_sha256,
    now,
)

__all__ = [
    "END_REASONS",
    "MAX_SEATS",
    "SCHEMA_VERSION",
    "BatchSpec",
    "Outcome",
    "PlannedGame",
    "RunStore",
    "StoredGame",
    "file_sha256",
    "now",
    "read_decisions",
]


class RunStore(BatchRecords, GameRecords):
    """An open records database: ``RunStore.open`` checks that it is one of ours
    (store_file.py); it plans, saves and counts back batches (store_batches.py) and
    reads their games back (store_games.py)."""
