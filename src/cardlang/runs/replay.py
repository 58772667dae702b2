"""A recorded game played again: from its seed, with its recorded option indices.

Pipeline position: runs, above the records (store.py) and the compiler.  ``cardlang
transcript --db FILE --game ID`` finds the game's row (``RunStore.game``) and its moves
(``RunStore.choices``), loads the game it was played with (``load_recorded_game``: the
recorded file, or the one the user names, with the recorded parameters) and replays it
(``replay_game``): no agent is asked, since the same seed and the same choices give the
same game, and records that no longer fit the game stop with a ``ReplayError``.

Like all of runs/, it may import agents, information, compiler, engine, language and
errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from cardlang.errors import AgentError, CardlangError, UsageError
from cardlang.runs.store import StoredGame, file_sha256

if TYPE_CHECKING:
    from cardlang.engine.game import Game
    from cardlang.engine.gamemaster import GameResult
    from cardlang.engine.protocol import EngineState

__all__ = ["ReplayError", "load_recorded_game", "replay_game"]


class ReplayError(CardlangError):
    """A recorded game does not replay: the records and the game no longer agree."""


def replay_game(
    game: Game, stored: StoredGame, choices: Sequence[tuple[int, int, int]]
) -> tuple[GameResult, EngineState]:
    """Play a recorded game again from its seed with its recorded option indices.

    No agent is asked: the same seed and the same choices give the same game.  Each
    step checks that the recorded seat moves among as many options as were recorded, so
    records that no longer fit the game (a changed file replayed with --force) stop with
    a clear error instead of a different game.
    """

    master = game.master(stored.limits)
    st = master.new_game(stored.seed, record=True)
    for n, (seat, index, count) in enumerate(choices, 1):
        options = master.legal_options(st)
        if st.is_over or st.mover != seat or len(options) != count:
            now_text = "the game is over" if st.is_over else f"P{st.mover} has {len(options)}"
            raise ReplayError(
                f"game {stored.id} does not replay: at decision {n} the records say P{seat} "
                f"chose among {count} options, but {now_text}"
            )
        master.apply(st, index)
    if not st.is_over:
        if stored.end_reason == "forfeit":  # a tournament's agent forfeited here
            from cardlang.runs.tournament import recorded_forfeit

            return recorded_forfeit(stored, st.nplayers, st.decisions, st.turns), st
        if stored.end_reason == "failed" and (stored.error_kind or "").startswith("agent"):
            # its agent failed at the next decision: the game ends there, as it did
            from cardlang.runs.runner import failed_by_agent

            reason = f"{stored.error or 'an agent failed'} [recorded: the game ended here]"
            return failed_by_agent(master, st, AgentError(reason)), st
        raise ReplayError(f"game {stored.id} does not replay: it goes on after its records end")
    return master.result(st), st


def load_recorded_game(
    stored: StoredGame, path: str | None = None, engine: str | None = None
) -> tuple[Game, bool]:
    """The game a recorded game was played with, and whether its text is the recorded one.

    ``path`` (a user's FILE) wins; otherwise the recorded absolute path, then the path as
    the simulate command gave it.  The game keeps the recorded name, so its transcript
    reads as ``cardlang transcript`` printed it then; it plays on ``engine``.
    """
    from cardlang.compiler.load import load_game, read_source

    if path is not None:
        source = read_source(path)
    else:
        found = [p for p in (stored.game_file, stored.game_path) if Path(p).is_file()]
        if not found:
            raise UsageError(
                f"the game file of game {stored.id} ({stored.game_file}) is gone; give its "
                "path: cardlang transcript FILE --db DB --game ID"
            )
        source = read_source(found[0])
    name = source.name if path is not None else stored.game_path
    game = load_game(text=source.text, name=name, params=stored.params, engine=engine)
    return game, file_sha256(source.text) == stored.game_sha256
