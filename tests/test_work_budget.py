"""The work budget (issue 31, item 2): what an expression may do between two decisions.

Every form that loops or builds groups charges the budget (engine/work.py says what
costs what).  Both engines must charge the same amounts at the same places: each test
plays one game on each engine with the budget exactly at the work the form needs (it
completes) and one unit less (it fails at the form, with the same message and span).
That pins the count itself, not only that a limit exists.
"""

from __future__ import annotations

import sys

import pytest
from helpers import game_text, load_text, play_random, run_cli
from test_graph_forms import route_game

from cardlang.engine import collections as ops
from cardlang.engine.gamemaster import Limits
from cardlang.engine.native import native_available
from cardlang.engine.work import DEFAULT_MAX_WORK

ENGINES = [
    "python",
    pytest.param(
        "native",
        marks=pytest.mark.skipif(not native_available(), reason="the native engine is not built"),
    ),
]

STOCK = "(game vloc STOCK)"  # game_text's deck: ranks A B C, suits X Y, six cards
SUITS = "(((SUIT : X) 1) ((SUIT : Y) 2))"
RANKS = "(((RANK : A) 1) ((RANK : B) 2) ((RANK : C) 3))"

#: expression stored in N: (the form that passes the budget, the work of the expression)
FORMS = {
    "filter": (f"(size (filter {STOCK} 'C (== (cardatt SUIT 'C) X)))", "(filter ...)", 6),
    "any": (f"(if (any {STOCK} 'C (== (cardatt RANK 'C) C)) 1 0)", "(any ...)", 6),
    # 6 for the filter, then 6 for the (any ...) of each of the six cards
    "nested": (f"(size (filter {STOCK} 'A (any {STOCK} 'B (== 'A 'B))))", "(any ...)", 42),
    # two suits of three cards: 3 pairs each, one unit per pair and per card in it
    "tuples": (f"(size (tuples 2 {STOCK} using (game points S)))", "(tuples ...)", 18),
    # windows of ranks 1-3: 3 of one (2 units each), 2 of two (3), 1 of three (4): 16;
    # then the runs: 3 x 2 of one card (2 units), 2 x 4 of two (3), 8 of three (4): 68
    "runs": (f"(size (runs all 1 {STOCK} using (game points R)))", "(runs ...)", 84),
    # the three cards taken (3), then 8 subsets of them, holding 12 cards
    "subsets": (f"(size (subsets (top 3 {STOCK})))", "(subsets ...)", 23),
    # tuples (18), then one collection per group (6), filtered (2 each) and kept (2
    # each), then the union of the 12 cards kept
    "groups": (
        f"(size (union (all (tuples 2 {STOCK} using (game points S)) 'G "
        "(filter 'G 'C (== 'C 'C)))))",
        "(union ...)",
        60,
    ),
}


def _form_game(expr: str) -> str:
    return game_text(
        f"(do ((set (game points S) {SUITS})\n      (set (game points R) {RANKS})\n"
        f"      (set (game sto N) {expr})))"
    )


def _play(text: str, engine: str, max_work: int):  # type: ignore[no-untyped-def]
    game = load_text(text)
    result, st = play_random(game.master(Limits(max_work=max_work), engine=engine), 1)
    return result, st


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("form", list(FORMS))
def test_a_form_passes_with_its_work_and_fails_one_unit_short(engine: str, form: str) -> None:
    expr, what, work = FORMS[form]
    text = _form_game(expr)
    result, _ = _play(text, engine, work)
    assert result.end_reason == "completed", result.error
    result, _ = _play(text, engine, work - 1)
    assert result.end_reason == "failed"
    assert result.error.message == (
        f"{what} passes the work budget of {work - 1} units since the last decision (--max-work)"
    )
    assert result.error.span.line == 6  # the (set (game sto N) ...) line
    reference, _ = _play(text, "python", work - 1)
    assert result.error.span == reference.error.span


@pytest.mark.parametrize("engine", ENGINES)
def test_a_choice_charges_its_any_while_listing(engine: str) -> None:
    """Six options, six units; the second form lists through the expanders (an action
    before the fork), the path of choices that are not plain chains."""
    chain = f"(choice ((any {STOCK} 'C (move 'C (top (game vloc P))))))"
    result, _ = _play(game_text(chain), engine, 6)
    assert result.end_reason == "completed"
    result, _ = _play(game_text(chain), engine, 5)
    assert result.error.message.startswith("(any ...) passes the work budget of 5 units")
    # three options of one card each, then three forks over the two cards left: 3 + 2 * 3
    expanded = f"""(choice ((any (top 3 {STOCK}) 'C (do ((move 'C (top (game vloc P)))
                     (any (top 2 {STOCK}) 'D (move 'D (top (game vloc Q)))))))))"""
    result, _ = _play(game_text(expanded), engine, 9 + 9)  # and the same after the move
    assert result.end_reason == "completed", result.error
    result, _ = _play(game_text(expanded), engine, 8)
    assert result.end_reason == "failed"
    assert result.error.message.startswith("(any ...) passes the work budget of 8 units")


