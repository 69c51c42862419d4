"""What ``pokerbot explore`` shows: a strategy as a tree walked by paths, with per-hand strategies and ranges.

A **source** is something solved: a spot solution file (``pokerbot spot --out
FILE.json``, :class:`SpotSource`) or a blueprint (:class:`BlueprintSource`).
Each answers :meth:`~Source.node` for a **path**: the steps from the root joined
by ``-`` (``root`` or ``""`` is the root). A step is an action, written as the
source writes it (a spot's ``x``, ``b600``, ``c``; a blueprint's ACPC ``c``,
``r300``, ``f``; case-insensitive), or the cards dealt at a chance node (a spot's
turn or river card ``7h``; a blueprint's flop ``AsKd2c``, turn ``7h``, river
``2c``: a blueprint has no chance nodes, so any cards off the board may be
picked, and each hand's strategy on them is its bucket's). So ``x-b600-c-7h-x``
is a spot node and ``r300-c-AsKd2c-c`` a blueprint one.

A node is one of three kinds (:class:`NodeView`):

- ``decision``: a player acts; ``strategy[h, a]`` is the probability of action
  ``a`` for hand ``h`` (NaN for a hand not in the player's range or blocked by
  the board);
- ``deal``: cards are dealt next (``deal`` lists how many and which);
- ``end``: the hand is over (a fold, a showdown) or the file holds no more.

At every node ``reach[p, h]`` is player ``p``'s range: its starting weight of
hand ``h`` times the probability of every action ``p`` took on the path with
``h`` (0 once a dealt card blocks ``h``); the opponent's cards are not removed.
Hands are those of :class:`HandSpace`: every hold'em combo (the order of
:data:`pokerbot.ranges.HANDS`, so ranges print with
:func:`pokerbot.ranges.format_range`), or every card of a one-card game (Kuhn,
Leduc), with the classes the page's grid shows.

>>> import numpy as np
>>> from pokerbot.gamedef import load_game
>>> space = HandSpace.of_game(load_game("leduc"))
>>> space.grid, space.names
((('A', 'K', 'Q'),), ('As', 'Ah', 'Ks', 'Kh', 'Qs', 'Qh'))
>>> space.range_text(np.array([1, 0.5, 0, 0, 0, 0]))
'As,Ah:0.5'
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

import numpy as np

from pokerbot.cards import RANK_CHARS, format_card, format_cards, parse_card, parse_cards
from pokerbot.errors import CardError, PokerbotError
from pokerbot.gamedef import GameDef
from pokerbot.ranges import HANDS, class_combos, format_range, grid_classes

__all__ = [
    "ActionInfo", "BlueprintSource", "DealInfo", "ExploreError", "HandSpace", "NodeKind", "NodeView", "PathError",
    "SolveSource", "Source", "SpotSource", "Step", "action_label", "load_solve", "open_source", "split_path",
]

NodeKind = Literal["decision", "deal", "end"]
#: The street dealt when the board grows to this many cards (hold'em; other games say "board").
STREET_OF_BOARD = {3: "flop", 4: "turn", 5: "river"}


class ExploreError(PokerbotError, ValueError):
    """A source the explorer cannot open (a missing or malformed file, a game it cannot show)."""


class PathError(ExploreError):
    """A node path that is not in the source (an unknown action, a card that cannot be dealt, a step past the end)."""


def split_path(path: str) -> list[str]:
    """The steps of ``path`` (``""`` and ``"root"`` are the root); :class:`PathError` for an empty step.

    >>> split_path("root"), split_path(" x-b600 - c ")
    ([], ['x', 'b600', 'c'])
    """
    text = path.strip()
    if text.lower() in ("", "root"):
        return []
    steps = [s.strip() for s in text.split("-")]
    if not all(steps):
        raise PathError(f"path {path!r} has an empty step (steps are joined by single '-')")
    return steps


# --- hands ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HandSpace:
    """The private hands of a game as the explorer lists them, and the classes of its grid.

    ``cards[h]`` are hand ``h``'s cards (high first), ``names[h]`` its text (``"AsKs"``);
    ``grid`` the class names row by row (hold'em: :func:`pokerbot.ranges.grid_classes`;
    a one-card game: one row of ranks, high to low); ``classes[name]`` the hands of a class.
    """

    hole_cards: int
    cards: np.ndarray
    names: tuple[str, ...]
    grid: tuple[tuple[str, ...], ...]
    classes: dict[str, np.ndarray]
    holdem: bool
    index: dict[tuple[int, ...], int] = field(repr=False)

    @classmethod
    def of_game(cls, game: GameDef) -> HandSpace:
        """The hands of ``game`` (one or two hole cards; :class:`ExploreError` otherwise)."""
        deck = set(game.deck())
        if game.num_hole_cards == 2:
            keep = np.array([int(a) in deck and int(b) in deck for a, b in HANDS], dtype=bool)
            cards = np.ascontiguousarray(HANDS[keep]).astype(np.int64)
            local = np.full(len(HANDS), -1, dtype=np.int64)
            local[np.flatnonzero(keep)] = np.arange(int(keep.sum()))
            grid = tuple(tuple(row) for row in grid_classes())
            classes = {name: local[class_combos(name)][local[class_combos(name)] >= 0] for row in grid for name in row}
            holdem = True
        elif game.num_hole_cards == 1:
            ordered = sorted(deck, reverse=True)
            cards = np.array(ordered, dtype=np.int64).reshape(-1, 1)
            ranks = sorted({c // 4 for c in ordered}, reverse=True)
            grid = (tuple(RANK_CHARS[r] for r in ranks),)
            classes = {RANK_CHARS[r]: np.array([i for i, c in enumerate(ordered) if c // 4 == r], dtype=np.int64)
                       for r in ranks}
            holdem = False
        else:
            raise ExploreError(f"the explorer shows games with one or two hole cards; {game.name or 'this game'} "
                               f"deals {game.num_hole_cards}")
        names = tuple(format_cards(row) for row in cards.tolist())
        index = {tuple(row): i for i, row in enumerate(cards.tolist())}
        cards.flags.writeable = False
        return cls(game.num_hole_cards, cards, names, grid, classes, holdem, index)

    def __len__(self) -> int:
        return len(self.names)

    def index_of(self, text: str) -> int:
        """The index of the hand written ``text`` (cards in any order); :class:`CardError` if it is not one."""
        cards = parse_cards(text)
        found = self.index.get(tuple(sorted(cards, reverse=True)))
        if found is None:
            raise CardError(f"{text!r} is not a hand of this game")
        return found

    def blocked(self, board: Sequence[int]) -> np.ndarray:
        """Whether each hand holds a card of ``board``."""
        if not len(board):
            return np.zeros(len(self), dtype=bool)
        return np.asarray(np.isin(self.cards, np.asarray(board, dtype=np.int64)).any(axis=1), dtype=bool)

    def range_text(self, weights: np.ndarray) -> str:
        """The range ``weights`` (one per hand, in [0, 1]) as text: PioSOLVER's for hold'em
        (:func:`pokerbot.ranges.format_range`), else ``card[:weight]`` items."""
        w = np.clip(np.nan_to_num(np.asarray(weights, dtype=np.float64)), 0.0, 1.0)
        if self.holdem:
            full = np.zeros(len(HANDS))
            full[_holdem_rows(self)] = w
            return format_range(full)
        return ",".join(name + ("" if x == 1.0 else f":{x:.4g}") for name, x in zip(self.names, w.tolist()) if x > 0)


def _holdem_rows(space: HandSpace) -> np.ndarray:
    """Index into :data:`~pokerbot.ranges.HANDS` of each hand of a hold'em ``space``."""
    lookup = {tuple(row): i for i, row in enumerate(HANDS.tolist())}
    return np.array([lookup[tuple(row)] for row in space.cards.tolist()], dtype=np.int64)


