"""Every game file, ours and CardStock's, parses, checks and plays 200 random games.

For each file: the games complete (the corpus's known-broken files may instead stop with
a positioned error), cards are conserved, the same seed gives the same transcript, and a
clone evolves independently of its original.  Over the corpus as a whole: it holds the 65
files of its README, and exactly the files declared in ``CORPUS_FAILS_CHECK`` fail the
check (one that starts to check clean must be taken off that list).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from conftest import (
    CORPUS,
    CORPUS_BROKEN,
    CORPUS_FAILS_CHECK,
    CORPUS_FILE_COUNT,
    corpus_games,
    corpus_params,
    needs_corpus,
    own_games,
)
from helpers import assert_conserved, play_random

from cardlang import GameFileError, load_game
from cardlang.runs.simulate import run_batch

GAME_FILES = [
    p if not isinstance(p, Path) else pytest.param(p, id=f"{p.parent.name}/{p.stem}")
    for p in [*own_games(), *corpus_params()]
]
GAMES_PER_FILE = 200
REMOVE_HINT = "remove it from CORPUS_FAILS_CHECK in tests/conftest.py"


def _in_corpus(path: Path) -> bool:
    return path.parent == CORPUS


def _is_broken(path: Path) -> bool:
    return _in_corpus(path) and path.stem in CORPUS_BROKEN


def _fails_check(path: Path) -> bool:
    return _in_corpus(path) and path.stem in CORPUS_FAILS_CHECK


@pytest.fixture(scope="module", params=GAME_FILES)
def game_or_error(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    path: Path = request.param
    try:
        return path, load_game(path), None
    except GameFileError as err:
        return path, None, err


def test_parses_and_checks(game_or_error) -> None:  # type: ignore[no-untyped-def]
    path, game, err = game_or_error
    if err is None:
        assert not _fails_check(path), f"{path.stem} now checks clean: {REMOVE_HINT}"
        return
    assert _fails_check(path), f"{path.name} should check clean:\n{err.render()}"
    assert all(d.span.line >= 1 for d in err.errors), "errors must be positioned"
    pytest.skip(f"known-broken corpus file, stops at check: {err.errors[0].message}")


@needs_corpus
@pytest.mark.parametrize("name", sorted(CORPUS_FAILS_CHECK))
def test_known_broken_files_still_fail_the_check(name: str) -> None:
    """Each file declared broken at check time still is, with positioned errors; one that
    now checks clean fails here, so the list cannot go stale."""
    path = CORPUS / f"{name}.rcy"
    assert path.is_file(), f"{path} is not in the corpus: {REMOVE_HINT}"
    try:
        load_game(path)
    except GameFileError as err:
        assert err.errors, "a GameFileError must carry its diagnostics"
        assert all(d.span.line >= 1 and d.span.column >= 1 for d in err.errors), err.render()
    else:
        pytest.fail(f"{name} now checks clean: {REMOVE_HINT}")


@needs_corpus
def test_corpus_count() -> None:
    """The corpus holds the 65 files its README announces, the declared lists name files
    that exist, and the number of files that check clean, counted by loading every file,
    is the file count less the files declared to fail the check."""
    files = corpus_games()
    stems = {p.stem for p in files}
    assert len(files) == CORPUS_FILE_COUNT, f"expected {CORPUS_FILE_COUNT} files in {CORPUS}"
    assert CORPUS_BROKEN <= stems, f"not in the corpus: {sorted(CORPUS_BROKEN - stems)}"
    assert CORPUS_FAILS_CHECK <= CORPUS_BROKEN, "only files the README marks broken may fail"
    failing = set()
    for path in files:
        try:
            load_game(path)
        except GameFileError:
            failing.add(path.stem)
    clean = len(files) - len(failing)
    assert clean == CORPUS_FILE_COUNT - len(CORPUS_FAILS_CHECK), (
        f"{clean} files check clean; failing: {sorted(failing)}, "
        f"declared: {sorted(CORPUS_FAILS_CHECK)}"
    )
    assert failing == CORPUS_FAILS_CHECK


def test_random_games_complete(game_or_error) -> None:  # type: ignore[no-untyped-def]
    path, game, err = game_or_error
    if game is None:
        pytest.skip("does not check (see test_parses_and_checks)")
    summary = run_batch(
        game, games=GAMES_PER_FILE, seed=2024, agent_specs=["random"] * game.nplayers
    )
    assert summary.games == GAMES_PER_FILE, f"only {summary.games} games were played"
    if _is_broken(path):
        # a broken file may stop with a positioned rule error or hit a play limit
        assert all(r.startswith("cutoff:") for r in summary.cutoff_reasons), summary.cutoff_reasons
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
