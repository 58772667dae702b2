"""cardlang solve --explore: a process counted from the games its own policy plays.

The policy it finds for Kuhn poker is measured exactly (every deal walked, its value
against the known best response), a killed solve resumes from its checkpoint to the very
result an unbroken one reaches, a checkpoint of another solve is refused, and the state
keys that leave names out (``--ignore``) merge exactly what they say.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from conftest import GAMES
from helpers import record_games, run_cli

from cardlang import load_game
from cardlang.information.observation import StateKeys
from cardlang.solve import Problem, evaluate_policy, opponent_model, starting_positions
from cardlang.solve.exploring import Settings, explore, identity_of
from cardlang.solve.worlds import SolveError

KUHN = GAMES / "kuhn_poker.rcy"
PUNISH = GAMES / "punish.rcy"
#: Seat 0's best response to a uniform opponent in Kuhn poker (tests/test_solve.py
#: derives it from the rules).
KUHN_BEST = 0.5


def _problem() -> Problem:
    keys = StateKeys("info")
    game = load_game(KUHN)
    master = game.master(engine="python")
    positions = starting_positions(master, sample=None, seed=0)
    return Problem(master, game, positions, 0, opponent_model("uniform", game, 2, 0), keys, "score")


def _settings(**changes: Any) -> Settings:
    base = dict(
        games=3_000,
        rounds=6,
        epsilon=0.2,
        seed=7,
        discount=1.0,
        tolerance=1e-9,
        max_sweeps=100,
        max_states=1_000,
    )
    return Settings(**{**base, **changes})  # type: ignore[arg-type]


def _policy(x: Any) -> dict[str, str]:
    p, greedy = x.process, x.solution.greedy
    return {key: p.actions[s][greedy[s]] for s, key in enumerate(p.keys)}


def test_the_explored_policy_of_kuhn_is_near_the_best_response() -> None:
    problem = _problem()
    x = explore(problem, _settings())
    assert x.process.n_states == 6  # seat 0's information states: 3 cards x 2 histories
    assert [r.games for r in x.rounds] == [500, 1_000, 1_500, 2_000, 2_500, 3_000]
    # every position walked: the policy's exact value, not an estimate
    values = evaluate_policy(problem, _policy(x))
    exact = sum(values) / len(values)
    assert KUHN_BEST - 0.03 <= exact <= KUHN_BEST + 1e-12
    # counted, not exact: the process's own value is near it
    assert abs(x.solution.start_value - KUHN_BEST) < 0.1


def test_a_killed_solve_resumes_from_its_checkpoint_to_the_same_result(tmp_path: Path) -> None:
    problem, settings = _problem(), _settings(games=1_200, rounds=4)
    identity = identity_of(problem, KUHN.read_text(), "uniform")
    whole = explore(problem, settings)

    def kill_after_two(r: Any) -> None:
        if r.number == 2:
            raise KeyboardInterrupt

    ckpt = tmp_path / "kuhn.ckpt"
    with pytest.raises(KeyboardInterrupt):
        explore(problem, settings, checkpoint=ckpt, identity=identity, on_round=kill_after_two)
    seen: list[int] = []
    resumed = explore(
        problem,
        settings,
        checkpoint=ckpt,
        identity=identity,
        on_round=lambda r: seen.append(r.number),
    )
    assert seen == [3, 4]  # rounds 1 and 2 came from the checkpoint
    assert resumed.rounds == whole.rounds
    for name in ("keys", "actions", "tries", "next", "start", "reward"):
        assert getattr(resumed.process, name) == getattr(whole.process, name), name
    assert _policy(resumed) == _policy(whole)


def test_a_checkpoint_of_another_solve_is_refused(tmp_path: Path) -> None:
    problem = _problem()
    identity = identity_of(problem, KUHN.read_text(), "uniform")
    ckpt = tmp_path / "kuhn.ckpt"
    explore(problem, _settings(games=100, rounds=1), checkpoint=ckpt, identity=identity)
    with pytest.raises(SolveError, match="made by another solve"):
        explore(problem, _settings(games=200, rounds=1), checkpoint=ckpt, identity=identity)
    ckpt.write_text("not a checkpoint")
    with pytest.raises(SolveError, match="cannot be read"):
        explore(problem, _settings(games=100, rounds=1), checkpoint=ckpt, identity=identity)


def test_explore_on_the_command_line(tmp_path: Path) -> None:
    out = tmp_path / "kuhn.json"
    done = run_cli(
        "solve", str(KUHN), "--reward", "score", "--explore", "2000", "--rounds", "4",
        "--play", "500", "--out", str(out), "--json", "--quiet",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert not result["exact"] and "2,000 games the policy played" in result["why"]
    assert [r["games"] for r in result["rounds"]] == [500, 1_000, 1_500, 2_000]
    assert abs(result["policy_value"] - KUHN_BEST) < 4 * result["standard_error"] + 0.03
    assert json.loads(out.read_text())["keys"] == "info"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--explore", "10", "--rollouts", "2"], "choose one"),
        (["--checkpoint", "x.ckpt"], "add --explore N"),
        (["--keys", "counts", "--ignore", "CHIP"], "did you mean 'CHIPS'?"),
        (["--keys", "info", "--ignore", "CHIPS"], "needs view or counts"),
        (["--explore", "10", "--sample", "3"], "--sample does not apply"),
    ],
)
def test_explore_and_ignore_refuse_what_does_not_fit(extra: list[str], message: str) -> None:
    done = run_cli("solve", str(KUHN), "--quiet", *extra)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr


# ---------------------------------------------------------------- keys without names
def _view(ints: dict[Any, int], hand: list[str], options: list[str]) -> Any:
    def card(kind: str) -> dict[str, str]:
        return {"KIND": kind}

    return SimpleNamespace(
        seat=0,
        situation="PICK",
        visible={(0, "iloc", "HAND"): tuple(card(k) for k in hand)},
        hidden_sizes={(1, "iloc", "HAND"): 5, (-1, "iloc", "DECK"): 2},
        ints=ints,
        strs={},
        options=[SimpleNamespace(branch=0, bindings=(("C", card(k)),)) for k in options],
        history=(),
    )


def test_ignored_names_and_counted_hands_merge_exactly_what_they_say() -> None:
    a = _view({(0, "HP"): 3, (1, "DAMAGE"): 2}, ["RUSH", "GUARD"], ["RUSH", "GUARD"])
    b = _view({(0, "HP"): 3, (1, "DAMAGE"): 0}, ["GUARD", "RUSH"], ["GUARD", "RUSH"])
    c = _view({(0, "HP"): 2, (1, "DAMAGE"): 0}, ["GUARD", "RUSH"], ["GUARD", "RUSH"])
    counts, view = StateKeys.make("counts", ["DAMAGE"]), StateKeys.make("view", ["DAMAGE"])
    assert counts.of(a) == counts.of(b)  # order and the ignored storage: merged
    assert counts.of(b) != counts.of(c)  # a storage it keeps: apart
    assert view.of(a) != view.of(b)  # view keys keep the hand's order
    assert StateKeys("counts").of(a) != StateKeys("counts").of(b)  # DAMAGE kept
    decked = StateKeys.make("counts", ["DECK"])
    assert decked.of(a) != StateKeys("counts").of(a)
    assert str(counts) == "counts keys without DAMAGE"
    assert StateKeys.from_fields(counts.fields()) == counts
    with pytest.raises(ValueError, match="needs view or counts"):
        StateKeys.make("info", ["DAMAGE"])


def test_a_model_fitted_without_names_keys_its_states_without_them(tmp_path: Path) -> None:
    from cardlang.agents import make_agent

    db = record_games(tmp_path / "p.db", PUNISH, agents="random", games=60, seed=1)
    out = tmp_path / "m.json"
    done = run_cli(
        "fit-opponent", str(db), "--game", str(PUNISH), "--out", str(out),
        "--keys", "counts", "--ignore", "DAMAGE,SHOWING", "--ignore", "DISCARD", "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    fine = tmp_path / "fine.json"
    assert run_cli(
        "fit-opponent", str(db), "--game", str(PUNISH), "--out", str(fine), "--keys", "counts"
    ).returncode == 0  # fmt: skip
    doc, fine_doc = json.loads(out.read_text()), json.loads(fine.read_text())
    assert doc["ignore"] == ["DAMAGE", "DISCARD", "SHOWING"] and fine_doc["ignore"] == []
    assert len(doc["states"]) < len(fine_doc["states"])  # coarser: fewer states
    assert sum(map(sum, (m.values() for m in doc["states"].values()))) == sum(
        map(sum, (m.values() for m in fine_doc["states"].values()))
    )  # the same decisions, counted
    agent = make_agent(f"model:path={out}", seed=0)
    assert agent.keys == StateKeys.make("counts", ["DAMAGE", "DISCARD", "SHOWING"])
