"""The runner's live views: read while the agent decides, a snapshot if the agent keeps one."""

from __future__ import annotations

from cardlang.agents.base import Capabilities
from conftest import GAMES

from cardlang import load_game
from cardlang.runs.simulate import play_game


class Keeper:
    """Keeps every view it is given, and what the first one said about its own hand."""

    capabilities = Capabilities(view=True)
    name = "keeper"

    def __init__(self) -> None:
        self.views: list = []  # type: ignore[type-arg]
        self.first_hand: tuple | None = None  # type: ignore[type-arg]

    def choose(self, view, options) -> int:  # type: ignore[no-untyped-def]
        self.views.append(view)
        if self.first_hand is None:
            self.first_hand = view.cards(view.seat, "iloc", "HAND")
        return 0


class Forgetter:
    capabilities = Capabilities(view=True)
    name = "forgetter"

    def __init__(self) -> None:
        self.sizes: list[int] = []

    def choose(self, view, options) -> int:  # type: ignore[no-untyped-def]
        self.sizes.append(view.size(view.seat, "iloc", "HAND"))
        return 0


def test_a_kept_view_shows_the_state_as_it_was_at_its_decision() -> None:
    game = load_game(GAMES / "crazy_eights.rcy")
    keeper = Keeper()
    agents = [keeper, Forgetter(), Forgetter(), Forgetter()]
    _, st = play_game(game.master(), agents, 7)
    first = keeper.views[0]
    assert first._st is None  # closed: it no longer reads the state
    assert first.cards(0, "iloc", "HAND") == keeper.first_hand
    assert first.decisions == 0 and first.situation == "TURN"
    # the game went on, the kept view did not
    assert st.decisions > 4 and first.size(0, "iloc", "HAND") == len(keeper.first_hand or ())


def test_a_view_not_kept_is_closed_without_a_copy(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from cardlang.information.views import PlayerView

    copies = []
    original = PlayerView._snapshot

    def counting(self, st):  # type: ignore[no-untyped-def]
        copies.append(self.decisions)
        original(self, st)

    monkeypatch.setattr(PlayerView, "_snapshot", counting)
    game = load_game(GAMES / "crazy_eights.rcy")
    forgetters = [Forgetter() for _ in range(4)]
    play_game(game.master(), forgetters, 3)
    assert sum(len(f.sizes) for f in forgetters) > 4  # they read their views ...
    assert copies == []  # ... and no view was copied
    keeper = Keeper()
    play_game(game.master(), [keeper, *forgetters[1:]], 3)
    assert len(copies) == len(keeper.views)  # only the kept ones


def test_live_and_snapshot_views_answer_alike() -> None:
    from cardlang.information.views import PlayerView, view_of

    game = load_game(GAMES / "dominion.rcy")
    master = game.master()
    st = master.new_game(11)
    for _ in range(6):
        options = master.legal_options(st)
        live = PlayerView.live(st, st.mover, game, options)
        snap = view_of(st, st.mover, game, options)
        for seat in range(2):
            for kind, name in (("iloc", "HAND"), ("hloc", "DECK"), ("vloc", "DISCARD")):
                assert live.cards(seat, kind, name) == snap.cards(seat, kind, name)
                assert live.size(seat, kind, name) == snap.size(seat, kind, name)
        assert live.option_kinds == snap.option_kinds
        assert [o.kinds for o in live.options] == [o.kinds for o in snap.options]
        assert dict(live.ints) == dict(snap.ints)
        assert dict(live.hidden_sizes) == dict(snap.hidden_sizes)
        assert set(live.visible) == set(snap.visible)
        live.close()
        master.apply(st, len(options) - 1)
