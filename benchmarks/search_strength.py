"""How strong the search agents (ISMCTS, PIMC) are: win share against simple opponents.

What it measures
    For each row (a game, a searching agent with its budget, an opponent): N seeded games
    in which the searching agent rotates through the seats (game g: seat g mod players)
    and every other seat is the opponent (``random`` unless the row says otherwise).  It
    reports the agent's win share (its mean ``GameResult.credits``: 1 for a win, 1/k for
    a win shared by k, 0 for a loss or a game that did not complete) with a 95% Wilson
    interval, the share a random player would expect in its place (1/players; the rows
    of agent ``random`` measure it), its mean *standing* (``Gamemaster.standings``: the
    share of the other seats it finishes ahead of, ties half; what the search agents
    maximise, 0.5 for a random player in any game), its mean score, and seconds per game.
    ``--json`` adds the share and mean score per seat.

    Kuhn poker also gets the agents' chips against a textbook equilibrium strategy (the
    policy of tests/test_kuhn_value.py), which guarantees 0 averaged over both seats: the
    search agents maximise hands won, not chips, and do not reach the equilibrium.
    Dominion also gets ISMCTS's record against ``bigmoney``.

    These figures chose the budgets and margins of tests/test_search_strength.py (the
    first agent of each game's rows is the budget its test uses).

Seeds
    Game g of a row is dealt with seed S + g; the agent in seat p gets
    ``cardlang.runs.simulate.agent_seeds(S + g, players)[p]``, as ``cardlang simulate`` seeds
    them.  (Not the game's own seed: the game and the random agent both draw from
    SplitMix64, so an agent seeded with the deal's seed plays "random" moves correlated
    with the deal; over 1,000 Kuhn games a random player seeded so won 46% and lost
    0.18 chips a hand against another.)  The same command gives the same table (only the
    seconds vary).

Usage (from the repository root)
    python benchmarks/search_strength.py                    # the default rows (~7 min)
    python benchmarks/search_strength.py --only hearts,kuhn --games 100 --json
    python benchmarks/search_strength.py --game ../shared/cardstock/Whist4.rcy \\
        --agent ismcts:iterations=20 --agent pimc:determinizations=2:rollouts=1 --games 60

Rows whose game file is missing (the CardStock corpus in ../shared/cardstock) are
skipped with a note.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from cardlang.agents import make_agent
from cardlang.agents.search.rewards import standings

from cardlang import load_game
from cardlang.runs.runner import play_game
from cardlang.runs.simulate import agent_seeds

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"
CORPUS = ROOT.parent / "shared" / "cardstock"


@dataclass(frozen=True)
class Row:
    """One measurement: ``agent`` (a make_agent spec) in rotating seats, ``opponent``
    (a spec, or ``kuhn-equilibrium``) everywhere else, ``games`` seeded games."""

    label: str
    path: Path
    agent: str
    games: int
    opponent: str = "random"
    family: str = ""


def _rows(label: str, path: Path, family: str, games: int, *agents: str) -> list[Row]:
    """One row per agent spec, all against random players; ``random`` itself is the
    measured baseline (its share is 1/players only in expectation)."""
    return [Row(label, path, a, games, family=family) for a in agents]


def _vs(label: str, path: Path, family: str, games: int, agent: str, opponent: str) -> Row:
    return Row(label, path, agent, games, opponent, family)


KUHN = GAMES / "kuhn_poker.rcy"
DOMINION = GAMES / "dominion.rcy"
ISMCTS20 = "ismcts:iterations=20"

#: The default rows.  The first agent of each game is the budget its test uses
#: (tests/test_search_strength.py), measured here on more games and other seeds.
DEFAULT_ROWS: list[Row] = [
    *_rows("kuhn", KUHN, "poker", 1000, "ismcts:iterations=100", "pimc", "random"),
    _vs("kuhn", KUHN, "poker", 2000, "ismcts:iterations=100", "kuhn-equilibrium"),
    _vs("kuhn", KUHN, "poker", 500, "ismcts:iterations=1000", "kuhn-equilibrium"),
    _vs("kuhn", KUHN, "poker", 2000, "pimc", "kuhn-equilibrium"),
    _vs("kuhn", KUHN, "poker", 4000, "kuhn-equilibrium", "kuhn-equilibrium"),
    *_rows(
        "hearts",
        GAMES / "hearts.rcy",
        "trick-taking",
        200,
        "ismcts:iterations=50",
        "pimc:determinizations=4:rollouts=1",
        ISMCTS20,
        "random",
    ),
    *_rows(
        "crazy_eights",
        GAMES / "crazy_eights.rcy",
        "shedding",
        200,
        "ismcts:iterations=50",
        "ismcts:iterations=20:cap=20",
        "pimc",
        "random",
    ),
    *_rows(
        "CrazyEights4",
        CORPUS / "CrazyEights4.rcy",
        "shedding",
        200,
        "ismcts:iterations=20:cap=20",
        "pimc:determinizations=2:rollouts=1:cap=20",
        "random",
    ),
    *_rows("CrazyEights4", CORPUS / "CrazyEights4.rcy", "shedding", 50, "ismcts:iterations=5"),
    *_rows(
        "BottleImp3",
        CORPUS / "BottleImp3.rcy",
        "trick-taking",
        200,
        ISMCTS20,
        "pimc:determinizations=2:rollouts=1",
        "random",
    ),
    *_rows(
        "LAMA3",
        CORPUS / "LAMA3.rcy",
        "shedding",
        300,
        ISMCTS20,
        "pimc:determinizations=4:rollouts=1",
        "random",
    ),
    *_rows(
        "NoThanks3", CORPUS / "NoThanks3.rcy", "press-your-luck", 200, ISMCTS20, "pimc", "random"
    ),
    *_rows(
        "StealingBundles2",
        CORPUS / "StealingBundles2.rcy",
        "fishing",
        200,
        ISMCTS20,
        "pimc:determinizations=4:rollouts=1",
        "random",
    ),
    *_rows(
        "GOPS2",
        CORPUS / "GOPS2.rcy",
        "bidding",
        200,
        ISMCTS20,
        "pimc:determinizations=2:rollouts=1",
        "random",
    ),
    *_rows("dominion", DOMINION, "deck-building", 40, "ismcts:iterations=10:cap=20"),
    *_rows("dominion", DOMINION, "deck-building", 400, "random"),
    _vs("dominion", DOMINION, "deck-building", 20, "ismcts:iterations=10:cap=20", "bigmoney"),
    _vs("dominion", DOMINION, "deck-building", 10, "ismcts:iterations=50:cap=200", "bigmoney"),
    _vs("dominion", DOMINION, "deck-building", 400, "random", "bigmoney"),
]


# ------------------------------------------------------------------ Kuhn equilibrium
ONE_THIRD = 1 / 3


def aggressive_probability(seat: int, card: str, history: str, alpha: float) -> float:
    """Kuhn's equilibrium (alpha in [0, 1/3]): the probability of betting or calling.
    The same policy as tests/test_kuhn_value.py, in floats."""
    if seat == 0 and history == "":
        return {"JACK": alpha, "QUEEN": 0.0, "KING": 3 * alpha}[card]
    if seat == 0 and history == "cb":
        return {"JACK": 0.0, "QUEEN": alpha + ONE_THIRD, "KING": 1.0}[card]
    if seat == 1 and history == "c":
        return {"JACK": ONE_THIRD, "QUEEN": 0.0, "KING": 1.0}[card]
    assert seat == 1 and history == "b", history
    return {"JACK": 0.0, "QUEEN": ONE_THIRD, "KING": 1.0}[card]


#: games/kuhn_poker.rcy's betting state, as the history of actions seen by the mover
_KUHN_HISTORY = {("OPEN", 0): "", ("CHECKED", 1): "c", ("BET", 1): "b", ("BET", 0): "cb"}


class KuhnEquilibrium:
    """A textbook Kuhn equilibrium player for games/kuhn_poker.rcy (option 0 passive,
    option 1 aggressive); alpha 1/6, in the middle of the family."""

    name = "kuhn-equilibrium"

    def __init__(self, seed: int = 0, alpha: float = 1 / 6) -> None:
        self.rng = random.Random(seed)
        self.alpha = alpha

    def choose(self, view: Any, options: Any) -> int:
        (card,) = view.cards(view.seat, "iloc", "HAND")
        history = _KUHN_HISTORY[(view.strs[(-1, "STATE")], view.seat)]
        p = aggressive_probability(view.seat, card["RANK"], history, self.alpha)
        return 1 if self.rng.random() < p else 0


def make(spec: str, seed: int) -> Any:
    """An agent from a make_agent spec, or the Kuhn equilibrium (not a built-in agent)."""
    if spec == "kuhn-equilibrium":
        return KuhnEquilibrium(seed)
    return make_agent(spec, seed)


# ------------------------------------------------------------------ measuring
@dataclass
class Measured:
    """A row's figures, as the table and ``--json`` show them."""

    label: str
    family: str
    agent: str
    opponent: str
    games: int
    players: int
    completed: int
    share: float
    share_low: float
    share_high: float
    random_share: float
    standing: float  # mean share of the other seats finished ahead of (random: 0.5)
    standing_half_width: float
    mean_score: float
    score_half_width: float
    seconds_per_game: float
    per_seat: list[float] = field(default_factory=list)  # mean credit per seat
    per_seat_score: list[float] = field(default_factory=list)  # mean score per seat


