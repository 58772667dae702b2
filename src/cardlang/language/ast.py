"""The abstract syntax tree of cardlang: frozen dataclasses, one per grammar rule.

Pipeline position: parser.py builds these from Lark's parse tree; checker.py types and
checks them; the compilers (cardlang.compiler) turn them into closures.  Every node
carries a ``span`` so that any later stage can point at the source.  The docstring of
each class shows its surface form.  The order of the classes follows the sections of
grammar/cardlang.lark.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cardlang.errors import Span


@dataclass(frozen=True, slots=True)
class Node:
    span: Span = field(compare=False, repr=False, kw_only=True)


# ---------------------------------------------------------------- setup


@dataclass(frozen=True, slots=True)
class Declare(Node):
    """``(declare VALUE 'VAR [ALLOWED])``: a program constant; ALLOWED (a range or a
    list of names) is what ``--param`` may set it to."""

    value: Node
    var: str
    allowed: Node | None = None


@dataclass(frozen=True, slots=True)
class Setup(Node):
    """``(setup (create players N) [(create teams ...)] (create deck ...) ...)``."""

    body: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Scoring(Node):
    """``(scoring min|max INT [min|max INT]...)``: evaluated per seat with (current player)
    bound to it; each later pair breaks ties left by the ones before."""

    mode: str
    value: Node
    tiebreaks: tuple[tuple[str, Node], ...] = ()


@dataclass(frozen=True, slots=True)
class Param(Node):
    """``(TYPE 'VAR)``: a procedure's parameter; TYPE is player, team, card, integer,
    string, location or cards."""

    type: str
    var: str


@dataclass(frozen=True, slots=True)
class Define(Node):
    """``(define NAME ((TYPE 'VAR) ...) BODY*)``: a procedure, run by ``(call NAME ...)``.
    When its first parameter is a card, a card kind may give its own body (kind hooks)."""

    name: str
    params: tuple[Param, ...]
    body: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class KindAttribute(Node):
    """``(NAME VALUE)`` in a card kind: VALUE is an integer, a name or a list of names."""

    name: str
    value: int | str | tuple[str, ...]


@dataclass(frozen=True, slots=True)
class KindHook(Node):
    """``(on PROCEDURE BODY+)``: this kind's body for a procedure whose first parameter is
    a card."""

    procedure: str
    body: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class CardKind(Node):
    """``(card-kind NAME (ATTRIBUTE VALUE)* (on PROCEDURE BODY+)*)``."""

    name: str
    attributes: tuple[KindAttribute, ...]
    hooks: tuple[KindHook, ...]


@dataclass(frozen=True, slots=True)
class Situation(Node):
    """``(situation NAME "text")``: what the decisions named NAME are about, for people."""

    name: str
    text: str


@dataclass(frozen=True, slots=True)
class Game(Node):
    """``(game (declare|define|card-kind|situation ...)* (setup ...) FLOW+ (scoring ...))``."""

    declares: tuple[Declare, ...]
    setup: Setup
    body: tuple[Node, ...]
    scoring: Scoring
    procedures: tuple[Define, ...] = ()
    kinds: tuple[CardKind, ...] = ()
    situations: tuple[Situation, ...] = ()


@dataclass(frozen=True, slots=True)
class CreatePlayers(Node):
    """``(create players N)``."""

    count: Node


@dataclass(frozen=True, slots=True)
class CreateTeams(Node):
    """``(create teams (0, 2) (1, 3))``: players not named get a team of their own."""

    teams: tuple[tuple[int, ...], ...]


@dataclass(frozen=True, slots=True)
class Attribute(Node):
    """One level of a deck description: ``(RANK (A, TWO))`` or ``(RED (SUIT (HEARTS)))``."""

    names: tuple[str, ...]
    children: tuple[Attribute, ...]


@dataclass(frozen=True, slots=True)
class Deck(Node):
    """``(deck (KEY (V1, V2)) (KEY2 (V (SUBKEY (...)))) ...)``: the cartesian product."""

    attributes: tuple[Attribute, ...]


@dataclass(frozen=True, slots=True)
class CreateDeck(Node):
    """``(create deck [NAME] LOCATION (deck ...))``."""

    name: Node | None
    location: Node
    deck: Node


# ---------------------------------------------------------------- flow


@dataclass(frozen=True, slots=True)
class Stage(Node):
    """``(stage player|team (end BOOL) BODY+)``: a loop of turns over the player or team cycle."""

    kind: str
    end: Node
    body: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Do(Node):
    """``(do (CONDACT*))``: run in order."""

    body: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Choice(Node):
    """``(choice [by PLAYER] (CONDACT*))``: the current player (or PLAYER) picks one of the
    options these expand to."""

    body: tuple[Node, ...]
    chooser: Node | None = None
    situation: str | None = None


@dataclass(frozen=True, slots=True)
class While(Node):
    """``(while BOOL BODY+)``: repeat BODY while BOOL holds, checked before each pass."""

    condition: Node
    body: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Guarded(Node):
    """``(BOOL ACTION)``: the action runs (or, in a choice, is offered) only when BOOL holds."""

    condition: Node
    body: Node


@dataclass(frozen=True, slots=True)
class ForEach(Node):
    """``(any|all COLLECTION 'V BODY)`` as a statement: fork options / run for every element."""

    quantifier: str
    collection: Node
    var: str
    body: Node


@dataclass(frozen=True, slots=True)
class Let(Node):
    """``(let VALUE 'V BODY)``: bind a local variable for BODY."""

    value: Node
    var: str
    body: Node


# ---------------------------------------------------------------- actions


@dataclass(frozen=True, slots=True)
class Move(Node):
    """``(move CARD (top|bottom|N LOCATION))``: move a real card."""

    card: Node
    dest: Node


@dataclass(frozen=True, slots=True)
class Remember(Node):
    """``(remember CARD (top|bottom|N MEM-LOCATION))``: store a reference to a card."""

    card: Node
    dest: Node


@dataclass(frozen=True, slots=True)
class Forget(Node):
    """``(forget (top|bottom|N MEM-LOCATION))``: drop a reference from a mem location."""

    card: Node


@dataclass(frozen=True, slots=True)
class Shuffle(Node):
    """``(shuffle LOCATION)``."""

    location: Node


@dataclass(frozen=True, slots=True)
class SetValue(Node):
    """``(set STORAGE VALUE)`` for sto (integer), str (string) and points (a point map)."""

    target: Node
    value: Node


@dataclass(frozen=True, slots=True)
class Increment(Node):
    """``(inc STORAGE INT)`` and ``(dec STORAGE INT)`` (``sign`` is +1 or -1)."""

    target: Node
    amount: Node
    sign: int


@dataclass(frozen=True, slots=True)
class Cycle(Node):
    """``(cycle next|current next|current|previous|PLAYER)``."""

    mode: str
    target: Node | str


@dataclass(frozen=True, slots=True)
class TurnPass(Node):
    """``(turn pass)``: an option that does nothing."""


@dataclass(frozen=True, slots=True)
class Repeat(Node):
    """``(repeat INT ACTION)``."""

    count: Node
    body: Node


@dataclass(frozen=True, slots=True)
class RepeatAll(Node):
    """``(repeat all (move|forget ...))``: repeat while the source holds cards."""

    body: Node


@dataclass(frozen=True, slots=True)
class Swap(Node):
    """``(swap CARD CARD)``: the two cards exchange places (later RECYCLE)."""

    first: Node
    second: Node


@dataclass(frozen=True, slots=True)
class AwardCondition(Node):
    """``(KEY : VALUE)`` inside an award."""

    key: Node
    value: Node


@dataclass(frozen=True, slots=True)
class Award(Node):
    """``((KEY : VALUE) ... INT)``: points for a card that matches every condition."""

    conditions: tuple[AwardCondition, ...]
    points: Node


@dataclass(frozen=True, slots=True)
class Awards(Node):
    """``(AWARD+)``: the value of a point map."""

    awards: tuple[Award, ...]


# ---------------------------------------------------------------- expressions: atoms


@dataclass(frozen=True, slots=True)
class IntLiteral(Node):
    """``42``."""

    value: int


@dataclass(frozen=True, slots=True)
class NameLiteral(Node):
    """``HEARTS``: a string."""

    value: str


@dataclass(frozen=True, slots=True)
class Variable(Node):
    """``'NAME``."""

    name: str


@dataclass(frozen=True, slots=True)
class GameOwner(Node):
    """``game``: the owner of shared locations and storages."""


@dataclass(frozen=True, slots=True)
class AllOfKind(Node):
    """``player`` or ``team``: the collection of all players or all teams."""

    kind: str


# ---------------------------------------------------------------- expressions: cards


@dataclass(frozen=True, slots=True)
class CardAt(Node):
    """``(top|bottom COLLECTION)``; ``(N COLLECTION)`` has ``position`` = the index node."""

    position: str | Node
    collection: Node


@dataclass(frozen=True, slots=True)
class TopN(Node):
    """``(top|bottom N COLLECTION)``: the N cards at that end."""

    end: str
    count: Node
    collection: Node


@dataclass(frozen=True, slots=True)
class MaxMin(Node):
    """``(max|min COLLECTION using POINTS)``: ties broken uniformly by the game's RNG."""

    mode: str
    collection: Node
    points: Node


@dataclass(frozen=True, slots=True)
class Actual(Node):
    """``(actual CARD)``: the real card behind a reference (cards are never copied here)."""

    card: Node


# ---------------------------------------------------------------- expressions: locations


@dataclass(frozen=True, slots=True)
class Location(Node):
    """``(OWNER vloc|iloc|hloc|mem NAME [INDEX])``."""

    owner: Node
    kind: str
    name: Node
    index: Node | None = None


@dataclass(frozen=True, slots=True)
class IndexedLocations(Node):
    """``(indexed OWNER KIND NAME)``: the locations NAME 0, NAME 1, ... (later RECYCLE)."""

    owner: Node
    kind: str
    name: Node


@dataclass(frozen=True, slots=True)
class Storage(Node):
    """``(OWNER sto|str|points NAME)``: integer, string or point-map storage."""

    owner: Node
    kind: str
    name: Node


# ---------------------------------------------------------------- expressions: owners


@dataclass(frozen=True, slots=True)
class PlayerRef(Node):
    """``(current|next|previous player)``, or ``(N player)`` with ``which`` the index node."""

    which: str | Node


@dataclass(frozen=True, slots=True)
class TeamRef(Node):
    """``(current|next|previous team)``, or ``(N team)``."""

    which: str | Node


@dataclass(frozen=True, slots=True)
class OwnerOf(Node):
    """``(owner CARD)``: the player who owns the card's location."""

    card: Node


@dataclass(frozen=True, slots=True)
class PlayerId(Node):
    """``(pid PLAYER)``: the player's seat number (later RECYCLE)."""

    player: Node


@dataclass(frozen=True, slots=True)
class TeamId(Node):
    """``(tid TEAM)``: the team's number (later RECYCLE)."""

    team: Node


@dataclass(frozen=True, slots=True)
class TeamOf(Node):
    """``(team PLAYER)``."""

    player: Node


@dataclass(frozen=True, slots=True)
class Other(Node):
    """``(other player|team)``: every player (team) but the current one."""

    kind: str


# ---------------------------------------------------------------- expressions: collections


@dataclass(frozen=True, slots=True)
class SetOp(Node):
    """``(union|intersect|disjunction COLLECTION+)``."""

    op: str
    parts: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Filter(Node):
    """``(filter COLLECTION 'V BOOL)``."""

    collection: Node
    var: str
    condition: Node


@dataclass(frozen=True, slots=True)
class Sort(Node):
    """``(sort COLLECTION using POINTS)``: ascending score, bottom to top."""

    collection: Node
    points: Node


@dataclass(frozen=True, slots=True)
class RunEnd(Node):
    """``(run top|bottom N COLLECTION using POINTS)``: the longest run at that end."""

    end: str
    count: Node
    collection: Node
    points: Node


@dataclass(frozen=True, slots=True)
class Runs(Node):
    """``(runs largest|all N COLLECTION using POINTS)``: runs of consecutive scores."""

    mode: str
    count: Node
    collection: Node
    points: Node


@dataclass(frozen=True, slots=True)
class Tuples(Node):
    """``(tuples N COLLECTION using POINTS)``: groups of N cards of equal score."""

    count: Node
    collection: Node
    points: Node


@dataclass(frozen=True, slots=True)
class Subsets(Node):
    """``(subsets COLLECTION)``: every subset (capped, see docs/language.md)."""

    collection: Node


@dataclass(frozen=True, slots=True)
class Partition(Node):
    """``(partition KEY COLLECTION+)``: the cards grouped by the value of KEY."""

    key: Node
    parts: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Aggregate(Node):
    """``(any|all COLLECTION 'V EXPR)`` as an expression.

    With a boolean EXPR it is a quantifier; with a card collection EXPR (inside union,
    partition ...) ``all`` gathers one collection per element.
    """

    quantifier: str
    collection: Node
    var: str
    body: Node


@dataclass(frozen=True, slots=True)
class StrList(Node):
    """``(A, B, C)``: a list of strings."""

    values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Range(Node):
    """``(range A .. B)``: the integers from A to B inclusive."""

    low: Node
    high: Node


# ---------------------------------------------------------------- expressions: integers


@dataclass(frozen=True, slots=True)
class Random(Node):
    """``(random N)`` (0..N) or ``(random A .. B)``, inclusive, from the game's RNG."""

    low: Node | None
    high: Node


@dataclass(frozen=True, slots=True)
class Arith(Node):
    """``(+|-|*|//|%|^ A B)``; ``(+ A B C ...)`` and ``(* ...)`` are folded into pairs.

    ``extra`` holds operands beyond two of the other operators (an error).
    """

    op: str
    left: Node
    right: Node
    extra: tuple[Node, ...] = ()


@dataclass(frozen=True, slots=True)
class UnaryInt(Node):
    """``(tri N)`` (triangular number) or ``(fib N)`` (Fibonacci number)."""

    op: str
    operand: Node


@dataclass(frozen=True, slots=True)
class ScoreExtreme(Node):
    """``(scoremax|scoremin COLLECTION using POINTS)``: -1 / 2147483647 when empty."""

    mode: str
    collection: Node
    points: Node


@dataclass(frozen=True, slots=True)
class Size(Node):
    """``(size COLLECTION)``."""

    collection: Node


@dataclass(frozen=True, slots=True)
class Sum(Node):
    """``(sum COLLECTION using POINTS)``."""

    collection: Node
    points: Node


@dataclass(frozen=True, slots=True)
class Score(Node):
    """``(score CARD using POINTS)``."""

    card: Node
    points: Node


@dataclass(frozen=True, slots=True)
class Call(Node):
    """``(call PROCEDURE ARG ...)``: runs a procedure; when its first parameter is a card
    whose kind has its own body for it, that body."""

    name: str
    args: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Pass(Node):
    """``(pass)``: does nothing (a choice's option to decline)."""


@dataclass(frozen=True, slots=True)
class CreateCards(Node):
    """``(create cards LOCATION KIND COUNT)``: COUNT new cards of a declared kind."""

    location: Node
    kind: Node
    count: Node


@dataclass(frozen=True, slots=True)
class Attr(Node):
    """``(attr NAME CARD)``: a card kind's attribute, typed by its declaration."""

    name: str
    card: Node


@dataclass(frozen=True, slots=True)
class Total(Node):
    """``(total ATTRIBUTE COLLECTION)``: the sum of a kind's integer attribute over cards."""

    name: str
    collection: Node


@dataclass(frozen=True, slots=True)
class Contains(Node):
    """``(contains LIST STRING)``: whether the list of names holds the name."""

    items: Node
    value: Node


@dataclass(frozen=True, slots=True)
class Others(Node):
    """``(others PLAYER)``: the other players in turn order, from the one after PLAYER."""

    player: Node


# ---------------------------------------------------------------- expressions: strings


@dataclass(frozen=True, slots=True)
class CardAtt(Node):
    """``(cardatt KEY CARD)``: "" when the card is missing or has no such attribute."""

    key: Node
    card: Node


# ---------------------------------------------------------------- expressions: booleans


@dataclass(frozen=True, slots=True)
class If(Node):
    """``(if BOOL A B)``: A when BOOL holds, else B."""

    condition: Node
    then: Node
    otherwise: Node


@dataclass(frozen=True, slots=True)
class Compare(Node):
    """``(< > <= >= == != A B)``: integers; == and != also strings, cards, players, teams."""

    op: str
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class BoolOp(Node):
    """``(and|or B B+)``, short-circuit."""

    op: str
    operands: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Not(Node):
    """``(not B)``."""

    operand: Node


STATEMENT_CLASSES: tuple[type[Node], ...] = (
    Stage,
    Do,
    Choice,
    Guarded,
    ForEach,
    Let,
    Move,
    Remember,
    Forget,
    Shuffle,
    SetValue,
    Increment,
    Cycle,
    TurnPass,
    Repeat,
    RepeatAll,
    CreatePlayers,
    CreateTeams,
    CreateDeck,
    Swap,
    While,
    Call,
    CreateCards,
    Pass,
)


def repeat_all_source(node: Node) -> Node | None:
    """The collection a (repeat all (move CARD ...)) empties: CARD's collection."""
    card = node.card if isinstance(node, Move | Forget) else None
    while isinstance(card, Actual):
        card = card.card
    if isinstance(card, CardAt | MaxMin):
        return card.collection
    return None
