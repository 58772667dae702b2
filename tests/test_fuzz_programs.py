"""Differential fuzzing with well-typed programs (issue 31, item 8): hypothesis writes
games, not byte mutants, and each one is played on both engines, which must give the
same event log, the same options at every decision and the same result, rule errors
included (their message and position).

The programs come from a small grammar of the language's integer and boolean
expressions, storages, conditionals, loops over players and cards, card moves, and a
choice of moves for the player to move, the forms that charge the work budget (played
under budgets, per decision and per game, small enough to run out), inside a fixed
skeleton (a deck dealt to every player, a stage over the players).  Numbers are drawn near
the edges that matter: 0, 1, -1 (written (- 0 1)), small counts, and values next to 2^62
and at both ends of the 64-bit range, for arithmetic (n-ary + and * too), range bounds,
location indexes, (top N ...) and repeat counts (issue 53: a range ending at 2^63-1 once
looped for ever natively).  test_native.py's ``play`` plays a game with seeded random
choices and records what is compared.

The quick test draws 25 programs (about 15 seconds), the ``slow`` one 300 (both run in
the suite; ``pytest -m slow tests/test_fuzz_programs.py`` runs only the long one).  Every program must also load: a failure to load is a bug of the generator, and
fails the test.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_native import play

from cardlang import load_game
from cardlang.engine.gamemaster import Limits
from cardlang.engine.native import native_available

pytestmark = pytest.mark.skipif(not native_available(), reason="the native engine is not built")

LIMITS = Limits(max_decisions=60, max_steps=20_000)
QUICK = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
#: the long run's programs: 300, or CARDLANG_FUZZ_PROGRAMS (docs/internals.md, "Fuzzing")
LONG = settings(QUICK, max_examples=int(os.environ.get("CARDLANG_FUZZ_PROGRAMS", "300")))

STORAGES = ("A", "B", "C")
#: the ends of the 64-bit range (issue 53): literals have at most 18 digits
MAX = "(+ (- (^ 2 62) 1) (^ 2 62))"
MIN = "(- (- 0 (^ 2 62)) (^ 2 62))"
EDGES = (
    "(^ 2 62)",
    "(- (^ 2 62) 1)",
    "(- 0 (^ 2 62))",
    MIN,
    MAX,
    f"(- {MAX} 1)",
    f"(+ {MIN} 1)",
    "(^ 2 57)",  # an index the native engine once lost in a key's bits
)


#: Forms that charge the work budget (engine/work.py), for the engines to count alike:
#: the programs run under budgets small enough that many of them fail on one.
CHARGED = (
    "(size (filter (game vloc STOCK) 'E (== (cardatt SUIT 'E) X)))",
    "(if (any ((current player) iloc HAND) 'E (== (cardatt RANK 'E) TWO)) 1 0)",
    "(if (all (game vloc STOCK) 'E (any (game vloc PILE) 'F (== 'E 'F))) 1 0)",
    "(size (tuples 2 (game vloc STOCK) using (game points R)))",
    "(size (runs all 1 ((current player) iloc HAND) using (game points R)))",
    "(size (subsets (top 3 (game vloc STOCK))))",
    "(size (union (all (tuples 2 (game vloc PILE) using (game points R)) 'G "
    "(filter 'G 'E (== 'E 'E)))))",
    "(size (sort (game vloc STOCK) using (game points R)))",
    "(size (union (game vloc STOCK) ((current player) iloc HAND) (game vloc PILE)))",
    "(size (intersect (game vloc STOCK) (game vloc STOCK)))",
    "(size (disjunction (game vloc STOCK) (game vloc PILE)))",
    "(size (partition SUIT (game vloc STOCK) (game vloc PILE)))",
    "(sum (game vloc STOCK) using (game points R))",
    "(score (max (game vloc STOCK) using (game points R)) using (game points R))",
    "(scoremin (game vloc PILE) using (game points R))",
    "(size (run top 2 (game vloc STOCK) using (game points R)))",
    "(size (indexed game vloc PILE))",
)
BUDGETS = st.one_of(st.integers(1, 300), st.integers(300, 3000), st.just(Limits.max_work))
GAME_BUDGETS = st.one_of(st.integers(1, 5000), st.just(Limits.max_game_work))


def _literal() -> st.SearchStrategy[str]:
    small = st.integers(0, 12).map(str)
    negative = st.integers(1, 5).map(lambda n: f"(- 0 {n})")
    big = st.sampled_from(["1000000000", "3037000500", "999999999999999999"])  # 18 digits at most
    edges = st.sampled_from(EDGES)
    return st.one_of(small, small, small, small, negative, negative, big, edges)


def _storage(player_var: bool) -> st.SearchStrategy[str]:
    owners = ["game", "(current player)"] + (["'P"] if player_var else [])
    return st.builds(
        lambda owner, name: f"({owner} sto {name})",
        st.sampled_from(owners),
        st.sampled_from(STORAGES),
    )


def integers(player_var: bool = False) -> st.SearchStrategy[str]:
    """An integer expression (recursive): literals, storages, sizes, arithmetic."""
    leaves = st.one_of(
        _literal(),
        _storage(player_var),
        st.just("(size (game vloc STOCK))"),
        st.just("(size ((current player) iloc HAND))"),
        st.sampled_from(CHARGED),
        st.just("(size (filter (game vloc STOCK) 'E (== 'E 'E)))"),
    )

    def grow(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        binary = st.builds(
            lambda op, a, b: f"({op} {a} {b})",
            st.sampled_from(["+", "-", "*", "//", "%"]),
            inner,
            inner,
        )
        # mostly small; now and then next to 2^63 (62 fits for 2, 63 and 64 overflow)
        exponent = st.one_of(*[st.integers(0, 4)] * 5, st.integers(61, 65))
        power = st.builds(lambda a, e: f"(^ {a} {e})", inner, exponent.map(str))
        unary = st.builds(lambda op, a: f"({op} {a})", st.sampled_from(["tri", "fib"]), inner)
        # (+ A B C): the exact result of the whole form is checked, not each fold
        nary = st.builds(
            lambda op, xs: f"({op} {' '.join(xs)})",
            st.sampled_from(["+", "*"]),
            st.lists(inner, min_size=3, max_size=4),
        )
        # ranges and counts drawn from the same expressions: at either end of the range
        counted = st.builds(
            lambda form, a, b: form.format(a=a, b=b),
            st.sampled_from(RANGE_FORMS),
            inner,
            inner,
        )
        return st.one_of(binary, binary, binary, power, unary, nary, counted)

    return st.recursive(leaves, grow, max_leaves=6)


#: forms over a range or with a count, their bounds drawn next to both ends of the range
RANGE_FORMS = (
    "(size (range {a} .. {b}))",
    "(size (filter (range {a} .. {b}) 'V (> 'V {a})))",
    "(if (any (range {a} .. {b}) 'V (== 'V {b})) 1 0)",
    "(if (all (range {a} .. {b}) 'V (>= 'V {a})) 1 0)",
    "(size (top {a} (game vloc STOCK)))",
    "(size (bottom {b} (game vloc PILE)))",
)


def booleans(player_var: bool = False) -> st.SearchStrategy[str]:
    ints = integers(player_var)
    compare = st.builds(
        lambda op, a, b: f"({op} {a} {b})",
        st.sampled_from(["<", ">", "<=", ">=", "==", "!="]),
        ints,
        ints,
    )
    return st.recursive(
        compare,
        lambda inner: st.one_of(
            st.builds(lambda a, b: f"(and {a} {b})", inner, inner),
            st.builds(lambda a, b: f"(or {a} {b})", inner, inner),
            st.builds(lambda a: f"(not {a})", inner),
        ),
        max_leaves=3,
    )


def statements(depth: int = 0, player_var: bool = False) -> st.SearchStrategy[str]:
    """A statement: storage writes, card moves, and (not too deep) conditionals, loops
    over players and repeats."""
    ints = integers(player_var)
    simple = st.one_of(
        st.builds(lambda s, v: f"(set {s} {v})", _storage(player_var), ints),
        st.builds(lambda s, v: f"(inc {s} {v})", _storage(player_var), ints),
        st.builds(lambda s, v: f"(dec {s} {v})", _storage(player_var), ints),
        st.just(
            "((> (size (game vloc STOCK)) 0) "
            "(move (top (game vloc STOCK)) (top ((current player) iloc HAND))))"
        ),
        st.just("(shuffle (game vloc STOCK))"),
        # numbered locations, at indexes up to 2^63-1, and what (indexed ...) finds
        st.builds(
            lambda i: (
                "((> (size (game vloc STOCK)) 0) "
                f"(move (top (game vloc STOCK)) (top (game vloc PILE {i}))))"
            ),
            st.one_of(st.sampled_from(EDGES), st.integers(0, 3).map(str)),
        ),
        st.just(
            "((> (size (game vloc STOCK)) 0) (remember (top (game vloc STOCK)) "
            "(top (game mem SEEN))))"
        ),
        st.just("((> (size (game mem SEEN)) 0) (forget (top (game mem SEEN))))"),
    )
    if depth >= 2:
        return simple
    inner = statements(depth + 1, player_var)
    return st.one_of(
        simple,
        simple,
        st.builds(lambda c, s: f"({c} {s})", booleans(player_var), inner),
        st.builds(lambda n, s: f"(repeat {n} {s})", st.integers(0, 3), inner),
        st.builds(lambda n, s: f"(repeat {n} {s})", st.sampled_from(EDGES), inner),
        # a while that stops after a few passes (the counter is its own storage)
        st.builds(
            lambda n, s: (
                f"(do ((set (game sto W) 0) (while (< (game sto W) {n}) "
                f"(do ((inc (game sto W) 1) {s})))))"
            ),
            st.integers(0, 4),
            inner,
        ),
        st.builds(lambda s: f"(all player 'P {s})", statements(depth + 1, True)),
        st.builds(
            lambda ss: "(do (" + " ".join(ss) + "))", st.lists(inner, min_size=1, max_size=3)
        ),
    )


@st.composite
def programs(draw: st.DrawFn) -> str:
    players = draw(st.integers(2, 4))
    setup = " ".join(draw(st.lists(statements(), max_size=3)))
    turn = " ".join(draw(st.lists(statements(), min_size=1, max_size=4)))
    guard = draw(booleans())
    passes = draw(st.integers(1, 4))
    score = draw(integers())
    low = draw(st.one_of(st.sampled_from(EDGES), st.integers(0, 3).map(str)))
    high = draw(st.one_of(st.sampled_from(EDGES), st.sampled_from([low, f"(+ {low} 2)"])))
    return f"""(game
 (setup (create players {players})
        (create deck (game vloc STOCK) (deck (RANK (TWO, THREE, FOUR, FIVE)) (SUIT (X, Y))))
        (shuffle (game vloc STOCK))
        (set (game points R) (((RANK : TWO) 2) ((RANK : THREE) 3) ((RANK : FOUR) 4)
                              ((RANK : FIVE) 5)))
        {setup})
 (stage player (end (>= (game sto TURNS) {passes * players}))
   (do ((inc (game sto TURNS) 1)
        {turn}
        (choice (
          ((> (size ((current player) iloc HAND)) 0)
           (any ((current player) iloc HAND) 'C (move 'C (top (game vloc PILE)))))
          ({guard} (inc ((current player) sto A) 1))
          ;; a fork over a range whose bounds may lie at either end of the 64-bit range
          (any (range {low} .. {high}) 'V (set (game sto C) 'V))
          ;; a move, then a fork: listing it plays the move on a copy first, whose
          ;; charged work must count as on the other engine
          (any ((current player) iloc HAND) 'C
            (do ((move 'C (top (game vloc PILE)))
                 (set (game sto B) (size (filter (game vloc PILE) 'E (== 'E 'E))))
                 (any (game vloc STOCK) 'D
                   ((> (size (filter (game vloc STOCK) 'E (!= 'E 'D))) 1)
                    (move 'D (top ((current player) iloc HAND))))))))
          (pass))))))
 (scoring max {score}))"""


def _play_both(text: str, seed: int, max_work: int, max_game_work: int) -> None:
    game = load_game(text=text, name="fuzz.rcy")  # a program that does not load fails here
    limits = Limits(LIMITS.max_decisions, LIMITS.max_steps, max_work, max_game_work)
    python = play(game, "python", seed, limits=limits)
    native = play(game, "native", seed, limits=limits)
    assert python[2] == native[2], f"results differ:\n{text}"
    assert python[3] == native[3], f"the games' work differs:\n{text}"
    assert python[1] == native[1], f"options differ:\n{text}"
    assert python[0] == native[0], f"event logs differ:\n{text}"


@pytest.mark.early(11)
@QUICK
@given(text=programs(), seed=st.integers(0, 2**32), max_work=BUDGETS, game_work=GAME_BUDGETS)
def test_generated_programs_play_alike_on_both_engines(
    text: str, seed: int, max_work: int, game_work: int
) -> None:
    _play_both(text, seed, max_work, game_work)


@pytest.mark.early(77)
@pytest.mark.slow
@LONG
@given(text=programs(), seed=st.integers(0, 2**32), max_work=BUDGETS, game_work=GAME_BUDGETS)
def test_generated_programs_play_alike_on_both_engines_long(
    text: str, seed: int, max_work: int, game_work: int
) -> None:
    _play_both(text, seed, max_work, game_work)


def test_a_range_too_long_fails_where_the_game_evaluates_it() -> None:
    """Found by the quick fuzz test (2026-12-02): the Python engine hoisted a loop's
    invariant `(size (range ...))` out of an `all` and met its error before the one the
    game evaluates first, which the native engine reports."""
    text = """(game
 (setup (create players 2)
        (create deck (game vloc STOCK) (deck (RANK (TWO, THREE)) (SUIT (X, Y))))
        (set (game sto A) (if (all (range (size (range 8 .. 1000000000)) .. (game sto A)) 'V
                                   (>= 'V (size (range 9 .. 1000000000))))
                              1 0)))
 (stage player (end (>= (game sto TURNS) 2))
   (do ((inc (game sto TURNS) 1)
        (choice ((pass) (inc (game sto B) 1))))))
 (scoring max (game sto B)))"""
    _play_both(text, 0, 10_000_000, 10_000_000)
