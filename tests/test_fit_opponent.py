"""cardlang fit-opponent: PARLESS models from recorded games, and the model as an opponent.

The counts are checked against the records themselves (every decision, or with
``--champion`` exactly the winners' decisions, read straight from SQLite), the prior
against the formula worked by hand, and a state never seen against the uniform
distribution.  The model then serves ``cardlang solve`` as the opponent.
"""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from cardlang.agents import make_agent
from conftest import GAMES
from helpers import record_games, run_cli

from cardlang import load_game
from cardlang.information.observation import observation_key, option_key
from cardlang.information.views import view_of

KUHN = GAMES / "kuhn_poker.rcy"


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("fit") / "kuhn.db"
    return record_games(db, KUHN, agents="random", games=200, seed=3)


def _fit(db: Path, out: Path, *extra: str) -> dict[str, Any]:
    done = run_cli(
        "fit-opponent", str(db), "--game", str(KUHN), "--out", str(out), "--json", *extra
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_every_recorded_decision_is_counted(records: Path, tmp_path: Path) -> None:
    summary = _fit(records, tmp_path / "m.json")
    with sqlite3.connect(records) as conn:
        (decisions,) = conn.execute("SELECT count(*) FROM decisions").fetchone()
    assert summary["games"] == 200 and summary["decisions"] == decisions
    model = json.loads((tmp_path / "m.json").read_text())
    assert sum(sum(m.values()) for m in model["states"].values()) == decisions
    assert model["prior"] == 3.0 and model["method"] == "parless"


def test_champion_counts_only_the_winners_decisions(records: Path, tmp_path: Path) -> None:
    summary = _fit(records, tmp_path / "c.json", "--champion")
    with sqlite3.connect(records) as conn:
        (winners,) = conn.execute(
            "SELECT count(*) FROM decisions d JOIN results r "
            "ON r.game_id = d.game_id AND r.seat = d.seat WHERE r.rank = 1"
        ).fetchone()
    assert 0 < summary["decisions"] == winners


def test_the_prior_and_the_counts_make_the_posterior_mean(tmp_path: Path) -> None:
    game = load_game(KUHN)
    master = game.master(engine="python")
    st = master.new_game(0, record=True)
    options = master.legal_options(st)
    view = view_of(st, st.mover, game, options)
    keys = [option_key(o) for o in view.options]  # check, bet
    path = tmp_path / "hand.json"
    path.write_text(
        json.dumps(
            {
                "format": "cardlang-opponent-model",
                "version": 1,
                "method": "parless",
                "keys": "view",
                "prior": 3.0,
                "states": {observation_key(view, "view"): {keys[1]: 5}},
            }
        )
    )
    agent = make_agent(f"model:path={path}", 0)
    # 3 pseudo-counts over 2 legal moves (1.5 each) plus 0 and 5 seen: 1.5/8 and 6.5/8
    assert agent.probabilities(view, options) == pytest.approx([1.5 / 8, 6.5 / 8])
    other = master.new_game(1, record=True)  # another card: a state the model never saw
    while observation_key(
        view_of(other, other.mover, game, master.legal_options(other)), "view"
    ) == observation_key(view, "view"):
        other = master.new_game(other.seed + 1, record=True)
    o_view = view_of(other, other.mover, game, master.legal_options(other))
    assert agent.probabilities(o_view, master.legal_options(other)) == [0.5, 0.5]


def test_a_fitted_model_is_an_opponent_for_solve(records: Path, tmp_path: Path) -> None:
    model = tmp_path / "m.json"
    _fit(records, model)
    done = run_cli(
        "solve",
        str(KUHN),
        "--seat",
        "0",
        "--opponent",
        f"model:{model}",
        "--reward",
        "score",
        "--json",
        "--quiet",
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["exact"]  # the model gives probabilities
    # fitted from random play, it is near the uniform opponent (0.5 for seat 0)
    assert math.isclose(result["value"], 0.5, abs_tol=0.15)


def test_records_of_another_game_are_refused(records: Path, tmp_path: Path) -> None:
    done = run_cli(
        "fit-opponent",
        str(records),
        "--game",
        str(GAMES / "leduc_poker.rcy"),
        "--out",
        str(tmp_path / "x.json"),
    )
    assert done.returncode == 1 and "no finished game of this game file" in done.stderr
