"""The neural agent: ``neural:model=PATH[:iterations=N][:temperature=T][:policy=P]``.

Pipeline position: agents/neural.  It plays a trained model (model.py) through the
search of search.py: ``iterations=0`` plays the network's raw policy, more searches with
it.  The model is loaded once per process and path (a batch makes fresh agents for each
game); torch is imported only when the first neural agent is made, so the registry and
the core never import it.

Each decision leaves a ``DecisionTrace``: per option the mover's mean value found by
the search (in [0, 1]; a solo game's [-1, 1] value is mapped onto it), each seat's
estimated standing, and ``policy``, the search's move distribution, which self-play
training learns from.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from cardlang.agents.base import Capabilities, DecisionTrace
from cardlang.agents.neural.search import (
    POLICIES,
    NeuralSearch,
    SearchResult,
    SoloValue,
    choose_action,
    option_policy,
    search_policy,
)

from cardlang.errors import UsageError

if TYPE_CHECKING:
    from cardlang.agents.neural.model import NeuralModel

    from cardlang.engine.game import Game
    from cardlang.information.views import PlayerView

#: Loaded models by (path, modification time, device): one load per process.
_MODELS: dict[tuple[str, float, str], NeuralModel] = {}


def cached_model(path: str, device: str = "cpu") -> NeuralModel:
    from cardlang.agents.neural.model import load_model, model_path

    file = model_path(path)
    if not file.is_file():
        raise UsageError(f"neural: no model at {path}")
    key = (str(file.resolve()), file.stat().st_mtime, device)
    model = _MODELS.get(key)
    if model is None:
        model = load_model(file, device=device)
        model.freeze()
        _MODELS.clear()  # an older checkpoint of a training run is not needed again
        _MODELS[key] = model
    return model


class NeuralAgent:
    """A trained network, searching or not; see the module docstring."""

    name = "neural"
    capabilities = Capabilities(knowledge=True)  # expected counts of hidden cards; search

    def __init__(
        self,
        model: str,
        iterations: int = 0,
        temperature: float = 0.0,
        c: float = 1.5,
        determinizations: int = 4,
        leaf_batch: int = 8,
        noise: float = 0.0,
        alpha: float = 0.3,
        policy: str = "visits",
        considered: int = 8,
        other_game: bool = False,
        device: str = "cpu",
        threads: int = 1,
        seed: int = 0,
    ) -> None:
        """``model``: a model file or folder (``models/dominion-solo``); ``iterations``
        of search per decision (0: the raw policy); ``temperature`` of the move choice
        (0: the best); ``c`` the PUCT constant; ``determinizations`` evaluated together
        at each expansion; ``leaf_batch`` leaves evaluated per call of the network;
        ``noise`` the weight of Dirichlet(``alpha``) noise on the root
        priors (self-play); ``policy`` how a search chooses and what it teaches:
        ``visits`` (AlphaZero's PUCT root and visit shares) or ``gumbel`` (Gumbel
        MuZero's root over ``considered`` actions, sampled by Gumbel noise when
        ``temperature`` > 0, and its improved policy); ``other_game`` plays a model on a
        game file other than the one it learnt (a variant with new cards); ``threads``
        for torch."""
        if iterations < 0 or temperature < 0 or not 0 <= noise <= 1:
            raise UsageError("neural: iterations and temperature must be >= 0, noise in [0, 1]")
        if policy not in POLICIES:
            raise UsageError(f"neural: policy must be one of {', '.join(POLICIES)}, not {policy!r}")
        if not Path(model).exists():
            raise UsageError(f"neural: no model at {model}")
        if device != "auto":  # a name torch cannot use fails here, not in every game
            from cardlang.agents.neural.network import checked_device

            try:
                checked_device(device)
            except UsageError as err:
                raise UsageError(f"neural: {err}") from None
        self.path = model
        self.iterations = iterations
        self.temperature = temperature
        self.c = c
        self.determinizations = determinizations
        self.leaf_batch = leaf_batch
        self.noise = noise
        self.alpha = alpha
        self.policy = policy
        self.considered = considered
        self.other_game = other_game
        self.device = device
        self.threads = threads
        self.seed = seed
        self.rng = random.Random(seed)
        self.last_trace: DecisionTrace | None = None
        self.last_search: SearchResult | None = None
        self._search: NeuralSearch | None = None
        self._checked: int | None = None  # id of the game object checked against the model
        if iterations == 0:
            # the raw policy's distribution is known exactly: solvers and best responses
            # (cardlang solve --opponent neural:model=DIR) read it rather than sampling
            # the agent (a searching agent's is not, so it has no such method)
            self.probabilities = self._policy_probabilities

    def ready_for(self, game: Game) -> None:
        """Load the model and check it against ``game`` now: a file that is not a usable
        model, or a model of another game, is a usage error before the first game is
        played rather than a failure of every game (registry.check_ready)."""
        self._prepare(game)

    def _prepare(self, game: Game) -> NeuralSearch:
        if self._search is not None and self._checked == id(game):
            return self._search
        import torch
        from cardlang.agents.neural.model import check_game

        if self.threads > 0:
            torch.set_num_threads(self.threads)
        model = cached_model(self.path, self.device)
        check_game(model.game, game, self.other_game, self.path, model.config)
        info = model.info.get("solo_value", {})
        solo = SoloValue(int(info.get("best", 1)), int(info.get("cap", 100)))
        self._search = NeuralSearch(
            model,
            iterations=self.iterations,
            c=self.c,
            determinizations=self.determinizations,
            leaf_batch=self.leaf_batch,
            noise=self.noise,
            alpha=self.alpha,
            solo=solo,
            policy=self.policy,
            considered=self.considered,
            sample=self.temperature > 0,
            seed=self.rng.getrandbits(63),
        )
        self._checked = id(game)
        return self._search

    def _policy_probabilities(self, view: PlayerView, options: Sequence[Any]) -> list[float]:
        """The probability of each option as this agent plays it without search: the
        policy's, sharpened by ``temperature`` (0: all on the move it plays).  Options
        sharing an action token are one move: the token's mass goes to the option the
        agent plays for it (its first)."""
        if view.game is None:
            raise UsageError("neural: the view has no game")
        search = self._prepare(view.game)
        result = search.run(view)
        weights = np.asarray(search_policy(result), dtype=np.float64)
        if self.temperature <= 0:
            shares = np.zeros_like(weights)
            shares[choose_action(result, 0.0, self.rng)] = 1.0
        else:
            w = np.power(weights / weights.max(), 1.0 / self.temperature)
            shares = w / w.sum()
        out = [0.0] * len(options)
        for action, share in enumerate(shares):
            out[int(result.tokens.option_of[action])] += float(share)
        return out

    def choose(self, view: PlayerView, options: Sequence[Any]) -> int:
        if view.game is None:
            raise UsageError("neural: the view has no game")
        search = self._prepare(view.game)
        result = search.run(view)
        self.last_search = result
        action = choose_action(result, self.temperature, self.rng)
        index = int(result.tokens.option_of[action])
        self.last_trace = _trace(result, len(options))
        return index


def _trace(result: SearchResult, n_options: int) -> DecisionTrace:
    unit = result.unit
    values: list[float | None] = [None] * n_options
    for option, action in enumerate(result.tokens.action_of):
        q = result.q[int(action)]
        values[option] = None if q is None else unit(q)
    standings = tuple(unit(v) for v in result.values)
    return DecisionTrace(tuple(values), standings, option_policy(result))
