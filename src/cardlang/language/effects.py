"""What a card kind does, read from its hooks: effect features for agents that meet new cards.

Pipeline position: language, beside the checker (pure analysis of the checked AST, no
engine).  A card's attributes say what the designer chose to state (``COST``, ``TYPES``,
Dominion's ``CARDS`` and ``COINS``); what makes Witch strong, the Curse it gives every
other player, lives only in its ``on PLAY`` body.  ``card_effects`` reads every kind's
hooks once and names what they do, so that the tokens (information/tokens.py) carry it
and a network reads a card it never met by what it does, not only by its name.

Each effect is one name ``eff:HOOK:WHO:WHAT[MODE]``:

- ``HOOK``: the procedure the kind's body is for (``PLAY``, ``REACT``, ...);
- ``WHO``: whom it touches, from the hook's parameters and the loops around it:
  ``SELF`` (the hook's player), ``OTHERS`` (each of ``(others P)``), ``EVERY`` (each
  player), ``GAME`` (the game's own locations and storages), ``ANY`` (any other player);
- ``WHAT``:
  - a call of one of the game's procedures, with its first integer or card argument:
    ``DRAW=2``, ``GAIN=CURSE`` (a declared location's top card is the kind the setup
    creates there), ``GAIN=CHOSEN`` (a card the player picks), ``ATTACK``;
  - a change of an integer storage that is not bookkeeping: ``ACTIONS+2``, ``COINS+1``,
    ``COINS+N`` (an amount that is not a number);
  - a move of a card between two of its owner's locations: ``MOVE:HAND>DISCARD``;
  - a decision: ``CHOOSE:HAND`` (one of the cards of a location), ``CHOOSE`` (between
    branches);
- ``MODE``: ``?`` when it happens only if a condition holds, ``~`` when the player's
  choice decides it, ``*`` when a loop repeats it a number of times the rules compute;
  none when every play does it.  The first that applies, inner to outer: an effect inside
  a choice inside a condition is ``~``.

A repeated effect adds its count (``(repeat 2 (call LOOK-TOP 'ME))`` is ``LOOK-TOP=2``).
Two kinds with the same body have the same effects, whatever their names.  What the
analysis cannot see: what a procedure does inside (``DRAW`` is named, not expanded, so a
card that moves cards from its deck by hand reads otherwise than one that calls
``DRAW``), and the values of conditions (a Witch's Curse is ``?``: a Moat may stop it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from cardlang.language import ast
from cardlang.language.checked_game import CheckedGame

#: At most this many effects per kind reach a token (tokens cut a token's names at
#: ``MAX_NAMES``; a card's components come first).
MAX_EFFECTS = 10

SELF, OTHERS, EVERY, GAME, ANY = "SELF", "OTHERS", "EVERY", "GAME", "ANY"
ALWAYS, IF, CHOSEN, REPEATED = "", "?", "~", "*"


@dataclass(frozen=True)
class _Context:
    """Where the walk is: whom each variable names, the mode and the count so far."""

    hook: str
    roles: Mapping[str, str]  # player variable -> SELF, OTHERS, ...
    cards: Mapping[str, str]  # card variable -> where it comes from (a location, CHOSEN)
    mode: str = ALWAYS
    count: int = 1

    def bind(self, var: str, role: str | None = None, card: str | None = None) -> _Context:
        if role is not None:
            return replace(self, roles={**self.roles, var: role})
        if card is not None:
            return replace(self, cards={**self.cards, var: card})
        return self

    def under(self, mode: str) -> _Context:
        """Inside a condition, a choice or a loop (the innermost mode wins)."""
        return replace(self, mode=mode)


class _Walker:
    """Walks one kind's hooks, counting effect names."""

    def __init__(self, checked: CheckedGame, pile_kinds: Mapping[str, str]) -> None:
        self.checked = checked
        self.pile_kinds = pile_kinds
        self.bookkeeping = {name for kind, name in checked.presentation.bookkeeping}
        self.found: Counter[str] = Counter()

    def hook(self, hook: ast.KindHook) -> None:
        proc = self.checked.procedures.get(hook.procedure)
        roles: dict[str, str] = {}
        cards: dict[str, str] = {}
        if proc is not None:
            for param, kind in zip(proc.node.params, proc.param_types, strict=False):
                if kind == "player" and not roles:
                    roles[param.var] = SELF
                elif kind == "card":
                    cards.setdefault(param.var, "THIS")
        ctx = _Context(hook.procedure, roles, cards)
        for node in hook.body:
            self.walk(node, ctx)

    # ------------------------------------------------------------ statements
    def walk(self, node: ast.Node, ctx: _Context) -> None:  # noqa: C901 - one case a form
        if isinstance(node, ast.Do | ast.Simultaneous):
            for part in node.body:
                self.walk(part, ctx)
        elif isinstance(node, ast.Guarded):
            self.walk(node.body, ctx.under(IF))
        elif isinstance(node, ast.While):
            for part in node.body:
                self.walk(part, ctx.under(REPEATED))
        elif isinstance(node, ast.Repeat):
            count = node.count.value if isinstance(node.count, ast.IntLiteral) else None
            inner = replace(ctx, count=ctx.count * count) if count else ctx.under(REPEATED)
            self.walk(node.body, inner)
        elif isinstance(node, ast.RepeatAll):
            self.walk(node.body, ctx.under(REPEATED))
        elif isinstance(node, ast.Let):
            self.walk(node.body, ctx)
        elif isinstance(node, ast.Labeled):
            self.walk(node.body, ctx)
        elif isinstance(node, ast.ForEach):
            self._for_each(node, ctx)
        elif isinstance(node, ast.Choice):
            self._choice(node, ctx)
        elif isinstance(node, ast.Call):
            self._call(node, ctx)
        elif isinstance(node, ast.Increment):
            self._increment(node, ctx)
        elif isinstance(node, ast.Move):
            self._move(node, ctx)

    def _for_each(self, node: ast.ForEach, ctx: _Context) -> None:
        collection = node.collection
        if node.quantifier == "any":  # a choice's fork: the player picks one
            self.walk(node.body, ctx.bind(node.var, card=self._source(collection, ctx)))
            return
        if isinstance(collection, ast.Others):
            self.walk(node.body, ctx.bind(node.var, role=OTHERS))
        elif isinstance(collection, ast.AllOfKind) and collection.kind == "player":
            self.walk(node.body, ctx.bind(node.var, role=EVERY))
        else:  # each card of a collection: repeated as often as it holds cards
            inner = ctx.bind(node.var, card=self._source(collection, ctx))
            self.walk(node.body, inner.under(REPEATED))

    def _choice(self, node: ast.Choice, ctx: _Context) -> None:
        who = self._who(node.chooser, ctx) if node.chooser is not None else self._self(ctx)
        picks = [p for p in node.body if isinstance(_unlabeled(p), ast.ForEach)]
        for pick in picks:
            source = self._source(_unlabeled(pick).collection, ctx)  # type: ignore[attr-defined]
            self._add(ctx, who, f"CHOOSE:{source}")
        if len(node.body) > len(picks) or not picks:
            self._add(ctx, who, "CHOOSE")
        for branch in node.body:
            self.walk(branch, ctx.under(CHOSEN))

    # ------------------------------------------------------------ effects
    def _call(self, node: ast.Call, ctx: _Context) -> None:
        proc = self.checked.procedures.get(node.name)
        if proc is None:
            return
        typed = list(zip(node.args, proc.param_types, strict=False))
        players = [arg for arg, kind in typed if kind == "player"]
        who = self._who(players[0], ctx) if players else GAME
        values = (self._value(arg, kind, ctx) for arg, kind in typed if kind != "player")
        value = next((v for v in values if v), None)
        if value is not None and value.isdigit():
            value = str(int(value) * ctx.count)
        elif value is None and ctx.count > 1:
            value = str(ctx.count)
        self._add(ctx, who, node.name if value is None else f"{node.name}={value}")

    def _increment(self, node: ast.Increment, ctx: _Context) -> None:
        target = node.target
        if not isinstance(target, ast.Storage) or not isinstance(target.name, ast.NameLiteral):
            return
        name = target.name.value
        if name in self.bookkeeping:
            return
        amount = node.amount
        if isinstance(amount, ast.IntLiteral):
            n = f"{amount.value * node.sign * ctx.count:+d}"
        else:
            n = "+N" if node.sign > 0 else "-N"
        self._add(ctx, self._who(target.owner, ctx), f"{name}{n}")

    def _move(self, node: ast.Move, ctx: _Context) -> None:
        source = self._source(node.card, ctx)
        dest = node.dest.collection if isinstance(node.dest, ast.CardAt) else node.dest
        where = self._location(dest)
        if where is None:
            return
        owner, to = where
        self._add(ctx, self._who(owner, ctx), f"MOVE:{source}>{to}")

    # ------------------------------------------------------------ reading expressions
    def _add(self, ctx: _Context, who: str, what: str) -> None:
        self.found[f"eff:{ctx.hook}:{who}:{what}{ctx.mode}"] += 1

    def _self(self, ctx: _Context) -> str:
        return SELF if SELF in ctx.roles.values() else GAME

    def _who(self, node: ast.Node | None, ctx: _Context) -> str:
        if isinstance(node, ast.Variable):
            return ctx.roles.get(node.name, ANY)
        if isinstance(node, ast.GameOwner):
            return GAME
        if isinstance(node, ast.PlayerRef) and node.which == "current":
            return SELF
        return ANY

    def _value(self, node: ast.Node, kind: str, ctx: _Context) -> str | None:
        """An argument as an effect's value: a number (``N`` where the rules compute
        it), a card kind, ``CHOSEN`` (a card the player picks), ``THIS`` (the card)."""
        if kind == "integer":
            return str(node.value) if isinstance(node, ast.IntLiteral) else "N"
        if kind != "card":
            return None
        if isinstance(node, ast.CardAt):
            node = node.collection
        if isinstance(node, ast.Variable):
            if node.name in ctx.cards:
                return "THIS" if ctx.cards[node.name] == "THIS" else CHOSEN_CARD
            return self.pile_kinds.get(node.name, "CARD")
        return "CARD"

    def _source(self, node: ast.Node, ctx: _Context) -> str:
        """Where a card or a collection comes from, by its location's name."""
        if isinstance(node, ast.Variable):
            return ctx.cards.get(node.name) or self.pile_kinds.get(node.name, node.name)
        if isinstance(node, ast.CardAt | ast.Filter | ast.TopN | ast.Sort):
            return self._source(node.collection, ctx)
        where = self._location(node)
        if where is not None:
            return where[1]
        if isinstance(node, ast.IndexedLocations) and isinstance(node.name, ast.NameLiteral):
            return node.name.value
        return "CARDS"

    @staticmethod
    def _location(node: ast.Node) -> tuple[ast.Node, str] | None:
        if isinstance(node, ast.Location) and isinstance(node.name, ast.NameLiteral):
            return node.owner, node.name.value
        return None