# --- nodes ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One step of a path: its ``token`` (as the path writes it) and a ``label`` to show."""

    token: str
    label: str
    kind: Literal["action", "deal"] = "action"


@dataclass(frozen=True)
class ActionInfo:
    """An action at a decision: its path ``token``, a ``label`` and what it ``leads`` to."""

    token: str
    label: str
    leads: NodeKind


@dataclass(frozen=True)
class DealInfo:
    """The cards dealt next: ``count`` of them (the ``street``), any of ``available``."""

    count: int
    street: str
    available: list[int]
    note: str = ""


@dataclass
class NodeView:
    """A node of a source: see the module docstring."""

    steps: list[Step]
    kind: NodeKind
    board: list[int]
    pot: float
    reach: np.ndarray
    player: int | None = None
    to_call: float | None = None
    actions: list[ActionInfo] = field(default_factory=list)
    strategy: np.ndarray | None = None
    deal: DealInfo | None = None
    note: str = ""
    #: Per-hand figures shown where the source has them: name -> (2, hands) array (NaN where absent).
    figures: dict[str, np.ndarray] = field(default_factory=dict)
    figures_note: str = ""

    @property
    def path(self) -> str:
        return "-".join(s.token for s in self.steps) or "root"


class Source(Protocol):
    """Something the explorer walks."""

    space: HandSpace
    players: tuple[str, str]

    def info(self) -> dict[str, Any]:
        """What the page's header shows: ``kind``, ``title`` and ``details`` (a list of short lines)."""
        ...

    def node(self, path: str) -> NodeView:
        """The node at ``path``; :class:`PathError` naming the step that fails."""
        ...


def _where(steps: list[Step]) -> str:
    return repr("-".join(s.token for s in steps) or "root")


