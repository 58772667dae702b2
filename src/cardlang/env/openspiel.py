"""cardlang games as OpenSpiel games: ``register(FILE, name=...)`` (extra ``openspiel``).

Pipeline position: env (the adapters' layer, above runs, agents and information); it
imports pyspiel, which nothing else in cardlang does.  ``register`` compiles a game file,
registers it with ``pyspiel.register_game`` as a Python game (sequential, imperfect
information) and returns ``pyspiel.load_game(name)``; OpenSpiel's own algorithms (CFR,
exploitability, ISMCTS, random simulation tests) then play it like a built-in game.

**Chance.**  cardlang's shuffles draw from the state's RNG inside the engine, so they
cannot simply be handed to OpenSpiel as they happen.  Instead a card's identity is chance
*when someone first sees it*, which is how OpenSpiel's card games deal:

- ``chance="exact"`` (EXPLICIT_STOCHASTIC): a shuffle makes a *pool* (the shuffled cards,
  from the ``shuffle`` event of the log).  Before the first decision, one chance node per
  pooled card that some seat sees (in the order of the places they lie in) picks its card
  type, with probability ``remaining copies of the type / remaining cards of the pool``:
  the law of the types at distinct places of a uniform shuffle.  The state for a whole
  deal is a real game (``new_game`` over seeds, kept per deal, as ``cardlang solve``
  lists deals), so a setup that reads the cards it dealt stays right.  Later, a move that
  shows a pooled card no seat has seen yet (Leduc's public card) is tried on a clone;
  one chance node per such card picks its type among the pool's unseen cards, the
  attributes of those unseen cards are permuted so that it has that type (they are
  interchangeable: no seat has seen any of them), and the move is played for real.
  Kuhn's deal is then 3 x 2 outcomes and Leduc's 6 x 5, then 4 for the public card, as in
  OpenSpiel's own games.  Exact chance needs the Python engine (the native engine's
  cards cannot be re-typed), every draw before the first decision to be a shuffle of
  cards not shuffled before, no draw after it (a reshuffle, a ``(random ...)``, a random
  tie-break: ``ExactChanceError`` when one happens), and rules that read a card only
  once someone has seen it (the re-typed move is checked to show the same cards).
- ``chance="sampled"`` (SAMPLED_STOCHASTIC): no chance node; each initial state is a
  game dealt from a seed drawn from the game's generator (``seed``), and the engine's
  own RNG plays every later draw.  Any game file, either engine.
- ``chance="auto"`` (the default): exact when the deal can be listed (at most
  ``AUTO_EXACT_DEALS`` deals; ``"exact"`` lists up to information/deals.py's
  ``MAX_DEALS``) and a few seeded random games meet no draw after it, else sampled.

The game type's ``long_name`` says which was chosen (``... (exact chance)``).

**Actions.**  An action is an index into the pending situation's action vocabulary
(``information/vocabulary.py``), as in the PettingZoo and Gymnasium adapters
(``env/core.py``): ``num_distinct_actions`` is ``Encoder.n_actions``, the largest
vocabulary; a legal action plays the first option with that key (options sharing a key
are equivalent for the mover).  Tabular algorithms (CFR) see one action per distinct
option; networks see the same index mean the same move in every game.  Chance actions
are card types, by their index in ``Vocabulary.card_types`` (``max_chance_outcomes``).

**Strings and tensors.**  ``information_state_string(p)`` is ``p``'s perfect-recall
information state: a running BLAKE2 digest over the public history ``p`` has observed
(``PlayerView.history``: moves, with the card where ``p`` saw it, storage changes,
shuffles, decisions with ``p``'s own labels), so two histories share it exactly when
``p`` cannot tell them apart.  ``observation_string(p)`` is the ``view`` key of
``information/observation.py`` (what ``p`` sees now).  ``observation_tensor(p)`` is
the encoder's vector of ``p``'s view (``Encoder.width`` floats, the PettingZoo
adapter's observation).  ``information_state_tensor(p)`` stacks that vector at each of
the last ``history`` positions of the game (``register(..., history=8)``; oldest first,
zeros before the first): a game's whole history when it is no longer than ``history``
decisions (Kuhn: 3, Leduc: at most 8), its recent past otherwise (Hearts, Dominion), as
frame stacking does.  It holds only what ``p`` saw at each position; another seat's move
shows in it by what it changed that ``p`` sees (a bet: the pot and the chips).

**Returns.**  Terminal only.  ``returns="score"``: each seat's score, negated where the
rules minimise it (higher is better; net chips in Kuhn and Leduc, so zero-sum);
``returns="win"``: ``env.core.rewards_of`` (+1 lone winner, shared wins, 0 when cut
off).  ``utility`` (zero_sum, constant_sum, general_sum) is detected from seeded random
games unless given, and so are ``min_utility``/``max_utility`` (the observed range
doubled) unless ``utility_range`` is given: the rules do not state them.
``max_game_length`` is the decision limit (``max_decisions``).

**Resampling.**  ``state.resample_from_infostate(p, sampler)`` (what OpenSpiel's Python
ISMCTS calls) permutes the attributes of the cards ``p`` has not identified within each
of ``p``'s pools (knowledge.py): a world ``p`` cannot tell from the real one, with a
fresh RNG.  Python engine only.
"""

