"""General-sum games of Ling & Brown, "Safe search for Stackelberg equilibria in
extensive-form games" (Figs. 1-2 of section 3 and the games of section 5), with their
subgame partitions.

Player 0 is the leader, player 1 the follower. Every builder returns a :class:`Game`
built with ``keep_states=True``; :func:`label_subgames` turns a key on the builder's
states into the node -> subgame labels that ``realtime.stackelberg`` searches in
(``-1``: outside every subgame).

=====================================  ==============================================
builder                                 game
=====================================  ==============================================
``figure1()`` / ``figure2()``           the paper's counterexamples (Figs. 1 and 2)
``raked_leduc(n, rake, rule)``          n ranks x 2 suits, 5 raises a round, raked
``goofspiel(n, zero_sum)``              general-sum Goofspiel, random prize order
``two_stage(n, M, m, kappa, seed)``     Table 1's random two-stage games
=====================================  ==============================================

Example (Table 3's sizes, per player):

>>> g = raked_leduc(3)
>>> g.treeplex(0).num_infosets, g.treeplex(0).num_seqs
(2016, 5377)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pokerbot.efg.game import CHANCE, Branch, EfgError, Game, Leaf, Move, build_game

#: A key on a builder's state: the subgame the state belongs to, or ``None``.
SubgameKey = Callable[[Any], Hashable | None]


def label_subgames(game: Game, key: SubgameKey) -> np.ndarray:
    """Node -> subgame id (``-1`` where ``key`` gives ``None``), ids numbered in order of
    first appearance (depth-first)."""
    if len(game.states) != game.num_nodes:
        raise EfgError(f"{game.name}: label_subgames needs a game built with keep_states=True")
    ids: dict[Hashable, int] = {}
    out = np.full(game.num_nodes, -1, dtype=np.int64)
    for h, state in enumerate(game.states):
        k = key(state)
        if k is not None:
            out[h] = ids.setdefault(k, len(ids))
    return out


# --- Figures 1 and 2 -------------------------------------------------------------------

#: The 2x2 subgame matrices (leader row, follower column; payoffs (leader, follower)).
#: Row 0 is the blueprint; the subgame's own SSE is row 1, so naive search turns
#: A's (1, 1) into (2, -1) and B's (0, 0) into (1, 4), as in the paper.
SUBGAME_A = (((1.0, 1.0), (0.0, 0.0)), ((2.0, -1.0), (-1.0, -2.0)))
SUBGAME_B = (((0.0, 0.0), (-1.0, -1.0)), ((1.0, 4.0), (-1.0, 3.0)))


def _matrix_subgame(tag: str, matrix: tuple[tuple[tuple[float, float], ...], ...], prefix: tuple,
                    state: tuple) -> Branch | Leaf:
    """A simultaneous 2x2 subgame after ``prefix``: the leader picks a row, the follower a
    column without seeing it."""
    if len(state) == 0:
        return Branch(0, [Move(f"{tag}r{i}", prefix + (i,)) for i in range(len(matrix))])
    if len(state) == 1:
        return Branch(1, [Move(f"{tag}c{j}", prefix + state + (j,)) for j in range(len(matrix[0]))])
    return Leaf(matrix[state[0]][state[1]])


def figure1() -> Game:
    """Fig. 1: chance 1/2-1/2; on the left the follower exits (X1: (0, 0)) or stays (S1)
    into subgame A; on the right exits (X2: (2, 2)) or stays (S2) into subgame B.
    Blueprint (row 0) values A (1, 1), B (0, 0): the follower stays left, exits right,
    leader 1.5; naive search turns A into (2, -1) and B into (1, 4): leader 0.5.
    Subgames: ``label_subgames(g, figure_subgame)`` (A = 0, B = 1)."""

    def expand(s: tuple) -> Branch | Leaf:
        if s == ():
            return Branch(CHANCE, [Move("L", ("L",), 0.5, ("L", "L")), Move("R", ("R",), 0.5, ("R", "R"))])
        if len(s) == 1:
            side = s[0]
            exit_pay = (0.0, 0.0) if side == "L" else (2.0, 2.0)
            n = "1" if side == "L" else "2"
            return Branch(1, [Move(f"X{n}", (side, "X", exit_pay), obs=(f"X{n}", f"X{n}")),
                              Move(f"S{n}", (side, "S"), obs=(f"S{n}", f"S{n}"))])
        if s[1] == "X":
            return Leaf(s[2])
        tag = "A" if s[0] == "L" else "B"
        return _matrix_subgame(tag, SUBGAME_A if tag == "A" else SUBGAME_B, s[:2], s[2:])

    return build_game("stackelberg-figure1", (), expand, keep_states=True)


def figure2() -> Game:
    """Fig. 2: the follower exits (X: (0, 0)) or stays (S); then chance 1/2-1/2 into two
    copies of subgame A (blueprint (1, 1), naive search (2, -1)). Subgames left = 0,
    right = 1 (``figure_subgame``)."""

    def expand(s: tuple) -> Branch | Leaf:
        if s == ():
            return Branch(1, [Move("X", ("X",), obs=("X", "X")), Move("S", ("S",), obs=("S", "S"))])
        if s == ("X",):
            return Leaf((0.0, 0.0))
        if len(s) == 1:
            return Branch(CHANCE, [Move("L", ("S", "L"), 0.5, ("L", "L")), Move("R", ("S", "R"), 0.5, ("R", "R"))])
        return _matrix_subgame(s[1], SUBGAME_A, s[:2], s[2:])

    return build_game("stackelberg-figure2", (), expand, keep_states=True)


def figure_subgame(state: tuple) -> Hashable | None:
    """Subgame key of :func:`figure1` / :func:`figure2` states: the side once inside."""
    if len(state) >= 2 and state[1] == "S" and (len(state) == 2 or isinstance(state[2], int)):
        return state[0]
    if len(state) >= 2 and state[0] == "S":
        return state[1]
    return None


# --- raked Leduc -----------------------------------------------------------------------

RAKE_RULES = ("generator", "code", "paper")
MAX_RAISES = 5
RAISE_SIZES = (2, 4)


@dataclass(frozen=True)
class LeducState:
    """Cards dealt so far (player 0, player 1, board), contributions and betting."""

    cards: tuple[int, ...]
    pot: tuple[int, int]
    rounds: tuple[str, ...]  # betting string of each round so far ('c' check/call, 'r' raise, 'f' fold)


def _leduc_payoff(cards: tuple[int, ...], pot: tuple[int, int], folder: int, rake: float, rule: str) -> tuple[float, float]:
    """Net payoffs. ``paper``: the winner nets (1 - ρ)x, the loser -x, a tie 0.
    ``code`` / ``generator`` (the authors' generator): ρ·2·min(pot) leaves the pot:
    the winner nets x - 2ρ·min(pot) (= (1 - 2ρ)x when she put in more), tie -ρx each."""
    if folder >= 0:
        winner = 1 - folder
    else:
        ranks = [c // 2 for c in cards]
        score = [(ranks[i] == ranks[2], ranks[i]) for i in (0, 1)]
        winner = 0 if score[0] > score[1] else 1 if score[1] > score[0] else -1
    if winner < 0:
        t = 0.0 if rule == "paper" else -rake * pot[0]
        return (t, t)
    x = float(pot[1 - winner])
    # code/generator: the winner takes the pot less ρ·2·min(pot); the generator's
    # round-2 folds may name as winner the player who put in less
    gain = (1.0 - rake) * x if rule == "paper" else x - 2.0 * rake * min(pot)
    out = [0.0, 0.0]
    out[winner] = gain
    out[1 - winner] = -x
    return (out[0], out[1])


def raked_leduc(ranks: int = 3, rake: float = 0.1, rule: str = "code") -> Game:
    """Leduc hold'em with ``ranks`` ranks x 2 suits, ante 1, raises of 2 then 4, at most
    5 raises a round, fold only facing a raise, player 0 first in both rounds; a pair
    with the board wins, else the higher rank, equal ranks tie. ``rake`` ρ under
    ``rule`` (``"paper"``: section 5's text, the winner nets (1 - ρ)x; ``"code"``: the
    authors' released generator, which rakes differently, see :func:`_leduc_payoff`;
    ρ = 0 is zero-sum).
    Per player: #I = 264n² - 120n, #Σ = 704n² - 320n + 1."""
    if ranks < 2:
        raise EfgError(f"raked_leduc needs at least 2 ranks, got {ranks}")
    if rule not in RAKE_RULES:
        raise EfgError(f"rake rule must be one of {RAKE_RULES}, got {rule!r}")
    if not 0.0 <= rake < 0.5:
        raise EfgError(f"rake must be in [0, 0.5), got {rake}")
    deck = tuple(range(2 * ranks))

    def name(c: int) -> str:
        return f"{c // 2}{'ab'[c % 2]}"

    def expand(s: LeducState) -> Branch | Leaf:
        if len(s.cards) < 2:
            p = len(s.cards)
            free = [c for c in deck if c not in s.cards]
            return Branch(CHANCE, [
                Move(name(c), LeducState(s.cards + (c,), s.pot, s.rounds), 1.0 / len(free),
                     (name(c), "") if p == 0 else ("", name(c)))
                for c in free
            ])
        hist = s.rounds[-1] if s.rounds else None
        if hist is not None and hist.endswith("f"):
            # The authors' generator names the folder of a round-2 fold from the parity of
            # round 1's actions (its leaf code reads round 1's counters in both rounds).
            folded = s.rounds[0] if rule == "generator" else hist
            return Leaf(_leduc_payoff(s.cards, s.pot, (len(folded) - 1) % 2, rake, rule))
        done = hist is not None and (hist == "cc" or (len(hist) >= 2 and hist[-1] == "c"))
        if hist is None or (done and len(s.rounds) == 1 and len(s.cards) == 2):
            if hist is None:
                return expand(LeducState(s.cards, s.pot, ("",)))
            free = [c for c in deck if c not in s.cards]
            return Branch(CHANCE, [
                Move(name(c), LeducState(s.cards + (c,), s.pot, s.rounds + ("",)), 1.0 / len(free), (name(c), name(c)))
                for c in free
            ])
        if done:
            return Leaf(_leduc_payoff(s.cards, s.pot, -1, rake, rule))
        actor = len(hist) % 2
        raises = hist.count("r")
        facing = s.pot[actor] < s.pot[1 - actor]
        size = RAISE_SIZES[len(s.rounds) - 1]
        moves = []
        if facing:
            moves.append(Move("f", LeducState(s.cards, s.pot, s.rounds[:-1] + (hist + "f",)), obs=("f", "f")))
        called = list(s.pot)
        called[actor] = s.pot[1 - actor]
        moves.append(Move("c", LeducState(s.cards, (called[0], called[1]), s.rounds[:-1] + (hist + "c",)), obs=("c", "c")))
        if raises < MAX_RAISES:
            raised = list(called)
            raised[actor] += size
            moves.append(Move("r", LeducState(s.cards, (raised[0], raised[1]), s.rounds[:-1] + (hist + "r",)), obs=("r", "r")))
        return Branch(actor, moves)

    return build_game(f"raked-leduc-{ranks}-{rule}-{rake:g}", LeducState((), (1, 1), ()), expand, keep_states=True)


def leduc_subgame(state: LeducState) -> Hashable | None:
    """Subgame key of :func:`raked_leduc` states: the public information (round-1
    betting, board card) once the board is out."""
    if len(state.cards) < 3:
        return None
    return (state.rounds[0], state.cards[2])


def leduc_sizes(ranks: int) -> tuple[int, int]:
    """Per-player (#I, #Σ) of :func:`raked_leduc`: our closed form, which gives the |I| and
    |Σ| columns of Ling & Brown's Table 3 (the paper prints only the table)."""
    return 264 * ranks * ranks - 120 * ranks, 704 * ranks * ranks - 320 * ranks + 1


# --- Goofspiel -------------------------------------------------------------------------


def goofspiel(cards: int = 4, zero_sum: bool = False) -> Game:
    """Goofspiel with prizes 0..n-1 revealed by chance one a round in a uniformly random
    order, bid cards 1..n each; player 0 bids, player 1 bids without seeing it, then both
    bids are public; the higher bid takes the prize. General-sum (``zero_sum=False``): a
    tie gives the prize to nobody and each player scores her prizes. ``zero_sum=True``:
    the constant-sum version (ties split) shifted to zero sum, ``±(won0 - won1)/2``, on
    the same tree (same sequence numbering): the blueprint is its Nash equilibrium.
    The last round is a forced one-action decision (counted, as the paper counts).
    n = 4: 17,476 infosets and 21,329 sequences per player."""
    if cards < 2:
        raise EfgError(f"goofspiel needs at least 2 cards, got {cards}")
    bids = tuple(range(1, cards + 1))
    prizes_all = tuple(range(cards))

    def expand(s: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]) -> Branch | Leaf:
        prizes, b0, b1 = s
        rnd = len(b1)
        if rnd == cards:
            won = [0.0, 0.0]
            for p, x, y in zip(prizes, b0, b1):
                if x != y:
                    won[0 if x > y else 1] += p
            if zero_sum:
                d = (won[0] - won[1]) / 2.0
                return Leaf((d, -d))
            return Leaf((won[0], won[1]))
        if len(prizes) == rnd:
            left = [p for p in prizes_all if p not in prizes]
            return Branch(CHANCE, [Move(f"p{p}", (prizes + (p,), b0, b1), 1.0 / len(left), (f"p{p}", f"p{p}"))
                                   for p in left])
        if len(b0) == rnd:
            return Branch(0, [Move(f"b{c}", (prizes, b0 + (c,), b1)) for c in bids if c not in b0])
        return Branch(1, [Move(f"b{c}", (prizes, b0, b1 + (c,)), obs=(f"o{c}", f"o{b0[-1]}"))
                          for c in bids if c not in b1])

    return build_game(f"goofspiel-{cards}-{'zs' if zero_sum else 'gs'}", ((), (), ()), expand, keep_states=True)


