"""The Gamestate: plain data, cheap to clone, holding everything a game in progress is.

Pipeline position: the compiled closures (compile_expr, compile_stmt) read and write it;
the Gamemaster (gamemaster.py) drives it.  Nothing in here knows any game's rules.

Layout
- ``zones``: location key -> list of card ids, bottom first, top last.  A key is
  ``(owner, kind, name)`` with owner -1 for the game, a seat number for a player, and
  ``-2 - t`` for team t; kind is one of "vloc", "iloc", "hloc", "mem".  Zones are made on
  first write; reading a missing zone sees it empty.
- ``card_zone[c]``: the key of the real location holding card c (mem zones hold
  references only and are not tracked here).  ``cards[c]``: card c's attributes.
- ``ints``, ``strs``, ``points``: storages keyed by ``(owner, name)``.
- ``regs``: variable registers (the checker gives every binding site its own slot).
- ``stack``: the control stack, a list of small lists (frames); see gamemaster.py.
- ``rng``: the state of a SplitMix64 generator: one integer, so cloning is free.
"""

from __future__ import annotations

from typing import Any

GAME_OWNER = -1
MASK64 = (1 << 64) - 1

# Frame kinds on the control stack.
SEQ, STAGE, LOOP, REPEAT, ROOT, WHILE, CALL = range(7)
# A CALL frame, [CALL, saved registers, low, high], restores a recursive procedure's
# registers regs[low:high] when its body is done.
# Stage and root frame fields:
#   [kind, node, current, queued, started, outer_stage, is_team, player, counted]
# ``current`` and ``queued`` are seats, or teams in a team stage; ``player`` is the
# current player: the same as ``current`` in a player stage, and in a team stage the
# player it started with.  Change ``current`` through set_current() only.  ``counted``
# says the current pass is counted as a turn (see Gamemaster._stage_pass).
F_NODE, F_CUR, F_QUEUED, F_STARTED, F_OUTER, F_TEAM, F_PLAYER, F_COUNTED = 1, 2, 3, 4, 5, 6, 7, 8

# Game status.
RUNNING, COMPLETED, FAILED, CUTOFF = "running", "completed", "failed", "cutoff"


def describe_owner(owner: int) -> str:
    if owner == GAME_OWNER:
        return "game"
    if owner >= 0:
        return f"P{owner}"
    return f"team{-2 - owner}"


class Gamestate:
    """One game in progress.  Plain data; ``clone()`` copies it in linear time."""

    __slots__ = (
        "zones",
        "card_zone",
        "cards",
        "ints",
        "strs",
        "points",
        "regs",
        "stack",
        "stage_idx",
        "nplayers",
        "teams",
        "team_of",
        "rng",
        "seed",
        "decisions",
        "steps",
        "turns",
        "status",
        "end_reason",
        "error",
        "pending",
        "options",
        "log",
        "mover",
        "scores",
        "indexed",
        "knowledge",
    )

    zones: dict[tuple[int, str, str], list[int]]
    card_zone: list[tuple[int, str, str]]
    cards: list[dict[str, Any]]  # a deck card: names; a kind card: also numbers, lists
    ints: dict[tuple[int, str], int]
    strs: dict[tuple[int, str], str]
    points: dict[tuple[int, str], Any]
    regs: list[Any]
    stack: list[list[Any]]
    stage_idx: int
    nplayers: int
    teams: list[tuple[int, ...]]
    team_of: list[int]
    rng: int
    seed: int
    decisions: int
    steps: int
    turns: int
    status: str
    end_reason: str
    error: Any
    pending: Any  # the choice node waiting for a decision, or None
    options: Any  # cached legal options of the pending decision, or None
    log: list[tuple[Any, ...]] | None  # events, when a transcript is being recorded
    mover: int  # the seat that makes the pending decision, -1 when none
    scores: list[tuple[int, ...]] | None  # per seat (score, tie-breaks...), once over
    # (indexed OWNER KIND NAME) -> (number of zones when found, the locations): zones are
    # never removed, so the answer holds while no zone is added
    indexed: dict[tuple[int, str, str], tuple[int, tuple[Any, ...]]]
    # what each seat knows of the hidden cards: a knowledge.KnowledgeTracker made from
    # the log when first asked for, or (decision count, one seat's knowledge) attached to
    # a determinization; derived data, not copied by clone()
    knowledge: Any

    def __init__(self, nplayers: int, nregs: int, seed: int) -> None:
        self.zones = {}
        self.card_zone = []
        self.cards = []
        self.ints = {}
        self.strs = {}
        self.points = {}
        self.regs = [None] * nregs
        self.stack = []
        self.stage_idx = 0
        self.nplayers = nplayers
        self.teams = [(p,) for p in range(nplayers)]
        self.team_of = list(range(nplayers))
        self.seed = seed
        self.rng = seed & MASK64
        self.decisions = 0
        self.steps = 0
        self.turns = 0
        self.status = RUNNING
        self.end_reason = ""
        self.error = None
        self.pending = None
        self.options = None
        self.log = None
        self.mover = -1
        self.scores = None
        self.indexed = {}
        self.knowledge = None

    def clone(self) -> Gamestate:
        """An independent copy: later changes to either never show in the other."""
        c = object.__new__(Gamestate)
        c.zones = {k: v[:] for k, v in self.zones.items()}
        c.card_zone = self.card_zone[:]
        c.cards = self.cards[:]  # attribute dicts are immutable and shared
        c.ints = self.ints.copy()
        c.strs = self.strs.copy()
        c.points = self.points.copy()  # point maps are immutable and shared
        c.regs = self.regs[:]
        c.stack = [f[:] for f in self.stack]
        c.stage_idx = self.stage_idx
        c.nplayers = self.nplayers
        c.teams = self.teams[:]
        c.team_of = self.team_of[:]
        c.rng = self.rng
        c.seed = self.seed
        c.decisions = self.decisions
        c.steps = self.steps
        c.turns = self.turns
        c.status = self.status
        c.end_reason = self.end_reason
        c.error = self.error
        c.pending = self.pending
        c.options = self.options  # immutable once listed
        c.log = None if self.log is None else self.log[:]
        c.mover = self.mover
        c.scores = self.scores
        c.indexed = self.indexed.copy()
        c.knowledge = None
        return c

    @property
    def is_over(self) -> bool:
        return self.status != RUNNING

    def fingerprint(self) -> tuple[Any, ...]:
        """Everything that defines the game's position, for equality tests."""
        return (
            tuple(sorted((k, tuple(v)) for k, v in self.zones.items() if v)),
            tuple(sorted(self.ints.items())),
            tuple(sorted(self.strs.items())),
            tuple(tuple(f[:1] + f[2:]) for f in self.stack),
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
    # with F_CUR; a team stage keeps the player it started with).
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
