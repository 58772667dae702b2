"""Small helpers the tests share: play a game with seeded random choices."""

from __future__ import annotations

import contextlib
import io
import os
import random
import subprocess
import sys
import time
from pathlib import Path

from cardlang import Gamemaster, Gamestate, load_game
from cardlang.engine.gamemaster import GameResult


def play_random(
    master: Gamemaster, seed: int, *, record: bool = False, check_each_step: bool = False
) -> tuple[GameResult, Gamestate]:
    st = master.new_game(seed, record=record)
    rng = random.Random(seed)
    while not st.is_over:
        options = master.legal_options(st)
        master.apply(st, rng.randrange(len(options)))
        if check_each_step:
            assert_conserved(st)
    return master.result(st), st


def assert_conserved(st: Gamestate) -> None:
    """Every card created is in exactly one real location, and nowhere else."""
    placed = [c for key, zone in st.zones.items() if key[1] != "mem" for c in zone]
    assert sorted(placed) == list(range(len(st.cards))), "cards were lost or duplicated"
    for key, zone in st.zones.items():
        if key[1] != "mem":
            for c in zone:
                assert st.card_zone[c] == key, f"card {c} is in {key} but recorded elsewhere"


def game_text(
    body: str,
    players: int = 2,
    deck: str = "(deck (RANK (A, B, C)) (SUIT (X, Y)))",
    scoring: str = "(scoring max 0)",
) -> str:
    """A small game around ``body`` (the flow), for semantics tests."""
    return f"""(game
 (setup (create players {players})
        (create deck (game vloc STOCK) {deck}))
 {body}
 {scoring})"""


def load_text(text: str):  # type: ignore[no-untyped-def]
    return load_game(text=text, name="test.rcy")


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """``cardlang ARGS...`` in a subprocess from the repository root, as a user runs it
    (``stdin``: what the user types)."""
    return subprocess.run(
        [sys.executable, "-m", "cardlang", *args],
        capture_output=True,
        text=True,
        input=stdin,
        cwd=Path(__file__).resolve().parent.parent,
        timeout=300,
    )


def run_main(*args: str, cwd: str | Path | None = None) -> subprocess.CompletedProcess[str]:
    """``cardlang ARGS...`` in this process, from ``cwd`` (default: the repository root),
    with nothing on stdin: what ``run_cli`` gives, without starting an interpreter and
    importing the package (and torch) again.  The environment and the working folder
    are restored."""
    from cardlang.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    saved_env, saved_cwd, saved_stdin = dict(os.environ), os.getcwd(), sys.stdin
    try:
        os.chdir(cwd if cwd is not None else Path(__file__).resolve().parent.parent)
        sys.stdin = io.StringIO("")
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else 1
    finally:
        sys.stdin = saved_stdin
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    return subprocess.CompletedProcess(["cardlang", *args], code, out.getvalue(), err.getvalue())


def record_games(db: Path, game: Path, *, agents: str, games: int, seed: int) -> Path:
    """Play and record a batch (``cardlang simulate --db``); returns the records' path."""
    done = run_cli(
        "simulate",
        str(game),
        "--agents",
        agents,
        "--games",
        str(games),
        "--seed",
        str(seed),
        "--db",
        str(db),
        "--quiet",
    )
    assert done.returncode == 0, done.stderr
    return db


def train_until_killed(command: list[str], out: Path, rounds: int, timeout: float = 120) -> int:
    """Start ``cardlang train`` (``command``), ``kill -9`` it once its metrics hold
    ``rounds`` rounds (the file is written beside and renamed, so it is never half
    there) or it has stopped, and return the round its checkpoint holds."""
    from cardlang.agents.neural.model import read_checkpoint  # torch: only where trained

    root = Path(__file__).resolve().parent.parent
    proc = subprocess.Popen(command, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    metrics = out / "metrics.jsonl"
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and proc.poll() is None:
            if metrics.exists() and len(metrics.read_text().splitlines()) >= rounds:
                break
            time.sleep(0.1)
        proc.kill()
    finally:
        proc.wait()
    return int(read_checkpoint(out / "checkpoint.pt")["training"]["round"])


def with_rounds(command: list[str], rounds: int, out: Path | None = None) -> list[str]:
    """``command`` with ``--rounds`` (and ``--out``, when given) changed."""
    changed = list(command)
    changed[changed.index("--rounds") + 1] = str(rounds)
    if out is not None:
        changed[changed.index("--out") + 1] = str(out)
    return changed


#: A kingdom of ten cards whose first, VILLAG, has no card kind (see dominion_missing_a_card).
MISSING_CARD_KINGDOM = "VILLAG,SMITHY,CELLAR,MARKET,MERCHANT,MILITIA,MINE,MOAT,REMODEL,WORKSHOP"


def with_kingdom_cards(text: str, *names: str) -> str:
    """A copy of games/dominion.rcy's ``text`` whose 'ALL-KINGDOM-CARDS lists ``names``
    too (language/card_pool.py, which adds its made-up cards so)."""
    from cardlang.language.card_pool import with_kingdom_cards as listed

    return listed(text, *names)


def dominion_missing_a_card(folder: Path) -> Path:
    """games/dominion.rcy with VILLAG (a misspelt Village) among its kingdom cards but no
    card kind of that name: ``--param kingdom=`` accepts it, and every game with it in the
    kingdom fails at its setup with a rule error (did you mean VILLAGE?)."""
    text = (Path(__file__).resolve().parent.parent / "games" / "dominion.rcy").read_text()
    path = folder / "dominion-villag.rcy"
    path.write_text(with_kingdom_cards(text, "VILLAG"))
    return path


def without_kingdom_check(text: str) -> str:
    """games/dominion.rcy's ``text`` without its ``(parameter-values 'KINGDOM ...)``: a
    test position may then have a pile of every kingdom card at once (26, more than a
    kingdom of the rules)."""
    start = text.index("(parameter-values 'KINGDOM")
    depth, end = 0, start
    for end in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[end], 0)
        if depth == 0:
            break
    return text[:start] + text[end + 1 :]
