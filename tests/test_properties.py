"""Invariants under random play, as hypothesis properties over games, seeds and choices.

- cards are conserved: every card is in exactly one real location at every step;
- listing options never changes the state;
- a clone is independent: playing it leaves the original untouched;
- the same seed and the same choices give the same game, bit for bit.
"""

from __future__ import annotations

from functools import cache

from conftest import CORPUS_FAILS_CHECK, corpus_games, own_games
from helpers import assert_conserved
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardlang import GameFileError, load_game

FILES = own_games() + corpus_games()[::4]  # a spread of the corpus keeps this fast


@cache
def master_for(index: int):  # type: ignore[no-untyped-def]
    try:
        return load_game(FILES[index]).master()
    except GameFileError:
        # only a corpus file declared broken may fail to load (it is then left out)
        assert FILES[index].stem in CORPUS_FAILS_CHECK, f"{FILES[index]} does not load"
        return None


games = st.integers(min_value=0, max_value=len(FILES) - 1)
seeds = st.integers(min_value=0, max_value=2**32)
choices = st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=60)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def walk(master, seed: int, picks: list[int]):  # type: ignore[no-untyped-def]
    state = master.new_game(seed)
    for pick in picks:
        if state.is_over:
            break
        options = master.legal_options(state)
        master.apply(state, pick % len(options))
    return state


@SETTINGS
@given(games, seeds, choices)
def test_cards_are_conserved_at_every_step(game: int, seed: int, picks: list[int]) -> None:
    master = master_for(game)
    if master is None:
        return
    state = master.new_game(seed)
    for pick in picks:
        assert_conserved(state)
        if state.is_over:
            break
        master.apply(state, pick % len(master.legal_options(state)))


@SETTINGS
@given(games, seeds, choices)
def test_listing_options_is_pure(game: int, seed: int, picks: list[int]) -> None:
    master = master_for(game)
    if master is None:
        return
    state = walk(master, seed, picks)
    if state.is_over:
        return
    before = (state.fingerprint(), list(state.regs), state.rng)
    state.options = None
    master.legal_options(state)
    assert (state.fingerprint(), list(state.regs), state.rng) == before


@SETTINGS
@given(games, seeds, choices, choices)
def test_clones_are_independent(game: int, seed: int, picks: list[int], more: list[int]) -> None:
    master = master_for(game)
    if master is None:
        return
    state = walk(master, seed, picks)
    before = state.fingerprint()
    clone = state.clone()
    for pick in more:
        if clone.is_over:
            break
        master.apply(clone, pick % len(master.legal_options(clone)))
    assert state.fingerprint() == before


@SETTINGS
@given(games, seeds, choices)
def test_same_seed_same_choices_same_game(game: int, seed: int, picks: list[int]) -> None:
    master = master_for(game)
    if master is None:
        return
    assert walk(master, seed, picks).fingerprint() == walk(master, seed, picks).fingerprint()
