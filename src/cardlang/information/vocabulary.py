"""Situations and the action vocabulary of a compiled game: stable names for decisions
and for their options, derived from the rules alone.

Pipeline position: information, above the engine, before agents and encoders (encode.py).  A
learning agent needs a fixed output layout: the same index must mean the same move in
every game of a ruleset.  Options (control.Option) are tuples of steps that vary from
one decision to the next; this module names each by a *key* built only from what the
rules allow and what the mover may see, and lists every key a decision site can produce
so that the list is fixed before any game is played.

Situations.  A decision written ``(choice NAME ...)`` has situation NAME (declared with
``(situation NAME "text")``); an unnamed choice (every CardStock game) gets a situation of
its own, ``CHOICE@LINE:COL``, the position of its ``(choice`` in the game file.  The
situations are the declared ones, in declaration order, then the unnamed sites in file
order; a situation's id is its index.

Keys.  An option's key is ``[SITE/]BRANCH[:VAR=VALUE,...]``:

- ``SITE`` (``LINE:COL``) only when several choices share the situation's name;
- ``BRANCH``: which condact of the choice the option comes from (0-based);
- one ``VAR=VALUE`` per variable an ``any`` of that condact binds, in binding order.  A
  card is its type (``language.kinds.card_type``: its KIND, or its attribute values such as
  ``A SPADES``), or ``?`` where the mover cannot see it; a player is a seat offset from
  the mover (``P+0`` is the mover, ``P+1`` the next seat); a team is its number ``T1``
  (a view does not show teams, and teams are not interchangeable the way seats are); a
  location of an ``(indexed ...)`` family is its family name and its top card's type
  (``SUPPLY:PROVINCE``; ``-`` when empty, ``?`` when hidden; a player's family starts
  ``P+k.``): piles of one family are told apart by what they hold; a string or an
  integer is itself; a collection of cards (``subsets``, ``tuples``) is ``#N``, its size
  (``#16+`` from 16 on).

Variables bound by ``let`` and by ``all`` are not part of a key: they follow from the
state and from the ``any`` bindings (``any`` loops under an ``all`` or a ``repeat`` inside
a choice are not keyed either).  So two options of one decision share a key only when
they come from the same condact and bind cards of the same types (two Coppers in hand):
``key -> option`` then names the first of them, and they are equivalent for the mover.
The exceptions are collections of cards (keyed by size) and the cap: in a condact whose
keys would number more than ``MAX_BRANCH_KEYS``, a binding that would take the count
over it is left out of its keys (the ones before it are kept).

The vocabulary of a situation is every key its sites can produce, built statically: card
types are those of the game's card kinds and decks (narrowed by a ``filter`` whose
condition reads only the card's attributes), seats are offsets ``0..n-1``, strings come
from the declared list an ``any`` runs over, integers from a constant range (``0..63``
when the range is not constant).  A key met in play that is not in the vocabulary (an
integer out of that range, a string made at run time) has no index (``index`` -> None).
"""

from __future__ import annotations

import itertools
import re
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from cardlang.engine.owners import GAME_OWNER
from cardlang.engine.protocol import Engine, EngineState
from cardlang.information.visibility import OPEN_KINDS, OWNER_KIND, can_see, relative_owner
from cardlang.language import ast
from cardlang.language import types as T
from cardlang.language.checker import (
    deck_cards,
    statement_children,
    static_int,
)
from cardlang.language.effects import card_effects
from cardlang.language.kinds import KIND_ATTRIBUTE, card_type
from cardlang.language.label_text import labels_text
from cardlang.language.statics import StaticNames, all_nodes, base_collection, may_hold

if TYPE_CHECKING:
    from cardlang.engine.game import Game

#: A view of a decision (``views.PlayerView``, or a tournament's ``SandboxView``): read
#: through its public attributes only, and not imported, since views.py asks this module
#: for its options' keys (``PlayerView.option_keys``).
PlayerView = Any


