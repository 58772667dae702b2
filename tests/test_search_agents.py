"""The search agents' mechanics: no hidden information used, traces, tree reuse,
availability, the evaluator hook, plain MCTS.  (Strength: test_search_strength.py.)"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from cardlang.agents.random_agent import RandomAgent
from cardlang.agents.search.ismcts import ISMCTSAgent, MCTSAgent, Node
from cardlang.agents.search.pimc import PIMCAgent
from cardlang.agents.search.rewards import score_shares, signed_scores
from helpers import load_text
from test_knowledge import indistinguishable_twin

from cardlang import load_game
from cardlang.errors import UsageError
from cardlang.information.views import PlayerView, view_of
from cardlang.runs.runner import play_game

GAMES = Path(__file__).resolve().parent.parent / "games"


def hearts_midgame(seed: int, moves: int):  # type: ignore[no-untyped-def]
    game = load_game(GAMES / "hearts.rcy")
    master = game.master(engine="python")  # its twin worlds are made by editing the state
    state = master.new_game(seed, record=True)
    rng = random.Random(seed)
    for _ in range(moves):
        master.apply(state, rng.randrange(len(master.legal_options(state))))
    return game, master, state


AGENTS = [
    lambda: ISMCTSAgent(iterations=40, seed=3),
    lambda: PIMCAgent(determinizations=3, rollouts=1, seed=3),
    lambda: MCTSAgent(iterations=40, seed=3),
]


@pytest.mark.parametrize("make", AGENTS, ids=["ismcts", "pimc", "mcts"])
@pytest.mark.parametrize("moves", [6, 21, 30])
def test_a_search_decides_the_same_in_worlds_its_player_cannot_tell_apart(make, moves) -> None:  # type: ignore[no-untyped-def]
    # An agent that read a hidden card would, some time, choose differently in two
    # states that differ only in where the cards it has not seen lie.
    game, master, state = hearts_midgame(4, moves)
    seat = state.mover
    twin = indistinguishable_twin(state, seat, game, random.Random(moves))
    assert twin is not None
    choices = []
    for world in (state, twin):
        agent = make()
        view = view_of(world, seat, game, master.legal_options(world))
        choices.append((agent.choose(view, master.legal_options(world)), agent.last_trace))
    assert choices[0] == choices[1]


@pytest.mark.parametrize("make", AGENTS, ids=["ismcts", "pimc", "mcts"])
def test_traces_give_values_for_the_options_and_standings_for_every_seat(make) -> None:  # type: ignore[no-untyped-def]
    game, master, state = hearts_midgame(2, 14)
    options = master.legal_options(state)
    assert len(options) > 1
    agent = make()
    chosen = agent.choose(view_of(state, state.mover, game, options), options)
    trace = agent.last_trace
    assert len(trace.option_values) == len(options)
    assert trace.option_values[chosen] is not None
    assert all(v is None or 0.0 <= v <= 1.0 for v in trace.option_values)
    assert len(trace.standings) == state.nplayers
    # standings are pairwise shares: over all seats they add up to n/2
    assert sum(trace.standings) == pytest.approx(state.nplayers / 2)


def test_ismcts_keeps_its_tree_between_its_own_consecutive_decisions() -> None:
    # Hearts starts with each player passing three cards one at a time: the same
    # player decides three times in a row, and passing reveals nothing to it.
    game = load_game(GAMES / "hearts.rcy")
    master = game.master()
    state = master.new_game(1, record=True)
    agent = ISMCTSAgent(iterations=60, seed=1)
    options = master.legal_options(state)
    mover = state.mover
    view = PlayerView.live(state, mover, game, options)
    first = agent.choose(view, options)
    view.close()
    kept = agent._kept
    assert kept is not None and kept[0] == state.decisions + 1
    subtree = kept[2]
    master.apply(state, first)
    assert state.mover == mover
    options = master.legal_options(state)
    view = PlayerView.live(state, mover, game, options)
    assert agent._root(view) is subtree
    view.close()
    # with reuse off, or after another player's move, the search starts afresh
    agent.reuse = False
    view = PlayerView.live(state, mover, game, options)
    assert agent._root(view) is not subtree
    view.close()


MAYBE = """(game
 (setup (create players 2)
        (create deck (game hloc STOCK) (deck (RANK (A, B, C, D))))
        (shuffle (game hloc STOCK))
        (move (top (game hloc STOCK)) (top ((1 player) iloc HAND))))
 ;; P0 may take P1's card only if it is an A: legal in some determinizations only
 (stage player (end (> (size (game vloc WON)) 0))
   (choice ((any (filter ((1 player) iloc HAND) 'C (== (cardatt RANK 'C) A)) 'C
              (move 'C (top (game vloc WON))))
            (move (top (game hloc STOCK)) (top (game vloc WON))))))
 (scoring max (size (filter (game vloc WON) 'C (== (cardatt RANK 'C) A)))))"""


def test_ismcts_counts_how_often_each_move_was_available() -> None:
    game = load_text(MAYBE)
    master = game.master()
    state = master.new_game(0, record=True)
    agent = ISMCTSAgent(iterations=400, seed=5)
    root = Node()
    totals = [0.0, 0.0]
    options = master.legal_options(state)
    view = view_of(state, 0, game, options)
    agent._prepare(game, 2)
    agent._search(view, master, root, totals)
    available = sorted(e.available for e in root.edges.values())
    # the draw is always there; taking an A is there in about a quarter of the worlds
    assert len(available) == 2 and available[-1] == 400
    assert 50 < available[0] < 160


def test_an_evaluator_replaces_rollouts() -> None:
    game, master, state = hearts_midgame(3, 16)
    calls = []

    def evaluator(st, mover):  # type: ignore[no-untyped-def]
        calls.append(mover)
        n = len(master.legal_options(st))
        return [1.0 / n] * n, [0.5] * st.nplayers

    agent = ISMCTSAgent(iterations=30, seed=2, evaluator=evaluator)
    options = master.legal_options(state)
    agent.choose(view_of(state, state.mover, game, options), options)
    assert calls and agent.last_trace.option_values.count(None) < len(options)


def test_mcts_plays_a_game_and_bad_parameters_are_refused() -> None:
    game = load_game(GAMES / "hearts.rcy")
    agents = [MCTSAgent(iterations=10, seed=1)] + [RandomAgent(seed=p) for p in range(3)]
    result, state = play_game(game.master(), agents, 3)
    assert result.completed and state.log is not None  # recorded: it determinizes
    with pytest.raises(UsageError, match="iterations"):
        ISMCTSAgent(iterations=0)
    with pytest.raises(UsageError, match="by"):
        PIMCAgent(by="luck")


def test_score_shares_place_each_seat_between_the_lowest_and_highest_score() -> None:
    game, master, state = hearts_midgame(1, 3)
    assert score_shares(master, state) == (0.5,) * 4  # nothing scored yet: all equal
    rng = random.Random(1)
    while not state.is_over:
        master.apply(state, rng.randrange(len(master.legal_options(state))))
    shares = score_shares(master, state)
    signed = signed_scores(master, state)  # Hearts scores are minimised: negated
    assert signed == tuple(-s for s in master.result(state).scores)
    best, worst = signed.index(max(signed)), signed.index(min(signed))
    assert shares[best] == 1.0 and shares[worst] == 0.0


def test_the_margin_term_changes_the_reward_but_not_the_reported_standings() -> None:
    game, master, state = hearts_midgame(3, 16)
    options = master.legal_options(state)
    plain = ISMCTSAgent(iterations=30, seed=4)
    mixed = ISMCTSAgent(iterations=30, seed=4, margin=0.5)
    for agent in (plain, mixed):
        agent.choose(view_of(state, state.mover, game, options), options)
    assert plain.last_trace.option_values != mixed.last_trace.option_values
    assert sum(mixed.last_trace.standings) == pytest.approx(state.nplayers / 2)
    with pytest.raises(UsageError, match="margin"):
        ISMCTSAgent(margin=1.5)


def test_move_keys_name_cards_right_when_an_id_is_reused() -> None:
    """A native engine's card attributes belong to one master (a view makes one per
    decision), so their ids are reused once a master is gone: the card-type cache of
    MoveKeys must never name a card by a freed object's type."""
    from cardlang.agents.search.common import MoveKeys

    keys = MoveKeys(load_game(Path("games/kuhn_poker.rcy")))
    first = {"RANK": "JACK"}
    assert keys._type(first) == "JACK"
    del first  # its id is free for the next dict, unless the cache keeps the object
    for _ in range(2000):
        other = {"RANK": "KING"}
        assert keys._type(other) == "KING"
