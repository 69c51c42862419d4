"""Leaf-value network figures: validation loss, agreement with exact leaves, throughput, HUNL flop solve.

``python -m bench leafnet`` prints

1. no-limit Leduc with exact targets (``configs/leafnet-leduc.toml``): validation Huber loss,
   the network's leaf values against the exact evaluator's (uniform ranges; error per
   opponent hand as a fraction of the pot), and the exploitability, inside the exact
   depth-limited game, of a DCFR solution computed with network leaves (beside the
   exact-leaf solution's and uniform play's);
2. HUNL (``configs/leafnet-hunl-tiny.toml``): validation Huber loss, network inference
   throughput (rows and leaves per second by batch size; one leaf is 144 rows with the
   ``tiny`` flop buckets), and the flop subgame of ``bench_depth_limited`` (Ks7h2c after
   ``r300c/``, {0.5 pot, pot, all-in} with at most three raises, end of the flop; K = 4 bias
   set for the opponent, the blueprint for us) solved with network leaves and with rollout
   leaves (3 run-outs): precomputation and solve time; both are judged against a reference
   rollout evaluator with 30 run-outs a leaf (another seed): leaf-value differences and each
   solution's exploitability with the reference leaves. With ``LEAFNET_SIZES=1``, also larger
   networks trained on the same data (minutes);
3. with ``LEAFNET_H2H_CHUNKS=N`` (or ``python -m bench.bench_leafnet h2h VARIANT FIRST LAST`` for chunks
   ``FIRST .. LAST - 1``, e.g. two processes on two ranges), the real-time agent with network leaves on the flop
   (``configs/realtime-hunl-tiny-net.toml``) against the same agent with rollout leaves
   (``configs/realtime-hunl-tiny.toml``), duplicate, in resumable chunks of 10 hands under
   ``$POKERBOT_HOME/bench/leafnet-h2h-<variant>/``: mbb/g plain and with AIVAT (95% CI), decision time per street.
   Variants: ``shipped`` (the configs as they are, time budgets included) and ``flop<N>`` (only the flop
   re-solved, exactly N iterations, no time limit: the agents differ only in the flop's leaf values).

Builds the models first if missing (``pokerbot leafnet train ...``: minutes). CPU times are
reported beside wall times: the machine is shared.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402

REF_ROLLOUTS = 30


def _clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _since(start: tuple[float, float]) -> tuple[float, float]:
    w, c = _clock()
    return w - start[0], c - start[1]


def _model(config: str) -> tuple[object, dict]:
    from blueprint.leafnet import LeafNet
    from pokerbot.cli import main as cli
    from realtime.leafnet_run import load_config
    from realtime.network_leaves import leafnet_dir

    data, _ = load_config(config)
    d = leafnet_dir(data["leafnet"]["name"])
    if not (d / "model" / "model.json").is_file():
        cli(["leafnet", "train", config, "--no-progress"])
    return LeafNet.load(d / "model"), data


def leduc() -> None:
    from pokerbot.solver import Solver, exploitability, uniform_strategy
    from realtime.leafnet_data import DataConfig, small_context
    from realtime.network_leaves import NetworkLeafEvaluator, leafnet_dir

    net, data = _model("leafnet-leduc")
    cfg = DataConfig(**data["leafnet"], **data.get("data", {}))
    ctx = small_context(cfg, leafnet_dir(cfg.name) / "data")
    tree, ev = ctx.dl, ctx.evaluator()
    bpf, csf = ctx.identities
    nev = NetworkLeafEvaluator(tree, net, classes="hand", blueprint=bpf, continuations=csf)
    nl = len(tree.continuation_leaves)
    k = len(ctx.continuations)
    pots = np.array([float(sum(tree.leaf_states[int(li)].spent)) for li in tree.continuation_leaves])
    n_opp = tree.num_hands[1] - 1
    err0 = np.abs(nev.values(0, np.ones((nl, k, 6)) / k) - ev.values(0, np.ones((nl, k, 6)) / k)) / (pots[:, None, None] * n_opp)
    err1 = np.abs(nev.values(1, np.ones((nl, 1, 6))) - ev.values(1, np.ones((nl, 1, 6)))) / (pots[:, None, None] * n_opp)
    m = net.meta
    print(f"no-limit Leduc (end of round 1, {nl} leaves, K = 1 x {k}, exact targets, {m['rows']['train']} train / "
          f"{m['rows']['val']} validation rows, hidden {m['hidden']}): validation Huber loss {m['val_loss']:.4f}")
    print(f"  leaf values vs exact (uniform ranges), |error| per opponent hand / pot: player 0 mean {err0.mean():.3f} "
          f"max {err0.max():.3f}; player 1 mean {err1.mean():.3f} max {err1.max():.3f}")
    out = {}
    for name, e in (("exact leaves", ev), ("network leaves", nev)):
        s = Solver(tree, "dcfr", leaves=e)
        s.run(300)
        out[name] = exploitability(tree, s.average_strategy(), None, ev)
    out["uniform"] = exploitability(tree, uniform_strategy(tree, ev), None, ev)
    print("  exploitability in the exact depth-limited game (DCFR 300 iterations), mbb/g: "
          + ", ".join(f"{k_}: {v:.1f}" for k_, v in out.items()))


def noise_floor(subgames: int = 3) -> float:
    """Huber loss between two independent 3-rollout target sets of the same leaves, halved: the loss a perfect
    predictor of the rollout mean would have against one target set (what validation loss can reach)."""
    import torch

    from blueprint.continuation import leaves_dir, load_set
    from blueprint.leafnet import FeatureSpec
    from blueprint.model import Blueprint
    from blueprint.storage import blueprint_dir
    from pokerbot.solver import PotFractionMenu, build_tree
    from realtime.leaf_values import RolloutLeafEvaluator
    from realtime.leafnet_data import sample_flop_root, tree_rows
    from realtime.network_leaves import holdem_classes

    bp = Blueprint.load(blueprint_dir("hunl-tiny") / "blueprint.npz")
    cs = load_set(leaves_dir("hunl-tiny-bias"), bp.tree, bp.tree.signature()).strategies
    losses = []
    for i in range(subgames):
        rng = np.random.default_rng([99, i])
        tree = build_tree(bp.game, PotFractionMenu((0.5, 1.0), True, 2), root=sample_flop_root(bp, rng, False),
                          depth_limit=0)
        ys = [tree_rows(tree, RolloutLeafEvaluator(tree, bp, (cs, cs), rollouts=3, seed=s), holdem_classes(bp),
                        FeatureSpec())[1] for s in (1, 2)]
        losses.append(float(torch.nn.HuberLoss()(torch.from_numpy(ys[0]), torch.from_numpy(ys[1]))) / 2)
    return float(np.mean(losses))


def hunl() -> None:
    import torch

    from blueprint.continuation import leaves_dir, load_set
    from blueprint.model import Blueprint
    from blueprint.storage import blueprint_dir
    from pokerbot.cards import parse_cards
    from pokerbot.gamedef import load_game
    from pokerbot.solver import PotFractionMenu, Solver, build_tree, exploitability
    from pokerbot.state import CALL, State, raise_to
    from realtime.network_leaves import make_leaf_evaluator

    net, _ = _model("leafnet-hunl-tiny")
    m = net.meta
    print(f"HUNL hunl-tiny (end of flop, K = 4 x 4, rollout targets, {m['rows']['train']} train / {m['rows']['val']} "
          f"validation rows, subgames held out, hidden {m['hidden']}): validation Huber loss {m['val_loss']:.4f}")
    print(f"  rollout-target noise floor (half the Huber loss between two 3-rollout target sets): {noise_floor():.4f}")
    f = net.spec.num_features
    print(f"  inference ({f} floats in, 16 out; torch {torch.__version__}, {next(net.model.parameters()).device}, 1 thread):")
    rng = np.random.default_rng(0)
    for batch in (1, 144, 1024, 4176, 65536):
        x = rng.random((batch, f)).astype(np.float32)
        net.predict(x)
        reps = max(3, int(20000 / batch))
        t = _clock()
        for _ in range(reps):
            net.predict(x)
        w, c = _since(t)
        print(f"    batch {batch:>6}: {batch * reps / w:>12,.0f} rows/s wall ({batch * reps / c:>12,.0f} CPU) = "
              f"{batch * reps / w / 144:>10,.0f} leaves/s wall")
    bp = Blueprint.load(blueprint_dir("hunl-tiny") / "blueprint.npz")
    cs = load_set(leaves_dir("hunl-tiny-bias"), bp.tree, bp.tree.signature()).strategies
    game = load_game("hunl")
    root = State.initial(game).apply(raise_to(300)).apply(CALL).with_cards(board_cards=parse_cards("Ks7h2c"))
    pot = sum(root.spent)
    tree = build_tree(game, PotFractionMenu((0.5, 1.0), True, 3), root=root, depth_limit=0)
    nl = len(tree.continuation_leaves)

    def pct(mbb: float) -> float:  # mbb/g -> % of the subgame's pot
        return mbb * game.big_blind / 1000 / pot * 100

    evs = {}
    res = {}
    for kind in ("rollout", "network"):
        t = _clock()
        ev = make_leaf_evaluator(kind, tree, blueprint=bp, continuations=([cs[0]], cs), model=net, rollouts=3, seed=0)
        pre = _since(t)
        reach = np.random.default_rng(0).random((nl, 4, tree.num_hands[1]))
        ev.values(0, reach)
        t = _clock()
        for _ in range(10):
            ev.values(0, reach)
        one = _since(t)
        t = _clock()
        solver = Solver(tree, "dcfr", leaves=ev)
        it = 0
        while True:
            solver.run(10)
            it += 10
            if pct(solver.exploitability()) <= 1.0 or it >= 400:
                break
        sol = _since(t)
        evs[kind] = ev
        res[kind] = solver.average_strategy()
        print(f"  flop subgame, {kind} leaves ({nl} continuation leaves): precomputation {pre[0]:.2f} s wall "
              f"({pre[1]:.2f} s CPU); one batched evaluation {1000 * one[0] / 10:.2f} ms wall ({1000 * one[1] / 10:.2f} ms CPU); "
              f"DCFR to 1% of the pot: {it} iterations, {sol[0]:.2f} s wall ({sol[1]:.2f} s CPU)")
    # The reference: rollouts with 10x the run-outs (another seed), against which both are judged.
    t = _clock()
    ref = make_leaf_evaluator("rollout", tree, blueprint=bp, continuations=([cs[0]], cs), rollouts=REF_ROLLOUTS, seed=123)
    print(f"  reference: rollout leaves with {REF_ROLLOUTS} run-outs a leaf (seed 123; {_since(t)[1]:.1f} s CPU)")
    pots = np.array([float(sum(tree.leaf_states[int(li)].spent)) for li in tree.continuation_leaves])
    valid = tree.valid[0][int(tree.board[0])] > 0
    n_opp = valid.sum() - 1
    uni = np.ones((nl, 4, tree.num_hands[1])) / 4
    uni1 = np.ones((nl, 1, tree.num_hands[0]))
    for kind in ("rollout", "network"):
        d0 = np.abs(evs[kind].values(0, uni) - ref.values(0, uni))[:, :, valid] / (pots[:, None, None] * n_opp)
        d1 = np.abs(evs[kind].values(1, uni1) - ref.values(1, uni1))[:, :, valid] / (pots[:, None, None] * n_opp)
        e = exploitability(tree, res[kind], None, ref)
        print(f"  {kind} leaves vs the reference: |value difference| per opponent hand / pot (uniform ranges) player 0 "
              f"mean {d0.mean():.3f}, player 1 (4 options) mean {d1.mean():.3f} (95th percentile {np.quantile(d1, 0.95):.3f}); "
              f"its solution's exploitability with the reference leaves {e:.0f} mbb/g ({pct(e):.1f}% of the pot)")


def sizes(shapes: tuple[tuple[int, ...], ...] = ((64, 64), (128, 128), (256, 256)), epochs: int = 50) -> None:
    """Validation loss and inference speed of larger networks on the HUNL data (``LEAFNET_SIZES=1``; minutes)."""
    import tempfile

    from blueprint.leafnet import TrainConfig, train
    from realtime.leafnet_run import load_config
    from realtime.leafnet_data import load_data
    from realtime.network_leaves import leafnet_dir

    data, _ = load_config("leafnet-hunl-tiny")
    manifest, arrays = load_data(leafnet_dir(data["leafnet"]["name"]) / "data")
    meta = {k: manifest[k] for k in ("spec", "choices", "classes", "blueprint", "continuations", "game")}
    x = np.random.default_rng(0).random((4176, arrays["x"].shape[1])).astype(np.float32)
    for hidden in shapes:
        cfg = TrainConfig(**dict(data.get("train", {}), hidden=list(hidden), epochs=epochs))
        with tempfile.TemporaryDirectory() as d:
            t = _clock()
            res = train(arrays["x"], arrays["y"], arrays["group"], d, cfg, meta)
            w, c = _since(t)
            res.net.predict(x)
            t = _clock()
            for _ in range(20):
                res.net.predict(x)
            pw, _ = _since(t)
        print(f"  hidden {list(hidden)}: best validation Huber loss {res.history[res.best_epoch][1]:.4f} (train "
              f"{res.history[res.best_epoch][0]:.4f}) at epoch {res.best_epoch + 1} of {len(res.history)}; training "
              f"{w:.0f} s wall ({c:.0f} s CPU); one flop subgame's 4,176 rows in {1000 * pw / 20:.2f} ms wall")


H2H_CONFIGS = ("hunl-tiny-net", "hunl-tiny")  # network leaves on the flop vs rollout leaves, otherwise equal
H2H_DEALS = 5  # duplicate deals (10 hands) per resumable chunk
#: The head-to-head's variants: ``shipped`` plays the two configs as they are (time budgets, flop + turn + river
#: re-solved); ``flopN`` re-solves only the flop, with exactly N DCFR iterations and no time limit (the turn and river
#: play the blueprint), so the two agents differ only in the flop's leaf values and not in what the load allows.
H2H_VARIANTS = ("shipped", "flop100")


def h2h_dir(variant: str) -> Path:
    from pokerbot.files import pokerbot_home

    return pokerbot_home() / "bench" / f"leafnet-h2h-{variant}"


def h2h_configs(variant: str) -> list:  # type: ignore[type-arg]
    from dataclasses import replace

    from realtime.config import RealtimeConfig

    cfgs = [RealtimeConfig.load(c) for c in H2H_CONFIGS]
    if variant == "shipped":
        return cfgs
    iterations = int(variant.removeprefix("flop"))
    return [replace(c, action_time_limit=1e6, rounds=((0, c.round(0)), (1, replace(
        c.round(1), iterations=iterations, min_iterations=1, time_budget=1e6)))) for c in cfgs]


def h2h_chunk(variant: str, index: int) -> dict:
    """Chunk ``index`` of the head-to-head: ``H2H_DEALS`` duplicate deals, seed ``index``; stored as JSON (resume).

    Both agents report their policies (a ``RealtimeAgent`` whose ``action_distribution`` is its decision's row), so
    AIVAT corrects both players' decisions and every chance event. ``aivat`` in the JSON uses ``EquityValue`` (the
    check-down value) within the chunk; ``chunk_<i>.pkl`` keeps every hand's final state and both policies so that
    :func:`h2h_summary` scores all hands with one ``FittedValue`` (the project's default, fitted as hands come in).
    """
    import json
    import pickle

    from blueprint.agent import resolve_path
    from blueprint.model import Blueprint
    from evaluation.aivat import EquityValue, play_match_aivat
    from pokerbot.gamedef import load_game
    from realtime.agent import RealtimeAgent

    path = h2h_dir(variant) / f"chunk_{index:04d}.json"
    if path.is_file():
        return json.loads(path.read_text())

    class Reporting(RealtimeAgent):
        """Reports its policy for AIVAT; the decision's time goes to the ``act`` record as without it."""

        pending = 0.0
        policies: dict = {}  # type: ignore[type-arg]  # (hand number, action index) -> what it reported

        def action_distribution(self, view):  # type: ignore[no-untyped-def]
            t0 = time.perf_counter()
            d = self.resolver.decide(view.state.with_cards(hole_cards=((),) * self.game.num_players))
            self.pending = time.perf_counter() - t0
            hole = tuple(sorted((int(c) for c in view.state.hole_cards[view.viewer]), reverse=True))
            p = d.probs[:, self.index[hole]].clip(min=0.0)
            p = p / p.sum() if p.sum() > 0 else np.full(len(p), 1.0 / len(p))
            dist = list(zip(d.actions, p.tolist()))
            self.policies[(self.hands, len(view.state.actions()))] = dist
            return dist

        def act(self, view):  # type: ignore[no-untyped-def]
            action = super().act(view)
            self.stats[-1]["seconds"] = float(self.stats[-1]["seconds"]) + self.pending  # type: ignore[arg-type]
            self.pending = 0.0
            return action

    game = load_game("hunl")
    cfgs = h2h_configs(variant)
    bp = Blueprint.load(resolve_path(cfgs[0].blueprint))
    a, b = (Reporting(c, bp, seed=2 * index + i, name=n) for i, (c, n) in enumerate(zip(cfgs, ("network", "rollout"))))
    t0 = time.perf_counter()
    finals: list = []  # type: ignore[type-arg]

    class Keeping(EquityValue):
        def learn(self, final) -> None:  # type: ignore[no-untyped-def]  # called after each hand is scored
            finals.append((final, self.seat))  # type: ignore[attr-defined]

    res = play_match_aivat(a, b, game, 2 * H2H_DEALS, seed=index, value_fn=Keeping(seed=index), duplicate=True,
                           progress=False)
    hands = [(final, seat, [(a if p == seat else b).policies.get((k + 1, i))
                            for i, (p, _) in enumerate(pa for rnd in final.history for pa in rnd)])
             for k, (final, seat) in enumerate(finals)]
    out = {"chunk": index, "seconds": time.perf_counter() - t0, "load": os.getloadavg()[0],
           "chips": res.chips.tolist(), "aivat": res.aivat.tolist(),
           "stats": {"network": a.stats, "rollout": b.stats}}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.with_suffix(".pkl").write_bytes(pickle.dumps(hands))
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(out))
    tmp.replace(path)
    return out


