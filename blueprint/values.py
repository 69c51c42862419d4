"""A blueprint's own expected values by backward induction over its abstract game, per bucket pair.

:class:`BlueprintTables` holds what both the AIVAT value function
(:class:`evaluation.blueprint_value.BlueprintValue`) and the real-time agent's preflop table
(:mod:`realtime.preflop_values`) compute from: the bucket transition tables between rounds, estimated
from sampled deals of the card abstraction, and a backward induction that gives, for every decision
node ``n`` of round ``r`` and bucket pair ``(b0, b1)``, ``F[n][b0, b1]`` (and on the last round
``S[n][b0, b1]``, the chips at stake in the showdowns reached) such that the node's value for
player 0 is ``F + S * res`` with ``res`` the showdown result, when both players follow a strategy
over the tree's slots (the blueprint's by default; any other, say a continuation for one seat).
See :mod:`evaluation.blueprint_value` for the formulas.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from blueprint.abstract_game import DECISION, FOLD_NODE, SHOWDOWN
from blueprint.mccfr import seed_state
from blueprint.model import Blueprint, CardBuckets, make_cards
from pokerbot.errors import PokerbotError

#: Deals sampled to estimate the bucket transitions (a few seconds for hold'em).
DEFAULT_SAMPLES = 2_000_000
#: The most memory the transition tables may take (the 200-bucket ``default`` cards would need ~100 GB).
MAX_TABLE_BYTES = 4e9


class BlueprintValueError(PokerbotError, ValueError):
    """A blueprint this value function cannot use (not heads-up, a round without new cards)."""


def transition_tables(
    buckets: np.ndarray, result: np.ndarray, num_buckets: Sequence[int]
) -> tuple[list[np.ndarray], np.ndarray, list[np.ndarray]]:
    """(T, U, W) from sampled deals: ``buckets[j, p, r]`` and ``result[j]`` (player 0's +1/0/-1).

    ``T[r][b0, b1, b0', b1']``: the chance of round ``r + 1``'s bucket pair given
    round ``r``'s; ``U[b0, b1, b0', b1'] = E[res 1{b0', b1'}]`` from the second-last
    round into the last; ``W[r][b0, b1] = E[res]``. A pair never sampled gets the
    overall mean (any table keeps AIVAT unbiased; this only matters for its variance).
    """
    rounds = len(num_buckets)
    res = result.astype(np.float64)
    pair = [buckets[:, 0, r].astype(np.int64) * num_buckets[r] + buckets[:, 1, r] for r in range(rounds)]
    W = []
    for r in range(rounds):
        m = num_buckets[r] ** 2
        n = np.bincount(pair[r], minlength=m).astype(np.float64)
        s = np.bincount(pair[r], weights=res, minlength=m)
        W.append(np.where(n > 0, s / np.maximum(n, 1.0), res.mean()).reshape(num_buckets[r], num_buckets[r]))
    T = []
    U = np.zeros(0)
    for r in range(rounds - 1):
        m0, m1 = num_buckets[r] ** 2, num_buckets[r + 1] ** 2
        flat = pair[r] * m1 + pair[r + 1]
        counts = np.bincount(flat, minlength=m0 * m1).astype(np.float64).reshape(m0, m1)
        rows = counts.sum(axis=1, keepdims=True)
        prior = counts.sum(axis=0) / max(counts.sum(), 1.0)
        T.append(np.where(rows > 0, counts / np.maximum(rows, 1.0), prior).reshape(
            num_buckets[r], num_buckets[r], num_buckets[r + 1], num_buckets[r + 1]))
        if r == rounds - 2:
            won = np.bincount(flat, weights=res, minlength=m0 * m1).reshape(m0, m1)
            prior_u = won.sum(axis=0) / max(counts.sum(), 1.0)
            U = np.where(rows > 0, won / np.maximum(rows, 1.0), prior_u).reshape(T[-1].shape)
    return T, U, W


def transition_bytes(num_buckets: Sequence[int]) -> int:
    """Bytes of the dense tables :func:`transition_tables` builds (each round's pair-to-pair counts,
    probabilities and, into the last round, its results): ``(b_r b_{r+1})^2`` floats per round,
    three times over. 12 buckets a round: a few MB; 200: tens of GB."""
    rounds = len(num_buckets)
    return sum(3 * 8 * (int(num_buckets[r]) * int(num_buckets[r + 1])) ** 2 for r in range(rounds - 1))


def bucket_rows(buckets: CardBuckets, r: int, hole: Sequence[int] | np.ndarray, boards: np.ndarray) -> np.ndarray:
    """The round-``r`` bucket of ``hole`` with each row of ``boards`` in the card abstraction ``buckets``."""
    cards = np.concatenate([np.broadcast_to(np.asarray(hole, dtype=np.int64), (len(boards), len(hole))),
                            boards.astype(np.int64)], axis=1)
    return buckets.bucket_batch(r, cards)


def hole_buckets(cards: CardBuckets, hands: np.ndarray) -> np.ndarray:
    """The first-round bucket of each row of ``hands`` (no board) in the card abstraction ``cards``."""
    return cards.bucket_batch(0, np.asarray(hands, dtype=np.int64))


class BlueprintTables:
    """Bucket transition tables and the backward induction of ``blueprint`` (see the module).

    ``samples`` deals (seeded by ``table_seed``) estimate the transitions (dense tables, refused with
    :class:`BlueprintValueError` above ``max_table_bytes``: fine for coarse abstractions only), kept
    (``cache``) in ``$POKERBOT_HOME/aivat/`` by the tree's signature, the card abstraction, ``samples``
    and ``table_seed``.
    """

    def __init__(self, blueprint: Blueprint, samples: int = DEFAULT_SAMPLES, cache: bool = True,
                 max_table_bytes: float = MAX_TABLE_BYTES, table_seed: int = 0) -> None:
        game = blueprint.game
        if game.num_players != 2:
            raise BlueprintValueError(f"a blueprint value is heads-up; the game has {game.num_players} players")
        if any(game.num_board_cards[r] == 0 for r in range(1, game.num_rounds)):
            raise BlueprintValueError(f"{game.name}: every round after the first must deal board cards")
        self.blueprint = blueprint
        self.game = game
        self.tree = blueprint.tree
        self.cards = make_cards(blueprint.cards_name, game)
        self.num_buckets = tuple(int(b) for b in self.tree.num_buckets)
        self.last = game.num_rounds - 1
        need = transition_bytes(self.num_buckets)
        if need > max_table_bytes:
            raise BlueprintValueError(
                f"a blueprint value for {blueprint.cards_name!r} buckets {list(self.num_buckets)} needs dense bucket-pair "
                f"transition tables of {need / 1e9:.1f} GB (limit {max_table_bytes / 1e9:.1f} GB): use value = "
                "\"fitted\" or a blueprint with a coarser card abstraction (such as hunl-tiny)")
        self.T, self.U, self.W = self._transitions(samples, table_seed, cache)

    def _transitions(self, samples: int, seed: int, cache: bool) -> tuple[list[np.ndarray], np.ndarray,
                                                                             list[np.ndarray]]:
        from pokerbot.files import pokerbot_home
        from pokerbot.npz import write_npz

        rounds = self.game.num_rounds
        path = (pokerbot_home() / "aivat"
                / f"{self.tree.signature()}-{self.blueprint.cards_name}-{samples}-{seed}.npz")
        if cache and path.is_file():
            with np.load(path) as z:
                return ([z[f"T{r}"] for r in range(rounds - 1)], z["U"], [z[f"W{r}"] for r in range(rounds)])
        buckets = np.empty((samples, 2, rounds), dtype=np.int32)
        result = np.empty(samples, dtype=np.int8)
        self.cards.deal(seed_state(seed, 7), buckets, result)
        T, U, W = transition_tables(buckets, result, self.num_buckets)
        if cache:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_npz(path, U=U, **{f"T{r}": t for r, t in enumerate(T)}, **{f"W{r}": w for r, w in enumerate(W)})
        return T, U, W

    def backward_induction(self, strategy: np.ndarray | None = None) -> tuple[dict[int, np.ndarray],
                                                                                 dict[int, np.ndarray]]:
        """``F[n]``, ``S[n]`` (bucket pair arrays of node ``n``'s round) for every decision node, when both
        players follow ``strategy`` (an array over the tree's slots; default the blueprint's)."""
        tree = self.tree
        strategy = np.asarray(self.blueprint.strategy if strategy is None else strategy, dtype=np.float64)
        F: dict[int, np.ndarray] = {}
        S: dict[int, np.ndarray] = {}
        for n in range(tree.num_nodes - 1, -1, -1):  # children always have larger ids than their parent
            if tree.kind[n] != DECISION:
                continue
            r = int(tree.round[n])
            nb = self.num_buckets[r]
            a_n = int(tree.num_actions[n])
            first = int(tree.first_child[n])
            kid_f = np.empty((a_n, nb, nb))
            kid_s = np.zeros((a_n, nb, nb))
            for a in range(a_n):
                c = int(tree.child[first + a])
                kid_f[a], kid_s[a] = self.child_terms(r, c, F, S)
            sigma = strategy[int(tree.base[n]) : int(tree.base[n]) + nb * a_n].reshape(nb, a_n)
            total = sigma.sum(axis=1, keepdims=True)
            sigma = np.where(total > 0, sigma / np.where(total > 0, total, 1.0), 1.0 / a_n)
            eq = "ia,aij->ij" if tree.player[n] == 0 else "ja,aij->ij"
            F[n] = np.einsum(eq, sigma, kid_f)
            S[n] = np.einsum(eq, sigma, kid_s)
        return F, S

    def child_terms(self, r: int, c: int, F: dict[int, np.ndarray],
                     S: dict[int, np.ndarray]) -> tuple[np.ndarray | float, np.ndarray | float]:
        """(F, S) of child ``c`` of a round-``r`` node, over round ``r``'s bucket pairs."""
        tree = self.tree
        kind = int(tree.kind[c])
        s0, s1 = float(tree.spent[c, 0]), float(tree.spent[c, 1])
        if kind == FOLD_NODE:
            return (-s0 if tree.player[c] == 0 else s1), 0.0
        if kind == SHOWDOWN:
            pot = min(s0, s1)  # what each side can win; equal in games with equal stacks
            return (0.0, pot) if r == self.last else (self.W[r] * pot, 0.0)
        if int(tree.round[c]) == r:
            return F[c], S[c]
        f = np.tensordot(self.T[r], F[c], axes=2)
        if r + 1 == self.last:
            f = f + np.tensordot(self.U, S[c], axes=2)
        return f, 0.0

    # -- real states --------------------------------------------------------------------
