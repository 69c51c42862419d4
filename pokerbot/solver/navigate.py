"""Finding one's way in a :class:`~pokerbot.solver.tree.PublicTree`: parents, paths, subtrees, states.

Between node ids and the betting they stand for, both ways: :func:`node_state` is
the betting state at a node (its actions read back from the branch labels with
:func:`pokerbot.actions.action_from_text`), :func:`find_node` the node of a state
(its actions written with :func:`pokerbot.actions.action_text`, its board matched
at the chance nodes). :func:`parents`, :func:`path_to` and :func:`subtree` walk
the flat arrays.

>>> from pokerbot.gamedef import load_game
>>> from pokerbot.solver.tree import build_tree, pot_fraction_menu
>>> tree = build_tree(load_game("leduc-nl"), pot_fraction_menu((1.0,), True, 2))
>>> tree.node_labels(0), path_to(tree, 1)                 # node 1: player 0 checked
(['c', 'r3', 'r20'], [(0, 0)])
>>> state = node_state(tree, 1)
>>> state.betting_string(), find_node(tree, state)
('c', 1)
>>> int(parents(tree)[1]), [int(n) for n in subtree(tree, 1)][:4]
(0, [1, 4, 5, 6])
"""

from __future__ import annotations

import numpy as np

from pokerbot.actions import action_from_text, action_text
from pokerbot.solver.tree import CHANCE, DECISION, PublicTree, SolverError
from pokerbot.state import State

__all__ = ["find_node", "node_state", "parents", "path_to", "subtree"]


def parents(tree: PublicTree) -> np.ndarray:
    """``parent[n]`` of every node (-1 at the root); cached on the tree."""
    cache = tree.derived.get("parents")
    if cache is None:
        cache = np.full(tree.num_nodes, -1, dtype=np.int64)
        for n in np.nonzero((tree.kind == DECISION) | (tree.kind == CHANCE))[0]:
            f = int(tree.first_child[n])
            cache[f : f + int(tree.num_children[n])] = n
        tree.derived["parents"] = cache
    return cache


def path_to(tree: PublicTree, node: int) -> list[tuple[int, int]]:
    """(node, child position) pairs from the root down to ``node`` (empty at the root)."""
    par = parents(tree)
    out: list[tuple[int, int]] = []
    n = int(node)
    if not 0 <= n < tree.num_nodes:
        raise SolverError(f"node {node} is not a node of the tree ({tree.num_nodes} nodes)")
    while par[n] >= 0:
        p = int(par[n])
        out.append((p, n - int(tree.first_child[p])))
        n = p
    return out[::-1]


def subtree(tree: PublicTree, root: int) -> np.ndarray:
    """The nodes below ``root`` (``root`` included), in id order."""
    out = [int(root)]
    stack = [int(root)]
    while stack:
        n = stack.pop()
        if tree.kind[n] in (DECISION, CHANCE):
            kids = range(int(tree.first_child[n]), int(tree.first_child[n]) + int(tree.num_children[n]))
            out.extend(kids)
            stack.extend(kids)
    return np.array(sorted(out), dtype=np.int64)


def node_state(tree: PublicTree, node: int) -> State:
    """The betting state at ``node`` (no hole cards; the board dealt through the node's round)."""
    board = [c for g in tree.boards[int(tree.board[node])] for c in g]
    state = tree.root_state.with_cards(hole_cards=((),) * tree.game.num_players, board_cards=board)
    for n, c in path_to(tree, node):
        if tree.kind[n] == DECISION:
            state = state.apply(action_from_text(tree.node_labels(n)[c], tree.game.nolimit))
    return state


def find_node(tree: PublicTree, state: State) -> int | None:
    """The node of ``tree`` at ``state`` (betting and board), or None if the tree does not hold it."""
    root = tree.root_state
    done = root.actions()
    actions = state.actions()
    if actions[: len(done)] != done:
        return None
    board = list(state.visible_board)
    n = 0
    todo = actions[len(done):]
    i = 0
    while True:
        kind = int(tree.kind[n])
        if kind == CHANCE:
            f, k = int(tree.first_child[n]), int(tree.num_children[n])
            target = None
            for c in range(f, f + k):
                cards = [x for g in tree.boards[int(tree.board[c])] for x in g]
                if sorted(cards) == sorted(board[: len(cards)]) and len(cards) <= len(board):
                    target = c
                    break
            if target is None:
                return None
            n = target
            continue
        if i == len(todo):
            cards = [x for g in tree.boards[int(tree.board[n])] for x in g]
            return n if sorted(cards) == sorted(board) else None
        if kind != DECISION:
            return None
        label = action_text(todo[i], tree.game.nolimit)
        labels = tree.node_labels(n)
        if label not in labels:
            return None
        n = int(tree.first_child[n]) + labels.index(label)
        i += 1
