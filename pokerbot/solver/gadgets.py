"""Root gadgets for re-solving a subgame: unsafe, resolve, maxmargin and reach.

A subgame is the part of a public tree below a node ``root`` where the
*opponent* acts (or the root of a tree built from a live state). Our strategy
above the root is fixed, so our reach ``reach_us`` at the root is known; the
opponent's is not. The gadget says what the opponent is allowed to do at the
root, and so what "safe" means (Zhang & Sandholm, "Subgame solving without
common knowledge", section 3; Brown & Sandholm 2017):

* ``unsafe``: the opponent's root range is an estimate (Bayes' rule on the
  strategy we believe it played) and the subgame is solved as a game from those
  two ranges. No guarantee: an opponent who plays differently earlier can exploit
  the re-solved strategy (the negative control of the tests).
* ``resolve`` (Burch et al., CFR-D): per opponent hand a choice between *exit*,
  worth the alternative value ``alt[h]``, and *play*, entering the subgame. The
  two regrets per hand follow CFR's rule (floored at zero under CFR+); the play
  probabilities are the opponent's root reach each iteration (DeepStack's
  "terminate / follow").
* ``maxmargin`` (Moravčík et al.): the opponent picks which hand enters
  (one regret per hand, the payoff of hand ``h`` is its margin
  ``v[h] - alt[h]``); we minimise the largest, i.e. maximise the smallest margin
  ``alt[h] - v[h]``.
* ``reach`` (Brown & Sandholm's Reach-Maxmargin): maxmargin with every
  alternative value raised by the opponent's *gift*, the value its earlier
  actions on the path to the root gave up against the previous strategy
  (:func:`gifts`), so the subgame may concede that much back without raising the
  opponent's best-response value anywhere above the root.

The **alternative values** are the opponent's best-response counterfactual
values at the root against the previous strategy (the blueprint or the previous
solve) with our reach ``reach_us`` (:func:`alternative_values`); a *margin* is
``alt[h] - BR[h]`` for a strategy we might play (:func:`margins`). Plugging the
previous strategy in gives every margin 0; resolve, maxmargin and reach keep
every margin >= 0 at their equilibrium, so the opponent's best response gains
nothing anywhere (up to the solver's convergence), which is what the exact
tests check on whole small games.

Values are counterfactual: chips, weighted by our reach, and by the chance
probabilities below the root only (not those above it). Every gadget composes
with depth-limited leaves: pass the tree's :class:`~pokerbot.solver.leaves.LeafEvaluator`
as ``leaves`` (the opponent's leaf choices are part of its best response).

>>> from pokerbot.gamedef import load_game
>>> from pokerbot.solver import Solver, build_tree, pot_fraction_menu
>>> from pokerbot.solver.navigate import node_state
>>> tree = build_tree(load_game("leduc-nl"), pot_fraction_menu((1.0,), True, 2))
>>> prev = Solver(tree, "cfr+"); prev.run(20); prev = prev.average_strategy()
>>> node = 1                                              # player 1 acts after player 0's check
>>> node_state(tree, node).betting_string(), int(tree.player[node])
('c', 1)
>>> mine = reach_at(tree, prev, 0, node)                   # our (player 0's) reach there
>>> alt = alternative_values(tree, prev, 0, mine, root=node)
>>> bool(np.all(margins(tree, prev, 0, mine, alt, root=node) == 0.0))
True
>>> sub = SubgameSolver(tree, 0, "resolve", mine, alt=alt, root=node, algorithm="dcfr")
>>> sub.run(400)
>>> bool(margins(tree, sub.strategy(), 0, mine, alt, root=node).min() > -0.01)
True
"""

from __future__ import annotations

import numpy as np

