"""cardlang's extensions (docs/language.md, "cardlang's extensions"), on small games.

Procedures (parameters, recursion, depth limits), card kinds (typed attributes, hooks,
``create cards``), decisions (situations, ``by``, tail choices, ``pass``, ``while``,
``others``), the checker's errors for all of them, the description of options agents
see, and cloning a state in the middle of a recursive call.
"""

from __future__ import annotations

import random

import pytest
from helpers import load_text, play_random

from cardlang.engine.frames import CALL
from cardlang.errors import GameFileError
from cardlang.information.views import view_of
from cardlang.language.kinds import card_type

DECK = "(deck (RANK (A, B, C)) (SUIT (X, Y)))"  # cards 0..5: A-X A-Y B-X B-Y C-X C-Y


def game(defs: str, body: str, players: int = 2, setup: str = "", deck: str = DECK) -> str:
    """A game with definitions ``defs``, flow ``body``, and a stock of ``deck`` cards."""
    return f"""(game
{defs}
 (setup (create players {players})
        (create deck (game vloc STOCK) {deck}){setup})
 {body}
 (scoring max 0))"""


def run(text: str, seed: int = 1):  # type: ignore[no-untyped-def]
    game_ = load_text(text)
    result, st = play_random(game_.master(), seed, record=True)
    return game_, result, st


def at(text: str, snippet: str) -> tuple[int, int]:
    """(line, column), 1-based, of the only occurrence of ``snippet`` in ``text``."""
    assert text.count(snippet) == 1, f"{snippet!r} must occur once"
    i = text.index(snippet)
    return text.count("\n", 0, i) + 1, i - text.rfind("\n", 0, i)


def ints(st, name: str) -> dict[int, int]:  # type: ignore[no-untyped-def]
    return {k[0]: v for k, v in st.ints.items() if k[1] == name}


def zone(st, name: str, kind: str = "vloc", owner: int = -1) -> list[int]:  # type: ignore[no-untyped-def]
    return list(st.zones.get((owner, kind, name), []))


def play_first(master, st) -> list[tuple[int, str]]:  # type: ignore[no-untyped-def]
    """Play option 0 until the end; the (mover, situation) of every decision."""
    seen = []
    while not st.is_over:
        seen.append((st.mover, st.pending.situation))
        master.apply(st, 0)
    return seen


# ================================================================ procedures


def test_parameters_of_every_type_are_bound_and_read() -> None:
    defs = """ (define ONE ((player 'P) (team 'T) (card 'C) (integer 'N) (string 'S)
                  (location 'L) (cards 'CS))
   (set ('P sto N) 'N)
   (set ('T sto TN) (+ 'N (size 'T)))
   (set (game str S) 'S)
   (set (game str CK) (cardatt SUIT 'C))
   (move 'C (top 'L))
   (set (game sto LS) (size 'L))
   (set (game sto CS) (size 'CS))
   (set (game sto CSX) (size (filter 'CS 'Z (== (cardatt SUIT 'Z) X)))))"""
    body = """(do ((call ONE (1 player) (team (2 player)) (top (game vloc STOCK)) (+ 40 2) HELLO
                  ((0 player) vloc PILE) (filter (game vloc STOCK) 'Z (== (cardatt RANK 'Z) A)))))"""
    _, result, st = run(game(defs, body, players=3))
    assert result.completed
    assert ints(st, "N") == {1: 42}
    assert ints(st, "TN") == {-2 - 2: 43}  # team 2's storage: 42 + one player
    assert st.strs[(-1, "S")] == "HELLO" and st.strs[(-1, "CK")] == "Y"
    assert zone(st, "PILE", owner=0) == [5] and ints(st, "LS") == {-1: 1}
    assert ints(st, "CS") == {-1: 2} and ints(st, "CSX") == {-1: 1}


def test_arguments_are_evaluated_before_the_call() -> None:
    defs = """ (define P ((integer 'N) (card 'C) (string 'S))
   (move (top (game vloc STOCK)) (top (game vloc PILE)))
   (set (game sto N) 'N)
   (set (game str S) 'S)
   (move 'C (top (game vloc OUT))))"""
    body = """(do ((call P (size (game vloc STOCK)) (top (game vloc STOCK))
                     (cardatt SUIT (top (game vloc STOCK))))))"""
    _, result, st = run(game(defs, body))
    assert result.completed
    # the values as they were at the call, not after the body's first move
    assert st.ints[(-1, "N")] == 6 and st.strs[(-1, "S")] == "Y"
    assert zone(st, "OUT") == [5] and zone(st, "PILE") == []  # 'C is the card, wherever it went


@pytest.mark.parametrize("decide", [False, True])
def test_all_arguments_are_evaluated_before_any_parameter_is_bound(decide: bool) -> None:
    # a recursive call swapping its own parameters: binding 'A before evaluating 'A for
    # the second argument would give (2, 2)
    pause = "(choice ((pass)))" if decide else ""
    defs = f""" (define SWAP ((integer 'A) (integer 'B) (integer 'K))
   {pause}
   ((> 'K 0) (call SWAP 'B 'A (- 'K 1)))
   ((== 'K 0) (do ((set (game sto A) 'A) (set (game sto B) 'B)))))"""
    _, result, st = run(game(defs, "(call SWAP 1 2 3)"))
    assert result.completed and result.decisions == (4 if decide else 0)
    assert (st.ints[(-1, "A")], st.ints[(-1, "B")]) == (2, 1)


