"""Continual re-solving with the safe gadget and range mixing, and the composed policy of a seed.

A *re-solving chain* for player ``own`` searches at every public decision
state, the opponent's included (Schmid et al., Student of Games, "Modified Continual
Re-solving" and the supplementary "Pseudocode"). The first search is a
plain GT-CFR from the initial beliefs; each later search at public state ``s``
is rooted at ``s`` (it is always in the previous search's tree, since every
search's initial tree holds its root's children) with a :class:`Gadget` built
from the previous search's summary at ``s``: ``own``'s range under the average
policy, the opponent's average self-play counterfactual values, and the
opponent's range for range mixing (alpha = 0.5).

:func:`composed_policy` follows the paper's evaluation protocol: for a seed,
run both players' chains breadth-first over every public decision state (each
search conditioned on the searches at its predecessors), keep each player's
searched policy at its own decisions, and return the whole-game strategy
array, whose exploitability :func:`composed_exploitability` computes exactly.

>>> from realtime.sog.values import ExactValue
>>> game = PublicGame.load("kuhn")
>>> e = composed_exploitability(game, lambda: ExactValue(game), SearchSettings(50, 1.0), seed=0)
>>> e < 50.0  # mbb/g; uniform play is 458
True
"""

from __future__ import annotations

import zlib
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pokerbot.solver import exploitability, uniform_strategy
from realtime.sog import kernels as K
from realtime.sog.search import GTCFR, Gadget, PublicGame, SoGError, ValueFunction


@dataclass(frozen=True)
class SearchSettings:
    """SoG(s, c) and the re-solving constants."""

    simulations: int = 100
    c: float = 1.0
    alpha: float = 0.5
    c_puct: float = 1.25

    def __post_init__(self) -> None:
        if self.simulations < 0 or not self.c > 0 or not 0.0 <= self.alpha <= 1.0:
            raise SoGError(f"bad search settings: s={self.simulations}, c={self.c}, alpha={self.alpha}")

    @property
    def label(self) -> str:
        return f"SoG({self.simulations},{self.c:g})"


@dataclass
class Summary:
    """What re-solving at a public state keeps from the previous search, for player ``own``."""

    own_range: np.ndarray
    opp_values: np.ndarray
    opp_range: np.ndarray


def search_seed(seed: int, own: int, node: int) -> int:
    """The seed of one search of a chain (reproducible, independent of search order)."""
    return zlib.crc32(f"{seed}/{own}/{node}".encode())


def resolve(
    game: PublicGame,
    node: int,
    own: int,
    summary: Summary | None,
    value_fn: ValueFunction,
    settings: SearchSettings,
    seed: int,
    log_queries: bool = False,
) -> GTCFR:
    """One search of ``own``'s chain at public ``node`` (a plain search when ``summary`` is None)."""
    if summary is None:
        search = GTCFR(game, node, game.initial_ranges(), value_fn, seed=seed, c_puct=settings.c_puct, log_queries=log_queries)
    else:
        gadget = Gadget(own, summary.own_range, summary.opp_values, summary.opp_range, settings.alpha)
        ranges = (summary.own_range, summary.opp_range) if own == 0 else (summary.opp_range, summary.own_range)
        search = GTCFR(game, node, ranges, value_fn, seed=seed, gadget=gadget, c_puct=settings.c_puct, log_queries=log_queries)
    return search.run(settings.simulations, settings.c)


def next_summaries(search: GTCFR, own: int) -> dict[int, Summary]:
    """Summaries at the next public decision states below the search root (through chance)."""
    R = search.average_reaches()
    out: dict[int, Summary] = {}
    for d in search.game.decision_children(search.root):
        v = search.average_values(d)
        out[d] = Summary(R[own][d].copy(), v[1 - own].copy(), R[1 - own][d].copy())
    return out


def chain_policy(
    game: PublicGame,
    own: int,
    value_fn: ValueFunction,
    settings: SearchSettings,
    seed: int,
    out: np.ndarray,
    on_search: Callable[[GTCFR], None] | None = None,
) -> int:
    """Write ``own``'s searched policy at every public state it can reach into ``out``; returns searches run."""
    t = game.tree
    queue: deque[tuple[int, Summary | None]] = deque([(0, None)])
    count = 0
    while queue:
        node, summary = queue.popleft()
        if summary is not None and not summary.own_range.any():
            continue  # own never reaches this state: its policy below does not matter
        search = resolve(game, node, own, summary, value_fn, settings, search_seed(seed, own, node))
        count += 1
        if on_search is not None:
            on_search(search)
        if int(t.player[node]) == own:
            nh = t.num_hands[own]
            off = int(t.slot[node])
            out[off : off + int(t.num_children[node]) * nh] = search.policy().reshape(-1)
        queue.extend(next_summaries(search, own).items())
    return count


def composed_policy(
    game: PublicGame,
    make_value_fn: Callable[[], ValueFunction],
    settings: SearchSettings,
    seed: int,
    on_search: Callable[[GTCFR], None] | None = None,
) -> np.ndarray:
    """The whole-game strategy array of one seed (the paper's protocol; see the module docstring)."""
    if game.tree.kind[0] != K.DECISION:
        raise SoGError("the game's first public state must be a decision")
    strat = uniform_strategy(game.tree)
    value_fn = make_value_fn()
    for own in (0, 1):
        chain_policy(game, own, value_fn, settings, seed, strat, on_search)
    return strat


def composed_exploitability(
    game: PublicGame, make_value_fn: Callable[[], ValueFunction], settings: SearchSettings, seed: int
) -> float:
    """Exact exploitability (mbb/g) of :func:`composed_policy` for ``seed``."""
    return exploitability(game.tree, composed_policy(game, make_value_fn, settings, seed))
