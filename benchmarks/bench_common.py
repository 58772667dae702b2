"""What the benchmark scripts share: running the cardlang CLI, reading its JSON, medians.

The scripts are run from the repository root (``python benchmarks/NAME.py``), so this
module is imported from the scripts' own folder.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
from pathlib import Path
from typing import Any


def note(msg: str) -> None:
    """Progress and notes go to stderr, so that ``--json`` output stays one object."""
    print(msg, file=sys.stderr, flush=True)


def median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def cardlang_command() -> list[str]:
    exe = shutil.which("cardlang")
    return [exe] if exe else [sys.executable, "-m", "cardlang"]


def parse_json_output(stdout: str) -> dict[str, Any]:
    """The CLI prints one JSON object; tolerate stray lines before it."""
    text = stdout.strip()
    try:
        obj = json.loads(text)
    except json.JSONDecodeError:
        start = text.rfind("\n{")
        obj = json.loads(text[start + 1 :] if start >= 0 else text[text.find("{") :])
    if not isinstance(obj, dict):
        raise ValueError("expected a JSON object")
    return obj


def round_games(n: float) -> int:
    """Two significant digits, at least 10: the game count is printed and compared."""
    n = max(10.0, n)
    scale = 10 ** max(0, len(str(int(n))) - 2)
    return max(10, int(round(n / scale)) * scale)


def paired_ratios(ours: list[Any], peers: list[Any]) -> list[float]:
    """Each of our runs' games/s over the peer run right after it: robust to drift.
    Runs are objects with ``games_per_second`` (None when the run failed)."""
    return [
        o.games_per_second / p.games_per_second
        for o, p in zip(ours, peers, strict=False)
        if o.games_per_second is not None
    ]


def installed_layout(checkout: Path, into: Path) -> Path:
    """A checkout laid out as it installs (src/cardlang with agents/ and grammar/ inside)
    under ``into``: put ``into`` first on PYTHONPATH to import that checkout's cardlang
    instead of the installed one."""
    package = into / "cardlang"
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(checkout / "src" / "cardlang", package, ignore=ignore)
    shutil.copytree(checkout / "agents", package / "agents", ignore=ignore)
    shutil.copytree(checkout / "grammar", package / "grammar", ignore=ignore)
    return into


def layout_env(layout: Path) -> dict[str, str]:
    """The environment of a fresh interpreter that imports cardlang from ``layout`` (made
    by ``installed_layout``): it comes first on PYTHONPATH, ``CARDLANG_LAYOUT_FIRST`` tells
    the script to drop an editable install's finder (scikit-build-core's comes before
    PYTHONPATH: without this both sides of an A/B would import the installed checkout),
    and the native engine is the extension this interpreter finds, unless
    ``CARDLANG_NATIVE_MODULE`` names one (a layout holds no built extension)."""
    env = {**os.environ, "PYTHONPATH": str(layout), "CARDLANG_LAYOUT_FIRST": "1"}
    if not env.get("CARDLANG_NATIVE_MODULE"):
        import importlib.util

        found = importlib.util.find_spec("cardlang._native")
        if found is not None and found.origin:
            env["CARDLANG_NATIVE_MODULE"] = found.origin
    return env


#: The first lines of a script run with ``layout_env``: drop the editable install's finder.
LAYOUT_FIRST = (
    "import os, sys\n"
    "if os.environ.get('CARDLANG_LAYOUT_FIRST'):\n"
    "    sys.meta_path[:] = [f for f in sys.meta_path if 'Redirecting' not in type(f).__name__]\n"
)


def engine_argument(parser: Any) -> None:
    """--engine python|native: the engine cardlang plays with in this benchmark."""
    parser.add_argument(
        "--engine",
        choices=("python", "native"),
        default=None,
        help="the engine cardlang plays with (CARDLANG_ENGINE for the commands it runs; "
        "default: as the environment says, else native where built)",
    )


def use_engine(engine: str | None) -> str:
    """The engine this benchmark's cardlang runs play on: ``engine``, else
    ``CARDLANG_ENGINE``, else native where built.  The ``cardlang`` commands it starts
    get it through ``CARDLANG_ENGINE`` (their CLI reads it); in-process runs pass the name
    this returns to ``load_game(engine=...)``."""
    from cardlang.engine.engines import default_engine

    name = engine or os.environ.get("CARDLANG_ENGINE", "").strip() or default_engine()
    os.environ["CARDLANG_ENGINE"] = name
    return name
