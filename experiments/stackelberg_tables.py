"""Blueprints and the paper's experiments (Tables 1-4) on this project's games.

Blueprints (Ling & Brown, Safe search for Stackelberg equilibria, section 5): raked Leduc
and Goofspiel use the leader's Nash strategy of the zero-sum version (unraked Leduc;
Goofspiel with ties split) by the sequence-form LP; two-stage games use the SSE of stage 1
alone (multiple LPs) and the uniform strategy in stage 2. Every row is measured, never
copied: ``paper`` columns in the command's output are the printed numbers, for comparison.

>>> row = two_stage_row(n=2, games=2, m=2, kappa=0.0, seeds=range(2))
>>> row.blueprint <= row.search + 1e-9 and row.search <= row.full + 1e-6
True
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from pokerbot.efg.game import EfgError, Game
from pokerbot.efg.general_sum_games import (
    figure1,
    figure2,
    figure_subgame,
    goofspiel,
    goofspiel_subgame,
    label_subgames,
    leduc_subgame,
    raked_leduc,
    two_stage,
    two_stage_spec,
    two_stage_subgame,
)
from pokerbot.efg.lp import maxmin
from pokerbot.efg.sequence_form import to_sequence
from realtime.stackelberg.bounds import Subgames
from realtime.stackelberg.response import blueprint_rows, matrix_sse
from realtime.stackelberg.search import SearchResult, full_game_sse, safe_search

Progress = Callable[[Iterable[int]], Iterable[int]]


def zero_sum_blueprint(zero_sum_game: Game) -> np.ndarray:
    """The leader's (player 0's) maxmin strategy of a zero-sum game, to be played in its
    general-sum twin (same tree, same sequence numbering)."""
    return maxmin(zero_sum_game.sequence_form, 0).strategy


def two_stage_blueprint(game: Game, main_leader: np.ndarray, main_follower: np.ndarray) -> np.ndarray:
    """Stage 1's SSE (multiple LPs on the main matrix game), uniform in stage 2."""
    tp = game.treeplex(0)
    beh = np.concatenate(([1.0], np.repeat(1.0 / tp.num_actions, tp.num_actions)))
    root = int(np.flatnonzero(tp.parent_seq == 0)[0])
    f = int(tp.first_seq[root])
    beh[f:f + tp.num_actions[root]] = matrix_sse(main_leader, main_follower).leader
    return to_sequence(tp, beh)


# --- Leduc (Table 3, Table 4) --------------------------------------------------------------


@dataclass(frozen=True)
class LeducRow:
    ranks: int
    rule: str
    alpha: float
    beta: float
    seqs: int
    infosets: int
    blueprint: float
    search: float
    search_seconds: float
    max_subgame_seconds: float
    limits_hit: int
    subgames: int
    full: float | None
    full_seconds: float | None
    full_status: str | None


def leduc_setup(ranks: int, rule: str = "generator", rake: float = 0.1) -> tuple[Subgames, np.ndarray]:
    """Raked Leduc's subgames and the unraked game's Nash blueprint."""
    game = raked_leduc(ranks, rake, rule)
    blueprint = zero_sum_blueprint(raked_leduc(ranks, 0.0, rule))
    return Subgames(game, label_subgames(game, leduc_subgame)), blueprint


def leduc_row(ranks: int, rule: str = "generator", alpha: float = 0.5, beta: float = 1.0, time_limit: float = 200.0,
              full_time_limit: float | None = None, setup: tuple[Subgames, np.ndarray] | None = None,
              progress: Progress | None = None, full_start: str = "blueprint", polish_rounds: int = 0) -> LeducRow:
    """One row of Table 3 (or a cell of Table 4): blueprint, safe search (every
    subgame, ``time_limit`` s each) and optionally the whole-game MILP (``full_time_limit``
    s) warm-started from the blueprint (the paper's) or, ``full_start="search"``, from
    the search's combined strategy, after ``polish_rounds`` fixed-response LPs."""
    if full_start not in ("blueprint", "search"):
        raise EfgError(f"full_start must be 'blueprint' or 'search', got {full_start!r}")
    subs, blueprint = setup or leduc_setup(ranks, rule)
    game = subs.game
    res = safe_search(subs, blueprint, alpha, beta, time_limit=time_limit, progress=progress)
    full = full_s = status = None
    if full_time_limit is not None:
        t0 = time.perf_counter()
        start = blueprint if full_start == "blueprint" else res.strategy
        sse = full_game_sse(game, full_time_limit, warm_start=start, polish_rounds=polish_rounds)
        full, full_s = sse.leader_value, time.perf_counter() - t0
        milp = "no MILP" if sse.milp is None else f"{sse.milp.status}, gap {sse.milp.gap:.3g}"
        status = f"{milp}; start {sse.start_value:+.4f}, polished {sse.polished_value:+.4f} ({sse.polish_rounds} LPs)"
    tp = game.treeplex(0)
    return LeducRow(ranks, rule, alpha, beta, tp.num_seqs, tp.num_infosets, res.blueprint_value, res.leader_value,
                    res.seconds, res.max_subgame_seconds, res.limits_hit, subs.count, full, full_s, status)


