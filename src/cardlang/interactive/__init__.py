"""People at the table: a person plays a seat of a game beside agents.

Pipeline position: above the runs (it plays games with the one play loop and records
them like any batch), beside analysis and solve; ``cardlang play`` (cli/play.py) is its
face in a terminal, ``cardlang serve`` (cli/serve.py) in a browser.

- ``table``: what a seat sees, as plain data for people (its cards, the open zones, the
  sizes of the rest, the storages, the situation's text, the options' labels), with no
  reference to the game state, so a front end cannot show more than the view holds;
- ``session``: one game with people and agents: the play loop with a narrator of the
  others' moves, advice from an agent, and the game written into the records;
- ``teller``: each move as a seat may be told it, live (another's move by its label only
  when the seat sees the cards it names; runs/story.py tells a recorded game);
- ``terminal``: a person's seat in a terminal (choose by number or by label, ask for
  advice, see the table again);
- ``web``: people's seats on web pages (``cardlang serve``; Starlette and uvicorn, the
  ``web`` extra, imported there only), with ``static/`` the page's HTML, JS and CSS.

May import: cardlang.runs, cardlang.agents and below; never cardlang.cli.
"""

from __future__ import annotations

from cardlang.interactive.session import Abandoned, PersonSeat, Session, advice
from cardlang.interactive.table import Table, table_of

__all__ = ["Abandoned", "PersonSeat", "Session", "Table", "advice", "table_of"]
