"""The KLSS paper's experiments on explicit games: Table 1 and Proposition 3.

Table 1: a deliberately weak blueprint for player 0 (the least-exploitable strategy whose
every action has probability >= ε/m, or only bets / folds for the ε-bet / ε-fold rows),
then nested maxmargin 1-KLSS at every player-0 infoset with the same floor everywhere but
each solve's root. Exploitability is player 0's (game value minus her worst case),
rewards normalised to [-1, 1].

>>> row = table1_row(ROWS[3])            # Kuhn
>>> round(row.blueprint, 4), round(row.after, 4)
(0.0124, 0.0015)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pokerbot.efg import games
from pokerbot.efg.game import EfgError, Game
from pokerbot.efg.lp import action_floor, game_value, least_exploitable, uniform_floor
from pokerbot.efg.sequence_form import exploitability, to_sequence
from realtime.klss.nested import KlssOptions, independent_set_probabilities, nested_klss, updating_klss


@dataclass(frozen=True)
class RowSpec:
    """One Table 1 row: label, game name, floor kind ("uniform", "bet" or "fold"), and the
    paper's blueprint / after-1-KLSS exploitabilities."""

    label: str
    game: str
    floor: str
    paper_blueprint: float
    paper_after: float


ROWS: tuple[RowSpec, ...] = (
    RowSpec("2x2 Abrupt Dark Hex", "dark-hex", "uniform", 0.0683, 0.0625),
    RowSpec("4-card Goofspiel, random order", "goofspiel-random", "uniform", 0.171, 0.077),
    RowSpec("4-card Goofspiel, increasing order", "goofspiel-increasing", "uniform", 0.17, 0.0),
    RowSpec("Kuhn poker", "kuhn", "uniform", 0.0124, 0.0015),
    RowSpec("Kuhn poker (ε-bet)", "kuhn", "bet", 0.0035, 0.0),
    RowSpec("3-rank limit Leduc poker", "leduc", "uniform", 0.0207, 0.0191),
    RowSpec("3-rank limit Leduc poker (ε-fold)", "leduc", "fold", 0.0065, 0.0057),
    RowSpec("3-rank limit Leduc poker (ε-bet)", "leduc", "bet", 0.0097, 0.0096),
    RowSpec("Liar's Dice, 5-sided die", "liars-dice", "uniform", 0.181, 0.125),
    RowSpec("100-Matching pennies", "matching-pennies", "uniform", 0.0013, 0.0098),
)

#: The action labels the ε-bet / ε-fold floors apply to (poker games).
FLOOR_LABELS = {"bet": ("r",), "fold": ("f",)}


def blueprint_floor(game: Game, kind: str, epsilon: float) -> np.ndarray:
    """The floor of a Table 1 row for player 0."""
    tp = game.treeplex(0)
    if kind == "uniform":
        return uniform_floor(tp, epsilon)
    if kind in FLOOR_LABELS:
        return action_floor(tp, epsilon, FLOOR_LABELS[kind])
    raise EfgError(f"unknown floor kind {kind!r}; use uniform, bet or fold")


@dataclass(frozen=True)
class RowResult:
    """Measured figures of one row (exploitabilities normalised to [-1, 1]).

    ``updating`` / ``independent``: the safe variants (Theorem 4's final blueprint and
    Theorem 5's expected strategy), when asked for; ``updating_max_step`` the largest
    rise of exploitability between consecutive Theorem 4 blueprints (<= 0 up to LP
    tolerance)."""

    spec: RowSpec
    nodes: int
    infosets: int
    blueprint: float
    after: float
    solves: int
    blueprint_seconds: float
    klss_seconds: float
    updating: float | None = None
    updating_max_step: float | None = None
    independent: float | None = None
    safe_seconds: float | None = None

    @property
    def ratio(self) -> float:
        return self.blueprint / self.after if self.after > 1e-9 else float("inf")


def _expl(game: Game, x: np.ndarray, value: float) -> float:
    return max(0.0, exploitability(game.sequence_form, 0, x, value)) * game.normalizer