#: A condact with more keys than this keys only its first bindings (see module docstring).
MAX_BRANCH_KEYS = 4096
#: The size from which collections of cards share one key, ``#16+``.
MAX_COLLECTION_KEY = 16
#: Integers an ``any`` over a non-constant range may bind: 0 to this, exclusive.
DEFAULT_INT_KEYS = 64
UNSEEN = "?"
EMPTY = "-"

Attributes = Mapping[str, Any]
#: One bound value -> the ``VAR=VALUE`` text of a key, given the state and the mover.
PartFn = Callable[[EngineState, Any, int], str]


# ---------------------------------------------------------------- the static structure


@dataclass(frozen=True)
class Fork:
    """An ``any`` of a condact: the variable it binds and the key texts of its values."""

    slot: int
    var: str
    type: str
    domain: tuple[str, ...]  # VALUE texts, in vocabulary order
    optional: bool  # an option of its condact may come without this binding
    keyed: bool  # False: beyond MAX_BRANCH_KEYS, left out of keys


@dataclass(frozen=True)
class Branch:
    """One condact of a choice."""

    index: int
    span: ast.Span
    forks: tuple[Fork, ...]


@dataclass(frozen=True)
class Site:
    """One ``(choice ...)`` of the game file."""

    situation: str
    span: ast.Span
    prefix: str  # "LINE:COL/" when several sites share the situation, else ""
    branches: tuple[Branch, ...]
    choice: ast.Choice = field(compare=False, repr=False)

    @property
    def position(self) -> str:
        return f"{self.span.line}:{self.span.column}"


