"""Evaluation experiments from a TOML file: matches (with AIVAT), LBR runs and training curves.

What ``pokerbot eval CONFIG`` runs. An experiment file::

    name = "baselines"            # output folder runs/eval-<name> unless `out` is given
    game = "hunl"
    hands = 2000                  # per matchup
    seed = 0
    duplicate = true              # deals played twice, seats swapped
    aivat = true                  # AIVAT estimates beside the plain chips
    value = "fitted"              # AIVAT's value function: "fitted", "equity" or "blueprint:<file or run name>"
    chunk = 1000                  # hands per resumable piece (each its own ACPC log)
    workers = 1                   # ray workers (1: in-process); ray_address = "" for local ray
    round_robin = false           # every pair of agents, or the `matchups` list
    matchups = [["blueprint", "equity"], ["blueprint", "call"]]

    [agents]                      # name = agent spec (pokerbot.bots.make_agent)
    blueprint = "blueprint.agent:make_agent?path=hunl-tiny"
    equity = "equity"
    call = "call"

    [[paired]]                    # A against B minus A' against B, hand by hand (both matchups listed)
    agent = "realtime"
    reference = "blueprint_seat"  # A': say the blueprint A is built on (then A' against B wins 0 in expectation)
    opponent = "blueprint"

    [[lbr]]                       # local best response against an agent
    agent = "blueprint"
    hands = 200
    fractions = [1.0]             # pot; all_in = true; call_rounds = [0, 1] for check/call preflop and flop
    chunk = 1000                  # hands per resumable piece (default: the experiment's chunk)
    expected_from = 3             # score hands by their expectation over the agent's actions from the river on

    [[training]]                  # a blueprint run with its exact exploitability (small games)
    config = "configs/leduc.toml"
    iterations = 200000
    eval_every = 20000

Every piece of work (a chunk of a match or of an LBR run, a training curve) is
saved under the output folder as it finishes, so an interrupted experiment
resumes where it stopped; :func:`run_experiment` then writes ``results.csv``,
``results.md`` and the plots of :mod:`evaluation.plots`.

>>> cfg = parse_experiment({"name": "t", "game": "kuhn", "hands": 10, "agents": {"a": "call", "b": "raise"},
...                         "round_robin": True})
>>> cfg.pairs()
[('a', 'b')]
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from evaluation.lbr import LbrSettings
from pokerbot.agent import add_counts, fallback_note
from pokerbot.errors import CheckpointError, PokerbotError
from pokerbot.files import atomic_write_text, plain_name, read_toml_config
from pokerbot.npz import load_checked, save_checked
from pokerbot.schema import check_value, take

#: Training curves by name: ``(iterations, exploitability in mbb/g)`` points (JSON lists once read back).
Curves = list[tuple[str, Sequence[Sequence[float]]]]


class ExperimentError(PokerbotError, ValueError):
    """A bad experiment file: unknown keys, agents or games, impossible numbers."""


@dataclass(frozen=True)
class Paired:
    """Agent A's winnings against B minus a reference agent A''s against B, hand by hand: both matchups are
    played on the same deals, and agents that draw their random numbers per hand (:func:`pokerbot.agent.hand_rng`)
    play identically wherever their strategies agree, so the difference is zero in every hand they play alike.
    When A' against B wins nothing in expectation (A' the same strategy as B, duplicate deals), the difference
    estimates A's win rate against B with a smaller variance: a control variate of known mean."""

    agent: str
    reference: str
    opponent: str


@dataclass(frozen=True)
class LbrRun:
    agent: str
    hands: int
    settings: LbrSettings
    chunk: int = 1000

    def pieces(self) -> list[tuple[int, int]]:
        """(first hand, hands) of each resumable piece; piece k starts at hand ``k * chunk``."""
        return [(lo, min(self.chunk, self.hands - lo)) for lo in range(0, self.hands, self.chunk)]


@dataclass(frozen=True)
class TrainingRun:
    config: str
    iterations: int
    eval_every: int


@dataclass
class Experiment:
    name: str
    game: str
    agents: dict[str, str]
    hands: int = 1000
    seed: int = 0
    duplicate: bool = True
    aivat: bool = True
    value: str = "fitted"
    chunk: int = 1000
    workers: int = 1
    ray_address: str = ""
    round_robin: bool = False
    matchups: list[tuple[str, str]] = field(default_factory=list)
    paired: list[Paired] = field(default_factory=list)
    lbr: list[LbrRun] = field(default_factory=list)
    training: list[TrainingRun] = field(default_factory=list)
    out: str = ""

    def pairs(self) -> list[tuple[str, str]]:
        """The matchups to play: the listed ones, or every pair of agents for a round robin."""
        if self.round_robin:
            return list(itertools.combinations(self.agents, 2))
        return list(self.matchups)

    @property
    def directory(self) -> Path:
        return Path(self.out) if self.out else Path("runs") / f"eval-{plain_name(self.name, 'experiment name')}"


_TOP = {"name", "game", "agents", "hands", "seed", "duplicate", "aivat", "value", "chunk", "workers", "ray_address",
        "round_robin", "matchups", "paired", "lbr", "training", "out"}
_PAIRED = {"agent", "reference", "opponent"}
_LBR = {"agent", "hands", "fractions", "all_in", "call_rounds", "samples", "chunk", "expected_from", "call_range"}
_TRAINING = {"config", "iterations", "eval_every"}

