"""What each player knows about where the hidden cards are, and determinizations.

Pipeline position: beside the Gamemaster, in the trusted core.  A ``KnowledgeTracker``
reads the event log a Gamestate keeps when it is recorded (``new_game(record=True)``):
every creation, move (with the position the card took), shuffle and remembered card.
From it, it keeps for every seat the *entries* of every location, aligned with the
location's cards: the card's id where the seat knows which card lies there, else a token
of a *pool*.

A pool is a group of cards whose joint composition the seat knows but whose places it does
not: its *members* (card ids, or tokens of older pools) are spread, uniformly at random as
far as the seat can tell, over its *places* (the pool's tokens, in locations or in newer
pools' member lists; always as many places as members).  The rules of the events:

* a card created is known to everyone, where it lies (the rules say what is created, in
  what order);
* a card moved keeps its entry: a hidden card moved between locations hidden from the seat
  stays a token of the same pool, a known card stays known; a card that lands in, or
  leaves, a location the seat sees becomes known (its token is *revealed*: the card leaves
  its pool, and if it came through an older pool's token held inside this one, that pool
  too);
* shuffling a location the seat does not see makes one new pool of its entries (known
  cards and tokens alike): the seat still knows what is in the location, not where;
* a remembered card (mem locations are open) becomes known to everyone where it lies.

So a card seen and then put into a hidden location stays known there (a revealed card
put onto a deck), an opponent's hand and deck are dealt only from the cards that went in
(in Dominion: only from the cards that opponent owns), and a card seen in a trick is never
dealt back into a hand.  ``determinize`` deals each pool's members into its places at
random, oldest pool first, and builds a full Gamestate from that; it reads nothing of the
true state that the seat could not know (see ``Skeleton``).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from cardlang.engine.frames import (
    CALL,
    F_CALL_LOW,
    F_CALL_SAVED,
    F_KIND,
    F_LOOP_ITEMS,
    F_NODE,
    F_PICKS,
    LOOP,
    SECRET,
)
from cardlang.engine.owners import ZoneKey
from cardlang.engine.picks import blank_picks, hide_picks, pick_option_count, set_pick
from cardlang.engine.protocol import EngineState, WorldDealingEngine, worlds_dealt_by
from cardlang.engine.state import MASK64, Gamestate
from cardlang.errors import UsageError
from cardlang.information.visibility import can_see
from cardlang.language import types as T

if TYPE_CHECKING:
    from cardlang.engine.game import Game


def is_token(entry: int) -> bool:
    return entry < 0


def token_of(pool: int) -> int:
    """The entry that stands for an unknown member of ``pool`` (negative: never an id)."""
    return -1 - pool


def pool_of(token: int) -> int:
    return -1 - token


class SeatKnowledge:
    """One seat's knowledge: per location its entries, and the pools' members."""

    __slots__ = ("seat", "entries", "members", "pool_of_card")

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.entries: dict[ZoneKey, list[int]] = {}
        self.members: list[list[int]] = []  # per pool: card ids and older pools' tokens
        self.pool_of_card: dict[int, int] = {}  # a card id -> the pool listing it

    def copy(self) -> SeatKnowledge:
        other = SeatKnowledge(self.seat)
        other.entries = {k: v[:] for k, v in self.entries.items()}
        other.members = [m[:] for m in self.members]
        other.pool_of_card = dict(self.pool_of_card)
        return other

    # ------------------------------------------------------------ events
    def new_pool(self, members: list[int]) -> int:
        pool = len(self.members)
        self.members.append(members)
        for m in members:
            if m >= 0:
                self.pool_of_card[m] = pool
        return pool

    def shuffle(self, key: ZoneKey) -> None:
        entries = self.entries.get(key)
        if not entries or len(entries) < 2:
            return
        if is_token(entries[0]) and len(set(entries)) == 1:
            pool = pool_of(entries[0])
            if len(self.members[pool]) == len(entries):  # the whole pool is here already
                return
        pool = self.new_pool(list(entries))
        self.entries[key] = [token_of(pool)] * len(entries)

    def reveal(self, token: int, card: int) -> None:
        """The unknown member behind ``token`` is ``card``: take it out of the pools."""
        pool = pool_of(token)
        members = self.members[pool]
        if self.pool_of_card.get(card) == pool:
            members.remove(card)
            del self.pool_of_card[card]
            return
        target = self.pool_of_card.get(card)
        for i, m in enumerate(members):
            if is_token(m) and target is not None and self._reaches(pool_of(m), target):
                del members[i]
                self.reveal(m, card)
                return
        raise AssertionError(f"card {card} cannot come from pool {pool}")  # a tracker bug

    def _reaches(self, pool: int, target: int) -> bool:
        if pool == target:
            return True
        if pool < target:  # members are older than the pool holding them
            return False
        return any(is_token(m) and self._reaches(pool_of(m), target) for m in self.members[pool])

    # ------------------------------------------------------------ reading
    def expected_types(self, key: ZoneKey, type_of: Sequence[str]) -> dict[str, float]:
        """Expected number of cards of each type in a location (known cards count 1)."""
        out: dict[str, float] = {}
        tokens: dict[int, int] = {}  # pool -> how many of its places are here
        for e in self.entries.get(key, ()):
            if e >= 0:
                t = type_of[e]
                out[t] = out.get(t, 0.0) + 1.0
            else:
                tokens[e] = tokens.get(e, 0) + 1
        cache: dict[int, dict[str, float]] = {}
        for token, count in tokens.items():
            for t, share in self._pool_distribution(pool_of(token), type_of, cache).items():
                out[t] = out.get(t, 0.0) + count * share
        return out

    def _pool_distribution(
        self, pool: int, type_of: Sequence[str], cache: dict[int, dict[str, float]]
    ) -> dict[str, float]:
        """The type of one unknown member of ``pool``: a probability per type."""
        found = cache.get(pool)
        if found is not None:
            return found
        members = self.members[pool]
        dist: dict[str, float] = {}
        weight = 1.0 / len(members) if members else 0.0
        for m in members:
            if m >= 0:
                dist[type_of[m]] = dist.get(type_of[m], 0.0) + weight
            else:
                for t, p in self._pool_distribution(pool_of(m), type_of, cache).items():
                    dist[t] = dist.get(t, 0.0) + weight * p
        cache[pool] = dist
        return dist


class KnowledgeTracker:
    """Every seat's knowledge, brought up to date from a recorded game's event log."""

    __slots__ = ("seats", "zones", "where", "next_card", "cursor")

    def __init__(self, nplayers: int) -> None:
        self.seats = [SeatKnowledge(p) for p in range(nplayers)]
        self.zones: dict[ZoneKey, list[int]] = {}  # the true locations, replayed
        self.where: dict[int, ZoneKey] = {}
        self.next_card = 0
        self.cursor = 0

    @classmethod
    def of(cls, st: EngineState) -> KnowledgeTracker:
        """The state's tracker, up to date (made on first use, then kept on the state, in
        its ``tracker`` slot)."""
        if st.log is None:
            raise UsageError(
                "knowledge of hidden cards needs a recorded game: new_game(..., record=True) "
                "(the runner records games whose agents declare Capabilities(knowledge=True))"
            )
        tracker = st.tracker
        if not isinstance(tracker, KnowledgeTracker) or len(tracker.seats) != st.nplayers:
            tracker = st.tracker = cls(st.nplayers)
        tracker.update(st.log)
        return tracker

    def update(self, log: Sequence[tuple[Any, ...]]) -> None:
        for i in range(self.cursor, len(log)):
            event = log[i]
            kind = event[0]
            if kind == "move":
                self._move(event[1], event[2], event[3], event[4])
            elif kind == "create":
                self._create(event[1], event[2])
            elif kind == "shuffle":
                self._shuffle(event[1], event[2])
            elif kind == "remember":
                self._remember(event[1])
        self.cursor = len(log)

    def _create(self, count: int, key: ZoneKey) -> None:
        ids = range(self.next_card, self.next_card + count)
        self.next_card += count
        self.zones.setdefault(key, []).extend(ids)
        for c in ids:
            self.where[c] = key
        for seat in self.seats:
            seat.entries.setdefault(key, []).extend(ids)

    def _move(self, card: int, src: ZoneKey, dst: ZoneKey, at: int) -> None:
        z = self.zones[src]
        i = len(z) - 1 if z[-1] == card else z.index(card)
        del z[i]
        self.zones.setdefault(dst, []).insert(at, card)
        self.where[card] = dst
        for seat in self.seats:
            entry = seat.entries[src].pop(i)
            if entry < 0 and (can_see(seat.seat, dst) or can_see(seat.seat, src)):
                seat.reveal(entry, card)
                entry = card
            seat.entries.setdefault(dst, []).insert(at, entry)

    def _shuffle(self, key: ZoneKey, order: tuple[int, ...]) -> None:
        self.zones[key] = list(order)
        for seat in self.seats:
            if can_see(seat.seat, key):
                seat.entries[key] = list(order)
            else:
                seat.shuffle(key)

    def _remember(self, card: int) -> None:
        key = self.where.get(card)
        if key is None:
            return
        i = self.zones[key].index(card)
        for seat in self.seats:
            entry = seat.entries[key][i]
            if entry < 0:
                seat.reveal(entry, card)
                seat.entries[key][i] = card


def seat_knowledge(st: EngineState, seat: int) -> SeatKnowledge | None:
    """What ``seat`` knows in ``st``: from the tracker of a recorded game, or the knowledge
    a determinization was made with (``attach_knowledge``: valid until a move is applied);
    None when neither exists."""
    if not 0 <= seat < st.nplayers:
        return None
    if st.log is not None:
        return KnowledgeTracker.of(st).seats[seat]
    attached = st.attached
    if (
        isinstance(attached, AttachedKnowledge)
        and attached.decisions == st.decisions
        and attached.knowledge.seat == seat
    ):
        return attached.knowledge
    return None


class AttachedKnowledge(NamedTuple):
    """What one seat knows of an unrecorded state (a determinization), kept in the
    state's ``attached`` slot; valid while the state's decision count is ``decisions``."""

    decisions: int
    knowledge: SeatKnowledge


def attach_knowledge(st: EngineState, knowledge: SeatKnowledge) -> None:
    """Give an unrecorded state (a determinization) what one seat knows of it.  It holds
    until a move is applied: it is stamped with the decision count, which every move
    changes, so nothing on the Gamemaster's hot path has to clear it."""
    st.attached = AttachedKnowledge(st.decisions, knowledge)