from pokerbot.solver import kernels as K
from pokerbot.solver import passes
from pokerbot.solver.best_response import _EMPTY, _perspective, _run, leaf_values_for
from pokerbot.solver.cfr import ALGORITHMS, Solver
from pokerbot.solver.leaves import LeafEvaluator, LeafLayout, leaf_layout
from pokerbot.solver.navigate import path_to, subtree
from pokerbot.solver.tree import CHANCE, DECISION, PublicTree, SolverError

GADGETS = ("unsafe", "resolve", "maxmargin", "reach")

#: Regrets that make the warm start the first iteration's strategy: small against any real regret.
_WARM_SCALE = 1e-20

__all__ = [
    "GADGETS",
    "SubgameSolver",
    "alternative_values",
    "gifts",
    "margins",
    "reach_at",
    "splice",
]


# --- reaches --------------------------------------------------------------------------


def reach_at(
    tree: PublicTree, strat: np.ndarray, player: int, node: int, root_reach: np.ndarray | None = None
) -> np.ndarray:
    """``player``'s reach of each hand at ``node`` under ``strat`` (its own actions only; hands
    blocked by the node's board get 0). ``root_reach`` defaults to all ones."""
    nh = tree.num_hands[player]
    r = np.ones(nh) if root_reach is None else np.array(root_reach, dtype=np.float64)
    for n, c in path_to(tree, node):
        if tree.kind[n] == DECISION and tree.player[n] == player:
            off = int(tree.slot[n]) + c * nh
            r = r * strat[off : off + nh]
    return r * tree.valid[player][int(tree.board[node])]


def _layout(tree: PublicTree, leaves: LeafEvaluator | None) -> LeafLayout:
    return leaf_layout(tree, leaves)


def _values(
    tree: PublicTree, strat: np.ndarray, trav: int, root: int, reach: tuple[np.ndarray, np.ndarray],
    best_response: bool, leaves: LeafEvaluator | None,
) -> np.ndarray:
    layout = _layout(tree, leaves)
    if strat.shape != (layout.num_slots,):
        raise SolverError(f"a strategy array for this tree has shape ({layout.num_slots},), got {strat.shape}")
    b = int(tree.board[root])
    # Hands blocked by the root's board never get there (the kernels' fold values would count them).
    reach = (np.ascontiguousarray(reach[0] * tree.valid[0][b]), np.ascontiguousarray(reach[1] * tree.valid[1][b]))
    mode = K.MODE_BR if best_response else K.MODE_EVAL
    return _run(tree, trav, reach, mode, strat, layout, root=int(root)) * tree.valid[trav][b]


def alternative_values(
    tree: PublicTree, prev: np.ndarray, us: int, reach_us: np.ndarray, root: int = 0,
    leaves: LeafEvaluator | None = None,
) -> np.ndarray:
    """The opponent's best-response counterfactual values at ``root`` against our part of ``prev``,
    with our reach ``reach_us`` there: the alternative values of the safe gadgets."""
    opp = 1 - us
    reach = [np.zeros(0), np.zeros(0)]
    reach[us] = np.asarray(reach_us, dtype=np.float64)
    reach[opp] = np.ones(tree.num_hands[opp])
    return _values(tree, prev, opp, root, (reach[0], reach[1]), True, leaves)


def margins(
    tree: PublicTree, strat: np.ndarray, us: int, reach_us: np.ndarray, alt: np.ndarray, root: int = 0,
    leaves: LeafEvaluator | None = None,
) -> np.ndarray:
    """``alt[h] - BR[h]`` per opponent hand: how much less the opponent's best response wins at
    ``root`` against our part of ``strat`` than the alternative value (0 for hands blocked by the board)."""
    return np.asarray(alt, dtype=np.float64) - alternative_values(tree, strat, us, reach_us, root, leaves)


