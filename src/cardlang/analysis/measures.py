"""Measures of game quality: pure functions of recorded games, each with a 95% interval.

Pipeline position: after ``data`` (recorded batches as ``GameRecord`` values), before the
``cardlang heuristics`` command and its report.  Nothing here plays a game or reads a file:
every measure is a function of the games it is given, so the same games give the same
numbers, whichever machine or backend played them.

Each measure names its *design* (``DESIGNS``): which games it is meant for.  ``random``:
every seat plays at random; ``ai_vs_random``: one AI seat (rotated through the seats)
against random players; ``ai``: every seat the same AI.  The caller hands each measure
the games of its design only; the measures do not filter by design (``design_of`` tells
a game's design).  docs/heuristics.md gives every formula with how to read it.

Three rules hold for all measures:

* A game that did not complete (failed, or cut off by a limit) has no result and its play
  was stopped early, so it counts only in ``completion`` and ``cutoffs``.
* The unit of every interval is a game: decisions of one game are not independent.
  Shares of games use Wilson's score interval; everything else a seeded percentile
  bootstrap over games (``RESAMPLES`` resamples), so intervals are deterministic.
* Missing data gives ``nan`` with ``n == 0``, never a made-up number.

"Estimates" of a player are what its own search agent estimated at its own decisions:
the value of the option it chose (``DecisionRecord.value``), the standing it expected to
reach by playing on.  These are the numbers CardStock's drama, security, decisiveness
and coolness are computed from (the mover's best option, per player); see the docs for
why not ``standings[seat]`` as seen by others.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from cardlang.analysis.data import DecisionRecord, GameRecord
from cardlang.engine.state import CUTOFF
from cardlang.runs.statistics import wilson_interval

#: The three designs of experiment, in the order CardStock runs them.
DESIGNS = ("random", "ai_vs_random", "ai")

#: Bootstrap resamples per interval, and the seed every measure's bootstrap starts from.
RESAMPLES = 1000
SEED = 0
#: Index cells drawn at once while bootstrapping (bounds the memory of a big batch).
_CELLS = 2_000_000
#: Two estimated values closer than this are equal (leaders tied, options as good).
_EPS = 1e-9
#: Decisiveness: a winner whose estimate exceeds this is taken to be sure of winning.
SURE = 0.8

Array = np.ndarray
Transform = Callable[[Array], Array]


# ------------------------------------------------------------------------ the API


@dataclass(frozen=True)
class Estimate:
    """A measure's value with its 95% interval, resting on ``n`` independent units (games).

    ``value`` is nan exactly when ``n == 0`` (no data).  The interval is nan when it
    cannot be formed: a bootstrap from a single game has no spread to show.
    """

    value: float
    ci_low: float
    ci_high: float
    n: int


@dataclass(frozen=True)
class Difference:
    """``b - a`` for one measure on two samples of games, with a 95% interval;
    ``significant`` when the interval excludes 0."""

    value: float
    ci_low: float
    ci_high: float
    significant: bool
    n_a: int
    n_b: int


@dataclass(frozen=True)
class Sample:
    """A measure's data reduced to one row per game: what its estimate and ``compare``
    resample.

    ``statistic`` maps index rows (shape ``(R, units)``, each row a resample of the
    games) to the measure's value on each row; the identity row gives the estimate.
    ``share``, when set, is ``(successes, trials)`` of one proportion of games whose
    value is ``transform(share)``: its interval is Wilson's, carried through the
    transform, whose extrema inside the interval are listed in ``critical``.
    """

    units: int
    statistic: Callable[[Array], Array]
    share: tuple[float, int] | None = None
    transform: Transform | None = None
    critical: tuple[float, ...] = ()


@dataclass(frozen=True)
class Measure:
    """One measure of game quality, with what a table or a designer needs to read it."""

    name: str  # snake_case, the JSON key
    title: str
    design: str  # one of DESIGNS: the games it is meant for
    formula: str  # one line, for tables
    compute: Callable[[Sequence[GameRecord]], Estimate]
    higher_is: str  # "better", "worse" or "neither" (for designers)
    unit: str = ""  # what the value counts, e.g. "share of games", "decisions"
    sample: Callable[[Sequence[GameRecord]], Sample] | None = field(
        default=None, repr=False, compare=False
    )


def estimate(sample: Sample, *, seed: int = SEED) -> Estimate:
    """The estimate of a reduced sample: its value and its 95% interval."""
    if sample.units == 0:
        return _missing()
    value = _point(sample)
    if math.isnan(value):
        return _missing()
    if sample.share is not None:
        low, high = _wilson_image(sample)
    elif sample.units < 2:
        low = high = math.nan
    else:
        low, high = _percentiles(_replicates(sample, np.random.default_rng(seed)))
    return Estimate(value, *_containing(value, low, high), sample.units)


def compare(
    measure: Measure, a: Sequence[GameRecord], b: Sequence[GameRecord], *, seed: int = 0
) -> Difference:
    """``b - a`` for ``measure`` with a 95% percentile-bootstrap interval.

    Each sample is resampled by games on its own (the two batches are independent), the
    measure recomputed on both, and the differences' 2.5 and 97.5 percentiles taken.  One
    method for every measure, proportions included: it needs no formula per measure and
    covers the non-linear ones (fairness, balance).  A side with fewer than two games has
    no interval and is never significant.
    """
    if measure.sample is None:
        raise TypeError(f"measure {measure.name!r} has no sample function to resample")
    sa, sb = measure.sample(a), measure.sample(b)
    va = _point(sa) if sa.units else math.nan
    vb = _point(sb) if sb.units else math.nan
    value = vb - va
    if math.isnan(value) or sa.units < 2 or sb.units < 2:
        return Difference(value, math.nan, math.nan, False, sa.units, sb.units)
    rng = np.random.default_rng(seed)
    low, high = _percentiles(_replicates(sb, rng) - _replicates(sa, rng))
    low, high = _containing(value, low, high)
    return Difference(value, low, high, low > 0 or high < 0, sa.units, sb.units)


def seat_win_rates(games: Sequence[GameRecord]) -> list[Estimate]:
    """Per seat, its share of the wins of the completed games (credits: a win shared by
    k counts 1/k), with a 95% Wilson interval."""
    done = _completed(games)
    if not done:
        return []
    out = []
    for seat in range(_players(done)):
        credits = sum(g.credits[seat] for g in done)
        low, high = wilson_interval(credits, len(done))
        out.append(Estimate(credits / len(done), low, high, len(done)))
    return out


def design_of(game: GameRecord) -> str | None:
    """The design a game belongs to: ``random`` (every seat random), ``ai_vs_random``
    (exactly one seat not random), ``ai`` (every seat the same other agent), else None."""
    ai = [spec for spec in game.agents if not _is_random(spec)]
    if not ai:
        return "random"
    if len(ai) == 1 and game.nplayers > 1:
        return "ai_vs_random"
    if len(ai) == game.nplayers and len(set(ai)) == 1:
        return "ai"
    return None


def drama_threshold(nplayers: int) -> float:
    """CardStock's published threshold t: halfway between the standing of the first
    place (1) and of the second ((n-2)/(n-1)); 0.5 for two players."""
    return (1 + (nplayers - 2) / (nplayers - 1)) / 2


# ------------------------------------------------------------ intervals and resampling


def _missing() -> Estimate:
    return Estimate(math.nan, math.nan, math.nan, 0)


def _point(sample: Sample) -> float:
    return float(sample.statistic(np.arange(sample.units)[None, :])[0])


def _replicates(sample: Sample, rng: np.random.Generator) -> Array:
    """The statistic on ``RESAMPLES`` resamples of the games (with replacement), drawn in
    chunks so that a batch of many games does not hold a huge index array."""
    rows = max(1, _CELLS // sample.units)
    out = []
    for start in range(0, RESAMPLES, rows):
        idx = rng.integers(0, sample.units, size=(min(rows, RESAMPLES - start), sample.units))
        out.append(sample.statistic(idx))
    return np.concatenate(out)


def _percentiles(values: Array) -> tuple[float, float]:
    """The 2.5 and 97.5 percentiles; a resample with no value (nan) is left out."""
    values = values[~np.isnan(values)]
    if values.size == 0:
        return math.nan, math.nan
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def _containing(value: float, low: float, high: float) -> tuple[float, float]:
    """The interval widened to contain the value.  A percentile interval can miss its own
    estimate for statistics biased in small samples (balance takes a maximum); an
    interval that does not contain the estimate would only confuse a reader."""
    if math.isnan(low) or math.isnan(high):
        return low, high
    return min(low, value), max(high, value)


def _wilson_image(sample: Sample) -> tuple[float, float]:
    """Wilson's interval of the share, carried through the measure's transform: the
    transform's range over the interval (its ends, and any extremum inside)."""
    assert sample.share is not None
    successes, trials = sample.share
    low, high = wilson_interval(successes, trials)
    points = [low, high] + [c for c in sample.critical if low < c < high]
    mapped = [_apply(sample.transform, p) for p in points]
    return min(mapped), max(mapped)


