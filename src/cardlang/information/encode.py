"""Encoders: a PlayerView as numbers, for neural agents; or a state, for batches.

Pipeline position: information, after views.py and vocabulary.py, before learning agents.  From the
compiled game alone, each situation gets a fixed *layout*: a float32 vector whose every
position means the same thing in every game of the ruleset (and its parameters).  A view
encodes to ``(situation id, vector, mask)``; the mask marks the situation's vocabulary
keys (vocabulary.py) that the decision's options have.

Layout, in order (``cardlang describe FILE`` prints it for a game):

1. ``current``: one-hot, the seat offset of the current player (0: the viewer).
2. ``storage``: every integer storage, game first, then each seat from the viewer on
   (``P+0`` is the viewer, ``P+1`` the next seat), then each team; raw values.
3. ``zone``: every location, the game's first, then each seat's, then each team's.  A
   location the viewer sees (vloc and mem; its own iloc) has its ``size`` and its
   ``cards`` (per card type, how many); one it does not see has its ``size``, the cards it
   ``known``s to lie there and the ``expected`` number of each type
   (``PlayerView.zone_knowledge``).
4. situation-specific: ``top`` (or ``bottom``) one-hot of the card type at that end of a
   location the viewer sees, for each location whose top card the situation's choices
   read (the card a Library player may set aside, the discard pile a Crazy Eights
   player must match).

Card types are the vocabulary's (``language.kinds.card_type``, the kinds and deck cards the game
can create), in its order.  Seats are relative to the viewer throughout; teams are by
number.  Which locations and storages exist is read from the rules: every location and
integer storage the game file names, with names known before the game (literals,
declared lists, loop variables over them, ``(attr KIND ..)``, ``(cardatt KEY ..)``), plus
those that exist after the setup of ``SETUP_RUNS`` games (seeds 0, 1, ...): this bounds
indexed locations (``SUPPLY 0..16``) and names computed at run time.  A location or
storage made later under a name no rule writes literally is not encoded.

Vectors of different situations differ only in the situation-specific part, at the end:
``Encoder.width`` is the longest; batches are padded with zeros to it, and masks with
False to ``Encoder.n_actions``, the largest vocabulary.  The vector depends only on what
the view shows, never on hidden cards.

Every observation is written here: ``Encoder.encode`` from a view, and
``Encoder.state_writer()`` (``StateWriter``) straight from the states of unrecorded
games, for ``VectorEnv``'s batches (no view made; the layout's walk planned once per
seat), the same vector, value for value.  The native engine's lockstep batch writes the
same layout in C++ (env/batch.py sends it the writer's plans).
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from cardlang.engine.owners import GAME_OWNER, ZoneKey, team_owner
from cardlang.engine.protocol import Engine
from cardlang.information.views import PlayerView
from cardlang.information.visibility import OPEN_KINDS, OWNER_KIND, owner_of_relative
from cardlang.information.vocabulary import Vocabulary
from cardlang.language import ast
from cardlang.language import types as T
from cardlang.language.kinds import card_type
from cardlang.language.statics import StaticNames, all_nodes

if TYPE_CHECKING:
    from cardlang.engine.game import Game

#: Games whose setup is run to find indexed locations and storages with computed names.
SETUP_RUNS = 4


@dataclass(frozen=True)
class Block:
    """A run of positions of a layout: ``what`` (current, storage, size, cards, known,
    expected, top, bottom) of ``owner``'s ``name`` (a location or a storage); ``labels``
    name each position (a card type, a storage name, a seat)."""

    start: int
    what: str
    owner: str  # "game", "P+k" (k seats after the viewer) or "Tt" (team t)
    name: str  # "HAND(iloc)", a storage's name, or "" for the header
    labels: tuple[str, ...]

    @property
    def stop(self) -> int:
        return self.start + len(self.labels)


@dataclass(frozen=True)
class Layout:
    """The vector of one situation: its blocks in order, and its length."""

    situation: str
    blocks: tuple[Block, ...]

    @property
    def size(self) -> int:
        return self.blocks[-1].stop if self.blocks else 0


@dataclass(frozen=True)
class _Zone:
    """A location relative to the viewer: the owner's class and offset, kind, name."""

    owner: str  # "game", "player" or "team"
    offset: int  # seat offset from the viewer, or the team number
    kind: str
    name: str

    @property
    def label(self) -> str:
        return f"{self.name}({self.kind})"

    @property
    def owner_label(self) -> str:
        return {"game": "game", "player": f"P+{self.offset}", "team": f"T{self.offset}"}[self.owner]

    @property
    def seen(self) -> bool:
        """Whether the viewer sees it (views.can_see, with the viewer at offset 0)."""
        return self.kind in ("vloc", "mem") or (
            self.kind == "iloc" and self.owner == "player" and self.offset == 0
        )

    def key(self, seat: int, nplayers: int) -> ZoneKey:
        if self.owner == "game":
            return (GAME_OWNER, self.kind, self.name)
        if self.owner == "player":
            return ((seat + self.offset) % nplayers, self.kind, self.name)
        return (team_owner(self.offset), self.kind, self.name)