def gifts(
    tree: PublicTree, prev: np.ndarray, us: int, root: int, leaves: LeafEvaluator | None = None,
    root_reach_us: np.ndarray | None = None,
) -> np.ndarray:
    """The opponent's gifts at ``root`` (Reach subgame solving), in counterfactual values at ``root``.

    For every opponent decision ``Q`` on the path from the tree's root to ``root``,
    where it took action ``a``: ``BR(Q) - BR(Q a)`` per opponent hand, its best-response
    value at ``Q`` minus that of the action taken, against our part of ``prev`` (>= 0).
    Each of *our* decisions between ``Q`` and ``root`` splits the gift among our
    actions in proportion to our total reach into each, so that all the subgames below
    ``Q a`` together never spend more than the gift (chance nodes need no split: a
    counterfactual value is already the chance-weighted sum of its children's).
    """
    opp = 1 - us
    total = np.zeros(tree.num_hands[opp])
    path = path_to(tree, root)
    for i, (q, c) in enumerate(path):
        if tree.kind[q] != DECISION or tree.player[q] != opp:
            continue
        mine = reach_at(tree, prev, us, q, root_reach_us)
        child = int(tree.first_child[q]) + c
        g = alternative_values(tree, prev, us, mine, q, leaves) - alternative_values(tree, prev, us, mine, child, leaves)
        share = 1.0
        for n, cc in path[i + 1 :]:
            if tree.kind[n] == DECISION and tree.player[n] == us:
                before = reach_at(tree, prev, us, n, root_reach_us).sum()
                after = reach_at(tree, prev, us, int(tree.first_child[n]) + cc, root_reach_us).sum()
                share *= after / before if before > 0 else 0.0
        total += np.maximum(g, 0.0) * share
    return total * tree.valid[opp][int(tree.board[root])]


# --- the subgame solver ---------------------------------------------------------------------


