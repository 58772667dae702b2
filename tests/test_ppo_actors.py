"""PPO's actors (learning/actors.py): the same model wherever the actors play (in turn
in the learner's process, in worker processes, as Ray actors), exact resume with the
actors' states, steps packed for another process and back, a failed or killed worker
named.  The game is test_neural's high card: a run takes seconds.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
from pathlib import Path

import numpy as np
import pytest
from conftest import needs_native_default

torch = pytest.importorskip("torch")

from cardlang.agents.neural.model import load_model  # noqa: E402
from test_neural import HIGH_CARD  # noqa: E402
from test_ppo_run import _config, _same, _weights  # noqa: E402

from cardlang.errors import UsageError  # noqa: E402
from cardlang.language.params import param_variants, parse_param_draws  # noqa: E402
from cardlang.learning.actors import (  # noqa: E402
    ActorError,
    ProcessActors,
    RayActors,
    build_lanes,
)
from cardlang.learning.ppo import weights_of  # noqa: E402
from cardlang.learning.ppo_run import PPORun  # noqa: E402
from cardlang.learning.steps import pack_steps, unpack_steps  # noqa: E402

pytestmark = needs_native_default()


@pytest.fixture
def game(tmp_path: Path) -> Path:
    path = tmp_path / "high_card.rcy"
    path.write_text(HIGH_CARD)
    return path


def _metrics(out: Path) -> list[tuple[int, int, float]]:
    rows = [json.loads(x) for x in (out / "metrics.jsonl").read_text().splitlines()]
    return [(r["games"], r["steps"], r["policy"]) for r in rows]


@pytest.mark.slow  # 27 s of the README's command (2026-12-03, 9:34 of its 10 minutes)
@pytest.mark.early(12)
def test_the_actors_learn_the_same_model_wherever_they_play(game: Path, tmp_path: Path) -> None:
    """Three actors over two worker processes, stopped after a round and resumed, learn
    what three actors playing in turn in the learner's process learn, bit for bit."""
    torch.set_num_threads(1)
    serial = tmp_path / "serial"
    PPORun.open(_config(game, 3, actors=3), serial, print).run()
    spread = tmp_path / "spread"
    PPORun.open(_config(game, 1, actors=3, backend="process", workers=2), spread, print).run()
    lines: list[str] = []
    resumed = _config(game, 3, actors=3, backend="process", workers=2)
    PPORun.open(resumed, spread, lines.append).run()
    assert f"resuming {spread} after round 1" in lines
    assert _same(_weights(serial), _weights(spread))
    assert _metrics(serial) == _metrics(spread)
    one = tmp_path / "one"  # the number of actors is a setting of what is learnt
    PPORun.open(_config(game, 3, actors=1), one, print).run()
    assert not _same(_weights(serial), _weights(one))


def test_a_run_keeps_its_actors_and_may_move_them(game: Path, tmp_path: Path) -> None:
    """A resumed run plays with the actors it started with (a different --actors is
    refused), on whatever backend the command names."""
    out = tmp_path / "r"
    PPORun.open(_config(game, 1, actors=2), out, print).run()
    with pytest.raises(UsageError, match="--actors 3"):
        PPORun.open(_config(game, 2, actors=3), out, print, given={"actors"})
    run = PPORun.open(_config(game, 2, backend="process"), out, print, given={"backend"})
    assert (run.config.actors, run.config.backend) == (2, "process")


def test_steps_survive_packing_for_another_process(game: Path, tmp_path: Path) -> None:
    torch.set_num_threads(1)
    run = PPORun.open(_config(game, 1, average=100), tmp_path / "r", print)
    run.actors = run._start_actors()
    run.actors.reset(0)
    run.actors.start(weights_of(run.learner.net), run.learner.shared())
    (played,) = run.actors.finish()
    steps = played.experience().steps
    assert steps and all(s.probs is not None for s in steps)
    again = unpack_steps(pack_steps(steps))
    for a, b in zip(steps, again, strict=True):
        assert all(np.array_equal(x, y) for x, y in zip(a.tokens, b.tokens, strict=True))
        assert np.array_equal(a.actions, b.actions) and np.array_equal(a.probs, b.probs)
        assert np.array_equal(a.returns, b.returns)
        assert (a.chosen, a.logp, a.value, a.seat, a.advantage, a.magnet_logp) == (
            b.chosen,
            b.logp,
            b.value,
            b.seat,
            b.advantage,
            b.magnet_logp,
        )
    run.actors.close()


