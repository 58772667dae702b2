"""The report's neural section: a general model adapted to the card, and what the card adds.

A card-plus-money bot (money.py) measures a card as Big Money uses it; a card that needs
another card, or a choice the bot cannot make, is measured short.  Here a neural agent
that plays whole kingdoms measures it:

1. **As met.**  The shipped general model (``models/dominion-general``, trained on
   random kingdoms with card names dropped at random, so that it reads a card by its
   components and effects: language/effects.py) plays the card without having learnt
   it (its name is the unknown name).
2. **Adapted.**  A short PPO run from that model (``cardlang train --init MODEL
   --always CARD``: every game a random kingdom that holds the card) teaches it to buy
   and play the card as far as it is good.  Its length is the section's budget, as a
   count of updates at a nominal speed, so that the same seed gives the same report on
   any machine (and a CPU cap besides, so that a slow one keeps to the budget).
3. **Win rate added.**  Each model plays itself on random kingdoms that hold the card,
   one seat barred from the card (learning/card_worth.py): the free seat's win share
   less one half is what the card adds; the free seats' buys, plays, first-buy turns
   and copies owned (the engine's tallies) are the councilroom-style statistics.  The
   games are played in sweeps over the kingdoms until another sweep would pass the
   stage's budget, counted as the network's steps and rows at nominal speeds (not
   timed: the same seed plays the same games on any machine).
4. **The headline.**  The better of the two models on those games, played again on
   fresh ones: those figures are the card's.  The better of two figures, read on the
   games that chose it, is the larger of two chances as well (measured on the 26 base
   cards: a rank correlation of 0.47 between two models' figures, where either model's
   own figures correlate at 0.64), so the games that choose never report.
5. **Declined.**  Where both models lose by buying the card on the games that choose,
   the best play we have leaves it alone, and that adds nothing (both seats then play
   alike): the headline is 0, a bound from below, with a note that says neither model
   found a use for it.  A player may always decline a card, so what it adds to the best
   play is never below 0; a negative figure measures the model's misuse, not the card
   (Laboratory as new: -0.30, bought by a model that never met a non-terminal draw).

May import: cardlang.learning and everything below it (the report's layer).
"""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cardlang.compiler.load import load_game
from cardlang.errors import UsageError
from cardlang.language.params import always_draws
from cardlang.learning.evaluate import process_cpu_seconds
from cardlang.report.sections import Figure

if TYPE_CHECKING:  # torch only where the section runs
    from cardlang.learning.card_worth import MirrorCost

__all__ = [
    "DEFAULT_MODEL",
    "PLAY_ROWS",
    "NeuralPlan",
    "NeuralResult",
    "Play",
    "neural_section",
]

#: The general model a report adapts (next to games/, from the project's root).
DEFAULT_MODEL = Path(__file__).resolve().parents[3] / "models" / "dominion-general"
#: Nominal costs on the project's 2-core machine (2026-12, one torch thread, the general
#: model): a PPO update of 128 lockstep rows and 64 steps; a lockstep step of barred-mirror
#: games and a row the network reads in it (learning/card_worth.py: MirrorCost; measured
#: at 16, 64 and 256 rows: 1.3 ms a step and 35 us a row); and those games a CPU-second
#: at a usual length (256 rows: 280).  The evaluations stop on steps and rows counted,
#: not on time, so that the same seed plays the same games on any machine, and a card
#: whose games run long (a curser) gets fewer of them.
UPDATE_CPU_SECONDS = 5.0
STEP_CPU_SECONDS = 1.3e-3
ROW_CPU_SECONDS = 35e-6
MIRROR_GAMES_PER_CPU_SECOND = 250.0
#: An evaluation plays sweeps over its kingdoms, each kingdom the same number of games,
#: until another sweep would pass its budget: at least one sweep of this many games a
#: kingdom, and sweeps of about this share of the budget (so an overrun is at most about
#: one sweep where the nominal speed holds, and stops after one where it does not).
MIN_SWEEP_GAMES = 4
SWEEP_SHARE = 0.25
#: ... and sooner where its CPU would pass the budget by this factor: a machine slower
#: than the nominal speeds, or shared with other work (a report beside two trainings on
#: two cores took about twice the nominal CPU for its evaluations, 2026-12-04), keeps to
#: the budget with fewer games, and the report says so.  At the nominal speeds the cap
#: never binds, so the same seed plays the same games.
EVAL_CPU_CAP = 1.2
#: The section's budget: adaptation first, then the two evaluations that choose the
#: headline's model, then that model's fresh games (the rest: 0.15).
ADAPT_SHARE = 0.75
MET_SHARE = 0.05
ADAPTED_SHARE = 0.05
UPDATES_PER_ROUND = 4
#: The adaptation tries the card more at first (train --card-bonus): logits added to
#: its options, falling to none over this share of the rounds.
CARD_BONUS = 2.0
#: A model that buys the card in this share of its games as it meets it gets no bonus.
BONUS_UNLESS_BOUGHT = 0.5
BONUS_SHARE = 0.6
EVAL_KINGDOMS = 8  # kingdoms the evaluations draw (other seeds than training's)
COPIES_SHOWN = 5  # win share by copies owned: 0, 1, 2, 3, 4 or more


