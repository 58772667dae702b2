"""The language's semantics, one rule at a time, on small hand-written games."""

from __future__ import annotations

import pytest
from helpers import game_text, load_text, play_random

from cardlang.engine import collections as ops
from cardlang.engine.gamemaster import Limits


def run_to_end(text: str, seed: int = 1, limits: Limits | None = None):  # type: ignore[no-untyped-def]
    game = load_text(text)
    master = game.master(limits)
    result, st = play_random(master, seed, record=True)
    return game, master, result, st


def ints(st, name):  # type: ignore[no-untyped-def]
    return {k[0]: v for k, v in st.ints.items() if k[1] == name}


# ---------------------------------------------------------------- stages and cycles


def test_stage_checks_end_before_every_pass_and_advances_between_passes() -> None:
    body = """(stage player (end (== (game sto N) 5))
                 (do ((inc (game sto N) 1) (inc ((current player) sto TURNS) 1))))"""
    _, _, result, st = run_to_end(game_text(body, players=3))
    assert result.completed
    assert ints(st, "TURNS") == {0: 2, 1: 2, 2: 1}  # P0, P1, P2, P0, P1


def test_stage_whose_end_holds_runs_zero_times_and_leaks_no_cycle() -> None:
    body = """(stage player (end (== 1 1)) (do ((inc (game sto BAD) 1))))
              (stage player (end (== (game sto N) 1))
                 (do ((inc (game sto N) 1) (set (game sto WHO) 7) (inc ((current player) sto T) 1))))"""
    _, _, result, st = run_to_end(game_text(body))
    assert ints(st, "BAD") == {}
    assert ints(st, "T") == {0: 1}  # the second stage starts with P0, not P1


def test_nested_stage_starts_from_outer_current_and_cycle_next_picks_the_leader() -> None:
    # the outer stage queues P2 to go next; the inner stage then starts with P2
    body = """(stage player (end (== (game sto ROUNDS) 2))
                (stage player (end (== (game sto PLAYED) 1))
                   (do ((inc (game sto PLAYED) 1) (inc ((current player) sto LED) 1))))
                (do ((set (game sto PLAYED) 0) (inc (game sto ROUNDS) 1) (cycle next (2 player)))))"""
    _, _, result, st = run_to_end(game_text(body, players=3))
    assert ints(st, "LED") == {0: 1, 2: 1}


def test_team_stage_cycles_teams_and_keeps_the_current_player() -> None:
    body = """(setup (create players 4) (create teams (0, 2) (1, 3)))"""
    text = """(game
 (setup (create players 4) (create teams (0, 2) (1, 3))
        (create deck (game vloc STOCK) (deck (RANK (A, B)))))
 (stage team (end (== (game sto N) 2))
    (do ((inc (game sto N) 1)
         (inc ((current team) sto VISITS) 1)
         (inc ((current player) sto SEEN) 1))))
 (scoring max ((team (current player)) sto VISITS)))"""
    del body
    _, _, result, st = run_to_end(text)
    assert {k: v for k, v in st.ints.items() if k[1] == "VISITS"} == {
        (-2, "VISITS"): 1,
        (-3, "VISITS"): 1,
    }
    assert ints(st, "SEEN") == {0: 2}
    assert result.scores == (1, 1, 1, 1)


# ---------------------------------------------------------------- choices


def test_options_of_a_choice_and_guards_inside_an_option() -> None:
    body = """(stage player (end (== (game sto DONE) 1))
       (choice (
          ((== 1 2) (set (game sto DONE) 1))
          (any (game vloc STOCK) 'C
               (do ((move 'C (top (game vloc PILE)))
                    ((== (size (game vloc PILE)) 1) (set (game sto DONE) 1))
                    ((== (size (game vloc PILE)) 99) (set (game sto NEVER) 1))))))))"""
    game = load_text(game_text(body))
    master = game.master()
    st = master.new_game(3)
    options = master.legal_options(st)
    assert len(options) == 6  # the false guard gives none; one per card
    master.apply(st, 0)
    # the later guard saw the earlier move of the same option
    assert st.ints[(-1, "DONE")] == 1 and (-1, "NEVER") not in st.ints
    assert st.is_over


