"""The view an agent from a file receives, as plain data: what crosses into its worker.

Pipeline position: runs, under the sandbox (sandbox.py).  ``view_data`` is built in the
main process from a live ``PlayerView``'s public accessors only; in the agent's worker
``SandboxView`` and ``SandboxOption`` are made of it, with the same public attributes as
``PlayerView`` and ``OptionView`` (the agent contract, docs/agents.md), and ``index_of``
turns the agent's answer into the plain reply the main process checks.  Nothing here
holds a game: a worker that imports this module holds only what its seat may see.

What needs the game is listed in ``GAME_ONLY_VIEW`` and ``GAME_ONLY_OPTION``: in a
sandbox such an attribute is None and such a method raises ``SandboxUnavailable``.
tests/test_agent_contract.py holds the two sides to each other, name by name.

Like all of runs/, it may import agents, information, compiler, engine, language and
errors.
"""

from __future__ import annotations

import weakref
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cardlang.language.kinds import card_type

if TYPE_CHECKING:
    from cardlang.information.views import PlayerView

__all__ = [
    "GAME_ONLY_OPTION",
    "GAME_ONLY_VIEW",
    "SandboxOption",
    "SandboxUnavailable",
    "SandboxView",
    "SandboxZoneKnowledge",
    "index_of",
    "plain",
    "view_data",
]

#: The public names of ``PlayerView`` that need the game (its rules as objects, its
#: state, its engine), with what a ``SandboxView`` has in their place: an attribute is
#: None, a method raises ``SandboxUnavailable``, ``live`` (a constructor from a
#: Gamestate) is absent.  Every other public name of ``PlayerView`` is on ``SandboxView``
#: with the same meaning (tests/test_agent_contract.py; docs/agents.md).
GAME_ONLY_VIEW: Mapping[str, str] = {
    "game": "None: the compiled rules (the worker has the rules' text: rules_text)",
    "choice": "None: the pending choice node of the compiled rules",
    "limits": "None: the game's limits, which a simulation keeps to",
    "engine": "None: the engine that plays the game, which a simulation uses too",
    "table_scores": "None: each seat's (table-score ...), evaluated by the game's engine",
    "master": "raises SandboxUnavailable: a Gamemaster to simulate with",
    "determinize": "raises SandboxUnavailable: a Gamestate consistent with the view",
    "skeleton": "raises SandboxUnavailable: what determinize deals into",
    "live": "absent: PlayerView's constructor from a Gamestate",
}

#: The public names of ``OptionView`` that hold parts of the compiled rules; None on a
#: ``SandboxOption`` (``actions`` has the actions' source text).
GAME_ONLY_OPTION: Mapping[str, str] = {
    "action_nodes": "None: the actions' syntax nodes (actions has their text)",
    "source": "None: the game file's SourceFile (rules_text has its text)",
}


def plain(value: Any) -> Any:
    """``value`` as plain data: None, bool, int, float, str, and tuples and dicts of
    them; anything else (and any subclass of those) becomes its text or its plain base."""
    kind = type(value)
    if value is None or kind in (bool, int, float, str):
        return value
    if isinstance(value, Mapping):
        return {plain(k): plain(v) for k, v in value.items()}
    if isinstance(value, tuple | list | set | frozenset):
        return tuple(plain(v) for v in value)
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    return str(value)