def goofspiel_subgame(cards: int, depth: int) -> SubgameKey:
    """Subgame key for Goofspiel with ``depth`` = m rounds inside each subgame: states
    sharing the prizes and bids of the first n - m rounds (m = n: the whole game).
    There are (n!/m!)³ subgames."""
    if not 1 <= depth <= cards:
        raise EfgError(f"subgame depth must be in 1..{cards}, got {depth}")
    fixed = cards - depth

    def key(s: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]) -> Hashable | None:
        prizes, b0, b1 = s
        if len(b1) < fixed:
            return None
        return (prizes[:fixed], b0[:fixed], b1[:fixed])

    return key


# --- random two-stage games ------------------------------------------------------------


@dataclass(frozen=True)
class TwoStageSpec:
    """Table 1's random two-stage game: ``main[i]`` (n x n) and ``secondary[k][i]``
    (M games of m x m) are player i's payoffs; ``transition[k, a]`` = P(secondary game k |
    leader's stage-1 action a) = κ X[k, a] + (1 - κ)/M. Entries are U[0, 1] (the paper
    leaves their distribution unstated)."""

    main: np.ndarray  # (2, n, n)
    secondary: np.ndarray  # (M, 2, m, m)
    transition: np.ndarray  # (M, n)


def two_stage_spec(n: int, games: int, m: int, kappa: float, seed: int) -> TwoStageSpec:
    """Draw a two-stage game (numpy ``default_rng(seed)``)."""
    if n < 1 or games < 1 or m < 1 or not 0.0 <= kappa <= 1.0:
        raise EfgError(f"two-stage game needs n, M, m >= 1 and κ in [0, 1], got {n}, {games}, {m}, {kappa}")
    rng = np.random.default_rng(seed)
    main = rng.random((2, n, n))
    secondary = rng.random((games, 2, m, m))
    weights = rng.random((games, n))
    x = weights / weights.sum(axis=0, keepdims=True)
    return TwoStageSpec(main, secondary, kappa * x + (1.0 - kappa) / games)


