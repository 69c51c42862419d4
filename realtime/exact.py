"""Exact exploitability of the real-time agent on small games (no-limit Leduc, small-deck flop hold'em).

The agent's decisions depend only on the public history (and its config's seed),
so running :meth:`realtime.agent.Resolver.decide` at every public state where it
acts composes it into one whole strategy. :func:`exploitability` measures that
strategy exactly against an opponent whose bet menu is either the abstraction's
(``opponent="abstraction"``) or a richer one (a :class:`~pokerbot.solver.tree.PotFractionMenu`
whose sizes the abstraction lacks, or every legal size: :data:`EVERY_SIZE`), one
evaluation tree per seat: at the agent's nodes its own menu (the abstraction's
actions as real actions), at the opponent's the chosen menu plus the abstraction's.

The blueprint with translation (:func:`blueprint_exploitability`) is measured the
same way, with the translation of off-tree sizes fixed to the more likely side of
the pseudo-harmonic bracket (the blueprint agent draws it at random; the fixed
choice keeps the strategy a behaviour strategy that can be measured exactly).

>>> from pokerbot.gamedef import load_game
>>> from pokerbot.state import State
>>> [str(a) for a in EVERY_SIZE(State.initial(load_game("leduc-nl")))][:4]
['c', 'r2', 'r3', 'r4']
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from pathlib import Path

import numpy as np

from blueprint.model import Blueprint, make_cards
from blueprint.policy import BlueprintPolicy
from pokerbot.actions import action_text
from pokerbot.solver.best_response import best_response_values, expected_value, uniform_strategy
from pokerbot.solver.navigate import node_state
from pokerbot.solver.tree import PublicTree, build_tree, hand_universe
from pokerbot.state import CALL, FOLD, Action, State, raise_to
from realtime.agent import Decision, Resolver

Menu = Callable[[State], list[Action]]


def EVERY_SIZE(state: State) -> list[Action]:  # noqa: N802 - a constant-like menu
    """Fold (when facing a bet), call and every legal raise size."""
    out: list[Action] = [FOLD] if state.can_fold() else []
    out.append(CALL)
    bounds = state.raise_bounds()
    if bounds is not None:
        out.extend(raise_to(s) for s in range(bounds[0], bounds[1] + 1))
    return out


class EvalMenu:
    """The menu of a seat's evaluation tree: the abstraction's actions (plus ``own``'s, the sizes the agent adds
    in its subgames) for ``seat``, ``opponent`` plus the abstraction's for the other player."""

    def __init__(self, policy: BlueprintPolicy, seat: int, opponent: Menu | None, own: Menu | None = None) -> None:
        self.policy = policy
        self.seat = seat
        self.opponent = opponent
        self.own = own

    def __call__(self, state: State) -> list[Action]:
        own = self.policy.actions(state)
        if state.current_player == self.seat:
            if self.own is not None:
                own = own + [a for a in self.own(state) if a not in own]
            return own
        if self.opponent is None:
            return own
        out = list(self.opponent(state))
        out.extend(a for a in own if a not in out)
        return out


def eval_tree(policy: BlueprintPolicy, seat: int, opponent: Menu | None, own: Menu | None = None) -> PublicTree:
    """The evaluation tree of ``seat`` (hands: the game's whole hand list)."""
    uni = hand_universe(policy.game)
    return build_tree(policy.game, EvalMenu(policy, seat, opponent, own), hands=(uni, uni))


def agent_sizes(resolver: Resolver) -> Menu:
    """The sizes the agent adds to its subgames at a state (its round's ``sizes``), as a menu."""

    def menu(state: State) -> list[Action]:
        rc = resolver.config.round(state.round)
        extra = rc.extra_menu() if rc.mode == "solve" else None
        return [] if extra is None else extra(state)

    return menu