@pytest.mark.parametrize("engine", ENGINES)
def test_longest_path_charges_each_route_its_search_takes(engine: str) -> None:
    routes = [("A", "B", 1), ("B", "C", 2), ("C", "A", 3), ("C", "D", 4), ("D", "A", 5)]
    best, taken = ops.search_trails(routes, None)
    assert best == 15 and taken > len(routes)
    text = route_game(routes)
    taken += len(routes)  # the cards read into routes first
    result, st = _play(text, engine, taken)
    assert result.end_reason == "completed"
    assert result.scores[0] == 15
    result, _ = _play(text, engine, taken - 1)
    assert result.end_reason == "failed"
    assert result.error.message.startswith("(longest-path ...) passes the work budget")


def test_the_trail_search_stops_at_its_limit_and_needs_no_recursion() -> None:
    # deeper than Python recurses; not much deeper: the search from every city of a
    # chain costs the square of its length.  Python's own limit for this test: the
    # engine raises it to RECURSION_FLOOR for listing options, which would make the
    # chain 10,200 cities (two and a half minutes)
    saved = sys.getrecursionlimit()
    sys.setrecursionlimit(1_000)
    try:
        length = sys.getrecursionlimit() + 200
        chain = [(f"c{i}", f"c{i + 1}", 1) for i in range(length)]
        assert ops.search_trails(chain, None)[0] == length
        with pytest.raises(ops.TooMuchWork):
            ops.search_trails(chain, 100)
    finally:
        sys.setrecursionlimit(saved)


@pytest.mark.parametrize("engine", ENGINES)
def test_loops_over_all_players_are_free(engine: str) -> None:
    body = "(do ((all player 'P (inc ('P sto N) 1)) (set (game sto M) (size (filter player 'P (== 'P 'P))))))"
    result, st = _play(game_text(body), engine, 1)
    assert result.end_reason == "completed"


@pytest.mark.parametrize("engine", ENGINES)
def test_the_budget_is_per_decision(engine: str) -> None:
    """Each decision's filter costs 6: a budget of 6 lasts a whole game of them."""
    body = f"""(stage player (end (== (size (game vloc P)) 6))
                (choice (((> (size (filter {STOCK} 'C (== 'C 'C))) 0)
                          (move (top {STOCK}) (top (game vloc P)))))))"""
    result, st = _play(game_text(body), engine, 6)
    assert result.end_reason == "completed"
    assert st.decisions == 6


@pytest.mark.parametrize("engine", ENGINES)
def test_a_smaller_budget_fails_in_setup_after_a_larger_one_played(engine: str) -> None:
    """The native engine runs the setup's first statements once and reuses their state;
    their work is charged again, so a master with a smaller budget still fails there."""
    text = f"""(game
 (setup (create players 2)
        (create deck {STOCK} (deck (RANK (A, B, C)) (SUIT (X, Y))))
        (set (game sto N) (size (filter {STOCK} 'C (== 'C 'C)))))
 (do ((shuffle {STOCK})))
 (scoring max 0))"""
    game = load_text(text)
    big = game.master(Limits(max_work=100), engine=engine)
    for seed in (1, 2, 3):
        assert big.result(big.new_game(seed)).end_reason == "completed"
    small = game.master(Limits(max_work=5), engine=engine)
    result = small.result(small.new_game(4))
    assert result.end_reason == "failed"
    assert result.error.message.startswith("(filter ...) passes the work budget of 5 units")


@pytest.mark.parametrize("engine", ENGINES)
def test_looking_at_a_game_charges_nothing(engine: str) -> None:
    """Scores evaluated for a view between decisions run outside the budget: asking for
    them any number of times changes nothing in the game."""
    body = f"(stage player (end (== (size {STOCK}) 0)) (choice ((move (top {STOCK}) (top (game vloc P))))))"
    scoring = f"(scoring max (size (filter {STOCK} 'C (== 'C 'C))))"
    game = load_text(game_text(body, scoring=scoring))
    master = game.master(Limits(max_work=6), engine=engine)
    st = master.new_game(1)
    while not st.is_over:
        for _ in range(5):
            master.current_scores(st)
        master.apply(st, 0)
    assert master.result(st).end_reason == "completed"


def test_simulate_records_the_budget_and_transcript_replays_under_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    game = tmp_path / "work.rcy"
    game.write_text(_form_game(FORMS["nested"][0]))
    db = str(tmp_path / "runs.sqlite")
    done = run_cli("simulate", str(game), "--games", "1", "--max-work", "41", "--db", db)
    assert done.returncode == 1, done.stderr  # a game failed
    assert "passes the work budget of 41 units" in done.stdout
    shown = run_cli("transcript", "--db", db, "--game", "1")
    assert "(any ...) passes the work budget of 41 units" in shown.stdout + shown.stderr
    bad = run_cli("simulate", str(game), "--max-work", "0")
    assert bad.returncode == 2 and "--max-work" in bad.stderr


def test_the_default_budget_leaves_a_batch_key_as_it_was() -> None:
    """Batches recorded before the budget existed resume under the default one."""
    from cardlang.runs.store import BatchSpec

    fields = dict(
        game_path="g.rcy",
        game_file="/g.rcy",
        game_sha256="0" * 64,
        params={},
        root_seed=0,
        games=1,
        agents=("random",),
        rotate_seats=False,
        max_decisions=5000,
        max_steps=200000,
    )
    default = BatchSpec(**fields)  # type: ignore[arg-type]
    assert default.key() == BatchSpec(**fields, max_work=DEFAULT_MAX_WORK).key()  # type: ignore[arg-type]
    assert default.key() != BatchSpec(**fields, max_work=7).key()  # type: ignore[arg-type]
