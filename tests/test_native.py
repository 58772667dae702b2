"""The native engine (issue 13) is held to the Python engine, the reference.

For every game file (ours, and the CardStock corpus when ../shared/cardstock is there),
seeded random play gives the same event log, the same options (their action keys, in
order), the same labels and the same result under both engines; a rule error is the
same message at the same place, turn and seed.  Hypothesis picks the game files and the
moves, so the differential test is also a fuzzer of the VM.
"""

from __future__ import annotations

import dataclasses
import random
import runpy
from pathlib import Path
from typing import Any

import pytest
from conftest import CORPUS_FAILS_CHECK, corpus_games, own_games
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardlang import load_game
from cardlang.compiler.ir import OPS, TYPES
from cardlang.engine.gamemaster import Limits
from cardlang.engine.native import native_available
from cardlang.engine.state import splitmix64
from cardlang.information.vocabulary import option_key
from tests.helpers import game_text, load_text

pytestmark = pytest.mark.skipif(not native_available(), reason="the native engine is not built")

ROOT = Path(__file__).resolve().parent.parent
OURS = own_games()
THEIRS = corpus_games()
#: every game file that checks: the corpus's that fail to are named in conftest (and
#: test_conformance checks that exactly those fail), so none is compiled to find out
LOADABLE = OURS + [p for p in THEIRS if p.stem not in CORPUS_FAILS_CHECK]


def play(game: Any, engine: str, seed: int, choose: Any = None, limits: Limits | None = None):
    """A seeded game with random (or given) choices: the event log, at every decision
    the mover and every option's action key and label, and the result."""
    master = game.master(limits, engine=engine)
    st = master.new_game(seed, record=True)
    rng = random.Random(seed)
    decisions = []
    while not st.is_over:
        options = master.legal_options(st)
        keys = [option_key(game, st, o, st.mover) for o in options]
        labels = [game.describe_option(st, o) for o in options]
        decisions.append((st.mover, st.turns, keys, labels))
        index = rng.randrange(len(options)) if choose is None else choose(len(options))
        master.apply(st, index)
    result = master.result(st)
    error = result.error
    where = None if error is None else (error.message, error.span, error.turn, error.seed)
    summary = (
        result.end_reason,
        result.scores,
        result.tiebreak_scores,
        result.ranks,
        result.credits,
        result.decisions,
        result.turns,
        result.team_of,
        where,
    )
    return repr(st.log), decisions, summary, st.work


def assert_same(game: Any, seed: int, **kwargs: Any) -> None:
    python = play(game, "python", seed, **kwargs)
    native = play(game, "native", seed, **kwargs)
    assert python[2] == native[2], "results differ"
    assert python[1] == native[1], "options differ"
    assert python[0] == native[0], "event logs differ"
    assert python[3] == native[3], "the games' work differs (engine/work.py)"


def test_the_ir_and_the_vm_agree_on_the_node_kinds_and_types_by_name() -> None:
    """The VM's enums are generated from OPS and TYPES at build time
    (native/generate_tables.py): the same names in the same order, not only as many."""
    from cardlang.engine.native import _native as native
    from cardlang.language import types as T

    short = {v: k for k, v in vars(T).items() if k.isupper() and isinstance(v, str)}
    assert native.OP_COUNT == len(OPS)
    assert list(native.OP_NAMES) == list(OPS)
    assert list(native.TYPE_NAMES) == [short[t] for t in TYPES]


def test_the_generated_tables_follow_ir_py(tmp_path: Path) -> None:
    """The generator reads OPS and TYPES from ir.py's text (no import: the build runs
    before the package installs) and writes one enum entry per name, in order."""
    generate = runpy.run_path(str(ROOT / "native" / "generate_tables.py"))
    ops, types = generate["tables"]((ROOT / "src/cardlang/compiler/ir.py").read_text())
    assert ops == list(OPS) and len(types) == len(TYPES)
    header = generate["header"](ops, types)
    assert header.index("O_INT,") < header.index("O_SIMULTANEOUS,") < header.index("O_COUNT")
    assert "T_ANY," in header and header.count("\n  O_") == len(OPS) + 1


def test_the_random_stream_is_the_same() -> None:
    from cardlang.engine.native import _native as native

    x = 12345
    for _ in range(5):
        assert native.splitmix64(x) == splitmix64(x)
        x = splitmix64(x)[0]


@pytest.mark.parametrize("path", OURS, ids=lambda p: p.name)
def test_our_games_play_alike_under_both_engines(path: Path) -> None:
    game = load_game(path)
    for seed in range(20):
        assert_same(game, seed)


