"""Agent implementations, installed as ``cardlang.agents``.

``make_agent(spec, seed)`` builds an agent from a command-line spec: a built-in name
(``random``, the Dominion bots ``bigmoney``, ``bmu``, ``smithy``, ``double-witch``),
``path/to/bot.toml`` for a Dominion priority bot written as data, or
``path/to/file.py:ClassName`` for a user's agent class.
"""

from __future__ import annotations

import importlib.util
import inspect
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from cardlang.agents.base import Agent
from cardlang.agents.dominion_bot import BUILTIN_BOTS, DominionBot
from cardlang.agents.random_agent import RandomAgent

from cardlang.errors import UsageError

BUILTIN_AGENTS: dict[str, Callable[..., Any]] = {
    "random": RandomAgent,
    **{name: partial(DominionBot.builtin, name) for name in BUILTIN_BOTS},
}


def make_agent(spec: str, seed: int) -> Any:
    """An agent for one seat.  ``seed`` seeds its own randomness."""
    if ":" in spec and spec.split(":", 1)[0].endswith(".py"):
        return _load_plugin(spec, seed)
    if spec.endswith(".toml"):  # a Dominion priority bot written as data
        return DominionBot.from_file(spec, seed)
    factory = BUILTIN_AGENTS.get(spec)
    if factory is None:
        from cardlang.errors import did_you_mean

        hint = did_you_mean(spec, BUILTIN_AGENTS) or f"known agents: {', '.join(BUILTIN_AGENTS)}"
        raise UsageError(f"unknown agent '{spec}' ({hint})")
    return factory(seed=seed)


def _load_plugin(spec: str, seed: int) -> Any:
    path_text, class_name = spec.rsplit(":", 1)
    path = Path(path_text)
    if not path.is_file():
        raise UsageError(f"agent file not found: {path}")
    module_spec = importlib.util.spec_from_file_location(f"cardlang_user_agent_{path.stem}", path)
    if module_spec is None or module_spec.loader is None:
        raise UsageError(f"cannot load agent file {path}")
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    cls = getattr(module, class_name, None)
    if cls is None:
        raise UsageError(f"{path} has no class {class_name}")
    params = inspect.signature(cls).parameters
    agent = cls(seed=seed) if "seed" in params else cls()
    if not callable(getattr(agent, "choose", None)):
        raise UsageError(f"{class_name} has no choose(view, options) method")
    return agent


__all__ = ["Agent", "BUILTIN_AGENTS", "RandomAgent", "make_agent"]
