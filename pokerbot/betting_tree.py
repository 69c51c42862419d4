"""The betting tree of a game under a bet menu: node kinds and the one enumeration of betting sequences.

Both flat trees of the project are built from :func:`betting_tree`: the solver's
public tree (:func:`pokerbot.solver.tree.build_tree`, which adds board deals and
per-hand vectors) and the blueprint's abstract game
(:meth:`blueprint.abstract_game.AbstractGame.build`, which adds card buckets).
They share the node kinds below (one numbering, also used by the numba kernels of
both) and :func:`menu_successors`, the check of a menu's actions at a state.

Node kinds: ``DECISION`` (``player`` acts; children follow its menu actions in
order), ``CHANCE`` (the next round's board cards are dealt: one child, the tree
after the deal), ``FOLD_NODE`` (``player`` folded and loses ``amount`` chips),
``SHOWDOWN`` (the better hand wins ``amount`` chips; ties split) and ``LEAF`` (a
depth-limited tree stops here: a *continuation* leaf where a round past the limit
would be dealt, or an *equity* leaf, an all-in run-out past the limit whose
``amount`` goes to the better hand).

>>> from pokerbot.gamedef import load_game
>>> from pokerbot.menus import limit_menu
>>> root = betting_tree(State.initial(load_game("kuhn")), limit_menu)
>>> root.kind == DECISION, [str(a) for a in root.actions], [c.kind for c in root.children[1].children]
(True, ['c', 'r'], [2, 3])
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, field

from pokerbot.actions import Action, action_text
from pokerbot.errors import PokerbotError, SolverError
from pokerbot.menus import BetMenuFn
from pokerbot.state import State

__all__ = [
    "CHANCE",
    "DECISION",
    "FOLD_NODE",
    "LEAF",
    "SHOWDOWN",
    "BettingNode",
    "betting_tree",
    "menu_successors",
]

DECISION = 0
CHANCE = 1
FOLD_NODE = 2
SHOWDOWN = 3
LEAF = 4

#: The default bound on the nodes of a betting tree (a menu too rich to solve).
MAX_NODES = 5_000_000


@dataclass(slots=True)
class BettingNode:
    """One node of a betting tree (no cards). See the module docstring for the kinds."""

    kind: int
    #: DECISION: the actor; FOLD_NODE: who folded; -1 elsewhere.
    player: int = -1
    #: Terminal and equity-leaf nodes: the chips at stake (the folder's, or the smaller total put in).
    amount: float = 0.0
    #: DECISION: the menu actions, their interchange-format labels and the nodes they lead to.
    actions: list[Action] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    children: list[BettingNode] = field(default_factory=list)
    betting: str = ""
    round: int = 0
    #: Chips each player has put in (CHANCE nodes: those of the node they lead to).
    spent: tuple[int, ...] = ()
    #: CHANCE: the round whose cards it deals.
    deal_round: int = -1
    #: LEAF: the state where the tree stops, and whether it is an all-in equity leaf.
    state: State | None = None
    equity: bool = False


def menu_successors(
    state: State, menu: BetMenuFn, error: type[PokerbotError] = SolverError
) -> list[tuple[Action, str, State]]:
    """The menu's actions at ``state`` with their labels and the states they lead to.

    Raises ``error`` naming the betting when the menu offers nothing, an illegal
    action, or one action twice.

    >>> from pokerbot.gamedef import load_game
    >>> from pokerbot.menus import limit_menu
    >>> [(str(a), label, s.betting_string()) for a, label, s in menu_successors(State.initial(load_game("kuhn")), limit_menu)]
    [('c', 'c', 'c'), ('r', 'r', 'r')]
    """
    actions = menu(state)
    if not actions:
        raise error(f"bet menu returned no action at {state.betting_string()!r}")
    out: list[tuple[Action, str, State]] = []
    labels: set[str] = set()
    for action in actions:
        if not state.is_legal(action):
            raise error(f"bet menu returned illegal action {action} at {state.betting_string()!r}")
        label = action_text(action, state.game.nolimit)
        if label in labels:
            raise error(f"bet menu returned {label} twice at {state.betting_string()!r}")
        labels.add(label)
        out.append((action, label, state.apply(action)))
    return out


def _terminal(state: State, betting: str) -> BettingNode:
    spent = tuple(state.spent)
    if any(state.folded):
        folder = state.folded.index(True)
        return BettingNode(FOLD_NODE, player=folder, amount=float(state.spent[folder]), betting=betting,
                           round=state.round, spent=spent)
    return BettingNode(SHOWDOWN, amount=float(min(state.spent)), betting=betting, round=state.round, spent=spent)


def betting_tree(
    root: State,
    menu: BetMenuFn,
    last_round: int | None = None,
    error: type[PokerbotError] = SolverError,
    max_nodes: int | None = MAX_NODES,
    strings: bool = True,
) -> BettingNode:
    """The betting tree below ``root`` under ``menu``; rounds after ``last_round`` become leaves.

    ``last_round`` defaults to the game's last round (no leaves). A child that
    enters a round whose board cards are dealt sits below one ``CHANCE`` node per
    such round (an all-in run-out deals several). Raises ``error`` for a bad menu
    (see :func:`menu_successors`) or a tree of more than ``max_nodes`` nodes.
    ``strings=False`` leaves ``betting`` empty (the ACPC strings are most of the cost).
    """
    game = root.game
    last = game.num_rounds - 1 if last_round is None else last_round
    counter = [0]

    def text(state: State) -> str:
        return state.betting_string() if strings else ""

    def build(state: State) -> BettingNode:
        counter[0] += 1
        if max_nodes is not None and counter[0] > max_nodes:
            raise error(f"betting tree has over {max_nodes:,} nodes: use a smaller bet menu")
        if state.finished:
            return _terminal(state, text(state))
        p = state.current_player
        assert p is not None
        node = BettingNode(DECISION, player=p, betting=text(state), round=state.round, spent=tuple(state.spent))
        for action, label, nxt in menu_successors(state, menu, error):
            node.actions.append(action)
            node.labels.append(label)
            if nxt.round > last and not nxt.finished:
                # The next round starts past the depth limit: a continuation leaf.
                node.children.append(BettingNode(LEAF, betting=text(nxt), round=nxt.round,
                                                 spent=tuple(nxt.spent), state=nxt))
                continue
            child = build(nxt)
            if nxt.round > state.round or (nxt.finished and not any(nxt.folded)):
                # Board cards to deal for the rounds entered (all of them on an all-in run-out).
                dealt = nxt.round
                if dealt > last and any(game.num_board_cards[r] > 0 for r in range(last + 1, dealt + 1)):
                    # An all-in run-out past the depth limit: an equity leaf after the deals up to the limit.
                    child = BettingNode(LEAF, amount=child.amount, betting=text(nxt), round=dealt,
                                        spent=tuple(nxt.spent), state=nxt, equity=True)
                    dealt = last
                for r in range(dealt, state.round, -1):
                    if game.num_board_cards[r] > 0:
                        child = BettingNode(CHANCE, deal_round=r, children=[child], betting=text(nxt),
                                            round=r, spent=tuple(nxt.spent))
            node.children.append(child)
        return node

    # The tree is a large acyclic object graph: cyclic garbage collections while it grows would free
    # nothing and took two thirds of the time of a 150k-node build.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return build(root)
    finally:
        if collecting:
            gc.enable()
