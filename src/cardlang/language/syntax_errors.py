"""Syntax errors explained: a Lark ``UnexpectedInput``, or a text nested too deeply, to
one positioned ``Diagnostic``.

Pipeline position: beside the parser, inside the first stage.  ``parser.parse`` calls
``too_deep`` before parsing, ``stray_close_after_game`` and ``syntax_diagnostic`` when
Lark stops, and ``token_span`` for the spans of tokens.  The explanation names the form
being written (its expected shape, from ``forms``) and, judged by indentation, the
unclosed ``(`` or the ``)`` written too early rather than the end of the file; a candidate
repair is tried by parsing the repaired text again with the Lark parser that the caller
passes in (this module does not import the parser).

May import: ``cardlang.errors`` and ``cardlang.language.forms`` (and Lark).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

from lark import Lark, Token, UnexpectedCharacters, UnexpectedInput
from lark.exceptions import UnexpectedEOF, UnexpectedToken

from cardlang.errors import Diagnostic, SourceFile, Span, did_you_mean
from cardlang.language.forms import FORM_SIGNATURES, KEYWORDS


def token_span(tok: Token) -> Span:
    """Where a token of Lark's is (what Lark leaves unknown is 0)."""
    return Span(
        tok.line or 0,
        tok.column or 0,
        tok.end_line or tok.line or 0,
        tok.end_column or (tok.column or 0) + len(tok),
        tok.start_pos or 0,
        tok.end_pos or 0,
    )


_TOKEN_RE = re.compile(r";;[^\n]*|\(|\)|[^\s()]+")


def _tokens(text: str) -> list[tuple[str, int]]:
    """A rough token stream (text, offset) for error explanations; comments dropped."""
    return [
        (m.group(), m.start()) for m in _TOKEN_RE.finditer(text) if not m.group().startswith(";;")
    ]


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return line, col


def _point(text: str, pos: int, length: int = 1) -> Span:
    line, col = _line_col(text, pos)
    return Span(line, col, line, col + max(length, 1), pos, pos + length)


def _open_forms(text: str, upto: int) -> list[tuple[int, str]]:
    """The parens still open at offset ``upto``: (offset, keyword of the form or '').

    The keyword is the word after the '(' when it is one, or the kind of a location or
    storage ('vloc', 'sto' ...) for ``(OWNER vloc NAME)``; ``game`` leads the game form
    only at the top level (elsewhere it is an owner).
    """
    toks = _tokens(text[:upto])
    stack: list[int] = []  # indexes into toks
    for i, (tok, _) in enumerate(toks):
        if tok == "(":
            stack.append(i)
        elif tok == ")" and stack:
            stack.pop()
    forms = []
    for depth, i in enumerate(stack):
        nxt = toks[i + 1][0] if i + 1 < len(toks) else ""
        kw = nxt if nxt in KEYWORDS and (nxt != "game" or depth == 0) else ""
        if not kw and nxt:
            # (OWNER KIND NAME): the word after the owner, which may be a form itself
            j = i + 1
            if nxt == "(":
                level = 0
                while j < len(toks):
                    level += {"(": 1, ")": -1}.get(toks[j][0], 0)
                    if level == 0:
                        break
                    j += 1
            after = toks[j + 1][0] if j + 1 < len(toks) else ""
            kw = after if after in _KINDS else ""
        forms.append((toks[i][1], kw))
    return forms


_KINDS = {"vloc", "iloc", "hloc", "mem", "sto", "str", "points"}
_KIND_SIGNATURES = {
    **{k: f"(OWNER {k} NAME)" for k in ("vloc", "iloc", "hloc", "mem")},
    "sto": "(OWNER sto NAME)",
    "str": "(OWNER str NAME)",
    "points": "(OWNER points NAME)",
}


def _label(keyword: str) -> str:
    """How a message names a form: '(move ...)', '(OWNER vloc ...)'."""
    return f"(OWNER {keyword} ...)" if keyword in _KINDS else f"({keyword} ...)"


