"""Real-time agent figures: the exact exploitability table on no-limit Leduc, then HUNL timings and strength.

``python -m bench realtime`` prints

1. **exact** (no-limit Leduc, a 20,000-iteration MCCFR blueprint with the ``tiny`` menu): the exploitability
   in mbb/g of the blueprint with translation and of the agent with each gadget (round 0 the blueprint,
   round 1 re-solved with DCFR x100 after every opponent action), against the abstraction's menu and a
   richer one (0.25, 0.5, 0.75, 1.5 pot, all-in); then the agent (maxmargin, both rounds re-solved) for
   5 / 40 / 200 iterations per decision;
2. **HUNL** (``configs/realtime-hunl-tiny.toml`` on the ``hunl-tiny`` blueprint): ``RT_HANDS`` (default 20)
   duplicate hands against the blueprint: decision time per round (median, 95th percentile), the agent's
   time per hand, fallbacks to the blueprint, peak memory of the process, and mbb/g with its 95% CI;
3. ``RT_BASELINE_HANDS`` (default 10) duplicate hands against each baseline bot (random, call, raise, equity).

``RT_PARTS`` picks the parts (default ``exact,hunl``; see :func:`main`): ``runouts`` the exact table of run-out
sampling at rollout leaves (:func:`runout_table`, ``RT_SEEDS`` seeds), ``flop`` adds the exact table on
small-deck no-limit flop hold'em (3 ranks, then nlfh-small itself), ``strength`` runs
``configs/eval-realtime-hunl-tiny.toml`` (AIVAT, baselines, LBR) on the blueprint ``RT_BLUEPRINT``, e.g.
``RT_PARTS=strength RT_BLUEPRINT=hunl-medium python -m bench realtime``, then the decision times per round
and the memory of the agent from its ``stats.jsonl``.

Every figure is one run on the shared machine: the load average is printed beside them.
Needs the ``hunl-tiny`` blueprint (``pokerbot demo``).
"""

from __future__ import annotations

import os
import resource
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402

if TYPE_CHECKING:
    from blueprint.model import Blueprint


def load() -> str:
    return f"load average {os.getloadavg()[0]:.1f} (shared 2-core machine)"


def leduc_blueprint() -> Blueprint:
    """The exact tables' blueprint: MCCFR x20,000 on no-limit Leduc with the ``tiny`` menu."""
    from blueprint.config import BlueprintConfig
    from blueprint.trainer import Trainer

    with tempfile.TemporaryDirectory() as d:
        t = Trainer(BlueprintConfig(name="leduc-nl-tiny", game="leduc-nl", iterations=20_000, actions="tiny",
                                    chunk=10_000), directory=d)
        t.train(progress=False)
        return t.blueprint()


def exact_table() -> None:
    from pokerbot.solver.tree import PotFractionMenu
    from realtime.agent import Resolver
    from realtime.config import RealtimeConfig
    from realtime.exact import blueprint_exploitability, exploitability
    from blueprint.policy import BlueprintPolicy

    rich = PotFractionMenu((0.25, 0.5, 0.75, 1.5), True, 2)
    bp = leduc_blueprint()

    def cfg(gadget: str, iterations: int, round0: str) -> RealtimeConfig:
        r = {"mode": "solve", "gadget": gadget, "alt": "blueprint", "iterations": iterations, "min_iterations": 1,
             "algorithm": "dcfr", "time_budget": 1e9}
        return RealtimeConfig.from_dict({"blueprint": "-", "action_time_limit": 1e9,
                                         "round": {"0": dict(r, mode=round0), "1": r}})

    policy = BlueprintPolicy(bp)
    print(f"no-limit Leduc, blueprint MCCFR x20,000 (tiny menu), exact exploitability in mbb/g ({load()})")
    print(f"{'strategy':<34}{'abstraction menu':>18}{'richer menu':>14}")
    print(f"{'blueprint with translation':<34}{blueprint_exploitability(policy):>18.1f}"
          f"{blueprint_exploitability(policy, rich):>14.1f}")
    for gadget in ("unsafe", "resolve", "maxmargin", "reach"):
        r = Resolver(cfg(gadget, 100, "blueprint"), bp)
        t0 = time.perf_counter()
        on, off = exploitability(r), exploitability(r, rich)
        print(f"{'agent, round 1 ' + gadget:<34}{on:>18.1f}{off:>14.1f}   ({time.perf_counter() - t0:.0f} s)")
    sweep = [exploitability(Resolver(cfg("maxmargin", n, "solve"), bp)) for n in (5, 40, 200)]
    print("agent, maxmargin both rounds, 5 / 40 / 200 iterations: " + " / ".join(f"{x:.1f}" for x in sweep))