from __future__ import annotations

import atexit
import gc
import hashlib
import random
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, cast

import numpy as np
import pyspiel

from cardlang.engine.gamemaster import GameResult, Limits
from cardlang.engine.protocol import Engine, EngineState
from cardlang.engine.state import MASK64, Gamestate
from cardlang.env.core import DEFAULT_MAX_DECISIONS, GameSource, load, rewards_of
from cardlang.errors import UsageError
from cardlang.information.deals import (
    Deals,
    ExactChanceError,
    Reveal,
    chosen,
    find_deals,
    pools,
    retype,
    shuffle_unidentified,
)
from cardlang.information.encode import Encoder
from cardlang.information.observation import observation_key
from cardlang.information.views import PlayerView, view_of
from cardlang.information.vocabulary import Vocabulary
from cardlang.language.kinds import card_type

__all__ = ["AUTO_EXACT_DEALS", "CHANCE_MODES", "ExactChanceError", "register"]

CHANCE_MODES = ("auto", "exact", "sampled")
#: ``chance="auto"`` exposes a game's chance exactly only with at most this many deals
#: (each is a real game kept for the life of the game, walked again and again by CFR):
#: more are sampled.  ``chance="exact"`` lists up to information/deals.py's MAX_DEALS.
AUTO_EXACT_DEALS = 5_000
#: Seeded random games played at registration (utility detection, auto's check).
PROBE_GAMES = 12

#: Positions kept per exact game, by OpenSpiel history (CFR walks the same tree again
#: and again: a known position costs a shallow copy, not a move of the engine).
MAX_CACHED = 500_000

#: The registered game classes, kept for the life of the process: pyspiel holds them
#: in a C++ registry (registering a plain function crashes the interpreter at exit).
_REGISTERED: dict[str, type] = {}


@atexit.register
def _release() -> None:
    """Let the compiled games go before the interpreter ends: pyspiel's registry keeps
    the classes (and so, through their spec, the games and any native program) for ever,
    which the native extension would report as leaks."""
    for cls in _REGISTERED.values():
        cls.spec = None  # type: ignore[attr-defined]
    gc.collect()


# ---------------------------------------------------------------- the specification


class Spec:
    """What every state of one registered game shares (never copied with a state):
    the game, its master, the chance mode (``deals``: every deal, when exact), the
    encoder and vocabulary, the returns, and the generator of sampled deals."""

    def __init__(
        self,
        game: Any,
        master: Engine,
        deals: Deals | None,
        returns: str,
        seed: int,
        name: str,
        history: int = 8,
    ) -> None:
        self.name = name  # the registered name, by which a pickled Core finds it again
        self.history = history  # positions stacked in the information-state tensor
        self.game = game
        self.master = master
        self.deals = deals
        self.exact = deals is not None
        self.returns = returns
        self.nplayers: int = game.nplayers
        self.encoder = Encoder.of(game)
        self.vocabulary = Vocabulary.of(game)
        self.card_types: tuple[str, ...] = self.vocabulary.card_types
        self.type_index = {t: i for i, t in enumerate(self.card_types)}
        self.seeds = random.Random(seed)
        #: exact chance: OpenSpiel history -> the position it leads to (a Core, copied out)
        self.positions: dict[tuple[int, ...], Core] = {}
        self.fresh_digests = tuple(
            hashlib.blake2b(f"seat {p}".encode(), digest_size=16).digest()
            for p in range(self.nplayers)
        )

    def __deepcopy__(self, memo: dict[int, Any]) -> Spec:
        return self  # shared by every state: OpenSpiel's Clone deep-copies a state's dict

    def returns_of(self, st: Any) -> list[float]:
        result: GameResult = self.master.result(st)
        if self.returns == "win":
            return list(rewards_of(result))
        sign = -1.0 if self.game.scoring_mode == "min" else 1.0
        return [sign * s for s in result.scores]

    def type_of(self, action: int) -> str:
        if not 0 <= action < len(self.card_types):
            raise UsageError(f"chance action {action} names no card type")
        return self.card_types[action]