def _shape(keyword: str) -> str | None:
    return FORM_SIGNATURES.get(keyword) or _KIND_SIGNATURES.get(keyword)


def _unclosed_candidates(text: str) -> Iterator[tuple[int, int]]:
    """The '(' most likely left unclosed, judged by indentation, best first.

    Scans line by line: a line that starts at or left of the column of a '(' opened on an
    earlier line and still open shows where that '(' should have been closed.  Yields the
    offsets of such '(' (innermost first) and of where its ')' belongs, then goes on as if
    they were closed there; last, the innermost '(' still open at the end of the file.
    """
    stack: list[tuple[int, int]] = []  # (offset, column)
    offset = 0
    for line in text.splitlines(keepends=True):
        stripped = line.split(";;", 1)[0]
        body = stripped.lstrip()
        indent = len(stripped) - len(body)
        if body and body[0] != ")":
            culprits = [s for s in stack if s[1] >= indent]
            for paren, _ in reversed(culprits):
                yield paren, offset + indent
            del stack[len(stack) - len(culprits) :]
        for tok, pos in _tokens(stripped):
            if tok == "(":
                stack.append((offset + pos, pos))
            elif tok == ")" and stack:
                stack.pop()
        offset += len(line)
    if stack:
        yield stack[-1][0], len(text)


def _extra_close_candidates(text: str, upto: int) -> list[tuple[int, int]]:
    """The ')' that may have been written too early, judged by indentation, in file order.

    A line that starts right of a '(' of an earlier line continues the form of the last
    such '('; if that form is already closed, the ')' that closed it came too early.
    Scans the lines up to the first one that starts after offset ``upto``; returns the
    offsets of such ')' and of their '('.
    """
    parens: list[list[int]] = []  # [offset of '(', its column, offset of its ')' or -1]
    stack: list[int] = []
    found: dict[int, int] = {}
    offset = 0
    for line in text.splitlines(keepends=True):
        stripped = line.split(";;", 1)[0]
        body = stripped.lstrip()
        if body and body[0] != ")":
            indent = len(stripped) - len(body)
            for paren in reversed(parens):
                if paren[1] < indent:
                    if 0 <= paren[2] <= upto:
                        found[paren[2]] = paren[0]
                    break
            if offset > upto:
                break
        for tok, pos in _tokens(stripped):
            if tok == "(":
                stack.append(len(parens))
                parens.append([offset + pos, pos, -1])
            elif tok == ")" and stack:
                parens[stack.pop()][2] = offset + pos
        offset += len(line)
    return sorted(found.items())


def _error_offset(lark: Lark, text: str) -> int | None:
    """Where the parser stops in ``text`` (None: it parses)."""
    try:
        lark.parse(text)
    except UnexpectedToken as err:
        return len(text) if err.token.type == "$END" else err.token.start_pos or 0
    except UnexpectedEOF:
        return len(text)
    except UnexpectedInput as err:
        return err.pos_in_stream or 0
    return None


#: How many repairs a syntax error may try (each one parses the file again).
_MAX_REPAIRS = 6


def _find_unclosed(lark: Lark, text: str, stop: int) -> tuple[int, int] | None:
    """The unclosed '(' (and where it should close) whose repair gets the parser past
    offset ``stop``, where it stops now."""
    for i, (paren, close_at) in enumerate(_unclosed_candidates(text)):
        if i >= _MAX_REPAIRS or paren >= stop:
            break
        if close_at > stop:
            continue
        after = _error_offset(lark, text[:close_at] + ")" + text[close_at:])
        if after is None or after > stop + 1:
            return paren, close_at
    return None