@dataclass(frozen=True)
class NeuralPlan:
    """One card's neural work, sized from its budget before any is done."""

    model: Path
    updates: int  # of the adaptation (0: none)
    seconds_met: float  # nominal CPU-seconds of barred-mirror games of the model as it came
    seconds_adapted: float  # of the adapted model
    seconds_headline: float  # of the better of the two, on fresh games
    cpu_cap: float  # CPU-seconds the adaptation may take at most
    bonus: bool = True  # the card bonus where the model as met leaves the card alone
    # barred lanes in the adaptation (train --opponents ...,barred@2), every one barred
    # from the card: the adaptation then plays the comparison the report makes
    barred: bool = False

    @classmethod
    def of(cls, seconds: float, model: Path) -> NeuralPlan:
        updates = int(seconds * ADAPT_SHARE / UPDATE_CPU_SECONDS)
        updates -= updates % UPDATES_PER_ROUND
        met, adapted = seconds * MET_SHARE, seconds * ADAPTED_SHARE
        headline = seconds * (1 - ADAPT_SHARE) - met - adapted
        return cls(model, updates, met, adapted, headline, seconds * ADAPT_SHARE * 1.2)

    @property
    def seconds_evaluated(self) -> float:
        """All the evaluations' seconds: what the model as met plays where there is no
        adaptation (its games are then the headline's, and choose nothing)."""
        return self.seconds_met + self.seconds_adapted + self.seconds_headline


@dataclass
class Play:
    """A model's barred-mirror games: what the card added, and how the free seats used it."""

    added: Figure  # the free seats' win share less one half
    bought: Figure  # the share of free seats that bought it
    won_bought: Figure | None  # the win share of free seats that bought it
    won_not: Figure | None  # of those that did not
    copies: Figure  # copies owned at the end, per free seat
    buys: Figure  # buys per free seat
    plays: Figure  # plays per free seat
    first_buy: Figure | None  # the game turn of the first buy, where bought
    first_buy_turns: dict[int, int]  # turn -> free seats whose first buy it was
    by_copies: list[tuple[int, Figure]]  # win share by copies owned (the last: or more)
    capped: bool = False  # stopped by its CPU cap, before the work its budget counts

    @property
    def never_bought(self) -> bool:
        return self.bought.value == 0.0

    @property
    def worth(self) -> float:
        """What the card adds to this play: the win rate added, or exactly nothing where
        the free seats never bought it (their games differ from the barred seats' only by
        chance, so the measured figure is noise, within about 0.01)."""
        return 0.0 if self.never_bought else self.added.value

    def to_json(self) -> dict[str, Any]:
        def fig(f: Figure | None) -> dict[str, Any] | None:
            return None if f is None else f.to_json()

        return {
            "win_rate_added": fig(self.added),
            "buy_rate": fig(self.bought),
            "win_share_when_bought": fig(self.won_bought),
            "win_share_when_not_bought": fig(self.won_not),
            "copies_per_game": fig(self.copies),
            "buys_per_game": fig(self.buys),
            "plays_per_game": fig(self.plays),
            "first_buy_turn": fig(self.first_buy),
            "first_buy_turns": {str(k): v for k, v in sorted(self.first_buy_turns.items())},
            "win_share_by_copies": [{"copies": n, "share": f.to_json()} for n, f in self.by_copies],
            "stopped_at_cpu_cap": self.capped,
        }


#: The rows a report shows of a ``Play``: label, figure, digits (text.py, page.py).
PLAY_ROWS: tuple[tuple[str, Callable[[Play], Figure | None], int], ...] = (
    ("win rate added (the free seat's win share less 0.5)", lambda p: p.added, 3),
    ("buy rate (games in which it bought a copy)", lambda p: p.bought, 3),
    ("win share when bought", lambda p: p.won_bought, 3),
    ("win share when not bought", lambda p: p.won_not, 3),
    ("copies owned at the end", lambda p: p.copies, 2),
    ("plays per game", lambda p: p.plays, 2),
    ("turn of the first buy (game turns)", lambda p: p.first_buy, 1),
)


