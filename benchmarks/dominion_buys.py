"""What a Dominion agent buys, turn by turn, beside another (issue 30: "report what the
agent does differently").

What it measures
    ``--games`` two-player games of ``--agent`` against ``--against`` (seats rotated,
    ``cardlang simulate --db``), each replayed from its records: every decision's label
    as the game file writes it ("Buy Smithy ($4)"), the buys kept.  Per agent and per
    stretch of its own turns (1-4, 5-8, ... ``--stretch``), the mean number of each card
    bought per game (a game that ended before a stretch counts 0 there), and the agent's
    win share.  A table per agent, then the cards whose means differ most; ``--json``.

Usage (from the repository root)
    python benchmarks/dominion_buys.py --agent neural:model=models/dominion-2p \\
        --against smithy --games 400 --json benchmarks/results/DATE-dominion_buys.json
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from cardlang import load_game
from cardlang.language.params import parse_param_args
from cardlang.runs.store import RunStore

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "games" / "dominion.rcy"


def record(db: Path, args: argparse.Namespace) -> None:
    command = [sys.executable, "-m", "cardlang", "simulate", str(GAME), "--db", str(db)]
    command += ["--agents", f"{args.agent},{args.against}", "--rotate-seats", "--quiet"]
    command += ["--games", str(args.games), "--seed", str(args.seed)]
    command += [f"--param={p}" for p in args.param]
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)


def buys(db: Path, params: dict[str, str]) -> tuple[dict[str, Any], dict[str, list[float]]]:
    """Per agent: {stretch: {card: total bought}}, and its credits per game."""
    game = load_game(str(GAME), params=params)
    bought: dict[str, dict[int, dict[str, float]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(float))
    )
    credits: dict[str, list[float]] = defaultdict(list)
    with RunStore.open(db, create=False) as store:
        for row in store.listing():
            stored = store.game(row[0])
            master = game.master(stored.limits)
            st = master.new_game(stored.seed)
            n = st.nplayers
            for seat, index, _ in store.choices(stored.id):
                option = master.legal_options(st)[index]
                label = game.option_text(st, option, st.pending, mover=seat)
                if label.startswith("Buy "):
                    card = label[4:].split(" ($")[0]
                    own_turn = (st.turns + n - 1) // n
                    bought[stored.agents[seat]][own_turn][card] += 1
                master.apply(st, index)
            result = master.result(st)
            for seat, agent in enumerate(stored.agents):
                credits[agent].append(result.credits[seat])
    return bought, credits


def table(bought: dict[int, dict[str, float]], games: int, stretch: int) -> dict[str, list[float]]:
    """card -> mean bought per game in each stretch of turns."""
    last = max(bought, default=1)
    stretches = (last + stretch - 1) // stretch
    rows: dict[str, list[float]] = defaultdict(lambda: [0.0] * stretches)
    for turn, cards in bought.items():
        for card, count in cards.items():
            rows[card][(turn - 1) // stretch] += count / games
    return dict(rows)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--agent", required=True)
    p.add_argument("--against", default="smithy")
    p.add_argument("--games", type=int, default=400)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--stretch", type=int, default=4, help="turns per column (4)")
    p.add_argument("--columns", type=int, default=5, help="columns shown (5; the last: the rest)")
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args()
    params = parse_param_args(args.param)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "buys.sqlite"
        record(db, args)
        bought, credits = buys(db, params)
    document: dict[str, Any] = {"settings": vars(args) | {"json": str(args.json)}, "agents": {}}
    for agent in (args.agent, args.against):
        games = len(credits[agent])
        rows = table(bought[agent], games, args.stretch)
        share = sum(credits[agent]) / max(games, 1)
        document["agents"][agent] = {"games": games, "win_share": share, "buys": rows}
        print(f"\n{agent}: {games} games, win share {share:.3f}; mean buys per game")
        print(_render(rows, args.stretch, args.columns))
    print("\nlargest differences (agent minus opponent, whole game):")
    mine = {c: sum(v) for c, v in document["agents"][args.agent]["buys"].items()}
    theirs = {c: sum(v) for c, v in document["agents"][args.against]["buys"].items()}
    gaps = {c: mine.get(c, 0.0) - theirs.get(c, 0.0) for c in set(mine) | set(theirs)}
    for card, gap in sorted(gaps.items(), key=lambda kv: -abs(kv[1]))[:8]:
        print(f"  {card:<28} {gap:+.2f}")
    if args.json:
        args.json.write_text(json.dumps(document, indent=2) + "\n")
    return 0


def _render(rows: dict[str, list[float]], stretch: int, columns: int) -> str:
    heads = [f"turns {k * stretch + 1}-{(k + 1) * stretch}" for k in range(columns - 1)]
    heads.append(f"turns {(columns - 1) * stretch + 1}+")
    lines = [f"  {'card':<28}" + "".join(f"{h:>13}" for h in heads)]
    order = sorted(rows, key=lambda c: -sum(rows[c]))
    for card in order:
        values = rows[card][: columns - 1] + [sum(rows[card][columns - 1 :])]
        values += [0.0] * (columns - len(values))
        lines.append(f"  {card:<28}" + "".join(f"{v:>13.2f}" for v in values))
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
