"""The checker's statement rules: one ``s_FORM`` method per action form (stage, choice,
loops, move, set, create ...), with ``stmt`` dispatching to them, and the helpers only
actions need (a destination position, the locations and storages an action fills).

Pipeline position: language layer, a mixin of ``Checker`` (checker.py) over
``RuleBase`` (checker_base.py), whose ``expr``/``expect`` check the expressions inside an
action.  A new action form gets its rule here.  Imports only ``cardlang.errors`` and
other language modules.
"""

from __future__ import annotations

from cardlang.errors import did_you_mean
from cardlang.language import ast
from cardlang.language import types as T
from cardlang.language.ast_facts import (
    MAX_CARDS,
    count_text,
    deck_cards,
    deck_size,
    one_based_teams,
    static_cards,
    static_int,
)
from cardlang.language.checker_base import MAX_CHOICE_ANYS, RuleBase, article, form_name
from cardlang.language.kinds import DECK_ATTRIBUTE


class StatementRules(RuleBase):
    """Checks actions: ``stmt`` and the ``s_FORM`` rules."""

    def stmt(self, node: ast.Node) -> None:
        method = getattr(self, "s_" + type(node).__name__, None)
        if method is None:
            self.error(node.span, f"{form_name(node)} is an expression, not an action")
            self.expr(node)
            return
        method(node)

    def s_Stage(self, n: ast.Stage) -> None:
        if self.in_choice:
            self.error(n.span, "a stage cannot be part of a choice's option")
        self.expect(n.end, T.BOOL, "as the end condition")
        for item in n.body:
            self.stmt(item)

    def s_Do(self, n: ast.Do) -> None:
        if not n.body:
            self.warning(n.span, "empty (do ()) does nothing")
        for item in n.body:
            self.stmt(item)

    def s_Choice(self, n: ast.Choice) -> None:
        if n.situation is not None and n.situation not in self.out.situations:
            self.error(
                n.span,
                f"unknown situation {n.situation}",
                hint=did_you_mean(n.situation, self.out.situations)
                or f'declare its text: (situation {n.situation} "...")',
            )
        if not n.body:
            self.error(n.span, "a choice needs at least one option")
        if n.chooser is not None:
            self.expect(n.chooser, T.PLAYER, "as the player who chooses")
        self.in_choice += 1
        for item in n.body:
            self.stmt(item)
        self.in_choice -= 1
        # a label's placeholders are checked once every card's attributes are known
        self.label_uses.extend((t, c) for t, c in zip(n.labels, n.body, strict=False) if t)

    def s_Labeled(self, n: ast.Labeled) -> None:
        self.error(
            n.span,
            "(label ...) names the options of one condact of a choice: it must stand "
            "directly in the choice's list",
            hint='write (choice (... (label "TEXT" CONDACT) ...))',
        )
        self.stmt(n.body)

    def s_Simultaneous(self, n: ast.Simultaneous) -> None:
        # the shape of its body (choices and the control around them) is checked with
        # the other places of decisions, once procedures are known (checker.py)
        if self.in_choice:
            self.error(n.span, "(simultaneous ...) cannot be part of a choice's option")
        for item in n.body:
            self.stmt(item)

    def s_While(self, n: ast.While) -> None:
        self.expect(n.condition, T.BOOL, "as the condition of a while loop")
        for item in n.body:
            self.stmt(item)

    def s_Guarded(self, n: ast.Guarded) -> None:
        self.expect(n.condition, T.BOOL, "as the condition of a guarded action")
        self.stmt(n.body)

    def s_ForEach(self, n: ast.ForEach) -> None:
        if n.quantifier == "any" and not self.in_choice:
            self.warning(
                n.span,
                "(any ...) outside a choice runs its body for every element, like (all ...)",
                hint="write (all ...), or put it in a (choice ...)",
            )
        forks = n.quantifier == "any" and self.in_choice > 0
        if forks:
            self.choice_anys += 1
            if self.choice_anys == MAX_CHOICE_ANYS + 1:
                self.error(
                    n.span, f"too many nested (any ...) in one choice (more than {MAX_CHOICE_ANYS})"
                )
        elem = self._element(n.collection)
        outer = self._with_var(n, n.var, elem)
        self.stmt(n.body)
        self.scope = outer
        if forks:
            self.choice_anys -= 1

    def s_Let(self, n: ast.Let) -> None:
        t = T.read_type(self.expr(n.value))
        outer = self._with_var(n, n.var, t)
        self.stmt(n.body)
        self.scope = outer

    def s_Move(self, n: ast.Move) -> None:
        self.expect(n.card, T.CARD, "as the card to move")
        self._position(n.dest, T.LOC, "move")

    def s_Remember(self, n: ast.Remember) -> None:
        self.expect(n.card, T.CARD, "as the card to remember")
        self._position(n.dest, T.MEMLOC, "remember")

    def s_Forget(self, n: ast.Forget) -> None:
        self._position(n.card, T.MEMLOC, "forget")

    def s_Shuffle(self, n: ast.Shuffle) -> None:
        self.expect(n.location, T.LOC, "to shuffle")

    def s_SetValue(self, n: ast.SetValue) -> None:
        t = self._target(n.target, (T.INTSTO, T.STRSTO, T.POINTS), "to set")
        if t == T.INTSTO:
            self.expect(n.value, T.INT, "for an integer storage")
        elif t == T.STRSTO:
            self.expect(n.value, T.STR, "for a string storage")
        elif t == T.POINTS:
            if isinstance(n.value, ast.Awards):
                self._awards(n.value)
            else:
                self.expect(n.value, T.POINTS, "for a point map")
        else:
            self.expr(n.value) if not isinstance(n.value, ast.Awards) else self._awards(n.value)
        self._storage_written(n.target)

    def s_Increment(self, n: ast.Increment) -> None:
        self._target(n.target, T.INTSTO, "to " + ("inc" if n.sign > 0 else "dec"))
        self.expect(n.amount, T.INT, "as the amount")
        self._storage_written(n.target)

    def s_Cycle(self, n: ast.Cycle) -> None:
        if not isinstance(n.target, str):
            self.expect(n.target, T.PLAYER, "as the player to cycle to")

    def s_Swap(self, n: ast.Swap) -> None:
        self.expect(n.first, T.CARD, "to swap")
        self.expect(n.second, T.CARD, "to swap")

    def s_TurnPass(self, n: ast.TurnPass) -> None:
        pass

    def s_Pass(self, n: ast.Pass) -> None:
        pass

    def s_Repeat(self, n: ast.Repeat) -> None:
        self.expect(n.count, T.INT, "as the repeat count")
        self.stmt(n.body)
        each = static_cards(n.body, self.scope.lookup)
        times = static_int(n.count, self.scope.lookup)
        if times is not None and 0 < each <= MAX_CARDS < times * each:  # body alone: its own
            self.error(
                n.span,
                f"this repeat creates {count_text(times * each)} cards ({times} x {each}): "
                f"more than a game may hold ({MAX_CARDS} cards)",
                hint="the bound counts every card a game creates, in setup and in play",
            )

    def s_RepeatAll(self, n: ast.RepeatAll) -> None:
        if not isinstance(n.body, ast.Move | ast.Forget):
            self.error(n.body.span, "(repeat all ...) repeats a move or a forget")
        elif ast.repeat_all_source(n.body) is None:
            self.error(
                n.body.span,
                "(repeat all ...) needs a card taken from a collection: "
                "(top|bottom|N COLLECTION) or (max|min COLLECTION using POINTS)",
            )
        self.stmt(n.body)

    def s_CreatePlayers(self, n: ast.CreatePlayers) -> None:
        self.expect(n.count, T.INT, "as the number of players")
        count = self.nplayers = static_int(n.count, self.scope.lookup)
        if count is None:
            self.error(
                n.count.span, "the number of players must be a number or a declared constant"
            )
        elif not 1 <= count <= 64:
            self.error(n.count.span, "the number of players must be between 1 and 64")

    def s_CreateTeams(self, n: ast.CreateTeams) -> None:
        seen: set[int] = set()
        for team in n.teams:
            for p in team:
                if p in seen:
                    self.error(n.span, f"player {p} is in two teams")
                seen.add(p)
        if seen and one_based_teams(n, self.nplayers):
            self.warning(
                n.span,
                "these teams number players from 1 (as the newest CardStock "
                "does); they are read as players " + ", ".join(str(p - 1) for p in sorted(seen)),
                hint="number players from 0, as (N player) does",
            )

    def s_CreateDeck(self, n: ast.CreateDeck) -> None:
        if n.name is not None:
            self.expect(n.name, T.STR, "as the deck's name")
        self.expect(n.location, T.LOC, "to hold the new cards")
        self._loc_written(n.location)
        if not isinstance(n.deck, ast.Deck):
            self.error(n.deck.span, "expected a (deck ...) description")
            return
        size = deck_size(n.deck)
        if size > MAX_CARDS:  # refused before its cards are made: they may not fit in memory
            self.error(
                n.deck.span,
                f"this deck describes {count_text(size)} cards (the product of its "
                f"attributes' values): more than a game may hold ({MAX_CARDS} cards)",
                hint="each attribute multiplies the deck by its number of values",
            )
            return
        for key in sorted({k for card in deck_cards(n.deck) for k in card}):
            typed = self.out.kind_attribute_types.get(key)
            if typed is not None and typed != T.STR:
                self.error(
                    n.deck.span,
                    f"this deck gives its cards a name attribute {key}, which is "
                    f"{T.article(typed)} attribute of card kinds",
                    hint="an attribute has one type for every card: rename one of them",
                )
        for card in deck_cards(n.deck):
            for key, value in card.items():
                self.out.deck_attributes.setdefault(key, set()).add(value)
            keys = set(card) | ({DECK_ATTRIBUTE} if n.name is not None else set())
            universal = self.out.universal_attributes
            self.out.universal_attributes = keys if universal is None else universal & keys
        if n.name is not None:  # a named deck marks its cards with attribute DECK
            values = self.out.deck_attributes.setdefault(DECK_ATTRIBUTE, set())
            if isinstance(n.name, ast.NameLiteral):
                values.add(n.name.value)

    def s_Call(self, n: ast.Call) -> None:
        proc = self.out.procedures.get(n.name)
        if proc is None:
            self.error(
                n.span,
                f"unknown procedure {n.name}",
                hint=did_you_mean(n.name, self.out.procedures)
                or f"define it: (define {n.name} ((TYPE 'PARAM) ...) BODY)",
            )
            for arg in n.args:
                self.expr(arg)
            return
        if self.procedure is not None:
            self.procedure.calls.add(n.name)
        params = proc.node.params
        if len(n.args) != len(params):
            shape = " ".join(f"{p.type.upper()}" for p in params)
            self.error(
                n.span,
                f"{n.name} takes {len(params)} argument{'s' if len(params) != 1 else ''}, "
                f"got {len(n.args)}",
                hint=f"write (call {n.name}{' ' + shape if shape else ''})",
            )
        for arg, p, t in zip(n.args, params, proc.param_types, strict=False):
            self.expect(arg, t, f"for parameter '{p.var} of {n.name}")
            if t == T.LOC:  # the procedure may put cards there
                self._loc_written(arg)
        for arg in n.args[len(params) :]:
            self.expr(arg)

    def s_CreateCards(self, n: ast.CreateCards) -> None:
        self.expect(n.location, T.LOC, "to hold the new cards")
        self._loc_written(n.location)
        self.expect(n.kind, T.STR, "as the card kind")
        self.expect(n.count, T.INT, "as the number of cards")
        count = static_int(n.count, self.scope.lookup)
        if count is not None and count > MAX_CARDS:  # a computed count: checked in play
            self.error(
                n.count.span,
                f"this creates {count_text(count)} cards: more than a game may hold "
                f"({MAX_CARDS} cards)",
                hint="the bound counts every card a game creates, in setup and in play",
            )
        if isinstance(n.kind, ast.NameLiteral) and n.kind.value not in self.out.kinds:
            self.error(
                n.kind.span,
                f"unknown card kind {n.kind.value}",
                hint=did_you_mean(n.kind.value, self.out.kinds)
                or f"declare it: (card-kind {n.kind.value} (ATTRIBUTE VALUE) ...)",
            )
        keys = set(self.out.kind_attribute_types)
        universal = self.out.universal_attributes
        self.out.universal_attributes = keys if universal is None else universal & keys

    # ------------------------------------------------------------ helpers
    def _position(self, node: ast.Node, kind: str, verb: str) -> None:
        """A destination: (top|bottom|N LOCATION) with a location of the given kind."""
        if not isinstance(node, ast.CardAt):
            self.error(
                node.span,
                f"{verb} needs a position in a location: (top|bottom|N LOCATION)",
            )
            self.expr(node)
            return
        if not isinstance(node.position, str):
            self.expect(node.position, T.INT, "as the position")
        t = self.expr(node.collection)
        self.out.types[id(node)] = T.CARD
        if t == T.ANY:
            return
        if kind == T.LOC and t == T.MEMLOC:
            self.error(
                node.collection.span,
                "cards cannot be moved into a mem location",
                hint="use (remember CARD (top MEM-LOCATION)) to store a reference",
            )
        elif t != kind:
            self.error(node.collection.span, f"{verb} needs {article(kind)} here, got {article(t)}")
        elif verb in ("move", "remember"):
            self._loc_written(node.collection)

    def _loc_written(self, node: ast.Node) -> None:
        if isinstance(node, ast.Location):
            if isinstance(node.name, ast.NameLiteral):
                self.loc_written[node.name.value].add(node.kind)
                self.first_writes.setdefault(("loc", node.name.value, node.kind), node.name.span)
            else:
                self.dynamic_names = True

    def _target(self, node: ast.Node, wanted: str | tuple[str, ...], what: str) -> str:
        """The type of a storage set or changed; the storage itself is not counted as
        read (a storage only ever set is a typo the checker looks for)."""
        mark = len(self.sto_read)
        t = self.expect(node, wanted, what)
        if isinstance(node, ast.Storage) and len(self.sto_read) > mark:
            self.sto_read.pop()  # the target's own entry: e_Storage appends it last
        return t

    def _storage_written(self, node: ast.Node) -> None:
        if isinstance(node, ast.Storage):
            if isinstance(node.name, ast.NameLiteral):
                self.sto_written[node.name.value].add(node.kind)
                self.first_writes.setdefault(("sto", node.name.value, node.kind), node.name.span)
            else:
                self.dynamic_storages = True