def test_a_procedure_calls_another_in_the_middle_of_its_body() -> None:
    defs = """ (define INNER ((player 'P) (integer 'N))
   (set (game sto X) (+ 'N 10))
   (inc ('P sto INNER) 1))
 (define OUTER ((player 'P) (integer 'N))
   (set (game sto X) 1)
   (call INNER (next player) (* 'N 2))
   (set (game sto Y) (game sto X))
   (inc ('P sto OUTER) 1))"""
    _, result, st = run(game(defs, "(do ((call OUTER (current player) 5)))"))
    assert result.completed
    assert st.ints[(-1, "Y")] == 20  # INNER ran between OUTER's two statements
    assert ints(st, "INNER") == {1: 1} and ints(st, "OUTER") == {0: 1}


def test_an_empty_body_does_nothing() -> None:
    defs = " (define NOP ((player 'P) (cards 'CS) (location 'L)))"
    with_call = "(do ((inc (game sto N) 1) (call NOP (1 player) (game vloc STOCK) (game vloc X)) (inc (game sto N) 1)))"
    without = "(do ((inc (game sto N) 1) (inc (game sto N) 1)))"
    _, result, st = run(game(defs, with_call))
    _, _, plain = run(game(defs, without))
    assert result.completed and st.ints[(-1, "N")] == 2
    assert st.fingerprint() == plain.fingerprint()


@pytest.mark.parametrize("form", ["tail-of-option", "after-a-choice"])
def test_a_recursive_procedure_keeps_its_variables_across_inner_decisions(form: str) -> None:
    if form == "tail-of-option":
        step = "((< 'D 2) (choice ((call REC (+ 'D 1)))))"
    else:
        step = "(choice ((inc (game sto PICKS) 1))) ((< 'D 2) (call REC (+ 'D 1)))"
    defs = f""" (define REC ((integer 'D))
   (let (top (game vloc STOCK)) 'X
     (do ((move 'X (top (game vloc HELD)))
          {step}
          (move 'X (top (game vloc OUT)))
          (set (('D player) sto AT) (size (game vloc OUT)))))))"""
    game_ = load_text(game(defs, "(call REC 0)", players=3))
    master = game_.master()
    st = master.new_game(1)
    decisions = 0
    while not st.is_over:
        assert len(master.legal_options(st)) == 1
        master.apply(st, 0)
        decisions += 1
    assert st.status == "completed" and decisions == (2 if form == "tail-of-option" else 3)
    # depth 0 bound card 5, depth 1 card 4, depth 2 card 3; the innermost finished first
    assert zone(st, "OUT") == [3, 4, 5] and zone(st, "HELD") == []
    assert ints(st, "AT") == {2: 1, 1: 2, 0: 3}  # 'D was restored after each inner call


def test_an_atomic_kind_body_of_a_deciding_recursive_procedure_restores_the_caller() -> None:
    # REC can decide (its default body does), so its calls go on the frame stack; ROCK's
    # own body decides nothing and runs at once, rebinding 'C and 'N, which must be
    # restored for the caller's last statement
    defs = """ (card-kind ROCK (COST 1) (on REC (inc (game sto ROCKS) 'N)))
 (define REC ((card 'C) (integer 'N))
   (choice ((pass)))
   (call REC (top (game vloc ROCKS)) (+ 'N 5))
   (set (game sto AFTER) 'N)
   (move 'C (top (game vloc DONE))))"""
    body = "(call REC (top (game vloc STOCK)) 1)"
    _, result, st = run(game(defs, body, setup="\n        (create cards (game vloc ROCKS) ROCK 1)"))
    assert result.completed and result.decisions == 1
    assert st.ints[(-1, "ROCKS")] == 6 and st.ints[(-1, "AFTER")] == 1
    assert zone(st, "DONE") == [5]


def test_atomic_recursion_with_a_counter() -> None:
    defs = """ (define DOWN ((integer 'N))
   (inc (game sto CALLS) 1)
   ((> 'N 0) (do ((inc (game sto SUM) 'N) (call DOWN (- 'N 1)) (inc (game sto AFTER) 'N)))))"""
    _, result, st = run(game(defs, "(do ((call DOWN 150)))"))
    assert result.completed and result.decisions == 0
    assert st.ints[(-1, "CALLS")] == 151
    assert st.ints[(-1, "SUM")] == st.ints[(-1, "AFTER")] == 150 * 151 // 2


UNBOUNDED = {
    "atomic": """ (define DOWN ((integer 'N))
   (inc (game sto N) 1)
   (call DOWN (+ 'N 1)))""",
    "decision-before": """ (define DOWN ((integer 'N))
   (inc (game sto N) 1)
   (choice ((turn pass)))
   (call DOWN (+ 'N 1)))""",
    "decision-tail": """ (define DOWN ((integer 'N))
   (inc (game sto N) 1)
   (choice ((call DOWN (+ 'N 1)))))""",
}


