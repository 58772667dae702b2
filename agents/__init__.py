"""Agents: the players of cardlang games, installed as ``cardlang.agents``.

- ``base``: the agent contract (``choose``, declared ``Capabilities``, ``DecisionTrace``);
- ``loop``: the one play loop (ask, resolve the answer, apply);
- ``random_agent``: uniformly random play;
- ``policy_table``: a policy solved by ``cardlang solve`` (``policy:table=PATH``);
- ``opponent_model``: a model fitted by ``cardlang fit-opponent`` (``model:path=PATH``);
- ``specs`` and ``registry``: agent specs (``ismcts:iterations=500``) to agents;
- ``search/``: ISMCTS, MCTS and PIMC, with one budget contract and one evaluator interface;
- ``scripted/``: rule-based bots whose strategy is data (the Dominion bots);
- ``neural/``: the neural agent (a network over a view's tokens, played raw or with PUCT
  search; torch is loaded only when a neural agent is made).

May import: ``cardlang.information``, ``cardlang.engine``, ``cardlang.language`` and
``cardlang.errors``; never ``cardlang.runs`` or above.  A new built-in agent is a class
in one of these modules, added to the table below.
"""

from __future__ import annotations

from functools import partial

from cardlang.agents.base import Agent, Capabilities, DecisionTrace
from cardlang.agents.neural.agent import NeuralAgent
from cardlang.agents.opponent_model import ModelAgent
from cardlang.agents.policy_table import PolicyTableAgent
from cardlang.agents.random_agent import RandomAgent
from cardlang.agents.registry import (
    BUILTIN_AGENTS,
    FILE_AGENTS,
    agent_parameters,
    make_agent,
)
from cardlang.agents.scripted.dominion import BUILTIN_BOTS, DominionBot
from cardlang.agents.search.ismcts import ISMCTSAgent, MCTSAgent
from cardlang.agents.search.pimc import PIMCAgent
from cardlang.agents.specs import AgentSpec, parse_spec

BUILTIN_AGENTS.update(
    {
        "random": RandomAgent,
        "policy": PolicyTableAgent,
        "model": ModelAgent,
        "pimc": PIMCAgent,
        "ismcts": ISMCTSAgent,
        "mcts": MCTSAgent,
        "neural": NeuralAgent,
        **{name: partial(DominionBot.builtin, name) for name in BUILTIN_BOTS},
    }
)
FILE_AGENTS[".toml"] = lambda path: partial(DominionBot.from_file, path)

__all__ = [
    "Agent",
    "AgentSpec",
    "BUILTIN_AGENTS",
    "Capabilities",
    "DecisionTrace",
    "RandomAgent",
    "agent_parameters",
    "make_agent",
    "parse_spec",
]