def view_data(
    view: PlayerView, vocabulary: Any, history_from: int, send_keys: bool
) -> dict[str, Any]:
    """The seat's view at a decision as plain data, from the view's public accessors
    only: the header, every visible location's cards (attribute dicts), the sizes of the
    hidden ones and what the seat knows of their cards, the storages, the public history
    from event ``history_from`` on, the readable option labels, the options as the mover
    sees them (index, label, vocabulary key, branch, bindings, cards, kinds, actions'
    text) and, with ``send_keys``, the situation's vocabulary.  Called at every decision
    of a sandboxed agent: each accessor is read once."""
    from cardlang.information.views import option_summary  # the main process's side

    situation = vocabulary.view_situation(view)
    keys = view.option_keys
    options = []
    for shown, key in zip(view.options, keys, strict=True):
        actions = tuple(shown.actions)
        options.append(
            {
                "index": shown.index,
                "label": option_summary(shown.bindings, actions),  # shown.label, once
                "key": key,
                "branch": shown.branch,
                "bindings": plain(shown.bindings),
                "cards": plain(shown.cards),
                "kinds": plain(shown.kinds),
                "actions": actions,
            }
        )
    hidden = plain(dict(view.hidden_sizes))
    known: dict[Any, tuple[Any, ...]] = {}  # hidden location -> its cards the seat knows
    expected: dict[Any, dict[str, float]] = {}  # hidden location -> expected card types
    for key, size in hidden.items():
        cards = view.known_cards(*key)
        if len(cards) != size or any(c is not None for c in cards):
            known[key] = plain(cards)
        odds = view.zone_knowledge(*key).expected
        if odds:
            expected[key] = plain(dict(odds))
    data: dict[str, Any] = {
        "seat": view.seat,
        "nplayers": view.nplayers,
        "current_player": view.current_player,
        "decisions": view.decisions,
        "turns": view.turns,
        "situation": view.situation,
        "situation_text": view.situation_text,
        "vocabulary_situation": situation,
        "visible": plain(dict(view.visible)),
        "hidden_sizes": hidden,
        "hidden_known": known,
        "hidden_expected": expected,
        "ints": plain(dict(view.ints)),
        "strs": plain(dict(view.strs)),
        "history": plain(view.history_since(history_from)),
        "history_length": view.history_length,
        "option_labels": tuple(view.option_labels),
        "options": tuple(options),
    }
    if send_keys and situation is not None:
        data["vocabulary"] = tuple(vocabulary.keys(situation))
    return data


class SandboxOption:
    """One option as a sandboxed agent receives it (plain data), with the attributes of
    ``cardlang.information.views.OptionView``: ``index`` (its place in ``options``),
    ``label`` (the bindings and the actions' source text), ``key`` (its action-vocabulary
    key), ``branch``, ``bindings``, ``cards``, ``kinds``, ``actions``, ``card`` and
    ``kind``.  ``action_nodes`` and ``source`` (parts of the compiled rules) are None."""

    __slots__ = ("index", "label", "key", "branch", "bindings", "cards", "kinds", "actions")

    action_nodes = None
    source = None

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.index: int = data["index"]
        self.label: str = data["label"]
        self.key: str = data["key"]
        self.branch: int = data["branch"]
        self.bindings: tuple[tuple[str, Any], ...] = data["bindings"]
        self.cards: tuple[Mapping[str, Any] | None, ...] = data["cards"]
        self.kinds: tuple[str | None, ...] = data["kinds"]
        self.actions: tuple[str, ...] = data["actions"]

    @property
    def card(self) -> Mapping[str, Any] | None:
        """The first bound card (or top card of a bound location) the chooser sees."""
        return next((c for c in self.cards if c is not None), None)

    @property
    def kind(self) -> str | None:
        """The first bound card kind (what is bought, played, discarded ...), if any."""
        return next((k for k in self.kinds if k is not None), None)

    def __repr__(self) -> str:
        return f"SandboxOption({self.index}, {self.label!r})"


class SandboxUnavailable(RuntimeError):
    """What a sandboxed view cannot do: it holds no game to simulate or determinize."""


@dataclass(frozen=True)
class SandboxZoneKnowledge:
    """``SandboxView.zone_knowledge``: the fields of ``views.ZoneKnowledge``.  ``size``:
    how many cards lie there; ``known``: card type -> how many the seat knows are there;
    ``expected``: card type -> the expected number (sums to ``size``)."""

    size: int
    known: Mapping[str, int]
    expected: Mapping[str, float]


