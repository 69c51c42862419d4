"""Postflop spots: a board, a pot, a stack, two ranges and bet sizes, solved to a target.

A :class:`Spot` describes the game a PioSOLVER or TexasSolver user types in: the
board (flop, turn or river), the pot and the effective stack behind (chips), each
player's range as a Pio-style string (:mod:`pokerbot.ranges`), and the bet and raise
sizes per street in the usual notation:

* ``50%`` a bet or raise of half the pot (a raise's pot is the pot after calling, as
  in TexasSolver and the rest of this project);
* ``2.5x`` a raise to 2.5 times the bet it faces (street totals: facing a bet of 100,
  a raise to 250); for an opening bet ``x`` is not a size;
* ``a`` all-in.

``max_raises`` caps the raises after the opening bet of a street (3: a bet and three
raises, TexasSolver's fixed cap); ``allin_threshold`` turns a bet or raise that would
commit at least that share of the bettor's remaining stack into all-in (``None``
keeps every size). Player 0 is out of position (first to act on every street), player
1 in position. Hands with zero weight never enter the solve: each player's hand list
is its range's support (off the board). Turn and river cards that a suit permutation
fixing the board and both ranges maps onto each other are solved once (suit isomorphism:
a two-tone flop such as QsJh2h deals 36 turn subtrees instead of 49); the solution's
nodes hold the lowest card of each such class.

:meth:`Spot.solve` runs DCFR (float32, both cores) until the exploitability falls to
``target`` percent of the pot or ``iterations`` run out, and returns a
:class:`SpotSolution`: strategies per hand at every decision node, EV and equity per
hand at the root, and a JSON file (:meth:`SpotSolution.save`; the format is in
``docs/solver.md``). ``locks`` fixes the strategy of chosen nodes (node locking): the
rest of the tree is solved against them.

>>> spot = Spot(board="Ks9h4c7d2s", pot=100, stack=200, oop="AA,KK,72o", ip="AKs,QQ", bets="100%", raises="a")
>>> sol = spot.solve(target=0.1, iterations=2000, progress=False)
>>> sol.exploitability_pct <= 0.1, sol.root_actions(), sol.action_labels(sol.find("b100"))
(True, ['x', 'b100'], ['f', 'c', 'a200'])
>>> abs(sol.ev[0] + sol.ev[1]) < 1e-4  # zero-sum: what one wins the other loses
True
>>> Spot(board="Ks9h4c7dKs", pot=100, stack=100, oop="AA", ip="QQ")
Traceback (most recent call last):
...
pokerbot.solver.spot.SpotError: board 'Ks9h4c7dKs': card Ks appears twice
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from numba import njit

from pokerbot.actions import ActionType, action_from_text, betting_text
from pokerbot.cards import format_card, format_cards, parse_cards
from pokerbot.errors import CardError, SolverError
from pokerbot.gamedef import GameDef, load_game
from pokerbot.ranges import HANDS, RangeError, parse_range
from pokerbot.resources import MEMORY_FRACTION, available_memory
from pokerbot.solver import kernels as K
from pokerbot.solver import payoffs
from pokerbot.solver.cfr import COMPRESSED, Solver
from pokerbot.solver.navigate import node_state
from pokerbot.solver.tree import PublicTree, build_tree
from pokerbot.state import CALL, FOLD, Action, State, raise_to

__all__ = ["SPOT_FORMAT", "Spot", "SpotError", "SpotSolution", "parse_sizes"]

#: The ``format`` field of a spot solution file.
SPOT_FORMAT = "pokerbot-spot/1"

STREETS = ("flop", "turn", "river")
#: The largest pot or stack a spot takes (chips; scale the units down beyond).
MAX_CHIPS = 10**9

#: Chips of the game as a number or per hand (:meth:`SpotSolution.chips`).
_Chips = TypeVar("_Chips", float, np.ndarray)
_ROUND_OF = {3: 1, 4: 2, 5: 3}  # board cards -> HUNL round


class SpotError(SolverError):
    """A spot that cannot be built or solved: the message names the bad field."""


# --- sizes ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Size:
    """One bet or raise size: ``kind`` is ``"pot"`` (fraction of the pot), ``"x"`` (multiple of the bet
    faced) or ``"allin"``."""

    kind: str
    value: float = 0.0

    def text(self) -> str:
        if self.kind == "allin":
            return "a"
        if self.kind == "x":
            return f"{self.value:g}x"
        return f"{self.value * 100:g}%"


def parse_sizes(text: str | Sequence[str], what: str = "sizes") -> tuple[Size, ...]:
    """Sizes from ``"33%, 75%, 2.5x, a"`` (or a list of such items); an empty string is no size.

    >>> [s.text() for s in parse_sizes("50%,100%, 2.5x,a")]
    ['50%', '100%', '2.5x', 'a']
    >>> parse_sizes("big")
    Traceback (most recent call last):
    ...
    pokerbot.solver.spot.SpotError: sizes: 'big' is not a size (write 50%, 2.5x or a)
    """
    items = text.split(",") if isinstance(text, str) else list(text)
    out: list[Size] = []
    for raw in items:
        item = str(raw).strip().lower()
        if not item:
            continue
        try:
            if item in ("a", "allin", "all-in"):
                out.append(Size("allin"))
            elif item.endswith("%"):
                v = float(item[:-1]) / 100.0
                if not (v > 0 and math.isfinite(v)):
                    raise ValueError
                out.append(Size("pot", v))
            elif item.endswith("x"):
                v = float(item[:-1])
                if not (v > 1 and math.isfinite(v)):
                    raise ValueError
                out.append(Size("x", v))
            else:
                raise ValueError
        except ValueError:
            raise SpotError(f"{what}: {raw.strip()!r} is not a size (write 50%, 2.5x or a)") from None
    return tuple(dict.fromkeys(out))


def _per_street(value: str | Sequence[str] | Mapping[str, str | Sequence[str]], what: str) -> tuple[tuple[Size, ...], ...]:
    """Sizes for flop, turn and river from one spec for all streets or a mapping by street name."""
    if isinstance(value, Mapping):
        unknown = set(value) - set(STREETS)
        if unknown:
            raise SpotError(f"{what}: unknown street {sorted(unknown)[0]!r} (use flop, turn, river)")
        return tuple(parse_sizes(value.get(s, ""), f"{what} ({s})") for s in STREETS)
    sizes = parse_sizes(value, what)
    return (sizes, sizes, sizes)


@dataclass(frozen=True)
class SpotMenu:
    """The bet menu of a spot (a :data:`~pokerbot.menus.BetMenuFn`): fold when facing a bet, check or
    call, then the street's sizes; ``scale`` chips of the game are one chip of the user's."""

    bets: tuple[tuple[Size, ...], ...]
    raises: tuple[tuple[Size, ...], ...]
    max_raises: int | None
    allin_threshold: float | None

    def __call__(self, state: State) -> list[Action]:
        if state.finished:
            return []
        acts = [FOLD] if state.can_fold() else []
        acts.append(CALL)
        bounds = state.raise_bounds()
        if bounds is None:
            return acts
        lo, hi = bounds
        street = state.round - 1
        depth = state.num_raises()
        if depth > 0 and self.max_raises is not None and depth > self.max_raises:
            return acts
        sizes = self.bets[street] if depth == 0 else self.raises[street]
        p = state.current_player
        assert p is not None
        me = state.spent[p]
        left = state.game.stack[p] - me
        start = _street_start(state)
        totals: set[int] = set()
        for s in sizes:
            if s.kind == "allin":
                to = hi
            elif s.kind == "x":
                if depth == 0:
                    continue
                to = start + round(s.value * (state.max_spent - start))
            else:
                to = state.max_spent + round(s.value * (state.pot + state.to_call()))
            to = min(max(to, lo), hi)
            if self.allin_threshold is not None and left > 0 and (to - me) >= self.allin_threshold * left:
                to = hi
            totals.add(to)
        acts.extend(raise_to(t) for t in sorted(totals))
        return acts


def _street_start(state: State) -> int:
    """What each player had put in when the current street began."""
    return _start_of(state.game, tuple(tuple(a for _, a in rnd) for rnd in state.history[: state.round]))


@lru_cache(maxsize=4096)
def _start_of(game: GameDef, rounds: tuple[tuple[Action, ...], ...]) -> int:
    s = State.initial(game)
    for rnd in rounds:
        for a in rnd:
            s = s.apply(a)
    return s.max_spent


# --- the spot ---------------------------------------------------------------------------------------


def _number(value: float | int | str, what: str) -> Fraction:
    try:
        f = Fraction(str(value).strip())
    except (ValueError, ZeroDivisionError):
        raise SpotError(f"{what} {value!r} is not a number") from None
    return f


@dataclass
class Spot:
    """A postflop spot (see the module docstring). ``oop``/``ip`` are Pio-style range strings (or 1,326
    weights); ``bets``/``raises`` one size string for every street or a mapping by street name."""

    board: str
    pot: float | int | str
    stack: float | int | str
    oop: str | np.ndarray
    ip: str | np.ndarray
    bets: str | Mapping[str, str] = "50%,100%"
    raises: str | Mapping[str, str] = "100%"
    max_raises: int | None = 3
    allin_threshold: float | None = None
    isomorphism: bool = True
    game_def: GameDef = field(init=False, repr=False)
    root: State = field(init=False, repr=False)
    scale: int = field(init=False, repr=False)
    menu: SpotMenu = field(init=False, repr=False)
    weights: tuple[np.ndarray, np.ndarray] = field(init=False, repr=False)
    _tree: PublicTree | None = field(init=False, repr=False, default=None)

    def __post_init__(self) -> None:
        try:
            cards = parse_cards(str(self.board).replace(" ", "").replace(",", ""))
        except CardError as exc:
            raise SpotError(f"board {self.board!r}: {exc}") from None
        seen: set[int] = set()
        for c in cards:
            if c in seen:
                raise SpotError(f"board {self.board!r}: card {format_card(c)} appears twice")
            seen.add(c)
        if len(cards) not in _ROUND_OF:
            raise SpotError(f"board {self.board!r} has {len(cards)} cards; a spot starts on the flop (3), turn (4) or river (5)")
        pot = _number(self.pot, "pot")
        stack = _number(self.stack, "stack")
        if not 0 < pot <= MAX_CHIPS:
            raise SpotError(f"pot must be positive and at most {MAX_CHIPS:,}, got {self.pot!r}")
        if not 0 <= stack <= MAX_CHIPS:
            raise SpotError(f"stack must be >= 0 and at most {MAX_CHIPS:,}, got {self.stack!r}")
        # Whole chips for the game: each player's share of the pot and the stack behind.
        scale = 1
        while (pot * scale / 2).denominator != 1 or (stack * scale).denominator != 1:
            scale *= 2 if scale % 5 == 0 or scale == 1 else 5
            if scale > 10**6:
                raise SpotError(f"pot {self.pot!r} and stack {self.stack!r} need more than six decimals")
        self.scale = scale
        share = int(pot * scale / 2)
        behind = int(stack * scale)
        if self.max_raises is not None and int(self.max_raises) < 0:
            raise SpotError(f"max_raises must be >= 0 (or None for no cap), got {self.max_raises!r}")
        if self.allin_threshold is not None and not 0 < float(self.allin_threshold) <= 1:
            raise SpotError(f"allin_threshold must be in (0, 1] (or None), got {self.allin_threshold!r}")
        base = load_game("hunl")
        self.game_def = dataclasses.replace(base, stack=(share + behind,) * 2, blind=(1, 1), name="spot")
        preflop = [CALL, CALL] if share == 1 else [raise_to(share), CALL]
        betting = betting_text([preflop] + [[CALL, CALL]] * (_ROUND_OF[len(cards)] - 1) + [[]])
        self.root = State.from_betting(self.game_def, betting, board_cards=cards)
        self.menu = SpotMenu(_per_street(self.bets, "bets"), _per_street(self.raises, "raises"),
                             None if self.max_raises is None else int(self.max_raises),
                             None if self.allin_threshold is None else float(self.allin_threshold))
        ws = []
        for name, r in (("oop", self.oop), ("ip", self.ip)):
            if isinstance(r, str):
                try:
                    w = parse_range(r)
                except RangeError as exc:
                    raise SpotError(f"{name} range: {exc}") from None
            else:
                w = np.asarray(r, dtype=np.float64)
                if w.shape != (HANDS.shape[0],) or not np.all(np.isfinite(w)) or np.any((w < 0) | (w > 1)):
                    raise SpotError(f"{name} range: 1,326 weights in [0, 1] expected")
            blocked = np.isin(HANDS, cards).any(axis=1)
            w = np.where(blocked, 0.0, w)
            if not w.any():
                raise SpotError(f"{name} range is empty on board {format_cards(cards)}")
            ws.append(w)
        self.weights = (ws[0], ws[1])

    @property
    def board_cards(self) -> list[int]:
        return list(self.root.board_cards)

    @property
    def street(self) -> str:
        return STREETS[self.root.round - 1]

    def hands(self, player: int) -> np.ndarray:
        """Indices into :data:`~pokerbot.ranges.HANDS` of ``player``'s hands (its range's support)."""
        return np.nonzero(self.weights[player])[0]

    def suit_symmetry(self) -> list[tuple[int, ...]]:
        """The suit permutations that fix the board and both ranges (identity excluded): turn and river
        cards they map onto each other are solved once (``isomorphism=False``: none)."""
        if not self.isomorphism:
            return []
        board = set(self.board_cards)
        out = []
        for g in itertools.permutations(range(4)):
            if g == (0, 1, 2, 3) or {_suit_map(g, c) for c in board} != board:
                continue
            image = _SUIT_IMAGE[g]
            if all(np.array_equal(w[image], w) for w in self.weights):
                out.append(g)
        return out

    def tree(self) -> PublicTree:
        """The public tree of the spot (every run-out to the river; built once)."""
        if self._tree is None:
            h = (HANDS[self.hands(0)], HANDS[self.hands(1)])
            self._tree = build_tree(self.game_def, self.menu, self.root, hands=h, suit_symmetry=self.suit_symmetry())
        return self._tree

    def solve(
        self,
        target: float = 0.5,
        iterations: int = 1000,
        *,
        check_every: int = 10,
        threads: int | None = None,
        locks: Mapping[str, str] | None = None,
        max_memory: int | None = None,
        progress: bool = True,
        dtype: type | np.dtype | str = np.float32,
    ) -> SpotSolution:
        """Solve with DCFR until the exploitability is at most ``target`` percent of the pot (checked every
        ``check_every`` iterations) or ``iterations`` have run. ``dtype``: the solver's storage (float32, or
        ``"compressed"``: 16-bit codes, half the memory). ``threads`` sets numba's thread count
        (default: all); ``locks`` maps node paths (see :meth:`SpotSolution.node_path`) to strategies
        (``"x:0.5,b50:0.5"``); ``max_memory`` (bytes, default 80% of available memory) refuses a tree that
        would not fit, before solving."""
        import numba

        if threads is not None:
            most = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]  # numba.config sets it at import
            if not 1 <= int(threads) <= most:
                raise SpotError(f"threads must be 1 to {most}, got {threads}")
            numba.set_num_threads(int(threads))
        if iterations < 1 or check_every < 1:
            raise SpotError("iterations and check_every must be >= 1")
        t0 = time.perf_counter()
        tree = self.tree()
        hands = (self.hands(0), self.hands(1))
        ranges = (self.weights[0][hands[0]], self.weights[1][hands[1]])
        compressed = isinstance(dtype, str) and dtype == COMPRESSED
        need = tree.memory_bytes(2, 2 if compressed else np.dtype(dtype).itemsize)
        limit = max_memory if max_memory is not None else int(MEMORY_FRACTION * available_memory())
        if need > limit:
            raise SpotError(f"the spot's tree needs about {need / 2**20:,.0f} MiB ({tree.num_nodes:,} nodes, "
                            f"{tree.num_slots:,} entries), more than the {limit / 2**20:,.0f} MiB allowed; "
                            "use fewer sizes, a lower raise cap or narrower ranges")
        solver = Solver(tree, "dcfr", ranges=ranges, dtype=dtype)
        sol = SpotSolution(self, tree, solver, hands)
        for path, strat in (locks or {}).items():
            node = sol.find(path)
            solver.lock(node, sol.parse_strategy(node, strat))
        build_s = time.perf_counter() - t0
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=iterations, unit="it", desc=f"{self.street} spot")
        history: list[tuple[int, float]] = []
        t1 = time.perf_counter()
        try:
            while solver.iteration < iterations:
                n = min(check_every, iterations - solver.iteration)
                solver.iterate(n)
                e = sol.exploitability_now()
                history.append((solver.iteration, e))
                if bar is not None:
                    bar.update(n)
                    bar.set_postfix(expl=f"{e:.3f}% pot")
                if e <= target:
                    break
        finally:
            if bar is not None:
                bar.close()
        sol.seconds = time.perf_counter() - t1
        sol.build_seconds = build_s
        sol.history = history
        sol.finish()
        return sol


def _suit_map(g: Sequence[int], card: int) -> int:
    return (card // 4) * 4 + g[card % 4]


def _image_indices(g: Sequence[int]) -> np.ndarray:
    """``out[h]``: the index in :data:`~pokerbot.ranges.HANDS` of hand ``h`` with its suits mapped by ``g``."""
    index = {tuple(sorted(r.tolist())): j for j, r in enumerate(HANDS)}
    return np.array([index[tuple(sorted(_suit_map(g, int(c)) for c in r))] for r in HANDS], dtype=np.int64)


_SUIT_IMAGE = {g: _image_indices(g) for g in itertools.permutations(range(4))}


# --- the solution -----------------------------------------------------------------------------------


class SpotSolution:
    """A solved :class:`Spot`: the tree, the solver and the figures of the average strategy.

    Chips are the user's (the spot's pot and stack units). ``ev[p]`` is player ``p``'s expected
    winnings at the root (zero-sum: chips won from the other player, the pot share not counted);
    ``hand_ev[p]``/``hand_equity[p]`` per hand of ``player``'s list (``hands[p]``, indices into
    :data:`~pokerbot.ranges.HANDS`)."""

    def __init__(self, spot: Spot, tree: PublicTree, solver: Solver, hands: tuple[np.ndarray, np.ndarray]) -> None:
        self.spot = spot
        self.tree = tree
        self.solver = solver
        self.hands = hands
        self.seconds = 0.0
        self.build_seconds = 0.0
        self.history: list[tuple[int, float]] = []
        self.exploitability_pct = float("nan")
        self.ev = (0.0, 0.0)
        self.hand_ev: tuple[np.ndarray, np.ndarray] = (np.zeros(0), np.zeros(0))
        self.hand_equity: tuple[np.ndarray, np.ndarray] = (np.zeros(0), np.zeros(0))
        self._parent = np.full(tree.num_nodes, -1, dtype=np.int64)
        for n in np.nonzero((tree.kind == K.DECISION) | (tree.kind == K.CHANCE))[0]:
            f = int(tree.first_child[n])
            self._parent[f : f + int(tree.num_children[n])] = n

    # -- units and labels -----------------------------------------------------------------------

    @property
    def pot(self) -> float:
        return float(Fraction(str(self.spot.pot)))

    def chips(self, game_chips: _Chips) -> _Chips:
        return game_chips / self.spot.scale

    def exploitability_now(self) -> float:
        """Exploitability of the current average strategy in percent of the pot."""
        b0, b1 = self.solver.best_response_values()
        return 100.0 * self.chips((b0 + b1) / 2.0) / self.pot

    def _state(self, node: int) -> State:
        return node_state(self.tree, node)

    def action_labels(self, node: int) -> list[str]:
        """The actions at decision ``node`` as users write them: ``f``, ``x`` (check), ``c`` (call),
        ``b50`` (bet 50), ``r150`` (raise to 150 this street), ``a100`` (all-in for a street total of 100)."""
        state = self._state(node)
        start = _street_start(state)
        out = []
        stack = state.game.stack[0]
        for lab in self.tree.node_labels(node):
            action = action_from_text(lab, state.game.nolimit)
            if action.kind == ActionType.FOLD:
                out.append("f")
            elif action.kind == ActionType.CALL:
                out.append("x" if state.to_call() == 0 else "c")
            else:
                to = action.size
                amount = _fmt(self.chips(to - start))
                if to == stack:
                    out.append(f"a{amount}")
                else:
                    out.append(("b" if state.num_raises() == 0 else "r") + amount)
        return out

    def root_actions(self) -> list[str]:
        return self.action_labels(0)

    def node_path(self, node: int) -> str:
        """The path from the root to ``node``: action labels and dealt cards joined by ``-`` (``root`` at
        the root), e.g. ``x-b50-c-7d-x``."""
        parts: list[str] = []
        n = int(node)
        while self._parent[n] >= 0:
            p = int(self._parent[n])
            c = n - int(self.tree.first_child[p])
            if self.tree.kind[p] == K.CHANCE:
                new = self.tree.boards[int(self.tree.board[n])][-1]
                parts.append(format_cards(new))
            else:
                parts.append(self.action_labels(p)[c])
            n = p
        return "-".join(reversed(parts)) or "root"

    def find(self, path: str) -> int:
        """The node at ``path`` (:meth:`node_path`'s format); :class:`SpotError` naming the step that fails."""
        node = 0
        text = path.strip()
        if text in ("", "root"):
            return 0
        for step in text.split("-"):
            step = step.strip().lower()
            kind = self.tree.kind[node]
            first = int(self.tree.first_child[node])
            if kind == K.DECISION:
                labels = [x.lower() for x in self.action_labels(node)]
                if step not in labels:
                    raise SpotError(f"node {path!r}: no action {step!r} at {self.node_path(node)!r} "
                                    f"(actions: {', '.join(labels)})")
                node = first + labels.index(step)
            elif kind == K.CHANCE:
                try:
                    card = parse_cards(step)
                except CardError:
                    raise SpotError(f"node {path!r}: {step!r} is not a card (a card is dealt here)") from None
                for c in range(int(self.tree.num_children[node])):
                    if tuple(self.tree.boards[int(self.tree.board[first + c])][-1]) == tuple(card):
                        node = first + c
                        break
                else:
                    raise SpotError(f"node {path!r}: card {step} cannot be dealt at {self.node_path(node)!r}")
            else:
                raise SpotError(f"node {path!r}: the hand is over before {step!r}")
        if self.tree.kind[node] != K.DECISION:
            raise SpotError(f"node {path!r} is not a decision")
        return node

    def parse_strategy(self, node: int, text: str) -> np.ndarray:
        """Probabilities over the actions of ``node`` from ``"x:0.6,b50:0.4"`` (unlisted actions 0)."""
        labels = [x.lower() for x in self.action_labels(node)]
        probs = np.zeros(len(labels))
        for item in text.split(","):
            if not item.strip():
                continue
            name, _, w = item.partition(":")
            name = name.strip().lower()
            if name not in labels:
                raise SpotError(f"lock at {self.node_path(node)!r}: no action {name!r} (actions: {', '.join(labels)})")
            try:
                probs[labels.index(name)] = float(w) if w.strip() else 1.0
            except ValueError:
                raise SpotError(f"lock at {self.node_path(node)!r}: {w.strip()!r} is not a probability") from None
        if np.any(probs < 0) or abs(probs.sum() - 1.0) > 1e-6:
            raise SpotError(f"lock at {self.node_path(node)!r}: probabilities must be >= 0 and sum to 1, got {text!r}")
        return probs

    # -- figures -------------------------------------------------------------------------------------

    def finish(self) -> None:
        """Compute the root figures of the average strategy (called by :meth:`Spot.solve`)."""
        from pokerbot.solver.best_response import counterfactual_values

        self.exploitability_pct = self.exploitability_now()
        tree = self.tree
        r = self.solver._reach
        evs: list[float] = []
        hev: list[np.ndarray] = []
        for p in range(2):
            cfv = counterfactual_values(tree, self.solver.ssum, p, self.solver.ranges)
            mass = payoffs.fold_values(r[1 - p], tree.hands[p], tree.hands[1 - p], tree.same[p], 1.0)
            per = np.divide(cfv, mass, out=np.zeros_like(cfv), where=mass > 0)
            hev.append(self.chips(per))
            evs.append(float(np.dot(r[p], cfv)) / float(np.dot(r[p], mass)))
        self.ev = (self.chips(evs[0]), self.chips(evs[1]))
        self.hand_ev = (hev[0], hev[1])
        self.hand_equity = (_equity(tree, 0, r[1]), _equity(tree, 1, r[0]))

    def strategy(self, node: int) -> np.ndarray:
        """The average strategy at decision ``node``: ``(actions, hands of the player to act)``."""
        tree = self.tree
        p = int(tree.player[node])
        nc, nh = int(tree.num_children[node]), tree.num_hands[p]
        off = int(tree.slot[node])
        block = self.solver.ssum[off : off + nc * nh].reshape(nc, nh).astype(np.float64)  # this node only
        total = block.sum(axis=0)
        return np.where(total > 0, block / np.where(total > 0, total, 1.0), 1.0 / nc)

    def to_dict(self, streets: int = 1) -> dict[str, Any]:
        """The solution as the documented JSON object; decision nodes of the first ``streets`` streets."""
        tree = self.tree
        spot = self.spot
        last_round = spot.root.round + streets - 1
        nodes = []
        for n in range(tree.num_nodes):
            if tree.kind[n] != K.DECISION or len(tree.boards[int(tree.board[n])]) - 1 > last_round:
                continue
            p = int(tree.player[n])
            st = self._state(n)
            kids = [int(tree.first_child[n]) + c for c in range(int(tree.num_children[n]))]
            nodes.append({
                "id": n,
                "path": self.node_path(n),
                "player": p,
                "board": format_cards(st.visible_board),
                "pot": self.chips(st.pot),
                "to_call": self.chips(st.to_call()),
                "actions": self.action_labels(n),
                "children": [k if tree.kind[k] == K.DECISION else None for k in kids],
                "strategy": np.round(self.strategy(n).T, 5).tolist(),
            })
        return {
            "format": SPOT_FORMAT,
            "spot": {
                "board": format_cards(spot.board_cards), "pot": self.pot, "stack": float(Fraction(str(spot.stack))),
                "street": spot.street, "bets": [[s.text() for s in x] for x in spot.menu.bets],
                "raises": [[s.text() for s in x] for x in spot.menu.raises], "max_raises": spot.max_raises,
                "allin_threshold": spot.allin_threshold,
            },
            "solve": {
                "iterations": self.solver.iteration, "exploitability_pct": self.exploitability_pct,
                "seconds": round(self.seconds, 3), "dtype": COMPRESSED if self.solver.compressed else self.solver.dtype.name, "history": self.history,
            },
            "players": ["OOP", "IP"],
            "hands": [[format_cards(HANDS[i]) for i in self.hands[p]] for p in range(2)],
            "range": [np.round(self.spot.weights[p][self.hands[p]], 6).tolist() for p in range(2)],
            "ev": list(self.ev),
            "hand_ev": [np.round(self.hand_ev[p], 4).tolist() for p in range(2)],
            "hand_equity": [np.round(self.hand_equity[p], 5).tolist() for p in range(2)],
            "nodes": nodes,
        }

    def save(self, path: str | os.PathLike[str], streets: int = 1) -> None:
        """Write :meth:`to_dict` as JSON (atomically)."""
        from pokerbot.files import atomic_write_text

        atomic_write_text(Path(path), json.dumps(self.to_dict(streets)))


def _fmt(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


@njit(cache=True)
def _equity_accumulate(hp, ho, sp, so, reach_o, win, tot):
    """Add one run-out: for each hand ``i`` (strength ``sp[i]``, -1 if the run-out blocks it) the opponent
    mass it beats (ties half) to ``win`` and the mass it meets to ``tot``."""
    for i in range(hp.shape[0]):
        a = sp[i]
        if a < 0:
            continue
        w = 0.0
        t = 0.0
        for j in range(ho.shape[0]):
            b = so[j]
            r = reach_o[j]
            if b < 0 or r == 0.0:
                continue
            if ho[j, 0] == hp[i, 0] or ho[j, 0] == hp[i, 1] or ho[j, 1] == hp[i, 0] or ho[j, 1] == hp[i, 1]:
                continue
            t += r
            if a > b:
                w += r
            elif a == b:
                w += 0.5 * r
        win[i] += w
        tot[i] += t


def _equity(tree: PublicTree, p: int, reach_o: np.ndarray) -> np.ndarray:
    """Showdown equity of each of ``p``'s hands against the opponent's range (every run-out; ties half)."""
    from itertools import combinations

    from pokerbot.solver.strength import hand_strengths

    board = [c for g in tree.boards[tree.root_board] for c in g]
    missing = 5 - len(board)
    deck = [c for c in range(52) if c not in set(board)]
    hp = np.ascontiguousarray(tree.hands[p], dtype=np.int64)
    ho = np.ascontiguousarray(tree.hands[1 - p], dtype=np.int64)
    win = np.zeros(hp.shape[0])
    tot = np.zeros(hp.shape[0])
    for run in combinations(deck, missing):
        full = np.array(board + list(run), dtype=np.int64)
        sp = hand_strengths(hp, full)
        so = hand_strengths(ho, full)
        _equity_accumulate(hp, ho, sp, so, reach_o, win, tot)
    return np.divide(win, tot, out=np.full_like(win, np.nan), where=tot > 0)