class SubgameSolver:
    """CFR-family re-solving of the subgame below ``root`` with a root gadget.

    ``us`` is the player we solve for; the gadget constrains the opponent ``1 - us``.
    ``reach_us``: our reach at the root. ``opp_range``: the opponent's estimated reach
    there (used by ``unsafe``; ignored by the safe gadgets). ``alt``: alternative values
    (:func:`alternative_values`; needed by resolve, maxmargin and reach), ``gift`` the
    reach gadget's gifts (:func:`gifts`). ``warm_start``: a strategy array whose root
    subtree starts the current strategy (the previous solve or the blueprint).
    ``drop_average_before``: iterations before this one are left out of the average
    (Modicum ignores the first half). ``dtype``: the solver's storage (default by tree
    size, see :class:`~pokerbot.solver.cfr.Solver`).

    The strategy arrays are the whole tree's (slots outside the subgame are left as
    ``warm_start`` has them, or uniform): :meth:`strategy` is ready to compose.
    """

    def __init__(
        self,
        tree: PublicTree,
        us: int,
        gadget: str,
        reach_us: np.ndarray,
        *,
        root: int = 0,
        opp_range: np.ndarray | None = None,
        alt: np.ndarray | None = None,
        gift: np.ndarray | None = None,
        algorithm: str = "cfr+",
        leaves: LeafEvaluator | None = None,
        alpha: float = 1.5,
        beta: float = 0.0,
        gamma: float | None = None,
        warm_start: np.ndarray | None = None,
        drop_average_before: int = 0,
        dtype: type | np.dtype | str | None = None,
    ) -> None:
        if gadget not in GADGETS:
            raise SolverError(f"unknown gadget {gadget!r}; choose one of {', '.join(GADGETS)}")
        if algorithm not in ALGORITHMS:
            raise SolverError(f"unknown algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
        if us not in (0, 1):
            raise SolverError(f"us must be player 0 or 1, got {us}")
        root = int(root)
        if not 0 <= root < tree.num_nodes or tree.kind[root] not in (DECISION, CHANCE):
            raise SolverError(f"the subgame root {root} must be a decision or chance node of the tree")
        opp = 1 - us
        self.tree = tree
        self.us = us
        self.opp = opp
        self.gadget = gadget
        self.root = root
        self.leaves = leaves
        self.drop_average_before = int(drop_average_before)
        b = int(tree.board[root])
        self.reach_us = self._vector(reach_us, us, "reach_us") * tree.valid[us][b]
        self.mask = tree.valid[opp][b].copy()
        if gadget == "unsafe":
            if opp_range is None:
                raise SolverError("the unsafe gadget needs the opponent's range (opp_range)")
            self.opp_prior = self._vector(opp_range, opp, "opp_range") * self.mask
            if not self.opp_prior.any():
                raise SolverError("the opponent's range is empty at the subgame root")
        else:
            if alt is None:
                raise SolverError(f"the {gadget} gadget needs alternative values (alt)")
            self.alt = self._vector(alt, opp, "alt", signed=True) * self.mask
            if gadget == "reach":
                if gift is None:
                    raise SolverError("the reach gadget needs the opponent's gifts (gift)")
                self.alt = self.alt + np.maximum(self._vector(gift, opp, "gift", signed=True), 0.0) * self.mask
        self.solver = Solver(tree, algorithm, alpha=alpha, beta=beta, gamma=gamma, leaves=leaves, dtype=dtype)
        s = self.solver
        if warm_start is not None:
            if warm_start.shape != (s.num_slots,):
                raise SolverError(f"warm_start has shape {warm_start.shape}, the tree needs ({s.num_slots},)")
            if not np.all(np.isfinite(warm_start)) or np.any(warm_start < 0):
                raise SolverError("warm_start has negative or non-finite entries")
            # The first iteration plays the warm start: regret matching of tiny regrets proportional to it (the
            # first update outweighs them by far; DCFR's first discount removes them).
            if s.compressed:
                s.regret[:] = np.rint(warm_start * K.R16).astype(np.int16)
                s.scales[0][:] = _WARM_SCALE
            else:
                s.regret[:] = warm_start * _WARM_SCALE
            self._base = np.asarray(warm_start, dtype=np.float64).copy()
        else:
            self._base = s.current_strategy()
        nh = tree.num_hands[opp]
        # resolve: regrets of (play, exit) per hand; maxmargin / reach: one regret per hand.
        self.g_regret = np.zeros((2, nh)) if gadget == "resolve" else np.zeros(nh)
        self.g_strategy = self._gadget_strategy()
        self.iteration = 0
        self._persp = (_perspective(tree, 0, self.solver.dtype), _perspective(tree, 1, self.solver.dtype))
        self.last_root_values = np.zeros(nh)

    @staticmethod
    def _vector(x: np.ndarray, player: int, what: str, signed: bool = False) -> np.ndarray:
        v = np.asarray(x, dtype=np.float64)
        if v.ndim != 1:
            raise SolverError(f"{what} must be a vector over player {player}'s hands, got shape {v.shape}")
        if not np.all(np.isfinite(v)) or (not signed and np.any(v < 0)):
            raise SolverError(f"{what} has {'non-finite' if signed else 'negative or non-finite'} entries")
        return v.copy()

    # -- the gadget --------------------------------------------------------------------------

    def _gadget_strategy(self) -> np.ndarray:
        """The opponent's root reach implied by the gadget's current regrets."""
        if self.gadget == "unsafe":
            return self.opp_prior
        if self.gadget == "resolve":
            pos = np.maximum(self.g_regret, 0.0)
            tot = pos.sum(axis=0)
            play = np.where(tot > 0, pos[0] / np.where(tot > 0, tot, 1.0), 0.5)
            return play * self.mask
        pos = np.maximum(self.g_regret, 0.0) * self.mask
        tot = pos.sum()
        if tot > 0:
            return pos / tot
        return self.mask / max(self.mask.sum(), 1.0)

    def _update_gadget(self, v: np.ndarray, dpos: float, dneg: float, clip: bool) -> None:
        if self.gadget == "unsafe":
            return
        r = self.g_regret
        r *= np.where(r > 0, dpos, dneg)
        if self.gadget == "resolve":
            play = self._gadget_strategy()
            value = play * v + (1.0 - play) * self.alt
            r[0] += (v - value) * self.mask
            r[1] += (self.alt - value) * self.mask
        else:
            m = (v - self.alt) * self.mask  # the opponent's payoff for entering with each hand
            q = self._gadget_strategy()
            r += (m - float(np.dot(q, m))) * self.mask
        if clip:
            np.maximum(r, 0.0, out=r)
        self.g_strategy = self._gadget_strategy()

    # -- iterations ------------------------------------------------------------------------------

    @property
    def num_slots(self) -> int:
        return self.solver.num_slots

    def iterate(self, count: int) -> None:
        """``count`` alternating iterations (we update, then the opponent and its gadget)."""
        s = self.solver
        lay = s.layout
        us, opp, root = self.us, self.opp, self.root
        tree = self.tree
        for _ in range(int(count)):
            t = self.iteration + 1
            dpos, dneg, davg, clip = s.discount_factors(t)
            if t == self.drop_average_before:
                davg = 0.0  # forget the iterations before this one in the average
            opts = (dpos, dneg, davg, clip)
            reach = [np.zeros(0), np.zeros(0)]
            reach[us] = self.reach_us
            reach[opp] = self.g_strategy
            r = (reach[0], reach[1])
            lv = leaf_values_for(lay, us, r, s.regret, root)
            passes.run_pass(tree, lay.bundle, self._persp[us], us, root, r[us], r[opp], K.MODE_CFR, s.regret,
                            s.regret, s.ssum, opts, lv, _EMPTY, lay.max_choices[us], s.scales)
            lv = leaf_values_for(lay, opp, r, s.regret, root)
            v = passes.run_pass(tree, lay.bundle, self._persp[opp], opp, root, r[opp], r[us], K.MODE_CFR, s.regret,
                                s.regret, s.ssum, opts, lv, _EMPTY, lay.max_choices[opp], s.scales).copy()
            self.last_root_values = v
            self._update_gadget(v, dpos, dneg, clip)
            self.iteration = t
            s.iteration = t

    def run(self, iterations: int) -> None:
        if iterations < 0:
            raise SolverError(f"iterations must be >= 0, got {iterations}")
        self.iterate(iterations)

    def strategy(self) -> np.ndarray:
        """The average strategy below the root; the warm start (or uniform) elsewhere and for hands
        that never reached a node."""
        s = self.solver
        out = s.average_strategy()
        lay = s.layout
        for p in range(2):
            off, size = lay.blocks[p]
            nh = self.tree.num_hands[p]
            for o, k in zip(off.tolist(), size.tolist()):
                sums = s.ssum[o : o + k * nh].reshape(k, nh).sum(axis=0)
                idle = sums == 0.0
                if idle.any():
                    block = out[o : o + k * nh].reshape(k, nh)
                    block[:, idle] = self._base[o : o + k * nh].reshape(k, nh)[:, idle]
        return out

    def margins(self, strat: np.ndarray | None = None) -> np.ndarray:
        """Margins of ``strat`` (default: :meth:`strategy`) against the alternative values
        (the raised ones for reach)."""
        if self.gadget == "unsafe":
            raise SolverError("the unsafe gadget has no alternative values, so no margins")
        return margins(self.tree, self.strategy() if strat is None else strat, self.us, self.reach_us, self.alt,
                       self.root, self.leaves)


def splice(tree: PublicTree, base: np.ndarray, part: np.ndarray, root: int, player: int) -> np.ndarray:
    """``base`` with ``player``'s decisions below ``root`` taken from ``part`` (both strategy arrays of ``tree``)."""
    out = np.array(base, dtype=np.float64)
    nh = tree.num_hands[player]
    for n in subtree(tree, root):
        if tree.kind[n] == DECISION and tree.player[n] == player:
            o = int(tree.slot[n])
            k = int(tree.num_children[n]) * nh
            out[o : o + k] = part[o : o + k]
    return out
