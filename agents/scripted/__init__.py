"""Scripted agents: rule-based bots whose strategy is data.

``dominion`` holds the Dominion priority bots (buy rules in TOML; the built-in ones are in
``bots/``).  May import: ``cardlang.agents.base``, ``cardlang.information``,
``cardlang.engine`` and ``cardlang.errors``.
"""
