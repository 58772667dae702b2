"""``cardlang train --algorithm ppo`` (learning/ppo_run.py): the opponent pool, exact
resume (in one process and after kill -9), no illegal move, the files a run leaves.

The game is test_neural's high card (two cards each, the higher card played wins): a
run of a few rounds takes seconds.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import needs_native_default

torch = pytest.importorskip("torch")

from cardlang.agents.neural.model import load_model  # noqa: E402
from helpers import run_main, train_until_killed, with_rounds  # noqa: E402
from test_neural import HIGH_CARD  # noqa: E402  (the same two-card game)

from cardlang.env.vector import VectorEnv  # noqa: E402
from cardlang.errors import UsageError  # noqa: E402
from cardlang.learning.actors import SerialActors, build_lanes  # noqa: E402
from cardlang.learning.config import TrainConfig  # noqa: E402
from cardlang.learning.lanes import parse_pool  # noqa: E402
from cardlang.learning.ppo_actor import PPOActor  # noqa: E402
from cardlang.learning.ppo_run import PPORun, split_rows  # noqa: E402
from cardlang.learning.returns import RunReturns  # noqa: E402

pytestmark = needs_native_default()
ROOT = Path(__file__).resolve().parent.parent


def _config(game: Path, rounds: int, **changes: object) -> TrainConfig:
    settings: dict[str, object] = {
        "game": str(game),
        "algorithm": "ppo",
        "rounds": rounds,
        "updates": 2,
        "envs": 24,
        "horizon": 4,
        "width": 32,
        "hidden": 32,
        "body": "deepsets",
        "lr": 3e-3,
        "batch_size": 64,
        "value_weight": 0.5,
        "opponents": "self@1,past@1,random@1",
        "snapshot_every": 1,
        "evaluate_every": 0,
        "device": "cpu",
        "backend": "serial",  # the process actors' own tests ask for them
    }
    settings.update(changes)
    return TrainConfig(**settings)  # type: ignore[arg-type]


@pytest.fixture
def game(tmp_path: Path) -> Path:
    path = tmp_path / "high_card.rcy"
    path.write_text(HIGH_CARD)
    return path


def _weights(out: Path) -> dict[str, torch.Tensor]:
    return torch.load(out / "model.pt", weights_only=True)["state_dict"]


def _same(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def _actor(run: PPORun) -> PPOActor:
    """A serial run's first actor (its actors started)."""
    run.actors = run._start_actors()
    assert isinstance(run.actors, SerialActors)
    return run.actors.host.actors[0].actor


def test_pool_parsing_and_rows() -> None:
    assert parse_pool("self@3, past@1,bmu") == [("self", 3.0), ("past", 1.0), ("bmu", 1.0)]
    assert parse_pool("ismcts:iterations=50@2") == [("ismcts:iterations=50", 2.0)]
    for bad in ("", "self@x", "self@-1", "@2", "self@0"):
        with pytest.raises(UsageError):
            parse_pool(bad)
    assert split_rows(128, [3, 1, 1], [1, 1, 2]) == [77, 26, 25]
    assert split_rows(4, [1, 1, 1], [2, 2, 2]) == [2, 2, 2]  # each agent in every seat
    assert split_rows(10, [1, 0], [1, 1]) == [10, 0]


def test_the_pool_makes_lanes_of_every_kind(game: Path, tmp_path: Path) -> None:
    """An actor's lanes: the pool's weights as shares of its rows, an agent's rows split
    among the seats; the run's rows split among its actors."""
    torch.set_num_threads(1)
    config = _config(game, 1, opponents="self@2,past@1,random@1")
    run = PPORun.open(config, tmp_path / "r", print)
    lanes = build_lanes([run.game], run.config, run.model, 24)
    kinds = [(lane.kind, lane.env.learner, lane.env.n) for lane in lanes]
    assert kinds == [("self", None, 12), ("past", None, 6), ("random", 0, 3), ("random", 1, 3)]
    pool = "self@1,average@1"
    run = PPORun.open(_config(game, 1, opponents=pool, average=100), tmp_path / "a", print)
    lanes = build_lanes([run.game], run.config, run.model, 24)
    assert [(lane.kind, lane.env.n) for lane in lanes] == [("self", 12), ("average", 12)]
    run = PPORun.open(_config(game, 1, envs=25, actors=3), tmp_path / "b", print)
    assert run.rows == [9, 8, 8]
    with pytest.raises(UsageError, match="each actor plays the whole opponent pool"):
        PPORun.open(_config(game, 1, envs=8, actors=3), tmp_path / "c", print)  # 4 rows each


