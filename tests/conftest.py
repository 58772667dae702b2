"""Shared test fixtures: where the games are, and the --regen-golden flag."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"
CORPUS = ROOT.parent / "shared" / "cardstock"

#: Files the corpus README marks as broken or incomplete: they may end with a positioned
#: error (at check time or at run time) instead of completing.
CORPUS_BROKEN = {
    "ContinuousPairs4",
    "GoFish2",
    "LostCities2",
    "Rummy2",
    "Comet3",
    "Comet5",
    "Coloretto4",
    "Scopa2",
    "PageOne3",
}


def own_games() -> list[Path]:
    return sorted(GAMES.glob("*.rcy"))


def corpus_games() -> list[Path]:
    return sorted(CORPUS.glob("*.rcy")) if CORPUS.is_dir() else []


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--regen-golden",
        action="store_true",
        help="rewrite tests/golden/*.txt from the current interpreter",
    )


@pytest.fixture
def regen_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--regen-golden"))


def pytest_report_header(config: pytest.Config) -> str:
    if CORPUS.is_dir():
        return f"cardstock corpus: {CORPUS} ({len(corpus_games())} games)"
    return f"cardstock corpus: absent ({CORPUS}); corpus tests are skipped"
