"""Tournaments of untrusted agents (cardlang.runs.tournament, runs/sandbox.py, the
``cardlang tournament`` command): ratings, resumption from the records, and agents that
cheat, crash, sleep, hoard memory or answer illegal moves, each in its own worker."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cardlang import load_game
from cardlang.cli.main import main
from cardlang.runs.sandbox import SandboxLimits
from cardlang.runs.store import RunStore
from cardlang.runs.tournament import bradley_terry, run_tournament, seatings

ROOT = Path(__file__).resolve().parent.parent
KUHN = str(ROOT / "games" / "kuhn_poker.rcy")
HOSTILE = str(Path(__file__).resolve().parent / "tournament_agents" / "hostile.py")
BOT = f"{HOSTILE}:KuhnBot"
SEARCH = "ismcts:iterations=50"
SECRET = "00112233445566778899aabbccddeeff"


def _kuhn():  # type: ignore[no-untyped-def]
    return load_game(KUHN)


def test_seatings_cover_every_pairing_with_rotated_seats() -> None:
    assert seatings(["a", "b", "c"], 2, 2) == [
        ("a", "b"),
        ("b", "a"),
        ("a", "c"),
        ("c", "a"),
        ("b", "c"),
        ("c", "b"),
    ]
    three = seatings(["a", "b", "c", "d"], 3, 3)
    assert len(three) == 4 * 3 and three[:3] == [("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")]


def test_bradley_terry_orders_and_bounds_ratings() -> None:
    wins = np.array([[0, 8, 10], [2, 0, 7], [0, 3, 0]], dtype=float)
    games = np.array([[0, 10, 10], [10, 0, 10], [10, 10, 0]], dtype=float)
    theta, sd = bradley_terry(3, wins, games)
    assert theta[0] > theta[1] > theta[2]
    assert abs(theta.sum()) < 1e-9 and np.all(np.isfinite(theta)) and np.all(sd > 0)


def test_a_tournament_rates_sensibly_and_resumes_to_the_same_json(tmp_path: Path) -> None:
    game = _kuhn()
    agents = ["random", BOT, SEARCH]
    full = run_tournament(game, agents=agents, games=30, seed=3, secret=SECRET).to_json()
    ratings = full["ratings"]
    assert set(ratings) == set(agents)
    assert min(ratings, key=lambda a: ratings[a]["rating"]) == "random"
    for row in ratings.values():
        assert row["ci_low"] < row["rating"] < row["ci_high"] and row["games"] == 60
    assert full["games"] == {
        "planned": 90,
        "played": 90,
        "completed": 90,
        "forfeits": 0,
        "failed": 0,
        "cutoff": 0,
    }
    assert full["forfeits"] == {a: {} for a in agents}
    assert full["cross_table"]["random"][BOT]["games"] == 30
    cross = full["cross_table"]
    assert cross["random"][SEARCH]["score"] + cross[SEARCH]["random"]["score"] == 30

    db = tmp_path / "runs.sqlite"
    seen = []

    def stop_after_some(result: object) -> None:
        seen.append(result)
        if len(seen) == 25:
            raise KeyboardInterrupt

    with RunStore.open(db) as store:
        first = run_tournament(
            game,
            agents=agents,
            games=30,
            seed=3,
            store=store,
            on_game=stop_after_some,
            secret=SECRET,
        )
    assert first.interrupted and len(first.records) == 25
    with RunStore.open(db) as store:
        again = run_tournament(game, agents=agents, games=30, seed=3, store=store)
    assert again.from_db == 25 and not again.interrupted
    assert again.to_json() == full
    # games played at once give the same games
    parallel = run_tournament(game, agents=agents, games=30, seed=3, workers=3, secret=SECRET)
    assert parallel.to_json() == full


@pytest.mark.early(13)
def test_hostile_agents_forfeit_for_their_reasons_and_the_cheat_finds_nothing(
    tmp_path: Path,
) -> None:
    expected = {
        "Crasher": "crash",
        "Exiter": "crash",
        "Sleeper": "timeout",
        "Hog": "memory",
        "Illegal": "illegal",
    }
    agents = ["random", f"{HOSTILE}:Cheat"]
    agents += [f"{HOSTILE}:{name}" for name in expected]
    db = tmp_path / "runs.sqlite"
    with RunStore.open(db) as store:
        result = run_tournament(
            _kuhn(),
            agents=agents,
            games=1,
            seed=1,
            store=store,
            sandbox=SandboxLimits(time_limit=1.0, memory_limit=100),
        )
    data = result.to_json()
    assert data["games"]["played"] == data["games"]["planned"] == 21
    forfeits = data["forfeits"]
    assert forfeits["random"] == {} and forfeits[agents[1]] == {}
    for name, reason in expected.items():
        got = forfeits[f"{HOSTILE}:{name}"]
        assert set(got) == {reason} and got[reason] >= 1, (name, got)
    ratings = data["ratings"]
    honest = min(ratings["random"]["rating"], ratings[agents[1]]["rating"])
    assert all(ratings[f"{HOSTILE}:{n}"]["rating"] < honest for n in expected)
    # the reason is in the records
    with RunStore.open(db) as store:
        kinds = {r[0] for r in store.conn.execute("SELECT error_kind FROM games")}
    assert {k.split(":")[1] for k in kinds if k} == set(expected.values())

    # what the cheat printed is in its log, not in the tournament's output
    printed = Path(data["agent_logs"][agents[1]]).read_text()
    cheat = json.loads(printed.split("CHEAT-REPORT", 1)[1].splitlines()[0])
    assert cheat["found"] == []  # no game, state, view or other agent in its process
    assert cheat["private"] == [] and cheat["reachable"] == [] and not cheat["simulates"]
    assert cheat["view_type"] == "SandboxView" and cheat["option_type"] == "SandboxOption"
    assert set(cheat["types"]) <= {
        "NoneType",
        "bool",
        "int",
        "float",
        "str",
        "tuple",
        "dict",
        "list",
        "SandboxOption",
    }


def test_illegal_answers_are_asked_again_and_vectors_play() -> None:
    game = _kuhn()
    once = f"{HOSTILE}:IllegalOnce"
    vector = f"{HOSTILE}:Vector"
    strict = run_tournament(game, agents=["random", once, vector], games=2, seed=2).to_json()
    assert strict["forfeits"][once] == {"illegal": 4}
    assert strict["forfeits"][vector] == {}
    lenient = run_tournament(
        game,
        agents=["random", once, vector],
        games=2,
        seed=2,
        sandbox=SandboxLimits(illegal_retries=1),
    ).to_json()
    assert lenient["forfeits"][once] == {} and lenient["games"]["completed"] == 6


def test_the_command_prints_json_and_tables(tmp_path: Path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # the command makes its process non-dumpable: not the test runner's
    monkeypatch.setattr("cardlang.runs.sandbox.harden_parent", lambda: None)
    db = tmp_path / "t.sqlite"
    args = [
        "tournament",
        KUHN,
        "--agents",
        f"random,{HOSTILE}:Crasher",
        "--games",
        "2",
        "--time-limit",
        "2",
        "--db",
        str(db),
        "--quiet",
    ]
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) >= {"ratings", "forfeits", "cross_table", "games"}
    assert data["forfeits"][f"{HOSTILE}:Crasher"] == {"crash": 2}
    assert set(data["ratings"]["random"]) >= {"rating", "ci_low", "ci_high", "games"}
    plot = tmp_path / "t.png"
    pytest.importorskip("matplotlib")
    assert main([*args, "--plot", str(plot)]) == 0
    out, err = capsys.readouterr()
    assert "cross table" in out and "resumed" in err and plot.stat().st_size > 0


def test_bad_agents_are_usage_errors(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["tournament", KUHN, "--agents", "random", "--games", "1"]) == 2
    assert main(["tournament", KUHN, "--agents", "random,random", "--games", "1"]) == 2
    assert main(["tournament", KUHN, "--agents", f"random,{HOSTILE}:Nobody"]) == 2
    err = capsys.readouterr().err
    assert "at least 2" in err and "more than once" in err and "Nobody" in err


def test_payoffs_are_mean_scores_signed_by_the_scoring() -> None:
    """tournament --by score (issue 32): each agent's mean payoff per completed game with
    a 95% interval, its score, negated where the game scores min; forfeits not counted."""
    from cardlang.runs.tournament import RatedGame, TournamentResult

    records = [
        RatedGame(0, ("a", "b"), "completed", (1, 2), None, scores=(2, -2)),
        RatedGame(1, ("b", "a"), "completed", (2, 1), None, scores=(-1, 1)),
        RatedGame(2, ("a", "b"), "forfeit", (2, 1), (0, "crash"), scores=(None, None)),
    ]
    result = TournamentResult("g", ["a", "b"], 2, 1, 0, SandboxLimits(), 3, records=records)
    payoffs = result.payoffs()
    assert list(payoffs) == ["a", "b"]
    assert payoffs["a"]["mean"] == 1.5 and payoffs["a"]["seats"] == 2
    assert payoffs["b"]["mean"] == -1.5 and payoffs["b"]["ci_low"] < -1.5
    result.score_sign = -1  # Hearts: fewer points is better
    assert list(result.payoffs()) == ["b", "a"]


def test_the_command_orders_by_payoff(capsys) -> None:  # type: ignore[no-untyped-def]
    args = ["tournament", KUHN, "--agents", "random,ismcts:iterations=40", "--games", "4"]
    assert main([*args, "--quiet", "--json", "--seed", "2"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["payoffs"]) == {"random", "ismcts:iterations=40"}
    chips = sum(p["mean"] * p["seats"] for p in data["payoffs"].values())
    assert chips == pytest.approx(0.0)  # poker: what one wins the other loses
    assert main([*args, "--quiet", "--by", "score", "--seed", "2"]) == 0
    assert "payoff" in capsys.readouterr().out
