"""The frames of the control stack: their kinds, and a name for every field of each.

Pipeline position: engine, at the bottom beside state.py (it imports nothing).  The
Gamemaster (gamemaster.py) runs a game's flow on an explicit stack of frames kept in the
Gamestate (``st.stack``), so that a game can stop at any decision, however deep in stages,
loops and calls, be cloned (``frame[:]`` copies a frame) and go on.  The control nodes
(control.py) push frames, the Gamemaster steps and pops them, the run-time library and
the compiler's generated code read the current stage frame (``st.stack[st.stage_idx]``),
and the determinizer (cardlang.information.knowledge) rewrites the card ids they hold.

A frame is a plain list, its kind first: lists, not objects, because the flow reads and
writes them at every step (a list index is the cheapest access Python has).  Every index
into a frame, here and in the layers above, goes through the names below; a frame is
built as a list literal in the order of its layout.

Layouts, field by field (the name of each index in parentheses):

``[SEQ, seq, next]``
    A block being run (``control.Seq``).  ``seq`` (F_NODE): the block; ``next``
    (F_SEQ_NEXT): the index of the item to run next.  Pushed by ``Seq.enter``, by a stage
    for each pass (its body) and by ``new_game`` (the program); popped when done.

``[STAGE, node, current, queued, started, outer, is_team, player, counted]``
    A stage (``control.StageNode``): a cycle of passes over the body until its end
    condition holds.  ``node`` (F_NODE): the stage; ``current`` (F_CUR): the seat whose
    pass it is, or the team in a team stage; ``queued`` (F_QUEUED): the seat (team) that
    ``(cycle next ...)`` put next, else None; ``started`` (F_STARTED): a pass has begun
    (the cycle advances only between passes); ``outer`` (F_OUTER): the stack index of
    the enclosing stage frame, restored as ``st.stage_idx`` when this one ends;
    ``is_team`` (F_TEAM): a team stage; ``player`` (F_PLAYER): the current player, the
    same as ``current`` in a player stage and, in a team stage, the player it started
    with; ``counted`` (F_COUNTED): the current pass counts as a turn (see
    ``Gamemaster._stage_pass``).  Change ``current`` through ``state.set_current`` only,
    which keeps ``player`` in step.  ``st.stage_idx`` is the index of the innermost stage
    frame.

``[ROOT, None, current, queued, started, outer, is_team, player, counted]``
    The bottom of every stack (``st.stack[0]``): the game-level player cycle, laid out as
    a stage frame so that stage code reads it alike.  No node, ``started`` True, ``outer``
    -1, ``is_team`` False.  Reaching it ends the game (completed).

``[LOOP, node, items, next]``
    A loop over a collection (``control.LoopNode``) whose body can reach a decision.
    ``items`` (F_LOOP_ITEMS): the elements, as a tuple taken when the loop starts;
    ``next`` (F_LOOP_NEXT): the index of the next element.

``[REPEAT, node, left]``
    ``(repeat N ...)`` (``control.RepeatNode``): ``left`` (F_REPEAT_LEFT): passes still
    to run.

``[WHILE, node]``
    ``(while BOOL ...)`` (``control.WhileNode``): the condition is tested again before
    each pass; no other state.

``[CALL, saved, low, high, depth]``
    Pushed by ``control.CallNode.enter`` under the body of a call of a *recursive*
    procedure whose body can reach a decision (a call of any other procedure pushes no
    CALL frame; a recursive one whose body cannot runs at once and restores its
    registers itself).  ``saved`` (F_CALL_SAVED): a copy of the registers
    ``regs[low:high]`` (F_CALL_LOW, F_CALL_HIGH: the procedure's own slots) taken before
    the arguments were bound; ``depth`` (F_CALL_DEPTH): how many such calls are open,
    this one included (bounded by ``control.MAX_CALL_DEPTH``).  When the body is done
    the flow reaches the CALL frame, which puts ``saved`` back into ``regs[low:high]`` and
    is popped.  It has no node: its second field is the saved registers.

``[SECRET, node, picks]``
    A ``(simultaneous ...)`` block (``control.SimultaneousNode``) whose body is running.
    ``picks`` (F_PICKS): the secret picks made so far, in order, as a tuple of
    ``(mover, choice, option, registers)`` (the registers as a tuple, taken when the pick
    was made; a tuple of tuples, so that copying the frame copies them).  When the body
    is done the flow reaches this frame, pops it and reveals the picks
    (``Gamemaster._reveal``).
"""

from __future__ import annotations

# ---------------------------------------------------------------- kinds (field F_KIND)
SEQ, STAGE, LOOP, REPEAT, ROOT, WHILE, CALL, SECRET = range(8)

# ---------------------------------------------------------------- fields
# every frame
F_KIND = 0
# SEQ, STAGE, LOOP, REPEAT, WHILE: the control node (None in ROOT; CALL has none)
F_NODE = 1

# SEQ
F_SEQ_NEXT = 2

# STAGE and ROOT
F_CUR = 2
F_QUEUED = 3
F_STARTED = 4
F_OUTER = 5
F_TEAM = 6
F_PLAYER = 7
F_COUNTED = 8

# LOOP
F_LOOP_ITEMS = 2
F_LOOP_NEXT = 3

# REPEAT
F_REPEAT_LEFT = 2

# SECRET
F_PICKS = 2
# the fields of one pick
P_MOVER, P_CHOICE, P_OPTION, P_REGS = range(4)

# CALL
F_CALL_SAVED = 1
F_CALL_LOW = 2
F_CALL_HIGH = 3
F_CALL_DEPTH = 4
