"""What the commands of the command line share: exit codes, argument types, options.

Pipeline position: the command line (cli/), below every command module and ``main``: each
command module builds its subcommand's arguments from these (``--param``, ``--seed``,
``--max-decisions``/``--max-steps``, ``--backend``/``--workers``) and reads them back
with the same rules (``backend_choice``), and reports errors the same way
(``print_error``, the exit codes).  It imports no command module, so commands and
``main`` import it without a cycle.

May import: anything in cardlang (the command line sits above everything).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

__all__ = [
    "SubParsers",
    "EXIT_ERROR",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "backend_choice",
    "backend_options",
    "engine_option",
    "use_engine",
    "limit_options",
    "limits_of",
    "param_option",
    "output_dir",
    "output_file",
    "port",
    "positive",
    "print_error",
    "seed",
    "seed_option",
    "fresh_seed",
    "state_keys_of",
    "state_keys_options",
]

#: What ``add_parser(sub)`` of each command module receives.
SubParsers = argparse._SubParsersAction  # argparse has no public name for it

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2
#: Ctrl-C: what a shell reports for a process ended by SIGINT (128 + 2).
EXIT_INTERRUPTED = 130


def print_error(message: object) -> None:
    """A one-line error on stderr, as every command reports one (no traceback)."""
    print(f"cardlang: error: {message}", file=sys.stderr)


# ---------------------------------------------------------------- argument types


#: The largest seed: the native engine's seeds are 64-bit.
MAX_SEED = 2**63 - 1
#: The largest count (games, decisions, workers, a game id): more than any run plays,
#: and far inside the engines' 64-bit counters.
MAX_COUNT = 10**12


def _whole_number(text: str, what: str, most: int = MAX_COUNT) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if value > most:
        raise argparse.ArgumentTypeError(f"expected at most {most:,}, got {text}")
    return value


def positive(text: str) -> int:
    """A whole number >= 1 (games, workers, limits, a game id)."""
    value = _whole_number(text, "a whole number")
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {value}")
    return value


#: The most worker processes a command starts: far more than a machine has cores; a
#: larger number is a typo that would fork until the machine gives out.
MAX_WORKERS = 1024


def positive_up_to(most: int, what: str) -> Any:
    """The type of an option that is a whole number from 1 to ``most`` (``what`` names
    its unit in the message): sizes that are allocated up front (lanes, buffers, batches)
    fail with the usage rather than deep inside, out of memory."""

    def parse(text: str) -> int:
        value = positive(text)
        if value > most:
            raise argparse.ArgumentTypeError(f"expected at most {most:,} {what}, got {value:,}")
        return value

    parse.__name__ = what.replace(" ", "_")  # argparse names the type in some messages
    return parse


#: --workers: a whole number from 1 to ``MAX_WORKERS``.
workers_count = positive_up_to(MAX_WORKERS, "workers")


def whole(text: str) -> int:
    """A whole number >= 0 (a count that may be 0)."""
    value = _whole_number(text, "a whole number")
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {value}")
    return value


def port(text: str) -> int:
    """A TCP port, 0 (any free one) to 65535."""
    value = _whole_number(text, "a port number")
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port from 0 to 65535, got {value}")
    return value


def output_file(text: str) -> Path:
    """A file to write (--out, --plot): checked before any work, so that hours of solving
    are not lost to a directory or an unwritable folder at the end."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a directory: give a file name in it")
    if path.exists() and not path.is_file():  # writing to a pipe waits for a reader
        raise argparse.ArgumentTypeError(f"{text} is a pipe or a device, not a file to write")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"the folder of {text} does not exist")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise argparse.ArgumentTypeError(f"{text} cannot be written (permissions)")
    return path


