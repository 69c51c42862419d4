"""A blueprint's own expected values as AIVAT's value function.

:class:`BlueprintValue` values a state (every hole card known, as AIVAT allows)
by what player 0 expects to win **if both players follow the blueprint from
here on**, computed by backward induction over the blueprint's abstract game
(:mod:`blueprint.abstract_game`) with both players' card buckets:

* per decision node ``n`` of round ``r`` and bucket pair ``(b0, b1)`` of that
  round, ``F[n][b0, b1]`` (and, on the last round, ``S[n][b0, b1]``, the chips at
  stake in the showdowns the blueprint reaches) such that the node's value is
  ``F + S * res`` with ``res`` = +1 / 0 / -1 player 0's showdown result: on the
  last round the cards are all known, so the showdown is exact, not a bucket
  average;
* a decision node averages its children with the actor's strategy for its bucket;
  a round's end averages the next round's node over the next round's bucket pairs,
  ``T_r[b0, b1, b0', b1']`` (and the showdown term ``U[b0, b1, b0', b1'] =
  E[res 1{b0', b1'}]``), estimated once from ``samples`` deals of the card
  abstraction (:meth:`CardBuckets.deal`, a numba kernel); an all-in showdown before
  the last round is worth the pot times ``W_r[b0, b1] = E[res | buckets]``.

A real state is placed on the tree by :class:`blueprint.mapping.TreeMapper`
with its translations made deterministic (a raise between two abstract sizes
goes to the likelier one), so the value is a function of the state. When the
state is at the start of a round whose cards are not dealt yet (just after the
call that closed the previous one), its value is the exact mean over every
possible deal of those cards (17,296 flops, 45 turns, 44 rivers: each the two
players' buckets by table look-up, and on the river the showdown result), which
is also :meth:`chance_mean`; a finished all-in before the river is worth
``(2 equity - 1) * pot`` (:class:`~evaluation.aivat.EquityValue`).

Sampling noise in the tables changes how much variance the control variates
remove, never their mean: AIVAT stays unbiased with any value function, and
``tests/test_evaluation_blueprint_value.py`` checks it exactly on Leduc.

>>> from pokerbot.gamedef import load_game
>>> from blueprint.abstract_game import AbstractGame
>>> from blueprint.model import Blueprint
>>> game = load_game("kuhn")
>>> tree = AbstractGame.build(game, (3,))
>>> v = BlueprintValue(Blueprint(tree, np.ones(tree.num_slots), "lossless", "legal", {}), samples=20_000)
>>> round(v.value(State.initial(game, hole_cards=((44,), (48,)))), 3)   # K vs A, both uniform: K loses
-0.875
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from blueprint.abstract_game import FOLD_NODE, SHOWDOWN
from blueprint.mapping import TreeMapper
from blueprint.model import Blueprint
from blueprint.values import (DEFAULT_SAMPLES, MAX_TABLE_BYTES, BlueprintTables, BlueprintValueError, bucket_rows,
                              hole_buckets, transition_bytes, transition_tables)
from evaluation.aivat import EquityValue
from evaluation.equity import _combination_indices
from pokerbot.evaluator import eval_cards
from pokerbot.gamedef import GameDef
from pokerbot.state import CALL, Action, ActionType, State


class _Likelier:
    """Stands in for the mapper's generator: a draw of 0.5 sends a translated raise to the likelier size."""

    @staticmethod
    def random() -> float:
        return 0.5


@njit(cache=True)
def _results(h0, h1, boards):  # pragma: no cover - numba
    """Player 0's showdown result (+1, 0, -1) on each row of ``boards`` (every board card dealt)."""
    n, nb = boards.shape
    k = h0.shape[0]
    a = np.empty(k + nb, dtype=np.int64)
    b = np.empty(k + nb, dtype=np.int64)
    out = np.empty(n, dtype=np.float64)
    for i in range(k):
        a[i] = h0[i]
        b[i] = h1[i]
    for j in range(n):
        for i in range(nb):
            a[k + i] = boards[j, i]
            b[k + i] = boards[j, i]
        v0 = eval_cards(a, k + nb)
        v1 = eval_cards(b, k + nb)
        out[j] = 1.0 if v0 > v1 else (-1.0 if v0 < v1 else 0.0)
    return out


