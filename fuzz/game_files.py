"""Coverage-guided fuzzing of game files with Atheris (libFuzzer for Python).

Where hypothesis writes well-typed programs (tests/test_fuzz_programs.py), this mutates
the bytes of real game files, guided by which lines of the front end (the Lark parser,
the checker, the compiler) and of the Python engine each input reaches: it finds the
inputs a grammar of well-typed programs never writes.  Each input must either be refused
with a GameFileError (a positioned diagnostic) or load; a game that loads is played a
few decisions on both engines, which must agree on the event log, the options and the
result, rule errors included.  Anything else (an internal exception, a difference
between the engines) is a crash: libFuzzer stops and writes the input to crash-<hash>.

    pip install atheris
    python fuzz/game_files.py -runs=5000 -seed=1 -max_len=32768 CORPUS_DIR
    python fuzz/game_files.py crash-...                  # replay one input

CORPUS_DIR starts as copies of games/*.rcy (``--seed-corpus DIR`` copies them there);
libFuzzer adds the inputs that reach new code.  tests/test_fuzz_game_files.py runs a
short, seeded run in the suite; docs/internals.md ("Fuzzing") gives a long run's figures.
The native engine is compiled without libFuzzer's coverage (g++ has none): the engine
side is reached through the differential check, and the sanitizers (native/sanitize.sh)
watch it.
"""

from __future__ import annotations

import random
import shutil
import sys
from pathlib import Path

import atheris

from cardlang import load_game
from cardlang.engine.gamemaster import Limits
from cardlang.engine.native import native_available
from cardlang.errors import GameFileError, UsageError

LIMITS = Limits(max_decisions=30, max_steps=5_000, max_work=200_000)
GAMES = Path(__file__).resolve().parent.parent / "games"
#: seeds larger than this make every mutation slow to compile (dominion.rcy)
MAX_SEED_BYTES = 16_384


def play(game: object, engine: str, seed: int) -> tuple[object, ...]:
    """A few seeded random decisions: the event log, the option counts, the result."""
    master = game.master(LIMITS, engine=engine)  # type: ignore[attr-defined]
    st = master.new_game(seed, record=True)
    rng = random.Random(seed)
    counts = []
    while not st.is_over:
        options = master.legal_options(st)
        counts.append(len(options))
        master.apply(st, rng.randrange(len(options)))
    result = master.result(st)
    error = result.error
    where = None if error is None else (error.message, error.span.line, error.span.column)
    return tuple(st.log), tuple(counts), result.end_reason, result.scores, where


def test_one_input(data: bytes) -> None:
    text = data.decode("utf-8", "replace")
    try:
        game = load_game(text=text, name="fuzz.rcy")
    except (GameFileError, UsageError):
        return  # refused with a message: what a bad file should get
    python = play(game, "python", 1)
    if native_available():
        native = play(game, "native", 1)
        if native != python:
            raise AssertionError(f"the engines differ:\npython {python[2:]}\nnative {native[2:]}")


def seed_corpus(folder: Path) -> None:
    """Copy our game files (the small ones) into ``folder``, libFuzzer's corpus."""
    folder.mkdir(parents=True, exist_ok=True)
    for path in sorted(GAMES.glob("*.rcy")):
        if path.stat().st_size <= MAX_SEED_BYTES:
            shutil.copy(path, folder / path.name)


def main(argv: list[str]) -> None:
    if "--seed-corpus" in argv:
        at = argv.index("--seed-corpus")
        seed_corpus(Path(argv[at + 1]))
        del argv[at : at + 2]
    # cardlang imports much of itself when it first loads a game: load one, then have
    # every function loaded so far report its coverage (the parser's, the checker's ...)
    test_one_input((GAMES / "war.rcy").read_bytes())
    atheris.instrument_all()
    atheris.Setup(argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv)