def runout_table(seeds: int = 20) -> None:
    """Run-out sampling at rollout leaves, exact on no-limit Leduc (the counterpart of the HUNL flop and turn
    ablations): the agent re-solves round 0 alone, depth-limited (leaves at the end of the round valued by
    rollouts of the blueprint's continuations, K = 4, unsafe, DCFR x200) and plays the blueprint in round 1;
    its exact head-to-head against the blueprint and its exact exploitability, for 1 or 3 sampled board cards
    a leaf (drawn per leaf or shared by the leaves) over ``seeds`` agent seeds (mean and 95% interval), and
    for every card (no sampling)."""
    from realtime.agent import Resolver
    from realtime.config import RealtimeConfig
    from realtime.exact import exploitability, head_to_head

    bp = leduc_blueprint()

    def cfg(rollouts: int, shared: bool, seed: int) -> RealtimeConfig:
        r0 = {"mode": "solve", "gadget": "unsafe", "alt": "blueprint", "iterations": 200, "min_iterations": 1,
              "algorithm": "dcfr", "time_budget": 1e9, "depth_limit": 0}
        return RealtimeConfig.from_dict({"blueprint": "-", "action_time_limit": 1e9, "seed": seed,
                                         "leaves": {"rollouts": rollouts, "k": 4, "shared_runouts": shared},
                                         "round": {"0": r0, "1": {"mode": "blueprint"}}})

    def pm(x: list[float]) -> str:
        a = np.asarray(x)
        if len(a) == 1:
            return f"{a[0]:+.1f}"
        return f"{a.mean():+.1f} ± {1.96 * a.std(ddof=1) / np.sqrt(len(a)):.1f}"

    print(f"no-limit Leduc, round 0 re-solved depth-limited with rollout leaves (K = 4, unsafe, DCFR x200), round 1 "
          f"the blueprint; exact, mbb/g, 95% intervals over {seeds} agent seeds ({load()})")
    print("| leaves | head to head against the blueprint | exploitability |")
    print("|---|---:|---:|")
    for name, rollouts, shared in (("1 card a leaf, drawn per leaf", 1, False), ("1 card, shared", 1, True),
                                   ("3 cards a leaf, drawn per leaf", 3, False), ("3 cards, shared", 3, True),
                                   ("every card", 0, False)):
        runs = range(1) if rollouts == 0 else range(seeds)
        h2h = [head_to_head(Resolver(cfg(rollouts, shared, s), bp)) for s in runs]
        expl = [exploitability(Resolver(cfg(rollouts, shared, s), bp)) for s in runs]
        print(f"| {name} | {pm(h2h)} | {pm(expl).lstrip('+')} |", flush=True)


#: The agent's added sizes measured in the exact flop table (``sizes`` of a round: docs/realtime.md).
SIZES = ("pot 0.5 all_in=0 max_raises=1", "pot 0.33,0.5,0.75 all_in=0 max_raises=1")


