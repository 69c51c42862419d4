"""One traversal pass over a (sub)tree on every core: the plan that splits it, and the call.

A pass of :func:`~pokerbot.solver.kernels.traverse` visits the tree depth first. The
subtrees below different children of a node share nothing (no slot, no state), so they
can be traversed at once. :func:`pass_plan` picks a *frontier* below a root -- it splits
the largest subtree into its children's until there are 16 tasks a worker and none holds
more than a quarter of a worker's share -- and deals the tasks to the workers (largest
first, each to the least loaded worker); :func:`run_pass` then runs
:func:`~pokerbot.solver.kernels.frontier_pass` (both players' reaches at the frontier,
the tasks in parallel, then the part above the frontier with their values) or, for
trees too small to gain, the plain kernel. The result is the same to the last bit
whatever the number of threads.

The number of workers is numba's thread count (``NUMBA_NUM_THREADS``, or
``numba.set_num_threads`` before the first pass on a tree).

>>> from pokerbot.gamedef import load_game
>>> from pokerbot.solver.tree import build_tree
>>> plan = pass_plan(build_tree(load_game("nlfh-small")), 0, 0, workers=2)
>>> plan.parallel, plan.num_tasks >= 32
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from numba import njit

from pokerbot.solver import kernels as K
from pokerbot.solver.tree import PublicTree

#: The ``scales`` of float storage (none; see :func:`pokerbot.solver.kernels.traverse`).
NO_SCALES = (np.zeros(0, np.float32), np.zeros(0, np.float32))

#: Below this many hand-node visits a pass runs on one thread (task set-up would cost more than it saves).
PARALLEL_MIN_WORK = 200_000


@njit(cache=True)
def subtree_sizes(first_child: np.ndarray, num_children: np.ndarray) -> np.ndarray:
    """Number of nodes below each node, itself included (children come after their parent)."""
    n = first_child.shape[0]
    size = np.ones(n, dtype=np.int64)
    for i in range(n - 1, -1, -1):
        f = first_child[i]
        for c in range(num_children[i]):
            size[i] += size[f + c]
    return size


@dataclass
class PassPlan:
    """How a pass below ``root`` splits into parallel tasks: subtrees rooted at ``task_node``."""

    root: int
    fidx: np.ndarray  # per node: its task number if it roots a task, -1 elsewhere
    task_node: np.ndarray
    thread_tasks: np.ndarray  # (workers, max tasks) task numbers, -1 padded
    top_nodes: int  # nodes above the frontier (the walk's stack)
    parallel: bool

    @property
    def num_tasks(self) -> int:
        return int(self.task_node.shape[0])


def _frontier(tree: PublicTree, root: int, sizes: np.ndarray, workers: int) -> tuple[list[int], int]:
    """Task roots below ``root``: split the largest subtree into its children until there are enough
    tasks to balance ``workers`` (every chance node above a task is split: its deals are the natural
    tasks), and the number of nodes split."""
    kind, fc, nc = tree.kind, tree.first_child, tree.num_children
    total = int(sizes[int(root)])
    want = 16 * workers

    def children(n: int) -> list[int]:
        f = int(fc[n])
        return list(range(f, f + int(nc[n])))

    splittable = (K.DECISION, K.CHANCE)
    if kind[root] not in splittable:
        return [], 0
    tasks = children(int(root))
    split = 1
    while True:
        tasks.sort(key=lambda n: -int(sizes[n]))
        big = tasks[0]
        if kind[big] not in splittable or (len(tasks) >= want and sizes[big] * 4 * workers <= total):
            break
        tasks = children(big) + tasks[1:]
        split += 1
    return sorted(tasks), split


def pass_plan(tree: PublicTree, root: int, trav: int, workers: int | None = None) -> PassPlan:
    """The :class:`PassPlan` of passes of ``trav`` below ``root`` (cached on the tree per root, traverser
    and worker count)."""
    if workers is None:
        workers = numba.get_num_threads()
    cache = tree.derived.setdefault("pass_plans", {})
    key = (int(root), int(trav), int(workers))
    hit = cache.get(key)
    if hit is not None:
        return hit
    sizes = tree.derived.get("subtree_sizes")
    if sizes is None:
        sizes = tree.derived["subtree_sizes"] = subtree_sizes(tree.first_child, tree.num_children)
    work = int(sizes[int(root)]) * max(tree.num_hands)
    tasks, top = _frontier(tree, root, sizes, workers) if work >= PARALLEL_MIN_WORK else ([], 0)
    fidx = np.full(tree.num_nodes, -1, dtype=np.int64)
    fidx[tasks] = np.arange(len(tasks), dtype=np.int64)
    # Largest task first, each to the least loaded worker.
    load = np.zeros(workers, dtype=np.int64)
    lists: list[list[int]] = [[] for _ in range(workers)]
    for k in sorted(range(len(tasks)), key=lambda k: -int(sizes[tasks[k]])):
        w = int(np.argmin(load))
        lists[w].append(k)
        load[w] += int(sizes[tasks[k]])
    width = max((len(x) for x in lists), default=0)
    thread_tasks = np.full((workers, max(width, 1)), -1, dtype=np.int64)
    for w, x in enumerate(lists):
        thread_tasks[w, : len(x)] = x
    plan = PassPlan(root=int(root), fidx=fidx, task_node=np.array(tasks, dtype=np.int64), thread_tasks=thread_tasks,
                    top_nodes=top, parallel=len(tasks) > 1)
    cache[key] = plan
    return plan


def _depth(tree: PublicTree) -> int:
    d = tree.derived.get("depth")
    if d is None:
        d = tree.derived["depth"] = int(K.tree_depth(tree.first_child, tree.num_children))
    return d


def max_actions(tree: PublicTree, max_choices: int = 1, chance: bool = False) -> int:
    """The most options at any choice: a decision's actions or a leaf's continuations (with ``chance``,
    a chance node's deals too)."""
    dec = (tree.kind == K.DECISION) | ((tree.kind == K.CHANCE) if chance else False)
    return max(int(tree.num_children[dec].max()) if dec.any() else 1, int(max_choices))


def work(tree: PublicTree, trav: int, max_choices: int = 1, dtype: type | np.dtype = np.float64) -> tuple:
    """The work buffers ``W`` of :func:`~pokerbot.solver.kernels.traverse` for ``trav`` (cached on the tree)."""
    cache = tree.derived.setdefault("work_cache", {})
    key = (trav, max_choices, np.dtype(dtype).char)
    if key not in cache:
        cards = tree.sd_tables[trav][2].shape[1] if len(tree.sd_tables[trav]) else 1
        cache[key] = K.work_buffers(_depth(tree), max_actions(tree, max_choices), tree.num_hands[trav],
                                    tree.num_hands[1 - trav], cards, dtype)
    return cache[key]


def pass_dtype(src: np.ndarray) -> np.dtype:
    """The precision a pass computes in: its strategy source's, float32 for compressed (integer) codes."""
    return np.dtype(np.float32) if src.dtype.kind in "iu" else src.dtype


def _no_fv(dtype: np.dtype) -> np.ndarray:
    return np.zeros((0, 1), dtype)


def no_frontier(tree: PublicTree) -> np.ndarray:
    f = tree.derived.get("no_fidx")
    if f is None:
        f = tree.derived["no_fidx"] = np.full(tree.num_nodes, -1, dtype=np.int64)
    return f


def run_pass(
    tree: PublicTree, bundle: tuple, persp: tuple, trav: int, root: int, reach_t: np.ndarray, reach_o: np.ndarray,
    mode: int, src: np.ndarray, regret: np.ndarray, ssum: np.ndarray, opts: tuple, lv: np.ndarray,
    br_out: np.ndarray, max_choices: int = 1, scales: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """One pass of ``trav`` below ``root`` (see :func:`~pokerbot.solver.kernels.traverse` for the
    arguments; ``scales`` only for compressed storage), on every worker where the plan splits it. Returns the root values (a work buffer row:
    copy it before the next pass)."""
    plan = pass_plan(tree, root, trav)
    dt = pass_dtype(src)
    if scales is None:
        scales = NO_SCALES
    # One dtype for every vector of a pass: each distinct combination of argument types is one more
    # compilation of the kernels (tens of seconds each on a fresh install).
    reach_t = np.ascontiguousarray(reach_t, dtype=dt)
    reach_o = np.ascontiguousarray(reach_o, dtype=dt)
    if not plan.parallel:
        return K.traverse(trav, root, reach_t, reach_o, mode, bundle, persp, src, regret, ssum, scales, opts, lv, br_out,
                          work(tree, trav, max_choices, dt), _no_fv(dt), no_frontier(tree))
    nh = max(tree.num_hands)
    nt, no = tree.num_hands[trav], tree.num_hands[1 - trav]
    fv = np.zeros((plan.num_tasks, nt), dt)
    rf = (np.zeros((plan.num_tasks, nt), dt), np.zeros((plan.num_tasks, no), dt))
    # The reach walk pushes every child of the nodes it splits: at most top nodes x widest node.
    stack = plan.top_nodes * max_actions(tree, max_choices, chance=True) + 1
    scratch = (np.zeros(stack, dtype=np.int64), np.zeros((stack, nh), dt),
               np.zeros((max_actions(tree, max_choices) + 1, nh), dt))
    return K.frontier_pass(
        trav, root, reach_t, reach_o, mode, bundle, persp, src, regret, ssum, scales, opts, lv, br_out,
        work(tree, trav, max_choices, dt), fv, plan.fidx, plan.task_node, plan.thread_tasks, rf, scratch,
    )
