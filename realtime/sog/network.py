"""The counterfactual value-and-policy network (CVPN) of Student of Games (Schmid et al.,
Student of Games, "Counterfactual Value-and-Policy Networks" and supplementary "Network
Architecture and Optimization").

``f(beta) = (v, p)``: the input is a public belief state, both players' ranges
(normalised) and public features in the analogue of the paper's poker row of
Table S1 (N-hot board cards over the deck, each player's commitment over the
largest stake, one-hot next actor including chance, one-hot round); the
outputs are one value per hand per player and, per player, one policy head
(logits per hand and action slot); the acting player's head is the prior.

Values are *normalised*: ``counterfactual value / (opponent reach over
compatible hands) / largest stake``, so they do not depend on the ranges'
scale; :class:`NetworkValue` turns them back into counterfactual values for
GT-CFR. Loss: ``w_v * Huber(v) + w_p * cross-entropy(policy)``, masked to hands
that miss the board and to legal actions.

The network runs on CUDA when it is present and on the CPU otherwise, with no
change to the calling code (see :func:`default_device`).

>>> from realtime.sog.search import PublicGame
>>> g = PublicGame.load("leduc")
>>> net = CVPN.for_game(g, hidden=32, layers=2)
>>> x = features(g, np.array([0]), *[r[None] for r in g.initial_ranges()])
>>> x.shape, net.input_size == x.shape[1]
((1, 25), True)
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from pokerbot.torch_device import default_device
from realtime.sog.search import LeafValues, PublicGame


def feature_size(game: PublicGame) -> int:
    h0, h1 = game.num_hands
    return h0 + h1 + len(game.card_index) + 2 + 3 + game.game.num_rounds


def features(game: PublicGame, nodes: np.ndarray, r0: np.ndarray, r1: np.ndarray) -> np.ndarray:
    """Network inputs (one row per public node with its ranges), float32."""
    t = game.tree
    h0, h1 = game.num_hands
    k = len(nodes)
    x = np.zeros((k, feature_size(game)), dtype=np.float32)
    s0 = r0.sum(axis=1, keepdims=True)
    s1 = r1.sum(axis=1, keepdims=True)
    x[:, :h0] = r0 / np.where(s0 > 0, s0, 1.0)
    x[:, h0 : h0 + h1] = r1 / np.where(s1 > 0, s1, 1.0)
    x[:, h0 + h1 :] = public_features(game)[nodes]
    return x


def public_features(game: PublicGame) -> np.ndarray:
    """Per public node: N-hot board, commitments / largest stake, next actor (p0, p1, chance), round (cached)."""
    got = game.__dict__.get("_public_features")
    if got is None:
        t = game.tree
        nd = len(game.card_index)
        got = np.zeros((t.num_nodes, nd + 5 + game.game.num_rounds), dtype=np.float32)
        for n in range(t.num_nodes):
            for g in t.boards[int(t.board[n])]:
                for c in g:
                    got[n, game.card_index[c]] = 1.0
            got[n, nd : nd + 2] = game.spent[n] / game.max_stake
            got[n, nd + 2 + (int(t.player[n]) if t.kind[n] == 0 else 2)] = 1.0
            got[n, nd + 5 + int(game.round[n])] = 1.0
        game.__dict__["_public_features"] = got
    return got


class CVPN(nn.Module):
    """An MLP trunk with a value head (both players' hands) and one policy head per player."""

    def __init__(self, input_size: int, hands: tuple[int, int], actions: int, hidden: int = 128, layers: int = 3) -> None:
        super().__init__()
        self.input_size = input_size
        self.hands = hands
        self.actions = actions
        self.hmax = max(hands)
        self.hidden = hidden
        self.layers = layers
        trunk: list[nn.Module] = []
        size = input_size
        for _ in range(layers):
            trunk += [nn.Linear(size, hidden), nn.ReLU()]
            size = hidden
        self.trunk = nn.Sequential(*trunk)
        self.value = nn.Linear(size, hands[0] + hands[1])
        self.policy = nn.ModuleList([nn.Linear(size, actions * hands[p]) for p in range(2)])

    @classmethod
    def for_game(cls, game: PublicGame, hidden: int = 128, layers: int = 3) -> CVPN:
        return cls(feature_size(game), game.num_hands, game.max_actions, hidden, layers)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(values (B, H0 + H1), logits of player 0 (B, A, H0), logits of player 1 (B, A, H1))."""
        z = self.trunk(x)
        b = x.shape[0]
        return (
            self.value(z),
            self.policy[0](z).view(b, self.actions, self.hands[0]),
            self.policy[1](z).view(b, self.actions, self.hands[1]),
        )

    def spec(self) -> dict[str, int]:
        return {"input_size": self.input_size, "h0": self.hands[0], "h1": self.hands[1], "actions": self.actions,
                "hidden": self.hidden, "layers": self.layers}

    @classmethod
    def from_spec(cls, spec: dict[str, int]) -> CVPN:
        return cls(int(spec["input_size"]), (int(spec["h0"]), int(spec["h1"])), int(spec["actions"]),
                   int(spec["hidden"]), int(spec["layers"]))


class NetworkValue:
    """GT-CFR leaf values and PUCT priors from a :class:`CVPN` (one batched forward pass per CFR update).

    On the CPU it sets torch to ``cpu_threads`` threads (default 1): the batches
    are a few dozen rows, and more threads only add synchronisation, which on
    a loaded machine made each forward pass an order of magnitude slower.
    """

    def __init__(self, net: CVPN, prior_temperature: float = 1.0, device: torch.device | None = None,
                 cpu_threads: int | None = 1) -> None:
        self.device = device or default_device()
        if self.device.type == "cpu" and cpu_threads:
            torch.set_num_threads(cpu_threads)
        self.net = net.to(self.device).eval()
        self.temperature = prior_temperature
        self.evaluations = 0

    def evaluate(self, game: PublicGame, nodes: np.ndarray, r0: np.ndarray, r1: np.ndarray) -> LeafValues:
        t = game.tree
        h0, h1 = game.num_hands
        x = torch.from_numpy(features(game, nodes, r0, r1)).to(self.device)
        with torch.no_grad():
            v, l0, l1 = self.net(x)
            v = v.cpu().numpy().astype(np.float64)
            p0 = torch.softmax(l0 / self.temperature, dim=1).cpu().numpy()
            p1 = torch.softmax(l1 / self.temperature, dim=1).cpu().numpy()
        self.evaluations += len(nodes)
        m0, m1 = game.opponent_masses(r0, r1)
        boards = t.board[nodes]
        v0 = v[:, :h0] * game.max_stake * m0 * t.valid[0][boards]
        v1 = v[:, h0:] * game.max_stake * m1 * t.valid[1][boards]
        prior = np.zeros((len(nodes), game.max_actions, max(h0, h1)))
        for i, n in enumerate(nodes):
            p = int(t.player[n])
            nc = int(t.num_children[n])
            q = (p0, p1)[p][i, :nc, :]
            q = q / q.sum(axis=0, keepdims=True)  # renormalise over the legal action slots
            prior[i, :nc, : q.shape[1]] = q
        return LeafValues(v0, v1, prior)
