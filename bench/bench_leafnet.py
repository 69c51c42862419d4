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
   networks trained on the same data (minutes).

Builds the models first if missing (``pokerbot leafnet train ...``: minutes). CPU times are
reported beside wall times: the machine is shared.
"""

from __future__ import annotations

import os
import time

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
    from pokerbot.commands.leafnet import load_config
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
    from pokerbot.commands.leafnet import load_config
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


def main() -> None:
    print(f"load average: {os.getloadavg()[0]:.1f} (shared machine)")
    leduc()
    hunl()
    if os.environ.get("LEAFNET_SIZES"):
        sizes()
    print(f"load average: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
