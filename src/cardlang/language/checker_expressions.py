"""The checker's expression rules: one ``e_FORM`` method per value form (literals,
variables, players and teams, locations and storages, card collections, numbers,
conditions ...) giving its type, with ``expr`` dispatching to them and bounding how deeply
one expression nests; and the helpers only values need (the card collections an
expression reads).

Pipeline position: language layer, a mixin of ``Checker`` (checker.py) over
``RuleBase`` (checker_base.py).  A new value form gets its rule here.  Imports only
``cardlang.errors`` and other language modules.
"""

from __future__ import annotations

from cardlang.errors import closest, did_you_mean
from cardlang.language import ast
from cardlang.language import types as T
from cardlang.language.checker_base import (
    FORM_COST,
    MAX_EXPR_DEPTH,
    PAREN_BUDGET,
    RuleBase,
    article,
    conversion_hint,
    form_name,
)


class ExpressionRules(RuleBase):
    """Checks values: ``expr`` and the ``e_FORM`` rules, each returning a type."""

    def expr(self, node: ast.Node) -> str:
        method = getattr(self, "e_" + type(node).__name__, None)
        cost = 1 if id(node) == self.folded else FORM_COST
        if self.expr_cost + cost > PAREN_BUDGET:
            # the compiled code of a deeper expression would break Python's own limits
            long_sum = self.long_sum or (node if cost == 1 else None)
            if self.too_deep:
                pass
            elif isinstance(long_sum, ast.Arith):
                self.error(
                    long_sum.span,
                    f"too many operands in ({long_sum.op} ...)",
                    hint="add up parts first, in a storage or with (let VALUE 'VAR ...)",
                )
            else:
                self.error(
                    node.span,
                    f"expression nested too deeply (more than {MAX_EXPR_DEPTH} levels)",
                    hint="compute a part first, in a storage or with (let VALUE 'VAR ...)",
                )
            self.too_deep = True
            t = T.ANY
        elif method is None:
            self.error(node.span, f"{form_name(node)} is an action, not a value")
            if type(node) in ast.STATEMENT_CLASSES:
                self.stmt(node)
            t = T.ANY
        else:
            self.expr_cost += cost
            outermost_sum = cost == 1 and self.long_sum is None
            if outermost_sum:
                assert isinstance(node, ast.Arith)
                self.long_sum = node
            try:
                t = method(node)
            finally:
                self.expr_cost -= cost
                if outermost_sum:
                    self.long_sum = None
                if not self.expr_cost:
                    self.too_deep = False
        self.out.types[id(node)] = t
        return t

    def e_IntLiteral(self, n: ast.IntLiteral) -> str:
        return T.INT

    def e_NameLiteral(self, n: ast.NameLiteral) -> str:
        return T.STR

    def e_Variable(self, n: ast.Variable) -> str:
        b = self.scope.lookup(n.name)
        if b is None:
            match = closest(n.name, self.scope.visible())
            self.error(
                n.span,
                f"unbound variable '{n.name}",
                hint=f"did you mean '{match}?"
                if match
                else "no variable of that name is bound "
                "here: (any ...), (all ...), (filter ...) and (let ...) bind variables, "
                "(declare ...) makes constants",
            )
            return T.ANY
        if b.declare is not None:
            self.out.declares[id(n)] = b.declare
        else:
            self.out.slots[id(n)] = b.slot
        return b.type

    def e_GameOwner(self, n: ast.GameOwner) -> str:
        return T.GAME

    def e_AllOfKind(self, n: ast.AllOfKind) -> str:
        return T.PLAYERS if n.kind == "player" else T.TEAMS

    def e_Deck(self, n: ast.Deck) -> str:
        return T.DECK

    def e_Awards(self, n: ast.Awards) -> str:
        self._awards(n)
        return T.AWARDS

    def e_CardAt(self, n: ast.CardAt) -> str:
        if not isinstance(n.position, str):
            self.expect(n.position, T.INT, "as the position")
        t = self.expr(n.collection)
        if t in T.CARD_COLLECTIONS:
            self._loc_read(n.collection)
            return T.CARD
        if t == T.CARDSS:
            return T.CARDS
        if t != T.ANY:
            self.error(n.collection.span, f"expected a card collection, got {article(t)}")
        return T.ANY

    def e_TopN(self, n: ast.TopN) -> str:
        self.expect(n.count, T.INT, "as the number of cards")
        self._cards(n.collection)
        return T.CARDS

    def e_MaxMin(self, n: ast.MaxMin) -> str:
        self._cards(n.collection)
        self.expect(n.points, T.POINTS, "after 'using'")
        return T.CARD

    def e_Actual(self, n: ast.Actual) -> str:
        self.expect(n.card, T.CARD)
        return T.CARD

    def e_Location(self, n: ast.Location) -> str:
        self.expect(n.owner, T.OWNERS, "as the owner of a location")
        self.expect(n.name, T.STR, "as the name of a location")
        if n.index is not None:
            self.expect(n.index, T.INT, "as the index of a location")
        if not isinstance(n.name, ast.NameLiteral):
            self.dynamic_names = True
        return T.MEMLOC if n.kind == "mem" else T.LOC

    def e_Storage(self, n: ast.Storage) -> str:
        self.expect(n.owner, T.OWNERS, "as the owner of a storage")
        self.expect(n.name, T.STR, "as the name of a storage")
        if isinstance(n.name, ast.NameLiteral):
            self.sto_read.append((n.name.value, n.kind, n.name.span))
        return {"sto": T.INTSTO, "str": T.STRSTO, "points": T.POINTS}[n.kind]

    def e_PlayerRef(self, n: ast.PlayerRef) -> str:
        if not isinstance(n.which, str):
            self.expect(n.which, T.INT, "as a player number")
        return T.PLAYER

    def e_TeamRef(self, n: ast.TeamRef) -> str:
        if not isinstance(n.which, str):
            self.expect(n.which, T.INT, "as a team number")
        return T.TEAM

    def e_OwnerOf(self, n: ast.OwnerOf) -> str:
        self.expect(n.card, T.CARD)
        return T.PLAYER

    def e_TeamOf(self, n: ast.TeamOf) -> str:
        self.expect(n.player, T.PLAYER)
        return T.TEAM

    def e_Other(self, n: ast.Other) -> str:
        return T.PLAYERS if n.kind == "player" else T.TEAMS

    def e_SetOp(self, n: ast.SetOp) -> str:
        for part in n.parts:
            t = self.expr(part)
            if t not in (*T.CARD_COLLECTIONS, T.CARDSS, T.ANY):
                self.error(part.span, f"expected a card collection, got {article(t)}")
            self._loc_read(part)
        return T.CARDS

    def e_Filter(self, n: ast.Filter) -> str:
        elem = self._element(n.collection)
        self._loc_read(n.collection)
        outer = self._with_var(n, n.var, elem)
        self.expect(n.condition, T.BOOL, "as the filter's condition")
        self.scope = outer
        return T.filtered_type(self.out.type_of(n.collection))

    def e_Sort(self, n: ast.Sort) -> str:
        self._cards(n.collection)
        self.expect(n.points, T.POINTS, "after 'using'")
        return T.CARDS

    def e_RunEnd(self, n: ast.RunEnd) -> str:
        self.expect(n.count, T.INT, "as the minimum run length")
        self._cards(n.collection)
        self.expect(n.points, T.POINTS, "after 'using'")
        return T.CARDS

    def e_Runs(self, n: ast.Runs) -> str:
        self.expect(n.count, T.INT, "as the minimum run length")
        self._cards(n.collection)
        self.expect(n.points, T.POINTS, "after 'using'")
        return T.CARDSS

    def e_Tuples(self, n: ast.Tuples) -> str:
        self.expect(n.count, T.INT, "as the tuple size")
        self._cards(n.collection)
        self.expect(n.points, T.POINTS, "after 'using'")
        return T.CARDSS

    def e_Subsets(self, n: ast.Subsets) -> str:
        self._cards(n.collection)
        return T.CARDSS

    def e_Partition(self, n: ast.Partition) -> str:
        self.expect(n.key, T.STR, "as the attribute to partition by")
        if isinstance(n.key, ast.NameLiteral):
            self.att_uses.append((n.key.value, n.key.span))
        for part in n.parts:
            t = self.expr(part)
            if t not in (*T.CARD_COLLECTIONS, T.CARDSS, T.ANY):
                self.error(part.span, f"expected a card collection, got {article(t)}")
        return T.CARDSS

    def e_Aggregate(self, n: ast.Aggregate) -> str:
        elem = self._element(n.collection)
        outer = self._with_var(n, n.var, elem)
        body = self.expr(n.body)
        self.scope = outer
        if T.is_a(body, T.BOOL):
            return T.BOOL
        if body in T.CARD_COLLECTIONS and n.quantifier == "all":
            return T.CARDSS
        self.error(
            n.body.span,
            f"({n.quantifier} ...) needs a boolean"
            + (" or a card collection" if n.quantifier == "all" else "")
            + f" here, got {article(body)}",
        )
        return T.ANY

    def e_StrList(self, n: ast.StrList) -> str:
        return T.STRS

    def e_Range(self, n: ast.Range) -> str:
        self.expect(n.low, T.INT)
        self.expect(n.high, T.INT)
        return T.INTS

    def e_Random(self, n: ast.Random) -> str:
        if n.low is not None:
            self.expect(n.low, T.INT)
        self.expect(n.high, T.INT)
        return T.INT

    def e_Arith(self, n: ast.Arith) -> str:
        if isinstance(n.left, ast.Arith) and n.left.op == n.op and n.left.span == n.span:
            self.folded = id(n.left)  # (+ A B C) is (+ (+ A B) C): one form, not two
        self.expect(n.left, T.INT, f"as the left operand of {n.op}")
        self.expect(n.right, T.INT, f"as the right operand of {n.op}")
        if n.extra:
            self.error(
                n.extra[0].span, f"({n.op} ...) takes exactly two operands; only + and * take more"
            )
        return T.INT

    def e_ScoreExtreme(self, n: ast.ScoreExtreme) -> str:
        self._cards(n.collection)
        self.expect(n.points, T.POINTS, "after 'using'")
        return T.INT

    def e_PlayerId(self, n: ast.PlayerId) -> str:
        self.expect(n.player, T.PLAYER)
        return T.INT

    def e_TeamId(self, n: ast.TeamId) -> str:
        self.expect(n.team, T.TEAM)
        return T.INT

    def e_IndexedLocations(self, n: ast.IndexedLocations) -> str:
        self.expect(n.owner, T.OWNERS, "as the owner of the locations")
        self.expect(n.name, T.STR, "as the name of the locations")
        if isinstance(n.name, ast.NameLiteral):  # NAME, NAME 1, NAME 2 ...: written as NAME
            self.loc_read.append((n.name.value, n.kind, n.name.span))
        else:
            self.dynamic_names = True
        return T.LOCS

    def e_UnaryInt(self, n: ast.UnaryInt) -> str:
        self.expect(n.operand, T.INT)
        return T.INT

    def e_Size(self, n: ast.Size) -> str:
        t = self.expr(n.collection)
        if t != T.ANY and t not in T.ELEMENT:
            self.error(
                n.collection.span,
                f"expected a collection to count in (size ...), got {article(t)}",
                hint=conversion_hint(t, (T.CARDS,)),
            )
        self._loc_read(n.collection)
        return T.INT

    def e_Sum(self, n: ast.Sum) -> str:
        self._cards(n.collection)
        self.expect(n.points, T.POINTS, "after 'using'")
        return T.INT

    def e_Score(self, n: ast.Score) -> str:
        self.expect(n.card, T.CARD)
        self.expect(n.points, T.POINTS, "after 'using'")
        return T.INT

    def e_CardAtt(self, n: ast.CardAtt) -> str:
        self.expect(n.key, T.STR, "as the attribute name")
        self.expect(n.card, T.CARD)
        if isinstance(n.key, ast.NameLiteral):
            typed = self.out.kind_attribute_types.get(n.key.value)
            if typed is not None and typed != T.STR:
                self.error(
                    n.span,
                    f"{n.key.value} is {T.article(typed)} attribute of card kinds",
                    hint=f"read it with (attr {n.key.value} CARD)",
                )
            else:
                self.att_uses.append((n.key.value, n.key.span))
        return T.STR

    def e_Attr(self, n: ast.Attr) -> str:
        self.expect(n.card, T.CARD)
        t = self.out.kind_attribute_types.get(n.name)
        if t is None:
            self.error(
                n.span,
                f"no card kind has an attribute {n.name}",
                hint=did_you_mean(n.name, self.out.kind_attribute_types)
                or "attributes are declared in (card-kind NAME (ATTRIBUTE VALUE) ...)",
            )
            return T.ANY
        return t

    def e_Total(self, n: ast.Total) -> str:
        self._cards(n.collection)
        self._int_attribute(n.name, n.span)
        return T.INT

    def e_Connects(self, n: ast.Connects) -> str:
        self._cards(n.collection)
        self._name_attribute(n.source)
        self._name_attribute(n.target)
        self.expect(n.x, T.STR, "as the first city of (connects ...)")
        self.expect(n.y, T.STR, "as the second city of (connects ...)")
        return T.BOOL

    def e_LongestPath(self, n: ast.LongestPath) -> str:
        self._cards(n.collection)
        self._name_attribute(n.source)
        self._name_attribute(n.target)
        self._int_attribute(n.length.value, n.length.span)
        return T.INT

    def e_Contains(self, n: ast.Contains) -> str:
        self.expect(n.items, T.STRS, "as the list")
        self.expect(n.value, T.STR, "to look for")
        return T.BOOL

    def e_Others(self, n: ast.Others) -> str:
        self.expect(n.player, T.PLAYER)
        return T.PLAYERS

    def e_Compare(self, n: ast.Compare) -> str:
        if n.op in ("<", ">", "<=", ">="):
            self.expect(n.left, T.INT, f"on the left of {n.op}")
            self.expect(n.right, T.INT, f"on the right of {n.op}")
            return T.BOOL
        left = T.read_type(self.expr(n.left))
        right = T.read_type(self.expr(n.right))
        if T.ANY in (left, right):
            return T.BOOL
        if left != right or left not in T.EQUALITY_TYPES:
            self.error(
                n.span,
                f"cannot compare {article(left)} with {article(right)} using {n.op}",
                hint="to test a card's attribute write (== (cardatt KEY CARD) VALUE)"
                if {left, right} == {T.CARD, T.STR}
                else None,
            )
        for a, b in ((n.left, n.right), (n.right, n.left)):
            if (
                isinstance(a, ast.CardAtt)
                and isinstance(a.key, ast.NameLiteral)
                and isinstance(b, ast.NameLiteral)
            ):
                self.value_uses.append((a.key.value, b.value, b.span))
        return T.BOOL

    def e_BoolOp(self, n: ast.BoolOp) -> str:
        for operand in n.operands:
            self.expect(operand, T.BOOL, f"in ({n.op} ...)")
        return T.BOOL

    def e_If(self, n: ast.If) -> str:
        self.expect(n.condition, T.BOOL, "as the condition of (if ...)")
        then = T.read_type(self.expr(n.then))
        otherwise = T.read_type(self.expr(n.otherwise))
        if T.ANY in (then, otherwise):
            return then if otherwise == T.ANY else otherwise
        if then != otherwise:
            if {then, otherwise} <= {T.LOC, T.CARDS, T.MEMLOC}:
                return T.CARDS
            self.error(
                n.span,
                f"the two values of (if ...) must have one type: got "
                f"{T.article(then)} and {T.article(otherwise)}",
            )
            return T.ANY
        return then

    def e_Not(self, n: ast.Not) -> str:
        self.expect(n.operand, T.BOOL, "in (not ...)")
        return T.BOOL

    # ------------------------------------------------------------ helpers
    def _int_attribute(self, name: str, span: ast.Span) -> None:
        """A card kind's integer attribute, summed by (total ...) and (longest-path ...)."""
        if self.out.kind_attribute_types.get(name) != T.INT:
            self.error(
                span,
                f"no card kind has an integer attribute {name}",
                hint=did_you_mean(
                    name, [a for a, u in self.out.kind_attribute_types.items() if u == T.INT]
                ),
            )

    def _name_attribute(self, attribute: ast.NameLiteral) -> None:
        """A name attribute that ends a route card: a kind's integer or list attribute is
        an error now; whether any card has it is known once every deck is seen
        (``Checker._check_names``)."""
        typed = self.out.kind_attribute_types.get(attribute.value)
        if typed is not None and typed != T.STR:
            self.error(
                attribute.span,
                f"{attribute.value} is {T.article(typed)} attribute of card kinds, "
                "not a name: the ends of a route are names",
            )
        else:
            self.end_uses.append((attribute.value, attribute.span))

    def _cards(self, node: ast.Node) -> str:
        t = self.expect(node, T.CARD_COLLECTIONS)
        self._loc_read(node)
        return t

    def _loc_read(self, node: ast.Node) -> None:
        if isinstance(node, ast.Location) and isinstance(node.name, ast.NameLiteral):
            self.loc_read.append((node.name.value, node.kind, node.name.span))