@dataclass
class NeuralResult:
    """The neural section of one card: the model as met and as adapted."""

    model: str
    met: Play
    adapted: Play | None  # None where the budget left no update
    updates: int
    adapt_cpu_seconds: float
    kingdoms: list[str]
    notes: list[str] = field(default_factory=list)
    # the chosen model's fresh games (None: no adaptation, nothing was chosen)
    fresh: Play | None = None

    @property
    def chosen(self) -> Play:
        """The play that makes the most of the card: the adapted model's, unless it adds
        less than the model as met did.  A player can always leave a card alone, so what a
        card adds to the best play we have is at least what it adds to either; an
        adaptation that lowered it learnt to buy too many (a short run from a model that
        misjudged the card), and the report's notes say so."""
        if self.adapted is None or self.adapted.worth < self.met.worth:
            return self.met
        return self.adapted

    def columns(self) -> list[tuple[str, Play]]:
        """The plays a report shows side by side, each with its column's name."""
        shown = [("as met", self.met)]
        if self.adapted is not None:
            shown.append(("adapted", self.adapted))
        if self.fresh is not None:
            shown.append(("headline", self.fresh))
        return shown

    @property
    def declined(self) -> bool:
        """Both plays lose by buying the card on the games that choose (module docstring,
        5).  Only where two were compared: the model as met alone reports its own games,
        and reading those as at least 0 would turn a chance low into nothing while a
        chance high stands (biased up)."""
        return self.adapted is not None and self.chosen.worth < 0.0

    @property
    def chosen_name(self) -> str:
        """Which play the headline is: "as met", "adapted" or "declined"."""
        if self.declined:
            return "declined"
        return "adapted" if self.chosen is self.adapted else "as met"

    @property
    def headline(self) -> Play:
        """The card's figures: the chosen model's on fresh games, where two were compared
        (module docstring, 4); where declined, the better play's own (what the plots show
        of how the model used it; its worth is not the card's, ``worth`` is)."""
        return self.fresh if self.fresh is not None else self.chosen

    @property
    def worth(self) -> float:
        """What the card adds to the best play we have: the headline's worth, or exactly
        0 where both plays lose by buying it (declined)."""
        return 0.0 if self.declined else self.headline.worth

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "as_met": self.met.to_json(),
            "adapted": None if self.adapted is None else self.adapted.to_json(),
            "headline": self.chosen_name.replace(" ", "_"),
            # None where declined: no play stands for the card, and ``worth`` is 0
            "headline_figures": None if self.declined else self.headline.to_json(),
            "worth": self.worth,
            "adaptation": {
                "updates": self.updates,
                "cpu_seconds": round(self.adapt_cpu_seconds, 1),
            },
            "kingdoms": list(self.kingdoms),
            "notes": list(self.notes),
        }


def neural_section(
    path: str,
    card: str,
    plan: NeuralPlan,
    seed: int,
    say: Callable[[str], None] | None = None,
    work: Path | None = None,
) -> NeuralResult:
    """The neural section of ``card`` in the game file at ``path`` (module docstring)."""
    with _one_torch_thread():
        return _neural_section(path, card, plan, seed, say, work)