class Vocabulary:
    """The situations of a compiled game and each one's action vocabulary.

    Built once per Game (``Vocabulary.of``).  ``keys(situation)`` is fixed for the game
    and its parameters; ``option_keys`` names the options of a pending decision.
    """

    _cache: weakref.WeakKeyDictionary[Game, Vocabulary] = weakref.WeakKeyDictionary()

    def __init__(self, game: Game) -> None:
        # no reference to the game: the cache would keep every game alive
        self.source = game.source
        self._texts = dict(game.situations)
        self.nplayers = game.nplayers
        analysis = _Analysis(game)
        self.card_types: tuple[str, ...] = analysis.card_types
        #: each card type -> the attributes of one card of that type (read-only use)
        self.card_type_attributes: Mapping[str, Attributes] = dict(analysis.type_attrs)
        # what each card kind's hooks do (language/effects.py): read once per game
        self.card_effects: Mapping[str, tuple[str, ...]] = card_effects(game.checked)
        self.sites: tuple[Site, ...] = analysis.sites()
        self._site_at = {s.span.start_pos: s for s in self.sites}
        declared = list(game.situations)
        unnamed = [s.situation for s in self.sites if s.situation not in game.situations]
        self.situations: tuple[str, ...] = tuple(dict.fromkeys(declared + unnamed))
        self._ids = {name: i for i, name in enumerate(self.situations)}
        self._keys = {name: self._enumerate(name) for name in self.situations}
        self._index = {
            name: {k: i for i, k in enumerate(keys)} for name, keys in self._keys.items()
        }
        self._keyers = {id(s): _Keyer(s, self.nplayers) for s in self.sites}

    @classmethod
    def of(cls, game: Game) -> Vocabulary:
        """The game's vocabulary, built on first use and kept as long as the game."""
        vocab = cls._cache.get(game)
        if vocab is None:
            vocab = cls._cache[game] = cls(game)
        return vocab

    # ------------------------------------------------------------ situations
    def situation_id(self, name: str) -> int:
        return self._ids[name]

    def text(self, situation: str) -> str:
        """What a situation is about, for people: the declared text, else what its
        options are labelled ("Check, Bet 1, Fold or Call 1"), else where it is."""
        declared = self._texts.get(situation)
        if declared is not None:
            return declared
        sites = self.sites_of(situation)
        labelled = labels_text(t.text for s in sites for t in s.choice.labels if t is not None)
        if labelled:
            return labelled
        where = ", ".join(f"line {s.span.line}, column {s.span.column}" for s in sites)
        return f"the choice at {where}" if sites else situation

    def sites_of(self, situation: str) -> tuple[Site, ...]:
        return tuple(s for s in self.sites if s.situation == situation)

    def site_of(self, st: EngineState) -> Site:
        """The choice site of the pending decision."""
        pending = st.pending
        if pending is None:
            raise ValueError("no decision is pending")
        return self._site_at[pending.span.start_pos]

    def situation_of(self, st: EngineState) -> str:
        """The situation of the pending decision of ``st``."""
        return self.site_of(st).situation

    # ------------------------------------------------------------ keys
    def keys(self, situation: str) -> tuple[str, ...]:
        """The situation's action vocabulary: every key its options can have, in order."""
        return self._keys[situation]

    def keys_binding(self, cards: Sequence[str]) -> np.ndarray:
        """``[situation id, key index]``: whether the key's option binds a card of one
        of the kinds ``cards`` (``C=WITCH``) or a pile whose top is one
        (``PILE=SUPPLY:WITCH``); keys past a situation's last are False."""
        return self._keys_matching(
            [re.compile(rf"[=:]{re.escape(card)}(?=[,;\s]|$)") for card in cards]
        )

    def keys_gaining(self, card: str) -> np.ndarray:
        """``[situation id, key index]``: whether the key's option takes a pile whose top
        is a ``card`` (``PILE=SUPPLY:WITCH``: a buy, a gain), as ``keys_binding``."""
        return self._keys_matching([re.compile(rf"PILE=[^;,\s]*:{re.escape(card)}(?=[,;\s]|$)")])

    def _keys_matching(self, patterns: Sequence[re.Pattern[str]]) -> np.ndarray:
        """``[situation id, key index]``: whether the key matches one of ``patterns``."""
        width = max([len(self.keys(s)) for s in self.situations] + [1])
        table = np.zeros((max(len(self.situations), 1), width), dtype=np.bool_)
        for s, situation in enumerate(self.situations):
            for k, key in enumerate(self.keys(situation)):
                table[s, k] = any(pattern.search(key) for pattern in patterns)
        return table

    def index(self, situation: str, key: str) -> int | None:
        """A key's position in ``keys(situation)``; None for a key outside it."""
        return self._index[situation].get(key)

    def option_keys(self, st: EngineState, options: Sequence[Any], seat: int) -> list[str]:
        """The key of each option of the pending decision, as the mover ``seat`` knows it."""
        site = self.site_of(st)
        return self._keyers[id(site)].keys(st, options, seat)

    def option_indices(
        self, st: EngineState, options: Sequence[Any], seat: int
    ) -> list[int | None]:
        """Each option's index in the vocabulary of the pending decision's situation."""
        site = self.site_of(st)
        index = self._index[site.situation]
        return [index.get(k) for k in self._keyers[id(site)].keys(st, options, seat)]

    def first_options(self, st: EngineState, options: Sequence[Any], seat: int) -> dict[int, int]:
        """Vocabulary index -> the first option with that key: what an agent that scores
        the vocabulary plays for its choice of a key (options sharing a key are
        equivalent for the mover; see the module docstring)."""
        found: dict[int, int] = {}
        for i, index in enumerate(self.option_indices(st, options, seat)):
            if index is not None:
                found.setdefault(index, i)
        return found

    # ------------------------------------------------------------ from a view
    def view_situation(self, view: PlayerView) -> str | None:
        """The situation of the decision a view shows (None when it shows none)."""
        pending = _pending_of(view)
        return None if pending is None else self._site_at[pending.span.start_pos].situation

    def view_keys(self, view: PlayerView) -> list[str]:
        """The key of each option a view shows, from what the view shows alone (the
        same keys as ``option_keys`` for the view's seat)."""
        pending = _pending_of(view)
        if pending is None:
            return []
        site = self._site_at[pending.span.start_pos]
        return self._keyers[id(site)].view_keys(view, _raw_options(view))

    def view_indices(self, view: PlayerView) -> list[int | None]:
        """Each option's index in the vocabulary of the view's situation."""
        situation = self.view_situation(view)
        if situation is None:
            return []
        index = self._index[situation]
        return [index.get(k) for k in self.view_keys(view)]

    def _enumerate(self, situation: str) -> tuple[str, ...]:
        keys: list[str] = []
        for site in self.sites_of(situation):
            for branch in site.branches:
                keys.extend(_branch_keys(site.prefix, branch))
        return tuple(dict.fromkeys(keys))


