"""The checker: scopes, types, and the names a game uses, with every error of a file at once.

Pipeline position: after the parser, before the compiler; language layer, importing only
``cardlang.errors`` and other language modules.  ``check(game, source)`` returns a
``CheckedGame``: the type of every expression node, the register slot of every variable
binding, and the diagnostics.  The compiler relies on the types (is this card collection
a real location or a computed one? is this owner a player or a team?) and never
re-derives them.  Errors are collected, never raised one by one; an expression that
failed to check gets type ANY so that one mistake gives one message.

This module holds ``Checker`` (a game's declarations, card kinds, procedures and setup,
where decisions may stand, the names read but never written) and ``check``.  The rules
of the forms are mixins that ``Checker`` inherits: actions in checker_statements.py,
values in checker_expressions.py, both over the state and reporting they share in
checker_base.py.  The result types are in checked_game.py, the rules read off the AST
alone in ast_facts.py; their public names are re-exported here, so import them from
``cardlang.language.checker``.
"""

from __future__ import annotations

from cardlang.errors import SourceFile, did_you_mean
from cardlang.language import ast
from cardlang.language import types as T
from cardlang.language.ast_facts import (
    MAX_CARDS,
    choices_in,
    count_text,
    deck_cards,
    descendants,
    one_based_teams,
    reaches_decision,
    simultaneous_in,
    statement_children,
    static_cards,
    static_int,
)
from cardlang.language.checked_game import CheckedGame, Procedure
from cardlang.language.checker_base import (
    MAX_CHOICE_ANYS,
    MAX_EXPR_DEPTH,
    Binding,
    Scope,
    article,
)
from cardlang.language.checker_expressions import ExpressionRules
from cardlang.language.checker_presentation import PresentationRules
from cardlang.language.checker_statements import StatementRules
from cardlang.language.kinds import KIND_ATTRIBUTE

__all__ = [
    "MAX_CARDS",
    "MAX_CHOICE_ANYS",
    "MAX_EXPR_DEPTH",
    "PARAM_TYPES",
    "Binding",
    "CheckedGame",
    "Checker",
    "Procedure",
    "check",
    "deck_cards",
    "one_based_teams",
    "reaches_decision",
    "statement_children",
    "static_int",
]

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


