"""Public betting trees flattened to arrays, with per-hand range vectors.

A :class:`PublicTree` is the game as both players see it in public: betting
decisions (restricted by a *bet menu*), chance nodes that deal board cards, and
terminal nodes (a fold or a showdown). Private information lives in vectors
indexed by *hands*: each player has a list of possible hole-card combinations
and every quantity (reach, counterfactual value, regret, strategy) is a vector
over that list. The solver kernels in :mod:`pokerbot.solver.cfr` read only the
flat arrays below and know nothing of poker; this module is the poker side.

Node kinds (``tree.kind``, the numbering of :mod:`pokerbot.betting_tree`, whose
:func:`~pokerbot.betting_tree.betting_tree` enumerates the betting this tree is
flattened from): ``DECISION`` (``player[n]`` acts, children are its
menu actions in order), ``CHANCE`` (children deal the next round's board
cards; each child has its own ``board[n]``), ``FOLD_NODE`` (``player[n]`` folded and
loses ``amount[n]`` chips to the other), ``SHOWDOWN`` (the better hand wins
``amount[n]`` chips; ties split) and, in a depth-limited tree
(``build_tree(..., depth_limit=N)``), ``LEAF``: the game goes on beyond the
tree. A leaf is either a *continuation* leaf (a chance node that would deal a
round past the limit: its value comes from a
:class:`~pokerbot.solver.leaves.LeafEvaluator`, with a choice among continuation
strategies) or an *equity* leaf (both players all-in with cards still to come
past the limit: ``amount[n]`` chips go to the better hand after every run-out,
valued exactly from an equity table). ``leaf_index[n]`` numbers the leaves;
``leaf_nodes``, ``leaf_equity`` and ``leaf_states`` describe them.

A bet menu is any callable ``menu(state) -> list[Action]`` that returns the
legal actions to keep at ``state`` (:mod:`pokerbot.menus`, re-exported here).
Limit games default to every legal kind; no-limit games default to
:func:`pot_fraction_menu` (half pot, pot, all-in, at most three raises a round).

>>> from pokerbot.gamedef import load_game
>>> tree = build_tree(load_game("kuhn"))
>>> tree.num_hands, tree.num_nodes, int(tree.kind[0]) == DECISION
((3, 3), 9, True)
>>> tree.infoset_key(0, 0, 2)
'Qs:'
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from pokerbot.betting_tree import CHANCE, DECISION, FOLD_NODE, LEAF, SHOWDOWN, BettingNode, betting_tree
from pokerbot.cards import cards_to_mask, format_cards
from pokerbot.errors import SolverError
from pokerbot.gamedef import GameDef
from pokerbot.menus import BetMenuFn, PotFractionMenu, limit_menu, menu_from_spec, menu_spec
from pokerbot.state import State

if TYPE_CHECKING:
    from pokerbot.solver.leaves import EquityTable

__all__ = [
    "CHANCE", "DECISION", "DEFAULT_NOLIMIT_MENU", "FOLD_NODE", "LEAF", "SHOWDOWN", "PotFractionMenu",
    "PublicTree", "SolverError", "build_tree", "default_menu", "hand_list", "hand_universe", "limit_menu",
    "menu_from_spec", "menu_spec", "pot_fraction_menu", "universe_rows",
]


def pot_fraction_menu(
    fractions: Sequence[float] = (0.5, 1.0), all_in: bool = True, max_raises: int = 3
) -> PotFractionMenu:
    """A :class:`PotFractionMenu` (the no-limit default is ``pot_fraction_menu()``)."""
    return PotFractionMenu(tuple(float(f) for f in fractions), all_in, int(max_raises))


DEFAULT_NOLIMIT_MENU = PotFractionMenu()


def default_menu(game: GameDef) -> BetMenuFn:
    """:func:`limit_menu` for limit games, :data:`DEFAULT_NOLIMIT_MENU` for no-limit games."""
    return DEFAULT_NOLIMIT_MENU if game.nolimit else limit_menu


# --- the flat public tree ----------------------------------------------------------


@dataclass
class PublicTree:
    """A public tree as flat arrays (see the module docstring for the node kinds).

    Per node ``n``: ``kind``, ``player`` (actor / folder), ``first_child`` and
    ``num_children`` (children are contiguous), ``slot`` (offset of the node's
    ``num_children x num_hands[player]`` block in strategy-sized arrays),
    ``board`` (board id), ``amount`` (terminal stake), ``sd_row`` (row of the
    showdown tables), ``chance_weight`` (probability of each child of a chance
    node given both players' hands), ``template`` (index into ``betting`` and
    ``labels``).

    Per player ``p``: ``hands[p]`` (H_p, k) hole cards (descending within a
    hand), ``valid[p]`` (boards, H_p) 1.0 where the hand misses the board,
    ``same[p]`` index of the identical hand in the other player's list (-1 if
    none), ``sd_order[p]`` / ``sd_strength[p]`` (showdown boards, H_p) hands
    sorted by strength on each full board (blocked hands have strength -1) and
    ``sd_cards[p]`` (showdown boards, H_p, k) their cards in that order.
    """

    game: GameDef
    root_state: State
    kind: np.ndarray
    player: np.ndarray
    first_child: np.ndarray
    num_children: np.ndarray
    slot: np.ndarray
    board: np.ndarray
    amount: np.ndarray
    sd_row: np.ndarray
    chance_weight: np.ndarray
    template: np.ndarray
    hands: tuple[np.ndarray, np.ndarray]
    valid: tuple[np.ndarray, np.ndarray]
    same: tuple[np.ndarray, np.ndarray]
    sd_order: tuple[np.ndarray, np.ndarray]
    sd_strength: tuple[np.ndarray, np.ndarray]
    sd_cards: tuple[np.ndarray, np.ndarray]
    boards: list[tuple[tuple[int, ...], ...]]
    betting: list[str]
    labels: list[list[str]]
    num_slots: int
    decision_nodes: tuple[np.ndarray, np.ndarray]
    #: Per node: the leaf number of a LEAF node, -1 elsewhere.
    leaf_index: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    #: Per leaf: its node, whether it is an all-in equity leaf, and the state where the tree stops.
    leaf_nodes: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    leaf_equity: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    leaf_states: list[State] = field(default_factory=list)
    #: The last round played inside the tree (``game.num_rounds - 1`` when not depth-limited).
    last_round: int = -1
    #: Per player, the terminal tables of :mod:`pokerbot.solver.payoffs` from its side (``uint32``): for
    #: :func:`~pokerbot.solver.payoffs.showdown_sorted_into` ``(o_order, gidx, cl)`` stacked over the showdown
    #: boards (the opponent's hands by strength, where each hand's terms sit, the opponent's hands by card);
    #: for :func:`~pokerbot.solver.payoffs.fold_tables_into` ``(cards_t, o_card_hands, same)``.
    sd_tables: tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]] = ((), ())
    fold_tables: tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]] = ((), ())
    #: Suit isomorphism (``build_tree(suit_symmetry=...)``): per node, where its twin deals start in the
    #: ``iso_*`` entries and how many (0 without symmetry); per entry the twin's board id and its suit
    #: permutation; per player, ``iso_perm[p][g, h]`` = the hand that ``h`` stands for in the canonical deal.
    iso_first: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    iso_count: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    iso_board: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    iso_g: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    iso_perm: tuple[np.ndarray, np.ndarray] = field(
        default_factory=lambda: (np.zeros((0, 0), dtype=np.int32), np.zeros((0, 0), dtype=np.int32)))
    #: The equity tables of the all-in (equity) leaves by board id, player 0's side and its transpose
    #: (:class:`pokerbot.solver.leaves.EquityTable`, :func:`pokerbot.solver.leaves.equity_entry`): filled on
    #: first use. A caller may seed them (an estimate, precomputed tables) or hand the same dictionaries to
    #: several trees of one board.
    equity_tables: dict[int, EquityTable] = field(default_factory=dict, repr=False, compare=False)
    equity_tables_t: dict[int, EquityTable] = field(default_factory=dict, repr=False, compare=False)
    #: What the solver derives from the tree once and reuses (pass plans, leaf layouts, parents, best-response
    #: perspectives, work arrays), by name: one home for those caches, filled by the modules that need them.
    derived: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def num_leaves(self) -> int:
        return int(self.leaf_nodes.shape[0])

    @property
    def continuation_leaves(self) -> np.ndarray:
        """Leaf numbers of the continuation (non-equity) leaves."""
        return np.nonzero(~self.leaf_equity)[0]

    @property
    def num_nodes(self) -> int:
        return int(self.kind.shape[0])

    @property
    def num_hands(self) -> tuple[int, int]:
        return (int(self.hands[0].shape[0]), int(self.hands[1].shape[0]))

    @property
    def root_board(self) -> int:
        return int(self.board[0])

    def hand_text(self, player: int, h: int) -> str:
        return format_cards(self.hands[player][h])

    def board_text(self, board_id: int) -> str:
        """The board grouped by round as in infoset keys: '', '/Qs', '/2c3c4c/5d'."""
        return "/".join(format_cards(g) for g in self.boards[board_id])

    def infoset_key(self, node: int, player: int, h: int) -> str:
        """The :mod:`pokerbot.infoset` key of hand ``h`` of ``player`` at decision ``node``."""
        return f"{self.hand_text(player, h)}{self.board_text(int(self.board[node]))}:{self.betting[int(self.template[node])]}"

    def node_labels(self, node: int) -> list[str]:
        return self.labels[int(self.template[node])]

    def memory_bytes(self, arrays_per_slot: int = 3, itemsize: int = 8) -> int:
        """Bytes of the tree arrays plus ``arrays_per_slot`` strategy-sized arrays."""
        own = sum(
            a.nbytes
            for a in (self.kind, self.player, self.first_child, self.num_children, self.slot, self.board,
                      self.amount, self.sd_row, self.chance_weight, self.template)
        )
        for p in range(2):
            own += sum(
                a.nbytes
                for a in (self.hands[p], self.valid[p], self.same[p], self.sd_order[p], self.sd_strength[p], self.sd_cards[p],
                          *self.sd_tables[p], *self.fold_tables[p])
            )
        return own + arrays_per_slot * itemsize * self.num_slots


def hand_list(game: GameDef, exclude: Collection[int] = ()) -> np.ndarray:
    """Every hole-card combination of ``game`` using no card of ``exclude``, in the solver's hand order
    (cards high to low): ``int32`` rows of ``num_hole_cards`` cards."""
    cards = [c for c in sorted(game.deck(), reverse=True) if c not in set(exclude)]
    combos = list(itertools.combinations(cards, game.num_hole_cards))
    return np.array(combos, dtype=np.int32).reshape(len(combos), game.num_hole_cards)


def hand_universe(game: GameDef) -> np.ndarray:
    """Every hole-card combination of ``game`` in the solver's order (:func:`hand_list`), one shared read-only array.

    The hand list of the blueprint's per-hand strategies (:class:`blueprint.policy.BlueprintPolicy`) and of the
    real-time agent's ranges; its subgames list the part their board does not block, and :func:`universe_rows`
    carries vectors between the two.

    >>> from pokerbot.gamedef import load_game
    >>> hand_universe(load_game("leduc-nl")).shape
    (6, 1)
    """
    return _universe(game)


def universe_rows(tree: PublicTree, player: int) -> np.ndarray:
    """The row of :func:`hand_universe` of each of ``player``'s hands in ``tree`` (``int64``, cached on the tree):
    what carries a range or a strategy between a tree's hand list and the game's whole one.

    >>> from pokerbot.gamedef import load_game
    >>> game = load_game("leduc-nl")
    >>> from pokerbot.state import State
    >>> root = State.from_betting(game, "cc/", board_cards=[game.deck()[0]])
    >>> tree = build_tree(game, root=root, hands=(hand_list(game, [game.deck()[0]]),) * 2)
    >>> universe_rows(tree, 0).tolist()
    [0, 1, 2, 3, 4]
    """
    key = f"universe_rows{player}"
    rows = tree.derived.get(key)
    if rows is None:
        index = _universe_index(tree.game)
        try:
            rows = np.array([index[tuple(r)] for r in tree.hands[player].tolist()], dtype=np.int64)
        except KeyError as exc:
            raise SolverError(f"player {player}'s hand {list(exc.args[0])} is not in {tree.game.name}'s hand list") from None
        rows.setflags(write=False)
        tree.derived[key] = rows
    return rows


@lru_cache(maxsize=8)
def _universe_index(game: GameDef) -> dict[tuple[int, ...], int]:
    return {tuple(r): i for i, r in enumerate(hand_universe(game).tolist())}


@lru_cache(maxsize=8)
def _universe(game: GameDef) -> np.ndarray:
    out = hand_list(game)
    out.setflags(write=False)
    return out


def _strengths(hands: np.ndarray, board: tuple[int, ...]) -> np.ndarray:
    """Showdown strength of each hand on a full ``board`` (-1 where the hand shares a card with it)."""
    from pokerbot.solver.strength import hand_strengths

    return hand_strengths(np.ascontiguousarray(hands, dtype=np.int64), np.array(board, dtype=np.int64))


def _split_board(game: GameDef, state: State) -> tuple[tuple[int, ...], ...]:
    board = state.visible_board
    groups = []
    for r in range(state.round + 1):
        groups.append(tuple(sorted(board[game.board_cards_before(r) : game.board_cards_through(r)])))
    return tuple(groups)


def build_tree(
    game: GameDef,
    bet_menu: BetMenuFn | None = None,
    root: State | None = None,
    hands: tuple[np.ndarray, np.ndarray] | None = None,
    depth_limit: int | None = None,
    deal_at_root: bool = False,
    suit_symmetry: Sequence[Sequence[int]] = (),
    deals: Mapping[int, Collection[tuple[int, ...]]] | None = None,
) -> PublicTree:
    """The public tree of ``game`` from ``root`` (default: the start of a hand).

    ``root`` may be any unfinished state whose visible board cards are known
    (a subgame), or, with ``deal_at_root``, a state at the start of a round whose
    cards are not dealt yet (the tree then starts with that deal); hole cards in it
    are ignored. ``hands`` optionally gives each
    player's hand list (arrays (H, k) of cards); by default every combination
    of ``k`` cards that misses the root board.

    ``depth_limit``: ``None`` builds to the end of the game; ``0`` stops at the
    end of the root's round, ``N`` after ``N`` more rounds. Where the next
    round would be dealt the tree has a continuation ``LEAF``; an all-in
    run-out past the limit ends in an equity ``LEAF`` (see the module docstring).

    ``suit_symmetry``: suit permutations (``g[suit] = image``) under which the root's
    board, both hand lists and the ranges the tree will be solved from are unchanged.
    A one-card deal then gets one child per orbit of the permutations that also fix the
    board dealt so far; the other deals are valued as that child with the hands permuted
    (``iso_*`` arrays). Exact only for ranges invariant under the permutations (the
    caller's promise; :class:`~pokerbot.solver.spot.Spot` checks it).

    ``deals``: for a round ``r``, a sample of that round's deals standing for all of them
    (``{2: [(c1,), (c2,)]}``: two turn cards). Where that round is dealt, the tree holds
    only the sampled deals that miss the board so far, each weighted by (possible deals /
    kept deals) times its usual chance weight: a value on the tree estimates the whole
    tree's without bias when the deals are drawn uniformly at random (and is exact with
    every deal kept); over a partition of the deals, the parts' values weighted by their
    shares of the deals add up to the whole tree's.

    Raises :class:`SolverError` for games the solver does not handle (not two
    players, more than two hole cards), a root without its board, or a menu
    that returns illegal actions.
    """
    if game.num_players != 2:
        raise SolverError(f"the solver handles two-player games, {game.name or 'game'} has {game.num_players}")
    if game.num_hole_cards > 2:
        raise SolverError(f"the solver handles up to two hole cards, {game.name or 'game'} has {game.num_hole_cards}")
    menu = bet_menu if bet_menu is not None else default_menu(game)
    if root is None:
        root = State.initial(game)
    if root.game != game:
        raise SolverError("root state belongs to another game")
    if root.finished:
        raise SolverError(f"root state {root.betting_string()!r} is a finished hand")
    if depth_limit is not None and depth_limit < 0:
        raise SolverError(f"depth_limit must be >= 0 rounds (or None for no limit), got {depth_limit}")
    last_round = game.num_rounds - 1 if depth_limit is None else min(game.num_rounds - 1, root.round + depth_limit)
    # A root at the start of a round whose cards are not dealt yet starts with that deal.
    deal_at_root = (
        deal_at_root and root.round > 0 and game.num_board_cards[root.round] > 0
        and len(root.visible_board) == game.board_cards_before(root.round)
    )
    if len(root.visible_board) != game.board_cards_through(root.round) and not deal_at_root:
        raise SolverError(
            f"root state at round {root.round} needs {game.board_cards_through(root.round)} board cards "
            f"(or {game.board_cards_before(root.round)} with deal_at_root=True), has {len(root.visible_board)}"
        )
    if deals and suit_symmetry:
        raise SolverError("deals and suit_symmetry cannot be combined")
    only: dict[int, set[tuple[int, ...]]] = {}
    for r, cards in (deals or {}).items():
        if not 0 < r < game.num_rounds or game.num_board_cards[r] == 0:
            raise SolverError(f"deals: round {r} deals no board cards")
        only[r] = {tuple(sorted(int(c) for c in d)) for d in cards}
        if any(len(d) != game.num_board_cards[r] or len(set(d)) != len(d) for d in only[r]):
            raise SolverError(f"deals: round {r} deals {game.num_board_cards[r]} distinct cards")
    root_board = _split_board(game, root)
    if deal_at_root:
        root_board = root_board[: root.round]
    root_cards = {c for g in root_board for c in g}
    k = game.num_hole_cards
    if hands is None:
        h = hand_list(game, root_cards)
        hand_lists: tuple[np.ndarray, ...] = (h, h.copy())
    else:
        hand_lists = tuple(np.sort(np.asarray(x, dtype=np.int32).reshape(-1, k), axis=1)[:, ::-1].copy() for x in hands)
        for p, hl in enumerate(hand_lists):
            if hl.shape[0] == 0:
                raise SolverError(f"player {p} has no hands")
            for row in hl:
                if len(set(row.tolist())) != k or not set(row.tolist()) <= set(game.deck()):
                    raise SolverError(f"player {p}: bad hand {row.tolist()} for this deck")

    template_root = betting_tree(root, menu, last_round)
    if deal_at_root:
        template_root = BettingNode(CHANCE, deal_round=root.round, children=[template_root],
                                    betting=root.betting_string(), round=root.round, spent=tuple(root.spent))

    # Number the template nodes (for betting strings / labels).
    betting: list[str] = []
    labels: list[list[str]] = []
    tmpl_ids: dict[int, int] = {}

    def number(t: BettingNode) -> None:
        tmpl_ids[id(t)] = len(betting)
        betting.append(t.betting)
        labels.append(t.labels)
        for c in t.children:
            number(c)

    number(template_root)

    boards: list[tuple[tuple[int, ...], ...]] = []
    board_ids: dict[tuple[tuple[int, ...], ...], int] = {}

    def board_id(b: tuple[tuple[int, ...], ...]) -> int:
        i = board_ids.get(b)
        if i is None:
            i = board_ids[b] = len(boards)
            boards.append(b)
        return i

    deck_cards = sorted(game.deck())
    kind: list[int] = []
    player: list[int] = []
    first_child: list[int] = []
    num_children: list[int] = []
    board: list[int] = []
    amount: list[float] = []
    chance_w: list[float] = []
    template: list[int] = []
    leaf_of: dict[int, BettingNode] = {}
    ns = game.num_suits
    perms = [tuple(int(x) for x in g) for g in suit_symmetry if tuple(g) != tuple(range(ns))]
    for g in perms:
        if sorted(g) != list(range(ns)):
            raise SolverError(f"suit permutation {g} is not a permutation of the {ns} suits")
    iso_of: dict[int, list[tuple[int, int]]] = {}

    def new_node() -> int:
        kind.append(0)
        player.append(-1)
        first_child.append(-1)
        num_children.append(0)
        board.append(-1)
        amount.append(0.0)
        chance_w.append(0.0)
        template.append(-1)
        return len(kind) - 1

    def fill(n: int, t: BettingNode, b: int) -> None:
        kind[n] = t.kind
        player[n] = t.player
        board[n] = b
        amount[n] = t.amount
        template[n] = tmpl_ids[id(t)]
        if t.kind == LEAF:
            leaf_of[n] = t
        if t.kind == DECISION:
            first = len(kind)
            for _ in t.children:
                new_node()
            first_child[n] = first
            num_children[n] = len(t.children)
            for i, c in enumerate(t.children):
                fill(first + i, c, b)
        elif t.kind == CHANCE:
            current = boards[b]
            used = {c for g in current for c in g}
            remaining = [c for c in deck_cards if c not in used]
            ncards = game.num_board_cards[t.deal_round]
            outcomes = list(itertools.combinations(remaining, ncards))
            possible = len(outcomes)
            if t.deal_round in only:
                outcomes = [d for d in outcomes if tuple(sorted(d)) in only[t.deal_round]]
                if not outcomes:
                    raise SolverError(f"deals: none of round {t.deal_round}'s deals is possible on board {format_cards(sorted(used))}")
            free = game.deck_size - len(used) - 2 * k
            denom = math.comb(free, ncards)
            if denom <= 0:
                raise SolverError("not enough cards to deal the board")
            chance_w[n] = possible / len(outcomes) / denom
            # Deals equivalent under a suit permutation that fixes the board: one child stands for its orbit.
            orbit: dict[tuple[int, ...], list[tuple[tuple[int, ...], int]]] = {}
            stab = [i for i, g in enumerate(perms) if {_map_card(g, c, ns) for c in used} == used] if perms else []
            if stab and ncards == 1:
                canonical = []
                for cards in outcomes:
                    rep = min([cards] + [(_map_card(perms[i], cards[0], ns),) for i in stab])
                    if rep == cards:
                        canonical.append(cards)
                        orbit.setdefault(cards, [])
                    else:
                        # perms[g] maps the canonical deal onto this one: find g with g(rep) = cards.
                        g = next(i for i in stab if (_map_card(perms[i], rep[0], ns),) == cards)
                        orbit.setdefault(rep, []).append((cards, g))
                outcomes = canonical
            first = len(kind)
            for _ in outcomes:
                new_node()
            first_child[n] = first
            num_children[n] = len(outcomes)
            # Rounds between the current board and this deal with no cards get empty groups.
            for i, cards in enumerate(outcomes):
                groups = list(current)
                while len(groups) < t.deal_round:
                    groups.append(())
                groups.append(tuple(cards))
                fill(first + i, t.children[0], board_id(tuple(groups)))
                for other, g in orbit.get(cards, ()):
                    twin = list(groups[:-1]) + [tuple(other)]
                    iso_of.setdefault(first + i, []).append((board_id(tuple(twin)), g))

    root_id = new_node()
    fill(root_id, template_root, board_id(root_board))

    kind_a = np.array(kind, dtype=np.int8)
    player_a = np.array(player, dtype=np.int8)
    nc_a = np.array(num_children, dtype=np.int32)
    fc_a = np.array(first_child, dtype=np.int32)
    board_a = np.array(board, dtype=np.int32)
    nh = (hand_lists[0].shape[0], hand_lists[1].shape[0])
    slot_a = np.full(len(kind), -1, dtype=np.int64)
    dec = np.nonzero(kind_a == DECISION)[0]
    sizes = nc_a[dec].astype(np.int64) * np.where(player_a[dec] == 0, nh[0], nh[1])
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    slot_a[dec] = offsets[:-1]
    num_slots = int(offsets[-1])

    # Full boards at showdown nodes.
    full = game.num_rounds
    sd_row = np.full(len(kind), -1, dtype=np.int32)
    sd_boards: dict[int, int] = {}
    for n in np.nonzero(kind_a == SHOWDOWN)[0]:
        b = int(board_a[n])
        groups = boards[b]
        if len(groups) != full:
            groups = tuple(list(groups) + [()] * (full - len(groups)))
        if sum(len(g) for g in groups) != game.total_board_cards:
            raise SolverError("showdown without the full board")  # pragma: no cover
        row = sd_boards.get(b)
        if row is None:
            row = sd_boards[b] = len(sd_boards)
        sd_row[n] = row

    hand_masks = [np.array([cards_to_mask(r.tolist()) for r in hl], dtype=np.int64) for hl in hand_lists]
    board_masks = np.array([cards_to_mask([c for g in bd for c in g]) for bd in boards], dtype=np.int64)
    valid = tuple(((hm[None, :] & board_masks[:, None]) == 0).astype(np.float64) for hm in hand_masks)
    iso_first = np.zeros(len(kind), dtype=np.int64)
    iso_count = np.zeros(len(kind), dtype=np.int32)
    iso_board_l: list[int] = []
    iso_g_l: list[int] = []
    for child in sorted(iso_of):
        iso_first[child] = len(iso_board_l)
        iso_count[child] = len(iso_of[child])
        for bid, perm_index in iso_of[child]:
            iso_board_l.append(bid)
            iso_g_l.append(perm_index)
    iso_perm = tuple(_hand_permutations(hand_lists[p], perms, ns) for p in range(2)) if iso_board_l else (
        np.zeros((0, nh[0]), dtype=np.int32), np.zeros((0, nh[1]), dtype=np.int32))
    sd_order = []
    sd_strength = []
    sd_list = sorted(sd_boards.items(), key=lambda kv: kv[1])
    for p in range(2):
        order = np.zeros((len(sd_list), nh[p]), dtype=np.int32)
        stren = np.zeros((len(sd_list), nh[p]), dtype=np.int32)
        for b, row in sd_list:
            s = _strengths(hand_lists[p], tuple(c for g in boards[b] for c in g))
            o = np.argsort(s, kind="stable").astype(np.int32)
            order[row] = o
            stren[row] = s[o]
        sd_order.append(order)
        sd_strength.append(stren)
    t0 = _showdown_tables(hand_lists[0], hand_lists[1], sd_order[0], sd_strength[0], sd_order[1], sd_strength[1])
    same_lists = np.array_equal(hand_lists[0], hand_lists[1])
    t1 = t0 if same_lists else _showdown_tables(hand_lists[1], hand_lists[0], sd_order[1], sd_strength[1],
                                                sd_order[0], sd_strength[0])
    sd_tables = (t0, t1)
    index_of = [{tuple(r.tolist()): i for i, r in enumerate(hl)} for hl in hand_lists]
    same = tuple(
        np.array([index_of[1 - p].get(tuple(r.tolist()), -1) for r in hand_lists[p]], dtype=np.int32) for p in range(2)
    )
    fold_tables = tuple(_fold_tables(hand_lists[p], hand_lists[1 - p], same[p]) for p in range(2))
    decision_nodes = tuple(dec[player_a[dec] == p].astype(np.int64) for p in range(2))
    leaf_nodes = np.array(sorted(leaf_of), dtype=np.int64)
    leaf_index = np.full(len(kind), -1, dtype=np.int32)
    leaf_index[leaf_nodes] = np.arange(len(leaf_nodes), dtype=np.int32)
    return PublicTree(
        game=game,
        root_state=root,
        kind=kind_a,
        player=player_a,
        first_child=fc_a,
        num_children=nc_a,
        slot=slot_a,
        board=board_a,
        amount=np.array(amount, dtype=np.float64),
        sd_row=sd_row,
        chance_weight=np.array(chance_w, dtype=np.float64),
        template=np.array(template, dtype=np.int32),
        hands=(hand_lists[0], hand_lists[1]),
        valid=(valid[0], valid[1]),
        same=(same[0], same[1]),
        sd_order=(sd_order[0], sd_order[1]),
        sd_strength=(sd_strength[0], sd_strength[1]),
        sd_cards=(np.ascontiguousarray(hand_lists[0][sd_order[0]]), np.ascontiguousarray(hand_lists[1][sd_order[1]])),
        boards=boards,
        betting=betting,
        labels=labels,
        num_slots=num_slots,
        decision_nodes=(decision_nodes[0], decision_nodes[1]),
        leaf_index=leaf_index,
        leaf_nodes=leaf_nodes,
        leaf_equity=np.array([leaf_of[int(n)].equity for n in leaf_nodes], dtype=bool),
        leaf_states=cast("list[State]", [leaf_of[int(n)].state for n in leaf_nodes]),  # a LEAF node has its state
        last_round=last_round,
        sd_tables=(sd_tables[0], sd_tables[1]),
        fold_tables=(fold_tables[0], fold_tables[1]),
        iso_first=iso_first,
        iso_count=iso_count,
        iso_board=np.array(iso_board_l, dtype=np.int32),
        iso_g=np.array(iso_g_l, dtype=np.int32),
        iso_perm=(iso_perm[0], iso_perm[1]),
    )


def _map_card(g: Sequence[int], card: int, num_suits: int) -> int:
    """``card`` with its suit replaced by ``g[suit]``."""
    return (card // num_suits) * num_suits + g[card % num_suits]


def _hand_permutations(hands: np.ndarray, perms: Sequence[Sequence[int]], num_suits: int) -> np.ndarray:
    """``out[i, h]``: the index of hand ``g_i^-1(h)`` in ``hands`` for each suit permutation ``g_i``."""
    index = {tuple(sorted(r.tolist())): j for j, r in enumerate(hands)}
    out = np.zeros((len(perms), hands.shape[0]), dtype=np.int32)
    for i, g in enumerate(perms):
        inv = [0] * num_suits
        for a, b in enumerate(g):
            inv[b] = a
        for h, row in enumerate(hands):
            key = tuple(sorted(_map_card(inv, int(c), num_suits) for c in row))
            j = index.get(key)
            if j is None:
                raise SolverError(f"the hand list is not closed under the suit permutation {tuple(g)}: "
                                  f"{format_cards(row.tolist())} has no image")
            out[i, h] = j
    return out


def _showdown_tables(t_hands: np.ndarray, o_hands: np.ndarray, t_order: np.ndarray, t_sorted: np.ndarray,
                     o_order: np.ndarray, o_sorted: np.ndarray) -> tuple[np.ndarray, ...]:
    """The tables of :func:`pokerbot.solver.payoffs.showdown_sorted_into` for every showdown board, from
    the side of the player holding ``t_hands``: ``(o_order, gidx, cl)`` stacked over boards, ``uint32``."""
    from pokerbot.solver.payoffs import showdown_tables

    rows, nt = t_order.shape
    no, k = o_hands.shape
    per_card = np.bincount(o_hands.reshape(-1), minlength=52)
    L = max(int(per_card.max()), 1)
    if no + 1 + (L + 1) * 52 >= 2**32:
        raise SolverError(f"{no:,} hands are more than the showdown tables index")  # pragma: no cover
    gidx = np.zeros((rows, 3 + 3 * k, nt), dtype=np.uint32)
    cl = np.zeros((rows, L, 52), dtype=np.uint32)
    scratch = np.zeros((52, L), dtype=np.int64)
    t_str = np.empty(nt, dtype=np.int32)
    o_str = np.empty(no, dtype=np.int32)
    for r in range(rows):
        t_str[t_order[r]] = t_sorted[r]
        o_str[o_order[r]] = o_sorted[r]
        showdown_tables(t_hands, o_hands, t_str, o_str, o_order[r], gidx[r], cl[r], scratch)
    return np.ascontiguousarray(o_order, dtype=np.uint32), gidx, cl


def _fold_tables(t_hands: np.ndarray, o_hands: np.ndarray, same: np.ndarray) -> tuple[np.ndarray, ...]:
    """The tables of :func:`pokerbot.solver.payoffs.fold_tables_into` from the side of the player holding
    ``t_hands``: its cards by position, the opponent's hands by card, the identical opponent hand
    (``len(o_hands)`` where none), all ``uint32``."""
    from pokerbot.solver.payoffs import card_hands

    no = o_hands.shape[0]
    per_card = np.bincount(o_hands.reshape(-1), minlength=52)
    rows = max(int(per_card.max()), 1)
    return (np.ascontiguousarray(t_hands.T, dtype=np.uint32), card_hands(np.ascontiguousarray(o_hands), rows),
            np.where(same >= 0, same, no).astype(np.uint32))


def estimate_size(game: GameDef, bet_menu: BetMenuFn | None = None) -> tuple[int, int, int]:
    """``(public nodes, strategy entries, bytes)`` of the whole game's public tree and a solver on it, estimated
    from its betting tree (no cards: seconds even for HUNL) before anything large is built.

    Each betting node of round ``r`` is counted once per board dealt by then and each decision's actions once
    per hand of the deck (the vectors hold every hand, blocked ones masked); bytes are three solver arrays an
    entry (regrets, sums, strategy) at the dtype the solver picks, and a few arrays a node.

    >>> from pokerbot.gamedef import load_game
    >>> nodes, slots, size = estimate_size(load_game("kuhn"))
    >>> build_tree(load_game("kuhn")).num_slots == slots
    True
    """
    from math import comb

    from pokerbot.solver.cfr import storage_dtype

    menu = bet_menu if bet_menu is not None else default_menu(game)
    root = betting_tree(State.initial(game), menu)
    boards: list[int] = []  # per round: the boards dealt by then
    on_board = 0
    for r in range(game.num_rounds):
        boards.append((boards[-1] if boards else 1) * comb(game.deck_size - on_board, game.num_board_cards[r]))
        on_board += game.num_board_cards[r]
    hands = comb(game.deck_size, game.num_hole_cards)  # the vectors hold every hand (blocked ones masked)
    nodes = slots = 0
    stack = [root]
    while stack:
        node = stack.pop()
        r = min(node.round, game.num_rounds - 1)
        nodes += boards[r]
        if node.kind == DECISION:
            slots += boards[r] * len(node.actions) * hands
        stack.extend(node.children)
    itemsize = storage_dtype(slots).itemsize
    return nodes, slots, 3 * itemsize * slots + 64 * nodes