#: What each key means, by table ("" = the top level), for the configuration reference (docs/config-reference.md,
#: made by :mod:`evaluation.configref`): ``"meaning"`` or ``(meaning, allowed values or range[, type, default])``.
#: ``[agents]`` holds names of the user's choice: its one entry says what each is.
KEY_DOCS: dict[str, dict[str, str | tuple[str, ...]]] = {
    "": {
        "name": ("the experiment's name: its output folder is runs/eval-<name> unless `out` is given", "", "",
                 "the file's name"),
        "game": ("the game every match is played in: a shipped name or a .game path", "", "string", "`\"hunl\"`"),
        "hands": ("hands per matchup", ">= 1 (even when duplicate)"),
        "seed": ("card seed of the matches (the ACPC dealer's) and of the LBR runs", "0 .. 2**32-1"),
        "duplicate": "play every deal twice with the seats swapped (confidence intervals over the pairs)",
        "aivat": "add AIVAT estimates beside the plain chips (the agents' policies must be known)",
        "value": ("AIVAT's value function", "fitted, equity, blueprint:<file or run name>"),
        "chunk": ("hands per resumable piece of a match (each piece its own ACPC log)",
                  ">= 1 (even when duplicate)"),
        "workers": ("ray workers playing the pieces; 1: in this process", ">= 1"),
        "ray_address": "ray cluster to join: \"\" starts a local ray, \"auto\" or host:port joins a cluster",
        "round_robin": "play every pair of agents (instead of `matchups`)",
        "matchups": ("the matches to play, each a pair of names of [agents]: [[\"a\", \"b\"], ...] (A is the "
                     "first)", "two different agents", "array of pairs of strings"),
        "out": "output folder (\"\": runs/eval-<name>); rerun the experiment to resume it there",
    },
    "paired": {
        "agent": ("agent A: its winnings against `opponent` minus the reference's, hand by hand", "a name of [agents]"),
        "reference": ("agent A': played against `opponent` on the same deals (say the blueprint A is built on, "
                      "under another name)", "a name of [agents]"),
        "opponent": ("agent B; both [A, B] and [A', B] must be in `matchups`", "a name of [agents]"),
    },
    "agents": {
        "<name>": ("an agent spec (`pokerbot.bots.make_agent`): random, call, raise, equity, blueprint, "
                   "realtime, sog, or package.module:factory, each with ?key=value options", "",
                   "string", "at least one agent"),
    },
    "lbr": {
        "agent": ("the name of the agent of [agents] to exploit", "a name of [agents]"),
        "hands": ("hands of the run (made even: LBR plays duplicate pairs)", ">= 1", "", "`200`"),
        "fractions": ("LBR's raise sizes as fractions of the pot after calling", "each > 0"),
        "all_in": "LBR also considers all-in",
        "call_rounds": ("rounds where LBR only checks or calls (0: preflop), e.g. [0, 1]",
                        "rounds of the game"),
        "samples": ("run-outs sampled for LBR's equities where there are too many to enumerate", ">= 1"),
        "chunk": ("hands per resumable piece", ">= 1, even", "", "the experiment's chunk"),
        "expected_from": ("score each hand by LBR's expectation over the agent's actions from this round on "
                          "(0: preflop); unset: the chips won", "rounds of the game"),
        "call_range": ("value LBR's raises with its equity against the hands that call them, not the whole range "
                       "(label -CR)", "", "", "`false`"),
    },
    "training": {
        "config": "a blueprint config (a path or a name in configs/) of a small game with a lossless abstraction",
        "iterations": ("MCCFR iterations of the in-memory run", ">= 1", "", "`100000`"),
        "eval_every": ("iterations between exact exploitability points of the curve", ">= 1", "", "`10000`"),
    },
}


def _positive(value: Any, what: str, source: str = "experiment") -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ExperimentError(f"{source}: {what} must be a positive integer, got {value!r}")
    return value


def _seed(value: Any, source: str = "experiment") -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**32:
        raise ExperimentError(f"{source}: seed must be an integer in 0..2**32-1 (a card seed), got {value!r}")
    return value


