"""The Gamemaster: the one place that enforces a game's rules while it is played.

Pipeline position: engine, the top of it (with game.py, which makes Gamemasters).  It
owns a compiled game and drives ``Gamestate`` values: ``new_game`` runs the setup and
advances to the first decision, ``legal_options`` lists the options of the pending
decision without changing the state, ``apply`` plays one of them (and refuses anything
else) and advances to the next decision or the end.

The flow is kept as an explicit stack of frames in the state, so a game can stop at any
decision, however deep in stages, loops and calls, be cloned and go on.  frames.py gives
the layout of every kind of frame: SEQ (a block), STAGE, LOOP, REPEAT, WHILE, CALL (the
registers a recursive procedure's call restores when its body is done) and, at the
bottom, ROOT (the game-level player cycle).

It reads the game through the ``Rules`` protocol (``engine.game.Game`` implements it), so
that this module does not import game.py, which imports it for ``Game.master()``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar, cast

from cardlang.engine.control import Action, Option, Seq, list_options, run_option
from cardlang.engine.frames import (
    CALL,
    F_CALL_HIGH,
    F_CALL_LOW,
    F_CALL_SAVED,
    F_COUNTED,
    F_CUR,
    F_KIND,
    F_LOOP_ITEMS,
    F_LOOP_NEXT,
    F_NODE,
    F_OUTER,
    F_PICKS,
    F_QUEUED,
    F_REPEAT_LEFT,
    F_SEQ_NEXT,
    F_STARTED,
    LOOP,
    P_CHOICE,
    P_MOVER,
    P_OPTION,
    P_REGS,
    REPEAT,
    ROOT,
    SECRET,
    SEQ,
    STAGE,
    WHILE,
)
from cardlang.engine.runtime import Fn
from cardlang.engine.state import (
    COMPLETED,
    CUTOFF,
    FAILED,
    RUNNING,
    Gamestate,
    cycle_size,
    secret_frame,
    set_current,
)
from cardlang.engine.tally import CardCounts, card_counts, count_pick
from cardlang.engine.traits import PYTHON
from cardlang.engine.work import (
    DEFAULT_MAX_GAME_WORK,
    DEFAULT_MAX_WORK,
    OUT_OF_MEMORY,
    WorkBudget,
    check_game_work,
)
from cardlang.errors import AgentError, RuleError, SourceFile, UsageError


class Rules(Protocol):
    """What the Gamemaster reads of a compiled game: ``engine.game.Game`` implements it."""

    @property
    def source(self) -> SourceFile: ...
    @property
    def nplayers(self) -> int: ...
    @property
    def n_registers(self) -> int: ...
    @property
    def setup_actions(self) -> list[Action]: ...
    @property
    def program(self) -> Seq: ...
    @property
    def scoring(self) -> Fn: ...
    @property
    def scoring_mode(self) -> str: ...  # "max" or "min"
    @property
    def tiebreaks(self) -> list[tuple[str, Fn]]: ...  # (mode, score) pairs, in order
    @property
    def table_score(self) -> Fn | None: ...  # (table-score ...), for people
    @property
    def ending(self) -> tuple[Fn, ...]: ...  # (end-reason ...), then (score-part ...)
    @property
    def card_slots(self) -> frozenset[int]: ...  # the registers that hold a card
    @property
    def location_slots(self) -> frozenset[int]: ...  # the registers that hold a location

    def describe_option(self, st: Gamestate, option: Option) -> str: ...


#: The game a Gamemaster plays: ``Game.master()`` gives a ``Gamemaster[Game]``.
G = TypeVar("G", bound=Rules)
T = TypeVar("T")


@dataclass(frozen=True)
class Limits:
    """Bounds that make every game end.  A game stopped by one is a *cutoff*, not a result.

    ``max_decisions``: decisions in one game.  ``max_steps``: steps (actions, stage passes)
    in a row without a decision, which catches flows that loop for ever.  ``max_work``:
    the work of expressions from one decision to the next (engine/work.py); unlike the
    others, going past it is a rule error, at the expression that did.  ``max_game_work``:
    the work of a whole game, its steps included (a rule error too, at the expression or
    the decision that passes it).
    """

    max_decisions: int = 5_000
    max_steps: int = 200_000
    max_work: int = DEFAULT_MAX_WORK
    max_game_work: int = DEFAULT_MAX_GAME_WORK


@dataclass(frozen=True)
class GameResult:
    seed: int
    end_reason: str  # "completed", "failed", "cutoff:decisions", "cutoff:steps"
    scores: tuple[int, ...]
    ranks: tuple[int, ...]  # 1 is first; equal scores (and tie-breaks) share a rank
    credits: tuple[float, ...]  # a win shared by k seats gives each 1/k; 0 unless completed
    winners: tuple[int, ...]
    decisions: int
    turns: int
    team_of: tuple[int, ...] = ()
    error: RuleError | AgentError | None = None  # why a failed game failed
    tiebreak_scores: tuple[tuple[int, ...], ...] = ()  # per seat, the tie-break values
    cards: CardCounts | None = None  # the seats' picks and cards (tally.py), when counted

    @property
    def completed(self) -> bool:
        return self.end_reason == COMPLETED

    @property
    def is_tie(self) -> bool:
        return self.completed and len(self.winners) > 1


#: The interpreter's recursion limit the Python engine plays under, at least.  Listing a
#: choice's options runs the rest of an option inside each of its loops' passes
#: (compiler/choices.py); at the most passes an option may run (runtime.py:
#: MAX_OPTION_PASSES) and the deepest forms a file may nest, that takes about 7,000
#: frames, where Python's default gives 1,000 and the native engine's stack holds it:
#: below this the engines would disagree.  Frames of Python functions do not use the C
#: stack (3.11); C code that recurses (json, pickle) is still stopped before 8 MB.
RECURSION_FLOOR = 10_000


def _deep_enough_stack() -> None:
    """Raise the recursion limit to RECURSION_FLOOR; never lower it (another part of
    the program may need more: solve/process.py)."""
    if sys.getrecursionlimit() < RECURSION_FLOOR:
        sys.setrecursionlimit(RECURSION_FLOOR)


class Gamemaster(Generic[G]):
    """Plays one compiled game under ``limits`` (see the module docstring)."""

    traits = PYTHON  # the reference engine, nothing beyond the protocol

    def __init__(self, game: G, limits: Limits | None = None) -> None:
        self.game = game
        self.limits = limits or Limits()
        _deep_enough_stack()

    # ------------------------------------------------------------ the public API
    def new_game(self, seed: int, *, record: bool = False, tally: bool = False) -> Gamestate:
        """A new game: setup done, advanced to the first decision (or to its end).
        ``record`` keeps the event log; ``tally`` counts the seats' picks per card type
        (tally.py), which ``result`` reports."""
        game = self.game
        st = Gamestate(game.nplayers, game.n_registers, seed)
        if record:
            st.log = []
        if tally:
            st.tally = {}
        # frames.py: [ROOT, None, current, queued, started, outer, is_team, player, counted]
        st.stack.append([ROOT, None, 0, None, True, -1, False, 0, False])
        st.stage_idx = 0
        st.budget = self._budget(st)
        try:
            for action in game.setup_actions:
                action(st)
            st.stack.append([SEQ, game.program, 0])  # [SEQ, seq, next]
            self.advance(st)
        except (RuleError, RecursionError, MemoryError) as err:
            self._fail(st, err)
        finally:
            st.budget = None
        return st

    def legal_options(self, st: Gamestate) -> list[Option]:
        """The options of the pending decision; the state is not changed."""
        if st.is_over:
            return []
        if st.options is None:
            st.options = list_options(st.pending, st)
        return st.options

    def apply(self, st: Gamestate, choice: Option | int) -> None:
        """Play one legal option (by index or object) and advance to the next decision."""
        if st.status != RUNNING:
            raise UsageError(f"the game is over ({st.end_reason}); no move can be applied")
        options = st.options if st.options is not None else self.legal_options(st)
        if type(choice) is int:
            if not 0 <= choice < len(options):
                raise UsageError(f"option {choice} is not legal: there are {len(options)} options")
            option = options[choice]
        else:
            if not any(choice is o for o in options):
                raise UsageError(f"{choice!r} is not a legal option of this decision")
            option = cast(Option, choice)  # one of the options: not an int
        choice_node = st.pending
        mover = st.mover
        if st.log is not None:
            label = self.game.describe_option(st, option)
            situation = choice_node.situation if choice_node is not None else "CHOICE"
            st.log.append(("decision", mover, label, st.turns, situation))
        if st.tally is not None and choice_node is not None:  # before the option runs
            game = self.game
            count_pick(
                st, choice_node.situation, mover, option, game.card_slots, game.location_slots
            )
        st.pending = None
        st.options = None
        st.mover = -1
        st.decisions += 1
        st.steps = 0
        st.budget = self._budget(st)
        try:
            self._play(st, choice_node, mover, option)
        finally:
            st.budget = None
        # A game that ends right after its last allowed decision is complete, not cut off.
        if st.status == RUNNING and st.decisions >= self.limits.max_decisions:
            self._cutoff(st, "decisions")

    def _budget(self, st: Gamestate) -> WorkBudget:
        return WorkBudget(self.limits.max_work, self.limits.max_game_work, st)

    def _play(self, st: Gamestate, choice_node: Any, mover: int, option: Option) -> None:
        """apply's option played (or kept, if secret), and the game advanced."""
        if choice_node is not None and choice_node.secret:
            # a secret pick: kept, unseen, until its (simultaneous ...) block is done
            frame = secret_frame(st)
            assert frame is not None, "a secret pick outside its (simultaneous ...) block"
            frame[F_PICKS] += ((mover, choice_node, option, tuple(st.regs)),)
        else:
            try:
                run_option(st, option)
            except (RuleError, RecursionError, MemoryError) as err:
                self._fail(st, err)
                return
        self.advance(st)

    def result(self, st: Gamestate) -> GameResult:
        return game_result(self.game, st, card_counts(st))

    def ranking_keys(self, keys: Sequence[tuple[int, ...]]) -> list[tuple[int, ...]]:
        return ranking_keys(self.game, keys)

    # ------------------------------------------------------------ whole readings
    def option_steps(self, st: Gamestate) -> list[list[tuple[int | None, Any]]]:
        """Each legal option as its steps: (slot, value) per binding, (None, action
        node) per action (the option's parts, as a key writer reads them)."""
        return [
            [(arg[0], arg[1]) if fn is None else (None, arg) for fn, arg in option]
            for option in self.legal_options(st)
        ]

    def card_zones(self, st: Gamestate) -> Sequence[tuple[int, str, str] | None]:
        """Each card's location key (None: nowhere), by card id."""
        return st.card_zone

    def board_parts(
        self, st: Gamestate, type_id: Callable[[Any], int], memo: dict[int, int]
    ) -> tuple[Any, list[int], Any, int]:
        """What an observation reads of ``st``: its locations, each card's type id
        (``type_id`` of the card's attributes, kept in ``memo``, the caller's, by the
        attributes' identity: the cards of one kind share them), its integer storages and
        the current seat."""
        types = []
        for attributes in st.cards:
            t = memo.get(id(attributes))
            if t is None:
                t = memo[id(attributes)] = type_id(attributes)
            types.append(t)
        return st.zones, types, st.ints, st.current_seat

    # ------------------------------------------------------------ the flow
    def advance(self, st: Gamestate) -> None:
        """Run the flow until a decision with options is pending or the game ends."""
        try:
            self._run_flow(st)
            if st.pending is not None and st.status == RUNNING:
                check_game_work(st, self.limits.max_game_work)
                options = st.options = list_options(st.pending, st)
                if not options:
                    raise RuleError(
                        f"no legal option for player {st.mover}: every option of this "
                        "choice is ruled out",
                        st.pending.span,
                    )
        except (RuleError, RecursionError, MemoryError) as err:
            self._fail(st, err)

    def _run_flow(self, st: Gamestate) -> None:
        stack = st.stack
        max_steps = self.limits.max_steps
        while st.pending is None:
            frame = stack[-1]
            kind = frame[F_KIND]
            if kind == SEQ:
                runners = frame[F_NODE].runners
                i = frame[F_SEQ_NEXT]
                if i == len(runners):
                    stack.pop()
                    continue
                frame[F_SEQ_NEXT] = i + 1
                st.steps += 1
                st.work += 1
                if st.steps > max_steps:
                    self._cutoff(st, "steps")
                    return
                runners[i](st)
            elif kind == STAGE:
                self._stage_pass(st, frame)
                st.steps += 1
                st.work += 1
                if st.steps > max_steps:
                    self._cutoff(st, "steps")
                    return
            elif kind == LOOP:
                elements = frame[F_LOOP_ITEMS]
                i = frame[F_LOOP_NEXT]
                if i == len(elements):
                    stack.pop()
                    continue
                frame[F_LOOP_NEXT] = i + 1
                st.regs[frame[F_NODE].slot] = elements[i]
                frame[F_NODE].body.enter(st)
            elif kind == REPEAT:
                if frame[F_REPEAT_LEFT] <= 0:
                    stack.pop()
                    continue
                frame[F_REPEAT_LEFT] -= 1
                frame[F_NODE].body.enter(st)
            elif kind == WHILE:
                if not frame[F_NODE].condition(st):
                    stack.pop()
                    continue
                st.steps += 1
                st.work += 1
                if st.steps > max_steps:
                    self._cutoff(st, "steps")
                    return
                frame[F_NODE].body.enter(st)
            elif kind == CALL:  # the body is done: restore the caller's registers
                st.regs[frame[F_CALL_LOW] : frame[F_CALL_HIGH]] = frame[F_CALL_SAVED]
                stack.pop()
            elif kind == SECRET:  # every pick is made
                stack.pop()
                self._reveal(st, frame[F_PICKS])
            else:
                assert kind == ROOT
                self._finish(st)
                return

    def _stage_pass(self, st: Gamestate, frame: list[Any]) -> None:
        """At a stage frame: end it, or advance its cycle and start the next pass.

        The end condition is checked before every pass; the cycle advances between
        passes, never after the last one.
        """
        node = frame[F_NODE]
        if node.end(st):
            st.stage_idx = frame[F_OUTER]
            st.stack.pop()
            return
        if frame[F_STARTED]:
            queued = frame[F_QUEUED]
            set_current(
                frame, queued if queued is not None else (frame[F_CUR] + 1) % cycle_size(st, frame)
            )
            frame[F_QUEUED] = None
        frame[F_STARTED] = True
        # A turn is a pass of a stage during which no nested stage makes a pass: count
        # this pass, and uncount the enclosing stage's pass, which is not a turn after all.
        st.turns += 1
        frame[F_COUNTED] = True
        outer = st.stack[frame[F_OUTER]]
        if outer[F_COUNTED]:
            outer[F_COUNTED] = False
            st.turns -= 1
        st.stack.append([SEQ, node.body, 0])  # the pass: [SEQ, seq, next]

    def _reveal(self, st: Gamestate, picks: tuple[Any, ...]) -> None:
        """The end of a (simultaneous ...) block: every pick is shown (a "reveal" event
        with its option's label), then each option runs, in the order picked, with the
        registers as they were when it was picked."""
        if st.log is not None:  # a label reads the option's own bindings, no register
            for pick in picks:
                label = self.game.describe_option(st, pick[P_OPTION])
                situation = pick[P_CHOICE].situation
                st.log.append(("reveal", pick[P_MOVER], label, st.turns, situation))
        regs = st.regs
        saved = regs[:]
        for pick in picks:
            regs[:] = pick[P_REGS]
            run_option(st, pick[P_OPTION])
        regs[:] = saved

    # ------------------------------------------------------------ endings
    def _finish(self, st: Gamestate) -> None:
        st.status = COMPLETED
        st.end_reason = COMPLETED
        try:
            st.scores = self.current_scores(st)
        except RuleError as err:
            self._fail(st, err)

    def current_scores(self, st: Gamestate) -> list[tuple[int, ...]]:
        """Per seat, (score, tie-break values...) as the scoring says now, whatever the
        game's status (a running game's scoring may raise ``RuleError``)."""
        tiebreaks = [tiebreak for _, tiebreak in self.game.tiebreaks]
        return self._per_seat(st, lambda s: (self.game.scoring(s), *(t(s) for t in tiebreaks)))

    def table_scores(self, st: Gamestate) -> list[int] | None:
        """Per seat, the game's ``(table-score ...)`` as it stands, for people; None for a
        game without one.  It reads only what every player sees and draws no random
        number (the checker holds it to that), so evaluating it changes nothing."""
        table_score = self.game.table_score
        if table_score is None:
            return None
        return self._per_seat(st, lambda s: int(table_score(s)))

    def ending_values(self, st: Gamestate) -> list[tuple[int, ...]]:
        """Per seat, the ``(end-reason ...)`` conditions (1 or 0) and then the
        ``(score-part ...)`` values, in the file's order, for people at the end.  Like the
        table score, they read only what every player sees and draw no random number."""
        ending = self.game.ending
        return self._per_seat(st, lambda s: tuple(int(value(s)) for value in ending))

    @staticmethod
    def _per_seat(st: Gamestate, evaluate: Callable[[Gamestate], T]) -> list[T]:
        """``evaluate`` with each seat in turn as (current player), from the root frame
        (as the scoring reads it); the state as it was afterwards, a rule error too."""
        root = st.stack[0]  # the ROOT frame, at the bottom
        saved_idx, saved_cur = st.stage_idx, root[F_CUR]
        st.stage_idx = 0
        try:
            values = []
            for p in range(st.nplayers):
                set_current(root, p)
                values.append(evaluate(st))
            return values
        finally:
            set_current(root, saved_cur)
            st.stage_idx = saved_idx

    def _fail(self, st: Gamestate, err: RuleError | RecursionError | MemoryError) -> None:
        if isinstance(err, RecursionError):  # a safety net: the language bounds its nesting
            err = RuleError("the game nests calls or loops too deeply for Python's stack")
        elif isinstance(err, MemoryError):  # what the budgets allow did not fit
            err = RuleError(OUT_OF_MEMORY)
        err.turn = st.turns
        err.seed = st.seed
        err.source = self.game.source
        st.status = FAILED
        st.end_reason = FAILED
        st.error = err
        st.pending = None
        st.options = None
        st.mover = -1

    def _cutoff(self, st: Gamestate, which: str) -> None:
        st.status = CUTOFF
        st.end_reason = f"{CUTOFF}:{which}"
        st.pending = None
        st.options = None
        st.mover = -1
        try:
            st.scores = self.current_scores(st)
        except RuleError:
            st.scores = None


