"""The card report: a designer's question, "is my card too strong, or too weak, at its cost?"

``cardlang card-report FILE CARD...`` (cli/card_report.py) judges each named card of a
Dominion game file.  Its modules, in the order a run uses them:

- ``build``: the run: the file read and checked, the cards found (did-you-mean), each
  card's table and games planned, then played and placed (``report_cards``);
- ``budget``: ``--minutes`` split between the sections and the cards, as games, by the
  engine's count of a game's work (the same games on any machine);
- ``plans``: the card-plus-money bot as parameters (copies, its place among the money
  rules, the Province money, a late stop) and the grid of them;
- ``matches``: a bot against another on one kingdom, seats rotated, inside the native
  engine;
- ``money``: the search that tunes the bot (screen, refine, final), as Geronimoo's
  simulator's optimizer does, and its win share against bmu;
- ``peers``: the official cards' tuned bots, shipped (``peers.json``, made by
  benchmarks/card_peers.py), and a card's place among them in words;
- ``sections``: the report's dataclasses, every figure with its interval, and the place
  of the neural sections (not measured yet);
- ``text``, ``page`` and ``svg``: the report in a terminal, as an HTML page, and its bar
  charts as inline SVG.

Pipeline position: above cardlang.learning (the neural sections will train and play a
model) and below cardlang.cli.  May import: cardlang.learning and everything below it.
"""