def parse_experiment(data: dict[str, Any], source: str = "experiment") -> Experiment:
    """Check and convert a parsed TOML experiment; :class:`ExperimentError` naming what is wrong."""
    unknown = set(data) - _TOP
    if unknown:
        raise ExperimentError(f"{source}: unknown keys {sorted(unknown)} (known: {sorted(_TOP)})")
    agents = data.get("agents")
    if not isinstance(agents, dict) or not agents or not all(isinstance(v, str) for v in agents.values()):
        raise ExperimentError(f"{source}: [agents] must map names to agent specs")
    try:
        from pokerbot.gamedef import load_game

        rounds = load_game(take(data, "game", str, "hunl", source, ExperimentError)).num_rounds
    except PokerbotError as exc:
        raise ExperimentError(f"{source}: game: {exc}") from None
    def get(key: str, kind: Any, default: Any) -> Any:
        return take(data, key, kind, default, source, ExperimentError)

    exp = Experiment(
        name=get("name", str, Path(source).stem),
        game=get("game", str, "hunl"),
        agents=dict(agents),
        hands=_positive(data.get("hands", 1000), "hands", source),
        seed=_seed(data.get("seed", 0), source),
        duplicate=get("duplicate", bool, True),
        aivat=get("aivat", bool, True),
        value=get("value", str, "fitted"),
        chunk=_positive(data.get("chunk", 1000), "chunk", source),
        workers=_positive(data.get("workers", 1), "workers", source),
        ray_address=get("ray_address", str, ""),
        round_robin=get("round_robin", bool, False),
        out=get("out", str, ""),
    )
    if not exp.name:
        raise ExperimentError(f"{source}: name must not be empty (it names the output folder runs/eval-<name>)")
    kind, _, path = exp.value.partition(":")
    if kind not in ("fitted", "equity", "blueprint") or (kind == "blueprint") != bool(path):
        raise ExperimentError(f"{source}: value must be 'fitted', 'equity' or 'blueprint:<file or run name>', "
                              f"got {exp.value!r}")
    if exp.duplicate and (exp.hands % 2 or exp.chunk % 2):
        raise ExperimentError(f"{source}: duplicate matches need even hands and chunk, got {exp.hands}, {exp.chunk}")
    for pair in get("matchups", list[list[str]], []):
        if not (isinstance(pair, list) and len(pair) == 2 and all(p in agents for p in pair)) or pair[0] == pair[1]:
            raise ExperimentError(f"{source}: matchups: {pair!r} must name two different agents of [agents]")
        exp.matchups.append((pair[0], pair[1]))
    for run in get("paired", list[dict], []):
        bad = set(run) - _PAIRED
        if bad:
            raise ExperimentError(f"{source}: [[paired]]: unknown keys {sorted(bad)} (known: {sorted(_PAIRED)})")
        names = [run.get(k) for k in ("agent", "reference", "opponent")]
        if not all(isinstance(n, str) and n in agents for n in names):
            raise ExperimentError(f"{source}: [[paired]] needs agent, reference and opponent, each a name of [agents], "
                                  f"got {names}")
        pair = Paired(*names)
        missing = [m for m in ((pair.agent, pair.opponent), (pair.reference, pair.opponent)) if m not in exp.pairs()]
        if missing or pair.agent == pair.reference:
            raise ExperimentError(f"{source}: [[paired]] {pair.agent} minus {pair.reference} against {pair.opponent}: "
                                  "agent and reference must differ and both matchups be played (missing: "
                                  f"{[list(m) for m in missing]})")
        exp.paired.append(pair)
    lbr_runs, training_runs = get("lbr", list[dict], []), get("training", list[dict], [])
    if not exp.round_robin and not exp.matchups and not lbr_runs and not training_runs:
        raise ExperimentError(f"{source}: nothing to do: give matchups, round_robin = true, [[lbr]] or [[training]]")
    for run in lbr_runs:
        bad = set(run) - _LBR
        if bad:
            raise ExperimentError(f"{source}: [[lbr]]: unknown keys {sorted(bad)} (known: {sorted(_LBR)})")
        if not isinstance(run.get("agent"), str) or run["agent"] not in agents:
            raise ExperimentError(f"{source}: [[lbr]] needs agent = one of {sorted(agents)}, got {run.get('agent')!r}")
        where = f"{source}: [[lbr]] for {run['agent']}"
        try:
            settings = LbrSettings(tuple(take(run, "fractions", list[float], [1.0], where, ExperimentError)),
                                   take(run, "all_in", bool, True, where, ExperimentError),
                                   tuple(take(run, "call_rounds", list[int], [], where, ExperimentError)),
                                   samples=take(run, "samples", int, 1000, where, ExperimentError, low=1),
                                   expected_from=take(run, "expected_from", int | None, None, where, ExperimentError,
                                                      low=0, high=rounds - 1),
                                   call_range=take(run, "call_range", bool, False, where, ExperimentError))
            for r in settings.call_rounds:
                check_value(r, int, "call_rounds", where, ExperimentError, low=0, high=rounds - 1)
        except (TypeError, ValueError) as exc:
            if isinstance(exc, ExperimentError):
                raise
            raise ExperimentError(f"{where}: {exc}") from None
        hands = _positive(run.get("hands", 200), "[[lbr]] hands", source)
        chunk = _positive(run.get("chunk", exp.chunk), "[[lbr]] chunk", source)
        if chunk % 2:
            raise ExperimentError(f"{source}: [[lbr]] chunk must be even (LBR plays duplicate pairs), got {chunk}")
        exp.lbr.append(LbrRun(run["agent"], hands + hands % 2, settings, chunk))
    for run in training_runs:
        bad = set(run) - _TRAINING
        if bad:
            raise ExperimentError(f"{source}: [[training]]: unknown keys {sorted(bad)} (known: {sorted(_TRAINING)})")
        if not isinstance(run.get("config"), str):
            raise ExperimentError(f"{source}: [[training]] needs config = a blueprint TOML, got {run.get('config')!r}")
        exp.training.append(TrainingRun(run["config"], _positive(run.get("iterations", 100_000), "iterations", source),
                                        _positive(run.get("eval_every", 10_000), "eval_every", source)))
    return exp


def load_experiment(path: str | os.PathLike[str]) -> Experiment:
    """Read and check the experiment file at ``path``."""
    p, data = read_toml_config(path, ExperimentError)
    return parse_experiment(data, str(p))


# --- the work pieces (top-level functions, so ray can ship them) -------------------------


def play_chunk(spec_a: str, spec_b: str, names: tuple[str, str], game_name: str, hands: int, seed: int,
               duplicate: bool, aivat: bool, log_path: str, progress: bool = False,
               value: str = "fitted") -> dict[str, Any]:
    """One piece of a match: chips (and AIVAT estimates) of A over ``hands`` hands with card seed ``seed``.

    ``value``: AIVAT's value function (:func:`evaluation.blueprint_value.make_value`; ``blueprint:<path>``).
    """
    from evaluation.aivat import play_match_aivat
    from evaluation.match import MatchResult, play_match
    from pokerbot.bots import make_agent
    from pokerbot.gamedef import load_game

    game = load_game(game_name)
    a = make_agent(spec_a, game, seed=2 * seed + 1)
    b = make_agent(spec_b, game, seed=2 * seed + 2)
    a.name, b.name = names
    start = time.perf_counter()
    if aivat:
        from evaluation.blueprint_value import make_value

        kind, _, path = value.partition(":")
        r = play_match_aivat(a, b, game, hands, seed, value_fn=make_value(kind, game, seed, blueprint=path),
                             duplicate=duplicate, log_path=log_path, progress=progress)
        chips, est = r.chips, r.aivat
    else:
        m = play_match(a, b, game, hands, seed, duplicate=duplicate, log_path=log_path, progress=progress)
        chips, est = m.chips, np.full(hands, np.nan)
    match = r.match if aivat else m
    decisions = list(match.decisions) if isinstance(match, MatchResult) else [None, None]
    return {"chips": chips, "aivat": est, "seconds": time.perf_counter() - start, "decisions": decisions}


