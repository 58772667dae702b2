"""Bot against bot on one kingdom, seats rotated, inside the native engine.

A ``Table`` is a Dominion file compiled with one kingdom (``--param kingdom=...``) and
its native master.  ``play_match`` plays a bot against another on it: each seed twice,
the seats swapped, so that neither bot profits from sitting first and the two games of a
seed share their shuffles (a paired comparison: candidates of the tuning search meet the
same deals).  The games run whole inside the engine (``BatchEngine.play_batch``: the
fastest way this project plays bot games, about 9,000 two-player games per CPU-second;
no Python between moves or games), in chunks, so that a progress bar moves.
``count_copies`` plays them one by one instead (``play_native``, as fast), reading after
each game how many copies of the card the bot owns: what the final figures need.

A ``Tally`` adds up the bot's credits (a shared win counts its share) and, when counted,
its copies; games cut off or failed have no result and count in neither.

May import: cardlang.learning and everything below it (the report's layer).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from cardlang.agents.scripted.dominion import DominionBot
from cardlang.compiler.load import load_game
from cardlang.engine.gamemaster import GameResult
from cardlang.engine.protocol import BatchEngine, batch_engine
from cardlang.errors import CardlangError

__all__ = ["Table", "Tally", "play_match", "seeds_for"]

#: Games per call into the engine: a progress bar moves every few hundredths of a second.
CHUNK = 512


@dataclass
class Table:
    """A game file with one kingdom, ready to play bots inside the native engine."""

    kingdom: tuple[str, ...]
    master: BatchEngine

    @classmethod
    def load(cls, text: str, name: str, kingdom: Sequence[str], engine: str | None) -> Table:
        game = load_game(text=text, name=name, params={"KINGDOM": ",".join(kingdom)}, engine=engine)
        master = batch_engine(
            game.master(),
            "card-report plays its games inside the native engine, with the bots "
            "inside it: run it with --engine native and without CARDLANG_NATIVE_AGENTS=0",
        )
        return cls(tuple(kingdom), master)

    def twin(self, bot: DominionBot) -> Any:
        """The bot as the engine runs it."""
        return bot.native_agent(self.master)


@dataclass
class Tally:
    """What the bot got out of a match (see the module docstring)."""

    games: int = 0  # with a result
    credits: float = 0.0
    cut_off: int = 0
    work: int = 0  # the engine's work units, when played one by one (the cost model)
    copies: list[int] = field(default_factory=list)  # per game, when counted
    credits_by_copies: dict[int, list[float]] = field(default_factory=dict)

    @property
    def share(self) -> float:
        return self.credits / self.games if self.games else 0.0

    def add(self, result: GameResult, seat: int, copies: int | None = None) -> None:
        if not result.completed:
            self.cut_off += 1
            return
        self.games += 1
        credit = result.credits[seat]
        self.credits += credit
        if copies is not None:
            self.copies.append(copies)
            self.credits_by_copies.setdefault(copies, [0.0, 0.0])
            self.credits_by_copies[copies][0] += credit
            self.credits_by_copies[copies][1] += 1

    def merge(self, other: Tally) -> Tally:
        merged = Tally(
            self.games + other.games,
            self.credits + other.credits,
            self.cut_off + other.cut_off,
            self.work + other.work,
            self.copies + other.copies,
        )
        for tally in (self, other):
            for n, (credit, games) in tally.credits_by_copies.items():
                both = merged.credits_by_copies.setdefault(n, [0.0, 0.0])
                both[0] += credit
                both[1] += games
        return merged


def seeds_for(root: int, card: str, stage: str, pairs: int) -> list[int]:
    """``pairs`` game seeds for one stage of one card's report, drawn from the root seed:
    the same root gives the same report; stages and cards never share deals by chance."""
    key = [root, zlib.crc32(card.encode()), zlib.crc32(stage.encode())]
    seeds = np.random.SeedSequence(key).generate_state(pairs, dtype=np.uint64)
    return [int(s) for s in seeds]


def play_match(
    table: Table,
    bot: DominionBot,
    opponent: DominionBot,
    seeds: Sequence[int],
    *,
    count_copies: str | None = None,
    advance: Callable[[int], None] | None = None,
) -> Tally:
    """``bot`` against ``opponent``, each seed twice with the seats swapped (see the
    module docstring); ``count_copies``: the card whose copies the bot owns at the end of
    each game are counted.  A game the rules fail stops the report with its error."""
    twins = [table.twin(bot), table.twin(opponent)]
    if count_copies is None:
        return _in_batches(table, twins, seeds, advance)
    return _one_by_one(table, twins, seeds, count_copies, advance)


def _in_batches(
    table: Table, twins: list[Any], seeds: Sequence[int], advance: Callable[[int], None] | None
) -> Tally:
    seatings = [twins, twins[::-1]]  # the bot in seat 0, then in seat 1
    tally = Tally()
    games = [(seed, which) for seed in seeds for which in (0, 1)]
    for start in range(0, len(games), CHUNK):
        chunk = games[start : start + CHUNK]
        results = table.master.play_batch([s for s, _ in chunk], seatings, [w for _, w in chunk])
        for (seed, which), result in zip(chunk, results, strict=True):
            if result is None:
                _fail(table, seatings[which], seed)
            tally.add(cast(GameResult, result), seat=which)
        if advance:
            advance(len(chunk))
    return tally


def _one_by_one(
    table: Table,
    twins: list[Any],
    seeds: Sequence[int],
    card: str,
    advance: Callable[[int], None] | None,
) -> Tally:
    master = table.master
    tally = Tally()
    told = 0  # games the progress bar was told of
    for n, seed in enumerate(seeds, 1):
        for seat in (0, 1):
            seating = twins if seat == 0 else twins[::-1]
            st = master.new_game(seed)
            master.play_native(st, seating, 1 << 62)
            if st.error is not None:
                _fail(table, seating, seed)
            tally.work += st.work
            tally.add(master.result(st), seat, st.ints.get((seat, card), 0))
        if advance and (2 * n - told >= CHUNK or n == len(seeds)):
            advance(2 * n - told)
            told = 2 * n
    return tally


def _fail(table: Table, seating: list[Any], seed: int) -> None:
    """Stop the report with the rule error of the game that failed (played again)."""
    st = table.master.new_game(seed)
    table.master.play_native(st, seating, 1 << 62)
    error = st.error
    said = error.render() if error is not None else "a game failed"
    raise CardlangError(f"a game of the report failed, so the card cannot be judged: {said}")
