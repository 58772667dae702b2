"""Old import paths: the modules of the flat layout (before the layout by pipeline stage)
still import, with a DeprecationWarning that names the new modules; each name is read
from the new module that holds it now (``from cardlang.runner import play_game`` gives
``cardlang.runs.play.play_game``; ``from cardlang.records import replay_game``, which
moved to ``cardlang.runs.replay``, works too).

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

#: old module -> the modules that hold its contents now, searched in order
MOVED: dict[str, tuple[str, ...]] = {
    "cardlang.ast": ("cardlang.language.ast", "cardlang.errors"),
    "cardlang.forms": ("cardlang.language.forms",),
    "cardlang.types": ("cardlang.language.types",),
    "cardlang.parser": ("cardlang.language.parser", "cardlang.language.syntax_errors"),
    "cardlang.checker": ("cardlang.language.checker", "cardlang.language.kinds"),
    "cardlang.params": ("cardlang.language.params",),
    "cardlang.statics": ("cardlang.language.statics",),
    "cardlang.state": ("cardlang.engine.state", "cardlang.engine.frames"),
    "cardlang.control": ("cardlang.engine.control",),
    "cardlang.collections_ops": ("cardlang.engine.collections",),
    "cardlang.points": ("cardlang.engine.points",),
    "cardlang.gamemaster": ("cardlang.engine.gamemaster",),
    "cardlang.game": ("cardlang.engine.game", "cardlang.compiler.load"),
    "cardlang.compile_expr": ("cardlang.compiler.expressions", "cardlang.engine.runtime"),
    "cardlang.compile_stmt": ("cardlang.compiler.statements", "cardlang.engine.control"),
    "cardlang.views": ("cardlang.information.views", "cardlang.language.kinds"),
    "cardlang.knowledge": ("cardlang.information.knowledge",),
    "cardlang.vocabulary": ("cardlang.information.vocabulary",),
    "cardlang.encode": ("cardlang.information.encode",),
    "cardlang.describe": ("cardlang.information.describe",),
    "cardlang.runner": ("cardlang.runs.play", "cardlang.agents.loop", "cardlang.agents.base"),
    "cardlang.simulate": (
        "cardlang.runs.simulate",
        "cardlang.runs.statistics",
        "cardlang.runs.planned",
    ),
    "cardlang.backends": ("cardlang.runs.backends", "cardlang.runs.planned"),
    "cardlang.records": ("cardlang.runs.store", "cardlang.runs.replay"),
    "cardlang.transcript": ("cardlang.runs.transcript",),
    "cardlang.progress": ("cardlang.runs.progress",),
    "cardlang.heuristics": ("cardlang.analysis",),
    "cardlang.heuristics.data": ("cardlang.analysis.data",),
    "cardlang.heuristics.experiment": ("cardlang.analysis.experiment",),
    "cardlang.heuristics.measures": ("cardlang.analysis.measures",),
    "cardlang.heuristics.report": ("cardlang.analysis.report",),
    "cardlang.heuristics.command": ("cardlang.cli.heuristics",),
    "cardlang.agents.ismcts": ("cardlang.agents.search.ismcts",),
    "cardlang.agents.pimc": ("cardlang.agents.search.pimc",),
    "cardlang.agents.dominion_bot": ("cardlang.agents.scripted.dominion",),
}


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old module name and loads a stand-in that reads each name from the
    modules that took its place (the first that has it), warning once on import."""

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self, is_package=True)

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        new = MOVED[spec.name]
        warnings.warn(
            f"{spec.name} has moved to {' and '.join(new)}: import it from there",
            DeprecationWarning,
            stacklevel=4,
        )
        return _StandIn(spec.name, new)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the stand-in reads from the new modules."""


class _StandIn(ModuleType):
    """An old module: each attribute comes from the first new module that has it."""

    def __init__(self, name: str, new: tuple[str, ...]) -> None:
        super().__init__(name, f"moved to {', '.join(new)}")
        self.__path__: list[str] = []  # so that an old sub-module path resolves too
        self._new = new

    def __getattr__(self, attr: str) -> object:
        if attr.startswith("__"):
            raise AttributeError(attr)
        for name in self._new:
            module = importlib.import_module(name)
            if hasattr(module, attr):
                return getattr(module, attr)
        raise AttributeError(
            f"{self.__name__} has moved and none of {', '.join(self._new)} has {attr!r}"
        )


def install() -> None:
    """Put the alias finder at the end of ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _Alias) for f in sys.meta_path):
        sys.meta_path.append(_Alias())
