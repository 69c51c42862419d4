"""A few hands of the real-time agent against the blueprint it is built on and a baseline, with timings.

``realtime`` may not import ``evaluation`` (imports flow the other way), so the match
runner is passed in::

    from evaluation.match import play_match
    from realtime.demo import run_demo
    run_demo(play_match, hands=4)

prints, per opponent, the chips won and the agent's decision times per round, e.g.::

    realtime vs blueprint: +350.0 mbb/g over 4 hands (duplicate); decisions: preflop 0.00 s, flop 6.1 s, ...

It needs the ``hunl-tiny`` blueprint (``pokerbot demo`` builds it). On the loaded 2-core
machine four hands per opponent took about 2 minutes (see docs/realtime.md).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO, cast

import numpy as np

if TYPE_CHECKING:
    from realtime.agent import RealtimeAgent

ROUND_NAMES = ("preflop", "flop", "turn", "river")


def timing_summary(stats: list[dict[str, Any]]) -> dict[str, tuple[float, float, int]]:
    """Per round name: (median seconds, 95th percentile, decisions) of an agent's ``stats``."""
    out: dict[str, tuple[float, float, int]] = {}
    for r, name in enumerate(ROUND_NAMES):
        t = np.array([float(s["seconds"]) for s in stats if s["round"] == r])
        if len(t):
            out[name] = (float(np.median(t)), float(np.percentile(t, 95)), len(t))
    return out


def hand_seconds(stats: list[dict[str, Any]]) -> np.ndarray:
    """The agent's total decision time of each hand it acted in."""
    per: dict[int, float] = {}
    for s in stats:
        per[int(s["hand"])] = per.get(int(s["hand"]), 0.0) + float(s["seconds"])
    return np.array(list(per.values()))


def run_demo(
    play_match: Callable[..., Any],
    hands: int = 4,
    opponents: tuple[str, ...] = ("blueprint", "call"),
    config: str = "hunl-tiny",
    seed: int = 0,
    out: TextIO | None = None,
    blueprint: str | None = None,
) -> dict[str, dict[str, Any]]:
    """Play ``hands`` duplicate hands (rounded up to even) against each opponent; print results and timings.

    ``opponents``: ``"blueprint"`` (the agent's own blueprint) or a baseline name of
    :func:`pokerbot.bots.make_agent`. Returns, per opponent, ``mbb``, ``ci95``, ``seconds``
    and the per-round ``timing`` of :func:`timing_summary`. ``blueprint`` (a file or run name)
    replaces the config's blueprint, for the agent and for the ``"blueprint"`` opponent.
    """
    from pokerbot.bots import make_agent
    from pokerbot.gamedef import load_game
    from realtime.config import RealtimeConfig

    out = out if out is not None else sys.stdout
    game = load_game("hunl")
    cfg = RealtimeConfig.load(config)
    blueprint = blueprint or cfg.blueprint
    results: dict[str, dict[str, Any]] = {}
    hands += hands % 2
    for i, name in enumerate(opponents):
        agent = make_agent(f"realtime.agent:make_agent?config={config}&blueprint={blueprint}", game, seed=seed + i)
        spec = f"blueprint.agent:make_agent?path={blueprint}" if name == "blueprint" else name
        opponent = make_agent(spec, game, seed=seed + 100 + i)
        start = time.perf_counter()
        result = play_match(agent, opponent, game, hands, seed=seed + i, duplicate=True, progress=False)
        seconds = time.perf_counter() - start
        stats = cast("RealtimeAgent", agent).stats  # the spec above builds a RealtimeAgent
        timing = timing_summary(stats)
        per_hand = hand_seconds(stats)
        results[name] = {"mbb": result.mbb, "ci95": result.ci95, "seconds": seconds, "timing": timing}
        rounds = ", ".join(f"{k} {v[0]:.2f} s" for k, v in timing.items())
        out.write(f"realtime vs {name}: {result.mbb:+.1f} ± {result.ci95:.1f} mbb/g over {result.hands} duplicate hands "
                  f"in {seconds:.0f} s; median decision: {rounds}; mean per hand {per_hand.mean():.1f} s\n")
    return results
