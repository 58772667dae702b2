"""What Chapel adds to scripted bots: each bot against its own twin that also opens
Chapel and trashes with it (issue 54: "Chapel in the report's top five").

Why
    The community rates Chapel among the two best base cards; no model of ours buys it,
    and the report's adaptation, pushed to buy it, learns to buy it late and loses.  Is
    that the models' weakness, or does Chapel add little to the play we can script?  The
    simulators' answer is a two-card bot: Dominiate's ChapelWitch ("one of the most
    powerful two-card strategies there is") opens Chapel, buys one Witch, trashes Curses,
    Estates and Coppers while its Treasures are worth more than $4, and otherwise plays
    Big Money.

What it measures
    For each partner strategy (Big Money Ultimate, Smithy, Militia, Laboratory, one
    Witch), the bot without Chapel against the same bot with a Chapel opening (bought at
    $2-$3 on one of its first two turns), in ``--games`` two-player games, seats rotated,
    on one kingdom holding Chapel and every partner.  Two ways to trash:

    - ``down``: ChapelWitch's rule (Curses; Estates while more than four Provinces are
      left; Coppers while the Treasures owned are worth more than $4);
    - ``junk``: the built-in bots' answer (Curses and Estates only).

    The win rate added is the Chapel twin's win share less 1/2, as the card report's is
    (a player against itself without the card), with Wilson's 95% interval.  One line
    more: ChapelWitch against Double Witch, the best Witch bot we ship.

Usage (from the repository root; about 5 minutes on two cores at the default 3,000 games)
    python benchmarks/chapel_bots.py --json benchmarks/results/DATE-chapel-bots.json
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "games" / "dominion.rcy"
#: Chapel and every partner, with five cards no bot here buys.
KINGDOM = "CHAPEL,WITCH,SMITHY,MILITIA,LABORATORY,CELLAR,MOAT,MERCHANT,WORKSHOP,VASSAL"

#: Big Money Ultimate's rules around a partner's (agents/scripted/bots/bmu.toml).
GREEN = [
    '{ card = "PROVINCE", if = "money > 18" }',
    '{ card = "DUCHY", if = "left(PROVINCE) <= 4" }',
    '{ card = "ESTATE", if = "left(PROVINCE) <= 2" }',
    '{ card = "GOLD" }',
    '{ card = "DUCHY", if = "left(PROVINCE) <= 6" }',
]
#: Each partner: the card it plays, and its buy rule.
PARTNERS: dict[str, tuple[str, str]] = {
    "bmu": ("", ""),
    "smithy": ("SMITHY", '{ card = "SMITHY", if = "count(SMITHY) < treasures / 11" }'),
    "militia": (
        "MILITIA",
        '{ card = "MILITIA", if = "count(MILITIA) < treasures / 4 and left(PROVINCE) > 4" }',
    ),
    "laboratory": ("LABORATORY", '{ card = "LABORATORY", if = "left(PROVINCE) > 4" }'),
    "witch": ("WITCH", '{ card = "WITCH", if = "count(WITCH) == 0" }'),
}
#: Dominiate's ChapelWitch opening: Chapel with $2-$3 on one of the first two turns.
CHAPEL_BUY = '{ card = "CHAPEL", if = "coins <= 3 and count(CHAPEL) == 0 and turn <= 2" }'
TRASH = {
    "down": '["CURSE", { card = "ESTATE", if = "left(PROVINCE) > 4" }, '
    '{ card = "COPPER", if = "money > 4" }]',
    "junk": '"trash_junk"',
}


def bot(partner: str, trash: str | None) -> str:
    """The TOML of ``partner``'s bot, with a Chapel opening trashing by ``trash``."""
    card, rule = PARTNERS[partner]
    play = [c for c in (card, "CHAPEL" if trash else "") if c]
    green = GREEN
    if partner == "witch":  # ChapelWitch greens as Double Witch does: Provinces once it has Gold
        green = ['{ card = "PROVINCE", if = "count(GOLD) > 0" }', *GREEN[1:]]
    # ChapelWitch takes its Witch before anything but a Province; the others after Gold
    at = 1 if partner == "witch" else 4
    rules = [*green[:at], *([rule] if rule else []), *green[at:]]
    rules += [CHAPEL_BUY] if trash else []
    rules += ['{ card = "SILVER" }']
    name = f"{'chapel-' if trash else ''}{partner}{'-' + trash if trash else ''}"
    lines = [f'name = "{name}"', f"play = {json.dumps(play)}", "buy = ["]
    lines += [f"    {r}," for r in rules] + ["]"]
    if trash:
        lines += ["[situations]", f"CHAPEL-TRASH = {TRASH[trash]}"]
    return "\n".join(lines) + "\n"


def match(first: Path, second: str, games: int, seed: int) -> dict:
    """``first`` against ``second``: first's win share and interval (``simulate --json``)."""
    command = [sys.executable, "-m", "cardlang", "simulate", str(GAME), "--json", "--quiet"]
    command += ["--agents", f"{first},{second}", "--rotate-seats", "--games", str(games)]
    command += ["--seed", str(seed), f"--param=kingdom={KINGDOM}"]
    out = subprocess.run(command, cwd=ROOT, check=True, capture_output=True, text=True)
    result = json.loads(out.stdout)
    share = result["strength"][str(first)]  # the win share with its Wilson interval
    chapel = result["cards"]["by_agent"][str(first)]["cards"].get("CHAPEL", {})
    return {
        "games": share["games"],
        "share": round(share["share"], 4),
        "interval": [round(share["ci_low"], 4), round(share["ci_high"], 4)],
        "chapel_bought_share": chapel.get("bought_share", 0.0),
        "chapel_plays_per_game": chapel.get("plays_per_game", 0.0),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=3000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", type=Path, required=True)
    args = p.parse_args(argv)
    rows = []
    started = time.time()
    with tempfile.TemporaryDirectory() as folder:
        files: dict[tuple[str, str | None], Path] = {}
        for partner in PARTNERS:
            for trash in (None, *TRASH):
                files[partner, trash] = Path(folder) / f"{partner}-{trash or 'none'}.toml"
                files[partner, trash].write_text(bot(partner, trash))
        pairs = [(p, t, str(files[p, None])) for t in TRASH for p in PARTNERS]
        pairs.append(("witch", "down", "double-witch"))
        for partner, trash, against in pairs:
            figures = match(files[partner, trash], against, args.games, args.seed)
            against_name = against if against == "double-witch" else f"{partner} without Chapel"
            row = {"partner": partner, "trash": trash, "against": against_name, **figures}
            row["win_rate_added"] = round(figures["share"] - 0.5, 4)
            rows.append(row)
            print(
                f"chapel+{partner:10s} {trash:4s} vs {against_name:28s} "
                f"{figures['share']:.3f} ({figures['interval'][0]:.3f}-"
                f"{figures['interval'][1]:.3f})",
                flush=True,
            )
    result = {
        "what": __doc__.split("\n\n")[0].replace("\n", " "),
        "kingdom": KINGDOM,
        "games_each": args.games,
        "seed": args.seed,
        "bots": {f"{p}-{t}": bot(p, t) for p in PARTNERS for t in (None, *TRASH)},
        "rows": rows,
        "cpu_seconds": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime, 1),
        "wall_seconds": round(time.time() - started, 1),
    }
    args.json.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
