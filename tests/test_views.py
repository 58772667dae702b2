"""PlayerView shows what a player may see and only the sizes of the rest.

(Knowledge tracking and determinization come with the information-model issue; this pins
down the visibility rules the views already enforce.)"""

from __future__ import annotations

from conftest import GAMES

from cardlang import load_game
from cardlang.information.views import view_of


def test_a_view_shows_own_hand_public_piles_and_only_sizes_of_hidden_ones() -> None:
    master = load_game(GAMES / "crazy_eights.rcy").master()
    st = master.new_game(3)
    view = view_of(st, 1)
    own = view.cards(1, "iloc", "HAND")
    assert own is not None and len(own) == 5
    assert view.cards(0, "iloc", "HAND") is None  # hidden: an opponent's hand
    assert view.size(0, "iloc", "HAND") == 5
    assert view.cards(-1, "iloc", "STOCK") is None  # the stock is hidden from everyone
    assert view.size(-1, "iloc", "STOCK") == len(st.zones[(-1, "iloc", "STOCK")])
    pile = view.cards(-1, "vloc", "PILE")
    assert pile is not None and len(pile) == 1  # the face-up pile is public


def test_a_view_holds_no_reference_to_the_state() -> None:
    master = load_game(GAMES / "hearts.rcy").master(engine="python")  # by object identity
    st = master.new_game(5)
    view = view_of(st, 2)
    hidden = {id(z) for z in st.zones.values()} | {id(st), id(st.cards), id(st.zones)}
    reachable = [view.visible, view.hidden_sizes, view.ints, view.strs, *view.visible.values()]
    assert not any(id(x) in hidden for x in reachable)
    # changing the state afterwards does not change a view taken before
    mover = st.mover
    mover_view = view_of(st, mover)
    before = mover_view.size(mover, "iloc", "HAND")
    master.apply(st, 0)  # the mover passes a card out of the hand
    assert len(st.zones[(mover, "iloc", "HAND")]) == before - 1
    assert mover_view.size(mover, "iloc", "HAND") == before


def test_tops_are_the_top_cards_of_the_visible_locations_on_either_engine() -> None:
    import pytest

    from cardlang.engine.native import native_available
    from cardlang.information.views import PlayerView

    engines = ["python", "native"] if native_available() else ["python"]
    for engine in engines:
        game = load_game(GAMES / "dominion.rcy")
        master = game.master(engine=engine)
        st = master.new_game(4)
        for _ in range(9):  # a few turns in: piles, hands and discards hold cards
            master.apply(st, 0)
        options = master.legal_options(st)
        seat = st.mover
        live = PlayerView.live(st, seat, game, options)
        for view in (live, view_of(st, seat, game, options)):
            expected = {}
            for key in view.locations():
                top = view.top(*key)
                if top is not None:
                    expected[key] = dict(top)
            tops = view.tops()
            assert {k: dict(v) for k, v in tops.items()} == expected, engine
            assert list(tops) == list(expected)  # in the order the locations were made
            assert any(k[2].startswith("SUPPLY") for k in tops)
            assert all(k[1] != "hloc" for k in tops)  # nothing hidden
            some = next(iter(tops.values()))
            with pytest.raises(TypeError):
                some["KIND"] = "X"  # type: ignore[index]  # read-only
        live.close()
