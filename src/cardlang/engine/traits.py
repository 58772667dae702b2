"""What an engine offers beyond the engine protocol: its traits, and those of the two engines.

Pipeline position: engine, at the bottom (the masters of gamemaster.py and native.py carry
their engine's ``EngineTraits`` as ``master.traits``; the registry, engines.py, names them).
A layer above asks a master what its engine offers (its agents' twins inside, search
inside, whole batches) rather than probing the master for methods, as OpenSpiel's
``GameType`` declares a game's traits.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

__all__ = ["NATIVE", "PYTHON", "EngineTraits", "agents_kept_in_python"]


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
