"""Games played: one game, batches, tournaments, records and their replays.

- ``runner``: one game played by one agent per seat, optionally recorded move by move;
- ``simulate``: batches of games: planning, seeds, orchestration, recording;
- ``planned``: a planned game of a batch played, the same in this process and in any worker;
- ``backends``: what plays a batch's games: serially, in a process pool, or on Ray;
- ``statistics``: the summary of a batch, with Wilson intervals;
- ``store``: the records, one SQLite file, batches planned up front and resumable;
  ``rows``: the checks of every row read back from it (the file is untrusted);
- ``replay``: a recorded game played again from its seed and recorded option indices;
- ``importing``: games played elsewhere imported into the records (``cardlang import-log``);
- ``transcript``: a game move by move, as text; ``story``: a game told turn by turn in
  words (``--story [--as SEAT]``); ``ending``: why a game ended and its score's parts,
  from ``(end-reason ...)`` and ``(score-part ...)``;
- ``progress``: the progress bar of long commands;
- ``tournament``: every pairing of agents, secret seeds, forfeits, Bradley-Terry ratings;
- ``sandbox``: agents in worker processes under limits, what a tournament plays with;
  ``agent_worker``: such a worker's own entry point; ``channel``: the framed, bounded
  messages between them; ``agent_view``: the view an agent from a file receives, as
  plain data; ``jail``: the bubblewrap jail its worker runs in.

Within runs/, imports go one way: tournament -> sandbox -> backends -> planned -> runner;
simulate -> backends, planned, statistics; replay -> tournament (a forfeit's record);
statistics, importing, planned -> store -> runner, rows; agent_worker, sandbox -> agent_view,
jail; story -> ending, transcript.

May import: ``cardlang.agents``, ``cardlang.information``, ``cardlang.compiler``,
``cardlang.engine``, ``cardlang.language``, ``cardlang.inputs`` and ``cardlang.errors``.
"""
