"""Student of Games training on any game of :mod:`realtime.sog.fog`: sound self-play, query
solving and CVPN updates (Schmid et al., "Data Generation via Sound Self-play" and
"Training Process"), the general counterpart of :mod:`realtime.sog.selfplay` and
:mod:`realtime.sog.training`.

A work unit is one self-play episode: at every public decision state both players'
re-solving chains search, the actor samples its action from its chain's policy
(mixed with ``epsilon`` uniform); with probability ``q_search`` a search queues one of its
network queries, each queued query is solved by a plain search from its beliefs and
becomes a value-and-policy example (queuing one of its own queries with probability
``q_recursive``). The trainer alternates work units and Adam steps on a replay buffer
(Huber value loss + cross-entropy policy loss), saves a checkpoint every
``checkpoint_every`` steps (``step-<n>.pt``, atomic) and resumes from the newest one
(the replay buffer is not saved: a resumed run refills it from new episodes).

>>> from realtime.sog.fog import load
>>> ps = load("kuhn")
>>> cfg = FogTrainConfig(steps=4, units_per_round=1, steps_per_round=2, batch=8, hidden=8, layers=1,
...                      search=SearchSettings(4, 1.0), checkpoint_every=2)
>>> import tempfile
>>> with tempfile.TemporaryDirectory() as d:
...     result = train(ps, cfg, d, progress=False)
...     sorted(p.name for p in Path(d).glob("step-*.pt"))
['step-0.pt', 'step-2.pt', 'step-4.pt']
"""

from __future__ import annotations

import os
import pickle
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from realtime.sog.fog import TERMINAL, PublicStates
from realtime.sog.fog_network import FogNetworkValue, cvpn_for, input_size, inputs, keys, normalised_values
from realtime.sog.fog_resolve import next_summaries, resolve, search_seed
from realtime.sog.fog_search import FogSearch, FogValueFunction
from realtime.sog.network import CVPN
from realtime.sog.resolve import SearchSettings, Summary
from realtime.sog.search import SoGError
from realtime.sog.selfplay import Examples

@dataclass
class FogTrainConfig:
    """Training constants (the paper's Table S2 where it gives them)."""

    steps: int = 2000
    search: SearchSettings = field(default_factory=lambda: SearchSettings(100, 1.0))
    epsilon: float = 0.1
    q_search: float = 0.9
    q_recursive: float = 0.1
    max_queries: int = 32
    hidden: int = 128
    layers: int = 3
    lr: float = 1e-3
    batch: int = 128
    buffer: int = 20000
    units_per_round: int = 1
    steps_per_round: int = 10
    checkpoint_every: int = 250
    seed: int = 0


def no_examples(ps: PublicStates) -> Examples:
    """An empty :class:`~realtime.sog.selfplay.Examples` shaped for ``ps`` (slot keys in the place of hands)."""
    m = ps.num_keys
    a = ps.max_actions
    return Examples(np.zeros((0, input_size(ps)), np.float32), np.zeros((0, m[0] + m[1]), np.float32),
                    np.zeros((0, m[0] + m[1]), np.float32), np.zeros((0, a, max(m)), np.float32),
                    np.zeros((0, a, max(m)), np.float32), np.zeros(0, np.int64))


def example(ps: PublicStates, search: FogSearch, with_values: bool) -> Examples:
    """The training example of a finished search at its root belief state."""
    p = search.root
    s0, s1 = search.root_slots
    R = search.average_reaches()
    r0, r1 = R[0][s0.start : s0.stop], R[1][s1.start : s1.stop]
    x = inputs(ps, [p], [r0], [r1])
    m = ps.num_keys
    value = np.zeros((1, m[0] + m[1]), np.float32)
    vmask = np.zeros_like(value)
    if with_values:
        v0, v1 = search.average_values()
        t0, t1, k0, k1 = normalised_values(ps, p, r0, r1, v0, v1)
        value[0, : m[0]], value[0, m[0] :] = t0, t1
        vmask[0, : m[0]], vmask[0, m[0] :] = k0, k1
    actor = int(ps.kind[p])
    policy = np.zeros((1, ps.max_actions, max(m)), np.float32)
    pmask = np.zeros_like(policy)
    # a key's policy target: its slots' policies weighted by the actor's reach (uniform weights if none)
    own = (r0, r1)[actor]
    weights = own if own.sum() > 0 else np.ones_like(own)
    for j, (key, row) in enumerate(zip(keys(ps, actor, p), search.policy())):
        policy[0, : len(row), key] += weights[j] * row
        pmask[0, : len(row), key] = 1.0
    total = policy[0].sum(axis=0)
    policy[0] = np.where(total > 0, policy[0] / np.where(total > 0, total, 1.0), pmask[0] / np.maximum(pmask[0].sum(axis=0), 1.0))
    return Examples(x, value, vmask, policy, pmask, np.array([actor]))


