"""Continual re-solving and the paper's exploitability protocol on any game of
:mod:`realtime.sog.fog` (the general counterpart of :mod:`realtime.sog.resolve`).

A chain for player ``own`` searches at every public decision state it can reach,
the opponent's included, breadth-first: the first searches are plain GT-CFR from the
first public decision states (nobody has acted: all reaches one); each later search at
``s`` is rooted at ``s`` with the safe gadget and range mixing built from the previous
search's summary there (``own``'s average reach, the opponent's average
counterfactual values and reach). ``own``'s searched policy at its own decisions makes
its strategy; :func:`composed_exploitability` is the exact exploitability of the two
chains' strategies (half the sum of both best-response gains), by sequence-form best
responses in the explicit game.

For perfect-information games, :func:`play_minimax` plays the search against an exact
minimax player.

>>> from realtime.sog.fog import load
>>> from realtime.sog.fog_search import ExactValue
>>> ps = load("kuhn")
>>> e = composed_exploitability(ps, lambda: ExactValue(ps), SearchSettings(50, 1.0), seed=0)
>>> e < 0.05  # chips; uniform play: 0.458
True
"""

from __future__ import annotations

import zlib
from collections import deque
from collections.abc import Callable

import numpy as np

from pokerbot.efg.sequence_form import best_response, to_sequence
from realtime.sog.fog import TERMINAL, PublicStates
from realtime.sog.fog_search import FogSearch, FogValueFunction
from realtime.sog.resolve import SearchSettings, Summary
from realtime.sog.search import Gadget, SoGError

__all__ = ["SearchSettings", "resolve", "chain_policy", "composed_policy", "composed_exploitability",
           "strategy_exploitability", "uniform_behavioral", "play_minimax"]


def search_seed(seed: int, own: int, state: int) -> int:
    """The seed of one search of a chain (reproducible, independent of search order)."""
    return zlib.crc32(f"fog/{seed}/{own}/{state}".encode())


def resolve(ps: PublicStates, state: int, own: int, summary: Summary | None, value_fn: FogValueFunction,
            settings: SearchSettings, seed: int, log_queries: bool = False) -> FogSearch:
    """One search of ``own``'s chain at public ``state`` (a plain search when ``summary`` is None)."""
    if summary is None:
        search = FogSearch(ps, state, ps.initial_ranges(state), value_fn, seed=seed, c_puct=settings.c_puct,
                           log_queries=log_queries)
    else:
        gadget = Gadget(own, summary.own_range, summary.opp_values, summary.opp_range, settings.alpha)
        ranges = (summary.own_range, summary.opp_range) if own == 0 else (summary.opp_range, summary.own_range)
        search = FogSearch(ps, state, ranges, value_fn, seed=seed, gadget=gadget, c_puct=settings.c_puct,
                           log_queries=log_queries)
    return search.run(settings.simulations, settings.c)


def next_summaries(search: FogSearch, own: int) -> dict[int, Summary]:
    """Summaries at the public decision states right below the search root (through chance)."""
    ps = search.ps
    R = search.average_reaches()
    out: dict[int, Summary] = {}
    for d in ps.decision_states(search.root):
        if not search.in_tree[d]:
            continue  # perfect information: an action the search never added is never played
        v = search.average_values(d)
        so, sp = ps.slots(own, d), ps.slots(1 - own, d)
        out[d] = Summary(R[own][so.start : so.stop].copy(), v[1 - own].copy(), R[1 - own][sp.start : sp.stop].copy())
    return out


def uniform_behavioral(ps: PublicStates, player: int) -> np.ndarray:
    """The uniform behavioural strategy of ``player`` over the explicit game's sequences."""
    tp = ps.game.treeplex(player)
    return 1.0 / np.concatenate(([1.0], np.repeat(tp.num_actions, tp.num_actions)))


def chain_policy(ps: PublicStates, own: int, value_fn: FogValueFunction, settings: SearchSettings, seed: int,
                 out: np.ndarray, on_search: Callable[[FogSearch], None] | None = None) -> int:
    """Write ``own``'s searched policy at every public state it can reach into ``out`` (a behavioural
    strategy over ``own``'s sequences); returns the number of searches run."""
    tp = ps.game.treeplex(own)
    queue: deque[tuple[int, Summary | None]] = deque((d, None) for d in ps.first_decisions())
    count = 0
    while queue:
        state, summary = queue.popleft()
        if summary is not None and not summary.own_range.any():
            continue  # own never reaches this state: its policy below does not matter
        search = resolve(ps, state, own, summary, value_fn, settings, search_seed(seed, own, state))
        count += 1
        if on_search is not None:
            on_search(search)
        if int(ps.kind[state]) == own:
            for s, row in zip(ps.slots(own, state), search.policy()):
                d = ps.decision_infoset(own, s)
                f = int(tp.first_seq[d])
                out[f : f + len(row)] = row
        queue.extend(next_summaries(search, own).items())
    return count


def composed_policy(ps: PublicStates, make_value_fn: Callable[[], FogValueFunction], settings: SearchSettings,
                    seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Both players' behavioural strategies of one seed (the paper's protocol)."""
    value_fn = make_value_fn()
    out = (uniform_behavioral(ps, 0), uniform_behavioral(ps, 1))
    for own in (0, 1):
        chain_policy(ps, own, value_fn, settings, seed, out[own])
    return out


def strategy_exploitability(ps: PublicStates, beh0: np.ndarray, beh1: np.ndarray) -> float:
    """Half the sum of both players' best-response gains against ``(beh0, beh1)`` (game units)."""
    g = ps.game
    sf = g.sequence_form
    x, y = to_sequence(g.treeplex(0), beh0), to_sequence(g.treeplex(1), beh1)
    return 0.5 * (best_response(sf, 0, y).value + best_response(sf, 1, x).value)


def composed_exploitability(ps: PublicStates, make_value_fn: Callable[[], FogValueFunction],
                            settings: SearchSettings, seed: int) -> float:
    """Exact exploitability (game units) of :func:`composed_policy` for ``seed``."""
    return strategy_exploitability(ps, *composed_policy(ps, make_value_fn, settings, seed))


def play_minimax(ps: PublicStates, value_fn: FogValueFunction, settings: SearchSettings, minimax: np.ndarray,
                 search_player: int, seed: int) -> float:
    """One game of a perfect-information ``ps``: the search plays ``search_player`` (a fresh search at
    each of its decisions, its most-played action), an exact minimax player (``minimax``: player 0's
    value at every node) the other seat; returns ``search_player``'s payoff."""
    if not ps.perfect_information:
        raise SoGError("play_minimax needs a perfect-information game")
    g = ps.game
    rng = np.random.default_rng(seed)
    h = ps.deal(0, rng)
    while g.player[h] != TERMINAL:
        kids = g.children(h)
        if g.player[h] == search_player:
            p = int(ps.node_state[h])
            search = FogSearch(ps, p, ps.initial_ranges(p), value_fn, seed=search_seed(seed, search_player, p),
                               c_puct=settings.c_puct).run(settings.simulations, settings.c)
            pol = search.policy()[0]
            h = ps.deal(int(kids[int(np.argmax(pol))]), rng)
        else:
            sign = 1.0 if g.player[h] == 0 else -1.0
            vals = sign * minimax[kids]
            h = ps.deal(int(kids[int(np.flatnonzero(vals == vals.max())[0])]), rng)
    return float(g.payoff[h, search_player])
