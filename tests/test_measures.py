"""Measures of game quality (heuristics/measures.py) on hand-made games.

Every expected value below is worked out by hand from the games the test builds, so a
wrong formula, a wrong pooling (per game or per decision) or a wrong choice of whose
estimates count fails here.  The second half checks the intervals (contain the value,
shrink with more games, deterministic) and ``compare``.
"""

from __future__ import annotations

import math
import pickle
import random
import re
from collections.abc import Sequence
from dataclasses import replace

import pytest

from cardlang.analysis.data import DecisionRecord, GameRecord
from cardlang.analysis.measures import (
    DESIGNS,
    MEASURES,
    Estimate,
    compare,
    design_of,
    drama_threshold,
    seat_win_rates,
)

AI = "ismcts:iterations=50"


def dec(
    seat: int,
    options: int = 2,
    *,
    value: float | None = None,
    values: Sequence[float | None] | None = None,
    standings: Sequence[float] | None = None,
) -> DecisionRecord:
    """A decision; ``value`` alone is the chosen option's estimate (an agent's trace)."""
    return DecisionRecord(
        index=0,
        seat=seat,
        situation="PLAY",
        options=options,
        chosen=0,
        value=value,
        option_values=tuple(values) if values is not None else None,
        standings=tuple(standings) if standings is not None else None,
    )


def game(
    credits: Sequence[float],
    decisions: Sequence[DecisionRecord] = (),
    *,
    end: str = "completed",
    agents: Sequence[str] | None = None,
    turns: int = 0,
) -> GameRecord:
    """A game; decisions are numbered in the order given."""
    n = len(credits)
    return GameRecord(
        id=0,
        batch=1,
        index=0,
        seed=0,
        agents=tuple(agents) if agents is not None else (AI,) * n,
        end_reason=end,
        turns=turns,
        scores=(0,) * n,
        ranks=(1,) * n,
        credits=tuple(credits) if end == "completed" else (0.0,) * n,
        decisions=tuple(replace(d, index=i) for i, d in enumerate(decisions)),
    )


def value_of(name: str, games: Sequence[GameRecord]) -> float:
    return MEASURES[name].compute(games).value


def missing(e: Estimate) -> bool:
    return math.isnan(e.value) and e.n == 0


# ------------------------------------------------------------------ the registry


def test_registry_is_complete_and_readable() -> None:
    assert len(MEASURES) == 23
    for name, m in MEASURES.items():
        assert m.name == name and re.fullmatch(r"[a-z]+(_[a-z]+)*", name), name
        assert m.design in DESIGNS, name
        assert m.higher_is in ("better", "worse", "neither"), name
        assert m.formula and "\n" not in m.formula and len(m.formula) <= 90, name
        assert m.title and m.unit, name
    assert [m for m in MEASURES if MEASURES[m].design == "random"] == ["fairness"]
    assert [m for m in MEASURES if MEASURES[m].design == "ai_vs_random"] == ["order"]


def test_measures_pickle_for_worker_processes() -> None:
    games = [game((1, 0)), game((0, 1)), game((1, 0))]
    copy = pickle.loads(pickle.dumps(MEASURES["first_seat_advantage"]))
    assert copy.compute(games) == MEASURES["first_seat_advantage"].compute(games)


@pytest.mark.parametrize("name", list(MEASURES))
def test_no_games_no_number(name: str) -> None:
    assert missing(MEASURES[name].compute([]))


TRACED = {
    "spread",
    "clarity_variance",
    "clarity_narrowness",
    "lead_changes",
    "stability",
    "drama",
    "security",
    "decisiveness",
    "coolness",
}


@pytest.mark.parametrize("name", sorted(TRACED))
def test_trace_measures_need_traces(name: str) -> None:
    untraced = [game((1, 0), [dec(0, 3), dec(1, 2), dec(0, 1)]) for _ in range(5)]
    assert missing(MEASURES[name].compute(untraced))


@pytest.mark.parametrize("name", [m for m in MEASURES if m not in ("completion", "cutoffs")])
def test_only_completed_games_count(name: str) -> None:
    """A failed or cut-off game leaves a measure exactly as it was (except completion
    and cut-offs, whose subject it is)."""
    games = synthetic(30, seed=4)
    stopped = [
        replace(g, end_reason=r) for g, r in zip(games, ("failed", "cutoff:steps"), strict=False)
    ]
    assert MEASURES[name].compute(games + stopped) == MEASURES[name].compute(games)