def h2h_summary(variant: str) -> None:
    """The head-to-head over every stored chunk: mbb/g (plain and AIVAT, 95% CI), decision times per street."""
    import json

    from evaluation.stats import win_rate
    from pokerbot.gamedef import load_game
    from realtime.demo import timing_summary

    chunks = [json.loads(p.read_text()) for p in sorted(h2h_dir(variant).glob("chunk_*.json"))]
    if not chunks:
        print("  no head-to-head chunks stored")
        return
    game = load_game("hunl")
    chips = np.concatenate([c["chips"] for c in chunks])
    aivat = np.concatenate([c["aivat"] for c in chunks])
    loads = [c["load"] for c in chunks]
    print(f"HUNL head to head ({variant}), {' vs '.join(H2H_CONFIGS)} (network leaves on the flop vs rollout leaves), "
          f"{len(chips)} duplicate hands in {len(chunks)} chunks, {sum(c['seconds'] for c in chunks):.0f} s; "
          f"load average at the chunks' ends {min(loads):.1f} to {max(loads):.1f}")
    pr, ar = win_rate(chips, game, pair=True), win_rate(aivat, game, pair=True)
    print(f"  network agent: plain {pr.mbb:+.0f} ± {pr.ci95:.0f} mbb/g, AIVAT (EquityValue per chunk) {ar.mbb:+.0f} ± "
          f"{ar.ci95:.0f} mbb/g (95% CI)")
    kept = [c for c in chunks if (h2h_dir(variant) / f"chunk_{c['chunk']:04d}.pkl").is_file()]
    if kept:
        import pickle

        from evaluation.aivat import FittedValue, aivat_hand

        vf = FittedValue(seed=0)
        est, plain = [], []
        for c in kept:
            for k, (final, seat, dists) in enumerate(pickle.loads((h2h_dir(variant) / f"chunk_{c['chunk']:04d}.pkl")
                                                                  .read_bytes())):
                vf.seat = seat
                _, e0 = aivat_hand(final, vf, dists)
                vf.learn(final)
                est.append(e0 if seat == 0 else -e0)
                plain.append(c["chips"][k])
        fr, pk = win_rate(np.array(est), game, pair=True), win_rate(np.array(plain), game, pair=True)
        print(f"  network agent over the {len(est)} hands of the {len(kept)} chunks that kept their hands: plain "
              f"{pk.mbb:+.0f} ± {pk.ci95:.0f}, AIVAT (one FittedValue, both policies known) {fr.mbb:+.0f} ± "
              f"{fr.ci95:.0f} mbb/g (95% CI)")
    for who in ("network", "rollout"):
        stats = [s for c in chunks for s in c["stats"][who]]
        print(f"  {who} agent: {len(stats)} decisions, fallbacks {sum(s['source'] == 'fallback' for s in stats)}")
        for rnd, (med, p95, count) in timing_summary(stats).items():
            r = ("preflop", "flop", "turn", "river").index(rnd)
            its = [int(s["iterations"]) for s in stats if s["round"] == r and s["source"] == "solve"]
            extra = f", median iterations {np.median(its):.0f}" if its else ""
            print(f"    {rnd:<8} {count:>4} decisions: median {med:6.2f} s, 95th percentile {p95:6.2f} s{extra}")


def headtohead(variant: str, first: int, last: int) -> None:
    """Play (or resume) chunks ``first .. last - 1`` of ``variant``, then print the summary of all its stored chunks."""
    if variant not in H2H_VARIANTS and not variant.removeprefix("flop").isdigit():
        raise SystemExit(f"unknown head-to-head variant {variant!r}: {', '.join(H2H_VARIANTS)} or flop<N>")
    for i in range(first, last):
        c = h2h_chunk(variant, i)
        print(f"  chunk {i}: {c['seconds']:.0f} s, load {c['load']:.1f}", flush=True)
    h2h_summary(variant)


def main() -> None:
    print(f"load average: {os.getloadavg()[0]:.1f} (shared machine)")
    leduc()
    hunl()
    if os.environ.get("LEAFNET_SIZES"):
        sizes()
    chunks = int(os.environ.get("LEAFNET_H2H_CHUNKS", "0"))
    for variant in H2H_VARIANTS if chunks else ():
        headtohead(variant, 0, chunks)
    print(f"load average: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["h2h"]:
        headtohead(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        main()