def exact_flop_holdem(ranks: int = 6, gadgets: tuple[str, ...] = ("resolve", "unsafe", "maxmargin", "reach"),
                      sweep: tuple[int, ...] = (10, 200), iterations: int = 50, blueprint_iterations: int = 20_000,
                      near_equilibrium: bool = True, richer: bool = True, sizes: tuple[str, ...] = SIZES,
                      preflop: tuple[int, ...] = (4, 1)) -> None:
    """The exact table on small-deck no-limit flop hold'em (``ranks = 6``: ``nlfh-small``; fewer: smaller decks).

    Blueprint MCCFR x ``blueprint_iterations`` with the ``tiny`` menu; the agent plays the preflop from the
    blueprint and re-solves the flop (the last round) to the end after every opponent action, DCFR x
    ``iterations`` per decision, alternative values from the blueprint. Opponents: the abstraction's menu and
    a richer one (0.5, 0.75 pot, all-in; two raises a round). Then exploitability against iterations per
    decision (resolve), and, from a near-equilibrium blueprint (the abstract game solved by CFR+ x300), resolve
    against unsafe: the negative control (``richer = False``: no richer-menu column); ``sizes``: rows with the
    agent's added sizes; ``preflop``: rows with the preflop re-solved too (Reach-Maxmargin, cut at the end of the
    preflop, leaves valued exactly from K continuations, :func:`realtime.exact.exact_leaves`), one per K.
    Every row also gives the agent's exact winnings against the blueprint. Each agent row composes
    ~10^3 (3 ranks) to ~3 x 10^4 (nlfh-small) decisions: minutes to tens of minutes.
    """
    from blueprint.config import BlueprintConfig
    from blueprint.trainer import Trainer
    from pokerbot.solver import Solver
    from pokerbot.solver.tree import PotFractionMenu
    from realtime.agent import Resolver
    from realtime.config import RealtimeConfig
    from realtime.exact import (blueprint_exploitability, blueprint_from_strategy, eval_tree, exact_leaves,
                                exploitability, head_to_head, small_deck_game)
    from blueprint.policy import BlueprintPolicy

    rich = PotFractionMenu((0.5, 0.75), True, 2)
    with tempfile.TemporaryDirectory() as d:
        game = small_deck_game(ranks, d)
        t = Trainer(BlueprintConfig(name="nlfh", game=str(game), iterations=blueprint_iterations, actions="tiny",
                                    chunk=10_000), directory=os.path.join(d, "bp"))
        t.train(progress=False)
        bp = t.blueprint()

    def cfg(gadget: str, n: int, sizes: str = "", preflop_k: int = 0) -> RealtimeConfig:
        r = {"mode": "solve", "gadget": gadget, "alt": "blueprint", "iterations": n, "min_iterations": 1,
             "algorithm": "dcfr", "time_budget": 1e9, "sizes": sizes}
        rounds: dict[str, dict[str, object]] = {"1": r}
        if preflop_k:
            rounds["0"] = dict(r, gadget="reach", alt="previous", depth_limit=0)
        return RealtimeConfig.from_dict({"blueprint": "-", "action_time_limit": 1e9, "leaves": {"k": max(preflop_k, 1)},
                                         "round": rounds})

    def row(label: str, resolver: Resolver, menus: tuple[object, ...] = (None,)) -> None:
        t0 = time.perf_counter()
        figures = " / ".join(f"{exploitability(resolver, m):.1f}" for m in menus)  # type: ignore[arg-type]
        print(f"  {label:<44}{figures:>20}   vs the blueprint {head_to_head(resolver):+.1f}   "
              f"({time.perf_counter() - t0:.0f} s, {load()})", flush=True)

    policy = BlueprintPolicy(bp)
    print(f"flop hold'em, {ranks} ranks x 3 suits, blueprint MCCFR x{blueprint_iterations:,} (tiny menu); exact "
          f"exploitability in mbb/g against the abstraction's menu / a richer one ({load()})", flush=True)
    print(f"  {'blueprint with translation':<44}{blueprint_exploitability(policy):>9.1f} / "
          f"{blueprint_exploitability(policy, rich):.1f}", flush=True)
    for i, gadget in enumerate(gadgets):
        row(f"agent, flop {gadget} x{iterations}", Resolver(cfg(gadget, iterations), bp),
            (None, rich) if i == 0 and richer else (None,))
    for n in sweep:
        row(f"agent, flop resolve x{n}", Resolver(cfg("resolve", n), bp))
    for extra in sizes:
        row(f"agent, flop resolve x{iterations} + {extra.split()[1]}", Resolver(cfg("resolve", iterations, extra), bp))
    for k in preflop:
        row(f"agent, + preflop reach x{iterations}, K = {k}",
            exact_leaves(Resolver(cfg("resolve", iterations, preflop_k=k), bp)))
    if near_equilibrium:
        tree = eval_tree(policy, 0, None)
        solver = Solver(tree, "cfr+")
        solver.run(300)
        good = blueprint_from_strategy(bp, tree, solver.average_strategy())
        print(f"  near-equilibrium blueprint (CFR+ x300): {blueprint_exploitability(BlueprintPolicy(good)):.1f}",
              flush=True)
        for gadget in ("unsafe", "resolve"):
            row(f"agent from it, flop {gadget} x200", Resolver(cfg(gadget, 200), good))


