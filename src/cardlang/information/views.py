"""PlayerView: what one player may know of a game in progress, and nothing more.

Pipeline position: between the Gamestate and the agents.  Agents receive a view, never
the state.  A view shows the cards of every location the player may see (vloc: everyone;
iloc: its owning player; mem: everyone, it holds references to cards already shown),
only the size of the others (hloc, other players' and the game's iloc), every storage
(storages are public in RECYCLE), the player cycle and the counters, and the pending
decision: its situation and what each option binds.  Every accessor returns copies or
read-only proxies; nothing it returns leads to hidden cards.

``view_of`` takes a snapshot.  The runner uses a *live* view instead, which reads the
state only while the agent decides and is closed before the decision is applied (a view
the agent kept becomes a snapshot then): most views are never copied at all.
"""

from __future__ import annotations

import random
import sys
import weakref
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast, runtime_checkable

from cardlang.engine.gamemaster import Limits
from cardlang.engine.lazy_options import is_lazy
from cardlang.engine.owners import ZoneKey, describe_owner
from cardlang.engine.protocol import Engine, EngineState
from cardlang.errors import UsageError
from cardlang.information.knowledge import SeatKnowledge, Skeleton, seat_knowledge
from cardlang.information.visibility import OPEN_KINDS, OWNER_KIND, can_see, seer
from cardlang.language.kinds import card_type

if TYPE_CHECKING:
    from cardlang.engine.game import Game

Attributes = Mapping[str, Any]

if TYPE_CHECKING:
    from functools import cached_property
else:

    class cached_property:  # noqa: N801 (it stands in for functools' name)
        """``functools.cached_property`` without the lock Python 3.11 takes at each first
        read (3.12 dropped it): a view is read by one agent, and a view is made and its
        options read at every decision a Python agent takes."""

        def __init__(self, fn: Callable[[Any], Any]) -> None:
            self.fn, self.name, self.__doc__ = fn, fn.__name__, fn.__doc__

        def __set_name__(self, owner: type, name: str) -> None:
            self.name = name

        def __get__(self, obj: Any, owner: type | None = None) -> Any:
            if obj is None:
                return self
            value = obj.__dict__[self.name] = self.fn(obj)
            return value


_NO_CARDS: tuple[Attributes, ...] = ()
T = TypeVar("T")
DEFAULT_LIMITS = Limits()


@dataclass(frozen=True)
class OptionView:
    """One option of the pending decision, as the player who makes it sees it.

    ``branch``: which condact of the choice (0-based, in the order of the game file) the
    option comes from.  ``bindings``: each variable the option binds, in order, with its
    value as the chooser may know it: a card's attributes (None when the card lies where
    the chooser cannot see it), a location's key, a seat, a string or an integer.
    ``cards``: the attributes of each bound card, or of each bound location's top card
    (None where unseen); ``kinds``: their KIND, the handle bots use.  ``actions``: the
    source text of the option's actions.  ``index``: the option's place in
    ``view.options`` (and in the options ``choose`` is given); ``label``: the bindings
    and the actions' text on one line; ``key``: its action-vocabulary key
    (``view.option_keys[index]``).  A sandboxed agent gets the same attributes
    (runs/agent_view.SandboxOption; the agent contract, docs/agents.md).
    """

    branch: int
    bindings: tuple[tuple[str, Any], ...]
    cards: tuple[Attributes | None, ...]
    kinds: tuple[str | None, ...]
    action_nodes: tuple[Any, ...] = field(repr=False, default=())
    source: Any = field(repr=False, default=None)
    index: int = -1
    #: a weak reference to the view the option belongs to (for ``key``): a strong one
    #: would keep a live view that nobody else holds from being dropped uncopied
    _view: Any = field(repr=False, compare=False, default=None)

    @property
    def actions(self) -> tuple[str, ...]:
        """The source text of each of the option's actions."""
        return tuple(self.source.snippet(n.span) for n in self.action_nodes)

    @property
    def label(self) -> str:
        """The bindings and the actions' text on one line (``'c=Copper: (move ...)``):
        which option this is, for logs and tests; ``view.option_labels`` has the
        readable labels ("Buy Province ($8)")."""
        return option_summary(self.bindings, self.actions)

    @property
    def key(self) -> str:
        """The option's action-vocabulary key (``view.option_keys[self.index]``): read
        it while the view it came from is alive (during ``choose``)."""
        view = self._view() if self._view is not None else None
        if view is None or not 0 <= self.index < len(view.options):
            raise UsageError("this option's key is read from its view, which is gone")
        return view.option_keys[self.index]

    @property
    def card(self) -> Attributes | None:
        """The first bound card (or top card of a bound location) the chooser sees."""
        return next((c for c in self.cards if c is not None), None)

    @property
    def kind(self) -> str | None:
        """The first bound card kind (what is bought, played, discarded ...), if any."""
        return next((k for k in self.kinds if k is not None), None)