def _find_extra_close(lark: Lark, text: str, stop: int) -> tuple[int, int] | None:
    """The ')' written too early (and its '(') whose removal gets the parser past offset
    ``stop``, where it stops now.

    Removing any ')' between the one written too early and ``stop`` usually lets the
    parser go on too, but removing one before it rarely does: the first that works wins.
    """
    for close, paren in _extra_close_candidates(text, stop)[:_MAX_REPAIRS]:
        after = _error_offset(lark, text[:close] + text[close + 1 :])
        if after is None or after > stop:
            return close, paren
    return None


def _extra_close_diagnostic(text: str, close: int, opened: int) -> Diagnostic:
    kw = dict(_open_forms(text, close)).get(opened, "")
    what = _label(kw) if kw else "the '('"
    line, col = _line_col(text, opened)
    return Diagnostic(
        "error",
        f"unmatched ')': it closes {what} of line {line}, column {col} too early",
        _point(text, close),
        hint="remove it: the lines after it are indented as if that form were still open",
    )


_NAMEISH = re.compile(r"'?[A-Za-z][A-Za-z0-9_-]*")
_VALID_NAME = re.compile(r"'?[A-Z][A-Z0-9]*(-[A-Z0-9]+)*")
_WORD_CHAR = re.compile(r"[^\s();]")
#: Terminals that start an action after '(' and terminals that start only a value.
_ACTION_TERMINALS = frozenset(
    {
        "MOVE",
        "REMEMBER",
        "FORGET",
        "SHUFFLE",
        "SET",
        "INC",
        "DEC",
        "CYCLE",
        "TURN",
        "REPEAT",
        "CREATE",
        "DO",
        "CHOICE",
        "LET",
        "SWAP",
    }
)
_VALUE_TERMINALS = frozenset(
    {
        "END_POS",
        "MINMAX",
        "ACTUAL",
        "OWNER",
        "OTHER",
        "SET_OP",
        "FILTER",
        "SORT",
        "RUN",
        "RUNS",
        "TUPLES",
        "SUBSETS",
        "PARTITION",
        "RANGE",
        "RANDOM",
        "ARITH_OP",
        "UNARY_INT",
        "SIZE",
        "SUM",
        "SCORE",
        "CARDATT",
        "COMPARE_OP",
        "BOOL_OP",
        "NOT",
        "INDEXED",
        "PID",
        "TID",
        "SCORE_EXTREME",
    }
)


@cache
def _terminal_patterns(lark: Lark) -> dict[str, re.Pattern[str]]:
    return {t.name: re.compile(t.pattern.to_regexp()) for t in lark.terminals}


def _keywords_allowed(lark: Lark, allowed: set[str]) -> set[str]:
    """The keywords that the parser would accept where ``allowed`` terminals are."""
    pats = _terminal_patterns(lark)
    return {k for k in KEYWORDS if any(n in pats and pats[n].fullmatch(k) for n in allowed)}


def _word_at(text: str, pos: int) -> tuple[int, str]:
    """The whole word (between spaces, parens and comments) around offset ``pos``."""
    start = pos
    while start > 0 and _WORD_CHAR.match(text[start - 1]):
        start -= 1
    end = pos
    while end < len(text) and _WORD_CHAR.match(text[end]):
        end += 1
    return start, text[start:end]


def _bad_word(lark: Lark, text: str, start: int, word: str, allowed: set[str]) -> Diagnostic | None:
    """A word the lexer cannot read: a misspelt keyword or a badly written name."""
    span = _point(text, start, len(word))
    if re.fullmatch(r"[a-z][a-z-]*", word):
        after_paren = text[:start].rstrip().endswith("(")
        here = _keywords_allowed(lark, allowed)
        hint = did_you_mean(word, KEYWORDS if after_paren or not here else here)
        if after_paren or hint or "NAME" not in allowed:
            return Diagnostic(
                "error",
                f"unknown keyword '{word}'",
                span,
                hint=hint or did_you_mean(word, KEYWORDS),
            )
    if _NAMEISH.fullmatch(word):
        var = word.startswith("'")
        fixed = word.upper().replace("_", "-")
        return Diagnostic(
            "error",
            f"'{word}' is not a valid {'variable' if var else 'name'}: names are upper-case "
            "letters, digits and '-' (HEARTS, TRICK-2), variables are a quote and a name "
            "('P), keywords are lower case",
            span,
            hint=f"write {fixed}" if _VALID_NAME.fullmatch(fixed) else None,
        )
    return None