# --------------------------------------------------------- completion and outcomes


def test_completion_and_cutoffs() -> None:
    games = [
        game((1, 0)),
        game((0, 1)),
        game((0, 0), end="failed"),
        game((0, 0), end="cutoff:decisions"),
        game((0, 0), end="cutoff:steps"),
    ]
    completion = MEASURES["completion"].compute(games)
    assert completion.value == pytest.approx(2 / 5) and completion.n == 5
    assert completion.ci_low < 0.4 < completion.ci_high
    assert value_of("cutoffs", games) == pytest.approx(2 / 5)
    assert value_of("completion", games[:2]) == 1.0
    assert value_of("cutoffs", games[:3]) == 0.0


def test_drawishness_counts_shared_wins() -> None:
    games = [game((1, 0)), game((0.5, 0.5)), game((0, 1)), game((0, 1, 0))]
    assert value_of("drawishness", games) == pytest.approx(1 / 4)
    assert value_of("drawishness", [game((1 / 3, 1 / 3, 1 / 3)), game((0, 0.5, 0.5))]) == 1.0
    assert value_of("drawishness", [game((1, 0))]) == 0.0


def test_durations_mean_and_sd_over_completed_games() -> None:
    games = [
        game((1, 0), [dec(0)] * 2, turns=1),
        game((1, 0), [dec(0)] * 4, turns=2),
        game((0, 1), [dec(0)] * 6, turns=6),
        game((0, 0), [dec(0)] * 100, turns=50, end="cutoff:decisions"),
    ]
    assert value_of("duration_decisions", games) == pytest.approx(4.0)
    assert value_of("duration_decisions_sd", games) == pytest.approx(2.0)  # sd of 2, 4, 6
    assert value_of("duration_turns", games) == pytest.approx(3.0)
    assert value_of("duration_turns_sd", games) == pytest.approx(math.sqrt(7))  # 1, 2, 6
    # one game: a mean, but no spread to speak of
    assert value_of("duration_decisions", games[:1]) == 2.0
    assert missing(MEASURES["duration_decisions_sd"].compute(games[:1]))


# ---------------------------------------------------------------- seats and wins


def wins(seat0: Sequence[float], n: int = 2) -> list[GameRecord]:
    """Games whose seat 0 takes the given credits (the rest to seat 1)."""
    return [game((c, 1 - c) + (0.0,) * (n - 2)) for c in seat0]


@pytest.mark.parametrize(
    ("seat0", "n", "expected"),
    [
        ((1, 1, 1, 0), 2, 0.5),  # r = 3/4 > 1/2: (1 - 3/4) / (1/2)
        ((1, 0, 0, 0), 2, 0.5),  # r = 1/4 <= 1/2: (1/4) / (1/2)
        ((1, 0, 0.5, 0.5), 2, 1.0),  # ties give half: r = 1/2 = f
        ((1, 0, 0, 0, 0, 0, 0, 0), 4, 0.5),  # r = 1/8 against f = 1/4
        ((1, 0), 4, 2 / 3),  # r = 1/2 > 1/4: (1/2) / (3/4)
        ((0, 0), 3, 0.0),
    ],
)
def test_fairness(seat0: Sequence[float], n: int, expected: float) -> None:
    e = MEASURES["fairness"].compute(wins(seat0, n))
    assert e.value == pytest.approx(expected) and e.n == len(seat0)
    assert 0.0 <= e.ci_low <= e.value <= e.ci_high <= 1.0


def test_fairness_interval_reaches_one_when_chance_is_inside() -> None:
    """Fairness peaks at r = 1/n: an interval of r around 1/n maps to one reaching 1."""
    e = MEASURES["fairness"].compute(wins([1] * 11 + [0] * 9))  # r = 0.55, r in [0.34, 0.74]
    assert e.value == pytest.approx(0.9) and e.ci_high == 1.0 and e.ci_low < 0.7
    skewed = MEASURES["fairness"].compute(wins([1] * 18 + [0] * 2))
    assert skewed.value == pytest.approx(0.2) and skewed.ci_high < 1.0