def _apply(transform: Transform | None, p: float) -> float:
    return p if transform is None else float(transform(np.asarray(p)))


# ----------------------------------------------------------------- sample builders


def _empty() -> Sample:
    return Sample(0, lambda idx: np.full(idx.shape[0], math.nan))


def _means(values: Sequence[float], transform: Transform | None = None) -> Sample:
    """The mean over games of one number per game (optionally transformed)."""
    if not values:
        return _empty()
    arr = np.asarray(values, dtype=float)

    def statistic(idx: Array) -> Array:
        means = arr[idx].mean(axis=1)
        return means if transform is None else transform(means)

    return Sample(len(arr), statistic)


def _ratio(
    num: Sequence[float], den: Sequence[float], *, empty: float, transform: Transform | None
) -> Sample:
    """Sum of numerators over sum of denominators, both per game: a mean pooled over the
    games' items (decisions, estimates).  ``empty`` is the value of a resample whose
    denominators are all 0."""
    if not num:
        return _empty()
    n_arr, d_arr = np.asarray(num, dtype=float), np.asarray(den, dtype=float)

    def statistic(idx: Array) -> Array:
        top, bottom = n_arr[idx].sum(axis=1), d_arr[idx].sum(axis=1)
        safe = np.where(bottom > 0, bottom, 1.0)
        ratio = np.where(bottom > 0, top / safe, empty)
        return ratio if transform is None else transform(ratio)

    return Sample(len(n_arr), statistic)