@pytest.mark.parametrize(
    "form, where", [(form, "flow") for form in UNBOUNDED] + [("atomic", "setup")]
)
def test_unbounded_recursion_is_a_positioned_rule_error(form: str, where: str) -> None:
    defs = UNBOUNDED[form]
    if where == "setup":
        text = game(defs, "(do ((turn pass)))", setup="\n        (call DOWN 0)")
    else:
        text = game(defs, "(call DOWN 0)")
    _, result, st = run(text, seed=7)
    assert result.end_reason == "failed" and st.status == "failed"
    err = result.error
    assert "nested too deeply" in err.message and "DOWN" in err.message
    assert (err.span.line, err.span.column) == at(text, "(call DOWN (+ 'N 1))")
    assert "seed 7" in err.render()
    assert st.ints[(-1, "N")] >= 200  # it did recurse, as deep as allowed


def _depth_game(depth: int, decide: bool) -> str:
    pause = "(choice ((turn pass)))" if decide else ""
    defs = f""" (define DOWN ((integer 'N))
   (inc (game sto N) 1)
   {pause}
   ((< 'N {depth}) (call DOWN (+ 'N 1))))"""
    return game(defs, "(call DOWN 1)")


@pytest.mark.parametrize(
    "decide",
    [
        False,
        True,
    ],
)
def test_calls_nested_more_than_200_deep_fail_with_or_without_decisions(decide: bool) -> None:
    _, ok, st = run(_depth_game(200, decide))
    assert ok.completed and st.ints[(-1, "N")] == 200
    _, deep, _ = run(_depth_game(201, decide))
    assert deep.end_reason == "failed" and "nested too deeply" in deep.error.message


@pytest.mark.parametrize("n", [2, 3])
def test_mutual_atomic_recursion_is_bounded_by_a_rule_error(n: int) -> None:
    defs = "\n".join(
        f" (define P{i} ((integer 'N)) (inc (game sto N) 1) (call P{(i + 1) % n} (+ 'N 1)))"
        for i in range(n)
    )
    _, result, st = run(game(defs, "(do ((call P0 0)))"))
    assert result.end_reason == "failed" and "nested too deeply" in result.error.message
    assert st.ints[(-1, "N")] <= 201


def test_a_cards_parameter_means_the_same_whether_or_not_its_location_exists() -> None:
    defs = """ (define P ((cards 'CS))
   (move (top (game vloc STOCK)) (top (game vloc PILE)))
   (set (game sto N) (size 'CS)))"""
    fresh = game(defs, "(do ((call P (game vloc PILE))))")
    used = game(
        defs,
        "(do ((move (top (game vloc STOCK)) (top (game vloc PILE))) (call P (game vloc PILE))))",
    )
    _, _, st_fresh = run(fresh)
    _, _, st_used = run(used)
    # PILE held one card more at the call in the second game; the body does the same in both
    assert st_used.ints[(-1, "N")] == st_fresh.ints[(-1, "N")] + 1


# ================================================================ card kinds

KINDS = """ (declare (GEM, ROCK) 'KINDS)
 (card-kind GEM (COST 3) (VP -2) (COLOR RED) (TYPES (TREASURE, SHINY))
   (on PLAY (inc ('ME sto GEM-PLAYS) 1) (set ('ME sto LAST-COST) (attr COST 'THIS))))
 (card-kind ROCK (COST 1))
 (define PLAY ((card 'THIS) (player 'ME)) (inc ('ME sto DEFAULT-PLAYS) 1))"""


def test_typed_attributes_defaults_and_kind() -> None:
    body = """(do ((create cards (game vloc GEMS) GEM 2)
      (create cards (game vloc ROCKS) ROCK 3)
      (set (game sto GC) (attr COST (top (game vloc GEMS))))
      (set (game sto GV) (attr VP (top (game vloc GEMS))))
      (set (game sto RV) (attr VP (top (game vloc ROCKS))))
      (set (game str GK) (attr KIND (top (game vloc GEMS))))
      (set (game str RK) (cardatt KIND (top (game vloc ROCKS))))
      (set (game str GCOL) (attr COLOR (top (game vloc GEMS))))
      (set (game str GCOL2) (cardatt COLOR (top (game vloc GEMS))))
      (set (game str RCOL) (cardatt COLOR (top (game vloc ROCKS))))
      (set (game sto GT) (size (attr TYPES (top (game vloc GEMS)))))
      (set (game sto RT) (size (attr TYPES (top (game vloc ROCKS)))))
      ((contains (attr TYPES (top (game vloc GEMS))) SHINY) (set (game sto SHINY) 1))
      ((contains (attr TYPES (top (game vloc GEMS))) VICTORY) (set (game sto WRONG) 1))
      ((contains (attr TYPES (top (game vloc ROCKS))) SHINY) (set (game sto WRONG) 1))
      ((contains 'KINDS ROCK) (set (game sto LISTED) 1))
      ((contains 'KINDS COPPER) (set (game sto WRONG) 1))
      (set (game sto TC) (total COST (union (game vloc GEMS) (game vloc ROCKS))))
      (set (game sto TV) (total VP (union (game vloc GEMS) (game vloc ROCKS))))
      (set (game sto TS) (total COST (game vloc STOCK)))
      (set (game sto TE) (total COST (game vloc NOWHERE)))))"""
    _, result, st = run(game(KINDS, body))
    assert result.completed
    got = {k[1]: v for k, v in st.ints.items() if k[0] == -1}
    assert got == {
        "GC": 3,
        "GV": -2,
        "RV": 0,  # ROCK sets no VP: the integer default
        "GT": 2,
        "RT": 0,  # ... no TYPES: the empty list
        "SHINY": 1,
        "LISTED": 1,
        "TC": 2 * 3 + 3 * 1,
        "TV": 2 * -2,
        "TS": 0,  # deck cards have no COST
        "TE": 0,
    }
    strs = {k[1]: v for k, v in st.strs.items()}
    assert strs == {"GK": "GEM", "RK": "ROCK", "GCOL": "RED", "GCOL2": "RED", "RCOL": ""}
    gem = st.cards[zone(st, "GEMS")[0]]
    assert dict(gem) == {
        "KIND": "GEM",
        "COST": 3,
        "VP": -2,
        "COLOR": "RED",
        "TYPES": ("TREASURE", "SHINY"),
    }


