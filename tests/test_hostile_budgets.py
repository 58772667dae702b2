"""Game files stay within their budgets (issue 53, section 4, and the overflow rule of
section 5), the same on both engines: ranges at either end of the 64-bit range, indexes
up to 2^63-1, every operation whose cost grows with a collection charged to --max-work,
references bounded, a whole game bounded by --max-game-work, and (+ A B C) checked as
one operation.  Each case is played on both engines, which must end the same way with
the same message, position, turn and seed (engine/work.py says what costs what).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import game_text, load_text, play_random

from cardlang.engine.gamemaster import Limits
from cardlang.engine.native import native_available
from cardlang.engine.work import DEFAULT_MAX_GAME_WORK, OUT_OF_MEMORY

ENGINES = [
    "python",
    pytest.param(
        "native",
        marks=pytest.mark.skipif(not native_available(), reason="the native engine is not built"),
    ),
]
BOTH = ["python", "native"]
needs_native = pytest.mark.skipif(not native_available(), reason="the native engine is not built")

#: 2^63-1 and -2^63 (a literal has at most 18 digits)
MAX = "(+ (- (^ 2 62) 1) (^ 2 62))"
MIN = "(- (- 0 (^ 2 62)) (^ 2 62))"
SCORED = "(scoring max (game sto N))"


def _stored(expr: str, deck: str | None = None) -> str:
    """A game that stores ``expr`` in N at its first step and scores it."""
    extra = {"deck": deck} if deck else {}
    return game_text(f"(set (game sto N) {expr})", scoring=SCORED, **extra)


def _outcome(text: str, engine: str, **limits: int):  # type: ignore[no-untyped-def]
    """(end reason, scores, the error's text with its position, turn and seed)."""
    game = load_text(text)
    result, _ = play_random(game.master(Limits(**limits), engine=engine), 1)
    return result.end_reason, result.scores, None if result.error is None else str(result.error)


def _alike(text: str, **limits: int):  # type: ignore[no-untyped-def]
    """The outcome, the same on both engines."""
    python = _outcome(text, "python", **limits)
    if native_available():
        assert _outcome(text, "native", **limits) == python
    return python


# ---------------------------------------------------------------- ranges at the ends


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        (f"(size (range {MAX} .. {MAX}))", 1),
        (f"(size (range (- {MAX} 2) .. {MAX}))", 3),
        (f"(size (range {MIN} .. {MIN}))", 1),
        (f"(size (range {MIN} .. (+ {MIN} 2)))", 3),
        (f"(size (range {MAX} .. {MIN}))", 0),
        (f"(size (filter (range (- {MAX} 3) .. {MAX}) 'V (> 'V (- {MAX} 2))))", 2),
        (f"(if (all (range (- {MAX} 3) .. {MAX}) 'V (> 'V 0)) 7 8)", 7),
        (f"(if (any (range {MIN} .. (+ {MIN} 1)) 'V (== 'V {MIN})) 7 8)", 7),
    ],
)
def test_ranges_at_either_end_of_the_64_bit_range_are_counted_right(expr: str, value: int) -> None:
    assert _alike(_stored(expr)) == ("completed", (value, value), None)


@pytest.mark.parametrize(
    ("bounds", "options"),
    [(f"{MAX} .. {MAX}", 1), (f"(- {MAX} 1) .. {MAX}", 2), (f"{MIN} .. {MIN}", 1)],
)
def test_a_choice_forks_over_a_range_at_the_end(bounds: str, options: int) -> None:
    text = game_text(
        f"(choice ((any (range {bounds}) 'V (set (game sto N) (- 'V 1)))))",
        scoring="(scoring max 0)",
    )
    for engine in BOTH if native_available() else ["python"]:
        game = load_text(text)
        master = game.master(engine=engine)
        st = master.new_game(1)
        assert len(master.legal_options(st)) == options
    end, _, error = _alike(text)
    if bounds.startswith(MIN):  # MIN - 1 overflows, at the same place on both
        assert end == "failed" and "integer overflow" in error
    else:
        assert end == "completed"


