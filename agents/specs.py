"""Agent specs with parameters: ``ismcts:iterations=500:c=0.7``, ``my.py:MyAgent:depth=3``.

A spec is what ``--agents`` takes for one seat: what to build (a built-in name,
``path/to/bot.toml`` or ``path/to/file.py:ClassName``) and then, separated by colons,
``key=value`` parameters for its constructor.  A plugin path is recognised by its
``.py:``, so the colon before the class name never starts a parameter.

Values arrive as text; each is converted to the type the constructor declares for that
parameter (its annotation, else the type of its default): ``int``, ``float``, ``bool``
(true/false, 1/0, yes/no, on/off) or ``str`` (an agent name such as the rollout policy of
``pimc:rollout=bmu`` is a str).  A parameter that may be None takes ``none``.  Every
mistake is a UsageError naming the spec, so the command line reports it before a game is
played.
"""

from __future__ import annotations

import inspect
import math
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from cardlang.errors import UsageError, did_you_mean

PLUGIN_MARK = ".py:"
_BOOLS = {"true": True, "1": True, "yes": True, "on": True}
_BOOLS.update({"false": False, "0": False, "no": False, "off": False})
#: The largest whole number a spec may set: it fits the native engine's 64-bit integers.
MAX_INT = 2**63 - 1
_SCALARS: dict[str, type] = {"int": int, "float": float, "bool": bool, "str": str}
_EXPECTED = {
    int: "an integer",
    float: "a finite number",
    bool: "true or false (also 1/0, yes/no, on/off)",
    str: "text",
}


@dataclass(frozen=True)
class AgentSpec:
    """A spec taken apart.  ``head`` names what to build; ``params`` are its
    ``key=value`` parameters as text, in the order given."""

    text: str
    head: str
    params: tuple[tuple[str, str], ...]

    @property
    def is_plugin(self) -> bool:
        return PLUGIN_MARK in self.head


def specs_per_seat(agents: str | Sequence[str], count: int, refusal: str) -> list[str]:
    """The agent specs of ``count`` seats, as ``--agents`` takes them: comma-separated
    text (or a sequence of specs) naming one spec for all the seats or one per seat, in
    seat order.  ``refusal`` is the message when the number fits neither (formatted with
    ``found`` and ``count``): every command and adapter reads seats' agents this way."""
    if isinstance(agents, str):
        specs = [s.strip() for s in agents.split(",") if s.strip()]
    else:
        specs = [str(s).strip() for s in agents]
    if len(specs) == 1:
        return specs * count
    if len(specs) != count:
        raise UsageError(refusal.format(found=len(specs), count=count))
    return specs


#: Built-in agents as a table names a seat ("P1 · ISMCTS"); others by their head.
_SHORT_NAMES = {
    "random": "Random",
    "bigmoney": "Big Money",
    "bmu": "BMU",
    "smithy": "Smithy",
    "double-witch": "Double Witch",
    "ismcts": "ISMCTS",
    "mcts": "MCTS",
    "pimc": "PIMC",
    "neural": "Neural",
}


def short_name(text: str) -> str:
    """A seat's agent in a word or two, for a table: ``ismcts:iterations=100`` ->
    "ISMCTS", ``bots/hag.toml`` -> "hag", ``my.py:MyBot`` -> "MyBot" (the whole spec is
    shown where a person asks for it)."""
    head = parse_spec(text).head
    if PLUGIN_MARK in head:  # path/to/file.py:ClassName: the class
        head = head.split(PLUGIN_MARK)[1]
    elif head.endswith((".toml", ".json")):
        head = head.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return _SHORT_NAMES.get(head, head)


@cache
def parse_spec(text: str) -> AgentSpec:
    """Split a spec into what to build and its parameters (cached: a batch asks for the
    same spec once per game and seat)."""
    mark = text.find(PLUGIN_MARK)
    if mark >= 0:  # path/to/file.py:ClassName[:k=v...]: the class name is not a parameter
        cut = mark + len(PLUGIN_MARK)
        class_name, *parts = text[cut:].split(":")
        head = text[:cut] + class_name
    else:
        head, *parts = text.split(":")
    params = tuple(_key_value(text, head, part) for part in parts)
    keys = [key for key, _ in params]
    for key in keys:
        if keys.count(key) > 1:
            raise UsageError(f"agent '{text}': parameter '{key}' is given twice")
    return AgentSpec(text, head, params)


def _key_value(text: str, head: str, part: str) -> tuple[str, str]:
    key, eq, value = part.partition("=")
    key = key.strip()
    if not eq or not key.isidentifier():
        raise UsageError(
            f"agent '{text}': expected key=value after each ':', got '{part}' "
            f"(e.g. {head}:iterations=500:c=0.7)"
        )
    return key, value.strip()


@dataclass(frozen=True)
class Parameter:
    """One constructor parameter a spec may set: its type and default, for conversion
    and for the list an unknown-parameter error shows."""

    name: str
    kind: type
    optional: bool  # None is a valid value
    default: Any  # inspect.Parameter.empty when required

    def describe(self) -> str:
        if self.default is inspect.Parameter.empty:
            return f"{self.name} ({self.kind.__name__}, required)"
        return f"{self.name} ({self.kind.__name__}, default {self.default!r})"


@dataclass(frozen=True)
class Signature:
    """What a factory's constructor accepts: its parameters a spec may set, those it
    may not (objects, by their annotation), whether it takes a ``seed`` (the runner's)
    and whether it takes any keyword (``**kwargs``)."""

    params: Mapping[str, Parameter]
    fixed: Mapping[str, str]
    takes_seed: bool
    takes_any: bool


