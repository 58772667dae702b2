"""The named seams: the agent contract, the one play loop, the search budget, the
evaluator interface, and search under the real game's limits."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from cardlang.agents.base import Capabilities, DecisionTrace, capabilities_of
from cardlang.agents.loop import play_out
from cardlang.agents.random_agent import RandomAgent
from cardlang.agents.search.budget import Budget
from cardlang.agents.search.common import RandomRollout
from cardlang.agents.search.evaluator import (
    Evaluation,
    FunctionEvaluator,
    RolloutEvaluator,
    as_evaluator,
    terminal_value,
)
from cardlang.agents.search.ismcts import ISMCTSAgent
from cardlang.agents.search.pimc import PIMCAgent
from cardlang.agents.search.rewards import score_shares

from cardlang import Limits, load_game
from cardlang.engine.state import RUNNING
from cardlang.errors import UsageError
from cardlang.information.views import consult
from cardlang.runs.runner import play_game

GAMES = Path(__file__).resolve().parent.parent / "games"


# ---------------------------------------------------------------- the agent contract


def test_capabilities_are_declared_on_the_class() -> None:
    assert capabilities_of(RandomAgent()) == Capabilities(view=False)
    assert capabilities_of(ISMCTSAgent()) == Capabilities(knowledge=True)
    assert capabilities_of(PIMCAgent()).knowledge

    class Plain:
        def choose(self, view: Any, options: Any) -> int:
            return 0

    class Declared:
        capabilities = Capabilities(view=False, knowledge=True)

    assert capabilities_of(Plain()) == Capabilities()
    assert capabilities_of(Declared()) == Capabilities(view=False, knowledge=True)


def test_an_agent_that_declares_knowledge_gets_a_recorded_game() -> None:
    seen: list[Any] = []

    class Knowing:
        capabilities = Capabilities(knowledge=True)

        def choose(self, view: Any, options: Any) -> int:
            seen.append(view.history_length)
            return 0

    game = load_game(GAMES / "kuhn_poker.rcy")
    _, st = play_game(game.master(), [Knowing(), Knowing()], 3)
    assert st.log is not None and seen and all(n > 0 for n in seen)


# ---------------------------------------------------------------- the play loop


def test_play_out_stops_after_cap_decisions_and_the_game_goes_on_from_there() -> None:
    game = load_game(GAMES / "hearts.rcy")
    master = game.master()
    st = master.new_game(5)
    agents = [RandomAgent(seed=p) for p in range(4)]
    play_out(master, st, agents, ["random"] * 4, cap=7)
    assert st.decisions == 7 and st.status == RUNNING
    play_out(master, st, agents, ["random"] * 4)
    assert st.is_over


def test_the_observer_sees_every_move_before_it_is_applied() -> None:
    game = load_game(GAMES / "war.rcy")
    master = game.master()
    st = master.new_game(2)
    moves: list[tuple[int, int, int]] = []

    def observer(st: Any, options: Any, index: int, *rest: Any) -> None:
        moves.append((st.decisions, st.mover, index))

    play_out(master, st, [RandomAgent(seed=1), RandomAgent(seed=2)], ["a", "b"], observer=observer)
    assert [d for d, _, _ in moves] == list(range(st.decisions))


def test_a_view_is_closed_when_the_agent_raises_and_kept_views_are_snapshots() -> None:
    game = load_game(GAMES / "hearts.rcy")
    master = game.master()
    st = master.new_game(1)
    kept: list[Any] = []

    def choose(view: Any, options: Any) -> int:
        kept.append(view)
        raise RuntimeError("the agent's bug")

    seat = st.mover
    with pytest.raises(RuntimeError):
        consult(choose, st, seat, game, master.legal_options(st))
    view = kept[0]
    hand = view.cards(seat, "iloc", "HAND")
    assert hand  # read as the agent saw it
    for _ in range(8):  # the state moves on; the kept view does not
        master.apply(st, 0)
    assert view.cards(seat, "iloc", "HAND") == hand
    assert view.size(seat, "iloc", "HAND") == len(hand) != len(st.zones[(seat, "iloc", "HAND")])


# ---------------------------------------------------------------- the search budget


def test_a_budget_spends_its_iterations_or_its_seconds() -> None:
    assert list(Budget(5).spend()) == [0, 1, 2, 3, 4]
    start = time.perf_counter()
    spent = list(Budget(1, seconds=0.05).spend())
    assert len(spent) > 1 and time.perf_counter() - start >= 0.05
    assert list(Budget(1, seconds=1e-9).spend()) == [0]  # never less than one
    with pytest.raises(UsageError, match="pimc: determinizations must be positive"):
        Budget(0).check("pimc", "determinizations")
    with pytest.raises(UsageError, match="time must not be negative"):
        ISMCTSAgent(time=-1)


def test_pimc_takes_a_time_budget_like_ismcts() -> None:
    game = load_game(GAMES / "kuhn_poker.rcy")
    master = game.master()
    agents = [PIMCAgent(determinizations=1, time=0.01, seed=1), RandomAgent(seed=2)]
    result, _ = play_game(master, agents, 4)
    assert result.completed


# ---------------------------------------------------------------- the evaluator


def test_rollouts_and_functions_are_one_evaluator_interface() -> None:
    game = load_game(GAMES / "hearts.rcy")
    master = game.master()
    st = master.new_game(2)
    rollout = RolloutEvaluator(RandomRollout(9), cap=10_000)
    value = rollout.evaluate(master, st.clone())
    assert value.priors is None and len(value.values) == 4
    assert value.values == value.standings and not rollout.gives_priors

    n = len(master.legal_options(st))
    function = as_evaluator(lambda s, mover: ([1.0 / n] * n, [0.25] * 4))
    assert isinstance(function, FunctionEvaluator) and function.gives_priors
    assert function.evaluate(master, st) == Evaluation([1.0 / n] * n, [0.25] * 4, [0.25] * 4)
    assert as_evaluator(rollout) is rollout


def test_a_finished_game_is_valued_by_its_standings_with_an_optional_margin() -> None:
    game = load_game(GAMES / "hearts.rcy")
    master = game.master()
    st = master.new_game(3)
    RandomRollout(1).play(master, st, 10_000)
    plain = terminal_value(master, st)
    mixed = terminal_value(master, st, margin=0.5)
    assert st.is_over and plain.values == plain.standings == mixed.standings
    shares = score_shares(master, st)
    assert mixed.values == [0.5 * s + 0.5 * x for s, x in zip(plain.standings, shares, strict=True)]


# ---------------------------------------------------------------- limits in search


def test_search_simulates_under_the_real_games_limits() -> None:
    game = load_game(GAMES / "hearts.rcy")
    limits = Limits(max_decisions=30, max_steps=9_999)
    seen: list[Limits] = []

    class Spy(ISMCTSAgent):
        def choose(self, view: Any, options: Any) -> int:
            seen.append(view.master().limits)
            return super().choose(view, options)

    agents = [Spy(iterations=3, seed=1)] + [RandomAgent(seed=p) for p in range(3)]
    result, _ = play_game(game.master(limits), agents, 7)
    assert seen and all(found == limits for found in seen)
    assert result.end_reason == "cutoff:decisions"


def test_a_rollout_stops_where_the_game_would_be_cut_off() -> None:
    game = load_game(GAMES / "hearts.rcy")
    st = game.master().new_game(4)
    cut = game.master(Limits(max_decisions=st.decisions + 3))
    RandomRollout(2).play(cut, st, 1_000)
    assert st.end_reason == "cutoff:decisions" and st.decisions == 3


def test_a_trace_is_part_of_the_agent_contract() -> None:
    assert DecisionTrace((0.5, None), (1.0, 0.0)).option_values == (0.5, None)