def syntax_diagnostic(source: SourceFile, err: UnexpectedInput, lark: Lark) -> Diagnostic:
    """The error for the place where ``lark`` (the parser that raised ``err``) stopped
    in ``source``: what is wrong there in terms of the form being written."""
    text = source.text
    if isinstance(err, UnexpectedEOF) or (
        isinstance(err, UnexpectedToken) and err.token.type == "$END"
    ):
        if not _tokens(text):
            return Diagnostic(
                "error",
                "the file holds no game: expected (game ...)",
                _point(text, 0),
                hint=f"a game is written {_shape('game')}",
            )
        found = _find_unclosed(lark, text, len(text))
        culprit = found[0] if found else next(_unclosed_candidates(text), (None, 0))[0]
        if culprit is None:
            return Diagnostic("error", "unexpected end of file", _point(text, len(text)))
        return _unclosed_diagnostic(text, culprit, None)
    if isinstance(err, UnexpectedCharacters):
        at = err.pos_in_stream or 0
        start, word = _word_at(text, at)
        diagnostic = _bad_word(lark, text, start, word, set(err.allowed or ()))
        if diagnostic is not None:
            return diagnostic
        where = f" in '{word}'" if len(word) > 1 else ""
        return Diagnostic("error", f"unexpected character {text[at]!r}{where}", _point(text, at))
    assert isinstance(err, UnexpectedToken)
    tok = err.token
    pos = tok.start_pos or 0
    span = token_span(tok) if tok.line else _point(text, pos)
    expected = set(err.expected or ())
    if tok.type not in ("LPAR", "RPAR"):
        start, word = _word_at(text, pos)
        if len(word) > len(tok) and _NAMEISH.fullmatch(word):  # e.g. 'Hand' read as 'and'
            diagnostic = _bad_word(lark, text, start, word, expected)
            if diagnostic is not None:
                return diagnostic
    open_forms = _open_forms(text, pos)
    keyword = next((kw for _, kw in reversed(open_forms) if kw), "")
    shape = _shape(keyword)
    hint = f"the form is written {shape}" if shape else None
    where = f" in {_label(keyword)}" if keyword else ""
    if len(open_forms) == 1 and "GAME" in expected:
        return Diagnostic(
            "error",
            f"a game file is one (game ...) form, not {_describe(tok)}",
            span,
            hint=f"it is written {_shape('game')}",
        )
    if tok.type == "RPAR":
        extra = _find_extra_close(lark, text, pos)
        if extra is not None:
            return _extra_close_diagnostic(text, *extra)
        if not open_forms:
            return Diagnostic("error", "unmatched ')'", span, hint="remove it")
        msg = f"too few arguments in {_label(keyword)}" if keyword else "unexpected ')'"
        return Diagnostic("error", msg, span, hint=hint)
    unclosed = _find_unclosed(lark, text, pos)
    if unclosed is not None:
        return _unclosed_diagnostic(text, unclosed[0], span)
    extra = _find_extra_close(lark, text, pos)
    if extra is not None:
        return _extra_close_diagnostic(text, *extra)
    if not open_forms:
        if expected & {"$END", "<END-OF-FILE>"}:
            return Diagnostic(
                "error",
                f"unexpected {_describe(tok)} after the end of the game",
                span,
                hint="the whole game is one (game ...) form",
            )
        return Diagnostic(
            "error",
            "a game file is one (game ...) form",
            span,
            hint=f"it is written {_shape('game')}",
        )
    if tok.type in _ACTION_TERMINALS and "SIZE" in expected and "MOVE" not in expected:
        return Diagnostic(
            "error",
            f"({tok} ...) is an action, but "
            + (f"{_label(keyword)} needs" if keyword else "there must be")
            + " a value here",
            span,
            hint=hint,
        )
    if tok.type in _VALUE_TERMINALS and "MOVE" in expected and "SIZE" not in expected:
        return Diagnostic(
            "error",
            f"({tok} ...) is a value, but "
            + (f"{_label(keyword)} needs" if keyword else "there must be")
            + " an action here",
            span,
            hint="an action is move, remember, forget, shuffle, set, inc, dec, cycle, turn, "
            "repeat or a block; to act only when a condition holds write (CONDITION ACTION)",
        )
    if tok.type in ("SCORING", "SETUP", "DECLARE") and keyword != "game":
        return Diagnostic(
            "error",
            f"({tok} ...) cannot be{where}: a ')' is probably missing before it",
            span,
            hint=f"({tok} ...) goes directly in the game: {_shape('game')}",
        )
    if tok.type == "STAGE":
        return Diagnostic(
            "error",
            f"a stage cannot be nested{where}",
            span,
            hint="a stage goes directly in the game, in another stage or in a let",
        )
    if keyword and "RPAR" in expected:
        msg = f"too many arguments in {_label(keyword)}, or a missing ')' before {_describe(tok)}"
        return Diagnostic("error", msg, span, hint=hint)
    return Diagnostic("error", f"unexpected {_describe(tok)}{where}", span, hint=hint)