def test_fairness_refuses_mixed_player_counts_and_solo_games() -> None:
    with pytest.raises(ValueError, match="different numbers of players"):
        MEASURES["fairness"].compute(wins([1], 2) + wins([1], 3))
    assert missing(MEASURES["fairness"].compute([game((1.0,))]))


def test_first_seat_advantage() -> None:
    assert value_of("first_seat_advantage", wins([1, 1, 1, 0])) == pytest.approx(0.25)
    assert value_of("first_seat_advantage", wins([1, 0], 4)) == pytest.approx(0.25)
    assert value_of("first_seat_advantage", wins([0, 0, 0, 0], 4)) == pytest.approx(-0.25)


def test_balance_is_one_minus_the_largest_gap() -> None:
    games = [game((1, 0, 0)), game((1, 0, 0)), game((0, 1, 0)), game((0, 0, 1))]
    assert value_of("balance", games) == pytest.approx(0.75)  # rates 1/2, 1/4, 1/4
    assert value_of("balance", [game((0.5, 0.5)), game((1, 0)), game((0, 1))]) == 1.0
    assert value_of("balance", wins([1, 1, 1])) == 0.0
    e = MEASURES["balance"].compute([game((1, 0)), game((0, 1))] * 20)
    assert e.value == 1.0 and e.ci_low < e.ci_high == 1.0  # the bootstrap is biased low


def test_order_uses_the_ai_seat_wherever_it_sits() -> None:
    vs = [
        game((1, 0), agents=(AI, "random")),
        game((0, 1), agents=("random", AI)),
        game((0, 1), agents=(AI, "random")),
        game((0, 1), agents=("random", AI)),
        game((1, 0), agents=(AI, AI)),  # not ai_vs_random: ignored
        game((1, 0), agents=("random", "random")),  # ignored
    ]
    e = MEASURES["order"].compute(vs)
    assert e.value == pytest.approx(0.5) and e.n == 4  # p = 3/4: (3/4 - 1/2) / (1/2)
    four = [
        game((0, 0, 1, 0), agents=("random", "random", AI, "random")),
        game((0, 1, 0, 0), agents=("random", "random", "random", AI)),
    ]
    assert value_of("order", four) == pytest.approx(1 / 3)  # p = 1/2: (1/2 - 1/4) / (3/4)
    assert value_of("order", four[1:]) == pytest.approx(-1 / 3)


def test_seat_win_rates() -> None:
    games = wins([1, 1, 0.5, 0]) + [game((0, 0), end="cutoff:steps")]
    rates = seat_win_rates(games)
    assert [r.value for r in rates] == [0.625, 0.375]
    assert all(r.n == 4 and r.ci_low < r.value < r.ci_high for r in rates)
    assert seat_win_rates([]) == []
    with pytest.raises(ValueError):
        seat_win_rates(wins([1], 2) + wins([1], 3))


def test_design_of() -> None:
    assert design_of(game((1, 0), agents=("random", "random"))) == "random"
    assert design_of(game((1, 0, 0), agents=("random", AI, "random"))) == "ai_vs_random"
    assert design_of(game((1, 0), agents=(AI, AI))) == "ai"
    assert design_of(game((1, 0), agents=(AI, "mcts"))) is None
    assert design_of(game((1, 0, 0), agents=(AI, AI, "random"))) is None


# ---------------------------------------------------------------- options offered


def test_branching_factor_and_decision_moves_average_games_not_decisions() -> None:
    games = [game((1, 0), [dec(0, 1), dec(1, 3)]), game((1, 0), [dec(0, 4)])]
    assert value_of("branching_factor", games) == pytest.approx(3.0)  # (2 + 4) / 2, not 8/3
    assert value_of("decision_moves", games) == pytest.approx(0.75)  # (1/2 + 1) / 2
    assert missing(MEASURES["branching_factor"].compute([game((1, 0))]))


def test_convergence() -> None:
    shrinking = game((1, 0), [dec(0, k) for k in (5, 4, 3, 2)])  # slope -1
    flat = game((1, 0), [dec(0, 3)] * 3)
    growing = game((1, 0), [dec(0, k) for k in (1, 1, 2, 2)])  # slope 0.4
    assert value_of("convergence", [shrinking]) == pytest.approx(1.0)
    assert value_of("convergence", [flat]) == pytest.approx(0.5)
    assert value_of("convergence", [growing]) == pytest.approx(0.3)
    assert value_of("convergence", [shrinking, flat]) == pytest.approx(0.75)
    assert missing(MEASURES["convergence"].compute([game((1, 0), [dec(0, 3)])]))