@contextmanager
def _one_torch_thread() -> Iterator[None]:
    """One torch thread while the section runs: what the nominal speeds assume, and what
    keeps two reports (or a report and a test worker) on two cores from spinning
    OpenMP threads against each other (measured: 5 s alone, 70 s with a second)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def _neural_section(
    path: str,
    card: str,
    plan: NeuralPlan,
    seed: int,
    say: Callable[[str], None] | None,
    work: Path | None,
) -> NeuralResult:
    from cardlang.agents.neural.model import load_model, model_path

    say = say or (lambda _: None)
    if not model_path(plan.model).is_file():
        raise UsageError(
            f"card-report's neural section needs a general model at {plan.model} "
            "(--model DIR; models/dominion-general ships with the project)"
        )
    base = load_game(path)
    kingdoms = always_draws(base.ast, [card], {}, EVAL_KINGDOMS, seed + 7919)["KINGDOM"]
    games = [load_game(path, params={"KINGDOM": k}) for k in kingdoms]
    say(f"{card}: the general model as it meets the card")
    met_model = load_model(plan.model, games[0], other_game=True)
    seconds = plan.seconds_met if plan.updates else plan.seconds_evaluated
    met = _play(met_model, games, card, seconds, seed)
    result = NeuralResult(str(plan.model), met, None, 0, 0.0, kingdoms)
    if plan.updates:
        with tempfile.TemporaryDirectory(prefix="card-report-") as scratch:
            out = (work or Path(scratch)) / f"adapted-{card.lower()}"
            cpu0 = process_cpu_seconds()
            _adapt(path, card, plan, seed, out, say, bonus=adapt_bonus(met, plan))
            result.adapt_cpu_seconds = process_cpu_seconds() - cpu0
            say(f"{card}: the adapted model")
            adapted = load_model(out, games[0])
            result.adapted = _play(adapted, games, card, plan.seconds_adapted, seed + 1)
            result.updates = int(adapted.info.get("training", {}).get("updates", 0))
            if result.declined:  # nothing to play again: leaving it alone adds 0
                say(f"{card}: both models lose by buying it; the headline leaves it alone")
            else:
                better = adapted if result.chosen is result.adapted else met_model
                say(f"{card}: the better of the two on fresh games")
                result.fresh = _play(better, games, card, plan.seconds_headline, seed + 2)
    result.notes = _notes(card, result)
    return result


def adapt_bonus(met: Play, plan: NeuralPlan) -> float:
    """The card bonus of the adaptation: it makes a model try a card it does not buy as
    it meets it (a model that reads a pile by name, as the shipped general model does,
    sees a new card's name as blank, and without the push never tries it).  A model that
    already buys the card (one that reads a pile by its card, ``NameTable.pile_cards``)
    needs no push, and pushed it learnt to buy too many (six Witches a game, 0.18 of win
    share lost, 2026-12-02).  A short adaptation may still overbuy what it was pushed to
    (24 updates: seven Harbingers a game, 0.46 lost): the headline then falls back to the
    model as met (``NeuralResult.headline``).  ``plan.bonus`` False: no push at all."""
    if not plan.bonus or met.bought.value >= BONUS_UNLESS_BOUGHT:
        return 0.0
    return CARD_BONUS


def _adapt(
    path: str,
    card: str,
    plan: NeuralPlan,
    seed: int,
    out: Path,
    say: Callable[[str], None],
    bonus: float = CARD_BONUS,
) -> None:
    """``cardlang train --init MODEL --always CARD`` for ``plan.updates`` updates."""
    from cardlang.learning.config import TrainConfig
    from cardlang.learning.ppo_run import PPORun

    rounds = max(1, plan.updates // UPDATES_PER_ROUND)
    config = TrainConfig(
        game=path,
        algorithm="ppo",
        seed=seed,
        rounds=rounds,
        updates=UPDATES_PER_ROUND,
        init=str(plan.model),
        always=[card],
        card_bonus=bonus,
        card_bonus_rounds=rounds * BONUS_SHARE,
        cpu_limit=plan.cpu_cap,
        lr=3e-4,
        entropy=0.01,
        reward="margin",
        score_scale=60.0,
        max_decisions=600,
        horizon=64,
        epochs=2,
        batch_size=256,
        value_weight=0.5,
        body="deepsets",
        opponents="self@2,past@1,bmu@1" + (",barred@2" if plan.barred else ""),
        kingdom_cards=[card] if plan.barred else [],
        evaluate_every=0,
        backend="serial",
        anneal_rounds=rounds,
        name_dropout=0.0,
    )
    PPORun.open(config, out, lambda line: say(f"{card}: {line.strip()}")).run()


def _play(model: Any, games: list[Any], card: str, seconds: float, seed: int) -> Play:
    """Barred-mirror games of ``model`` on ``games`` (kingdoms holding ``card``), in
    sweeps over the kingdoms until another sweep would pass ``seconds`` (nominal)."""
    from cardlang.learning.card_worth import MirrorCost, barred_mirror

    per = _sweep_games(seconds * SWEEP_SHARE, len(games))
    cost = MirrorCost()
    played: list[Any] = []
    sweeps = 0
    capped = False
    cpu0 = process_cpu_seconds()
    while sweeps == 0 or _nominal_seconds(cost) * (sweeps + 1) / sweeps <= seconds:
        if sweeps and (process_cpu_seconds() - cpu0) * (sweeps + 1) / sweeps > (
            seconds * EVAL_CPU_CAP
        ):
            capped = True
            break
        for k, game in enumerate(games):
            sweep_seed = seed + 1000 * k + 100_000 * sweeps
            played.extend(barred_mirror(model, game, card, per, sweep_seed, cost=cost))
        sweeps += 1
    play = _figures(played, card)
    play.capped = capped
    return play


def _nominal_seconds(cost: MirrorCost) -> float:
    """What ``cost`` is worth in CPU-seconds at the nominal speeds."""
    return cost.steps * STEP_CPU_SECONDS + cost.row_steps * ROW_CPU_SECONDS


def _sweep_games(seconds: float, kingdoms: int) -> int:
    """Games a kingdom in one sweep of ``seconds`` at the usual game length: even (both
    seats barred as often), at least ``MIN_SWEEP_GAMES``, at most one lockstep batch."""
    from cardlang.learning.card_worth import MAX_ROWS

    per = int(seconds * MIRROR_GAMES_PER_CPU_SECOND / kingdoms)
    return max(MIN_SWEEP_GAMES, min(MAX_ROWS, per - per % 2))


def _figures(played: list[Any], card: str) -> Play:
    credits: list[float] = []
    bought: list[bool] = []
    won_bought: list[float] = []
    won_not: list[float] = []
    copies: list[float] = []
    buys: list[float] = []
    plays: list[float] = []
    first: list[float] = []
    by_copies: dict[int, list[float]] = {}
    for game in played:
        for seat, figures in zip(game.free_seats, game.free_cards(card), strict=True):
            credit = float(game.result.credits[seat])
            credits.append(credit)
            bought.append(figures.buys > 0)
            (won_bought if figures.buys > 0 else won_not).append(credit)
            copies.append(float(figures.owned))
            buys.append(float(figures.buys))
            plays.append(float(figures.plays))
            if figures.first_buy_turn is not None:
                first.append(float(figures.first_buy_turn))
            by_copies.setdefault(min(figures.owned, COPIES_SHOWN - 1), []).append(credit)
    share = Figure.share(sum(credits), len(credits))
    return Play(
        added=Figure(share.value - 0.5, share.low - 0.5, share.high - 0.5, share.games),
        bought=Figure.share(sum(bought), len(bought)),
        won_bought=Figure.share(sum(won_bought), len(won_bought)) if won_bought else None,
        won_not=Figure.share(sum(won_not), len(won_not)) if won_not else None,
        copies=Figure.mean(copies),
        buys=Figure.mean(buys),
        plays=Figure.mean(plays),
        first_buy=Figure.mean(first) if first else None,
        first_buy_turns=dict(Counter(int(t) for t in first)),
        by_copies=[(n, Figure.share(sum(c), len(c))) for n, c in sorted(by_copies.items())],
    )


def _notes(card: str, result: NeuralResult) -> list[str]:
    notes = []
    play = result.headline
    if play.never_bought:
        notes.append(
            f"no agent ever bought {card}: the neural model, even adapted, never chose it "
            "in a kingdom that holds it, so it adds nothing the model can find"
        )
    if play.added.half_width > 0.03:
        notes.append(
            f"the win rate added has a wide interval (+-{play.added.half_width:.3f}, "
            f"{play.added.games:,} games): a larger --minutes narrows it"
        )
    capped = [name for name, play in result.columns() if play.capped]
    if capped:
        notes.append(
            f"this machine ran slower than the nominal speeds (or shared its cores): the "
            f"{', '.join(capped)} games stopped at their CPU cap, fewer than the seed plays "
            "on a machine at those speeds, so their intervals are wider"
        )
    if result.adapted is None:
        notes.append("the budget left no time to adapt the model: the figures are as met")
    elif result.declined:
        notes.append(
            f"both models lose by buying {card} (as met {result.met.added.value:+.3f}, "
            f"adapted {result.adapted.added.value:+.3f}, {result.chosen.copies.value:.1f} "
            "copies a game at best): neither found a use for it, and a player who leaves it "
            "alone loses nothing, so the headline is 0, a bound from below (a better player "
            "may make more of it; the card-plus-money bot above is another reading)"
        )
    elif result.chosen is result.met:
        notes.append(
            f"the adapted model made less of {card} than the model as met "
            f"({result.adapted.added.value:+.3f} against {result.met.added.value:+.3f}; it "
            f"bought {result.adapted.copies.value:.1f} copies a game): the headline is the "
            "model as met, and a larger --minutes gives the adaptation longer"
        )
    return notes
