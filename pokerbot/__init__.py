"""pokerbot: the core every other package builds on.

Cards, the hand evaluator, game rules from ACPC ``.game`` files, the exact game
state, the ACPC protocol, the :class:`~pokerbot.agent.Agent` interface, baseline
bots and the game-agnostic solver core.
"""

__version__ = "0.1.0"
