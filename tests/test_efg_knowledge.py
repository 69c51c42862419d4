"""Infoset hypergraph: order-k knowledge sets and the graph G'."""

from __future__ import annotations

import numpy as np

from pokerbot.efg import CHANCE, Branch, Leaf, Move, build_game, components, games, greedy_coloring, infoset_graph, knowledge_set
from pokerbot.efg.knowledge import check_independent


def test_matching_pennies_knowledge_grows_one_node_per_order() -> None:
    g = games.matching_pennies(100)
    # player 0's infoset ⌊n/2⌋ = 25 holds n = 50, 51; each order adds the next neighbour on each side
    d = next(d for d in range(51) if sorted(g.path_labels(int(h))[0] for h in g.decision_nodes(0, d)) == ["50", "51"])
    sizes = [len(knowledge_set(g, 0, d, k)) for k in (1, 2, 3, 4, 5)]
    assert sizes == [2, 4, 6, 8, 10]
    assert len(knowledge_set(g, 0, d, 0)) == 100  # common knowledge closure: every nature outcome


def test_kuhn_knowledge_sets() -> None:
    g = games.kuhn()
    d = 0  # player 0's first card, root betting
    assert len(knowledge_set(g, 0, d, 1)) == 2
    assert len(knowledge_set(g, 0, d, 2)) == 4  # the opponent's card infosets each add one deal
    assert len(knowledge_set(g, 0, d, 3)) == 6  # every deal
    assert len(knowledge_set(g, 0, d, 0)) == 6


def test_infoset_graph_of_matching_pennies_is_a_path() -> None:
    g = games.matching_pennies(100)
    adj = infoset_graph(g, 0)
    degrees = sorted(len(a) for a in adj)
    assert degrees == [1, 1] + [2] * 49
    assert len(set(components(adj))) == 1
    color = greedy_coloring(adj)
    assert color.max() == 1  # bipartite
    check_independent(adj, set(np.flatnonzero(color == 0).tolist()))


def test_kuhn_root_infosets_form_a_triangle() -> None:
    g = games.kuhn()
    adj = infoset_graph(g, 0)
    roots = [d for d in range(g.treeplex(0).num_infosets) if g.treeplex(0).parent_seq[d] == 0]
    assert len(roots) == 3
    for d in roots:  # any two first cards are both compatible with the third card opposite
        assert adj[d] == set(roots) - {d}
    assert greedy_coloring(adj)[roots].tolist() != [0, 0, 0] and len(set(greedy_coloring(adj)[roots])) == 3


def test_public_information_gives_no_edges() -> None:
    def expand(n):  # type: ignore[no-untyped-def]
        if n is None:
            return Branch(CHANCE, [Move(str(k), (k,), 0.5, (str(k), str(k))) for k in (0, 1)])
        if len(n) < 3:
            return Branch(len(n) - 1, [Move(a, n + (a,), obs=(a, a)) for a in "ab"])
        return Leaf((1.0, -1.0) if n[1] == n[2] else (-1.0, 1.0))

    g = build_game("public", None, expand)
    assert all(len(a) == 0 for a in infoset_graph(g, 0))
    assert len(set(components(infoset_graph(g, 0)))) == 2
