"""Text to AST: Lark's LALR parser over grammar/cardlang.lark, then a strict transformer.

Pipeline position: first stage.  ``parse(source)`` returns a ``Game`` node and a list of
warnings, or raises ``GameFileError`` with positioned diagnostics.  This module holds the
Lark parser and the parse tree -> AST transformer; what a syntax error says (the form
being written, its expected shape, the unclosed ``(``) is worked out by
``syntax_errors``, which does not import this module.

May import: ``cardlang.errors`` and other language modules (and Lark); the grammar is read
from ``cardlang.grammar`` as a resource.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any

from lark import Lark, Token, Transformer, UnexpectedInput, v_args
from lark.exceptions import UnexpectedToken, VisitError

from cardlang.errors import Diagnostic, GameFileError, SourceFile, Span
from cardlang.language import ast
from cardlang.language.syntax_errors import (
    stray_close_after_game,
    syntax_diagnostic,
    token_span,
    too_deep,
)


@cache
def grammar_text() -> str:
    """The grammar shipped in the package (grammar/cardlang.lark in the checkout)."""
    return resources.files("cardlang.grammar").joinpath("cardlang.lark").read_text("utf-8")


@cache
def lark_parser() -> Lark:
    return Lark(
        grammar_text(),
        parser="lalr",
        propagate_positions=True,
        maybe_placeholders=True,
        cache=True,  # the parse tables, in the temp directory: start-up in ms, not 1 s
    )


def _span(meta: Any) -> Span:
    if getattr(meta, "empty", True) and not hasattr(meta, "line"):
        return Span.unknown()
    return Span(
        meta.line, meta.column, meta.end_line, meta.end_column, meta.start_pos, meta.end_pos
    )


def _amount(node: Any, meta: Any) -> ast.Node:
    """The amount of inc/dec, 1 when omitted."""
    return node if node is not None else ast.IntLiteral(1, span=_span(meta))


def _value(child: Any) -> Any:
    """A child of a rule as a field of its AST node: a token as its text (a variable
    without its quote, a string without its quotes), anything else as it is."""
    if not isinstance(child, Token):
        return child
    if child.type == "VAR":
        return str(child)[1:]
    if child.type == "STRING":
        return str(child)[1:-1]
    return str(child)


def _attribute(token: Token) -> ast.NameLiteral:
    """An attribute name written as a bare NAME, as a node that knows where it is."""
    return ast.NameLiteral(str(token), span=token_span(token))


# The rules whose node is built by _ToAst.__default__ from the tables below, spanning the
# rule's text; the sections follow the grammar.

#: Rules whose node is one AST class with the rule's children as its fields, in order.
_NODES: dict[str, Callable[..., ast.Node]] = {
    # setup
    "declare": ast.Declare,
    "param": ast.Param,
    "situation": ast.Situation,
    "display": ast.Display,
    "table_score": ast.TableScore,
    "end_reason": ast.EndReason,
    "choose": ast.Choose,
    "score_part": ast.ScorePart,
    "create_players": ast.CreatePlayers,
    "create_cards": ast.CreateCards,
    "pass_": ast.Pass,
    "total": ast.Total,
    "attr": ast.Attr,
    "contains": ast.Contains,
    "others": ast.Others,
    # flow
    "guarded": ast.Guarded,
    "for_each": ast.ForEach,
    "let": ast.Let,
    "if_expr": ast.If,
    # actions
    "move": ast.Move,
    "remember": ast.Remember,
    "forget": ast.Forget,
    "shuffle": ast.Shuffle,
    "set_value": ast.SetValue,
    "swap": ast.Swap,
    "cycle": ast.Cycle,
    "turn_pass": ast.TurnPass,
    "repeat": ast.Repeat,
    "repeat_all": ast.RepeatAll,
    "award_condition": ast.AwardCondition,
    # atoms and cards
    "game_owner": ast.GameOwner,
    "card_at": ast.CardAt,
    "top_n": ast.TopN,
    "max_min": ast.MaxMin,
    "actual": ast.Actual,
    # locations, storages, owners
    "location": ast.Location,
    "storage": ast.Storage,
    "indexed_locations": ast.IndexedLocations,
    "player_ref": ast.PlayerRef,
    "team_ref": ast.TeamRef,
    "owner_of": ast.OwnerOf,
    "team_of": ast.TeamOf,
    "other": ast.Other,
    "player_id": ast.PlayerId,
    "team_id": ast.TeamId,
    # collections
    "filter": ast.Filter,
    "sort": ast.Sort,
    "run_end": ast.RunEnd,
    "runs": ast.Runs,
    "tuples": ast.Tuples,
    "subsets": ast.Subsets,
    "aggregate": ast.Aggregate,
    "range": ast.Range,
    # integers, strings, booleans
    "unary_int": ast.UnaryInt,
    "size": ast.Size,
    "sum": ast.Sum,
    "score": ast.Score,
    "card_att": ast.CardAtt,
    "compare": ast.Compare,
    "not_": ast.Not,
}

#: Rules whose node is one AST class with the first N children as fields and the rest as
#: one tuple, its last field: rule -> (class, N).
_NODES_WITH_TUPLE: dict[str, tuple[Callable[..., ast.Node], int]] = {
    "call": (ast.Call, 1),
    "kind_hook": (ast.KindHook, 1),
    "setup": (ast.Setup, 0),
    "create_teams": (ast.CreateTeams, 0),
    "deck": (ast.Deck, 0),
    "stage": (ast.Stage, 2),
    "do_block": (ast.Do, 0),
    "while_loop": (ast.While, 1),
    "simultaneous": (ast.Simultaneous, 0),
    "awards": (ast.Awards, 0),
    "set_op": (ast.SetOp, 1),
    "partition": (ast.Partition, 1),
    "str_list": (ast.StrList, 0),
    "bool_op": (ast.BoolOp, 1),
    "parameter_values": (ast.ParameterValues, 2),
}


@v_args(meta=True)
class _ToAst(Transformer):  # type: ignore[type-arg]
    """Lark tree -> AST.  A rule of _NODES or _NODES_WITH_TUPLE is built by __default__,
    every other by its method; a rule with neither is a bug."""

    def __default__(self, data: Any, children: Any, meta: Any) -> Any:
        values = [_value(c) for c in children]
        if data in _NODES:
            return _NODES[data](*values, span=_span(meta))
        if data in _NODES_WITH_TUPLE:
            cls, n = _NODES_WITH_TUPLE[data]
            return cls(*values[:n], tuple(values[n:]), span=_span(meta))
        raise NotImplementedError(f"no AST builder for grammar rule {data!r}")

    def start(self, meta: Any, children: list[Any]) -> ast.Game:
        return children[0]  # type: ignore[no-any-return]

    # setup
    def game(self, meta: Any, ch: list[Any]) -> ast.Game:
        setup_at = next(i for i, c in enumerate(ch) if isinstance(c, ast.Setup))
        definitions = ch[:setup_at]

        def of(cls: type) -> tuple[Any, ...]:
            return tuple(c for c in definitions if isinstance(c, cls))

        presentation = ast.Presentation(
            displays=of(ast.Display),
            bookkeeping=of(ast.Bookkeeping),
            face_down=of(ast.FaceDown),
            hand_order=of(ast.HandOrder),
            table_score=of(ast.TableScore),
            end_reasons=of(ast.EndReason),
            score_parts=of(ast.ScorePart),
            card_badge=of(ast.CardBadge),
            card_colour=of(ast.CardColour),
            display_values=of(ast.DisplayValues),
            during_turn=of(ast.DuringTurn),
            round_number=of(ast.RoundNumber),
            span=_span(meta),
        )
        return ast.Game(
            of(ast.Declare),
            ch[setup_at],
            tuple(ch[setup_at + 1 : -1]),
            ch[-1],
            procedures=of(ast.Define),
            kinds=of(ast.CardKind),
            situations=of(ast.Situation),
            presentation=presentation,
            parameter_values=of(ast.ParameterValues),
            span=_span(meta),
        )

    def define(self, meta: Any, ch: list[Any]) -> ast.Define:
        params = tuple(c for c in ch[1:] if isinstance(c, ast.Param))
        body = tuple(c for c in ch[1:] if not isinstance(c, ast.Param))
        return ast.Define(str(ch[0]), params, body, span=_span(meta))

    def card_kind(self, meta: Any, ch: list[Any]) -> ast.CardKind:
        attributes = tuple(c for c in ch[1:] if isinstance(c, ast.KindAttribute))
        hooks = tuple(c for c in ch[1:] if isinstance(c, ast.KindHook))
        texts = tuple(c for c in ch[1:] if isinstance(c, ast.KindText))
        return ast.CardKind(str(ch[0]), attributes, hooks, texts, span=_span(meta))

    def card_badge(self, meta: Any, ch: list[Any]) -> ast.CardBadge:
        return ast.CardBadge(str(ch[0])[1:-1], span=token_span(ch[0]))  # the string's span

    def card_colour(self, meta: Any, ch: list[Any]) -> ast.CardColour:
        return ast.CardColour(_attribute(ch[0]), tuple(ch[1:]), span=_span(meta))

    def colour_pair(self, meta: Any, ch: list[Any]) -> ast.ColourPair:
        return ast.ColourPair(str(ch[0]), str(ch[1])[1:-1], span=_span(meta))

    def display_values(self, meta: Any, ch: list[Any]) -> ast.DisplayValues:
        return ast.DisplayValues(str(ch[0]), str(ch[1]), tuple(ch[2:]), span=_span(meta))

    def value_text(self, meta: Any, ch: list[Any]) -> ast.ValueText:
        return ast.ValueText(str(ch[0]), str(ch[1])[1:-1], span=_span(meta))

    def round_number(self, meta: Any, ch: list[Any]) -> ast.RoundNumber:
        offset = int(ch[3]) if len(ch) > 3 and ch[3] is not None else 0
        return ast.RoundNumber(str(ch[0]), str(ch[1]), str(ch[2])[1:-1], offset, span=_span(meta))

    def during_turn(self, meta: Any, ch: list[Any]) -> ast.DuringTurn:
        return ast.DuringTurn(str(ch[0]), tuple(str(c) for c in ch[1:]), span=_span(meta))

    def kind_text(self, meta: Any, ch: list[Any]) -> ast.KindText:
        return ast.KindText(str(ch[0])[1:-1], span=token_span(ch[0]))  # the string's span

    def bookkeeping(self, meta: Any, ch: list[Any]) -> ast.Bookkeeping:
        return ast.Bookkeeping(str(ch[0]), tuple(str(c) for c in ch[1:]), span=_span(meta))

    def face_down(self, meta: Any, ch: list[Any]) -> ast.FaceDown:
        return ast.FaceDown(str(ch[0]), tuple(str(c) for c in ch[1:]), span=_span(meta))

    def hand_order(self, meta: Any, ch: list[Any]) -> ast.HandOrder:
        return ast.HandOrder(tuple(_attribute(c) for c in ch), span=_span(meta))

    def kind_attribute(self, meta: Any, ch: list[Any]) -> ast.KindAttribute:
        value = ch[1]
        if isinstance(value, ast.StrList):
            parsed: int | str | tuple[str, ...] = value.values
        elif value.type in ("INT", "NEGATIVE_INT"):
            parsed = int(value)
        else:
            parsed = str(value)
        return ast.KindAttribute(str(ch[0]), parsed, span=_span(meta))

    def scoring(self, meta: Any, ch: list[Any]) -> ast.Scoring:
        tiebreaks = tuple((str(ch[i]), ch[i + 1]) for i in range(2, len(ch), 2))
        return ast.Scoring(str(ch[0]), ch[1], tiebreaks, span=_span(meta))

    def team_list(self, meta: Any, ch: list[Any]) -> tuple[int, ...]:
        return tuple(int(t) for t in ch)

    def create_deck(self, meta: Any, ch: list[Any]) -> ast.CreateDeck:
        if ch[2] is None:
            return ast.CreateDeck(None, ch[0], ch[1], span=_span(meta))
        return ast.CreateDeck(ch[0], ch[1], ch[2], span=_span(meta))

    def attribute(self, meta: Any, ch: list[Any]) -> ast.Attribute:
        names = tuple(str(c) for c in ch if isinstance(c, Token))
        children = tuple(c for c in ch if isinstance(c, ast.Attribute))
        return ast.Attribute(names, children, span=_span(meta))

    # flow
    def end_condition(self, meta: Any, ch: list[Any]) -> Any:
        return ch[0]

    def choice(self, meta: Any, ch: list[Any]) -> ast.Choice:
        situation = str(ch[0]) if ch[0] is not None else None
        # (label "TEXT" CONDACT) as a condact: the condact, its text kept beside it
        body = tuple(c.body if isinstance(c, ast.Labeled) else c for c in ch[2:])
        labels = tuple(c.label if isinstance(c, ast.Labeled) else None for c in ch[2:])
        if not any(labels):
            labels = ()
        return ast.Choice(body, ch[1], situation, labels, span=_span(meta))

    def label(self, meta: Any, ch: list[Any]) -> ast.Labeled:
        text = ast.LabelText(str(ch[0])[1:-1], token_span(ch[0]))
        return ast.Labeled(text, ch[1], span=_span(meta))

    # actions
    def inc(self, meta: Any, ch: list[Any]) -> ast.Increment:
        return ast.Increment(ch[0], _amount(ch[1], meta), 1, span=_span(meta))

    def dec(self, meta: Any, ch: list[Any]) -> ast.Increment:
        return ast.Increment(ch[0], _amount(ch[1], meta), -1, span=_span(meta))

    def cycle_target(self, meta: Any, ch: list[Any]) -> Any:
        return str(ch[0]) if isinstance(ch[0], Token) else ch[0]

    def award(self, meta: Any, ch: list[Any]) -> ast.Award:
        return ast.Award(tuple(ch[:-1]), ch[-1], span=_span(meta))

    # atoms: spans of their token
    def int_literal(self, meta: Any, ch: list[Any]) -> ast.IntLiteral:
        return ast.IntLiteral(int(ch[0]), span=token_span(ch[0]))

    def name_literal(self, meta: Any, ch: list[Any]) -> ast.NameLiteral:
        return ast.NameLiteral(str(ch[0]), span=token_span(ch[0]))

    def variable(self, meta: Any, ch: list[Any]) -> ast.Variable:
        return ast.Variable(str(ch[0])[1:], span=token_span(ch[0]))

    def all_of_kind(self, meta: Any, ch: list[Any]) -> ast.AllOfKind:
        return ast.AllOfKind(str(ch[0]), span=token_span(ch[0]))

    # cards, collections, integers
    def nth(self, meta: Any, ch: list[Any]) -> ast.Node:
        index, target = ch
        if isinstance(target, ast.AllOfKind):
            cls = ast.PlayerRef if target.kind == "player" else ast.TeamRef
            return cls(index, span=_span(meta))
        return ast.CardAt(index, target, span=_span(meta))

    # route maps: attribute names keep their token's span, for the checker's messages
    def connects(self, meta: Any, ch: list[Any]) -> ast.Connects:
        collection, source, target, x, y = ch
        return ast.Connects(
            collection, _attribute(source), _attribute(target), x, y, span=_span(meta)
        )

    def longest_path(self, meta: Any, ch: list[Any]) -> ast.LongestPath:
        collection, *names = ch
        return ast.LongestPath(collection, *map(_attribute, names), span=_span(meta))

    def partition_runs(self, meta: Any, ch: list[Any]) -> ast.Runs:
        one = ast.IntLiteral(1, span=_span(meta))
        return ast.Runs("largest", one, ch[0], ch[1], span=_span(meta))

    def score_extreme(self, meta: Any, ch: list[Any]) -> ast.ScoreExtreme:
        return ast.ScoreExtreme(str(ch[0])[len("score") :], ch[1], ch[2], span=_span(meta))

    def random(self, meta: Any, ch: list[Any]) -> ast.Random:
        if ch[1] is None:
            return ast.Random(None, ch[0], span=_span(meta))
        return ast.Random(ch[0], ch[1], span=_span(meta))

    def arith(self, meta: Any, ch: list[Any]) -> ast.Arith:
        op, operands = str(ch[0]), ch[1:]
        if op in ("+", "*"):  # n-ary: fold left, each step spanning the whole form
            node = ast.Arith(op, operands[0], operands[1], span=_span(meta))
            for more in operands[2:]:
                node = ast.Arith(op, node, more, span=_span(meta))
            return node
        return ast.Arith(op, operands[0], operands[1], tuple(operands[2:]), span=_span(meta))


def parse(source: SourceFile) -> tuple[ast.Game, list[Diagnostic]]:
    """Parse a game file.  Returns the AST and warnings; raises GameFileError."""
    text = source.text.lstrip("\ufeff")
    warnings: list[Diagnostic] = []
    deep = too_deep(text)
    if deep is not None:
        raise GameFileError(source, [deep])
    try:
        tree = _parse_tree(text, warnings)
    except UnexpectedInput as err:
        raise GameFileError(source, [syntax_diagnostic(source, err, lark_parser())]) from None
    return _build(source, tree), warnings


def _parse_tree(text: str, warnings: list[Diagnostic]) -> Any:
    """Lark's parse tree of ``text``.  CardStock ignores stray ')' after the game; so do
    we, with a warning (added to ``warnings``)."""
    try:
        return lark_parser().parse(text)
    except UnexpectedToken as err:
        stray = stray_close_after_game(text, err)
        if stray is None:
            raise
        warnings.append(stray)
        end = err.token.start_pos
    return lark_parser().parse(text[:end])


#: The longest integer literal (Python refuses to read ones over 4300 digits; no game
#: needs more than a few).
MAX_INT_DIGITS = 18


def _build(source: SourceFile, tree: Any) -> ast.Game:
    too_long = [
        Diagnostic(
            "error",
            f"integer {tok[:12]}... is too large (more than {MAX_INT_DIGITS} digits)",
            token_span(tok),
        )
        for tok in tree.scan_values(
            lambda v: isinstance(v, Token) and v.type == "INT" and len(v) > MAX_INT_DIGITS
        )
    ]
    if too_long:
        raise GameFileError(source, too_long)
    try:
        return _ToAst().transform(tree)  # type: ignore[no-any-return]
    except VisitError as err:  # our bug, not the user's: keep the original
        raise err.orig_exc from err
