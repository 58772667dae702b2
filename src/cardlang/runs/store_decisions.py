"""A recorded decision as a ``decisions`` row, and a row read back as a checked decision.

Pipeline position: runs, under the store (store.py and its parts): store_batches.py
writes each decision of a finished game with ``decision_row``, store_games.py reads a
game's moves back with ``choice`` (for replay) and its decisions with ``decision_of``
(``read_decisions``).  A decision is the runner's ``Decision``: who moved, in which
situation, which option of how many, how long it took, and the trace a search agent
left (its estimates of each option and of each seat's standing, and its move
distribution), kept as JSON lists.

Like all of runs/, it may import agents, information, compiler, engine, language and
errors; it needs only the standard library at run time (the runner's ``Decision`` is a
type here).
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

from cardlang.runs.rows import NAMES, NUMBERS, RowCheck
from cardlang.runs.store_values import MAX_OPTIONS, MAX_SEATS

if TYPE_CHECKING:
    from cardlang.runs.runner import Decision

#: The columns of a ``decisions`` row, in the order ``decision_row`` gives them.
DECISION_COLUMNS = (
    "game_id, idx, seat, situation, action_key, option_index, options, illegal, "
    "illegal_keys, seconds, value, option_values, standings, policy"
)


def decision_row(game_id: int, idx: int, d: Decision) -> tuple[Any, ...]:
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


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def choice(check: RowCheck, seat: object, index: object, options: object) -> tuple[int, int, int]:
    """(seat, option index, options) of a decision row, each in its range."""
    count = check.integer("options", options, 1, MAX_OPTIONS)
    return (
        check.integer("seat", seat, 0, MAX_SEATS - 1),
        check.integer("option_index", index, 0, count - 1),
        count,
    )


def decision_of(check: RowCheck, row: dict[str, Any]) -> dict[str, Any]:
    """A stored decision (a row of ``DECISION_COLUMNS`` by name) with every column
    checked and its JSON columns decoded (None stays None)."""
    seat, index, options = choice(check, row["seat"], row["option_index"], row["options"])
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
