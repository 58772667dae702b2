"""A game state sent to another process that compiled the same game: bytes and back.

Pipeline position: engine, beside state.py and native.py.  A tournament's worker for a
built-in agent holds no more than its seat's view (runs/agent_worker.py): at each of its
decisions the main process sends it one determinization of that view (a whole state,
consistent with what the seat knows, with a fresh RNG) instead of keeping a mirror of
the game there.  This module turns such a state into bytes and back, for either engine.

- **native**: ``Program.save_state``/``load_state`` (native/src/transfer.h).  A native
  state's locations, storages, strings and card types are numbers of its program's
  tables, which grow as a program plays; so the sender's tables travel with the state,
  and the receiver appends them to its game's program, which keeps what it numbered
  itself (a search's) as long as the two agree on every number they share, else to a
  fresh program of the same IR (whose tables are a prefix of them), which then becomes
  the game's (``Game.native_program``): every master made from the game from then on (a
  view's ``master()``, a search's) plays it.
- **python**: a pickle in which every object of the compiled game (its control nodes,
  AST nodes and generated functions, which a state's frames and secret picks refer to)
  is written as its number in ``GameObjects``, a walk of the compiled game made the same
  way in every process, and read back as the receiver's own object of that number.

The receiver is trusted (the sender is the tournament itself), but a malformed message
still raises an error, never a crash.
"""

from __future__ import annotations

import io
import pickle
import sys
import types
from typing import TYPE_CHECKING, Any

from cardlang.engine import control
from cardlang.engine.state import Gamestate
from cardlang.language import ast

if TYPE_CHECKING:
    from cardlang.engine.game import Game

__all__ = ["GameObjects", "send_state", "receive_state"]

_ATOMS = (int, float, str, bytes, bool, type(None), complex, range, type)


class GameObjects:
    """Every object of a compiled game that a Python state may refer to, numbered in the
    order of a walk that does not depend on the process: from the game's setup, program,
    scoring and tie-breaks, through control nodes, AST nodes, generated functions (their
    closures and defaults) and the lists, tuples and dicts between them, each object's
    attributes in the order they were made.  Made right after compiling (``of``) and kept
    on the game, so what play adds later to a cache never changes a number."""

    def __init__(self, game: Game) -> None:
        self.objects: list[Any] = []
        self.number: dict[int, int] = {}
        self._walk([game.setup_actions, game.program, game.scoring, game.tiebreaks])

    @classmethod
    def of(cls, game: Game) -> GameObjects:
        found = game.__dict__.get("_transfer_objects")
        if found is None:
            found = game.__dict__["_transfer_objects"] = cls(game)
        return found  # type: ignore[no-any-return]

    def _walk(self, root: Any) -> None:
        seen: set[int] = set()
        stack = [root]
        while stack:
            obj = stack.pop()
            if isinstance(obj, _ATOMS) or isinstance(obj, types.ModuleType) or id(obj) in seen:
                continue
            seen.add(id(obj))
            if _numbered(obj):
                self.number[id(obj)] = len(self.objects)
                self.objects.append(obj)
            stack.extend(reversed(_parts(obj)))

    def persistent_id(self, obj: Any) -> int | None:
        found = self.number.get(id(obj))
        return found if found is not None and self.objects[found] is obj else None


def _numbered(obj: Any) -> bool:
    """An object that belongs to the compiled game (sent as its number)."""
    return isinstance(obj, control.Control | control.CompiledProcedure | ast.Node) or callable(obj)


def _parts(obj: Any) -> list[Any]:
    """What the walk visits from ``obj``, in an order every process agrees on."""
    if isinstance(obj, list | tuple):
        return list(obj)
    if isinstance(obj, dict):
        return [x for kv in obj.items() for x in kv]
    if isinstance(obj, set | frozenset):
        return []  # no order to agree on (and the compiled game keeps only names in sets)
    if isinstance(obj, types.FunctionType):
        cells = [c.cell_contents for c in obj.__closure__ or () if _filled(c)]
        return [*cells, obj.__defaults__, obj.__kwdefaults__, *_generated_globals(obj)]
    if isinstance(obj, types.MethodType):
        return [obj.__self__, obj.__func__]
    parts: list[Any] = []
    if hasattr(obj, "__dict__"):
        parts.extend(vars(obj).values())
    for klass in type(obj).__mro__:
        for name in klass.__dict__.get("__slots__", ()):
            if isinstance(name, str) and name != "__dict__" and hasattr(obj, name):
                parts.append(getattr(obj, name))
    return parts


