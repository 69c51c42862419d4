"""The explicit-game container: preorder layout, observation infosets, perfect recall checks."""

from __future__ import annotations

import numpy as np
import pytest

from pokerbot.efg import CHANCE, Branch, EfgError, Leaf, Move, build_game, games


def _guess(obs_for_guesser: bool):  # type: ignore[no-untyped-def]
    def expand(n):  # type: ignore[no-untyped-def]
        if n is None:
            o = (lambda c: (c, "")) if obs_for_guesser else (lambda c: ("", ""))
            return Branch(CHANCE, [Move(c, int(c), 0.5, o(c)) for c in "01"])
        if isinstance(n, int):
            return Branch(0, [Move(f"g{k}", (n, k)) for k in (0, 1)])
        return Leaf((1.0, -1.0) if n[0] == n[1] else (-1.0, 1.0))

    return build_game("guess", None, expand)


def test_layout_and_infosets() -> None:
    g = _guess(False)
    assert g.num_nodes == 7 and g.num_infosets == 1
    assert list(g.subtree_end) == [7, 4, 3, 4, 7, 6, 7]
    assert np.allclose(g.chance_reach, [1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5])
    assert list(g.children(0)) == [1, 4]
    assert g.path_labels(6) == ["1", "g1"]
    # player 1 never acts, but has an observation infoset at every node
    assert g.treeplex(1).num_infosets == 0 and (g.obs[1] >= 0).all()
    assert _guess(True).num_infosets == 2


def test_sequence_at_a_node_is_the_last_own_action() -> None:
    g = games.kuhn()
    for i in (0, 1):
        tp = g.treeplex(i)
        for z in g.terminals:
            path = [int(z)]
            while g.parent[path[-1]] >= 0:
                path.append(int(g.parent[path[-1]]))
            own = [(h, c) for c, h in zip(path, path[1:]) if g.player[h] == i]
            s = int(g.seq[i, z])
            if not own:
                assert s == 0
                continue
            h, c = own[0]  # the last own decision before z
            d = int(tp.seq_infoset[s])
            assert h in set(g.decision_nodes(i, d).tolist())
            assert tp.labels[d][s - int(tp.first_seq[d])] == g.edge_label[c]


def test_mixed_moves_in_an_infoset_are_refused() -> None:
    def expand(n):  # type: ignore[no-untyped-def]
        if n is None:
            return Branch(CHANCE, [Move("a", 1, 0.5), Move("b", 2, 0.5)])
        if n in (1, 2):
            return Branch(0, [Move(str(k), (n, k)) for k in range(n)])  # 1 vs 2 actions, same observation
        return Leaf((0.0, 0.0))

    with pytest.raises(EfgError, match="mixes nodes"):
        build_game("bad", None, expand)


def test_bad_chance_is_refused() -> None:
    def expand(n):  # type: ignore[no-untyped-def]
        if n is None:
            return Branch(CHANCE, [Move("a", 1, 0.5), Move("b", 2, 0.4)])
        return Leaf((0.0, 0.0))

    with pytest.raises(EfgError, match="sum to 1"):
        build_game("bad", None, expand)