# ------------------------------------------------------------- estimated values


def choices() -> list[GameRecord]:
    return [
        game(
            (1, 0),
            [
                dec(0, 2, values=(0.2, 0.8)),
                dec(1, 3, values=(0.5, None, 0.7)),  # one option unestimated
                dec(0, 1, values=(None,)),  # forced: not a choice
                dec(0, 2, values=(0.4, None)),  # one value: nothing to compare it with
                dec(1, 2),  # random mover: no trace
            ],
        ),
        game((0, 1), [dec(0, 2, values=(0.1, 0.1))]),
    ]


def test_spread_pools_traced_choices() -> None:
    assert value_of("spread", choices()) == pytest.approx((0.6 + 0.2 + 0.0) / 3)
    assert value_of("spread", choices()[1:]) == 0.0
    assert MEASURES["spread"].compute(choices()).n == 2


def test_clarity_variance() -> None:
    # game 1: variances 0.09 and 0.01, mean 0.05; game 2: 0
    assert value_of("clarity_variance", choices()) == pytest.approx(0.025)


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ((0.0, 0.0, 0.0, 1.0), 0.25),  # mean 0.25, bar 0.8125: only the best
        ((0.5, 0.5), 1.0),  # all as good as the best
        ((0.2, 0.8), 0.5),
        ((0.0, 0.7, 0.8, 0.9), 0.25),  # mean 0.6, bar 0.825: 0.8 is not near enough
    ],
)
def test_clarity_narrowness(values: tuple[float, ...], expected: float) -> None:
    g = game((1, 0), [dec(0, len(values), values=values)])
    assert value_of("clarity_narrowness", [g]) == pytest.approx(expected)


# --------------------------------------------------------------- lead and standings


def views_game() -> GameRecord:
    """Seat 0 sees the lead go 0 -> 1 -> 1; seat 1 sees a tie, then 0 ahead."""
    return game(
        (0, 1),
        [
            dec(0, standings=(0.8, 0.2)),
            dec(1, standings=(0.5, 0.5)),
            dec(0, standings=(0.3, 0.7)),
            dec(1, standings=(0.6, 0.4)),
            dec(0, standings=(0.4, 0.6)),
            dec(1, 1, standings=()),  # forced move: an empty trace
        ],
    )


def test_lead_changes_follow_each_players_own_view() -> None:
    # seat 0: {0} -> {1} -> {1}: 1 of 2; seat 1: {0, 1} -> {0}: 1 of 1; game: 2 of 3.
    # (the interleaved sequence would have changed leader at each of its 4 steps)
    assert value_of("lead_changes", [views_game()]) == pytest.approx(2 / 3)
    steady = game((1, 0), [dec(s % 2, standings=(0.9, 0.1)) for s in range(6)])
    assert value_of("lead_changes", [views_game(), steady]) == pytest.approx(1 / 3)
    assert missing(MEASURES["lead_changes"].compute([game((1, 0), [dec(0, standings=(1, 0))])]))
    # estimates equal but for rounding are a tie, whichever side the rounding falls
    rounded = game((1, 0), [dec(0, standings=(0.1 + 0.2, 0.3)), dec(0, standings=(0.3, 0.1 + 0.2))])
    assert value_of("lead_changes", [rounded]) == 0.0


def test_stability() -> None:
    # seat 0 moves 0.5 then 0.1 per seat, seat 1 moves 0.1: mean 0.7/3
    assert value_of("stability", [views_game()]) == pytest.approx(1 - 0.7 / 3)
    steady = game((1, 0), [dec(0, standings=(0.9, 0.1))] * 3)
    assert value_of("stability", [steady]) == 1.0


# -------------------------------------------------------------- winners' estimates


def estimates_game(winner_values: Sequence[float], n: int = 2, *, loser: float = 0.0) -> GameRecord:
    """Seat 0 wins; its own decisions estimate ``winner_values``; seat 1 decides in
    between with estimate ``loser`` and standings that put the winner last."""
    decisions = []
    for v in winner_values:
        decisions.append(dec(0, value=v, standings=(v,) + (0.5,) * (n - 1)))
        decisions.append(dec(1, value=loser, standings=(0.0,) + (1.0,) * (n - 1)))
    return game((1.0,) + (0.0,) * (n - 1), decisions)