def test_any_over_an_empty_collection_inside_an_option_adds_nothing() -> None:
    body = """(choice ((do ((set (game sto A) 1)
                            (any (game vloc EMPTY) 'C (move 'C (top (game vloc X))))))))"""
    game = load_text(game_text(body))
    master = game.master()
    st = master.new_game(1)
    assert len(master.legal_options(st)) == 1


def test_choice_with_no_option_fails_with_a_positioned_rule_error() -> None:
    body = """(choice (((== 1 2) (turn pass))))"""
    _, _, result, _ = run_to_end(game_text(body), seed=42)
    assert result.end_reason == "failed"
    text = result.error.render()
    assert "test.rcy:" in text and "no legal option" in text and "seed 42" in text


def test_move_from_an_empty_location_is_a_positioned_rule_error() -> None:
    body = """(do ((move (top (game vloc NOWHERE)) (top (game vloc STOCK)))))"""
    _, _, result, _ = run_to_end(game_text(body))
    assert result.end_reason == "failed"
    assert "move from an empty location" in result.error.message
    assert result.error.span.line == 4


def test_any_outside_a_choice_runs_for_every_element() -> None:
    body = """(do ((any (game vloc STOCK) 'C (inc (game sto N) 1))))"""
    game, _, _, st = run_to_end(game_text(body))
    assert st.ints[(-1, "N")] == 6
    assert any("outside a choice" in w.message for w in game.warnings)


def test_listing_options_leaves_the_state_as_it_was() -> None:
    body = """(choice ((any (game vloc STOCK) 'C (do ((move 'C (top (game vloc PILE)))
                ((> (size (game vloc PILE)) 0) (shuffle (game vloc STOCK))))))))"""
    game = load_text(game_text(body))
    master = game.master()
    st = master.new_game(9)
    before = st.fingerprint()
    master.legal_options(st)
    assert st.fingerprint() == before


# ---------------------------------------------------------------- actions and values


def test_repeat_n_of_inc_adds_n_times() -> None:  # CardStock adds once
    _, _, _, st = run_to_end(game_text("(do ((repeat 4 (inc (game sto N) 3))))"))
    assert st.ints[(-1, "N")] == 12


def test_cards_compare_by_identity() -> None:  # CardStock's (== CARD CARD) is always false
    body = """(do (((== (top (game vloc STOCK)) (top (game vloc STOCK))) (set (game sto SAME) 1))
                  ((!= (top (game vloc STOCK)) (bottom (game vloc STOCK))) (set (game sto DIFF) 1))))"""
    _, _, _, st = run_to_end(game_text(body))
    assert st.ints[(-1, "SAME")] == 1 and st.ints[(-1, "DIFF")] == 1


def test_index_counts_from_the_bottom_and_top_n_takes_the_top() -> None:
    body = """(do ((set (game str FIRST) (cardatt RANK (0 (game vloc STOCK))))
                  (set (game str LAST) (cardatt RANK (top (game vloc STOCK))))
                  (set (game sto TOPN) (size (top 2 (game vloc STOCK))))))"""
    _, _, _, st = run_to_end(game_text(body, deck="(deck (RANK (A, B, C)))"))
    assert st.strs[(-1, "FIRST")] == "A" and st.strs[(-1, "LAST")] == "C"
    assert st.ints[(-1, "TOPN")] == 2


def test_remember_and_forget_keep_the_card_where_it_is() -> None:
    body = """(do ((remember (top (game vloc STOCK)) (top (game mem SEEN)))
                  (set (game sto REFS) (size (game mem SEEN)))
                  (move (top (game mem SEEN)) (top (game vloc PILE)))
                  (forget (top (game mem SEEN)))))"""
    game, _, result, st = run_to_end(game_text(body))
    assert st.ints[(-1, "REFS")] == 1
    assert len(st.zones[(-1, "vloc", "STOCK")]) == 5 and len(st.zones[(-1, "vloc", "PILE")]) == 1
    assert st.zones[(-1, "mem", "SEEN")] == []


def test_ties_share_the_win() -> None:  # CardStock gives everyone a full win
    _, _, result, _ = run_to_end(game_text("(do ((turn pass)))", players=3))
    assert result.winners == (0, 1, 2)
    assert result.credits == pytest.approx((1 / 3, 1 / 3, 1 / 3))


def test_scoring_min_ranks_lowest_first() -> None:
    body = "(do ((set ((1 player) sto S) 5) (set ((0 player) sto S) 9)))"
    _, _, result, _ = run_to_end(game_text(body, scoring="(scoring min ((current player) sto S))"))
    assert result.ranks == (2, 1)
    assert result.winners == (1,)


