"""Agent implementations, installed as ``cardlang.agents``.

``make_agent(spec, seed)`` builds an agent from a command-line spec: a built-in name
(``random``, the Dominion bots ``bigmoney``, ``bmu``, ``smithy``, ``double-witch``),
``path/to/bot.toml`` for a Dominion priority bot written as data, or
``path/to/file.py:ClassName`` for a user's agent class (a plugin: any class with a
``choose(view, options)`` method; see base.py for what it may return).
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import sys
from collections.abc import Callable
from functools import cache, partial
from pathlib import Path
from types import ModuleType
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
    path_text, colon, _ = spec.rpartition(":")
    if colon and path_text.endswith(".py"):
        return _load_plugin(spec, seed)
    if spec.endswith(".py"):
        raise UsageError(f"agent '{spec}' names a file but no class: write {spec}:ClassName")
    if spec.endswith(".toml"):  # a Dominion priority bot written as data
        return DominionBot.from_file(spec, seed)
    factory = BUILTIN_AGENTS.get(spec)
    if factory is None:
        from cardlang.errors import did_you_mean

        hint = did_you_mean(spec, BUILTIN_AGENTS) or f"known agents: {', '.join(BUILTIN_AGENTS)}"
        raise UsageError(f"unknown agent '{spec}' ({hint}; your own: path/to/file.py:ClassName)")
    return factory(seed=seed)


def _load_plugin(spec: str, seed: int) -> Any:
    """``path/to/file.py:ClassName``: an instance of the user's class, made with
    ``seed=`` if its constructor takes one.  Every mistake is a UsageError naming it."""
    path_text, class_name = spec.rsplit(":", 1)
    if not class_name.isidentifier():
        raise UsageError(f"agent '{spec}': expected path/to/file.py:ClassName after the ':'")
    module = _plugin_module(Path(path_text))
    cls = getattr(module, class_name, None)
    if cls is None:
        from cardlang.errors import did_you_mean

        classes = [n for n, v in vars(module).items() if inspect.isclass(v)]
        hint = did_you_mean(class_name, classes) or f"its classes: {', '.join(classes) or 'none'}"
        raise UsageError(f"{path_text} has no class {class_name} ({hint})")
    if not callable(getattr(cls, "choose", None)):
        raise UsageError(f"{class_name} in {path_text} has no choose(view, options) method")
    try:
        params = inspect.signature(cls).parameters
        return cls(seed=seed) if "seed" in params else cls()
    except Exception as err:  # the user's constructor: report it, not a traceback
        raise UsageError(f"cannot create agent {spec}: {type(err).__name__}: {err}") from err


@cache
def _plugin_module(path: Path) -> ModuleType:
    """The user's agent file, executed once per process however many games use it.

    It is registered in ``sys.modules`` under a name unique to its path, as Python's own
    imports do, so dataclasses and pickling in it work.
    """
    if not path.is_file():
        raise UsageError(f"agent file not found: {path}")
    name = "cardlang_user_agent_" + hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:12]
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise UsageError(f"cannot load agent file {path} (is it a Python file?)")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    try:
        module_spec.loader.exec_module(module)
    except Exception as err:  # a syntax error, a failed import, ...: the user's to fix
        del sys.modules[name]
        where = f" (line {err.lineno})" if isinstance(err, SyntaxError) else ""
        raise UsageError(
            f"cannot load agent file {path}{where}: {type(err).__name__}: {err}"
        ) from err
    return module


__all__ = ["Agent", "BUILTIN_AGENTS", "RandomAgent", "make_agent"]
