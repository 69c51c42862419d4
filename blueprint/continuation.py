"""Continuation strategies for depth-limited solving (Modicum, section 4), built offline.

At a depth-limited leaf a player picks one of K continuation strategies for the rest
of the game. Two ways to make the set:

* **bias** (:func:`bias_strategies`): the blueprint itself, then copies whose fold,
  call or raise probabilities are multiplied by ``factor`` (10 in the paper) and
  renormalised -- K <= 4, in that order. Works on any :class:`~blueprint.model.Blueprint`
  (abstract game, card buckets).
* **self-generative** (:func:`self_generative`): start from {blueprint}; repeatedly
  solve the depth-limited game rooted at the start of the game (leaves at the end of
  round 1) with the current set, take the opponent's best response to (that solution
  inside, blueprint beyond) and add it. A generated strategy that does better than the
  blueprint against the blueprint is *weakened*: its leaf values are lowered uniformly
  by the excess (``penalties``). This one works on whole-game strategy arrays of the
  solver's exact trees (small games: no-limit Leduc, small-deck flop hold'em), where
  best responses are exact.

A set is stored next to its blueprint under ``$POKERBOT_HOME/leaves/<name>/``: a
``manifest.json`` (method, factor, K, the blueprint's tree signature, one SHA-256 per
file) and one ``strategy_<k>.npy`` per strategy at one byte per infoset action
(probabilities x 255, renormalised on load, as in the paper's appendix A).
:func:`load_set` raises :class:`ContinuationError` for a set built for another
blueprint, a corrupt or missing file, or K = 0.

>>> from pokerbot.gamedef import load_game
>>> from blueprint.abstract_game import AbstractGame
>>> tree = AbstractGame.build(load_game("kuhn"), (3,))
>>> bp = np.full(tree.num_slots, 0.5)
>>> [round(float(x), 3) for x in bias_strategies(tree, bp, 10.0, 4)[3][:2]]   # raise-biased
[0.091, 0.909]
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit, prange

from blueprint.abstract_game import DECISION, AbstractGame
from pokerbot.errors import CheckpointError, PokerbotError
from pokerbot.files import atomic_write_text, plain_name, pokerbot_home
from pokerbot.npz import read_npy, write_npy
from pokerbot.state import ActionType

#: The order of the bias set: the blueprint, then fold-, call- and raise-biased copies.
BIAS_KINDS: tuple[ActionType | None, ...] = (None, ActionType.FOLD, ActionType.CALL, ActionType.RAISE)


class ContinuationError(CheckpointError):
    """A continuation set that cannot be used: built for another blueprint, corrupt, or empty (K = 0)."""


def check_count(k: int, most: int | None = None) -> int:
    """``k`` if it is a usable number of continuation strategies, else :class:`ContinuationError`."""
    if int(k) < 1:
        raise ContinuationError(f"a continuation set needs K >= 1 strategies (the blueprint at least), got K = {k}")
    if most is not None and int(k) > most:
        raise ContinuationError(f"the bias method makes at most {most} strategies, got K = {k}")
    return int(k)


# --- bias --------------------------------------------------------------------------------


class BiasedStrategy:
    """A bias-set strategy read lazily: ``base``'s rows with the probabilities of ``kind`` actions multiplied by
    ``factor`` and renormalised (a row of zeros reads uniform), computed at each read.

    It indexes like the 1-D float64 array of the blueprint's slots it stands for (an int, a slice,
    an integer or boolean array) and ``np.asarray`` materialises it, so a K = 4 set costs no memory
    beyond the blueprint (four float64 copies of a 298 M-slot ``hunl-large`` blueprint are 9.5 GB).
    Reads are vectorised over the indices: rollouts and probes read a few thousand slots.

    >>> from pokerbot.gamedef import load_game
    >>> from blueprint.abstract_game import AbstractGame
    >>> tree = AbstractGame.build(load_game("kuhn"), (3,))
    >>> view = BiasedStrategy(tree, np.full(tree.num_slots, 0.5), ActionType.RAISE, 10.0)
    >>> [round(float(x), 3) for x in view[:2]], view.shape == (tree.num_slots,)
    ([0.091, 0.909], True)
    """

    dtype = np.dtype(np.float64)
    ndim = 1

    def __init__(self, tree: AbstractGame, base: np.ndarray, kind: ActionType, factor: float) -> None:
        if not factor > 0:
            raise PokerbotError(f"the bias factor must be positive, got {factor}")
        base = np.asarray(base)
        if base.shape != (tree.num_slots,):
            raise PokerbotError(f"a strategy of {base.shape} entries does not fit the tree's {tree.num_slots} slots")
        self.tree = tree
        self.base = base
        self.kind = kind
        self.factor = float(factor)
        self.shape = (int(tree.num_slots),)
        decision = np.nonzero(tree.kind == DECISION)[0]
        self._nodes = decision[np.argsort(tree.base[decision], kind="stable")]
        self._starts = tree.base[self._nodes].astype(np.int64)

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, index: Any) -> Any:
        n = self.shape[0]
        if isinstance(index, slice):
            return self._read(np.arange(*index.indices(n), dtype=np.int64))
        arr = np.asarray(index)
        if arr.dtype == np.bool_:
            if arr.shape != self.shape:
                raise IndexError(f"a boolean index of shape {arr.shape} for a strategy of {n} slots")
            return self._read(np.nonzero(arr)[0].astype(np.int64))
        if not np.issubdtype(arr.dtype, np.integer):
            raise IndexError(f"strategy slots are indexed by integers, slices or booleans, not {arr.dtype}")
        flat = arr.astype(np.int64).ravel()
        if flat.size and (flat.min() < -n or flat.max() >= n):
            raise IndexError(f"slot index out of range for a strategy of {n} slots")
        out = self._read(np.where(flat < 0, flat + n, flat)).reshape(arr.shape)
        return float(out) if arr.ndim == 0 else out

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        out = np.empty(self.shape[0], dtype=np.float64)
        step = 1 << 20
        for lo in range(0, self.shape[0], step):
            out[lo : lo + step] = self._read(np.arange(lo, min(lo + step, self.shape[0]), dtype=np.int64))
        return out if dtype is None else out.astype(dtype, copy=False)

    def _read(self, idx: np.ndarray) -> np.ndarray:
        """The biased probabilities at slots ``idx`` (int64, in range)."""
        tree = self.tree
        out = np.empty(len(idx), dtype=np.float64)
        _biased_read(self._starts, self._nodes.astype(np.int64), tree.num_actions, tree.first_child, tree.action_kind,
                     self.base, int(self.kind), self.factor, np.ascontiguousarray(idx), out)
        return out


@njit(cache=True, parallel=True)
def _biased_read(starts, nodes, num_actions, first_child, action_kind, base, kind, factor, idx, out):
    """out[i] = the biased probability at slot idx[i]: its row's entries, ``kind`` ones x factor, renormalised
    (in action order, as a row-by-row bias sums them; uniform for a row of zeros)."""
    for i in prange(idx.shape[0]):
        slot = idx[i]
        lo = 0
        hi = starts.shape[0] - 1
        while lo < hi:  # the last decision node whose slots start at or before ``slot``
            mid = (lo + hi + 1) // 2
            if starts[mid] <= slot:
                lo = mid
            else:
                hi = mid - 1
        node = nodes[lo]
        a_n = num_actions[node]
        row = starts[lo] + (slot - starts[lo]) // a_n * a_n
        f = first_child[node]
        total = 0.0
        own = 0.0
        for j in range(a_n):
            v = np.float64(base[row + j])
            if action_kind[f + j] == kind:
                v *= factor
            total += v
            if row + j == slot:
                own = v
        out[i] = own / total if total > 0 else 1.0 / a_n


#: A strategy over a blueprint's slots: an array, or a :class:`BiasedStrategy` read lazily.
StrategyArray = np.ndarray | BiasedStrategy


def as_strategy(strategy: Any) -> StrategyArray:
    """``strategy`` as an array of slots: a float array or a :class:`BiasedStrategy` as it is (a float32
    blueprint is not copied to float64, a view not materialised), anything else as float64."""
    if isinstance(strategy, BiasedStrategy) or (isinstance(strategy, np.ndarray) and strategy.dtype.kind == "f"):
        return strategy
    return np.asarray(strategy, dtype=np.float64)


def biased_strategy(tree: AbstractGame, strategy: np.ndarray, kind: ActionType, factor: float) -> np.ndarray:
    """``strategy`` with the probabilities of ``kind`` actions multiplied by ``factor`` and renormalised
    at every information set (``strategy[base + bucket * A + a]``, as in a Blueprint): a
    :class:`BiasedStrategy`, materialised."""
    return np.asarray(BiasedStrategy(tree, strategy, kind, factor))


def bias_views(tree: AbstractGame, strategy: np.ndarray, factor: float = 10.0, k: int = 4) -> list[StrategyArray]:
    """The first ``k`` of: the blueprint (``strategy`` itself, not a copy), then fold-, call- and
    raise-biased :class:`BiasedStrategy` views (``factor``): the bias set without its memory."""
    check_count(k, len(BIAS_KINDS))
    if not factor > 0:
        raise PokerbotError(f"the bias factor must be positive, got {factor}")
    out: list[StrategyArray] = [strategy]
    for kind in BIAS_KINDS[1:k]:
        assert kind is not None
        out.append(BiasedStrategy(tree, strategy, kind, factor))
    return out


def bias_strategies(tree: AbstractGame, strategy: np.ndarray, factor: float = 10.0, k: int = 4) -> list[np.ndarray]:
    """The first ``k`` of: the blueprint, fold-, call-, raise-biased (``factor``) copies (float64 arrays:
    :func:`bias_views` materialised)."""
    return [np.array(v, dtype=np.float64) for v in bias_views(tree, strategy, factor, k)]


# --- self-generative (exact, small games) --------------------------------------------------


@dataclass
class GeneratedSet:
    """Continuation strategies of one player on a whole-game solver tree, with weakening penalties (chips)."""

    strategies: list[np.ndarray]
    penalties: list[float]
    chooser: int
    #: Per strategy: the pair tables ``(leaves, H0, H1)`` of player 0's payoff at the depth-limited
    #: tree's continuation leaves (the other seat on the blueprint), penalty included.
    tables: list[np.ndarray]


def self_generative(
    game: Any,
    menu: Any,
    blueprint: np.ndarray,
    k: int,
    chooser: int,
    *,
    iterations: int = 300,
    weaken: bool = True,
    full_tree: Any = None,
    dl_tree: Any = None,
    progress: Callable[[int], None] | None = None,
    start: Sequence[tuple[np.ndarray, float]] = (),
    stored: bool = False,
    on_strategy: Callable[[int, np.ndarray, float], None] | None = None,
) -> GeneratedSet:
    """Grow ``chooser``'s continuation set from {``blueprint``} to ``k`` strategies (section 4).

    ``blueprint`` is a strategy array of ``build_tree(game, menu)``. Each step solves
    the depth-limited game (end of round 1, DCFR ``iterations``) with the other seat on
    the blueprint beyond the leaves and ``chooser`` picking among the set, then adds
    ``chooser``'s exact best response to (that solution, blueprint beyond). With
    ``weaken``, a new strategy whose value against the blueprint exceeds the blueprint's
    own gets that excess as its penalty. ``progress(i)`` is called after each strategy.

    ``start``: ``(strategy, penalty)`` of generated strategies already made (after the
    blueprint, in order), to go on from (a resumed build). ``stored``: each new strategy
    is rounded to its stored form (:func:`stored_strategy`, one byte per infoset action)
    before its penalty and its leaf values are computed, so the set is exactly what a
    reader of the stored set gets and a build resumed from the files continues as an
    unbroken one would. ``on_strategy(i, strategy, penalty)`` is called for each new
    strategy (``i`` >= 1) as made, before that rounding: :func:`write_strategy` stores it as
    the bytes whose reading is the strategy the set goes on with (rounding the rounded
    strategy again would not always give the same bytes, as rows are renormalised).
    """
    from pokerbot.solver import Solver, build_tree, expected_value
    from pokerbot.solver.best_response import best_response_strategy
    from pokerbot.solver.leaf_tables import (
        PairTableEvaluator,
        combine,
        continuation_tables,
        embed_strategy,
        leaf_nodes_in_full_tree,
    )

    check_count(k)
    full = full_tree if full_tree is not None else build_tree(game, menu)
    dl = dl_tree if dl_tree is not None else build_tree(game, menu, depth_limit=0)
    nodes = leaf_nodes_in_full_tree(dl, full)
    seat = 1 - chooser
    sign = 1.0 if chooser == 0 else -1.0
    base_value = sign * expected_value(full, blueprint)
    strategies = [np.array(blueprint, dtype=np.float64)]
    penalties = [0.0]
    tables: list[np.ndarray] = []

    def table(strat: np.ndarray, penalty: float) -> np.ndarray:
        s0, s1 = (strat, blueprint) if chooser == 0 else (blueprint, strat)
        return continuation_tables(full, nodes, s0, s1, -sign * penalty)

    tables.append(table(blueprint, 0.0))
    if len(start) >= k:
        raise ContinuationError(f"the start set already has {len(start) + 1} strategies, K = {k} asked")
    for strat, penalty in start:
        strategies.append(np.array(strat, dtype=np.float64))
        penalties.append(float(penalty))
        tables.append(table(strategies[-1], penalties[-1]))
    if progress is not None:
        progress(len(strategies))
    while len(strategies) < k:
        stacked = np.stack(tables, axis=1)  # (L, K, H0, H1)
        stacked = stacked[:, :, None] if chooser == 0 else stacked[:, None]  # (L, K, 1, ...) / (L, 1, K, ...)
        ev = PairTableEvaluator(stacked)
        solver = Solver(dl, "dcfr", leaves=ev)
        solver.run(iterations)
        glued = embed_strategy(dl, solver.average_strategy(), full, blueprint, players=(seat,))
        made = best_response_strategy(full, glued, chooser)
        br = stored_strategy(full, made) if stored else made
        # Its value against the blueprint everywhere (the other seat's part from the blueprint).
        both = combine(full, br, blueprint) if chooser == 0 else combine(full, blueprint, br)
        excess = sign * expected_value(full, both) - base_value
        penalty = max(0.0, excess) if weaken else 0.0
        strategies.append(br)
        penalties.append(penalty)
        tables.append(table(br, penalty))
        if on_strategy is not None:
            on_strategy(len(strategies) - 1, made, penalty)
        if progress is not None:
            progress(len(strategies))
    return GeneratedSet(strategies, penalties, chooser, tables)


# --- storage -------------------------------------------------------------------------------


def leaves_dir(name: str) -> Path:
    """Where the continuation set ``name`` lives: ``$POKERBOT_HOME/leaves/<name>``."""
    return pokerbot_home() / "leaves" / plain_name(name, "continuation set name")


def quantize(strategy: np.ndarray) -> np.ndarray:
    """One byte per infoset action: round(probability x 255)."""
    return np.clip(np.rint(np.asarray(strategy, dtype=np.float64) * 255.0), 0, 255).astype(np.uint8)


def _renormalise(block: np.ndarray, axis: int) -> np.ndarray:
    """``block`` with its rows along ``axis`` summing to 1 (uniform where a row is all zero)."""
    total = block.sum(axis=axis, keepdims=True)
    return np.where(total > 0, block / np.where(total > 0, total, 1.0), 1.0 / block.shape[axis])


def dequantize(tree: AbstractGame, q: np.ndarray) -> np.ndarray:
    """Probabilities from :func:`quantize` output, renormalised per information set (uniform if all zero)."""
    out = q.astype(np.float32) / 255.0
    for n in np.nonzero(tree.kind == DECISION)[0]:
        a_n = int(tree.num_actions[n])
        nb = tree.num_buckets[int(tree.round[n])]
        base = int(tree.base[n])
        out[base : base + nb * a_n] = _renormalise(out[base : base + nb * a_n].reshape(nb, a_n), 1).ravel()
    return out


def dequantize_solver(tree: Any, q: np.ndarray) -> np.ndarray:
    """:func:`dequantize` for a strategy array of a solver tree (:class:`~pokerbot.solver.tree.PublicTree`:
    per decision node, ``num_children`` blocks of one probability per hand); float64, as the solver needs."""
    from pokerbot.betting_tree import DECISION as SOLVER_DECISION

    out = q.astype(np.float64) / 255.0
    for n in np.nonzero(tree.kind == SOLVER_DECISION)[0]:
        a_n = int(tree.num_children[n])
        size = a_n * tree.num_hands[int(tree.player[n])]
        slot = int(tree.slot[n])
        out[slot : slot + size] = _renormalise(out[slot : slot + size].reshape(a_n, -1), 0).ravel()
    return out


def stored_strategy(tree: Any, strategy: np.ndarray) -> np.ndarray:
    """What a solver-tree strategy reads back as once stored at one byte per infoset action."""
    return dequantize_solver(tree, quantize(strategy))


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass
class ContinuationSet:
    """K continuation strategies of one blueprint (float32 arrays over the blueprint's slots)."""

    name: str
    blueprint_signature: str
    method: str
    factor: float
    strategies: list[np.ndarray]
    penalties: list[float]
    #: The seat that picks among the strategies (self-generative sets; None for a bias set).
    chooser: int | None = None

    @property
    def k(self) -> int:
        return len(self.strategies)


def write_strategy(directory: Path, index: int, strategy: np.ndarray) -> str:
    """Atomically write ``strategy_<index>.npy`` (one byte per infoset action); returns its SHA-256."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"strategy_{index}.npy"
    write_npy(path, quantize(strategy))
    return _digest(path)


def write_manifest(directory: Path, manifest: dict[str, Any]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    atomic_write_text(directory / "manifest.json", json.dumps(manifest, indent=2, sort_keys=True))


def read_manifest(directory: Path) -> dict[str, Any]:
    path = directory / "manifest.json"
    try:
        manifest = json.loads(path.read_text())
    except FileNotFoundError:
        raise ContinuationError(f"{directory}: no continuation set here (no manifest.json)") from None
    except (OSError, ValueError) as exc:  # ValueError: not JSON, or not UTF-8 text
        raise ContinuationError(f"{path}: corrupt manifest ({exc})") from None
    if not isinstance(manifest, dict):
        raise ContinuationError(f"{path}: corrupt manifest (not a JSON object)")
    return manifest


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def load_set(directory: str | Path, tree: Any, signature: str) -> ContinuationSet:
    """Load a continuation set for the blueprint whose tree is ``tree`` (signature ``signature``).

    ``tree`` is the blueprint's :class:`~blueprint.abstract_game.AbstractGame` (bias sets,
    float32 strategies) or, for a self-generative set of a small game, the whole-game
    solver tree (signature :func:`~pokerbot.solver.leaf_tables.tree_fingerprint`,
    float64 strategies). Raises :class:`ContinuationError` if the set was built for another blueprint, is
    unfinished, has K = 0, or a strategy file is missing, corrupt or the wrong size.
    """
    directory = Path(directory)
    m = read_manifest(directory)
    if m.get("blueprint_signature") != signature:
        raise ContinuationError(
            f"{directory}: continuation set was built for another blueprint "
            f"(signature {m.get('blueprint_signature')!r}, this blueprint {signature!r})"
        )
    k, files, penalties, factor, chooser = (m.get("k", 0), m.get("files", {}), m.get("penalties"), m.get("factor", 0.0),
                                            m.get("chooser"))
    if penalties is None and isinstance(k, int):
        penalties = [0.0] * k
    if (not isinstance(k, int) or isinstance(k, bool) or not isinstance(files, dict)
            or not all(isinstance(v, str) for v in files.values()) or not isinstance(penalties, list)
            or not all(_number(p) for p in penalties) or not _number(factor) or chooser not in (None, 0, 1)
            or not isinstance(m.get("name", ""), str) or not isinstance(m.get("method"), str)):
        raise ContinuationError(f"{directory / 'manifest.json'}: corrupt manifest (k, files, penalties, factor, "
                                "chooser, name or method of the wrong kind)")
    try:
        check_count(k)
    except ContinuationError as exc:
        raise ContinuationError(f"{directory}: {exc}") from None
    strategies = []
    for i in range(k):
        path = directory / f"strategy_{i}.npy"
        if str(i) not in files or not path.is_file():
            raise ContinuationError(f"{directory}: strategy {i} of {k} is missing (run `pokerbot leaves build` to finish)")
        if _digest(path) != files[str(i)]:
            raise ContinuationError(f"{path}: checksum mismatch, the continuation table is corrupt")
        try:
            q = read_npy(path)
        except (OSError, ValueError) as exc:
            raise ContinuationError(f"{path}: unreadable continuation table ({exc})") from None
        if q.dtype != np.uint8 or q.shape != (tree.num_slots,):
            raise ContinuationError(f"{path}: {q.dtype} table of shape {q.shape}, the blueprint needs uint8 ({tree.num_slots},)")
        strategies.append(dequantize(tree, q) if isinstance(tree, AbstractGame) else dequantize_solver(tree, q))
    penalties = [float(x) for x in penalties][:k]
    if len(penalties) != k:
        raise ContinuationError(f"{directory}: the manifest has {len(penalties)} penalties for K = {k} strategies")
    return ContinuationSet(m.get("name", directory.name), signature, m["method"], float(factor), strategies, penalties,
                           chooser)


def _resume_manifest(directory: Path, manifest: dict[str, Any], same: Sequence[str]) -> dict[str, Any]:
    """``manifest`` with the files already written in ``directory`` (a set being resumed), or
    :class:`ContinuationError` if the set there was built with other ``same`` settings."""
    if (directory / "manifest.json").exists():
        old = read_manifest(directory)
        for key in same:
            if old.get(key) != manifest[key]:
                raise ContinuationError(
                    f"{directory}: holds a set with {key} = {old.get(key)!r}, this build asks {manifest[key]!r}; "
                    "delete the directory to rebuild"
                )
        manifest["files"] = dict(old.get("files", {}))
        if "penalties" in old and manifest["method"] != "bias":
            manifest["penalties"] = list(old["penalties"])
    return manifest


def _written(directory: Path, manifest: dict[str, Any], i: int) -> bool:
    """Whether strategy ``i`` is on disk and matches its checksum in ``manifest``."""
    path = directory / f"strategy_{i}.npy"
    return str(i) in manifest["files"] and path.is_file() and _digest(path) == manifest["files"][str(i)]


def build_bias_set(
    directory: str | Path,
    name: str,
    tree: AbstractGame,
    strategy: np.ndarray,
    signature: str,
    k: int = 4,
    factor: float = 10.0,
    progress: Callable[[int], None] | None = None,
    source: dict[str, Any] | None = None,
) -> ContinuationSet:
    """Build (or finish: strategies already written are kept) a bias set in ``directory``.

    A directory holding a set for another blueprint or other options is refused with
    :class:`ContinuationError` (delete it to rebuild).
    """
    check_count(k, len(BIAS_KINDS))
    directory = Path(directory)
    manifest: dict[str, Any] = {"name": name, "method": "bias", "factor": float(factor), "k": int(k),
                "blueprint_signature": signature, "penalties": [0.0] * k, "files": {}, "source": source or {}}
    _resume_manifest(directory, manifest, ("method", "factor", "k", "blueprint_signature"))
    for i, kind in enumerate(BIAS_KINDS[:k]):
        if _written(directory, manifest, i):
            if progress is not None:
                progress(i + 1)
            continue  # resume: already built
        s = strategy if kind is None else biased_strategy(tree, strategy, kind, factor)
        manifest["files"][str(i)] = write_strategy(directory, i, s)
        write_manifest(directory, manifest)
        if progress is not None:
            progress(i + 1)
    write_manifest(directory, manifest)
    return load_set(directory, tree, signature)


#: The most (hole-card combination x board) pairs of a game that self-generation handles exactly:
#: nlfh-small has 153 x 560 = 85,680, heads-up no-limit hold'em ~5.6e10.
MAX_EXACT_DEALS = 2_000_000


def check_small_game(game: Any) -> None:
    """:class:`ContinuationError` unless ``game`` is small enough for exact self-generation (whole-game
    solver trees, exact best responses): leduc-nl, nlfh-small yes; HUNL no (build a bias set there)."""
    from math import comb

    deck = len(game.deck())
    deals = comb(deck, game.num_hole_cards)
    left = deck - game.num_hole_cards
    for n in game.num_board_cards:
        deals *= comb(left, n)
        left -= n
    if deals > MAX_EXACT_DEALS:
        raise ContinuationError(
            f"game {game.name or 'game'} is too large for exact self-generation ({deals:.3g} hand x board deals, "
            f"at most {MAX_EXACT_DEALS:,}); use method = \"bias\" on its blueprint"
        )


def build_generated_set(
    directory: str | Path,
    name: str,
    game: Any,
    menu: Any,
    blueprint: np.ndarray,
    k: int,
    chooser: int,
    *,
    iterations: int = 300,
    weaken: bool = True,
    full_tree: Any = None,
    dl_tree: Any = None,
    progress: Callable[[int], None] | None = None,
    source: dict[str, Any] | None = None,
) -> ContinuationSet:
    """Build (or finish) ``chooser``'s self-generative set (:func:`self_generative`) in ``directory``.

    Strategy 0 is ``blueprint``; each generated strategy is written as it is made
    (``strategy_<i>.npy``, one byte per infoset action; its penalty in the manifest), and a
    build that finds strategies already written goes on from them (``start``), so it
    ends with the same set as an unbroken build. A directory holding a set of another
    game, menu, blueprint, chooser or settings is refused with :class:`ContinuationError`.
    Load the result with ``load_set(directory, full_tree, tree_fingerprint(full_tree))``.
    """
    from pokerbot.menus import menu_spec
    from pokerbot.solver import build_tree
    from pokerbot.solver.leaf_tables import tree_fingerprint

    check_count(k)
    check_small_game(game)
    if chooser not in (0, 1):
        raise ContinuationError(f"the chooser is seat 0 or 1, got {chooser!r}")
    directory = Path(directory)
    full = full_tree if full_tree is not None else build_tree(game, menu)
    signature = tree_fingerprint(full)
    bp = np.asarray(blueprint, dtype=np.float64)
    if bp.shape != (full.num_slots,):
        raise ContinuationError(f"the blueprint has shape {bp.shape}, the game's tree needs ({full.num_slots},)")
    manifest: dict[str, Any] = {
        "name": name, "method": "self-generative", "game": game.name, "menu": menu_spec(menu) or repr(menu),
        "k": int(k), "chooser": int(chooser), "iterations": int(iterations), "weaken": bool(weaken),
        "blueprint_signature": signature, "blueprint_sha256": hashlib.sha256(bp.tobytes()).hexdigest(),
        "penalties": [0.0], "files": {}, "source": source or {},
    }
    _resume_manifest(directory, manifest, ("method", "game", "menu", "chooser", "iterations", "weaken",
                                           "blueprint_signature", "blueprint_sha256"))
    if not _written(directory, manifest, 0):
        manifest["files"] = {"0": write_strategy(directory, 0, bp)}
        manifest["penalties"] = [0.0]
    # Resume from the unbroken run of strategies already written (later ones are made again).
    done = 1
    while done < k and _written(directory, manifest, done) and done < len(manifest["penalties"]):
        done += 1
    manifest["files"] = {str(i): manifest["files"][str(i)] for i in range(done)}
    manifest["penalties"] = [float(x) for x in manifest["penalties"][:done]]
    write_manifest(directory, manifest)
    start = [(dequantize_solver(full, np.load(directory / f"strategy_{i}.npy")), manifest["penalties"][i])
             for i in range(1, done)]

    def keep(i: int, strategy: np.ndarray, penalty: float) -> None:
        manifest["files"][str(i)] = write_strategy(directory, i, strategy)
        manifest["penalties"].append(float(penalty))
        write_manifest(directory, manifest)

    if done < k:
        self_generative(game, menu, bp, k, chooser, iterations=iterations, weaken=weaken, full_tree=full,
                        dl_tree=dl_tree, progress=progress, start=start, stored=True, on_strategy=keep)
    elif progress is not None:
        progress(k)
    return load_set(directory, full, signature)
