"""Sound self-play and query solving: the data side of Student of Games training (Schmid et
al., Student of Games, "Data Generation via Sound Self-play", "Training Process" and
Algorithm 2).

One *work unit* (what an actor does between two network refreshes) is one
self-play hand and the query solves it triggers:

- every decision of the hand is made by a search: both players keep a
  re-solving chain (:mod:`realtime.sog.resolve`), both chains search at every
  public decision state, and the actor samples its action from its own chain's
  policy mixed with ``epsilon`` uniform;
- each search, with probability ``q_search``, pushes one of its network queries
  (a leaf public belief state) on the queue of queries to solve;
- each queued query is solved by a plain GT-CFR search with both beliefs fixed;
  its root average counterfactual values and policy become a training example,
  and with probability ``q_recursive`` one of *its* network queries is queued.

Main-line policy targets (the root policy of the searches the actor played by)
are kept too; their value targets are masked out (TD(1) probability 0, as in
the paper's poker column of Table S2).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from realtime.sog import kernels as K
from realtime.sog.network import features
from realtime.sog.resolve import SearchSettings, Summary, next_summaries, resolve, search_seed
from realtime.sog.search import GTCFR, PublicGame, ValueFunction


@dataclass
class Examples:
    """Training examples as arrays (rows): inputs, value targets and masks, policy targets and masks."""

    x: np.ndarray
    value: np.ndarray
    value_mask: np.ndarray
    policy: np.ndarray  # (n, A, Hmax)
    policy_mask: np.ndarray  # (n, A, Hmax): 1 on legal action slots of hands that miss the board
    actor: np.ndarray  # (n,) int

    @classmethod
    def empty(cls, game: PublicGame, input_size: int) -> Examples:
        h0, h1 = game.num_hands
        a, hm = game.max_actions, max(h0, h1)
        return cls(np.zeros((0, input_size), np.float32), np.zeros((0, h0 + h1), np.float32),
                   np.zeros((0, h0 + h1), np.float32), np.zeros((0, a, hm), np.float32),
                   np.zeros((0, a, hm), np.float32), np.zeros(0, np.int64))

    def __len__(self) -> int:
        return int(self.x.shape[0])

    @staticmethod
    def concat(parts: list[Examples]) -> Examples:
        return Examples(*(np.concatenate([getattr(p, f) for p in parts]) for f in
                          ("x", "value", "value_mask", "policy", "policy_mask", "actor")))

    def tail(self, n: int) -> Examples:
        return Examples(*(getattr(self, f)[-n:] for f in ("x", "value", "value_mask", "policy", "policy_mask", "actor")))

    def rows(self, idx: np.ndarray) -> Examples:
        return Examples(*(getattr(self, f)[idx] for f in ("x", "value", "value_mask", "policy", "policy_mask", "actor")))


def example(game: PublicGame, search: GTCFR, with_values: bool) -> Examples:
    """The training example of a finished search at its root belief state."""
    t = game.tree
    n = search.root
    h0, h1 = game.num_hands
    r0, r1 = search.R0[n][None].copy(), search.R1[n][None].copy()
    if search.gadget is not None:  # the belief state the search ends at: average mixed range
        avg = search.average_reaches()
        r0, r1 = avg[0][n][None], avg[1][n][None]
    x = features(game, np.array([n]), r0, r1)
    v0, v1 = search.average_values()
    m0, m1 = game.opponent_masses(r0, r1)
    b = int(t.board[n])
    value = np.zeros((1, h0 + h1), np.float32)
    vmask = np.zeros((1, h0 + h1), np.float32)
    if with_values:
        ok0 = (m0[0] > 0) & (t.valid[0][b] > 0)
        ok1 = (m1[0] > 0) & (t.valid[1][b] > 0)
        value[0, :h0] = np.where(ok0, v0 / np.where(ok0, m0[0], 1) / game.max_stake, 0)
        value[0, h0:] = np.where(ok1, v1 / np.where(ok1, m1[0], 1) / game.max_stake, 0)
        vmask[0, :h0], vmask[0, h0:] = ok0, ok1
    p = int(t.player[n])
    nh = t.num_hands[p]
    nc = int(t.num_children[n])
    a, hm = game.max_actions, max(h0, h1)
    policy = np.zeros((1, a, hm), np.float32)
    pmask = np.zeros((1, a, hm), np.float32)
    policy[0, :nc, :nh] = search.policy()
    pmask[0, :nc, :nh] = t.valid[p][b][None, :]
    return Examples(x, value, vmask, policy, pmask, np.array([p]))


@dataclass
class SelfPlayConfig:
    """Self-play constants (Table S2, poker column, unless noted)."""

    search: SearchSettings = field(default_factory=lambda: SearchSettings(100, 1.0))
    epsilon: float = 0.1
    q_search: float = 0.9
    q_recursive: float = 0.1
    max_queries: int = 64  # a bound on query solves per work unit (not in the paper: keeps units short)


@dataclass
class UnitResult:
    examples: Examples
    searches: int
    query_solves: int
    value_queries: int
    seconds: float


def _sample_query(search: GTCFR, rng: np.random.Generator) -> tuple[int, np.ndarray, np.ndarray] | None:
    q = search.stats.queries
    if not q:
        return None
    return q[int(rng.integers(len(q)))]


def work_unit(game: PublicGame, value_fn: ValueFunction, cfg: SelfPlayConfig, seed: int) -> UnitResult:
    """One self-play hand and its query solves (see the module docstring)."""
    import time

    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    t = game.tree
    h0, h1 = game.num_hands
    # Deal: a hand for each player that shares no card.
    while True:
        hands = (int(rng.integers(h0)), int(rng.integers(h1)))
        if not set(t.hands[0][hands[0]].tolist()) & set(t.hands[1][hands[1]].tolist()):
            break
    parts: list[Examples] = []
    queue: list[tuple[int, np.ndarray, np.ndarray]] = []
    searches = 0
    value_queries = 0
    summaries: list[Summary | None] = [None, None]
    node = 0
    while True:
        kind = t.kind[node]
        if kind == K.CHANCE:
            f, nc = int(t.first_child[node]), int(t.num_children[node])
            ok = [c for c in range(f, f + nc) if t.valid[0][t.board[c], hands[0]] and t.valid[1][t.board[c], hands[1]]]
            node = ok[int(rng.integers(len(ok)))]
            continue
        if kind != K.DECISION:
            break
        actor = int(t.player[node])
        policy = None
        nexts: list[dict[int, Summary]] = [{}, {}]
        for own in (0, 1):
            s = resolve(game, node, own, summaries[own], value_fn, cfg.search, search_seed(seed, own, node), log_queries=True)
            searches += 1
            value_queries += s.stats.value_queries
            if rng.random() < cfg.q_search and (q := _sample_query(s, rng)) is not None:
                queue.append(q)
            if own == actor:
                policy = s.policy()[:, hands[actor]]
                parts.append(example(game, s, with_values=False))
            nexts[own] = next_summaries(s, own)
        assert policy is not None
        nc = int(t.num_children[node])
        mix = (1 - cfg.epsilon) * policy + cfg.epsilon / nc
        a = int(rng.choice(nc, p=mix / mix.sum()))
        child = int(t.first_child[node]) + a
        # The next decision (through chance, dealt below) picks its summary from each chain.
        nxt = child
        while t.kind[nxt] == K.CHANCE:
            f, ncc = int(t.first_child[nxt]), int(t.num_children[nxt])
            ok = [c for c in range(f, f + ncc) if t.valid[0][t.board[c], hands[0]] and t.valid[1][t.board[c], hands[1]]]
            nxt = ok[int(rng.integers(len(ok)))]
        if t.kind[nxt] != K.DECISION:
            break
        summaries = [nexts[p][nxt] for p in range(2)]
        for p in range(2):
            summ = summaries[p]
            if summ is not None and not summ.own_range.any():
                # epsilon exploration took an action the searched policy never plays: restart the range
                summ.own_range = t.valid[p][int(t.board[nxt])].copy()
        node = nxt
    solves = 0
    while queue and solves < cfg.max_queries:
        n, r0, r1 = queue.pop(0)
        s = GTCFR(game, n, (r0, r1), value_fn, seed=int(rng.integers(1 << 31)), c_puct=cfg.search.c_puct, log_queries=True)
        s.run(cfg.search.simulations, cfg.search.c)
        solves += 1
        value_queries += s.stats.value_queries
        parts.append(example(game, s, with_values=True))
        if rng.random() < cfg.q_recursive and (q := _sample_query(s, rng)) is not None:
            queue.append(q)
    return UnitResult(Examples.concat(parts), searches, solves, value_queries, time.perf_counter() - start)
