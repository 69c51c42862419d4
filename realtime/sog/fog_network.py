"""The CVPN on any game of :mod:`realtime.sog.fog`: inputs, normalised targets and leaf values.

The network is :class:`realtime.sog.network.CVPN` (an MLP trunk, a value head over
both players' information states and one policy head per player) with the slot *keys*
of :class:`~realtime.sog.fog.PublicStates` in the place of poker hands: the input is
both players' normalised reaches added at their slots' keys, followed by the game's
public features (:meth:`PublicStates.public_features`); every slot reads the value and
policy outputs at its key. Values are normalised as for poker: counterfactual value over
the opponent's reach mass at the information state (:func:`opponent_masses`) over the
largest stake; a key's target is the mass-weighted mean over its slots.

>>> from realtime.sog.fog import load
>>> ps = load("kuhn")
>>> net = cvpn_for(ps, hidden=16, layers=1)
>>> x = inputs(ps, [2], [np.ones(3)], [np.ones(3)])
>>> x.shape, net.input_size == x.shape[1]
((1, 17), True)
"""

from __future__ import annotations

import numpy as np
import torch

from pokerbot.torch_device import default_device
from realtime.sog.fog import PublicStates
from realtime.sog.fog_search import LeafValue
from realtime.sog.network import CVPN


def input_size(ps: PublicStates) -> int:
    return ps.num_keys[0] + ps.num_keys[1] + ps.public_feature_size


def cvpn_for(ps: PublicStates, hidden: int = 128, layers: int = 3) -> CVPN:
    """A fresh CVPN shaped for ``ps``."""
    return CVPN(input_size(ps), ps.num_keys, ps.max_actions, hidden, layers)


def keys(ps: PublicStates, player: int, state: int) -> np.ndarray:
    """The keys of ``player``'s slots in public state ``state``."""
    sl = ps.slots(player, state)
    return ps.slot_key[player][sl.start : sl.stop]


def inputs(ps: PublicStates, states: list[int], r0: list[np.ndarray], r1: list[np.ndarray]) -> np.ndarray:
    """Network inputs, one row per public state with its reaches (float32)."""
    k0, k1 = ps.num_keys
    x = np.zeros((len(states), input_size(ps)), dtype=np.float32)
    for k, (p, a, b) in enumerate(zip(states, r0, r1)):
        sa, sb = float(np.sum(a)), float(np.sum(b))
        np.add.at(x[k, :k0], keys(ps, 0, p), a / sa if sa > 0 else a)
        np.add.at(x[k, k0 : k0 + k1], keys(ps, 1, p), b / sb if sb > 0 else b)
        x[k, k0 + k1 :] = ps.public_features(p)
    return x


def opponent_masses(ps: PublicStates, state: int, r0: np.ndarray, r1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per slot of each player: ``sum_{h in s} pi_c(h) * r_opp(s_opp(h))`` (what a counterfactual
    value is normalised by)."""
    nodes = ps.nodes(state)
    s0 = ps.node_slot[0, nodes] - ps.slot_start[0, state]
    s1 = ps.node_slot[1, nodes] - ps.slot_start[1, state]
    pc = ps.game.chance_reach[nodes]
    m0 = np.zeros(len(r0))
    m1 = np.zeros(len(r1))
    np.add.at(m0, s0, pc * r1[s1])
    np.add.at(m1, s1, pc * r0[s0])
    return m0, m1


def normalised_values(ps: PublicStates, state: int, r0: np.ndarray, r1: np.ndarray, v0: np.ndarray, v1: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Value targets and masks per key: ``sum v / sum mass / max_stake`` over the key's slots,
    where the mass is positive."""
    m0, m1 = opponent_masses(ps, state, r0, r1)  # raw reaches, like the values
    out = []
    for i, (v, m) in enumerate(((v0, m0), (v1, m1))):
        num = np.zeros(ps.num_keys[i])
        den = np.zeros(ps.num_keys[i])
        kk = keys(ps, i, state)
        np.add.at(num, kk, v)
        np.add.at(den, kk, m)
        ok = den > 0
        out.append((np.where(ok, num / np.where(ok, den, 1.0) / ps.max_stake, 0.0), ok.astype(np.float32)))
    return out[0][0], out[1][0], out[0][1], out[1][1]


class FogNetworkValue:
    """GT-CFR leaf values and PUCT priors from a CVPN (one batched forward pass per CFR update)."""

    def __init__(self, net: CVPN, device: torch.device | None = None, cpu_threads: int | None = 1) -> None:
        self.device = device or default_device()
        if self.device.type == "cpu" and cpu_threads:
            torch.set_num_threads(cpu_threads)
        self.net = net.to(self.device).eval()
        self.evaluations = 0

    def evaluate(self, ps: PublicStates, states: list[int], r0: list[np.ndarray], r1: list[np.ndarray]) -> list[LeafValue]:
        x = torch.from_numpy(inputs(ps, states, r0, r1)).to(self.device)
        with torch.no_grad():
            v, l0, l1 = self.net(x)
            v = v.cpu().numpy().astype(np.float64)
            p0 = torch.softmax(l0, dim=1).cpu().numpy()
            p1 = torch.softmax(l1, dim=1).cpu().numpy()
        self.evaluations += len(states)
        k0 = ps.num_keys[0]
        out = []
        for k, (p, a, b) in enumerate(zip(states, r0, r1)):
            m0, m1 = opponent_masses(ps, p, a, b)  # raw reaches: the values come back at their scale
            v0 = v[k, keys(ps, 0, p)] * ps.max_stake * m0
            v1 = v[k, k0 + keys(ps, 1, p)] * ps.max_stake * m1
            actor = int(ps.kind[p])
            prior = None
            if actor in (0, 1):
                slots = ps.slots(actor, p)
                q = (p0, p1)[actor][k][:, keys(ps, actor, p)].T  # slots x actions
                prior = np.zeros((len(slots), ps.max_actions))
                for j, s in enumerate(slots):
                    n = int(ps.num_actions[actor][s])
                    row = q[j, :n]
                    prior[j, :n] = row / row.sum()
            out.append(LeafValue(v0, v1, prior))
        return out