class Encoder:
    """Layouts of a game's situations, and the encoding of views into them."""

    _cache: weakref.WeakKeyDictionary[Game, Encoder] = weakref.WeakKeyDictionary()

    def __init__(self, game: Game) -> None:
        self.vocabulary = Vocabulary.of(game)  # (no reference to the game: see Vocabulary)
        self.nplayers = game.nplayers
        self.card_types = self.vocabulary.card_types
        self._type_index = {t: i for i, t in enumerate(self.card_types)}
        found = _Found(game)
        self._zones = found.zones()
        self._storages = found.storages()
        common = self._common_blocks()
        self.layouts: tuple[Layout, ...] = tuple(
            Layout(s, common + self._situation_blocks(s, found, _end(common)))
            for s in self.vocabulary.situations
        )
        self.width = max((lay.size for lay in self.layouts), default=_end(common))
        self.n_actions = max((len(self.vocabulary.keys(s)) for s in self.situations), default=0)
        self.common_blocks = common  # the part every situation's layout starts with

    @classmethod
    def of(cls, game: Game) -> Encoder:
        """The game's encoder, built on first use and kept as long as the game."""
        enc = cls._cache.get(game)
        if enc is None:
            enc = cls._cache[game] = cls(game)
        return enc

    @property
    def situations(self) -> tuple[str, ...]:
        return self.vocabulary.situations

    @property
    def zones(self) -> tuple[_Zone, ...]:
        """Every location the layout has, relative to the viewer, in layout order."""
        return tuple(self._zones)

    @property
    def storages(self) -> tuple[tuple[str, str], ...]:
        """Every integer storage as (owner label, name), in layout order."""
        return tuple(self._storages)

    def layout(self, situation: str) -> Layout:
        return self.layouts[self.vocabulary.situation_id(situation)]

    # ------------------------------------------------------------ building layouts
    def _common_blocks(self) -> tuple[Block, ...]:
        blocks: list[Block] = []
        at = 0

        def add(what: str, owner: str, name: str, labels: Sequence[str]) -> None:
            nonlocal at
            blocks.append(Block(at, what, owner, name, tuple(labels)))
            at += len(labels)

        add("current", "", "", [f"P+{k}" for k in range(self.nplayers)])
        for owner, names in _group(self._storages):
            add("storage", owner, "", names)
        types = self.card_types
        for z in self._zones:
            add("size", z.owner_label, z.label, ["cards"])
            if z.seen:
                add("cards", z.owner_label, z.label, types)
            else:
                add("known", z.owner_label, z.label, types)
                add("expected", z.owner_label, z.label, types)
        return tuple(blocks)

    def _situation_blocks(self, situation: str, found: _Found, at: int) -> tuple[Block, ...]:
        ends = found.ends_read(self.vocabulary, situation)
        blocks: list[Block] = []
        for z in self._zones:
            for end in ("top", "bottom"):
                if z.seen and (z.kind, z.name, end) in ends:
                    blocks.append(Block(at, end, z.owner_label, z.label, self.card_types))
                    at += len(self.card_types)
        return tuple(blocks)

    # ------------------------------------------------------------ encoding
    def state_writer(self) -> StateWriter:
        """This layout written straight from states, for batches of unrecorded games
        (``VectorEnv``): the same vectors as ``encode`` gives their views."""
        return StateWriter(self)

    def encode(self, view: PlayerView) -> tuple[int, np.ndarray, np.ndarray]:
        """``(situation id, vector, mask)`` of the decision a view shows; the vector has
        its situation's length, the mask one entry per key of its vocabulary."""
        sid = self._situation_id(view)
        layout = self.layouts[sid]
        vector = np.zeros(layout.size, dtype=np.float32)
        mask = np.zeros(len(self.vocabulary.keys(layout.situation)), dtype=np.bool_)
        self._fill(view, layout, vector, mask)
        return sid, vector, mask

    def encode_padded(self, view: PlayerView) -> tuple[np.ndarray, np.ndarray]:
        """``(vector, mask)`` of a view, padded to ``width`` and ``n_actions`` (as
        ``encode_batch`` pads them): what an RL environment observes.  A view that shows
        no decision (a finished game) has only the blocks every situation shares
        (``common_blocks``) and an all-False mask."""
        vector = np.zeros(self.width, dtype=np.float32)
        mask = np.zeros(self.n_actions, dtype=np.bool_)
        situation = self.vocabulary.view_situation(view)
        if situation is None:
            self._fill(view, Layout("", self.common_blocks), vector, mask[:0])
        else:
            layout = self.layouts[self.vocabulary.situation_id(situation)]
            self._fill(view, layout, vector, mask)
        return vector, mask

    def encode_batch(
        self,
        views: Sequence[PlayerView],
        out_situations: np.ndarray,
        out_vectors: np.ndarray,
        out_masks: np.ndarray,
    ) -> None:
        """Encode views into preallocated rows (see ``buffers``): row i of each output
        is view i, vectors padded with zeros to ``width``, masks with False."""
        for i, view in enumerate(views):
            sid = self._situation_id(view)
            layout = self.layouts[sid]
            out_situations[i] = sid
            out_vectors[i] = 0.0
            out_masks[i] = False
            self._fill(view, layout, out_vectors[i], out_masks[i])

    def buffers(self, batch: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Arrays for ``encode_batch``: situations (int64), vectors (float32, ``width``
        columns), masks (bool, ``n_actions`` columns)."""
        return (
            np.zeros(batch, dtype=np.int64),
            np.zeros((batch, self.width), dtype=np.float32),
            np.zeros((batch, self.n_actions), dtype=np.bool_),
        )

    def _situation_id(self, view: PlayerView) -> int:
        situation = self.vocabulary.view_situation(view)
        if situation is None:
            raise ValueError("this view shows no decision (take it with the game's options)")
        return self.vocabulary.situation_id(situation)

    def _fill(self, view: PlayerView, layout: Layout, vector: np.ndarray, mask: np.ndarray) -> None:
        seat, n = view.seat, self.nplayers
        types = self._type_index
        blocks = layout.blocks
        vector[blocks[0].start + (view.current_player - seat) % n] = 1.0
        zones = iter(self._zones)
        knowledge = None
        for block in blocks[1:]:
            what = block.what
            if what == "storage":
                self._fill_storages(view, block, vector)
                continue
            if what == "size":
                knowledge = view.zone_knowledge(*next(zones).key(seat, n))
                vector[block.start] = knowledge.size
            elif what in ("cards", "known"):
                _put(vector, block.start, knowledge.known, types)  # type: ignore[union-attr]
            elif what == "expected":
                _put(vector, block.start, knowledge.expected, types)  # type: ignore[union-attr]
            else:  # top / bottom of a location the viewer sees
                self._fill_end(view, block, vector)
        for i in self.vocabulary.view_indices(view):
            if i is not None:
                mask[i] = True

    def _fill_storages(self, view: PlayerView, block: Block, vector: np.ndarray) -> None:
        owner = owner_of_relative(block.owner, view.seat, self.nplayers)
        for i, name in enumerate(block.labels):
            vector[block.start + i] = view.storage(owner, name)

    def _fill_end(self, view: PlayerView, block: Block, vector: np.ndarray) -> None:
        owner = owner_of_relative(block.owner, view.seat, self.nplayers)
        name, _, kind = block.name[:-1].partition("(")
        cards = view.cards(owner, kind, name)
        if cards:
            card = cards[-1] if block.what == "top" else cards[0]
            i = self._type_index.get(card_type(card))
            if i is not None:
                vector[block.start + i] = 1.0


def _put(vector: np.ndarray, start: int, counts: Any, types: dict[str, int]) -> None:
    for t, n in counts.items():
        i = types.get(t)
        if i is not None:
            vector[start + i] = n


def _end(blocks: Sequence[Block]) -> int:
    return blocks[-1].stop if blocks else 0


def _group(storages: Sequence[tuple[str, str]]) -> list[tuple[str, list[str]]]:
    """(owner, name) pairs -> per owner, in first-seen order, its names."""
    groups: dict[str, list[str]] = {}
    for owner, name in storages:
        groups.setdefault(owner, []).append(name)
    return list(groups.items())


# ---------------------------------------------------------------- what the rules name


class _Found:
    """The locations and storages of a game: named by its rules, or made by its setup."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.checked = game.checked
        self.names = StaticNames(game.checked)
        self.nplayers = game.nplayers
        self.setup_zones: list[ZoneKey] = []
        self.setup_ints: list[tuple[int, str]] = []
        self.nteams = 0
        self._run_setups()

    def _run_setups(self) -> None:
        master = self.game.master()
        zones: dict[ZoneKey, None] = {}
        ints: dict[tuple[int, str], None] = {}
        for seed in range(SETUP_RUNS):
            st = master.new_game(seed)
            zones.update(dict.fromkeys(st.zones))
            ints.update(dict.fromkeys(st.ints))
            self.nteams = max(self.nteams, len(st.teams))
        self.setup_zones = list(zones)
        self.setup_ints = list(ints)

    def _owner_class(self, node: ast.Node) -> str | None:
        t = self.checked.type_of(node)
        if isinstance(node, ast.GameOwner) or t == T.GAME:
            return "game"
        return {T.PLAYER: "player", T.TEAM: "team"}.get(t)

    # ------------------------------------------------------------ locations
    def zones(self) -> list[_Zone]:
        """Every location, game first, then per seat offset, then per team."""
        named: dict[tuple[str, str, str], None] = {}  # (owner class, kind, name)
        families: set[tuple[str, str, str]] = set()
        for node in all_nodes(self.checked.game):
            if isinstance(node, ast.Location | ast.IndexedLocations):
                owner = self._owner_class(node.owner)
                names = self.names.strings(node.name)
                if owner is None or names is None:
                    continue
                index = node.index if isinstance(node, ast.Location) else None
                for name in names:
                    if isinstance(node, ast.IndexedLocations) or index is not None:
                        families.add((owner, node.kind, name))
                    if index is None or isinstance(index, ast.IntLiteral):
                        i = index.value if isinstance(index, ast.IntLiteral) else 0
                        named[(owner, node.kind, f"{name}#{i}" if i else name)] = None
        for key in self.setup_zones:  # bounds of families, names computed at run time
            named[(_class_of(key[0]), key[1], key[2])] = None
        return self._expand(named)

    def _expand(self, named: dict[tuple[str, str, str], None]) -> list[_Zone]:
        def of(owner: str, count: int) -> list[_Zone]:
            return [_Zone(owner, i, k, n) for i in range(count) for o, k, n in named if o == owner]

        game, players = of("game", 1), of("player", self.nplayers)
        teams = of("team", self.nteams)
        return _index_order(game) + _index_order(players) + _index_order(teams)

    # ------------------------------------------------------------ storages
    def storages(self) -> list[tuple[str, str]]:
        """Every integer storage as (owner label, name): game, seats, teams."""
        named: dict[tuple[str, str], None] = {}
        for node in all_nodes(self.checked.game):
            if isinstance(node, ast.Storage) and node.kind == "sto":
                owner = self._owner_class(node.owner)
                names = self.names.strings(node.name)
                if owner is not None and names is not None:
                    named.update({(owner, name): None for name in names})
        for owner_id, name in self.setup_ints:
            named[(_class_of(owner_id), name)] = None
        out = [("game", n) for o, n in named if o == "game"]
        out += [(f"P+{p}", n) for p in range(self.nplayers) for o, n in named if o == "player"]
        out += [(f"T{t}", n) for t in range(self.nteams) for o, n in named if o == "team"]
        return out

    # ------------------------------------------------------------ situation-specific
    def ends_read(self, vocab: Vocabulary, situation: str) -> set[tuple[str, str, str]]:
        """(kind, name, end) of each location whose top or bottom card a choice of the
        situation reads (its conditions and actions; not where its moves put cards)."""
        found: set[tuple[str, str, str]] = set()
        for site in vocab.sites_of(situation):
            nodes = list(all_nodes(site.choice.body))
            # where a card goes is no card read
            dests = {id(n.dest) for n in nodes if isinstance(n, ast.Move | ast.Remember)}
            for node in nodes:
                if id(node) in dests:
                    continue
                if isinstance(node, ast.CardAt) and node.position in ("top", "bottom"):
                    loc = self._location(node.collection)
                    if loc is not None:
                        names = self.names.strings(loc.name) or ()
                        found.update((loc.kind, n, str(node.position)) for n in names)
        return found

    def _location(self, node: ast.Node) -> ast.Location | None:
        """The location an expression names (through declared names), if it does."""
        if isinstance(node, ast.Variable):
            declare = self.checked.declares.get(id(node))
            return None if declare is None else self._location(declare.value)
        if isinstance(node, ast.Location) and node.index is None:
            return node
        return None


def _class_of(owner: int) -> str:
    return "game" if owner == GAME_OWNER else ("player" if owner >= 0 else "team")


def _index_order(zones: list[_Zone]) -> list[_Zone]:
    """Locations in first-seen order, the members of a family (NAME, NAME#1, ...) kept
    together and by index."""

    def order(z: _Zone) -> tuple[int, str, str, int]:
        base, _, index = z.name.partition("#")
        return (z.offset, z.kind, base, int(index or 0))

    first: dict[tuple[int, str, str], int] = {}
    for i, z in enumerate(zones):
        first.setdefault((z.offset, z.kind, z.name.partition("#")[0]), i)
    return sorted(zones, key=lambda z: (first[order(z)[:3]], order(z)[3]))


# ---------------------------------------------------------------- straight from a state

#: Up to this many unseen card types, expected counts are written one by one; past it,
#: in one numpy operation per location (measured: Leduc's 6 types / Hearts' 52).
_FEW_TYPES = 8


@dataclass(frozen=True)
class SeatPlan:
    """Where each part of the layout reads the board, for one seat: ``Encoder._fill``'s
    walk over the blocks, done once instead of at every decision."""

    current: int  # the position of the current-seat one-hot
    storages: tuple[tuple[int, tuple[int, str]], ...]  # (position, storage key)
    # (location, size position, cards/known position, expected position or -1 if seen)
    zones: tuple[tuple[ZoneKey, int, int, int], ...]
    ends: tuple[tuple[tuple[int, ZoneKey, bool], ...], ...]  # per situation: (pos, loc, top)


def _plan_location(block: Any, seat: int, nplayers: int) -> ZoneKey:
    name, _, kind = block.name[:-1].partition("(")  # "HAND(iloc)"
    return (owner_of_relative(block.owner, seat, nplayers), kind, name)


def seat_plan(encoder: Encoder, seat: int) -> SeatPlan:
    n = encoder.nplayers
    blocks = encoder.common_blocks
    storages: list[tuple[int, tuple[int, str]]] = []
    zones: list[list[Any]] = []
    for block in blocks[1:]:
        if block.what == "storage":
            owner = owner_of_relative(block.owner, seat, n)
            storages += [(block.start + i, (owner, name)) for i, name in enumerate(block.labels)]
        elif block.what == "size":
            zones.append([_plan_location(block, seat, n), block.start, -1, -1])
        elif block.what in ("cards", "known"):
            zones[-1][2] = block.start
        else:  # expected: the location is hidden from the seat
            zones[-1][3] = block.start
    ends = tuple(
        tuple(
            (b.start, _plan_location(b, seat, n), b.what == "top")
            for b in layout.blocks[len(blocks) :]
        )
        for layout in encoder.layouts
    )
    return SeatPlan(
        blocks[0].start, tuple(storages), tuple((k, s, c, e) for k, s, c, e in zones), ends
    )


class StateWriter:
    """``Encoder.encode``'s vector, written straight from the state into a row of a
    batch (``VectorEnv``): no view, and the layout's walk planned once per seat.  An
    unrecorded game's: a hidden location's expected counts are the uniform odds over every
    card the seat does not see.  tests/test_vector_env.py holds it equal to
    ``Encoder.encode`` on every game file, on both engines.

    Each card is read as a *type id*: its index among the encoder's card types, or a
    number past them for a type the vocabulary lacks (counted among the unseen cards, as
    ``PlayerView.zone_knowledge`` counts it, but written nowhere)."""

    def __init__(self, encoder: Encoder) -> None:
        self.encoder = encoder
        self.nplayers = encoder.nplayers
        self.n_types = len(encoder.card_types)
        self._type_ids: dict[str, int] = {t: i for i, t in enumerate(encoder.card_types)}
        self.type_names: list[str] = list(encoder.card_types)  # type id -> its name
        self.plans = [seat_plan(encoder, seat) for seat in range(encoder.nplayers)]

    def type_id(self, attributes: Any) -> int:
        name = card_type(attributes)
        found = self._type_ids.get(name)
        if found is None:
            found = self._type_ids[name] = len(self._type_ids)
            self.type_names.append(name)
        return found

    def write(self, board: Board, seat: int, situation: int, out: np.ndarray) -> None:
        """The observation of ``seat`` into ``out`` (a zeroed row); ``situation`` -1 for
        a finished game (the situation-free part only).  Item by item: gathering the
        values and writing them in one numpy assignment measured slower."""
        plan = self.plans[seat]
        zones, types, n_types = board.zones, board.types, self.n_types
        out[plan.current + (board.current - seat) % self.nplayers] = 1.0
        ints = board.ints
        for position, storage in plan.storages:
            out[position] = ints.get(storage, 0)
        unseen: tuple[dict[int, int], int] | None = None
        odds: dict[int, np.ndarray] = {}  # location size -> its expected counts, once many
        for key, size_at, cards_at, expected_at in plan.zones:
            ids = zones.get(key)
            if not ids:  # absent or empty: every position of it is 0
                continue
            size = len(ids)
            out[size_at] = size
            if expected_at < 0:  # the seat sees it: its cards by type
                for card in ids:
                    t = types[card]
                    if t < n_types:
                        out[cards_at + t] += 1.0
                continue
            if unseen is None:
                unseen = self._unseen(board, seat)
            counts, total = unseen
            if len(counts) <= _FEW_TYPES:  # PlayerView._unseen_odds, type by type
                for t, count in counts.items():
                    out[expected_at + t] = size * count / total
                continue
            found = odds.get(size)
            if found is None:  # hands of one size share it
                found = odds[size] = self._odds(counts, size, total)
            out[expected_at : expected_at + n_types] = found
        if situation >= 0:
            self._write_ends(plan.ends[situation], zones, types, out)

    def _odds(self, counts: dict[int, int], size: int, total: int) -> np.ndarray:
        """``size * count / total`` per card type, as float32: exact integers divided in
        float64, as Python divides them, so the values are ``PlayerView``'s."""
        dense = np.zeros(self.n_types, dtype=np.int64)
        dense[list(counts)] = list(counts.values())
        return (size * dense / total).astype(np.float32)

    def _write_ends(
        self, ends: Sequence[tuple[int, ZoneKey, bool]], zones: Any, types: Any, out: np.ndarray
    ) -> None:
        for position, key, top in ends:
            ids = zones.get(key)
            if ids:
                t = types[ids[-1] if top else ids[0]]
                if t < self.n_types:
                    out[position + t] = 1.0

    def _unseen(self, board: Board, seat: int) -> tuple[dict[int, int], int]:
        """Per card type of the vocabulary, how many cards the seat does not see (what
        lies in no location it sees, memories aside), and how many in all.  Plain Python:
        numpy's overhead outweighs its speed for a few dozen cards."""
        seen: set[int] = set()
        for key, ids in board.zones.items():
            kind = key[1]  # can_see, inlined, as views.py does
            if kind != "mem" and (
                kind in OPEN_KINDS or (kind == OWNER_KIND and key[0] == seat >= 0)
            ):
                seen.update(ids)
        counts: dict[int, int] = {}
        total, n_types = 0, self.n_types
        for card, t in enumerate(board.types):
            if card not in seen:
                total += 1
                if t < n_types:
                    counts[t] = counts.get(t, 0) + 1
        return counts, total


@dataclass
class Board:
    """What an observation reads of a state: locations (key -> card ids), each card's
    type id, the integer storages and the current seat."""

    zones: dict[ZoneKey, list[int]]
    types: list[int]
    ints: Any
    current: int


class BoardReader:
    """Boards of one engine's states for one writer: each in one call to the engine
    (``Engine.board_parts``: the Python engine reads its dicts in place, the native one
    reads each part in one call), the card types' ids kept from board to board."""

    def __init__(self, writer: StateWriter, master: Engine) -> None:
        self.writer = writer
        self.master = master
        self._types: dict[int, int] = {}  # the engine's key of a card kind -> type id

    def read(self, st: Any) -> Board:
        return Board(*self.master.board_parts(st, self.writer.type_id, self._types))


def board_reader(writer: StateWriter, master: Engine) -> BoardReader:
    """What reads ``master``'s states as boards for ``writer``."""
    return BoardReader(writer, master)