# ---------------------------------------------------------------- limits


def test_decision_limit_cuts_the_game_off() -> None:
    body = "(stage player (end (== 1 2)) (choice ((turn pass))))"
    _, _, result, _ = run_to_end(game_text(body), limits=Limits(max_decisions=50))
    assert result.end_reason == "cutoff:decisions" and result.decisions == 50
    assert result.winners == () and result.credits == (0.0, 0.0)


def test_step_limit_catches_a_flow_that_never_decides() -> None:
    body = "(stage player (end (== 1 2)) (do ((inc (game sto N) 1))))"
    _, _, result, _ = run_to_end(game_text(body), limits=Limits(max_steps=1000))
    assert result.end_reason == "cutoff:steps"


def test_subsets_of_too_many_cards_is_a_clear_rule_error() -> None:
    deck = "(deck (RANK (A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q)))"
    body = "(choice ((any (subsets (game vloc STOCK)) 'S (turn pass))))"
    _, _, result, _ = run_to_end(game_text(body, deck=deck))
    assert result.end_reason == "failed"
    assert "subsets" in result.error.message and "limit" in result.error.message


# ---------------------------------------------------------------- collection operations


def test_tuples_are_every_group_of_equal_score_by_ascending_score() -> None:
    score = {1: 5, 2: 5, 3: 7, 4: 5, 5: 7}.__getitem__
    assert ops.tuples([1, 2, 3, 4, 5], score, 2) == [(1, 2), (1, 4), (2, 4), (3, 5)]


def test_runs_branch_on_equal_scores() -> None:
    score = {1: 3, 2: 4, 3: 4, 4: 5, 5: 9}.__getitem__
    assert ops.runs([1, 2, 3, 4, 5], score, 3, "largest") == [[1, 2, 4], [1, 3, 4]]
    all_runs = ops.runs([1, 2, 4], score, 2, "all")
    assert all_runs == [[1, 2], [2, 4], [1, 2, 4]]


def test_run_at_end_is_the_longest_run_touching_that_end() -> None:
    score = {1: 9, 2: 3, 3: 5, 4: 4}.__getitem__  # top is the last card
    assert ops.run_at_end([1, 2, 3, 4], score, 3, "top") == [2, 3, 4]
    assert ops.run_at_end([1, 2, 3, 4], score, 3, "bottom") == []


def test_partition_and_subsets() -> None:
    table = [{"S": "H"}, {"S": "C"}, {"S": "H"}]
    assert ops.partition([0, 1, 2], table, "S") == [[0, 2], [1]]
    assert len(ops.subsets([1, 2, 3])) == 8


# ---------------------------------------------------------------- regressions found while
# documenting the language


def test_repeat_with_a_computed_count_inside_a_choice_keeps_any_a_fork() -> None:
    body = """(do ((set (game sto K) 2)))
              (choice ((repeat (game sto K) (any (game vloc STOCK) 'C (move 'C (top (game vloc P)))))))"""
    game = load_text(game_text(body))
    master = game.master()
    st = master.new_game(1)
    assert len(master.legal_options(st)) == 6 * 5  # two picks, one card at a time


def test_declared_values_are_evaluated_once() -> None:
    text = game_text("(do ((set (game sto A) 'R) (set (game sto B) 'R)))").replace(
        "(game\n", "(game\n (declare (random 1000) 'R)\n", 1
    )
    _, _, _, st = run_to_end(text, seed=3)
    assert st.ints[(-1, "A")] == st.ints[(-1, "B")]


def test_repeat_all_empties_the_collection_of_a_min() -> None:
    body = """(do ((set (game points P) (((RANK : A) 1)))
                  (repeat all (move (actual (min (game vloc STOCK) using (game points P)))
                                    (top (game vloc PILE))))))"""
    _, _, _, st = run_to_end(game_text(body))
    assert len(st.zones[(-1, "vloc", "PILE")]) == 6


def test_union_of_groups_removes_duplicates() -> None:
    body = """(do ((set (game points P) (((SUIT : X) 1)))
                  (set (game sto N) (size (union (tuples 2 (game vloc STOCK) using (game points P)))))))"""
    _, _, _, st = run_to_end(game_text(body))
    assert st.ints[(-1, "N")] == 6


