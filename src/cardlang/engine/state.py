"""The Gamestate: plain data, cheap to clone, holding everything a game in progress is.

Pipeline position: engine, at the bottom (it imports only frames.py and cardlang.errors).
The compiled closures and generated code (cardlang.compiler) read and write it; the
Gamemaster (gamemaster.py) drives it.  Nothing in here knows any game's rules.  It also
holds the helpers of the current stage's cycle and the game's random stream.

Layout (the slots, by role)
- board: ``zones``: location key -> list of card ids, bottom first, top last.  A key is
  ``(owner, kind, name)`` with owner -1 for the game, a seat number for a player, and
  ``-2 - t`` for team t; kind is one of "vloc", "iloc", "hloc", "mem".  Zones are made on
  first write; reading a missing zone sees it empty.  ``card_zone[c]``: the key of the
  real location holding card c (mem zones hold references only and are not tracked
  here).  ``refs``: how many references the mem zones hold together (kept as they change,
  not summed: the game's size counts them with its cards, runtime.reference_room).
  ``cards[c]``: card c's attributes.  ``ints``, ``strs``, ``points``: storages
  keyed by ``(owner, name)``.  ``regs``: variable registers (the checker gives every
  binding site its own slot).  ``nplayers``, ``teams``, ``team_of``: the seats and teams.
- chance: ``rng``: the state of a SplitMix64 generator, one integer, so cloning is free;
  ``seed``: the game's seed.
- flow: ``stack``: the control stack, a list of frames (small lists; their layouts are in
  frames.py); ``stage_idx``: the index of the innermost stage frame; ``pending``,
  ``options``, ``mover``: the decision waiting, if any; ``decisions``, ``steps``,
  ``turns``: counters.
- outcome: ``status``, ``end_reason``, ``error``, ``scores``.
- record: ``log``: the event log, when the game is recorded; ``tally``: per (seat,
  situation, card type) the options chosen and the turn of the first (tally.py), when the
  game is made to count them (else None).
- caches: derived from the rest, never needed to play: ``indexed`` (copied by
  ``clone()``), and what the seats know of the hidden cards, which
  cardlang.information.knowledge keeps here (``tracker``, ``attached``; not copied).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from cardlang.engine.frames import (
    F_CUR,
    F_KIND,
    F_NODE,
    F_PICKS,
    F_PLAYER,
    F_QUEUED,
    F_TEAM,
    SECRET,
)
from cardlang.engine.traits import PYTHON
from cardlang.engine.work import WorkBudget
from cardlang.errors import RuleError

MASK64 = (1 << 64) - 1

# Game status.
RUNNING, COMPLETED, FAILED, CUTOFF = "running", "completed", "failed", "cutoff"


def secret_frame(st: Gamestate) -> list[Any] | None:
    """The SECRET frame of the running (simultaneous ...) block (blocks do not nest): it
    holds the block's picks (engine/picks.py)."""
    for frame in reversed(st.stack):
        if frame[F_KIND] == SECRET:
            return frame
    return None


