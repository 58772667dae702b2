"""Training samples from recorded games: (view tokens, move distribution, outcome).

Pipeline position: learning, above the records (cardlang.runs.store).  Self-play games
are recorded like any batch; each decision of a neural agent keeps its search's move
distribution (``DecisionTrace.policy``).  A game is replayed from its seed and recorded
choices (the same seed and choices give the same game), and at each decision the
mover's view is tokenized (cardlang.information.tokens) and paired with:

- the **policy target**: the recorded move distribution, summed over options that are
  one move for the mover (one action token); a decision without one (a scripted bot's,
  for imitation) targets the move played;
- the **value target**: the game's outcome for each seat, relative to the mover
  (offset 0 is the mover): standings in [0, 1], or a solo game's scaled inverse length
  (agents/neural/search.SoloValue).

Decisions with a single move teach nothing and give no sample.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from cardlang.agents.neural.search import SoloValue
from cardlang.agents.search.rewards import standings
from cardlang.engine.protocol import Engine, EngineState
from cardlang.engine.state import RUNNING
from cardlang.information.tokens import Tokenizer, ViewTokens
from cardlang.information.views import PlayerView
from cardlang.runs.replay import ReplayError
from cardlang.runs.store import RunStore, StoredGame

if TYPE_CHECKING:
    from cardlang.engine.game import Game


@dataclass
class Sample:
    tokens: ViewTokens
    policy: np.ndarray  # float32 [actions], sums to 1
    value: np.ndarray  # float32 [seats]: outcome per seat offset from the mover


def outcome_values(master: Engine, st: EngineState, solo: SoloValue) -> tuple[float, ...]:
    """Each seat's value of a finished game: standings, or the solo value."""
    if st.nplayers == 1:
        return (solo.of_state(st),)
    return standings(master, st)


def game_samples(
    game: Game,
    stored: StoredGame,
    decisions: Sequence[dict[str, Any]],
    tokenizer: Tokenizer,
    solo: SoloValue,
    seats: Sequence[int] | None = None,
) -> list[Sample]:
    """The samples of one recorded game (``seats``: only these movers' decisions)."""
    master = game.master(stored.limits)
    st = master.new_game(stored.seed, record=True)
    pending: list[tuple[ViewTokens, np.ndarray, int]] = []
    for n, d in enumerate(decisions, 1):
        options = master.legal_options(st)
        if st.status != RUNNING or st.mover != d["seat"] or len(options) != d["options"]:
            raise ReplayError(f"game {stored.id} does not replay at decision {n}")
        mover = st.mover
        if (seats is None or mover in seats) and len(options) > 1:
            view = PlayerView.live(st, mover, game, options, master.limits)
            tokens = tokenizer.tokenize(view)
            if len(tokens.keys) > 1:
                pending.append((tokens, _policy_target(tokens, d), mover))
        master.apply(st, d["option_index"])
    values = outcome_values(master, st, solo)
    n_seats = st.nplayers
    return [
        Sample(
            tokens,
            policy,
            np.array([values[(mover + j) % n_seats] for j in range(n_seats)], dtype=np.float32),
        )
        for tokens, policy, mover in pending
    ]


def _policy_target(tokens: ViewTokens, decision: dict[str, Any]) -> np.ndarray:
    target = np.zeros(len(tokens.keys), dtype=np.float32)
    policy = decision.get("policy")
    if policy:
        for option, p in enumerate(policy):
            if p:
                target[tokens.action_of[option]] += float(p)
    total = float(target.sum())
    if total <= 0:  # no distribution recorded: the move played
        target[:] = 0.0
        target[tokens.action_of[decision["option_index"]]] = 1.0
        return target
    return target / total


def batch_games(store: RunStore, batch_id: int) -> Iterator[StoredGame]:
    """The finished games of one batch of the records, in order."""
    rows = store.conn.execute(
        "SELECT id FROM games WHERE batch_id = ? AND status = 'done' ORDER BY idx", (batch_id,)
    ).fetchall()
    for (game_id,) in rows:
        yield store.game(game_id)


def recorded_games(store: RunStore, sha256: str) -> Iterator[StoredGame]:
    """Every finished game of the records played with this game file (any batch)."""
    rows = store.conn.execute(
        "SELECT g.id FROM games g JOIN batches b ON g.batch_id = b.id "
        "WHERE g.status = 'done' AND b.game_sha256 = ? ORDER BY g.id",
        (sha256,),
    ).fetchall()
    for (game_id,) in rows:
        yield store.game(game_id)