def test_missing_cards_are_never_equal() -> None:
    body = """(do (((== (top (game vloc E1)) (top (game vloc E2))) (set (game sto SAME) 1))))"""
    _, _, _, st = run_to_end(game_text(body))
    assert (-1, "SAME") not in st.ints


def test_named_decks_mark_their_cards() -> None:
    text = game_text(
        "(do (((== (cardatt DECK (top (game vloc STOCK))) RED) (set (game sto OK) 1))))"
    )
    text = text.replace("(create deck (game vloc STOCK)", "(create deck RED (game vloc STOCK)")
    _, _, _, st = run_to_end(text)
    assert st.ints[(-1, "OK")] == 1


def test_a_game_ending_on_its_last_allowed_decision_is_complete() -> None:
    _, _, result, _ = run_to_end(
        game_text("(choice ((turn pass)))"), limits=Limits(max_decisions=1)
    )
    assert result.end_reason == "completed"


def test_integer_division_truncates_like_cardstock() -> None:
    body = "(do ((set (game sto Q) (// (- 0 7) 2)) (set (game sto R) (% (- 0 7) 2))))"
    _, _, _, st = run_to_end(game_text(body))
    assert st.ints[(-1, "Q")] == -3 and st.ints[(-1, "R")] == -1


def test_loop_invariant_parts_are_hoisted_without_changing_results() -> None:
    # the inner (cardatt ... (top ('P iloc HAND))) depends on the inner loop's 'P: it must
    # be evaluated per player, while (top (game vloc STOCK)) is the same for every card
    body = """(do ((move (top (game vloc STOCK)) (top ((0 player) iloc HAND)))
                  (move (top (game vloc STOCK)) (top ((1 player) iloc HAND)))
                  (set (game sto N) (size (filter (game vloc STOCK) 'C
                      (any player 'P (== (cardatt SUIT 'C) (cardatt SUIT (top ('P iloc HAND))))))))
                  (set (game sto M) (size (filter (game vloc STOCK) 'C
                      (== (cardatt SUIT 'C) (cardatt SUIT (top (game vloc STOCK)))))))))"""
    deck = "(deck (RANK (A, B, C)) (SUIT (X, Y)))"
    _, _, _, st = run_to_end(game_text(body, deck=deck), seed=2)
    stock = st.zones[(-1, "vloc", "STOCK")]
    hand_suits = {st.cards[st.zones[(p, "iloc", "HAND")][0]]["SUIT"] for p in (0, 1)}
    top_suit = st.cards[stock[-1]]["SUIT"]
    assert st.ints[(-1, "N")] == sum(st.cards[c]["SUIT"] in hand_suits for c in stock)
    assert st.ints[(-1, "M")] == sum(st.cards[c]["SUIT"] == top_suit for c in stock)


# ---------------------------------------------------------------- forms of later RECYCLE
# versions, found in CardStock games outside the 0.5.10 corpus


def test_inc_and_dec_default_to_one_and_plus_takes_many_operands() -> None:
    body = "(do ((inc (game sto N)) (inc (game sto N)) (dec (game sto M)) (set (game sto S) (+ 1 2 3 4)) (set (game sto P) (* 2 3 4))))"
    _, _, _, st = run_to_end(game_text(body))
    assert (st.ints[(-1, "N")], st.ints[(-1, "M")]) == (2, -1)
    assert (st.ints[(-1, "S")], st.ints[(-1, "P")]) == (10, 24)


def test_pid_tid_and_score_extremes() -> None:
    body = """(do ((set (game sto W) (pid (next player)))
                  (set (game sto T) (tid (team (1 player))))
                  (set (game points P) (((RANK : A) 1) ((RANK : C) 7)))
                  (set (game sto HI) (scoremax (game vloc STOCK) using (game points P)))
                  (set (game sto LO) (scoremin (game vloc STOCK) using (game points P)))
                  (set (game sto NONE) (scoremax (game vloc EMPTY) using (game points P)))))"""
    _, _, _, st = run_to_end(game_text(body, players=3))
    got = {k[1]: v for k, v in st.ints.items()}
    assert got == {"W": 1, "T": 1, "HI": 7, "LO": 0, "NONE": -1}