def test_attr_of_a_missing_card_is_a_rule_error() -> None:
    text = game(KINDS, "(do ((set (game sto X) (attr COST (top (game vloc NOWHERE))))))")
    _, result, _ = run(text)
    assert result.end_reason == "failed" and "empty location" in result.error.message
    assert (result.error.span.line, result.error.span.column) == at(
        text, "(attr COST (top (game vloc NOWHERE"
    )


def test_create_cards_with_a_literal_and_a_computed_kind_in_setup_and_play() -> None:
    setup = "\n        (all 'KINDS 'K (create cards (game vloc MADE) 'K 2))"
    body = """(do ((create cards (game vloc LATER) ROCK 1)
      (all (filter 'KINDS 'K (== 'K GEM)) 'K (create cards (game vloc LATER) 'K 2))
      (create cards (game vloc LATER) (attr KIND (bottom (game vloc MADE))) 1)
      (create cards (game vloc NONE) ROCK 0)))"""
    _, result, st = run(game(KINDS, body, setup=setup))
    assert result.completed
    kinds = [st.cards[c].get("KIND") for c in zone(st, "MADE")]
    assert kinds == ["GEM", "GEM", "ROCK", "ROCK"]  # on top, in order
    later = [st.cards[c].get("KIND") for c in zone(st, "LATER")]
    assert later == ["ROCK", "GEM", "GEM", "GEM"]
    assert len(st.cards) == 6 + 4 + 4 and zone(st, "NONE") == []


@pytest.mark.parametrize("where", ["setup", "flow"])
def test_a_computed_unknown_kind_is_a_rule_error_with_did_you_mean(where: str) -> None:
    defs = KINDS.replace("(GEM, ROCK) 'KINDS", "(GEM, ROKC) 'KINDS")
    make = "(all 'KINDS 'K (create cards (game vloc MADE) 'K 1))"
    if where == "setup":
        text = game(defs, "(do ((turn pass)))", setup=f"\n        {make}")
    else:
        text = game(defs, f"(do ({make}))")
    load_text(text)  # not a check error: the name is computed
    _, result, st = run(text)
    assert result.end_reason == "failed" and st.status == "failed"
    msg = result.error.message
    assert "ROKC" in msg and "did you mean 'ROCK'" in msg
    assert (result.error.span.line, result.error.span.column) == at(text, "(create cards")
    assert [st.cards[c]["KIND"] for c in zone(st, "MADE")] == ["GEM"]


def test_hooks_run_the_kinds_own_body_else_the_default() -> None:
    body = """(do ((create cards (game vloc HAND) ROCK 1)
      (create cards (game vloc HAND) GEM 1)
      (create deck (game vloc HAND) (deck (RANK (Z))))
      (all (game vloc HAND) 'C (call PLAY 'C (1 player)))
      (call PLAY (top (game vloc STOCK)) (0 player))))"""
    _, result, st = run(game(KINDS, body))
    assert result.completed
    assert ints(st, "GEM-PLAYS") == {1: 1} and ints(st, "LAST-COST") == {1: 3}
    # the ROCK and both decks' cards (no KIND) ran the default body
    assert ints(st, "DEFAULT-PLAYS") == {1: 2, 0: 1}


def test_a_hook_with_a_decision_and_an_empty_default_body() -> None:
    defs = """ (card-kind ASK (COST 0) (on REACT (choice ((inc ('ME sto YES) 1) (pass)))))
 (card-kind MUTE (COST 0))
 (define REACT ((card 'THIS) (player 'ME)))"""
    body = """(do ((create cards (game vloc T) MUTE 1) (create cards (game vloc T) ASK 1)
                  (create cards (game vloc T) MUTE 1)))
 (all (game vloc T) 'C (call REACT 'C (0 player)))"""
    game_ = load_text(game(defs, body))
    master = game_.master()
    st = master.new_game(1)
    assert st.mover == 0 and len(master.legal_options(st)) == 2  # only ASK decides
    master.apply(st, 0)
    assert st.is_over and st.status == "completed" and ints(st, "YES") == {0: 1}


# ================================================================ decisions


def test_a_named_choice_by_another_player() -> None:
    defs = ' (situation REVEAL "Reveal a card to the others")'
    body = """(choice REVEAL by (2 player)
                ((any (game vloc STOCK) 'C (do ((move 'C (top ((current player) vloc SHOWN)))
                                                (inc ((current player) sto TURN-OF) 1))))))"""
    game_ = load_text(game(defs, body, players=3))
    master = game_.master()
    st = master.new_game(1)
    options = master.legal_options(st)
    assert st.mover == 2 and st.pending.situation == "REVEAL"
    view = view_of(st, 2, game_, options)
    assert view.situation == "REVEAL"
    assert view.situation_text == "Reveal a card to the others"
    assert view_of(st, 0, game_).situation_text == "Reveal a card to the others"
    master.apply(st, len(options) - 1)
    # (current player) in the options is still the player whose turn it is
    assert st.is_over and ints(st, "TURN-OF") == {0: 1} and zone(st, "SHOWN", owner=0) == [5]


