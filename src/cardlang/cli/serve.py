"""``cardlang serve FILE [--people 0,2 | --seats N] [--agents ...] [--port P]``: play in a browser.

Pipeline position: the command line (cli/), the web face of cardlang.interactive
(interactive/web.py, which needs the ``web`` extra: Starlette and uvicorn).  It serves
one game on localhost and prints one link per person's seat; each link carries that
seat's secret token, and its page shows only that seat's view.  The other seats are
played by ``--agents``.  The finished game goes into the records like ``cardlang play``'s.
The seed is printed here, to the operator, and never sent to a page: every hand follows
from it.

May import: anything in cardlang (the command line sits above everything).
"""

from __future__ import annotations

import argparse
import re
import secrets
import sys
from pathlib import Path

from cardlang.cli.options import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    MAX_SEED,
    SubParsers,
    engine_of,
    limits_of,
    load_game_and_text,
    port,
    positive,
)
from cardlang.cli.play import other_specs, person_game_options, records_ready
from cardlang.errors import UsageError

__all__ = ["add_parser", "cmd_serve"]


def add_parser(sub: SubParsers) -> None:
    p = sub.add_parser(
        "serve",
        help="play in a browser: serve a game on localhost, one link per person's seat",
        description="Serve one game on localhost: each person's seat gets a link with a "
        "secret token, and its page shows only that seat's view, its options as buttons, "
        "the story so far and the result; the other seats are agents. The game is recorded "
        "like any batch. Needs the web extra (pip install 'cardlang[web]').",
    )
    p.add_argument("file", metavar="FILE")
    who = p.add_mutually_exclusive_group()
    who.add_argument(
        "--people",
        type=seat_list,
        metavar="SEATS",
        help="the seats people play, comma-separated, each once (0)",
    )
    who.add_argument("--seats", type=positive, metavar="N", help="people play seats 0 to N-1")
    p.add_argument(
        "--agents",
        default="random",
        help="the other seats' agents: one for all, or one per agent seat in seat order (random)",
    )
    p.add_argument("--host", default="127.0.0.1", help="the address to serve on (127.0.0.1)")
    p.add_argument("--port", type=port, default=8000, help="the port (8000; 0: any free one)")
    person_game_options(p, advice="the agent whose estimates the page's advice button shows")


#: One seat number in ``--people``: ASCII digits only (``int`` would also take "1_0",
#: "+1", " 1" and other scripts' digits), and few enough that no number is huge.
SEAT = re.compile(r"[0-9]{1,9}")


def seat_list(text: str) -> list[int]:
    """``--people``: seat numbers separated by commas, each named once ("0,2"), sorted.
    Anything else is a usage error with the command's usage (argparse)."""
    shown = repr(text if len(text) <= 40 else text[:40] + "...")  # a long value, cut
    parts = [part.strip() for part in text.split(",")]
    if not all(SEAT.fullmatch(part) for part in parts):
        raise argparse.ArgumentTypeError(
            f"expected seat numbers separated by commas, such as 0,2; got {shown}"
        )
    seats = [int(part) for part in parts]
    twice = sorted({seat for seat in seats if seats.count(seat) > 1})
    if twice:
        raise argparse.ArgumentTypeError(
            f"seat {twice[0]} is named twice in {shown}: name each person's seat once"
        )
    return sorted(seats)


def people_seats(args: argparse.Namespace, nplayers: int) -> list[int]:
    """The seats people play, from ``--people`` or ``--seats`` (their form is checked
    by argparse; here, against the game's seats)."""
    if args.seats is not None:
        if args.seats > nplayers:
            raise UsageError(f"--seats {args.seats}: the game has {nplayers} seats")
        return list(range(args.seats))
    seats = args.people if args.people is not None else [0]
    if not all(s < nplayers for s in seats):
        named = ",".join(map(str, seats))
        raise UsageError(f"--people {named}: the game has seats 0 to {nplayers - 1}")
    return seats


def unguessable_seed(given: int | None) -> int:
    """``given``, or a fresh seed drawn from the engines' whole range (63 bits).

    Not ``fresh_seed``'s short one (below 10**9), which a player could find by dealing
    every seed until one gives the hand in front of them, and with it every hand."""
    return secrets.randbelow(MAX_SEED + 1) if given is None else given


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as err:
        raise UsageError(
            f"cardlang serve needs the web extra ({err.name} is missing): "
            "pip install 'cardlang[web]'"
        ) from None
    from cardlang.agents import make_agent
    from cardlang.agents.registry import agent_warnings
    from cardlang.interactive.session import PERSON, default_advisor
    from cardlang.interactive.web import WebGame, bind, create_app, server_for
    from cardlang.language.params import parse_param_args
    from cardlang.runs.planned import agent_seeds

    game, text = load_game_and_text(args.file, args.param, **engine_of(args))
    args.db = records_ready(args)
    args.seed = unguessable_seed(args.seed)
    people = people_seats(args, game.nplayers)
    agent_seats = [p for p in range(game.nplayers) if p not in people]
    others = other_specs(args.agents, len(agent_seats)) if agent_seats else []
    args.advisor = args.advisor or default_advisor(game)
    make_agent(args.advisor, seed=0)  # a bad advisor spec is a usage error now
    for line in agent_warnings(others, game):
        print(f"warning: {line}", file=sys.stderr)
    specs = [PERSON] * game.nplayers
    for p, spec in zip(agent_seats, others, strict=True):
        specs[p] = spec

    def seated(seed: int) -> list[object | None]:
        """The agents of a game of ``seed`` (people's seats None)."""
        seeds = agent_seeds(seed, game.nplayers)
        return [None if s == PERSON else make_agent(s, seeds[p]) for p, s in enumerate(specs)]

    def deal_again() -> tuple[int, list[object | None]]:
        seed = unguessable_seed(None)
        print(f"a new game at the same table, seed {seed} (told to no page)", flush=True)
        return seed, seated(seed)

    def tell_the_end(web: WebGame) -> None:
        where = "" if web.game_id is None else f"; recorded as game {web.game_id} in {args.db}"
        print(f"the game is over{where} (Ctrl-C to stop serving)", flush=True)

    agents = seated(args.seed)
    web = WebGame(
        game.master(limits_of(args)),
        args.seed,
        agents,
        specs,
        advisor=args.advisor,
        db=args.db,
        game_path=Path(args.file),
        game_text=text,
        params=parse_param_args(args.param),
        deal_again=deal_again,
        on_end=tell_the_end,
    )
    try:
        sock = bind(args.host, args.port)
    except OSError as err:
        raise UsageError(f"cannot serve on {args.host}:{args.port}: {err.strerror}") from None
    host = f"[{args.host}]" if ":" in args.host else args.host
    base = f"http://{host}:{sock.getsockname()[1]}"
    print(f"{Path(args.file).name}, seed {args.seed}: serving on {base} (Ctrl-C to stop)")
    for p, link in web.links(base).items():
        print(f"  P{p}: {link}")
    for p, spec in zip(agent_seats, others, strict=True):
        print(f"  P{p}: {spec}")
    sys.stdout.flush()
    server = server_for(create_app(web), sock)
    web.start()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn raises the Ctrl-C again once it has shut down
        pass
    finally:
        web.stop()
        sock.close()
    if web.status != "over":
        print("the game was left unfinished; nothing was recorded", flush=True)
        return EXIT_INTERRUPTED
    return EXIT_OK