def option_key(game: Game, st: EngineState, option: Any, seat: int) -> str:
    """An option of the pending decision of ``st``, named as the mover ``seat`` may know it."""
    return Vocabulary.of(game).option_keys(st, (option,), seat)[0]


def _branch_keys(prefix: str, branch: Branch) -> Iterator[str]:
    """Every key of a condact: the product of its keyed forks' values."""
    head = f"{prefix}{branch.index}"
    choices: list[list[str | None]] = []
    for fork in branch.forks:
        if fork.keyed:
            values: list[str | None] = [None] if fork.optional else []
            values += [f"{fork.var}={v}" for v in fork.domain]
            choices.append(values)
    for combo in itertools.product(*choices):
        parts = [p for p in combo if p is not None]
        yield f"{head}:{','.join(parts)}" if parts else head


# ---------------------------------------------------------------- keys at run time


class _Keyer:
    """Names the options of one site: a function per keyed fork slot."""

    def __init__(self, site: Site, nplayers: int) -> None:
        self.parts: dict[int, PartFn] = {}
        self.forks: dict[int, Fork] = {}
        for branch in site.branches:
            for fork in branch.forks:
                if fork.keyed:
                    self.parts[fork.slot] = _part_fn(fork, nplayers)
                    self.forks[fork.slot] = fork
        n = max((b.index for b in site.branches), default=0) + 1
        self.bare = [f"{site.prefix}{b}" for b in range(n)]
        self.heads = [f"{site.prefix}{b}:" for b in range(n)]

    def keys(self, st: EngineState, options: Sequence[Any], seat: int) -> list[str]:
        parts_of = self.parts
        branch_of = st.pending.branch_of
        bare, heads = self.bare, self.heads
        out: list[str] = []
        for option in options:
            parts: list[str] = []
            branch = -1
            for fn, arg in option:
                if fn is None:
                    part = parts_of.get(arg[0])
                    if part is not None:
                        parts.append(part(st, arg[1], seat))
                elif branch < 0:
                    branch = branch_of(arg)
            if branch < 0:
                branch = 0
            out.append(heads[branch] + ",".join(parts) if parts else bare[branch])
        return out

    def view_keys(self, view: PlayerView, options: Sequence[Any]) -> list[str]:
        """``keys`` from a view: its OptionViews give each binding as the mover sees it
        (the raw steps only tell which bindings are keyed forks)."""
        out: list[str] = []
        for option, shown in zip(options, view.options, strict=True):
            slots = [arg[0] for fn, arg in option if fn is None]
            parts = [
                _view_part(self.forks[slot], view, value)
                for slot, (_, value) in zip(slots, shown.bindings, strict=True)
                if slot in self.forks
            ]
            b = shown.branch
            out.append(self.heads[b] + ",".join(parts) if parts else self.bare[b])
        return out


def _pending_of(view: PlayerView) -> Any:
    """The choice node of the decision a view shows (None if none)."""
    return view.choice


def _raw_options(view: PlayerView) -> Sequence[Any]:
    """The options (tuples of steps) a view was given, in the order of ``view.options``."""
    return view.raw_options


def _view_part(fork: Fork, view: PlayerView, value: Any) -> str:
    """``VAR=VALUE`` for a bound value as ``OptionView.bindings`` shows it."""
    pre = f"{fork.var}="
    if fork.type == T.CARD:
        return pre + (UNSEEN if value is None else card_type(value))
    if fork.type in (T.LOC, T.MEMLOC):
        return pre + _view_location_text(view, value)
    if fork.type == T.PLAYER:
        return pre + _seat_text(value, view.seat, view.nplayers)
    if fork.type == T.TEAM:
        return pre + _team_text(value)
    if fork.type == T.CARDS:
        return pre + _size_text(len(value))
    return f"{pre}{value}"


