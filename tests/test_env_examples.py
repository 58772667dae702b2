"""The training examples of the RL adapters (examples/gymnasium_train.py,
examples/pettingzoo_train.py, examples/vector_train.py, examples/openspiel_cfr.py) run with a small budget and
reach the score each states (its ``TARGET``, and its ``MARGIN`` over a random player in
the learner's place, or CFR's value against Kuhn's known one)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def example(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_gymnasium_training_beats_random() -> None:
    pytest.importorskip("gymnasium")
    module = example("gymnasium_train")
    scores = module.main(["--budget", "4000", "--eval", "1000", "--seed", "0"])
    assert scores["trained"] >= module.TARGET
    assert scores["trained"] - scores["random"] >= module.MARGIN


def test_pettingzoo_self_play_beats_random() -> None:
    pytest.importorskip("pettingzoo")
    module = example("pettingzoo_train")
    scores = module.main(["--budget", "3000", "--eval", "500", "--seed", "0"])
    assert scores["trained"] >= module.TARGET
    assert scores["trained"] - scores["random"] >= module.MARGIN


def test_openspiel_cfr_solves_kuhn() -> None:
    pytest.importorskip("pyspiel")
    module = example("openspiel_cfr")
    result = module.main(["--iterations", "300"])
    assert result["exploitability"] < module.TARGET
    assert abs(result["value"] - (-1 / 18)) < module.VALUE_TOLERANCE


def test_vector_env_training_beats_random() -> None:
    module = example("vector_train")
    scores = module.main(["--budget", "4000", "--eval", "1000", "--seed", "0"])
    assert scores["trained"] >= module.TARGET
    assert scores["trained"] - scores["random"] >= module.MARGIN
