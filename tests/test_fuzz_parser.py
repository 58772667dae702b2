"""Robustness: mangled game files give a compiled Game or positioned diagnostics, never a crash.

Valid game texts (games/*.rcy and, when it is there, the CardStock corpus: the folder
../shared/cardstock or $CARDLANG_CORPUS) are mutated by hypothesis: tokens deleted,
duplicated, swapped or replaced by random names, keywords and numbers; parentheses
deleted or inserted; whole forms swapped; the text truncated or spliced with junk.
``load_game(text=...)`` must then either compile the game or raise ``GameFileError``
whose diagnostics all point into the file (line >= 1, column >= 1) and render.  Any
other exception is a bug in cardlang.
"""

from __future__ import annotations

import re

import pytest
from conftest import ROOT, corpus_games
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from cardlang import Game, GameFileError, load_game
from cardlang.language.forms import KEYWORDS


def _sources() -> list[str]:
    paths = sorted((ROOT / "games").glob("*.rcy")) + corpus_games()
    return [p.read_text(encoding="utf-8-sig") for p in paths]


SOURCES = _sources()
if not SOURCES:  # pragma: no cover - the checkout always has games/
    pytest.skip("no game files to mutate", allow_module_level=True)

FUZZ = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

_TOKEN = re.compile(r";;[^\n]*|\(|\)|[^\s()]+")
_KEYWORDS = sorted(KEYWORDS | {"..", ",", ":", "+", "-", "==", "!=", "<", ">=", "and", "or"})
_NAMES = [
    "HAND",
    "STOCK",
    "DISCARD",
    "TRICK",
    "RANK",
    "SUIT",
    "HEARTS",
    "ACE",
    "POT",
    "X",
    "A-1",
    "Z9",
]

names = st.one_of(st.sampled_from(_NAMES), st.from_regex(r"[A-Z][A-Z0-9]{0,6}", fullmatch=True))
keywords = st.sampled_from(_KEYWORDS)
numbers = st.one_of(
    st.integers(0, 70).map(str),
    st.sampled_from(["0", "00", "999999999999999999999999", "18446744073709551617"]),
)
variables = names.map(lambda n: "'" + n)
junk = st.one_of(
    st.sampled_from(
        [
            "'",
            "''",
            "'p",
            ";;",
            "#",
            "_",
            "\t",
            "\r\n",
            "\ufeff",
            "\x00",
            "é",
            "( (",
            ") )",
            "()",
            "(())",
            "..",
            ",",
            ":",
            "-1",
            "1..",
            "using",
        ]
    ),
    st.text(min_size=1, max_size=6),
)
words = st.one_of(names, keywords, numbers, variables, junk)


def _tokens(text: str) -> list[tuple[int, int]]:
    """(start, end) of every token that is not a comment."""
    return [m.span() for m in _TOKEN.finditer(text) if not m.group().startswith(";;")]


def _forms(text: str) -> list[tuple[int, int]]:
    """(start, end) of every balanced (...) form."""
    spans, stack = [], []
    for m in _TOKEN.finditer(text):
        if m.group() == "(":
            stack.append(m.start())
        elif m.group() == ")" and stack:
            spans.append((stack.pop(), m.end()))
    return spans


def assert_robust(text: str) -> None:
    """The only acceptable outcomes: a Game, or a GameFileError with positioned errors."""
    try:
        game = load_game(text=text, name="fuzz.rcy")
    except GameFileError as err:
        assert err.errors, "a GameFileError must hold at least one error"
        n_lines = text.count("\n") + 1
        for d in err.diagnostics:
            assert d.span.line >= 1 and d.span.column >= 1, f"unpositioned: {d}"
            assert d.span.line <= n_lines, f"past the end of the file: {d}"
            assert d.message
        rendered = err.render()
        assert "fuzz.rcy:" in rendered
        return
    assert isinstance(game, Game)


# ---------------------------------------------------------------- mutations


@st.composite
def token_mutants(draw: st.DrawFn) -> str:
    """Delete, duplicate, swap or replace tokens."""
    text = draw(st.sampled_from(SOURCES))
    for _ in range(draw(st.integers(1, 4))):
        toks = _tokens(text)
        if not toks:
            break
        i = draw(st.integers(0, len(toks) - 1))
        a, b = toks[i]
        op = draw(st.sampled_from(["delete", "duplicate", "swap", "replace"]))
        if op == "delete":
            text = text[:a] + text[b:]
        elif op == "duplicate":
            text = text[:b] + " " + text[a:b] + text[b:]
        elif op == "swap":
            j = draw(st.integers(0, len(toks) - 1))
            c, d = toks[j]
            if c > b:
                text = text[:a] + text[c:d] + text[b:c] + text[a:b] + text[d:]
        else:
            text = text[:a] + draw(words) + text[b:]
    return text