def lbr_chunk(spec: str, game_name: str, hands: int, seed: int, settings: LbrSettings,
              first_hand: int) -> dict[str, Any]:
    """One piece of an LBR run: LBR's chips over hands ``first_hand`` onwards of the run with seed ``seed``
    (:func:`evaluation.lbr.lbr_hands` with the card seed :func:`evaluation.lbr.run_lbr` uses)."""
    from evaluation.lbr import card_seed, lbr_hands

    start = time.perf_counter()
    chips, _, _ = lbr_hands(spec, game_name, hands, card_seed(seed), settings, first_hand=first_hand)
    return {"chips": chips, "seconds": time.perf_counter() - start, "seed": seed, "first_hand": first_hand}


def train_curve(config_path: str, iterations: int, eval_every: int, progress: bool = False) -> list[tuple[int, float]]:
    """Exact exploitability (mbb/g) against iterations of an in-memory blueprint run of a small game."""
    import dataclasses

    from blueprint.config import load_config
    from blueprint.trainer import Trainer, small_game_evaluator

    cfg = load_config(config_path)
    cfg = dataclasses.replace(cfg, iterations=iterations, eval_every=eval_every, chunk=min(cfg.chunk, eval_every),
                              workers=1)
    trainer = Trainer(cfg, directory=None)
    evaluate = small_game_evaluator(trainer)
    if evaluate is None:
        raise ExperimentError(f"{config_path}: exploitability curves need a small game with a lossless abstraction")
    result = trainer.train(evaluate=evaluate, progress=progress)
    return [(int(i), float(v)) for i, v in result.exploitability]


# --- running -------------------------------------------------------------------------------


@dataclass
class MatchRow:
    a: str
    b: str
    chips: np.ndarray
    aivat: np.ndarray
    seconds: float
    #: A's and B's decisions by how they were made, summed over the pieces (None: one way of deciding).
    decisions: tuple[dict[str, int] | None, dict[str, int] | None] = (None, None)


def _chunks(exp: Experiment) -> list[int]:
    sizes = []
    left = exp.hands
    while left > 0:
        sizes.append(min(exp.chunk, left))
        left -= sizes[-1]
    return sizes


def _lbr_piece_path(root: Path, run: LbrRun, first: int, hands: int) -> Path:
    return root / "lbr" / f"{_slug(run.agent)}.{run.settings.label()}.{first:07d}-{first + hands:07d}.npz"


def _match_pieces(exp: Experiment) -> list[tuple[tuple[str, str], int, Path, dict[str, Any]]]:
    """Every match chunk of ``exp``: its matchup, index, file and what it is played for (checked when read)."""
    out = []
    for a, b in exp.pairs():
        for k, n in enumerate(_chunks(exp)):
            path = exp.directory / "matches" / f"{_slug(a)}_vs_{_slug(b)}.{k:03d}.npz"
            identity = {"agents": [exp.agents[a], exp.agents[b]], "names": [a, b], "game": exp.game, "hands": n,
                        "seed": exp.seed * 100_003 + k, "duplicate": exp.duplicate, "aivat": exp.aivat,
                        "value": exp.value}
            out.append(((a, b), k, path, identity))
    return out


def _lbr_pieces(exp: Experiment) -> list[tuple[LbrRun, Path, dict[str, Any]]]:
    """Every piece of ``exp``'s LBR runs: its run, file and what it is played for."""
    return [(run, _lbr_piece_path(exp.directory, run, first, n),
             {"agent": exp.agents[run.agent], "game": exp.game, "hands": n, "seed": exp.seed,
              "settings": run.settings.label(), "first_hand": first})
            for run in exp.lbr for first, n in run.pieces()]


@dataclass
class Progress:
    """How far one matchup or LBR run of an experiment has got: pieces and hands played, the seconds they took
    (summed over the pieces, as the results table reports them) and, for matches, both agents' decisions by how
    they were made. Never its results."""

    what: str
    pieces: int
    pieces_done: int
    hands: int
    hands_done: int
    seconds: float
    agents: tuple[str, ...] = ()
    decisions: tuple[dict[str, int] | None, dict[str, int] | None] = (None, None)

    def seconds_left(self, workers: int) -> float | None:
        """The time the rest would take at the pace of the pieces played, over ``workers`` (None: none played)."""
        if not self.hands_done:
            return None
        return self.seconds / self.hands_done * (self.hands - self.hands_done) / max(workers, 1)


def experiment_progress(exp: Experiment) -> list[Progress]:
    """Each matchup's and LBR run's :class:`Progress`, from the pieces on disk (each checked whole, as a run reads
    them). Reads no results out: a run designed for one look at the end can be watched without a look."""
    rows: list[Progress] = []
    pieces_of: dict[tuple[str, str], list[tuple[Path, dict[str, Any]]]] = {}
    for pair, _, path, ident in _match_pieces(exp):
        pieces_of.setdefault(pair, []).append((path, ident))
    for (a, b), mine in pieces_of.items():
        done = [(path, _load_piece(path, ident)) for path, ident in mine if path.exists()]
        counts = [_piece_decisions(path, meta) for path, (_, meta) in done]
        rows.append(Progress(f"{a} vs {b}", len(mine), len(done), sum(int(i["hands"]) for _, i in mine),
                             sum(len(arrays["chips"]) for _, (arrays, _) in done),
                             float(sum(float(arrays["seconds"]) for _, (arrays, _) in done)), (a, b),
                             (add_counts(*(c[0] for c in counts)), add_counts(*(c[1] for c in counts)))))
    for run in exp.lbr:
        mine = [(path, ident) for r, path, ident in _lbr_pieces(exp) if r is run]
        pieces = [_load_piece(path, ident)[0] for path, ident in mine if path.exists()]
        rows.append(Progress(f"LBR {run.settings.label()} vs {run.agent}", len(mine), len(pieces), run.hands,
                             sum(len(arrays["chips"]) for arrays in pieces),
                             float(sum(float(arrays["seconds"]) for arrays in pieces))))
    return rows