def _share(
    per_game: Sequence[float], transform: Transform | None = None, critical: tuple[float, ...] = ()
) -> Sample:
    """A share of games (or of credits, one number in [0, 1] per game): Wilson's
    interval for the estimate, the same per-game numbers for ``compare``."""
    sample = _means(per_game, transform)
    if not sample.units:
        return sample
    return Sample(
        sample.units, sample.statistic, (float(sum(per_game)), sample.units), transform, critical
    )


def _std(values: Sequence[float]) -> Sample:
    """The standard deviation over games (n - 1 in the denominator): two games at least."""
    if len(values) < 2:
        return _empty()
    arr = np.asarray(values, dtype=float)
    return Sample(len(arr), lambda idx: arr[idx].std(axis=1, ddof=1))


# ------------------------------------------------------------------- game helpers


def _completed(games: Sequence[GameRecord]) -> list[GameRecord]:
    return [g for g in games if g.completed]


def _players(games: Sequence[GameRecord]) -> int:
    """The number of players the games share; mixing player counts is a caller's error
    (a win rate of 1/3 means one thing with 3 players and another with 4)."""
    counts = {g.nplayers for g in games}
    if len(counts) > 1:
        raise ValueError(f"games with different numbers of players: {sorted(counts)}")
    return counts.pop() if counts else 0


def _is_random(spec: str) -> bool:
    return spec == "random" or spec.startswith("random:")


def _ai_seat(game: GameRecord) -> int | None:
    seats = [s for s, spec in enumerate(game.agents) if not _is_random(spec)]
    return seats[0] if len(seats) == 1 else None


