"""Shared test fixtures: where the games are, where records go, --regen-golden and --engine.

The CardStock corpus is read from ``../shared/cardstock`` (next to the project), or from
the folder named by the environment variable ``CARDLANG_CORPUS``.  When it is absent the
corpus tests are skipped with a reason naming that folder, and the summary says so.
The records that commands keep by default go to a temporary CARDLANG_HOME for the whole
session (``records_home``), never into the real home.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from cardlang.engine.gamemaster import RECURSION_FLOOR

# One OpenMP thread a test worker (torch reads it when first imported): the workers fill
# the cores already, and two workers each spinning two torch threads on two cores ran a
# card report's games 14 times slower (5 s alone, 70 s beside another).
os.environ.setdefault("OMP_NUM_THREADS", "1")

# The Python engine raises the interpreter's recursion limit when it makes its first
# game (engine/gamemaster.py: RECURSION_FLOOR); raised here first, so that hypothesis
# does not see it change in the middle of a test and warn.
sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_FLOOR))

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"
CORPUS = (
    Path(os.environ["CARDLANG_CORPUS"]).expanduser().resolve()
    if os.environ.get("CARDLANG_CORPUS")
    else ROOT.parent / "shared" / "cardstock"
)
CORPUS_PRESENT = CORPUS.is_dir()

#: The skip reason of every test that needs the corpus while it is absent; the terminal
#: summary counts the skipped tests by it.
CORPUS_MISSING = f"CardStock corpus not found at {CORPUS} (set CARDLANG_CORPUS to its folder)"

#: Mark for a test that needs the corpus.
needs_corpus = pytest.mark.skipif(not CORPUS_PRESENT, reason=CORPUS_MISSING)

#: The corpus README: "65 game descriptions written in RECYCLE 0.5.10".
CORPUS_FILE_COUNT = 65

#: Files the corpus README marks as broken or incomplete: they may end with a positioned
#: error (at check time or at run time) instead of completing.
CORPUS_BROKEN = {
    "ContinuousPairs4",
    "GoFish2",
    "LostCities2",
    "Rummy2",
    "Comet3",
    "Comet5",
    "Coloretto4",
    "Scopa2",
    "PageOne3",
}

#: Of those, the files cardlang rejects at check time (with positioned errors); every
#: other corpus file must check clean.  A file that starts to check clean must be taken
#: out of this set (test_conformance says so).
CORPUS_FAILS_CHECK = {
    "ContinuousPairs4",  # a variable bound to a list of pairs is used as a location
    "Rummy2",  # a sketch: location DRAWN is read but never filled
}


def needs_native_default() -> pytest.MarkDecorator:
    """Mark for a test of what steps games inside the native engine (PPO, ``VectorEnv``
    in the engine) on games loaded without naming an engine: skipped where those play
    on Python, because the native engine is not built or the run chose ``--engine
    python``.  Called at a test module's import, after ``pytest_configure`` chose."""
    from cardlang.engine.engines import default_engine
    from cardlang.engine.native import native_available

    if not native_available():
        return pytest.mark.skip(reason="the native engine is not built")
    chosen = default_engine()
    return pytest.mark.skipif(
        chosen != "native", reason=f"steps games inside the native engine; this run plays {chosen}"
    )


def own_games() -> list[Path]:
    return sorted(GAMES.glob("*.rcy"))


def corpus_games() -> list[Path]:
    return sorted(CORPUS.glob("*.rcy")) if CORPUS_PRESENT else []


def corpus_params(paths: list[Path] | None = None, id_: str = "cardstock/absent") -> list:
    """Parameters for a test over corpus files: ``paths`` (default: all of them) or, when
    the corpus is absent, one parameter that is skipped with ``CORPUS_MISSING``, so that
    the run reports the tests it could not run instead of dropping them silently."""
    if CORPUS_PRESENT:
        return list(corpus_games() if paths is None else paths)
    return [pytest.param(None, marks=pytest.mark.skip(reason=CORPUS_MISSING), id=id_)]