def two_stage(spec: TwoStageSpec) -> Game:
    """The two-stage game as an explicit tree: the leader picks a stage-1 row, the
    follower a column without seeing it; both are then public; chance picks the secondary
    game from the leader's row; a second simultaneous m x m game; payoffs add up.
    Subgames: ``two_stage_subgame`` (stage-1 pair and secondary game)."""
    n = spec.main.shape[1]
    games, m = spec.secondary.shape[0], spec.secondary.shape[2]

    def expand(s: tuple[int, ...]) -> Branch | Leaf:
        k = len(s)
        if k == 0:
            return Branch(0, [Move(f"a{a}", (a,)) for a in range(n)])
        if k == 1:
            return Branch(1, [Move(f"c{b}", (s[0], b), obs=(f"c{b}", f"a{s[0]}")) for b in range(n)])
        if k == 2:
            p = spec.transition[:, s[0]]
            return Branch(CHANCE, [Move(f"g{j}", s + (j,), float(p[j]), (f"g{j}", f"g{j}")) for j in range(games)])
        if k == 3:
            return Branch(0, [Move(f"r{a}", s + (a,)) for a in range(m)])
        if k == 4:
            return Branch(1, [Move(f"s{b}", s + (b,)) for b in range(m)])
        a, b, j, c, d = s
        return Leaf((float(spec.main[0, a, b] + spec.secondary[j, 0, c, d]),
                     float(spec.main[1, a, b] + spec.secondary[j, 1, c, d])))

    return build_game("two-stage", (), expand, keep_states=True)


def two_stage_subgame(state: tuple[int, ...]) -> Hashable | None:
    """Subgame key of :func:`two_stage` states: (stage-1 pair, secondary game)."""
    return tuple(state[:3]) if len(state) >= 3 else None
