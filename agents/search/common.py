"""What the search agents (ISMCTS, MCTS, PIMC) share: rollout policies and move keys.

Search agents work on any game through their view only: each simulation starts from
``view.determinize(rng)``, a full state consistent with what the player knows (see
docs/information.md), so no search can act on a hidden card it has not seen.  They need
the game's event log for that, and declare ``Capabilities(knowledge=True)`` (the runner
then records the game).  They simulate with ``view.master()``: the game's rules under the
real game's limits (``--max-decisions``, ``--max-steps``).

Rewards are standings (rewards.py): per seat, the share of the other seats it finishes
ahead of, a tie counting half, in [0, 1].  A rollout cut short by the rollout cap is
scored as the game stands then.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from cardlang.agents.loop import play_out
from cardlang.agents.registry import make_agent

from cardlang.engine.lazy_options import LazyOptions
from cardlang.engine.protocol import Engine, EngineState, agents_inside
from cardlang.engine.state import MASK64, RUNNING, splitmix64
from cardlang.errors import UsageError
from cardlang.information.visibility import can_see
from cardlang.language.kinds import card_type

if TYPE_CHECKING:
    from cardlang.engine.game import Game

#: Decisions a rollout may take before it is scored as the game stands (per rollout).
DEFAULT_ROLLOUT_CAP = 1_000

MoveKey = tuple[Any, ...]


#: Entries of MoveKeys' card-type cache before it starts again (it keeps the attribute
#: objects it has seen alive: a game's masters each make their own).
_MAX_TYPE_ENTRIES = 4096


class RandomRollout:
    """Plays uniformly random moves to the end (or the cap): the default rollout policy.
    Its own SplitMix64 stream, no views: the fast path of every search."""

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK64

    def play(self, master: Engine, st: EngineState, cap: int) -> None:
        if master.traits.agents_inside:  # the native engine plays it inside, draw for draw
            inside = agents_inside(master, "no twins")  # its traits said so
            twin = inside.random_agent(self.state)
            inside.play_native(st, [twin] * st.nplayers, st.decisions + cap)
            self.state = twin.state
            return
        legal, apply = master.legal_options, master.apply
        x = self.state
        limit = st.decisions + cap
        while st.status == RUNNING and st.decisions < limit:
            options = legal(st)
            x, z = splitmix64(x)
            apply(st, (z * len(options)) >> 64)
        self.state = x


class AgentRollout:
    """Plays the rollouts with other agents (one per seat, e.g. ``bigmoney``), through
    the one play loop (cardlang.agents.loop), each agent given a live view as in a real
    game."""

    def __init__(self, spec: str, nplayers: int, seed: int) -> None:
        self.spec = spec
        self.agents = [make_agent(spec, seed + p) for p in range(nplayers)]
        self.labels = [spec] * nplayers

    def play(self, master: Engine, st: EngineState, cap: int) -> None:
        play_out(master, st, self.agents, self.labels, cap=cap)


class Rollout(Protocol):
    """A rollout policy: plays ``st`` on for at most ``cap`` decisions."""

    def play(self, master: Engine, st: EngineState, cap: int) -> None: ...


def make_rollout(spec: str, nplayers: int, seed: int) -> Rollout:
    if spec == "random":
        return RandomRollout(seed)
    return AgentRollout(spec, nplayers, seed)


class MoveKeys:
    """Names a decision's options the same way in every determinization: the condact
    (its first action) and what the option binds, a card by its type.  Options with one
    name are the same move for search (two Coppers in hand).  Computed on determinized
    states, which hold nothing the searching player does not know."""

    def __init__(self, game: Game) -> None:
        self.card_slots = game.card_slots
        # id of a card's attributes -> (those attributes, its type)
        self._types: dict[int, tuple[Any, str]] = {}

    def keys(self, st: EngineState, options: Sequence[Any]) -> list[MoveKey]:
        if isinstance(options, LazyOptions):  # the engine may make them all at once
            made = options.move_keys(st, self.card_slots)
            if made is not None:
                return made
        return [self.key(st, o) for o in options]

    def key(self, st: EngineState, option: Any) -> MoveKey:
        parts: list[Any] = []
        mover = st.mover
        for fn, arg in option:
            if fn is None:
                slot, value = arg[0], arg[1]
                if slot in self.card_slots and value is not None:
                    # a card the mover cannot see is "?" in every world, the real one too
                    seen = can_see(mover, st.card_zone[value])
                    parts.append(self._type(st.cards[value]) if seen else "?")
                else:
                    parts.append(value if not isinstance(value, list) else tuple(value))
            else:
                parts.append(id(arg))  # the action's node: which condact, which step
        return tuple(parts)

    def _type(self, attrs: Any) -> str:
        # keyed by identity, the object kept beside its type: a native engine's attribute
        # views belong to one master (a view makes one per decision), and an id is reused
        # once its object is freed, so an entry is trusted only for the very object
        found = self._types.get(id(attrs))
        if found is not None and found[0] is attrs:
            return found[1]
        if len(self._types) >= _MAX_TYPE_ENTRIES:
            self._types.clear()
        name = card_type(attrs)
        self._types[id(attrs)] = (attrs, name)
        return name


def first_index_by_key(keys: Sequence[MoveKey]) -> dict[MoveKey, int]:
    """Each move key -> the first option with it."""
    found: dict[MoveKey, int] = {}
    for i, k in enumerate(keys):
        found.setdefault(k, i)
    return found


def check_positive(name: str, value: float, agent: str) -> None:
    if value <= 0:
        raise UsageError(f"{agent}: {name} must be positive (got {value})")
