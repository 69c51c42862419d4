"""Nested 1-KLSS over a whole game, and the two safe variants.

Nested solving follows the play: along one playthrough ⊕ meets her infosets top-down,
and at each one solves a gadget whose blueprint is the strategy refined by the solves
*above it on that path* (the previous gadget's solution: the paper's
``Γ ← MakeSubgame(Γ, x, I, k)``). Solves at sibling infosets never see each other,
because no playthrough reaches both. :func:`nested_klss` computes the strategy this
produces everywhere at once, by a depth-first pass over ⊕'s treeplex.

Safe variants:

- :func:`updating_klss` (Theorem 4): every solve *permanently* overrides the blueprint
  below its infoset, and the next solve (at any infoset) starts from the updated
  blueprint; the agent plays the blueprint of the previous playthrough
  (:class:`UpdatingBlueprint`). Exploitability never rises along the sequence of
  blueprints.
- Theorem 5: on reaching ``I`` run 1-KLSS with probability ``p(I) = 1/c`` (``c`` colours
  of a proper colouring of G' on ``I``'s common-knowledge component, so ``p(I) <=
  1/χ``), otherwise play the blueprint to the end. :func:`independent_set_probabilities`
  gives ``p``; ``nested_klss(..., run_probability=p)`` the resulting (expected) strategy.

>>> from pokerbot.efg import games, exploitability, least_exploitable, uniform_floor
>>> g = games.kuhn(); sf = g.sequence_form
>>> floor = uniform_floor(sf.treeplex[0], 0.25)
>>> bp = least_exploitable(sf, 0, floor)
>>> after = nested_klss(g, bp.behavioral, floor)
>>> round(exploitability(sf, 0, after.strategy, -1 / 18) * g.normalizer, 4)   # Table 1: .0124 -> .0015
0.0015
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from pokerbot.efg.game import EfgError, Game, Treeplex
from pokerbot.efg.knowledge import components, greedy_coloring, infoset_graph
from pokerbot.efg.sequence_form import to_behavioral, to_sequence
from realtime.klss.subgame import (
    GADGET_LP_METHOD,
    DOMINATED,
    MAXMARGIN,
    Gadget,
    apply_solution,
    make_subgame,
    solve_gadget,
    to_resolve,
)


#: Blueprint reach below which an infoset counts as never reached (LP round-off leaves
#: ~1e-12 where an equilibrium plays 0; dividing by such a D would wreck the gadget LP).
UNREACHED = 1e-9


@dataclass(frozen=True)
class KlssOptions:
    """Per-solve options: gadget form, reach gifts, transposition merging (and its rule,
    :data:`~realtime.klss.subgame.MERGE_RULES`), order k, and the HiGHS method for the gadget LPs."""

    form: str = MAXMARGIN
    reach: bool = False
    merge_transpositions: bool = False
    merge_rule: str = DOMINATED
    k: int = 1
    lp_method: str = GADGET_LP_METHOD


@dataclass(frozen=True)
class NestedResult:
    """The final sequence-form strategy, its behavioural form, the number of gadget
    solves, their smallest margin (min over solves of the gadget value; >= 0 up to LP
    tolerance) and the wall time."""

    strategy: np.ndarray
    behavioral: np.ndarray
    solves: int
    min_value: float
    seconds: float


def _solve_at(game: Game, beh: np.ndarray, d: int, floor: np.ndarray | None, opts: KlssOptions,
              player: int) -> tuple[np.ndarray, float] | None:
    """One KLSS solve at infoset ``d`` with blueprint ``beh``; None if ``beh`` never gets there."""
    tp = game.treeplex(player)
    x = to_sequence(tp, beh)
    if x[tp.parent_seq[d]] <= UNREACHED:
        return None
    gad: Gadget = make_subgame(game, x, d, opts.k, player=player, floor=floor, reach=opts.reach,
                               merge_transpositions=opts.merge_transpositions, merge_rule=opts.merge_rule)
    if opts.form != MAXMARGIN:
        gad = to_resolve(gad)
    sol = solve_gadget(gad, opts.lp_method)
    return apply_solution(game, beh, gad, sol.strategy), sol.value


def _relative(tp: Treeplex, beh: np.ndarray, d: int) -> np.ndarray:
    """The relative sequence form of ``beh`` below infoset ``d`` (``x[parent(d)] = 1``)."""
    out = np.zeros(tp.num_seqs)
    stack = [(d, 1.0)]
    while stack:
        inf, w = stack.pop()
        f, n = int(tp.first_seq[inf]), int(tp.num_actions[inf])
        for s in range(f, f + n):
            out[s] = w * beh[s]
            stack.extend((c, out[s]) for c in tp.children[s])
    return out


def nested_klss(
    game: Game,
    blueprint: np.ndarray,
    floor: np.ndarray | None = None,
    *,
    options: KlssOptions = KlssOptions(),
    player: int = 0,
    run_probability: np.ndarray | None = None,
    progress: Callable[[int], None] | None = None,
) -> NestedResult:
    """Nested 1-KLSS at every decision infoset of ``player``, top-down, each solve using
    the strategy refined by the solves above it as its blueprint (``floor`` imposed at
    every infoset but each solve's root). ``blueprint`` is behavioural.

    With ``run_probability[d] < 1``, the solve at ``d`` runs only with that probability;
    otherwise the current strategy (the blueprint as refined by the solves above ``d``)
    is played from ``d`` on (Theorem 5's rule); the result is the expected sequence form.
    """
    tp = game.treeplex(player)
    blueprint = np.asarray(blueprint, dtype=np.float64)
    if blueprint.shape != (tp.num_seqs,):
        raise EfgError(f"blueprint has {blueprint.shape} entries, player {player} has {tp.num_seqs} sequences")
    start = time.perf_counter()
    count = 0
    worst = np.inf

    def visit(d: int, beh: np.ndarray) -> np.ndarray:
        nonlocal count, worst
        solved = _solve_at(game, beh, d, floor, options, player)
        new = beh
        if solved is not None:
            new, value = solved
            count += 1
            worst = min(worst, value)
            if progress is not None:
                progress(count)
        f, n = int(tp.first_seq[d]), int(tp.num_actions[d])
        rel = np.zeros(tp.num_seqs)
        for s in range(f, f + n):
            rel[s] += new[s]
            for c in tp.children[s]:
                rel += new[s] * visit(c, new)
        p = 1.0 if run_probability is None else float(run_probability[d])
        if p < 1.0:
            # not running: keep playing the current strategy (the last solve's, or the blueprint) to the end
            rel = p * rel + (1.0 - p) * _relative(tp, beh, d)
        return rel

    x = np.zeros(tp.num_seqs)
    x[0] = 1.0
    for d in tp.children[0]:
        x += visit(d, blueprint)

    beh = to_behavioral(tp, x)
    return NestedResult(to_sequence(tp, beh), beh, count, float(worst), time.perf_counter() - start)


def independent_set_probabilities(game: Game, player: int = 0) -> np.ndarray:
    """Theorem 5's ``p(I) = 1/c``: ``c`` = colours a greedy colouring of G' uses on ``I``'s
    connected component (an upper bound on the chromatic number, so always safe). Picking
    one colour class per component uniformly gives every infoset this probability."""
    adj = infoset_graph(game, player)
    comp = components(adj)
    color = greedy_coloring(adj)
    colors_per_comp = np.zeros(comp.max() + 1 if len(comp) else 0, dtype=np.int64)
    for c, col in zip(comp, color):
        colors_per_comp[c] = max(colors_per_comp[c], col + 1)
    return 1.0 / colors_per_comp[comp]


@dataclass(frozen=True)
class UpdateTrace:
    """Behavioural blueprint after every update, and the infoset of each update."""

    blueprints: list[np.ndarray]
    infosets: list[int]
    min_value: float
    seconds: float


def top_down_order(game: Game, player: int = 0) -> list[int]:
    """The player's decision infosets, parents before children (treeplex order)."""
    return list(range(game.treeplex(player).num_infosets))


def updating_klss(
    game: Game,
    blueprint: np.ndarray,
    floor: np.ndarray | None = None,
    order: Sequence[int] | None = None,
    *,
    options: KlssOptions = KlssOptions(),
    player: int = 0,
) -> UpdateTrace:
    """Theorem 4: solve at each infoset of ``order`` (default: all, top-down) with the
    *current* blueprint and override it below that infoset for good."""
    start = time.perf_counter()
    beh = np.asarray(blueprint, dtype=np.float64).copy()
    trace = [beh]
    done: list[int] = []
    worst = np.inf
    for d in top_down_order(game, player) if order is None else order:
        solved = _solve_at(game, beh, int(d), floor, options, player)
        if solved is None:
            continue
        beh, value = solved
        worst = min(worst, value)
        trace.append(beh)
        done.append(int(d))
    return UpdateTrace(trace, done, float(worst), time.perf_counter() - start)


class UpdatingBlueprint:
    """The agent of Theorem 4 ("safe and nested k-KLSS by updating the blueprint").

    On each of our infosets it solves a gadget with the current blueprint ``x*`` (refined
    by everything solved so far, in this and earlier playthroughs) and writes the result
    into ``x*``; but it *plays* ``x*_last``, the blueprint as it was when the playthrough
    began. :meth:`end_playthrough` makes ``x*`` the next ``x*_last``.
    """

    def __init__(self, game: Game, blueprint: np.ndarray, floor: np.ndarray | None = None,
                 options: KlssOptions = KlssOptions(), player: int = 0) -> None:
        self.game = game
        self.player = player
        self.floor = floor
        self.options = options
        self.blueprint = np.asarray(blueprint, dtype=np.float64).copy()
        self.last = self.blueprint.copy()

    def act(self, d: int) -> np.ndarray:
        """Update ``x*`` at infoset ``d``; return the action probabilities to play there (from ``x*_last``)."""
        solved = _solve_at(self.game, self.blueprint, d, self.floor, self.options, self.player)
        if solved is not None:
            self.blueprint = solved[0]
        tp = self.game.treeplex(self.player)
        f, n = int(tp.first_seq[d]), int(tp.num_actions[d])
        return self.last[f : f + n].copy()

    def end_playthrough(self) -> None:
        self.last = self.blueprint.copy()