# ---------------------------------------------------------------- a game in progress


def _plain(event: tuple[Any, ...]) -> tuple[Any, ...]:
    """An event of a public history as plain data: a card (a read-only attribute
    mapping) by its type.  Events are flat tuples (views.py's ``_public_history``)."""
    return tuple(("card", card_type(v)) if type(v) is MappingProxyType else v for v in event)


class Core:
    """One game in progress, OpenSpiel's side of it: the cardlang state, the chance
    pending (the deal, a reveal), and each seat's running digest of what it observed."""

    def __init__(self, spec: Spec, seed: int | None = None) -> None:
        self.spec = spec
        self.st: EngineState | None = None
        self.deal: tuple[str, ...] = ()  # exact: the types dealt so far, before the state
        self.reveal: Reveal | None = None
        self.digests = spec.fresh_digests
        self.cursor = 0  # events of the log already in the digests
        #: the states at the last ``spec.history`` positions (the information-state
        #: tensor encodes each seat's view of them when asked)
        self.past: tuple[EngineState, ...] = ()
        self.actions: dict[int, int] | None = None  # legal action -> option, once listed
        self.final: list[float] | None = None  # the returns, once over and asked for
        self.outcomes: list[tuple[int, float]] | None = None  # a chance node's, once listed
        # a position is the same for every game with its history, unless resampled
        self.cached = spec.exact
        self.resampled = False
        # how to make it again (pickling): the deal's seed (sampled chance), the actions
        self.seed = seed
        self.path: tuple[int, ...] = ()
        if spec.deals is None:
            self.seed = spec.seeds.getrandbits(63) if seed is None else seed
            self.start(spec.master.new_game(self.seed, record=True))
        elif not spec.deals.place_pools:  # nothing is dealt unseen: no chance node
            self.start(spec.deals.states[()])

    def __deepcopy__(self, memo: dict[int, Any]) -> Core:
        """A copy (OpenSpiel's Clone).  Under exact chance a Core never changes its
        state in place (a move is played on a clone: see ``apply``), so copies share it;
        sampled chance moves the state itself, so a copy gets its own."""
        other = object.__new__(Core)
        other.__dict__.update(self.__dict__)
        if not self.spec.exact and self.st is not None:
            other.st = self.st.clone()
        return other

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (OpenSpiel's Serialize pickles a state's dict) as the registered
        name, the seed and the actions: unpickling plays them again."""
        if self.resampled:
            raise UsageError("a resampled world cannot be serialized (it is no game's history)")
        return (_replayed, (self.spec.name, self.seed, self.path))

    def start(self, st: EngineState) -> None:
        self.st = st
        # exact chance never changes a state in place (see apply): kept as it is;
        # sampled chance does, so its positions are copies
        kept = st if self.spec.exact else st.clone()
        self.past = (*self.past, kept)[-self.spec.history :]
        self.actions = None
        self.final = None
        self.outcomes = None
        self.observe()

    def prepare(self) -> Core:
        """List what every copy of this position will ask for (its actions, or its
        returns), once, before the position is kept for CFR's next visits."""
        if self.chance:
            self.chance_outcomes()
        elif self.st is not None:
            if self.st.is_over:
                self.returns()
            else:
                self.action_map()
        return self

    def returns(self) -> list[float]:
        if self.final is None:
            self.final = self.spec.returns_of(self.st)
        return self.final

    def observe(self) -> None:
        """Bring each seat's digest up to date with the events since the last call."""
        st = self.st
        assert st is not None and st.log is not None
        digests = []
        for p, h in enumerate(self.digests):
            view = PlayerView.live(st, p, self.spec.game, ())
            for event in view.history_since(self.cursor):  # what p observed since
                h = hashlib.blake2b(h + repr(_plain(event)).encode(), digest_size=16).digest()
            digests.append(h)
        self.digests = tuple(digests)
        self.cursor = len(st.log)

    # ------------------------------------------------------------ who moves
    @property
    def chance(self) -> bool:
        return self.st is None or self.reveal is not None

    def current_player(self) -> int:
        if self.chance:
            return int(pyspiel.PlayerId.CHANCE)
        assert self.st is not None
        if self.st.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        return int(self.st.mover)

    def action_map(self) -> dict[int, int]:
        if self.actions is None:
            st = self.st
            assert st is not None
            options = self.spec.master.legal_options(st)
            indices = self.spec.vocabulary.option_indices(st, options, st.mover)
            if None in indices:
                raise UsageError(
                    "an option has no key in its situation's vocabulary "
                    "(a value outside what the rules declare): it cannot be an action"
                )
            self.actions = {}
            for i, index in enumerate(indices):
                self.actions.setdefault(int(index), i)  # type: ignore[arg-type]
        return self.actions

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.outcomes is None:
            self.outcomes = self._outcomes()
        return self.outcomes

    def _outcomes(self) -> list[tuple[int, float]]:
        if self.reveal is not None:
            left = self.reveal.outcomes()
        else:
            assert self.spec.deals is not None
            left = self.spec.deals.outcomes(self.deal)
        total = sum(left.values())
        index = self.spec.type_index
        return sorted((index[t], n / total) for t, n in left.items())

    # ------------------------------------------------------------ moves
    def apply_chance(self, action: int) -> None:
        kind = self.spec.type_of(action)
        self.path += (action,)
        self.outcomes = None
        if self.reveal is not None:
            self.reveal = chosen(self.reveal, kind)
            if len(self.reveal.chosen) == len(self.reveal.cards):
                self._finish_reveal()
            return
        deals = self.spec.deals
        assert deals is not None
        self.deal += (kind,)
        if len(self.deal) == len(deals.place_pools):
            self.start(deals.states[self.deal].clone())

    def apply(self, action: int) -> None:
        st = self.st
        assert st is not None
        option = self.action_map().get(action)
        if option is None:
            raise UsageError(f"action {action} is not legal here")
        self.path += (action,)
        if not self.spec.exact:
            self.spec.master.apply(st, option)  # the state is this Core's own: see copies
            self.start(st)
            return
        before = pools(st)
        trial = st.clone()
        self.spec.master.apply(trial, option)
        if trial.rng != st.rng:
            raise ExactChanceError(
                "the rules draw from the RNG after the deal (a reshuffle, a random "
                "value or tie-break): register the game with chance='sampled'"
            )
        shown = _newly_seen(trial, before.unseen, self.cursor)
        if not shown:
            self.start(trial)
            return
        self.reveal = Reveal(st, option, shown, before.unseen, before.pool_of)
        self.outcomes = None

    def _finish_reveal(self) -> None:
        reveal = self.reveal
        assert reveal is not None
        world = reveal.before.clone()
        wanted = dict(zip(reveal.cards, reveal.chosen, strict=True))
        for pool in {reveal.pool_of[c] for c in reveal.cards}:
            group = sorted(c for c in reveal.unseen if reveal.pool_of[c] == pool)
            retype(world, group, {c: t for c, t in wanted.items() if reveal.pool_of[c] == pool})
        world.options = None  # listed with the old types
        self.spec.master.apply(world, reveal.option)
        shown = _newly_seen(world, reveal.unseen, self.cursor)
        if shown != reveal.cards or any(card_type(world.cards[c]) != t for c, t in wanted.items()):
            raise ExactChanceError("the rules read cards nobody has seen: sample the game")
        self.reveal = None
        self.start(world)

    # ------------------------------------------------------------ strings and tensors
    def action_text(self, action: int) -> str:
        """A player's action as its vocabulary key, with the option's label (as the mover
        may read it) where it is legal now."""
        st = self.st
        if st is None or self.chance or st.is_over:
            return f"action {action}"
        vocabulary = self.spec.vocabulary
        keys = vocabulary.keys(vocabulary.situation_of(st))
        key = keys[action] if 0 <= action < len(keys) else f"action {action}"
        option = self.action_map().get(action)
        if option is None:
            return key
        return f"{key} {self.view(st.mover).option_labels[option]}"

    def information_string(self, player: int) -> str:
        if self.st is None:
            return f"p{player} dealing {len(self.deal)}"
        pending = "" if self.reveal is None else f" revealing {len(self.reveal.chosen)}"
        return f"p{player} {self.digests[player].hex()}{pending}"

    def observation_string(self, player: int) -> str:
        if self.st is None:
            return f"p{player} dealing {len(self.deal)}"
        return f"p{player} {observation_key(self.view(player), 'view')}"

    def view(self, player: int) -> PlayerView:
        st = self.st
        assert st is not None
        options = None if st.is_over else self.spec.master.legal_options(st)
        return view_of(st, player, self.spec.game, options)

    def fill_tensor(self, player: int, out: np.ndarray) -> None:
        """The encoder's vector of ``player``'s view (as env/core.py's observation)."""
        out.fill(0.0)
        if self.st is not None:
            self._encode(self.st, player, out)

    def fill_history_tensor(self, player: int, out: np.ndarray) -> None:
        """``player``'s view of each of the last ``spec.history`` positions, oldest
        first, each ``Encoder.width`` floats (zeros before the game's first)."""
        out.fill(0.0)
        width = self.spec.encoder.width
        frames = out.reshape(self.spec.history, width)
        for row, st in zip(frames[self.spec.history - len(self.past) :], self.past, strict=True):
            self._encode(st, player, row)

    def _encode(self, st: EngineState, player: int, out: np.ndarray) -> None:
        options = None if st.is_over else self.spec.master.legal_options(st)
        out[:] = self.spec.encoder.encode_padded(view_of(st, player, self.spec.game, options))[0]

    def resample(self, player: int, rng: random.Random) -> Core:
        """A world ``player`` cannot tell from this one (see the module docstring)."""
        if self.chance or self.st is None or not self.st.traits.reference:
            raise UsageError("only a decision of the Python engine can be resampled")
        other = self.__deepcopy__({})
        other.cached = False  # its history is the real game's, its cards are not
        other.resampled = True
        world = other.st = cast(Gamestate, self.st.clone())  # the Python engine's
        shuffle_unidentified(world, player, rng)
        world.rng = rng.getrandbits(64) & MASK64
        world.options = None
        other.actions = None
        other.digests = self.spec.fresh_digests  # then the whole log, re-typed
        other.cursor = 0
        other.observe()
        return other

    def __str__(self) -> str:
        st = self.st
        if st is None:
            return f"dealing: {' '.join(self.deal)}"
        zones = " ".join(
            f"{_zone_text(k)}[{' '.join(card_type(st.cards[c]) for c in z)}]"
            for k, z in sorted(st.zones.items())
            if z
        )
        storages = " ".join(f"{k}={v}" for k, v in sorted({**st.ints, **st.strs}.items()))
        pending = "" if self.reveal is None else f" revealing {len(self.reveal.cards)}"
        return f"decisions={st.decisions} mover={st.mover}{pending} | {zones} | {storages}"