#: Per SandboxView, what its seat knows of the hidden locations' cards (data's
#: "hidden_known" and "hidden_expected"), kept beside the view: a view shows only the
#: attributes of ``PlayerView`` (and a weak key keeps nothing alive).
_HIDDEN: weakref.WeakKeyDictionary[SandboxView, tuple[Mapping[Any, Any], Mapping[Any, Any]]] = (
    weakref.WeakKeyDictionary()
)


class SandboxView:
    """The view a sandboxed agent receives: the public attributes and accessors of
    ``PlayerView``, all plain data (docs/agents.md): seat, nplayers, current_player,
    decisions, turns, situation, situation_text, kinds, visible, hidden_sizes, ints,
    strs, history, history_length, history_since(), options, raw_options (the options
    ``choose`` was given: the same ``SandboxOption``s), option_labels, option_kinds,
    option_keys, vocabulary (the situation's action keys, for strength vectors),
    rules_text (the game file, public), game_name, refusal (why the previous answer was
    refused, on a retry), cards(), known_cards(), zone_knowledge(), size(), top(),
    tops(), locations(), storage() and close() (nothing to close).  No game: what needs
    it (``GAME_ONLY_VIEW``) is None (``game``, ``choice``, ``limits``, ``engine``) or
    raises ``SandboxUnavailable`` (``master()``, ``determinize()``, ``skeleton()``)."""

    game = None
    choice = None
    limits = None
    engine = None
    table_scores = None

    def __init__(
        self,
        data: Mapping[str, Any],
        history: tuple[Any, ...],
        vocabulary: tuple[str, ...],
        rules: Mapping[str, Any],
    ) -> None:
        self.seat: int = data["seat"]
        self.nplayers: int = data["nplayers"]
        self.current_player: int = data["current_player"]
        self.decisions: int = data["decisions"]
        self.turns: int = data["turns"]
        self.situation: str | None = data["situation"]
        self.situation_text: str = data["situation_text"]
        self.visible: dict[tuple[int, str, str], tuple[dict[str, Any], ...]] = data["visible"]
        self.hidden_sizes: dict[tuple[int, str, str], int] = data["hidden_sizes"]
        self.ints: dict[tuple[int, str], int] = data["ints"]
        self.strs: dict[tuple[int, str], str] = data["strs"]
        self.history = history
        self.options = tuple(SandboxOption(o) for o in data["options"])
        self.option_labels: tuple[str, ...] = tuple(data.get("option_labels", ()))
        self.vocabulary = vocabulary
        self.kinds: Mapping[str, Any] = rules.get("kinds", {})
        self.rules_text: str = rules.get("text", "")
        self.game_name: str = rules.get("name", "")
        self.refusal: str | None = None
        _HIDDEN[self] = (data.get("hidden_known", {}), data.get("hidden_expected", {}))

    @property
    def raw_options(self) -> tuple[SandboxOption, ...]:
        """The options ``choose`` was given: here the ``SandboxOption``s of ``options``."""
        return self.options

    @property
    def option_kinds(self) -> tuple[str | None, ...]:
        return tuple(o.kind for o in self.options)

    @property
    def option_keys(self) -> tuple[str, ...]:
        return tuple(o.key for o in self.options)

    @property
    def history_length(self) -> int:
        return len(self.history)

    def history_since(self, start: int) -> tuple[Any, ...]:
        return self.history[start:]

    def cards(self, owner: int, kind: str, name: str) -> tuple[dict[str, Any], ...] | None:
        key = (owner, kind, name)
        if key in self.visible:
            return self.visible[key]
        return None if key in self.hidden_sizes else ()

    def known_cards(self, owner: int, kind: str, name: str) -> tuple[Any, ...]:
        seen = self.cards(owner, kind, name)
        if seen is not None:
            return seen
        known = _HIDDEN[self][0].get((owner, kind, name))
        return known if known is not None else (None,) * self.size(owner, kind, name)

    def zone_knowledge(self, owner: int, kind: str, name: str) -> SandboxZoneKnowledge:
        seen = self.cards(owner, kind, name)
        if seen is not None:
            counts = Counter(card_type(c) for c in seen)
            return SandboxZoneKnowledge(len(seen), counts, {t: float(n) for t, n in counts.items()})
        cards = self.known_cards(owner, kind, name)
        known = Counter(card_type(c) for c in cards if c is not None)
        expected = _HIDDEN[self][1].get((owner, kind, name), {})
        return SandboxZoneKnowledge(self.size(owner, kind, name), known, dict(expected))

    def size(self, owner: int, kind: str, name: str) -> int:
        key = (owner, kind, name)
        if key in self.visible:
            return len(self.visible[key])
        return self.hidden_sizes.get(key, 0)

    def top(self, owner: int, kind: str, name: str) -> dict[str, Any] | None:
        cards = self.visible.get((owner, kind, name))
        return cards[-1] if cards else None

    def tops(self) -> dict[tuple[int, str, str], dict[str, Any]]:
        return {k: v[-1] for k, v in self.visible.items() if v}

    def locations(self) -> list[tuple[int, str, str]]:
        return [*self.visible, *self.hidden_sizes]

    def storage(self, owner: int, name: str) -> int:
        return self.ints.get((owner, name), 0)

    def close(self) -> None:
        """Nothing to do: a sandboxed view is plain data, never a window on a game."""

    def master(self) -> Any:
        raise SandboxUnavailable(
            "a sandboxed agent's view holds no game: it cannot simulate (view.master()); "
            "compile view.rules_text yourself (cardlang.load_game(text=...)) to simulate"
        )

    def determinize(self, rng: Any) -> Any:
        raise SandboxUnavailable(
            "a sandboxed agent's view holds no game: it cannot determinize "
            "(view.determinize()); zone_knowledge() and known_cards() say what it knows"
        )

    def skeleton(self) -> Any:
        raise SandboxUnavailable(
            "a sandboxed agent's view holds no game: it has no skeleton to determinize into"
        )

    def __repr__(self) -> str:
        shown = f"seat={self.seat}, situation={self.situation!r}, options={len(self.options)}"
        return f"SandboxView({shown})"


