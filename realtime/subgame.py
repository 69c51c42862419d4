"""Subgames built from a live hand: their bet menu, the blueprint on them, their keys.

* :class:`SubgameMenu` is the bet menu of a real subgame: at every state the
  abstraction's actions as real actions (``TreeMapper.real_actions`` at the mapped
  position, through :class:`blueprint.policy.BlueprintPolicy`) plus the actions the
  real hand took there, so the real (possibly off-tree) opponent action is a branch
  of the tree and needs no translation.
* :func:`blueprint_on_tree` writes the blueprint's strategy into a subgame's strategy array.
* :func:`public_key` names a public state (betting and board).

A subgame lists the hands of :func:`pokerbot.solver.tree.hand_universe` (the blueprint
policy's rows) that its root's board does not block, in the universe's order;
:func:`pokerbot.solver.tree.universe_rows` carries vectors between the two.
:func:`pokerbot.solver.navigate.find_node` finds a live state's node in a subgame.
"""

from __future__ import annotations

import numpy as np

from blueprint.policy import BlueprintPolicy
from pokerbot.actions import action_text
from pokerbot.menus import BetMenuFn
from pokerbot.solver.navigate import node_state
from pokerbot.solver.tree import PublicTree, universe_rows
from pokerbot.state import Action, State


def public_key(state: State) -> str:
    """The betting and the board: the key of a public state."""
    return f"{state.betting_string()}|{','.join(str(c) for c in state.visible_board)}"


class SubgameMenu:
    """The bet menu of a subgame: the blueprint's actions at each state, then, where ``player`` acts,
    ``extra``'s (a round's added sizes, :attr:`realtime.config.RoundConfig.sizes`), then the real hand's own
    action there.

    Added sizes are the agent's only: offered to the opponent, they would be answered in the blueprint's
    alternative values by translation, whose exploitation would inflate those values and let a safe gadget
    give the same amount away elsewhere (measured on no-limit Leduc, resolve x100: exploitability 101 -> 223 mbb/g)."""

    def __init__(self, policy: BlueprintPolicy, real: State, extra: BetMenuFn | None = None,
                 player: int | None = None) -> None:
        self.policy = policy
        self.extra = extra
        self.player = player
        self.taken: dict[str, Action] = {}
        s = State.initial(real.game)
        for a in real.actions():
            self.taken[s.betting_string()] = a
            s = s.apply(a)

    def __call__(self, state: State) -> list[Action]:
        actions = self.policy.actions(state)
        if self.extra is not None and state.current_player == self.player:
            actions = actions + [a for a in self.extra(state) if a not in actions]
        taken = self.taken.get(state.betting_string())
        if taken is not None and taken not in actions:
            actions = actions + [taken]
        return actions


def blueprint_on_tree(tree: PublicTree, policy: BlueprintPolicy, player: int, out: np.ndarray) -> np.ndarray:
    """``out`` (a strategy array of ``tree``) with ``player``'s decisions set to the blueprint's strategy.

    Every blueprint action must be a branch of the tree (true for trees built with
    :class:`SubgameMenu`); the tree's other branches get probability 0.
    """
    nh = tree.num_hands[player]
    rows = universe_rows(tree, player)
    for n in tree.decision_nodes[player]:
        n = int(n)
        state = node_state(tree, n)
        actions, probs = policy.probabilities(state)
        labels = tree.node_labels(n)
        block = np.zeros((len(labels), nh))
        for a, row in zip(actions, probs):
            block[labels.index(action_text(a, tree.game.nolimit))] = row[rows]
        o = int(tree.slot[n])
        out[o : o + len(labels) * nh] = block.ravel()
    return out