def _replayed(name: str, seed: int | None, path: Sequence[int]) -> Core:
    """A Core made again from what ``Core.__reduce__`` kept (the game registered under
    ``name`` in this process)."""
    cls = _REGISTERED.get(name)
    if cls is None:
        raise UsageError(f"no cardlang game is registered as {name!r} in this process")
    core = Core(cls.spec, seed)  # type: ignore[attr-defined]
    for action in path:
        if core.chance:
            core.apply_chance(action)
        else:
            core.apply(action)
    return core


def _newly_seen(after: EngineState, unseen: frozenset[int], since: int) -> tuple[int, ...]:
    """The cards of ``unseen`` (seen by no seat before a move) that some seat has seen in
    ``after``, in the order the log's events since ``since`` first name them."""
    gone = unseen - pools(after).unseen
    order: dict[int, None] = {}
    for event in (after.log or ())[since:]:
        if event[0] in ("move", "remember") and event[1] in gone:
            order.setdefault(event[1], None)
    order.update(dict.fromkeys(sorted(gone)))  # any the events do not name, last
    return tuple(order)


def _zone_text(key: tuple[int, str, str]) -> str:
    owner, kind, name = key
    return f"{'game' if owner == -1 else f'P{owner}'}.{name}({kind})"


# ---------------------------------------------------------------- pyspiel classes


