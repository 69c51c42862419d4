"""Match throughput: HUNL hands per second between baseline bots, in-process and over ACPC sockets.

Goals: at least 2,000 hands/s in-process and 500 hands/s over sockets. Every
figure is the best of ``REPEATS`` runs (the machine is shared, timings are noisy).

Over sockets it measures
- our dealer with both clients as threads of the same process (``play_match(over_acpc=True)``);
- our dealer with each client a separate ``pokerbot connect`` process (how a user plays),
  as the OS schedules them and with all three kept on one CPU (``taskset``-style: the
  players take turns, and waking a process on another idle vCPU is slow on a VM);
- if a built reference server is found (``$ACPC_SERVER_DIR``, default
  /tmp/acpc/project_acpc_server), the peer figure: the reference C ``dealer``
  with two C ``example_player`` processes, and our dealer with those players.

Run: ``python -m bench match`` (or ``python bench/bench_match.py``).
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from pathlib import Path

REPEATS = 3
WARMUP = 100
LOCAL_HANDS = 3000
SOCKET_HANDS = 1500
PAIRS = [("random", "call"), ("call", "call"), ("raise", "call"), ("equity", "random")]


def _best(fn, repeats: int = REPEATS) -> float:  # type: ignore[no-untyped-def]
    return max(fn(seed) for seed in range(repeats))


def local_rate(a: str, b: str, hands: int = LOCAL_HANDS) -> float:
    from evaluation.match import play_match
    from pokerbot.bots import make_agent
    from pokerbot.gamedef import load_game

    game = load_game("hunl")

    def run(seed: int) -> float:
        r = play_match(make_agent(a, game, 1), make_agent(b, game, 2), game, hands, seed, progress=False)
        return r.hands_per_second

    return _best(run)


def thread_socket_rate(a: str, b: str, hands: int = SOCKET_HANDS) -> float:
    from evaluation.match import play_match
    from pokerbot.bots import make_agent
    from pokerbot.gamedef import load_game

    game = load_game("hunl")

    def run(seed: int) -> float:
        r = play_match(make_agent(a, game, 1), make_agent(b, game, 2), game, hands, seed, progress=False,
                       over_acpc=True)
        return r.hands_per_second

    return _best(run)


def _on_cpu(cpu: int | None):  # type: ignore[no-untyped-def]
    """A ``preexec_fn`` keeping a child on ``cpu`` (None: no function)."""
    return None if cpu is None else (lambda: os.sched_setaffinity(0, {cpu}))


def _dealer_with(commands: list[list[str]], hands: int, seed: int, coalesce: bool, cpu: int | None = None) -> float:
    """Our dealer in this process; each seat's player a subprocess (command + [host, port]); all on ``cpu`` if given."""
    from pokerbot.gamedef import load_game
    from pokerbot.protocol.dealer import Dealer, DealerConfig

    game = load_game("hunl")
    cfg = DealerConfig("bench", game, hands, seed, ["A", "B"], log=False, quiet=True, coalesce=coalesce)
    dealer = Dealer(cfg, out=io.StringIO(), err=io.StringIO())
    ports = dealer.listen()
    allowed = os.sched_getaffinity(0)
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})
    procs = [subprocess.Popen(cmd + ["127.0.0.1", str(p)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              preexec_fn=_on_cpu(cpu))
             for cmd, p in zip(commands, ports)]
    # Count from hand WARMUP on, so the players' start-up (imports, loading compiled code) is not charged.
    first = {}

    def mark(hand: int, values: list[float]) -> None:
        if hand == WARMUP - 1:
            first["t"] = time.perf_counter()

    dealer.on_hand = mark
    try:
        result = dealer.play()
    finally:
        os.sched_setaffinity(0, allowed)
    end = time.perf_counter()
    for p in procs:
        p.wait(30)
    if result.error:
        raise RuntimeError(result.error)
    return (hands - WARMUP) / (end - first["t"])


def process_socket_rate(a: str, b: str, hands: int = SOCKET_HANDS, coalesce: bool = True,
                        cpu: int | None = None) -> float:
    # `pokerbot connect --game hunl -q --agent SPEC HOST PORT` (the dealer appends HOST PORT).
    commands = [[sys.executable, "-m", "pokerbot.cli", "connect", "--game", "hunl", "-q", "--agent", s]
                for s in (a, b)]
    return _best(lambda seed: _dealer_with(commands, hands, seed, coalesce, cpu))


def _one_cpu() -> int:
    from evaluation.match import _quiet_cpu

    cpu = _quiet_cpu()
    return min(os.sched_getaffinity(0)) if cpu is None else cpu


def reference_rates(hands: int = SOCKET_HANDS) -> dict[str, float]:
    acpc = Path(os.environ.get("ACPC_SERVER_DIR", "/tmp/acpc/project_acpc_server"))
    dealer, player = acpc / "dealer", acpc / "example_player"
    if not (dealer.is_file() and player.is_file()):
        return {}
    from pokerbot.gamedef import shipped_game_path

    game_file = str(shipped_game_path("hunl"))

    def ref_run(seed: int, cpu: int | None = None) -> float:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            d = subprocess.Popen([str(dealer), f"{tmp}/m", game_file, str(hands), str(seed), "A", "B", "-q", "-l"],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                 preexec_fn=_on_cpu(cpu))
            ports = d.stdout.readline().split()
            start = time.perf_counter()
            ps = [subprocess.Popen([str(player), game_file, "127.0.0.1", p], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, preexec_fn=_on_cpu(cpu)) for p in ports]
            d.wait(120)
            end = time.perf_counter()
            for p in ps:
                p.wait(10)
        return hands / (end - start)

    players = [[str(player), game_file]] * 2
    return {
        "reference C dealer + 2 C example_player": _best(ref_run),
        "  the same, all three on one CPU": _best(lambda seed: ref_run(seed, _one_cpu())),
        "our dealer + 2 C example_player": _best(lambda seed: _dealer_with(players, hands, seed, coalesce=False)),
        "  the same, dealer and players on one CPU": _best(
            lambda seed: _dealer_with(players, hands, seed, coalesce=False, cpu=_one_cpu())
        ),
    }


def main() -> None:
    print(f"HUNL hands/s, best of {REPEATS} (shared machine; load average {os.getloadavg()[0]:.1f})")
    print(f"in-process ({LOCAL_HANDS} hands a run), goal >= 2,000:")
    for a, b in PAIRS:
        print(f"  {a:>7} vs {b:<7} {local_rate(a, b):8,.0f} hands/s", flush=True)
    print(f"over loopback sockets ({SOCKET_HANDS} hands a run), goal >= 500:")
    for a, b in PAIRS[:3]:
        print(f"  {a:>7} vs {b:<7} clients as threads:   {thread_socket_rate(a, b):6,.0f} hands/s", flush=True)
    for a, b in PAIRS[:3]:
        print(f"  {a:>7} vs {b:<7} clients as processes: {process_socket_rate(a, b):6,.0f} hands/s", flush=True)
    for a, b in PAIRS[:3]:
        rate = process_socket_rate(a, b, cpu=_one_cpu())
        print(f"  {a:>7} vs {b:<7} processes, one CPU:   {rate:6,.0f} hands/s", flush=True)
    peers = reference_rates()
    if peers:
        print("peer (random-acting C players; the reference's own throughput on this machine):")
        for name, rate in peers.items():
            print(f"  {name:<40} {rate:6,.0f} hands/s", flush=True)
    else:
        print("peer: reference ACPC server not found (set ACPC_SERVER_DIR to a built copy)")


if __name__ == "__main__":
    main()