def _view_location_text(view: PlayerView, key: tuple[int, str, str]) -> str:
    owner, _, name = key
    top = view.top(*key)
    if view.size(*key) == 0:
        text = EMPTY
    else:
        text = UNSEEN if top is None else card_type(top)
    return _place_text(owner, name, view.seat, view.nplayers, text)


def _part_fn(fork: Fork, nplayers: int) -> PartFn:
    """The function that writes ``VAR=VALUE`` for one bound value of a fork."""
    pre = f"{fork.var}="
    if fork.type == T.CARD:
        return _card_part(pre)
    if fork.type in (T.LOC, T.MEMLOC):
        return lambda st, key, seat: pre + _location_text(st, key, seat)
    if fork.type == T.PLAYER:
        return lambda st, p, seat: pre + _seat_text(p, seat, st.nplayers)
    if fork.type == T.TEAM:
        return lambda st, t, seat: pre + _team_text(t)
    if fork.type == T.CARDS:
        return lambda st, cards, seat: pre + _size_text(len(cards))
    return lambda st, value, seat: f"{pre}{value}"


def _card_part(pre: str) -> PartFn:
    unseen = pre + UNSEEN

    def card_part(st: EngineState, card: int, seat: int) -> str:
        if _sees_card(st.card_zone[card], seat):
            attrs = st.cards[card]  # card_type, inlined: this runs for most options
            t = attrs.get(KIND_ATTRIBUTE)
            return pre + (t if t is not None else card_type(attrs))
        return unseen

    return card_part


def _location_text(st: EngineState, key: tuple[int, str, str], seat: int) -> str:
    owner, _, name = key
    cards = st.zones.get(key)
    if not cards:
        top = EMPTY
    elif can_see(seat, key):
        top = card_type(st.cards[cards[-1]])
    else:
        top = UNSEEN
    return _place_text(owner, name, seat, st.nplayers, top)


def _size_text(n: int) -> str:
    return f"#{n}" if n < MAX_COLLECTION_KEY else f"#{MAX_COLLECTION_KEY}+"


# The texts of a key's parts, for the three writers above and below (from option steps on
# a state, from a view's bindings, from the engine's option steps): one place for each.


def _seat_text(player: int, seat: int, nplayers: int) -> str:
    """A player as ``seat`` names it: its offset from the seat (``P+0``: the seat)."""
    return f"P+{(player - seat) % nplayers}"


def _team_text(team: int) -> str:
    return f"T{team}"


def _sees_card(zone: tuple[int, str, str], seat: int) -> bool:
    """Whether ``seat`` sees a card in the location ``zone`` (views.can_see, inlined:
    this runs for most options of most games)."""
    owner, kind, _ = zone
    return kind in OPEN_KINDS or (kind == OWNER_KIND and owner == seat >= 0)


def _place_text(owner: int, name: str, seat: int, nplayers: int, top: str) -> str:
    """A location of a family: whose (relative to ``seat``), its family, its top card."""
    head = "" if owner == GAME_OWNER else relative_owner(owner, seat, nplayers) + "."
    return f"{head}{name.partition('#')[0]}:{top}"


# ---------------------------------------------------------------- keys from option steps

#: How a keyed fork's value is written in a key (``_part_fn``), by its type;
#: a type not here (a location, a collection of cards) leaves its site to the vocabulary.
_PART_KINDS = {T.CARD: "card", T.PLAYER: "player", T.TEAM: "team", T.INT: "plain", T.STR: "plain"}


