"""One betting-tree enumeration and one set of node kinds for the solver's and the blueprint's trees."""

from __future__ import annotations

import numpy as np
import pytest

from blueprint.abstract_game import STORED_KIND, AbstractGame, AbstractGameError, legal_menu
from pokerbot.betting_tree import CHANCE, DECISION, FOLD_NODE, LEAF, SHOWDOWN, betting_tree, menu_successors
from pokerbot.errors import SolverError
from pokerbot.gamedef import load_game
from pokerbot.menus import PotFractionMenu, limit_menu
from pokerbot.solver.tree import build_tree
from pokerbot.state import CALL, FOLD, State, raise_to


def test_one_set_of_node_kinds() -> None:
    import blueprint.abstract_game as abstract_game
    import pokerbot.solver.kernels as kernels
    import pokerbot.solver.tree as tree

    kinds = (DECISION, CHANCE, FOLD_NODE, SHOWDOWN, LEAF)
    assert len(set(kinds)) == 5
    for module in (kernels, tree):
        assert (module.DECISION, module.CHANCE, module.FOLD_NODE, module.SHOWDOWN, module.LEAF) == kinds
    assert (abstract_game.DECISION, abstract_game.FOLD_NODE, abstract_game.SHOWDOWN) == (DECISION, FOLD_NODE, SHOWDOWN)
    g = AbstractGame.build(load_game("kuhn"), (3,))
    t = build_tree(load_game("kuhn"))
    assert set(g.kind.tolist()) == set(t.kind.tolist()) == {DECISION, FOLD_NODE, SHOWDOWN}


def _public_betting(tree) -> dict[str, tuple[int, int, float, list[str]]]:  # type: ignore[no-untyped-def]
    """Betting string -> (kind, player, amount, labels) of the non-chance nodes of a public tree."""
    out = {}
    for n in range(tree.num_nodes):
        if tree.kind[n] != CHANCE:
            out[tree.betting[int(tree.template[n])]] = (int(tree.kind[n]), int(tree.player[n]), float(tree.amount[n]),
                                                        tree.node_labels(n))
    return out


def _abstract_betting(g: AbstractGame) -> dict[str, tuple[int, int, float, list[str]]]:
    out = {}
    stack = [(0, State.initial(g.game))]
    while stack:
        n, s = stack.pop()
        kind, player = int(g.kind[n]), int(g.player[n])
        amount = float(g.spent[n, player]) if kind == FOLD_NODE else float(min(g.spent[n])) if kind == SHOWDOWN else 0.0
        labels = [str(a) if g.game.nolimit else a.kind.char for a in g.actions(n)] if kind == DECISION else []
        out[s.betting_string()] = (kind, player, amount, labels)
        if kind == DECISION:
            stack.extend((c, s.apply(a)) for a, c in zip(g.actions(n), g.children(n)))
    return out


@pytest.mark.parametrize("game_name,menu", [("leduc", limit_menu), ("leduc-nl", PotFractionMenu.default()),
                                            ("leduc-nl", PotFractionMenu((0.5, 1.0), True, 2)),
                                            ("kuhn", limit_menu)])
def test_both_layouts_hold_the_same_betting(game_name: str, menu) -> None:  # type: ignore[no-untyped-def]
    game = load_game(game_name)
    public, abstract = build_tree(game, menu), AbstractGame.build(game, (1,) * game.num_rounds, menu)
    pub, ab = _public_betting(public), _abstract_betting(abstract)
    assert pub == ab and len(ab) == abstract.num_nodes
    # negative control: another menu's abstract game differs
    other = AbstractGame.build(game, (1,) * game.num_rounds, PotFractionMenu.tiny() if game.nolimit else
                               lambda s: [a for a in limit_menu(s) if a != FOLD] or [CALL])
    assert _abstract_betting(other) != pub


