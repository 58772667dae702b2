"""Opponent models from recorded games: ``cardlang fit-opponent DB --game FILE``.

Every game of the records played with the game file (same text) is replayed from its seed
and recorded choices (runs/replay.py); at each decision the mover's observation key
(information/observation.py) and the move it made (its option key) are counted.  With
``champion`` only the decisions of each game's winners count (a shared win counts for
every winner).  The file (agents/opponent_model.py reads it) holds, per state, the
counts of the moves seen; the PARLESS prior (total pseudo-count 3 over the legal moves)
is applied when the model is read, so a model can be refitted with another prior without
replaying.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardlang.agents.opponent_model import FORMAT
from cardlang.information.observation import observation_key, option_key
from cardlang.information.views import view_of
from cardlang.runs.replay import replay_game
from cardlang.runs.store import RunStore, file_sha256
from cardlang.solve.worlds import SolveError

#: The PARLESS prior: total pseudo-count spread over the legal moves of a state.
PRIOR = 3.0


@dataclass
class FitReport:
    games: int
    decisions: int
    states: int
    skipped: int  # games of other files, or that no longer replay


def fit_counts(
    db: Path,
    game: Any,
    game_text: str,
    *,
    keys: str,
    champion: bool,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[dict[str, dict[str, int]], FitReport]:
    """Per state key, the moves seen there and how often."""
    states: dict[str, dict[str, int]] = {}
    decisions = 0
    with RunStore.open(db, create=False) as store:
        ids = store.done_games(file_sha256(game_text))
        skipped = len(store.done_games()) - len(ids)
        if not ids:
            raise SolveError(
                f"{db} holds no finished game of this game file (same text): record some "
                "with cardlang simulate FILE --db DB"
            )
        for n, game_id in enumerate(ids, 1):
            stored = store.game(game_id)
            choices = store.choices(game_id)
            winners = _winners(game, stored, choices) if champion else None
            decisions += _count(game, stored, choices, keys, winners, states)
            if progress is not None:
                progress(n, len(ids))
    return states, FitReport(len(ids), decisions, len(states), skipped)


def _winners(game: Any, stored: Any, choices: Any) -> set[int]:
    result, _ = replay_game(game, stored, choices)
    return set(result.winners)


def _count(
    game: Any,
    stored: Any,
    choices: list[tuple[int, int, int]],
    keys: str,
    winners: set[int] | None,
    states: dict[str, dict[str, int]],
) -> int:
    from cardlang.engine.gamemaster import Limits

    master = game.master(Limits(stored.max_decisions, stored.max_steps))
    st = master.new_game(stored.seed, record=True)
    counted = 0
    for seat, index, count in choices:
        options = master.legal_options(st)
        if st.is_over or st.mover != seat or len(options) != count:
            raise SolveError(f"game {stored.id} of the records does not replay with this file")
        if winners is None or seat in winners:
            view = view_of(st, seat, game, options)
            moves = states.setdefault(observation_key(view, keys), {})
            move = option_key(view.options[index])
            moves[move] = moves.get(move, 0) + 1
            counted += 1
        master.apply(st, index)
    return counted


def model_document(
    states: dict[str, dict[str, int]], report: FitReport, *, keys: str, champion: bool, game: str
) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": 1,
        "method": "parless",
        "game": game,
        "keys": keys,
        "champion": champion,
        "prior": PRIOR,
        "games": report.games,
        "decisions": report.decisions,
        "states": states,
    }
