"""Old import paths: the modules of the flat layout (before the layout by pipeline stage)
still import, each as the module that took its place, with a DeprecationWarning that
names the new path.  ``import cardlang.runner`` gives ``cardlang.runs.play``.

Installed by ``cardlang/__init__.py``; imports nothing of cardlang's own, so it is outside
the layers.  Remove an entry a release after the warning has been shown.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from importlib.machinery import ModuleSpec
from types import ModuleType

#: old module -> the module that holds its contents now
MOVED = {
    "cardlang.ast": "cardlang.language.ast",
    "cardlang.forms": "cardlang.language.forms",
    "cardlang.types": "cardlang.language.types",
    "cardlang.parser": "cardlang.language.parser",
    "cardlang.checker": "cardlang.language.checker",
    "cardlang.params": "cardlang.language.params",
    "cardlang.statics": "cardlang.language.statics",
    "cardlang.state": "cardlang.engine.state",
    "cardlang.control": "cardlang.engine.control",
    "cardlang.collections_ops": "cardlang.engine.collections",
    "cardlang.points": "cardlang.engine.points",
    "cardlang.gamemaster": "cardlang.engine.gamemaster",
    "cardlang.game": "cardlang.compiler.load",  # Game, load_game, compile_game, read_source
    "cardlang.compile_expr": "cardlang.compiler.expressions",
    "cardlang.compile_stmt": "cardlang.compiler.statements",
    "cardlang.views": "cardlang.information.views",
    "cardlang.knowledge": "cardlang.information.knowledge",
    "cardlang.vocabulary": "cardlang.information.vocabulary",
    "cardlang.encode": "cardlang.information.encode",
    "cardlang.describe": "cardlang.information.describe",
    "cardlang.runner": "cardlang.runs.play",
    "cardlang.simulate": "cardlang.runs.simulate",
    "cardlang.backends": "cardlang.runs.backends",
    "cardlang.records": "cardlang.runs.records",
    "cardlang.transcript": "cardlang.runs.transcript",
    "cardlang.progress": "cardlang.runs.progress",
    "cardlang.heuristics": "cardlang.analysis",
    "cardlang.heuristics.data": "cardlang.analysis.data",
    "cardlang.heuristics.experiment": "cardlang.analysis.experiment",
    "cardlang.heuristics.measures": "cardlang.analysis.measures",
    "cardlang.heuristics.report": "cardlang.analysis.report",
    "cardlang.heuristics.command": "cardlang.cli.heuristics",
    "cardlang.agents.ismcts": "cardlang.agents.search.ismcts",
    "cardlang.agents.pimc": "cardlang.agents.search.pimc",
    "cardlang.agents.dominion_bot": "cardlang.agents.scripted.dominion",
    "cardlang.agents.bots": "cardlang.agents.scripted.bots",
}


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old module name and loads it as the module that took its place."""

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        new = MOVED[spec.name]
        warnings.warn(
            f"{spec.name} has moved to {new}: import it from there",
            DeprecationWarning,
            stacklevel=4,
        )
        return importlib.import_module(new)

    def exec_module(self, module: ModuleType) -> None:
        """The module is the new one, already executed."""


def install() -> None:
    """Put the alias finder at the end of ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _Alias) for f in sys.meta_path):
        sys.meta_path.append(_Alias())
