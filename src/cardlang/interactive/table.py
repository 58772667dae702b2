"""What a seat sees, as plain data for people: the table a front end draws.

Built from a ``PlayerView`` only (information/views.py), so it holds what the seat may
know and nothing else: its own cards by name, the open zones, the sizes of the zones it
cannot see into, the storages, the situation's text and the options' labels.  Owners are
named from the seat's side ("you", "P1", "game").  A zone is listed bottom card first,
as the game keeps it; a long zone of alike cards is one entry with a count.

The game's presentation forms (docs/language.md, "Presentation") say how: a location's or
storage's name for people (``(display ...)``), what is never shown (``(bookkeeping
...)``), how a hand is sorted (``(hand-order ...)``; without one, a hand's alike cards
are listed together in the order first met), each seat's score while playing
(``(table-score ...)``), the cards' texts (``(text ...)``), the open locations drawn face
down (``(face-down ...)``), a storage's values in words (``(display-values ...)``), the
counters that mean something only during their owner's turn (``(during-turn ...)``),
and at the end why the game ended and each seat's score line by line (``(end-reason
...)``, ``(score-part ...)``: runs/ending.py).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cardlang.engine.labels import card_title
from cardlang.engine.owners import GAME_OWNER, owner_words
from cardlang.language.checked_game import Presentation
from cardlang.language.label_text import fill_attributes, labels_text
from cardlang.runs.story import PLAY_PLACES

#: A zone with more cards than this is shown as counts per kind.
LISTED_CARDS = 10


@dataclass(frozen=True)
class Zone:
    owner: str  # "you", "P1", "game", "team 0"
    name: str  # the game's (display ...) name, else the location's ("SUPPLY")
    size: int
    cards: tuple[str, ...] | None  # None: hidden from the seat (only its size is known)
    index: int | None = None  # one of indexed locations (a Supply pile): its index
    ref: str = ""  # the location as options name it ("-1:vloc:SUPPLY#2"): what a click picks


@dataclass(frozen=True)
class Table:
    seat: int
    players: int
    turn: int
    situation: str
    text: str  # the situation's text, for people
    yours: tuple[Zone, ...]  # the seat's own zones
    open: tuple[Zone, ...]  # everything else it sees into
    hidden: tuple[Zone, ...]  # what it sees only the size of
    storages: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]  # (owner, (name, value)...)
    options: tuple[str, ...]  # the options' labels, in the game's order
    score_text: str = ""  # what the game's table score is called ("VP"); "" for none
    scores: tuple[tuple[str, int], ...] = ()  # (owner, table score) per seat, yours first
    card_texts: tuple[tuple[str, str], ...] = ()  # (card name, its text) for cards shown
    # (card name, its badge, its colour) for cards shown ((card-badge ...), (card-colour ...))
    card_looks: tuple[tuple[str, str, str], ...] = ()
    # (card name, its face: rank and suit symbol) for standard cards shown (card_face)
    card_faces: tuple[tuple[str, str], ...] = ()
    # per option, what a click on the table stands for it: ("card", a card's name: one of
    # the seat's own cards), ("zone", a zone's ref: a pile), or None (a button only)
    targets: tuple[tuple[str, str] | None, ...] = ()
    # the place every player plays to (a trick, cards in play), one zone per seat, each
    # with its seat's offset from this one (0: yours): shown in the middle, the seats
    # around it; these zones are in neither ``yours`` nor ``open``
    middle: tuple[tuple[int, Zone], ...] = ()
    # how the game numbers its rounds ("Trick 3": (round-number ...)); "" where it says not
    round_text: str = ""


#: A standard card's suit as its symbol, its rank in a letter or two ("King of Clubs" ->
#: "K\u2663"): how both front ends show it where the table lists cards (the terminal's
#: text and the page's card faces, from here alone); the options keep their words
#: (answers name them).
SUITS = {"Clubs": "\u2663", "Diamonds": "\u2666", "Hearts": "\u2665", "Spades": "\u2660"}
RANKS = {"Ace": "A", "King": "K", "Queen": "Q", "Jack": "J"}
_STANDARD = re.compile(r"\b(Ace|King|Queen|Jack|[0-9]+) of (Clubs|Diamonds|Hearts|Spades)\b")


def card_face(name: str) -> str | None:
    """A standard card's face ("10 of Hearts" -> "10\u2665"); None for any other name."""
    found = _STANDARD.fullmatch(name)
    return None if found is None else _face(found)