def hunl(hands: int, baseline_hands: int, blueprint: str = "hunl-tiny", config: str = "hunl-tiny") -> None:
    from evaluation.match import play_match
    from pokerbot.bots import make_agent
    from pokerbot.gamedef import load_game
    from realtime.demo import hand_seconds, timing_summary

    game = load_game("hunl")
    opponents = [(f"blueprint.agent:make_agent?path={blueprint}", hands)]
    opponents += [(b, baseline_hands) for b in ("random", "call", "raise", "equity")]
    for i, (spec, n) in enumerate(opponents):
        if n <= 0:
            continue
        agent = make_agent(f"realtime.agent:make_agent?config={config}&blueprint={blueprint}", game, seed=i)
        opp = make_agent(spec, game, seed=100 + i)
        t0 = time.perf_counter()
        result = play_match(agent, opp, game, n, seed=i, duplicate=True, progress=False)
        wall = time.perf_counter() - t0
        name = "blueprint" if spec.startswith("blueprint") else spec
        stats = agent.stats  # type: ignore[attr-defined]
        print(f"HUNL realtime ({config}) vs {name}: {result.mbb:+.0f} ± {result.ci95:.0f} mbb/g (95% CI, {result.hands} duplicate "
              f"hands, {wall:.0f} s; {load()})")
        if i == 0:
            for rnd, (med, p95, count) in timing_summary(stats).items():
                print(f"  {rnd:<8} decisions: {count:>4}, median {med:6.2f} s, 95th percentile {p95:6.2f} s")
            per_hand = hand_seconds(stats)
            falls = sum(1 for s in stats if s["source"] == "fallback")
            print(f"  agent time per hand: mean {per_hand.mean():.1f} s, median {np.median(per_hand):.1f} s, "
                  f"max {per_hand.max():.1f} s over {len(per_hand)} hands; slowest decision "
                  f"{max(float(s['seconds']) for s in stats):.1f} s; fallbacks to the blueprint: {falls} of {len(stats)}")
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(f"  peak resident memory of the process (agent, blueprint, opponent, runner): {rss:.0f} MB")


EVAL_CONFIG = "configs/eval-realtime-hunl-tiny.toml"


def strength(blueprint: str = "hunl-tiny", hands: int | None = None, lbr_hands: int | None = None,
             opponents: tuple[str, ...] = ()) -> Path:
    """``pokerbot eval`` of :data:`EVAL_CONFIG` on another blueprint: every ``hunl-tiny`` of its agent specs
    becomes ``blueprint`` (the real-time agent's and the blueprint opponent's), out ``runs/eval-realtime-<name>``;
    then the decision times and memory of :func:`timing_report`. Resumable (the pieces already played are kept).
    ``opponents``: only the matchups against these (all if empty); ``lbr_hands = 0``: no LBR.
    """
    from evaluation.experiment import load_experiment, run_experiment

    exp = load_experiment(EVAL_CONFIG)
    out = Path("runs") / f"eval-realtime-{blueprint}"
    out.mkdir(parents=True, exist_ok=True)
    for name, spec in exp.agents.items():
        spec = spec.replace("path=hunl-tiny", f"path={blueprint}")
        spec = spec.replace("blueprint=hunl-tiny", f"blueprint={blueprint}")
        exp.agents[name] = spec.replace("runs/eval-realtime-hunl-tiny/", f"{out}/")
    exp.name, exp.out = f"realtime-{blueprint}", str(out)
    if hands is not None:
        exp.hands = hands
    if lbr_hands is not None:
        exp.lbr = [replace(run, hands=lbr_hands) for run in exp.lbr] if lbr_hands > 0 else []
    if opponents:
        exp.matchups = [(a, b) for a, b in exp.matchups if b in opponents]
    print(f"eval {EVAL_CONFIG} on blueprint {blueprint}: {exp.hands} hands per matchup ({load()})", flush=True)
    run_experiment(exp, progress=False)
    timing_report(out / "stats.jsonl")
    return out


def timing_report(path: Path) -> None:
    """Per-round decision times (median, 95th percentile), time per hand and memory from an agent's ``stats=`` file."""
    import json

    from realtime.demo import hand_seconds, timing_summary

    if not path.is_file():
        print(f"no decision records at {path}")
        return
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    # one agent instance per match chunk, each numbering its hands from 1: make the hands distinct
    chunk, last, stats = 0, 0, []
    for r in records:
        if r["hand"] < last:
            chunk += 1
        last = r["hand"]
        stats.append({**r, "hand": chunk * 1_000_000 + r["hand"]})
    print(f"decision records: {len(stats)} in {path} (timed now: {load()})")
    for name, (med, p95, count) in timing_summary(stats).items():
        print(f"  {name:<8} decisions: {count:>5}, median {med:6.2f} s, 95th percentile {p95:6.2f} s")
    per_hand = hand_seconds(stats)
    sources: dict[str, int] = {}
    for r in stats:
        sources[r["source"]] = sources.get(r["source"], 0) + 1
    print(f"  agent time per hand: mean {per_hand.mean():.2f} s, median {np.median(per_hand):.2f} s, "
          f"95th percentile {np.percentile(per_hand, 95):.2f} s, max {per_hand.max():.1f} s over {len(per_hand)} hands")
    print(f"  slowest decision {max(float(r['seconds']) for r in stats):.1f} s; sources {sources}")
    rss = np.array([float(r["rss_mb"]) for r in stats])
    print(f"  resident memory of the process (agent, opponent, runner): median {np.median(rss):.0f} MB, "
          f"max {rss.max():.0f} MB; peak {max(float(r['peak_mb']) for r in stats):.0f} MB")


