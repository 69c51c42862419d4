"""The README demo: train the ``tiny`` HUNL blueprint (or reuse it) and play it against the baseline bots.

>>> run_demo(iterations=2_000_000, hands=2000)   # doctest: +SKIP
hunl-tiny: 2,000,000 iterations (trained now: 2,000,000 in 41 s)
  blueprint vs random   : +...
"""

from __future__ import annotations

import io
import sys
import time

from blueprint.config import load_config
from blueprint.trainer import Trainer

BASELINES = ("random", "call", "raise", "equity")


def train_tiny(iterations: int | None = None, progress: bool = True, config: str = "hunl-tiny",
               out: io.TextIOBase | None = None) -> Trainer:
    """Train (resuming) the tiny HUNL blueprint up to ``iterations`` (default: the config's)."""
    out = out if out is not None else sys.stdout
    cfg = load_config(config)
    trainer = Trainer(cfg)
    total = cfg.iterations if iterations is None else iterations
    try:
        t0 = time.perf_counter()
        result = trainer.train(total, progress=progress)
        took = time.perf_counter() - t0
    finally:
        trainer.close()
    print(f"{cfg.name}: {trainer.iteration:,} iterations (trained now: {result.iterations:,} in {took:.0f} s), "
          f"{trainer.tree.num_infosets:,} infosets; {trainer.directory}", file=out)
    return trainer


def run_demo(
    iterations: int | None = 2_000_000,
    hands: int = 4000,
    seed: int = 0,
    opponents: tuple[str, ...] = BASELINES,
    progress: bool = True,
    out: io.TextIOBase | None = None,
) -> dict[str, tuple[float, float]]:
    """Train/reuse the tiny blueprint, play ``hands`` duplicate hands against each opponent; print mbb/g ± 95% CI.

    Returns {opponent: (mbb/g, ci95)} from the blueprint's side.
    """
    from evaluation.match import play_match
    from pokerbot.bots import make_agent

    from blueprint.agent import make_agent as make_blueprint_agent

    out = out if out is not None else sys.stdout
    trainer = train_tiny(iterations, progress=progress, out=out)
    game = trainer.game
    path = str(trainer.directory / "blueprint.npz")
    results: dict[str, tuple[float, float]] = {}
    hands += hands % 2
    for i, spec in enumerate(opponents):
        me = make_blueprint_agent(game, seed=2 * seed + 1, path=path)
        other = make_agent(spec, game, seed=2 * seed + 2 + i)
        r = play_match(me, other, game, hands, seed + i, duplicate=True, progress=progress)
        rate = r.win_rate
        results[spec] = (rate.mbb, rate.ci95)
        print(f"  blueprint vs {spec:<8}: {rate.mbb:+9.1f} ± {rate.ci95:.1f} mbb/g (95% CI, {r.hands} duplicate "
              f"hands, {r.hands_per_second:,.0f} hands/s)", file=out)
    return results


if __name__ == "__main__":
    run_demo()