def with_faces(text: str) -> str:
    """Every standard card in ``text`` by its face: "K of Clubs, 7 of Hearts x2" ->
    "K\u2663, 7\u2665 x2"."""
    return _STANDARD.sub(_face, text)


def _face(found: re.Match[str]) -> str:
    return RANKS.get(found[1], found[1]) + SUITS[found[2]]


def card_label(attrs: Mapping[str, Any]) -> str:
    """A card's name for people, as the options' labels write it (engine/labels.py
    ``card_title``) without its article: "Province", "7 of Hearts", "New York to
    Montreal"."""
    return re.sub(r"^the ", "", card_title(attrs))


def shown_cards(names: Sequence[str]) -> tuple[str, ...]:
    """A zone's cards in order, a run of equal ones counted ("Copper x4, Estate"); a long
    zone by its counts per kind ("Copper x46")."""
    if len(names) > LISTED_CARDS:
        counts = Counter(names)
        return tuple(f"{name} x{n}" if n > 1 else name for name, n in counts.items())
    runs: list[tuple[str, int]] = []
    for name in names:
        if runs and runs[-1][0] == name:
            runs[-1] = (name, runs[-1][1] + 1)
        else:
            runs.append((name, 1))
    return tuple(f"{name} x{n}" if n > 1 else name for name, n in runs)


def seat_view(st: Any, seat: int, game: Any) -> Any:
    """A view of ``st`` for ``seat`` that reads the state now (and is dropped at once)."""
    from cardlang.information.views import PlayerView

    return PlayerView.live(st, seat, game, ())


def table_of(view: Any, labels: Sequence[str]) -> Table:
    """The table of ``view`` (a PlayerView), with its options' ``labels``."""
    seat = view.seat
    shows = presentation_of(view)
    yours: list[Zone] = []
    opened: list[Zone] = []
    hidden: list[Zone] = []
    texts: dict[str, str] = {}
    looks: dict[str, tuple[str, str]] = {}
    faces: dict[str, str] = {}
    played: dict[str, list[tuple[int, Zone]]] = {}  # a play place's zones, by its name
    for (owner, kind, name), cards in sorted(view.visible.items(), key=_zone_order):
        base, index = _base_and_index(name)
        if (kind, base) in shows.bookkeeping:
            continue
        if (kind, base) in shows.face_down:  # seen by the rules, drawn as a face-down pile
            if cards:
                hidden.append(_face_down((owner, kind, name), len(cards), seat, shows))
            continue
        if owner == seat and kind == "iloc":  # a hand: sorted, alike cards together
            cards = sorted_hand(cards, shows)
        names = [card_label(c) for c in cards]
        texts.update(_card_texts(cards, names, shows))
        looks.update(_card_looks(cards, names, shows))
        faces.update((name, face) for name in names if (face := card_face(name)))
        zone = Zone(
            owner_words(owner, seat),
            shows.displays.get((kind, base), base),
            len(names),
            shown_cards(names),
            index,
            zone_ref((owner, kind, name)),
        )
        (yours if owner == seat else opened).append(zone)
        if kind == "vloc" and owner >= 0 and index is None and base in PLAY_PLACES:
            played.setdefault(base, []).append(((owner - seat) % view.nplayers, zone))
    middle = _middle(played, view.nplayers, seat)
    taken = {id(zone) for _, zone in middle}
    yours = [z for z in yours if id(z) not in taken]
    opened = [z for z in opened if id(z) not in taken]
    for (owner, kind, name), size in sorted(view.hidden_sizes.items(), key=_zone_order):
        if size and (kind, _base_and_index(name)[0]) not in shows.bookkeeping:
            hidden.append(_face_down((owner, kind, name), size, seat, shows))
    scores = getattr(view, "table_scores", None)
    return Table(
        seat=seat,
        players=view.nplayers,
        turn=view.turns,
        situation=view.situation or "",
        text=_situation_text(view),
        yours=tuple(yours),
        open=tuple(opened),
        hidden=tuple(hidden),
        storages=_storages(view, shows),
        options=tuple(labels),
        score_text=(shows.table_score_text or "") if scores else "",
        scores=_scores(scores, seat),
        card_texts=tuple(sorted(texts.items())),
        card_looks=tuple((name, *look) for name, look in sorted(looks.items())),
        card_faces=tuple(sorted(faces.items())),
        targets=option_targets(view) if labels else (),
        middle=middle,
        round_text=_round_text(view, shows),
    )