def test_an_average_opponent_needs_the_average_policy(game: Path, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--average N"):
        PPORun.open(_config(game, 1, opponents="average@1"), tmp_path / "r", print)


def test_the_average_has_one_weighting(game: Path, tmp_path: Path) -> None:
    config = _config(game, 1, average=100, average_recent=True, average_linear=True)
    with pytest.raises(UsageError, match="choose one weighting"):
        PPORun.open(config, tmp_path / "r", print)


def test_the_magnet_reward_needs_a_magnet(game: Path, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--magnet ETA"):
        PPORun.open(_config(game, 1, magnet_reward=True), tmp_path / "r", print)


@pytest.mark.parametrize(
    ("pool", "why"),
    [("bmu@1,nosuchbot@1", "nosuchbot"), ("ismcts@1", "inside the engine")],
)
def test_a_pool_the_engine_cannot_play_is_a_usage_error(
    game: Path, tmp_path: Path, pool: str, why: str
) -> None:
    with pytest.raises(UsageError, match=why):
        PPORun.open(_config(game, 1, opponents=pool), tmp_path / "r", print)


def test_no_illegal_move_is_ever_chosen(game: Path, tmp_path: Path) -> None:
    """Every action stepped in every lane (the learner's and the past snapshots') is
    one the row's mask allows."""
    torch.set_num_threads(1)
    run = PPORun.open(_config(game, 1), tmp_path / "r", print)
    checked = 0
    for lane in _actor(run).lanes:
        env, step = lane.env, lane.env.step

        def checking(actions, env=env, step=step):  # type: ignore[no-untyped-def]
            nonlocal checked
            assert env.mask[range(env.n), actions].all()
            checked += env.n
            return step(actions)

        env.step = checking  # type: ignore[method-assign]
    run.run()
    assert checked == 2 * 4 * 24  # updates x horizon x rows


def test_a_resumed_run_is_the_run_never_stopped(game: Path, tmp_path: Path) -> None:
    torch.set_num_threads(1)
    straight = tmp_path / "straight"
    PPORun.open(_config(game, 3), straight, print).run()
    stopped = tmp_path / "stopped"
    PPORun.open(_config(game, 1), stopped, print).run()
    lines: list[str] = []
    PPORun.open(_config(game, 3), stopped, lines.append).run()
    assert f"resuming {stopped} after round 1" in lines
    assert _same(_weights(straight), _weights(stopped))
    a = [json.loads(x) for x in (straight / "metrics.jsonl").read_text().splitlines()]
    b = [json.loads(x) for x in (stopped / "metrics.jsonl").read_text().splitlines()]
    assert [(m["games"], m["policy"]) for m in a] == [(m["games"], m["policy"]) for m in b]


def test_a_checkpoint_from_before_the_learner_and_actor_split_resumes_the_same(
    game: Path, tmp_path: Path
) -> None:
    """Checkpoints written before PPO's learner and actor were two classes hold the
    actor's parts in the learner's state too (its draws, past pool, name draws, and a
    magnet and an average of None): the learner leaves them, and the run goes on as one
    whose checkpoint never held them."""
    torch.set_num_threads(1)
    straight, older = tmp_path / "straight", tmp_path / "older"
    PPORun.open(_config(game, 2), straight, print).run()
    PPORun.open(_config(game, 1), older, print).run()
    data = torch.load(older / "checkpoint.pt", weights_only=False)
    learner = data["training"]["trainer"]
    (actor,) = data["training"]["actors"]
    assert not {"snapshots", "draws"} & learner.keys()
    learner.update({k: actor[k] for k in ("draws", "snapshots", "update_opponent", "name_draws")})
    learner.update(magnet=None, average=None)
    torch.save(data, older / "checkpoint.pt")
    PPORun.open(_config(game, 2), older, print).run()
    assert _same(_weights(straight), _weights(older))


def test_the_magnet_and_the_average_policy_resume_exactly(game: Path, tmp_path: Path) -> None:
    """A run with a magnet and an average policy (also playing the learner, in an
    ``average`` lane), stopped after a round and resumed, ends with the same model and
    the same average.pt (a loadable model) as one never stopped."""
    torch.set_num_threads(1)
    extras = {"magnet": 0.5, "magnet_every": 3, "average": 500, "opponents": "self@1,average@1"}
    straight, stopped = tmp_path / "straight", tmp_path / "stopped"
    PPORun.open(_config(game, 3, **extras), straight, print).run()
    PPORun.open(_config(game, 1, **extras), stopped, print).run()
    PPORun.open(_config(game, 3, **extras), stopped, print).run()
    assert _same(_weights(straight), _weights(stopped))
    averages = [torch.load(d / "average.pt", weights_only=True) for d in (straight, stopped)]
    assert _same(averages[0]["state_dict"], averages[1]["state_dict"])
    assert not _same(averages[0]["state_dict"], _weights(straight))
    model = load_model(straight / "average.pt")
    assert "average" in model.info["policy"]


def test_sparse_checkpoints_and_rollouts_learn_and_resume_the_same(
    game: Path, tmp_path: Path
) -> None:
    """``--checkpoint-every 2`` writes after rounds 2 and 4 and after the last (5), and
    learns what a run that writes every round learns; a run with ``--rollouts`` (forked
    into spare rows of its self and random lanes, not its past lane) stopped after two
    rounds and resumed is the run never stopped."""
    torch.set_num_threads(1)
    every, sparse = tmp_path / "every", tmp_path / "sparse"
    PPORun.open(_config(game, 5), every, print).run()
    saved: list[int] = []
    run = PPORun.open(_config(game, 5, checkpoint_every=2), sparse, print)
    original = run._save
    run._save = lambda: (saved.append(run.round), original())[1]  # type: ignore[method-assign]
    run.run()
    assert saved == [0, 2, 4, 5]
    assert _same(_weights(every), _weights(sparse))

    extras = {"rollouts": 1, "checkpoint_every": 2}
    straight, stopped = tmp_path / "straight", tmp_path / "stopped"
    lines: list[str] = []
    PPORun.open(_config(game, 4, **extras), straight, lines.append).run()
    assert any("of decisions forked" in line for line in lines)
    PPORun.open(_config(game, 2, **extras), stopped, print).run()
    PPORun.open(_config(game, 4, **extras), stopped, print).run()
    assert _same(_weights(straight), _weights(stopped))
    assert not _same(_weights(straight), _weights(every))


def test_a_run_leaves_its_model_report_and_card(game: Path, tmp_path: Path) -> None:
    torch.set_num_threads(1)
    out = tmp_path / "r"
    config = _config(game, 2, evaluate_every=1, eval_agents=["random"], eval_games=40)
    PPORun.open(config, out, print).run()
    metrics = [json.loads(x) for x in (out / "metrics.jsonl").read_text().splitlines()]
    assert [m["round"] for m in metrics] == [1, 2]
    evaluation = metrics[-1]["evaluation"]["random"]
    assert evaluation["games"] == 40 and 0 <= evaluation["low"] <= evaluation["high"] <= 1
    card = (out / "MODEL_CARD.md").read_text()
    assert "PPO: 2 rounds" in card and "--algorithm ppo" in card and "vs random" in card
    page = (out / "report.html").read_text()
    assert "<th>games / core-hour</th>" in page and "games_per_core_hour" not in page
    assert "<h2>Evaluations</h2>" in page and "<th>against random</th>" in page
    model = load_model(out, device="cpu")
    assert model.info["expected_counts"] == "uniform"
    # the saved model plays as an agent, through the Python tokenizer
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "cardlang",
            "simulate",
            str(game),
            "--agents",
            f"neural:model={out},random",
            "--games",
            "4",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr


def test_a_search_run_folder_is_not_resumed_as_ppo(game: Path, tmp_path: Path) -> None:
    out = tmp_path / "r"
    PPORun.open(_config(game, 1), out, print).run()
    from cardlang.learning.experimental.search import TrainingRun

    search = _config(game, 2, algorithm="search")
    with pytest.raises(UsageError, match="ppo run"):
        TrainingRun.open(search, out, print)


def test_the_reproduce_line_parses_back_to_the_same_settings(game: Path) -> None:
    """The model card's Reproduce command, run through the CLI's parser, asks for the
    settings the run had: a switch (``--average-linear``) is named bare, not ``True``."""
    import shlex

    from cardlang.cli.main import build_parser
    from cardlang.learning.report import reproduce_command

    config = _config(
        game, 3, average=500, average_linear=True, magnet=0.2, magnet_every=50,
        magnet_reward=True, lr_final=1e-5, anneal_rounds=6, clip=0.025,
    )  # fmt: skip
    words = shlex.split(reproduce_command(config))
    assert "True" not in words and {"--average-linear", "--magnet-reward"} <= set(words)
    args = build_parser().parse_args([*words[1:], "--out", "x"])
    settings = config.to_dict()
    named = {n: v for n, v in settings.items() if f"--{n.replace('_', '-')}" in words}
    assert {"average_linear", "magnet_reward", "lr_final", "clip"} <= named.keys()
    for name, value in named.items():
        if isinstance(value, (bool, int, float, str)):
            assert getattr(args, name) == value, name


def test_a_resumed_run_refuses_changed_settings_and_takes_its_length(
    game: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``cardlang train`` again on a run folder: the options the command names that the
    run learns with must equal the run's (a value equal to the default is still asked
    for); its length and evaluation apply; the model card's Reproduce line names what
    ran."""
    from cardlang.cli.main import main

    out = tmp_path / "run"
    base = [
        "train", str(game), "--out", str(out), "--updates", "1", "--envs", "8",
        "--horizon", "4", "--width", "16", "--hidden", "16", "--evaluate-every", "0",
        "--opponents", "self@1,random@1",
    ]  # fmt: skip
    assert main([*base, "--rounds", "1", "--lr", "0.001", "--entropy", "0.02"]) == 0
    capsys.readouterr()
    # --lr changed is refused; --entropy as the run's passes; --entropy-fin (abbreviated) is
    # --entropy-final, named and changed: refused too
    assert (
        main([*base, "--rounds", "2", "--lr=0.0003", "--entropy=0.02", "--entropy-fin", "0.01"])
        == 2
    )
    err = capsys.readouterr().err
    assert "--lr 0.0003 (the run's: 0.001)" in err and "--entropy " not in err
    assert "--entropy-final 0.01 (the run's: (none))" in err
    assert "Leave them out to resume it" in err
    assert main([*base, "--rounds", "2", "--epochs", "2"]) == 0  # the default, asked: equal
    assert main([*base, "--rounds", "3", "--eval-games", "10", "--evaluate-every", "0"]) == 0
    rows = [json.loads(x) for x in (out / "metrics.jsonl").read_text().splitlines()]
    assert [r["round"] for r in rows] == [1, 2, 3]
    from cardlang.agents.neural.model import read_checkpoint

    def eval_games() -> int:
        return int(read_checkpoint(out / "checkpoint.pt")["training"]["config"]["eval_games"])

    assert eval_games() == 10  # named: applied
    assert main([*base, "--rounds", "4"]) == 0
    assert eval_games() == 10  # not named: the run's own, not the default
    card = (out / "MODEL_CARD.md").read_text()
    assert "--lr 0.001" in card and "--entropy 0.02" in card and "0.0003" not in card


@pytest.mark.slow  # 57 s of the README's command on a slow day (2026-12-03); CI runs it
@pytest.mark.early(19)
def test_a_killed_run_resumes_exactly(game: Path, tmp_path: Path) -> None:
    """kill -9 at any moment, then the same command: the model equals a run never
    stopped (checkpoints are written whole, by rename, after every round).  The killed
    run's two actors play in a worker process (the default backend), the straight run's
    in turn in its own: the same model."""
    out = tmp_path / "killed"
    command = [
        sys.executable,
        "-m",
        "cardlang",
        "train",
        str(game),
        "--out",
        str(out),
        "--rounds",
        "200",
        "--updates",
        "2",
        "--envs",
        "24",
        "--horizon",
        "4",
        "--width",
        "32",
        "--hidden",
        "32",
        "--lr",
        "0.003",
        "--batch-size",
        "64",
        "--opponents",
        "self@1,past@1,random@1",
        "--snapshot-every",
        "1",
        "--evaluate-every",
        "0",
        "--actors",
        "2",
    ]
    done = train_until_killed(command, out, rounds=3)
    assert done >= 3
    finish = subprocess.run(
        with_rounds(command, done + 2), cwd=ROOT, capture_output=True, text=True
    )
    assert finish.returncode == 0, finish.stderr
    assert f"resuming {out} after round {done}" in finish.stderr
    straight = tmp_path / "straight"
    again = [*with_rounds(command, done + 2, out=straight), "--backend", "serial"]
    assert subprocess.run(again, cwd=ROOT, capture_output=True).returncode == 0
    assert _same(_weights(out), _weights(straight))


def test_bad_ppo_arguments_get_usage_help() -> None:
    for extra, words in (
        (["--opponents", "self@x"], "weight"),
        (["--param", "PLAYERS=1", "--opponents", "bmu"], "solo"),
        (["--warm-start", "x.sqlite"], "no records file"),
        (["--engine", "python"], "--algorithm search"),
        (["--param-draw", "players=2|3"], "one seat count"),
        (["--param-draw", "kingdom=first-game|nosuch"], "--param-draw"),
        (["--algorithm", "search", "--param-draw", "goal=3|4"], "only --algorithm ppo"),
    ):
        result = run_main("train", "games/dominion.rcy", "--out", "/tmp/x", *extra)
        assert result.returncode == 2, (extra, result.stderr)
        assert words in result.stderr and "Traceback" not in result.stderr


def test_vector_env_is_required_to_carry_tokens() -> None:
    from cardlang import load_game
    from cardlang.learning.lanes import Lane

    env = VectorEnv(load_game(text=HIGH_CARD, name="hc.rcy"), 2, seats=0)
    with pytest.raises(ValueError, match="tokens"):
        Lane(env, "random")


def test_a_warm_start_imitates_recorded_games_first(game: Path, tmp_path: Path) -> None:
    db = tmp_path / "bots.sqlite"
    simulate = [sys.executable, "-m", "cardlang", "simulate", str(game), "--games", "30"]
    assert subprocess.run([*simulate, "--db", str(db)], cwd=ROOT).returncode == 0
    lines: list[str] = []
    out = tmp_path / "r"
    config = _config(game, 1, warm_start=str(db), warm_steps=5)
    PPORun.open(config, out, lines.append).run()
    assert any(line.startswith("warm start: ") for line in lines)
    model = load_model(out, device="cpu")
    assert model.info["warm_start"]["steps"] == 5
    assert f"imitation of {db}" in (out / "MODEL_CARD.md").read_text()


def test_returns_are_credits_per_seat_offset_or_a_solo_length() -> None:
    from types import SimpleNamespace

    from cardlang.agents.neural.search import SoloValue

    returns = RunReturns(nplayers=1, seats=1, solo=SoloValue(10, 40))
    quick = SimpleNamespace(completed=True, turns=10, decisions=80)
    slow = SimpleNamespace(completed=True, turns=20, decisions=160)
    cut = SimpleNamespace(completed=False, turns=90, decisions=500)
    assert returns(quick, 0).tolist() == [1.0]
    assert returns(cut, 0).tolist() == [-1.0]
    assert -1.0 < returns(slow, 0)[0] < 1.0
    # several seats: seat 1's view of a game seat 2 won, seats offset from the viewer
    returns = RunReturns(nplayers=3, seats=3)
    won = SimpleNamespace(completed=True, credits=(0.0, 0.0, 1.0))
    assert returns(won, 1).tolist() == [0.0, 1.0, 0.0]


def test_score_returns_are_scaled_into_the_value_range() -> None:
    from types import SimpleNamespace

    returns = RunReturns(nplayers=2, seats=2, reward="score", score_scale=10.0)
    result = SimpleNamespace(scores=(4, -30))
    assert returns(result, 0).tolist() == pytest.approx([0.7, 0.0])  # -30: clipped
    assert returns(result, 1).tolist() == pytest.approx([0.0, 0.7])
    returns = RunReturns(nplayers=2, seats=2, reward="score", score_scale=10.0, minimise=True)
    assert returns(result, 0).tolist() == pytest.approx([0.3, 1.0])  # fewer is better


def test_margin_returns_are_the_lead_over_the_best_other_seat() -> None:
    from types import SimpleNamespace

    returns = RunReturns(nplayers=3, seats=3, reward="margin", score_scale=10.0)
    result = SimpleNamespace(scores=(12, 8, 30))
    # seat 0: 12 - 30; seat 1: 8 - 30 (both clipped); seat 2: 30 - 12 = 18, clipped at 1
    assert returns(result, 0).tolist() == pytest.approx([0.0, 0.0, 1.0])
    result = SimpleNamespace(scores=(12, 8, 10))
    # from seat 1: 8 - 12, 10 - 12, 12 - 10
    assert returns(result, 1).tolist() == pytest.approx([0.3, 0.4, 0.6])


def test_a_solver_asks_a_distribution_once_per_information_state() -> None:
    from cardlang import load_game
    from cardlang.solve.opponents import OpponentModel

    game = load_game(ROOT / "games/kuhn_poker.rcy")
    model = OpponentModel("random", game, 2, 0)
    calls = []

    class Counting:
        def probabilities(self, view, options):  # type: ignore[no-untyped-def]
            calls.append(1)
            return [1.0 / len(options)] * len(options)

    model.uniform, model.agents = False, [Counting(), Counting()]
    master = game.master()
    for seed in range(6):  # 6 deals of 3 cards: each seat's first decision, 3 states each
        st = master.new_game(seed, record=True)
        options = master.legal_options(st)
        model.probabilities(st, st.mover, options)
        model.probabilities(st, st.mover, options)
    assert len(calls) <= 3 < 12


def test_a_game_in_progress_keeps_its_past_opponent(game: Path, tmp_path: Path) -> None:
    """When a new snapshot pushes the oldest out, rows playing a snapshot still play the
    same one (the indices shift with the pool)."""
    torch.set_num_threads(1)
    run = PPORun.open(_config(game, 1, opponents="past@1", snapshots=2), tmp_path / "r", print)
    actor = _actor(run)
    (lane,) = actor.lanes
    for p in actor.net.parameters():
        p.data.add_(1.0)
    actor.snapshot()  # two now: the start and this one
    lane.opponent[:] = 1
    playing = actor.snapshots[1]
    for p in actor.net.parameters():
        p.data.add_(1.0)
    actor.snapshot()  # the start drops out
    assert len(actor.snapshots) == 2
    (index,) = set(lane.opponent.tolist())
    assert _same(actor.snapshots[index], playing)


def test_the_games_of_an_update_meet_its_snapshot(game: Path, tmp_path: Path) -> None:
    """Every game a past lane starts during an update, those of a reset before it
    included (a round's start), meets the snapshot drawn for that update (one forward of
    the snapshots per step, not one per snapshot); over many updates each snapshot of the
    pool is drawn."""
    torch.set_num_threads(1)
    config = _config(game, 1, opponents="past@1", snapshots=4, snapshot_every=1)
    run = PPORun.open(config, tmp_path / "r", print)
    actor = _actor(run)
    (lane,) = actor.lanes
    met: list[set[int]] = []  # per update, the snapshots the games started in it meet
    draw_rows = actor._draw_rows

    def recording(lane_: object, rows: object) -> None:
        draw_rows(lane_, rows)  # type: ignore[arg-type]
        met[-1].update(int(lane.opponent[i]) for i in rows)  # type: ignore[attr-defined]

    actor._draw_rows = recording  # type: ignore[method-assign]
    for update in range(40):
        met.append(set())
        if update % 10 == 0:  # a round starts
            actor.reset(update)
        actor.collect()
    games_started = [m for m in met if m]
    assert len(games_started) >= 30
    assert all(len(m) == 1 for m in games_started), met
    assert {next(iter(m)) for m in games_started} == {0, 1, 2, 3}
