"""The agent registry: agent specs on the command line to agents.

``make_agent(spec, seed)`` builds an agent from a spec: a built-in name (``random``,
``ismcts``, the Dominion bots ...), ``path/to/bot.toml`` for a Dominion priority bot
written as data, or ``path/to/file.py:ClassName`` for a user's agent class (a plugin: any
class with a ``choose(view, options)`` method, see base.py), each followed by
``:key=value`` parameters (specs.py).

Pipeline position: agents.  The table of built-in agents, ``BUILTIN_AGENTS``, is filled
by ``cardlang.agents`` (its ``__init__``) when the package is imported, so that this
module imports no agent: a search agent whose rollouts are played by another agent
(``rollout=bmu``) makes that agent here without an import cycle.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import re
import sys
import traceback
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from cardlang.agents.specs import AgentSpec, keyword_arguments, parse_spec, signature_of

from cardlang.errors import AgentError, UsageError, did_you_mean

#: Built-in agent name -> its factory (called with the agent's parameters and ``seed``).
BUILTIN_AGENTS: dict[str, Callable[..., Any]] = {}

#: Agents written as data: a file suffix (``.toml``) -> what turns such a file's path
#: into the factory of its agent (filled with the built-in table).
FILE_AGENTS: dict[str, Callable[[str], Callable[..., Any]]] = {}


def make_agent(spec: str, seed: int) -> Any:
    """An agent for one seat.  ``seed`` seeds its own randomness.

    ``spec`` may add ``key=value`` parameters after colons (``ismcts:iterations=500``,
    ``my.py:MyAgent:depth=3``); they become keyword arguments of the agent's constructor,
    converted to the types it declares (specs.py).  A bare built-in name takes the
    shortest path, since a batch makes fresh agents for every game.
    """
    factory = BUILTIN_AGENTS.get(spec)
    if factory is not None:
        try:
            return factory(seed=seed)
        except TypeError:  # a parameter it needs (neural's model=): agent_maker says so
            pass
    return agent_maker(spec)(seed)


def check_ready(specs: Iterable[str], game: Any) -> None:
    """Refuse, before any game is played, an agent of ``specs`` that cannot play
    ``game`` at all: each is made once, and its optional ``ready_for(game)`` raises a
    UsageError (the neural agent: a model file that cannot load, or a model of another
    game), which would otherwise fail every game of a batch one by one."""
    for spec in dict.fromkeys(specs):
        _ready(spec, make_agent(spec, 0), game)


def _ready(spec: str, agent: Any, game: Any) -> None:
    """``agent.ready_for(game)`` where a built-in has it: a user's class is asked
    nothing outside its games (where its failures are its own)."""
    ready = getattr(agent, "ready_for", None)
    if ready is not None and not parse_spec(spec).is_plugin:
        ready(game)


def agent_warnings(specs: Iterable[str], game: Any) -> list[str]:
    """What the agents of ``specs`` say a person should know before they play ``game``
    (an agent's optional ``warnings_for(game)``: a bot made for another game, decisions
    it has no rule for), each once; an agent that cannot play it at all is refused
    first, as ``check_ready`` refuses it."""
    said: list[str] = []
    for spec in dict.fromkeys(specs):
        agent = make_agent(spec, 0)
        _ready(spec, agent, game)
        check = getattr(agent, "warnings_for", None)
        for line in check(game) if check is not None else ():
            if line not in said:
                said.append(line)
    return said


def agent_maker(spec: str) -> Callable[[int], Any]:
    """What makes the agent of ``spec`` from a seed, with every mistake of the spec found
    now: the class loaded (a plugin's file runs), the parameters converted and checked
    against the constructor's signature.  The constructor itself runs only when called:
    a sandbox loads an agent once and makes one per game."""
    if spec.endswith(".py"):
        raise UsageError(f"agent '{spec}' names a file but no class: write {spec}:ClassName")
    parsed = parse_spec(spec)
    factory = _factory(parsed)
    signature = signature_of(factory)
    kwargs = keyword_arguments(parsed, signature)
    given = dict(kwargs, seed=0) if signature.takes_seed else kwargs
    try:  # arguments the class cannot take, or lacks, are the spec's fault: bad usage
        inspect.signature(factory).bind(**given)
    except TypeError as err:
        missing = re.search(r"missing a required argument: '(\w+)'", str(err))
        if missing:  # `neural` without its model=
            name = missing.group(1)
            raise UsageError(f"agent {spec!r} needs {name}=...: {spec}:{name}=VALUE") from None
        raise UsageError(f"cannot create agent {spec}: {err}") from None
    except ValueError:  # no signature to read: the call will tell
        pass

    def make(seed: int) -> Any:
        arguments = dict(kwargs, seed=seed) if signature.takes_seed else kwargs
        if not (parsed.is_plugin or parsed.params):
            return factory(**arguments)
        return _construct(spec, parsed, factory, arguments)

    return make


def _construct(
    spec: str, parsed: AgentSpec, factory: Callable[..., Any], kwargs: dict[str, Any]
) -> Any:
    """Call an agent's constructor with the spec's parameters; a failure is bad usage for
    a built-in (it refused a value) and the agent's own error for a plugin."""
    try:
        return factory(**kwargs)
    except UsageError:
        raise
    except Exception as err:  # the user's constructor, or a value it refuses: report it
        message = f"cannot create agent {spec}: {type(err).__name__}: {err}"
        if not parsed.is_plugin:  # a built-in refused a parameter's value: bad usage
            raise UsageError(message) from err
        # the user's own code failed: the agent's error (a batch fails that game)
        details = "".join(traceback.format_exception(err))
        raise AgentError(
            f"cannot be created: {type(err).__name__}: {err}", agent=spec, details=details
        ) from err


def agent_parameters(spec: str) -> list[str]:
    """What the agent of ``spec`` takes, one line per parameter (name, type, default):
    for help texts and error messages."""
    signature = signature_of(_factory(parse_spec(spec)))
    return [p.describe() for p in signature.params.values()]


def _factory(spec: AgentSpec) -> Callable[..., Any]:
    """What builds the agent a spec names: a built-in's factory, a bot file's loader or
    a plugin's class."""
    head = spec.head
    if spec.is_plugin:
        return _plugin_class(head)
    if head.endswith(tuple(FILE_AGENTS)):  # an agent written as data (a Dominion bot)
        return _agent_file(head)
    factory = BUILTIN_AGENTS.get(head)
    if factory is None:
        hint = did_you_mean(head, BUILTIN_AGENTS) or f"known agents: {', '.join(BUILTIN_AGENTS)}"
        raise UsageError(f"unknown agent '{head}' ({hint}; your own: path/to/file.py:ClassName)")
    return factory


@cache
def _agent_file(path: str) -> Callable[..., Any]:
    """One loader per agent file (the file is read for each agent: a changed file
    counts), kept so that its signature is looked up once."""
    suffix = next(s for s in FILE_AGENTS if path.endswith(s))
    return FILE_AGENTS[suffix](path)


def _plugin_class(head: str) -> type:
    """``path/to/file.py:ClassName``: the user's class.  Every mistake is a UsageError
    naming it."""
    path_text, class_name = head.rsplit(":", 1)
    if not class_name.isidentifier():
        raise UsageError(f"agent '{head}': expected path/to/file.py:ClassName after the ':'")
    module = _plugin_module(Path(path_text))
    cls = getattr(module, class_name, None)
    if cls is None:
        classes = [n for n, v in vars(module).items() if inspect.isclass(v)]
        hint = did_you_mean(class_name, classes) or f"its classes: {', '.join(classes) or 'none'}"
        raise UsageError(f"{path_text} has no class {class_name} ({hint})")
    if not inspect.isclass(cls) or not callable(getattr(cls, "choose", None)):
        raise UsageError(f"{class_name} in {path_text} has no choose(view, options) method")
    return cls


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