def decisions(street: int = 2, states: int = 4, seed: int = 1) -> None:
    """The agent's first decision (untimed, both cores) at ``states`` states of ``street`` (1 flop, 2 turn) drawn by
    blueprint self-play (the street-gain states of ``seed``). Turn: every river card at the leaves (shipped), 3
    sampled ones, and the turn to the end with 100 iterations; flop: 100 shared run-outs (shipped) and 30."""
    import numba

    from realtime.street_gain import Design, Variant, make_resolver, sample_states

    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    if street == 2:
        variants = (Variant("every river card (shipped)"), Variant("3 sampled river cards", ("round.2.rollouts=3",)),
                    Variant("to the end, 100 it", ("round.2.depth_limit=-1", "round.2.iterations=100",
                                                   "round.2.min_iterations=10")))
    elif street == 1:
        variants = (Variant("100 shared run-outs (shipped)"), Variant("30 shared run-outs", ("leaves.rollouts=30",)))
    else:
        raise ValueError(f"decisions are timed on the flop (1) or the turn (2), not round {street}")
    print(f"{('flop', 'turn')[street - 1]} decisions, {numba.get_num_threads()} threads; {load()}")
    for v in variants:
        res = make_resolver(Design("hunl-tiny", street, states, seed, variants), v)
        drawn = sample_states(res.policy, street, states, seed, min_deals=0).states
        res.decide(drawn[0])  # compiles
        times = []
        for s in drawn:
            res.clear()
            t = time.perf_counter()
            res.decide(s)
            times.append(time.perf_counter() - t)
        print(f"  {v.name:30s} " + " ".join(f"{x:.2f}" for x in times) + f" s (mean {np.mean(times):.2f})", flush=True)
    print(f"  {load()}")


def main() -> None:
    """``RT_PARTS`` (default ``exact,hunl``): any of ``exact`` (no-limit Leduc table), ``runouts``
    (:func:`runout_table`), ``flop`` (flop hold'em
    tables: 3 ranks, then nlfh-small), ``hunl`` (the quick HUNL run of the time-limited agent on
    ``RT_BLUEPRINT``, agent config ``RT_CONFIG``, default hunl-tiny), ``turn`` and ``flopdecisions``
    (:func:`decisions`: one turn or flop decision's time at ``RT_STATES`` states, default 4), ``strength`` (:func:`strength` on ``RT_BLUEPRINT``, default hunl-tiny, ``RT_HANDS``
    hands per matchup if set, ``RT_LBR_HANDS`` (0: none), ``RT_OPPONENTS`` a comma list of opponents)."""
    parts = os.environ.get("RT_PARTS", "exact,hunl").split(",")
    if "exact" in parts:
        exact_table()
    if "runouts" in parts:
        runout_table(int(os.environ.get("RT_SEEDS", "20")))
    if "flop" in parts:
        exact_flop_holdem(ranks=3, sweep=(5, 200))
        exact_flop_holdem(ranks=6, gadgets=("resolve",), sweep=(), near_equilibrium=False, richer=False, sizes=(),
                          preflop=())
    if "hunl" in parts:
        hunl(int(os.environ.get("RT_HANDS", "20")), int(os.environ.get("RT_BASELINE_HANDS", "10")),
             os.environ.get("RT_BLUEPRINT", "hunl-tiny"), os.environ.get("RT_CONFIG", "hunl-tiny"))
    if "turn" in parts:
        decisions(2, int(os.environ.get("RT_STATES", "4")))
    if "flopdecisions" in parts:
        decisions(1, int(os.environ.get("RT_STATES", "4")))
    if "strength" in parts:
        hands = os.environ.get("RT_HANDS")
        lbr = os.environ.get("RT_LBR_HANDS")
        opponents = tuple(o for o in os.environ.get("RT_OPPONENTS", "").split(",") if o)
        strength(os.environ.get("RT_BLUEPRINT", "hunl-tiny"), int(hands) if hands else None,
                 int(lbr) if lbr else None, opponents)


if __name__ == "__main__":
    main()