class Checker(StatementRules, ExpressionRules, PresentationRules):
    """Checks one game: ``run`` gives the ``CheckedGame`` with every diagnostic."""

    # ------------------------------------------------------------ top level
    def run(self) -> CheckedGame:
        game = self.out.game
        # kinds first: a declared value may read a kind's attributes, (attr NAME 'C)
        self._situations(game.situations)
        self._kinds(game.kinds)
        for d in game.declares:
            t = T.read_type(self.expr(d.value))
            if d.allowed is not None:
                self._allowed_values(d, t)
            self._bind(d.var, t, d.span, declare=d)
            if t in (T.INT, T.STR, T.BOOL, T.STRS):
                self.out.declare_slots[id(d)] = self.out.n_slots
                self.out.slot_types[self.out.n_slots] = t
                self.out.n_slots += 1
        for rule in game.parameter_values:
            self._parameter_values(rule)
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
        self._check_presentation()  # first: a table score's reads count as reads
        self._check_kind_values(game)
        self._check_names()
        self._check_labels()
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

    def _parameter_values(self, rule: ast.ParameterValues) -> None:
        """(parameter-values 'VAR "TEXT" (choose COUNT NAMES)+): VAR a declared name or
        list of names, each choice literal, and the default one that fits."""
        from cardlang.language.params import misfit, name_choices, names_of

        declared = {d.var: d for d in self.out.game.declares}
        d = declared.get(rule.var)
        if d is None:
            hint = did_you_mean(rule.var, declared)
            self.error(rule.span, f"no parameter {rule.var} is declared", hint=hint)
            return
        if not isinstance(d.value, ast.NameLiteral | ast.StrList):
            self.error(rule.span, f"{rule.var} is not a name or a list of names")
            return
        choices = name_choices(rule, declared)
        if isinstance(choices, str):
            self.error(rule.span, choices)
            return
        why = misfit(rule, choices, names_of(d.value))
        if why:
            self.error(d.value.span, f"the default of {rule.var} does not fit: {why}")

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

    def _check_kind_values(self, game: ast.Game) -> None:
        """A card kind's list value (a type: ``(TYPES (ACTION, ATACK))``) that no rule
        reads, no other kind has, and that is close to one that is: a typo (Moat would
        never react to that card), said with a did-you-mean, as a warning (a value only
        people read, a set's name, is allowed)."""
        read = {n.value for n in descendants(game) if isinstance(n, ast.NameLiteral)}
        for form in game.presentation.card_colour if game.presentation else ():
            read.update(pair.value for pair in form.pairs)
        holders: dict[str, int] = {}
        for kind in game.kinds:
            for a in kind.attributes:
                if isinstance(a.value, tuple):
                    for item in set(a.value):
                        holders[item] = holders.get(item, 0) + 1
        known = read | {item for item, n in holders.items() if n > 1}
        for kind in game.kinds:
            for a in kind.attributes:
                if not isinstance(a.value, tuple):
                    continue
                for item in a.value:
                    if item in known:
                        continue
                    hint = did_you_mean(item, known)
                    if hint is not None:
                        self.warning(
                            a.span,
                            f"{kind.name}'s {a.name} value {item} is read by no rule and "
                            "held by no other card",
                            hint=hint,
                        )

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
        outer, self.scope = self.scope, Scope(_global_scope(self.scope))
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
                for choice in choices_in(item):
                    for option in choice.body:
                        self._tail_decisions(option, True)
                for block in simultaneous_in(item):
                    self._check_simultaneous(block)

    def _check_simultaneous(self, block: ast.Simultaneous) -> None:
        """A (simultaneous ...) block only makes decisions: its body is choices and the
        control around them; each choice's options run after all have picked, so they
        cannot hold another decision."""
        if not any(True for item in block.body for _ in choices_in(item)):
            self.error(block.span, "(simultaneous ...) holds no choice: nobody picks anything")
        for item in block.body:
            self._secret_body(item)

    def _secret_body(self, node: ast.Node) -> None:
        if isinstance(node, ast.Choice):
            for option in node.body:
                inner = self._first_decision(option)
                if inner is not None:
                    self.error(
                        inner.span,
                        "an option of a choice in (simultaneous ...) cannot hold another "
                        "decision: it runs once every pick is made",
                    )
        elif isinstance(node, ast.Simultaneous):
            self.error(node.span, "(simultaneous ...) cannot be nested in another")
        elif isinstance(node, ast.Stage):
            self.error(node.span, "(simultaneous ...) cannot hold a stage")
        elif isinstance(node, ast.Do | ast.ForEach | ast.Guarded | ast.Let | ast.Repeat):
            for child in statement_children(node):
                self._secret_body(child)
        elif not isinstance(node, ast.Pass):
            self.error(
                node.span,
                "an action in (simultaneous ...) outside a choice would run before the "
                "picks are revealed: the block only makes decisions",
                hint="put it in a choice's option, or after the block",
            )

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

    def _first_decision(self, node: ast.Node) -> ast.Node | None:
        """The first statement inside ``node`` that stops at a decision by itself."""
        if isinstance(node, ast.Choice | ast.Stage | ast.Simultaneous | ast.Call):
            return node if self.has_decision(node) else None
        for child in statement_children(node):
            found = self._first_decision(child)
            if found is not None:
                return found
        return None

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
        made = 0  # the cards the setup surely creates, so far
        for item in setup.body:
            if isinstance(item, ast.Choice | ast.Stage | ast.Simultaneous):
                self.error(item.span, "setup cannot hold decisions or stages")
            self.stmt(item)
            cards = static_cards(item, self.scope.lookup)
            if made <= MAX_CARDS < made + cards and cards <= MAX_CARDS:  # (else: its own)
                self.error(
                    item.span,
                    f"the setup creates {count_text(made + cards)} cards by here: more "
                    f"than a game may hold ({MAX_CARDS} cards)",
                    hint="the bound counts every card a game creates, in setup and in play",
                )
            made += cards

    # ------------------------------------------------------------ names
    def _check_names(self) -> None:
        """Names that are read but never written are almost always typos."""
        self._check_route_ends()
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
                filled = " and ".join(article(k) for k in sorted(other_kinds))
                self.error(
                    span,
                    f"location {name} is never filled as {article(kind)}",
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

        self._check_unread_writes()

    def _check_unread_writes(self) -> None:
        """A storage set, or a location filled, that nothing reads while a name close to
        it is read: almost always a typo (``(inc ('ME sto ACTOINS))``), and the card
        silently does less.  Names made at run time (a storage per card kind) could be
        read under any name, so there only a name no card kind or value has counts."""
        possible = {*self.out.kinds, *(v for vs in self.out.deck_attributes.values() for v in vs)}
        reads = {
            "sto": [(n, k) for n, k, _ in self.sto_read],
            "loc": [(n, k) for n, k, _ in self.loc_read],
        }
        dynamic = {"sto": self.dynamic_storages, "loc": self.dynamic_names}
        what = {"sto": "integer storage", "str": "string storage", "points": "point map"}
        for (family, name, kind), span in self.first_writes.items():
            if (name, kind) in reads[family] or (dynamic[family] and name in possible):
                continue
            hint = did_you_mean(name, sorted({n for n, k in reads[family] if k == kind}))
            if hint is None:
                continue  # written for people to see, or on purpose: not a typo
            noun = what.get(kind, kind) if family == "sto" else f"location ({kind})"
            verb = "set" if family == "sto" else "filled"
            self.warning(span, f"{noun} '{name}' is {verb} but never read", hint=hint)

    def _check_labels(self) -> None:
        """The placeholders of every (label "TEXT" CONDACT) (language/label_text.py)."""
        from cardlang.language.label_text import check_label

        known = {*self.out.deck_attributes, *self.out.kind_attribute_types}
        attrs = None if self.dynamic_names and not known else known
        for label, condact in self.label_uses:
            self.out.diagnostics.extend(check_label(label, condact, self.out, attrs))

    def _check_route_ends(self) -> None:
        """The name attributes that (connects ...) and (longest-path ...) read as a
        route's ends must be some card's: a card without them is no route, so a typo
        would leave the form silently false or 0.  (Checked here, once every deck is
        seen: procedures are checked before the setup that creates the cards.)"""
        names = self.out.deck_attributes
        for key, span in self.end_uses:
            if key in names:
                continue
            known = ", ".join(sorted(names))
            self.error(
                span,
                f"no card has a name attribute '{key}'",
                hint=did_you_mean(key, names)
                or (f"the cards' name attributes are {known}" if known else None),
            )


def _kind_value_type(value: int | str | tuple[str, ...]) -> str:
    if isinstance(value, int):
        return T.INT
    return T.STR if isinstance(value, str) else T.STRS


def _global_scope(scope: Scope) -> Scope:
    while scope.parent is not None:
        scope = scope.parent
    return scope


def check(game: ast.Game, source: SourceFile) -> CheckedGame:
    """Type-check a parsed game; the diagnostics are in the result, nothing is raised."""
    return Checker(game, source).run()