# ---------------------------------------------------------------- determinization


@dataclass(frozen=True)
class SlotRef:
    """A reference (a variable, a loop's list) to the card at a place the seat cannot
    identify: resolved to whatever card a determinization deals there."""

    key: ZoneKey
    index: int


class Skeleton:
    """A state as one seat may know it: the true state's public parts, every hidden
    place replaced by the seat's entry, references to unidentified cards replaced by
    ``SlotRef``s, no RNG.  ``determinize`` fills it in.  Built from the true state once;
    it holds nothing the seat could not know."""

    def __init__(self, st: EngineState, seat: int, game: Game) -> None:
        found = seat_knowledge(st, seat)
        if found is None:
            KnowledgeTracker.of(st)  # raises the explanation
            raise UsageError(f"seat {seat} does not play this game")
        knowledge = found.copy()
        self.seat = seat
        self.game = game
        self.knowledge = knowledge
        self.places = _places(knowledge)
        self.engine_dealt: _EngineDealtSkeleton | None = None
        engine = worlds_dealt_by(st)
        if engine is not None:  # an engine that builds the worlds itself (the native one)
            self.engine_dealt = _EngineDealtSkeleton(st, seat, knowledge, engine)
            return
        st = cast(Gamestate, st)  # the Python engine's: copied and dealt here
        log, st.log = st.log, None  # not copied: the skeleton keeps no history
        try:
            base = st.clone()
        finally:
            st.log = log
        base.rng = 0
        base.options = None
        refs: dict[int, SlotRef] = {}  # true id of an unidentified card -> its place
        for key, entries, unidentified in _hidden_places(st, seat, knowledge):
            for i, c in unidentified:
                refs[c] = SlotRef(key, i)
                base.card_zone[c] = None  # type: ignore[call-overload]  # dealt later
            base.zones[key] = list(entries)
        self.has_refs = _map_references(base, game, lambda c: refs.get(c, c))
        hide_picks(base, seat)  # the others' secret picks: drawn again in each world
        self.base: Gamestate = base

    def determinize(self, rng: random.Random) -> EngineState:
        if self.engine_dealt is not None:
            return self.engine_dealt.determinize(self, rng)  # type: ignore[no-any-return]
        st = self.base.clone()
        self._deal(rng, st.zones, st.card_zone)
        if self.has_refs:
            _map_references(st, self.game, lambda c: _resolve(c, st))
        st.rng = rng.getrandbits(64) & MASK64
        st.options = None
        st.indexed = {}
        _draw_picks(
            rng,
            blank_picks(st),
            lambda k: pick_option_count(st, k),
            lambda k, i: set_pick(st, k, i),
        )
        # the seat knows in this world what it knew in the real one (until a move is
        # applied), so views of it show the same
        attach_knowledge(st, self.knowledge)
        return st

    def _deal(self, rng: random.Random, zones: Any, card_zone: Any) -> None:
        """Deal each pool's members, shuffled, to its places (oldest pool first: a pool's
        members may be places of older pools)."""
        members = [m[:] for m in self.knowledge.members]
        for pool, cards in enumerate(members):
            rng.shuffle(cards)
            for (where, i), card in zip(self.places[pool], cards, strict=True):
                if isinstance(where, int):
                    members[where][i] = card
                else:
                    zones[where][i] = card
                    if card_zone is not None:
                        card_zone[card] = where