def test_swap_exchanges_two_cards_places() -> None:
    body = """(do ((move (top (game vloc STOCK)) (top ((0 player) iloc HAND)))
                  (move (top (game vloc STOCK)) (top ((1 player) iloc HAND)))
                  (set (game str A) (cardatt RANK (top ((0 player) iloc HAND))))
                  (swap (top ((0 player) iloc HAND)) (top ((1 player) iloc HAND)))
                  (set (game str B) (cardatt RANK (top ((1 player) iloc HAND))))))"""
    _, _, _, st = run_to_end(game_text(body, deck="(deck (RANK (A, B, C)))"))
    assert st.strs[(-1, "A")] == st.strs[(-1, "B")] == "C"
    assert st.card_zone[st.zones[(1, "iloc", "HAND")][0]] == (1, "iloc", "HAND")


def test_indexed_locations_and_partition_runs() -> None:
    body = """(do ((move (top (game vloc STOCK)) (top (game vloc ROW 1)))
                  (move (top (game vloc STOCK)) (top (game vloc ROW 3)))
                  (set (game sto ROWS) (size (indexed game vloc ROW)))
                  (all (indexed game vloc ROW) 'R (move (top 'R) (top (game vloc PILE))))
                  (set (game points P) (((RANK : A) 1) ((RANK : B) 2) ((RANK : D) 4)))
                  (set (game sto RUNS) (size (partition runs (game vloc STOCK) using (game points P))))))"""
    deck = "(deck (RANK (A, B, D, E)))"
    _, _, result, st = run_to_end(game_text(body, deck=deck))
    assert result.completed
    assert st.ints[(-1, "ROWS")] == 2 and len(st.zones[(-1, "vloc", "PILE")]) == 2
    assert st.ints[(-1, "RUNS")] == 1  # A and B are left in the stock: one run, 1-2


def test_indexed_locations_seen_again_after_new_ones_are_made() -> None:
    # (indexed ...) is cached per state; locations made after a first look (here ROW 2,
    # ROW 0, then an unrelated one) must show up, in index order, at the next look.
    body = """(do ((move (top (game vloc STOCK)) (top (game vloc ROW 1)))
                  (set (game sto A) (size (indexed game vloc ROW)))
                  (move (top (game vloc STOCK)) (top (game vloc ROW 2)))
                  (move (top (game vloc STOCK)) (top (game vloc ROW)))
                  (move (top (game vloc STOCK)) (top (game vloc OTHER)))
                  (set (game sto B) (size (indexed game vloc ROW)))
                  (all (indexed game vloc ROW) 'R (move (top 'R) (top (game vloc PILE))))))"""
    _, _, result, st = run_to_end(game_text(body, deck="(deck (RANK (A, B, C, D)))"))
    assert result.completed
    assert st.ints[(-1, "A")] == 1 and st.ints[(-1, "B")] == 3
    # the stock is dealt from the top: ROW 1 got the first card, ROW 2 the second, ROW 0
    # the third; moved over in index order, the pile holds them as ROW 0, 1, 2
    stock_order = st.zones[(-1, "vloc", "OTHER")]  # the fourth card
    pile = st.zones[(-1, "vloc", "PILE")]
    assert len(pile) == 3 and len(stock_order) == 1
    assert pile == [stock_order[0] + 1, stock_order[0] + 3, stock_order[0] + 2]


def test_teams_numbered_from_one_are_read_from_zero() -> None:
    text = """(game
 (setup (create players 4) (create teams (1, 3) (2, 4))
        (create deck (game vloc STOCK) (deck (RANK (A, B)))))
 (do ((set (game sto T) (tid (team (2 player))))))
 (scoring max 0))"""
    game, _, _, st = run_to_end(text)
    assert st.teams[:2] == [(0, 2), (1, 3)] and st.ints[(-1, "T")] == 0
    assert any("number players from 1" in w.message for w in game.warnings)


@pytest.mark.parametrize("engine", ["python", "native"])
@pytest.mark.parametrize(
    ("binding", "gone"),
    [("(let (3 team) 'TM", 3), ("(all team 'TM", 1)],
)
def test_a_team_bound_before_the_players_are_regrouped_is_a_rule_error(
    engine: str, binding: str, gone: int
) -> None:
    """Issue 31: an IndexError in Python and a read out of bounds in C++ before; now the
    same positioned rule error on both engines, and the teams that still exist work."""
    from cardlang.engine.native import native_available

    if engine == "native" and not native_available():
        pytest.skip("the native engine is not built")
    text = f"""(game
 (setup (create players 4))
 (do ({binding}
       (do ((create teams (0, 1, 2, 3))
            (all 'TM 'P (inc ('P sto SCORE) 1)))))))
 (scoring max ((current player) sto SCORE)))"""
    game = load_text(text)
    result, _ = play_random(game.master(engine=engine), 1, record=True)
    assert result.end_reason == "failed"
    assert (
        result.error.message == f"there is no team {gone} now (create teams regrouped the players)"
    )
    assert (result.error.span.line, result.error.span.column) == (5, 18)


