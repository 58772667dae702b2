"""Agents as the command line's tables name them: short enough for 80 columns, never cut.

A spec holds paths (``/home/me/bots/hag.toml``, ``neural:model=runs/pool/model.pt``): a
table names it with each path's last part (``hag.toml``), unless two agents would then
read alike (two ``bot.toml`` of different folders keep their paths); the whole specs of
shortened names are listed under the table (``legend``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

#: A path inside a spec: anything with a slash up to the next ':', ',' or '='.
_PATH = re.compile(r"[^:=,]*/([^:=,/]+)")


def agent_labels(specs: Iterable[str]) -> dict[str, str]:
    """Each spec's name in a table (see the module docstring)."""
    specs = list(dict.fromkeys(specs))
    short = {spec: _PATH.sub(r"\1", spec) for spec in specs}
    taken = Counter(short.values())
    return {spec: short[spec] if taken[short[spec]] == 1 else spec for spec in specs}


def legend(labels: dict[str, str]) -> list[str]:
    """ "hag.toml: /tmp/bots/hag.toml" for each shortened name, to print under a table."""
    return [f"{label}: {spec}" for spec, label in labels.items() if label != spec]