CHOSEN_CARD = "CHOSEN"


def _unlabeled(node: ast.Node) -> ast.Node:
    return node.body if isinstance(node, ast.Labeled) else node


def pile_kinds(checked: CheckedGame) -> dict[str, str]:
    """Declared location names whose cards the setup creates of one kind
    (``'CURSE-PILE`` -> ``CURSE``): a card taken from their top is of that kind."""
    declared = {d.var for d in checked.game.declares if isinstance(d.value, ast.Location)}
    kinds: dict[str, set[str]] = {}
    for node in _all(checked.game.setup):
        if (
            isinstance(node, ast.CreateCards)
            and isinstance(node.location, ast.Variable)
            and node.location.name in declared
            and isinstance(node.kind, ast.NameLiteral)
        ):
            kinds.setdefault(node.location.name, set()).add(node.kind.value)
    return {name: next(iter(ks)) for name, ks in kinds.items() if len(ks) == 1}


def _all(node: object) -> Iterable[ast.Node]:
    """Every AST node under ``node`` (itself included)."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, tuple | list):
            stack.extend(item)
        elif isinstance(item, ast.Node):
            yield item
            stack.extend(getattr(item, f) for f in item.__dataclass_fields__)  # type: ignore[attr-defined]


def card_effects(checked: CheckedGame) -> dict[str, tuple[str, ...]]:
    """Every card kind -> its effect names, the most frequent first (ties by name), at
    most ``MAX_EFFECTS``; a kind without hooks has none."""
    piles = pile_kinds(checked)
    effects: dict[str, tuple[str, ...]] = {}
    for name, kind in checked.kinds.items():
        walker = _Walker(checked, piles)
        for hook in kind.hooks:
            walker.hook(hook)
        ranked = sorted(walker.found.items(), key=lambda item: (-item[1], item[0]))
        effects[name] = tuple(name for name, _ in ranked[:MAX_EFFECTS])
    return effects