# ---------------------------------------------------------------- (indexed ...)


def test_indexed_sees_every_index_up_to_the_largest() -> None:
    body = f"""(do ((move (top (game vloc STOCK)) (top (game vloc PILE (^ 2 57))))
      (move (top (game vloc STOCK)) (top (game vloc PILE (+ (^ 2 57) 1))))
      (move (top (game vloc STOCK)) (top (game vloc PILE {MAX})))
      (move (top (game vloc STOCK)) (top (game vloc PILE 3)))
      (move (top (game vloc STOCK)) (top (game vloc PILE (- 0 5))))
      (set (game sto N) (size (filter (indexed game vloc PILE) 'L (== (size 'L) 1))))))"""
    # four indexes from 3 to 2^63-1; a negative index names a location indexed skips
    assert _alike(game_text(body, scoring=SCORED)) == ("completed", (4, 4), None)


# ---------------------------------------------------------------- work over a big deck

#: 46^3 = 97,336 cards, just under a game's 100,000
_NAMES = "(" + ", ".join(f"V{i}" for i in range(46)) + ")"
BIG_DECK = f"(deck (A {_NAMES}) (B {_NAMES}) (C {_NAMES}))"
STOCK = "(game vloc STOCK)"
BIG_FORMS = {
    "sort": (f"(size (sort {STOCK} using (game points P)))", "(sort ...)"),
    "union": (f"(size (union {STOCK} {STOCK}))", "(union ...)"),
    "intersect": (f"(size (intersect {STOCK} {STOCK}))", "(intersect ...)"),
    "disjunction": (f"(size (disjunction {STOCK} {STOCK}))", "(disjunction ...)"),
    "partition": (f"(size (partition A {STOCK}))", "(partition ...)"),
    "sum": (f"(sum {STOCK} using (game points P))", "(sum ...)"),
    "max": (f"(score (max {STOCK} using (game points P)) using (game points P))", "(max ...)"),
    "top": (f"(size (top 50000 {STOCK}))", "(top ...)"),
    "run": (f"(size (run top 1 {STOCK} using (game points P)))", "(run ...)"),
    "groups": (f"(size (all (range 1 .. 1000) 'V {STOCK}))", "(all ...)"),
}


def _big_loop(expr: str) -> str:
    """A million passes of a while, each evaluating ``expr`` over 97,336 cards (hours of
    work before these forms were charged)."""
    return game_text(
        f"""(do ((set (game points P) (((A : V1) 1)))
      (set (game sto I) 0)
      (while (< (game sto I) 1000000)
        (do ((set (game sto I) (+ (game sto I) 1))
             (set (game sto N) {expr}))))))""",
        deck=BIG_DECK,
        scoring=SCORED,
    )


@pytest.mark.parametrize("form", list(BIG_FORMS))
def test_a_collection_operation_over_a_big_deck_is_charged(form: str) -> None:
    expr, what = BIG_FORMS[form]
    started = time.monotonic()
    end, _, error = _alike(_big_loop(expr), max_work=1000)
    assert end == "failed"
    assert error.startswith(
        "test.rcy:8:"  # the form, in the while's body
    ), error
    assert f"{what} passes the work budget of 1000 units since the last decision" in error
    assert "(turn 0, seed 1)" in error
    assert time.monotonic() - started < 30


def test_nested_whiles_are_charged_per_pass() -> None:
    text = game_text(
        """(do ((set (game sto I) 0)
  (while (< (game sto I) 1000000)
    (do ((set (game sto I) (+ (game sto I) 1)) (set (game sto J) 0)
         (while (< (game sto J) 1000000) (set (game sto J) (+ (game sto J) 1))))))))"""
    )
    end, _, error = _alike(text, max_work=5000)
    assert end == "failed"
    assert "(while ...) passes the work budget of 5000 units" in error