def _own_estimates(game: GameRecord, seat: int) -> list[tuple[int, float]]:
    """(decision index, estimate) at each of the seat's own decisions its agent valued."""
    return [(d.index, d.value) for d in game.decisions if d.seat == seat and d.value is not None]


def _winner_estimates(game: GameRecord) -> list[tuple[int, float]]:
    """The estimates of the game's winners (every winner of a shared win), in order."""
    return sorted(e for w in game.winners for e in _own_estimates(game, w))


def _valued(d: DecisionRecord) -> list[float]:
    """The options' estimated values of a decision, where the agent formed them."""
    return [v for v in d.option_values or () if v is not None]


def _choices(game: GameRecord) -> Iterator[list[float]]:
    """Option values of each traced decision with at least two valued options: a real
    choice the agent weighed (forced moves have one option and no estimate)."""
    for d in game.decisions:
        values = _valued(d)
        if len(values) >= 2:
            yield values


def _views(game: GameRecord) -> list[list[tuple[float, ...]]]:
    """Per observing seat, the standings it estimated at its own traced decisions, in
    order: one player's view of the table as the game goes on."""
    views: list[list[tuple[float, ...]]] = [[] for _ in range(game.nplayers)]
    for d in game.decisions:
        if d.standings and len(d.standings) == game.nplayers:
            views[d.seat].append(d.standings)
    return views


def _one_minus(x: Array) -> Array:
    return 1.0 - x


# ------------------------------------------------------------------- the registry

SampleFn = Callable[[Sequence[GameRecord]], Sample]
_REGISTRY: dict[str, Measure] = {}
_SHARE = "share in [0, 1]"


def _measure(
    name: str, title: str, *, design: str, higher_is: str, unit: str, formula: str
) -> Callable[[SampleFn], SampleFn]:
    """Register the decorated sample function as a measure, in the order of this file
    (the reading order of ``MEASURES``)."""

    def register(sample: SampleFn) -> SampleFn:
        compute = partial(_compute, sample)  # a partial of module functions pickles
        _REGISTRY[name] = Measure(name, title, design, formula, compute, higher_is, unit, sample)
        return sample

    return register


def _compute(sample: SampleFn, games: Sequence[GameRecord]) -> Estimate:
    return estimate(sample(games))


# ------------------------------------------------------- outcomes: completion, draws


@_measure(
    "completion",
    "Completion",
    design="ai",
    higher_is="better",
    unit="share of games",
    formula="games completed / games played",
)
def _completion(games: Sequence[GameRecord]) -> Sample:
    return _share([1.0 if g.completed else 0.0 for g in games])


@_measure(
    "cutoffs",
    "Cut-offs",
    design="ai",
    higher_is="worse",
    unit="share of games",
    formula="games cut off by a limit (decisions or steps) / games played",
)
def _cutoffs(games: Sequence[GameRecord]) -> Sample:
    return _share([1.0 if g.end_reason.startswith(CUTOFF) else 0.0 for g in games])


@_measure(
    "drawishness",
    "Drawishness",
    design="ai",
    higher_is="worse",
    unit="share of completed games",
    formula="completed games without a single winner (partners count as one) / completed games",
)
def _drawishness(games: Sequence[GameRecord]) -> Sample:
    return _share([0.0 if g.winning_sides == 1 else 1.0 for g in _completed(games)])


# ---------------------------------------------------------------------- durations


def _decisions(games: Sequence[GameRecord]) -> list[float]:
    return [float(len(g.decisions)) for g in _completed(games)]


def _turns(games: Sequence[GameRecord]) -> list[float]:
    return [float(g.turns) for g in _completed(games)]


@_measure(
    "duration_decisions",
    "Length in decisions",
    design="ai",
    higher_is="neither",
    unit="decisions",
    formula="mean decisions per completed game",
)
def _mean_decisions(games: Sequence[GameRecord]) -> Sample:
    return _means(_decisions(games))


