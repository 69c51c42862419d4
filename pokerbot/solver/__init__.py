"""The game-agnostic solver core: public trees, the CFR family, best responses, strategy files.

- :func:`solve` runs CFR / CFR+ / Linear CFR / DCFR on a whole game (or a
  subgame from a root state and ranges) and returns the average strategy.
- :func:`policy_exploitability` and :func:`policy_value` measure any policy
  dict (``{infoset key: {label: prob}}``) exactly.
- :func:`save_policy` / :func:`load_policy` read and write the text format of
  :mod:`pokerbot.solver.strategy_io`.
- Depth-limited trees (``build_tree(..., depth_limit=N)``) end in leaves whose
  values come from a :class:`LeafEvaluator` (``Solver(tree, leaves=...)``); see
  :mod:`pokerbot.solver.leaves` and ``docs/depth-limited.md``.

The numba kernels (:mod:`pokerbot.solver.kernels`) see only flat arrays; the
poker part is :mod:`pokerbot.solver.tree` (tree building from a
:class:`~pokerbot.gamedef.GameDef` with a bet menu, board deals, showdown tables).

>>> from pokerbot.gamedef import load_game
>>> leduc = load_game("leduc")
>>> result = solve(leduc, "cfr+", iterations=1000)
>>> result.exploitability() < 0.5, round(result.value, 4)
(True, -0.0856)
>>> round(policy_exploitability(leduc, {}), 1)  # the empty policy plays uniformly
2373.6
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from pokerbot.gamedef import GameDef, load_game
from pokerbot.menus import BetMenuFn
from pokerbot.solver.best_response import (
    best_response_strategy,
    best_response_values,
    counterfactual_values,
    expected_value,
    exploitability,
    nash_conv,
    uniform_strategy,
)
from pokerbot.solver.cfr import ALGORITHMS, SolveResult, Solver, solve
from pokerbot.solver.leaves import LeafEvaluator, leaf_layout
from pokerbot.solver.policy import canonical_key, policy_to_strategy, strategy_to_policy
from pokerbot.solver.strategy_io import load_policy, read_policy, save_policy, save_strategy
from pokerbot.solver.tree import (
    DEFAULT_NOLIMIT_MENU,
    PotFractionMenu,
    PublicTree,
    SolverError,
    build_tree,
    default_menu,
    limit_menu,
    menu_from_spec,
    menu_spec,
    pot_fraction_menu,
)

__all__ = [
    "ALGORITHMS",
    "DEFAULT_NOLIMIT_MENU",
    "PotFractionMenu",
    "LeafEvaluator",
    "PublicTree",
    "SolveResult",
    "Solver",
    "SolverError",
    "best_response_strategy",
    "best_response_values",
    "build_tree",
    "canonical_key",
    "counterfactual_values",
    "default_menu",
    "expected_value",
    "exploitability",
    "game_tree",
    "leaf_layout",
    "limit_menu",
    "load_policy",
    "menu_from_spec",
    "menu_spec",
    "nash_conv",
    "policy_best_responses",
    "policy_exploitability",
    "policy_to_strategy",
    "policy_value",
    "pot_fraction_menu",
    "read_policy",
    "save_policy",
    "save_strategy",
    "solve",
    "strategy_to_policy",
    "uniform_strategy",
]

Policy = Mapping[str, Mapping[str, float]]


@lru_cache(maxsize=16)
def _tree_cached(game: GameDef, bet_menu: BetMenuFn | None) -> PublicTree:
    return build_tree(game, bet_menu)


def game_tree(game: GameDef | str, bet_menu: BetMenuFn | None = None) -> PublicTree:
    """The whole-game public tree of ``game`` under ``bet_menu`` (cached for hashable menus)."""
    if isinstance(game, str):
        game = load_game(game)
    try:
        hash(bet_menu)
    except TypeError:
        return build_tree(game, bet_menu)
    return _tree_cached(game, bet_menu)


def policy_best_responses(game: GameDef | str, policy: Policy, bet_menu: BetMenuFn | None = None) -> tuple[float, float]:
    """(BR0, BR1) in chips per hand against ``policy`` (missing infosets play uniformly over the menu)."""
    tree = game_tree(game, bet_menu)
    return best_response_values(tree, policy_to_strategy(tree, policy))


def policy_exploitability(game: GameDef | str, policy: Policy, bet_menu: BetMenuFn | None = None) -> float:
    """Exact exploitability of ``policy`` in mbb/g: ``1000 * (BR0 + BR1) / 2 / big blind``.

    ``policy`` is keyed by :mod:`pokerbot.infoset` keys (any card order) with
    action labels; information sets it lacks are played uniformly over the
    actions of ``bet_menu`` (default :func:`default_menu`). The best responses
    are restricted to the menu too. Raises :class:`SolverError` for an action
    outside the menu with positive probability.
    """
    tree = game_tree(game, bet_menu)
    return exploitability(tree, policy_to_strategy(tree, policy))


def policy_value(
    game: GameDef | str, policy0: Policy, policy1: Policy, bet_menu: BetMenuFn | None = None
) -> float:
    """Expected chips per hand for player 0 when seat 0 plays ``policy0`` and seat 1 ``policy1``."""
    tree = game_tree(game, bet_menu)
    strat = policy_to_strategy(tree, policy0, players=(0,))
    policy_to_strategy(tree, policy1, players=(1,), out=strat)
    return expected_value(tree, strat)
