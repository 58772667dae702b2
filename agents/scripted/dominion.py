"""Scripted Dominion bots: buy rules as data, and sensible answers to every card's question.

A bot is a TOML file (the built-in ones are in agents/bots/):

    name = "bmu"
    play = ["SMITHY"]                               # Actions to play first, in order
    buy = [
        { card = "PROVINCE", if = "money > 18" },   # tried in order: the first rule whose
        { card = "GOLD" },                          # card is on offer and affordable and
        { card = "SILVER" },                        # whose condition holds is bought
    ]

Conditions are small expressions (Python syntax, nothing else allowed) over what the
player knows: ``money`` (the coins of all Treasures it owns), ``treasures`` and ``cards``
(how many it owns), ``coins``, ``buys``, ``actions`` (this turn), ``turn`` (its turns so
far), ``players``, ``empty_piles``, ``count(CARD)`` (how many of CARD it owns) and
``left(CARD)`` (cards left in CARD's Supply pile).  Card names are written bare.

The bot plays games/dominion.rcy: it recognises the decisions by their situation names
and reads owned-card counts from the per-kind storages the game keeps.  Decisions that
the buy rules do not cover (Militia discards, Moat reveals, Chapel trashing, ...) get
fixed, reasonable answers, documented at each handler below.  A bot file may give a
situation a rule of its own (a new card's decision, or another answer to a known one):

    [situations]
    TINKER-TRASH = "trash_junk"                     # a built-in answer, by its name
    TINKER-GAIN = ["GOLD", { card = "SILVER", if = "money < 12" }]
                                  # cards in order: the first offered whose condition
                                  # holds; none: decline (stop, don't, end the phase)
    HEXER-CHOICE = [{ label = "curse" }, { label = "+2 cards" }]
                                  # or options by words of their readable labels

A bot with rules of its own for situations plays in Python on either engine (the native
bot, native/src/bots.cpp, knows the built-in answers only): the same moves, slower.
"""

from __future__ import annotations

import ast as pyast
import operator
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from cardlang.agents.base import Capabilities

from cardlang.engine.protocol import Engine, agents_inside
from cardlang.errors import UsageError, did_you_mean

if TYPE_CHECKING:
    from cardlang.information.views import OptionView, PlayerView

BOTS_PACKAGE = "cardlang.agents.scripted.bots"


# ---------------------------------------------------------------- conditions

_BINARY = {
    pyast.Add: operator.add,
    pyast.Sub: operator.sub,
    pyast.Mult: operator.mul,
    pyast.Div: operator.truediv,
    pyast.FloorDiv: operator.floordiv,
    pyast.Mod: operator.mod,
}
_COMPARE = {
    pyast.Lt: operator.lt,
    pyast.LtE: operator.le,
    pyast.Gt: operator.gt,
    pyast.GtE: operator.ge,
    pyast.Eq: operator.eq,
    pyast.NotEq: operator.ne,
}
VARIABLES: tuple[str, ...] = (
    "money",
    "treasures",
    "cards",
    "coins",
    "buys",
    "actions",
    "turn",
    "players",
    "empty_piles",
)
FUNCTIONS = ("count", "left")

Condition = Callable[["Facts"], Any]
_CARD_NAME = re.compile(r"\b[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+\b")
_HYPHEN = "__"


def _card_name(python_name: str) -> str:
    return python_name.replace(_HYPHEN, "-")


def compile_condition(text: str, where: str) -> Condition:
    """A condition string -> a function of the bot's facts.  Raises UsageError."""
    # card names may hold hyphens (COUNCIL-ROOM): make them one Python name first
    python_text = _CARD_NAME.sub(lambda m: m.group(0).replace("-", _HYPHEN), text)
    try:
        tree = pyast.parse(python_text, mode="eval").body
    except SyntaxError as err:
        raise UsageError(f"{where}: cannot read condition {text!r}: {err.msg}") from None
    return _compile(tree, text, where)