def wilson(share: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a share over n games (a half credit counts as a
    half success: close enough for intervals of win rates)."""
    if n == 0:
        return 0.0, 1.0
    denom = 1 + z * z / n
    centre = (share + z * z / (2 * n)) / denom
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_and_half_width(values: list[float]) -> tuple[float, float]:
    """The mean and the half width of its normal 95% interval."""
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in values) / max(1, n - 1))
    return mean, 1.96 * sd / math.sqrt(n)


def play(row: Row, seed: int) -> tuple[int, list[tuple[int, Any, float]]]:
    """Play the row's games; the agent takes seat g mod players in game g.  Returns the
    number of players and, per game, (the agent's seat, the result, its standing)."""
    master = load_game(row.path).master()
    players = master.game.nplayers
    games = []
    for g in range(row.games):
        s, seat = seed + g, g % players
        seeds = agent_seeds(s, players)
        agents = [make(row.opponent, seeds[p]) for p in range(players)]
        agents[seat] = make(row.agent, seeds[seat])
        result, st = play_game(master, agents, s)
        games.append((seat, result, standings(master, st)[seat]))
    return players, games


def per_seat(players: int, games: list[tuple[int, Any, float]], what: str) -> list[float]:
    """The mean of the agent's ``credits`` or ``scores`` in each seat it took."""
    out = []
    for p in range(players):
        values = [getattr(r, what)[p] for seat, r, _ in games if seat == p]
        out.append(round(sum(values) / len(values), 4) if values else 0.0)
    return out


def measure(row: Row, seed: int) -> Measured:
    """Play a row and sum it up."""
    start = time.perf_counter()
    players, games = play(row, seed)
    seconds = (time.perf_counter() - start) / row.games
    credits = [r.credits[seat] for seat, r, _ in games]
    share = sum(credits) / len(credits)
    low, high = wilson(share, len(credits))
    standing, standing_half = mean_and_half_width([st for _, _, st in games])
    score, score_half = mean_and_half_width([r.scores[seat] for seat, r, _ in games])
    return Measured(
        label=row.label,
        family=row.family,
        agent=row.agent,
        opponent=row.opponent,
        games=row.games,
        players=players,
        completed=sum(r.completed for _, r, _ in games),
        share=round(share, 4),
        share_low=round(low, 4),
        share_high=round(high, 4),
        random_share=round(1 / players, 4),
        standing=round(standing, 4),
        standing_half_width=round(standing_half, 4),
        mean_score=round(score, 4),
        score_half_width=round(score_half, 4),
        seconds_per_game=round(seconds, 4),
        per_seat=per_seat(players, games, "credits"),
        per_seat_score=per_seat(players, games, "scores"),
    )


# ------------------------------------------------------------------ output
def table(results: list[Measured]) -> str:
    head = (
        f"{'game':16} {'agent':34} {'vs':16} {'n':>5} {'share':>6} {'95% interval':>13} "
        f"{'rand':>5} {'standing':>12} {'score':>14} {'s/game':>7}"
    )
    lines = [head, "-" * len(head)]
    for m in results:
        lines.append(
            f"{m.label:16} {m.agent:34} {m.opponent:16} {m.games:>5} {m.share:>6.3f} "
            f"{m.share_low:>6.3f}-{m.share_high:<6.3f} {m.random_share:>5.2f} "
            f"{m.standing:>5.3f}±{m.standing_half_width:<6.3f} "
            f"{m.mean_score:>+7.3f}±{m.score_half_width:<6.3f} {m.seconds_per_game:>7.3f}"
        )
    return "\n".join(lines)


def note(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def selected_rows(args: argparse.Namespace) -> list[Row]:
    if args.game:
        return [
            Row(Path(g).stem, Path(g), a, args.games or 100, args.opponent)
            for g in args.game
            for a in args.agent or ["ismcts", "pimc"]
        ]
    rows = DEFAULT_ROWS
    if args.only:
        wanted = set(args.only.split(","))
        rows = [r for r in rows if r.label in wanted]
    if args.games:
        rows = [Row(r.label, r.path, r.agent, args.games, r.opponent, r.family) for r in rows]
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", help="comma-separated row labels of the default rows")
    ap.add_argument("--game", action="append", help="a game file (instead of the defaults)")
    ap.add_argument("--agent", action="append", help="an agent spec for --game rows")
    ap.add_argument("--opponent", default="random", help="the other seats, for --game rows")
    ap.add_argument("--games", type=int, help="games per row (overrides the defaults)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()

    results = []
    for row in selected_rows(args):
        if not row.path.is_file():
            note(f"skipped {row.label}: {row.path} not found")
            continue
        note(f"{row.label}: {row.agent} vs {row.opponent}, {row.games} games ...")
        results.append(measure(row, args.seed))
        note(table(results[-1:]).splitlines()[-1])
    if args.json:
        print(json.dumps({"seed": args.seed, "rows": [asdict(m) for m in results]}, indent=2))
    else:
        print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