def compose(tree: PublicTree, seat: int, decide: Callable[[State], tuple[list[Action], np.ndarray]],
            into: np.ndarray | None = None, rounds: Collection[int] | None = None) -> np.ndarray:
    """A strategy array of ``tree`` with ``seat``'s decisions from ``decide(public state)``, written into ``into``
    (the other seat's decisions kept) or into a uniform strategy; with ``rounds``, only at nodes of those
    rounds (``into`` keeps the rest)."""
    strat = uniform_strategy(tree) if into is None else into
    nh = tree.num_hands[seat]
    for n in tree.decision_nodes[seat]:
        n = int(n)
        if rounds is not None and tree.betting[int(tree.template[n])].count("/") not in rounds:
            continue
        actions, probs = decide(node_state(tree, n))
        labels = tree.node_labels(n)
        block = np.zeros((len(labels), nh))
        for a, row in zip(actions, probs):
            label = action_text(a, tree.game.nolimit)
            if label not in labels:
                raise ValueError(f"the agent plays {label} at {tree.betting[int(tree.template[n])]!r}, off the menu {labels}")
            block[labels.index(label)] += row
        o = int(tree.slot[n])
        strat[o : o + len(labels) * nh] = block.ravel()
    return strat


def _exploitability(policy: BlueprintPolicy, opponent: Menu | None,
                    decide: Callable[[State], tuple[list[Action], np.ndarray]], own: Menu | None = None) -> float:
    total = 0.0
    for seat in range(2):
        tree = eval_tree(policy, seat, opponent, own)
        strat = compose(tree, seat, decide)
        total += best_response_values(tree, strat)[1 - seat]
    return 1000.0 * total / 2.0 / policy.game.big_blind


def decisions(resolver: Resolver) -> Callable[[State], tuple[list[Action], np.ndarray]]:
    """The agent's decisions as a :func:`compose` source: public state -> (actions, probabilities of every hand)."""

    def decide(state: State) -> tuple[list[Action], np.ndarray]:
        d: Decision = resolver.decide(state)
        return d.actions, d.probs

    return decide


def exploitability(resolver: Resolver, opponent: Menu | None = None) -> float:
    """The agent's exact exploitability in mbb/g against an opponent with menu ``opponent``
    (None: the abstraction's)."""
    return _exploitability(resolver.policy, opponent, decisions(resolver), agent_sizes(resolver))


def blueprint_exploitability(policy: BlueprintPolicy, opponent: Menu | None = None) -> float:
    """The blueprint's (with translation) exact exploitability in mbb/g, measured as :func:`exploitability`."""
    return _exploitability(policy, opponent, policy.probabilities)


def head_to_head(resolver: Resolver) -> float:
    """The agent's exact expected winnings against the blueprint it is built on, in mbb/g (both seats, each
    half the time; the blueprint answers the agent's added sizes through translation to the more likely side)."""
    policy = resolver.policy
    total = 0.0
    for seat in range(2):
        tree = eval_tree(policy, seat, None, agent_sizes(resolver))
        strat = compose(tree, seat, decisions(resolver), into=compose(tree, 1 - seat, policy.probabilities))
        ev0 = expected_value(tree, strat)
        total += ev0 if seat == 0 else -ev0
    return 1000.0 * total / 2.0 / policy.game.big_blind


