"""What a player may know: knowledge tracking, views of hidden cards, determinizations.

Properties (hypothesis, over own games and a spread of the corpus, random play):
- a determinization agrees with the view on everything the view shows (every location it
  sees, every card it knows in a hidden one, sizes, storages, the decision) and conserves
  cards;
- it depends on nothing but the view: two states a player cannot tell apart give the same
  determinization from the same random numbers (so no agent can learn hidden cards by
  determinizing);
- a player's view of a determinization is its view of the real game;
- the mover's options are the same in every determinization of games whose decisions are
  over cards the mover sees (Dominion, Hearts).
Then examples: Dominion (an opponent's deck and hand are dealt from their own cards),
Hearts (a card seen in a trick is never dealt back into a hand), and a card shown and put
onto a hidden deck stays known there.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from cardlang.agents.base import Capabilities
from conftest import CORPUS_FAILS_CHECK, corpus_games, own_games
from helpers import assert_conserved, load_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardlang import GameFileError, load_game
from cardlang.errors import UsageError
from cardlang.information.encode import Encoder
from cardlang.information.knowledge import (
    KnowledgeTracker,
    Skeleton,
    _map_references,
    attach_knowledge,
    determinize,
)
from cardlang.information.views import PlayerView, view_of
from cardlang.information.visibility import can_see
from cardlang.language.kinds import card_type

GAMES = Path(__file__).resolve().parent.parent / "games"
FILES = own_games() + corpus_games()[1::4]


@cache
def game_for(index: int):  # type: ignore[no-untyped-def]
    try:
        return load_game(FILES[index])
    except GameFileError:
        # only a corpus file declared broken may fail to load (it is then left out)
        assert FILES[index].stem in CORPUS_FAILS_CHECK, f"{FILES[index]} does not load"
        return None


@cache
def own_game(name: str):  # type: ignore[no-untyped-def]
    """Dominion with a kingdom drawn from each game's seed; others as they are."""
    params = {"KINGDOM": "RANDOM"} if name == "dominion.rcy" else None
    return load_game(GAMES / name, params=params)


games = st.integers(min_value=0, max_value=len(FILES) - 1)
seeds = st.integers(min_value=0, max_value=2**32)
choices = st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=80)
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def walk(game, seed: int, picks: list[int]):  # type: ignore[no-untyped-def]
    """A recorded game after random moves, stopped at a decision if it has not ended (a
    Python engine's: its twin worlds are made by editing the state)."""
    master = game.master(engine="python")
    state = master.new_game(seed, record=True)
    for pick in picks:
        if state.is_over:
            break
        master.apply(state, pick % len(master.legal_options(state)))
    return master, state


def public_picture(view: PlayerView) -> tuple[object, ...]:
    """Everything a view shows, as comparable data."""
    keys = sorted(view.locations())
    return (
        tuple((k, view.size(*k), view.known_cards(*k)) for k in keys),
        tuple(sorted((k, dict(v.expected)) for k in keys for v in [view.zone_knowledge(*k)])),
        tuple(sorted(view.ints.items())),
        tuple(sorted(view.strs.items())),
        view.situation,
        view.current_player,
    )


def real_cards(state) -> Counter[int]:  # type: ignore[no-untyped-def]
    return Counter(c for k, z in state.zones.items() if k[1] != "mem" for c in z)


@SETTINGS
@given(games, seeds, choices, seeds)
def test_a_determinization_agrees_with_the_view(
    index: int, seed: int, picks: list[int], det_seed: int
) -> None:
    game = game_for(index)
    if game is None:
        return
    master, state = walk(game, seed, picks)
    if state.is_over:
        return
    options = master.legal_options(state)
    for seat in range(state.nplayers):
        view = view_of(state, seat, game, options)
        det = view.determinize(random.Random(det_seed))
        assert_conserved(det)
        assert real_cards(det) == real_cards(state)
        knowledge = KnowledgeTracker.of(state).seats[seat]
        for key, cards in state.zones.items():
            got = det.zones.get(key, [])
            assert len(got) == len(cards)
            if can_see(seat, key):
                assert got == cards, key
            elif key[1] != "mem":
                for i, entry in enumerate(knowledge.entries.get(key, ())):
                    if entry >= 0:
                        assert got[i] == cards[i] == entry, (key, i)
        assert det.ints == state.ints and det.strs == state.strs
        assert det.pending is state.pending and det.mover == state.mover
        # a player's view of the determinization is its view of the real game
        det_view = view_of(det, seat, game, master.legal_options(det))
        assert public_picture(det_view) == public_picture(view)