# --- Goofspiel (Table 2) -------------------------------------------------------------------


@dataclass(frozen=True)
class GoofspielRow:
    cards: int
    depth: int
    subgames: int
    blueprint: float
    search: float
    seconds: float
    max_subgame_seconds: float
    limits_hit: int


def goofspiel_setup(cards: int) -> tuple[Game, np.ndarray]:
    """General-sum Goofspiel and the blueprint (Nash of the tie-splitting version)."""
    return goofspiel(cards), zero_sum_blueprint(goofspiel(cards, zero_sum=True))


def goofspiel_row(cards: int, depth: int, time_limit: float = 5.0, setup: tuple[Game, np.ndarray] | None = None,
                  progress: Progress | None = None, alpha: float = 0.5, beta: float = 1.0) -> GoofspielRow:
    """One row of Table 2 (or a cell of Table 4's Goofspiel rows): safe search with
    subgames of ``depth`` final rounds, bounds generated with ``alpha`` and ``beta``."""
    game, blueprint = setup or goofspiel_setup(cards)
    subs = Subgames(game, label_subgames(game, goofspiel_subgame(cards, depth)))
    res: SearchResult = safe_search(subs, blueprint, alpha, beta, time_limit=time_limit, progress=progress)
    return GoofspielRow(cards, depth, subs.count, res.blueprint_value, res.leader_value, res.seconds,
                        res.max_subgame_seconds, res.limits_hit)


# --- two-stage games (Table 1) -------------------------------------------------------------


@dataclass(frozen=True)
class TwoStageRow:
    n: int
    games: int
    m: int
    kappa: float
    instances: int
    blueprint: float
    search: float
    full: float
    seconds_search: float
    seconds_full: float
    full_limits_hit: int
    #: Subgames searched over all games, how many of them hit ``time_limit``, the slowest one (s).
    subgames: int = 0
    search_limits_hit: int = 0
    max_subgame_seconds: float = 0.0
    #: Games whose whole-game MILP found a strategy better than the blueprint.
    full_improved: int = 0


def two_stage_row(n: int, games: int, m: int, kappa: float, seeds: Iterable[int], time_limit: float = 100.0,
                  full_time_limit: float = 1000.0) -> TwoStageRow:
    """Averages over the seeds' games of Table 1's three columns (``n``: the main game's
    size, ``games`` = M secondary games of size ``m``). ``full_time_limit = 0`` skips the
    whole-game MILP (its column is then nan)."""
    bp, se, fu = [], [], []
    t_search = t_full = 0.0
    hits = subgames = search_hits = improved = 0
    slowest = 0.0
    for seed in seeds:
        spec = two_stage_spec(n, games, m, kappa, seed)
        game = two_stage(spec)
        x = two_stage_blueprint(game, spec.main[0], spec.main[1])
        subs = Subgames(game, label_subgames(game, two_stage_subgame))
        res = safe_search(subs, x, time_limit=time_limit)
        t_search += res.seconds
        subgames += subs.count
        search_hits += res.limits_hit
        slowest = max(slowest, res.max_subgame_seconds)
        bp.append(res.blueprint_value)
        se.append(res.leader_value)
        if full_time_limit > 0:
            t0 = time.perf_counter()
            sse = full_game_sse(game, full_time_limit, warm_start=x)
            t_full += time.perf_counter() - t0
            assert sse.milp is not None  # a positive time limit runs the MILP
            hits += sse.milp.hit_limit
            improved += sse.leader_value > bp[-1] + 1e-9
            fu.append(sse.leader_value)
    full = float(np.mean(fu)) if fu else float("nan")
    return TwoStageRow(n, games, m, kappa, len(bp), float(np.mean(bp)), float(np.mean(se)), full,
                       t_search, t_full, hits, subgames, search_hits, slowest, improved)


# --- Figures 1 and 2 -------------------------------------------------------------------------


def figure_rows() -> dict[str, dict[str, float]]:
    """The counterexamples' numbers: blueprint, naive search, safe search (α = 1/2),
    the whole-game SSE; for Fig. 2 also naive search in the left subgame only."""
    out = {}
    for name, build in (("figure 1", figure1), ("figure 2", figure2)):
        game = build()
        labels = label_subgames(game, figure_subgame)
        subs = Subgames(game, labels)
        x = blueprint_rows(game, 0)
        naive = safe_search(subs, x, naive=True)
        row = {"blueprint": naive.blueprint_value, "naive search": naive.leader_value,
               "safe search": safe_search(subs, x).leader_value}
        if name == "figure 2":
            left = Subgames(game, np.where(labels == 0, 0, -1))
            row["naive search, left only"] = safe_search(left, x, naive=True).leader_value
        row["whole-game SSE"] = full_game_sse(game).leader_value
        out[name] = row
    return out