def test_an_unnamed_choice_is_situation_choice() -> None:
    game_ = load_text(game("", "(choice ((pass)))"))
    master = game_.master()
    st = master.new_game(1)
    assert st.pending.situation == "CHOICE" and st.mover == 0
    view = view_of(st, 0, game_, master.legal_options(st))
    assert view.situation == "CHOICE" and view.situation_text == "CHOICE"


def test_a_choice_ending_an_option_runs_after_its_actions_and_is_the_next_decision() -> None:
    defs = """ (situation FIRST "first")
 (situation SECOND "second")"""
    body = """(choice FIRST
   ((do ((set (game sto A) 1)
         (choice SECOND by (1 player)
            (((== (game sto A) 1) (set (game sto B) (+ (game sto A) 1)))
             ((== (game sto A) 0) (set (game sto B) 99))
             (pass)))))
    (set (game sto A) 7)))
 (do ((set (game sto C) (game sto B))))"""
    game_ = load_text(game(defs, body))
    master = game_.master()
    st = master.new_game(1)
    assert st.pending.situation == "FIRST" and len(master.legal_options(st)) == 2
    master.apply(st, 0)
    assert st.ints[(-1, "A")] == 1 and (-1, "B") not in st.ints  # the option's action ran
    assert (st.pending.situation, st.mover) == ("SECOND", 1)
    assert len(master.legal_options(st)) == 2  # the guard saw A = 1
    master.apply(st, 0)
    assert st.is_over and st.ints[(-1, "B")] == 2 and st.ints[(-1, "C")] == 2


def test_pass_is_a_legal_option_that_changes_nothing() -> None:
    body = """(do ((shuffle (game vloc STOCK))))
 (choice ((pass) (any (game vloc STOCK) 'C (move 'C (top (game vloc PILE))))))
 (do ((set (game sto AFTER) 1)))"""
    game_ = load_text(game("", body))
    master = game_.master()
    st = master.new_game(3)
    options = master.legal_options(st)
    assert len(options) == 7  # (pass), and one option per card
    zones, rng = {k: v[:] for k, v in st.zones.items()}, st.rng
    passed = st.clone()
    master.apply(passed, 0)
    assert passed.is_over and passed.zones == zones and passed.rng == rng
    assert dict(passed.ints) == {(-1, "AFTER"): 1} and dict(passed.strs) == {}
    master.apply(st, 1)
    assert zone(st, "PILE") != []


def test_a_while_loop_of_decisions_with_a_stop_option() -> None:
    defs = ' (situation TRASH "Trash a card, or stop")'
    body = """(do ((set (game sto LEFT) 3) (set (game sto GOING) 1)))
 (while (and (== (game sto GOING) 1) (> (game sto LEFT) 0))
   (choice TRASH
     ((any (game vloc STOCK) 'C (do ((dec (game sto LEFT)) (move 'C (top (game vloc TRASH))))))
      (set (game sto GOING) 0))))
 (do ((set (game sto DONE) 1)))"""
    game_ = load_text(game(defs, body))
    master = game_.master()
    # up to three cards
    st = master.new_game(1)
    assert play_first(master, st) == [(0, "TRASH")] * 3
    assert len(zone(st, "TRASH")) == 3 and st.ints[(-1, "DONE")] == 1
    # stop at once
    st = master.new_game(1)
    master.apply(st, len(master.legal_options(st)) - 1)
    assert st.is_over and zone(st, "TRASH") == [] and st.ints[(-1, "DONE")] == 1
    # one card, then stop
    st = master.new_game(1)
    master.apply(st, 0)
    assert len(master.legal_options(st)) == 5 + 1
    master.apply(st, 5)
    assert st.is_over and len(zone(st, "TRASH")) == 1


def test_others_lists_the_other_players_in_turn_order_from_each_seat() -> None:
    body = """(do ((all player 'P (all (others 'P) 'Q
                   (set ('P sto ORDER) (+ (* ('P sto ORDER) 10) (+ 1 (pid 'Q))))))))"""
    _, result, st = run(game("", body, players=4))
    assert result.completed
    assert ints(st, "ORDER") == {0: 234, 1: 341, 2: 412, 3: 123}


def test_others_of_a_single_player_is_empty() -> None:
    body = "(do ((set (game sto N) (size (others (0 player))))))"
    _, result, st = run(game("", body, players=1))
    assert result.completed and st.ints[(-1, "N")] == 0


@pytest.mark.parametrize(
    "tail, movers",
    [
        ("(repeat 2 (choice ((inc (game sto R) 1))))", [0, 0, 0]),
        ("(all player 'P (choice by 'P ((inc ('P sto R) 1))))", [0, 0, 1, 2]),
    ],
)
def test_a_repeated_decision_ending_an_option_asks_every_time(tail: str, movers: list[int]) -> None:
    text = game("", f"(choice ({tail}))", players=3)
    try:
        game_ = load_text(text)
    except GameFileError as err:  # refusing it would be a fix too
        assert (err.errors[0].span.line, err.errors[0].span.column) == at(text, tail[:8])
        return
    master = game_.master()
    st = master.new_game(1)
    seen = [mover for mover, _ in play_first(master, st)]
    assert seen == movers and st.status == "completed"