def binding_text(value: Any) -> str:
    """A bound value as an option's ``label`` writes it: a card by its name, a card the
    chooser cannot see as '?', a location as ``P1.HAND`` (``game.STOCK``, ``team0.PILE``)."""
    from cardlang.language.kinds import card_name

    if isinstance(value, Mapping):
        return card_name(value)
    if value is None:
        return "?"
    if isinstance(value, tuple) and len(value) == 3:
        owner, _kind, name = value
        return f"{describe_owner(owner)}.{name}"
    return str(value)


def option_summary(bindings: Sequence[tuple[str, Any]], actions: Sequence[str]) -> str:
    """An option's ``label``: ``'VAR=VALUE, ...: ACTION; ...`` (the bindings as
    ``binding_text`` writes them, then the actions' source text)."""
    binds = ", ".join(f"'{var}={binding_text(value)}" for var, value in bindings)
    text = "; ".join(actions)
    return f"{binds}: {text}" if binds else text


@runtime_checkable
class AgentView(Protocol):
    """The view an agent's ``choose(view, options)`` reads (docs/agents.md), wherever it
    plays: a ``PlayerView`` in ``simulate``, ``play`` and ``serve``, the sandbox's
    ``SandboxView`` (runs/agent_view.py) in a tournament.  Both satisfy it (mypy checks
    each against it; tests/test_agent_contract.py holds their values equal).

    What needs the game (``GAME_ONLY_VIEW`` in runs/agent_view.py) is part of it too: on a
    sandboxed view ``game``, ``choice``, ``limits``, ``engine`` and ``table_scores`` are
    None and ``master()``, ``determinize()`` and ``skeleton()`` raise
    ``SandboxUnavailable``.  Read-only: every member a property here."""

    @property
    def seat(self) -> int: ...
    @property
    def nplayers(self) -> int: ...
    @property
    def current_player(self) -> int: ...
    @property
    def decisions(self) -> int: ...
    @property
    def turns(self) -> int: ...
    @property
    def situation(self) -> str | None: ...
    @property
    def situation_text(self) -> str: ...
    @property
    def kinds(self) -> Mapping[str, Any]: ...  # card kind -> its attributes
    @property
    def visible(self) -> Mapping[ZoneKey, tuple[Any, ...]]: ...
    @property
    def hidden_sizes(self) -> Mapping[ZoneKey, int]: ...
    @property
    def ints(self) -> Mapping[tuple[int, str], int]: ...
    @property
    def strs(self) -> Mapping[tuple[int, str], str]: ...
    @property
    def history(self) -> tuple[Any, ...]: ...
    @property
    def history_length(self) -> int: ...
    @property
    def options(self) -> Sequence[Any]: ...
    @property
    def raw_options(self) -> Sequence[Any]: ...
    @property
    def option_labels(self) -> Sequence[str]: ...
    @property
    def option_kinds(self) -> Sequence[Any]: ...
    @property
    def option_keys(self) -> Sequence[Any]: ...
    @property
    def vocabulary(self) -> Any: ...
    @property
    def rules_text(self) -> str: ...
    @property
    def game_name(self) -> str: ...
    @property
    def refusal(self) -> str | None: ...
    # what needs the game: None in a sandbox
    @property
    def game(self) -> Any: ...
    @property
    def choice(self) -> Any: ...
    @property
    def limits(self) -> Any: ...
    @property
    def engine(self) -> str | None: ...
    @property
    def table_scores(self) -> Sequence[int] | None: ...

    def history_since(self, start: int) -> tuple[Any, ...]: ...
    def cards(self, owner: int, kind: str, name: str) -> tuple[Any, ...] | None: ...
    def known_cards(self, owner: int, kind: str, name: str) -> tuple[Any, ...]: ...
    def zone_knowledge(self, owner: int, kind: str, name: str) -> Any: ...
    def size(self, owner: int, kind: str, name: str) -> int: ...
    def top(self, owner: int, kind: str, name: str) -> Mapping[str, Any] | None: ...
    def tops(self) -> Mapping[ZoneKey, Any]: ...
    def locations(self) -> list[ZoneKey]: ...
    def storage(self, owner: int, name: str) -> int: ...
    def close(self) -> None: ...
    # what needs the game: raises SandboxUnavailable in a sandbox
    def master(self) -> Any: ...
    def determinize(self, rng: random.Random) -> Any: ...
    def skeleton(self) -> Any: ...


