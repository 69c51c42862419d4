"""Evaluation speed: the equity kernel, AIVAT-scored matches and local best response (HUNL).

``python -m bench evaluation`` prints

1. the exact equity kernel: one hand against all 1,081 hands that miss a flop,
   every turn-river run-out enumerated (1.17 M seven-card evaluations per call),
   calls/s and evaluations/s; peer in the same run: treys, the same work on a
   sample of run-outs, evaluations/s and the ratio;
2. AIVAT-scored in-process matches (hands/s, plain play without AIVAT beside it):
   the tiny blueprint against itself (when ``hunl-tiny`` is trained) and the
   equity bot against always-call;
3. LBR (fold/call/pot/all-in) hands/s against always-call and the tiny blueprint.

Figures are wall time and process CPU time (the machine may be shared: the CPU
time excludes waiting for a core); each is the best of a few repetitions.
"""

from __future__ import annotations

import os

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from bench.pinning import one_cpu  # noqa: E402
from pokerbot.cards import parse_cards  # noqa: E402
from pokerbot.gamedef import load_game  # noqa: E402
from bench.timing import best_times as _best

REPEATS = 3
BLUEPRINT = "blueprint.agent:make_agent?path=hunl-tiny"




def bench_equity() -> None:
    from evaluation.equity import all_hands, hand_equities

    game = load_game("hunl")
    hands = all_hands(game)
    mine, flop = parse_cards("AsKd"), parse_cards("Qh7c2d")
    hand_equities(game, mine, flop, hands)  # compile
    calls = 5
    wall, cpu = _best(lambda: [hand_equities(game, mine, flop, hands) for _ in range(calls)])
    evals = 1081 * 1081 * calls  # run-outs x hands (each blocked pair skipped: an upper bound on the work)
    ours = evals / cpu
    print(f"equity, AsKd on Qh7c2d vs 1,081 hands, exact: {calls / wall:.1f} calls/s wall, "
          f"{calls / cpu:.1f} calls/s CPU, {ours / 1e6:.1f} M evaluations/s CPU")
    try:
        from treys import Card, Evaluator
    except ImportError:
        print("  treys not installed: no peer figure")
        return
    ev = Evaluator()
    names = ["As", "Kd"]
    board = [Card.new(c) for c in ("Qh", "7c", "2d")]
    me = [Card.new(c) for c in names]
    rng = np.random.default_rng(0)
    deck = [c for c in range(52) if c not in mine + flop]
    n = 20_000
    from pokerbot.cards import format_cards

    samples = [rng.choice(deck, 4, replace=False) for _ in range(n)]
    conv = [[Card.new(format_cards([int(x)])) for x in s] for s in samples]

    def treys_work() -> None:
        for s in conv:
            run = board + s[2:]
            ev.evaluate(me, run)
            ev.evaluate(s[:2], run)

    wall_t, cpu_t = _best(treys_work, 1)
    theirs = 2 * n / cpu_t
    print(f"  treys 7-card evaluations: {theirs / 1e6:.2f} M/s CPU; ratio {ours / theirs:,.0f}x")


def bench_aivat() -> None:
    from evaluation.aivat import play_match_aivat
    from evaluation.match import play_match
    from pokerbot.bots import make_agent

    game = load_game("hunl")
    pairs = [("equity", "call", 1000)]
    try:
        make_agent(BLUEPRINT, game)
        pairs.insert(0, (BLUEPRINT, BLUEPRINT, 1000))
    except Exception as exc:  # the blueprint is not trained here
        print(f"AIVAT: no hunl-tiny blueprint ({exc}); `pokerbot demo` trains it")
    for a, b, hands in pairs:
        label = "blueprint vs blueprint" if a == BLUEPRINT else f"{a} vs {b}"
        wall, cpu = _best(lambda: play_match_aivat(make_agent(a, game, 1), make_agent(b, game, 2), game, hands,
                                                   seed=1, progress=False), 2)
        pw, pc = _best(lambda: play_match(make_agent(a, game, 1), make_agent(b, game, 2), game, hands, seed=1,
                                          progress=False), 2)
        print(f"AIVAT match {label}: {hands / wall:,.0f} hands/s wall, {hands / cpu:,.0f} hands/s CPU "
              f"(plain match {hands / pc:,.0f} hands/s CPU)")
        if a == BLUEPRINT:
            from evaluation.blueprint_value import BlueprintValue

            value = BlueprintValue.load("hunl-tiny")  # cached tables (built on first use)
            n = hands // 5
            wall, cpu = _best(lambda: play_match_aivat(make_agent(a, game, 1), make_agent(b, game, 2), game, n,
                                                       seed=1, value_fn=value, progress=False), 1)
            print(f"AIVAT match {label}, blueprint value: {n / wall:,.1f} hands/s wall, {n / cpu:,.1f} hands/s CPU")


def bench_lbr() -> None:
    from evaluation.lbr import LbrSettings, lbr_hands

    for spec, hands in (("call", 40), (BLUEPRINT, 40)):
        label = "blueprint" if spec == BLUEPRINT else spec
        try:
            wall, cpu = _best(lambda: lbr_hands(spec, "hunl", hands, 1, LbrSettings()), 2)
        except Exception as exc:
            print(f"LBR vs {label}: skipped ({exc})")
            continue
        print(f"LBR (FCPA) vs {label}: {hands / wall:.1f} hands/s wall, {hands / cpu:.1f} hands/s CPU")


def main() -> None:
    print(f"load average {os.getloadavg()[0]:.2f} (timings on a shared machine are noisy)")
    with one_cpu():
        bench_equity()
        bench_aivat()
        bench_lbr()


if __name__ == "__main__":
    main()