def _compile(node: pyast.AST, text: str, where: str) -> Condition:  # noqa: C901
    def bad(what: str) -> UsageError:
        return UsageError(f"{where}: {what} in condition {text!r}")

    if isinstance(node, pyast.Constant) and isinstance(node.value, int | float):
        value = node.value
        return lambda f: value
    if isinstance(node, pyast.Name):
        name = node.id
        if name.isupper():  # a card name
            card_name = _card_name(name)
            return lambda f: card_name
        if name not in VARIABLES:
            raise bad(f"unknown name '{name}' (known: {', '.join(VARIABLES)})")
        return lambda f: getattr(f, name)
    if isinstance(node, pyast.BinOp) and type(node.op) in _BINARY:
        op = _BINARY[type(node.op)]
        left, right = _compile(node.left, text, where), _compile(node.right, text, where)
        return lambda f: op(left(f), right(f))
    if isinstance(node, pyast.UnaryOp) and isinstance(node.op, pyast.Not | pyast.USub):
        inner = _compile(node.operand, text, where)
        if isinstance(node.op, pyast.Not):
            return lambda f: not inner(f)
        return lambda f: -inner(f)
    if isinstance(node, pyast.BoolOp):
        parts = [_compile(v, text, where) for v in node.values]
        if isinstance(node.op, pyast.And):
            return lambda f: all(p(f) for p in parts)
        return lambda f: any(p(f) for p in parts)
    if isinstance(node, pyast.Compare) and all(type(o) in _COMPARE for o in node.ops):
        first = _compile(node.left, text, where)
        rest = [
            (_COMPARE[type(o)], _compile(c, text, where))
            for o, c in zip(node.ops, node.comparators, strict=True)
        ]

        def compare(f: Facts) -> bool:
            left = first(f)
            for op, right_fn in rest:
                right = right_fn(f)
                if not op(left, right):
                    return False
                left = right
            return True

        return compare
    if isinstance(node, pyast.Call) and isinstance(node.func, pyast.Name):
        fname = node.func.id
        if fname not in FUNCTIONS or len(node.args) != 1 or node.keywords:
            raise bad(f"unknown function '{fname}' (known: count(CARD), left(CARD))")
        arg = node.args[0]
        if not (isinstance(arg, pyast.Name) and arg.id.isupper()):
            raise bad(f"{fname}() takes a card name, like {fname}(GOLD)")
        card = _card_name(arg.id)
        return lambda f: getattr(f, fname)(card)
    raise bad(f"'{pyast.unparse(node)}' is not allowed")


# The native engine's form of a condition (native/src/bots.h, ``Cond``): nodes written
# children first, each (op, constant, arg, card, kids); the last is the root.
_NATIVE_OPS = {
    "const": 0,
    "var": 1,
    "bin": 2,
    "not": 3,
    "neg": 4,
    "and": 5,
    "or": 6,
    "cmp": 7,
    "call": 8,
}
_NATIVE_BINARY = [pyast.Add, pyast.Sub, pyast.Mult, pyast.Div, pyast.FloorDiv, pyast.Mod]
_NATIVE_COMPARE = [pyast.Lt, pyast.LtE, pyast.Gt, pyast.GtE, pyast.Eq, pyast.NotEq]


def native_condition(text: str) -> list[tuple[int, float, int, str, list[int]]]:
    """A condition (already checked by ``compile_condition``) as the native bot's nodes."""
    python_text = _CARD_NAME.sub(lambda m: m.group(0).replace("-", _HYPHEN), text)
    nodes: list[tuple[int, float, int, str, list[int]]] = []

    def add(op: str, value: float = 0.0, arg: int = 0, card: str = "", kids=()) -> int:  # type: ignore[no-untyped-def]
        nodes.append((_NATIVE_OPS[op], float(value), arg, card, list(kids)))
        return len(nodes) - 1

    def walk(node: pyast.AST) -> int:
        if isinstance(node, pyast.Constant):
            return add("const", float(node.value))  # type: ignore[arg-type]
        if isinstance(node, pyast.Name):
            if node.id.isupper():  # a bare card name: not a number
                return add("const", float("nan"))
            return add("var", arg=VARIABLES.index(node.id))
        if isinstance(node, pyast.BinOp):
            kids = [walk(node.left), walk(node.right)]
            return add("bin", arg=_NATIVE_BINARY.index(type(node.op)), kids=kids)
        if isinstance(node, pyast.UnaryOp):
            return add(
                "not" if isinstance(node.op, pyast.Not) else "neg", kids=[walk(node.operand)]
            )
        if isinstance(node, pyast.BoolOp):
            op = "and" if isinstance(node.op, pyast.And) else "or"
            return add(op, kids=[walk(v) for v in node.values])
        if isinstance(node, pyast.Compare):
            kids = [walk(node.left)] + [walk(c) for c in node.comparators]
            code = sum(_NATIVE_COMPARE.index(type(o)) * 8**k for k, o in enumerate(node.ops))
            return add("cmp", arg=code, kids=kids)
        assert isinstance(node, pyast.Call) and isinstance(node.func, pyast.Name)
        card = _card_name(node.args[0].id)  # type: ignore[attr-defined]
        return add("call", arg=FUNCTIONS.index(node.func.id), card=card)

    walk(pyast.parse(python_text, mode="eval").body)
    return nodes