def action_label(state: Any, action: Any) -> str:
    """An engine action at ``state`` as words: ``Fold``, ``Check``, ``Call 200``, ``Raise to 300``
    (preflop and facing a bet: the street total), ``Bet 600`` (this street), ``All-in 20000`` (the hand total)."""
    from evaluation.play.session import street_base
    from pokerbot.actions import ActionType

    if action.kind == ActionType.FOLD:
        return "Fold"
    if action.kind == ActionType.CALL:
        return "Check" if state.to_call() == 0 else f"Call {state.to_call()}"
    if not state.game.nolimit:
        return "Raise" if state.to_call() > 0 or state.round == 0 else "Bet"
    if action.size >= state.game.stack[state.current_player]:
        return f"All-in {action.size}"
    verb = "Raise to" if state.to_call() > 0 or state.round == 0 else "Bet"
    return f"{verb} {action.size - street_base(state)}"


def _chips(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


# --- spot solution files ----------------------------------------------------------------------------------


#: The format tag of ``pokerbot spot --out`` files (:data:`pokerbot.solver.spot.SPOT_FORMAT`).
SPOT_FORMAT = "pokerbot-spot/1"


@dataclass
class _SpotNode:
    id: int
    path: str
    player: int
    board: list[int]
    pot: float
    to_call: float
    actions: list[str]
    children: list[int | None]
    strategy: np.ndarray  # (hands of the player's list, actions)


def _spot_label(token: str) -> str:
    """``b600`` -> ``Bet 600``: a spot action as words."""
    words = {"f": "Fold", "x": "Check", "c": "Call"}
    if token in words:
        return words[token]
    kind = {"b": "Bet", "r": "Raise to", "a": "All-in"}.get(token[:1], token)
    return f"{kind} {token[1:]}"


class SpotSource:
    """A spot solution file (``format: "pokerbot-spot/1"``, see ``docs/solver.md``).

    The file holds the decision nodes of its first ``--streets`` streets, the strategy of
    each hand of the acting player's list there, and each hand's EV and equity at the
    root (shown at the root). Deals follow the file: with suit isomorphism only one card
    of each class of equivalent cards is solved, so only those can be picked.
    """

    def __init__(self, data: Any, name: str = "spot") -> None:
        self.name = name
        try:
            self._read(data)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, CardError) as exc:
            if isinstance(exc, ExploreError):
                raise
            raise ExploreError(f"{name}: not a valid spot solution file ({type(exc).__name__}: {exc})") from None

    @classmethod
    def load(cls, path: str | Path) -> SpotSource:
        """Read a spot solution file; :class:`ExploreError` if it is not one."""
        p = Path(path)
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ExploreError(f"{p}: neither a spot solution (JSON) nor a blueprint (.npz): {exc}") from None
        return cls(data, str(p))

    def _read(self, data: Any) -> None:
        if not isinstance(data, dict) or data.get("format") != SPOT_FORMAT:
            got = data.get("format") if isinstance(data, dict) else type(data).__name__
            raise ExploreError(f"{self.name}: not a spot solution file (format {got!r}, expected {SPOT_FORMAT!r})")
        from pokerbot.gamedef import load_game

        self.space = HandSpace.of_game(load_game("hunl"))
        spot = data["spot"]
        self.spot = spot
        self.board = parse_cards(str(spot["board"]))
        self.pot0 = float(spot["pot"])
        self.stack = float(spot["stack"])
        players = data.get("players", ["OOP", "IP"])
        self.players = (str(players[0]), str(players[1]))
        self.solve_info = data.get("solve", {})
        self.hands: list[np.ndarray] = []
        self.start = np.zeros((2, len(self.space)))
        for p in range(2):
            idx = np.array([self.space.index_of(str(h)) for h in data["hands"][p]], dtype=np.int64)
            weights = np.asarray(data["range"][p], dtype=np.float64)
            if weights.shape != idx.shape or not (np.isfinite(weights).all() and (weights >= 0).all()
                                                  and (weights <= 1).all()):
                raise ExploreError(f"{self.name}: the range of player {p} must be one weight in [0, 1] per hand")
            self.hands.append(idx)
            self.start[p, idx] = weights
        self.figures: dict[str, np.ndarray] = {}
        for key, name in (("hand_ev", "ev"), ("hand_equity", "equity")):
            if key in data:
                arr = np.full((2, len(self.space)), np.nan)
                for p in range(2):
                    values = np.asarray(data[key][p], dtype=np.float64)
                    if values.shape != self.hands[p].shape:
                        raise ExploreError(f"{self.name}: {key} of player {p} needs one number per hand")
                    arr[p, self.hands[p]] = values
                self.figures[name] = arr
        self.ev = [float(x) for x in data.get("ev", [])]
        self.nodes: dict[str, _SpotNode] = {}
        self.by_id: dict[int, _SpotNode] = {}
        for raw in data["nodes"]:
            player = int(raw["player"])
            if player not in (0, 1):
                raise ExploreError(f"{self.name}: node {raw['path']!r}: player {player} is not 0 or 1")
            actions = [str(a) for a in raw["actions"]]
            children = [None if c is None else int(c) for c in raw["children"]]
            strategy = np.asarray(raw["strategy"], dtype=np.float64).reshape(len(self.hands[player]), len(actions))
            if len(children) != len(actions) or not actions or not np.isfinite(strategy).all():
                raise ExploreError(f"{self.name}: node {raw['path']!r} is malformed")
            node = _SpotNode(int(raw["id"]), str(raw["path"]), player, parse_cards(str(raw["board"])),
                             float(raw["pot"]), float(raw["to_call"]), actions, children, strategy)
            self.nodes[node.path.lower()] = node
            self.by_id[node.id] = node
        if "root" not in self.nodes:
            raise ExploreError(f"{self.name}: the file has no root node")
        for node in self.nodes.values():
            for c in node.children:
                if c is not None and c not in self.by_id:
                    raise ExploreError(f"{self.name}: node {node.path!r} names a missing child {c}")
        # The decisions right after a deal, by the path before the card: {prefix: {card: node}}.
        self.deals: dict[str, dict[int, _SpotNode]] = {}
        for node in self.nodes.values():
            prefix, _, last = node.path.rpartition("-")
            card = _as_card(last)
            if prefix and card is not None:
                self.deals.setdefault(prefix.lower(), {})[card] = node
        self.streets = 1 + max((len(n.board) - len(self.board) for n in self.nodes.values()), default=0)

    def info(self) -> dict[str, Any]:
        street = self.spot.get("street", STREET_OF_BOARD.get(len(self.board), ""))
        solve = self.solve_info
        details = [f"pot {_chips(self.pot0)}, stack {_chips(self.stack)}",
                   f"{len(self.hands[0])} {self.players[0]} and {len(self.hands[1])} {self.players[1]} hands"]
        if "exploitability_pct" in solve:
            details.append(f"{solve.get('iterations', '?')} iterations, exploitability "
                           f"{float(solve['exploitability_pct']):.3g}% of the pot")
        if len(self.ev) == 2:
            details.append(f"EV {self.players[0]} {self.ev[0]:.2f}, {self.players[1]} {self.ev[1]:.2f} "
                           f"(chips won from the other; + pot/2 for the pot share)")
        return {"kind": "spot", "title": f"{street} spot {format_cards(self.board)}", "details": details}

    def _leads(self, node: _SpotNode, a: int) -> NodeKind:
        if node.children[a] is not None:
            return "decision"
        prefix = "-".join(x for x in (node.path, node.actions[a]) if x != "root").lower()
        return "deal" if prefix in self.deals else "end"

    def _end_note(self, node: _SpotNode, a: int) -> str:
        token = node.actions[a]
        if token == "f":
            return f"{self.players[node.player]} folds: {self.players[1 - node.player]} wins the pot"
        if token == "c" and node.pot + node.to_call >= self.pot0 + 2 * self.stack - 1e-9:
            return "all-in and called: the board runs out to a showdown"
        if len(node.board) >= 5:
            return "showdown"
        return (f"the file holds the decisions of {self.streets} street{'s' if self.streets > 1 else ''} only "
                f"(write more with pokerbot spot --streets)")

    def node(self, path: str) -> NodeView:
        steps: list[Step] = []
        reach = self.start.copy()
        cur: _SpotNode | None = self.nodes["root"]
        deal: dict[int, _SpotNode] | None = None
        end_note = ""
        last = self.nodes["root"]
        dealt: list[int] = []  # the board shows the spot's cards as given, then the dealt ones
        for token in split_path(path):
            if cur is not None:
                labels = [x.lower() for x in cur.actions]
                if token.lower() not in labels:
                    raise PathError(f"no action {token!r} at {_where(steps)}: the actions are {', '.join(cur.actions)}")
                a = labels.index(token.lower())
                p = cur.player
                reach[p, self.hands[p]] *= cur.strategy[:, a]
                steps.append(Step(cur.actions[a], _spot_label(cur.actions[a])))
                last = cur
                if cur.children[a] is not None:
                    cur = self.by_id[int(cur.children[a])]  # type: ignore[arg-type]
                else:
                    deal = self.deals.get("-".join(s.token for s in steps).lower())
                    end_note = "" if deal else self._end_note(cur, a)
                    cur = None
            elif deal is not None:
                card = _as_card(token)
                if card is None or card not in deal:
                    shown = ", ".join(format_card(c) for c in sorted(deal, reverse=True))
                    raise PathError(f"{token!r} cannot be dealt at {_where(steps)}: the file has {shown}")
                reach[:, self.space.blocked([card])] = 0.0
                street = STREET_OF_BOARD.get(len(deal[card].board), "card")
                steps.append(Step(format_card(card), f"{street} {format_card(card)}", "deal"))
                cur, deal = deal[card], None
                dealt.append(card)
            else:
                raise PathError(f"the hand is over at {_where(steps)}: nothing follows ({end_note})")
        if cur is not None:
            strategy = np.full((len(self.space), len(cur.actions)), np.nan)
            strategy[self.hands[cur.player]] = cur.strategy
            blocked = self.space.blocked(cur.board)
            strategy[blocked] = np.nan
            at_root = not steps
            return NodeView(
                steps, "decision", self.board + dealt, cur.pot, reach, player=cur.player, to_call=cur.to_call,
                actions=[ActionInfo(t, _spot_label(t), self._leads(cur, a)) for a, t in enumerate(cur.actions)],
                strategy=strategy, figures=self.figures if at_root else {},
                figures_note="EV (chips won from the other) and showdown equity at the root" if at_root else "",
            )
        if deal is not None:
            some = next(iter(deal.values()))
            board = self.board + dealt
            off = [c for c in range(52) if c not in board]
            note = "" if len(deal) == len(off) else (
                f"{len(deal)} of {len(off)} cards: the solve merged cards a suit permutation maps onto each other")
            return NodeView(steps, "deal", list(board), some.pot, reach,
                            deal=DealInfo(1, STREET_OF_BOARD.get(len(board) + 1, "card"), sorted(deal), note))
        return NodeView(steps, "end", self.board + dealt, last.pot, reach, note=end_note)