def _round_text(view: Any, shows: Presentation) -> str:
    """The game's own round number ("Trick 3"): its (round-number ...) storage, the
    game's or else the current player's, plus the offset; "" without the form."""
    if shows.round_number is None:
        return ""
    _, name, text, offset = shows.round_number
    value = view.ints.get((GAME_OWNER, name))
    if value is None:
        value = view.ints.get((view.current_player, name), 0)
    return f"{text} {int(value) + offset}"


def _face_down(key: tuple[int, str, str], size: int, seat: int, shows: Presentation) -> Zone:
    """A location drawn as a pile of backs with its size: hidden from the seat, or
    open to it but ``(face-down ...)``."""
    owner, kind, name = key
    base, index = _base_and_index(name)
    label = shows.displays.get((kind, base), base)
    return Zone(owner_words(owner, seat), label, size, None, index, zone_ref(key))


def _middle(
    played: dict[str, list[tuple[int, Zone]]], players: int, seat: int
) -> tuple[tuple[int, Zone], ...]:
    """The first place players play to, one zone per seat by its offset (a seat whose
    zone is not made yet, before it first plays, an empty one): the middle of the table.
    None in a solo game."""
    if players < 2 or not played:
        return ()
    zones = dict(next(iter(played.values())))
    name = next(iter(zones.values())).name
    for offset in range(players):
        if offset not in zones:
            owner = owner_words((seat + offset) % players, seat)
            zones[offset] = Zone(owner, name, 0, ())
    return tuple(sorted(zones.items()))


def zone_ref(key: tuple[int, str, str]) -> str:
    """A location as a string both a zone and an option can carry."""
    owner, kind, name = key
    return f"{owner}:{kind}:{name}"


def option_targets(view: Any) -> tuple[tuple[str, str] | None, ...]:
    """Per option, what stands for it on the table: the location its first binding names
    (a Supply pile: "Buy Silver"), else the card it binds (a card in hand: "Play
    Smithy"), else nothing."""
    out: list[tuple[str, str] | None] = []
    for option in getattr(view, "options", ()):
        target: tuple[str, str] | None = None
        for _, value in option.bindings:
            if isinstance(value, tuple) and len(value) == 3 and isinstance(value[1], str):
                target = ("zone", zone_ref(value))
            elif isinstance(value, Mapping):
                target = ("card", card_label(value))
            if target is not None:
                break
        out.append(target)
    return tuple(out)


def option_order(table: Table) -> list[int]:
    """The options in the order a person finds them: those that play or pick a card of
    the seat's hand in the hand's order (sorted: ``(hand-order ...)``), the others after
    them in the game's order.  Indices into ``table.options``."""
    hand = next((z for z in table.yours if z.name == "Hand" and z.cards), None)
    if hand is None or not table.targets:
        return list(range(len(table.options)))
    place: dict[str, int] = {}
    for card in hand.cards or ():
        place.setdefault(re.sub(r" x[0-9]+$", "", card), len(place))
    after = len(place)

    def key(i: int) -> tuple[int, int]:
        target = table.targets[i] if i < len(table.targets) else None
        if target is not None and target[0] == "card" and target[1] in place:
            return (place[target[1]], i)
        return (after, i)

    return sorted(range(len(table.options)), key=key)


def presentation_of(view: Any) -> Presentation:
    """The game's presentation forms (empty for a view without its game)."""
    game = getattr(view, "game", None)
    checked = getattr(game, "checked", None)
    return checked.presentation if checked is not None else Presentation()


def sorted_hand(cards: Sequence[Mapping[str, Any]], shows: Presentation) -> list[Any]:
    """A hand in the game's ``(hand-order ...)``; without one, alike cards together in
    the order first met (a stable sort on that order)."""
    if shows.hand_order:
        return sorted(cards, key=lambda c: _order_key(c, shows))
    first: dict[str, int] = {}
    for c in cards:
        first.setdefault(card_label(c), len(first))
    return sorted(cards, key=lambda c: first[card_label(c)])


