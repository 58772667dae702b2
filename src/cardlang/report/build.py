"""A card-report run: the file read, the cards found, each card's sections planned and played.

``report_cards`` is the whole run that ``cardlang card-report`` makes: ``GameFile.read``
loads the file (a file that fails ``check`` stops here with its diagnostics) and finds
the kingdom cards it allows; ``GameFile.card`` turns a name the user typed into a card
(an unknown one is a usage error with a did-you-mean); ``plan_card`` sets one card's
table (its kingdom: the card, the official cards of its cost, then others to make ten)
and the games its budget buys (budget.py), before any is played, so that the progress
bar knows the total; ``money_section`` plays them (money.py) and places the card among
its peers (peers.py).  The neural sections will be planned and played here too, each
from its own share of the budget.

May import: cardlang.learning and everything below it (the report's layer).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardlang.agents.scripted.dominion import plays_dominion
from cardlang.compiler.load import load_game, read_source
from cardlang.errors import UsageError, did_you_mean
from cardlang.language import ast
from cardlang.language.fingerprint import rules_fingerprint
from cardlang.report.budget import SECTION_SHARES, Budget, games_in
from cardlang.report.matches import Table, Tally, play_match, seeds_for
from cardlang.report.money import (
    CALIBRATION_PAIRS,
    OPPONENT,
    MoneyResult,
    StageSizes,
    calibrate,
    tune,
)
from cardlang.report.neural import DEFAULT_MODEL, NeuralPlan, NeuralResult, neural_section
from cardlang.report.peers import Peer, Peers, place, shipped_peers
from cardlang.report.plans import card_title, plans_for
from cardlang.report.sections import WIDE, CardReport, Figure, HeadToHead, MoneySection, Report
from cardlang.runs.progress import GamesBar, games_bar

__all__ = [
    "CardPlan",
    "GameFile",
    "kingdom_for",
    "money_section",
    "plan_card",
    "report_cards",
    "tune_alone",
]

#: The declared list of the cards a kingdom may name, and the parameter that names them.
KINGDOM_CARDS, KINGDOM = "ALL-KINGDOM-CARDS", "KINGDOM"
KINGDOM_SIZE = 10
#: How many of the search's best plans a report shows.
PLANS_SHOWN = 5
#: Below this share of games with a copy, the report says the card is seldom bought.
SELDOM = 0.05


@dataclass(frozen=True)
class GameFile:
    """A Dominion file as the report reads it (see the module docstring)."""

    path: str
    text: str
    kingdom_cards: tuple[str, ...]
    kinds: Mapping[str, Mapping[str, Any]]  # each card kind's attributes
    engine: str | None

    @classmethod
    def read(cls, path: str, engine: str | None) -> GameFile:
        source = read_source(path)
        game = load_game(text=source.text, name=source.name, engine=engine)
        if not plays_dominion(game):
            raise UsageError(
                f"{path} is not a Dominion game (it has no ACTION-PHASE and BUY-PHASE "
                "decisions): card-report judges the cards of a copy of games/dominion.rcy"
            )
        declared = {d.var: d.value for d in game.ast.declares}
        listed = declared.get(KINGDOM_CARDS)
        if KINGDOM not in declared or not isinstance(listed, ast.StrList):
            raise UsageError(
                f"{path} declares no '{KINGDOM} parameter and '{KINGDOM_CARDS} list, which "
                "card-report sets a kingdom with: start from a copy of games/dominion.rcy"
            )
        return cls(path, source.text, listed.values, game.kind_attributes, engine)

    def card(self, typed: str) -> str:
        """The kingdom card ``typed`` names (any case); a UsageError says what is wrong."""
        card = typed.strip().upper()
        if card in self.kingdom_cards and card in self.kinds:
            return card
        if card not in self.kinds:
            hint = did_you_mean(card, [k for k in self.kinds if k != card])
            listed = f" (its '{KINGDOM_CARDS} names it)" if card in self.kingdom_cards else ""
            raise UsageError(
                f"{self.path} has no card-kind {typed!r}{listed}" + (f": {hint}" if hint else "")
            )
        raise UsageError(
            f"{card} is not in {self.path}'s '{KINGDOM_CARDS}, the cards a kingdom may name: "
            "card-report judges kingdom cards (add a new card to that list: README.md, "
            '"Your first new card")'
        )

    def cost(self, card: str) -> int:
        cost = self.kinds[card].get("COST")
        if not isinstance(cost, int):
            raise UsageError(f"{card} has no whole-number COST: card-report places cards by cost")
        return cost

    def table(self, kingdom: Sequence[str]) -> Table:
        return Table.load(self.text, self.path, kingdom, self.engine)


def kingdom_for(card: str, with_cards: Sequence[str], kingdom_cards: Sequence[str]) -> list[str]:
    """Ten kingdom cards: ``card``, ``with_cards``, then the first others the file lists
    (no bot buys them; they fill the Supply as a kingdom must)."""
    chosen = list(dict.fromkeys([card, *with_cards]))[:KINGDOM_SIZE]
    others = [k for k in kingdom_cards if k not in chosen]
    return chosen + others[: KINGDOM_SIZE - len(chosen)]


@dataclass
class CardPlan:
    """One card's work, planned before any of it is played."""

    card: str
    cost: int
    types: tuple[str, ...]
    table: Table
    peers: list[Peer]  # the official cards of its cost that the file holds
    sizes: StageSizes

    @property
    def plans(self) -> int:
        return len(plans_for(self.card, self.cost))

    @property
    def games(self) -> int:
        return self.sizes.games(self.plans, len(self.peers))


