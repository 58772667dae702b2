"""Golden transcripts: one recorded game of each of our own games, compared line by line.

A change in the interpreter that changes how a game plays shows up here as a diff.  When
the change is intended, regenerate with ``python -m pytest tests/test_golden.py
--regen-golden`` and review the diff of tests/golden/ before committing it.
"""

from __future__ import annotations

import pytest
from cardlang.agents import make_agent
from conftest import GAMES, own_games

from cardlang import load_game
from cardlang.runs.simulate import agent_seeds, play_game
from cardlang.runs.transcript import render_transcript

GOLDEN = GAMES.parent / "tests" / "golden"
SEED = 12345


def transcript(path) -> str:  # type: ignore[no-untyped-def]
    game = load_game(path)
    specs = ["random"] * game.nplayers
    agents = [
        make_agent(s, seed) for s, seed in zip(specs, agent_seeds(SEED, len(specs)), strict=True)
    ]
    result, st = play_game(game.master(), agents, SEED, record=True)
    text = render_transcript(game, st, result, specs)
    # the header names the file by the path it was loaded with; keep it stable
    return text.replace(str(path), f"games/{path.name}") + "\n"


@pytest.mark.parametrize("path", own_games(), ids=lambda p: p.stem)
def test_golden_transcript(path, regen_golden: bool) -> None:  # type: ignore[no-untyped-def]
    golden = GOLDEN / f"{path.stem}.txt"
    actual = transcript(path)
    if regen_golden or not golden.exists():
        GOLDEN.mkdir(exist_ok=True)
        golden.write_text(actual)
        if not regen_golden:
            pytest.fail(f"{golden} did not exist and was written; review and commit it")
        return
    expected = golden.read_text()
    if actual != expected:
        diff_at = (
            next(
                i
                for i, (a, b) in enumerate(
                    zip(actual.splitlines(), expected.splitlines(), strict=False)
                )
                if a != b
            )
            if actual.splitlines()[: len(expected.splitlines())] != expected.splitlines()
            else len(expected.splitlines())
        )
        pytest.fail(
            f"transcript of {path.name} changed at line {diff_at + 1}; if intended, "
            "rerun with --regen-golden and review tests/golden/"
        )


def test_golden_files_cover_every_game() -> None:
    names = {p.stem for p in own_games()}
    stale = {p.stem for p in GOLDEN.glob("*.txt")} - names
    assert not stale, f"golden transcripts for games that no longer exist: {stale}"
