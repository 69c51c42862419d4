"""Scotland Yard on a small map, as an explicit :class:`~pokerbot.efg.game.Game`.

The Student of Games paper (Schmid et al., 2023, Appendix, Figure S3) evaluates on a
small "glasses" map: "Mr. X starts at station 6 while the two detectives start at
stations 1 and 11. All of them have 5 taxi cards (all edges in this map are of the same
type) and the game is played for 5 rounds." The figure's edges are not in the paper's
text, so :data:`GLASSES` is a *reconstruction* of a glasses-shaped map: two lenses, the
5-cycles 1-2-3-4-5 and 7-8-9-10-11, joined by the bridge station 6 (adjacent to 3 and 9).

Rules (player 0 is Mr. X, player 1 controls both detectives):

- A round is Mr. X's move, then detective A's, then detective B's; every move is one
  edge of the tree, so the depth is common knowledge.
- Mr. X moves to an adjacent station that holds no detective; with no such station he
  is caught (his turn is then a terminal node). His moves are private: player 1 only
  observes ``"taxi"`` (the one transport), except on the rounds of ``reveal_rounds``
  (1-based), after whose move she observes his station.
- A detective moves to an adjacent station other than the other detective's (with no
  such station he stays, a forced ``"stay"`` move). Detectives' moves are public; Mr. X
  always knows where they are.
- A detective moving onto Mr. X catches him: player 1 wins, payoffs ``(-1, +1)``. A move
  that ends the game (a catch, or detective B cornering Mr. X) is observed by both
  players as ``"caught"``, so terminal and non-terminal nodes never share an infoset.
  Mr. X surviving all ``rounds`` rounds wins, ``(+1, -1)``.
- Every piece moves at most once a round, so 5 taxi cards never run out in 5 rounds;
  tickets are not modelled.

>>> g = scotland_yard(rounds=2)
>>> g.num_nodes, g.num_infosets
(151, 24)
>>> scotland_yard([(1, 2), (2, 3)], x_start=1, detective_starts=(2, 3), rounds=1).payoff[0, 0].item()  # cornered
-1.0
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pokerbot.efg.game import Branch, EfgError, Game, Leaf, Move, build_game

#: The reconstructed glasses map (undirected taxi edges): two 5-station lenses and the bridge 6.
GLASSES: tuple[tuple[int, int], ...] = (
    (1, 2), (2, 3), (3, 4), (4, 5), (5, 1),
    (7, 8), (8, 9), (9, 10), (10, 11), (11, 7),
    (3, 6), (6, 9),
)

MRX, DETECTIVE = 0, 1


@dataclass(frozen=True)
class YardState:
    """A position: Mr. X's station, the detectives' stations, the round (1-based), who
    moves next (0: Mr. X, 1: detective A, 2: detective B) and whether Mr. X was caught."""

    x: int
    detectives: tuple[int, int]
    round: int
    mover: int
    caught: bool = False


def adjacency(edges: Iterable[tuple[int, int]]) -> dict[int, tuple[int, ...]]:
    """Sorted neighbour lists of an undirected edge list.

    >>> adjacency([(1, 2), (2, 3)])
    {1: (2,), 2: (1, 3), 3: (2,)}
    """
    out: dict[int, set[int]] = {}
    for a, b in edges:
        if a == b:
            raise EfgError(f"scotland yard: self-loop at station {a}")
        out.setdefault(a, set()).add(b)
        out.setdefault(b, set()).add(a)
    return {s: tuple(sorted(out[s])) for s in sorted(out)}


def x_moves(adj: Mapping[int, tuple[int, ...]], s: YardState) -> tuple[int, ...]:
    """Mr. X's legal destinations: adjacent stations without a detective."""
    return tuple(n for n in adj[s.x] if n not in s.detectives)


def scotland_yard(edges: Iterable[tuple[int, int]] = GLASSES, x_start: int = 6,
                  detective_starts: tuple[int, int] = (1, 11), rounds: int = 5,
                  reveal_rounds: Iterable[int] = (3,), keep_states: bool = False) -> Game:
    """Scotland Yard with Mr. X (player 0) against two detectives (player 1); see the module
    docstring for the rules. ``edges`` is the (undirected) map, default :data:`GLASSES`."""
    adj = adjacency(edges)
    stations = (x_start, *detective_starts)
    if any(st not in adj for st in stations):
        raise EfgError(f"scotland yard: start stations {stations} must be on the map {sorted(adj)}")
    if x_start in detective_starts or detective_starts[0] == detective_starts[1]:
        raise EfgError(f"scotland yard: start stations {stations} must be distinct")
    if rounds < 1:
        raise EfgError(f"scotland yard needs at least 1 round, got {rounds}")
    reveal = frozenset(reveal_rounds)

    def cornered(s: YardState) -> bool:
        return not x_moves(adj, s)

    def expand(s: YardState) -> Branch | Leaf:
        if s.caught:
            return Leaf((-1.0, 1.0))
        if s.round > rounds:
            return Leaf((1.0, -1.0))
        if s.mover == 0:
            options = x_moves(adj, s)
            if not options:  # only at the root: later, detective B's cornering move ends the game
                return Leaf((-1.0, 1.0))
            moves = []
            for n in options:
                seen = f"X@{n}" if s.round in reveal else "taxi"
                moves.append(Move(f"x{n}", YardState(n, s.detectives, s.round, 1), obs=(f"x{n}", seen)))
            return Branch(MRX, moves)
        k = s.mover - 1
        name = "ab"[k]
        other = s.detectives[1 - k]
        dests = [n for n in adj[s.detectives[k]] if n != other]
        moves = []
        for n in dests or [s.detectives[k]]:
            det = (n, other) if k == 0 else (other, n)
            if k == 0:
                child = YardState(s.x, det, s.round, 2, caught=n == s.x)
            else:
                child = YardState(s.x, det, s.round + 1, 0, caught=n == s.x)
                if not child.caught and child.round <= rounds and cornered(child):
                    child = YardState(s.x, det, s.round + 1, 0, caught=True)
            lab = f"{name}{n}" if dests else f"{name}-stay"
            seen = f"{lab}:caught" if child.caught else lab
            moves.append(Move(lab, child, obs=(seen, seen)))
        return Branch(DETECTIVE, moves)

    root = YardState(x_start, (detective_starts[0], detective_starts[1]), 1, 0)
    return build_game(f"scotland-yard-{rounds}", root, expand, root_obs=("", ""), keep_states=keep_states)