class PlayerView:
    """What ``seat`` may know now.  Read-only; see the module docstring.

    ``view_of`` takes a snapshot at once.  The runner instead consults an agent through a
    *live* view (``consult``), which reads the state only while the agent decides: a view
    the agent kept is then closed, turned into a snapshot, so it never shows anything
    later; one it did not keep costs no copy.
    Either way every accessor returns copies, never the state's own objects.
    """

    __slots__ = (
        "seat",
        "_header",  # snapshot: (nplayers, current_player, decisions, turns)
        "situation",
        "kinds",
        "_st",  # the live state, or None for a snapshot
        "_zones",  # snapshot: visible location -> card ids
        "_hidden",  # snapshot: hidden location -> size
        "_ints",
        "_strs",
        "_attrs",
        "_option_data",  # (options, pending choice node) of the decision, or None
        "game",
        "limits",  # the real game's limits, which a search's simulations keep to
        "engine",  # the engine that plays the state ("python", "native"): simulations too
        "_knowledge",  # snapshot: the seat's knowledge (knowledge.SeatKnowledge), if recorded
        "_skeleton",  # what determinize starts from (knowledge.Skeleton), made when first needed
        "_history",  # snapshot: the public history
        "__dict__",  # cached properties
        "__weakref__",  # an agent may hold a view weakly
    )

    def __init__(
        self,
        st: EngineState,
        seat: int,
        game: Game | None = None,
        options: Sequence[Any] | None = None,
        *,
        live: bool = False,
        limits: Limits | None = None,
        history: tuple[tuple[Any, ...], ...] | None = None,
    ) -> None:
        self.seat = seat
        self._header: tuple[int, int, int, int] | None = None
        pending = st.pending
        self.situation: str | None = pending.situation if pending is not None else None
        self.kinds: Mapping[str, Attributes] = game.kind_attributes if game else {}
        self.game = game  # the rules (public): search agents simulate with them
        self.limits = limits or DEFAULT_LIMITS
        self.engine: str = st.traits.name  # the engine its simulations play on
        self._option_data = None
        if options is not None and pending is not None and game is not None:
            # a tuple, or the engine's own immutable sequence (built lazily: keep it so)
            kept = options if type(options) is tuple or is_lazy(options) else tuple(options)
            self._option_data = (kept, pending)
        self._st: EngineState | None = None
        self._knowledge: SeatKnowledge | None = None
        self._skeleton: Skeleton | None = None
        # given: the public history of a state that keeps no log (a worker's world,
        # runs/agent_worker.py); else read from the state's log
        self._history: tuple[tuple[Any, ...], ...] | None = history
        if live:
            self._st = st
        else:
            self._snapshot(st)

    @classmethod
    def live(
        cls,
        st: EngineState,
        seat: int,
        game: Game,
        options: Sequence[Any],
        limits: Limits | None = None,
        history: tuple[tuple[Any, ...], ...] | None = None,
    ) -> PlayerView:
        """A view that reads the state until ``close()`` (for the runner; see ``consult``).
        ``history``: the public history, for a state that keeps no log."""
        return cls(st, seat, game, options, live=True, limits=limits, history=history)

    def master(self) -> Engine:
        """An engine of this game under the real game's limits, for simulations (a
        search must not play on where the game itself would have been cut off)."""
        if self.game is None:
            raise UsageError("this view was made without its game: it cannot simulate")
        return cast(Engine, self.game.master(self.limits, engine=self.engine))

    # The header: read from the live state (a Python agent's view at every decision reads
    # few of them, if any), kept in the snapshot.
    @property
    def nplayers(self) -> int:
        st = self._st
        return st.nplayers if st is not None else self._header[0]  # type: ignore[index]

    @property
    def current_player(self) -> int:
        st = self._st
        return st.current_seat if st is not None else self._header[1]  # type: ignore[index]

    @property
    def decisions(self) -> int:
        st = self._st
        return st.decisions if st is not None else self._header[2]  # type: ignore[index]

    @property
    def turns(self) -> int:
        st = self._st
        return st.turns if st is not None else self._header[3]  # type: ignore[index]

    @property
    def situation_text(self) -> str:
        """The pending situation's text (its name where the game gives none)."""
        name = self.situation or ""
        return self.game.situations.get(name, name) if self.game is not None else name

    @property
    def table_scores(self) -> list[int] | None:
        """Each seat's ``(table-score ...)`` as it stands (public: the checker holds it to
        what every player sees), for a table to show; None where the game has none or
        the view is a snapshot."""
        st, game = self._st, self.game
        if st is None or game is None or game.table_score is None:
            return None
        return self.master().table_scores(st)  # type: ignore[no-any-return]

    def _snapshot(self, st: EngineState) -> None:
        self._header = (st.nplayers, st.current_seat, st.decisions, st.turns)
        zones: dict[ZoneKey, tuple[int, ...]] = {}
        hidden: dict[ZoneKey, int] = {}
        seat = self.seat
        for key, cards in st.zones.items():
            kind = key[1]  # can_see, inlined: this runs for every zone
            if kind in OPEN_KINDS or (kind == OWNER_KIND and key[0] == seat >= 0):
                zones[key] = tuple(cards)
            else:
                hidden[key] = len(cards)
        self._zones = zones
        self._hidden = hidden
        self._ints = dict(st.ints)
        self._strs = dict(st.strs)
        self._attrs = tuple(st.cards)  # the game's cards; only visible ones are reachable
        if st.log is not None:
            self._history = _public_history(st.log, seat, st.cards)
        knowledge = seat_knowledge(st, seat)
        if knowledge is not None:  # keep what the seat knows, and what determinize needs
            self._knowledge = knowledge.copy()
            game = self.game
            if self._skeleton is None and self._option_data is not None and game is not None:
                self._skeleton = Skeleton(st, seat, game)

    def close(self) -> None:
        """The decision is about to be applied: stop reading the state, and become a
        snapshot of the state as it was (for whoever still holds this view).  ``consult``
        calls it only for a view that someone kept."""
        st = self._st
        if st is None:
            return
        self._snapshot(st)
        self._st = None

    # ------------------------------------------------------------ locations
    def _ids(self, key: ZoneKey) -> tuple[int, ...] | None:
        """A location's card ids if the player sees it (() when it does not exist),
        None if it is hidden."""
        st = self._st
        if st is not None:
            z = st.zones.get(key)
            if z is None:
                return ()
            return tuple(z) if can_see(self.seat, key) else None
        ids = self._zones.get(key)
        if ids is not None:
            return ids
        return None if key in self._hidden else ()

    def _top_id(self, key: ZoneKey) -> int | None:
        """The top card of a visible location (None if empty or hidden), uncopied."""
        st = self._st
        if st is not None:
            z = st.zones.get(key)
            return z[-1] if z and can_see(self.seat, key) else None
        ids = self._zones.get(key)
        return ids[-1] if ids else None

    def _attributes(self, card: int) -> Attributes:
        cards = self._st.cards if self._st is not None else self._attrs
        return MappingProxyType(cards[card])

    def cards(self, owner: int, kind: str, name: str) -> tuple[Attributes, ...] | None:
        """The cards of a location the player sees, bottom first (None if hidden)."""
        ids = self._ids((owner, kind, name))
        return None if ids is None else tuple(self._attributes(c) for c in ids)

    def size(self, owner: int, kind: str, name: str) -> int:
        key = (owner, kind, name)
        st = self._st
        if st is not None:
            return len(st.zones.get(key, ()))
        ids = self._zones.get(key)
        return len(ids) if ids is not None else self._hidden.get(key, 0)

    def top(self, owner: int, kind: str, name: str) -> Attributes | None:
        """The top card of a visible location (None if it is empty or hidden)."""
        top = self._top_id((owner, kind, name))
        return None if top is None else self._attributes(top)

    def tops(self) -> dict[ZoneKey, Attributes]:
        """The top card of every location the player sees that holds one, in the order
        the locations were made: one read for a glance over many piles."""
        st = self._st
        if st is not None:
            seat = self.seat
            return {  # can_see, inlined: this runs for every location
                k: a
                for k, a in st.top_attributes()
                if k[1] in OPEN_KINDS or (k[1] == OWNER_KIND and k[0] == seat >= 0)
            }
        return {k: self._attributes(ids[-1]) for k, ids in self._zones.items() if ids}

    def locations(self) -> list[ZoneKey]:
        """Every location that exists, visible or not."""
        if self._st is not None:
            return list(self._st.zones)
        return [*self._zones, *self._hidden]

    @property
    def hidden_sizes(self) -> Mapping[ZoneKey, int]:
        """The size of every location the player does not see."""
        st = self._st
        if st is None:
            return MappingProxyType(self._hidden)
        return MappingProxyType(
            {k: len(z) for k, z in st.zones.items() if not can_see(self.seat, k)}
        )

    @property
    def ints(self) -> Mapping[tuple[int, str], int]:
        """Every integer storage (storages are public)."""
        return MappingProxyType(dict(self._st.ints) if self._st is not None else self._ints)

    @property
    def strs(self) -> Mapping[tuple[int, str], str]:
        return MappingProxyType(dict(self._st.strs) if self._st is not None else self._strs)

    @property
    def visible(self) -> Mapping[ZoneKey, tuple[Attributes, ...]]:
        """Every visible location's cards (attribute mappings), bottom first."""
        keys = self.locations()
        visible = {}
        for k in keys:
            ids = self._ids(k)
            if ids is not None:
                visible[k] = tuple(self._attributes(c) for c in ids)
        return MappingProxyType(visible)

    def storage(self, owner: int, name: str) -> int:
        """An integer storage (0 when never set)."""
        ints = self._st.ints if self._st is not None else self._ints
        return ints.get((owner, name), 0)

    # ------------------------------------------------------------ knowledge
    def _seat_knowledge(self) -> SeatKnowledge | None:
        st = self._st
        if st is None:
            return self._knowledge
        return seat_knowledge(st, self.seat)

    def known_cards(self, owner: int, kind: str, name: str) -> tuple[Attributes | None, ...]:
        """Per card of a location, bottom first: its attributes where the player knows
        which card lies there (every card of a location it sees; in a recorded game also
        a hidden card it saw go there), else None."""
        key = (owner, kind, name)
        ids = self._ids(key)
        if ids is not None:
            return tuple(self._attributes(c) for c in ids)
        knowledge = self._seat_knowledge()
        if knowledge is None:
            return (None,) * self.size(owner, kind, name)
        entries = knowledge.entries.get(key, ())
        return tuple(self._attributes(e) if e >= 0 else None for e in entries)

    def zone_knowledge(
        self, owner: int, kind: str, name: str, uniform: bool = False
    ) -> ZoneKnowledge:
        """What the player knows of a location's contents, by card type (``card_type``):
        ``known``, the cards it knows are there; ``expected``, the expected number of each
        type (known cards count 1, an unknown card its pool's odds; see knowledge.py).
        Without a recorded game, or with ``uniform``, an unknown card is taken to be any
        card the player does not see, all equally likely (what the engine's lockstep
        batch writes: env/batch.py)."""
        key = (owner, kind, name)
        ids = self._ids(key)
        types = self._card_types()
        if ids is not None:
            known = Counter(types[c] for c in ids)
            return ZoneKnowledge(len(ids), known, {t: float(n) for t, n in known.items()})
        size = self.size(owner, kind, name)
        knowledge = None if uniform else self._seat_knowledge()
        if knowledge is None:
            return ZoneKnowledge(size, {}, self._unseen_odds(size, types))
        entries = knowledge.entries.get(key, ())
        known = Counter(types[e] for e in entries if e >= 0)
        return ZoneKnowledge(size, known, knowledge.expected_types(key, types))

    def _card_types(self) -> list[str]:
        """``card_type`` of every card id, computed once per view (a live view's game may
        create cards while the agent decides only if the agent applies moves: it cannot)."""
        cached = self.__dict__.get("_types")
        cards = self._st.cards if self._st is not None else self._attrs
        if cached is not None and len(cached) == len(cards):
            return cached  # type: ignore[no-any-return]
        memo: dict[int, str] = {}
        out = []
        for a in cards:
            t = memo.get(id(a))
            if t is None:
                t = memo[id(a)] = card_type(a)
            out.append(t)
        self.__dict__["_types"] = out
        return out

    def _unseen_odds(self, size: int, types: Sequence[str]) -> dict[str, float]:
        seen: set[int] = set()
        for k in self.locations():
            ids = self._ids(k)
            if ids is not None and k[1] != "mem":
                seen.update(ids)
        unseen = Counter(t for c, t in enumerate(types) if c not in seen)
        total = sum(unseen.values())
        return {t: size * n / total for t, n in unseen.items()} if total else {}

    def determinize(self, rng: random.Random) -> EngineState:
        """A full Gamestate consistent with everything this player knows: every card it
        sees or knows stays where it is, every other card is dealt at random among the
        places the player cannot tell apart (see knowledge.py).  Needs a recorded game
        (``new_game(..., record=True)``) and the decision's options in the view."""
        return self.skeleton().determinize(rng)

    def skeleton(self) -> Skeleton:
        """What ``determinize`` deals into (knowledge.Skeleton), made when first asked."""
        skeleton = self._skeleton
        if skeleton is None:
            st = self._st
            if st is None or self._option_data is None or self.game is None:
                raise UsageError(
                    "this view cannot be determinized: it was taken without the game's "
                    "decision, or from a game that was not recorded"
                )
            skeleton = self._skeleton = Skeleton(st, self.seat, self.game)
        return skeleton

    @property
    def history(self) -> tuple[tuple[Any, ...], ...]:
        """The public events so far (a recorded game only; else empty): moves, with the
        card's attributes when the player saw it leave or arrive (else None); storage
        changes; shuffles; decisions, with the option's label for the player's own."""
        return self.history_since(0)

    def history_since(self, start: int) -> tuple[tuple[Any, ...], ...]:
        """The public events from the ``start``-th on (``history[start:]``, without
        building the events before it)."""
        st = self._st
        if st is None or st.log is None:  # a snapshot, or a world sent with its history
            return (self._history or ())[start:]
        return _public_history(st.log[start:], self.seat, st.cards)

    @property
    def history_length(self) -> int:
        """How many public events there are so far (``len(history)``, cheaply)."""
        log = self._st.log if self._st is not None else None
        return len(log) if log is not None else len(self._history or ())

    # ------------------------------------------------------------ the decision
    @property
    def choice(self) -> Any:
        """The pending decision's choice node (its situation, branches: part of the
        rules, not of the state), or None."""
        return self._option_data[1] if self._option_data is not None else None

    @property
    def raw_options(self) -> Sequence[Any]:
        """The options the agent was given, as the runner passes them to ``choose``."""
        return self._option_data[0] if self._option_data is not None else ()

    @cached_property
    def options(self) -> tuple[OptionView, ...]:
        """The pending decision's options, as this player sees them (same order as the
        options the agent is given)."""
        if self._option_data is None or self.game is None:
            return ()
        options, pending = self._option_data
        ref = weakref.ref(self)
        return tuple(self._describe(o, self.game, pending, i, ref) for i, o in enumerate(options))

    @cached_property
    def option_keys(self) -> tuple[str, ...]:
        """Each option's action-vocabulary key (``Vocabulary.view_keys``: as this player
        may know the option), same order as ``options``; what a strength vector over
        ``vocabulary`` names."""
        if self._option_data is None or self.game is None:
            return ()
        from cardlang.information.vocabulary import Vocabulary

        return tuple(Vocabulary.of(self.game).view_keys(self))

    @cached_property
    def vocabulary(self) -> tuple[str, ...]:
        """The action vocabulary of the decision's situation (``Vocabulary.keys``): the
        entries a strength vector answer scores, in order (empty without a decision)."""
        if self._option_data is None or self.game is None:
            return ()
        from cardlang.information.vocabulary import Vocabulary

        vocabulary = Vocabulary.of(self.game)
        situation = vocabulary.view_situation(self)
        return () if situation is None else tuple(vocabulary.keys(situation))

    @property
    def rules_text(self) -> str:
        """The game file's text (the rules are public; "" for a view made without its
        game)."""
        return self.game.source.text if self.game is not None else ""

    @property
    def game_name(self) -> str:
        """The game file's name as it was loaded ("" for a view made without its game)."""
        return self.game.source.name if self.game is not None else ""

    #: Why the agent's previous answer to this decision was refused, when it is asked
    #: again: only a tournament's sandbox asks again (``--illegal-retries``); None here.
    refusal: str | None = None

    @cached_property
    def option_labels(self) -> tuple[str, ...]:
        """Each option's readable label ("Buy Province ($8)", ``Game.option_text``) as
        this player may read it: a card it cannot see is "a card".  Same order as
        ``options``; for people, never for deciding."""
        if self._option_data is None or self.game is None:
            return ()
        options, pending = self._option_data
        board: Any = self._st if self._st is not None else _SnapshotBoard(self)
        seat = self.seat
        sees_zone = seer(seat)
        return tuple(
            self.game.option_text(
                board, o, pending, mover=seat, sees_card=self._sees_card, sees_zone=sees_zone
            )
            for o in options
        )

    @cached_property
    def option_kinds(self) -> tuple[str | None, ...]:
        """Per option, ``OptionView.kind`` (the first bound card's KIND, or a bound
        location's top card's), computed without describing the whole option."""
        if self._option_data is None or self.game is None:
            return ()
        options = self._option_data[0]
        if is_lazy(options):  # the engine may know them without converting
            known = options.option_kinds(self.seat)
            if known is not None:
                return known
        card_slots, location_slots = self.game.card_slots, self.game.location_slots
        st = self._st
        attrs = st.cards if st is not None else self._attrs
        zones = st.zones if st is not None else self._zones  # hidden ones: checked below
        seat = self.seat
        kinds: list[str | None] = []
        for option in options:
            kind = None
            for fn, arg in option:
                if fn is not None:
                    continue
                slot = arg[0]
                if slot in location_slots:
                    key = arg[1]
                    z = zones.get(key)
                    # can_see, inlined (a bound location's top card: hot)
                    seen = key[1] in OPEN_KINDS or (key[1] == OWNER_KIND and key[0] == seat >= 0)
                    if z and seen:
                        kind = attrs[z[-1]].get("KIND")
                        break
                elif slot in card_slots and self._sees_card(arg[1]):
                    kind = attrs[arg[1]].get("KIND")
                    break
            kinds.append(kind)
        return tuple(kinds)

    def _sees_card(self, card: int) -> bool:
        st = self._st
        if st is not None:
            return can_see(self.seat, st.card_zone[card])
        return card in self._visible_ids

    @cached_property
    def _visible_ids(self) -> frozenset[int]:
        return frozenset(c for ids in self._zones.values() for c in ids)

    def _describe(
        self, option: Sequence[Any], game: Game, pending: Any, index: int, ref: Any
    ) -> OptionView:
        bindings: list[tuple[str, Any]] = []
        cards: list[Attributes | None] = []
        actions: list[Any] = []
        slot_types = game.checked.slot_types
        for fn, arg in option:
            if fn is not None:
                actions.append(arg)
                continue
            slot, value, var = arg
            t = slot_types.get(slot)
            if t == "card":
                attrs = self._attributes(value) if self._sees_card(value) else None
                bindings.append((var, attrs))
                cards.append(attrs)
            elif t in ("location", "mem location"):
                bindings.append((var, value))
                cards.append(self.top(*value))
            else:
                bindings.append((var, value))
        return OptionView(
            branch=pending.branch_of(actions[0] if actions else None),
            bindings=tuple(bindings),
            cards=tuple(cards),
            kinds=tuple(c.get("KIND") if c is not None else None for c in cards),
            action_nodes=tuple(actions),
            source=game.source,
            index=index,
            _view=ref,
        )


