"""The CFR family over public trees: CFR, CFR+, Linear CFR and Discounted CFR.

All four are one update rule with per-iteration factors. On iteration ``t``
(1-based), for every decision node of the updating player and every hand::

    R <- R * (d_pos if R > 0 else d_neg) + (v(a) - v)     # then R <- max(R, 0) for CFR+
    S <- S * d_avg + reach * sigma(a)

=========  =====================  =====================  ============  ============
algorithm  d_pos                  d_neg                  clip at 0     d_avg
=========  =====================  =====================  ============  ============
cfr        1                      1                      no            weighting
cfr+       1                      1                      yes           weighting
lcfr       (t-1)/t                (t-1)/t                no            weighting
dcfr       s^a/(s^a+1), s=t-1     s^b/(s^b+1)            no            weighting
=========  =====================  =====================  ============  ============

``weighting`` of the average strategy is ``((t-1)/t) ** gamma``: gamma 0 is a
uniform average, 1 linear (weights t), 2 quadratic (weights ~t^2). Defaults:
cfr uniform, cfr+ and lcfr linear, dcfr gamma = 2 (with alpha = 1.5, beta = 0).

Updates are *alternating* by default (player 0 updates, then player 1 sees its
new strategy); ``alternating=False`` gives simultaneous updates (both players
update against the same current strategies).

>>> from pokerbot.gamedef import load_game
>>> result = solve(load_game("kuhn"), "cfr+", iterations=200)
>>> round(result.value, 3), result.exploitability() < 1.0
(-0.056, True)
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pokerbot.gamedef import GameDef, load_game
from pokerbot.menus import BetMenuFn
from pokerbot.solver import kernels as K
from pokerbot.solver import passes
from pokerbot.solver.best_response import (
    _EMPTY,
    _perspective,
    best_response_values,
    expected_value,
    exploitability,
    leaf_values_for,
    normalize_blocks,
    root_ranges,
)
from pokerbot.solver.leaves import LeafEvaluator, leaf_layout
from pokerbot.solver.tree import PublicTree, SolverError, build_tree
from pokerbot.state import State

ALGORITHMS = ("cfr", "cfr+", "lcfr", "dcfr")
_AVERAGING = {"uniform": 0.0, "linear": 1.0, "quadratic": 2.0}
_ALG_CODE = {"cfr": K.ALG_CFR, "cfr+": K.ALG_CFR_PLUS, "lcfr": K.ALG_LCFR, "dcfr": K.ALG_DCFR}


#: ``dtype`` of 16-bit storage: regrets as int16 and strategy sums as uint16 codes, one float32 scale a
#: block (postflop-solver's compression); passes compute in float32.
COMPRESSED = "compressed"

#: Trees with fewer strategy entries than this are solved in float64 unless told otherwise (8 MB an array).
FLOAT64_SLOTS = 1 << 20


def storage_dtype(num_slots: int, dtype: type | np.dtype | str | None = None) -> np.dtype:
    """The precision of a solve's passes: ``dtype`` if given (float32 or float64; float32 for
    ``"compressed"`` storage), else float64 below :data:`FLOAT64_SLOTS` entries and float32 above."""
    if isinstance(dtype, str) and dtype == COMPRESSED:
        return np.dtype(np.float32)
    if dtype is None:
        return np.dtype(np.float64 if num_slots < FLOAT64_SLOTS else np.float32)
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise SolverError(f"dtype must be float32, float64 or {COMPRESSED!r}, got {dtype!r}") from None
    if dt not in (np.float32, np.float64):
        raise SolverError(f"dtype must be float32, float64 or {COMPRESSED!r}, got {dt}")
    return dt


class Solver:
    """A CFR-family solver over a :class:`PublicTree`, optionally from given root ranges.

    A depth-limited tree needs ``leaves``, the :class:`~pokerbot.solver.leaves.LeafEvaluator`
    of its continuation leaves; the leaf choices are then part of the strategy array
    (after the tree's decision slots) and of every exploitability figure.

    Storage is two strategy-sized arrays, ``regret`` and ``ssum``, of ``dtype``
    (by default float64 for trees of under :data:`FLOAT64_SLOTS` entries, where it costs
    little and figures agree with other implementations to the last digits, float32
    above, or ``"compressed"``: 16-bit codes with a float32 scale per decision node, half of
    float32's memory); the current strategy is regret matching of ``regret``,
    computed where a pass needs it, and the average strategy is ``ssum`` normalised (the
    exploitability reads ``ssum`` in place). Passes over trees with chance nodes run on
    every numba thread (:mod:`pokerbot.solver.passes`); the result does not depend on
    the number of threads.

    ``reset_average`` restarts the average at iterations 1, 2, 5, 17, 65, ... as
    postflop-solver's DCFR does (with ``gamma = 3`` there).

    >>> from pokerbot.gamedef import load_game
    >>> from pokerbot.solver.tree import build_tree
    >>> s = Solver(build_tree(load_game("leduc")), "dcfr")
    >>> s.run(300)
    >>> s.exploitability() < 5.0
    True
    """

    def __init__(
        self,
        tree: PublicTree,
        algorithm: str = "cfr+",
        *,
        alternating: bool = True,
        averaging: str | float | None = None,
        alpha: float = 1.5,
        beta: float = 0.0,
        gamma: float | None = None,
        reset_average: bool = False,
        ranges: tuple[np.ndarray, np.ndarray] | None = None,
        leaves: LeafEvaluator | None = None,
        dtype: type | np.dtype | str | None = None,
    ) -> None:
        algorithm = algorithm.lower()
        if algorithm not in ALGORITHMS:
            raise SolverError(f"unknown algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
        dt = storage_dtype(leaf_layout(tree, leaves).num_slots, dtype)
        self.tree = tree
        self.algorithm = algorithm
        self.alternating = bool(alternating)
        self.alpha = float(alpha)
        self.beta = float(beta)
        self.reset_average = bool(reset_average)
        if averaging is None:
            g = gamma if gamma is not None else {"cfr": 0.0, "cfr+": 1.0, "lcfr": 1.0, "dcfr": 2.0}[algorithm]
        elif isinstance(averaging, str):
            if averaging not in _AVERAGING:
                raise SolverError(f"unknown averaging {averaging!r}; choose one of {', '.join(_AVERAGING)} or a number")
            g = _AVERAGING[averaging]
        else:
            g = float(averaging)
        if g < 0:
            raise SolverError(f"averaging exponent must be >= 0, got {g}")
        self.gamma = g
        self.dtype = dt
        self.ranges = ranges
        self.leaves = leaves
        self.layout = leaf_layout(tree, leaves)
        self._reach = root_ranges(tree, ranges)
        n = self.layout.num_slots
        self.compressed = isinstance(dtype, str) and dtype == COMPRESSED
        if self.compressed:
            self.regret = np.zeros(n, dtype=np.int16)
            self.ssum = np.zeros(n, dtype=np.uint16)
            blocks = tree.num_nodes + 2 * tree.num_leaves
            self.scales: tuple[np.ndarray, np.ndarray] = (np.zeros(blocks, np.float32), np.zeros(blocks, np.float32))
        else:
            self.regret = np.zeros(n, dtype=dt)
            self.ssum = np.zeros(n, dtype=dt)
            self.scales = passes.NO_SCALES
        self.iteration = 0
        self._persp = (_perspective(tree, 0, dt), _perspective(tree, 1, dt))
        self._locks: list[tuple[int, int, int, np.ndarray]] = []

    @property
    def num_slots(self) -> int:
        """Length of the strategy arrays (decision slots, then leaf-choice blocks)."""
        return self.layout.num_slots

    def memory_bytes(self) -> int:
        """Bytes the solve holds: the tree's arrays and the two strategy-sized arrays."""
        size = self.regret.itemsize
        return (self.tree.memory_bytes(2, size) + (self.num_slots - self.tree.num_slots) * 2 * size
                + self.scales[0].nbytes + self.scales[1].nbytes)

    def discount_factors(self, t: int) -> tuple[float, float, float, bool]:
        """Iteration ``t``'s factors on positive regrets, negative regrets and the strategy sum, and
        whether regrets are clipped at zero (CFR+); hooks that edit regrets between iterations use them."""
        return K.iteration_factors(float(t), _ALG_CODE[self.algorithm], self.alpha, self.beta, self.gamma,
                                   self.reset_average)

    def iterate(self, count: int) -> None:
        """Run ``count`` iterations (both players update once per iteration)."""
        r = self._reach
        lay = self.layout
        tree = self.tree
        alg = _ALG_CODE[self.algorithm]
        parallel = passes.pass_plan(tree, 0, 0).parallel
        if tree.num_leaves == 0 and self.alternating and not parallel and not self._locks:
            r0, r1 = (np.ascontiguousarray(x, dtype=self.dtype) for x in r)
            K.run_iterations(
                self.iteration, int(count), alg, self.alpha, self.beta, self.gamma, self.reset_average,
                r0, r1, lay.bundle, self._persp[0], self._persp[1], self.regret, self.ssum, self.scales,
                passes.work(tree, 0, 1, self.dtype), passes.work(tree, 1, 1, self.dtype), np.zeros((0, 1), self.dtype),
                passes.no_frontier(tree),
            )
            self.iteration += int(count)
            return
        for _ in range(int(count)):
            t = self.iteration + 1
            opts = self.discount_factors(t)
            # Simultaneous updates: both players play the strategies of the regrets before this iteration.
            src = self.regret if self.alternating else self.regret.copy()
            for p in range(2):
                lv = leaf_values_for(lay, p, r, src)
                passes.run_pass(tree, lay.bundle, self._persp[p], p, 0, r[p], r[1 - p], K.MODE_CFR, src,
                                self.regret, self.ssum, opts, lv, _EMPTY, lay.max_choices[p], self.scales)
                self._apply_locks(p)
            self.iteration = t

    def lock(self, node: int, probabilities: np.ndarray) -> None:
        """Fix the strategy at decision ``node``: ``probabilities`` over its actions (one row for every
        hand, or ``(actions, hands)``). The node then plays it in every iteration and in the average;
        the rest of the tree is solved against it (node locking)."""
        node = int(node)
        tree = self.tree
        if not 0 <= node < tree.num_nodes or tree.kind[node] != K.DECISION:
            raise SolverError(f"node {node} is not a decision node of the tree")
        p = int(tree.player[node])
        nc, nh = int(tree.num_children[node]), tree.num_hands[p]
        probs = np.asarray(probabilities, dtype=np.float64)
        if probs.shape == (nc,):
            probs = np.repeat(probs[:, None], nh, axis=1)
        if probs.shape != (nc, nh):
            raise SolverError(f"a lock at node {node} needs {nc} probabilities (or ({nc}, {nh})), got {probs.shape}")
        if not np.all(np.isfinite(probs)) or np.any(probs < 0) or not np.allclose(probs.sum(axis=0), 1.0, atol=1e-6):
            raise SolverError(f"the locked probabilities at node {node} must be >= 0 and sum to 1 for every hand")
        self._locks.append((p, node, int(tree.slot[node]), probs.reshape(-1)))
        self._apply_locks(p)

    def _apply_locks(self, p: int) -> None:
        """Reset the locked blocks of player ``p``: regrets proportional to the lock (regret matching
        gives it back exactly) and sums equal to it (so does the average)."""
        for q, node, off, probs in self._locks:
            if q == p:
                end = off + probs.shape[0]
                if self.compressed:
                    # Codes of the lock at scale 1: decoded, regrets and sums equal the probabilities.
                    self.regret[off:end] = np.rint(probs * K.R16).astype(np.int16)
                    self.ssum[off:end] = np.rint(probs * K.S16).astype(np.uint16)
                    self.scales[0][node] = self.scales[1][node] = 1.0
                else:
                    self.regret[off:end] = probs
                    self.ssum[off:end] = probs

    def step(self) -> None:
        """One iteration (both players update once)."""
        self.iterate(1)

    def run(
        self,
        iterations: int,
        *,
        progress: bool = False,
        eval_every: int = 0,
        callback: Callable[[int, float], None] | None = None,
    ) -> None:
        """Run ``iterations`` more iterations.

        With ``eval_every > 0`` the exploitability of the average strategy is
        computed every that many iterations (and at the end), shown on the
        progress bar and passed to ``callback(iteration, mbb_per_game)``.
        """
        if iterations < 0:
            raise SolverError(f"iterations must be >= 0, got {iterations}")
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=iterations, unit="it", desc=f"{self.algorithm}")
        try:
            done = 0
            chunk = 1
            while done < iterations:
                n = min(chunk, iterations - done)
                if eval_every:
                    n = min(n, eval_every - (done % eval_every))
                t0 = time.perf_counter()
                self.iterate(n)
                dt = time.perf_counter() - t0
                done += n
                # Aim for a few updates a second.
                chunk = max(1, min(chunk * 2, int(n * 0.25 / dt) if dt > 0 else chunk * 2))
                if bar is not None:
                    bar.update(n)
                if eval_every and (done % eval_every == 0 or done == iterations):
                    e = self.exploitability()
                    if bar is not None:
                        bar.set_postfix(expl_mbb=f"{e:.4g}")
                    if callback is not None:
                        callback(self.iteration, e)
        finally:
            if bar is not None:
                bar.close()

    def _fingerprint(self) -> str:
        t = self.tree
        import hashlib

        h = hashlib.sha1()
        h.update(t.game.to_text().encode())
        for a in (t.kind, t.player, t.num_children, t.board, t.amount):
            h.update(np.ascontiguousarray(a).tobytes())
        h.update("\n".join(t.betting).encode())
        h.update(repr((self.algorithm, self.alternating, self.alpha, self.beta, self.gamma)).encode())
        if self.reset_average:
            h.update(b"reset_average")
        return h.hexdigest()

    def save_checkpoint(self, path: str | os.PathLike[str]) -> None:
        """Write regrets, strategy sums and the iteration count to ``path`` (an ``.npz``; atomic)."""
        from pokerbot.npz import write_npz

        write_npz(path, regret=self.regret, ssum=self.ssum, regret_scale=self.scales[0], ssum_scale=self.scales[1],
                  iteration=np.int64(self.iteration), fingerprint=np.array(self._fingerprint()))

    def load_checkpoint(self, path: str | os.PathLike[str]) -> None:
        """Resume from :meth:`save_checkpoint` output. Raises :class:`~pokerbot.errors.CheckpointError`
        if the file is unreadable or was written for another tree, algorithm setting or precision."""
        from pokerbot.errors import CheckpointError
        import zipfile

        from pokerbot.npz import read_npz

        try:
            data = read_npz(path)
            fp = str(data["fingerprint"])
            arrays = {k: data[k] for k in ("regret", "ssum")}
            scales = (data["regret_scale"], data["ssum_scale"]) if self.compressed else passes.NO_SCALES
            iteration = int(data["iteration"])
        except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as exc:
            raise CheckpointError(f"cannot read solver checkpoint {os.fspath(path)!r}: {exc}") from None
        if fp != self._fingerprint():
            raise CheckpointError(f"checkpoint {os.fspath(path)!r} was written for another game, menu or algorithm")
        if iteration < 0:
            raise CheckpointError(f"checkpoint {os.fspath(path)!r}: negative iteration count {iteration}")
        for k, a in arrays.items():
            want = getattr(self, k).dtype
            if a.shape != (self.layout.num_slots,) or a.dtype != want:
                raise CheckpointError(f"checkpoint {os.fspath(path)!r}: {k} has shape {a.shape} and dtype {a.dtype}, "
                                      f"the solver needs ({self.layout.num_slots},) {want}")
            if not np.all(np.isfinite(a)):
                raise CheckpointError(f"checkpoint {os.fspath(path)!r}: {k} has non-finite entries")
        if np.any(arrays["ssum"] < 0):
            raise CheckpointError(f"checkpoint {os.fspath(path)!r}: negative strategy sums")
        for a in scales:
            if a.shape != self.scales[0].shape or a.dtype != np.float32 or not np.all(np.isfinite(a)) or np.any(a < 0):
                raise CheckpointError(f"checkpoint {os.fspath(path)!r}: damaged block scales")
        self.regret, self.ssum = arrays["regret"], arrays["ssum"]
        self.scales = scales
        self.iteration = iteration

    def average_strategy(self) -> np.ndarray:
        """The average strategy (the one that converges) as a float64 strategy array."""
        out = np.empty(self.layout.num_slots)
        for p in range(2):
            normalize_blocks(self.layout, p, self.ssum, out)
        return out

    def current_strategy(self) -> np.ndarray:
        """The current strategy (regret matching of the regrets) as a float64 strategy array."""
        out = np.empty(self.layout.num_slots)
        for p in range(2):
            off, size = self.layout.blocks[p]
            K.regret_match(np.arange(off.shape[0]), size, off, self.tree.num_hands[p], self.regret, out)
        return out

    def exploitability(self) -> float:
        """Exploitability of the average strategy in mbb/g (exact; read from the sums in place)."""
        return exploitability(self.tree, self.ssum, self.ranges, self.leaves)

    def best_response_values(self) -> tuple[float, float]:
        return best_response_values(self.tree, self.ssum, self.ranges, self.leaves)

    def value(self) -> float:
        """Chips per hand for player 0 when both play the average strategy."""
        return expected_value(self.tree, self.ssum, self.ranges, self.leaves)

    def root_values(self, player: int) -> np.ndarray:
        """Counterfactual values of ``player``'s hands at the root under the average strategy."""
        from pokerbot.solver.best_response import counterfactual_values

        return counterfactual_values(self.tree, self.ssum, player, self.ranges, leaves=self.leaves)


@dataclass
class SolveResult:
    """What :func:`solve` returns: the solver, its average strategy and figures."""

    game: GameDef
    tree: PublicTree
    solver: Solver
    strategy: np.ndarray
    seconds: float
    history: list[tuple[int, float]]

    @property
    def policy(self) -> dict[str, dict[str, float]]:
        """The average strategy as a :data:`pokerbot.infoset.Policy` dict (built on first use)."""
        if not hasattr(self, "_policy"):
            from pokerbot.solver.policy import strategy_to_policy

            self._policy = strategy_to_policy(self.tree, self.strategy)
        return self._policy

    def exploitability(self) -> float:
        """Exploitability of the average strategy in mbb/g."""
        return exploitability(self.tree, self.strategy, self.solver.ranges, self.solver.leaves)

    @property
    def value(self) -> float:
        """Chips per hand for player 0 under the average strategy."""
        return expected_value(self.tree, self.strategy, self.solver.ranges, self.solver.leaves)


def solve(
    game: GameDef | str,
    algorithm: str = "cfr+",
    iterations: int = 1000,
    bet_menu: BetMenuFn | None = None,
    *,
    root: State | None = None,
    ranges: tuple[np.ndarray, np.ndarray] | None = None,
    alternating: bool = True,
    averaging: str | float | None = None,
    alpha: float = 1.5,
    beta: float = 0.0,
    gamma: float | None = None,
    reset_average: bool = False,
    dtype: type | np.dtype | str | None = None,
    target_exploitability: float | None = None,
    eval_every: int = 0,
    progress: bool = False,
    callback: Callable[[int, float], None] | None = None,
) -> SolveResult:
    """Solve ``game`` (a GameDef or a shipped name / ``.game`` path) with a CFR-family algorithm.

    Deterministic (no seed needed). ``target_exploitability`` (mbb/g) stops
    early once an evaluation (every ``eval_every`` iterations, default 50 when a
    target is given) reaches it. ``history`` in the result lists the
    (iteration, mbb/g) pairs evaluated.
    """
    if isinstance(game, str):
        game = load_game(game)
    tree = build_tree(game, bet_menu, root)
    solver = Solver(tree, algorithm, alternating=alternating, averaging=averaging, alpha=alpha, beta=beta, gamma=gamma,
                    reset_average=reset_average, ranges=ranges, dtype=dtype)
    history: list[tuple[int, float]] = []
    if target_exploitability is not None and not eval_every:
        eval_every = 50

    class _Stop(Exception):
        pass

    def on_eval(it: int, e: float) -> None:
        history.append((it, e))
        if callback is not None:
            callback(it, e)
        if target_exploitability is not None and e <= target_exploitability:
            raise _Stop

    start = time.perf_counter()
    try:
        solver.run(iterations, progress=progress, eval_every=eval_every, callback=on_eval)
    except _Stop:
        pass
    seconds = time.perf_counter() - start
    return SolveResult(game, tree, solver, solver.average_strategy(), seconds, history)