# ================================================================ checker errors

HEAD = """(game
 (situation SIT "Some text")
 (card-kind GEM (COST 3) (COLOR RED))
"""


def checked(defs: str, body: str, setup: str = "") -> tuple[str, list]:  # type: ignore[type-arg]
    text = HEAD + game(defs, body, setup=setup)[len("(game\n") :]
    with pytest.raises(GameFileError) as info:
        load_text(text)
    assert info.value.diagnostics == sorted(
        info.value.diagnostics, key=lambda d: (d.span.line, d.span.column, d.message)
    )
    return text, info.value.errors


CHECK_ERRORS = {
    "decision-not-last": (
        "",
        "(choice ((do ((choice ((pass))) (inc (game sto N) 1)))))",
        "(choice ((pass)))",
        "must be the option's last step",
    ),
    "deciding-call-not-last": (
        " (define ASK () (choice ((pass))))",
        "(choice ((do ((call ASK) (inc (game sto N) 1)))))",
        "(call ASK)",
        "must be the option's last step",
    ),
    "stage-in-procedure": (
        " (define D () (stage player (end (== 1 1)) (do ((pass)))))",
        "(call D)",
        "(stage player",
        "a procedure cannot hold a stage",
    ),
    "duplicate-procedure": (
        " (define D () (pass))\n (define D ((player 'P)) (pass))",
        "(call D)",
        "(define D ((player",
        "procedure D is defined twice",
    ),
    "duplicate-kind": (
        " (card-kind GEM (COST 4))",
        "(do ((pass)))",
        "(card-kind GEM (COST 4))",
        "card kind GEM is declared twice",
    ),
    "duplicate-situation": (
        ' (situation SIT "again")',
        "(do ((pass)))",
        '(situation SIT "again")',
        "situation SIT is declared twice",
    ),
    "duplicate-attribute": (
        " (card-kind ROCK (COST 1) (COST 2))",
        "(do ((pass)))",
        "(COST 2)",
        "ROCK gives attribute COST twice",
    ),
    "setting-kind": (
        " (card-kind ROCK (KIND GEM))",
        "(do ((pass)))",
        "(KIND GEM)",
        "KIND",
    ),
    "hook-of-a-player-procedure": (
        " (define D ((player 'P)) (pass))\n (card-kind ROCK (on D (pass)))",
        "(do ((pass)))",
        "(on D",
        "first parameter is a card",
    ),
    "hook-of-a-procedure-without-parameters": (
        " (define D () (pass))\n (card-kind ROCK (on D (pass)))",
        "(do ((pass)))",
        "(on D",
        "first parameter is a card",
    ),
    "argument-type": (
        " (define D ((player 'P) (integer 'N)) (pass))",
        "(call D (0 player) (top (game vloc STOCK)))",
        "(top (game vloc STOCK)))",
        "expected an integer for parameter 'N of D, got a card",
    ),
    "argument-count": (
        " (define D ((player 'P) (integer 'N)) (pass))",
        "(call D (0 player))",
        "(call D (0 player))",
        "D takes 2 arguments, got 1",
    ),
    "unknown-situation": (
        "",
        "(choice SITT ((pass)))",
        "(choice SITT",
        "unknown situation SITT",
    ),
    "cardatt-of-an-integer-attribute": (
        "",
        "(do ((set (game str X) (cardatt COST (top (game vloc STOCK))))))",
        "(cardatt COST",
        "COST is an integer attribute",
    ),
    "total-of-a-name-attribute": (
        "",
        "(do ((set (game sto X) (total COLOR (game vloc STOCK)))))",
        "(total COLOR",
        "integer attribute COLOR",
    ),
}


@pytest.mark.parametrize("case", list(CHECK_ERRORS))
def test_checker_errors_are_positioned(case: str) -> None:
    defs, body, culprit, words = CHECK_ERRORS[case]
    text, errors = checked(defs, body)
    assert len(errors) == 1, [e.message for e in errors]
    err = errors[0]
    assert words in err.message
    assert (err.span.line, err.span.column) == at(text, culprit)


def test_checker_hints() -> None:
    _, errors = checked("", "(do ((set (game str X) (cardatt COST (top (game vloc STOCK))))))")
    assert "(attr COST" in errors[0].hint
    _, errors = checked(" (define D ((player 'P) (integer 'N)) (pass))", "(call D (0 player))")
    assert errors[0].hint == "write (call D PLAYER INTEGER)"
    _, errors = checked("", "(choice SITT ((pass)))")
    assert "did you mean 'SIT'" in errors[0].hint
    _, errors = checked("", "(do ((create cards (game vloc X) GEMM 1)))")
    assert "unknown card kind GEMM" in errors[0].message and "'GEM'" in errors[0].hint