def _as_card(token: str) -> int | None:
    """The card ``token`` names, or None."""
    if len(token) != 2:
        return None
    try:
        return parse_card(token)
    except CardError:
        return None


# --- blueprints -------------------------------------------------------------------------------------------


class BlueprintSource:
    """A blueprint: its abstract betting tree, and at each decision the strategy of each hand's card bucket.

    The abstract tree has no chance nodes: after a street's closing action the path names
    the board cards dealt (any cards off the board), and each hand's strategy there is
    the one of its bucket on that board (:meth:`~blueprint.model.CardBuckets.bucket_batch`).
    Strategies are normalised as the blueprint agent plays them (an all-zero row is uniform).
    """

    def __init__(self, blueprint: Any, name: str = "blueprint", cards: Any = None) -> None:
        from blueprint.model import make_cards

        self.blueprint = blueprint
        self.name = name
        self.game: GameDef = blueprint.game
        self.tree = blueprint.tree
        self.cards = cards if cards is not None else make_cards(blueprint.cards_name, self.game)
        self.space = HandSpace.of_game(self.game)
        blind = self.game.blind
        # ACPC seats: in HUNL (reverse blinds) seat 0 posts the big blind, seat 1 the small blind and acts first
        self.players: tuple[str, str] = (("BB", "SB") if blind[0] > blind[1] else ("SB", "BB")
                                         if blind[0] < blind[1] else ("P1", "P2"))
        self.deck = sorted(self.game.deck())
        self._buckets: dict[tuple[int, tuple[int, ...]], np.ndarray] = {}

    @classmethod
    def load(cls, spec: str | Path) -> BlueprintSource:
        """A blueprint file, or the name of a trained run under ``$POKERBOT_HOME/blueprints``."""
        from blueprint.agent import resolve_path
        from blueprint.model import Blueprint

        return cls(Blueprint.load(resolve_path(spec)), str(spec))

    def info(self) -> dict[str, Any]:
        bp = self.blueprint
        details = [f"{self.game.name or 'game'}: cards {bp.cards_name} "
                   f"({'/'.join(map(str, self.tree.num_buckets))} buckets), actions {bp.actions_name}",
                   f"{self.tree.num_decision_nodes:,} decision nodes"]
        if "iterations" in bp.meta:
            details.append(f"{int(bp.meta['iterations']):,} iterations")
        if self.game.total_board_cards:
            details.append("later streets: pick the board; each hand plays its bucket's strategy on it")
        return {"kind": "blueprint", "title": f"blueprint {self.name}", "details": details}

    def _bucket_of(self, round_: int, board: tuple[int, ...]) -> np.ndarray:
        """The round-``round_`` bucket of each hand on ``board`` (-1 for a blocked hand), cached."""
        key = (round_, board)
        hit = self._buckets.get(key)
        if hit is None:
            out = np.full(len(self.space), -1, dtype=np.int64)
            ok = ~self.space.blocked(board)
            rows = np.concatenate([self.space.cards[ok], np.tile(np.asarray(board, dtype=np.int64),
                                                                  (int(ok.sum()), 1))], axis=1)
            if len(rows):
                out[ok] = np.asarray(self.cards.bucket_batch(round_, rows), dtype=np.int64)
            if len(self._buckets) > 64:
                self._buckets.clear()
            hit = self._buckets[key] = out
        return hit

    def strategy(self, node: int, board: Sequence[int]) -> np.ndarray:
        """``(hands, actions)``: each hand's probabilities at decision ``node`` with ``board`` (NaN if blocked)."""
        tree = self.tree
        r = int(tree.round[node])
        buckets = self._bucket_of(r, tuple(board[: self.game.board_cards_through(r)]))
        a_n = int(tree.num_actions[node])
        ok = buckets >= 0
        rows = self.blueprint.strategy[int(tree.base[node]) + buckets[ok][:, None] * a_n
                                       + np.arange(a_n)[None, :]].astype(np.float64)
        total = rows.sum(axis=1, keepdims=True)
        out = np.full((len(self.space), a_n), np.nan)
        out[ok] = np.where(total > 0, rows / np.where(total > 0, total, 1.0), 1.0 / a_n)
        return out

    def _leads(self, node: int, child: int) -> NodeKind:
        from blueprint.abstract_game import DECISION

        tree = self.tree
        if tree.kind[child] != DECISION:
            return "end"
        needs = self.game.board_cards_through(int(tree.round[child])) - self.game.board_cards_through(
            int(tree.round[node]))
        return "deal" if needs > 0 else "decision"

    def node(self, path: str) -> NodeView:
        from blueprint.abstract_game import DECISION, FOLD_NODE
        from pokerbot.actions import action_text
        from pokerbot.state import State

        tree, game = self.tree, self.game
        steps: list[Step] = []
        reach = np.ones((2, len(self.space)))
        state = State.initial(game)
        node, board, needs = 0, [], 0
        for token in split_path(path):
            if needs:
                try:
                    cards = parse_cards(token)
                except CardError as exc:
                    raise PathError(f"{token!r} at {_where(steps)}: {exc}; deal {needs} card(s) here") from None
                bad = [c for c in cards if c not in self.deck or c in board]
                if len(cards) != needs or bad or len(set(cards)) != len(cards):
                    why = (f"{format_cards(bad)} is on the board or not in the deck" if bad else
                           f"deal {needs} distinct card{'s' if needs > 1 else ''} here")
                    raise PathError(f"cannot deal {token!r} at {_where(steps)}: {why}")
                board += cards
                reach[:, self.space.blocked(cards)] = 0.0
                street = STREET_OF_BOARD.get(len(board), "board") if game.num_hole_cards == 2 else "board"
                steps.append(Step(format_cards(cards), f"{street} {format_cards(cards)}", "deal"))
                needs = 0
            elif tree.kind[node] == DECISION:
                actions = tree.actions(node)
                labels = [action_text(a, game.nolimit) for a in actions]
                lower = [x.lower() for x in labels]
                if token.lower() not in lower:
                    raise PathError(f"no action {token!r} at {_where(steps)}: the actions are {', '.join(labels)}")
                a = lower.index(token.lower())
                p = int(tree.player[node])
                probs = self.strategy(node, board)
                reach[p] *= np.nan_to_num(probs[:, a])
                steps.append(Step(labels[a], action_label(state, actions[a])))
                child = tree.children(node)[a]
                if self._leads(node, child) == "deal":
                    needs = game.board_cards_through(int(tree.round[child])) - len(board)
                state = state.apply(actions[a])
                node = child
            else:
                raise PathError(f"the hand is over at {_where(steps)}: nothing follows")
        pot = float(state.pot)
        if needs:
            street = STREET_OF_BOARD.get(len(board) + needs, "board") if game.num_hole_cards == 2 else "board"
            return NodeView(steps, "deal", board, pot, reach,
                            deal=DealInfo(needs, street, [c for c in self.deck if c not in board]))
        if tree.kind[node] == DECISION:
            actions = tree.actions(node)
            children = tree.children(node)
            return NodeView(
                steps, "decision", board, pot, reach, player=int(tree.player[node]), to_call=float(state.to_call()),
                actions=[ActionInfo(action_text(a, game.nolimit), action_label(state, a), self._leads(node, c))
                         for a, c in zip(actions, children)],
                strategy=self.strategy(node, board),
            )
        if tree.kind[node] == FOLD_NODE:
            folder = int(tree.player[node])
            note = f"{self.players[folder]} folds: {self.players[1 - folder]} wins the pot"
        elif len(board) < game.total_board_cards:
            note = "all-in and called: the board runs out to a showdown"
        else:
            note = "showdown"
        return NodeView(steps, "end", board, pot, reach, note=note)