def indistinguishable_twin(state, seat: int, game, rng: random.Random):  # type: ignore[no-untyped-def]
    """The real game with two hidden cards the seat cannot tell apart (two places of one
    pool) exchanged, everything referring to them too; None if there are no such two."""
    knowledge = KnowledgeTracker.of(state).seats[seat]
    places: dict[int, list[tuple[object, int]]] = {}
    for key, entries in knowledge.entries.items():
        for i, e in enumerate(entries):
            if e < 0:
                places.setdefault(e, []).append((key, i))
    pools = [p for p in places.values() if len(p) >= 2]
    if not pools:
        return None
    (ka, ia), (kb, ib) = rng.sample(rng.choice(pools), 2)
    twin = state.clone()
    a, b = twin.zones[ka][ia], twin.zones[kb][ib]
    twin.zones[ka][ia], twin.zones[kb][ib] = b, a
    twin.card_zone[a], twin.card_zone[b] = kb, ka
    swap = {a: b, b: a}
    _map_references(twin, game, lambda c: swap.get(c, c))
    twin.log = None
    attach_knowledge(twin, knowledge.copy())  # what the seat knows is the same in both
    return twin


@SETTINGS
@given(games, seeds, choices, seeds, seeds)
def test_a_determinization_depends_only_on_the_view(
    index: int, seed: int, picks: list[int], other_seed: int, det_seed: int
) -> None:
    game = game_for(index)
    if game is None:
        return
    master, state = walk(game, seed, picks)
    if state.is_over:
        return
    seat = picks[0] % state.nplayers
    twin = indistinguishable_twin(state, seat, game, random.Random(other_seed))
    if twin is None:
        return
    view = view_of(state, seat, game, master.legal_options(state))
    twin_view = view_of(twin, seat, game, master.legal_options(twin))
    assert public_picture(twin_view) == public_picture(view)
    first = view.determinize(random.Random(det_seed))
    second = twin_view.determinize(random.Random(det_seed))
    assert first.fingerprint() == second.fingerprint()
    assert first.regs == second.regs and first.card_zone == second.card_zone


@SETTINGS
@given(games, seeds, choices, seeds)
def test_encoding_a_view_is_the_same_in_every_determinization(
    index: int, seed: int, picks: list[int], det_seed: int
) -> None:
    """No leak into a network's input: what it gets depends on the view alone."""
    game = game_for(index)
    if game is None:
        return
    master, state = walk(game, seed, picks)
    if state.is_over:
        return
    encoder = Encoder.of(game)
    seat = state.mover
    view = view_of(state, seat, game, master.legal_options(state))
    situation, vector, mask = encoder.encode(view)
    for k in range(2):
        det = view.determinize(random.Random(det_seed + k))
        det_view = view_of(det, seat, game, master.legal_options(det))
        got = encoder.encode(det_view)
        assert got[0] == situation
        assert np.array_equal(got[1], vector) and np.array_equal(got[2], mask)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["dominion.rcy", "hearts.rcy"]), seeds, choices, seeds)
def test_the_movers_options_do_not_depend_on_hidden_cards(
    name: str, seed: int, picks: list[int], det_seed: int
) -> None:
    game = own_game(name)
    master, state = walk(game, seed, picks)
    if state.is_over:
        return
    options = master.legal_options(state)
    labels = [game.describe_option(state, o) for o in options]
    view = view_of(state, state.mover, game, options)
    for k in range(3):
        det = view.determinize(random.Random(det_seed + k))
        assert [game.describe_option(det, o) for o in master.legal_options(det)] == labels


def test_determinizing_a_game_that_was_not_recorded_says_why() -> None:
    game = load_game(GAMES / "hearts.rcy")
    master = game.master()
    state = master.new_game(1)
    view = view_of(state, 0, game, master.legal_options(state))
    with pytest.raises(UsageError, match="recorded"):
        view.determinize(random.Random(0))
    with pytest.raises(UsageError, match="recorded"):
        determinize(state, 0, game, random.Random(0))


# ---------------------------------------------------------------- Dominion


def owned_hidden(state, seat: int) -> Counter[int]:  # type: ignore[no-untyped-def]
    return Counter(
        c
        for name in ("DECK", "HAND")
        for c in state.zones.get((seat, "hloc" if name == "DECK" else "iloc", name), [])
    )