class _SnapshotBoard:
    """What labels read of a state (engine/labels.py), from a snapshot view: the cards,
    the locations the seat sees (no register: a label names an unknown owner "a
    player's")."""

    def __init__(self, view: PlayerView) -> None:
        self.cards = view._attrs
        self.zones = view._zones
        self.regs = None
        self.nplayers = view.nplayers
        self.current_seat = view.current_player
        self.mover = view.seat


@dataclass(frozen=True)
class ZoneKnowledge:
    """What a player knows of one location's contents, by card type."""

    size: int
    known: Mapping[str, int]  # cards it knows are there
    expected: Mapping[str, float]  # expected number of each type; sums to ``size``


def _public_history(
    log: Sequence[tuple[Any, ...]], seat: int, cards: Sequence[Mapping[str, Any]]
) -> tuple[tuple[Any, ...], ...]:
    out: list[tuple[Any, ...]] = []
    for event in log:
        kind = event[0]
        if kind == "move":
            _, card, src, dst, at = event
            seen = can_see(seat, src) or can_see(seat, dst)
            out.append(("move", MappingProxyType(cards[card]) if seen else None, src, dst, at))
        elif kind == "remember":
            out.append(("remember", MappingProxyType(cards[event[1]]), event[2]))
        elif kind == "shuffle":
            out.append(("shuffle", event[1]))
        elif kind == "decision":
            _, mover, label, turn, situation = event
            out.append(("decision", mover, label if mover == seat else None, turn, situation))
        else:  # create, set: public as they are
            out.append(event)
    return tuple(out)


