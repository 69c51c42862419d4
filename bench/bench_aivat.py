"""AIVAT's variance cut and LBR scored with AIVAT, HUNL: the measurements behind docs/evaluation.md.

``python -m bench aivat`` runs a short version of each (``AIVAT_BENCH_HANDS`` hands, default 200; a minute or two):

1. :func:`value_cut`: the same duplicate hands, the tiny blueprint against an opponent, scored with AIVAT
   three ways (``FittedValue`` fitted online, ``EquityValue``, ``BlueprintValue``): mbb/g plain and with each,
   and the standard-deviation cut over single hands and over duplicate pairs;
2. :func:`lbr_run` + :func:`lbr_summary`: LBR (``FCPA`` or ``FC12-FCPA``) against the tiny blueprint, every hand
   scored plain and with AIVAT (the blueprint's policy known, LBR's not), in resumable chunks, pooled over
   every chunk of that action set;
3. :func:`acpc_check`: blueprint against the equity bot played through the ACPC dealer, AIVAT from the dealer's
   log (both policies known, then only the blueprint's) and in-process with the equity bot unknown.

:func:`lbr_baselines` (LBR against the baseline bots and the blueprint, plain) is not in the default run (tens of
minutes). The full-size runs of docs/evaluation.md, each a plain call (run long ones under ``nice -n 10``)::

    python -c "from bench.bench_aivat import value_cut; value_cut(1000, 'blueprint', seed=1)"
    python -c "from bench.bench_aivat import lbr_run; lbr_run(4000, seed=101, actions='FCPA')"
    python -c "from bench.bench_aivat import lbr_summary; lbr_summary('FCPA', seeds=(101, 102))"
    python -c "from bench.bench_aivat import acpc_check; acpc_check(2000, seed=11)"
    python -c "from bench.bench_aivat import lbr_baselines; lbr_baselines(1000, seed=7)"

Results go under ``$AIVAT_BENCH_DIR`` (default ``runs/bench-aivat/``, git-ignored): ``value-cut-*.npz`` (per-hand
chips and estimates), ``lbr-<actions>/seed<S>-chunk<i>.npz`` (a finished chunk is not played again: resume by
re-running), ``acpc-*.log``, ``lbr-baselines-*.json``. Speed of AIVAT scoring is measured by
``python -m bench evaluation``, not here.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402

BLUEPRINT_RUN = "hunl-tiny"
BLUEPRINT = f"blueprint.agent:make_agent?path={BLUEPRINT_RUN}"
VALUES = ("fitted", "equity", "blueprint")
#: LBR's action sets by label: fold/call/pot/all-in, and check/call only preflop and on the flop.
ACTION_SETS = {"FCPA": (), "FC12-FCPA": (0, 1)}
LBR_CHUNK = 100  # hands per resumable LBR chunk (even: duplicate pairs)
CHUNK_SEED_STRIDE = 10_000  # chunk i of seed S plays card seed S + i * stride (chunk 0: seed S itself)


def results_dir() -> Path:
    """``$AIVAT_BENCH_DIR`` or ``runs/bench-aivat``, created."""
    path = Path(os.environ.get("AIVAT_BENCH_DIR", "runs/bench-aivat"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def _load() -> str:
    return f"load average {os.getloadavg()[0]:.1f}"


def _value_functions(names: Sequence[str], seed: int) -> dict:  # type: ignore[type-arg]
    from evaluation.blueprint_value import make_value
    from pokerbot.gamedef import load_game

    game = load_game("hunl")
    # The blueprint value's transition tables use sample seed 0 (cached in $POKERBOT_HOME/aivat), as measured.
    return {k: make_value(k, game, 0 if k == "blueprint" else seed, blueprint=BLUEPRINT_RUN) for k in names}


def _scorer(recorders: tuple, values: Mapping, estimates: Mapping[str, np.ndarray],  # type: ignore[type-arg]
            chips: np.ndarray, spent: dict[str, float]) -> Callable[[int, object, int], None]:
    """``play_match``'s ``on_state``: score each finished hand with every value function (A's view)."""
    from evaluation.aivat import aivat_hand

    def scored(hand: int, final, a_player: int) -> None:  # type: ignore[no-untyped-def]
        chips[hand] = final.payoffs()[a_player]
        by_player = (recorders[0], recorders[1]) if a_player == 0 else (recorders[1], recorders[0])
        taken = [by_player[p].take(hand) for p in range(2)]
        dists = [taken[p].get(i) for i, (p, _) in enumerate((p, a) for rnd in final.history for p, a in rnd)]
        for name, v in values.items():
            start = time.perf_counter()
            v.seat = a_player
            _, est0 = aivat_hand(final, v, dists)
            estimates[name][hand] = est0 if a_player == 0 else -est0
            getattr(v, "learn", lambda f: None)(final)
            spent[name] = spent.get(name, 0.0) + time.perf_counter() - start

    return scored


def _scored_match(agent_a, agent_b, known: tuple[bool, bool], hands: int, seed: int,  # type: ignore[no-untyped-def]
                  values: Sequence[str]) -> tuple[np.ndarray, dict[str, np.ndarray], dict[str, float]]:
    """A duplicate in-process match, A's chips per hand and each value function's AIVAT estimate of them."""
    from evaluation.aivat import PolicyRecorder
    from evaluation.match import play_match
    from pokerbot.gamedef import load_game

    recorders = (PolicyRecorder(agent_a, known[0]), PolicyRecorder(agent_b, known[1]))
    vfs = _value_functions(values, seed)
    estimates = {k: np.zeros(hands) for k in values}
    chips = np.zeros(hands)
    spent: dict[str, float] = {}
    play_match(recorders[0], recorders[1], load_game("hunl"), hands, seed, duplicate=True,
               on_state=_scorer(recorders, vfs, estimates, chips, spent), progress=False)
    return chips, estimates, spent


def value_cut(hands: int, opponent: str, seed: int = 1, values: Sequence[str] = VALUES) -> dict:  # type: ignore[type-arg]
    """The tiny blueprint (agent seed 1) against ``opponent`` (a bot spec, or ``blueprint``: a second instance,
    seed 2), ``hands`` duplicate hands with card seed ``seed``, both policies known, scored with each of ``values``.

    Prints mbb/g plain and with AIVAT, the std cut over hands and over duplicate pairs and the scoring time per
    value function; saves ``value-cut-<opponent>-<hands>-<seed>.npz``; returns {value: AivatResult}.
    """
    from blueprint.agent import BlueprintAgent, resolve_path
    from blueprint.model import Blueprint
    from evaluation.aivat import AivatResult
    from pokerbot.bots import make_agent
    from pokerbot.gamedef import load_game

    game = load_game("hunl")
    path = resolve_path(BLUEPRINT_RUN)
    a = BlueprintAgent(Blueprint.load(path), seed=1)
    b = (BlueprintAgent(Blueprint.load(path), seed=2, name="blueprint2") if opponent == "blueprint"
         else make_agent(opponent, game, 2))
    chips, estimates, spent = _scored_match(a, b, (True, True), hands, seed, values)
    results = {}
    for k, est in estimates.items():
        r = AivatResult((a.name, b.name), game, chips, est, True)
        hand_cut = 1 - np.std(est) / np.std(chips)
        print(f"blueprint vs {opponent}, {k} value: plain {r.plain_rate}; AIVAT {r.aivat_rate}; cut hands "
              f"{100 * hand_cut:.0f}% / pairs {100 * r.std_cut:.0f}%; scoring {spent[k]:.1f} s ({_load()})",
              flush=True)
        results[k] = r
    np.savez(results_dir() / f"value-cut-{opponent.replace('/', '_')}-{hands}-{seed}.npz", chips=chips, **estimates)
    return results


def _settings(actions: str):  # type: ignore[no-untyped-def]
    from evaluation.lbr import LbrError, LbrSettings

    if actions not in ACTION_SETS:
        raise LbrError(f"unknown LBR action set {actions!r}; known: {', '.join(ACTION_SETS)}")
    return LbrSettings(call_rounds=ACTION_SETS[actions])


def lbr_chunk(actions: str, seed: int, hands: int, values: Sequence[str] = ("fitted", "blueprint")) -> Path:
    """One LBR chunk against the tiny blueprint: ``hands`` duplicate hands, card and agent seed ``seed``.

    LBR (unknown policy) is A and the blueprint B (known policy); a second blueprint instance answers LBR's
    range questions. Saves LBR's chips and each value's AIVAT estimate; returns the file.
    """
    from blueprint.agent import BlueprintAgent, resolve_path
    from blueprint.model import Blueprint
    from evaluation.lbr import LocalBestResponse
    from pokerbot.gamedef import load_game

    path = resolve_path(BLUEPRINT_RUN)
    agent = BlueprintAgent(Blueprint.load(path), seed=seed)
    lbr = LocalBestResponse(load_game("hunl"), BlueprintAgent(Blueprint.load(path), seed=seed), _settings(actions),
                            seed=seed)
    chips, estimates, _ = _scored_match(lbr, agent, (False, True), hands, seed, values)
    out = results_dir() / f"lbr-{actions}" / f"seed{seed}-hands{hands}.npz"
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(out, chips=chips, stats=json.dumps(dict(lbr.stats)), **estimates)
    return out


def lbr_run(hands: int, seed: int, actions: str = "FCPA", chunk: int = LBR_CHUNK) -> list[Path]:
    """``hands`` LBR hands against the tiny blueprint in chunks of ``chunk`` (chunk i: seed ``seed + 10,000 i``).

    A chunk already on disk is kept (resume by calling again). ``chunk = hands`` plays one match with seed
    ``seed``, as the figures of docs/evaluation.md were measured.
    """
    from tqdm import tqdm

    _settings(actions)
    if hands < 2 or chunk < 2 or chunk % 2:
        raise ValueError(f"LBR needs an even chunk of at least 2 hands and hands >= 2: {hands=}, {chunk=}")
    sizes = [chunk] * (hands // chunk) + ([hands % chunk // 2 * 2] if hands % chunk >= 2 else [])
    files = []
    for i, n in enumerate(tqdm(sizes, desc=f"LBR {actions} seed {seed}", unit="chunk")):
        s = seed + CHUNK_SEED_STRIDE * i
        done = results_dir() / f"lbr-{actions}" / f"seed{s}-hands{n}.npz"
        files.append(done if done.is_file() else lbr_chunk(actions, s, n))
    return files


def lbr_summary(actions: str = "FCPA", seeds: Sequence[int] = ()) -> dict:  # type: ignore[type-arg]
    """Pool the saved chunks of ``actions`` (those of the runs ``lbr_run(..., seed=S)`` for S in ``seeds``; every
    chunk when empty): LBR's mbb/g (95% CI over duplicate pairs) and per-hand std, plain and with each value
    function. Returns {"chips"|value: WinRate}."""
    from evaluation.stats import win_rate
    from pokerbot.gamedef import load_game

    _settings(actions)
    game = load_game("hunl")
    files = sorted((results_dir() / f"lbr-{actions}").glob("seed*-hands*.npz"))
    run_seed = [int(f.name.removeprefix("seed").split("-")[0]) % CHUNK_SEED_STRIDE for f in files]
    parts = [np.load(f) for f, s in zip(files, run_seed) if not seeds or s in seeds]
    if not parts:
        print(f"LBR {actions}: no chunks under {results_dir()}; run lbr_run first")
        return {}
    keys = [k for k in parts[0].files if k != "stats"]
    rates = {}
    print(f"LBR ({actions}) vs the tiny blueprint, {sum(p['chips'].size for p in parts)} hands in {len(parts)} chunks")
    for key in keys:
        x = np.concatenate([p[key] for p in parts])
        rates[key] = win_rate(x, game, pair=True)
        print(f"  {'plain' if key == 'chips' else key + ' AIVAT'}: {rates[key]}, std {np.std(x):,.0f} chips")
    return rates


def acpc_check(hands: int = 2000, seed: int = 11) -> None:
    """Blueprint vs the equity bot over the ACPC dealer (log under the results folder), then AIVAT from the log
    (both policies known, then only the blueprint's) and in-process with the equity bot unknown."""
    from evaluation.aivat import aivat_from_log, play_match_aivat
    from evaluation.match import play_match
    from pokerbot.bots import make_agent
    from pokerbot.gamedef import load_game

    game = load_game("hunl")
    log = results_dir() / f"acpc-blueprint-vs-equity-{hands}-{seed}.log"
    start = time.perf_counter()
    m = play_match(make_agent(BLUEPRINT, game, 1), make_agent("equity", game, 2), game, hands, seed=seed,
                   duplicate=True, log_path=log, progress=False, over_acpc=True)
    print(f"over ACPC: {m.summary()} ({time.perf_counter() - start:.0f} s, {_load()})", flush=True)
    for known in (("blueprint", "equity"), ("blueprint",)):
        agents = {"blueprint": make_agent(BLUEPRINT, game, 1), "equity": make_agent("equity", game, 2)}
        start = time.perf_counter()
        r = aivat_from_log(game, log, "blueprint", {k: agents[k] for k in known}, duplicate=True, seed=seed)
        print(f"from the ACPC log, known {known}: {r.summary()} ({time.perf_counter() - start:.0f} s, {_load()})",
              flush=True)
    start = time.perf_counter()
    r = play_match_aivat(make_agent(BLUEPRINT, game, 1), make_agent("equity", game, 2), game, hands, seed=seed,
                         duplicate=True, known=(True, False), progress=False)
    print(f"in-process, equity unknown: {r.summary()} ({time.perf_counter() - start:.0f} s, {_load()})", flush=True)


def lbr_baselines(hands: int = 1000, seed: int = 7) -> list[dict]:  # type: ignore[type-arg]
    """LBR (plain) against always-call, always-raise, random, the equity bot and the tiny blueprint (both action
    sets), ``run_lbr(spec, "hunl", hands, seed)``; saved to ``lbr-baselines-<hands>-<seed>.json``."""
    from evaluation.lbr import run_lbr

    out = results_dir() / f"lbr-baselines-{hands}-{seed}.json"
    rows = []
    runs = [(s, "FCPA") for s in ("call", "raise", "random", "equity", BLUEPRINT)] + [(BLUEPRINT, "FC12-FCPA")]
    for spec, actions in runs:
        r = run_lbr(spec, "hunl", hands, seed=seed, settings=_settings(actions), progress=False)
        rows.append(dict(agent=spec, settings=actions, mbb=r.rate.mbb, ci95=r.rate.ci95, hands=r.hands,
                         seconds=r.seconds, load=os.getloadavg()[0], stats=r.stats))
        print(f"{r.summary()} ({_load()})", flush=True)
        out.write_text(json.dumps(rows, indent=1))
    return rows


def main() -> None:
    hands = int(os.environ.get("AIVAT_BENCH_HANDS", "200"))
    print(f"{_load()} (timings on a shared machine are noisy); results under {results_dir()}")
    try:
        from blueprint.agent import resolve_path

        resolve_path(BLUEPRINT_RUN)
    except Exception as exc:  # the blueprint is not trained here
        print(f"AIVAT bench: no {BLUEPRINT_RUN} blueprint ({exc}); `pokerbot demo` trains it")
        return
    value_cut(hands, "blueprint", seed=1)
    lbr_run(hands // 2, seed=1, actions="FCPA", chunk=LBR_CHUNK // 2)
    lbr_summary("FCPA", seeds=(1,))
    acpc_check(hands, seed=11)


if __name__ == "__main__":
    main()