@lru_cache(maxsize=256)
def _native_condition_cached(text: str) -> tuple[Any, ...]:
    return tuple(
        (op, v, arg, card, tuple(kids)) for op, v, arg, card, kids in native_condition(text)
    )


def _native_nodes(text: str) -> list[tuple[int, float, int, str, list[int]]]:
    """``native_condition``, compiled once per text (a bot is made for every game)."""
    return [
        (op, v, arg, card, list(kids)) for op, v, arg, card, kids in _native_condition_cached(text)
    ]


# ---------------------------------------------------------------- what the bot knows


class Facts:
    """What the deciding player knows, read from its view (computed on first use)."""

    def __init__(self, view: PlayerView, piles: dict[tuple[int, str, str], str]) -> None:
        self.view = view
        self.me = view.seat
        self._piles = piles  # supply pile -> kind, remembered when the pile was seen

    def count(self, kind: str) -> int:
        return self.view.storage(self.me, kind)

    def left(self, kind: str) -> int:
        for key, pile_kind in self._piles.items():
            if pile_kind == kind:
                return self.view.size(*key)
        return 0

    @cached_property
    def _owned(self) -> list[tuple[Mapping[str, Any], int]]:
        kinds = self.view.kinds
        return [(kinds[k], self.count(k)) for k in kinds]

    @cached_property
    def money(self) -> int:
        return sum(a["COINS"] * n for a, n in self._owned if "TREASURE" in a["TYPES"])

    @cached_property
    def treasures(self) -> int:
        return sum(n for a, n in self._owned if "TREASURE" in a["TYPES"])

    @cached_property
    def cards(self) -> int:
        return sum(n for _, n in self._owned)

    @property
    def coins(self) -> int:
        return self.view.storage(self.me, "COINS")

    @property
    def buys(self) -> int:
        return self.view.storage(self.me, "BUYS")

    @property
    def actions(self) -> int:
        return self.view.storage(self.me, "ACTIONS")

    @property
    def turn(self) -> int:
        return self.view.storage(self.me, "TURNS")

    @property
    def players(self) -> int:
        return self.view.nplayers

    @property
    def empty_piles(self) -> int:
        return sum(1 for key in self._piles if self.view.size(*key) == 0)


# ---------------------------------------------------------------- card judgement


def is_a(attrs: Mapping[str, Any] | None, card_type: str) -> bool:
    return attrs is not None and card_type in attrs.get("TYPES", ())


def keep_value(attrs: Mapping[str, Any] | None) -> float:
    """How much a card in hand is worth keeping: Curses and pure Victory cards least."""
    if attrs is None:
        return 0.0
    if is_a(attrs, "CURSE"):
        return -2.0
    if is_a(attrs, "VICTORY") and not is_a(attrs, "TREASURE") and not is_a(attrs, "ACTION"):
        return -1.0
    if is_a(attrs, "TREASURE"):
        return 1.5 * attrs.get("COINS", 0)
    return float(attrs.get("COST", 0))


def trash_value(attrs: Mapping[str, Any] | None) -> float:
    """How much a card is worth owning: Curses least, then by cost."""
    if attrs is None:
        return 0.0
    return -1.0 if is_a(attrs, "CURSE") else float(attrs.get("COST", 0))


def remodel_gain_value(attrs: Mapping[str, Any] | None) -> float:
    """What Remodel gains where no buy rule applies: by ``trash_value``, every card that
    scores something (a Victory card, a Curse) after every card that does not."""
    return trash_value(attrs) - (100.0 if keep_value(attrs) < 0 else 0.0)