def _hidden_places(
    st: Any, seat: int, knowledge: SeatKnowledge
) -> Iterator[tuple[ZoneKey, list[int], list[tuple[int, int]]]]:
    """Per location the seat cannot see: its key, the seat's entries for it, and the
    (position, true card) of every card there it cannot identify."""
    for key, cards in st.zones.items():
        if key[1] == "mem" or can_see(seat, key):
            continue
        entries = knowledge.entries.get(key, [])  # made empty, without an event
        if len(entries) != len(cards):
            raise AssertionError(f"knowledge of {key} is out of step with the game")
        unidentified = [
            (i, c) for i, (c, e) in enumerate(zip(cards, entries, strict=True)) if e < 0
        ]
        yield key, entries, unidentified


#: Stand-ins for unidentified cards in a native skeleton's flow (its registers, loops and
#: calls): far above any card id, never played, mapped to the dealt cards at each
#: determinization.
_PLACEHOLDER = 1 << 40


class _EngineDealtSkeleton:
    """The skeleton of a state whose engine deals worlds itself (``traits.deals_worlds``:
    the native engine's): the hidden locations emptied, and every reference the
    flow holds to an unidentified card replaced by a stand-in for its place, so that it
    holds nothing the seat could not know (as ``Skeleton`` does for a Python state).  A
    determinization deals into copies of the hidden locations' entries and has the
    engine build the state (``WorldDealingEngine.dealt_state``)."""

    def __init__(self, st: Any, seat: int, knowledge: SeatKnowledge, engine: Any) -> None:
        self.engine: WorldDealingEngine = engine
        self.seed = st.seed
        self.refs: list[tuple[ZoneKey, int]] = []  # the place of each stand-in
        self.hidden: dict[ZoneKey, list[int]] = {}  # hidden location -> its entries
        stand_ins: dict[int, int] = {}
        unplaced: list[int] = []
        for key, entries, unidentified in _hidden_places(st, seat, knowledge):
            for i, c in unidentified:
                stand_ins[c] = _PLACEHOLDER + len(self.refs)
                self.refs.append((key, i))
                unplaced.append(c)
            self.hidden[key] = list(entries)
        emptied: list[tuple[ZoneKey, list[int]]] = [(key, []) for key in self.hidden]
        self.base = engine.skeleton_base(st, emptied, stand_ins, unplaced, seat)
        self._plan: Any = None  # plan(), made when first asked

    def plan(self, skeleton: Skeleton) -> Any:
        """The deal as the engine's own search makes it (native/src/search.h: DealPlan):
        ``determinize`` flattened to numbers, places by their index."""
        if self._plan is None:
            index = {key: h for h, key in enumerate(self.hidden)}

            def place(where: Any, i: int) -> tuple[int, int]:
                return (-1 - where, i) if isinstance(where, int) else (index[where], i)

            self._plan = self.engine.deal_plan(
                list(self.hidden.items()),
                skeleton.knowledge.members,
                [[place(where, i) for where, i in pool] for pool in skeleton.places],
                [(index[key], i) for key, i in self.refs],
            )
        return self._plan

    def determinize(self, skeleton: Skeleton, rng: random.Random) -> Any:
        zones = {key: entries[:] for key, entries in self.hidden.items()}
        skeleton._deal(rng, zones, None)
        refs = {_PLACEHOLDER + j: zones[key][i] for j, (key, i) in enumerate(self.refs)}
        state_rng = rng.getrandbits(64) & MASK64
        # every secret pick the seat does not know drawn as _draw_picks draws it
        st = self.engine.dealt_state(
            self.base, list(zones.items()), refs, state_rng, rng.randrange, self.seed
        )
        attach_knowledge(st, skeleton.knowledge)
        return st