@_measure(
    "duration_decisions_sd",
    "Spread of length in decisions",
    design="ai",
    higher_is="neither",
    unit="decisions",
    formula="standard deviation of decisions per completed game",
)
def _sd_decisions(games: Sequence[GameRecord]) -> Sample:
    return _std(_decisions(games))


@_measure(
    "duration_turns",
    "Length in turns",
    design="ai",
    higher_is="neither",
    unit="turns",
    formula="mean turns per completed game",
)
def _mean_turns(games: Sequence[GameRecord]) -> Sample:
    return _means(_turns(games))


@_measure(
    "duration_turns_sd",
    "Spread of length in turns",
    design="ai",
    higher_is="neither",
    unit="turns",
    formula="standard deviation of turns per completed game",
)
def _sd_turns(games: Sequence[GameRecord]) -> Sample:
    return _std(_turns(games))


# ------------------------------------------------------------ seats and win rates


@_measure(
    "fairness",
    "Fairness (CardStock)",
    design="random",
    higher_is="better",
    unit=_SHARE,
    formula="r = seat 0's win share, f = 1/n: r/f if r <= f else (1-r)/(1-f)",
)
def _fairness(games: Sequence[GameRecord]) -> Sample:
    """CardStock's fairness of seat 0's share r of wins against f = 1/n."""
    done = _completed(games)
    n = _players(done)
    if n < 2:
        return _empty()
    f = 1 / n

    def transform(r: Array) -> Array:
        return np.where(r <= f, r / f, (1 - r) / (1 - f))

    return _share([g.credits[0] for g in done], transform, critical=(f,))


@_measure(
    "first_seat_advantage",
    "First-seat advantage",
    design="ai",
    higher_is="neither",
    unit="win share minus 1/n",
    formula="seat 0's win share - 1/n",
)
def _first_seat_advantage(games: Sequence[GameRecord]) -> Sample:
    done = _completed(games)
    n = _players(done)
    if n < 2:
        return _empty()
    return _share([g.credits[0] for g in done], lambda r: r - 1 / n)


@_measure(
    "balance",
    "Balance",
    design="ai",
    higher_is="better",
    unit=_SHARE,
    formula="1 - (highest seat win share - lowest seat win share)",
)
def _balance(games: Sequence[GameRecord]) -> Sample:
    """1 - the largest gap between two seats' win rates (Ludii's balance)."""
    done = _completed(games)
    if _players(done) < 2:
        return _empty()
    seats = np.asarray([g.credits for g in done], dtype=float).T  # (seats, games)

    def statistic(idx: Array) -> Array:
        rates = np.stack([credits[idx].mean(axis=1) for credits in seats])  # (seats, R)
        return 1.0 - (rates.max(axis=0) - rates.min(axis=0))

    return Sample(len(done), statistic)


@_measure(
    "order",
    "Order (skill pays)",
    design="ai_vs_random",
    higher_is="better",
    unit="rescaled win share",
    formula="(AI seat's win share - 1/n) / (1 - 1/n)",
)
def _order(games: Sequence[GameRecord]) -> Sample:
    """CardStock's order: the AI seat's win rate against random players, rescaled so
    that 0 is chance (1/n) and 1 always winning."""
    rows = [(g, seat) for g in _completed(games) if (seat := _ai_seat(g)) is not None]
    n = _players([g for g, _ in rows])
    if n < 2:
        return _empty()
    f = 1 / n
    return _share([g.credits[seat] for g, seat in rows], lambda p: (p - f) / (1 - f))


# ------------------------------------------------------------- decisions: options


@_measure(
    "branching_factor",
    "Branching factor",
    design="ai",
    higher_is="neither",
    unit="options",
    formula="mean over games of the mean number of options per decision",
)
def _branching(games: Sequence[GameRecord]) -> Sample:
    done = [g for g in _completed(games) if g.decisions]
    return _means([sum(d.options for d in g.decisions) / len(g.decisions) for g in done])


@_measure(
    "decision_moves",
    "Decision moves",
    design="ai",
    higher_is="better",
    unit=_SHARE,
    formula="mean over games of the share of decisions with more than one option",
)
def _decision_moves(games: Sequence[GameRecord]) -> Sample:
    done = [g for g in _completed(games) if g.decisions]
    return _means([sum(d.options > 1 for d in g.decisions) / len(g.decisions) for g in done])


