"""Battleship (Farina et al. 2019a), the EFCE benchmark of Ling & Fang, "Safe subgame
resolving for extensive-form correlated equilibrium", section "Experiments".

Placement stage: player 0, then player 1, privately places one ``1 x m`` ship on a
``W x H`` grid (horizontal or vertical; a ``1 x 1`` ship has one placement per cell).
Firing stage: for ``T`` timesteps player 0 then player 1 fires at one cell of the other's
grid that she has not fired at before (Ling & Fang do not state this rule; the Uniform
blueprint values of their Table 1 hold with it); both players observe the shot and
whether it hit. A ship is destroyed once all its cells are hit: the game ends, the shooter
gets ``+1`` and the loser ``-gamma``. If no ship is destroyed after ``T`` timesteps it is a tie (0, 0).
There is no chance node, as the EFCE papers require.

>>> g = battleship(3, 1, timesteps=2)
>>> g.num_nodes, g.num_infosets
(238, 47)
>>> len(placements(3, 2, ship=2))    # 4 horizontal + 3 vertical
7
"""

from __future__ import annotations

from dataclasses import dataclass

from pokerbot.efg.game import Branch, EfgError, Game, Leaf, Move, build_game


@dataclass(frozen=True)
class _State:
    ships: tuple[int, ...]  # placement index per player placed so far
    shots: tuple[tuple[int, ...], tuple[int, ...]]  # cells each player has fired at
    hits: tuple[int, int]  # cells of each player's target ship hit so far


def placements(width: int, height: int, ship: int) -> list[frozenset[int]]:
    """Every placement of a ``1 x ship`` ship as a set of cells ``x + width * y``:
    horizontal ones first, then vertical ones (a ``1 x 1`` ship: one per cell)."""
    out: list[frozenset[int]] = []
    for y in range(height):
        for x in range(width - ship + 1):
            out.append(frozenset(x + k + width * y for k in range(ship)))
    if ship > 1:
        for y in range(height - ship + 1):
            for x in range(width):
                out.append(frozenset(x + width * (y + k) for k in range(ship)))
    return out


def battleship(width: int, height: int, timesteps: int, ship: int = 1, gamma: float = 2.0) -> Game:
    """The Battleship game; node labels ``p<k>`` (placement k of :func:`placements`) and
    ``s<cell>`` (a shot). Raises :class:`EfgError` on sizes without a placement."""
    if width < 1 or height < 1 or timesteps < 1 or ship < 1 or gamma < 0:
        raise EfgError(f"battleship: need W, H, T, m >= 1 and gamma >= 0, got {width}, {height}, {timesteps}, {ship}, {gamma}")
    places = placements(width, height, ship)
    if not places:
        raise EfgError(f"battleship: a 1 x {ship} ship does not fit a {width} x {height} grid")
    cells = width * height
    if timesteps > cells:
        raise EfgError(f"battleship: {timesteps} timesteps need more than {cells} cells")

    def expand(s: _State) -> Branch | Leaf:
        if len(s.ships) < 2:
            me = len(s.ships)
            return Branch(me, [
                Move(f"p{k}", _State(s.ships + (k,), s.shots, s.hits), obs=(f"p{k}", "") if me == 0 else ("", f"p{k}"))
                for k in range(len(places))
            ])
        for shooter in (0, 1):
            if s.hits[shooter] == ship:  # shooter destroyed the other's ship on the last shot
                u = [0.0, 0.0]
                u[shooter], u[1 - shooter] = 1.0, -gamma
                return Leaf((u[0], u[1]))
        if len(s.shots[1]) == timesteps:
            return Leaf((0.0, 0.0))
        me = 0 if len(s.shots[0]) == len(s.shots[1]) else 1
        target = places[s.ships[1 - me]]
        moves = []
        for c in range(cells):
            if c in s.shots[me]:
                continue
            hit = c in target
            shots = list(s.shots)
            shots[me] = s.shots[me] + (c,)
            hits = list(s.hits)
            hits[me] += int(hit)
            seen = (me, c, hit)
            moves.append(Move(f"s{c}", _State(s.ships, (shots[0], shots[1]), (hits[0], hits[1])), obs=(seen, seen)))
        return Branch(me, moves)

    name = f"battleship-{width}x{height}-T{timesteps}-m{ship}-g{gamma:g}"
    return build_game(name, _State((), ((), ()), (0, 0)), expand)


def first_shot_subgame_key(game: Game, h: int) -> tuple[str, str] | None:
    """The subgame of node ``h`` in the decomposition by the public first-timestep shots
    (``T' = 1``, Table 1): ``(shot of player 0, shot of player 1)`` for the nodes at and
    below the point where both first shots have missed and play goes on, else ``None``
    (pre-subgame). Leaves where the first shots end the game are pre-subgame."""
    labels = game.path_labels(h)
    if len(labels) < 4:
        return None
    first = _ancestor_at_depth(game, h, 4)
    if game.player[first] == 3:  # the second first shot destroyed a ship: a pre-subgame leaf
        return None
    return (labels[2], labels[3])


def _ancestor_at_depth(game: Game, h: int, depth: int) -> int:
    while game.depth[h] > depth:
        h = int(game.parent[h])
    return h
