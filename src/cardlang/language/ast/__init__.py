"""The abstract syntax tree of cardlang: frozen dataclasses, one per grammar rule.

Pipeline position: parser.py builds these from Lark's parse tree; checker.py types and
checks them; the compilers (cardlang.compiler) turn them into closures.  Every node
carries a ``span`` so that any later stage can point at the source.  The docstring of
each class shows its surface form.

One module per section of grammar/cardlang.lark, in its order: ``nodes`` (``Node``, the
base with the span), ``game`` (the ``(game ...)`` root and its declarations) over
``setup`` (``(setup ...)`` and the create statements), ``flow``, ``actions`` (point maps
included), ``expressions`` (atoms, cards, locations, owners, collections) and
``scalars`` (integers, strings, card-kind forms, booleans); ``statements`` holds what
spans sections (``STATEMENT_CLASSES``, ``repeat_all_source``).  Section modules import
only ``nodes`` (``game`` also ``setup``), never this package, so there is no cycle.

Use it as one namespace: ``from cardlang.language import ast`` then ``ast.Move``; every
name is re-exported here, and each class and function reports this package as its
``__module__`` (as when this was one module), so reprs, pickles and code that collects
the classes whose ``__module__`` is ``ast.__name__`` see them all.
"""

from __future__ import annotations

# dataclass and field were importable from here when this was one module
from dataclasses import dataclass as dataclass
from dataclasses import field as field

from cardlang.errors import Span
from cardlang.language.ast.actions import (
    Award,
    AwardCondition,
    Awards,
    Call,
    CreateCards,
    Cycle,
    Forget,
    Increment,
    Move,
    Pass,
    Remember,
    Repeat,
    RepeatAll,
    SetValue,
    Shuffle,
    Swap,
    TurnPass,
)
from cardlang.language.ast.expressions import (
    Actual,
    Aggregate,
    AllOfKind,
    CardAt,
    Filter,
    GameOwner,
    IndexedLocations,
    IntLiteral,
    Location,
    MaxMin,
    NameLiteral,
    Other,
    OwnerOf,
    Partition,
    PlayerId,
    PlayerRef,
    Range,
    RunEnd,
    Runs,
    SetOp,
    Sort,
    Storage,
    StrList,
    Subsets,
    TeamId,
    TeamOf,
    TeamRef,
    TopN,
    Tuples,
    Variable,
)
from cardlang.language.ast.flow import (
    Choice,
    Do,
    ForEach,
    Guarded,
    Labeled,
    LabelText,
    Let,
    Simultaneous,
    Stage,
    While,
)
from cardlang.language.ast.game import (
    Bookkeeping,
    CardBadge,
    CardColour,
    CardKind,
    Choose,
    ColourPair,
    Declare,
    Define,
    Display,
    EndReason,
    FaceDown,
    Game,
    HandOrder,
    KindAttribute,
    KindHook,
    KindText,
    Param,
    ParameterValues,
    Presentation,
    ScorePart,
    Scoring,
    Situation,
    TableScore,
)
from cardlang.language.ast.nodes import (
    Node,
)
from cardlang.language.ast.scalars import (
    Arith,
    Attr,
    BoolOp,
    CardAtt,
    Compare,
    Connects,
    Contains,
    If,
    LongestPath,
    Not,
    Others,
    Random,
    Score,
    ScoreExtreme,
    Size,
    Sum,
    Total,
    UnaryInt,
)
from cardlang.language.ast.setup import (
    Attribute,
    CreateDeck,
    CreatePlayers,
    CreateTeams,
    Deck,
    Setup,
)
from cardlang.language.ast.statements import (
    STATEMENT_CLASSES,
    repeat_all_source,
)

__all__ = [
    "Actual",
    "Aggregate",
    "AllOfKind",
    "Arith",
    "Attr",
    "Attribute",
    "Award",
    "AwardCondition",
    "Awards",
    "BoolOp",
    "Bookkeeping",
    "Call",
    "CardBadge",
    "CardColour",
    "CardAt",
    "CardAtt",
    "CardKind",
    "ColourPair",
    "Choice",
    "Compare",
    "Connects",
    "Contains",
    "CreateCards",
    "CreateDeck",
    "CreatePlayers",
    "CreateTeams",
    "Cycle",
    "Deck",
    "Declare",
    "Define",
    "Display",
    "Do",
    "Filter",
    "ForEach",
    "Forget",
    "Game",
    "GameOwner",
    "Guarded",
    "HandOrder",
    "If",
    "Increment",
    "IndexedLocations",
    "IntLiteral",
    "KindAttribute",
    "KindHook",
    "KindText",
    "LabelText",
    "Labeled",
    "Let",
    "Location",
    "LongestPath",
    "MaxMin",
    "Move",
    "NameLiteral",
    "Node",
    "Not",
    "Other",
    "Others",
    "OwnerOf",
    "Param",
    "Partition",
    "Pass",
    "PlayerId",
    "PlayerRef",
    "Presentation",
    "Random",
    "Range",
    "Remember",
    "Repeat",
    "RepeatAll",
    "RunEnd",
    "Runs",
    "STATEMENT_CLASSES",
    "Score",
    "ScoreExtreme",
    "Scoring",
    "SetOp",
    "SetValue",
    "Setup",
    "Shuffle",
    "Situation",
    "Simultaneous",
    "Size",
    "Sort",
    "Span",
    "Stage",
    "Storage",
    "StrList",
    "Subsets",
    "Sum",
    "Swap",
    "TableScore",
    "EndReason",
    "Choose",
    "ParameterValues",
    "FaceDown",
    "ScorePart",
    "TeamId",
    "TeamOf",
    "TeamRef",
    "TopN",
    "Total",
    "Tuples",
    "TurnPass",
    "UnaryInt",
    "Variable",
    "While",
    "repeat_all_source",
]

for _name in __all__:
    _obj = globals()[_name]
    if getattr(_obj, "__module__", "").startswith(__name__ + "."):
        _obj.__module__ = __name__
del _name, _obj
