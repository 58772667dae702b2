"""The secret picks of a running (simultaneous ...) block, for determinization.

Pipeline position: engine, beside gamemaster.py (which makes and reveals the picks).
A pick is made by one player and kept unseen until the block is done (frames.py:
``[SECRET, node, picks]``).  A seat's determinization (information/knowledge.py) must
not know the other players' picks: its skeleton *blanks* them (``hide_picks``), and each
determinized world draws a blank pick again among the options its choice lists in that
world (``pick_option_count``, ``set_pick``), as it deals the cards the seat cannot see.
The Gamemaster keeps each pick in the block's frame (state.py ``secret_frame``).  The native
engine offers the same four operations on its states (native/src/vm_options.cpp).
"""

from __future__ import annotations

from typing import Any

from cardlang.engine.control import list_options
from cardlang.engine.frames import F_PICKS, P_MOVER, P_OPTION, P_REGS
from cardlang.engine.state import Gamestate, secret_frame


def picks_of(st: Gamestate) -> tuple[Any, ...]:
    """The picks made so far in the running (simultaneous ...) block (none outside one)."""
    frame = secret_frame(st)
    return () if frame is None else frame[F_PICKS]  # type: ignore[no-any-return]


def hide_picks(st: Gamestate, seat: int) -> None:
    """Forget the option of every pick another player made (it becomes blank)."""
    frame = secret_frame(st)
    if frame is not None:
        frame[F_PICKS] = tuple(
            p if p[P_MOVER] == seat else (*p[:P_OPTION], None, *p[P_OPTION + 1 :])
            for p in frame[F_PICKS]
        )


def blank_picks(st: Gamestate) -> list[int]:
    """The indices of the picks whose option is not known (see ``hide_picks``)."""
    return [k for k, p in enumerate(picks_of(st)) if p[P_OPTION] is None]


def pick_options(st: Gamestate, k: int) -> list[Any]:
    """The options pick ``k``'s choice lists now, with the registers it was made with;
    the state is left as it was."""
    _, choice, _, regs = picks_of(st)[k]
    saved = st.regs
    st.regs = list(regs)
    try:
        return list_options(choice, st)
    finally:
        st.regs = saved


def pick_option_count(st: Gamestate, k: int) -> int:
    return len(pick_options(st, k))


def set_pick(st: Gamestate, k: int, index: int) -> None:
    """Make option ``index`` (of ``pick_options``) pick ``k``'s option."""
    option = pick_options(st, k)[index]
    frame = secret_frame(st)
    assert frame is not None
    picks = list(frame[F_PICKS])
    p = picks[k]
    picks[k] = (p[P_MOVER], p[1], option, p[P_REGS])
    frame[F_PICKS] = tuple(picks)