def _draw_picks(rng: random.Random, blank: list[int], count: Any, choose: Any) -> None:
    """Draw every secret pick the seat does not know, uniformly among the options its
    choice lists in this world (what a determinization assumes of an unseen pick, as it
    assumes every unseen card equally likely).  Both engines draw alike."""
    for k in blank:
        choose(k, rng.randrange(count(k)))


def _resolve(value: Any, st: EngineState) -> Any:
    if isinstance(value, SlotRef):
        return st.zones[value.key][value.index]
    return value


def _places(knowledge: SeatKnowledge) -> list[list[tuple[Any, int]]]:
    """Per pool, its places: (location key, index) in a location, (pool, index) in a newer
    pool's member list."""
    places: list[list[tuple[Any, int]]] = [[] for _ in knowledge.members]
    for key, entries in knowledge.entries.items():
        for i, e in enumerate(entries):
            if e < 0:
                places[pool_of(e)].append((key, i))
    for q, pool_members in enumerate(knowledge.members):
        for i, m in enumerate(pool_members):
            if m < 0:
                places[pool_of(m)].append((q, i))
    for pool, pool_places in enumerate(places):
        if len(pool_places) != len(knowledge.members[pool]):
            raise AssertionError(f"pool {pool} is out of step")  # a tracker bug
    return places