def test_drama_threshold() -> None:
    assert drama_threshold(2) == 0.5
    assert drama_threshold(3) == 0.75
    assert drama_threshold(4) == pytest.approx(5 / 6)


def test_drama_over_the_winners_own_estimates() -> None:
    two = estimates_game([0.3, 0.6, 0.46, 0.9])  # below 0.5: 0.3 and 0.46
    assert value_of("drama", [two]) == pytest.approx((math.sqrt(0.2) + math.sqrt(0.04)) / 2)
    four = estimates_game([0.5, 0.9], n=4)  # t = 5/6: only 0.5 is below
    assert value_of("drama", [four]) == pytest.approx(math.sqrt(5 / 6 - 0.5))
    # the same estimates are not below t with two players
    assert value_of("drama", [estimates_game([0.5, 0.9])]) == 0.0
    # the loser's estimates and what the loser thought of the winner do not count
    assert value_of("drama", [estimates_game([0.7], loser=0.0)]) == 0.0


def test_drama_pools_estimates_across_games_and_shared_winners() -> None:
    one_low = estimates_game([0.25, 0.9])  # one estimate, sqrt(0.25) = 0.5
    three_low = estimates_game([0.49, 0.49, 0.49])  # three estimates of sqrt(0.01) = 0.1
    assert value_of("drama", [one_low, three_low]) == pytest.approx((0.5 + 0.3) / 4)
    tie = game((0.5, 0.5), [dec(0, value=0.25), dec(1, value=0.49)])
    assert value_of("drama", [tie]) == pytest.approx((0.5 + 0.1) / 2)


def test_security() -> None:
    assert value_of("security", [estimates_game([0.3, 0.6, 0.46, 0.9])]) == 0.5
    assert value_of("security", [estimates_game([0.5, 0.9], n=4)]) == 0.5
    assert value_of("security", [estimates_game([0.5, 0.9])]) == 1.0
    pooled = [estimates_game([0.1]), estimates_game([0.9, 0.9, 0.9])]
    assert value_of("security", pooled) == pytest.approx(1 - 1 / 4)


def test_decisiveness() -> None:
    # 10 decisions; the winner first exceeds 0.8 at decision 4 (its third): 5 of 10 after
    late = estimates_game([0.5, 0.7, 0.85, 0.95, 0.99])
    assert value_of("decisiveness", [late]) == pytest.approx(1 - 5 / 10)
    never = estimates_game([0.5, 0.8])  # 0.8 is not above 0.8: decided by the end
    assert value_of("decisiveness", [never]) == 1.0
    at_once = estimates_game([0.9, 0.9])  # sure at decision 0: 3 of 4 after
    assert value_of("decisiveness", [late, never, at_once]) == pytest.approx(
        1 - (0.5 + 0 + 0.75) / 3
    )


def test_coolness() -> None:
    g = game(
        (1, 0),
        [dec(0, value=0.5), dec(1, value=0.3), dec(0, value=0.4), dec(1, value=0.2)]
        + [dec(0, value=0.6), dec(1, 1, value=None)],
    )
    # seat 0: 0.5 > 0.4 < 0.6: 1 drop of 2; seat 1: 0.3 > 0.2: 1 of 1
    assert value_of("coolness", [g]) == pytest.approx(1 - 2 / 3)
    rising = game((1, 0), [dec(0, value=v) for v in (0.1, 0.2, 0.2)])
    assert value_of("coolness", [rising]) == 1.0


# ----------------------------------------------------------- intervals and compare


def synthetic(
    count: int, seed: int, *, lead: float = 0.5, spread: float = 0.8, n: int = 2
) -> list[GameRecord]:
    """Games with traces at every real choice, one AI seat turning round the table: seat
    0 wins with probability ``lead``; option values spread ``spread`` around 0.5."""
    rng = random.Random(seed)
    games = []
    for i in range(count):
        winner = 0 if rng.random() < lead else rng.randrange(1, n)
        credits = [0.0] * n
        credits[winner] = 1.0
        if rng.random() < 0.1:
            credits = [1.0 / n] * n
        decisions = []
        for k in range(rng.randint(4, 12)):
            options = rng.choice((1, 2, 3, 4))
            values = [0.5 + (rng.random() - 0.5) * spread for _ in range(options)]
            raw = [rng.random() for _ in range(n)]
            standings = [r / sum(raw) for r in raw]
            if options == 1:  # a forced move: no search, no trace
                decisions.append(dec(k % n, 1, values=[None], standings=()))
                continue
            decisions.append(
                dec(k % n, options, value=values[0], values=values, standings=standings)
            )
        agents = ["random"] * n
        agents[i % n] = AI
        games.append(game(credits, decisions, turns=rng.randint(2, 6), agents=agents))
    return games


