"""The card-plus-money bot tuned for a card, and its win share against bmu.

As Geronimoo's Dominion simulator's optimizer does, a small search over the bot's buy
rules (plans.py: copies, the card's place among the money rules, the Province money,
a late stop), each plan judged by its win share against Big Money Ultimate on a kingdom
holding the card, seats rotated:

1. **calibrate**: the default plan's games, to learn what one game costs (budget.py);
2. **screen**: every plan of the grid, on the same seeds (paired: the plans meet the same
   deals, so their differences are not the deals');
3. **refine**: the best few again, on new seeds, the better of them chosen on both;
4. **final**: the chosen plan on fresh seeds, never used to choose it, so that its share
   is not flattered by the choice (the winner's curse); its copies are counted too.

The games of each stage are a fixed part of the card's budget (``STAGE_SHARES``), with
floors so that a tiny budget still plays a meaningful match.

May import: cardlang.learning and everything below it (the report's layer).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from cardlang.agents.scripted.dominion import DominionBot
from cardlang.report.matches import Table, Tally, play_match, seeds_for
from cardlang.report.plans import MoneyPlan, default_plan, plans_for

__all__ = [
    "CALIBRATION_PAIRS",
    "OPPONENT",
    "STAGE_SHARES",
    "MoneyResult",
    "StageSizes",
    "calibrate",
    "tune",
]

#: The opponent of every card-plus-money bot.
OPPONENT = "bmu"
#: Seed pairs (two games each) that measure what a game costs.
CALIBRATION_PAIRS = 32
#: How many of the screen's best plans are played again.
REFINED = 6
#: Each stage's share of the card's games; "peers" are the head-to-head matches against
#: the official cards of the same cost (build.py), given to the final stage when there
#: are none.
STAGE_SHARES = {"screen": 0.45, "refine": 0.15, "final": 0.25, "peers": 0.15}
#: The fewest seed pairs of a stage, whatever the budget.
FLOOR_PAIRS = {"screen": 8, "refine": 32, "final": 100, "peers": 50}


@dataclass(frozen=True)
class StageSizes:
    """Seed pairs per plan (screen, refine), for the final plan, and per peer."""

    screen: int
    refine: int
    final: int
    peers: int

    @classmethod
    def for_games(cls, games: int, plans: int, peers: int) -> StageSizes:
        pairs = games / 2

        def size(stage: str, among: int, extra: float = 0.0) -> int:
            share = STAGE_SHARES[stage] + extra
            return max(FLOOR_PAIRS[stage], int(pairs * share / max(1, among)))

        unused = 0.0 if peers else STAGE_SHARES["peers"]
        return cls(
            screen=size("screen", plans),
            refine=size("refine", min(REFINED, plans)),
            final=size("final", 1, unused),
            peers=size("peers", peers) if peers else 0,
        )

    def games(self, plans: int, peers: int) -> int:
        """Every game these sizes play (for the progress bar)."""
        refined = min(REFINED, plans)
        return 2 * (self.screen * plans + self.refine * refined + self.final + self.peers * peers)


@dataclass
class MoneyResult:
    """The tuned bot and what it scored (``final``: on seeds the search never saw)."""

    plan: MoneyPlan
    final: Tally
    tried: list[tuple[MoneyPlan, Tally]] = field(default_factory=list)  # best first
    sizes: StageSizes | None = None


def calibrate(table: Table, card: str, cost: int, root: int) -> float:
    """The engine's work per game of the default plan against bmu (budget.py)."""
    seeds = seeds_for(root, card, "calibrate", CALIBRATION_PAIRS)
    opponent = DominionBot.builtin(OPPONENT)
    tally = play_match(table, default_plan(card, cost).bot(), opponent, seeds, count_copies=card)
    return tally.work / (2 * CALIBRATION_PAIRS)


def tune(
    table: Table,
    card: str,
    cost: int,
    sizes: StageSizes,
    root: int,
    advance: Callable[[int], None] | None = None,
) -> MoneyResult:
    """The search of the module docstring, for ``card`` on ``table``."""
    opponent = DominionBot.builtin(OPPONENT)

    def match(plan: MoneyPlan, stage: str, pairs: int, counted: bool = False) -> Tally:
        seeds = seeds_for(root, card, stage, pairs)
        copies = card if counted else None
        return play_match(table, plan.bot(), opponent, seeds, count_copies=copies, advance=advance)

    screened = [(plan, match(plan, "screen", sizes.screen)) for plan in plans_for(card, cost)]
    screened.sort(key=_best_first)
    refined = [
        (plan, tally.merge(match(plan, "refine", sizes.refine)))
        for plan, tally in screened[:REFINED]
    ]
    refined.sort(key=_best_first)
    chosen = refined[0][0]
    final = match(chosen, "final", sizes.final, counted=True)
    return MoneyResult(chosen, final, refined + screened[REFINED:], sizes)


def _best_first(entry: tuple[MoneyPlan, Tally]) -> tuple[float, MoneyPlan]:
    """Higher share first; on a tie the plan's own order, so the choice is reproducible."""
    plan, tally = entry
    return (-tally.share, plan)