def game_result(rules: Rules, st: Any, cards: CardCounts | None = None) -> GameResult:
    """A finished game's result, from its state (either engine's: they read alike), with
    the counts its engine made of it (``cards``: None where none were asked for)."""
    if not st.is_over:
        raise UsageError("the game is not over yet")
    return result_of(
        rules,
        seed=st.seed,
        status=st.status,
        end_reason=st.end_reason,
        keys=st.scores,
        decisions=st.decisions,
        turns=st.turns,
        team_of=tuple(st.team_of),
        error=st.error,
        cards=cards,
    )


def result_of(
    rules: Rules,
    *,
    seed: int,
    status: str,
    end_reason: str,
    keys: Sequence[tuple[int, ...]] | None,
    decisions: int,
    turns: int,
    team_of: tuple[int, ...],
    error: RuleError | AgentError | None = None,
    cards: CardCounts | None = None,
) -> GameResult:
    """A finished game's result from what its state says of it (``keys``: per seat, the
    score and the tie-break values; None where no score was reached; ``cards``: the
    engine's counts, where asked for)."""
    # plain loops: a batch of the native engine makes one of these per game
    n = len(team_of)
    if keys is None:
        keys = [(0,) * (1 + len(rules.tiebreaks))] * n
    scores = tuple([k[0] for k in keys])
    keyed = ranking_keys(rules, keys)
    ranks = tuple([1 + sum([other < mine for other in keyed]) for mine in keyed])
    winners: tuple[int, ...] = ()
    credits = (0.0,) * n
    if status == COMPLETED:
        winners = tuple([p for p in range(n) if ranks[p] == 1])
        share = 1.0 / len(winners)
        credits = tuple([share if rank == 1 else 0.0 for rank in ranks])
    return GameResult(
        seed=seed,
        end_reason=end_reason,
        scores=scores,
        tiebreak_scores=tuple(tuple(k[1:]) for k in keys),
        ranks=ranks,
        credits=credits,
        winners=winners,
        decisions=decisions,
        turns=turns,
        team_of=team_of,
        error=error,
        cards=cards,
    )


def ranking_keys(rules: Rules, keys: Sequence[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """Per seat (score, tie-breaks...) turned so that smaller is better: what is
    maximised is negated; tuples then compare as the tie-breaks say, in order."""
    signs = ranking_signs(rules)
    return [tuple([v * sign for v, sign in zip(k, signs, strict=True)]) for k in keys]


def ranking_signs(rules: Rules) -> list[int]:
    """What ``ranking_keys`` multiplies the score and each tie-break by."""
    signs = [1 if rules.scoring_mode == "min" else -1]
    signs += [1 if mode == "min" else -1 for mode, _ in rules.tiebreaks]
    return signs
