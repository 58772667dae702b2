"""One agent file for every command (tests/test_agent_contract.py): ``recorder.py:Recorder``.

It reads the whole view the agent contract promises (docs/agents.md), checks that the
parts agree with each other, and plays a legal move, answering in each of the three
ways in turn: an option's index, one of the options, a strength vector over
``view.vocabulary``.  Any attribute missing, or any part that disagrees, raises: the
game then fails (``simulate``, ``play``, ``serve``) or the agent forfeits it
(``tournament``), and the test sees it.  It uses nothing but the view: the same file
runs in the main process and in a tournament's sandbox.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any

from cardlang.agents.base import Capabilities


class Recorder:
    # a recorded game in simulate too: history, known_cards and zone_knowledge then
    # hold what the seat knows (a tournament records every game)
    capabilities = Capabilities(knowledge=True)

    def __init__(self, answer: str = "rotate", seed: int = 0) -> None:
        if answer not in ("rotate", "index", "option", "vector"):
            raise ValueError(f"answer={answer!r}: rotate, index, option or vector")
        self.answer = answer
        self.rng = random.Random(seed)
        self.name = "recorder"
        self.decisions = 0
        self.labels: list[str] = []  # the readable label of each move it chose

    def choose(self, view: Any, options: Any) -> Any:
        self.check_header(view)
        self.check_locations(view)
        self.check_history(view)
        self.check_options(view, options)
        self.check_game_only(view)
        i = self.rng.randrange(len(options))
        self.labels.append(view.option_labels[i])
        how = self.answer
        if how == "rotate":
            how = ("index", "option", "vector")[self.decisions % 3]
        self.decisions += 1
        if how == "option":
            return options[i]
        if how == "vector":
            wanted = view.options[i].key
            return [1.0 if key == wanted else 0.0 for key in view.vocabulary]
        return i

    # ------------------------------------------------------------ the checks
    @staticmethod
    def check_header(view: Any) -> None:
        for name in ("seat", "nplayers", "current_player", "decisions", "turns"):
            assert isinstance(getattr(view, name), int), name
        assert 0 <= view.seat < view.nplayers
        assert view.situation is None or isinstance(view.situation, str)
        assert isinstance(view.situation_text, str)
        assert isinstance(view.kinds, Mapping)
        assert isinstance(view.rules_text, str) and "(game" in view.rules_text
        assert isinstance(view.game_name, str) and view.game_name.endswith(".rcy")
        assert view.refusal is None  # it never answers illegally
        assert all(isinstance(k, str) for k in view.vocabulary)

    @staticmethod
    def check_locations(view: Any) -> None:
        locations = view.locations()
        assert set(locations) == set(view.visible) | set(view.hidden_sizes)
        assert not set(view.visible) & set(view.hidden_sizes)
        tops = view.tops()
        for key in locations:
            cards = view.cards(*key)
            size = view.size(*key)
            known = view.known_cards(*key)
            assert len(known) == size, key
            if key in view.visible:
                assert cards is not None and len(cards) == size
                assert tuple(known) == tuple(cards)
                assert view.top(*key) == (cards[-1] if cards else None)
                assert (key in tops) == bool(cards)
            else:
                assert cards is None and view.top(*key) is None and key not in tops
                assert view.hidden_sizes[key] == size
            knowledge = view.zone_knowledge(*key)
            assert knowledge.size == size
            assert sum(knowledge.known.values()) == sum(c is not None for c in known)
            if size and knowledge.expected:
                assert math.isclose(sum(knowledge.expected.values()), size, rel_tol=1e-6)
        for (owner, name), value in view.ints.items():
            assert isinstance(value, int) and view.storage(owner, name) == value
        assert all(isinstance(v, str) for v in view.strs.values())

    @staticmethod
    def check_history(view: Any) -> None:
        history = view.history
        assert isinstance(history, tuple) and len(history) == view.history_length
        assert tuple(view.history_since(0)) == tuple(history)
        if history:
            assert tuple(view.history_since(len(history) - 1)) == (history[-1],)
        for event in history:
            assert isinstance(event, tuple) and isinstance(event[0], str)

    @staticmethod
    def check_options(view: Any, options: Any) -> None:
        n = len(options)
        assert n >= 1
        assert len(view.options) == len(view.raw_options) == n
        assert len(view.option_labels) == len(view.option_kinds) == len(view.option_keys) == n
        assert all(isinstance(label, str) and label for label in view.option_labels)
        vocabulary = set(view.vocabulary)
        for i, option in enumerate(view.options):
            assert option.index == i
            assert isinstance(option.label, str)
            assert option.key == view.option_keys[i] and option.key in vocabulary
            assert isinstance(option.branch, int) and option.branch >= 0
            assert isinstance(option.bindings, tuple)
            for var, _value in option.bindings:
                assert isinstance(var, str)
            assert len(option.cards) == len(option.kinds)
            assert option.kind == view.option_kinds[i]
            assert option.card is None or isinstance(option.card, Mapping)
            assert all(isinstance(text, str) for text in option.actions)

    @staticmethod
    def check_game_only(view: Any) -> None:
        """In a sandbox what needs the game is None or raises; here it works."""
        if view.game is None:
            assert view.choice is None and view.limits is None and view.engine is None
            for method in (view.master, view.skeleton):
                try:
                    method()
                except RuntimeError:  # SandboxUnavailable
                    pass
                else:
                    raise AssertionError(f"{method.__name__}() worked in a sandbox")
            try:
                view.determinize(random.Random(0))
            except RuntimeError:
                pass
            else:
                raise AssertionError("determinize() worked in a sandbox")
        else:
            assert view.choice is not None and view.limits is not None
            assert isinstance(view.engine, str)
