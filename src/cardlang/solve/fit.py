"""Opponent models from recorded games: ``cardlang fit-opponent DB --game FILE``.

Every game of the records played with the game file (same text) is replayed from its seed
and recorded choices (runs/replay.py); at each decision the mover's observation key
(information/observation.py) and the move it made (its option key) are counted.  With
``champion`` only the decisions of each game's winners count (a shared win counts for
every winner).  The file (agents/opponent_model.py reads it) holds, per state, the
counts of the moves seen; the PARLESS prior (total pseudo-count 3 over the legal moves)
is applied when the model is read, so a model can be refitted with another prior without
replaying.  With the PAWNN method (solve/pawnn.py) it also holds, per situation, a small
network trained on the PARLESS distributions of the observed states, for the states
never observed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cardlang.agents.opponent_model import FORMAT, PRIOR, parless
from cardlang.information.encode import Encoder
from cardlang.information.observation import StateKeys, seen_option_key
from cardlang.information.views import view_of
from cardlang.runs.store import RunStore, file_sha256
from cardlang.solve.pawnn import Samples, fit_networks
from cardlang.solve.worlds import SolveError

#: A state's features for PAWNN: its situation, observation vector, legal-move mask and
#: the vocabulary index of each of its moves (option keys).
Features = tuple[str, Any, Any, dict[str, int]]


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
    keys: StateKeys,
    champion: bool,
    progress: Callable[[int, int], None] | None = None,
    features: dict[str, Features] | None = None,
) -> tuple[dict[str, dict[str, int]], FitReport]:
    """Per state key, the moves seen there and how often (and, into ``features`` when
    given, what PAWNN learns from)."""
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
            decisions += _count(game, stored, choices, keys, champion, states, features)
            if progress is not None:
                progress(n, len(ids))
    return states, FitReport(len(ids), decisions, len(states), skipped)


def _count(
    game: Any,
    stored: Any,
    choices: list[tuple[int, int, int]],
    keys: StateKeys,
    champion: bool,
    states: dict[str, dict[str, int]],
    features: dict[str, Features] | None,
) -> int:
    """Replay one recorded game and count its decisions (with ``champion``, once it is
    over, only its winners')."""

    master = game.master(stored.limits)
    st = master.new_game(stored.seed, record=True)
    seen: list[tuple[int, Any, int]] = []  # (seat, its view, the option it took)
    for seat, index, count in choices:
        options = master.legal_options(st)
        if st.is_over or st.mover != seat or len(options) != count:
            raise SolveError(f"game {stored.id} of the records does not replay with this file")
        seen.append((seat, view_of(st, seat, game, options), index))
        master.apply(st, index)
    if champion:
        winners = set(master.result(st).winners) if st.is_over else set()
        seen = [d for d in seen if d[0] in winners]
    for _, view, index in seen:
        key = keys.of(view)
        moves = states.setdefault(key, {})
        if features is not None and key not in features:
            features[key] = _features(game, view)
        move = seen_option_key(view.options[index])
        moves[move] = moves.get(move, 0) + 1
    return len(seen)


def _features(game: Any, view: Any) -> Features:
    encoder = Encoder.of(game)
    sid, vector, mask = encoder.encode(view)
    index: dict[str, int] = {}
    for o, i in zip(view.options, encoder.vocabulary.view_indices(view), strict=True):
        if i is not None:
            index.setdefault(seen_option_key(o), i)
    return encoder.layouts[sid].situation, vector, mask, index


def parless_target(counts: dict[str, int], index: dict[str, int], width: int) -> Any:
    """A state's PARLESS distribution over its situation's vocabulary."""
    target = np.zeros(width)
    for k, q in parless(counts, list(index)).items():
        target[index[k]] += q
    return target / target.sum()


def pawnn_networks(
    states: dict[str, dict[str, int]], features: dict[str, Features], *, folds: int, seed: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """PAWNN's networks, per situation, trained on the observed states' PARLESS targets,
    with their k-fold cross-validation."""
    rows: dict[str, list[tuple[Any, Any, Any]]] = {}
    for key, (situation, vector, mask, index) in features.items():
        if index:
            target = parless_target(states[key], index, len(mask))
            rows.setdefault(situation, []).append((vector, mask, target))
    samples = {
        s: Samples(
            np.array([r[0] for r in rs], dtype=float),
            np.array([r[1] for r in rs], dtype=bool),
            np.array([r[2] for r in rs]),
        )
        for s, rs in rows.items()
    }
    return fit_networks(samples, folds=folds, seed=seed)


def model_document(
    states: dict[str, dict[str, int]],
    report: FitReport,
    *,
    keys: StateKeys,
    champion: bool,
    game: str,
) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": 1,
        "method": "parless",  # fit-opponent --method pawnn adds "networks" and says so
        "game": game,
        **keys.fields(),
        "champion": champion,
        "prior": PRIOR,
        "games": report.games,
        "decisions": report.decisions,
        "states": states,
    }
