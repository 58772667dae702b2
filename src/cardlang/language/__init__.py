"""The language: from ``.rcy`` text to a checked game.

Holds the AST (``ast``, a package with one module per grammar section: frozen
dataclasses, one per surface form, each with its span), the forms' signatures
(``forms``), value types (``types``), the parser (``parser``: Lark parse tree to AST)
and its syntax-error explainer (``syntax_errors``), game parameters (``params``), the
checker (``checker``: scopes, types, arity, every mistake at once; its rules in
``checker_statements`` and ``checker_expressions`` over ``checker_base``, its result in
``checked_game``, the rules read off the AST alone in ``ast_facts``), what a card is
called (``kinds``) and what the rules say before any game is played (``statics``).

May import: ``cardlang.errors`` and ``cardlang.grammar`` only.  Nothing here runs a game.
A new language form starts here: grammar rule, AST class, checker rule.
"""
