"""The training half of the README demo: the ``tiny`` HUNL blueprint, trained or resumed.

The match half (playing it against the baseline bots) is :func:`evaluation.demo.run_demo`,
since only ``evaluation`` may import the match runner.

>>> train_tiny(iterations=2_000_000)   # doctest: +SKIP
hunl-tiny: 2,000,000 iterations (trained now: 2,000,000 in 41 s), 13,980 infosets; ...
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from blueprint.config import load_config
from blueprint.trainer import Trainer


def train_tiny(iterations: int | None = None, progress: bool = True, config: str = "hunl-tiny",
               out: TextIO | None = None) -> Trainer:
    """Train (resuming) the tiny HUNL blueprint up to ``iterations`` (default: the config's)."""
    out = out if out is not None else sys.stdout
    cfg = load_config(config)
    if cfg.cards != "lossless":  # built (once) here, so that progress=False silences its bars too
        from abstraction.buckets import build_abstraction

        build_abstraction(cfg.cards, progress=progress)
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


if __name__ == "__main__":
    train_tiny()