MIN64 = "(- (- 0 (^ 2 62)) (^ 2 62))"
OVERFLOWS = {
    "(+ (^ 2 62) (^ 2 62))": "(+ 4611686018427387904 4611686018427387904)",
    f"(- {MIN64} 1)": "(- -9223372036854775808 1)",
    "(* (^ 2 32) (^ 2 31))": "(* 4294967296 2147483648)",
    "(^ 3 40)": "(^ 3 40)",
    "(^ 2 63)": "(^ 2 63)",
    "(^ (- 0 2) 64)": "(^ -2 64)",
    f"(// {MIN64} (- 0 1))": "(// -9223372036854775808 -1)",
    "(tri 5000000000)": "(tri 5000000000)",
    "(tri (- 0 5000000000))": "(tri -5000000000)",
    "(fib 93)": "(fib 93)",
    "(fib (^ 10 18))": "(fib 1000000000000000000)",  # refused at once, not computed
    "(+ (^ 2 62) (- (^ 2 62) 1))": "(inc 9223372036854775807 1)",  # the (inc ...) after
}
FITS = {
    MIN64: -(2**63) + 1,  # and the (inc ... 1) after it
    "(^ (- 0 2) 63)": -(2**63) + 1,
    f"(% {MIN64} (- 0 1))": 1,
    f"(// {MIN64} 1)": -(2**63) + 1,
    "(fib 92)": 7540113804746346429 + 1,
}


def _integer_game(expr: str) -> str:
    return f"""(game
 (setup (create players 2))
 (do ((set (game sto X) {expr})
      (inc (game sto X) 1)))
 (scoring max (game sto X)))"""


@pytest.mark.parametrize("engine", ["python", "native"])
@pytest.mark.parametrize("expr", list(OVERFLOWS))
def test_integers_are_checked_64_bit_on_both_engines(engine: str, expr: str) -> None:
    """Issue 31: the native engine wrapped (and died of SIGFPE on MIN // -1) where Python
    had unbounded integers; both now stop with the same positioned rule error."""
    from cardlang.engine.native import native_available

    if engine == "native" and not native_available():
        pytest.skip("the native engine is not built")
    game = load_text(_integer_game(expr))
    result, _ = play_random(game.master(engine=engine), 1, record=True)
    assert result.end_reason == "failed"
    what = OVERFLOWS[expr]
    assert result.error.message == f"integer overflow: {what} is outside the 64-bit range"
    line = 4 if what.startswith("(inc") else 3
    assert result.error.span.line == line


@pytest.mark.parametrize("engine", ["python", "native"])
@pytest.mark.parametrize("expr", list(FITS))
def test_results_inside_64_bits_are_exact_on_both_engines(engine: str, expr: str) -> None:
    from cardlang.engine.native import native_available

    if engine == "native" and not native_available():
        pytest.skip("the native engine is not built")
    game = load_text(_integer_game(expr))
    result, _ = play_random(game.master(engine=engine), 1, record=True)
    assert result.end_reason != "failed" and result.scores == (FITS[expr], FITS[expr])


def test_integer_literals_and_parameters_stay_inside_64_bits() -> None:
    from cardlang.errors import GameFileError, UsageError

    with pytest.raises(GameFileError, match="too large"):  # the parser allows 18 digits
        load_text(_integer_game("9223372036854775808"))
    text = "(game (declare 3 'N) (setup (create players 2)) (do ((set (game sto X) 'N)))"
    text += " (scoring max (game sto X)))"
    from cardlang import load_game

    with pytest.raises(UsageError, match="whole number up to 9223372036854775807"):
        load_game(text=text, params={"N": "9223372036854775808"})
    game = load_game(text=text, params={"N": "9223372036854775807"})
    result, _ = play_random(game.master(), 1, record=True)
    assert result.scores == (2**63 - 1, 2**63 - 1)


