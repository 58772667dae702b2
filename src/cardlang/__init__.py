"""cardlang: a language for card games, an interpreter, and agents that play them."""
