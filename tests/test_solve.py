"""cardlang solve: values checked against independent implementations.

Kuhn and Leduc poker are solved for each seat against a uniform opponent, and the value
must equal a best response computed here from the rules alone (and, where OpenSpiel is
installed, its ``BestResponsePolicy``); the saved policy, played as ``policy:table=PATH``
over many deals, must earn that value within the statistical error.  Also: the process
of a game whose options the seat cannot tell apart, the refusal of games too large or
with chance after the deal, and the command's errors.
"""

from __future__ import annotations

import json
import math
from itertools import permutations
from pathlib import Path
from typing import Any

import pytest
from cardlang.agents import make_agent
from conftest import GAMES
from helpers import run_cli

from cardlang import load_game
from cardlang.engine.native import native_available
from cardlang.information.observation import StateKeys
from cardlang.runs.runner import play_game
from cardlang.solve import (
    Problem,
    build_process,
    evaluate_policy,
    opponent_model,
    starting_positions,
    value_iteration,
)
from cardlang.solve.worlds import deal_count

ENGINES = ["python", *(["native"] if native_available() else [])]
KUHN = GAMES / "kuhn_poker.rcy"
LEDUC = GAMES / "leduc_poker.rcy"


def solve(path: Path, seat: int, *extra: str) -> dict[str, Any]:
    done = run_cli(
        "solve", str(path), "--seat", str(seat), "--reward", "score", "--json", "--quiet", *extra
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


# ---------------------------------------------------------------- Kuhn, by hand
CHECK, BET = "check", "bet"


def kuhn_best_response(seat: int) -> float:
    """Seat's best response to a uniform opponent, from the rules: antes 1, seat 0 checks
    or bets 1, a check may be answered by a bet, a bet by a fold or a call; showdown: the
    higher card (J < Q < K) takes the pot.  The opponent's moves do not depend on its
    card, so the seat's belief is uniform over the two cards it does not hold."""

    def payoff(c0: int, c1: int, h: tuple[str, ...]) -> float | None:  # seat 0's net
        show = 1 if c0 > c1 else -1
        ends = {
            (CHECK, CHECK): show,
            (CHECK, BET, "fold"): -1,
            (CHECK, BET, "call"): 2 * show,
            (BET, "fold"): 1,
            (BET, "call"): 2 * show,
        }
        return ends.get(h)

    def legal(h: tuple[str, ...]) -> list[str]:
        return ["fold", "call"] if h and h[-1] == BET else [CHECK, BET]

    def value(mine: int, theirs: list[int], h: tuple[str, ...]) -> float:
        if payoff(0, 1, h) is not None:
            sign = 1 if seat == 0 else -1
            cards = [(mine, t) if seat == 0 else (t, mine) for t in theirs]
            return sum(sign * payoff(a, b, h) for a, b in cards) / len(theirs)  # type: ignore[operator]
        mover = len(h) % 2
        outcomes = [value(mine, theirs, h + (a,)) for a in legal(h)]
        return max(outcomes) if mover == seat else sum(outcomes) / len(outcomes)

    return sum(value(c, [o for o in range(3) if o != c], ()) for c in range(3)) / 3


def _spiel_best_response(name: str, seat: int) -> float | None:
    try:
        import pyspiel
        from open_spiel.python import policy
        from open_spiel.python.algorithms import best_response
    except ImportError:
        return None
    game = pyspiel.load_game(name)
    br = best_response.BestResponsePolicy(game, seat, policy.UniformRandomPolicy(game))
    return float(br.value(game.new_initial_state()))


@pytest.mark.parametrize("seat", [0, 1])
def test_kuhn_value_is_the_best_response_to_uniform(seat: int) -> None:
    result = solve(KUHN, seat)
    want = kuhn_best_response(seat)
    assert result["exact"] and result["converged"]
    assert math.isclose(result["value"], want, abs_tol=1e-9)
    assert math.isclose(result["policy_value"], want, abs_tol=1e-9)
    assert result["states"] == 6  # per card: its first act, and facing a bet (or after a check)
    spiel = _spiel_best_response("kuhn_poker", seat)
    if spiel is not None:
        assert math.isclose(result["value"], spiel, abs_tol=1e-9)


def test_kuhn_deals_are_every_deal() -> None:
    master = load_game(KUHN).master(engine="python")
    assert deal_count(master.new_game(0, record=True)) == 6
    positions = starting_positions(master, sample=None, seed=0)
    assert positions.exact and len(positions.states) == 6
    assert math.isclose(sum(positions.weights), 1.0)


# ---------------------------------------------------------------- Leduc, from its reference
def leduc_best_response(seat: int) -> float:
    """Seat's best response to a uniform opponent, over test_leduc's ``Reference`` (the
    rules written independently of the game file): every deal of ranks with its
    probability; the seat's information is its card, the public card once shown, and
    the betting."""
    from test_leduc import Reference

    deck = [0, 0, 1, 1, 2, 2]
    weights: dict[tuple[int, int, int], float] = {}
    for order in set(permutations(range(6), 3)):
        r0, r1, pub = (deck[i] for i in order)
        weights[(r0, r1, pub)] = weights.get((r0, r1, pub), 0.0) + 1 / 120

    def play(deal: tuple[int, int, int], h: tuple[int, ...]) -> Any:
        ref = Reference(deal[:2], deal[2])
        for a in h:
            ref.apply(a)
        return ref

    def value(group: list[tuple[tuple[int, int, int], float]], h: tuple[int, ...]) -> float:
        ref = play(group[0][0], h)
        if ref.over:
            return sum(w * play(d, h).returns()[seat] for d, w in group)
        if ref.round == 1 and len({d[2] for d, _ in group}) > 1:  # the public card shows
            return sum(
                value([(d, w) for d, w in group if d[2] == pub], h)
                for pub in sorted({d[2] for d, _ in group})
            )
        outcomes = [value(group, h + (a,)) for a in ref.legal()]
        if ref.player == seat:
            return max(outcomes)
        return sum(outcomes) / len(outcomes)

    total = 0.0
    for mine in range(3):
        group = [(d, w) for d, w in weights.items() if d[seat] == mine]
        total += value(group, ())
    return total


@pytest.mark.slow
@pytest.mark.parametrize("seat", [0, 1])
def test_leduc_value_is_the_best_response_to_uniform(seat: int) -> None:
    result = solve(LEDUC, seat)
    want = leduc_best_response(seat)
    assert result["exact"] and result["converged"]
    assert math.isclose(result["value"], want, abs_tol=1e-9)
    spiel = _spiel_best_response("leduc_poker", seat)
    if spiel is not None:
        assert math.isclose(want, spiel, abs_tol=1e-9)


# ---------------------------------------------------------------- the policy, played
@pytest.mark.parametrize("engine", ENGINES)
def test_the_saved_policy_earns_its_value_when_played(tmp_path: Path, engine: str) -> None:
    table = tmp_path / "kuhn1.json"
    result = solve(KUHN, 1, "--out", str(table))
    master = load_game(KUHN).master(engine=engine)
    games = 3000
    scores = []
    for seed in range(games):
        agents = [make_agent("random", seed), make_agent(f"policy:table={table}", seed)]
        outcome, _ = play_game(master, agents, seed, record=True)
        scores.append(outcome.scores[1])
        assert agents[1].misses == 0  # the table covers every position the game reaches
    mean = sum(scores) / games
    sd = math.sqrt(sum((x - mean) ** 2 for x in scores) / (games - 1))
    assert abs(mean - result["value"]) < 4 * sd / math.sqrt(games)


def test_the_saved_policy_reads_in_words(tmp_path: Path) -> None:
    """Each state of a saved policy says in words what the seat knows (its card, the
    storages, what the other's decision changed) and its action by the game's label;
    the entries are ordered by those words, so a hand's states sit together."""
    table = tmp_path / "kuhn1.json"
    solve(KUHN, 1, "--out", str(table))
    entries = list(json.loads(table.read_text())["policy"].values())
    assert len(entries) == 6
    assert {e["label"] for e in entries} <= {"Check", "Bet 1", "Fold", "Call 1"}
    states = [e["state"] for e in entries]
    assert states == sorted(states)
    for rank in ("JACK", "QUEEN", "KING"):
        mine = [e for e in entries if e["state"].startswith(f"P1 sees P1 HAND {rank};")]
        assert len(mine) == 2  # after a check, and facing a bet
        facing = [e for e in mine if "STATE BET" in e["state"]]
        assert (
            len(facing) == 1 and "P0 decided: P0 CHIPS -2, POT 3, STATE BET" in facing[0]["state"]
        )
        assert facing[0]["label"] in ("Fold", "Call 1")
    king = [e for e in entries if "HAND KING" in e["state"] and "STATE BET" in e["state"]]
    assert king[0]["label"] == "Call 1"  # a king calls a bet: it cannot lose


def test_the_process_is_consistent_with_its_policy() -> None:
    """The process's own transition weights close (each state's outflow is its weight),
    and evaluating the greedy policy by walking the game gives the solved value."""
    game = load_game(KUHN)
    master = game.master(engine="python")
    positions = starting_positions(master, sample=None, seed=0)
    opponents = opponent_model("uniform", game, 2, 0)
    problem = Problem(master, game, positions, 1, opponents, StateKeys("info"), reward="score")
    p = build_process(problem, max_nodes=10_000)
    for s in range(p.n_states):
        for a in range(len(p.actions[s])):
            assert math.isclose(sum(p.next[s][a].values()) + p.ends[s][a], p.weight[s])
    vi = value_iteration(p, discount=1.0, tolerance=0.0, max_sweeps=50)
    policy = {k: p.actions[s][vi.greedy[s]] for s, k in enumerate(p.keys)}
    values = evaluate_policy(problem, policy)
    assert math.isclose(sum(values) / len(values), vi.start_value, abs_tol=1e-12)


# ---------------------------------------------------------------- refusals
def test_a_game_too_large_is_refused_up_front_with_the_estimate() -> None:
    done = run_cli("solve", str(GAMES / "punish.rcy"), "--sample", "3", "--quiet")
    assert done.returncode == 2
    assert "nodes (estimated from 200 random paths)" in done.stderr
    assert "Traceback" not in done.stderr


def test_too_many_deals_are_refused_with_their_count() -> None:
    done = run_cli("solve", str(GAMES / "punish.rcy"), "--quiet")
    assert done.returncode == 1
    assert "distinct deals" in done.stderr and "--sample N" in done.stderr


def test_bad_arguments_get_usage_help() -> None:
    done = run_cli("solve", str(KUHN), "--seat", "5")
    assert done.returncode == 2 and "seats 0 to 1" in done.stderr
    done = run_cli("solve", str(KUHN), "--discount", "1.5")
    assert done.returncode == 2 and "usage:" in done.stderr


# ---------------------------------------------------------------- estimated by sampling
def test_a_sampled_process_finds_the_best_response_of_kuhn() -> None:
    result = solve(KUHN, 0, "--rollouts", "300", "--play", "3000", "--keys", "view")
    assert not result["exact"] and "samples per state and action" in result["why"]
    assert result["states"] == 6
    # the policy is the best response (0.5): its played value within 4 standard errors
    assert abs(result["policy_value"] - 0.5) < 4 * result["standard_error"]
    assert abs(result["value"] - 0.5) < 0.15  # the process's own estimate, noisier


def test_a_sampled_process_stops_at_its_state_limit() -> None:
    done = run_cli(
        "solve",
        str(GAMES / "punish.rcy"),
        "--rollouts",
        "1",
        "--keys",
        "counts",
        "--sample",
        "20",
        "--max-states",
        "50",
        "--quiet",
    )
    assert done.returncode == 1
    assert "more than --max-states 50 states" in done.stderr
