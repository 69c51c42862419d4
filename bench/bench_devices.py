"""The project's networks on each device: the CPU (one torch thread) and CUDA when present.

``python -m bench devices`` prints, per device:

1. Student of Games' CVPN in the ``sog-leduc`` shape (3 x 128): Adam steps/s at batch 128 (the
   config's) and 1,024 (the paper's), and forward rows/s at batch 44 (a GT-CFR leaf batch at the
   Leduc root) and 65,536;
2. the leaf-value MLP in the ``leafnet-hunl-tiny`` shape (2 x 64): Adam steps/s at batch 256;
3. GT-CFR SoG(100,1) at the Leduc root with CVPN leaves: searches/s (the search's kernels run
   on the CPU; only the leaf batches go to the device);
4. ``pokerbot sog train sog-leduc`` for 100 gradient steps in this process (self-play on the
   CPU, gradient steps on the device): wall seconds.

``POKERBOT_DEVICE`` is ignored here: every device present is measured. Wall-clock figures
(best of three, CUDA synchronised), with the load average.
"""

from __future__ import annotations

import os
import tempfile
import time

import numpy as np
import torch

from bench.timing import best_time


def _sync(dev: torch.device) -> None:
    if dev.type == "cuda":
        torch.cuda.synchronize()


def _adam_steps_per_s(model: torch.nn.Module, x: torch.Tensor, dev: torch.device, steps: int = 50) -> float:
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)

    def run() -> None:
        for _ in range(steps):
            out = model(x)
            loss = sum(o.square().mean() for o in (out if isinstance(out, tuple) else (out,)))
            opt.zero_grad()
            loss.backward()  # type: ignore[union-attr]
            opt.step()
        _sync(dev)

    run()  # warm up (CUDA context, kernels)
    return steps / best_time(run)


def _forward_rows_per_s(model: torch.nn.Module, x: torch.Tensor, dev: torch.device, rows: int = 65_536) -> float:
    reps = max(1, rows // x.shape[0])

    def run() -> None:
        with torch.no_grad():
            for _ in range(reps):
                model(x)
        _sync(dev)

    run()
    return reps * x.shape[0] / best_time(run)


def main() -> None:
    from blueprint.leafnet import FeatureSpec, make_model
    from realtime.sog.network import CVPN, NetworkValue
    from realtime.sog.search import GTCFR, PublicGame
    from realtime.sog.training import Trainer, load_config

    os.environ.pop("POKERBOT_DEVICE", None)
    torch.set_num_threads(1)
    cuda = torch.cuda.is_available()
    print(f"load average: {', '.join(f'{x:.2f}' for x in os.getloadavg())}  cpus: {os.cpu_count()}  torch "
          f"{torch.__version__}  cuda: {torch.cuda.get_device_name(0) if cuda else 'none'}", flush=True)
    devices = [torch.device("cpu")] + ([torch.device("cuda")] if cuda else [])
    game = PublicGame.load("leduc")
    spec = FeatureSpec()
    rng = np.random.default_rng(0)
    nodes = rng.choice(np.flatnonzero(game.tree.kind == 0), size=1024)
    from realtime.sog.network import features

    feats = torch.from_numpy(features(game, nodes, rng.random((1024, 6)), rng.random((1024, 6))))
    for dev in devices:
        name = "cpu, 1 thread" if dev.type == "cpu" else "cuda"
        torch.manual_seed(0)
        net = CVPN.for_game(game, 128, 3).to(dev)
        for batch in (128, 1024):
            x = feats[:batch].to(dev)
            print(f"[{name}] CVPN 3x128 Adam, batch {batch}: {_adam_steps_per_s(net, x, dev):,.0f} steps/s", flush=True)
        net.eval()
        for batch in (44, 65_536):
            x = feats[torch.arange(batch) % 1024].to(dev)
            print(f"[{name}] CVPN 3x128 forward, batch {batch}: {_forward_rows_per_s(net, x, dev):,.0f} rows/s",
                  flush=True)
        mlp = make_model(spec.num_features, 16, [64, 64]).to(dev)
        x = torch.rand(256, spec.num_features, device=dev)
        print(f"[{name}] leaf MLP 2x64 Adam, batch 256: {_adam_steps_per_s(mlp, x, dev):,.0f} steps/s", flush=True)
        vf = NetworkValue(CVPN.for_game(game, 128, 3), device=dev)
        GTCFR(game, 0, game.initial_ranges(), vf, seed=0).run(5, 1.0)  # compile the kernels
        sec = best_time(lambda: GTCFR(game, 0, game.initial_ranges(), vf, seed=1).run(100, 1.0))
        print(f"[{name}] GT-CFR SoG(100,1) at the Leduc root, CVPN leaves: {1 / sec:.2f} searches/s", flush=True)
        cfg = load_config("sog-leduc").replace(workers=0, steps=100, eval_every=0, checkpoint_every=0)
        with tempfile.TemporaryDirectory() as d:
            t0 = time.perf_counter()
            Trainer(cfg, d, dev).train(progress=False)
            sec = time.perf_counter() - t0
        print(f"[{name}] sog train sog-leduc, 100 steps in this process: {sec:.1f} s", flush=True)
    print(f"load average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