def plan_card(file: GameFile, card: str, budget: Budget, peers: Peers, root: int) -> CardPlan:
    """``card``'s table and the games its share of ``budget`` buys."""
    cost = file.cost(card)
    same_cost = [p for p in peers.at_cost(cost, leaving_out=card) if p.card in file.kingdom_cards]
    same_cost = same_cost[: KINGDOM_SIZE - 1]
    table = file.table(kingdom_for(card, [p.card for p in same_cost], file.kingdom_cards))
    work = calibrate(table, card, cost, root)
    games = budget.games("card_plus_money", work)
    sizes = StageSizes.for_games(games, len(plans_for(card, cost)), len(same_cost))
    types = tuple(file.kinds[card].get("TYPES", ()))
    return CardPlan(card, cost, types, table, same_cost, sizes)


def tune_alone(file: GameFile, card: str, seconds: float, root: int) -> MoneyResult:
    """``card``'s card-plus-money bot tuned in ``seconds`` of CPU, on a kingdom of its own
    with no head-to-head: how benchmarks/card_peers.py measures the official cards."""
    cost = file.cost(card)
    table = file.table(kingdom_for(card, [], file.kingdom_cards))
    work = calibrate(table, card, cost, root)
    sizes = StageSizes.for_games(games_in(seconds, work), len(plans_for(card, cost)), 0)
    return tune(table, card, cost, sizes, root)


def money_section(
    plan: CardPlan, peers: Peers, root: int, budget: Budget, bar: GamesBar | None
) -> MoneySection:
    """The card-plus-money section of ``plan``'s card: tuned, placed, met head to head."""
    advance = bar.advance if bar else None
    if bar:
        bar.describe(f"{plan.card}: tuning its card-plus-money bot")
    result = tune(plan.table, plan.card, plan.cost, plan.sizes, root, advance)
    if bar and plan.peers:
        bar.describe(f"{plan.card}: against the ${plan.cost} cards' bots")
    duels = [_head_to_head(plan, result, peer, root, advance) for peer in plan.peers]
    return _section(plan, result, duels, peers, budget)


def _head_to_head(
    plan: CardPlan,
    result: MoneyResult,
    peer: Peer,
    root: int,
    advance: Callable[[int], None] | None,
) -> HeadToHead:
    seeds = seeds_for(root, plan.card, f"against {peer.card}", plan.sizes.peers)
    tally = play_match(plan.table, result.plan.bot(), peer.plan.bot(), seeds, advance=advance)
    return HeadToHead(peer.card, peer.cost, peer.share, _share(tally))


def _share(tally: Tally) -> Figure:
    return Figure.share(tally.credits, tally.games)


def _section(
    plan: CardPlan, result: MoneyResult, duels: list[HeadToHead], peers: Peers, budget: Budget
) -> MoneySection:
    final = result.final
    share = _share(final)
    bought = Figure.share(sum(1 for n in final.copies if n > 0), len(final.copies))
    placement = None
    if bought.value > 0:
        placement = place(plan.card, plan.cost, share.value, share.low, share.high, peers)
    section = MoneySection(
        opponent=OPPONENT,
        plan=result.plan,
        share=share,
        copies=Figure.mean(final.copies),
        bought=bought,
        by_copies=[
            (n, Figure.share(credit, int(games)))
            for n, (credit, games) in sorted(final.credits_by_copies.items())
        ],
        tried=[(p, _share(t)) for p, t in result.tried[:PLANS_SHOWN]],
        head_to_head=duels,
        placement=placement,
        games=plan.games,
        cut_off=final.cut_off + sum(t.cut_off for _, t in result.tried),
    )
    section.notes = _notes(plan, section, budget)
    return section


