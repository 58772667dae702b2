"""Labels for people: what a card, a value, a location and an option are called.

Pipeline position: engine.  Two kinds of label live here:

- the *log label* (``option_label``, ``card_label`` ...): the Gamemaster writes option
  labels into the event log (``decision`` events, when a game is recorded; the native
  engine writes the same text from C++), and the low-level transcript
  (cardlang.runs.transcript) prints cards and locations with these.  Event logs are
  pinned byte for byte, so these texts change only with a deliberate change of the logs.
  What a card is called there comes from ``cardlang.language.kinds.card_name``.
- the *readable label* (``OptionText``, through ``Game.option_text``): "Buy Province
  ($8)", "Play the 7 of Hearts", made from an option's bindings and the source of its
  actions, or from the text a game file writes for its condact with ``(label "TEXT"
  CONDACT)`` (cardlang.language.label_text).  It is only for people (the story of a game,
  a seat's view): nothing that plays or is recorded reads it, so it may change freely.
  A reader's ``sees_card``/``sees_zone`` name only what that reader may see ("a card"
  for the rest).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from cardlang.engine.control import Option
from cardlang.engine.owners import GAME_OWNER, describe_owner, owner_words
from cardlang.errors import SourceFile
from cardlang.language import ast
from cardlang.language import types as T
from cardlang.language.kinds import card_name

if TYPE_CHECKING:
    from cardlang.engine.state_protocol import EngineState


def card_label(st: EngineState, card: int | None) -> str:
    """A card by its name ("Q SPADES", "SMITHY"), or "(none)" for no card."""
    if card is None:
        return "(none)"
    return card_name(st.cards[card])


def location_label(key: tuple[int, str, str]) -> str:
    """A location: "P0.HAND(iloc)", "game.DISCARD" (a vloc needs no kind)."""
    owner, kind, name = key
    return f"{describe_owner(owner)}.{name}" + ("" if kind == "vloc" else f"({kind})")


def value_label(st: EngineState, value: Any, type_: str) -> str:
    """A value of a variable of type ``type_``, as a person would read it."""
    if type_ == T.CARD:
        return card_label(st, value)
    if type_ == T.PLAYER:
        return f"P{value}"
    if type_ == T.TEAM:
        return f"team {value}"
    if type_ in (T.LOC, T.MEMLOC):  # a location: its name, and an open one's top card
        cards = st.zones.get(value, ())
        top = ""
        if value[1] == "vloc":
            top = f" (top {card_label(st, cards[-1])})" if cards else " (empty)"
        return location_label(value) + top
    if isinstance(value, list | tuple):
        return "[" + ", ".join(card_label(st, c) for c in value) + "]"
    return str(value)


def option_label(
    source: SourceFile, slot_types: Mapping[int, str], st: EngineState, option: Option
) -> str:
    """ "'C=Q SPADES: move 'C (top ...)": the option's bindings, then its actions' source."""
    binds, acts = [], []
    for fn, arg in option:
        if fn is None:
            slot, value, var = arg
            type_ = slot_types.get(slot, T.ANY)
            binds.append(f"'{var}={value_label(st, value, type_)}")
        else:
            acts.append(source.snippet(arg.span))
    label = ", ".join(binds)
    text = "; ".join(acts)
    return f"{label}: {text}" if label else text


# ---------------------------------------------------------------- readable labels
# What follows is for people only (see the module docstring): never written to a log.

#: Whether the reader sees a card (by id) / the contents of a location (by key).
SeesCard = Callable[[int], bool]
SeesZone = Callable[[tuple[int, str, str]], bool]

_RANK_WORDS = {
    "TWO": "2", "THREE": "3", "FOUR": "4", "FIVE": "5", "SIX": "6", "SEVEN": "7",
    "EIGHT": "8", "NINE": "9", "TEN": "10",
}  # fmt: skip
#: Where a card goes -> what putting it there is called ("Play X").
_PLAY_PLACES = frozenset(
    {"PLAY", "PLAYED", "IN-PLAY", "TABLE", "TRICK", "PILE", "FIELD", "BOARD", "CENTER", "POT"}
)
_DEST_VERBS = {
    "DISCARD": "Discard",
    "DISCARDS": "Discard",
    "DISCARDED": "Discard",
    "TRASH": "Trash",
    "REVEALED": "Reveal",
    "REVEAL": "Reveal",
    "PASSING": "Pass",
    "PASSED": "Pass",
    "SET-ASIDE": "Set aside",
    "ASIDE": "Set aside",
    "KEPT": "Keep",
    "KEEP": "Keep",
}
_ON_TOP = ("DECK", "STACK", "STOCK", "DRAW", "LIBRARY")
A_CARD = "a card"


def words(name: str) -> str:
    """A name of the game file as people write it: ``NEW-YORK`` -> ``New York``."""
    return " ".join(w[:1].upper() + w[1:].lower() for w in str(name).split("-"))


def card_title(attrs: Mapping[str, Any]) -> str:
    """A card as people call it: its KIND ("Throne Room"), a standard card by rank and
    suit ("the 7 of Hearts", "the Queen of Spades"), a route by its ends ("New York to
    Montreal"), else its attribute values ("Red")."""
    kind = attrs.get("KIND")
    if kind is not None:
        return words(kind)
    rank = attrs.get("RANK")
    if rank is not None:
        r = _RANK_WORDS.get(str(rank)) or words(str(rank))
        suit = attrs.get("SUIT")
        return f"the {r} of {words(suit)}" if suit is not None else f"the {r}"
    if "FROM" in attrs and "TO" in attrs:
        return f"{words(attrs['FROM'])} to {words(attrs['TO'])}"
    shown = [words(str(v)) for k, v in attrs.items() if k != "DECK"]
    return " ".join(shown) or A_CARD


def _base_and_index(name: str) -> tuple[str, str]:
    base, _, index = name.partition("#")
    return base, index


class OptionText:
    """Readable labels of one game's options (``Game.option_text`` keeps one).

    ``__call__(st, choice, option, mover, sees_card, sees_zone)``: the written label of
    the option's condact with its placeholders filled, else an automatic one: a verb from
    what the option does (a move to a play area "Play X", to a discard "Discard X", a
    procedure "Gain X"; "Pass"; storage changes "Add 1 to the pot") and the cards it binds
    by name.  Reads the state, never changes it."""

    def __init__(self, game: Any) -> None:
        from cardlang.language.label_text import branch_template
        from cardlang.language.statics import all_nodes

        checked = game.checked
        self.slot_types: Mapping[int, str] = checked.slot_types
        self.slots: Mapping[int, int] = checked.slots
        attributes = {*checked.deck_attributes, *checked.kind_attribute_types}
        # a labelled condact, by where it starts -> its text's parts
        self.templates: dict[int, tuple[Any, ...]] = {}
        for node in all_nodes(game.ast):
            if isinstance(node, ast.Choice) and node.labels:
                for label, condact in zip(node.labels, node.body, strict=True):
                    if label is not None:
                        parts = branch_template(label, condact, checked, attributes or None)
                        self.templates[condact.span.start_pos] = parts

    def __call__(
        self,
        st: Any,
        choice: Any,
        option: Option,
        mover: int | None = None,
        sees_card: SeesCard | None = None,
        sees_zone: SeesZone | None = None,
    ) -> str:
        ctx = _Context(self, st, option, mover, sees_card, sees_zone)
        first = next((arg for fn, arg in option if fn is not None), None)
        if choice is not None and self.templates:
            branch = choice.branch_of(first)
            if branch < len(choice.branches):
                parts = self.templates.get(choice.branches[branch].start_pos)
                if parts is not None:
                    return ctx.fill(parts)
        return ctx.automatic()


class _Context:
    """One option being labelled: its bindings, the state, the reader."""

    def __init__(
        self,
        text: OptionText,
        st: Any,
        option: Option,
        mover: int | None,
        sees_card: SeesCard | None,
        sees_zone: SeesZone | None,
    ) -> None:
        self.text = text
        self.st = st
        self.mover = st.mover if mover is None else mover
        self.sees_card = sees_card
        self.sees_zone = sees_zone
        self.bound: dict[int, Any] = {}  # slot -> value
        self.by_var: dict[str, int] = {}  # variable -> slot, in binding order
        self.actions: list[Any] = []
        for fn, arg in option:
            if fn is None:
                slot, value, var = arg
                self.bound[slot] = value
                self.by_var.setdefault(var, slot)
            else:
                self.actions.append(arg)
        self.named: set[int] = set()  # bound slots a phrase has named

    # ------------------------------------------------------------ values
    def type_of(self, slot: int) -> str:
        return self.text.slot_types.get(slot, T.ANY)

    def card(self, card: int | None) -> str:
        if card is None:
            return "no card"
        if self.sees_card is not None and not self.sees_card(card):
            return A_CARD
        return card_title(self.st.cards[card])

    def top_card(self, key: tuple[int, str, str]) -> int | None:
        cards = self.st.zones.get(key) or ()
        return cards[-1] if cards else None

    def location(self, key: tuple[int, str, str]) -> str:
        """A location by its owner and name: "your discard", "the supply 3"."""
        owner, _, name = key
        base, index = _base_and_index(name)
        text = f"{self.owner(owner)} {words(base).lower()}"
        return f"{text} {index}" if index else text

    def pile(self, key: tuple[int, str, str]) -> str:
        """A bound location, as people see it: by its top card (a pile of Provinces is
        "Province"), else by its name."""
        if self.sees_zone is not None and not self.sees_zone(key):
            return self.location(key)
        top = self.top_card(key)
        return f"{self.location(key)} (empty)" if top is None else self.card(top)

    def owner(self, owner: int | None) -> str:
        if owner is None:
            return "a player's"
        if owner == self.mover:
            return "your"
        if owner == GAME_OWNER:
            return "the"
        return f"{owner_words(owner)}'s"

    def value(self, value: Any, type_: str) -> str:
        if type_ == T.CARD:
            return self.card(value)
        if type_ in (T.LOC, T.MEMLOC):
            return self.pile(value)
        if type_ == T.PLAYER:
            return "you" if value == self.mover else f"P{value}"
        if type_ == T.TEAM:
            return f"team {value}"
        if isinstance(value, str):
            return words(value)
        if isinstance(value, list | tuple):
            return ", ".join(self.card(c) for c in value) or "nothing"
        return str(value)

    def var_value(self, node: Any) -> tuple[int, Any] | None:
        """A variable's (slot, value): the option's binding, else its register."""
        slot = self.text.slots.get(id(node))
        if slot is None:
            return None
        if slot in self.bound:
            return slot, self.bound[slot]
        regs = getattr(self.st, "regs", None)
        if regs is not None and 0 <= slot < len(regs):
            return slot, regs[slot]
        return None

    # ------------------------------------------------------------ written labels
    def fill(self, parts: tuple[Any, ...]) -> str:
        out = []
        for p in parts:
            if isinstance(p, str):
                out.append(p)
                continue
            if p.var is not None:
                slot = self.by_var.get(p.var)
                if slot is None:
                    out.append("?")
                    continue
                value, type_ = self.bound[slot], self.type_of(slot)
            else:  # the option's first card (or location)
                found = next(
                    (
                        (self.bound[s], self.type_of(s))
                        for s in self.by_var.values()
                        if self.type_of(s) in (T.CARD, T.LOC, T.MEMLOC)
                    ),
                    None,
                )
                if found is None:
                    out.append("?")
                    continue
                value, type_ = found
            if p.attribute is None:
                out.append(self.value(value, type_))
            else:
                out.append(self.attribute(value, type_, p.attribute))
        return "".join(out)

    def attribute(self, value: Any, type_: str, name: str) -> str:
        card = value
        if type_ in (T.LOC, T.MEMLOC):
            if self.sees_zone is not None and not self.sees_zone(value):
                return "?"
            card = self.top_card(value)
        if card is None or (self.sees_card is not None and not self.sees_card(card)):
            return "?"
        found = self.st.cards[card].get(name)
        if found is None:
            return "?"
        if isinstance(found, list | tuple):
            return ", ".join(words(v) for v in found)
        return words(found) if isinstance(found, str) else str(found)

    # ------------------------------------------------------------ automatic labels
    def automatic(self) -> str:
        """The phrases of the option's actions: those that name what the option binds
        when some do ("Play Smithy", not "Take 1 from your actions, play Smithy"), else
        all of them; a binding no phrase names is added in parentheses."""
        naming: list[str] = []
        every: list[str] = []
        for node in self.actions:
            before = len(self.named)
            phrase = self.phrase(node)
            if not phrase:
                continue
            if phrase not in every:
                every.append(phrase)
            if len(self.named) > before and phrase not in naming:
                naming.append(phrase)
        phrases = naming or every
        unnamed = [s for s in self.by_var.values() if s not in self.named]
        extra = ", ".join(self.value(self.bound[s], self.type_of(s)) for s in unnamed)
        if not phrases:
            return extra or "Go on"
        text = ", ".join([phrases[0], *(p[:1].lower() + p[1:] for p in phrases[1:])])
        return f"{text} ({extra})" if extra else text

    def subject(self, node: Any) -> str | None:
        """The card an action acts on, by name (None: not one this can tell)."""
        while isinstance(node, ast.Actual):
            node = node.card
        if isinstance(node, ast.Variable):
            found = self.var_value(node)
            if found is None:
                return None
            slot, value = found
            if slot in self.bound:
                self.named.add(slot)
            return self.value(value, self.type_of(slot))
        if isinstance(node, ast.CardAt) and isinstance(node.position, str):
            coll = node.collection
            if isinstance(coll, ast.Variable):
                found = self.var_value(coll)
                if found is not None and self.type_of(found[0]) in (T.LOC, T.MEMLOC):
                    slot, key = found
                    if slot in self.bound:
                        self.named.add(slot)
                    cards = self.st.zones.get(key) or ()
                    if not cards:
                        return None
                    card = cards[-1] if node.position == "top" else cards[0]
                    if self.sees_zone is not None and not self.sees_zone(key):
                        return A_CARD
                    return self.card(card)
            key = self.location_key(coll)
            if key is not None:
                if self.sees_zone is not None and not self.sees_zone(key):
                    return A_CARD
                cards = self.st.zones.get(key) or ()
                if cards and (self.sees_zone is None or self.sees_zone(key)):
                    return self.card(cards[-1] if node.position == "top" else cards[0])
                return f"the {node.position} card of {self.location(key)}"
        return None

    def location_key(self, node: Any) -> tuple[int, str, str] | None:
        """The key of a written location ``(OWNER KIND NAME [INDEX])``, when its parts can
        be read without evaluating anything (None otherwise)."""
        if isinstance(node, ast.Variable):
            found = self.var_value(node)
            if found is not None and self.type_of(found[0]) in (T.LOC, T.MEMLOC):
                return found[1]  # type: ignore[no-any-return]
            return None
        if not isinstance(node, ast.Location) or not isinstance(node.name, ast.NameLiteral):
            return None
        owner = self.owner_value(node.owner)
        if owner is None:
            return None
        name = node.name.value
        if node.index is not None:
            if not isinstance(node.index, ast.IntLiteral):
                return None
            name = f"{name}#{node.index.value}" if node.index.value else name
        return (owner, node.kind, name)

    def owner_value(self, node: Any) -> int | None:
        if isinstance(node, ast.GameOwner):
            return GAME_OWNER
        if isinstance(node, ast.PlayerRef) and isinstance(node.which, str):
            current = self.st.current_seat
            n = self.st.nplayers
            step = {"current": 0, "next": 1, "previous": -1}.get(node.which)
            return None if step is None or not n else (current + step) % n
        if isinstance(node, ast.Variable):
            found = self.var_value(node)
            if found is not None and self.type_of(found[0]) == T.PLAYER:
                return found[1]  # type: ignore[no-any-return]
        return None

    def storage(self, node: Any) -> str:
        """An integer or string storage: "your coins", "the pot"."""
        if isinstance(node, ast.Storage) and isinstance(node.name, ast.NameLiteral):
            return f"{self.owner(self.owner_value(node.owner))} {words(node.name.value).lower()}"
        return "a storage"

    def amount(self, node: Any) -> str | None:
        if isinstance(node, ast.IntLiteral):
            return str(node.value)
        if isinstance(node, ast.NameLiteral):
            return words(node.value)
        if isinstance(node, ast.Storage):
            return self.storage(node)
        if isinstance(node, ast.Variable) or isinstance(node, ast.CardAt):
            return self.subject(node)
        return None

    def phrase(self, node: Any) -> str | None:
        """What one action does, in a few words."""
        if isinstance(node, ast.Pass):
            return "Pass"
        if isinstance(node, ast.Move):
            return self.move_phrase(node)
        if isinstance(node, ast.Call):
            verb = words(node.name)
            verb = verb[:1] + verb[1:].lower()
            if node.name == "GAIN" and self.buys():
                verb = "Buy"
            for arg in node.args:
                before = set(self.named)
                name = self.subject(arg)
                if name is not None and self.named - before:
                    return f"{verb} {name}"
            return verb
        if isinstance(node, ast.SetValue):
            value = self.amount(node.value)
            if value is None:
                return f"Change {self.storage(node.target)}"
            return f"Set {self.storage(node.target)} to {value}"
        if isinstance(node, ast.Increment):
            amount = self.amount(node.amount)
            target = self.storage(node.target)
            if node.sign > 0:
                return f"Add {amount} to {target}" if amount else f"Raise {target}"
            return f"Take {amount} from {target}" if amount else f"Lower {target}"
        if isinstance(node, ast.Cycle | ast.TurnPass):
            return "End the turn"
        if isinstance(node, ast.Shuffle):
            key = self.location_key(node.location)
            return f"Shuffle {self.location(key)}" if key is not None else "Shuffle"
        if isinstance(node, ast.Do):
            parts = [self.phrase(b) for b in node.body]
            return ", ".join(p for p in parts if p) or None
        return None

    def buys(self) -> bool:
        """Whether the option spends a buy (a gain in it is then a purchase)."""
        for node in self.actions:
            if isinstance(node, ast.Increment) and node.sign < 0:
                target = node.target
                if isinstance(target, ast.Storage) and isinstance(target.name, ast.NameLiteral):
                    if target.name.value in ("BUYS", "BUY"):
                        return True
        return False

    def move_phrase(self, node: ast.Move) -> str:
        dest = node.dest
        end = "top"
        if isinstance(dest, ast.CardAt):
            end = dest.position if isinstance(dest.position, str) else "top"
            dest = dest.collection
        key = self.location_key(dest)
        before = set(self.named)
        subject = self.subject(node.card)
        bound = bool(self.named - before)
        if subject is None:
            subject = A_CARD
        if key is None:
            return f"Move {subject}"
        base, _ = _base_and_index(key[2])
        if base == "HAND" and not bound:
            # the top card of a pile no one sees (a deck, a stock) into a hand: a draw
            src = node.card.collection if isinstance(node.card, ast.CardAt) else None
            src_key = self.location_key(src) if src is not None else None
            hidden = src_key is not None and (
                src_key[1] == "hloc" or (src_key[1] == "iloc" and src_key[0] != key[0])
            )
            if hidden or subject == A_CARD:
                return f"Draw {subject}"
            return f"Take {subject}"
        if base in _PLAY_PLACES:
            return f"Play {subject}"
        verb = _DEST_VERBS.get(base)
        if verb is None and base.startswith("DISCARD"):
            verb = "Discard"
        if verb is not None:
            return f"{verb} {subject}"
        if base == "HAND":
            return (
                f"Take {subject}"
                if key[0] in (self.mover, GAME_OWNER)
                else (f"Give {subject} to {self.owner(key[0])[:-2]}")
            )
        place = self.location(key)
        if base in _ON_TOP:
            return (
                f"Put {subject} on {place}"
                if end == "top"
                else (f"Put {subject} at the bottom of {place}")
            )
        return f"Put {subject} in {place}"