def _generated_globals(function: types.FunctionType) -> list[Any]:
    """The namespace of a function the compiler generated (its own, made with the game),
    not that of a module (the same in every process, and not the game's)."""
    namespace = function.__globals__
    module = sys.modules.get(namespace.get("__name__", ""))
    if module is not None and vars(module) is namespace:
        return []
    return [namespace]


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018
    except ValueError:  # a cell not yet bound
        return False
    return True


class _Pickler(pickle.Pickler):
    def __init__(self, file: io.BytesIO, objects: GameObjects) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.objects = objects

    def persistent_id(self, obj: Any) -> int | None:
        if isinstance(obj, _ATOMS):
            return None
        return self.objects.persistent_id(obj)


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: io.BytesIO, objects: GameObjects) -> None:
        super().__init__(file)
        self.objects = objects

    def persistent_load(self, pid: Any) -> Any:
        if type(pid) is not int or not 0 <= pid < len(self.objects.objects):
            raise pickle.UnpicklingError("a game object this game does not have")
        return self.objects.objects[pid]


def send_state(master: Any, st: Any) -> tuple[str, bytes, bytes]:
    """``st`` as (engine, state bytes, table bytes): what ``receive_state`` rebuilds in a
    process that compiled the same game.  The event log, listed options and attached
    knowledge stay behind, and the seed is not sent (the native engine's state keeps
    none; ``receive_state`` gives either engine's state seed 0)."""
    if not isinstance(st, Gamestate):  # the native engine's (engine/native.py)
        program = master.program
        return "native", program.save_state(st.raw), program.save_tables()
    log, options, attached = st.log, st.options, st.attached
    st.log, st.options, st.attached = None, None, None
    try:
        out = io.BytesIO()
        fields = {s: getattr(st, s) for s in _FIELDS}
        fields["seed"] = 0  # a world sent never names the game it was dealt from
        _Pickler(out, GameObjects.of(master.game)).dump(fields)
    finally:
        st.log, st.options, st.attached = log, options, attached
    return "python", out.getvalue(), b""


#: what a Python state is made of (engine/state.py), sent field by field
_FIELDS = tuple(s for s in Gamestate.__slots__ if s not in ("tracker", "budget"))


def receive_state(game: Game, limits: Any, sent: tuple[str, bytes, bytes]) -> tuple[Any, Any]:
    """The master and state ``send_state`` described, in this process's ``game``.  A
    native state gets a fresh program, which becomes the game's: masters made from the
    game afterwards play it."""
    engine, state_bytes, tables = sent
    if engine == "native":
        from cardlang.engine.native import NativeMaster, make_program

        program = game.native_program()
        try:  # kept while it agrees: a search's tree kept between decisions belongs to it
            program.load_tables(tables)
        except RuntimeError:  # it numbered things in another order: start afresh
            program = make_program(game.ir)
            program.load_tables(tables)
            game.use_native_program(program)
        # the native master itself, not the registry's protocol: only it wraps a raw state
        master = NativeMaster(game, limits)
        return master, master.state(program.load_state(state_bytes), 0)
    fields = _Unpickler(io.BytesIO(state_bytes), GameObjects.of(game)).load()
    st = Gamestate.__new__(Gamestate)
    for name in Gamestate.__slots__:
        setattr(st, name, fields.get(name))
    st.cards = _lasting_attributes(game, st.cards)
    return game.master(limits, engine="python"), st


def _lasting_attributes(game: Game, cards: list[dict[str, str]]) -> list[dict[str, str]]:
    """The cards' attribute dicts, each replaced by one the game keeps for its lifetime
    (one per description): point maps cache scores by a dict's identity, which is sound
    only for dicts that outlive every state (compiler/board.py shares them so), not for
    the copies a pickle makes, whose ids are reused once their state is gone."""
    kept: dict[tuple[tuple[str, str], ...], dict[str, str]] = game.__dict__.setdefault(
        "_received_attributes", {}
    )
    out = []
    for attrs in cards:
        key = tuple(attrs.items())
        out.append(kept.setdefault(key, attrs))
    return out