def _slope(ys: Sequence[int]) -> float:
    """Least-squares slope of ys against their index 0, 1, 2, ..."""
    x = np.arange(len(ys), dtype=float)
    y = np.asarray(ys, dtype=float)
    dx = x - x.mean()
    return float((dx * (y - y.mean())).sum() / (dx * dx).sum())


@_measure(
    "convergence",
    "Convergence (CardStock)",
    design="ai",
    higher_is="neither",
    unit="0.5 = flat",
    formula="1 - (slope/2 + 0.5), slope = LSQ slope of options vs decision index (mean of games)",
)
def _convergence(games: Sequence[GameRecord]) -> Sample:
    done = [g for g in _completed(games) if len(g.decisions) >= 2]
    slopes = [_slope([d.options for d in g.decisions]) for g in done]
    return _means(slopes, lambda s: 1 - (s / 2 + 0.5))


# ----------------------------------------------------- decisions: estimated values


@_measure(
    "spread",
    "Meaningful moves (CardStock spread)",
    design="ai",
    higher_is="better",
    unit="standing",
    formula="mean over traced choices of best option value - worst option value",
)
def _spread(games: Sequence[GameRecord]) -> Sample:
    """CardStock's meaningful moves, pooled over the traced choices of all games."""
    rows = [[max(v) - min(v) for v in _choices(g)] for g in _completed(games)]
    rows = [r for r in rows if r]
    return _ratio([sum(r) for r in rows], [len(r) for r in rows], empty=math.nan, transform=None)


def _narrowness(values: list[float]) -> float:
    """Share of the options valued at least mean + 0.75 (max - mean): the options that
    look about as good as the best (the best one always counts)."""
    mean, best = sum(values) / len(values), max(values)
    bar = mean + 0.75 * (best - mean) - _EPS
    return sum(v >= bar for v in values) / len(values)


def _variance(values: list[float]) -> float:
    """Variance divided by k, not k - 1 (as Ludii's ``Stats.varn``): the options are all
    there are, not a sample of them.  Plain Python: numpy's overhead dominates here."""
    mean = sum(values) / len(values)
    return sum((v - mean) ** 2 for v in values) / len(values)


def _per_choice(games: Sequence[GameRecord], f: Callable[[list[float]], float]) -> Sample:
    """Mean over games of the game's mean of ``f`` over its traced choices (Ludii's
    clarity measures: per trial, then over trials)."""
    rows = [[f(v) for v in _choices(g)] for g in _completed(games)]
    return _means([sum(r) / len(r) for r in rows if r])


@_measure(
    "clarity_variance",
    "Clarity: variance",
    design="ai",
    higher_is="neither",
    unit="standing squared",
    formula="mean over games of the mean over traced choices of the variance of option values",
)
def _clarity_variance(games: Sequence[GameRecord]) -> Sample:
    return _per_choice(games, _variance)


@_measure(
    "clarity_narrowness",
    "Clarity: narrowness",
    design="ai",
    higher_is="neither",
    unit=_SHARE,
    formula="mean over games of the mean share of options valued >= mean + 0.75 (max - mean)",
)
def _clarity_narrowness(games: Sequence[GameRecord]) -> Sample:
    return _per_choice(games, _narrowness)


# ------------------------------------------------- the course of play: standings


def _leaders(standings: tuple[float, ...]) -> frozenset[int]:
    top = max(standings)
    return frozenset(s for s, v in enumerate(standings) if v >= top - _EPS)


def _pairs(game: GameRecord) -> Iterator[tuple[tuple[float, ...], tuple[float, ...]]]:
    """Consecutive pairs of one observer's estimated standings, for every observer (none
    in a solo game, whose only standing is always 1)."""
    if game.nplayers < 2:
        return
    for view in _views(game):
        yield from zip(view, view[1:], strict=False)


