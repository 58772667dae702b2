"""(simultaneous ...): secret picks, kept unseen until every pick is made, then revealed.

What a player may know while the others pick is the point of the form, so most tests
here are about knowledge: the second picker's view is the same whatever the first
picked, a determinization draws the picks a seat has not seen, and the reveal is
public.  The rest pins the flow: options run after the block, in the order picked, with
the registers of their pick; nothing a pick does shows before.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from helpers import load_text

from cardlang.engine.native import native_available
from cardlang.information.views import view_of

ENGINES = ["python", *(["native"] if native_available() else [])]

# Each player holds one card of each sign and shows one, both at once.
SIGNS = """(game
 (setup
  (create players 2)
  (create deck (game iloc STOCK) (deck (SIGN (ROCK, PAPER, SCISSORS)) (COPY (A, B)))))
 (do ((shuffle (game iloc STOCK))
      (all player 'P
           (repeat 3 (move (top (game iloc STOCK)) (top ('P iloc HAND)))))))
 (simultaneous
  (all player 'P
       (choice by 'P
               ((any ('P iloc HAND) 'C
                     (do ((move 'C (top ('P vloc SHOWN)))
                          (set ('P sto ORDER) (+ (game sto SHOWN) 1))
                          (inc (game sto SHOWN)))))))))
 (scoring max ((current player) sto ORDER)))
"""

# The same with hands dealt unshuffled: each player knows the other's hand, not the pick.
OPEN_SIGNS = SIGNS.replace("(shuffle (game iloc STOCK))", "")

# A sealed bid: the picks set public storages, which must not change before the reveal.
BIDS = """(game
 (setup (create players 3) (create deck (game vloc STOCK) (deck (RANK (A)))))
 (simultaneous
  (all player 'P
       (choice by 'P
               ((any (range 1 .. 4) 'B (set ('P sto BID) 'B))))))
 (scoring max ((current player) sto BID)))
"""


def _masters(text: str, engine: str) -> tuple[Any, Any]:
    game = load_text(text)
    return game, game.master(engine=engine)


def _seen(st: Any, seat: int, game: Any, master: Any) -> tuple[Any, ...]:
    """Everything a seat's view shows, as comparable data."""
    view = view_of(st, seat, game, master.legal_options(st))
    return (
        tuple(sorted((k, tuple(dict(c) for c in v)) for k, v in view.visible.items())),
        tuple(sorted(view.hidden_sizes.items())),
        tuple(sorted(view.ints.items())),
        tuple(sorted(view.strs.items())),
        tuple(view.history),
        tuple((o.branch, repr(o.bindings)) for o in view.options),
        view.decisions,
    )


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("text", [SIGNS, BIDS], ids=["signs", "bids"])
def test_the_second_pickers_view_is_the_same_whatever_the_first_picked(
    engine: str, text: str
) -> None:
    game, master = _masters(text, engine)
    for seed in range(5):
        st = master.new_game(seed, record=True)
        first = st.mover
        seen = []
        for i in range(len(master.legal_options(st))):
            child = st.clone()
            master.apply(child, i)
            assert child.mover != first and not child.is_over
            seen.append(_seen(child, child.mover, game, master))
        assert len(seen) > 1
        assert all(s == seen[0] for s in seen)  # the same whatever the first pick was


@pytest.mark.parametrize("engine", ENGINES)
def test_nothing_a_pick_does_shows_before_the_reveal(engine: str) -> None:
    game, master = _masters(BIDS, engine)
    st = master.new_game(0, record=True)
    before = dict(st.ints)
    master.apply(st, 3)  # seat 0 bids 4
    master.apply(st, 0)  # seat 1 bids 1
    assert dict(st.ints) == before  # the storages are public, and unchanged
    history = view_of(st, 2, game, master.legal_options(st)).history
    assert [e[2] for e in history if e[0] == "decision"] == [None, None]
    master.apply(st, 1)  # seat 2 bids 2: the last pick, then the reveal
    assert st.is_over
    assert [st.ints[(p, "BID")] for p in range(3)] == [4, 1, 2]
    assert master.result(st).winners == (0,)


@pytest.mark.parametrize("engine", ENGINES)
def test_the_reveal_is_public_and_in_the_order_picked(engine: str) -> None:
    game, master = _masters(BIDS, engine)
    st = master.new_game(0, record=True)
    for index in (2, 0, 3):
        master.apply(st, index)
    reveals = [e for e in st.log if e[0] == "reveal"]
    assert [(e[1], e[4]) for e in reveals] == [(0, "CHOICE"), (1, "CHOICE"), (2, "CHOICE")]
    assert ["'B=3" in e[2] for e in reveals] == [True, False, False]
    for seat in range(3):  # every seat's history shows every reveal, label and all
        history = view_of(st, seat, game).history
        assert [e for e in history if e[0] == "reveal"] == reveals


@pytest.mark.parametrize("engine", ENGINES)
def test_options_run_after_the_block_in_the_order_picked_with_their_registers(
    engine: str,
) -> None:
    game, master = _masters(SIGNS, engine)
    for seed in range(10):
        st = master.new_game(seed, record=True)
        hands = {p: list(st.zones[(p, "iloc", "HAND")]) for p in (0, 1)}
        picked = {}
        rng = random.Random(seed)
        while not st.is_over:
            mover = st.mover
            options = master.legal_options(st)
            i = rng.randrange(len(options))
            picked[mover] = view_of(st, mover, game, options).options[i].cards[0]
            master.apply(st, i)
            assert all(not st.zones.get((p, "vloc", "SHOWN")) for p in (0, 1)) or st.is_over
        for p in (0, 1):  # each pick moved the picker's own card ('P as it was bound)
            shown = st.zones[(p, "vloc", "SHOWN")]
            assert len(shown) == 1 and shown[0] in hands[p]
            assert dict(st.cards[shown[0]]) == dict(picked[p])
        # seat 0 picked first, so its option ran first
        assert (st.ints[(0, "ORDER")], st.ints[(1, "ORDER")]) == (1, 2)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_determinization_draws_the_picks_the_seat_has_not_seen(engine: str) -> None:
    # seat 1 knows which cards seat 0 holds: only the pick is unknown to it
    game, master = _masters(OPEN_SIGNS, engine)
    st = master.new_game(3, record=True)
    master.apply(st, 1)  # seat 0 picks its second card; seat 1 to pick
    view = view_of(st, 1, game, master.legal_options(st))
    rng = random.Random(0)
    drawn = set()
    for _ in range(60):
        world = view.determinize(rng)
        assert _seen(world, 1, game, master)[:4] == _seen(st, 1, game, master)[:4]
        master.apply(world, 0)  # seat 1 picks; the reveal shows seat 0's drawn pick
        shown = world.zones[(0, "vloc", "SHOWN")]
        assert len(shown) == 1
        drawn.add(world.cards[shown[0]]["SIGN"])
    # every card seat 0 could have picked, not only the true pick: seat 1 never saw it
    assert drawn == {st.cards[c]["SIGN"] for c in st.zones[(0, "iloc", "HAND")]}
    assert len(drawn) > 1
    # the picker's own pick is kept in its determinizations
    child = st.clone()
    master.apply(child, 0)
    true_card = dict(child.cards[child.zones[(0, "vloc", "SHOWN")][0]])
    for seed in range(10):
        world = _world_of_seat(st, 0, game, master, seed)
        master.apply(world, 0)
        assert dict(world.cards[world.zones[(0, "vloc", "SHOWN")][0]]) == true_card


def _world_of_seat(st: Any, seat: int, game: Any, master: Any, seed: int) -> Any:
    from cardlang.information.knowledge import determinize

    return determinize(st, seat, game, random.Random(seed))


@pytest.mark.parametrize("engine", ENGINES)
def test_clones_keep_their_own_picks(engine: str) -> None:
    _, master = _masters(BIDS, engine)
    st = master.new_game(0)
    master.apply(st, 0)
    a, b = st.clone(), st.clone()
    for index in (1, 1):
        master.apply(a, index)
    for index in (3, 3):
        master.apply(b, index)
    master.apply(st, 2)
    master.apply(st, 2)
    bids = [[s.ints[(p, "BID")] for p in range(3)] for s in (a, b, st)]
    assert bids == [[1, 2, 2], [1, 4, 4], [1, 3, 3]]


@pytest.mark.parametrize("engine", ENGINES)
def test_engines_agree_on_simultaneous_games(engine: str) -> None:
    if engine == "python":
        pytest.skip("compares the native engine with the python one")
    for text in (SIGNS, BIDS):
        game = load_text(text)
        py, nat = game.master(engine="python"), game.master(engine="native")
        for seed in range(40):
            a, b = py.new_game(seed, record=True), nat.new_game(seed, record=True)
            rng = random.Random(seed)
            while not a.is_over:
                assert len(py.legal_options(a)) == len(nat.legal_options(b))
                i = rng.randrange(len(py.legal_options(a)))
                py.apply(a, i)
                nat.apply(b, i)
            assert b.is_over and list(a.log) == list(b.log)
            assert py.result(a).scores == nat.result(b).scores