def _unclosed_diagnostic(text: str, paren: int, stop: Span | None) -> Diagnostic:
    kw = dict(_open_forms(text, stop.start_pos if stop else len(text))).get(paren, "")
    what = f"'(' of {_label(kw)}" if kw else "'('"
    if stop is None:
        return Diagnostic(
            "error",
            f"unclosed {what}: the file ends before it is closed",
            _point(text, paren),
            hint="add the missing ')' where this form ends (the next line at the same "
            "indentation suggests where)",
        )
    return Diagnostic(
        "error",
        f"unclosed {what}",
        _point(text, paren),
        hint=f"it is still open at line {stop.line}, column {stop.column}; add the "
        "missing ')' where this form ends",
    )


def _describe(tok: Token) -> str:
    if tok.type == "RPAR":
        return "')'"
    if tok.type == "LPAR":
        return "'('"
    return f"'{tok}'"


_TRAILING_PARENS = re.compile(r"^(\s|\)|;;[^\n]*)*$")


def stray_close_after_game(text: str, err: UnexpectedInput) -> Diagnostic | None:
    """The warning for ')' left after the whole game, which CardStock ignores and so do
    we (the caller parses ``text`` again up to the first of them); None when ``err`` is
    another mistake."""
    if (
        isinstance(err, UnexpectedToken)
        and err.token.type == "RPAR"
        and set(err.expected) <= {"$END", "<END-OF-FILE>"}
        and _TRAILING_PARENS.match(text[err.token.start_pos :])
    ):
        return Diagnostic("warning", "stray ')' after the game is ignored", token_span(err.token))
    return None


#: How deeply forms may nest.  Much deeper files would exhaust Python's recursion and
#: indentation limits in the later stages; written games stay far below (the corpus: 21).
MAX_NESTING = 64


def too_deep(text: str) -> Diagnostic | None:
    """The error for the first '(' nested more than MAX_NESTING deep; None when none is."""
    depth = 0
    for tok, pos in _tokens(text):
        if tok == "(":
            depth += 1
            if depth > MAX_NESTING:
                return Diagnostic(
                    "error",
                    f"forms nested too deeply (more than {MAX_NESTING} levels)",
                    _point(text, pos),
                    hint="split the form: (let VALUE 'VAR ...) names a part",
                )
        elif tok == ")":
            depth = max(depth - 1, 0)
    return None