@pytest.mark.parametrize("engine", ENGINES)
def test_statement_loops_are_charged_exactly(engine: str) -> None:
    # repeat: 4 passes; the while: 3 passes; all over the six cards: 6; shuffle: 6
    text = game_text(
        """(do ((repeat 4 (inc (game sto N) 1))
      (set (game sto W) 0)
      (while (< (game sto W) 3) (inc (game sto W) 1))
      (all (game vloc STOCK) 'C (inc (game sto N) 1))
      (shuffle (game vloc STOCK))))""",
        scoring=SCORED,
    )
    assert _outcome(text, engine, max_work=19)[0] == "completed"
    end, _, error = _outcome(text, engine, max_work=18)
    assert end == "failed" and "(shuffle ...) passes the work budget of 18 units" in error


# ---------------------------------------------------------------- references


def test_references_are_bounded_like_cards() -> None:
    text = game_text(
        """(do ((set (game sto I) 0)
  (while (< (game sto I) 200000)
    (do ((set (game sto I) (+ (game sto I) 1))
         (remember (top (game vloc STOCK)) (top (game mem SEEN))))))))"""
    )
    end, _, error = _alike(text, max_work=10**12, max_game_work=10**12)
    assert end == "failed"
    # the game's 6 cards count too: 99,994 references fill it
    assert "the game holds 6 cards and 99994 references: no more may be remembered" in error
    # a remember is one unit, as is each pass of the while: 30,000 of each
    end, _, error = _alike(text, max_work=60_000)
    assert end == "failed" and "(while ...) passes the work budget of 60000 units" in error


#: a flow whose ``count`` passes each remember the top card of STOCK twice, in one of 100
#: indexed mem locations of the current player and of the game: no location holds more
#: than a few thousand references
_SPREAD = """(set (game sto I) 0)
  (while (< (game sto I) {count})
    (do ((set (game sto I) (+ (game sto I) 1))
         (remember (top (game vloc STOCK)) (top ((current player) mem SEEN (% (game sto I) 100))))
         (remember (top (game vloc STOCK)) (top (game mem SEEN (% (game sto I) 100)))))))"""
_NO_LIMIT = {"max_work": 10**12, "max_game_work": 10**12}


def test_references_in_many_locations_count_toward_the_games_size() -> None:
    text = game_text(f"(do ({_SPREAD.format(count=100_000)}))")
    end, _, error = _alike(text, **_NO_LIMIT)
    assert end == "failed"
    assert (
        "the game holds 6 cards and 99994 references: no more may be remembered (a game "
        "holds at most 100000 cards and references together)" in error
    )
    assert "test.rcy:7:10:" in error  # the first remember's position, on both engines


def test_a_forget_gives_its_room_back() -> None:
    # 99,994 references and 6 cards fill the game; a forget makes room for one more
    flow = f"""(do ({_SPREAD.format(count=49_997)}
  (forget (top (game mem SEEN 0)))
  (remember (top (game vloc STOCK)) (top (game mem SEEN 7)))
  (set (game sto N) (size (game mem SEEN 7)))))"""
    assert _alike(game_text(flow, scoring=SCORED), **_NO_LIMIT) == ("completed", (501, 501), None)
    # but not for two
    again = "(remember (top (game vloc STOCK)) (top (game mem SEEN 7)))"
    flow = flow.replace(again, again + again)
    end, _, error = _alike(game_text(flow, scoring=SCORED), **_NO_LIMIT)
    assert end == "failed" and "the game holds 6 cards and 99994 references" in error


