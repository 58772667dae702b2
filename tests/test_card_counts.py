"""Per-card figures (issue 54, item 5): the engine counts each seat's picks per situation
and card type, with the turn of the first, and the cards each seat owns at the end
(engine/tally.py); both engines alike, in batches played inside the engine, in
``simulate --json``, in the records and in a ``VectorEnv``'s results.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cardlang.agents import make_agent
from cardlang.agents.loop import play_out
from conftest import CORPUS_BROKEN, CORPUS_FAILS_CHECK, CORPUS_PRESENT, GAMES, corpus_games
from helpers import run_cli

from cardlang import load_game
from cardlang.engine.native import native_available
from cardlang.engine.tally import CardCounts
from cardlang.runs.cards import SeatCard, seat_cards
from cardlang.runs.runner import play_game
from cardlang.runs.simulate import run_batch
from cardlang.runs.store import RunStore

ENGINES = ["python", "native"] if native_available() else ["python"]
needs_native = pytest.mark.skipif(not native_available(), reason="the native engine is not built")
DOMINION = GAMES / "dominion.rcy"
#: Every eighth game of the corpus that checks and plays.
CORPUS_SAMPLE = [
    p for p in corpus_games() if p.stem not in CORPUS_FAILS_CHECK | set(CORPUS_BROKEN)
][::8]


def _counts(game: Any, engine: str, seed: int, specs: list[str]) -> CardCounts | None:
    agents = [make_agent(spec, seed * 7 + i) for i, spec in enumerate(specs)]
    result, _ = play_game(game.master(engine=engine), agents, seed, tally=True)
    return result.cards


@needs_native
@pytest.mark.parametrize("path", sorted(GAMES.glob("*.rcy")) + CORPUS_SAMPLE, ids=lambda p: p.stem)
def test_both_engines_count_alike(path: Path) -> None:
    """Random play of every game of ours (and some of the corpus): the same picks, turns
    and cards owned, whichever engine counts them."""
    game = load_game(path)
    for seed in range(3):
        specs = ["random"] * game.nplayers
        assert _counts(game, "python", seed, specs) == _counts(game, "native", seed, specs)


def test_the_corpus_is_sampled() -> None:
    assert not CORPUS_PRESENT or len(CORPUS_SAMPLE) >= 5


@pytest.mark.parametrize("engine", ENGINES)
def test_the_counts_are_the_games_own(engine: str) -> None:
    """bmu against smithy on the First Game kingdom, where only a buy gains a card: each
    kind's buys are what its Supply pile lost, each seat owns what the game's per-kind
    storages count, Smithies alone are played, and a seat buys first on a turn of its
    own (the game's turns: seat 0's are odd).  A game made without counting has none."""
    game = load_game(DOMINION)
    master = game.master(engine=engine)
    for seed in range(3):
        bots = [make_agent("bmu", 1), make_agent("smithy", 2)]
        result, st = play_game(master, bots, seed, tally=True)
        cards = result.cards
        assert cards is not None and result.completed
        before = master.new_game(seed).zones
        for key, pile in before.items():
            if key[0] == -1 and key[2].startswith("SUPPLY") and pile:
                kind = st.cards[pile[0]]["KIND"]
                bought = sum(
                    n for _, sit, card, n, _ in cards.picks if (sit, card) == ("BUY-PHASE", kind)
                )
                assert bought == len(pile) - len(st.zones[key]), kind
        for seat, card, n in cards.owned:
            assert st.ints[(seat, card)] == n
        played = {card for _, sit, card, _, _ in cards.picks if sit == "ACTION-PHASE"}
        assert played <= {"SMITHY"}
        for seat, _sit, _card, _n, first in cards.picks:
            assert 1 <= first <= result.turns and (first - 1) % 2 == seat
        assert play_game(master, bots, seed)[0].cards is None


@pytest.mark.parametrize("engine", ENGINES)
def test_counting_changes_nothing_of_the_game(engine: str) -> None:
    master = load_game(DOMINION, params={"KINGDOM": "RANDOM"}).master(engine=engine)
    logs = []
    for tally in (False, True):
        agents = [make_agent("random", 1), make_agent("double-witch", 2)]
        st = master.new_game(8, record=True, tally=tally)
        play_out(master, st, agents, ["a", "b"])
        logs.append(repr(st.log))
    assert logs[0] == logs[1]


def test_a_seats_figures_per_card() -> None:
    counts = CardCounts.of(
        picks=(
            (0, "ACTION-PHASE", "SMITHY", 3, 6),
            (0, "BUY-PHASE", "SMITHY", 2, 4),
            (0, "MILITIA-DISCARD", "ESTATE", 1, 9),
            (0, "THRONE-ROOM-PLAY", "SMITHY", 1, 12),
            (1, "BUY-PHASE", "GOLD", 1, 7),
        ),
        owned=((0, "COPPER", 7), (0, "SMITHY", 2), (1, "GOLD", 1)),
    )
    assert seat_cards(counts, 0) == {
        "COPPER": SeatCard(owned=7),
        "SMITHY": SeatCard(buys=2, plays=4, first_buy_turn=4, owned=2),
    }
    assert seat_cards(counts, 1) == {"GOLD": SeatCard(buys=1, first_buy_turn=7, owned=1)}


@needs_native
def test_a_batch_inside_the_engine_counts_as_the_python_engine() -> None:
    """Bots' games played whole inside the engine (play_batch) and one by one on the
    Python engine give the same per-card figures."""
    figures = []
    for engine in ENGINES:
        game = load_game(DOMINION, params={"KINGDOM": "RANDOM"}, engine=engine)
        summary = run_batch(
            game, games=12, seed=4, agent_specs=["double-witch", "smithy"], rotate_seats=True,
            cards=True,
        )  # fmt: skip
        assert summary.cards is not None and summary.cards.games == summary.completed == 12
        figures.append(summary.cards.to_json())
    assert figures[0] == figures[1]


def _simulate_json(*args: str) -> dict[str, Any]:
    done = run_cli("simulate", *args, "--json", "--quiet")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_simulate_json_gives_each_agents_figures_per_card() -> None:
    out = _simulate_json("games/dominion.rcy", "--agents", "bmu,smithy", "--games", "20")
    cards = out["cards"]
    assert cards["games"] == 20 and cards["buys_in"] == ["BUY-PHASE"]
    smithy = cards["by_agent"]["smithy"]
    assert smithy["seats"] == 20 and smithy["picks"]["ACTION-PHASE"]["SMITHY"] > 0
    row = smithy["cards"]["SMITHY"]
    assert row["buys"] == smithy["picks"]["BUY-PHASE"]["SMITHY"] > 0
    assert row["plays"] == smithy["picks"]["ACTION-PHASE"]["SMITHY"]
    assert row["buys_per_game"] == round(row["buys"] / 20, 6)
    for name in ("win_share_bought", "win_share_not_bought"):
        share = row[name]
        assert share["ci_low"] <= share["share"] <= share["ci_high"]
    assert row["win_share_bought"]["seats"] + row["win_share_not_bought"]["seats"] == 20
    assert row["win_share_bought"]["seats"] == row["bought_in"]
    assert "SMITHY" not in cards["by_agent"]["bmu"]["cards"]
    won = sum(
        row[name]["share"] * row[name]["seats"]
        for name in ("win_share_bought", "win_share_not_bought")
    )
    assert won == pytest.approx(out["wins_by_agent"]["smithy"], abs=1e-4)


def test_worker_processes_count_as_this_one() -> None:
    args = ["games/dominion.rcy", "--agents", "bmu,double-witch", "--param", "kingdom=random",
            "--games", "8", "--rotate-seats"]  # fmt: skip
    serial = _simulate_json(*args)["cards"]
    assert _simulate_json(*args, "--workers", "2", "--backend", "process")["cards"] == serial


def test_a_game_without_buys_has_its_picks_alone() -> None:
    out = _simulate_json("games/hearts.rcy", "--games", "3")
    cards = out["cards"]
    assert "buys_in" not in cards and cards["games"] == 3
    (figures,) = cards["by_agent"].values()
    assert "cards" not in figures and sum(figures["picks"]["PLAY"].values()) == 3 * 52


def test_simulate_shows_the_cards_table_when_asked() -> None:
    args = ("simulate", "games/dominion.rcy", "--agents", "bmu,smithy", "--games", "10")
    shown = run_cli(*args, "--quiet", "--cards")
    assert shown.returncode == 0, shown.stderr
    assert "smithy: per card" in shown.stdout and "SMITHY" in shown.stdout
    assert "per card" not in run_cli(*args, "--quiet").stdout


def test_the_records_keep_the_counts_and_a_resumed_batch_reads_them(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    args = ("games/dominion.rcy", "--agents", "bmu,smithy", "--games", "6", "--db", str(db))
    played = _simulate_json(*args)
    resumed = _simulate_json(*args)
    assert resumed["records"]["from_db"] == 6 and resumed["cards"] == played["cards"]
    conn = sqlite3.connect(db)
    try:
        counted = conn.execute("SELECT count(*) FROM games WHERE cards_counted = 1").fetchone()
        buys = conn.execute(
            "SELECT sum(picks) FROM card_picks p JOIN results r ON r.game_id = p.game_id "
            "AND r.seat = p.seat WHERE r.agent = 'smithy' AND p.card = 'SMITHY' "
            "AND p.situation = 'BUY-PHASE'"
        ).fetchone()
    finally:
        conn.close()
    assert counted == (6,) and buys == (
        played["cards"]["by_agent"]["smithy"]["cards"]["SMITHY"]["buys"],
    )


def test_a_version_5_file_is_upgraded_and_its_old_games_are_not_counted(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    args = ["games/kuhn_poker.rcy", "--games", "4", "--db", str(db)]
    _simulate_json(*args)
    conn = sqlite3.connect(db)
    conn.execute("ALTER TABLE games DROP COLUMN cards_counted")
    conn.execute("DROP TABLE card_picks")
    conn.execute("DROP TABLE card_owned")
    conn.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    args[2] = "6"  # the same batch, extended: 4 games read back, 2 played
    out = _simulate_json(*args)
    assert out["records"] == {"db": str(db), "batch": 1, "from_db": 4, "played": 2}
    assert out["cards"]["games"] == 2  # the games of version 5 were never counted
    with RunStore.open(db) as store:
        assert store._meta()["schema_version"] == "6"


def test_damaged_counts_are_refused_by_name(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    args = ("games/dominion.rcy", "--agents", "bmu,smithy", "--games", "2", "--db", str(db))
    _simulate_json(*args)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE card_picks SET picks = 'many' WHERE game_id = 2")
    conn.commit()
    conn.close()
    done = run_cli("simulate", *args, "--json", "--quiet")
    assert done.returncode == 2
    assert "table card_picks, row (game 2): column picks holds 'many' (text)" in done.stderr


def _vector_results(engine: str, batch: bool | None) -> list[tuple[int, int, CardCounts | None]]:
    from cardlang.env.vector import VectorEnv, random_actions

    env = VectorEnv(
        str(DOMINION), 2, seats=0, opponents="smithy", engine=engine, seed=5, batch=batch,
        cards=True,
    )  # fmt: skip
    _, mask, _, _ = env.reset()
    rng = np.random.default_rng(1)
    out: list[tuple[int, int, CardCounts | None]] = []
    while len(out) < 3:
        _, mask, _, _, _, info = env.step(random_actions(mask, rng))
        out += [(i, r.seed, r.cards) for i, r in sorted(info["results"].items())]
    return out[:3]


@needs_native
def test_a_vector_envs_results_carry_the_counts_on_every_path() -> None:
    """The Python engine, the native engine stepped from Python, and its lockstep batch
    (no Python per move) give every finished game the same counts."""
    python = _vector_results("python", False)
    assert all(cards is not None and cards.picks for _, _, cards in python)
    assert _vector_results("native", False) == python
    assert _vector_results("native", True) == python