@st.composite
def paren_mutants(draw: st.DrawFn) -> str:
    """Delete or insert parentheses."""
    text = draw(st.sampled_from(SOURCES))
    for _ in range(draw(st.integers(1, 3))):
        toks = _tokens(text)
        parens = [t for t in toks if text[t[0]] in "()"]
        if draw(st.booleans()) and parens:
            a, b = parens[draw(st.integers(0, len(parens) - 1))]
            text = text[:a] + text[b:]
        else:
            at = toks[draw(st.integers(0, len(toks) - 1))][draw(st.integers(0, 1))] if toks else 0
            text = text[:at] + draw(st.sampled_from(["(", ")", " (", ") "])) + text[at:]
    return text


@st.composite
def same_kind_mutants(draw: st.DrawFn) -> str:
    """Replace names by names, keywords by keywords, numbers by numbers: the mutant
    often still parses, so the checker and the compilers get exercised."""
    text = draw(st.sampled_from(SOURCES))
    for _ in range(draw(st.integers(1, 3))):
        toks = _tokens(text)
        i = draw(st.integers(0, len(toks) - 1))
        a, b = toks[i]
        tok = text[a:b]
        if tok.isdigit():
            new = draw(numbers)
        elif tok.startswith("'"):
            new = draw(variables)
        elif tok[:1].isupper():
            new = draw(names)
        elif tok[:1].islower():
            new = draw(keywords)
        else:
            continue
        text = text[:a] + new + text[b:]
    return text


@st.composite
def form_mutants(draw: st.DrawFn) -> str:
    """Swap, copy, nest or delete whole forms: well-formed, mostly ill-typed games."""
    text = draw(st.sampled_from(SOURCES))
    for _ in range(draw(st.integers(1, 3))):
        forms = _forms(text)
        if not forms:
            break
        a, b = forms[draw(st.integers(0, len(forms) - 1))]
        c, d = forms[draw(st.integers(0, len(forms) - 1))]
        op = draw(st.sampled_from(["replace", "delete", "atom", "nest"]))
        if op == "replace":
            text = text[:a] + text[c:d] + text[b:]
        elif op == "nest":  # the form in place of one of its own parts: deeper nesting
            inner = [f for f in forms if a < f[0] and f[1] < b]
            if inner:
                c, d = inner[draw(st.integers(0, len(inner) - 1))]
                text = text[:c] + text[a:b] + text[d:]
        elif op == "delete":
            text = text[:a] + text[b:]
        else:
            text = text[:a] + draw(st.one_of(names, numbers, variables)) + text[b:]
    return text


@st.composite
def truncated(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(SOURCES))
    cut = draw(st.integers(0, len(text)))
    tail = draw(st.sampled_from(["", ")", "\n", ")))))))))))))))))))", " (", ";; end"]))
    return text[:cut] + tail


@st.composite
def spliced(draw: st.DrawFn) -> str:
    """Junk (any characters) inserted anywhere, line endings changed."""
    text = draw(st.sampled_from(SOURCES))
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.one_of(junk, words)) + text[at:]
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    return text


# ---------------------------------------------------------------- properties


def test_sources_are_valid_games() -> None:
    """The mutations start from games that load (ours at least; the corpus may have
    games that cardlang rejects on purpose, which is fine as a starting point)."""
    for path in sorted((ROOT / "games").glob("*.rcy")):
        assert isinstance(load_game(path), Game)


@FUZZ
@given(token_mutants())
def test_token_mutations(text: str) -> None:
    assert_robust(text)


@FUZZ
@given(paren_mutants())
def test_paren_mutations(text: str) -> None:
    assert_robust(text)


@FUZZ
@given(same_kind_mutants())
def test_same_kind_replacements(text: str) -> None:
    assert_robust(text)


@FUZZ
@given(form_mutants())
def test_form_mutations(text: str) -> None:
    assert_robust(text)


@FUZZ
@given(truncated())
def test_truncations(text: str) -> None:
    assert_robust(text)


@FUZZ
@given(spliced())
def test_spliced_junk(text: str) -> None:
    assert_robust(text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=list("()'; \n\tAZaz09-.,:_"), max_size=60) | st.text(max_size=60))
@example("")
@example(")")
@example("(")
@example("(game")
@example("(game)")
@example("\ufeff\ufeff(game)")
@example("(game (setup (create players 2)) (do ()) (scoring max 0))")
@example("(game (setup (create players 2)) (do ()) (scoring max " + "9" * 5000 + "))")
@example("(game (setup (create players 2)) (do ()) (scoring max (+" + " 1" * 300 + ")))")
@example("(game (setup (create players 2)) (do ()) (scoring max " + "(not " * 400 + "))")
def test_arbitrary_text(text: str) -> None:
    assert_robust(text)