# ---------------------------------------------------------------- the bot


@dataclass(frozen=True)
class BuyRule:
    card: str  # "" for a rule that names an option by its label
    condition: Condition | None
    text: str | None = None  # the condition as written (the native engine compiles it too)
    label: str | None = None  # words of the option's readable label (a situation's rule)


def plays_dominion(game: Any) -> bool:
    """Does ``game`` have the decisions the Dominion bots are made for (its Action and
    Buy phases, by their situation names)?  The bots answer a game without them at
    random, so a designer would measure nothing."""
    situations = getattr(game, "situations", None) or {}
    return {"ACTION-PHASE", "BUY-PHASE"} <= set(situations)


class DominionBot:
    """A priority bot for games/dominion.rcy (see the module docstring)."""

    capabilities = Capabilities(view=True)

    #: Which method answers each situation (by name: an instance needs no table of its
    #: own, and a bot is made for every game a batch plays); any other: ``first``.
    HANDLERS: ClassVar[dict[str, str]] = {
        "ACTION-PHASE": "play_action",
        "THRONE-ROOM-PLAY": "play_action",
        "BUY-PHASE": "buy",
        "WORKSHOP-GAIN": "gain",
        "REMODEL-GAIN": "remodel_gain",
        "ARTISAN-GAIN": "gain",
        "MINE-GAIN": "gain",
        "MILITIA-DISCARD": "discard_worst",
        "POACHER-DISCARD": "discard_worst",
        "BUREAUCRAT-TOPDECK": "discard_worst",
        "CELLAR-DISCARD": "discard_junk",
        "CHAPEL-TRASH": "trash_junk",
        "REMODEL-TRASH": "remodel_trash",
        "BANDIT-TRASH": "trash_cheapest",
        "MINE-TRASH": "mine_trash",
        "MONEYLENDER-TRASH": "accept",
        "MOAT-REVEAL": "accept",
        "VASSAL-PLAY": "accept",
        "HARBINGER-TOPDECK": "harbinger",
        "LIBRARY-SKIP": "library",
        "SENTRY-SORT": "sentry_sort",
        "SENTRY-ORDER": "discard_worst",  # the best card goes back last, on top
        "ARTISAN-TOPDECK": "artisan_topdeck",
    }

    #: The built-in answers a bot file may name for a situation (``[situations]``).
    ANSWERS: ClassVar[frozenset[str]] = frozenset(HANDLERS.values()) | {"first", "decline"}

    def __init__(
        self,
        name: str,
        buy: list[BuyRule],
        play: list[str],
        seed: int = 0,
        situations: Mapping[str, str | tuple[BuyRule, ...]] | None = None,
    ) -> None:
        self.name = name
        self.buy_rules = buy
        self.play_order = play
        # a situation's own rule: a built-in answer's name, or cards in order
        self.situations = dict(situations or {})
        self._piles: dict[tuple[int, str, str], str] = {}
        self._twin: tuple[Any, Any] | None = None  # (program, the native engine's copy)

    # ------------------------------------------------------------ loading
    @classmethod
    def from_toml(cls, text: str, where: str, seed: int = 0) -> DominionBot:
        name, rules, play, situations = _parse_bot(text, where)
        return cls(name, list(rules), list(play), seed, situations)

    @classmethod
    def from_file(cls, path: str | Path, seed: int = 0) -> DominionBot:
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as err:
            raise UsageError(f"cannot read bot file {p}: {err.strerror}") from None
        return cls.from_toml(text, str(p), seed)

    @classmethod
    def builtin(cls, name: str, seed: int = 0) -> DominionBot:
        return cls.from_toml(_builtin_text(name), name, seed)

    # ------------------------------------------------------------ inside the engine
    def native_agent(self, master: Engine) -> Any:
        """This bot as the native engine runs it (native/src/bots.cpp mirrors every
        handler below), for a game the native engine plays; None otherwise."""
        if not master.traits.agents_inside or self.situations:
            return None  # the native bot has the built-in answers only
        inside = agents_inside(master, "a bot's twin needs an engine that plays agents inside")
        # one twin per scope (the game's program), kept: what it learns (the Supply piles,
        # at its first decision) lasts across the stretches and rollouts it plays, as
        # self._piles does
        scope = inside.twin_scope
        if self._twin is None or self._twin[0] is not scope:
            rules = [(r.card, _native_nodes(r.text) if r.text else []) for r in self.buy_rules]
            self._twin = (scope, inside.dominion_bot(rules, list(self.play_order)))
        return self._twin[1]

    # ------------------------------------------------------------ deciding
    def choose(self, view: PlayerView, options: list[Any]) -> int:
        self._remember_piles(view)
        situation = view.situation or ""
        own = self.situations.get(situation)
        facts = Facts(view, self._piles)
        if isinstance(own, tuple):  # cards in order, else decline
            chosen = _first_by(own, view, facts)
            return chosen if chosen is not None else self._decline(view)
        handler = getattr(self, own or self.HANDLERS.get(situation, "first"))
        return handler(view, facts)  # type: ignore[no-any-return]

    def _remember_piles(self, view: PlayerView) -> None:
        """Which kind each Supply pile holds, learnt at the first decision (every pile
        is full then) so that an emptied pile is still known."""
        if self._piles:
            return
        for key, top in view.tops().items():
            if key[0] == -1 and key[2].startswith("SUPPLY"):
                self._piles[key] = top["KIND"]

    # Each handler returns the index of the chosen option.
    def first(self, view: PlayerView, facts: Facts) -> int:
        """A decision no rule covers (a new card's): what never harms the bot's owner,
        declining where an option binds no card, else the least valuable card
        (native/src/bots.cpp does the same; ``warnings_for`` names these decisions)."""
        for i, kind in enumerate(view.option_kinds):
            if kind is None:
                return i
        return _best(view.options, lambda o: -trash_value(_card(o)))

    def warnings_for(self, game: Any) -> list[str]:
        """What a designer should know before measuring ``game`` with this bot: that it
        is not Dominion to the bot, the decisions it has no rule for, and the kingdom
        cards it never buys (their worth goes unmeasured)."""
        name = f"bot {self.name}"
        if not plays_dominion(game):
            return [
                f"{name} plays Dominion (its Action and Buy phases); {game.name} has "
                "neither: it will decline or give up its least valuable card at every "
                "decision"
            ]
        return self._situation_warnings(game, name) + self._card_warnings(game, name)

    def _situation_warnings(self, game: Any, name: str) -> list[str]:
        said: list[str] = []
        unmet = sorted(set(game.situations) - set(self.HANDLERS) - set(self.situations))
        if unmet:
            said.append(
                f"{name} has no rule for {', '.join(unmet)}: there it declines, or gives up "
                "its least valuable card (write the decision's rule in the bot file's "
                "[situations], or measure with a search agent)"
            )
        unknown = sorted(set(self.situations) - set(game.situations))
        if unknown:
            said.append(f"{name} has rules for {', '.join(unknown)}, which {game.name} never asks")
        return said

    def _card_warnings(self, game: Any, name: str) -> list[str]:
        said: list[str] = []
        deals = _first_deals(game)
        kingdom = _same_supply(deals)  # empty: drawn per game, so nothing is missing
        missing = sorted(self.named_cards() - kingdom) if kingdom else []
        if missing:
            said.append(
                f"{name} names {', '.join(missing)}, which this game's Supply lacks: "
                "those rules never apply"
            )
        unbought = sorted(_kingdom_cards(deals) - self.bought_cards())
        if unbought:
            drawn = "" if kingdom else "; each game draws its kingdom from a deck that holds them"
            said.append(
                f"{name} never buys {', '.join(unbought)} (no buy rule names them{drawn}): "
                "what those cards are worth is not measured by this bot"
            )
        return said

    def bought_cards(self) -> set[str]:
        """The cards it may buy: those its Buy-phase rule names (its own rule for
        BUY-PHASE where the file gives one, else the buy rules)."""
        own = self.situations.get("BUY-PHASE")
        rules = own if isinstance(own, tuple) else self.buy_rules
        return {r.card for r in rules if r.card}

    def named_cards(self) -> set[str]:
        """Every card its rules name (buy, play and the situations' card lists)."""
        cards = {r.card for r in self.buy_rules} | set(self.play_order)
        for own in self.situations.values():
            if isinstance(own, tuple):
                cards |= {r.card for r in own if r.card}
        return cards

    def decline(self, view: PlayerView, facts: Facts) -> int:
        """End the phase, stop, don't: the option that binds no card (else the first)."""
        return self._decline(view)

    def _decline(self, view: PlayerView) -> int:
        """The option that binds no card: end the phase, stop, don't."""
        for i, kind in enumerate(view.option_kinds):
            if kind is None:
                return i
        return 0

    def play_action(self, view: PlayerView, facts: Facts) -> int:
        """Actions listed under ``play`` first, in order; else any Action, the dearest
        first (a Throne Room last); else end the phase."""
        kinds = view.option_kinds
        for wanted in self.play_order:
            if wanted in kinds:
                return kinds.index(wanted)
        options = view.options
        best, best_rank = None, None
        for i, o in enumerate(options):
            card = _card(o)
            if card is None:
                continue
            rank = (o.kind != "THRONE-ROOM", card.get("COST", 0))
            if best_rank is None or rank > best_rank:
                best, best_rank = i, rank
        return best if best is not None else self._decline(view)

    def _by_rules(self, view: PlayerView, facts: Facts) -> int | None:
        return _first_by(self.buy_rules, view, facts)

    def buy(self, view: PlayerView, facts: Facts) -> int:
        """The first buy rule that applies; none: end the turn."""
        chosen = self._by_rules(view, facts)
        return chosen if chosen is not None else self._decline(view)

    def gain(self, view: PlayerView, facts: Facts) -> int:
        """A gain (Workshop, Remodel, Mine, Artisan): the buy rules, else the dearest card
        that is not a Curse."""
        chosen = self._by_rules(view, facts)
        if chosen is not None:
            return chosen
        return _best(view.options, lambda o: trash_value(_card(o)))

    def discard_worst(self, view: PlayerView, facts: Facts) -> int:
        """Curses and Victory cards first, then the least useful."""
        return _best(view.options, lambda o: -keep_value(_card(o)))

    def discard_junk(self, view: PlayerView, facts: Facts) -> int:
        """Cellar: discard Curses and Victory cards, then stop."""
        junk = [i for i, o in enumerate(view.options) if keep_value(_card(o)) < 0]
        return junk[0] if junk else self._decline(view)

    def trash_junk(self, view: PlayerView, facts: Facts) -> int:
        """Chapel: trash Curses and Estates, then stop."""
        found = _first_of(view.options, ("CURSE", "ESTATE"))
        return found if found is not None else self._decline(view)

    def trash_cheapest(self, view: PlayerView, facts: Facts) -> int:
        return _best(view.options, lambda o: -trash_value(_card(o)))

    def remodel_trash(self, view: PlayerView, facts: Facts) -> int:
        """Remodel: a Curse, an Estate (into a $4 card), a Copper, else the cheapest."""
        found = _first_of(view.options, ("CURSE", "ESTATE", "COPPER"))
        return found if found is not None else self.trash_cheapest(view, facts)

    def remodel_gain(self, view: PlayerView, facts: Facts) -> int:
        """Remodel's gain: the buy rules, else the dearest card that scores nothing (a
        Copper remodelled into an Estate was a Victory card for nothing: the bot that
        did so scored 0.04 against bmu), else the dearest that is not a Curse."""
        chosen = self._by_rules(view, facts)
        if chosen is not None:
            return chosen
        return _best(view.options, lambda o: remodel_gain_value(_card(o)))

    def mine_trash(self, view: PlayerView, facts: Facts) -> int:
        """Mine: upgrade a Copper, else a Silver; a Gold stays."""
        found = _first_of(view.options, ("COPPER", "SILVER"))
        return found if found is not None else self._decline(view)

    def accept(self, view: PlayerView, facts: Facts) -> int:
        """A 'may' worth taking (reveal Moat, play with Vassal, Moneylender): the first
        branch of the choice, which does it."""
        for i, o in enumerate(view.options):
            if o.branch == 0:
                return i
        return 0

    def harbinger(self, view: PlayerView, facts: Facts) -> int:
        """Put the best Treasure or Action from the discard pile back, if one is worth it."""
        best = _best(view.options, lambda o: keep_value(_card(o)))
        return best if keep_value(_card(view.options[best])) >= 3 else self._decline(view)

    def library(self, view: PlayerView, facts: Facts) -> int:
        """Set an Action aside when no Action is left to play it; else keep it."""
        wanted = 0 if facts.actions == 0 else 1
        for i, o in enumerate(view.options):
            if o.branch == wanted:
                return i
        return 0

    def sentry_sort(self, view: PlayerView, facts: Facts) -> int:
        """Trash Curses, Estates and Coppers, discard other Victory cards, keep the rest.
        The game file's branches: 0 trash, 1 discard, 2 keep."""
        for i, o in enumerate(view.options):
            card = _card(o)
            fate = 2
            if o.kind in ("CURSE", "ESTATE", "COPPER"):
                fate = 0
            elif keep_value(card) < 0:
                fate = 1
            if o.branch == fate:
                return i
        return 0

    def artisan_topdeck(self, view: PlayerView, facts: Facts) -> int:
        """Put back an Action (no Action is left to play it), else the weakest Treasure,
        else anything but a Victory card if possible."""

        def rank(o: OptionView) -> float:
            card = _card(o)
            if is_a(card, "ACTION"):
                return 100 + keep_value(card)
            if is_a(card, "TREASURE"):
                return 50 - keep_value(card)
            return keep_value(card)

        return _best(view.options, rank)


