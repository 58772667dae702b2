"""Games played: one game, batches, records and their replays.

Holds the runner (``play``: one game with its seats' agents, optionally traced), batches
(``simulate``: planning, seeds, orchestration; ``statistics``: the summary of a batch),
the play of one planned game wherever it runs (``planned``), backends (``backends``:
serial, process pool, Ray), records (``store``: the SQLite file; ``replay``: a recorded
game played again), transcripts (``transcript``) and progress bars (``progress``).

Within runs/, imports go one way: simulate -> backends, statistics, planned; backends ->
planned -> play, store; statistics and replay -> store.

May import: ``cardlang.agents``, ``cardlang.information``, ``cardlang.compiler``,
``cardlang.engine``, ``cardlang.language`` and ``cardlang.errors``.
"""