def index_of(answer: Any, view: SandboxView) -> dict[str, Any]:
    """A sandboxed agent's answer as the reply the parent reads: ``{"index": i}`` (the
    parent checks its range), or ``{"illegal": why}``.  An option of the view counts as
    its index; a strength vector over ``view.vocabulary`` as its strongest entry that
    names an option (entries tried before it are ``"tried"``)."""
    if isinstance(answer, bool):
        return {"illegal": f"answered {answer!r}"}
    if isinstance(answer, SandboxOption):
        if 0 <= answer.index < len(view.options) and view.options[answer.index] is answer:
            return {"index": answer.index}
        return {"illegal": "answered an option of another decision"}
    if isinstance(answer, int):
        return {"index": int(answer)}
    try:
        import numpy as np

        if isinstance(answer, np.integer):
            return {"index": int(answer)}
        vector = np.asarray(answer, dtype=float)
    except (TypeError, ValueError, OverflowError):
        vector = None
    if (
        vector is None
        or vector.ndim != 1
        or vector.shape[0] != len(view.vocabulary)
        or not len(vector)
    ):
        shown = repr(answer)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        return {
            "illegal": f"answered {shown}: expected an option index, an option or a "
            f"vector of {len(view.vocabulary)} strengths"
        }
    legal: dict[str, int] = {}
    for option in view.options:
        legal.setdefault(option.key, option.index)
    vector = np.where(np.isnan(vector), -np.inf, vector)
    tried: list[str] = []
    for j in np.argsort(-vector, kind="stable"):
        key = view.vocabulary[int(j)]
        if key in legal:
            return {"index": legal[key], "tried": tried}
        tried.append(key)
    return {"illegal": "no entry of its strength vector is a legal move"}


if TYPE_CHECKING:  # mypy holds the sandbox's view to the protocol agents are written against
    from cardlang.information.views import AgentView

    def _a_sandbox_view_is_an_agent_view(view: SandboxView) -> AgentView:
        return view