def _first_by(rules: Sequence[BuyRule], view: PlayerView, facts: Facts) -> int | None:
    """The first option offering the first rule's card (or whose label holds the rule's
    words) whose condition holds."""
    kinds = view.option_kinds
    labels = [label.lower() for label in view.option_labels]
    for rule in rules:
        if rule.condition is not None and not rule.condition(facts):
            continue
        if rule.label is not None:
            found = next((i for i, text in enumerate(labels) if rule.label in text), None)
            if found is not None:
                return found
        elif rule.card in kinds:
            return kinds.index(rule.card)
    return None


#: Dominion's basic cards, in the Supply of every game whatever its kingdom: a bot that
#: never buys one tells a designer nothing (a designer's new card is a kingdom card).
BASIC_CARDS = frozenset(
    {"COPPER", "SILVER", "GOLD", "PLATINUM", "POTION", "ESTATE", "DUCHY", "PROVINCE",
     "COLONY", "CURSE"}
)  # fmt: skip


def kingdom_of(game: Any) -> frozenset[str]:
    """The cards of ``game``'s Supply when every deal has the same one (empty when the
    kingdom is drawn per game, or the game has no Supply): what a bot's named cards are
    checked against."""
    return _same_supply(_first_deals(game))


def kingdom_cards(game: Any) -> frozenset[str]:
    """The kingdom cards ``game`` may deal (``BASIC_CARDS`` left out): its Supply's,
    and for a kingdom drawn per game every card of the deck it is drawn from."""
    return _kingdom_cards(_first_deals(game))


