"""The subgame engine against TexasSolver and postflop-solver on the same spots, in the same run.

``python -m bench spot`` prints, for each spot, our solve (DCFR, float32 storage) on 1 and 2
threads and each peer's on 1 and 2 threads: iterations, wall and CPU seconds, the
exploitability reached (percent of the pot) and peak memory; then the real-time agent's turn
tree to the end (200 DCFR iterations, the hunl-tiny menu, 1,326 hands) on 1 and 2 threads, and in
compressed storage on 2, with the old engine's memory (three float64 arrays) beside the new.

Spots (``SPOTS=river,turn,flop`` picks; default river,turn,agent; ``THREADS=2`` runs only the
2-thread races, default 1,2; ``DTYPE=compressed`` solves ours in 16-bit storage; ``PEERS=`` picks the
peers, default ``texassolver,postflop``, empty for ours alone):

* ``river``: Ks9h4c7d2s, pot 1,200, 19,400 behind, full ranges, 50% and 100% bets and raises,
  a bet plus three raises, no automatic all-in; to 0.1% of the pot;
* ``river-ranged``: the same with weighted ranges (TexasSolver's benchmark ranges);
* ``turn``: Ks9h4c7d, the same sizes, to the end of the game, to 0.5% of the pot;
* ``flop``: TexasSolver's published flop benchmark (Qs Jh 2h, pot 10, stacks 95, its two ranges,
  100% bets, 50% raises, all-in) to 0.3% of the pot (PioSOLVER's log ends at EV OOP 5.361).

Peers are built outside the project: TexasSolver's ``console`` branch, built with cmake
(Release), and postflop-solver with a ``spot`` example program, built with
``cargo build --release --example spot``. Point at them with ``TEXASSOLVER_DIR`` (the
directory holding ``build/console_solver`` and ``resources``) and ``POSTFLOP_SPOT`` (the
``spot`` example binary). A missing peer is skipped with a line saying so. Measure with
the machine otherwise idle.
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

from pokerbot.solver.kernels import DECISION
from pokerbot.solver.spot import Spot

FULL = "random"
TS_OOP = ("AA,KK,QQ,JJ,TT,99:0.75,88:0.75,77:0.5,66:0.25,55:0.25,AK,AQs,AQo:0.75,AJs,AJo:0.5,ATs:0.75,A6s:0.25,"
          "A5s:0.75,A4s:0.75,A3s:0.5,A2s:0.5,KQs,KQo:0.5,KJs,KTs:0.75,K5s:0.25,K4s:0.25,QJs:0.75,QTs:0.75,Q9s:0.5,"
          "JTs:0.75,J9s:0.75,J8s:0.75,T9s:0.75,T8s:0.75,T7s:0.75,98s:0.75,97s:0.75,96s:0.5,87s:0.75,86s:0.5,85s:0.5,"
          "76s:0.75,75s:0.5,65s:0.75,64s:0.5,54s:0.75,53s:0.5,43s:0.5")
TS_IP = ("QQ:0.5,JJ:0.75,TT,99,88,77,66,55,44,33,22,AKo:0.25,AQs,AQo:0.75,AJs,AJo:0.75,ATs,ATo:0.75,A9s,A8s,A7s,A6s,"
         "A5s,A4s,A3s,A2s,KQ,KJ,KTs,KTo:0.5,K9s,K8s,K7s,K6s,K5s,K4s:0.5,K3s:0.5,K2s:0.5,QJ,QTs,Q9s,Q8s,Q7s,JTs,"
         "JTo:0.5,J9s,J8s,T9s,T8s,T7s,98s,97s,96s,87s,86s,76s,75s,65s,64s,54s,53s,43s")

#: Our storage in the spot races (``DTYPE=compressed`` for 16-bit codes).
DTYPE = os.environ.get("DTYPE", "float32")

SPOTS = {
    "river": dict(board="Ks9h4c7d2s", pot=1200, stack=19400, oop=FULL, ip=FULL, bets="50%,100%",
                  raises="50%,100%", target=0.1),
    "river-ranged": dict(board="Ks9h4c7d2s", pot=1200, stack=19400, oop=TS_OOP, ip=TS_IP, bets="50%,100%",
                         raises="50%,100%", target=0.1),
    "turn": dict(board="Ks9h4c7d", pot=1200, stack=19400, oop=FULL, ip=FULL, bets="50%,100%", raises="50%,100%",
                 target=0.5),
    "flop": dict(board="QsJh2h", pot=10, stack=95, oop=TS_OOP, ip=TS_IP, bets="100%,a", raises="50%,a", target=0.3),
}


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def ours(name: str, threads: int) -> None:
    s = dict(SPOTS[name])
    target = s.pop("target")
    spot = Spot(**s, max_raises=3)
    tree = spot.tree()
    spot.solve(target=50.0, iterations=1, threads=threads, progress=False, dtype=DTYPE)  # compile outside the timing
    w, c = time.perf_counter(), time.process_time()
    sol = spot.solve(target=target, iterations=3000, threads=threads, progress=False, dtype=DTYPE)
    wall, cpu = time.perf_counter() - w, time.process_time() - c
    dec = int(np.count_nonzero(tree.kind == DECISION))
    print(f"{name:13s} pokerbot    {threads} thr{' compressed' if DTYPE == 'compressed' else ''}: {sol.solver.iteration:5d} it {wall:8.2f} s wall {cpu:8.2f} s cpu; "
          f"{sol.exploitability_pct:.3f}% pot; EV OOP {sol.ev[0] + sol.pot / 2:.4f}; {dec} decisions, "
          f"{len(spot.hands(0))}/{len(spot.hands(1))} hands; arrays {sol.solver.memory_bytes() / 2**20:,.0f} MiB, "
          f"peak RSS {_rss_mb():,.0f} MiB", flush=True)


def _ts_range(text: str) -> str:
    if text == FULL:
        ranks = "AKQJT98765432"
        items = [r + r for r in ranks] + [a + b for i, a in enumerate(ranks) for b in ranks[i + 1 :]]
        return ",".join(items)
    return text


def texassolver(name: str, threads: int) -> None:
    root = os.environ.get("TEXASSOLVER_DIR")
    if not root or not (Path(root) / "build" / "console_solver").is_file():
        print(f"{name:13s} TexasSolver: skipped (set TEXASSOLVER_DIR to a console-branch checkout built with cmake)")
        return
    s = SPOTS[name]
    board = ",".join(re.findall("..", str(s["board"])))
    street = {3: "flop", 4: "turn", 5: "river"}[len(board.split(","))]
    streets = ["flop", "turn", "river"][["flop", "turn", "river"].index(street):]
    lines = [f"set_pot {s['pot']}", f"set_effective_stack {s['stack']}", f"set_board {board}",
             f"set_range_oop {_ts_range(str(s['oop']))}", f"set_range_ip {_ts_range(str(s['ip']))}"]
    bets = [x.strip() for x in str(s["bets"]).split(",")]
    raises = [x.strip() for x in str(s["raises"]).split(",")]
    for st in streets:
        for who in ("oop", "ip"):
            b = [x[:-1] for x in bets if x.endswith("%")]
            r = [x[:-1] for x in raises if x.endswith("%")]
            kinds = [("bet", b), ("raise", r)] + ([("donk", b)] if who == "oop" and st != street else [])
            for kind, sizes in kinds:
                if sizes:
                    lines.append(f"set_bet_sizes {who},{st},{kind},{','.join(sizes)}")
            if "a" in bets or "a" in raises:
                lines.append(f"set_bet_sizes {who},{st},allin")
    lines += ["set_allin_threshold 2" if "a" not in bets else "set_allin_threshold 1.0", "build_tree",
              f"set_thread_num {threads}", f"set_accuracy {s['target']}", "set_max_iteration 3000",
              "set_print_interval 10", "set_use_isomorphism 1", "start_solve"]
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        path = f.name
    try:
        code, out, rss = _run_peer(["./build/console_solver", "-i", path], cwd=root)
    finally:
        os.unlink(path)
    used = re.findall(r"time used: ([0-9.]+)", out)
    its = re.findall(r"Iter: (\d+)", out)
    expl = re.findall(r"Total exploitability ([0-9.e-]+) precent", out)
    if not used:
        print(f"{name:13s} TexasSolver {threads} thr: no result (exit {code}): {out[-300:]!r}")
        return
    print(f"{name:13s} TexasSolver {threads} thr: {int(its[-1]):5d} it {float(used[-1]):8.2f} s solve (its log; "
          f"start-up not counted); {float(expl[-1]):.3f}% pot; peak RSS {rss:,.0f} MiB", flush=True)


def _run_peer(argv: list[str], cwd: str | None = None, env: dict[str, str] | None = None) -> tuple[int, str, float]:
    """Run a peer under ``/usr/bin/time -v``: its exit code, its output and its peak memory (MiB)."""
    proc = subprocess.run(["/usr/bin/time", "-v", *argv], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=3600)
    out = proc.stdout + proc.stderr
    rss = re.findall(r"Maximum resident set size \(kbytes\): (\d+)", out)
    return proc.returncode, out, int(rss[-1]) / 1024 if rss else 0.0


def postflop(name: str, threads: int) -> None:
    binary = os.environ.get("POSTFLOP_SPOT")
    if name not in ("river", "turn", "flop"):
        return
    if not binary or not Path(binary).is_file():
        print(f"{name:13s} postflop-solver: skipped (set POSTFLOP_SPOT to its spot example built with cargo --release)")
        return
    target = SPOTS[name]["target"]
    env = dict(os.environ, RAYON_NUM_THREADS=str(threads))
    code, out, rss = _run_peer([binary, name, str(target), "cap", "f32"], env=env)
    m = re.search(r"RESULT .*iters=(\d+) solve_wall=([0-9.]+)s solve_cpu=([0-9.]+)s.*\(([0-9.]+)% pot\)", out)
    ev = re.search(r"OOP EV (-?[0-9.]+)", out)
    if not m:
        print(f"{name:13s} postflop-solver {threads} thr: no result (exit {code}): {out[-300:]!r}")
        return
    print(f"{name:13s} postflop    {threads} thr: {int(m[1]):5d} it {float(m[2]):8.2f} s wall {float(m[3]):8.2f} s cpu; "
          f"{float(m[4]):.3f}% pot; EV OOP {float(ev[1]) + SPOTS[name]['pot'] / 2 if ev else float('nan'):.4f}; "
          f"peak RSS {rss:,.0f} MiB",
          flush=True)


def agent_turn(iterations: int = 200) -> None:
    """The real-time agent's turn subgame to the end: the hunl-tiny menu, the 1,128 hands the board does not block
    (as the agent lists them; last, all 1,326 hands of the universe on two threads, as it listed them before)."""
    from pokerbot.cards import parse_cards
    from pokerbot.gamedef import load_game
    from pokerbot.menus import PotFractionMenu
    from pokerbot.solver import Solver, build_tree
    from pokerbot.solver.tree import hand_list
    from pokerbot.state import State

    game = load_game("hunl")
    board = parse_cards("Ks9h4c7d")
    root = State.from_betting(game, "r300c/cr600c/", board_cards=board)
    agent, whole = (build_tree(game, PotFractionMenu.tiny(), root, hands=(h, h))
                    for h in (hand_list(game, board), hand_list(game)))
    for tree, threads, dtype in ((agent, 1, "float32"), (agent, 2, "float32"), (agent, 2, "compressed"),
                                 (whole, 2, "float32")):
        old_mb = tree.memory_bytes(3, 8) / 2**20
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
        s = Solver(tree, "dcfr", dtype=dtype)
        s.iterate(1)
        w, c = time.perf_counter(), time.process_time()
        s.iterate(iterations)
        wall, cpu = time.perf_counter() - w, time.process_time() - c
        w2 = time.perf_counter()
        e = s.exploitability()
        check = time.perf_counter() - w2
        print(f"agent turn    pokerbot    {threads} thr {dtype}: {tree.num_nodes:,} nodes, {tree.num_hands[0]:,} hands: "
              f"{iterations} DCFR it {wall:6.2f} s wall {cpu:6.2f} s cpu; exploitability check {check:.2f} s "
              f"({100 * e / 1000 * game.big_blind / root.pot:.3f}% pot); arrays {s.memory_bytes() / 2**20:,.0f} MiB "
              f"(three float64 arrays: {old_mb:,.0f} MiB); goal <= 3 s on 2 threads", flush=True)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


def main() -> None:
    print(f"numba threads available: {numba.config.NUMBA_NUM_THREADS}; load average {os.getloadavg()[0]:.2f}")
    for name in [x for x in os.environ.get("SPOTS", "river,turn,agent").split(",") if x]:
        if name == "agent":
            agent_turn()
            continue
        for threads in [int(t) for t in os.environ.get("THREADS", "1,2").split(",")]:
            ours(name, threads)
            peers = os.environ.get("PEERS", "texassolver,postflop").split(",")
            if "texassolver" in peers:
                texassolver(name, threads)
            if "postflop" in peers:
                postflop(name, threads)


if __name__ == "__main__":
    main()