def test_setup_cannot_call_a_procedure_that_decides() -> None:
    defs = """ (define ASK () (choice ((pass))))
 (define VIA () (call ASK))"""
    text, errors = checked(defs, "(do ((pass)))", setup="\n        (call VIA)")
    assert len(errors) == 1 and "setup cannot call VIA" in errors[0].message
    assert (errors[0].span.line, errors[0].span.column) == at(text, "(call VIA)")


def test_every_error_is_reported_at_once() -> None:
    defs = """ (define D ((player 'P)) (pass))
 (define D () (pass))
 (card-kind GEM (COST 4))"""
    _, errors = checked(defs, "(choice SITT ((call D 1)))")
    messages = " | ".join(e.message for e in errors)
    for words in ("defined twice", "declared twice", "unknown situation", "expected a player"):
        assert words in messages


def test_a_deck_attribute_clashing_with_an_integer_kind_attribute_is_not_a_crash() -> None:
    text = game(
        " (card-kind GEM (COST 3))",
        """(do ((create cards (game vloc STOCK) GEM 1)
                 (set (game sto T) (total COST (game vloc STOCK)))))""",
        deck="(deck (COST (A, B)))",
    )
    try:
        game_ = load_text(text)
    except GameFileError as err:  # rejecting the clash is a fix
        assert any("COST" in e.message for e in err.errors)
        return
    result, _ = play_random(game_.master(), 1)  # must not raise
    assert result.end_reason in ("completed", "failed")


# ================================================================ describing options

OPTIONS_GAME = """(game
 (situation PICK "Pick a card")
 (card-kind GEM (COST 3))
 (card-kind ROCK (COST 1))
 (setup (create players 3)
        (create deck (game vloc STOCK) (deck (RANK (A, B))))
        (create cards (game vloc OPEN) GEM 1)
        (create cards (game hloc SECRET) ROCK 1)
        (create cards ((1 player) iloc HAND) ROCK 1)
        (create cards ((2 player) iloc HAND) GEM 1))
 (choice PICK by (2 player)
   ((pass)
    (any (game vloc OPEN) 'C (move 'C (top ((2 player) iloc HAND))))
    ((== 1 2) (set (game sto NEVER) 1))
    (set (game sto X) 1)
    (any (game hloc SECRET) 'H (do ((move 'H (top (game vloc OPEN))) (inc (game sto Y) 1))))
    (any ((2 player) iloc HAND) 'M (move 'M (top (game vloc OPEN))))
    (any ((1 player) iloc HAND) 'O (move 'O (top (game vloc OPEN))))
    (any (game vloc STOCK) 'C (any (game hloc SECRET) 'D (move 'D (top (game vloc X)))))))
 (scoring max 0))"""


def test_options_are_described_by_branch_kind_card_and_actions() -> None:
    game_ = load_text(OPTIONS_GAME)
    master = game_.master()
    st = master.new_game(1)
    options = master.legal_options(st)
    view = view_of(st, st.mover, game_, options)
    described = [(o.branch, o.kinds, o.kind, o.actions) for o in view.options]
    assert described == [
        (0, (), None, ("(pass)",)),
        (1, ("GEM",), "GEM", ("(move 'C (top ((2 player) iloc HAND)))",)),
        (3, (), None, ("(set (game sto X) 1)",)),
        (4, (None,), None, ("(move 'H (top (game vloc OPEN)))", "(inc (game sto Y) 1)")),
        (5, ("GEM",), "GEM", ("(move 'M (top (game vloc OPEN)))",)),
        (6, (None,), None, ("(move 'O (top (game vloc OPEN)))",)),
        (7, (None, None), None, ("(move 'D (top (game vloc X)))",)),
        (7, (None, None), None, ("(move 'D (top (game vloc X)))",)),
    ]
    assert view.option_kinds == tuple(o.kind for o in view.options)
    assert dict(view.options[1].card) == {"KIND": "GEM", "COST": 3}
    assert view.options[1].bindings[0][0] == "C"
    # the deck cards of the last branch are open but have no KIND
    assert view.options[7].cards[0] is not None and view.options[7].cards[0]["RANK"] == "B"
    assert view.options[7].card == view.options[7].cards[0]


def test_an_unseen_bound_card_describes_as_nothing() -> None:
    game_ = load_text(OPTIONS_GAME)
    master = game_.master()
    st = master.new_game(1)
    options = master.legal_options(st)
    for seat in range(3):
        view = view_of(st, seat, game_, options)
        hloc = view.options[3]  # 'H, a card of the game's hloc: nobody sees it
        assert hloc.bindings == (("H", None),) and hloc.cards == (None,)
        assert hloc.kind is None and hloc.card is None and view.option_kinds[3] is None
        assert all(b[1] is None for b in view.options[6].bindings[1:])
        # another player's hand: only its owner sees the card
        theirs = view.options[5]
        assert theirs.kind == ("ROCK" if seat == 1 else None)
        assert view.option_kinds[5] == theirs.kind
        mine = view.options[4]
        assert mine.kind == ("GEM" if seat == 2 else None)
        assert view.option_kinds == tuple(o.kind for o in view.options)


