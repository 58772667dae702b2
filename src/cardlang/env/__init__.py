"""cardlang games inside the RL ecosystem: PettingZoo, Gymnasium, OpenSpiel, batches.

What this package offers, each imported on first use:

- ``pettingzoo(FILE, ...)``: a PettingZoo AEC environment (module ``pettingzoo_aec``,
  extra ``pettingzoo``);
- ``gymnasium(FILE, ...)``: one seat against fixed opponents, a Gymnasium environment
  (module ``gymnasium_env``, extra ``gymnasium``);
- ``openspiel.register(FILE, name=...)``: the game registered with pyspiel, with exact or
  sampled chance (module ``openspiel``, extra ``openspiel``);
- ``VectorEnv(FILE, n)``: n games stepped in lockstep into preallocated numpy arrays
  (module ``vector``).

Under them: ``core``, what every adapter shares (one game as an episode: observations,
masks, actions as vocabulary keys, rewards), and ``batch``, a ``VectorEnv``'s games
stepped inside the native engine (its ``BatchPlan``).

Pipeline position: beside analysis, solve and interactive (above runs and agents).  Each
adapter imports its library only when it is asked for, so ``import cardlang.env`` needs
none of them; of cardlang, only ``cardlang.learning`` imports this package (PPO's
lockstep games).
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["VectorEnv", "gymnasium", "openspiel", "pettingzoo"]

#: name -> (module, attribute or None for the module itself), imported on first use
_LAZY = {
    "pettingzoo": ("cardlang.env.pettingzoo_aec", "pettingzoo"),
    "gymnasium": ("cardlang.env.gymnasium_env", "gymnasium"),
    "openspiel": ("cardlang.env.openspiel", None),
    "VectorEnv": ("cardlang.env.vector", "VectorEnv"),
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'cardlang.env' has no attribute {name!r}")
    module_name, attribute = _LAZY[name]
    module = importlib.import_module(module_name)
    return module if attribute is None else getattr(module, attribute)
