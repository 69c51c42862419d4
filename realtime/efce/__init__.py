"""Safe subgame resolving for extensive-form correlated equilibria (Ling & Fang).

- :mod:`realtime.efce.plan`: relevant sequence pairs, the von Stengel–Forges correlation
  polytope, blueprints (product of independent strategies: Uniform, Jittered).
- :mod:`realtime.efce.incentives`: EFCE incentive constraints per trigger, exploitability
  δ* per trigger, social welfare, the welfare-maximising EFCE LP.
- :mod:`realtime.efce.subgames`: subgame decompositions (Theorem 1's partition), the safe
  LP refinement of one subgame (constraints (A), (B), (C) with the cross terms), safety
  checks on the complete refinement.
- :mod:`realtime.efce.experiments`: Table 1 on Battleship.

See ``docs/efce.md``.
"""

from __future__ import annotations