class CardlangState(pyspiel.State):  # type: ignore[misc]
    """An OpenSpiel state over a ``Core`` (its only attribute: Clone deep-copies it)."""

    def __init__(self, game: Any, core: Core | None = None) -> None:
        super().__init__(game)
        self.core = core if core is not None else Core(game.spec)

    def current_player(self) -> int:
        return self.core.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(self.core.action_map())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.core.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        core = self.core
        key = (*self.history(), int(action)) if core.cached else None
        positions = core.spec.positions
        known = positions.get(key) if key is not None else None
        if known is not None:
            self.core = known.__deepcopy__({})
            return
        if core.chance:
            core.apply_chance(int(action))
        else:
            core.apply(int(action))
        if key is not None and len(positions) < MAX_CACHED:
            positions[key] = core.__deepcopy__({}).prepare()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {self.core.spec.type_of(action)}"
        return self.core.action_text(action)

    def is_terminal(self) -> bool:
        st = self.core.st
        return st is not None and self.core.reveal is None and bool(st.is_over)

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.core.spec.nplayers
        return self.core.returns()

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> Any:
        rng = random.Random(int(probability_sampler() * 2**53))
        clone = self.clone()
        clone.core = self.core.resample(player_id, rng)
        return clone

    def __str__(self) -> str:
        return str(self.core)