def work_unit(ps: PublicStates, value_fn: FogValueFunction, cfg: FogTrainConfig, seed: int) -> tuple[Examples, int]:
    """One self-play episode and its query solves; returns the examples and the searches run."""
    rng = np.random.default_rng(seed)
    g = ps.game
    parts: list[Examples] = []
    queue: list[tuple[int, np.ndarray, np.ndarray]] = []
    searches = 0
    h = ps.deal(0, rng)
    summaries: list[Summary | None] = [None, None]
    while g.player[h] != TERMINAL:
        p = int(ps.node_state[h])
        actor = int(g.player[h])
        nexts: list[dict[int, Summary]] = [{}, {}]
        policy = None
        for own in (0, 1):
            s = resolve(ps, p, own, summaries[own], value_fn, cfg.search, search_seed(seed, own, p), log_queries=True)
            searches += 1
            if rng.random() < cfg.q_search and s.stats.queries:
                queue.append(s.stats.queries[int(rng.integers(len(s.stats.queries)))])
            if own == actor:
                slot = int(ps.node_slot[actor, h]) - int(ps.slot_start[actor, p])
                policy = s.policy()[slot]
                parts.append(example(ps, s, with_values=False))
            nexts[own] = next_summaries(s, own)
        assert policy is not None
        mix = (1 - cfg.epsilon) * policy + cfg.epsilon / len(policy)
        h = ps.deal(int(g.children(h)[int(rng.choice(len(policy), p=mix / mix.sum()))]), rng)
        if g.player[h] == TERMINAL:
            break
        nxt = int(ps.node_state[h])
        summaries = [nexts[o].get(nxt) for o in (0, 1)]
        for o in (0, 1):
            summ = summaries[o]
            if summ is not None and not summ.own_range.any():
                summ.own_range = np.ones_like(summ.own_range)  # exploration left the searched policy: restart
    solves = 0
    while queue and solves < cfg.max_queries:
        p, r0, r1 = queue.pop(0)
        s = FogSearch(ps, p, (r0, r1), value_fn, seed=int(rng.integers(1 << 31)), c_puct=cfg.search.c_puct,
                      log_queries=True).run(cfg.search.simulations, cfg.search.c)
        solves += 1
        searches += 1
        parts.append(example(ps, s, with_values=True))
        if rng.random() < cfg.q_recursive and s.stats.queries:
            queue.append(s.stats.queries[int(rng.integers(len(s.stats.queries)))])
    return (Examples.concat(parts) if parts else no_examples(ps)), searches


def loss(net: CVPN, b: Examples) -> torch.Tensor:
    """Huber value loss on masked slots + cross-entropy of the acting player's policy head."""
    x = torch.from_numpy(b.x)
    v, l0, l1 = net(x)
    vm = torch.from_numpy(b.value_mask)
    vl = (nn.functional.huber_loss(v, torch.from_numpy(b.value), reduction="none") * vm).sum() / vm.sum().clamp(min=1.0)
    pl = torch.zeros(())
    for p, logits in ((0, l0), (1, l1)):
        rows = np.flatnonzero(b.actor == p)
        if not len(rows):
            continue
        n = logits.shape[2]
        mask = torch.from_numpy(b.policy_mask[rows][:, :, :n])
        target = torch.from_numpy(b.policy[rows][:, :, :n])
        lg = logits[torch.from_numpy(rows)].masked_fill(mask == 0, -1e9)
        logp = torch.log_softmax(lg, dim=1)
        per_slot = -(target * logp * mask).sum(dim=1)
        used = (mask.sum(dim=1) > 0).float()
        pl = pl + (per_slot * used).sum() / used.sum().clamp(min=1.0)
    return vl + pl