class Gamestate:
    """One game in progress.  Plain data; ``clone()`` copies it in linear time."""

    __slots__ = (
        # board
        "zones",
        "card_zone",
        "refs",
        "cards",
        "ints",
        "strs",
        "points",
        "regs",
        "nplayers",
        "teams",
        "team_of",
        # chance
        "rng",
        "seed",
        # flow
        "stack",
        "stage_idx",
        "pending",
        "options",
        "mover",
        "decisions",
        "steps",
        "work",
        "budget",
        "turns",
        # outcome
        "status",
        "end_reason",
        "error",
        "scores",
        # record
        "log",
        "tally",
        # caches
        "indexed",
        "tracker",
        "attached",
    )

    # ------------------------------------------------------------ board
    zones: dict[tuple[int, str, str], list[int]]
    card_zone: list[tuple[int, str, str]]
    refs: int  # references in all mem zones: +1 at each remember, -1 at each forget
    cards: list[dict[str, Any]]  # a deck card: names; a kind card: also numbers, lists
    ints: dict[tuple[int, str], int]
    strs: dict[tuple[int, str], str]
    points: dict[tuple[int, str], Any]
    regs: list[Any]
    nplayers: int
    teams: list[tuple[int, ...]]  # team t's seats
    team_of: list[int]  # seat -> its team
    # ------------------------------------------------------------ chance
    rng: int
    seed: int
    # ------------------------------------------------------------ flow
    stack: list[list[Any]]  # frames: see frames.py
    stage_idx: int
    pending: Any  # the control.ChoiceNode waiting for a decision, or None
    options: list[tuple[tuple[Any, Any], ...]] | None  # its legal options, once listed
    mover: int  # the seat that makes the pending decision, -1 when none
    decisions: int
    steps: int  # steps since the last decision (bounded by Limits.max_steps)
    work: int  # the game's work so far, its steps included (bounded by Limits.max_game_work)
    budget: WorkBudget | None  # the running new_game's or apply's work budget (work.py)
    turns: int
    # ------------------------------------------------------------ outcome
    status: str  # RUNNING, COMPLETED, FAILED or CUTOFF
    end_reason: str  # "" while running, else the status, or "cutoff:decisions"/"cutoff:steps"
    error: RuleError | None  # why a failed game failed
    scores: list[tuple[int, ...]] | None  # per seat (score, tie-breaks...), once over
    # ------------------------------------------------------------ record
    log: list[tuple[Any, ...]] | None  # events, when a transcript is being recorded
    tally: dict[tuple[int, str, str], tuple[int, int]] | None  # picks counted (tally.py)
    # ------------------------------------------------------------ caches
    # (indexed OWNER KIND NAME) -> (number of zones when found, the locations): zones are
    # never removed, so the answer holds while no zone is added
    indexed: dict[tuple[int, str, str], tuple[int, tuple[Any, ...]]]
    # What the seats know of the hidden cards, kept here by cardlang.information.knowledge
    # (the engine never reads these, and may not import that layer: hence ``object``):
    # ``tracker``: a recorded game's KnowledgeTracker, made from the log when first asked
    # for, else None; ``attached``: an AttachedKnowledge, what one seat knows of a
    # determinization (it holds until a move is applied), else None.
    tracker: object
    attached: object

    def __init__(self, nplayers: int, nregs: int, seed: int) -> None:
        # board
        self.zones = {}
        self.card_zone = []
        self.refs = 0
        self.cards = []
        self.ints = {}
        self.strs = {}
        self.points = {}
        self.regs = [None] * nregs
        self.nplayers = nplayers
        self.teams = [(p,) for p in range(nplayers)]
        self.team_of = list(range(nplayers))
        # chance
        self.rng = seed & MASK64
        self.seed = seed
        # flow
        self.stack = []
        self.stage_idx = 0
        self.pending = None
        self.options = None
        self.mover = -1
        self.decisions = 0
        self.steps = 0
        self.work = 0
        self.budget = None
        self.turns = 0
        # outcome
        self.status = RUNNING
        self.end_reason = ""
        self.error = None
        self.scores = None
        # record
        self.log = None
        self.tally = None
        # caches
        self.indexed = {}
        self.tracker = None
        self.attached = None

    def pick_count(self) -> int:
        """How many picks of the running ``(simultaneous ...)`` block wait to be revealed
        (none outside one; engine/picks.py reads and blanks them)."""
        frame = secret_frame(self)
        return 0 if frame is None else len(frame[F_PICKS])

    def clone(self) -> Gamestate:
        """An independent copy: later changes to either never show in the other."""
        c = object.__new__(Gamestate)
        # board
        c.zones = {k: v[:] for k, v in self.zones.items()}
        c.card_zone = self.card_zone[:]
        c.refs = self.refs
        c.cards = self.cards[:]  # attribute dicts are immutable and shared
        c.ints = self.ints.copy()
        c.strs = self.strs.copy()
        c.points = self.points.copy()  # point maps are immutable and shared
        c.regs = self.regs[:]
        c.nplayers = self.nplayers
        c.teams = self.teams[:]
        c.team_of = self.team_of[:]
        # chance
        c.rng = self.rng
        c.seed = self.seed
        # flow
        c.stack = [f[:] for f in self.stack]
        c.stage_idx = self.stage_idx
        c.pending = self.pending
        c.options = self.options  # immutable once listed
        c.mover = self.mover
        c.decisions = self.decisions
        c.steps = self.steps
        c.work = self.work
        c.budget = self.budget  # shared: a copy made while the engine runs charges it too
        c.turns = self.turns
        # outcome
        c.status = self.status
        c.end_reason = self.end_reason
        c.error = self.error
        c.scores = self.scores
        # record
        c.log = None if self.log is None else self.log[:]
        c.tally = None if self.tally is None else self.tally.copy()  # values are tuples
        # caches (what the seats know is derived from the log, or belongs to this state)
        c.indexed = self.indexed.copy()
        c.tracker = None
        c.attached = None
        return c

    #: the engine this state belongs to (engine/traits.py; a native state's is NATIVE)
    traits = PYTHON

    @property
    def is_over(self) -> bool:
        return self.status != RUNNING

    def top_attributes(self) -> list[tuple[tuple[int, str, str], Mapping[str, Any]]]:
        """Every location and its top card's attributes (read-only), in the order the
        locations were made (empty ones left out): one read where a player looks at many
        piles."""
        cards = self.cards
        return [(k, MappingProxyType(cards[z[-1]])) for k, z in self.zones.items() if z]

    @property
    def current_seat(self) -> int:
        """The current player (0 before the flow starts)."""
        return self.stack[self.stage_idx][F_PLAYER] if self.stack else 0  # type: ignore[no-any-return]

    def fingerprint(self) -> tuple[Any, ...]:
        """Everything that defines the game's position, for equality tests.  A frame's
        second field (its node, which compares by identity; a CALL frame's saved
        registers) is left out."""
        return (
            tuple(sorted((k, tuple(v)) for k, v in self.zones.items() if v)),
            tuple(sorted(self.ints.items())),
            tuple(sorted(self.strs.items())),
            tuple(tuple(f[:F_NODE] + f[F_NODE + 1 :]) for f in self.stack),
            self.rng,
            self.decisions,
            self.status,
        )