@cache
def signature_of(factory: Callable[..., Any]) -> Signature:
    """The parameters of an agent class or factory (cached per factory).  Annotations
    are read as written, never evaluated, so no user code runs to read them."""
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):  # a builtin or C callable: nothing to go on
        return Signature({}, {}, True, True)
    params: dict[str, Parameter] = {}
    fixed: dict[str, str] = {}
    takes_any = False
    for p in sig.parameters.values():
        if p.kind is p.VAR_KEYWORD:
            takes_any = True
        elif p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name != "seed":
            declared = _declared_type(p)
            if declared is None:
                fixed[p.name] = _annotation_text(p.annotation)
            else:
                params[p.name] = Parameter(p.name, *declared, default=p.default)
    return Signature(params, fixed, "seed" in sig.parameters or takes_any, takes_any)


def _declared_type(p: inspect.Parameter) -> tuple[type, bool] | None:
    """The scalar type a parameter declares (annotation first, then its default's
    type; str when neither says) and whether None is allowed; None for a parameter
    annotated with no scalar type (an object only Python code can pass)."""
    names = _annotation_names(p.annotation)
    optional = "None" in names or p.default is None
    scalars = [_SCALARS[n] for n in names if n in _SCALARS]
    if len(scalars) == 1:
        return scalars[0], optional
    if any(n != "None" for n in names):
        return None
    if type(p.default) in _EXPECTED:
        return type(p.default), optional
    return str, optional


def _annotation_text(annotation: Any) -> str:
    return annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)


def _annotation_names(annotation: Any) -> list[str]:
    """``int | None`` -> ['int', 'None'], whether the annotation is a string (under
    ``from __future__ import annotations``) or a real type."""
    if annotation is inspect.Parameter.empty:
        return []
    if isinstance(annotation, str):
        text = annotation.removeprefix("Optional[").removesuffix("]")
        extra = ["None"] if annotation.startswith("Optional[") else []
        return [part.strip().strip("'\"") for part in text.split("|")] + extra
    if annotation is None or annotation is type(None):
        return ["None"]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return [n for arg in typing.get_args(annotation) for n in _annotation_names(arg)]
    return [getattr(annotation, "__name__", str(annotation))]


def keyword_arguments(spec: AgentSpec, signature: Signature) -> dict[str, Any]:
    """The spec's parameters as typed keyword arguments for the constructor."""
    out: dict[str, Any] = {}
    for key, text in spec.params:
        param = signature.params.get(key)
        if param is None:
            if key == "seed":
                raise UsageError(
                    f"agent '{spec.text}': 'seed' is not a parameter: each game gives its "
                    "agents their own seeds, derived from --seed"
                )
            if key in signature.fixed:
                raise UsageError(
                    f"agent '{spec.text}': parameter '{key}' takes "
                    f"{signature.fixed[key]}, which only Python code can pass"
                )
            if not signature.takes_any:
                raise UsageError(_unknown_message(spec, key, signature))
            out[key] = text
            continue
        out[key] = convert(spec, param, text)
    return out


def convert(spec: AgentSpec, param: Parameter, text: str) -> Any:
    """One value, from text to the parameter's type; a UsageError names the parameter
    and the type it expected."""
    if param.optional and text.lower() == "none":
        return None
    kind = param.kind
    try:
        if kind is bool:
            return _BOOLS[text.lower()]
        value = kind(text)
        if kind is float and not math.isfinite(value):  # nan or inf: no setting means it
            raise ValueError(text)
        if kind is int and abs(value) > MAX_INT:
            raise ValueError(text)
        return value
    except (KeyError, ValueError):
        raise UsageError(
            f"agent '{spec.text}': parameter {param.name}={text!r}: expected "
            f"{_EXPECTED.get(kind, kind.__name__)} ({kind.__name__})"
        ) from None


def _unknown_message(spec: AgentSpec, key: str, signature: Signature) -> str:
    known = list(signature.params)
    if not known:
        return f"agent '{spec.text}': unknown parameter '{key}': {spec.head} takes no parameters"
    hint = did_you_mean(key, known)
    listing = ", ".join(p.describe() for p in signature.params.values())
    return (
        f"agent '{spec.text}': unknown parameter '{key}'"
        f"{f' ({hint})' if hint else ''}; {spec.head} takes: {listing}"
    )


@cache
def read_agent_file(path: str, mtime: float, fmt: str, what: str) -> dict[str, Any]:
    """A JSON file an agent plays from (a policy table, an opponent model), checked to be
    of format ``fmt``; cached per file version (``mtime``), since a batch makes a fresh
    agent for every game.  ``what`` names it in messages."""
    import json
    from pathlib import Path

    try:
        doc = json.loads(Path(path).read_text())
    except OSError as err:
        raise UsageError(f"cannot read {what} {path}: {err.strerror}") from err
    except json.JSONDecodeError as err:
        raise UsageError(f"{what} {path} is not JSON: {err}") from err
    if not isinstance(doc, dict) or doc.get("format") != fmt:
        raise UsageError(f"{path} is not a file of format {fmt} ({what})")
    return doc


def agent_file(path: str, fmt: str, what: str) -> dict[str, Any]:
    """``read_agent_file`` of a path given in a spec: a clear error when it is missing."""
    from pathlib import Path

    p = Path(path)
    if not p.is_file():
        raise UsageError(f"{what} {path} not found")
    return read_agent_file(str(p.resolve()), p.stat().st_mtime, fmt, what)
