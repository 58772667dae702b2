"""Every module is named where a reader of the package looks for it (issue 52).

A module (a ``.py`` file of ``src/cardlang/`` or ``agents/``, ``__init__.py`` aside) is
named in its package's docstring, the ``__init__.py`` of the folder it lives in, or else
in the map of docs/internals.md, in the row of its folder.  Named means written as code:
````name```` (or ```name```), ``name.py``, or its dotted path
``cardlang.learning.ppo``.  And the other way: a docstring's list item that opens with a
module's name (``- ``name``: ...``) names a module or a subpackage that exists.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from conftest import GAMES

ROOT = GAMES.parent
#: The packages' roots and their dotted names: agents/ is installed as cardlang.agents.
PACKAGES = {ROOT / "src" / "cardlang": "cardlang", ROOT / "agents": "cardlang.agents"}
INTERNALS = ROOT / "docs" / "internals.md"


def modules() -> list[Path]:
    return [
        path
        for base in PACKAGES
        for path in sorted(base.rglob("*.py"))
        if path.name != "__init__.py" and "__pycache__" not in path.parts
    ]


def _package_root(path: Path) -> Path:
    return next(base for base in PACKAGES if path.is_relative_to(base))


def dotted(path: Path) -> str:
    base = _package_root(path)
    return ".".join([PACKAGES[base], *path.relative_to(base).with_suffix("").parts])


def docstring(folder: Path) -> str:
    init = folder / "__init__.py"
    if not init.exists():
        return ""
    return ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""


def _names(text: str, path: Path) -> bool:
    """Whether ``text`` names the module at ``path`` as code."""
    name = re.escape(path.stem)
    return bool(
        re.search(rf"(?<![\w`])``?{name}``?(?![\w`])", text)
        or re.search(rf"(?<![\w/.]){name}\.py(?!\w)", text)
        or re.search(rf"(?<![\w.]){re.escape(dotted(path))}(?![\w.])", text)
    )


def _map_row(path: Path) -> str:
    """The row of docs/internals.md's map for the folder ``path`` lives in (a module of
    ``agents/`` is described in the row of ``agents/``), or its path from the package's
    root anywhere in the page."""
    text = INTERNALS.read_text(encoding="utf-8")
    start = text.index("## The map")
    end = text.find("\n## ", start + 1)
    the_map = text[start : end if end > 0 else len(text)]
    relative = path.relative_to(_package_root(path))
    head = f"{relative.parts[0]}/" if len(relative.parts) > 1 else relative.name
    if _package_root(path) == ROOT / "agents":
        head = "agents/"
    rows = [row for row in the_map.splitlines() if row.startswith(f"| `{head}`")]
    return "\n".join(rows) + ("\n" + relative.as_posix() if relative.as_posix() in text else "")


def is_named(path: Path) -> bool:
    return _names(docstring(path.parent), path) or _names(_map_row(path), path)


def test_every_module_is_named_in_its_package_docstring_or_the_map() -> None:
    found = modules()
    assert len(found) > 100, "the modules are elsewhere now"
    unnamed = [dotted(path) for path in found if not is_named(path)]
    assert not unnamed, (
        f"modules named neither in their package's docstring nor in docs/internals.md: {unnamed}"
    )


def test_a_module_nobody_names_is_found() -> None:
    """The check can fail: a module that does not exist is named nowhere."""
    ghost = ROOT / "src" / "cardlang" / "learning" / "no_such_module.py"
    assert not is_named(ghost)
    assert is_named(ROOT / "src" / "cardlang" / "learning" / "ppo.py")
    assert not _names("``ppo_run``: the run; cardlang.learning.ppo_run", ghost.with_name("ppo.py"))


def test_the_modules_a_docstring_lists_exist() -> None:
    """A list item that opens with a name (``- ``name``: ...``) names a module or a
    subpackage of its folder: no docstring lists a module that is gone."""
    wrong = []
    for base in PACKAGES:
        for init in sorted(base.rglob("__init__.py")):
            folder = init.parent
            for name in re.findall(r"^\s*- ``(\w+)``", docstring(folder), flags=re.M):
                if not ((folder / f"{name}.py").exists() or (folder / name).is_dir()):
                    wrong.append(f"{folder.relative_to(ROOT)}: {name}")
    assert not wrong, f"package docstrings list modules that do not exist: {wrong}"