# --- a real-time agent's solve -----------------------------------------------------------------------------


class SolveSource:
    """The subgame a real-time agent (:class:`realtime.agent.Resolver`) solves at a hand state.

    The resolver decides at the public state of ``state`` (the hole cards play no part: it
    solves for every hand of the player to act), replaying the hand before it as the agent
    does. Paths start at the subgame's root, which is the state itself or, when the agent
    re-solves from before the opponent's last action of the round, the state before that
    action (``info()["start"]`` is the path to the state). At the root, the player to act
    at ``state`` has the agent's own reach there, the other player the range the agent
    models for it (what the solve's gadget starts from). Deals follow the subgame's chance
    nodes; a depth-limited leaf ends the walk (its values come from the leaf evaluator).
    """

    def __init__(self, resolver: Any, state: Any, name: str = "real-time agent") -> None:
        from pokerbot.solver.navigate import find_node
        from pokerbot.solver.tree import universe_rows

        self.name = name
        self.game: GameDef = resolver.game
        self.space = HandSpace.of_game(self.game)
        blind = self.game.blind
        self.players: tuple[str, str] = (("BB", "SB") if blind[0] > blind[1] else ("SB", "BB")
                                         if blind[0] < blind[1] else ("P1", "P2"))
        pub = state.with_cards(hole_cards=((),) * self.game.num_players)
        self.state = pub
        us = pub.current_player
        if us is None:
            raise ExploreError(f"no one acts at {pub.betting_string()!r}: the hand is over")
        decision = resolver.decide(pub)
        self.decision = decision
        if decision.solution is None:
            where = repr(pub.betting_string()) if pub.betting_string() else "the start of the hand"
            raise ExploreError(f"the agent solves nothing at {where}: it plays its blueprint there "
                               f"({decision.source}); explore the blueprint instead")
        sol = decision.solution
        self.tree = sol.tree
        self.strategy = np.asarray(sol.strategy, dtype=np.float64)
        tree = self.tree
        # Each hand of the tree's lists, as an index of the hand space.
        self.rows = tuple(np.array([self.space.index[tuple(sorted((int(c) for c in h), reverse=True))]
                                    for h in tree.hands[p].tolist()], dtype=np.int64) for p in range(2))
        real = find_node(tree, pub)
        if real is None:
            raise ExploreError(f"the agent's subgame does not hold {pub.betting_string()!r}")
        rep, _, r_opp, _ = resolver._replay(pub, us, resolver.config.round(pub.round).ranges == "blueprint")
        opp = rep.ranges[-1][1] if real != 0 and rep.states else r_opp  # over the universe's hands
        opp = opp[universe_rows(tree, 1 - us)] * tree.valid[1 - us][tree.root_board]
        if not opp.any():
            opp = tree.valid[1 - us][tree.root_board].astype(np.float64)  # as the agent: no information
        self.start = np.zeros((2, len(self.space)))
        self.start[us, self.rows[us]] = sol.reach_us
        self.start[1 - us, self.rows[1 - us]] = opp
        self.start_path = self._path_to(real)

    def _path_to(self, node: int) -> str:
        from pokerbot.solver.navigate import path_to

        return "-".join(self._token(parent, c) for parent, c in path_to(self.tree, node)) or "root"

    def _token(self, node: int, c: int) -> str:
        from pokerbot.solver.tree import CHANCE

        tree = self.tree
        if tree.kind[node] == CHANCE:
            child = int(tree.first_child[node]) + c
            return format_cards(tree.boards[int(tree.board[child])][-1])
        return tree.node_labels(node)[c]

    def info(self) -> dict[str, Any]:
        d = self.decision
        pub = self.state
        details = [self.name, f"{d.gadget or 'unsafe'} gadget, {d.iterations} iterations in {d.seconds:.2f} s, "
                              f"{d.nodes:,} nodes ({d.source})",
                   f"the subgame starts at {self.tree.root_state.betting_string() or 'the first action'!r}"]
        board = format_cards(pub.visible_board)
        return {"kind": "solve", "title": f"real-time solve at {pub.betting_string() or 'the first action'!r}"
                                          + (f" on {board}" if board else ""),
                "details": details, "start": self.start_path}

    def _leads(self, child: int) -> NodeKind:
        from pokerbot.solver.tree import CHANCE, DECISION

        kind = self.tree.kind[child]
        return "decision" if kind == DECISION else "deal" if kind == CHANCE else "end"

    def node_strategy(self, node: int) -> np.ndarray:
        """``(hands, actions)`` at decision ``node``: each hand's probabilities (NaN: not in the tree's list or
        blocked by the board)."""
        tree = self.tree
        p = int(tree.player[node])
        nh = int(tree.num_hands[p])
        k = int(tree.num_children[node])
        off = int(tree.slot[node])
        block = self.strategy[off : off + k * nh].reshape(k, nh).T
        out = np.full((len(self.space), k), np.nan)
        valid = np.asarray(tree.valid[p][int(tree.board[node])], dtype=bool)
        out[self.rows[p][valid]] = block[valid]
        return out

    def node(self, path: str) -> NodeView:
        from pokerbot.actions import action_from_text
        from pokerbot.solver.navigate import node_state
        from pokerbot.solver.tree import CHANCE, DECISION, FOLD_NODE, LEAF

        tree = self.tree
        steps: list[Step] = []
        reach = self.start.copy()
        node = 0
        actor = -1
        for token in split_path(path):
            kind = tree.kind[node]
            first = int(tree.first_child[node])
            if kind == DECISION:
                labels = tree.node_labels(node)
                lower = [x.lower() for x in labels]
                if token.lower() not in lower:
                    raise PathError(f"no action {token!r} at {_where(steps)}: the actions are {', '.join(labels)}")
                a = lower.index(token.lower())
                actor = int(tree.player[node])
                reach[actor] *= np.nan_to_num(self.node_strategy(node)[:, a])
                state = node_state(tree, node)
                steps.append(Step(labels[a], action_label(state, action_from_text(labels[a], self.game.nolimit))))
                node = first + a
            elif kind == CHANCE:
                tokens = [self._token(node, c) for c in range(int(tree.num_children[node]))]
                try:
                    wanted = sorted(parse_cards(token))
                except CardError:
                    wanted = []
                found = [c for c, t in enumerate(tokens) if sorted(parse_cards(t)) == wanted]
                if not found:
                    raise PathError(f"{token!r} cannot be dealt at {_where(steps)}: deal one of "
                                    f"{', '.join(tokens[:12])}{', ...' if len(tokens) > 12 else ''}")
                node = first + found[0]
                cards = parse_cards(tokens[found[0]])
                reach[:, self.space.blocked(cards)] = 0.0
                street = STREET_OF_BOARD.get(len(node_state(tree, node).visible_board), "board")
                steps.append(Step(tokens[found[0]], f"{street} {tokens[found[0]]}", "deal"))
            else:
                raise PathError(f"the hand is over at {_where(steps)}: nothing follows")
        state = node_state(tree, node)
        known = [c for c in self.state.visible_board if c in state.visible_board]  # the hand's own order first
        board = known + [c for c in state.visible_board if c not in known]
        pot = float(state.pot)
        kind = tree.kind[node]
        if kind == DECISION:
            labels = tree.node_labels(node)
            first = int(tree.first_child[node])
            return NodeView(
                steps, "decision", board, pot, reach, player=int(tree.player[node]), to_call=float(state.to_call()),
                actions=[ActionInfo(t, action_label(state, action_from_text(t, self.game.nolimit)),
                                    self._leads(first + a)) for a, t in enumerate(labels)],
                strategy=self.node_strategy(node),
            )
        if kind == CHANCE:
            child_boards = [parse_cards(self._token(node, c)) for c in range(int(tree.num_children[node]))]
            count = len(child_boards[0])
            available = sorted({c for b in child_boards for c in b})
            street = STREET_OF_BOARD.get(len(board) + count, "board") if self.game.num_hole_cards == 2 else "board"
            note = "" if count == 1 or len(child_boards) > 1 else "one board only"
            return NodeView(steps, "deal", board, pot, reach, deal=DealInfo(count, street, available, note))
        if kind == FOLD_NODE and actor >= 0:
            note = f"{self.players[actor]} folds: {self.players[1 - actor]} wins the pot"
        elif kind == LEAF:
            note = ("a depth-limited leaf: the subgame ends here and the leaf evaluator values the rest "
                    "of the hand")
        else:
            note = "showdown" if len(board) >= self.game.total_board_cards else \
                "all-in and called: the board runs out to a showdown"
        return NodeView(steps, "end", board, pot, reach, note=note)