class BlueprintValue(EquityValue, BlueprintTables):
    """Player 0's expected chips when both players follow ``blueprint`` from the state on (see the module).

    ``samples`` deals (seeded by ``table_seed``) estimate the bucket transitions (dense tables, refused with
    :class:`BlueprintValueError` above ``max_table_bytes``: fine for coarse abstractions only), kept
    (``cache``) in ``$POKERBOT_HOME/aivat/`` by the tree's signature, the card
    abstraction, ``samples`` and ``table_seed``; ``seed`` and ``equity_options`` go to
    :class:`EquityValue` (all-in showdowns before the last round). The tables' seed is its own so
    that the pieces of a match, each with its own ``seed``, share one set of tables.
    """

    def __init__(self, blueprint: Blueprint, samples: int = DEFAULT_SAMPLES, seed: int = 0, cache: bool = True,
                 max_table_bytes: float = MAX_TABLE_BYTES, table_seed: int = 0, **equity_options: int) -> None:
        EquityValue.__init__(self, seed=seed, **equity_options)
        BlueprintTables.__init__(self, blueprint, samples, cache, max_table_bytes, table_seed)
        self.F, self.S = self.backward_induction()
        self.mapper = TreeMapper(self.tree)
        self.mapper.rng = _Likelier()
        self._deals: dict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self._deal_mean: float | None = None

    @classmethod
    def load(cls, path: str | Path, **options: Any) -> BlueprintValue:
        """The value of a blueprint file or trained run name (see :func:`blueprint.agent.resolve_path`)."""
        from blueprint.agent import resolve_path

        return cls(Blueprint.load(resolve_path(path)), **options)

    # -- the tables ---------------------------------------------------------------------

    def _node(self, state: State) -> int:
        """The abstract node standing for ``state`` (deterministic), leaving the mapper positioned there."""
        self.mapper.reset()
        return self.mapper.follow(state).node

    def _bucket_rows(self, r: int, hole: Sequence[int] | np.ndarray, boards: np.ndarray) -> np.ndarray:
        """The round-``r`` bucket of ``hole`` with each row of ``boards``."""
        return bucket_rows(self.cards, r, hole, boards)

    def deals(self, state: State) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(b0, b1, res) over every way the board of ``state``'s round can be completed (one row if it is).

        ``res`` is player 0's showdown result on the last round, 0 before it.
        """
        board = tuple(state.board_cards)[: self.game.board_cards_through(state.round)]
        return self._completions(state.hole_cards, board, state.round)

    def _completions(self, holes: tuple, board: tuple, r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        game = self.game
        key = (holes, board, r)
        hit = self._deals.get(key)
        if hit is not None:
            return hit
        need = game.board_cards_through(r) - len(board)
        if need > 0:
            used = {c for h in holes for c in h} | set(board)
            rest = np.array([c for c in game.deck() if c not in used], dtype=np.int64)
            combos = rest[_combination_indices(len(rest), need)]
            boards = np.concatenate([np.broadcast_to(np.array(board, dtype=np.int64), (len(combos), len(board))),
                                     combos], axis=1)
        else:
            boards = np.array([board[: game.board_cards_through(r)]], dtype=np.int64).reshape(1, -1)
        h0, h1 = (np.array(h, dtype=np.int64) for h in holes)
        b0 = self._bucket_rows(r, h0, boards)
        b1 = self._bucket_rows(r, h1, boards)
        res = _results(h0, h1, boards) if r == self.last else np.zeros(len(boards))
        if len(self._deals) > 4096:
            self._deals.clear()
        out = self._deals[key] = (b0, b1, res)
        return out

    def node_value(self, node: int, state: State) -> float:
        """The value of decision ``node`` with ``state``'s cards (averaged over the round's cards not dealt yet)."""
        if state.round == self.last - 1:
            return self._second_last(node, state)
        b0, b1, res = self.deals(state)
        vals = self.F[node][b0, b1]
        if state.round == self.last:
            vals = vals + self.S[node][b0, b1] * res
        return float(vals.mean())

    def _second_last(self, node: int, state: State) -> float:
        """The second-last round (the turn) exactly: its betting with the players' buckets, then every last card."""
        b0, b1, _ = self.deals(state)
        game = self.game
        board = tuple(state.board_cards)[: game.board_cards_through(state.round)]
        key = (state.hole_cards, board, -1)
        hit = self._deals.get(key)
        if hit is None:
            through = game.board_cards_through(state.round)
            if len(board) == through:
                boards = [board]
            else:  # the same completions, in the same order, as deals(state)
                used = {c for h in state.hole_cards for c in h} | set(board)
                rest = np.array([c for c in game.deck() if c not in used], dtype=np.int64)
                boards = [board + tuple(int(c) for c in x)
                          for x in rest[_combination_indices(len(rest), through - len(board))]]
            rows = [self._completions(state.hole_cards, b, self.last) for b in boards]
            hit = self._deals[key] = (np.stack([x[0] for x in rows]), np.stack([x[1] for x in rows]),
                                      np.stack([x[2] for x in rows]))
        r0, r1, res = hit
        return float(self._walk(node, b0, b1, r0, r1, res).mean())

    def _walk(self, n: int, b0: np.ndarray, b1: np.ndarray, r0: np.ndarray, r1: np.ndarray,
              res: np.ndarray) -> np.ndarray:
        """Node ``n`` of the second-last round for each deal of it (``b0``, ``b1``: its buckets; ``r0``, ``r1``,
        ``res``: the last round's buckets and result for each last card of each deal)."""
        tree = self.tree
        a_n = int(tree.num_actions[n])
        first = int(tree.first_child[n])
        base = int(tree.base[n])
        mine = b0 if tree.player[n] == 0 else b1
        sigma = np.asarray(self.blueprint.strategy[base + mine[:, None] * a_n + np.arange(a_n)[None, :]],
                           dtype=np.float64)
        total = sigma.sum(axis=1, keepdims=True)
        sigma = np.where(total > 0, sigma / np.where(total > 0, total, 1.0), 1.0 / a_n)
        out = np.zeros(len(b0))
        for a in range(a_n):
            c = int(tree.child[first + a])
            kind = int(tree.kind[c])
            s0, s1 = float(tree.spent[c, 0]), float(tree.spent[c, 1])
            if kind == FOLD_NODE:
                val = np.full(len(b0), -s0 if tree.player[c] == 0 else s1)
            elif kind == SHOWDOWN:
                val = min(s0, s1) * res.mean(axis=1)
            elif int(tree.round[c]) == int(tree.round[n]):
                val = self._walk(c, b0, b1, r0, r1, res)
            else:
                val = (self.F[c][r0, r1] + self.S[c][r0, r1] * res).mean(axis=1)
            out += sigma[:, a] * val
        return out

    def value(self, state: State) -> float:
        if state.finished:
            return super().value(state)
        return self.node_value(self._node(state), state)

    def chance_mean(self, state: State, new_cards: int) -> float:
        # The value before a deal is already the exact mean over that deal.
        return self.value(state)

    def deal_mean(self, game: GameDef) -> float:
        if self._deal_mean is None:
            self._deal_mean = self._mean_over_deals()
        return self._deal_mean

    def _mean_over_deals(self) -> float:
        """The exact mean of the root's value over every hole-card deal (by bucket-pair counts)."""
        game = self.game
        if game.board_cards_through(0) > 0 or self.last - 1 == 0:  # the root is not a table look-up: enumerate
            return super(EquityValue, self).deal_mean(game)
        from pokerbot.solver.tree import hand_list

        hands = hand_list(game).astype(np.int64)
        empty = np.zeros((1, 0), dtype=np.int64)
        b = self._hole_buckets(hands)
        bits = np.array([sum(1 << int(c) for c in h) for h in hands], dtype=np.int64)
        disjoint = (bits[:, None] & bits[None, :]) == 0
        vals = self.F[0][b[:, None], b[None, :]]
        if self.last == 0:
            res = np.array([[_results(h0, h1, empty)[0] if d else 0.0 for h1, d in zip(hands, row)]
                            for h0, row in zip(hands, disjoint)])
            vals = vals + self.S[0][b[:, None], b[None, :]] * res
        return float(vals[disjoint].mean())

    def _hole_buckets(self, hands: np.ndarray) -> np.ndarray:
        return hole_buckets(self.cards, hands)

    # -- decisions ----------------------------------------------------------------------

    def action_values(self, state: State, kinds: np.ndarray, sizes: np.ndarray) -> np.ndarray:
        p = state.current_player
        assert p is not None
        node = self._node(state)
        mapper = self.mapper
        tree = self.tree
        first = int(tree.first_child[node])
        out = np.empty(kinds.size)
        fold = kinds == ActionType.FOLD
        out[fold] = -state.spent[0] if p == 0 else state.spent[1]
        call = np.nonzero(kinds == ActionType.CALL)[0]
        if call.size:
            out[call] = self._after(state, CALL, node)
        raised = np.nonzero(kinds == ActionType.RAISE)[0]
        if raised.size == 0:
            return out
        if not self.game.nolimit:
            out[raised] = self._after(state, Action(ActionType.RAISE), node)
            return out
        slots = self._raise_slots(state, node, sizes[raised].astype(np.float64))
        for slot in np.unique(slots):
            sel = raised[slots == slot]
            child = int(tree.child[first + slot])
            after = state.apply(Action(ActionType.RAISE, int(sizes[sel[0]])))
            if mapper.fits(child, after):
                out[sel] = self.node_value(child, after)
                continue
            for i in sel:  # the likelier abstract action does not fit: the nearest state, size by size
                after = state.apply(Action(ActionType.RAISE, int(sizes[i])))
                out[i] = self.node_value(mapper.nearest(after), after)
        return out

    def _after(self, state: State, action: Action, node: int) -> float:
        """The value after a fold, call or limit raise at ``state`` (the mapper positioned at ``node``)."""
        after = state.apply(action)
        if after.finished:
            return super().value(after)
        options = self.mapper.options(state, action)
        child = int(self.tree.child[int(self.tree.first_child[node]) + options[0][0]]) if options else -1
        if child < 0 or not self.mapper.fits(child, after):
            child = self.mapper.nearest(after)
        return self.node_value(child, after)

    def _raise_slots(self, state: State, node: int, sizes: np.ndarray) -> np.ndarray:
        """The child slot each no-limit raise size maps to: the mapper's rule with the likelier translation."""
        acts = self.mapper.actions(node)
        abstract = self.mapper.position.state
        call = next(i for i, a in enumerate(acts) if a.kind == ActionType.CALL)
        raises = sorted(((a.size - abstract.max_spent) / (abstract.pot + abstract.to_call()), i)
                        for i, a in enumerate(acts) if a.kind == ActionType.RAISE)
        points = np.array([0.0] + [f for f, _ in raises])
        slot_of = np.array([call] + [i for _, i in raises], dtype=np.int64)
        x = (sizes - state.max_spent) / (state.pot + state.to_call())
        hi = np.clip(np.searchsorted(points, x, side="left"), 1, max(len(points) - 1, 1))
        if len(points) == 1:
            chosen = np.zeros(len(x), dtype=np.int64)
        else:
            a, b = points[hi - 1], points[hi]
            xc = np.clip(x, a, b)
            lower = (b - xc) * (1 + a) / np.maximum((b - a) * (1 + xc), 1e-300)
            chosen = np.where(lower > 0.5, hi - 1, hi)
            chosen = np.where(x <= points[0], 0, np.where(x >= points[-1], len(points) - 1, chosen))
        slots = slot_of[chosen]
        bounds = abstract.raise_bounds()
        real_bounds = state.raise_bounds()
        if bounds is not None and real_bounds is not None:
            allin = next((i for i, a in enumerate(acts) if a.kind == ActionType.RAISE and a.size >= bounds[1]), None)
            if allin is not None:
                slots = np.where(sizes >= real_bounds[1], allin, slots)
        return slots


def make_value(kind: str, game: GameDef, seed: int = 0, blueprint: str = "", samples: int = DEFAULT_SAMPLES) -> EquityValue:
    """The value function called ``kind``: ``equity``, ``fitted`` or ``blueprint`` (needs ``blueprint``)."""
    from evaluation.aivat import FittedValue

    if kind == "equity":
        return EquityValue(seed=seed)
    if kind == "fitted":
        return FittedValue(seed=seed)
    if kind == "blueprint":
        if not blueprint:
            raise BlueprintValueError("the blueprint value function needs blueprint = <file or run name>")
        v = BlueprintValue.load(blueprint, samples=samples, seed=seed)
        if v.game != game:
            raise BlueprintValueError(f"blueprint {blueprint!r} is for {v.game.name}, the match plays {game.name}")
        return v
    raise BlueprintValueError(f"unknown value function {kind!r}: use 'equity', 'fitted' or 'blueprint'")


__all__ = ["BlueprintValue", "BlueprintValueError", "DEFAULT_SAMPLES", "bucket_rows", "hole_buckets", "make_value",
           "transition_bytes", "transition_tables"]
