"""The architecture is a checked contract: layers by pipeline stage, no import cycles.

The layers are declared once, in pyproject.toml (``[tool.importlinter]``), and checked by
import-linter.  import-linter reads a package from where it is installed, and this
checkout installs ``agents/`` as ``cardlang.agents`` through a mapping that it cannot
follow, so the tests lay the package out as a wheel would (src/cardlang with agents/ and
grammar/ inside it) in a temporary folder and check that.  Lazy imports and imports under
TYPE_CHECKING count.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytest.importorskip("importlinter", reason="import-linter is in the dev extra")


def installed_layout(into: Path) -> Path:
    """The package as it installs: cardlang/, cardlang/agents/, cardlang/grammar/."""
    package = into / "cardlang"
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "src" / "cardlang", package, ignore=ignore)
    shutil.copytree(ROOT / "agents", package / "agents", ignore=ignore)
    shutil.copytree(ROOT / "grammar", package / "grammar", ignore=ignore)
    return into


#: An editable install (scikit-build-core's) puts a finder ahead of PYTHONPATH; the
#: checks must read the laid-out copy, so the interpreter drops that finder first.
_LAYOUT_FIRST = (
    "import sys\n"
    "sys.meta_path[:] = [f for f in sys.meta_path if 'Redirecting' not in type(f).__name__]\n"
)


def run_python(code: str, layout: Path) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter that imports cardlang from ``layout``."""
    env = {**os.environ, "PYTHONPATH": str(layout)}
    return subprocess.run(
        [sys.executable, "-c", _LAYOUT_FIRST + code],
        capture_output=True,
        text=True,
        cwd=layout,
        env=env,
        timeout=300,
    )


LINT = textwrap.dedent(
    f"""
    import sys
    from importlinter.cli import lint_imports
    sys.exit(lint_imports(config_filename={str(ROOT / "pyproject.toml")!r}, no_cache=True))
    """
)

CYCLES = textwrap.dedent(
    """
    import sys
    import grimp

    graph = grimp.build_graph("cardlang")
    assert "cardlang.agents.base" in graph.modules, "cardlang.agents was not found"
    edges = {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}
    # engine/native.py's import of the extension's types reads as the facade's
    # (pyproject.toml's ignore_imports says why)
    edges["cardlang.engine.native"].discard("cardlang")
    # Tarjan's strongly connected components: every one of more than one module is a cycle
    index, low, stack, on, cycles, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10_000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    for cycle in cycles:
        print("import cycle:", " <-> ".join(cycle))
    sys.exit(1 if cycles else 0)
    """
)


@pytest.fixture(scope="module")
def layout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return installed_layout(tmp_path_factory.mktemp("installed"))


def test_every_import_goes_down_the_layers(layout: Path) -> None:
    done = run_python(LINT, layout)
    assert done.returncode == 0, "the layering contract is broken:\n" + done.stdout + done.stderr


def test_there_is_no_import_cycle(layout: Path) -> None:
    done = run_python(CYCLES, layout)
    assert done.returncode == 0, done.stdout + done.stderr


def lint_with_an_import(
    tmp_path: Path, module: str, imported: str
) -> subprocess.CompletedProcess[str]:
    """The import contracts checked on the package as it installs, with ``module`` (a
    path under cardlang/) made to import ``imported``."""
    layout = installed_layout(tmp_path)
    path = layout / "cardlang" / module
    path.write_text(path.read_text() + f"\nimport {imported}  # added by the test\n")
    return run_python(LINT, layout)


def test_an_upward_import_fails_naming_it(tmp_path: Path) -> None:
    """The check can fail: the engine importing the runs layer is reported by name."""
    done = lint_with_an_import(tmp_path, "engine/state.py", "cardlang.runs.simulate")
    assert done.returncode != 0
    assert "cardlang.engine.state -> cardlang.runs.simulate" in done.stdout


def test_the_python_engine_implements_the_engine_protocol() -> None:
    from cardlang import load_game
    from cardlang.engine.protocol import Engine, EngineState

    master = load_game(ROOT / "games" / "war.rcy").master()
    assert isinstance(master, Engine)
    assert isinstance(master.new_game(1), EngineState)


def test_the_native_engine_implements_the_protocols_it_declares() -> None:
    from cardlang import load_game
    from cardlang.engine.native import native_available
    from cardlang.engine.protocol import (
        BatchEngine,
        Engine,
        SearchInsideEngine,
        WorldDealingEngine,
    )

    if not native_available():
        pytest.skip("the native engine is not built here")
    master = load_game(ROOT / "games" / "war.rcy").master(engine="native")
    for protocol in (Engine, BatchEngine, SearchInsideEngine, WorldDealingEngine):
        assert isinstance(master, protocol), protocol.__name__
    assert master.traits.batch_stepping and master.traits.search_inside
    assert master.traits.deals_worlds


#: What only engine/ may write: reaching past the engine protocol into the native
#: engine's extension (its program, a state's handle), or asking which engine a master is
#: by identity instead of by what its traits declare (engine/traits.py).
_PAST_THE_ENGINE = re.compile(
    r'cast\("Native|\b(?:master|native|engine)\.program\b|\.raw\b'
    r"|traits is (?:not )?(?:NATIVE|PYTHON)\b|traits\.name ==|import NativeMaster"
    r"""|\bengine\s*[!=]=\s*["'](?:native|python)["']"""
)


def test_no_layer_above_the_engine_reaches_past_its_protocol() -> None:
    found = []
    for folder in (ROOT / "src" / "cardlang", ROOT / "agents"):
        for path in sorted(folder.rglob("*.py")):
            if (ROOT / "src" / "cardlang" / "engine") in path.parents:
                continue
            for n, line in enumerate(path.read_text().splitlines(), 1):
                if _PAST_THE_ENGINE.search(line.split("#")[0]):
                    found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not found, "\n".join(found)


def test_the_rule_against_reaching_past_the_engine_catches_each_form() -> None:
    for line in (
        'native = cast("NativeMaster", master)',
        "program = master.program",
        "handle = st.raw",
        "if st.traits is not PYTHON:",
        'if master.traits.name == "native":',
        'if self.engine != "native":',
        "if engine == 'python' and chance == 'exact':",
        "    from cardlang.engine.native import NativeMaster",
    ):
        assert _PAST_THE_ENGINE.search(line), line
    assert not _PAST_THE_ENGINE.search("ir.program = self._do(tree.body)")


@pytest.mark.slow
def test_the_package_type_checks(layout: Path) -> None:
    """mypy over the whole package, agents included, as it installs (the checkout's
    agents/ folder is cardlang.agents only once installed).  Half a minute of one core:
    CI's slow tier runs it (and `mypy src/cardlang` by hand)."""
    pytest.importorskip("mypy", reason="mypy is in the dev extra")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml")]
        + ["--cache-dir", str(layout / ".mypy_cache"), "-p", "cardlang"],
        capture_output=True,
        text=True,
        cwd=layout,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
