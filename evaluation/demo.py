"""The README demo: train (or reuse) the ``tiny`` HUNL blueprint and play it against every baseline bot.

>>> run_demo(iterations=2_000_000, hands=2000)   # doctest: +SKIP
hunl-tiny: 2,000,000 iterations (trained now: 2,000,000 in 41 s), 13,980 infosets; ...
  blueprint vs random  :   +1995.0 ± 1031.0 mbb/g (95% CI, 4000 duplicate hands, ...)
"""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import TextIO

from blueprint import demo as blueprint_demo

BASELINES = ("random", "call", "raise", "equity")


def run_demo(
    iterations: int | None = 2_000_000,
    hands: int = 4000,
    seed: int = 0,
    opponents: tuple[str, ...] = BASELINES,
    progress: bool = True,
    out: TextIO | None = None,
    report: str | Path | None = None,
    realtime_hands: int = 0,
) -> dict[str, tuple[float, float]]:
    """Train/reuse the tiny blueprint, play ``hands`` duplicate hands against each opponent; print mbb/g ± 95% CI.

    With ``report`` (a folder) the matches run as a :mod:`evaluation.experiment`
    instead, with AIVAT, ACPC logs, ``results.csv``/``results.md`` and plots there.
    Then, if ``realtime_hands`` > 0, the real-time agent (``configs/realtime-hunl-tiny.toml``)
    plays that many duplicate hands against the blueprint and the call bot, with its
    decision times (:func:`realtime.demo.run_demo`).
    Returns {opponent: (mbb/g, ci95)} from the blueprint's side.
    """
    from blueprint.agent import make_agent as make_blueprint_agent
    from evaluation.match import play_match
    from pokerbot.bots import make_agent

    out = out if out is not None else sys.stdout
    trainer = blueprint_demo.train_tiny(iterations, progress=progress, out=out)
    game = trainer.game
    assert trainer.directory is not None  # train_tiny's run is on disk
    path = str(trainer.directory / "blueprint.npz")
    results: dict[str, tuple[float, float]] = {}
    hands += hands % 2
    if report is not None:
        results = _report_demo(path, opponents, hands, seed, progress, out, Path(report))
        _realtime_demo(realtime_hands, seed, out, path)
        return results
    for i, spec in enumerate(opponents):
        me = make_blueprint_agent(game, seed=2 * seed + 1, path=path)
        other = make_agent(spec, game, seed=2 * seed + 2 + i)
        r = play_match(me, other, game, hands, seed + i, duplicate=True, progress=progress)
        rate = r.win_rate
        results[spec] = (rate.mbb, rate.ci95)
        print(f"  blueprint vs {spec:<8}: {rate.mbb:+9.1f} ± {rate.ci95:.1f} mbb/g (95% CI, {r.hands} duplicate "
              f"hands, {r.hands_per_second:,.0f} hands/s)", file=out)
    _realtime_demo(realtime_hands, seed, out, path)
    return results


def _realtime_demo(hands: int, seed: int, out: TextIO, blueprint: str) -> None:
    """A few hands of the real-time agent on ``blueprint`` against it and the call bot, with timings."""
    if hands <= 0:
        return
    from evaluation.match import play_match
    from realtime.demo import run_demo as realtime_demo

    print(f"the real-time agent (depth-limited nested re-solving on the tiny blueprint), {hands + hands % 2} "
          f"duplicate hands against each opponent (a few seconds a hand):", file=out, flush=True)
    realtime_demo(play_match, hands=hands, seed=seed, out=out, blueprint=blueprint)


def _report_demo(path: str, opponents: tuple[str, ...], hands: int, seed: int, progress: bool, out: TextIO,
                 report: Path) -> dict[str, tuple[float, float]]:
    """The match half as an evaluation experiment (AIVAT, logs, tables, plots under ``report``)."""
    from evaluation.experiment import Experiment, run_experiment

    agents = {"blueprint": f"blueprint.agent:make_agent?path={path}"}
    agents.update({spec: spec for spec in opponents})
    exp = Experiment(name="demo", game="hunl", agents=agents, hands=hands, seed=seed, duplicate=True, aivat=True,
                     chunk=hands, matchups=[("blueprint", spec) for spec in opponents], out=str(report))
    written = run_experiment(exp, progress=progress, out=io.StringIO())
    results: dict[str, tuple[float, float]] = {}
    for row in written["table"]:
        results[row["b"]] = (row["mbb"], row["ci95"])
        print(f"  blueprint vs {row['b']:<8}: {row['mbb']:+9.1f} ± {row['ci95']:.1f} mbb/g (95% CI, {row['hands']} "
              f"duplicate hands; AIVAT {row['aivat_mbb']:+.1f} ± {row['aivat_ci95']:.1f})", file=out)
    print(f"  report: {written['markdown']}, plots: {', '.join(str(p) for p in written['plots'])}", file=out)
    return results