#: Tree signatures computed before the two builders shared one enumeration (and before the abstract game
#: took the shared node kinds): blueprint files and checkpoints on disk carry these.
SIGNATURES = {
    ("kuhn", (3,), "legal"): "9df9be06ea49a6e3",
    ("leduc", (3, 9), "legal"): "a86a7794ed15b9a3",
    ("leduc-nl", (3, 9), "default"): "f6f6d011d8a5ee22",
    ("leduc-nl", (3, 9), "pot_allin"): "36f67c509c20690c",
    ("hunl", (169, 12, 12, 12), "tiny"): "842f4023c8ce05e1",
    ("hunl", (1, 1, 1, 1), "pot_allin"): "b8dade393fbe249d",
}


@pytest.mark.parametrize("key", sorted(SIGNATURES))
def test_tree_signatures_are_unchanged(key: tuple[str, tuple[int, ...], str]) -> None:
    game_name, buckets, actions = key
    menu = {"legal": legal_menu, "default": PotFractionMenu.default(), "tiny": PotFractionMenu.tiny(),
            "pot_allin": PotFractionMenu.pot_allin()}[actions]
    g = AbstractGame.build(load_game(game_name), buckets, menu)
    assert g.signature() == SIGNATURES[key]


def test_files_keep_their_kind_codes() -> None:
    g = AbstractGame.build(load_game("leduc-nl"), (3, 9), PotFractionMenu.pot_allin())
    stored = g.arrays()["kind"]
    assert set(stored.tolist()) == {0, 1, 2} and np.array_equal(stored, np.vectorize(STORED_KIND.get)(g.kind))
    back = AbstractGame.from_arrays(g.game, g.num_buckets, g.arrays())
    assert np.array_equal(back.kind, g.kind) and back.signature() == g.signature()
    assert (back.max_depth, back.max_actions) == (g.max_depth, g.max_actions)
    bad = dict(g.arrays(), kind=np.where(stored == 2, 3, stored).astype(np.int8))  # code 3 is no stored kind
    with pytest.raises(ValueError, match="unknown node kind"):
        AbstractGame.from_arrays(g.game, g.num_buckets, bad)


def test_a_blueprint_file_loads_with_the_shared_kinds(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from blueprint.model import Blueprint

    g = AbstractGame.build(load_game("leduc"), (3, 9))
    bp = Blueprint(g, np.full(g.num_slots, 0.5, dtype=np.float32), "lossless", "legal", {"game": "leduc"})
    bp.save(tmp_path / "b.npz")
    loaded = Blueprint.load(tmp_path / "b.npz")
    assert np.array_equal(loaded.tree.kind, g.kind) and loaded.tree.signature() == g.signature()
    assert set(np.unique(loaded.tree.kind).tolist()) == {DECISION, FOLD_NODE, SHOWDOWN}


def test_menu_successors_check_the_menu() -> None:
    s = State.initial(load_game("leduc-nl"))
    assert [label for _, label, _ in menu_successors(s, PotFractionMenu((1.0,), False, 1))] == ["c", "r3"]  # antes 1 + 1: pot raise to 1 + 2
    for menu, message in ((lambda s: [], "no action"), (lambda s: [CALL, CALL], "twice"),
                          (lambda s: [FOLD, CALL], "illegal action f"), (lambda s: [CALL, raise_to(1)], "illegal")):
        with pytest.raises(SolverError, match=message):
            menu_successors(s, menu)
        with pytest.raises(AbstractGameError, match=message):
            menu_successors(s, menu, AbstractGameError)


def test_betting_tree_chance_nodes_leaves_and_size_bound() -> None:
    game = load_game("leduc-nl")
    root = betting_tree(State.initial(game), PotFractionMenu((), True, 1), last_round=0)
    # c: the second player checks -> continuation leaf; r (all-in) c -> an equity leaf after no more deals
    check = root.children[0]
    assert root.kind == DECISION and [c.kind for c in check.children] == [LEAF, DECISION]
    allin_call = root.children[1].children[1]
    assert allin_call.kind == LEAF and allin_call.equity and allin_call.amount == float(game.stack[0])
    full = betting_tree(State.initial(game), PotFractionMenu((), True, 1))
    assert full.children[0].children[0].kind == CHANCE and full.children[0].children[0].deal_round == 1
    with pytest.raises(SolverError, match="over 10 nodes"):
        betting_tree(State.initial(game), PotFractionMenu.default(), max_nodes=10)
