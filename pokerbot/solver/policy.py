"""Between strategy arrays on a public tree and policies keyed by information sets.

A *policy* is a :data:`pokerbot.infoset.Policy`: ``{infoset key: {action label:
probability}}`` with keys like ``"Kh/Qs:rc/r"`` (hole cards, board by round,
ACPC betting) and labels ``"f"``, ``"c"``, ``"r"`` (limit) or ``"r<size>"``.

Card order inside a key does not matter on input: :func:`canonical_key` sorts
hole cards high to low and each round's board cards low to high (``"AsKd/2c3c4c"``),
and every key this package writes is in that form.

>>> canonical_key("KdAs/4c2c3c:r300c/")
'AsKd/2c3c4c:r300c/'
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import lru_cache

import numpy as np

from pokerbot.cards import format_cards, parse_cards
from pokerbot.errors import CardError
from pokerbot.solver.tree import PublicTree, SolverError


@lru_cache(maxsize=1 << 20)
def canonical_key(key: str) -> str:
    """``key`` with hole cards sorted high to low and each board group low to high.

    Raises :class:`SolverError` if the card part is not cards.
    """
    cards, sep, betting = key.partition(":")
    if not sep:
        raise SolverError(f"infoset key {key!r} has no ':' before the betting")
    groups = cards.split("/")
    try:
        hole = sorted(parse_cards(groups[0]), reverse=True)
        board = [sorted(parse_cards(g)) for g in groups[1:]]
    except CardError as exc:
        raise SolverError(f"infoset key {key!r}: {exc}") from None
    return "/".join([format_cards(hole)] + [format_cards(g) for g in board]) + ":" + betting


def canonical_policy(policy: Mapping[str, Mapping[str, float]]) -> dict[str, Mapping[str, float]]:
    """The same policy with every key in canonical form (see :func:`canonical_key`)."""
    out: dict[str, Mapping[str, float]] = {}
    for key, dist in policy.items():
        ck = canonical_key(key)
        if ck in out and ck != key:
            raise SolverError(f"policy has two keys for the same information set: {ck!r}")
        out[ck] = dist
    return out


def iter_strategy_rows(tree: PublicTree, strat: np.ndarray) -> Iterator[tuple[str, list[str], np.ndarray]]:
    """(infoset key, action labels, probabilities) for every decision node and hand that misses the board, in tree order."""
    hand_text = [[format_cards(h) for h in tree.hands[p]] for p in range(2)]
    for p in range(2):
        nh = tree.num_hands[p]
        for n in tree.decision_nodes[p]:
            n = int(n)
            labels = tree.node_labels(n)
            off = int(tree.slot[n])
            block = strat[off : off + len(labels) * nh].reshape(len(labels), nh)
            b = int(tree.board[n])
            suffix = tree.board_text(b) + ":" + tree.betting[int(tree.template[n])]
            for h in np.nonzero(tree.valid[p][b])[0]:
                yield hand_text[p][h] + suffix, labels, block[:, h]


def strategy_to_policy(tree: PublicTree, strat: np.ndarray, min_prob: float = 0.0) -> dict[str, dict[str, float]]:
    """The policy of a strategy array, one entry per (decision node, hand that misses the board).

    Probabilities at or below ``min_prob`` are left out (0 keeps every action
    with positive probability; a row of zeros is written as uniform).
    """
    out: dict[str, dict[str, float]] = {}
    for key, labels, col in iter_strategy_rows(tree, strat):
        dist = {lab: float(q) for lab, q in zip(labels, col) if q > min_prob}
        out[key] = dist or {lab: 1.0 / len(labels) for lab in labels}
    return out


def policy_to_strategy(
    tree: PublicTree,
    policy: Mapping[str, Mapping[str, float]],
    default: str = "uniform",
    players: tuple[int, ...] = (0, 1),
    out: np.ndarray | None = None,
) -> np.ndarray:
    """The strategy array of ``policy`` on ``tree``, for the seats in ``players``.

    Information sets the policy lacks get the uniform strategy over the menu
    actions (``default="uniform"``) or raise (``default="error"``). Each entry
    is renormalised over the menu; a label outside the menu with positive
    probability, a negative probability, or an entry summing to zero raises
    :class:`SolverError` naming the key.
    """
    if default not in ("uniform", "error"):
        raise SolverError(f"default must be 'uniform' or 'error', got {default!r}")
    pol = canonical_policy(policy)
    if out is None:
        out = np.empty(tree.num_slots)
    hand_text = [[format_cards(h) for h in tree.hands[p]] for p in range(2)]
    for p in players:
        nh = tree.num_hands[p]
        for n in tree.decision_nodes[p]:
            n = int(n)
            labels = tree.node_labels(n)
            index = {lab: a for a, lab in enumerate(labels)}
            nc = len(labels)
            off = int(tree.slot[n])
            block = out[off : off + nc * nh].reshape(nc, nh)
            block[:] = 1.0 / nc
            b = int(tree.board[n])
            suffix = tree.board_text(b) + ":" + tree.betting[int(tree.template[n])]
            for h in np.nonzero(tree.valid[p][b])[0]:
                key = hand_text[p][h] + suffix
                dist = pol.get(key)
                if dist is None:
                    if default == "error":
                        raise SolverError(f"policy has no entry for information set {key!r}")
                    continue
                col = np.zeros(nc)
                for lab, prob in dist.items():
                    prob = float(prob)
                    if not prob >= 0.0 or not np.isfinite(prob):
                        raise SolverError(f"{key!r}: probability of {lab!r} is {prob}")
                    a = index.get(lab)
                    if a is None:
                        if prob > 0.0:
                            raise SolverError(
                                f"{key!r}: action {lab!r} is not in the bet menu here ({', '.join(labels)})"
                            )
                        continue
                    col[a] += prob
                total = col.sum()
                if total <= 0.0:
                    raise SolverError(f"{key!r}: probabilities sum to zero over the menu actions")
                block[:, h] = col / total
    return out