@dataclass(frozen=True)
class _SiteKeys:
    """What naming the options of one choice site from its steps needs (``_Keyer``'s)."""

    situation: str
    parts: dict[int, tuple[str, str]]  # keyed fork slot -> (part kind, "VAR=")
    bare: tuple[str, ...]  # per branch, its key without bindings
    heads: tuple[str, ...]  # per branch, "BRANCH:"


class StepKeys:
    """``Vocabulary.option_indices`` of a decision, made from the engine's option steps
    (``Engine.option_steps``) and the card types an observation read (``card_types``: a
    type id per card id, named by ``type_names``): no option object is built, the keys are
    written as ``_Keyer`` writes them.  The lockstep games' masks (env/vector.py) take
    this path.  Sites whose keys bind a location or a collection of cards are left to
    ``option_indices``.  tests/test_vector_env.py holds every mask to ``option_indices``."""

    def __init__(self, vocabulary: Vocabulary, master: Engine, type_names: Sequence[str]) -> None:
        self.vocabulary = vocabulary
        self.type_names = type_names
        self.master = master
        self.sites = {s.span.start_pos: self._site(s) for s in vocabulary.sites}
        self.nplayers = vocabulary.nplayers
        self._index: dict[tuple[str, str], int | None] = {}
        self._branches: dict[tuple[int, Any], int] = {}  # (site, action node) -> branch

    def _site(self, site: Site) -> _SiteKeys | None:
        parts: dict[int, tuple[str, str]] = {}
        for branch in site.branches:
            for fork in branch.forks:
                if fork.keyed:
                    kind = _PART_KINDS.get(fork.type)
                    if kind is None:
                        return None
                    parts[fork.slot] = (kind, f"{fork.var}=")
        keyer = self.vocabulary._keyers[id(site)]  # its keys' heads, as the vocabulary's
        return _SiteKeys(site.situation, parts, tuple(keyer.bare), tuple(keyer.heads))

    def indices(self, st: EngineState, seat: int, card_types: Sequence[int]) -> list[int | None]:
        pending = st.pending
        site = self.sites[pending.span.start_pos]
        if site is None:
            options = self.master.legal_options(st)
            return self.vocabulary.option_indices(st, options, seat)
        steps = self._steps(st)
        zone_of: Any = None
        names, nplayers = self.type_names, self.nplayers
        index, situation = self._index, site.situation
        out: list[int | None] = []
        for option in steps:
            parts: list[str] = []
            branch = -1
            for slot, value in option:
                if slot is None:  # an action: the first one tells the branch
                    if branch < 0:
                        branch = self._branch(pending, value)
                    continue
                part = site.parts.get(slot)
                if part is None:
                    continue
                kind, pre = part
                if kind == "card":
                    if zone_of is None:
                        zone_of = self._card_zones(st)
                    if _sees_card(zone_of[value], seat):
                        parts.append(pre + names[card_types[value]])
                    else:
                        parts.append(pre + UNSEEN)
                elif kind == "player":
                    parts.append(pre + _seat_text(value, seat, nplayers))
                elif kind == "team":
                    parts.append(pre + _team_text(value))
                else:
                    parts.append(f"{pre}{value}")
            branch = max(branch, 0)
            key = site.heads[branch] + ",".join(parts) if parts else site.bare[branch]
            found = index.get((situation, key), -1)
            if found == -1:
                found = index[(situation, key)] = self.vocabulary.index(situation, key)
            out.append(found)
        return out

    def _steps(self, st: Any) -> list[list[tuple[int | None, Any]]]:
        """Each option as (slot, value) per binding and (None, action node) per action."""
        return self.master.option_steps(st)

    def _branch(self, pending: Any, node: Any) -> int:
        key = (pending.span.start_pos, id(node))
        found = self._branches.get(key)
        if found is None:
            found = self._branches[key] = pending.branch_of(node)
        return found

    def _card_zones(self, st: Any) -> Sequence[Any]:
        return self.master.card_zones(st)


# ---------------------------------------------------------------- static analysis


_STRUCTURE = (ast.Do, ast.Guarded, ast.Let)  # statements of a condact that only lead on


