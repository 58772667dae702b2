"""A solved policy as a file: per state key, the action to take (``policy:table=PATH``).

JSON, one object: ``format`` ("cardlang-policy"), ``version`` (1), the ``game`` file's
name and the SHA-256 of its text, the ``seat``, the kind of ``keys`` (``info`` or
``view``, information/observation.py), how it was solved (``opponent``, ``reward``,
``discount``, ``exact``), its ``value`` at the start, and ``policy``: state key (a
digest: exact and stable) -> ``{"state": the state in words
(information/observation.py ``state_text``), "action": option key, "label": the option
as the seat reads it ("Bet 1"), "value": the state's value}``, ordered by the states in
words.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from cardlang.agents.policy_table import FORMAT
from cardlang.solve.iteration import ValueIteration
from cardlang.solve.process import DecisionProcess

VERSION = 1


def policy_document(
    p: DecisionProcess, vi: ValueIteration, *, game_path: Path, meta: dict[str, Any]
) -> dict[str, Any]:
    # ordered by the states in words, so that a person finds a hand's states together
    order = sorted(range(len(p.keys)), key=lambda s: (p.texts[s], p.keys[s]))
    policy = {
        p.keys[s]: {
            "state": p.texts[s],
            "action": p.actions[s][vi.greedy[s]],
            "label": p.labels[s][vi.greedy[s]],
            "value": float(vi.values[s]),
        }
        for s in order
    }
    return {
        "format": FORMAT,
        "version": VERSION,
        "game": game_path.name,
        "game_sha256": hashlib.sha256(game_path.read_bytes()).hexdigest(),
        "seat": p.seat,
        **p.state_keys.fields(),
        **meta,
        "value": vi.start_value,
        "policy": policy,
    }


def save_policy(path: Path, document: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=1, sort_keys=False) + "\n")
