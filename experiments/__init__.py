"""Drivers that reproduce the papers' tables and figures, and checks of the agent's inputs.

They sit above every package of the library (they may import all of them, none imports
them), so the library holds the agent and the systems' algorithms only:

- :mod:`experiments.offtree_fig1`: Modicum's Fig. 1 (depth-limited solving on ``nlfh-small``).
- :mod:`experiments.preflop_check`: the real-time agent's flop-start table against a Monte Carlo
  with real cards (``python -m experiments.preflop_check``).
- :mod:`experiments.klss_tables`: Table 1 and Proposition 3 of the KLSS paper (``pokerbot klss``).
- :mod:`experiments.stackelberg_tables`: the safe Stackelberg search paper's tables (``pokerbot stackelberg``).
- :mod:`experiments.efce_tables`: Table 1 and Fig. 2 of the EFCE resolving paper (``pokerbot efce``).
"""