def load_solve(spec: str, matchstate: str) -> SolveSource:
    """The solve of the real-time agent of config ``spec`` (a ``configs/realtime-NAME.toml`` name or a TOML path)
    at the hand state ``matchstate`` (an ACPC ``MATCHSTATE:...`` line)."""
    from blueprint.agent import resolve_path
    from blueprint.model import Blueprint
    from pokerbot.matchstate import parse_matchstate
    from realtime.agent import Resolver
    from realtime.config import RealtimeConfig

    config = RealtimeConfig.load(spec)
    blueprint = Blueprint.load(resolve_path(config.blueprint))
    view = parse_matchstate(blueprint.game, matchstate.strip())
    return SolveSource(Resolver(config, blueprint), view.state, name=f"real-time agent {spec}")


# --- opening ----------------------------------------------------------------------------------------------


def open_source(spec: str) -> Source:
    """A spot solution file, a blueprint file, or a trained blueprint run's name; :class:`ExploreError` if none."""
    from pokerbot.files import is_plain_name, pokerbot_home

    p = Path(spec)
    if p.is_file():
        with p.open("rb") as f:
            magic = f.read(2)
        if magic == b"PK":
            return BlueprintSource.load(p)
        return SpotSource.load(p)
    if p.is_dir() and (p / "blueprint.npz").is_file():
        return BlueprintSource.load(p)
    if spec and is_plain_name(spec):
        from blueprint.storage import blueprint_dir

        if (blueprint_dir(spec) / "blueprint.npz").is_file():
            return BlueprintSource.load(spec)
    runs = pokerbot_home() / "blueprints"
    raise ExploreError(f"{spec!r} is neither a file (a spot solution .json, a blueprint .npz) "
                       f"nor a blueprint run in {runs}")


def finite_or_none(x: float) -> float | None:
    """``x``, or None when it is NaN or infinite (JSON has neither)."""
    return x if math.isfinite(x) else None