# ---------------------------------------------------------------- randomness


def splitmix64(x: int) -> tuple[int, int]:
    """One step of SplitMix64: (next state, 64-bit output).  Every seeded stream in
    cardlang uses it (the game's RNG, derived seeds, the random agent)."""
    x = (x + 0x9E3779B97F4A7C15) & MASK64
    z = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return x, z ^ (z >> 31)


def rand_below(st: Gamestate, n: int) -> int:
    """A uniform integer in [0, n) from the state's SplitMix64 stream."""
    st.rng, z = splitmix64(st.rng)
    return (z * n) >> 64


def shuffle_in_place(st: Gamestate, items: list[Any]) -> None:
    """Fisher-Yates with the state's generator (splitmix64 inlined: shuffles are hot)."""
    x = st.rng
    for i in range(len(items) - 1, 0, -1):
        x = (x + 0x9E3779B97F4A7C15) & MASK64
        z = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        j = ((z ^ (z >> 31)) * (i + 1)) >> 64
        items[i], items[j] = items[j], items[i]
    st.rng = x


# ---------------------------------------------------------------- players and teams


def current_player(st: Gamestate) -> int:
    # Every stage frame keeps its current player in F_PLAYER (a player stage updates it
    # with F_CUR; a team stage keeps the player it started with): see frames.py.
    return st.stack[st.stage_idx][F_PLAYER]  # type: ignore[no-any-return]


def set_current(frame: list[Any], value: int) -> None:
    """Make ``value`` (a seat, or a team in a team stage) current in a stage frame."""
    frame[F_CUR] = value
    if not frame[F_TEAM]:
        frame[F_PLAYER] = value


def current_team(st: Gamestate) -> int:
    frame = st.stack[st.stage_idx]
    if frame[F_TEAM]:
        return frame[F_CUR]  # type: ignore[no-any-return]
    return st.team_of[frame[F_CUR]]


def cycle_size(st: Gamestate, frame: list[Any]) -> int:
    return len(st.teams) if frame[F_TEAM] else st.nplayers


def next_in_cycle(st: Gamestate) -> int:
    """The seat (or team, in a team stage) that goes next: the queued one, else the next."""
    frame = st.stack[st.stage_idx]
    if frame[F_QUEUED] is not None:
        return frame[F_QUEUED]  # type: ignore[no-any-return]
    return (frame[F_CUR] + 1) % cycle_size(st, frame)


def previous_in_cycle(st: Gamestate) -> int:
    frame = st.stack[st.stage_idx]
    return (frame[F_CUR] - 1) % cycle_size(st, frame)


def next_player(st: Gamestate) -> int:
    frame = st.stack[st.stage_idx]
    nxt = next_in_cycle(st)
    return st.teams[nxt][0] if frame[F_TEAM] else nxt


def previous_player(st: Gamestate) -> int:
    frame = st.stack[st.stage_idx]
    prev = previous_in_cycle(st)
    return st.teams[prev][0] if frame[F_TEAM] else prev