@pytest.mark.parametrize("name", list(MEASURES))
def test_intervals_contain_the_value_and_shrink(name: str) -> None:
    measure = MEASURES[name]
    few, many = measure.compute(synthetic(40, 1)), measure.compute(synthetic(640, 1))
    for e in (few, many):
        assert e.n > 0 and e.ci_low <= e.value <= e.ci_high, (name, e)
    assert many.ci_high - many.ci_low < (few.ci_high - few.ci_low) * 0.6, (name, few, many)


@pytest.mark.parametrize("name", list(MEASURES))
def test_deterministic(name: str) -> None:
    games = synthetic(50, 2)
    assert MEASURES[name].compute(games) == MEASURES[name].compute(list(games))
    a, b = synthetic(30, 3), synthetic(30, 4)
    assert compare(MEASURES[name], a, b) == compare(MEASURES[name], a, b)


@pytest.mark.parametrize("name", list(MEASURES))
def test_equal_samples_do_not_differ(name: str) -> None:
    games = synthetic(60, 5)
    d = compare(MEASURES[name], games, games)
    assert d.value == 0.0 and not d.significant and d.ci_low <= 0.0 <= d.ci_high, d
    assert d.n_a == d.n_b == MEASURES[name].compute(games).n


def test_compare_finds_real_differences() -> None:
    flat, sharp = synthetic(80, 6, spread=0.1), synthetic(80, 7, spread=0.9)
    d = compare(MEASURES["spread"], flat, sharp)
    assert (
        d.significant
        and d.ci_low > 0
        and d.value == pytest.approx(value_of("spread", sharp) - value_of("spread", flat))
    )
    fair, tilted = synthetic(200, 8, lead=0.5), synthetic(200, 9, lead=0.8)
    d = compare(MEASURES["first_seat_advantage"], fair, tilted)
    assert d.significant and 0.15 < d.value < 0.45 and d.ci_low > 0
    reverse = compare(MEASURES["first_seat_advantage"], tilted, fair)
    assert reverse.significant and reverse.ci_high < 0
    # two samples of the same game: no difference found
    assert not compare(MEASURES["first_seat_advantage"], fair, synthetic(200, 10)).significant


def test_compare_without_data_is_never_significant() -> None:
    d = compare(MEASURES["drama"], [], synthetic(20, 1))
    assert math.isnan(d.value) and not d.significant and d.n_a == 0
    one = compare(MEASURES["spread"], synthetic(1, 1), synthetic(20, 1))
    assert not one.significant and math.isnan(one.ci_low)


def test_a_single_game_has_a_value_but_no_bootstrap_interval() -> None:
    e = MEASURES["spread"].compute(choices()[:1])
    assert e.n == 1 and e.value == pytest.approx(0.4) and math.isnan(e.ci_low)
    w = MEASURES["completion"].compute([game((1, 0))])  # Wilson works with one game
    assert w.value == 1.0 and 0.0 < w.ci_low < 1.0 == w.ci_high


def test_partners_who_win_together_are_not_a_draw() -> None:
    from dataclasses import replace

    from cardlang.analysis.measures import MEASURES

    base = _partnership_game()
    assert MEASURES["drawishness"].compute([base]).value == 0.0
    no_teams = replace(base, team_of=())
    assert MEASURES["drawishness"].compute([no_teams]).value == 1.0  # two winners: shared


def _partnership_game():  # type: ignore[no-untyped-def]
    from cardlang.analysis.data import GameRecord

    return GameRecord(
        id=1,
        batch=1,
        index=0,
        seed=0,
        agents=("random",) * 4,
        end_reason="completed",
        turns=10,
        scores=(5, 1, 5, 1),
        ranks=(1, 3, 1, 3),
        credits=(0.5, 0.0, 0.5, 0.0),
        decisions=(),
        team_of=(0, 1, 0, 1),
    )
