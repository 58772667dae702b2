"""The language: from ``.rcy`` text to a checked game.

Holds the AST (``ast``, a package with one module per grammar section: frozen
dataclasses, one per surface form, each with its span), the forms' signatures
(``forms``), value types (``types``), the parser (``parser``: Lark parse tree to AST)
and its syntax-error explainer (``syntax_errors``), game parameters (``params``), the
checker (``checker``: scopes, types, arity, every mistake at once; its rules in
``checker_statements``, ``checker_expressions`` and ``checker_presentation`` (the forms
for people) over ``checker_base``, its result in ``checked_game``, the rules read off the
AST alone in ``ast_facts``), the text of an option's ``(label ...)`` and its placeholders
(``label_text``), what a card is called (``kinds``), what the rules say before any game
is played (``statics``) and the rules' fingerprint that trained models are bound to
(``fingerprint``).

May import: ``cardlang.errors`` and ``cardlang.grammar`` only.  Nothing here runs a game.
A new language form starts here: grammar rule, AST class, checker rule.
"""