def format_progress(exp: Experiment, rows: list[Progress]) -> str:
    """:func:`experiment_progress` as lines for a terminal: pieces and hands played, the pace, the decisions that
    fell back, and the time the rest would take at the pace so far over the experiment's workers."""
    lines = [f"{exp.name}: {exp.directory} (results are written when every piece is played)"]
    width = max((len(r.what) for r in rows), default=0)
    for r in rows:
        line = f"  {r.what:<{width}}  {r.pieces_done:>4}/{r.pieces} pieces  {r.hands_done:>7,}/{r.hands:,} hands"
        if r.hands_done:
            line += f"  {r.seconds / r.hands_done:.2f} s a hand"
        notes = [f"{name} {note}" for name, c in zip(r.agents, r.decisions) if (note := fallback_note(c))]
        lines.append(line + "".join(f"; {n}" for n in notes))
    if not rows:
        lines.append("  no matches or LBR runs")
    left = [r.seconds_left(exp.workers) for r in rows if r.hands_done < r.hands]
    known = [x for x in left if x is not None]
    workers = f"{exp.workers} worker{'s' if exp.workers > 1 else ''}"
    if not left:
        lines.append("every piece is played: `pokerbot eval` writes the results")
    elif not known:
        lines.append("time left: unknown until a piece is played")
    else:
        line = f"time left: about {_duration(sum(known))} at {workers}, at the pace so far"
        if len(known) < len(left):
            line += f", plus {len(left) - len(known)} run{'s' if len(left) - len(known) > 1 else ''} not started"
        lines.append(line)
    return "\n".join(lines)


def _duration(seconds: float) -> str:
    """``95`` -> ``'1 min 35 s'``; ``7_500`` -> ``'2 h 5 min'``."""
    s = int(round(seconds))
    if s >= 3600:
        return f"{s // 3600} h {s % 3600 // 60} min"
    if s >= 60:
        return f"{s // 60} min {s % 60} s"
    return f"{s} s"


PIECE_KIND = "evaluation piece"


def _save_piece(path: Path, identity: dict[str, Any], arrays: dict[str, np.ndarray],
                decisions: list[dict[str, int] | None] | None = None) -> None:
    """Write a finished piece (a match chunk, an LBR piece) with what it was played for and a checksum; a match
    chunk also records both agents' decisions by how they were made (:meth:`Agent.decision_counts`)."""
    header: dict[str, Any] = {"identity": identity}
    if decisions is not None:
        header["decisions"] = decisions
    save_checked(path, PIECE_KIND, header, arrays)


def _piece_decisions(path: Path, meta: dict[str, Any]) -> list[dict[str, int] | None]:
    """A match piece's decision counts (A's, B's); [None, None] where a piece predates them."""
    got = meta.get("decisions", [None, None])
    ok = isinstance(got, list) and len(got) == 2 and all(
        c is None or (isinstance(c, dict) and all(isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)
                                                  and v >= 0 for k, v in c.items())) for c in got)
    if not ok:
        raise ExperimentError(f"{path}: its decision counts are not two objects of whole numbers; "
                              "delete it and run again to replay that piece")
    return got


def _load_piece(path: Path, identity: dict[str, Any]) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """A piece written by :func:`_save_piece` for ``identity``: checked whole, played for this experiment, holding
    one finite result a hand (AIVAT estimates NaN where the experiment has ``aivat = false``), with its header;
    ExperimentError naming the file otherwise."""
    try:
        meta, arrays = load_checked(path, PIECE_KIND)
    except CheckpointError as exc:
        raise ExperimentError(f"{exc}; delete it and run again to replay that piece") from None
    expected = json.loads(json.dumps(identity))  # as the header stores it (tuples become lists)
    if meta.get("identity") != expected:
        raise ExperimentError(f"{path} was played for another experiment ({meta.get('identity')}, this one needs "
                              f"{expected}): give another out folder, or delete the file to replay it")
    n = int(identity["hands"])
    names = {"chips", "seconds"} | ({"aivat"} if "aivat" in identity else set())
    if set(arrays) != names:
        raise ExperimentError(f"{path}: holds the arrays {sorted(arrays)}, a piece holds {sorted(names)}; "
                              "delete it and run again to replay that piece")
    for key, a in arrays.items():
        shape_ok = a.shape == (n,) if key != "seconds" else a.shape == ()
        if key == "aivat" and identity["aivat"] is False:  # no AIVAT estimates: NaN, as play_chunk stores them
            values_ok = bool(np.all(np.isnan(a)))
        else:
            values_ok = bool(np.all(np.isfinite(a)))
        if not shape_ok or not values_ok:
            raise ExperimentError(f"{path}: array {key!r} has shape {a.shape} or non-finite values, expected "
                                  f"{n} finite values; delete it and run again to replay that piece")
    return arrays, meta


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)


class _Pool:
    """Runs work pieces in-process (one worker) or as ray tasks."""

    def __init__(self, exp: Experiment) -> None:
        self.ray = None
        if exp.workers > 1 or exp.ray_address:
            from pokerbot.ray_util import share_cores, start_ray

            self.ray = start_ray(exp.ray_address, exp.workers, share_cores(exp.workers))

    def map(self, fn: Any, jobs: list[tuple[Any, tuple]], done: Any) -> None:
        """Call ``fn(*args)`` for each (key, args), then ``done(key, result)`` as each finishes."""
        if self.ray is None:
            for key, args in jobs:
                done(key, fn(*args))
            return
        task = self.ray.remote(num_cpus=1)(fn)
        pending = {task.remote(*args): key for key, args in jobs}
        while pending:
            ready, _ = self.ray.wait(list(pending), num_returns=1)
            ref = ready[0]
            done(pending.pop(ref), self.ray.get(ref))