def pytest_configure(config: pytest.Config) -> None:
    """A suite started in the background of a non-interactive shell (``cmd &``) begins
    with Ctrl-C ignored, and every subprocess it starts would inherit that: the tests that
    press Ctrl-C on a `cardlang` subprocess would wait for an interrupt that never comes.
    A handler of our own is not inherited across exec: the subprocesses get the default."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    engine = config.getoption("--engine")
    if engine is not None:
        play_every_game_on(engine)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto`` (the README's command): a worker per core, and one more.  Many tests
    spend their time waiting rather than computing (jailed agents' time limits in the
    tournaments, servers, signals sent to a command, killed and resumed runs), and the
    extra worker computes while they wait."""
    return len(os.sched_getaffinity(0)) + 1


def play_every_game_on(engine: str) -> None:
    """``pytest --engine E``: every game a test loads without naming an engine plays on
    E.  The suite is its own edge, as the command line is: it sets the library's default
    (nothing below the CLI reads the environment for it) and ``CARDLANG_ENGINE`` for the
    ``cardlang`` subprocesses the tests start (the CLI reads it there)."""
    from cardlang.engine import engines

    chosen = engines.check_engine(engine)
    engines.default_engine = lambda: chosen
    os.environ["CARDLANG_ENGINE"] = chosen


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The tests marked ``early(SECONDS)`` go first, the longest first: pytest-xdist hands
    tests out in this order, one to each worker in turn, so the longest tests start at
    once on different cores and the short ones fill the gaps, instead of one core running
    a long test alone at the end of the run.  SECONDS is what the test took when last
    measured (docs/testing.md); the rest keep their order."""

    def seconds(item: pytest.Item) -> float:
        mark = item.get_closest_marker("early")
        return float(mark.args[0]) if mark is not None and mark.args else 0.0

    items.sort(key=lambda item: -seconds(item))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--regen-golden",
        action="store_true",
        help="rewrite tests/golden/*.txt from the current interpreter",
    )
    parser.addoption(
        "--engine",
        choices=("python", "native"),
        default=None,
        help="the engine games play on when a test names none (default: native where built)",
    )


@pytest.fixture(scope="session", autouse=True)
def records_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """CARDLANG_HOME, for the whole session, in a temporary folder: the commands that
    record by default (``simulate --keep``, ``play``, ``heuristics``, ...) must never
    write into the real home.  Set in ``os.environ`` itself, so that the subprocesses
    the tests start inherit it; a test that moves it uses ``monkeypatch.setenv``."""
    home = tmp_path_factory.mktemp("cardlang-home")
    saved = os.environ.get("CARDLANG_HOME")
    os.environ["CARDLANG_HOME"] = str(home)
    yield home
    if saved is None:
        os.environ.pop("CARDLANG_HOME", None)
    else:
        os.environ["CARDLANG_HOME"] = saved


@pytest.fixture
def regen_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--regen-golden"))


def pytest_report_header(config: pytest.Config) -> list[str]:
    from cardlang.engine.engines import default_engine

    engine = f"engine: {default_engine()} (when a test names none)"
    if CORPUS_PRESENT:
        return [f"cardstock corpus: {CORPUS} ({len(corpus_games())} games)", engine]
    return [f"cardstock corpus: absent ({CORPUS}); corpus tests are skipped", engine]


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:  # type: ignore[no-untyped-def]
    """Say loudly that the corpus tests did not run (the header alone is easy to miss)."""
    if CORPUS_PRESENT:
        return
    skipped = [
        r for r in terminalreporter.stats.get("skipped", []) if CORPUS_MISSING in _skip_reason(r)
    ]
    if skipped:
        n = len(skipped)
        terminalreporter.write_line(
            f"corpus tests skipped: {CORPUS} not found ({n} test{'s' if n != 1 else ''}); "
            "set CARDLANG_CORPUS to the CardStock corpus folder to run them",
            yellow=True,
            bold=True,
        )


@pytest.fixture
def workdir() -> Iterator[Path]:
    """A folder any user may write: the jail and tournament tests run some commands as an
    ordinary user (setpriv), whose records and files go there."""
    path = Path(tempfile.mkdtemp(prefix="cardlang-shared-"))
    path.chmod(0o777)
    yield path
    shutil.rmtree(path, ignore_errors=True)