def _notes(plan: CardPlan, section: MoneySection, budget: Budget) -> list[str]:
    """What a reader must know: a card never or seldom bought, decisions its bot has no
    rule for, games cut off, intervals that the budget left wide."""
    notes = []
    games = section.bought.games
    title = card_title(plan.card)
    if section.never_bought:
        notes.append(
            f"no agent ever bought {title}: its card-plus-money bot never had ${plan.cost} "
            f"to spend on it in {games:,} games, so its share is Big Money's, not the card's"
        )
    elif section.bought.value < SELDOM:
        notes.append(
            f"{title} was seldom bought: the bot owned a copy at the end of only "
            f"{section.bought.value:.1%} of {games:,} games"
        )
    # decisions of the card that the bot answers by default (declining): said, as
    # simulate says them, so that a low share is not read as the card's alone
    # (not the cards it never buys: the kingdom holds the card's peers on purpose)
    warnings = section.plan.bot().warnings_for(plan.table.master.game)
    notes += [w for w in warnings if "has no rule for" in w]
    if section.cut_off:
        notes.append(f"{section.cut_off:,} games were cut off (no result) and are left out")
    if section.share.half_width > WIDE:
        notes.append(_wide(section.share, budget))
    return notes


def _wide(share: Figure, budget: Budget) -> str:
    """Why the share's interval is wide, and what budget would make it +-0.01."""
    needed = budget.minutes * (share.half_width / 0.01) ** 2
    return (
        f"the share's interval is wide (+-{share.half_width:.3f}, {share.games:,} games) "
        f"because of the budget (--minutes {budget.minutes:g}); about --minutes "
        f"{needed:.0f} would make it +-0.01"
    )


def report_cards(
    path: str,
    typed_cards: Sequence[str],
    minutes: float,
    seed: int,
    engine: str | None,
    progress: bool = True,
    model: Path | None = DEFAULT_MODEL,
    keep: Path | None = None,
) -> Report:
    """The report on each card of ``typed_cards`` in the file at ``path``; ``model``:
    the general model the neural section adapts (None: no neural section); ``keep``:
    a folder that keeps each card's adapted model."""
    started = time.process_time()
    file = GameFile.read(path, engine)
    cards = list(dict.fromkeys(file.card(c) for c in typed_cards))
    budget = Budget(minutes, len(cards))
    peers = shipped_peers()
    plans, planning = [], []
    for card in cards:
        card_started = time.process_time()
        plans.append(plan_card(file, card, budget, peers, seed))
        planning.append(time.process_time() - card_started)
    reports = []
    with games_bar("card-report", sum(p.games for p in plans), enabled=progress) as bar:
        for plan, planned in zip(plans, planning, strict=True):
            card_started = time.process_time()
            money = money_section(plan, peers, seed, budget, bar)
            seconds = planned + time.process_time() - card_started
            reports.append(CardReport(plan.card, plan.cost, plan.types, money, None, seconds))
    for done in reports:
        card_started = time.process_time()
        done.win_rate_added, why = _neural(path, done.card, budget, seed, model, keep, progress)
        done.cpu_seconds += time.process_time() - card_started
        if why:
            done.money.notes.append(why)
    return Report(
        file=path,
        rules_fingerprint=rules_fingerprint(file.text),
        seed=seed,
        minutes=minutes,
        budget_seconds={section: budget.seconds(section) for section in SECTION_SHARES},
        cards=reports,
        peers=peers.about,
        cpu_seconds=time.process_time() - started,
        games=sum(p.games + 2 * CALIBRATION_PAIRS for p in plans),
    )


def _neural(
    path: str,
    card: str,
    budget: Budget,
    seed: int,
    model: Path | None,
    keep: Path | None,
    progress: bool,
) -> tuple[NeuralResult | None, str]:
    """The card's neural section, or None and why it was not measured."""
    if model is None:
        return None, ""
    try:
        import torch  # noqa: F401 - the neural section needs it; the rest does not
    except ImportError:
        return None, 'the neural section needs torch: pip install -e ".[neural]"'

    def say(line: str) -> None:
        if progress:
            print(line, file=sys.stderr, flush=True)

    plan = NeuralPlan.of(budget.seconds_per_card("win_rate_added"), model)
    return neural_section(path, card, plan, seed, say, keep), ""