def test_a_creation_counts_the_references_held() -> None:
    text = """(game
 (card-kind COIN (VALUE 1))
 (setup (create players 2) (create deck (game vloc STOCK) (deck (RANK (A, B)))))
 (do ((repeat 60000 (remember (top (game vloc STOCK)) (top (game mem SEEN))))
      (create cards (game vloc BANK) COIN (* 40000 (+ (game sto N) 1)))))
 (scoring max 0))"""
    end, _, error = _alike(text, **_NO_LIMIT)
    assert end == "failed"
    assert (
        "this creates 40000 cards and the game holds 2 cards and 60000 references: more than "
        "a game may hold (100000 cards, references included)" in error
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_the_reference_count_survives_clones_and_transfers(engine: str) -> None:
    """A game that remembers 30,000 references a turn fails in its fourth: the same way
    when every decision is played on a clone of a state sent to another copy of the game
    (the count travels with the state; lost, the game would never fail)."""
    from cardlang.engine.transfer import receive_state, send_state

    text = game_text(
        """(stage player (end (== 1 0))
   (repeat 30000 (remember (top (game vloc STOCK)) (top ((current player) mem S))))
   (choice ((turn pass))))"""
    )
    game, twin = load_text(text), load_text(text)
    master = game.master(Limits(**_NO_LIMIT), engine=engine)
    direct = master.new_game(1)
    while not direct.is_over:
        master.apply(direct, 0)
    st, there = master.new_game(1), master
    for _ in range(10):  # (it fails at its third decision)
        if st.is_over:
            break
        there, st = receive_state(twin, master.limits, send_state(there, st))
        st = st.clone()
        there.apply(st, 0)
    expected, got = master.result(direct), there.result(st)
    assert expected.decisions == got.decisions == 3
    # the seed is not sent: the error's text up to its "(turn T, seed S)"
    assert str(got.error).split(" (turn")[0] == str(expected.error).split(" (turn")[0]
    assert "the game holds 6 cards and 99994 references" in str(got.error)


# ---------------------------------------------------------------- a whole game


def test_a_long_game_is_stopped_by_the_game_budget_at_an_expression() -> None:
    text = game_text(
        """(stage player (end (== 1 0))
   (choice ((any (range 1 .. 2000) 'V (set (game sto N) 'V)))))"""
    )
    end, _, error = _alike(text, max_game_work=100_000)
    assert end == "failed"
    assert "(any ...) passes the game's work budget of 100000 units (--max-game-work)" in error
    # each listing charges 2,000 and each turn's steps a few: the 51st listing is past it
    assert "test.rcy:5:13:" in error and "(turn 50, seed 1)" in error


def test_a_game_of_steps_is_stopped_at_a_decision() -> None:
    text = game_text(
        """(stage player (end (== 1 0))
   (set (game sto J) 0)
   (stage player (end (> (game sto J) 50)) (inc (game sto J) 1))
   (choice ((turn pass))))"""
    )
    end, _, error = _alike(text, max_game_work=2_000)
    assert end == "failed"
    assert "the game's work passes its budget of 2000 units before this decision" in error
    assert "test.rcy:7:4:" in error and "seed 1)" in error


def test_the_default_game_budget_is_far_above_a_real_game() -> None:
    from cardlang import load_game
    from cardlang.compiler.load import read_source

    source = read_source("games/hearts.rcy")
    game = load_game(text=source.text, name=source.name, engine="python")
    _, st = play_random(game.master(), 3)
    assert st.work * 100 < DEFAULT_MAX_GAME_WORK


# ---------------------------------------------------------------- an option's loops


def _option(body: str) -> str:
    """A game whose one choice's option is ``body``, run until N is positive."""
    return game_text(
        f"(stage player (end (> (game sto N) 0))\n   (choice ({body})))", scoring=SCORED
    )


def _lets(depth: int, inner: str) -> str:
    for i in range(depth):
        inner = f"(let (+ 1 0) 'X{i} {inner})"
    return inner


@pytest.mark.parametrize(
    ("body", "passes"),
    [
        ("(repeat 30000 (inc (game sto N) 1))", 30000),  # natively: the C++ stack overflowed
        ("(repeat 101 (inc (game sto N) 1))", 101),
        ("(repeat (+ 29999 1) (inc (game sto N) 1))", 30000),
        ("(all (range 1 .. 30000) 'V (inc (game sto N) 1))", 30000),
        ("(repeat 10 (all (range 1 .. 10) 'V (inc (game sto N) 1)))", 110),
        # a do of more than actions lists the rest of the option inside each part
        pytest.param(
            "(do (" + " ".join(["(let 1 'X (inc (game sto N) 'X))"] * 3000) + "))",
            3000,
            id="a-do-of-3000-lets",
        ),
        # the repeat's 40, then each pass's do its 2 parts: the 31st do makes 102
        ("(repeat 40 (do ((let 1 'X (inc (game sto N) 'X)) (inc (game sto N) 1))))", 102),
    ],
)
def test_an_options_loops_are_bounded_the_same_on_both_engines(body: str, passes: int) -> None:
    """Listing an option runs its rest inside each loop pass and each part of a do, so
    an option goes at most MAX_OPTION_PASSES deep: a rule error at the form that would
    pass it, the same on both engines (natively these once overflowed the C++ stack)."""
    end, _, error = _alike(_option(body))
    assert end == "failed"
    assert f"would make this option run {passes} loop passes and sequence parts" in error
    assert "an option of a choice runs at most 100" in error and "test.rcy:5:" in error


@pytest.mark.parametrize(
    ("body", "value"),
    [
        ("(repeat 100 (inc (game sto N) 1))", 100),
        ("(repeat 10 (all (range 1 .. 9) 'V (inc (game sto N) 1)))", 90),
        # a do of actions alone is its steps in one go on both engines: no depth
        pytest.param(
            "(do (" + " ".join(["(do ((inc (game sto N) 1)))"] * 2000) + "))",
            2000,
            id="2000-nested-dos-of-actions",
        ),
        # the deepest option the bound allows: Python's stack holds it too (RECURSION_FLOOR)
        pytest.param(
            f"(all (range 1 .. 100) 'V {_lets(55, '(inc (game sto N) 1)')})",
            100,
            id="55-lets-in-each-of-100-passes",
        ),
    ],
)
def test_an_option_within_the_bound_plays_alike(body: str, value: int) -> None:
    end, scores, error = _alike(_option(body))
    assert (end, error) == ("completed", None) and scores == (value, value)


def test_a_literal_repeat_in_an_option_is_charged_and_counted() -> None:
    """A literal count is listed pass by pass like any count: charged, and refused past
    MAX_REPEAT (a hundred million passes once ran in one decision, charged nothing)."""
    end, _, error = _alike(_option("(repeat 100000000 (inc (game sto N) 1))"))
    assert end == "failed" and "repeats more than 1000000 times" in error
    end, _, error = _alike(_option("(repeat 90 (inc (game sto N) 1))"), max_work=50)
    assert end == "failed" and "(repeat ...) passes the work budget of 50 units" in error


# ---------------------------------------------------------------- the overflow rule


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        (f"(+ {MAX} 1 (- 0 1))", 2**63 - 1),
        (f"(+ {MIN} (- 0 1) 1 5)", -(2**63) + 5),
        (f"(* {MAX} 2 0)", 0),
        ("(* (^ 2 62) 2 (- 0 1))", -(2**63)),
    ],
)
def test_n_ary_sums_and_products_check_the_exact_result(expr: str, value: int) -> None:
    assert _alike(_stored(expr)) == ("completed", (value, value), None)


