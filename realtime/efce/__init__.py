"""Safe subgame resolving for extensive-form correlated equilibria (Ling & Fang).

- :mod:`realtime.efce.plan`: relevant sequence pairs, the von Stengel–Forges correlation
  polytope, blueprints (product of independent strategies: Uniform, Jittered).
- :mod:`realtime.efce.incentives`: EFCE incentive constraints per trigger, exploitability
  δ* per trigger, social welfare, the welfare-maximising EFCE LP.
- :mod:`realtime.efce.subgames`: subgame decompositions (Theorem 1's partition), the safe
  LP refinement of one subgame (constraints (A), (B), (C) with the cross terms), safety
  checks on the complete refinement.
- :mod:`realtime.efce.regret`: the regret-minimisation refinement (Algorithm 2): Ξ_j as
  scaled extensions, the LP's constraint rows as the deviator's treeplex, self-play.
- :mod:`realtime.efce.battleship`: the paper's Battleship instances, decomposed by the first shots.

The paper's Table 1 and Fig. 2 are reproduced by :mod:`experiments.efce_tables` (outside the library).

See ``docs/efce.md``.
"""

from __future__ import annotations