class _Analysis:
    """Reads the sites, their forks and the card types from the checked game."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.checked = game.checked
        self.nplayers = game.nplayers
        self.names = StaticNames(self.checked)
        self.type_attrs = self._card_type_attributes()
        self.card_types = tuple(self.type_attrs)

    # ------------------------------------------------------------ card types
    def _card_type_attributes(self) -> dict[str, Attributes]:
        """Every card type the game can create -> the attributes of one such card:
        the card kinds in declaration order, then the cards of each deck description."""
        found: dict[str, Attributes] = {}
        for attrs in self.game.kind_attributes.values():
            found.setdefault(card_type(attrs), attrs)
        for node in all_nodes(self.checked.game):
            if isinstance(node, ast.CreateDeck) and isinstance(node.deck, ast.Deck):
                extra = self._deck_name(node)
                for card in deck_cards(node.deck):
                    attrs = dict(card, **extra)
                    found.setdefault(card_type(attrs), attrs)
        return found

    def _deck_name(self, node: ast.CreateDeck) -> dict[str, str]:
        """The DECK attribute a named deck gives its cards (see StmtCompiler)."""
        if node.name is None:
            return {}
        names = self._strings(node.name)
        return {"DECK": names[0]} if len(names) == 1 else {}

    # ------------------------------------------------------------ sites
    def sites(self) -> tuple[Site, ...]:
        tree = self.checked.game
        roots: list[ast.Node] = [*tree.setup.body, *tree.body]
        roots += [b for d in tree.procedures for b in d.body]
        roots += [b for k in tree.kinds for h in k.hooks for b in h.body]
        choices = sorted(
            {id(c): c for r in roots for c in _choices(r)}.values(),
            key=lambda c: c.span.start_pos,
        )
        named: dict[str, int] = {}
        for c in choices:
            if c.situation is not None:
                named[c.situation] = named.get(c.situation, 0) + 1
        return tuple(self._site(c, named.get(c.situation or "", 0) > 1) for c in choices)

    def _site(self, choice: ast.Choice, shared: bool) -> Site:
        span = choice.span
        situation = choice.situation or f"CHOICE@{span.line}:{span.column}"
        prefix = f"{span.line}:{span.column}/" if shared else ""
        branches = tuple(self._branch(i, b, choice) for i, b in enumerate(choice.body))
        return Site(situation, span, prefix, branches, choice)

    def _branch(self, index: int, condact: ast.Node, choice: ast.Choice) -> Branch:
        nodes = list(_forks(condact))
        forks: list[Fork] = []
        total = 1
        for node in nodes:
            slot = self.checked.slots[id(node)]
            type_ = self.checked.slot_types.get(slot, T.ANY)
            domain = self._domain(node, type_, choice)
            optional = _acts_outside(condact, node)
            size = len(domain) + optional
            keyed = total * size <= MAX_BRANCH_KEYS
            if keyed:
                total *= max(size, 1)
            forks.append(Fork(slot, node.var, type_, domain, optional, keyed))
        return Branch(index, condact.span, tuple(forks))

    # ------------------------------------------------------------ domains
    def _domain(self, fork: ast.ForEach, type_: str, choice: ast.Choice) -> tuple[str, ...]:
        """The VALUE texts a fork's variable can have in keys."""
        coll = fork.collection
        if type_ == T.CARD:
            return self._card_domain(coll, choice)
        if type_ in (T.LOC, T.MEMLOC):
            return self._location_domain(coll)
        if type_ == T.PLAYER:
            low = (
                1 if isinstance(base_collection(coll), ast.Other) and choice.chooser is None else 0
            )
            return tuple(f"P+{k}" for k in range(low, self.nplayers))
        if type_ == T.TEAM:
            return tuple(f"T{k}" for k in range(self.nplayers))
        if type_ == T.STR:
            return self._strings(coll)
        if type_ == T.INT:
            return tuple(str(i) for i in self._ints(coll))
        if type_ == T.CARDS:
            return tuple(_size_text(n) for n in range(MAX_COLLECTION_KEY + 1))
        return ()

    def _card_domain(self, coll: ast.Node, choice: ast.Choice) -> tuple[str, ...]:
        types = [t for t, attrs in self.type_attrs.items() if may_hold(coll, attrs)]
        return tuple(types) if _always_seen(base_collection(coll), choice) else (*types, UNSEEN)

    def _location_domain(self, coll: ast.Node) -> tuple[str, ...]:
        base = base_collection(coll)
        if not isinstance(base, ast.IndexedLocations):
            return ()
        names = self._strings(base.name)
        owner_t = self.checked.type_of(base.owner)
        if isinstance(base.owner, ast.GameOwner) or owner_t == T.GAME:
            heads = [""]
        elif owner_t == T.TEAM:
            heads = [f"T{k}." for k in range(self.nplayers)]
        else:
            heads = [f"P+{k}." for k in range(self.nplayers)]
        tops: list[str] = []
        if base.kind != "hloc":
            tops += self.card_types
        if base.kind not in ("vloc", "mem"):
            tops.append(UNSEEN)
        tops.append(EMPTY)
        return tuple(f"{h}{n}:{t}" for h in heads for n in names for t in tops)

    def _strings(self, node: ast.Node) -> tuple[str, ...]:
        """The strings an expression (a name, or a list of names) can hold: its literal
        value through declared constants, else every name written in the game."""
        found = self.names.strings(node)
        return self._all_names if found is None else found

    @property
    def _all_names(self) -> tuple[str, ...]:
        names: list[str] = []
        for node in all_nodes(self.checked.game):
            if isinstance(node, ast.StrList):
                names.extend(node.values)
            elif isinstance(node, ast.NameLiteral):
                names.append(node.value)
        return tuple(dict.fromkeys(names))

    def _ints(self, node: ast.Node) -> range:
        node = base_collection(node)
        if isinstance(node, ast.Range):
            lookup = self._declared
            low, high = static_int(node.low, lookup), static_int(node.high, lookup)
            if low is not None and high is not None:
                return range(low, high + 1)
        return range(DEFAULT_INT_KEYS)

    def _declared(self, name: str) -> Any:
        for d in self.checked.game.declares:
            if d.var == name:
                return _Declared(d)
        return None


