"""Agent implementations, installed as cardlang.agents."""
