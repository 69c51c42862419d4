"""The Student of Games agent: continual re-solving with GT-CFR at every public decision of a hand.

Within a hand the agent keeps its own re-solving chain (it is ``own``): when
asked to act it searches, in order, at every public decision state on the path
from the root to the current one that it has not searched yet, the opponent's
included, each search using the previous one's summary (own range, opponent's
average counterfactual values, opponent range for mixing). That is exactly one
path of :func:`realtime.sog.resolve.chain_policy`, so an agent plays the
composed policy whose exploitability ``pokerbot sog eval`` measures. Actions
are sampled from the searched average policy for the agent's hand.

In no-limit games an opponent raise that is not in the bet menu is mapped to
the menu raise of the nearest size (the agent's own raises are then repaired
to legal sizes by the runner, as the ACPC dealer would).

By spec, in matches and over ACPC::

    realtime.sog.agent:make_agent?path=sog-leduc&simulations=100&c=1
    realtime.sog.agent:make_agent?exact=1&simulations=30     # exact value function, no network

Translation is the crude nearest-size rule: two real betting histories can map
to one public node, in which case the agent reuses that node's search; when the translated history
leaves the menu's tree altogether the agent checks/calls and counts it in
``fallbacks``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from pokerbot.actions import action_from_text
from pokerbot.agent import Agent
from pokerbot.gamedef import GameDef
from pokerbot.matchstate import MatchState
from pokerbot.state import CALL, Action, State
from realtime.sog import kernels as K
from realtime.sog.resolve import SearchSettings, next_summaries, resolve, search_seed
from realtime.sog.search import GTCFR, PublicGame, SoGError, ValueFunction


class SoGAgent(Agent):
    """Plays a public game by continual re-solving (see the module docstring)."""

    def __init__(self, make_value_fn: Callable[[PublicGame], ValueFunction], settings: SearchSettings,
                 seed: int | None = None, name: str = "sog") -> None:
        self.make_value_fn = make_value_fn
        self.settings = settings
        self.seed = 0 if seed is None else int(seed)
        self.name = name
        self.rng = np.random.default_rng(self.seed)
        self.game: PublicGame | None = None
        self.value_fn: ValueFunction | None = None
        self.hands_played = 0
        self.fallbacks = 0

    def begin_match(self, game: GameDef) -> None:
        self.game = PublicGame.load(game)
        self.value_fn = self.make_value_fn(self.game)

    def begin_hand(self, view: MatchState) -> None:
        self.hands_played += 1
        self.searches: dict[int, GTCFR] = {}

    def _path(self, state: State) -> list[int]:
        """Public decision nodes from the root to the current state's node."""
        assert self.game is not None
        t = self.game.tree
        node = self.game.node_of(state, translate=True)
        path = []
        while node >= 0:
            if t.kind[node] == K.DECISION:
                path.append(node)
            node = int(self.game.parent[node])
        return path[::-1]

    def act(self, view: MatchState) -> Action:
        if self.game is None or self.value_fn is None:
            raise SoGError("act() before begin_match()")
        g = self.game
        t = g.tree
        own = view.viewer
        try:
            path = self._path(view.state)
        except SoGError:
            if not g.game.nolimit:
                raise
            self.fallbacks += 1  # translation left the bet menu's tree: check/call (counted)
            return CALL
        seed = self.seed * 1_000_003 + self.hands_played
        for i, node in enumerate(path):
            if node in self.searches:
                continue
            summary = None
            if i > 0:
                summary = next_summaries(self.searches[path[i - 1]], own).get(node)
                if summary is None:
                    raise SoGError(f"public state {node} was not in the previous search tree")
                if not summary.own_range.any():
                    summary.own_range = t.valid[own][int(t.board[node])].copy()  # reached off the searched policy
            self.searches[node] = resolve(g, node, own, summary, self.value_fn, self.settings, search_seed(seed, own, node))
        search = self.searches[path[-1]]
        hole = tuple(sorted(view.state.hole_cards[own], reverse=True))
        rows = np.flatnonzero((t.hands[own] == np.array(hole)).all(axis=1))
        if rows.size != 1:
            raise SoGError(f"hole cards {hole} are not a hand of the public tree")
        probs = search.policy()[:, int(rows[0])]
        a = int(self.rng.choice(len(probs), p=probs / probs.sum()))
        return action_from_text(t.node_labels(path[-1])[a], t.game.nolimit)


def make_agent(
    game: GameDef,
    seed: int | None = None,
    path: str = "",
    exact: str | int = 0,
    simulations: str | int = 100,
    c: str | float = 1.0,
    exact_iterations: str | int = 100,
    name: str = "sog",
) -> SoGAgent:
    """Factory for agent specs: ``path`` = a checkpoint, its run directory or a run name under
    ``$POKERBOT_HOME/sog``; ``exact=1`` uses the exact value function instead of a network."""
    settings = SearchSettings(int(simulations), float(c))
    if int(exact):
        from realtime.sog.values import ExactValue

        return SoGAgent(lambda g: ExactValue(g, int(exact_iterations)), settings, seed, name)
    if not path:
        raise SoGError("the SoG agent needs path=CHECKPOINT (or exact=1)")
    from realtime.sog.network import NetworkValue
    from realtime.sog.training import load_network

    p = Path(path)
    if not p.exists():
        from pokerbot.files import pokerbot_home

        p = pokerbot_home() / "sog" / path
    if p.is_dir():
        p = p / "checkpoint.pt"
    net, data = load_network(p)
    if data.get("config", {}).get("game") not in (None, game.name):
        raise SoGError(f"checkpoint {str(p)!r} was trained on {data['config']['game']!r}, not {game.name!r}")
    temperature = float(data.get("config", {}).get("prior_temperature", 1.0))
    return SoGAgent(lambda g: NetworkValue(net, temperature), settings, seed, name)