@pytest.mark.parametrize("seed", range(6))
def test_dominion_an_opponents_deck_and_hand_are_dealt_from_their_own_cards(seed: int) -> None:
    game = own_game("dominion.rcy")
    master = game.master()
    state = master.new_game(seed, record=True)
    rng = random.Random(seed)
    checked = 0
    while not state.is_over and state.decisions < 300:
        options = master.legal_options(state)
        if state.decisions % 7 == 3:
            viewer = state.mover
            view = view_of(state, viewer, game, options)
            for k in range(4):
                det = view.determinize(random.Random(k))
                for other in range(state.nplayers):
                    if other == viewer:
                        continue
                    # the very cards (ids) of their deck and hand, in some order
                    assert owned_hidden(det, other) == owned_hidden(state, other)
                    kinds = Counter(
                        det.cards[c]["KIND"] for c in owned_hidden(det, other).elements()
                    )
                    visible = Counter(
                        state.cards[c]["KIND"]
                        for key, z in state.zones.items()
                        if key[0] == other and can_see(viewer, key)
                        for c in z
                    )
                    owned = Counter(
                        {kind: state.ints.get((other, kind), 0) for kind in game.kind_attributes}
                    )
                    assert kinds == +(owned - visible)  # what they own and do not show
                checked += 1
        master.apply(state, rng.randrange(len(options)))
    assert checked > 0


# ---------------------------------------------------------------- Hearts


@pytest.mark.parametrize("seed", range(4))
def test_hearts_a_card_seen_in_a_trick_is_never_dealt_back_into_a_hand(seed: int) -> None:
    # as games/hearts.rcy, but won tricks are kept face down: what was seen in a trick is
    # then hidden, and must stay known
    text = (GAMES / "hearts.rcy").read_text().replace("vloc TAKEN", "hloc TAKEN")
    assert "hloc TAKEN" in text
    # its table score sums the cards taken, which face down only their taker may read
    text = re.sub(r"\n \(table-score .*?\n\n", "\n\n", text, flags=re.S)
    assert "(table-score" not in text
    game = load_text(text)
    master = game.master()
    state = master.new_game(seed, record=True)
    rng = random.Random(seed)
    checked = 0
    while not state.is_over:
        options = master.legal_options(state)
        if state.decisions > 8 and state.decisions % 5 == 0:
            viewer = state.mover
            view = view_of(state, viewer, game, options)
            # every Hearts card is one of a kind: the history names the cards played
            played = {
                card_type(e[1])
                for e in view.history
                if e[0] == "move" and e[1] is not None and e[3][1] == "vloc"
            }
            seen_played = {c for c, attrs in enumerate(state.cards) if card_type(attrs) in played}
            for k in range(3):
                det = view.determinize(random.Random(k))
                for other in range(state.nplayers):
                    if other == viewer:
                        continue
                    hand = set(det.zones.get((other, "iloc", "HAND"), []))
                    assert not hand & seen_played
                    # and only cards that lie where the viewer cannot see them
                    assert all(not can_see(viewer, state.card_zone[c]) for c in hand)
            checked += bool(seen_played)
        master.apply(state, rng.randrange(len(options)))
    assert checked > 0


# ---------------------------------------------------------------- a shown card stays known

SHOWN = """(game
 (setup (create players 2)
        (create deck (game hloc STOCK) (deck (RANK (A, TWO, THREE, FOUR, FIVE, SIX))))
        (shuffle (game hloc STOCK))
        (repeat 2 (move (top (game hloc STOCK)) (top ((0 player) hloc DECK))))
        (repeat 2 (move (top (game hloc STOCK)) (top ((1 player) hloc DECK)))))
 (stage player (end (== (size (game vloc SHOWN)) 2))
        (choice ((move (top ((current player) hloc DECK)) (top (game vloc SHOWN)))))
        ;; the shown card goes back onto the top of the player's (hidden) deck
        (move (top (game vloc SHOWN)) (top ((current player) hloc DECK)))
        (move (top (game hloc STOCK)) (top (game vloc SHOWN))))
 (scoring max 0))"""


def test_a_card_shown_and_put_onto_a_hidden_deck_stays_known_there() -> None:
    game = load_text(SHOWN)
    master = game.master()
    state = master.new_game(3, record=True)
    master.apply(state, 0)  # P0 shows its top card, which goes back on top of its deck
    top = state.zones[(0, "hloc", "DECK")][-1]
    below = state.zones[(0, "hloc", "DECK")][0]
    for seat in (0, 1):
        view = view_of(state, seat, game, master.legal_options(state))
        known = view.known_cards(0, "hloc", "DECK")
        assert known[-1] == state.cards[top] and known[0] is None
        for k in range(10):
            det = view.determinize(random.Random(k))
            assert det.zones[(0, "hloc", "DECK")][-1] == top
            assert det.zones[(0, "hloc", "DECK")][0] != top
        # the other cards of the deck are dealt from the cards nobody has seen
        seen = {top, *state.zones[(-1, "vloc", "SHOWN")]}
        dealt = {
            view.determinize(random.Random(k)).zones[(0, "hloc", "DECK")][0] for k in range(40)
        }
        assert below in dealt or len(dealt) > 1
        assert not dealt & seen