class CardlangObserver:
    """OpenSpiel's PyObserver: information-state strings (perfect recall) or
    observation strings, and the encoder's vector as the tensor."""

    def __init__(self, spec: Spec, iig_obs_type: Any) -> None:
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        self.dict: dict[str, np.ndarray]
        if self.perfect_recall:  # the views of the last positions, stacked
            self.tensor = np.zeros(spec.history * spec.encoder.width, np.float32)
            self.dict = {"history": self.tensor.reshape(spec.history, spec.encoder.width)}
        else:
            self.tensor = np.zeros(spec.encoder.width, np.float32)
            self.dict = {"observation": self.tensor}

    def set_from(self, state: CardlangState, player: int) -> None:
        if self.perfect_recall:
            state.core.fill_history_tensor(player, self.tensor)
        else:
            state.core.fill_tensor(player, self.tensor)

    def string_from(self, state: CardlangState, player: int) -> str:
        if self.perfect_recall:
            return state.core.information_string(player)
        return state.core.observation_string(player)


class CardlangGame(pyspiel.Game):  # type: ignore[misc]
    """The base of every registered game class (``register`` makes one per name, its
    ``spec``, ``game_type`` and ``game_info`` as class attributes)."""

    spec: Spec
    game_type: Any
    game_info: Any

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        super().__init__(self.game_type, self.game_info, dict(params or {}))

    def new_initial_state(self) -> CardlangState:
        return CardlangState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> CardlangObserver:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        return CardlangObserver(self.spec, iig_obs_type)


# ---------------------------------------------------------------- registration


def register(
    game: GameSource,
    name: str | None = None,
    params: Mapping[str, Any] | None = None,
    engine: str | None = None,
    *,
    chance: str = "auto",
    returns: str = "score",
    utility: str | None = None,
    utility_range: tuple[float, float] | None = None,
    max_decisions: int = DEFAULT_MAX_DECISIONS,
    seed: int | None = None,
    history: int = 8,
) -> Any:
    """Register a game file (or a compiled Game) with pyspiel as ``name`` (default
    ``cardlang_STEM``) and return ``pyspiel.load_game(name)``.  See the module docstring
    for ``chance``, ``returns``, ``utility`` and ``utility_range``; ``engine`` is
    "python" by default (exact chance and resampling need it), "native" for sampled
    chance; ``seed`` seeds the deals of sampled chance (default: the OS's); ``history``:
    the positions the information-state tensor stacks."""
    if chance not in CHANCE_MODES:
        raise UsageError(f"chance is one of {', '.join(CHANCE_MODES)}, not {chance!r}")
    if returns not in ("score", "win"):
        raise UsageError(f"returns is 'score' or 'win', not {returns!r}")
    if history < 1:
        raise UsageError(f"history is at least 1 position, not {history}")
    compiled = load(game, params)
    master = compiled.master(Limits(max_decisions=max_decisions), engine=engine or "python")
    if chance == "exact" and not master.traits.reference:
        raise UsageError("exact chance re-types unseen cards: it needs engine='python'")
    deals = _deals(master, chance)
    seed = seed if seed is not None else random.getrandbits(63)
    name = name or f"cardlang_{compiled.name}"
    spec = Spec(compiled, master, deals, returns, seed, name, history)
    probes = _probe_returns(spec, master)
    kind = _utility(utility, probes)
    game_type = _game_type(spec, name, kind)
    low, high = utility_range or _observed_range(spec, probes)
    total = None if kind == "general_sum" else round(sum(probes[0]), 9)
    game_info = pyspiel.GameInfo(
        num_distinct_actions=max(1, spec.encoder.n_actions),
        max_chance_outcomes=len(spec.card_types) if spec.exact else 0,
        num_players=spec.nplayers,
        min_utility=float(low),
        max_utility=float(high),
        utility_sum=total,  # what the probes met: zero for zero-sum
        max_game_length=max_decisions,
    )
    cls = type(
        f"CardlangGame_{name}",
        (CardlangGame,),
        {"spec": spec, "game_type": game_type, "game_info": game_info},
    )
    _REGISTERED[name] = cls
    pyspiel.register_game(game_type, cls)
    return pyspiel.load_game(name)


