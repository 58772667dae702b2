"""The ``Measure`` type: how a measure of game quality is declared, computed and compared.

Pipeline position: above ``estimates`` (the statistics) and ``data``, below the measure
modules (``outcomes``, ``decisions``, ``course``), which declare their measures with the
``register`` decorator into a registry of their own (``FAMILY``), and ``measures``, which
gathers those registries into ``MEASURES``.  ``compare`` sets one measure's value on two batches of
games against each other.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

from cardlang.analysis.data import GameRecord
from cardlang.analysis.estimates import Difference, Estimate, Sample, difference, estimate

SampleFn = Callable[[Sequence[GameRecord]], Sample]

#: The unit of a measure whose value is a share.
SHARE = "share in [0, 1]"


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
    needs: str = ""  # what its games must hold beyond their outcome (said where it has none)


#: What the measures of the course of play and of estimated values read: an AI's own
#: estimates of its chances at its decisions, which only search agents record.
ESTIMATES = (
    "the AI's estimates of its chances, which a search AI records (--ai ismcts or mcts); "
    "a scripted bot or a raw policy records none"
)


def register(
    registry: dict[str, Measure],
    name: str,
    title: str,
    *,
    design: str,
    higher_is: str,
    unit: str,
    formula: str,
    needs: str = "",
) -> Callable[[SampleFn], SampleFn]:
    """Register the decorated sample function as a measure in ``registry``, in the order
    of its module (the reading order of ``MEASURES``)."""

    def add(sample: SampleFn) -> SampleFn:
        if name in registry:
            raise ValueError(f"measure {name!r} registered twice")
        compute = partial(_compute, sample)  # a partial of module functions pickles
        registry[name] = Measure(
            name, title, design, formula, compute, higher_is, unit, sample, needs
        )
        return sample

    return add


def _compute(sample: SampleFn, games: Sequence[GameRecord]) -> Estimate:
    return estimate(sample(games))


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
    return difference(measure.sample(a), measure.sample(b), seed=seed)