@_measure(
    "lead_changes",
    "Lead changes",
    design="ai",
    higher_is="neither",
    unit=_SHARE,
    formula="mean over games of the share of a player's consecutive views with another leader",
)
def _lead_changes(games: Sequence[GameRecord]) -> Sample:
    values = []
    for g in _completed(games):
        flips = [_leaders(a) != _leaders(b) for a, b in _pairs(g)]
        if flips:
            values.append(sum(flips) / len(flips))
    return _means(values)


@_measure(
    "stability",
    "Stability",
    design="ai",
    higher_is="neither",
    unit=_SHARE,
    formula="1 - mean over games of the mean |change| of standings between a player's views",
)
def _stability(games: Sequence[GameRecord]) -> Sample:
    values = []
    for g in _completed(games):
        moves = [sum(abs(y - x) for x, y in zip(a, b, strict=True)) / len(a) for a, b in _pairs(g)]
        if moves:
            values.append(sum(moves) / len(moves))
    return _means(values, _one_minus)


# -------------------------------------------- the course of play: winners' estimates


def _below(games: Sequence[GameRecord]) -> Iterator[tuple[list[float], float]]:
    """Per completed game with winners' estimates: those estimates and the threshold t."""
    for g in _completed(games):
        estimates = [v for _, v in _winner_estimates(g)]
        if estimates and g.nplayers >= 2:
            yield estimates, drama_threshold(g.nplayers)


@_measure(
    "drama",
    "Drama (CardStock)",
    design="ai",
    higher_is="better",
    unit="sqrt of standing",
    formula="mean over winners' estimates v < t of sqrt(t - v), t = (1 + (n-2)/(n-1))/2",
)
def _drama(games: Sequence[GameRecord]) -> Sample:
    num, den = [], []
    for estimates, t in _below(games):
        low = [t - v for v in estimates if v < t]
        num.append(sum(math.sqrt(x) for x in low))
        den.append(len(low))
    return _ratio(num, den, empty=0.0, transform=None)


@_measure(
    "security",
    "Security (CardStock)",
    design="ai",
    higher_is="neither",
    unit=_SHARE,
    formula="1 - share of the winners' estimates below t",
)
def _security(games: Sequence[GameRecord]) -> Sample:
    num, den = [], []
    for estimates, t in _below(games):
        num.append(sum(v < t for v in estimates))
        den.append(len(estimates))
    return _ratio(num, den, empty=math.nan, transform=_one_minus)


def _after_sure(game: GameRecord) -> float | None:
    """Share of the game's decisions after the first at which a winner's own estimate
    exceeds ``SURE`` (0 if it never does: the end decided it); None without estimates."""
    estimates = _winner_estimates(game)
    if not estimates:
        return None
    first = next((i for i, v in estimates if v > SURE), None)
    total = len(game.decisions)
    return 0.0 if first is None else (total - 1 - first) / total


@_measure(
    "decisiveness",
    "Decisiveness (CardStock)",
    design="ai",
    higher_is="better",
    unit=_SHARE,
    formula="1 - mean over games of the share of decisions after a winner's estimate first > 0.8",
)
def _decisiveness(games: Sequence[GameRecord]) -> Sample:
    shares = [s for g in _completed(games) if (s := _after_sure(g)) is not None]
    return _means(shares, _one_minus)


@_measure(
    "coolness",
    "Coolness (CardStock)",
    design="ai",
    higher_is="better",
    unit=_SHARE,
    formula="1 - share of a player's consecutive estimates that decrease",
)
def _coolness(games: Sequence[GameRecord]) -> Sample:
    num, den = [], []
    for g in _completed(games):
        drops = pairs = 0
        for seat in range(g.nplayers):
            values = [v for _, v in _own_estimates(g, seat)]
            drops += sum(b < a for a, b in zip(values, values[1:], strict=False))
            pairs += max(0, len(values) - 1)
        if pairs:
            num.append(drops)
            den.append(pairs)
    return _ratio(num, den, empty=math.nan, transform=_one_minus)


#: Every measure by name, in reading order: does the game work, how long is it, who
#: wins, what choices it offers, and how a game unfolds.
MEASURES: dict[str, Measure] = dict(_REGISTRY)
