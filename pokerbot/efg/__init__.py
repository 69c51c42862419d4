"""Explicit small games, sequence form and HiGHS linear programs (KLSS, Stackelberg, EFCE).

- :mod:`pokerbot.efg.game`: :class:`Game` (flat-array tree, chance, general-sum payoffs,
  per-player observation infosets at every node, treeplexes) and :func:`build_game`.
- :mod:`pokerbot.efg.games`: the KLSS paper's games (N-matching pennies, Kuhn and Leduc
  from the engine, Liar's Dice, Goofspiel, abrupt dark hex) with their exact sizes.
- :mod:`pokerbot.efg.sequence_form`: :class:`SequenceForm` (treeplexes + sparse payoff
  matrix per player), behavioural <-> sequence form, best responses, exploitability,
  best-response values at observation infosets.
- :mod:`pokerbot.efg.lp`: LP / MILP through HiGHS; maxmin / Nash, game value, the
  least-exploitable strategy under per-action floors.
- :mod:`pokerbot.efg.knowledge`: infoset hypergraph, order-k knowledge sets, graph G'.

>>> from pokerbot.efg import games, lp
>>> g = games.kuhn()
>>> g.num_nodes, g.num_infosets
(58, 12)
>>> round(lp.nash_equilibrium(g.sequence_form).value, 6)
-0.055556
"""

from __future__ import annotations

from pokerbot.efg.game import CHANCE, TERMINAL, Branch, EfgError, Game, Leaf, Move, PlayerInfo, Treeplex, build_game
from pokerbot.efg.knowledge import components, greedy_coloring, infoset_graph, knowledge_set
from pokerbot.efg.lp import (
    MaxminResult,
    NashResult,
    action_floor,
    game_value,
    least_exploitable,
    linear_program,
    maxmin,
    maxmin_matrix,
    mixed_integer_program,
    nash_equilibrium,
    uniform_floor,
)
from pokerbot.efg.sequence_form import (
    BestResponse,
    ObservationValues,
    SequenceForm,
    best_response,
    constraint_matrix,
    expected_payoffs,
    exploitability,
    observation_values,
    optimize_linear,
    to_behavioral,
    to_sequence,
    uniform_strategy,
    worst_case_value,
)

__all__ = [
    "CHANCE",
    "TERMINAL",
    "BestResponse",
    "Branch",
    "EfgError",
    "Game",
    "Leaf",
    "MaxminResult",
    "Move",
    "NashResult",
    "ObservationValues",
    "PlayerInfo",
    "SequenceForm",
    "Treeplex",
    "action_floor",
    "best_response",
    "build_game",
    "components",
    "constraint_matrix",
    "expected_payoffs",
    "exploitability",
    "game_value",
    "greedy_coloring",
    "infoset_graph",
    "knowledge_set",
    "least_exploitable",
    "linear_program",
    "maxmin",
    "maxmin_matrix",
    "mixed_integer_program",
    "nash_equilibrium",
    "observation_values",
    "optimize_linear",
    "to_behavioral",
    "to_sequence",
    "uniform_floor",
    "uniform_strategy",
    "worst_case_value",
]