@pytest.mark.parametrize(
    ("expr", "shown"),
    [
        (f"(+ {MAX} 1 5)", "(+ 9223372036854775807 1 5)"),
        ("(* 3037000500 3037000500 1)", "(* 3037000500 3037000500 1)"),
        (f"(+ {MAX} 1)", "(+ 9223372036854775807 1)"),
    ],
)
def test_an_n_ary_overflow_names_every_operand(expr: str, shown: str) -> None:
    end, _, error = _alike(_stored(expr))
    assert end == "failed"
    assert f"integer overflow: {shown} is outside the 64-bit range" in error


# ---------------------------------------------------------------- memory


@needs_native
def test_runs_all_stops_at_the_budget_on_both_engines() -> None:
    # 26 cards of consecutive scores: (runs all 1 ...) would make 351 runs of 3,627 cards
    # per copy, and the loop makes them again and again
    deck = "(deck (R (" + ", ".join(f"R{chr(65 + i)}" for i in range(26)) + ")) (S (X, Y)))"
    points = " ".join(f"((R : R{chr(65 + i)}) {i})" for i in range(26))
    text = game_text(
        f"""(do ((set (game points P) ({points}))
      (set (game sto I) 0)
      (while (< (game sto I) 1000000)
        (do ((inc (game sto I) 1)
             (set (game sto N) (size (runs all 1 (game vloc STOCK) using (game points P)))))))))""",
        deck=deck,
        scoring=SCORED,
    )
    end, _, error = _alike(text, max_work=2_000_000)
    assert end == "failed" and "(runs ...) passes the work budget of 2000000 units" in error