@dataclass
class _Declared:
    """What checker.static_int expects of a name lookup."""

    declare: ast.Declare


def _choices(node: ast.Node) -> Iterator[ast.Choice]:
    if isinstance(node, ast.Choice):
        yield node
    for child in statement_children(node):
        yield from _choices(child)


def _forks(node: ast.Node) -> Iterator[ast.ForEach]:
    """The keyed ``any`` loops of a condact, in the order options bind them: through
    guards, blocks, lets and other forks, not into loops that repeat or decide."""
    if isinstance(node, ast.ForEach):
        if node.quantifier != "any":
            return
        yield node
        yield from _forks(node.body)
    elif isinstance(node, ast.Do):
        for item in node.body:
            yield from _forks(item)
    elif isinstance(node, ast.Guarded | ast.Let):
        yield from _forks(node.body)


def _acts_outside(node: ast.Node, fork: ast.Node) -> bool:
    """Whether the condact has an action outside ``fork``: only then can one of its
    options come without the fork's binding (an option with no action is dropped)."""
    if node is fork:
        return False
    if isinstance(node, ast.ForEach) and node.quantifier == "any":
        return _acts_outside(node.body, fork)
    if isinstance(node, _STRUCTURE):
        return any(_acts_outside(c, fork) for c in statement_children(node))
    return True


def _always_seen(coll: ast.Node, choice: ast.Choice) -> bool:
    """Whether the mover sees every card of a collection: an open location, or the
    current player's own iloc in a choice the current player makes."""
    if not isinstance(coll, ast.Location):
        return False
    if coll.kind in ("vloc", "mem"):
        return True
    own = isinstance(coll.owner, ast.PlayerRef) and coll.owner.which == "current"
    return coll.kind == "iloc" and own and choice.chooser is None