@pytest.mark.skipif(not THEIRS, reason="../shared/cardstock is absent (GPL test data)")
@pytest.mark.parametrize("path", [p for p in LOADABLE if p in THEIRS], ids=lambda p: p.name)
def test_the_corpus_plays_alike_under_both_engines(path: Path) -> None:
    game = load_game(path)
    for seed in range(6):
        assert_same(game, seed)


SORTED_PLAY = game_text(
    """(do ((set (game points WORTH) (((RANK : A) 3) ((RANK : B) 1) ((RANK : C) 2)))
      (shuffle (game vloc STOCK))
      (all player 'P (repeat 3 (move (top (game vloc STOCK)) (top ('P iloc HAND)))))))
 (stage player (end (== (size ((current player) iloc HAND)) 0))
  (choice ((move (top (sort ((current player) iloc HAND) using (game points WORTH)))
                 (top (game vloc PILE)))
           (move (bottom (sort ((current player) iloc HAND) using (game points WORTH)))
                 (top (game vloc PILE)))
           (move (1 (sort ((current player) iloc HAND) using (game points WORTH)))
                 (top ((current player) vloc KEPT))))))""",
    scoring="(scoring max (score (top (sort (game vloc PILE) using (game points WORTH))) "
    "using (game points WORTH)))",
)


def test_a_sorted_collection_plays_alike() -> None:
    """(sort ...): the order its cards are read in, top, bottom and nth, the same on
    both engines (the checklist of tests/test_language_checklist.py found no game
    file writing it)."""
    game = load_text(SORTED_PLAY)
    for seed in range(12):
        assert_same(game, seed)


@pytest.mark.parametrize("params", [{"PLAYERS": "1"}, {"PLAYERS": "3"}, {"PLAYERS": "4"}])
def test_dominion_with_parameters_plays_alike(params: dict[str, str]) -> None:
    game = load_game(ROOT / "games" / "dominion.rcy", params=params)
    assert_same(game, 7)


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_fuzz_game_files_and_moves(data: st.DataObject) -> None:
    """Hypothesis chooses a game file, a seed and every move."""
    path = data.draw(st.sampled_from(LOADABLE), label="game")
    seed = data.draw(st.integers(0, 2**64 - 1), label="seed")
    game = load_game(path)
    moves: list[int] = []

    def choose(n: int) -> int:
        if len(moves) < 300:
            moves.append(data.draw(st.integers(0, n - 1)))
        else:  # long games: the rest by a seeded stream
            moves.append(random.Random(len(moves) + seed).randrange(n))
        return moves[-1]

    python = play(game, "python", seed, choose=choose)
    replay = iter(moves)
    native = play(game, "native", seed, choose=lambda n: next(replay))
    assert python == native


@pytest.mark.parametrize(
    "limits", [Limits(max_decisions=7), Limits(max_steps=50)], ids=["decisions", "steps"]
)
def test_cutoffs_are_the_same(limits: Limits) -> None:
    game = load_game(ROOT / "games" / "dominion.rcy")
    assert_same(game, 3, limits=limits)


# A route-claiming game: (connects ...) in guards over a loop variable, before and after
# an option's action, and (longest-path ...) and (connects ...) in the scores.
ROUTE_MAP = """(game
 (card-kind AB (FROM A) (TO B) (LENGTH 1))
 (card-kind BC (FROM B) (TO C) (LENGTH 2))
 (card-kind CA (FROM C) (TO A) (LENGTH 3))
 (card-kind CD (FROM C) (TO D) (LENGTH 4))
 (card-kind DE (FROM D) (TO E) (LENGTH 2))
 (card-kind EE (FROM E) (TO E) (LENGTH 1))
 (setup (create players 2)
   (all (AB, BC, CA, CD, DE, EE) 'K (create cards (game vloc MAP) 'K 2))
   (shuffle (game vloc MAP)))
 (stage player (end (== (size (game vloc MAP)) 0))
   (choice
     ((any (game vloc MAP) 'R
        (do (((connects ((current player) vloc ROUTES) FROM TO (attr FROM 'R) (attr TO 'R))
              (move 'R (top (game vloc DISCARD))))
             ((not (connects ((current player) vloc ROUTES) FROM TO (attr FROM 'R) (attr TO 'R)))
              (move 'R (top ((current player) vloc ROUTES))))
             ((connects ((current player) vloc ROUTES) FROM TO A E)
              (inc ((current player) sto TICKETS) 1)))))))
   (set ((current player) sto LONG)
        (longest-path ((current player) vloc ROUTES) FROM TO LENGTH)))
 (scoring max (+ ((current player) sto LONG)
                 (if (connects ((current player) vloc ROUTES) FROM TO A E) 10 0))))"""


def test_route_maps_play_alike() -> None:
    game = load_text(ROUTE_MAP)
    for seed in range(20):
        assert_same(game, seed)