def _save(path: Path, net: CVPN, opt: torch.optim.Optimizer, step: int, cfg: FogTrainConfig, game: str, extra: dict[str, Any]) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save({"net": net.state_dict(), "spec": net.spec(), "opt": opt.state_dict(), "step": step,
                "config": {**asdict(cfg), "search": asdict(cfg.search)}, "game": game, **extra}, tmp)
    os.replace(tmp, path)


def load_checkpoint(path: str | os.PathLike[str]) -> tuple[CVPN, dict[str, Any]]:
    """A trained network and its checkpoint (refused with a clear error if it is not one)."""
    try:
        ck = torch.load(path, map_location="cpu", weights_only=False)
        net = CVPN.from_spec(ck["spec"])
        net.load_state_dict(ck["net"])
    except (OSError, KeyError, RuntimeError, EOFError, ValueError, TypeError, pickle.UnpicklingError) as exc:
        raise SoGError(f"{path}: not a general Student of Games checkpoint ({exc})") from None
    return net, ck


@dataclass
class FogTrainResult:
    step: int
    units: int
    examples: int
    seconds: float
    checkpoints: list[Path]


def train(ps: PublicStates, cfg: FogTrainConfig, out: str | os.PathLike[str], progress: bool = True) -> FogTrainResult:
    """Train (or resume) a CVPN on ``ps`` into directory ``out`` (see the module docstring)."""
    outdir = Path(out)
    outdir.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(cfg.seed)
    net = cvpn_for(ps, cfg.hidden, cfg.layers)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    step, units, seconds = 0, 0, 0.0
    existing = sorted(outdir.glob("step-*.pt"), key=lambda p: int(p.stem.split("-")[1]))
    if existing:
        _, ck = load_checkpoint(existing[-1])
        if ck.get("game") != ps.name or ck["spec"] != net.spec():
            raise SoGError(f"{existing[-1]}: a checkpoint of game {ck.get('game')!r} / network {ck['spec']}, "
                           f"not {ps.name!r} / {net.spec()}; use another directory")
        net.load_state_dict(ck["net"])
        opt.load_state_dict(ck["opt"])
        step, units, seconds = int(ck["step"]), int(ck.get("units", 0)), float(ck.get("seconds", 0.0))
    else:
        _save(outdir / "step-0.pt", net, opt, 0, cfg, ps.name, {"units": 0, "seconds": 0.0})
    rng = np.random.default_rng(cfg.seed + step)
    buf = no_examples(ps)
    value_fn = FogNetworkValue(net, device=torch.device("cpu"))
    start = time.perf_counter() - seconds
    saved = sorted(outdir.glob("step-*.pt"))
    while step < cfg.steps:
        net.eval()
        parts = [buf]
        for _ in range(cfg.units_per_round):
            b, _ = work_unit(ps, value_fn, cfg, seed=cfg.seed * 1_000_003 + units)
            units += 1
            parts.append(b)
        buf = Examples.concat(parts).tail(cfg.buffer)
        net.train()
        for _ in range(cfg.steps_per_round):
            if step >= cfg.steps or not len(buf):
                break
            idx = rng.integers(len(buf), size=min(cfg.batch, len(buf)))
            opt.zero_grad()
            loss(net, buf.rows(idx)).backward()
            opt.step()
            step += 1
            if step % cfg.checkpoint_every == 0 or step == cfg.steps:
                path = outdir / f"step-{step}.pt"
                _save(path, net, opt, step, cfg, ps.name, {"units": units, "seconds": time.perf_counter() - start})
                saved.append(path)
        if progress:
            print(f"\r{ps.name}: step {step}/{cfg.steps}, {units} episodes, {len(buf)} examples, "
                  f"{time.perf_counter() - start:.0f} s", end="", file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr)
    net.eval()
    return FogTrainResult(step, units, len(buf), time.perf_counter() - start,
                          sorted(outdir.glob("step-*.pt"), key=lambda p: int(p.stem.split("-")[1])))