def _first_deals(game: Any) -> list[Any]:
    """Two deals of ``game`` (seeds 0 and 1) at their first decision, on the Python
    engine; none where its setup fails (a warning's check: nothing to warn about)."""
    try:
        master = game.master(engine="python")
        return [master.new_game(seed) for seed in (0, 1)]
    except Exception:  # noqa: BLE001 - a warning's check: no deal, no warning
        return []


def _same_supply(deals: list[Any]) -> frozenset[str]:
    supplies = [_supply(st) for st in deals]
    return supplies[0] if len(supplies) == 2 and supplies[0] == supplies[1] else frozenset()


def _supply(st: Any) -> frozenset[str]:
    return frozenset(
        str(st.cards[cards[0]].get("KIND"))
        for (owner, _kind, name), cards in st.zones.items()
        if owner == -1 and name.startswith("SUPPLY") and cards
    )


def _kingdom_cards(deals: list[Any]) -> frozenset[str]:
    """The kinds of the cards in the game's own locations of one deal (its Supply, and a
    drawn kingdom's randomizer deck, whose cards are real cards set apart), but the
    basic cards."""
    if not deals:
        return frozenset()
    st = deals[0]
    kinds = {
        st.cards[card].get("KIND")
        for (owner, _kind, _name), cards in st.zones.items()
        if owner == -1
        for card in cards
    }
    return frozenset(str(k) for k in kinds if k is not None) - BASIC_CARDS