def exact_leaves(resolver: Resolver) -> Resolver:
    """``resolver`` with the leaves of its depth-limited subgames valued exactly (small games only).

    Below each subgame's root the whole tree is built with the same menu, and the continuation strategies of
    the config (ours the blueprint; the opponent's the blueprint and its biased copies, ``[leaves] k`` and
    ``factor``) are played out on it with exact chance (:class:`~pokerbot.solver.leaf_tables.ExactLeafEvaluator`):
    the exact counterpart of the HUNL preflop table (:mod:`realtime.preflop_values`), so a depth-limited
    preflop can be measured exactly. Returns ``resolver``, changed.
    """
    from dataclasses import replace

    from pokerbot.solver.leaf_tables import ExactLeafEvaluator
    from realtime.subgame import SubgameMenu, blueprint_on_tree

    opponent = [BlueprintPolicy(replace(resolver.blueprint, strategy=np.asarray(s)))
                for s in resolver.opponent_continuations()]

    def leaves(tree: PublicTree, us: int, state: State) -> ExactLeafEvaluator:
        menu = SubgameMenu(resolver.policy, state, resolver.config.round(state.round).extra_menu(), us)
        full = build_tree(tree.game, menu, root=tree.root_state, hands=(tree.hands[0], tree.hands[1]))
        conts: list[list[np.ndarray]] = [[], []]
        conts[us] = [blueprint_on_tree(full, resolver.policy, us, uniform_strategy(full))]
        conts[1 - us] = [blueprint_on_tree(full, p, 1 - us, uniform_strategy(full)) for p in opponent]
        return ExactLeafEvaluator(tree, full, (conts[0], conts[1]))

    resolver.leaf_source = leaves
    return resolver


def small_deck_game(ranks: int, directory: str | Path) -> Path:
    """``nlfh-small`` (no-limit flop hold'em, 3 suits, 20 big blinds) with ``ranks`` ranks, written as a .game file
    in ``directory``: ``ranks = 6`` is nlfh-small itself; 3 ranks (9 cards, 36 hands, 35 flops) measures in minutes."""
    from pokerbot.files import atomic_write_text
    from pokerbot.gamedef import load_game

    text = load_game("nlfh-small").to_text()
    if "numRanks = 6" not in text:
        raise ValueError("nlfh-small's definition changed: it no longer has numRanks = 6")
    path = Path(directory) / f"nlfh-{ranks}ranks.game"
    atomic_write_text(path, text.replace("numRanks = 6", f"numRanks = {ranks}"))
    return path


def blueprint_from_strategy(blueprint: Blueprint, tree: PublicTree, strat: np.ndarray) -> Blueprint:
    """A copy of ``blueprint`` (lossless cards) whose strategy is ``strat``, a strategy array of ``tree``, a
    whole-game tree with the blueprint's menu (:func:`eval_tree` with ``opponent=None``): an exact solve
    of the abstract game made into a blueprint the agent can start from."""
    from dataclasses import replace

    from blueprint.abstract_game import DECISION as ABSTRACT_DECISION
    from blueprint.mapping import TreeMapper

    cards = make_cards(blueprint.cards_name, blueprint.game)
    members = getattr(cards, "members", None)
    if members is None:
        raise ValueError("blueprint_from_strategy needs a lossless card abstraction (small games)")
    index: dict[tuple[str, tuple[int, ...]], int] = {}
    for node in np.nonzero(tree.kind == 0)[0]:
        s = node_state(tree, int(node))
        index[(s.betting_string(), tuple(sorted(s.visible_board)))] = int(node)
    row = {tuple(int(c) for c in h): i for i, h in enumerate(tree.hands[0])}
    abstract = blueprint.tree
    mapper = TreeMapper(abstract)
    out = np.array(blueprint.strategy, dtype=np.float64)
    for decision in np.nonzero(abstract.kind == ABSTRACT_DECISION)[0]:
        n = int(decision)
        betting = mapper.state_at(n).betting_string()
        r = int(abstract.round[n])
        p = int(abstract.player[n])
        acts = abstract.actions(n)
        na = len(acts)
        for b, group in enumerate(members[r]):
            hole, board = group[0]
            m = index.get((betting, tuple(sorted(board))))
            if m is None:
                continue
            labels = tree.node_labels(m)
            nh = tree.num_hands[p]
            h = row[tuple(sorted((int(c) for c in hole), reverse=True))]
            off = int(tree.slot[m])
            probs = [strat[off + labels.index(action_text(a, tree.game.nolimit)) * nh + h] for a in acts]
            out[int(abstract.base[n]) + b * na : int(abstract.base[n]) + (b + 1) * na] = probs
    return replace(blueprint, strategy=out)
