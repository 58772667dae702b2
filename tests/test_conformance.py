"""Every game file, ours and CardStock's, parses, checks and plays 200 random games.

For each file: the games complete (the corpus's known-broken files may instead stop with
a positioned error), cards are conserved, the same seed gives the same transcript, and a
clone evolves independently of its original.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from conftest import CORPUS_BROKEN, corpus_games, own_games
from helpers import assert_conserved, play_random

from cardlang import GameFileError, load_game
from cardlang.runs.simulate import run_batch

GAME_FILES = own_games() + corpus_games()
IDS = [f"{p.parent.name}/{p.stem}" for p in GAME_FILES]
GAMES_PER_FILE = 200


def _is_broken(path: Path) -> bool:
    return path.parent.name == "cardstock" and path.stem in CORPUS_BROKEN


@pytest.fixture(scope="module", params=GAME_FILES, ids=IDS)
def game_or_error(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    path: Path = request.param
    try:
        return path, load_game(path), None
    except GameFileError as err:
        return path, None, err


def test_parses_and_checks(game_or_error) -> None:  # type: ignore[no-untyped-def]
    path, game, err = game_or_error
    if err is not None:
        assert _is_broken(path), f"{path.name} should check clean:\n{err.render()}"
        assert all(d.span.line >= 1 for d in err.errors), "errors must be positioned"
        pytest.skip(f"known-broken corpus file, stops at check: {err.errors[0].message}")


def test_random_games_complete(game_or_error) -> None:  # type: ignore[no-untyped-def]
    path, game, err = game_or_error
    if game is None:
        pytest.skip("does not check (see test_parses_and_checks)")
    summary = run_batch(
        game, games=GAMES_PER_FILE, seed=2024, agent_specs=["random"] * game.nplayers
    )
    if _is_broken(path):
        assert summary.completed + summary.failed + summary.cutoff == GAMES_PER_FILE
        for text in summary.errors:
            assert f"{path.name}:" in text.split(" rule error")[0], text
        return
    assert summary.completed == GAMES_PER_FILE, (
        f"{summary.failed} failed, {summary.cutoff} cut off: {summary.errors}"
    )


def test_cards_are_conserved(game_or_error) -> None:  # type: ignore[no-untyped-def]
    path, game, _ = game_or_error
    if game is None:
        pytest.skip("does not check")
    master = game.master()
    for seed in range(3):
        _, st = play_random(master, seed, check_each_step=True)
        assert_conserved(st)


def test_same_seed_same_transcript(game_or_error) -> None:  # type: ignore[no-untyped-def]
    path, game, _ = game_or_error
    if game is None:
        pytest.skip("does not check")
    master = game.master()
    first = play_random(master, 7, record=True)[1]
    second = play_random(master, 7, record=True)[1]
    assert first.log == second.log
    assert first.fingerprint() == second.fingerprint()


def test_clone_evolves_independently(game_or_error) -> None:  # type: ignore[no-untyped-def]
    path, game, _ = game_or_error
    if game is None:
        pytest.skip("does not check")
    master = game.master()
    st = master.new_game(11)
    rng = random.Random(11)
    # walk a few decisions in, then clone and play the clone to the end
    for _ in range(3):
        if st.is_over:
            break
        master.apply(st, rng.randrange(len(master.legal_options(st))))
    before = st.fingerprint()
    clone = st.clone()
    assert clone.fingerprint() == before
    while not clone.is_over:
        master.apply(clone, rng.randrange(len(master.legal_options(clone))))
    assert st.fingerprint() == before, "playing the clone changed the original"
    if not st.is_over:
        # and the original still plays on by itself
        while not st.is_over:
            master.apply(st, rng.randrange(len(master.legal_options(st))))
        assert_conserved(st)


def test_listing_options_leaves_state_unchanged(game_or_error) -> None:  # type: ignore[no-untyped-def]
    path, game, _ = game_or_error
    if game is None:
        pytest.skip("does not check")
    master = game.master()
    st = master.new_game(5)
    rng = random.Random(5)
    for _ in range(30):
        if st.is_over:
            break
        before = (st.fingerprint(), list(st.regs), st.rng)
        st.options = None
        options = master.legal_options(st)
        assert (st.fingerprint(), list(st.regs), st.rng) == before
        master.apply(st, rng.randrange(len(options)))
