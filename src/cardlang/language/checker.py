"""The checker: scopes, types, and the names a game uses, with every error of a file at once.

Pipeline position: after the parser, before the compiler.  ``check(game, source)``
returns a ``CheckedGame``: the type of every expression node, the register slot of every
variable binding, and the diagnostics.  The compiler relies on the types (is this card
collection a real location or a computed one? is this owner a player or a team?) and
never re-derives them.  Errors are collected, never raised one by one; an expression
that failed to check gets type ANY so that one mistake gives one message.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from cardlang.errors import Diagnostic, SourceFile, closest, did_you_mean
from cardlang.language import ast
from cardlang.language import types as T
from cardlang.language.kinds import DECK_ATTRIBUTE, KIND_ATTRIBUTE

#: How deeply value forms may nest in one expression.  The compilers turn an expression
#: into one Python expression, which Python's parser limits to 200 nested parentheses:
#: a form costs up to 6 of them, one more operand of an n-ary (+ ...) or (* ...) costs 1.
#: Written games stay far below (the corpus nests 11 forms deep).
_PAREN_BUDGET = 180
_FORM_COST = 6
MAX_EXPR_DEPTH = _PAREN_BUDGET // _FORM_COST
#: How many (any ...) may nest in one choice: each is a loop in the compiled option
#: lister, and Python allows 20 nested blocks in a function.
MAX_CHOICE_ANYS = 16


@dataclass
class Binding:
    type: str
    slot: int  # register slot; -1 for a declared constant (compiled inline)
    span: ast.Span
    declare: ast.Declare | None = None


#: Parameter type words of (define ...) and the types they stand for.
PARAM_TYPES: dict[str, str] = {
    "player": T.PLAYER,
    "team": T.TEAM,
    "card": T.CARD,
    "integer": T.INT,
    "string": T.STR,
    "location": T.LOC,
    "cards": T.CARDS,
}

#: Every card of a declared kind has the attribute KIND, its kind's name.


@dataclass
class Procedure:
    """What the checker knows of a (define ...): its parameters' slots and types, the
    registers its bodies use (``slots``: a contiguous range, saved around a recursive
    call), and the card kinds that give their own body."""

    node: ast.Define
    param_slots: tuple[int, ...]
    param_types: tuple[str, ...]
    slots: tuple[int, int] = (0, 0)
    hooks: dict[str, ast.KindHook] = field(default_factory=dict)
    calls: set[str] = field(default_factory=set)  # procedures its bodies call
    has_decision: bool = False
    recursive: bool = False


@dataclass
class CheckedGame:
    game: ast.Game
    source: SourceFile
    types: dict[int, str] = field(default_factory=dict)
    slots: dict[int, int] = field(default_factory=dict)
    declares: dict[int, ast.Declare] = field(default_factory=dict)
    # Declared values (integers, strings, booleans, string lists) are evaluated once, at
    # the start of a game, into these registers; declared locations and collections are
    # names for their expression and are evaluated where they are used.
    declare_slots: dict[int, int] = field(default_factory=dict)
    n_slots: int = 0
    diagnostics: list[Diagnostic] = field(default_factory=list)
    deck_attributes: dict[str, set[str]] = field(default_factory=dict)
    slot_types: dict[int, str] = field(default_factory=dict)
    element_slots: set[int] = field(default_factory=set)  # bound to elements: never None
    # attributes every card of every deck has (None until a deck is seen)
    universal_attributes: set[str] | None = None
    procedures: dict[str, Procedure] = field(default_factory=dict)
    kinds: dict[str, ast.CardKind] = field(default_factory=dict)
    kind_attribute_types: dict[str, str] = field(default_factory=dict)
    situations: dict[str, str] = field(default_factory=dict)  # name -> text

    def type_of(self, node: ast.Node) -> str:
        return self.types.get(id(node), T.ANY)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]


def deck_cards(deck: ast.Deck) -> list[dict[str, str]]:
    """The cards a deck description makes: the product of its top-level dimensions."""
    cards: list[dict[str, str]] = [{}]
    for attr in deck.attributes:
        cards = [dict(c, **v) for c in cards for v in _dimension(attr)]
    return cards


def _dimension(attr: ast.Attribute) -> list[dict[str, str]]:
    key = attr.names[0]
    values: list[dict[str, str]] = []
    for child in attr.children:
        if not child.children:
            values.extend({key: name} for name in child.names)
            continue
        subs: list[dict[str, str]] = [{}]
        for sub in child.children:
            subs = [dict(s, **v) for s in subs for v in _dimension(sub)]
        values.extend(dict({key: child.names[0]}, **s) for s in subs)
    return values


class _Scope:
    def __init__(self, parent: _Scope | None = None) -> None:
        self.parent = parent
        self.names: dict[str, Binding] = {}

    def lookup(self, name: str) -> Binding | None:
        scope: _Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None

    def visible(self) -> Iterator[str]:
        scope: _Scope | None = self
        while scope is not None:
            yield from scope.names
            scope = scope.parent


class Checker:
    def __init__(self, game: ast.Game, source: SourceFile) -> None:
        self.out = CheckedGame(game, source)
        self.nplayers: int | None = None  # known once (create players N) is checked
        self.scope = _Scope()
        self.in_choice = 0
        self.expr_cost = 0  # how deep in one expression the checker is, in parentheses
        self.folded = 0  # id of the next operand of an n-ary (+ ...) folded into pairs
        self.long_sum: ast.Arith | None = None  # the outermost n-ary (+ ...) being checked
        self.choice_anys = 0  # (any ...) around the statement being checked, in a choice
        self.too_deep = False  # reported "nested too deeply" for the current expression
        # location and storage names, for "never filled" / did-you-mean diagnostics
        self.loc_written: dict[str, set[str]] = defaultdict(set)  # name -> kinds
        self.loc_read: list[tuple[str, str, ast.Span]] = []
        self.sto_written: dict[str, set[str]] = defaultdict(set)
        self.sto_read: list[tuple[str, str, ast.Span]] = []
        self.dynamic_names = False  # a location named at run time: skip location checks
        self.dynamic_storages = False  # likewise for storages
        self.att_uses: list[tuple[str, ast.Span]] = []
        self.value_uses: list[tuple[str, str, ast.Span]] = []  # key, literal, span
        self.procedure: Procedure | None = None  # the procedure whose body is being checked
        self.top_calls: list[ast.Call] = []

    # ------------------------------------------------------------ reporting
    def error(self, span: ast.Span, message: str, hint: str | None = None) -> None:
        self.out.diagnostics.append(Diagnostic("error", message, span, hint))

    def warning(self, span: ast.Span, message: str, hint: str | None = None) -> None:
        self.out.diagnostics.append(Diagnostic("warning", message, span, hint))

    def expect(self, node: ast.Node, wanted: str | tuple[str, ...], what: str = "") -> str:
        """Check ``node`` and report unless its type is (a sub-type of) one of ``wanted``."""
        got = self.expr(node)
        options = (wanted,) if isinstance(wanted, str) else wanted
        if any(T.is_a(got, w) for w in options):
            return got
        names = " or ".join(_article(w) for w in options)
        where = f" {what}" if what else ""
        self.error(
            node.span,
            f"expected {names}{where}, got {_article(got)}",
            hint=_conversion_hint(got, options),
        )
        return T.ANY

    # ------------------------------------------------------------ top level
    def run(self) -> CheckedGame:
        game = self.out.game
        for d in game.declares:
            t = T.read_type(self.expr(d.value))
            if d.allowed is not None:
                self._allowed_values(d, t)
            self._bind(d.var, t, d.span, declare=d)
            if t in (T.INT, T.STR, T.BOOL, T.STRS):
                self.out.declare_slots[id(d)] = self.out.n_slots
                self.out.slot_types[self.out.n_slots] = t
                self.out.n_slots += 1
        self._situations(game.situations)
        self._kinds(game.kinds)
        self._procedure_signatures(game.procedures)
        self._kind_hooks(game.kinds)
        for proc in self.out.procedures.values():
            self._procedure_bodies(proc)
        self._check_setup(game.setup)
        for item in game.body:
            self.stmt(item)
        self.expect(game.scoring.value, T.INT, "as the score")
        for _, tiebreak in game.scoring.tiebreaks:
            self.expect(tiebreak, T.INT, "as a tie-break")
        self._analyse_procedures()
        self._check_decision_places(game)
        self._check_names()
        return self.out

    # ------------------------------------------------------------ definitions
    def _allowed_values(self, d: ast.Declare, t: str) -> None:
        """(declare VALUE 'VAR ALLOWED): a literal range for an integer, a literal list
        of names for a name or a list of names; the default must be allowed."""
        from cardlang.language.params import allowed_values, is_allowed

        allowed = allowed_values(d)
        fits = (t == T.INT and isinstance(d.allowed, ast.Range)) or (
            t in (T.STR, T.STRS) and isinstance(d.allowed, ast.StrList)
        )
        if allowed is None or not fits:
            self.error(
                d.allowed.span,  # type: ignore[union-attr]
                "the allowed values of a parameter are a literal range (range 1 .. 4) for a "
                "number, or a list of names (A, B, C) for a name or a list of names",
            )
            return
        if not is_allowed(d.value, allowed):
            self.error(d.value.span, f"the default of {d.var} is not among its allowed values")

    def _situations(self, situations: tuple[ast.Situation, ...]) -> None:
        for sit in situations:
            if sit.name in self.out.situations:
                self.error(sit.span, f"situation {sit.name} is declared twice")
            if not sit.text.strip():
                self.error(sit.span, f"situation {sit.name} needs a text for people to read")
            self.out.situations[sit.name] = sit.text

    def _kinds(self, kinds: tuple[ast.CardKind, ...]) -> None:
        types = self.out.kind_attribute_types
        types[KIND_ATTRIBUTE] = T.STR
        first_seen: dict[str, ast.KindAttribute] = {}
        for kind in kinds:
            if kind.name in self.out.kinds:
                self.error(kind.span, f"card kind {kind.name} is declared twice")
            self.out.kinds[kind.name] = kind
            seen: set[str] = set()
            for a in kind.attributes:
                if a.name in seen:
                    self.error(a.span, f"{kind.name} gives attribute {a.name} twice")
                seen.add(a.name)
                if a.name == KIND_ATTRIBUTE:
                    self.error(a.span, "KIND is every card's kind name; it cannot be set")
                    continue
                t = _kind_value_type(a.value)
                known = types.setdefault(a.name, t)
                first_seen.setdefault(a.name, a)
                if known != t:
                    where = first_seen[a.name].span
                    self.error(
                        a.span,
                        f"attribute {a.name} is {T.article(t)} here but {T.article(known)} "
                        f"at line {where.line}",
                        hint="an attribute has one type in every card kind",
                    )
        # (cardatt KEY CARD) and the names checks see the string attributes of kinds
        for kind in kinds:
            values = {KIND_ATTRIBUTE: kind.name}
            values.update({a.name: a.value for a in kind.attributes if isinstance(a.value, str)})
            for key, value in values.items():
                self.out.deck_attributes.setdefault(key, set()).add(str(value))

    def _procedure_signatures(self, procedures: tuple[ast.Define, ...]) -> None:
        for d in procedures:
            if d.name in self.out.procedures:
                self.error(d.span, f"procedure {d.name} is defined twice")
                continue
            names = [p.var for p in d.params]
            for p in d.params:
                if names.count(p.var) > 1:
                    self.error(p.span, f"parameter '{p.var} appears twice in {d.name}")
                    break
            types = tuple(PARAM_TYPES[p.type] for p in d.params)
            self.out.procedures[d.name] = Procedure(d, (), types)  # slots: with the bodies

    def _kind_hooks(self, kinds: tuple[ast.CardKind, ...]) -> None:
        procs = self.out.procedures
        for kind in kinds:
            for hook in kind.hooks:
                proc = procs.get(hook.procedure)
                if proc is None:
                    self.error(
                        hook.span,
                        f"(on {hook.procedure} ...) names no procedure",
                        hint=did_you_mean(hook.procedure, procs)
                        or f"define it first: (define {hook.procedure} ((card 'THIS) ...))",
                    )
                elif not proc.param_types or proc.param_types[0] != T.CARD:
                    self.error(
                        hook.span,
                        f"a card kind can give its own body only to a procedure whose first "
                        f"parameter is a card; {hook.procedure}'s is not",
                    )
                elif kind.name in proc.hooks:
                    self.error(hook.span, f"{kind.name} gives {hook.procedure} two bodies")
                else:
                    proc.hooks[kind.name] = hook

    def _procedure_bodies(self, proc: Procedure) -> None:
        """Check a procedure's default body and every kind's body for it, with its
        parameters bound; the registers they use form one contiguous range."""
        outer, self.scope = self.scope, _Scope(_global_scope(self.scope))
        first = self.out.n_slots
        proc.param_slots = tuple(
            self._bind(p.var, t, p.span).slot
            for p, t in zip(proc.node.params, proc.param_types, strict=True)
        )
        self.procedure = proc
        bodies = [proc.node.body] + [hook.body for hook in proc.hooks.values()]
        for body in bodies:
            for item in body:
                if isinstance(item, ast.Stage):
                    self.error(item.span, "a procedure cannot hold a stage")
                self.stmt(item)
        self.procedure = None
        self.scope = outer
        proc.slots = (first, self.out.n_slots)

    def _analyse_procedures(self) -> None:
        """Which procedures can reach a decision, and which can call themselves."""
        procs = self.out.procedures
        for proc in procs.values():
            bodies = [proc.node.body] + [h.body for h in proc.hooks.values()]
            # written choices and stages first; calls are resolved by the fixpoint below
            proc.has_decision = any(reaches_decision(i, {}) for body in bodies for i in body)
        changed = True
        while changed:
            changed = False
            for proc in procs.values():
                if not proc.has_decision and any(
                    procs[c].has_decision for c in proc.calls if c in procs
                ):
                    proc.has_decision = changed = True
        for name, proc in procs.items():
            seen: set[str] = set()
            todo = [c for c in proc.calls if c in procs]
            while todo:
                c = todo.pop()
                if c not in seen:
                    seen.add(c)
                    todo.extend(x for x in procs[c].calls if x in procs)
            proc.recursive = name in seen

    def has_decision(self, node: ast.Node) -> bool:
        return reaches_decision(node, self.out.procedures)

    def _check_decision_places(self, game: ast.Game) -> None:
        """A decision inside a choice's option must be the option's last step (it runs
        after the option's actions); setup and scoring hold none."""
        for item in game.setup.body:
            if isinstance(item, ast.Call) and self.has_decision(item):
                self.error(item.span, f"setup cannot call {item.name}: it can reach a decision")
        bodies = [game.body] + [p.node.body for p in self.out.procedures.values()]
        bodies += [h.body for p in self.out.procedures.values() for h in p.hooks.values()]
        for body in bodies:
            for item in body:
                for choice in _choices(item):
                    for option in choice.body:
                        self._tail_decisions(option, True)

    def _tail_decisions(self, node: ast.Node, tail: bool) -> None:
        if isinstance(node, ast.Do):
            for i, item in enumerate(node.body):
                self._tail_decisions(item, tail and i == len(node.body) - 1)
        elif isinstance(node, ast.Guarded | ast.Let) or (
            isinstance(node, ast.ForEach) and node.quantifier == "any"
        ):
            self._tail_decisions(node.body, tail)
        elif isinstance(node, ast.Stage):
            pass  # reported by s_Stage
        elif self.has_decision(node) and not tail:
            self.error(
                node.span,
                "a decision inside a choice's option must be the option's last step",
                hint="move it to the end of the option, or after the choice",
            )

    def _check_setup(self, setup: ast.Setup) -> None:
        first = setup.body[0] if setup.body else None
        if not isinstance(first, ast.CreatePlayers):
            later = any(isinstance(item, ast.CreatePlayers) for item in setup.body)
            self.error(
                first.span if first is not None else setup.span,
                "setup must start with (create players N)",
                hint="move (create players N) to the top of the setup"
                if later
                else "add (create players N) as the first form of the setup",
            )
        for item in setup.body:
            if isinstance(item, ast.Choice | ast.Stage):
                self.error(item.span, "setup cannot hold decisions or stages")
            self.stmt(item)

    # ------------------------------------------------------------ scopes
    def _bind(
        self, name: str, type_: str, span: ast.Span, declare: ast.Declare | None = None
    ) -> Binding:
        slot = -1 if declare is not None else self.out.n_slots
        if declare is None:
            self.out.slot_types[slot] = type_
            self.out.n_slots += 1
        binding = Binding(type_, slot, span, declare)
        self.scope.names[name] = binding
        return binding

    def _with_var(self, node: ast.Node, name: str, type_: str) -> _Scope:
        outer = self.scope
        self.scope = _Scope(outer)
        slot = self._bind(name, type_, node.span).slot
        self.out.slots[id(node)] = slot
        if isinstance(node, ast.ForEach | ast.Filter | ast.Aggregate):
            self.out.element_slots.add(slot)
        return outer

    # ------------------------------------------------------------ statements
    def stmt(self, node: ast.Node) -> None:
        method = getattr(self, "s_" + type(node).__name__, None)
        if method is None:
            self.error(node.span, f"{_form_name(node)} is an expression, not an action")
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
        t = self.expect(n.target, (T.INTSTO, T.STRSTO, T.POINTS), "to set")
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
        self.expect(n.target, T.INTSTO, "to " + ("inc" if n.sign > 0 else "dec"))
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
            self.error(
                node.collection.span, f"{verb} needs {_article(kind)} here, got {_article(t)}"
            )
        elif verb in ("move", "remember"):
            self._loc_written(node.collection)

    def _loc_written(self, node: ast.Node) -> None:
        if isinstance(node, ast.Location):
            if isinstance(node.name, ast.NameLiteral):
                self.loc_written[node.name.value].add(node.kind)
            else:
                self.dynamic_names = True

    def _storage_written(self, node: ast.Node) -> None:
        if isinstance(node, ast.Storage):
            if isinstance(node.name, ast.NameLiteral):
                self.sto_written[node.name.value].add(node.kind)
            else:
                self.dynamic_storages = True

    def _element(self, coll: ast.Node) -> str:
        t = self.expr(coll)
        if t == T.ANY:
            return T.ANY
        elem = T.ELEMENT.get(t)
        if elem is None:
            self.error(coll.span, f"expected a collection, got {_article(t)}")
            return T.ANY
        return elem

    def _awards(self, n: ast.Awards) -> None:
        for award in n.awards:
            for cond in award.conditions:
                self.expect(cond.key, T.STR, "as an attribute name")
                self.expect(cond.value, T.STR, "as an attribute value")
                if isinstance(cond.key, ast.NameLiteral):
                    self.att_uses.append((cond.key.value, cond.key.span))
                    if isinstance(cond.value, ast.NameLiteral):
                        self.value_uses.append((cond.key.value, cond.value.value, cond.value.span))
            self.expect(award.points, T.INT, "as the points of an award")

    # ------------------------------------------------------------ expressions
    def expr(self, node: ast.Node) -> str:
        method = getattr(self, "e_" + type(node).__name__, None)
        cost = 1 if id(node) == self.folded else _FORM_COST
        if self.expr_cost + cost > _PAREN_BUDGET:
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
            self.error(node.span, f"{_form_name(node)} is an action, not a value")
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
            self.error(n.collection.span, f"expected a card collection, got {_article(t)}")
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

    def _cards(self, node: ast.Node) -> str:
        t = self.expect(node, T.CARD_COLLECTIONS)
        self._loc_read(node)
        return t

    def _loc_read(self, node: ast.Node) -> None:
        if isinstance(node, ast.Location) and isinstance(node.name, ast.NameLiteral):
            self.loc_read.append((node.name.value, node.kind, node.name.span))

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
                self.error(part.span, f"expected a card collection, got {_article(t)}")
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
                self.error(part.span, f"expected a card collection, got {_article(t)}")
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
            + f" here, got {_article(body)}",
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
                f"expected a collection to count in (size ...), got {_article(t)}",
                hint=_conversion_hint(t, (T.CARDS,)),
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
        t = self.out.kind_attribute_types.get(n.name)
        if t != T.INT:
            self.error(
                n.span,
                f"no card kind has an integer attribute {n.name}",
                hint=did_you_mean(
                    n.name, [a for a, u in self.out.kind_attribute_types.items() if u == T.INT]
                ),
            )
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
                f"cannot compare {_article(left)} with {_article(right)} using {n.op}",
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

    # ------------------------------------------------------------ names
    def _check_names(self) -> None:
        """Names that are read but never written are almost always typos."""
        attrs = self.out.deck_attributes
        if attrs:
            # A misspelt attribute is an error; a legal but pointless name (CardStock reads
            # a missing attribute as "" and compares a missing value as false) only warns.
            for key, span in self.att_uses:
                if key not in attrs:
                    typo = did_you_mean(key, attrs)
                    if typo:
                        self.error(span, f"no card has an attribute '{key}'", hint=typo)
                    else:
                        self.warning(
                            span,
                            f"no card has an attribute '{key}': it reads as \"\"",
                            hint=f"the cards have {', '.join(sorted(attrs))}",
                        )
            for key, value, span in self.value_uses:
                values = attrs.get(key)
                if values and value not in values:
                    self.warning(
                        span,
                        f"no card has {key} = {value}; this test is never true for a card",
                        hint=did_you_mean(value, values),
                    )
        for name, kind, span in [] if self.dynamic_names else self.loc_read:
            if kind in self.loc_written.get(name, ()):
                continue
            other_kinds = self.loc_written.get(name)
            if other_kinds:
                filled = " and ".join(_article(k) for k in sorted(other_kinds))
                self.error(
                    span,
                    f"location {name} is never filled as {_article(kind)}",
                    hint=f"it is filled as {filled}; each kind is a separate location",
                )
                continue
            hint = did_you_mean(name, self.loc_written)
            if hint:
                self.error(span, f"unknown location '{name}': no card is ever put there", hint=hint)
            else:  # legal (it is always empty), but rarely what the author meant
                self.warning(span, f"location '{name}' is never filled: it is always empty")
        for name, kind, span in [] if self.dynamic_storages else self.sto_read:
            if kind in self.sto_written.get(name, ()):
                continue
            hint = did_you_mean(name, [n for n, k in self.sto_written.items() if kind in k])
            if hint:  # legal (it reads as 0, "" or an empty map) but most likely a typo
                what = {"sto": "integer storage", "str": "string storage", "points": "point map"}
                self.warning(span, f"{what.get(kind, kind)} '{name}' is never set", hint=hint)


def _kind_value_type(value: int | str | tuple[str, ...]) -> str:
    if isinstance(value, int):
        return T.INT
    return T.STR if isinstance(value, str) else T.STRS


def _global_scope(scope: _Scope) -> _Scope:
    while scope.parent is not None:
        scope = scope.parent
    return scope


def statement_children(node: ast.Node) -> list[ast.Node]:
    """The statements directly inside a statement (not its expressions)."""
    out: list[ast.Node] = []
    for name in node.__dataclass_fields__:  # type: ignore[attr-defined]
        value = getattr(node, name)
        if isinstance(value, ast.Node):
            out.append(value)
        elif isinstance(value, tuple):
            out.extend(v for v in value if isinstance(v, ast.Node))
    return [c for c in out if type(c) in ast.STATEMENT_CLASSES]


def reaches_decision(node: ast.Node, procedures: Mapping[str, Procedure]) -> bool:
    """Whether running a statement can stop at a decision: it holds a choice or a stage,
    or calls a procedure known (in ``procedures``) to reach one."""
    if isinstance(node, ast.Choice | ast.Stage):
        return True
    if isinstance(node, ast.Call):
        proc = procedures.get(node.name)
        return proc is not None and proc.has_decision
    return any(reaches_decision(c, procedures) for c in statement_children(node))


def _choices(node: ast.Node) -> Iterator[ast.Choice]:
    """Every choice written inside a statement, nested ones included."""
    if isinstance(node, ast.Choice):
        yield node
    for c in statement_children(node):
        yield from _choices(c)


def one_based_teams(n: ast.CreateTeams, nplayers: int | None) -> bool:
    """Teams listed as 1..N (newest CardStock) rather than 0..N-1 (RECYCLE 0.5.10)."""
    listed = {p for team in n.teams for p in team}
    return nplayers is not None and 0 not in listed and nplayers in listed


def static_int(node: ast.Node, lookup: object) -> int | None:
    """The value of an integer known before the game starts (a literal or a constant)."""
    if isinstance(node, ast.IntLiteral):
        return node.value
    if isinstance(node, ast.Variable) and callable(lookup):
        binding = lookup(node.name)
        if binding is not None and binding.declare is not None:
            return static_int(binding.declare.value, lookup)
    return None


def _article(t: str) -> str:
    """'an integer', 'a card', but 'the game'."""
    return t if t.startswith("the ") else T.article(t)


def _form_name(node: ast.Node) -> str:
    return type(node).__name__


def _conversion_hint(got: str, wanted: tuple[str, ...]) -> str | None:
    """How to get one of the ``wanted`` types from a value of type ``got``, when obvious."""
    if T.BOOL in wanted and T.read_type(got) == T.INT:
        return "an integer is not a condition: compare it, e.g. (> ... 0)"
    if T.INT in wanted and got == T.CARD:
        return "a card is not a number: use (score CARD using POINTS) or (size COLLECTION)"
    if T.INT in wanted and got in T.CARD_COLLECTIONS:
        return "to count cards use (size ...)"
    if T.CARD in wanted and got in T.CARD_COLLECTIONS:
        return "take one card of it: (top ...), (bottom ...) or (N ...)"
    return None


def check(game: ast.Game, source: SourceFile) -> CheckedGame:
    """Type-check a parsed game; the diagnostics are in the result, nothing is raised."""
    return Checker(game, source).run()
