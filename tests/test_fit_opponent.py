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

import numpy as np
import pytest
from cardlang.agents import make_agent
from conftest import GAMES
from helpers import record_games, run_cli

from cardlang import load_game
from cardlang.information.observation import observation_key, seen_option_key
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
    keys = [seen_option_key(o) for o in view.options]  # check, bet
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


# ---------------------------------------------------------------- PAWNN
def test_pawnn_learns_a_rule_and_masks_illegal_moves() -> None:
    """A network trained on targets that a rule of the vector decides beats the uniform
    distribution on held-out states, and never puts mass on a masked move."""
    from cardlang.agents.opponent_model import network_distribution as probabilities

    from cardlang.solve.pawnn import Samples, cross_validate, fit_networks

    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, 4))
    mask = np.ones((300, 3), dtype=bool)
    mask[::3, 2] = False  # the third move is illegal in a third of the states
    target = np.zeros((300, 3))
    target[np.arange(300), (x[:, 0] > 0).astype(int)] = 1.0  # move 0 or 1 by the sign
    s = Samples(x, mask, target)
    cv = cross_validate(s, folds=5, seed=0)
    assert cv["folds"] == 5 and cv["cross_entropy"] < 0.35 < cv["uniform_cross_entropy"]
    networks, _ = fit_networks({"S": s}, folds=2, seed=0)
    w = {k: np.asarray(v) for k, v in networks["S"].items()}
    p = probabilities(w, x, mask)
    assert np.allclose(p.sum(axis=1), 1.0) and (p[~mask] == 0).all()


def test_a_pawnn_model_answers_unseen_states_with_its_network(
    records: Path, tmp_path: Path
) -> None:
    out = tmp_path / "pawnn.json"
    summary = _fit(records, out, "--method", "pawnn", "--folds", "3")
    cv = next(iter(summary["cross_validation"].values()))
    assert cv["folds"] == 3 and cv["cross_entropy"] is not None
    doc = json.loads(out.read_text())
    assert doc["method"] == "pawnn" and doc["networks"]
    doc["states"] = {}  # every state unseen: only the network answers
    out.write_text(json.dumps(doc))
    agent = make_agent(f"model:path={out}", 0)
    game = load_game(KUHN)
    master = game.master(engine="python")
    for seed in range(6):
        st = master.new_game(seed, record=True)
        options = master.legal_options(st)
        probs = agent.probabilities(view_of(st, st.mover, game, options), options)
        assert math.isclose(sum(probs), 1.0) and probs != [0.5, 0.5]
    assert agent.unseen == 6