def _deals(master: Engine, chance: str) -> Deals | None:
    """Every deal when the chance is exposed exactly, else None (``auto``: exact when it
    can be, which a few seeded random games through it check; see the module docstring)."""
    if chance == "sampled" or (chance == "auto" and not master.traits.reference):
        return None
    if chance == "exact":
        return find_deals(master)
    try:
        deals = find_deals(master, limit=AUTO_EXACT_DEALS)
        spec = Spec(master.game, master, deals, "score", 0, "")
        for seed in range(PROBE_GAMES // 3):
            _play_exact(spec, seed)
    except ExactChanceError:
        return None
    return deals


def _play_exact(spec: Spec, seed: int) -> None:
    """One seeded random game through exact chance (raises ExactChanceError)."""
    core = Core(spec)
    rng = random.Random(seed)
    while not (core.st is not None and core.reveal is None and core.st.is_over):
        if core.chance:
            outcomes = core.chance_outcomes()
            actions, weights = [a for a, _ in outcomes], [w for _, w in outcomes]
            core.apply_chance(rng.choices(actions, weights)[0])
        else:
            core.apply(rng.choice(sorted(core.action_map())))


def _probe_returns(spec: Spec, master: Engine) -> list[list[float]]:
    """The returns of seeded random games (the engine's own deals)."""
    out = []
    for seed in range(PROBE_GAMES):
        st = master.new_game(seed)
        rng = random.Random(seed)
        while not st.is_over:
            master.apply(st, rng.randrange(len(master.legal_options(st))))
        out.append(spec.returns_of(st))
    return out


_UTILITIES = {
    "zero_sum": pyspiel.GameType.Utility.ZERO_SUM,
    "constant_sum": pyspiel.GameType.Utility.CONSTANT_SUM,
    "general_sum": pyspiel.GameType.Utility.GENERAL_SUM,
}


def _utility(utility: str | None, probes: Sequence[Sequence[float]]) -> str:
    """The kind of utility given, else the one seeded random games show."""
    if utility is not None:
        if utility not in _UTILITIES:
            raise UsageError(f"utility is one of {', '.join(_UTILITIES)}, not {utility!r}")
        return utility
    # a constant sum is never guessed: Hearts' 26 points become 78 when a seat shoots
    # the moon, which random games rarely show
    zero = all(abs(sum(r)) < 1e-9 for r in probes)
    return "zero_sum" if zero else "general_sum"


def _game_type(spec: Spec, name: str, utility: str) -> Any:
    mode = pyspiel.GameType.ChanceMode
    return pyspiel.GameType(
        short_name=name,
        long_name=f"cardlang {spec.game.name} ({'exact' if spec.exact else 'sampled'} chance)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=mode.EXPLICIT_STOCHASTIC if spec.exact else mode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=_UTILITIES[utility],
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=spec.nplayers,
        min_num_players=spec.nplayers,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={},
    )


def _observed_range(spec: Spec, probes: Sequence[Sequence[float]]) -> tuple[float, float]:
    """The returns' range over seeded random games, doubled around zero (OpenSpiel asks
    for bounds the rules do not state: pass ``utility_range`` for true ones)."""
    if spec.returns == "win":
        return (-1.0, 1.0)
    # at least (-1, 1): OpenSpiel requires min < max, and games whose random play scores
    # nothing (every probe 0) still need a range
    bound = max(2.0 * max((abs(v) for r in probes for v in r), default=0.0), 1.0)
    return (-bound, bound)