# ---------------------------------------------------------------- rule errors

ERRORS = {
    "move from empty": "(do ((move (top (game vloc NOWHERE)) (top (game vloc STOCK)))))",
    "no option": "(choice (((== 1 2) (turn pass))))",
    "repeat": "(do ((repeat 2000000 (inc (game sto N) 1))))",
    "range": "(do ((all (range 0 .. 5000000) 'I (inc (game sto N) 1))))",
    "while": "(do ((while (== 1 1) (inc (game sto N)))))",
    "division": "(do ((set (game sto A) (// 5 (game sto Z)))))",
    "modulo": "(do ((set (game sto A) (% 5 (game sto Z)))))",
    "exponent": "(do ((set (game sto A) (^ 2 (- 0 1)))))",
    "position": "(do ((move ((- 0 1) (game vloc STOCK)) (top (game vloc X)))))",
    "player": "(do ((set (game sto A) (size (((+ 5 0) player) iloc HAND)))))",
    "random": "(do ((set (game sto A) (random 5 .. 2))))",
    "owner": "(do ((set (game sto A) (pid (owner (top (game vloc NOWHERE)))))))",
    "options": "(choice ((any (range 1 .. 30000) 'I (inc (game sto N) 'I))))",
    "steps": "(stage player (end (== 1 2)) (inc (game sto N) 1))",
    "cards": "(do ((all (range 0 .. 20000) 'I (create deck (game vloc MORE) "
    "(deck (RANK (A, B, C)) (SUIT (X, Y)))))))",
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_rule_errors_are_the_same(name: str) -> None:
    game = load_text(game_text(ERRORS[name]))
    python = play(game, "python", 42)
    native = play(game, "native", 42)
    assert python[2][0] in ("failed", "cutoff:steps")
    assert python == native


def test_a_game_that_grows_past_its_cards_fails_alike() -> None:
    """Cards made in play by a computed count: the game that would hold more than
    MAX_CARDS fails with the same rule error (message, span, turn, seed) in both
    engines; the checker could not count them."""
    text = """(game
 (card-kind COIN (VALUE 1))
 (setup (create players 2) (create deck (game vloc STOCK) (deck (RANK (A, B)))))
 (stage player (end (== 1 2))
   (inc (game sto N) 1)
   (choice ((create cards (game vloc BANK) COIN (* 7000 (game sto N)))
            (create cards ((current player) vloc BANK) COIN (* 9000 (game sto N))))))
 (scoring max (size ((current player) vloc BANK))))"""
    game = load_text(text)
    for seed in (1, 2, 3):
        python, native = play(game, "python", seed), play(game, "native", seed)
        assert python[2][0] == "failed" and python == native
        assert "more than a game may hold (100000 cards)" in python[2][-1][0]


def test_a_recursion_that_never_ends_fails_alike() -> None:
    text = """(game
 (define DOWN ((integer 'N)) (inc (game sto N) 1) (call DOWN (+ 'N 1)))
 (setup (create players 2) (create deck (game vloc STOCK) (deck (RANK (A, B)))))
 (do ((call DOWN 1)))
 (scoring max 0))"""
    game = load_text(text)
    python, native = play(game, "python", 1), play(game, "native", 1)
    assert python[2][0] == "failed" and python == native


# ---------------------------------------------------------------- states


def test_listing_options_leaves_the_state_as_it_was() -> None:
    game = load_game(ROOT / "games" / "hearts.rcy")
    master = game.master(engine="native")
    st = master.new_game(5, record=True)
    for _ in range(30):
        before = (st.raw.rng, st.zones, st.ints, repr(st.log))
        first = [game.describe_option(st, o) for o in master.legal_options(st)]
        st._options = None  # list again
        again = [game.describe_option(st, o) for o in master.legal_options(st)]
        assert first == again and before == (st.raw.rng, st.zones, st.ints, repr(st.log))
        master.apply(st, 0)


def test_clones_are_independent() -> None:
    game = load_game(ROOT / "games" / "dominion.rcy")
    master = game.master(engine="native")
    st = master.new_game(9, record=True)
    for _ in range(20):
        master.apply(st, 0)
    copy = st.clone()
    snapshot = (repr(st.log), st.zones, st.decisions)
    while not copy.is_over:
        master.apply(copy, len(master.legal_options(copy)) - 1)
    assert (repr(st.log), st.zones, st.decisions) == snapshot
    # and the original goes on exactly as a fresh game with the same moves would
    fresh = master.new_game(9, record=True)
    for _ in range(20):
        master.apply(fresh, 0)
    master.apply(st, 0)
    master.apply(fresh, 0)
    assert repr(st.log) == repr(fresh.log)


def test_an_option_object_from_the_list_is_accepted_and_a_foreign_one_refused() -> None:
    from cardlang.errors import UsageError

    game = load_game(ROOT / "games" / "kuhn_poker.rcy")
    master = game.master(engine="native")
    st = master.new_game(1)
    option = master.legal_options(st)[0]
    other = master.new_game(2)
    with pytest.raises(UsageError):
        master.apply(other, option)
    with pytest.raises(UsageError):
        master.apply(st, 99)
    master.apply(st, option)


# ---------------------------------------------------------------- agents in the engine


def _agent_game(
    path: Path, specs: list[str], engine: str, seed: int, limits: Limits | None = None
) -> tuple[str, Any]:
    from cardlang.agents import make_agent

    from cardlang.runs.runner import play_game

    game = load_game(path)
    agents = [make_agent(s, seed * 31 + i) for i, s in enumerate(specs)]
    result, st = play_game(game.master(limits, engine=engine), agents, seed, record=True)
    return repr(st.log), (result.scores, result.ranks, result.decisions, result.end_reason)


@pytest.mark.parametrize(
    "path, specs",
    [
        ("hearts.rcy", ["random"] * 4),
        ("dominion.rcy", ["random", "random"]),
        ("dominion.rcy", ["random", "bigmoney"]),  # a Python agent between native turns
        ("crazy_eights.rcy", ["random"] * 4),
    ],
)
def test_the_random_agent_plays_inside_the_engine_as_in_python(path: str, specs: list[str]) -> None:
    for seed in range(3):
        python = _agent_game(ROOT / "games" / path, specs, "python", seed)
        native = _agent_game(ROOT / "games" / path, specs, "native", seed)
        assert python == native


def test_a_rollout_cap_stops_the_engine_where_python_stops() -> None:
    from cardlang.agents import make_agent
    from cardlang.agents.loop import play_out

    game = load_game(ROOT / "games" / "hearts.rcy")
    logs = []
    for engine in ("python", "native"):
        master = game.master(engine=engine)
        st = master.new_game(4, record=True)
        agents = [make_agent("random", i) for i in range(4)]
        play_out(master, st, agents, ["random"] * 4, cap=17)
        logs.append((st.decisions, repr(st.log)))
    assert logs[0] == logs[1] and logs[0][0] == 17


# A bot that buys every kind of Action, so that every situation the bots answer comes up,
# with conditions that use every fact, function and operator.
_EVERY_HANDLER_BOT = """
name = "everything"
play = ["THRONE-ROOM", "VILLAGE"]
buy = [
    { card = "PROVINCE", if = "money > 15 and not (cards < 10)" },
    { card = "DUCHY", if = "left(PROVINCE) <= 4 or empty_piles >= 1" },
    { card = "GOLD", if = "coins >= 6 and buys >= 1 and actions >= 0 and turn % 2 == 0" },
    { card = "MILITIA", if = "count(MILITIA) < 1" },
    { card = "LIBRARY", if = "count(LIBRARY) < 1 and players == 2" },
    { card = "SENTRY", if = "count(SENTRY) * 2 < 1 + 1" },
    { card = "CHAPEL", if = "count(CHAPEL) < 1 and turn // 3 < 2" },
    { card = "HARBINGER", if = "count(HARBINGER) < 1" },
    { card = "ARTISAN", if = "count(ARTISAN) < 1" },
    { card = "MINE", if = "count(MINE) < 1" },
    { card = "REMODEL", if = "count(REMODEL) < 1" },
    { card = "BANDIT", if = "count(BANDIT) < 1" },
    { card = "BUREAUCRAT", if = "count(BUREAUCRAT) < 1" },
    { card = "MONEYLENDER", if = "count(MONEYLENDER) < 1" },
    { card = "POACHER", if = "count(POACHER) < 1" },
    { card = "VASSAL", if = "count(VASSAL) < 1" },
    { card = "THRONE-ROOM", if = "count(THRONE__ROOM) < 0 or count(THRONE-ROOM) < 1" },
    { card = "CELLAR", if = "count(CELLAR) < 1" },
    { card = "MOAT", if = "count(MOAT) < 2 and -treasures < 0" },
    { card = "WORKSHOP", if = "count(WORKSHOP) < 1" },
    { card = "SILVER", if = "treasures / 2 > 1" },
]
"""


def _bot_game(specs: list[Any], engine: str, seed: int, params: dict[str, str]) -> Any:
    from cardlang.runs.runner import play_game

    game = load_game(ROOT / "games" / "dominion.rcy", params=params)
    result, st = play_game(game.master(engine=engine), [s() for s in specs], seed, record=True)
    return repr(st.log), result.scores, result.decisions


# The README's tier plays each kingdom's first seed; CI's slow tier the next two (some 40 s
# of CPU a bot).
@pytest.mark.parametrize(
    "seeds",
    [
        pytest.param(range(1), id="seed0"),
        pytest.param(range(1, 3), id="seeds1-2", marks=pytest.mark.slow),
    ],
)
@pytest.mark.parametrize("bot", ["bigmoney", "bmu", "smithy", "double-witch", "everything"])
def test_the_dominion_bots_play_inside_the_engine_as_in_python(bot: str, seeds: range) -> None:
    from cardlang.agents import make_agent
    from cardlang.agents.scripted.dominion import DominionBot

    def make() -> Any:
        if bot == "everything":
            return DominionBot.from_toml(_EVERY_HANDLER_BOT, "everything.toml")
        return make_agent(bot, 1)

    kingdom = "ARTISAN,BANDIT,BUREAUCRAT,CHAPEL,LIBRARY,MILITIA,MINE,MOAT,SENTRY,THRONE-ROOM"
    for params in (
        {},
        {"KINGDOM": kingdom},
        {
            "KINGDOM": "CELLAR,HARBINGER,MONEYLENDER,POACHER,REMODEL,VASSAL,VILLAGE,WORKSHOP,SMITHY,WITCH",
            "PLAYERS": "3",
        },
    ):
        players = int(params.get("PLAYERS", "2"))
        for seed in seeds:
            specs = [make] * players
            python = _bot_game(specs, "python", seed, params)
            native = _bot_game(specs, "native", seed, params)
            assert python == native, (params, seed)


@pytest.mark.parametrize(
    "path, specs, cutoff",
    [
        ("kuhn_poker.rcy", ["ismcts:iterations=40", "pimc:determinizations=3"], None),
        (
            "hearts.rcy",
            ["ismcts:iterations=20", "random", "pimc:determinizations=2", "mcts:iterations=10"],
            None,
        ),
        # the first 60 decisions (cut off there: shuffled decks, a hand drawn from them,
        # the Python PIMC's rollouts are most of the suite's time in a whole game) ...
        ("dominion.rcy", ["pimc:determinizations=2:rollout=bmu", "bmu"], 60),
        # ... and in CI's slow tier the whole game, the late turns' bigger decks
        pytest.param(
            "dominion.rcy",
            ["pimc:determinizations=2:rollout=bmu", "bmu"],
            None,
            marks=pytest.mark.slow,
        ),
    ],
)
def test_search_agents_determinize_native_states_as_python_ones(
    path: str, specs: list[str], cutoff: int | None
) -> None:
    """Determinizations of a native state (knowledge.py: _EngineDealtSkeleton) are the Python
    engine's, card for card, so searches see the same worlds and choose alike."""
    limits = Limits(max_decisions=cutoff) if cutoff else None
    python = _agent_game(ROOT / "games" / path, specs, "python", 1, limits)
    native = _agent_game(ROOT / "games" / path, specs, "native", 1, limits)
    assert python == native


def test_a_native_skeleton_holds_no_hidden_card() -> None:
    """The skeleton a view keeps for determinizing knows only what the seat knows: the
    hidden locations are empty and no card lies where the seat cannot see."""
    from cardlang.information.knowledge import Skeleton

    game = load_game(ROOT / "games" / "hearts.rcy")
    master = game.master(engine="native")
    st = master.new_game(3, record=True)
    skeleton = Skeleton(st, 0, game)
    base = master.state(skeleton.engine_dealt.base, 3)
    for key, cards in base.zones.items():
        if key[1] == "hloc" or (key[1] == "iloc" and key[0] != 0):
            assert cards == [], key
    placed = {c for cards in base.zones.values() for c in cards}
    own_hand = set(st.zones[(0, "iloc", "HAND")])
    assert own_hand <= placed and len(placed & set(st.zones[(1, "iloc", "HAND")])) == 0


# The test modules of the language's semantics and of the layers above the engine (views,
# knowledge, records, the runner, encoders, tokens, the Dominion bots): run again with
# the other engine as every master's default (the Python one, where the native one is
# the default), they must pass alike.  (Tests that build positions by editing a Python
# state pin the Python engine.)
ABOVE_THE_ENGINE = [
    "test_semantics.py",
    "test_extensions.py",
    "test_game_rules.py",
    "test_dominion.py",
    "test_dominion_components.py",
    "test_views.py",
    "test_knowledge.py",
    "test_live_views.py",
    "test_records.py",
    "test_runner.py",
    "test_traces.py",
    "test_vocabulary.py",
    "test_encode.py",
    "test_tokens.py",
    "test_search_agents.py",
]


@pytest.mark.early(70)
@pytest.mark.slow
def test_the_semantics_and_the_layers_above_pass_on_the_other_engine() -> None:
    import subprocess
    import sys

    from cardlang.engine.engines import default_engine

    other = "python" if default_engine() == "native" else "native"
    files = [str(ROOT / "tests" / name) for name in ABOVE_THE_ENGINE]
    done = subprocess.run(
        # -m "": the long checks of those files too
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", "-m", ""]
        + ["--engine", other, *files],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=1800,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


@pytest.mark.early(215)
@pytest.mark.slow
def test_the_native_tests_pass_under_the_sanitizers() -> None:
    """native/sanitize.sh: the extension built with AddressSanitizer and
    UndefinedBehaviorSanitizer, and this file's tests run against it (all but this one
    and the re-run of the other modules, which take long under the sanitizers).  The
    in-engine search's three whole Dominion games with bots' rollouts are left out too:
    194 of the run's 347 CPU-seconds (2026-12-03), one test at its end, while its
    one-game form here covers the same code under the sanitizers (the three games run
    in the slow tier without them)."""
    import shutil
    import subprocess

    libasan = subprocess.run(
        ["g++", "-print-file-name=libasan.so"], capture_output=True, text=True
    ).stdout.strip()
    if not shutil.which("cmake") or "/" not in libasan:
        pytest.skip("no C++ toolchain with the sanitizers' runtimes here")
    done = subprocess.run(
        # the long fuzzing run is left to a long session (docs/internals.md, "Fuzzing")
        [
            "bash",
            "native/sanitize.sh",
            "-x",
            "-k",
            "not sanitizers and not layers_above and not both_engines_long and not bigmoney-3-None",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=1800,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]


# ---------------------------------------------------------------- batches


def test_the_extensions_types_are_the_ones_its_build_wrote() -> None:
    """src/cardlang/_native.pyi, which mypy reads, is nanobind's stubgen of the module as
    built (CMakeLists.txt installs that stub beside it): a binding changed without it
    fails here, with the command that writes it."""
    from cardlang.engine.native import native_extension

    module = native_extension()
    if module is None:
        pytest.skip("the native engine is not built")
    built = Path(module.__file__).with_name("_native.pyi")
    if not built.is_file():
        pytest.skip(f"no stub beside {module.__file__} (a build of its own, e.g. sanitized)")
    checked_in = ROOT / "src" / "cardlang" / "_native.pyi"
    assert built.read_text() == checked_in.read_text(), (
        f"_native.pyi is not the build's: cp {built} {checked_in}"
    )


def test_the_engine_makes_numpys_game_seeds() -> None:
    import numpy as np

    from cardlang.engine.native import native_game_seeds

    roots = [0, 1, 7, 2**32 - 1, 2**32, 2**63 - 1, 2**64 + 5, 2**130 + 3]
    for root in roots:
        for start in (0, 1000, 2**32 - 2):
            got = native_game_seeds(root, start, 5)
            for offset, seed in enumerate(got or []):
                child = np.random.SeedSequence(root, spawn_key=(start + offset,))
                assert seed == int(child.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))
            assert got is not None and len(got) == 5
    assert native_game_seeds(-1, 0, 1) is None  # numpy says what is wrong with it


# Draws its fate: a quarter of the seeds fail on a rule error in the middle of the game.
_SOMETIMES_FAILS = game_text(
    """(stage player (end (>= (game sto N) 6))
        (do ((inc (game sto N) 1)
             ((== (random 0 .. 7) 0) (move (top (game vloc NOWHERE)) (top (game vloc STOCK))))
             (choice ((any (game vloc STOCK) 'C (move 'C (top ((current player) iloc HAND))))
                      (turn pass))))))""",
    scoring="(scoring max (size ((current player) iloc HAND)))",
)


_PIMC_SEAT = ["bigmoney", "pimc:determinizations=2:rollouts=1:rollout=bmu"]


@pytest.mark.parametrize(
    "source, specs, rotate, games",
    [
        ("dominion.rcy", ["bigmoney", "smithy"], True, 150),
        ("dominion.rcy", ["random", "bmu"], False, 150),
        ("hearts.rcy", ["random"] * 4, False, 150),
        ("sometimes-fails", ["random", "random"], False, 150),
        # a Python seat (PIMC in Python is slow): one game shows a batch with one leaves
        # it to Python
        ("dominion.rcy", _PIMC_SEAT, False, 1),
    ],
)
def test_a_batch_inside_the_engine_plays_each_game_as_one_by_one(
    source: str, specs: list[str], rotate: bool, games: int
) -> None:
    from cardlang.runs.planned import play_planned, play_planned_games
    from cardlang.runs.simulate import game_seeds, seat_agents
    from cardlang.runs.store import PlannedGame

    game = (
        load_text(_SOMETIMES_FAILS)
        if source == "sometimes-fails"
        else load_game(ROOT / "games" / source)
    )
    master = game.master(engine="native")
    planned = [
        PlannedGame(-1, i, seed, seat_agents(specs, i, rotate))
        for i, seed in enumerate(game_seeds(11, games))
    ]
    calls: list[int] = []
    engine_batch = master.play_batch
    master.play_batch = lambda *args: calls.append(len(args[0])) or engine_batch(*args)
    batched = [_comparable(p.result) for p in play_planned_games(master, planned, False)]
    # every game went to the engine, but where a seat's agent is a Python one
    assert sum(calls) == (0 if "pimc" in specs[-1] else games)
    alone = [_comparable(play_planned(master, p, False).result) for p in planned]
    python_master = game.master(engine="python")
    python = [_comparable(play_planned(python_master, p, False).result) for p in planned[:20]]
    assert batched == alone
    assert alone[:20] == python
    if source == "sometimes-fails":
        failed = [r for r in batched if r[-1] is not None]
        assert 10 < len(failed) < 140


def _comparable(result: Any) -> tuple[Any, ...]:
    """A result's fields, its rule error by what it says (errors compare by identity)."""
    error = result.error
    where = None if error is None else (error.message, error.span, error.turn, error.seed)
    return (*dataclasses.astuple(dataclasses.replace(result, error=None)), where)


# ---------------------------------------------------------------- what views ask the engine


@pytest.mark.parametrize(
    "name", ["dominion.rcy", "hearts.rcy", "crazy_eights.rcy", "kuhn_poker.rcy"]
)
def test_option_kinds_and_move_keys_read_inside_the_engine_are_pythons(name: str) -> None:
    from cardlang.agents.search.common import MoveKeys

    from cardlang.engine.lazy_options import LazyOptions
    from cardlang.information.views import PlayerView

    game = load_game(ROOT / "games" / name)
    master = game.master(engine="native")
    keys = MoveKeys(game)
    for seed in range(3):
        st = master.new_game(seed)
        rng = random.Random(seed)
        while not st.is_over and st.decisions < 150:
            options = master.legal_options(st)
            assert isinstance(options, LazyOptions)
            for seat in [*range(st.nplayers), -1]:
                inside = PlayerView.live(st, seat, game, options).option_kinds
                read = PlayerView.live(st, seat, game, tuple(options)).option_kinds
                assert inside == read
            made = options.move_keys(st, game.card_slots)  # search's, inside the engine
            assert made is not None and made == [keys.key(st, o) for o in options]
            assert keys.keys(st, options) == made
            master.apply(st, rng.randrange(len(options)))
        # once the state moves on, the engine no longer answers for old options
        if not st.is_over:
            old = master.legal_options(st)
            master.apply(st, 0)
            assert old.option_kinds(0) is None


def test_native_agents_can_be_kept_in_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """``load_game(agents_inside=False)`` (``CARDLANG_NATIVE_AGENTS=0``, read by the command
    line): the native master declares no agents and no search inside, and no agent gets a
    twin there; the environment variable itself is read by nothing below the CLI."""
    from cardlang.agents import make_agent
    from cardlang.agents.base import native_twin

    dominion = ROOT / "games" / "dominion.rcy"
    master = load_game(dominion).master(engine="native")
    bot = make_agent("bigmoney", 1)
    assert native_twin(bot, master) is not None
    monkeypatch.setenv("CARDLANG_NATIVE_AGENTS", "0")
    assert native_twin(bot, master) is not None  # a game loaded in Python: not read
    kept = load_game(dominion, agents_inside=False).master(engine="native")
    assert kept.traits.name == "native"
    assert not kept.traits.agents_inside and not kept.traits.search_inside
    assert native_twin(make_agent("bigmoney", 1), kept) is None
    # the command line reads it, and passes it down with the engine
    import argparse

    from cardlang.cli.options import engine_of, use_engine

    args = argparse.Namespace(engine="native")
    use_engine(args)
    assert not load_game(dominion, **engine_of(args)).master().traits.agents_inside


# Guards of one choice that hold the same expressions, or a guard of an (any ...) body
# (evaluated once per element): the native engine computes such an expression once per
# listing (Program::find_shared_guards), which must change nothing.  The second game
# reads a loop's variable inside the shared shape (not shareable: its value changes
# within the listing); the third draws from the RNG in every guard (never shared); the
# fourth keeps an (any ...) guard's expression that reads no element, the fifth reads the
# element (not shareable), the sixth draws from the RNG once per element.
SHARED_GUARDS = [
    """(stage player (end (>= (game sto N) 8))
      (do ((inc (game sto N) 1)
           (choice (((> (size (filter (game vloc STOCK) 'T (== (cardatt RANK 'T) A))) 0)
                     (any (game vloc STOCK) 'C (move 'C (top ((current player) iloc HAND)))))
                    ((== (size (filter (game vloc STOCK) 'T (== (cardatt RANK 'T) A))) 0)
                     (any ((current player) iloc HAND) 'C (move 'C (top (game vloc STOCK)))))
                    ((and (> (size (filter (game vloc STOCK) 'T (== (cardatt RANK 'T) A))) 1)
                          (all player 'P (< (size ('P iloc HAND)) 3)))
                     (turn pass))
                    ((all player 'P (< (size ('P iloc HAND)) 3)) (turn pass)))))))""",
    """(stage player (end (>= (game sto N) 12))
      (do ((inc (game sto N) 1)
           (choice (((> (size (game vloc STOCK)) 0)
                     (any (game vloc STOCK) 'C (move 'C (top ((current player) iloc HAND)))))
                    ((all player 'P (and (< (size ('P iloc HAND)) 2)
                                         (< (size ('P iloc HAND)) 2)))
                     (turn pass))
                    ((> (size ((current player) iloc HAND)) 0)
                     (any ((current player) iloc HAND) 'C (move 'C (top (game vloc STOCK)))))
                    ((> (size (game vloc STOCK)) 5) (turn pass)))))))""",
    """(stage player (end (>= (game sto N) 8))
      (do ((inc (game sto N) 1)
           (choice (((> (random 0 .. 3) 1) (turn pass))
                    ((> (random 0 .. 3) 1)
                     (any (game vloc STOCK) 'C (move 'C (top ((current player) iloc HAND)))))
                    ((<= (random 0 .. 3) 9) (turn pass)))))))""",
    """(stage player (end (>= (game sto N) 12))
      (do ((inc (game sto N) 1)
           (choice ((any (game vloc STOCK) 'C
                         ((< (size ((current player) iloc HAND)) (+ 2 (game sto N)))
                          (move 'C (top ((current player) iloc HAND)))))
                    (turn pass))))))""",
    """(stage player (end (>= (game sto N) 12))
      (do ((inc (game sto N) 1)
           (choice ((any (game vloc STOCK) 'C
                         ((> (size (filter ((current player) iloc HAND) 'T
                                           (== (cardatt RANK 'T) (cardatt RANK 'C)))) 0)
                          (move 'C (top ((current player) iloc HAND)))))
                    (any (game vloc STOCK) 'C ((< (game sto N) 6)
                                               (move 'C (top ((current player) iloc HAND)))))
                    (turn pass))))))""",
    """(stage player (end (>= (game sto N) 8))
      (do ((inc (game sto N) 1)
           (choice ((any (game vloc STOCK) 'C
                         ((> (random 0 .. 3) 1) (move 'C (top ((current player) iloc HAND)))))
                    (turn pass))))))""",
]
# whether each game above has an expression computed once per listing
SHARES = [True, True, False, True, True, False]


@pytest.mark.parametrize("index", range(len(SHARED_GUARDS)))
def test_guard_expressions_shared_by_a_choice_play_alike(index: int) -> None:
    body = SHARED_GUARDS[index]
    game = load_text(game_text(body, scoring="(scoring max (size ((current player) iloc HAND)))"))
    assert (game.native_program().shared_guard_expressions > 0) == SHARES[index]
    for seed in range(25):
        assert_same(game, seed)


@pytest.mark.parametrize("path", OURS, ids=lambda p: p.name)
def test_a_game_that_records_nothing_starts_where_a_recorded_one_does(path: Path) -> None:
    """An unrecorded game starts from the setup's statements that draw nothing, run once
    (VM::new_game): its state must be the recorded game's, seed for seed."""
    game = load_game(path)
    master = game.master(engine="native")
    for seed in range(4):
        plain, recorded = master.new_game(seed), master.new_game(seed, record=True)
        assert plain.fingerprint() == recorded.fingerprint()
        assert dict(plain.zones) == dict(recorded.zones) and plain.rng == recorded.rng


def test_batches_grow_while_quick_and_shrink_when_slow() -> None:
    from cardlang.runs.planned import BATCH_GAMES, BATCH_SECONDS, _next_batch_size

    low, high = BATCH_GAMES
    assert _next_batch_size(8, 8, BATCH_SECONDS / 10) == 16
    assert _next_batch_size(high, high, 0.0) == high
    assert _next_batch_size(64, 64, BATCH_SECONDS * 5) == 32
    assert _next_batch_size(low, low, 10.0) == low
    assert _next_batch_size(64, 64, BATCH_SECONDS) == 64
    assert _next_batch_size(64, 3, 0.0) == 64  # the tail of a run: no evidence
