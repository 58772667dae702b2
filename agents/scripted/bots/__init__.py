"""The built-in Dominion bots, one TOML file each (``bigmoney``, ``bmu``, ``smithy``,
``double-witch``): package data that ``cardlang.agents.scripted.dominion`` reads; no
modules.  A bot of your own is a file like these (docs/dominion.md, "Bots").
"""