def test_a_bound_location_describes_by_its_top_card() -> None:
    defs = """ (card-kind GEM (COST 3))
 (card-kind ROCK (COST 1))"""
    setup = """
        (create cards (game vloc PILE 1) GEM 1)
        (create cards (game vloc PILE 2) ROCK 1)
        (create cards (game hloc PILE 3) ROCK 1)"""
    body = """(choice ((any (indexed game vloc PILE) 'L (move (top 'L) (top (game vloc OUT))))
                  (any (indexed game hloc PILE) 'L (move (top 'L) (top (game vloc OUT))))))"""
    game_ = load_text(game(defs, body, setup=setup))
    master = game_.master()
    st = master.new_game(1)
    options = master.legal_options(st)
    view = view_of(st, 0, game_, options)
    assert [o.kind for o in view.options] == ["GEM", "ROCK", None]
    assert view.option_kinds == ("GEM", "ROCK", None)
    assert [o.branch for o in view.options] == [0, 0, 1]


# ================================================================ cloning and determinism

REC_GAME = """(game
 (define REC ((integer 'D))
   (let (top (game vloc STOCK)) 'X
     (do ((move 'X (top (game vloc HELD)))
          (shuffle (game vloc STOCK))
          (choice ((pass)
                   (any (game vloc STOCK) 'C (move 'C (top ((current player) vloc PICKED))))
                   ((and (< 'D 3) (> (size (game vloc STOCK)) 0)) (call REC (+ 'D 1)))))
          (move 'X (top ((current player) vloc OUT)))
          (inc ((current player) sto SCORE) (+ 'D 1))))))
 (setup (create players 2)
        (create deck (game vloc STOCK) (deck (RANK (A, B, C, D, E, F)) (SUIT (X, Y)))))
 (stage player (end (== (size (game vloc STOCK)) 0)) (call REC 0))
 (scoring max ((current player) sto SCORE)))"""


def _play(master, st, rng: random.Random) -> list[int]:  # type: ignore[no-untyped-def]
    """Play random options to the end; the indices picked."""
    picks = []
    while not st.is_over:
        picks.append(rng.randrange(len(master.legal_options(st))))
        master.apply(st, picks[-1])
    return picks


def test_a_clone_in_the_middle_of_a_recursive_call_plays_on_identically() -> None:
    master = load_text(REC_GAME).master(engine="python")  # reads the frame stack
    st = master.new_game(11, record=True)
    prefix = []
    # go deeper: take the recursive option (the last one) until three calls are open
    while sum(f[0] == CALL for f in st.stack) < 3:
        prefix.append(len(master.legal_options(st)) - 1)
        master.apply(st, prefix[-1])
    assert not st.is_over and sum(f[0] == CALL for f in st.stack) == 3
    copy = st.clone()
    assert copy.fingerprint() == st.fingerprint()
    rest = _play(master, st, random.Random(5))
    assert _play(master, copy, random.Random(5)) == rest
    assert st.status == copy.status == "completed" and len(rest) > 3
    assert copy.log == st.log and copy.fingerprint() == st.fingerprint()
    assert master.result(copy) == master.result(st)
    # the same choices from a fresh game of the same seed give the same game
    replay = master.new_game(11, record=True)
    for i in prefix + rest:
        master.apply(replay, i)
    assert replay.log == st.log and replay.fingerprint() == st.fingerprint()


def test_cloned_copies_do_not_share_anything() -> None:
    master = load_text(REC_GAME).master(engine="python")  # reads the frame stack
    st = master.new_game(4, record=True)
    while sum(f[0] == CALL for f in st.stack) < 2:
        master.apply(st, len(master.legal_options(st)) - 1)
    copy = st.clone()
    before = copy.fingerprint()
    _play(master, st, random.Random(1))  # play the original to its end
    assert copy.fingerprint() == before  # the copy did not move
    other = copy.clone()
    _play(master, copy, random.Random(2))
    _play(master, other, random.Random(2))
    assert copy.log == other.log and copy.status == other.status == "completed"


def test_a_clone_does_not_see_the_originals_cards_through_a_cards_parameter() -> None:
    defs = """ (define P ((cards 'CS))
   (choice ((move (top (game vloc STOCK)) (top (game vloc PILE))) (pass)))
   (set (game sto N) (size 'CS)))"""
    body = (
        "(do ((move (top (game vloc STOCK)) (top (game vloc PILE)))))\n (call P (game vloc PILE))"
    )
    master = load_text(game(defs, body)).master()
    st = master.new_game(1)
    copy = st.clone()
    fresh = master.new_game(1)
    master.apply(st, 0)  # the original moves a card into PILE
    master.apply(copy, 1)  # the copy passes
    master.apply(fresh, 1)  # a fresh game passes too
    assert copy.ints[(-1, "N")] == fresh.ints[(-1, "N")]


def test_a_declared_value_may_read_a_kinds_attributes() -> None:
    """Kinds are checked before declares, so (declare ...) can filter by an attribute
    whatever the order of the file (found writing games/trains.rcy)."""
    game_ = load_text(
        "(game (declare (filter (game vloc MAP) 'C (> (attr LENGTH 'C) 2)) 'BIG)"
        " (card-kind SHORT (LENGTH 1)) (card-kind LONG (LENGTH 4))"
        " (setup (create players 2) (create cards (game vloc MAP) SHORT 2)"
        " (create cards (game vloc MAP) LONG 1))"
        " (do ((repeat all (move (top 'BIG) (top (game vloc OUT))))))"
        " (scoring max 0))"
    )
    st = game_.master().new_game(0)
    assert st.is_over
    assert [card_type(st.cards[c]) for c in st.zones[(-1, "vloc", "OUT")]] == ["LONG"]