def _map_references(st: Gamestate, game: Game, fn: Any) -> bool:
    """Apply ``fn`` to every card id the flow refers to: card variables (and collections
    of cards), loops over cards, saved registers of calls.  Says whether anything
    changed."""
    types = game.checked.slot_types
    changed = False

    def mapped(slot: int, value: Any) -> Any:
        nonlocal changed
        t = types.get(slot)
        if value is None:
            return value
        if t == T.CARD:
            new = fn(value)
        elif t == T.CARDS and isinstance(value, tuple | list):
            new = tuple(fn(c) for c in value)
        else:
            return value
        changed = changed or new != value
        return new

    st.regs = [mapped(slot, v) for slot, v in enumerate(st.regs)]
    for frame in st.stack:  # the layouts: cardlang.engine.frames
        kind = frame[F_KIND]
        if kind == LOOP and types.get(frame[F_NODE].slot) == T.CARD:
            new = tuple(fn(c) for c in frame[F_LOOP_ITEMS])
            changed = changed or new != frame[F_LOOP_ITEMS]
            frame[F_LOOP_ITEMS] = new
        elif kind == CALL:
            low = frame[F_CALL_LOW]
            saved = frame[F_CALL_SAVED]
            frame[F_CALL_SAVED] = [mapped(low + i, v) for i, v in enumerate(saved)]
        elif kind == SECRET:
            frame[F_PICKS] = tuple(
                (
                    mover,
                    choice,
                    None if option is None else _map_option(option, mapped),
                    tuple(mapped(slot, v) for slot, v in enumerate(regs)),
                )
                for mover, choice, option, regs in frame[F_PICKS]
            )
    return changed


def _map_option(option: Any, mapped: Any) -> Any:
    """An option (control.Option) with the values of its bindings mapped."""
    return tuple(
        (None, (arg[0], mapped(arg[0], arg[1]), *arg[2:])) if fn is None else (fn, arg)
        for fn, arg in option
    )


def determinize(st: EngineState, seat: int, game: Game, rng: random.Random) -> EngineState:
    """A full state consistent with what ``seat`` knows of ``st`` (see the module doc)."""
    return Skeleton(st, seat, game).determinize(rng)