def run_experiment(exp: Experiment, progress: bool = True, out: Any = None) -> dict[str, Any]:
    """Run (or resume) every piece of ``exp`` and write its tables and plots; returns what was written.

    The output folder is held for the run: a second evaluation into it stops at once (LockedError)."""
    from pokerbot.files import exclusive

    exp.directory.parent.mkdir(parents=True, exist_ok=True)
    with exclusive(exp.directory, "the evaluation folder"):
        return _run_experiment(exp, progress, out)


def _run_experiment(exp: Experiment, progress: bool, out: Any) -> dict[str, Any]:
    from tqdm import tqdm

    from evaluation.plots import (
        plot_cumulative,
        plot_exploitability,
        plot_lbr,
        plot_training_curves,
        plot_win_rates,
    )
    from evaluation.stats import win_rate
    from pokerbot.bots import make_agent
    from pokerbot.gamedef import load_game

    out = out if out is not None else sys.stdout
    game = load_game(exp.game)
    root = exp.directory
    for sub in ("matches", "logs", "lbr", "training"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    atomic_write_text(root / "experiment.json", json.dumps({**exp.__dict__, "lbr": [str(r) for r in exp.lbr],
                                                            "training": [str(t) for t in exp.training]}, indent=1,
                                                           default=str))
    for name, spec in exp.agents.items():  # fail fast on a bad spec, before any work
        make_agent(spec, game, seed=0)
    pool = _Pool(exp)

    # Matches, in resumable chunks.
    jobs = []
    total = 0
    identities: dict[Path, dict[str, Any]] = {}  # what each piece was played for, checked when it is read back
    for (a, b), k, path, identity in _match_pieces(exp):
        n = int(identity["hands"])
        total += n
        identities[path] = identity
        if path.exists():
            continue
        log = str(root / "logs" / f"{_slug(a)}_vs_{_slug(b)}.{k:03d}.log")
        jobs.append((path, (exp.agents[a], exp.agents[b], (a, b), exp.game, n, identity["seed"], exp.duplicate,
                            exp.aivat, log, progress and pool.ray is None and len(exp.pairs()) * len(_chunks(exp)) == 1,
                            exp.value)))
    bar = tqdm(total=total, initial=total - sum(j[1][4] for j in jobs), unit="hand", desc=f"eval {exp.name}",
               disable=not progress, file=sys.stderr, dynamic_ncols=True)

    def saved(path: Path, result: dict[str, Any]) -> None:
        _save_piece(path, identities[path], {"chips": result["chips"], "aivat": result["aivat"],
                                             "seconds": np.asarray(result["seconds"], dtype=np.float64)},
                    result.get("decisions", [None, None]))
        bar.update(len(result["chips"]))

    pool.map(play_chunk, jobs, saved)
    bar.close()
    rows: list[MatchRow] = []
    for a, b in exp.pairs():
        paths = [path for pair, _, path, _ in _match_pieces(exp) if pair == (a, b)]
        loaded = [_load_piece(path, identities[path]) for path in paths]
        parts = [arrays for arrays, _ in loaded]
        counts = [_piece_decisions(path, meta) for path, (_, meta) in zip(paths, loaded)]
        rows.append(MatchRow(a, b, np.concatenate([p["chips"] for p in parts]),
                             np.concatenate([p["aivat"] for p in parts]), float(sum(p["seconds"] for p in parts)),
                             (add_counts(*(c[0] for c in counts)), add_counts(*(c[1] for c in counts)))))

    # LBR runs, in resumable pieces: piece k is hands k * chunk onwards of one long run, so a run can be
    # lengthened later (more hands) and its pieces stay valid.
    lbr_jobs = []
    lbr_total = 0
    for run, path, identity in _lbr_pieces(exp):
        n, first = int(identity["hands"]), int(identity["first_hand"])
        lbr_total += n
        identities[path] = identity
        if path.exists():
            continue
        lbr_jobs.append((path, (exp.agents[run.agent], exp.game, n, exp.seed, run.settings, first)))
    if lbr_jobs:
        print(f"LBR: {sum(j[1][2] for j in lbr_jobs):,} of {lbr_total:,} hands to play", file=out, flush=True)
    lbr_bar = tqdm(total=lbr_total, initial=lbr_total - sum(j[1][2] for j in lbr_jobs), unit="hand",
                   desc=f"LBR {exp.name}", disable=not progress or not lbr_jobs, file=sys.stderr, dynamic_ncols=True)

    def lbr_saved(path: Path, result: dict[str, Any]) -> None:
        _save_piece(path, identities[path], {"chips": result["chips"], "seconds": np.asarray(result["seconds"], dtype=np.float64)})
        lbr_bar.update(len(result["chips"]))

    pool.map(lbr_chunk, lbr_jobs, lbr_saved)
    lbr_bar.close()
    lbr_rows = []
    for run in exp.lbr:
        parts = []
        for first, n in run.pieces():
            path = _lbr_piece_path(root, run, first, n)
            parts.append(_load_piece(path, identities[path])[0])
        lbr_rows.append((run, np.concatenate([p["chips"] for p in parts]), float(sum(p["seconds"] for p in parts))))

    # Training curves.
    curves: Curves = []
    for t in exp.training:
        path = root / "training" / f"{_slug(Path(t.config).stem)}.{t.iterations}.json"
        if not path.exists():
            print(f"training {t.config}: {t.iterations:,} iterations ...", file=out, flush=True)
            atomic_write_text(path, json.dumps(train_curve(t.config, t.iterations, t.eval_every, progress)))
        curves.append((Path(t.config).stem, json.loads(path.read_text())))

    # Tables.
    table = []
    for r in rows:
        plain = win_rate(r.chips, game, pair=exp.duplicate)
        fell = [f"{n} {note}" for n, c in ((r.a, r.decisions[0]), (r.b, r.decisions[1]))
                if (note := fallback_note(c))]
        entry: dict[str, Any] = {"a": r.a, "b": r.b, "hands": plain.hands, "mbb": plain.mbb, "ci95": plain.ci95,
                                 "aivat_mbb": math.nan, "aivat_ci95": math.nan, "std_cut": math.nan,
                                 "seconds": r.seconds, "fallbacks": "; ".join(fell)}
        if exp.aivat:
            av = win_rate(r.aivat, game, pair=exp.duplicate)
            entry.update(aivat_mbb=av.mbb, aivat_ci95=av.ci95, std_cut=1.0 - av.ci95 / plain.ci95 if plain.ci95 else math.nan)
        table.append(entry)
    paired_table = [_paired_entry(p, rows, game, exp) for p in exp.paired]
    lbr_table = []
    for run, chips, seconds in lbr_rows:
        rate = win_rate(chips, game, pair=True)
        entry = {"agent": run.agent, "actions": run.settings.label(), "hands": rate.hands, "mbb": rate.mbb,
                 "ci95": rate.ci95, "seconds": seconds}
        # LBR and the agents draw their random numbers per hand, so runs on the same deals pair hand by hand:
        # each is compared with the first run of the same actions and length (docs/evaluation.md).
        base = next(r for r in lbr_rows if r[0].settings == run.settings and r[0].hands == run.hands)
        if base[0] is not run:
            diff = win_rate(chips - base[1], game, pair=True)
            entry.update(base=base[0].agent, minus_mbb=diff.mbb, minus_ci95=diff.ci95,
                         differ=int(np.count_nonzero(chips != base[1])))
        lbr_table.append(entry)
    written: dict[str, Any] = {"csv": root / "results.csv", "markdown": root / "results.md", "plots": [],
                               "table": table, "paired": paired_table, "lbr": lbr_table}
    _write_csv(written["csv"], table, lbr_table, curves, paired_table)
    atomic_write_text(written["markdown"], _markdown(exp, table, lbr_table, curves, paired_table))
    plots = written["plots"]
    if table:
        plots.append(plot_win_rates(table, root / "win_rates.png", f"{exp.name}: win rates ({game.name})"))
        plots.append(plot_cumulative([(f"{r.a} vs {r.b}", r.chips, r.aivat if exp.aivat else None) for r in rows],
                                     game, root / "cumulative.png", f"{exp.name}: cumulative winnings"))
    if lbr_table:
        plots.append(plot_lbr(lbr_table, root / "lbr.png", f"{exp.name}: LBR winnings (exploitability lower bound)"))
    if curves:
        plots.append(plot_exploitability(curves, root / "exploitability.png", f"{exp.name}: exploitability"))
    snapshot_curves = training_curves(exp, table)
    if snapshot_curves:
        plots.append(plot_training_curves(snapshot_curves, root / "training_curve.png",
                                          f"{exp.name}: blueprint snapshots ({'AIVAT' if exp.aivat else 'chips'})"))
    print(written["markdown"].read_text(), file=out)
    print(f"wrote {written['csv']}, {written['markdown']}, " + ", ".join(str(p) for p in plots), file=out)
    return written


def _paired_entry(pair: Paired, rows: list[MatchRow], game: Any, exp: Experiment) -> dict[str, Any]:
    """The row of one [[paired]] comparison: A's winnings against B minus A''s, hand by hand, plain and AIVAT."""
    from evaluation.stats import win_rate

    a = next(r for r in rows if (r.a, r.b) == (pair.agent, pair.opponent))
    ref = next(r for r in rows if (r.a, r.b) == (pair.reference, pair.opponent))
    plain = win_rate(a.chips - ref.chips, game, pair=exp.duplicate)
    entry: dict[str, Any] = {"agent": pair.agent, "reference": pair.reference, "opponent": pair.opponent,
                             "hands": plain.hands, "mbb": plain.mbb, "ci95": plain.ci95, "aivat_mbb": math.nan,
                             "aivat_ci95": math.nan, "differ": int(np.count_nonzero(a.chips != ref.chips))}
    if exp.aivat:
        av = win_rate(a.aivat - ref.aivat, game, pair=exp.duplicate)
        entry.update(aivat_mbb=av.mbb, aivat_ci95=av.ci95)
    return entry


def training_curves(exp: Experiment, table: list[dict[str, Any]]) -> list[tuple[str, list[tuple[int, float, float]]]]:
    """Matchups whose agent A is a blueprint snapshot (``path=RUN@ITERATION``), as curves per (run, opponent)
    with at least two points: ``(iterations, mbb, ci95)``, AIVAT figures where the experiment has them.

    >>> exp = parse_experiment({"name": "t", "game": "hunl", "hands": 10, "aivat": False,
    ...     "matchups": [["a", "c"], ["b", "c"]],
    ...     "agents": {"a": "blueprint.agent:make_agent?path=big@1000", "b": "blueprint.agent:make_agent?path=big@2000",
    ...                "c": "call"}})
    >>> rows = [{"a": "a", "b": "c", "mbb": 5.0, "ci95": 1.0}, {"a": "b", "b": "c", "mbb": 7.0, "ci95": 1.0}]
    >>> training_curves(exp, rows)
    [('big vs c', [(1000, 5.0, 1.0), (2000, 7.0, 1.0)])]
    """
    import re

    found: dict[str, list[tuple[int, float, float]]] = {}
    for row in table:
        m = re.search(r"path=([^&@]+)@(\d+)", exp.agents.get(row["a"], ""))
        if m is None:
            continue
        mbb, ci = (row["aivat_mbb"], row["aivat_ci95"]) if exp.aivat else (row["mbb"], row["ci95"])
        found.setdefault(f"{m.group(1)} vs {row['b']}", []).append((int(m.group(2)), float(mbb), float(ci)))
    return [(name, sorted(points)) for name, points in found.items() if len(points) >= 2]


def _write_csv(path: Path, table: list[dict[str, Any]], lbr_table: list[dict[str, Any]],
               curves: Curves, paired: Sequence[dict[str, Any]] = ()) -> None:
    with io.StringIO(newline="") as f:
        w = csv.writer(f)
        w.writerow(["kind", "a", "b", "hands", "mbb_per_game", "ci95", "aivat_mbb_per_game", "aivat_ci95",
                    "std_cut", "seconds", "fallbacks"])
        for r in table:
            w.writerow(["match", r["a"], r["b"], r["hands"], f"{r['mbb']:.2f}", f"{r['ci95']:.2f}",
                        f"{r['aivat_mbb']:.2f}", f"{r['aivat_ci95']:.2f}", f"{r['std_cut']:.4f}", f"{r['seconds']:.1f}",
                        r["fallbacks"]])
        for r in paired:  # A's winnings against B minus the reference's, hand by hand
            w.writerow(["match_paired", f"{r['agent']} - {r['reference']}", r["opponent"], r["hands"], f"{r['mbb']:.2f}",
                        f"{r['ci95']:.2f}", f"{r['aivat_mbb']:.2f}", f"{r['aivat_ci95']:.2f}", "", "", ""])
        for r in lbr_table:
            w.writerow(["lbr", f"lbr-{r['actions']}", r["agent"], r["hands"], f"{r['mbb']:.2f}", f"{r['ci95']:.2f}",
                        "", "", "", f"{r['seconds']:.1f}"])
            if "base" in r:  # LBR's winnings against this agent minus against the first run's, hand by hand
                w.writerow(["lbr_paired", f"lbr-{r['actions']}", f"{r['agent']} - {r['base']}", r["hands"],
                            f"{r['minus_mbb']:.2f}", f"{r['minus_ci95']:.2f}", "", "", "", ""])
        for name, curve in curves:
            for it, value in curve:
                w.writerow(["exploitability", name, it, "", f"{value:.4f}", "", "", "", "", ""])
        atomic_write_text(path, f.getvalue())


def _markdown(exp: Experiment, table: list[dict[str, Any]], lbr_table: list[dict[str, Any]],
              curves: Curves, paired: Sequence[dict[str, Any]] = ()) -> str:
    lines = [f"# Evaluation: {exp.name}", "",
             f"Game {exp.game}, seed {exp.seed}, {'duplicate ' if exp.duplicate else ''}hands; "
             "mbb/g of A against B with 95% confidence intervals"
             + (" (over duplicate pairs)" if exp.duplicate else "") + ".", ""]
    if table:
        lines += ["| A | B | hands | mbb/g | 95% CI | AIVAT mbb/g | AIVAT 95% CI | CI cut | time (s) |",
                  "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
        for r in table:
            av = "–" if math.isnan(r["aivat_mbb"]) else f"{r['aivat_mbb']:+.1f}"
            ac = "–" if math.isnan(r["aivat_ci95"]) else f"± {r['aivat_ci95']:.1f}"
            cut = "–" if math.isnan(r["std_cut"]) else f"{100 * r['std_cut']:.0f}%"
            lines.append(f"| {r['a']} | {r['b']} | {r['hands']} | {r['mbb']:+.1f} | ± {r['ci95']:.1f} | {av} | {ac} | "
                         f"{cut} | {r['seconds']:.0f} |")
        lines.append("")
        fell = [r for r in table if r["fallbacks"]]
        if fell:
            lines += ["**Fallbacks**: some decisions above were the blueprint's, not the agent's own "
                      "(its solve ran out of time):", ""]
            lines += [f"- {r['a']} vs {r['b']}: {r['fallbacks']}" for r in fell]
            lines.append("")
    if paired:
        lines += ["Paired on the same deals and random numbers: A's winnings against B minus the reference's, hand "
                  "by hand (the reference playing B's strategy, this is A's win rate with a smaller variance).", "",
                  "| A | minus | against B | hands | mbb/g | 95% CI | AIVAT mbb/g | AIVAT 95% CI | hands with other chips |",
                  "|---|---|---|---:|---:|---:|---:|---:|---:|"]
        for r in paired:
            av = "–" if math.isnan(r["aivat_mbb"]) else f"{r['aivat_mbb']:+.1f}"
            ac = "–" if math.isnan(r["aivat_ci95"]) else f"± {r['aivat_ci95']:.1f}"
            lines.append(f"| {r['agent']} | {r['reference']} | {r['opponent']} | {r['hands']} | {r['mbb']:+.1f} | "
                         f"± {r['ci95']:.1f} | {av} | {ac} | {r['differ']} |")
        lines.append("")
    if lbr_table:
        lines += ["## Local best response", "", "LBR's winnings (a lower bound on exploitability; positive: the agent loses).", "",
                  "| agent | LBR actions | hands | LBR mbb/g | 95% CI | time (s) |", "|---|---|---:|---:|---:|---:|"]
        for r in lbr_table:
            lines.append(f"| {r['agent']} | {r['actions']} | {r['hands']} | {r['mbb']:+.1f} | ± {r['ci95']:.1f} | "
                         f"{r['seconds']:.0f} |")
        lines.append("")
        paired = [r for r in lbr_table if "base" in r]
        if paired:
            lines += ["Paired on the same deals and random numbers: LBR's winnings against the agent minus against "
                      "the first agent with the same LBR actions and hands.", "",
                      "| agent | minus | LBR actions | hands | mbb/g | 95% CI | hands that differ |",
                      "|---|---|---|---:|---:|---:|---:|"]
            for r in paired:
                lines.append(f"| {r['agent']} | {r['base']} | {r['actions']} | {r['hands']} | {r['minus_mbb']:+.1f} | "
                             f"± {r['minus_ci95']:.1f} | {r['differ']} |")
            lines.append("")
    if curves:
        lines += ["## Training", "", "| run | iterations | exploitability (mbb/g) |", "|---|---:|---:|"]
        for name, curve in curves:
            if curve:
                lines.append(f"| {name} | {curve[-1][0]:,} | {curve[-1][1]:.2f} |")
        lines.append("")
    return "\n".join(lines)
