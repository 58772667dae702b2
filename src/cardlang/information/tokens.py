"""A view as a set of tokens, for set-transformer agents (numpy only: no torch here).

Pipeline position: information, beside encode.py (which turns a view into one flat
vector); this module turns it into a *set* of tokens whose order means nothing, so a
network over it needs no positions and a new card or a new location is one more token,
not a new column.  Everything comes from the rules: the locations and integer storages
the game names (encode.py finds them), the card types and their attributes (vocabulary.py),
the situations and the options' keys.  See docs/neural-design-notes.md.

Tokens of a view (seats are relative to the viewer: ``P+0`` is the viewer):

- a **card token** per (location, card type) with a non-zero count: the known count in a
  location the viewer sees, the *expected* count in one it does not (``PlayerView.
  zone_knowledge``: from the knowledge pools of a recorded game);
- a **top token** per location the viewer sees whose top card some choice of the game
  reads (the discard pile a Crazy Eights player must match), holding that card;
- a **zone token** per location: its size;
- a **scalar token** per integer storage (game, seats, teams), and one for the turn;
- a **situation token**: the decision's situation, and whose turn it is (the current
  player, a seat offset from the viewer: a Militia victim decides in another's turn).

An empty location and a storage at 0 have no token: the absence says as much, and a
set transformer's cost grows with the square of the tokens (Dominion's views have some
40 locations and 85 storages, most of them empty or 0 at any moment).

Each token is a bag of *feature names* whose embeddings a network sums, a *bucket* (a
discrete count, 0..12 with 13 for 13 and more; a negative scalar is bucket 14) and three
continuous features.  A card token's names are its location's (``zone:P+0:HAND(iloc)``)
and its card's *components*: one name per attribute value (``comp:COST=5``,
``comp:TYPES=ACTION``, ``comp:KIND=SMITHY``), so a card the network never saw still
has the embeddings of the values it shares with cards it saw.  Its continuous features
are ``log(n + eps)``, ``n / total`` and ``log(n / total + eps)``, total being the
location's size.

The options of the decision are *action tokens*: one per distinct option key
(vocabulary.py), with the names of the key's parts: ``act:SITUATION/BRANCH``, and per
bound value ``var:SITUATION/VAR`` plus the card's components where the value is a card
type, else ``val:SITUATION/VAR=VALUE``; a value that names a location after a card
type (a pile, ``SUPPLY:WITCH``) also carries that card's components, where the table
says so (``NameTable.pile_cards``: models made since issue 54), so that buying a card
the network never met reads as what the card does, not as one more unknown pile.  A
policy scores each action token; options that
share a key are one move for the mover (two Coppers in hand), so ``option_of`` names the
first option of each.

Names become integers through a ``NameTable`` (kept with a model, so the same name means
the same embedding in every game that a model plays): while a table grows it adds every
new name; a frozen table maps a name it lacks to 0, the unknown name.  ``collate`` pads a
list of tokenized views into arrays with masks.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from cardlang.information.encode import Encoder
from cardlang.information.views import PlayerView
from cardlang.information.visibility import owner_of_relative
from cardlang.information.vocabulary import Vocabulary
from cardlang.language.kinds import DECK_ATTRIBUTE, card_type

if TYPE_CHECKING:
    from cardlang.engine.game import Game

#: Names a token sums (its own, its location's or storage's, its card's components).
MAX_NAMES = 24
#: Discrete counts 0..12; 13 stands for 13 and more, 14 for a negative scalar.
OVERFLOW_BUCKET = 13
NEGATIVE_BUCKET = 14
BUCKETS = 15
EPS = 1e-3
#: Continuous features per token.
CONTINUOUS = 3

# Token kinds (a network gives each its own count embeddings and continuous projection).
CARD, TOP, ZONE, SCALAR, SITUATION = range(5)
KINDS = 5
KIND_NAMES = ("card", "top", "zone", "scalar", "situation")

UNKNOWN = 0  # the id of a name a frozen table lacks (and of padding)


class NameTable:
    """Names -> ids (1, 2, ...; 0 is the unknown name).  Grows until frozen or full.

    ``known``: the ids a network learnt (a trained model's, ``NeuralModel.freeze``); a
    frozen table maps any other name to the unknown name too.  A name can have an id and
    no learnt embedding: a card kind of the game file that training never dealt (a
    kingdom card left out), a card met first at play.  Its embedding is the random one
    it was made with, noise that would drown what the card's components say; the unknown
    name's embedding is zero, so such a card reads as its components alone.

    ``pile_cards``: an option value naming a pile after its card (``SUPPLY:WITCH``)
    also carries the card's components (see the module docstring).  Part of what a
    model reads, so kept with it: models made before it read piles by name alone."""

    def __init__(
        self,
        names: Iterable[str] = (),
        capacity: int = 8192,
        frozen: bool = False,
        pile_cards: bool = False,
    ):
        self.names: list[str] = ["<unknown>"]
        self._ids: dict[str, int] = {}
        self.capacity = capacity
        self.frozen = frozen
        self.pile_cards = pile_cards
        self.known: frozenset[int] | None = None
        for name in names:
            self._add(name)

    def _add(self, name: str) -> int:
        i = self._ids[name] = len(self.names)
        self.names.append(name)
        return i

    def id(self, name: str) -> int:
        found = self._ids.get(name)
        if found is not None:
            if self.frozen and self.known is not None and found not in self.known:
                return UNKNOWN
            return found
        if self.frozen or len(self.names) >= self.capacity:
            return UNKNOWN
        return self._add(name)

    def __len__(self) -> int:
        return len(self.names)

    def __contains__(self, name: str) -> bool:
        return name in self._ids


@dataclass
class ViewTokens:
    """One view as tokens (arrays of its own length) and its decision's action tokens."""

    names: np.ndarray  # int32 [T, MAX_NAMES]
    kinds: np.ndarray  # int8 [T]
    buckets: np.ndarray  # int8 [T]
    continuous: np.ndarray  # float32 [T, CONTINUOUS]
    action_names: np.ndarray  # int32 [A, MAX_NAMES]
    option_of: np.ndarray  # int32 [A]: the first option with each action's key
    action_of: np.ndarray  # int32 [options]: each option's action
    keys: tuple[str, ...]  # each action's key
    situation: str
    current: int  # seat offset of the current player from the viewer


@dataclass
class Batch:
    """Views padded to a common length: ``token_mask`` / ``action_mask`` mark the real
    entries (True)."""

    names: np.ndarray  # int32 [B, T, MAX_NAMES]
    kinds: np.ndarray  # int64 [B, T]
    buckets: np.ndarray  # int64 [B, T]
    continuous: np.ndarray  # float32 [B, T, CONTINUOUS]
    token_mask: np.ndarray  # bool [B, T]
    action_names: np.ndarray  # int32 [B, A, MAX_NAMES]
    action_mask: np.ndarray  # bool [B, A]

    def __len__(self) -> int:
        return int(self.names.shape[0])


def bucket(n: float) -> int:
    """The discrete count embedding's index: 0..12, 13 for more, 14 for negative."""
    if n < 0:
        return NEGATIVE_BUCKET
    return min(int(round(n)), OVERFLOW_BUCKET)


def count_features(n: float, total: float) -> tuple[float, float, float]:
    share = n / total if total > 0 else 0.0
    return (math.log(n + EPS), share, math.log(share + EPS))


def scalar_features(value: float) -> tuple[float, float, float]:
    """A storage's value: signed log, and its sign, for values of any size."""
    magnitude = math.log1p(abs(value))
    return (
        math.copysign(magnitude, value),
        1.0 if value > 0 else (-1.0 if value < 0 else 0.0),
        0.0,
    )


def card_components(attrs: Mapping[str, Any]) -> list[str]:
    """A card's component names: one per attribute value, a list attribute one per item.
    The deck's name is no component (two decks' Aces of Spades are one card type)."""
    names: list[str] = []
    for attr, value in attrs.items():
        if attr == DECK_ATTRIBUTE:
            continue
        items = value if isinstance(value, list | tuple) else (value,)
        names.extend(f"comp:{attr}={item}" for item in items)
    return names


class Tokenizer:
    """Tokenizes the views of one game into one ``NameTable``'s ids."""

    def __init__(self, game: Game, table: NameTable, uniform: bool = False) -> None:
        """``uniform``: a hidden location's expected counts are the uniform odds over the
        cards the viewer does not see, even in a recorded game (the tokens the engine
        writes for lockstep games, whose games keep no log), not the knowledge pools'."""
        self.table = table
        self.uniform = uniform
        encoder = Encoder.of(game)
        self.vocabulary = Vocabulary.of(game)
        self.nplayers = game.nplayers
        tops = {(b.owner, b.name) for lay in encoder.layouts for b in lay.blocks if b.what == "top"}
        # (owner, kind, name, token name, whether a choice reads its top card)
        self.zones = [
            (
                z.owner_label,
                z.kind,
                z.name,
                f"zone:{z.owner_label}:{z.label}",
                (z.owner_label, z.label) in tops,
            )
            for z in encoder.zones
        ]
        self.storages = [(owner, name, f"sto:{owner}:{name}") for owner, name in encoder.storages]
        self.card_attributes = self.vocabulary.card_type_attributes
        self.card_effects = self.vocabulary.card_effects
        self._components: dict[str, list[int]] = {}
        self._zone_ids: dict[str, int] = {}

    # ------------------------------------------------------------ ids
    def seat_names(
        self, seat: int
    ) -> tuple[list[tuple[tuple[int, str, str], int, bool]], list[tuple[int, str, int]]]:
        """What ``tokenize`` reads for ``seat``, with its names' ids: per location (in
        token order) its key, its name's id and whether a TOP token may follow; per
        integer storage its owner, name and name's id.  (env/batch.py hands them to the
        engine, which writes the same tokens.)"""
        n = self.nplayers
        zones = [
            ((owner_of_relative(owner, seat, n), kind, name), self._id(label), reads_top)
            for owner, kind, name, label, reads_top in self.zones
        ]
        storages = [
            (owner_of_relative(owner, seat, n), name, self._id(label))
            for owner, name, label in self.storages
        ]
        return zones, storages

    def name_id(self, name: str) -> int:
        """A name's id in the table (added while the table grows)."""
        return self._id(name)

    def _id(self, name: str) -> int:
        found = self._zone_ids.get(name)
        if found is None or found == UNKNOWN:
            found = self._zone_ids[name] = self.table.id(name)
        return found

    def components(self, card: str) -> list[int]:
        """A card type's component ids: its attributes (``comp:ATTR=VALUE``), then what
        its hooks do (``eff:...``, language/effects.py)."""
        found = self._components.get(card)
        if found is None or (UNKNOWN in found and not self.table.frozen):
            attrs = self.card_attributes.get(card)
            names = card_components(attrs) if attrs is not None else [f"comp:TYPE={card}"]
            # after the attributes, so that a token cut at MAX_NAMES keeps them
            names.extend(self.card_effects.get(card, ()))
            found = self._components[card] = [self.table.id(n) for n in names]
        return found

    # ------------------------------------------------------------ a view
    def tokenize(self, view: PlayerView) -> ViewTokens:
        rows = _Rows()
        seat, n = view.seat, self.nplayers
        for owner, kind, name, label, reads_top in self.zones:
            where = owner_of_relative(owner, seat, n)
            self._zone_tokens(view, rows, (where, kind, name), label, reads_top)
        for owner, name, label in self.storages:
            value = view.storage(owner_of_relative(owner, seat, n), name)
            if value:
                rows.add(SCALAR, [self._id(label)], bucket(value), scalar_features(value))
        rows.add(SCALAR, [self._id("turns")], bucket(view.turns), scalar_features(view.turns))
        situation = self.vocabulary.view_situation(view)
        if situation is None:
            raise ValueError("this view shows no decision to tokenize")
        current = (view.current_player - seat) % n
        rows.add(SITUATION, [self._id(f"sit:{situation}")], bucket(current), (0.0, 0.0, 0.0))
        keys, option_of, action_of = _distinct(self.vocabulary.view_keys(view))
        actions = np.zeros((len(keys), MAX_NAMES), dtype=np.int32)
        for i, key in enumerate(keys):
            ids = self.action_names(situation, key)
            actions[i, : len(ids)] = ids
        return ViewTokens(
            *rows.arrays(),
            action_names=actions,
            option_of=np.asarray(option_of, dtype=np.int32),
            action_of=np.asarray(action_of, dtype=np.int32),
            keys=tuple(keys),
            situation=situation,
            current=current,
        )

    def _zone_tokens(
        self,
        view: PlayerView,
        rows: _Rows,
        key: tuple[int, str, str],
        label: str,
        reads_top: bool,
    ) -> None:
        if not view.size(*key):
            return
        zone = self._id(label)
        knowledge = view.zone_knowledge(*key, uniform=self.uniform)
        total = knowledge.size
        rows.add(ZONE, [zone], bucket(total), (math.log(total + EPS), 0.0, 0.0))
        for card, count in knowledge.expected.items():
            if count > 1e-6:
                rows.add(
                    CARD,
                    [zone, *self.components(card)],
                    bucket(count),
                    count_features(count, total),
                )
        if reads_top:
            top = view.top(*key)
            if top is not None:
                rows.add(TOP, [zone, *self.components(card_type(top))], 1, (0.0, 0.0, 0.0))

    def action_names(self, situation: str, key: str) -> list[int]:
        """The ids of an option key's parts (see the module docstring)."""
        branch, _, bindings = key.partition(":")
        ids = [self.table.id(f"act:{situation}/{branch}")]
        if bindings:
            for binding in bindings.split(","):
                var, _, value = binding.partition("=")
                if value in self.card_attributes:
                    ids.append(self.table.id(f"var:{situation}/{var}"))
                    ids.extend(self.components(value))
                else:
                    ids.append(self.table.id(f"val:{situation}/{var}={value}"))
                    ids.extend(self._pile_card(value))
        return ids[:MAX_NAMES]

    def _pile_card(self, value: str) -> list[int]:
        """The components of the card a pile ``FAMILY:TYPE`` is named after, where the
        table reads piles so (else none)."""
        if not self.table.pile_cards:
            return []
        family, _, card = value.rpartition(":")
        return self.components(card) if family and card in self.card_attributes else []


class _Rows:
    """Token rows as they are added, turned into arrays at the end."""

    def __init__(self) -> None:
        self.names: list[list[int]] = []
        self.kinds: list[int] = []
        self.buckets: list[int] = []
        self.continuous: list[tuple[float, float, float]] = []

    def add(
        self, kind: int, names: list[int], count: int, cont: tuple[float, float, float]
    ) -> None:
        self.names.append(names[:MAX_NAMES])
        self.kinds.append(kind)
        self.buckets.append(count)
        self.continuous.append(cont)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        names = np.zeros((len(self.names), MAX_NAMES), dtype=np.int32)
        for i, row in enumerate(self.names):
            names[i, : len(row)] = row
        return (
            names,
            np.asarray(self.kinds, dtype=np.int8),
            np.asarray(self.buckets, dtype=np.int8),
            np.asarray(self.continuous, dtype=np.float32).reshape(-1, CONTINUOUS),
        )


def _distinct(keys: Sequence[str]) -> tuple[list[str], list[int], list[int]]:
    """The distinct keys in first-seen order, the first option of each, and each
    option's position among the distinct keys."""
    first: dict[str, int] = {}
    for i, key in enumerate(keys):
        first.setdefault(key, i)
    position = {k: j for j, k in enumerate(first)}
    return list(first), list(first.values()), [position[k] for k in keys]


def collate(items: Sequence[ViewTokens]) -> Batch:
    """Tokenized views padded into one ``Batch`` (at least one token and one action
    column, so an empty batch still has a shape)."""
    b = len(items)
    t = max((len(x.kinds) for x in items), default=1)
    a = max((len(x.option_of) for x in items), default=1) or 1
    names = np.zeros((b, t, MAX_NAMES), dtype=np.int32)
    kinds = np.zeros((b, t), dtype=np.int64)
    buckets = np.zeros((b, t), dtype=np.int64)
    continuous = np.zeros((b, t, CONTINUOUS), dtype=np.float32)
    token_mask = np.zeros((b, t), dtype=np.bool_)
    action_names = np.zeros((b, a, MAX_NAMES), dtype=np.int32)
    action_mask = np.zeros((b, a), dtype=np.bool_)
    for i, x in enumerate(items):
        n, m = len(x.kinds), len(x.option_of)
        names[i, :n] = x.names
        kinds[i, :n] = x.kinds
        buckets[i, :n] = x.buckets
        continuous[i, :n] = x.continuous
        token_mask[i, :n] = True
        action_names[i, :m] = x.action_names
        action_mask[i, :m] = True
    return Batch(names, kinds, buckets, continuous, token_mask, action_names, action_mask)