def output_dir(text: str) -> Path:
    """A folder to write files in (made if missing): not an existing file."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a file, not a folder")
    return path


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def non_negative(text: str) -> float:
    """A number >= 0 (rates, weights, tolerances)."""
    value = _number(text)
    if not value >= 0:  # NaN too
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {value}")
    return value


def positive_float(text: str) -> float:
    """A number > 0 (a scale)."""
    value = _number(text)
    if not value > 0:  # NaN too
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {value}")
    return value


def fraction(text: str) -> float:
    """A number in (0, 1] (a discount)."""
    value = _number(text)
    if not 0.0 < value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1], got {value}")
    return value


def chance(text: str) -> float:
    """A probability in [0, 1)."""
    value = _number(text)
    if not 0.0 <= value < 1.0:  # NaN too
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1), got {value}")
    return value


def share(text: str) -> float:
    """A share in [0, 1] (of games)."""
    value = _number(text)
    if not 0.0 <= value <= 1.0:  # NaN too
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {value}")
    return value


def load_game_and_text(
    path: str, params: list[str] | None, engine: str | None, agents_inside: bool = True
) -> tuple[Any, str]:
    """A game file loaded with ``--param`` settings to play on ``engine`` (``engine_of``),
    and its text (records name a game by the hash of its text)."""
    from cardlang.compiler.load import load_game, read_source
    from cardlang.language.params import parse_param_args

    source = read_source(path)
    game = load_game(
        text=source.text,
        name=source.name,
        params=parse_param_args(params),
        engine=engine,
        agents_inside=agents_inside,
    )
    return game, source.text


def seed(text: str) -> int:
    """A seed: a whole number >= 0."""
    if _whole_number(text, "an integer seed", MAX_SEED) < 0:
        raise argparse.ArgumentTypeError("the seed must be >= 0")
    return int(text)


# ---------------------------------------------------------------- options


def param_option(p: argparse.ArgumentParser) -> None:
    """--param NAME=VALUE (repeatable): the constants a game declares."""
    p.add_argument(
        "--param",
        action="append",
        metavar="NAME=VALUE",
        help="override a constant the game declares, e.g. --param nump=3 (repeatable)",
    )


#: The environment's default for ``--engine``: read here, at the command line, and passed
#: down from it as the limits are (nothing below the CLI reads the environment for it).
ENGINE_VARIABLE = "CARDLANG_ENGINE"
#: ``CARDLANG_NATIVE_AGENTS=0``: every agent plays in Python, even one with a twin inside
#: the native engine, choosing the same moves (what the speed benchmarks compare against).
#: Read here too, and passed down with the engine (``Game.agents_inside``).
NATIVE_AGENTS_VARIABLE = "CARDLANG_NATIVE_AGENTS"


def engine_option(p: argparse.ArgumentParser) -> None:
    """--engine native|python: which engine plays the games (the same results either way)."""
    from cardlang.engine.engines import ENGINE_NAMES

    p.add_argument(
        "--engine",
        choices=ENGINE_NAMES,
        default=None,
        help="python: the reference engine; native: the C++ engine, built by pip install "
        f"(same event logs, faster). Default: ${ENGINE_VARIABLE}, else native where built",
    )


def use_engine(args: argparse.Namespace) -> None:
    """Settle the engine of everything this command plays: ``--engine``, else
    ``$CARDLANG_ENGINE``, else the native engine where it is built, and whether agents
    may play inside it (``$CARDLANG_NATIVE_AGENTS``).  It is chosen here,
    once, and ``args.engine`` carries it down (games load with it; worker processes get
    it from their master).  A usage error if it names no engine or one not built."""
    from cardlang.engine.engines import check_engine, default_engine, engine_named

    engine = getattr(args, "engine", None)
    if engine is None:
        named = os.environ.get(ENGINE_VARIABLE, "").strip().lower()
        if named:
            engine_named(named, named_by=ENGINE_VARIABLE)  # the registry says what is wrong
        engine = named or default_engine()
    args.engine = check_engine(engine)
    args.agents_inside = os.environ.get(NATIVE_AGENTS_VARIABLE, "").strip() != "0"


def engine_of(args: argparse.Namespace) -> dict[str, Any]:
    """What ``load_game`` takes of the engine this command settled (``use_engine``)."""
    return {"engine": args.engine, "agents_inside": args.agents_inside}


def seed_option(
    p: argparse.ArgumentParser, *, default: int | None = 0, text: str = "root seed (0)"
) -> None:
    """--seed N: a batch's root seed (default 0), or one game's seed."""
    p.add_argument("--seed", type=seed, default=default, help=text)


def fresh_seed(given: int | None) -> int:
    """``given``, or a new seed for a game a person plays: a fresh deal each time (it is
    printed, so that the game can be played again).  Short, to be typed back."""
    import secrets

    return secrets.randbelow(10**9) if given is None else given


def limit_options(p: argparse.ArgumentParser) -> None:
    """--max-decisions, --max-steps, --max-work and --max-game-work: when a game is cut
    off or fails for its work (the engine's Limits; ``limits_of`` makes them)."""
    from cardlang.engine.gamemaster import Limits

    p.add_argument(
        "--max-decisions",
        type=positive,
        default=Limits.max_decisions,
        help=f"cut a game off after this many decisions ({Limits.max_decisions})",
    )
    p.add_argument(
        "--max-steps",
        type=positive,
        default=Limits.max_steps,
        help=f"cut a game off after this many steps without a decision ({Limits.max_steps})",
    )
    p.add_argument(
        "--max-work",
        type=positive,
        default=Limits.max_work,
        help="fail a game that does more than this much work from one decision to the next: "
        "elements looped over or read, loop passes, groups built, routes searched "
        f"({Limits.max_work:,})",
    )
    p.add_argument(
        "--max-game-work",
        type=positive,
        default=Limits.max_game_work,
        help="fail a game whose work in all, its steps included, passes this "
        f"({Limits.max_game_work:,})",
    )


def limits_of(args: argparse.Namespace) -> Any:
    """The engine's Limits that ``limit_options`` read (--max-decisions, --max-steps,
    --max-work, --max-game-work)."""
    from cardlang.engine.gamemaster import Limits

    return Limits(
        args.max_decisions,
        args.max_steps,
        args.max_work,
        getattr(args, "max_game_work", Limits.max_game_work),
    )


def backend_options(p: argparse.ArgumentParser) -> None:
    """--backend and --workers: what plays the games (results are the same whatever)."""
    from cardlang.runs.backends import BACKENDS, RAY_INSTALL

    p.add_argument(
        "--backend",
        choices=BACKENDS,
        default=None,
        help="serial: in this process (the default); process: in local worker processes; "
        f"ray: as Ray tasks on a cluster or a local Ray ({RAY_INSTALL}). The results are "
        "the same whatever plays the games",
    )
    p.add_argument(
        "--workers",
        type=workers_count,
        default=None,
        metavar="K",
        help="worker processes (process: every core; ray: every CPU of the cluster); "
        "--workers K > 1 alone means --backend process",
    )


def backend_choice(args: argparse.Namespace) -> tuple[str, int | None]:
    """The backend and worker count that --backend and --workers ask for (None: every
    core), checked: a usage error before any game is played, Ray missing included."""
    from cardlang.runs.backends import check_backend

    backend, workers = args.backend, args.workers
    if backend is None:
        backend = "process" if workers is not None and workers > 1 else "serial"
    check_backend(backend, workers)
    return backend, workers


def state_keys_options(p: argparse.ArgumentParser, *, default: str, help: str) -> None:
    """--keys KIND and --ignore NAME[,NAME...]: how positions become states
    (information.observation.StateKeys)."""
    from cardlang.information.observation import KEY_KINDS

    p.add_argument("--keys", choices=KEY_KINDS, default=default, help=help)
    p.add_argument(
        "--ignore",
        action="append",
        default=[],
        metavar="NAME[,NAME...]",
        help="with view or counts keys: storages and locations left out of the states "
        "(bookkeeping the seat need not tell apart; repeatable)",
    )


def state_keys_of(args: argparse.Namespace, game: Any) -> Any:
    """The StateKeys that --keys and --ignore name, each ignored name checked against the
    game's storages and locations."""
    from cardlang.errors import UsageError, did_you_mean
    from cardlang.information.observation import StateKeys
    from cardlang.language.statics import state_names

    ignore = [n.strip() for text in args.ignore for n in text.split(",") if n.strip()]
    known = state_names(game.checked)
    for name in ignore:
        if name not in known:
            hint = did_you_mean(name, known)
            raise UsageError(
                f"--ignore {name}: the game has no storage or location of that name"
                + (f"; {hint}" if hint else "")
            )
    try:
        return StateKeys.make(args.keys, ignore)
    except ValueError as e:
        raise UsageError(f"--keys {args.keys} --ignore: {e}") from None


def record_given(p: argparse.ArgumentParser) -> None:
    """After parsing, ``args.given`` is the set of the destinations of the options the
    command line named (abbreviated, ``--x=v`` or not), whatever their values: a value
    equal to its default was still asked for.  Each option's action is made a subclass
    that notes its destination when argparse calls it (defaults are set without a call)."""
    p.set_defaults(given=None)
    for action in p._actions:
        if action.option_strings and not isinstance(action, argparse._HelpAction):
            action.__class__ = _noting(type(action))


def _noting(kind: type) -> type:
    def __call__(self, parser, namespace, values, option_string=None):  # type: ignore[no-untyped-def]
        given = getattr(namespace, "given", None) or set()
        given.add(self.dest)
        namespace.given = given
        return kind.__call__(self, parser, namespace, values, option_string)

    return type(f"Noting{kind.__name__}", (kind,), {"__call__": __call__})
