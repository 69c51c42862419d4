"""Knowledge-limited subgame solving (Zhang & Sandholm): 1-KLSS on explicit games.

- :mod:`realtime.klss.subgame`: MakeSubgame (maxmargin / resolve gadgets, reach gifts,
  transposition merging), margins, gadget solving.
- :mod:`realtime.klss.nested`: nested 1-KLSS at every infoset, and the two safe variants
  (updating the blueprint, Theorem 4; independent sets of G', Theorem 5).

The paper's Table 1 and Proposition 3 are reproduced by :mod:`experiments.klss_tables` (outside the library).
"""

from __future__ import annotations
