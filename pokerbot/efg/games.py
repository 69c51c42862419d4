"""The small games of the KLSS paper (Appendix B), as explicit :class:`~pokerbot.efg.game.Game` s.

Rule variants follow the paper's Appendix B (Zhang & Sandholm, "Subgame solving without
common knowledge"); its Table 2 gives the node / decision-infoset counts these builders
reproduce (tests assert them):

=============================  ======  =========
game                           nodes   infosets
=============================  ======  =========
``matching_pennies(100)``         701        101
``kuhn()``                         58         12
``leduc()``                     9,457        936
``liars_dice()``               51,181      5,120
``goofspiel(random_order=True)``  26,773   3,608
``goofspiel()`` (increasing)    1,077        162
``dark_hex()`` (abrupt, 2×2)      471         94
=============================  ======  =========

Kuhn and Leduc come from the project's own engine (:class:`pokerbot.state.State` over
the shipped ``.game`` files): one source of rules. Every node gives both players an
observation (card deals to their owner, betting actions to both), as the paper needs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from pokerbot.actions import action_text
from pokerbot.cards import format_card
from pokerbot.efg.game import CHANCE, Branch, EfgError, Game, Leaf, Move, build_game
from pokerbot.efg.scotland_yard import scotland_yard
from pokerbot.efg.tictactoe import tic_tac_toe
from pokerbot.gamedef import GameDef, load_game
from pokerbot.infoset import infoset_key as solver_infoset_key
from pokerbot.menus import BetMenuFn
from pokerbot.solver.tree import default_menu
from pokerbot.state import Action, ActionType, State

# --- poker from the engine -------------------------------------------------------------


@dataclass(frozen=True)
class _PokerNode:
    state: State
    dealt: tuple[tuple[int, ...], ...]  # each player's hole cards dealt so far, in player order
    board_pending: bool  # board cards are due before the next action


def _cards(cs: tuple[int, ...]) -> str:
    return "".join(format_card(c) for c in cs)


def poker_game(game: GameDef, name: str | None = None, bet_menu: BetMenuFn | None = None) -> Game:
    """A two-player limit poker game expanded from the engine: chance deals player 0's hole
    cards (seen by her), then player 1's, then betting (public) with a chance node dealing
    each round's board cards (public). A chance move deals a whole hand or a round's whole
    board at once, as one unordered set of cards (labelled by its cards, e.g. ``"KhKs"``),
    so the depth stays common knowledge and with one card it is the card itself.

    A no-limit game needs an action abstraction: ``bet_menu`` (default the solver's
    :func:`~pokerbot.solver.tree.default_menu`, the same tree as :func:`pokerbot.solver.game_tree`);
    its actions are labelled by their ACPC text (``"r300"``)."""
    if game.num_players != 2:
        raise EfgError(f"{game.name or 'game'}: poker_game needs a 2-player game")
    menu = bet_menu or (default_menu(game) if game.nolimit else None)
    full_board = game.board_cards_through(game.num_rounds - 1)
    deck = game.deck()
    start = State.initial(game)
    k = game.num_hole_cards

    def expand(n: _PokerNode) -> Branch | Leaf:
        if len(n.dealt) < 2:
            p = len(n.dealt)
            used = {c for hand in n.dealt for c in hand}
            hands = list(combinations([c for c in deck if c not in used], k))
            moves = []
            for hand in hands:
                lab = _cards(hand)
                obs = (lab, "") if p == 0 else ("", lab)
                dealt = n.dealt + (hand,)
                state = n.state if len(dealt) < 2 else n.state.with_cards(hole_cards=dealt)
                moves.append(Move(lab, _PokerNode(state, dealt, False), 1.0 / len(hands), obs))
            return Branch(CHANCE, moves)
        s = n.state
        if n.board_pending:
            used = {c for hand in n.dealt for c in hand} | set(s.board_cards)
            need = (full_board if s.finished else game.board_cards_through(s.round)) - len(s.board_cards)
            boards = list(combinations([c for c in deck if c not in used], need))
            moves = [
                Move(_cards(b), _PokerNode(s.with_cards(board_cards=s.board_cards + b), n.dealt, False),
                     1.0 / len(boards), (_cards(b), _cards(b)))
                for b in boards
            ]
            return Branch(CHANCE, moves)
        if s.finished:
            pay = s.payoffs()
            return Leaf((pay[0], pay[1]))
        moves = []
        actions = [Action(kind) for kind in s.legal_kinds()] if menu is None else menu(s)
        for a in actions:
            nxt = s.apply(a)
            due = ((not nxt.finished and nxt.round > s.round
                    and len(nxt.board_cards) < game.board_cards_through(nxt.round))
                   or (nxt.is_showdown() and len(nxt.board_cards) < full_board))  # all in: run the board out
            lab = ActionType(a.kind).char if menu is None else action_text(a, game.nolimit)
            moves.append(Move(lab, _PokerNode(nxt, n.dealt, due), 1.0, (lab, lab)))
        player = s.current_player
        assert player is not None
        return Branch(player, moves)

    return build_game(name or game.name or "poker", _PokerNode(start, (), False), expand, keep_states=True)


def infoset_key(game: Game, player: int, d: int) -> str:
    """The project solver's infoset key (``"Ks/Qh:rc/r"``: own cards, board by round, betting;
    :func:`pokerbot.infoset.infoset_key`) of decision infoset ``d`` of a :func:`poker_game`,
    so policies can move between the two."""
    node = game.states[int(game.decision_nodes(player, d)[0])]
    return solver_infoset_key(node.state, player)


def policy_to_behavioral(game: Game, player: int, policy: Mapping[str, Mapping[str, float]]) -> np.ndarray:
    """A behavioural strategy of ``player`` from a solver policy dict (``{key: {label: p}}``,
    see :mod:`pokerbot.solver.policy`); missing infosets play uniformly."""
    tp = game.treeplex(player)
    beh = np.ones(tp.num_seqs)
    for d in range(tp.num_infosets):
        dist = policy.get(infoset_key(game, player, d))
        f, n = int(tp.first_seq[d]), int(tp.num_actions[d])
        if dist is None:
            beh[f : f + n] = 1.0 / n
        else:
            probs = np.array([float(dist.get(lab, 0.0)) for lab in tp.labels[d]])
            beh[f : f + n] = probs / probs.sum()
    return beh


def kuhn() -> Game:
    """Kuhn poker from ``kuhn.limit.2p.game`` (58 nodes, 12 infosets; value -1/18)."""
    return poker_game(load_game("kuhn"), "kuhn")


def leduc() -> Game:
    """3-rank limit Leduc from ``leduc.limit.2p.game`` (9,457 nodes, 936 infosets; value -0.0856)."""
    return poker_game(load_game("leduc"), "leduc")


# --- matching pennies ------------------------------------------------------------------


def matching_pennies(n: int = 100) -> Game:
    """N-matching pennies (Appendix B): nature picks k in 1..N uniformly; player 0 observes
    ⌊k/2⌋, player 1 ⌊(k+1)/2⌋; player 0 then player 1 (not seeing it) pick H or T. Both H:
    player 0 gets k; both T: N - k; mismatch 0 (zero-sum)."""
    if n < 2:
        raise EfgError(f"matching pennies needs N >= 2, got {n}")

    def expand(s: Any) -> Branch | Leaf:
        if s is None:
            return Branch(CHANCE, [Move(str(k), (k,), 1.0 / n, (k // 2, (k + 1) // 2)) for k in range(1, n + 1)])
        if len(s) == 1:
            return Branch(0, [Move(a, s + (a,), obs=("", "")) for a in "HT"])
        if len(s) == 2:
            return Branch(1, [Move(a, s + (a,), obs=("", "")) for a in "HT"])
        k, a, b = s
        u = float(k if a == b == "H" else n - k if a == b == "T" else 0)
        return Leaf((u, -u))

    return build_game(f"{n}-matching-pennies", None, expand)


def hidden_pennies(n: int) -> Game:
    """Proposition 3's game: nature picks k in 1..N uniformly and tells only player 0; then
    matching pennies where player 1 wins on a match (payoff ±1)."""
    if n < 2:
        raise EfgError(f"hidden pennies needs N >= 2, got {n}")

    def expand(s: Any) -> Branch | Leaf:
        if s is None:
            return Branch(CHANCE, [Move(str(k), (k,), 1.0 / n, (k, "")) for k in range(1, n + 1)])
        if len(s) < 3:
            return Branch(len(s) - 1, [Move(a, s + (a,)) for a in "HT"])
        u = -1.0 if s[1] == s[2] else 1.0
        return Leaf((u, -u))

    return build_game(f"{n}-hidden-pennies", None, expand)


def klss_example() -> Game:
    """The worked example of Zhang & Sandholm, "Subgame solving without common knowledge"
    (Figs. 1-3, section 5 and Appendix C; we reconstructed the leaf payoffs from Appendix
    C's matrix entries): nature picks 1..5 uniformly; at k <= 4 player 0 picks h/t, then
    player 1 (not seeing it); u(k,h,h) = k, u(k,t,t) = 5 - k, mismatch 0; k = 5 ends at 0.
    Player 0 observes {1,2} / {3,4}; player 1 observes {1} / {2,3} / {4}."""

    def expand(s: Any) -> Branch | Leaf:
        if s is None:
            return Branch(CHANCE, [Move(str(k), (k,), 0.2, ((k + 1) // 2, k // 2)) for k in range(1, 6)])
        if s[0] == 5:
            return Leaf((0.0, 0.0))
        if len(s) < 3:
            return Branch(len(s) - 1, [Move(a, s + (a,)) for a in "ht"])
        k, a, b = s
        u = float(k if a == b == "h" else 5 - k if a == b == "t" else 0)
        return Leaf((u, -u))

    return build_game("klss-example", None, expand)


# --- Liar's dice -----------------------------------------------------------------------


def liars_dice(faces: int = 5) -> Game:
    """Liar's dice with one ``faces``-sided die each (OpenSpiel ``liars_dice``): bids
    "q-f" (q in 1..2, f in 1..faces) strictly increasing in (q, f) order, or "liar" once a
    bid stands. The highest face is wild. Calling liar on a true bid loses; ±1."""

    bids = [(q, f) for q in (1, 2) for f in range(1, faces + 1)]

    def expand(s: Any) -> Branch | Leaf:
        dice, hist = s
        if len(dice) < 2:
            p = len(dice)
            return Branch(CHANCE, [
                Move(str(f), (dice + (f,), ()), 1.0 / faces, (str(f), "") if p == 0 else ("", str(f)))
                for f in range(1, faces + 1)
            ])
        if hist and hist[-1] == -1:
            q, f = bids[hist[-2]]
            count = sum(1 for d in dice if d == f or d == faces)
            caller = (len(hist) - 1) % 2
            caller_wins = count < q
            u = 1.0 if (caller == 0) == caller_wins else -1.0
            return Leaf((u, -u))
        start = hist[-1] + 1 if hist else 0
        moves = [Move(f"{bids[b][0]}-{bids[b][1]}", (dice, hist + (b,)), obs=(str(b), str(b))) for b in range(start, len(bids))]
        if hist:
            moves.append(Move("liar", (dice, hist + (-1,)), obs=("liar", "liar")))
        return Branch(len(hist) % 2, moves)

    return build_game(f"liars-dice-{faces}", ((), ()), expand)


# --- Goofspiel -------------------------------------------------------------------------


def goofspiel(cards: int = 4, random_order: bool = False) -> Game:
    """k-card Goofspiel, turn-based (player 0 bids, then player 1 without seeing it); both
    learn only who won each round (not the bid); prizes are 1..k in increasing order or
    revealed one per round by chance; the last round plays itself (forced bids, no
    decision node, no chance node). Payoff: +1 / -1 / 0 by total prize won (a tied round
    gives its prize to nobody)."""
    if cards < 2:
        raise EfgError(f"goofspiel needs at least 2 cards, got {cards}")
    full = tuple(range(1, cards + 1))

    def result(prizes: tuple[int, ...], b0: tuple[int, ...], b1: tuple[int, ...]) -> Leaf:
        left = [p for p in full if p not in prizes]
        prizes = prizes + tuple(left)
        b0 = b0 + tuple(c for c in full if c not in b0)
        b1 = b1 + tuple(c for c in full if c not in b1)
        diff = sum(p * ((x > y) - (x < y)) for p, x, y in zip(prizes, b0, b1))
        u = float((diff > 0) - (diff < 0))
        return Leaf((u, -u))

    def expand(s: Any) -> Branch | Leaf:
        prizes, b0, b1 = s
        rnd = len(b1)
        if rnd == cards - 1 and len(b0) == rnd:
            return result(prizes, b0, b1)
        if len(prizes) == rnd:  # the prize of this round is not out yet
            left = [p for p in full if p not in prizes]
            if not random_order:
                return expand((prizes + (left[0],), b0, b1))
            return Branch(CHANCE, [Move(f"prize{p}", (prizes + (p,), b0, b1), 1.0 / len(left), (f"p{p}", f"p{p}")) for p in left])
        if len(b0) == rnd:
            return Branch(0, [Move(str(c), (prizes, b0 + (c,), b1)) for c in full if c not in b0])
        moves = []
        for c in full:
            if c in b1:
                continue
            won = "w0" if b0[-1] > c else "w1" if b0[-1] < c else "tie"
            moves.append(Move(str(c), (prizes, b0, b1 + (c,)), obs=(won, won)))
        return Branch(1, moves)

    order = "random" if random_order else "increasing"
    return build_game(f"goofspiel-{cards}-{order}", ((), (), ()), expand)


# --- Abrupt dark hex -------------------------------------------------------------------

_HEX_NEIGHBOURS = ((1, 0), (-1, 0), (0, 1), (0, -1), (-1, 1), (1, -1))


def _connected(stones: frozenset[tuple[int, int]], axis: int, size: int) -> bool:
    """Whether ``stones`` join line 0 to line size-1 along ``axis`` (0: rows, 1: columns)."""
    frontier = [s for s in stones if s[axis] == 0]
    seen = set(frontier)
    while frontier:
        r, c = frontier.pop()
        if (r, c)[axis] == size - 1:
            return True
        for dr, dc in _HEX_NEIGHBOURS:
            nb = (r + dr, c + dc)
            if nb in stones and nb not in seen:
                seen.add(nb)
                frontier.append(nb)
    return False


def dark_hex(size: int = 2) -> Game:
    """Abrupt dark hex on a size×size board: player 0 joins row 0 to the last row, player
    1 column 0 to the last column; players see only their own stones and the opponent
    stones they bumped into. Playing onto an occupied cell reveals it and loses the turn
    (abrupt). Win +1, loss -1."""
    cells = [(r, c) for r in range(size) for c in range(size)]

    def expand(s: Any) -> Branch | Leaf:
        stones, known, mover = s  # stones: per player frozenset; known: per player revealed opponent cells
        for p in (0, 1):
            if _connected(stones[p], p, size):
                u = 1.0 if p == 0 else -1.0
                return Leaf((u, -u))
        moves = []
        for cell in cells:
            if cell in stones[mover] or cell in known[mover]:
                continue
            lab = f"{cell[0]}{cell[1]}"
            if cell in stones[1 - mover]:
                new_known = list(known)
                new_known[mover] = known[mover] | {cell}
                child = (stones, tuple(new_known), 1 - mover)
                o = "bump"
            else:
                new_stones = list(stones)
                new_stones[mover] = stones[mover] | {cell}
                child = (tuple(new_stones), known, 1 - mover)
                o = "ok"
            # the opponent sees nothing of the move, except that it ended the game
            other = "end" if _connected(child[0][mover], mover, size) else ""
            moves.append(Move(lab, child, obs=(o, other) if mover == 0 else (other, o)))
        return Branch(mover, moves)

    empty = frozenset()  # type: frozenset[tuple[int, int]]
    return build_game(f"dark-hex-{size}x{size}", ((empty, empty), (empty, empty), 0), expand)


#: The games of Table 1 by name, then larger ones for Student of Games (Scotland Yard on
#: the glasses map, tic-tac-toe, tiny limit flop hold'em); builders, so nothing is built
#: until asked.
GAMES = {
    "dark-hex": dark_hex,
    "goofspiel-random": lambda: goofspiel(4, random_order=True),
    "goofspiel-increasing": lambda: goofspiel(4, random_order=False),
    "kuhn": kuhn,
    "leduc": leduc,
    "liars-dice": liars_dice,
    "matching-pennies": matching_pennies,
    "scotland-yard": scotland_yard,
    "tic-tac-toe": tic_tac_toe,
    "lfh-tiny": lambda: poker_game(load_game("lfh-tiny"), "lfh-tiny"),
}


def load(name: str) -> Game:
    """A game of :data:`GAMES` by name."""
    try:
        return GAMES[name]()
    except KeyError:
        raise EfgError(f"unknown game {name!r}; known: {', '.join(GAMES)}") from None