def test_the_command_line_reads_the_game_budget() -> None:
    import argparse

    from cardlang.cli.options import limit_options, limits_of

    parser = argparse.ArgumentParser()
    limit_options(parser)
    assert limits_of(parser.parse_args([])).max_game_work == DEFAULT_MAX_GAME_WORK
    limits = limits_of(parser.parse_args(["--max-game-work", "1234", "--max-work", "99"]))
    assert (limits.max_work, limits.max_game_work) == (99, 1234)
    with pytest.raises(SystemExit):
        parser.parse_args(["--max-game-work", "0"])


def test_the_game_budget_reaches_the_games_and_their_records(tmp_path: Path) -> None:
    """--max-game-work is passed down by the commands (simulate here) and kept with the
    batch, so that a replay from the records (transcript --db) fails at the same spot."""
    import json
    import sqlite3

    from helpers import run_main

    game = tmp_path / "steps.rcy"
    game.write_text(
        game_text(
            """(stage player (end (== 1 0))
   (set (game sto J) 0)
   (stage player (end (> (game sto J) 50)) (inc (game sto J) 1))
   (choice ((turn pass))))"""
        )
    )
    db = tmp_path / "runs.sqlite"
    args = ["--agents", "random,random", "--games", "2", "--db", str(db), "--json"]
    done = run_main("simulate", str(game), *args, "--max-game-work", "2000")
    assert done.returncode == 1, done.stderr  # games failed: simulate says so
    assert json.loads(done.stdout)["failed"] == 2
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("SELECT max_game_work FROM batches").fetchall() == [(2000,)]
    finally:
        conn.close()
    replay = run_main("transcript", str(game), "--db", str(db), "--game", "1")
    assert replay.returncode == 0, replay.stderr
    assert "passes its budget of 2000 units before this decision" in replay.stdout + replay.stderr


@needs_native
def test_memory_the_budgets_allow_but_the_machine_lacks_is_a_rule_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # budgets far above what fits under a 2 GB address-space cap: the native engine's
    # std::bad_alloc fails the game with a rule error, not the program
    script = tmp_path / "oom.py"
    ranks = ", ".join(f"R{chr(65 + i)}" for i in range(22))
    points = " ".join(f"((R : R{chr(65 + i)}) {i})" for i in range(22))
    text = game_text(
        f"(set (game points P) ({points}))\n"
        "(set (game sto N) (size (runs all 1 (game vloc STOCK) using (game points P))))",
        deck=f"(deck (R ({ranks})) (S (X, Y)))",
        scoring=SCORED,
    )
    script.write_text(
        f"""import resource, sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
from helpers import load_text, play_random
from cardlang.engine.gamemaster import Limits
game = load_text({text!r})
resource.setrlimit(resource.RLIMIT_AS, (1 << 31, 1 << 31))
limits = Limits(max_work=10**15, max_game_work=10**15)
result, _ = play_random(game.master(limits, engine="native"), 1)
print(result.end_reason)
print(result.error.message)
"""
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["failed", OUT_OF_MEMORY]