def table1_row(spec: RowSpec, epsilon: float = 0.25, options: KlssOptions = KlssOptions(), safe: bool = False,
               progress: Callable[[int], None] | None = None) -> RowResult:
    """Build the game, the ε-blueprint, run nested 1-KLSS (and the safe variants if asked)."""
    game = games.load(spec.game)
    sf = game.sequence_form
    value = game_value(sf)
    floor = blueprint_floor(game, spec.floor, epsilon)
    t0 = time.perf_counter()
    bp = least_exploitable(sf, 0, floor)
    t1 = time.perf_counter()
    nested = nested_klss(game, bp.behavioral, floor, options=options, progress=progress)
    row = RowResult(spec, game.num_nodes, game.num_infosets, _expl(game, bp.strategy, value),
                    _expl(game, nested.strategy, value), nested.solves, t1 - t0, nested.seconds)
    if not safe:
        return row
    t2 = time.perf_counter()
    trace = updating_klss(game, bp.behavioral, floor, options=options)
    tp = game.treeplex(0)
    expl = [_expl(game, to_sequence(tp, b), value) for b in trace.blueprints]
    p_run = independent_set_probabilities(game, 0)
    indep = nested_klss(game, bp.behavioral, floor, options=options, run_probability=p_run)
    return RowResult(
        **{**row.__dict__, "updating": expl[-1], "updating_max_step": float(np.max(np.diff(expl), initial=0.0)),
           "independent": _expl(game, indep.strategy, value), "safe_seconds": time.perf_counter() - t2}
    )


@dataclass(frozen=True)
class Prop3Result:
    n: int
    before: float
    after: float


def proposition3(n: int, options: KlssOptions = KlssOptions()) -> Prop3Result:
    """Proposition 3's counterexample: heads with probability 1/2 + 2/N at every infoset is
    4/N-exploitable; 1-KLSS at every infoset turns it into always-tails, exploitability 1
    (payoffs ±1, not normalised: value 0)."""
    game = games.hidden_pennies(n)
    tp = game.treeplex(0)
    beh = np.ones(tp.num_seqs)
    heads = 0.5 + 2.0 / n
    for d in range(tp.num_infosets):
        f = int(tp.first_seq[d])
        h_index = tp.labels[d].index("H")
        beh[f + h_index] = heads
        beh[f + 1 - h_index] = 1.0 - heads
    value = game_value(game.sequence_form)
    after = nested_klss(game, beh, options=options)
    before = exploitability(game.sequence_form, 0, to_sequence(tp, beh), value)
    return Prop3Result(n, before, exploitability(game.sequence_form, 0, after.strategy, value))


def format_table(rows: list[RowResult], load: str = "") -> str:
    """Table 1 as text: measured and paper figures side by side, with run times."""
    head = (f"{'game':38s} {'nodes':>7s} {'infosets':>8s} {'blueprint':>9s} {'after':>8s} {'ratio':>7s} "
            f"{'paper bp':>8s} {'paper':>7s} {'solves':>6s} {'LP s':>6s} {'KLSS s':>7s}")
    extra = any(r.updating is not None for r in rows)
    if extra:
        head += f" {'Thm4':>8s} {'Thm4 max rise':>13s} {'Thm5':>8s} {'safe s':>7s}"
    lines = [head, "-" * len(head)]
    for r in rows:
        ratio = "inf" if r.ratio == float("inf") else f"{r.ratio:.3g}"
        line = (f"{r.spec.label:38s} {r.nodes:7d} {r.infosets:8d} {r.blueprint:9.4f} {r.after:8.4f} {ratio:>7s} "
                f"{r.spec.paper_blueprint:8.4f} {r.spec.paper_after:7.4f} {r.solves:6d} {r.blueprint_seconds:6.2f} "
                f"{r.klss_seconds:7.1f}")
        if extra and r.updating is not None:
            line += f" {r.updating:8.4f} {r.updating_max_step:13.1e} {r.independent:8.4f} {r.safe_seconds:7.1f}"
        lines.append(line)
    if load:
        lines.append(f"(load average: {load})")
    return "\n".join(lines)
