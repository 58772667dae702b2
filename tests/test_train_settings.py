"""One set of defaults for a training run's settings (issue 56): the command line's
options take theirs from ``TrainConfig``, and PPO's own settings default to the same."""

from __future__ import annotations

import argparse
from dataclasses import MISSING, fields

import pytest

from cardlang.cli.main import build_parser
from cardlang.learning.config import ALGORITHM_DEFAULTS, TrainConfig, default_of

#: Options the command line resolves itself (the algorithm's defaults, a string list).
PER_ALGORITHM = set(ALGORITHM_DEFAULTS["ppo"])
OWN = {"algorithm": "ppo", "eval_agents": "random", "backend": None}  # backend: --workers decide


def _train_options() -> dict[str, argparse.Action]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {a.dest: a for a in sub.choices["train"]._actions}


def test_every_option_of_a_setting_defaults_to_the_settings_default() -> None:
    options = _train_options()
    names = {
        f.name
        for f in fields(TrainConfig)
        if f.default is not MISSING or f.default_factory is not MISSING
    }
    checked = 0
    for name in sorted(names & set(options)):
        given = options[name].default
        if name in PER_ALGORITHM:
            assert given is None, name  # the algorithm's, once it is known
        elif name in OWN:
            assert given == OWN[name], name
        else:
            assert given == default_of(name), (name, given, default_of(name))
        checked += 1
    assert checked > 50


def test_ppo_settings_default_to_a_runs() -> None:
    torch = pytest.importorskip("torch")  # noqa: F841 - ppo.py needs it
    from cardlang.learning.ppo import PPOConfig

    ppo = ALGORITHM_DEFAULTS["ppo"]
    for f in fields(PPOConfig):
        if f.name == "minibatch":
            assert f.default == ppo["batch_size"]
        elif f.name in ppo:
            assert f.default == ppo[f.name], f.name
        elif f.name in {g.name for g in fields(TrainConfig)}:
            assert f.default == default_of(f.name), f.name


def test_the_help_shows_the_defaults_it_uses() -> None:
    options = _train_options()
    assert "(%(default)s)" in options["horizon"].help
    assert options["horizon"].default == default_of("horizon") == 64


def test_an_unset_setting_takes_its_algorithms_default_and_a_given_one_stays() -> None:
    from cardlang.cli.train import train_config

    parser = build_parser()
    for algorithm in ("ppo", "search"):
        args = parser.parse_args(["train", "g.rcy", "--out", "o", "--algorithm", algorithm])
        config = train_config(args, ["random"], "serial", None)
        for name, value in ALGORITHM_DEFAULTS[algorithm].items():
            assert getattr(config, name) == value, (algorithm, name)
        assert config.horizon == 64 and config.warm_steps == 0  # no --warm-start
    args = parser.parse_args(
        ["train", "g.rcy", "--out", "o", "--lr", "0.01", "--body", "transformer"]
    )
    config = train_config(args, ["random"], "serial", None)
    assert (config.lr, config.body, config.batch_size) == (0.01, "transformer", 256)
