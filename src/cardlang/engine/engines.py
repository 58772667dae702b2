"""The engines a game can be played with, and what each offers: the registry.

Pipeline position: engine, above gamemaster.py (the Python engine) and native.py (the
C++ one), whose masters carry their engine's ``EngineTraits`` as ``master.traits``.  A
layer above asks a master what its engine offers (its agents'
twins inside, search inside, whole batches) rather than probing the master for methods,
as OpenSpiel's ``GameType`` declares a game's traits.

Which engine plays: ``Game.master(engine=...)``, else the game's ``engine`` (set by
``load_game(engine=...)``), else the default (engine/native.py ``default_engine``: the
native engine where it is built).  The command line settles it once (cli/options.py
``use_engine``: ``--engine``, else ``CARDLANG_ENGINE``, read there and nowhere below) and
passes it down as it passes the limits: the games it loads carry it, a batch's worker
processes receive it with their master (runs/backends.py), a training run keeps it in
its settings.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from cardlang.errors import UsageError, did_you_mean

__all__ = [
    "ENGINE_NAMES",
    "NATIVE",
    "PYTHON",
    "EngineTraits",
    "agents_kept_in_python",
    "engine_named",
]


@dataclass(frozen=True)
class EngineTraits:
    """An engine's name and what it offers beyond the engine protocol (engine/protocol.py
    ``Engine``, which every master satisfies and which carries these as ``traits``)."""

    name: str  # "python" or "native": what --engine names it by
    #: the scripted and random agents' twins play inside it, whole stretches of a game
    #: without coming back to Python (``play_native``; agents/base.py native_twin)
    agents_inside: bool
    #: ISMCTS runs inside it (``search_engine``; agents/search/in_engine.py)
    search_inside: bool
    #: it plays whole batches of games and steps lockstep games in one call
    #: (``play_batch``, ``vector_batch``; runs/planned.py, env/vector.py)
    batch_stepping: bool
    #: it builds a determinization's state itself, from a skeleton of a seat's knowledge
    #: (``WorldDealingEngine``: information/knowledge.py deals, the engine builds)
    deals_worlds: bool = False
    #: the reference: what a game means (the other engines are held to its event logs)
    reference: bool = False


#: The Python engine: the reference (engine/gamemaster.py).
PYTHON = EngineTraits(
    "python", agents_inside=False, search_inside=False, batch_stepping=False, reference=True
)
#: The C++ engine (engine/native.py), where ``pip install`` built it.
NATIVE = EngineTraits(
    "native", agents_inside=True, search_inside=True, batch_stepping=True, deals_worlds=True
)


def agents_kept_in_python(traits: EngineTraits) -> EngineTraits:
    """``traits`` with no agent and no search inside: what an engine declares for a game
    loaded with ``agents_inside=False`` (``CARDLANG_NATIVE_AGENTS=0`` on the command line),
    every agent then playing in Python, one call per decision, choosing the same moves
    (what the speed benchmarks compare against)."""
    return replace(traits, agents_inside=False, search_inside=False)


#: Every engine by its name, in the order --engine lists them.
ENGINE_NAMES = (PYTHON.name, NATIVE.name)
_BY_NAME = {e.name: e for e in (PYTHON, NATIVE)}


def engine_named(name: str, named_by: str = "") -> EngineTraits:
    """The engine called ``name``; a usage error with a did-you-mean for another name
    (``named_by``: where the name came from, e.g. an environment variable)."""
    found = _BY_NAME.get(name)
    if found is None:
        hint = did_you_mean(name, ENGINE_NAMES)
        raise UsageError(
            (f"{named_by}={name!r} names no engine" if named_by else f"no engine named {name!r}")
            + (f" ({hint})" if hint else "")
            + f": choose from {', '.join(ENGINE_NAMES)}"
        )
    return found