def portable_history(events: Sequence[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Public events as plain data (a card's attributes as a dict), for another process."""
    return [
        tuple(dict(x) if isinstance(x, MappingProxyType) else x for x in event) for event in events
    ]


def restored_history(events: Sequence[tuple[Any, ...]]) -> tuple[tuple[Any, ...], ...]:
    """``portable_history``'s events as a view gives them (attributes read-only)."""
    return tuple(
        tuple(MappingProxyType(x) if isinstance(x, dict) else x for x in event) for event in events
    )


def view_of(
    st: EngineState, seat: int, game: Game | None = None, options: Sequence[Any] | None = None
) -> PlayerView:
    """A snapshot of what ``seat`` may know; with ``game`` and the pending decision's
    ``options`` it also describes the options (``PlayerView.options``)."""
    return PlayerView(st, seat, game, options)


def _unkept_references() -> int:
    """``sys.getrefcount`` of an object only a function's local name holds, measured the
    way ``consult`` reads its view's (2 on CPython 3.11: the name and the argument)."""
    probe = object()
    return sys.getrefcount(probe)


_UNKEPT_REFERENCES = _unkept_references()


def consult(
    choose: Callable[[PlayerView, Sequence[Any]], T],
    st: EngineState,
    seat: int,
    game: Game,
    options: Sequence[Any],
    limits: Limits | None = None,
    history: tuple[tuple[Any, ...], ...] | None = None,
) -> T:
    """``choose(view, options)`` with a live view of ``st`` for ``seat`` (``limits``: the
    game's, for the view's ``master()``; ``history``: the public history, for a state
    that keeps no log).

    When it returns (or raises), the view is closed if anyone still holds it (the agent
    kept it, or a traceback does), so it never shows a later state; a view no one kept is
    simply dropped, at no cost.  Its reference count tells the two apart: this function's
    own reference and getrefcount's argument are the only ones left when no one kept it
    (CPython's count; cheaper than the weak reference this runs at every decision).
    """
    view = PlayerView.live(st, seat, game, options, limits, history)
    try:
        return choose(view, options)
    finally:
        if sys.getrefcount(view) > _UNKEPT_REFERENCES:
            view.close()


if TYPE_CHECKING:  # mypy holds the view to the protocol agents are written against

    def _a_player_view_is_an_agent_view(view: PlayerView) -> AgentView:
        return view
