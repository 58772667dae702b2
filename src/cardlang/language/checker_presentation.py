"""The rules of the presentation forms: what a table shows people (``(display ...)``,
``(bookkeeping ...)``, ``(face-down ...)``, ``(hand-order ...)``, ``(table-score ...)``,
``(end-reason ...)``, ``(score-part ...)``, a card kind's ``(text ...)``).

Pipeline position: language layer, a mixin of ``Checker`` (checker.py), run once the
whole game is checked (the names a game reads and writes are known then).  Nothing that
plays reads these forms: they are checked so that a typo in one is found, not shown as
a blank.  The result is ``CheckedGame.presentation`` (checked_game.py ``Presentation``).

A table score is evaluated while a game is played, end reasons and score parts once it is
over, for every seat to see: the checker holds them to what every player sees (storages,
the sizes of locations, the cards of locations open to all) and forbids ``random``, which
would draw from the game's stream and change the game.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping

from cardlang.errors import did_you_mean
from cardlang.language import ast
from cardlang.language import types as T
from cardlang.language.ast_facts import MAX_CARDS, children, deck_cards, deck_size
from cardlang.language.checked_game import Presentation
from cardlang.language.checker_base import RuleBase, article
from cardlang.language.kinds import KIND_ATTRIBUTE
from cardlang.language.label_text import attribute_placeholders, span_in_string

#: Location kinds whose cards some player may not see: a table score reads only their size.
_PRIVATE_KINDS = ("iloc", "hloc", "mem")
#: A colour a page may be given: a CSS name or #hex (nothing else reaches a style).
_COLOUR = re.compile(r"#[0-9a-fA-F]{3}(?:[0-9a-fA-F]{3})?|[a-z]{3,20}")
#: Types a table score may read only the size of (they may hold hidden cards).
_COLLECTION_TYPES = (T.LOC, T.MEMLOC, T.CARDS, T.CARDSS, T.LOCS)


class PresentationRules(RuleBase):
    """The checks of the presentation forms (see the module docstring)."""

    def _check_presentation(self) -> None:
        game = self.out.game
        forms = game.presentation or ast.Presentation(span=game.span)
        out = Presentation()
        self._used = {  # the names the game uses (written or read), per family: their kinds
            "loc": _kinds_by_name(self.loc_written, self.loc_read),
            "sto": _kinds_by_name(self.sto_written, self.sto_read),
        }
        for d in forms.displays:
            if self._presented_name(d.kind, d.name, d.span):
                key = (d.kind, d.name)
                if key in out.displays:
                    self.error(d.span, f"{d.kind} {d.name} is displayed twice")
                out.displays[key] = d.text
        for b in forms.bookkeeping:
            for name in b.names:
                if self._presented_name(b.kind, name, b.span):
                    out.bookkeeping.add((b.kind, name))
        shown = [k for k in out.displays if k in out.bookkeeping]
        for kind, name in shown:
            self.error(game.span, f"{kind} {name} is both displayed and bookkeeping")
        for f in forms.face_down:
            for name in f.names:
                if self._presented_name(f.kind, name, f.span):
                    if (f.kind, name) in out.bookkeeping:
                        self.error(f.span, f"{f.kind} {name} is bookkeeping: it is never shown")
                    out.face_down.add((f.kind, name))
        out.hand_order = self._hand_order(forms.hand_order)
        out.value_orders = _value_orders(game)
        out.card_texts = self._card_texts()
        if len(forms.table_score) > 1:
            self.error(forms.table_score[1].span, "a game has one (table-score ...)")
        if forms.table_score:
            score = forms.table_score[0]
            self.expect(score.value, T.INT, "as the table score")
            self._public_only(score.value, sized=False, what="a table score")
            out.table_score_text, out.table_score = score.text, score.value
        for reason in forms.end_reasons:
            self.expect(reason.value, T.BOOL, "as an end reason's condition")
            self._public_only(reason.value, sized=False, what="an end reason")
        out.end_reasons = tuple((r.text, r.value) for r in forms.end_reasons)
        for part in forms.score_parts:
            self.expect(part.value, T.INT, "as a score part")
            self._public_only(part.value, sized=False, what="a score part")
        out.score_parts = tuple((p.text, p.value) for p in forms.score_parts)
        out.card_badge = self._card_badge(forms.card_badge)
        out.card_colours = self._card_colours(forms.card_colour)
        for v in forms.display_values:
            if self._presented_name(v.kind, v.name, v.span):
                if (v.kind, v.name) in out.value_texts:
                    self.error(v.span, f"{v.kind} {v.name}'s values are displayed twice")
                out.value_texts[(v.kind, v.name)] = {p.value: p.text for p in v.values}
        if len(forms.round_number) > 1:
            self.error(forms.round_number[1].span, "a game has one (round-number ...)")
        for r in forms.round_number[:1]:
            if r.kind == "str":
                self.error(r.span, "a round is numbered by an integer storage (sto)")
            elif self._presented_name(r.kind, r.name, r.span):
                out.round_number = (r.kind, r.name, r.text, r.offset)
        for t in forms.during_turn:
            for name in t.names:
                if self._presented_name(t.kind, name, t.span):
                    out.during_turn.add((t.kind, name))
        self.out.presentation = out

    def _card_attributes(self) -> set[str]:
        return {*self.out.deck_attributes, *self.out.kind_attribute_types}

    def _card_badge(self, forms: tuple[ast.CardBadge, ...]) -> str | None:
        if not forms:
            return None
        if len(forms) > 1:
            self.error(forms[1].span, "a game has one (card-badge ...)")
        badge = forms[0]
        known = self._card_attributes()
        for start, end, message, hint in attribute_placeholders(badge.text, known):
            self.error(span_in_string(badge.span, start, end), message, hint=hint)
        return badge.text

    def _card_colours(
        self, forms: tuple[ast.CardColour, ...]
    ) -> tuple[str, tuple[tuple[str, str], ...]] | None:
        if not forms:
            return None
        if len(forms) > 1:
            self.error(forms[1].span, "a game has one (card-colour ...)")
        form = forms[0]
        known = self._card_attributes()
        if known and form.attribute.value not in known:
            self.error(
                form.attribute.span,
                f"no card has an attribute '{form.attribute.value}' to colour by",
                hint=did_you_mean(form.attribute.value, known),
            )
        for pair in form.pairs:
            if not _COLOUR.fullmatch(pair.colour):
                self.error(
                    pair.span,
                    f"'{pair.colour}' is not a colour",
                    hint='write a CSS colour name ("gold") or #hex ("#e8c547")',
                )
        return form.attribute.value, tuple((p.value, p.colour) for p in form.pairs)

    def _presented_name(self, kind: str, name: str, span: ast.Span) -> bool:
        """Is ``name`` a location (or storage) of ``kind`` the game uses?  Else an error
        with a did-you-mean (a display that names nothing would be silently unused)."""
        is_location = kind in ("vloc", "iloc", "hloc", "mem")
        if is_location and self.dynamic_names or not is_location and self.dynamic_storages:
            return True  # names made at run time: nothing to hold it to
        used = self._used["loc" if is_location else "sto"]
        if kind in used.get(name, ()):
            return True
        what = "location" if is_location else "storage"
        if name in used:
            kinds = " and ".join(article(k) for k in sorted(used[name]))
            self.error(span, f"{what} {name} is not {article(kind)}", hint=f"it is {kinds}")
        else:
            hint = did_you_mean(name, [n for n, k in used.items() if kind in k])
            self.error(span, f"the game has no {kind} {name}", hint=hint)
        return False

    def _hand_order(self, forms: tuple[ast.HandOrder, ...]) -> tuple[str, ...]:
        if not forms:
            return ()
        if len(forms) > 1:
            self.error(forms[1].span, "a game has one (hand-order ...)")
        known = self._card_attributes()
        keys = []
        for key in forms[0].keys:
            if known and key.value not in known:
                self.error(
                    key.span,
                    f"no card has an attribute '{key.value}' to sort by",
                    hint=did_you_mean(key.value, known)
                    or f"the cards have {', '.join(sorted(known))}",
                )
            keys.append(key.value)
        return tuple(keys)

    def _card_texts(self) -> dict[str, str]:
        texts: dict[str, str] = {}
        for kind in self.out.kinds.values():
            if not kind.texts:
                continue
            if len(kind.texts) > 1:
                self.error(kind.texts[1].span, f"card kind {kind.name} has two (text ...)")
            text = kind.texts[0]
            attributes = {a.name for a in kind.attributes} | {KIND_ATTRIBUTE}
            for start, end, message, hint in attribute_placeholders(text.text, attributes):
                self.error(span_in_string(text.span, start, end), message, hint=hint)
            texts[kind.name] = text.text
        return texts

    def _public_only(self, node: ast.Node, sized: bool, what: str) -> None:
        """Errors where ``what`` (a table score, an end reason, a score part) reads what
        some player may not see (or draws a random number).  ``sized``: ``node`` is what a
        (size ...) measures."""
        hidden = None
        if isinstance(node, ast.Random):
            self.error(
                node.span,
                f"{what} cannot draw a random number (it would change the game it shows)",
            )
            return
        if isinstance(node, ast.Location | ast.IndexedLocations) and node.kind in _PRIVATE_KINDS:
            hidden = f"the cards of {article(node.kind)} are hidden from some players"
        elif isinstance(node, ast.Variable) and self.out.type_of(node) in _COLLECTION_TYPES:
            hidden = f"'{node.name} may hold cards some players cannot see"
        if hidden and not sized:
            self.error(
                node.span,
                f"{what} may read only what every player sees: {hidden}",
                hint="read its (size ...), a storage, or an open location (vloc)",
            )
            return
        for child in children(node):
            self._public_only(child, sized=isinstance(node, ast.Size), what=what)


def _kinds_by_name(
    written: Mapping[str, set[str]], read: Iterable[tuple[str, str, ast.Span]]
) -> dict[str, set[str]]:
    """Each name's kinds, written or read (new sets: the checker's own stay as they are)."""
    used = {name: set(kinds) for name, kinds in written.items()}
    for name, kind, _ in read:
        used.setdefault(name, set()).add(kind)
    return used


def _value_orders(game: ast.Game) -> dict[str, tuple[str, ...]]:
    """Each deck attribute's values in the order the decks list them (a hand sorted by
    RANK goes TWO, THREE ... ACE as the deck was written)."""
    orders: dict[str, list[str]] = {}
    for deck in _decks(game):
        if deck_size(deck) > MAX_CARDS:  # an error already: not expanded
            continue
        for card in deck_cards(deck):
            for key, value in card.items():
                values = orders.setdefault(key, [])
                if value not in values:
                    values.append(value)
    return {k: tuple(v) for k, v in orders.items()}


def _decks(node: ast.Node) -> Iterator[ast.Deck]:
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Deck):
            yield n
            continue
        stack.extend(reversed(list(children(n))))
