"""The cardlang grammar (cardlang.lark), shipped inside the installed package."""