def _parse_rules(rules: Any, where: str, what: str, labels: bool = False) -> tuple[BuyRule, ...]:
    """``[{ card = "NAME", if = "..." }, "NAME", ...]`` as rules (a bare name: no
    condition); with ``labels`` (a situation's rule) also ``{ label = "WORDS", if =
    "..." }``: the option whose readable label holds WORDS (a choice between effects,
    "+$2 and a Curse to each other player", which binds no card)."""
    out = []
    keys = {"card", "label"} if labels else {"card"}
    shape = '{ card = "NAME", if = "..." }' + (
        ' or { label = "WORDS", if = "..." }' if labels else ""
    )
    for i, rule in enumerate(rules if isinstance(rules, list) else [rules]):
        if isinstance(rule, str):
            rule = {"card": rule}
        named = set(rule) & keys if isinstance(rule, dict) else set()
        if len(named) != 1 or set(rule) - keys - {"if"}:
            raise UsageError(f"{where}: {what} {i + 1} must be {shape}")
        text_if = rule.get("if")
        condition = compile_condition(text_if, f"{where}, {what} {i + 1}") if text_if else None
        if "label" in rule:
            words = str(rule["label"]).lower().strip()
            if not words:
                raise UsageError(f"{where}: {what} {i + 1}: an empty label names every option")
            out.append(BuyRule("", condition, text_if or None, label=words))
        else:
            out.append(BuyRule(str(rule["card"]).upper(), condition, text_if or None))
    return tuple(out)