def test_one_action_cannot_run_for_ever() -> None:
    for body in (
        "(do ((repeat 2000000 (inc (game sto N) 1))))",
        "(do ((all (range 0 .. 5000000) 'I (inc (game sto N) 1))))",
    ):
        _, _, result, _ = run_to_end(game_text(body))
        assert result.end_reason == "failed" and "more than" in result.error.message


def test_deeply_nested_loops_compile_and_count_right() -> None:
    # only the outermost loop over players is unrolled, and invariant parts are found in
    # one pass: both used to grow exponentially with the nesting depth
    body = "(inc (game sto N) 1)"
    for i in range(10):
        body = f"(all player 'P{chr(65 + i)} {body})"
    _, _, _, st = run_to_end(game_text(f"(do ({body}))", players=4))
    assert st.ints[(-1, "N")] == 4**10
    cond = "(== (cardatt RANK 'C) (cardatt RANK (top (game vloc STOCK))))"
    for i in range(18):
        cond = f"(any (range 1 .. 1) 'D{chr(65 + i)} {cond})"  # one element: runs fast
    text = game_text(f"(do ((set (game sto M) (size (filter (game vloc STOCK) 'C {cond})))))")
    _, _, _, st = run_to_end(text)
    top_rank = st.cards[st.zones[(-1, "vloc", "STOCK")][-1]]["RANK"]
    assert st.ints[(-1, "M")] == sum(
        st.cards[c]["RANK"] == top_rank for c in st.zones[(-1, "vloc", "STOCK")]
    )


# ---------------------------------------------------------------- general forms for games
# like Dominion: decisions by any player, loops that end on a decision, conditionals


def test_choice_by_another_player_inside_a_while_loop() -> None:
    # a Militia: each other player discards, one card at a time, down to 3 cards
    deck = "(deck (RANK (A, B, C, D, E, F, G, H, I, J)) (SUIT (X, Y)))"
    body = """(do ((all player 'P (repeat 5 (move (top (game vloc STOCK)) (top ('P iloc HAND)))))))
      (all (other player) 'V
        (while (> (size ('V iloc HAND)) 3)
          (choice by 'V ((any ('V iloc HAND) 'C (move 'C (top ('V vloc DISCARD))))))))"""
    game = load_text(game_text(body, players=3, deck=deck))
    master = game.master()
    st = master.new_game(4)
    movers = []
    while not st.is_over:
        movers.append(st.mover)
        assert len(master.legal_options(st)) == len(st.zones[(st.mover, "iloc", "HAND")])
        master.apply(st, 0)
    assert movers == [1, 1, 2, 2]
    assert [len(st.zones[(p, "iloc", "HAND")]) for p in range(3)] == [5, 3, 3]


def test_while_without_a_decision_runs_at_once_and_is_bounded() -> None:
    body = "(do ((while (< (game sto N) 7) (inc (game sto N)))))"
    _, _, _, st = run_to_end(game_text(body))
    assert st.ints[(-1, "N")] == 7
    _, _, result, _ = run_to_end(game_text("(do ((while (== 1 1) (inc (game sto N)))))"))
    assert result.end_reason == "failed" and "while" in result.error.message


def test_if_expressions() -> None:
    body = """(do ((set (game sto A) (if (> (size (game vloc STOCK)) 3) 10 20))
                  (set (game str B) (if (== 1 2) YES NO))
                  (set (game sto C) (size (if (== 1 1) (game vloc STOCK)
                                             (filter (game vloc STOCK) 'X (== 1 2)))))))"""
    _, _, _, st = run_to_end(game_text(body))
    assert (st.ints[(-1, "A")], st.strs[(-1, "B")], st.ints[(-1, "C")]) == (10, "NO", 6)


def test_scoring_tie_breaks() -> None:
    # equal first scores; the tie-break (fewest turns taken, say) decides
    body = "(do ((set ((0 player) sto T) 5) (set ((1 player) sto T) 4) (set ((2 player) sto T) 4)))"
    scoring = "(scoring max 10 min ((current player) sto T))"
    _, _, result, _ = run_to_end(game_text(body, players=3, scoring=scoring))
    assert result.scores == (10, 10, 10) and result.ranks == (3, 1, 1)
    assert result.winners == (1, 2) and result.tiebreak_scores == ((5,), (4,), (4,))
