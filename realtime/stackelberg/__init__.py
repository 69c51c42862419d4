"""Safe search for Stackelberg equilibria in general-sum extensive-form games (Ling & Brown).

The leader (player 0) commits to a blueprint and, on entering a subgame, refines it by
a constrained Stackelberg MILP whose bounds on the follower's values keep the
follower's best response (and so the leader's value) from getting worse.

- :mod:`realtime.stackelberg.milp`: HiGHS MILPs with time limits, warm starts, reports.
- :mod:`realtime.stackelberg.response`: the follower's leader-favoured best response,
  BRVs and trunk; bimatrix SSE by multiple LPs.
- :mod:`realtime.stackelberg.bounds`: subgame partitions, Algorithm 2's bounds (α, β).
- :mod:`realtime.stackelberg.search`: the SSE MILP of a whole game or a subgame, safe
  (and naive) search in every subgame, the combined strategy.

The paper's tables (and their blueprints) are reproduced by :mod:`experiments.stackelberg_tables` (outside the library).

See ``docs/stackelberg.md``.
"""

from __future__ import annotations

from realtime.stackelberg.bounds import Bounds, Subgames, compute_bounds
from realtime.stackelberg.milp import MilpResult, solve_milp
from realtime.stackelberg.response import (
    FollowerResponse,
    MatrixSSE,
    follower_response,
    leader_value,
    matrix_sse,
)
from realtime.stackelberg.search import (
    SearchResult,
    SSEProgram,
    SSEResult,
    SubgameReport,
    combine,
    full_game_sse,
    refine_subgame,
    safe_search,
    sse_program,
)

__all__ = [
    "Bounds",
    "FollowerResponse",
    "MatrixSSE",
    "MilpResult",
    "SSEProgram",
    "SSEResult",
    "SearchResult",
    "SubgameReport",
    "Subgames",
    "combine",
    "compute_bounds",
    "follower_response",
    "full_game_sse",
    "leader_value",
    "matrix_sse",
    "refine_subgame",
    "safe_search",
    "solve_milp",
    "sse_program",
]