def _order_key(card: Mapping[str, Any], shows: Presentation) -> tuple[Any, ...]:
    """Per key: the value's place in the decks' order, else a number, else its name (a
    tuple whose first item keeps the three kinds of value apart)."""
    key: list[Any] = []
    for name in shows.hand_order:
        value = card.get(name)
        order = shows.value_orders.get(name, ())
        if value in order:
            key.append((0, order.index(value), ""))
        elif isinstance(value, int):
            key.append((1, value, ""))
        else:
            key.append((2, 0, "" if value is None else str(value)))
    return (*key, card_label(card))


def _card_texts(
    cards: Sequence[Mapping[str, Any]], names: Sequence[str], shows: Presentation
) -> dict[str, str]:
    """The texts of the cards' kinds (``(text ...)``), by card name, placeholders filled."""
    out: dict[str, str] = {}
    for card, name in zip(cards, names, strict=True):
        text = shows.card_texts.get(str(card.get("KIND")))
        if text is not None and name not in out:
            out[name] = fill_attributes(text, card)
    return out


def _card_looks(
    cards: Sequence[Mapping[str, Any]], names: Sequence[str], shows: Presentation
) -> dict[str, tuple[str, str]]:
    """Each card's badge and colour by name (empty strings where the game gives none)."""
    if shows.card_badge is None and shows.card_colours is None:
        return {}
    out: dict[str, tuple[str, str]] = {}
    for card, name in zip(cards, names, strict=True):
        if name in out:
            continue
        badge = fill_attributes(shows.card_badge, card) if shows.card_badge else ""
        out[name] = (badge, _colour(card, shows))
    return out


def _colour(card: Mapping[str, Any], shows: Presentation) -> str:
    """The first (VALUE "COLOUR") of the game's (card-colour ...) the card's attribute
    is, or holds."""
    if shows.card_colours is None:
        return ""
    attribute, pairs = shows.card_colours
    value = card.get(attribute)
    for wanted, colour in pairs:
        if value == wanted or (isinstance(value, tuple) and wanted in value):
            return colour
    return ""


def _scores(scores: Sequence[int] | None, seat: int) -> tuple[tuple[str, int], ...]:
    if not scores:
        return ()
    order = sorted(range(len(scores)), key=lambda p: (p != seat, p))
    return tuple((owner_words(p, seat), int(scores[p])) for p in order)


def _base_and_index(name: str) -> tuple[str, int | None]:
    """``SUPPLY#7`` -> (``SUPPLY``, 7); the first of indexed locations has no ``#``."""
    base, _, index = name.partition("#")
    return base, int(index) if index.isdigit() else None


def _situation_text(view: Any) -> str:
    """The decision's text: the game's ``(situation NAME "text")``, else its name in
    words; an unnamed choice ("CHOICE") is asked by its options' labels when they are
    few ("Check or Bet 1?"), else "Choose one:"."""
    name = view.situation or ""
    text = view.situation_text or ""
    if text != name:  # the game wrote one
        return str(text)
    if name in ("", "CHOICE"):
        if not name:
            return ""
        labels = list(dict.fromkeys(view.option_labels))
        return labels_text(labels) + "?" if 2 <= len(labels) <= 4 else "Choose one:"
    return name.replace("-", " ").capitalize() + ":"


def _zone_order(item: tuple[Any, Any]) -> tuple[int, tuple[Any, ...]]:
    """Seats first, then the game and teams; names in natural order (SUPPLY#2 before
    SUPPLY#10)."""
    (owner, _kind, name), _ = item
    natural = tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name))
    return (owner if owner >= 0 else 1_000 - owner, natural)


def _storages(
    view: Any, shows: Presentation
) -> tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]:
    """Each owner's storages for people: by their display names, their values as the
    game displays them (``(display-values ...)``), a ``(during-turn ...)`` storage only
    while its owner is the one to play."""
    by_owner: dict[int, list[tuple[str, Any]]] = {}
    for kind, source in (("sto", view.ints), ("str", view.strs)):
        for (owner, name), value in source.items():
            if (kind, name) in shows.bookkeeping:
                continue
            if (kind, name) in shows.during_turn and owner != view.current_player:
                continue
            shown = shows.displays.get((kind, name), name)
            texts = shows.value_texts.get((kind, name))
            if texts is not None:
                value = texts.get(str(value), value)
            by_owner.setdefault(owner, []).append((shown, value))
    ordered = sorted(by_owner.items(), key=lambda kv: (kv[0] != view.seat, kv[0] < 0, kv[0]))
    return tuple((owner_words(o, view.seat), tuple(sorted(vals))) for o, vals in ordered)