@lru_cache(maxsize=64)
def _parse_bot(
    text: str, where: str
) -> tuple[str, tuple[BuyRule, ...], tuple[str, ...], dict[str, str | tuple[BuyRule, ...]]]:
    """A bot file's name, buy rules, play order and situations' own rules (each text is
    parsed once)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise UsageError(f"{where}: not valid TOML: {err}") from None
    unknown = set(data) - {"name", "buy", "play", "situations"}
    if unknown:
        raise UsageError(
            f"{where}: unknown keys {sorted(unknown)} (known: name, buy, play, situations)"
        )
    rules = _parse_rules(data.get("buy", []), where, "buy rule")
    play = [str(p).upper() for p in data.get("play", [])]
    situations: dict[str, str | tuple[BuyRule, ...]] = {}
    table = data.get("situations", {})
    if not isinstance(table, dict):
        raise UsageError(f"{where}: [situations] must be a table: SITUATION = rule")
    for name, rule in table.items():
        key = str(name).upper()
        if isinstance(rule, str) and rule.lower() in DominionBot.ANSWERS:
            situations[key] = rule.lower()
        elif isinstance(rule, list):
            situations[key] = _parse_rules(rule, where, f"situation {key}'s rule", labels=True)
        else:
            said = str(rule).lower()
            hint = did_you_mean(said, DominionBot.ANSWERS) if isinstance(rule, str) else ""
            raise UsageError(
                f"{where}: situation {key}: {rule!r} is neither a built-in answer"
                + (f" ({hint})" if hint else "")
                + f" ({', '.join(sorted(DominionBot.ANSWERS))}) nor a list of cards"
            )
    return str(data.get("name", Path(where).stem)), rules, tuple(play), situations


@cache
def _builtin_text(name: str) -> str:
    return resources.files(BOTS_PACKAGE).joinpath(f"{name}.toml").read_text("utf-8")


def _card(option: OptionView) -> Mapping[str, Any] | None:
    """The attributes of the first card an option binds (a pile's top card for a pile)."""
    return option.card


def _first_of(options: tuple[OptionView, ...], kinds: Sequence[str]) -> int | None:
    """The first option of the first of ``kinds`` offered, if any."""
    for wanted in kinds:
        for i, o in enumerate(options):
            if o.kind == wanted:
                return i
    return None


def _best(options: tuple[OptionView, ...], score: Callable[[OptionView], float]) -> int:
    """The index of the highest-scoring option (the first one on ties)."""
    best, best_score = 0, None
    for i, o in enumerate(options):
        s = score(o)
        if best_score is None or s > best_score:
            best, best_score = i, s
    return best


BUILTIN_BOTS = ("bigmoney", "bmu", "smithy", "double-witch")
