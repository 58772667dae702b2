"""One game with people at the table: the play loop, a narrator, advice, the records.

A person's seat is an agent (``PersonSeat``) like any other: the one play loop
(``agents.loop.play_out``) asks it at its decisions, and it asks its *front end* (a
terminal, a web page) with the seat's table (table.py) and a way to ask an agent for
advice.  The others' moves are told to a narrator as they are made.  The finished game
is written into the records (SQLite, runs/store.py) as a batch of one, so it replays
(``transcript --db``) and feeds opponent models (``fit-opponent``) like any other.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from cardlang.agents.base import Capabilities
from cardlang.agents.loop import play_out
from cardlang.agents.registry import make_agent
from cardlang.engine.gamemaster import GameResult
from cardlang.engine.protocol import Engine
from cardlang.information.views import PlayerView
from cardlang.interactive.table import Table, table_of
from cardlang.runs.runner import Decision, recorder
from cardlang.runs.store import BatchSpec, RunStore, file_sha256, now

#: The agent spec a person's seat is recorded under (a batch names each seat's agent).
PERSON = "person"
#: The advisor of a game with no better one: ISMCTS with random rollouts.
ADVISOR = "ismcts:iterations=1000"
#: The advisor of a game the scripted Dominion bots play: ISMCTS whose rollouts are
#: played by Big Money Ultimate (random rollouts rate a Curse above a Silver and Duchy
#: on turn 3; 3,000 iterations, about two seconds on the native engine, tell Silver
#: from Moat by more than the noise).
DOMINION_ADVISOR = "ismcts:iterations=3000:rollout=bmu"
#: Fewer search iterations through an option than this, and its estimate is called
#: uncertain (a 95% interval of a win chance near one half over 30 is +-0.18).
UNSURE_VISITS = 30


def default_advisor(game: Any) -> str:
    """The strongest advisor cardlang has for ``game``: ISMCTS with the game's bot
    rollouts where a scripted bot plays it (the Dominion bots: a game with their
    decisions), else ISMCTS with random rollouts."""
    from cardlang.agents.scripted.dominion import plays_dominion

    return DOMINION_ADVISOR if plays_dominion(game) else ADVISOR


@dataclass(frozen=True)
class Advice:
    """An advisor's estimates for one decision: per option its value for the seat (its
    expected standing, 0 a sure loss, 1 a sure win; None where it formed none) and how
    many search iterations went through it (None: the advisor does not say)."""

    advisor: str
    values: list[float | None]
    visits: list[int] | None = None

    def margin(self, i: int) -> float | None:
        """Half the width of an approximate 95% interval around option ``i``'s value
        (a value in [0, 1] over n iterations varies by at most sqrt(v(1-v)/n))."""
        value = self.values[i]
        if value is None or not self.visits or not self.visits[i]:
            return None
        return 1.96 * math.sqrt(max(value * (1 - value), 0.0) / self.visits[i])

    def reordered(self, order: Sequence[int]) -> Advice:
        """The same estimates with the options in ``order`` (indices of this one's)."""
        visits = None if self.visits is None else [self.visits[i] for i in order]
        return Advice(self.advisor, [self.values[i] for i in order], visits)

    def verdicts(self) -> list[str]:
        """Per option how it stands, in words a front end shows: "best" (one option, its
        interval clear of every other's), "about as good" (its interval overlaps the
        best's: a close call, and then no option is "best"), "worse", "uncertain" (seen
        in fewer than ``UNSURE_VISITS`` iterations: its estimate is mostly noise), or
        "" (no estimate)."""
        n = len(self.values)
        scored = [i for i in range(n) if self.values[i] is not None]
        if not scored:
            return [""] * n
        sure = [i for i in scored if self.visits is None or self.visits[i] >= UNSURE_VISITS]
        best = max(sure or scored, key=lambda i: self._value(i))
        low = self._value(best) - (self.margin(best) or 0.0)
        out = []
        for i in range(n):
            if self.values[i] is None:
                out.append("")
            elif i not in sure:
                out.append("uncertain")
            elif i == best:
                out.append("best")
            elif self._value(i) + (self.margin(i) or 0.0) >= low:
                out.append("about as good")
            else:
                out.append("worse")
        if "about as good" in out and out[best] == "best":
            out[best] = "about as good"  # within the noise of another: no single best
        return out

    def _value(self, i: int) -> float:
        value = self.values[i]
        return -1.0 if value is None else value

    def words(self, i: int) -> str:
        """Option ``i``'s estimate as a person reads it: "wins about 74% (70-78%)"."""
        value = self.values[i]
        if value is None:
            return "no estimate"
        margin = self.margin(i)
        text = f"wins about {100 * value:.0f}%"
        if margin is not None:
            low, high = max(0.0, value - margin), min(1.0, value + margin)
            text += f" ({100 * low:.0f}-{100 * high:.0f}%)"
        return text

    def to_json(self) -> dict[str, Any]:
        n = len(self.values)
        return {
            "advisor": self.advisor,
            "values": self.values,
            "visits": self.visits,
            "margins": [self.margin(i) for i in range(n)],
            "verdicts": self.verdicts(),
            "words": [self.words(i) for i in range(n)],
        }


class Abandoned(KeyboardInterrupt):
    """A person left the game before its end: nothing is recorded.  A KeyboardInterrupt
    (not an Exception) so that no agent-error handling mistakes it for a failure."""


class FrontEnd(Protocol):
    """Where a person plays: shown the seat's table, answers with an option's index."""

    def decide(self, table: Table, advise: Callable[[], Advice]) -> int: ...


class PersonSeat:
    """The agent of a person's seat: asks its front end, with the options' labels."""

    name = PERSON
    capabilities = Capabilities(view=True, knowledge=False)

    def __init__(self, front: FrontEnd, session: Session) -> None:
        self.front = front
        self.session = session

    def choose(self, view: Any, options: list[Any]) -> int:
        table = table_of(view, view.option_labels)
        return self.front.decide(table, lambda: self.session.advise(view, options))


def advice(spec: str, view: Any, options: Sequence[Any], seed: int) -> Advice:
    """Each option's value as the agent ``spec`` estimates it for the seat (a search
    agent's ``last_trace``; None where it has no estimate), with its iterations."""
    agent = make_agent(spec, seed=seed)
    agent.choose(view, list(options))
    trace = getattr(agent, "last_trace", None)
    if trace is None or len(trace.option_values) != len(options):
        return Advice(spec, [None] * len(options))
    values = [None if v is None else float(v) for v in trace.option_values]
    visits = trace.visits
    return Advice(spec, values, list(visits) if visits and len(visits) == len(options) else None)


@dataclass
class Seating:
    """Who sits where: per seat the agent and the spec it is recorded under."""

    agents: list[Any]
    specs: list[str]


class Session:
    """One game from ``seed``: people's seats and agents, each move told to
    ``narrate(seat, who, option, label)`` before it is applied, recorded into ``db``
    when it ends."""

    def __init__(
        self,
        master: Engine,
        seed: int,
        *,
        advisor: str | None = None,
        narrate: Callable[[int, str, Any, str], None] | None = None,
    ) -> None:
        self.master = master
        self.game = master.game
        self.seed = seed
        self.advisor = advisor or default_advisor(self.game)
        self.narrate = narrate
        self.st = master.new_game(seed, record=True)  # advice determinizes: keep the log
        self.trace: list[Decision] = []
        self._advice_asked = 0

    def labels(self, options: Sequence[Any]) -> list[str]:
        """The options' readable labels as the mover reads them (``option_labels`` of its
        view: a card it cannot see is "a card")."""
        view = PlayerView.live(self.st, self.st.mover, self.game, tuple(options))
        return list(view.option_labels)

    def advise(self, view: Any, options: Sequence[Any]) -> Advice:
        self._advice_asked += 1
        seed = (self.seed * 1_000_003 + self._advice_asked) & 0x7FFF_FFFF_FFFF_FFFF
        return advice(self.advisor, view, options, seed)

    def play(self, seating: Seating) -> GameResult:
        """Play to the end (Abandoned propagates: a person left)."""
        names = [
            s if not isinstance(a, PersonSeat) else PERSON
            for a, s in zip(seating.agents, seating.specs, strict=True)
        ]
        record = recorder(self.master, self.trace)

        def observe(st: Any, options: Any, index: int, *rest: Any) -> None:
            label = self.labels([options[index]])[0]
            record(st, options, index, *rest)
            if self.narrate is not None:
                self.narrate(st.mover, names[st.mover], options[index], label)

        play_out(self.master, self.st, seating.agents, names, observer=observe)
        return self.master.result(self.st)

    def save(
        self, db: Path, seating: Seating, *, game_path: Path, game_text: str, params: dict[str, str]
    ) -> int:
        """Write the finished game into the records as a batch of one; its game id.  Each
        session is its own batch (a person's seat is recorded as ``person@`` the time it
        started), so two games from one seed are both kept."""
        stamp = now()
        token = hashlib.sha256(f"{stamp}{id(self)}".encode()).hexdigest()[:8]
        specs = tuple(f"{s}@{stamp}.{token}" if s == PERSON else s for s in seating.specs)
        spec = BatchSpec(
            game_path=str(game_path),
            game_file=str(game_path.resolve()),
            game_sha256=file_sha256(game_text),
            params=dict(params),
            root_seed=self.seed,
            games=1,
            agents=specs,
            rotate_seats=False,
            max_decisions=self.master.limits.max_decisions,
            max_steps=self.master.limits.max_steps,
            max_work=self.master.limits.max_work,
            max_game_work=self.master.limits.max_game_work,
        )
        result = self.master.result(self.st)
        with RunStore.open(db) as store:
            batch_id, _ = store.plan(spec, lambda: [(self.seed, specs)])
            for planned in store.pending(batch_id):
                store.save(planned, result, self.trace, stamp, now())
                return int(planned.id)
        raise RuntimeError("the game's batch was planned without its game")
