"""Seven-card hand evaluation speed: pokerbot.evaluator against treys, one core.

``python -m bench evaluator``. The kernels are not parallel; the process is also
pinned to a single CPU while measuring (where the OS allows) so the figures are
one-core figures. The machine may be shared, so every figure is the best of a
few repetitions.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from numba import njit  # noqa: E402

from pokerbot.cards import format_card  # noqa: E402
from bench.pinning import one_cpu  # noqa: E402
from pokerbot.evaluator import eval7, evaluate_batch  # noqa: E402

N_HANDS = 2_000_000
N_TREYS = 30_000
REPEATS = 5


@njit(cache=True)
def _scalar_eval7_loop(cards):
    """Sum of eval7 over the rows (the sum keeps the work from being optimised away)."""
    total = 0
    for i in range(cards.shape[0]):
        total += eval7(
            cards[i, 0], cards[i, 1], cards[i, 2], cards[i, 3], cards[i, 4], cards[i, 5], cards[i, 6]
        )
    return total


def best_rate(fn: Callable[[], object], n: int, repeats: int = REPEATS) -> float:
    """Best evaluations per second of ``fn`` (which evaluates ``n`` hands) over ``repeats`` runs."""
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return n / best


def random_seven_card_hands(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    hands = np.empty((n, 7), dtype=np.int8)
    for start in range(0, n, 200_000):
        stop = min(n, start + 200_000)
        hands[start:stop] = np.argsort(rng.random((stop - start, 52)), axis=1)[:, :7]
    return hands


def main() -> None:
    from treys import Card, Evaluator

    with one_cpu():
        hands = random_seven_card_hands(N_HANDS)
        evaluate_batch(hands[:1000])  # JIT warm-up (or cache load)
        _scalar_eval7_loop(hands[:1000])
        batch = best_rate(lambda: evaluate_batch(hands), N_HANDS)
        scalar = best_rate(lambda: _scalar_eval7_loop(hands), N_HANDS)

        evaluator = Evaluator()
        tc = [Card.new(format_card(c)) for c in range(52)]
        treys_hands = [[tc[c] for c in h] for h in hands[:N_TREYS].tolist()]
        ev = evaluator.evaluate

        def run_treys() -> None:
            for h in treys_hands:
                ev(h[:2], h[2:])

        treys = best_rate(run_treys, N_TREYS, repeats=3)

    print(f"seven-card hands, one core, best of {REPEATS} runs over {N_HANDS:,} random hands")
    print(f"  evaluate_batch (validating)  {batch / 1e6:8.1f} M evals/s  ({batch / treys:,.0f}x treys)")
    print(f"  eval7 in a numba loop        {scalar / 1e6:8.1f} M evals/s  ({scalar / treys:,.0f}x treys)")
    print(f"  treys Evaluator.evaluate     {treys / 1e6:8.3f} M evals/s  (best of 3 over {N_TREYS:,} hands)")


if __name__ == "__main__":
    main()