# ---------------------------------------------------------------- no way to hidden cards


def reachable_types(view: PlayerView) -> set[str]:
    """The type of every card whose attributes the view's public API gives out."""
    found: set[str] = set()
    for key in view.locations():
        for attrs in (*(view.cards(*key) or ()), view.top(*key), *view.known_cards(*key)):
            if attrs is not None:
                found.add(card_type(attrs))
    for attrs in view.visible.values():
        found.update(card_type(a) for a in attrs)
    for event in view.history:
        if event[0] in ("move", "remember") and event[1] is not None:
            found.add(card_type(event[1]))
    for option in view.options:
        found.update(card_type(c) for c in option.cards if c is not None)
    return found


@pytest.mark.parametrize("seed", range(3))
def test_a_view_gives_out_no_card_its_player_has_not_seen(seed: int) -> None:
    # Hearts: every card is one of a kind, so a type names one card
    game = load_game(GAMES / "hearts.rcy")
    master = game.master()
    state = master.new_game(seed, record=True)
    rng = random.Random(seed)
    seen: list[set[int]] = [set() for _ in range(state.nplayers)]
    while not state.is_over:
        options = master.legal_options(state)
        for seat in range(state.nplayers):
            seen[seat] |= {c for k, z in state.zones.items() if can_see(seat, k) for c in z}
            allowed = {card_type(state.cards[c]) for c in seen[seat]}
            view = view_of(state, seat, game, options if seat == state.mover else None)
            assert reachable_types(view) <= allowed
            # a hidden card the player never saw is nowhere in what the view gives out
            unseen = {card_type(state.cards[c]) for c in range(len(state.cards))} - allowed
            assert not reachable_types(view) & unseen
        master.apply(state, rng.randrange(len(options)))


def test_a_finished_game_is_frozen() -> None:
    game = load_game(GAMES / "hearts.rcy")
    master = game.master(engine="python")  # calls the Gamemaster's own advance
    state = master.new_game(2, record=True)
    rng = random.Random(2)
    while not state.is_over:
        master.apply(state, rng.randrange(len(master.legal_options(state))))
    before = state.fingerprint()
    assert master.legal_options(state) == []
    with pytest.raises(UsageError, match="over"):
        master.apply(state, 0)
    master.advance(state)
    assert state.fingerprint() == before and master.result(state).completed


class _Determinizer:
    """An agent that determinizes its view at every decision, then plays the first option."""

    name = "determinizer"
    capabilities = Capabilities(knowledge=True)

    def __init__(self) -> None:
        self.rng = random.Random(0)
        self.done = 0

    def choose(self, view: PlayerView, options: list[object]) -> int:
        det = view.determinize(self.rng)
        assert len(det.zones) >= len(view.locations())
        self.done += 1
        return 0


def test_the_runner_records_a_game_whose_agent_needs_knowledge() -> None:
    from cardlang.runs.runner import play_game

    game = load_game(GAMES / "hearts.rcy")
    agents = [_Determinizer() for _ in range(game.nplayers)]
    result, state = play_game(game.master(), agents, 5)
    assert result.completed and state.log is not None
    assert sum(a.done for a in agents) == result.decisions


@SETTINGS
@given(games, seeds, choices, seeds)
def test_what_a_view_keeps_for_determinizing_is_the_same_in_a_twin_world(
    index: int, seed: int, picks: list[int], other_seed: int
) -> None:
    """A snapshot view keeps a skeleton of the state: it must hold nothing that differs
    between worlds the player cannot tell apart (no true place of an unseen card)."""
    game = game_for(index)
    if game is None:
        return
    master, state = walk(game, seed, picks)
    if state.is_over:
        return
    seat = picks[0] % state.nplayers
    twin = indistinguishable_twin(state, seat, game, random.Random(other_seed))
    if twin is None:
        return
    first = Skeleton(state, seat, game).base
    second = Skeleton(twin, seat, game).base
    assert first.zones == second.zones and first.card_zone == second.card_zone
    assert first.regs == second.regs and first.stack == second.stack


def test_the_history_since_an_event_is_the_tail_of_the_history() -> None:
    game = load_game(GAMES / "hearts.rcy")
    master = game.master()
    state = master.new_game(4, record=True)
    for _ in range(9):
        master.apply(state, 0)
    options = master.legal_options(state)
    live = PlayerView.live(state, 1, game, options)
    snapshot = view_of(state, 1, game, options)
    for view in (live, snapshot):
        history = view.history
        assert view.history_length == len(history) > 20
        assert view.history_since(20) == history[20:] and view.history_since(0) == history
    live.close()