def test_a_failed_or_killed_worker_is_named(game: Path, tmp_path: Path) -> None:
    specs = PPORun.open(_config(game, 1, actors=2), tmp_path / "r", print).actor_specs()
    broken = dataclasses.replace(specs[0], config=specs[0].config | {"opponents": "nosuchbot"})
    with pytest.raises(ActorError, match="actor worker 0 failed: UsageError: .*nosuchbot"):
        ProcessActors([broken], 1)
    actors = ProcessActors(specs, 2)
    try:
        os.kill(actors.processes[1].pid, signal.SIGKILL)
        actors.processes[1].join()
        with pytest.raises(ActorError, match="actor worker 1 died .* resume"):
            actors.reset(0)
    finally:
        actors.close()


def test_ray_actors_learn_what_serial_ones_do(game: Path, tmp_path: Path) -> None:
    ray = pytest.importorskip("ray", reason="Ray is an optional extra: pip install 'cardlang[ray]'")
    torch.set_num_threads(1)
    serial = tmp_path / "serial"
    PPORun.open(_config(game, 2, actors=2), serial, print).run()
    ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR")
    try:
        spread = tmp_path / "ray"
        PPORun.open(_config(game, 2, actors=2, backend="ray"), spread, print).run()
    finally:
        ray.shutdown()
    assert _same(_weights(serial), _weights(spread))
    assert _metrics(serial) == _metrics(spread)
    assert RayActors is not None


#: High card with the hand size and the player count as parameters.
DRAWN = HIGH_CARD.replace(
    "(game\n (setup (create players 2)",
    "(game\n (declare 2 'HANDSIZE)\n (declare 2 'NUMP)\n (setup (create players 'NUMP)",
).replace("(repeat 2 (move", "(repeat 'HANDSIZE (move")


def test_drawn_parameters_share_the_rows(tmp_path: Path) -> None:
    """--param-draw handsize=2|3: every actor plays both games, half its rows each,
    against the whole pool; the run learns, its card says how to draw them again."""
    torch.set_num_threads(1)
    path = tmp_path / "drawn.rcy"
    path.write_text(DRAWN)
    config = _config(path, 2, param_draws={"HANDSIZE": ["2", "3"]}, opponents="self@1,random@1")
    run = PPORun.open(config, tmp_path / "r", print)
    assert len(run.variants) == 2
    lanes = build_lanes(run.variants, run.config, run.model, 24)
    games = [lane.env.game for lane in lanes]
    assert games.count(run.variants[0]) == games.count(run.variants[1]) == len(lanes) // 2
    assert sum(lane.env.n for lane in lanes if lane.env.game is run.variants[1]) == 12
    for lane in lanes:
        lane.env.reset()
    hands = {lane.env.game is run.variants[1]: int(lane.env.action_count.max()) for lane in lanes}
    assert hands == {False: 2, True: 3}  # the first move: any card of the hand
    run.run()
    card = (tmp_path / "r" / "MODEL_CARD.md").read_text()
    assert "--param-draw 'HANDSIZE=2|3'" in card and "(HANDSIZE=2|3)" in card
    assert load_model(tmp_path / "r").game.params == {"HANDSIZE": "2|3"}
    other = _config(path, 3, param_draws={"HANDSIZE": ["2", "4"]}, opponents="self@1,random@1")
    with pytest.raises(UsageError, match=r"--param-draw handsize=2\|4 \(the run's: handsize=2\|3"):
        PPORun.open(other, tmp_path / "r", print, given={"param_draws"})


def test_bad_parameter_draws_are_usage_errors(tmp_path: Path) -> None:
    path = tmp_path / "drawn.rcy"
    path.write_text(DRAWN)
    for draws, params, words in (
        ({"NUMP": ["2", "3"]}, {}, "one network plays one seat count"),
        ({"HANDSIZE": ["2", "x"]}, {}, "--param-draw"),
        ({"NOSUCH": ["1", "2"]}, {}, "no parameter NOSUCH"),
        ({"HANDSIZE": ["2", "3"]}, {"HANDSIZE": "2"}, r"both set \(--param\) and drawn"),
    ):
        config = _config(path, 1, param_draws=draws, params=params)
        with pytest.raises(UsageError, match=words):
            PPORun.open(config, tmp_path / "r", print)
    assert parse_param_draws(["handsize=2|3", "nump = 2"]) == {
        "HANDSIZE": ["2", "3"],
        "NUMP": ["2"],
    }
    for bad in ("handsize", "handsize=2||3", "handsize=2|2"):
        with pytest.raises(UsageError, match="--param-draw"):
            parse_param_draws([bad])
    assert len(param_variants({}, {"A": ["1", "2"], "B": ["x", "y", "z"]})) == 6
    with pytest.raises(UsageError, match="more than 64"):
        param_variants({}, {k: [str(v) for v in range(3)] for k in "ABCD"})
