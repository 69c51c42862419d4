"""Cross-check of the spot solver against a stored TexasSolver river solution.

The fixture (``tests/data/texassolver/``, see its README) is one river spot solved by
TexasSolver's console solver to 0.01% of the pot: its input, the exploitability figures it
printed for the dumped strategy and the dump itself. The tests

* build our tree for the same spot and check it is TexasSolver's, node for node (same
  decision nodes, same actions and amounts, same player to act, same hands);
* load TexasSolver's strategy into our strategy array and check our best-response values
  against it reproduce TexasSolver's printed figures;
* check our own DCFR solve reaches the same root value as TexasSolver's strategy, within
  the two strategies' exploitabilities;
* and, as a negative control, that a perturbed copy of TexasSolver's strategy moves our
  best-response figures far beyond the tolerance.

TexasSolver numbers its players the other way round: its player 0 is in position (IP), its
player 1 out of position (OOP, first to act), so its "player 0 exploitability" is our BR1
and its "player 1 exploitability" our BR0. Both are chips won per deal by a best response,
counted from the player's own share of the starting pot (TexasSolver's terminal payoffs are
the opponent's whole commitment, pot share included; ours too), and averaged over compatible
pairs of hands weighted by the ranges; its total is ``(p0 + p1) / 2 / pot * 100`` percent.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from pokerbot.cards import parse_cards
from pokerbot.ranges import HANDS
from pokerbot.solver import kernels as K
from pokerbot.solver.best_response import best_response_values, expected_value
from pokerbot.solver.cfr import Solver
from pokerbot.solver.spot import Spot, SpotSolution

DATA = Path(__file__).parent / "data" / "texassolver"

#: |our BR - TexasSolver's printed BR| allowed, in chips (the pot is 1,200; the values are about 24).
#: TexasSolver computes its best response in float32 (24-bit mantissa): per-hand values are sums of terminal
#: payoffs of up to 20,000 chips times reach products, so a worst-case rounding bound is of order
#: 20,000 * 2**-24 ~ 1e-3 chips; its printout keeps 8 significant digits (1e-6 chips here). We compute in
#: float64 from the same float32 probabilities. Observed: 2.4e-5 (OOP) and 3.6e-6 (IP) chips. 2e-3 chips
#: (1.7e-6 of the pot) covers the float32 bound and is far below what a wrong tree, payoff or hand mapping
#: does: the negative controls below move the figures by 18 and 547 chips.
BR_TOL = 2e-3


def _input() -> dict[str, str]:
    cmds: dict[str, str] = {}
    bets: list[str] = []
    for line in (DATA / "river_input.txt").read_text().splitlines():
        cmd, _, arg = line.strip().partition(" ")
        if cmd == "set_bet_sizes":
            bets.append(arg)
        elif cmd:
            cmds[cmd] = arg
    cmds["bet_sizes"] = ";".join(bets)
    return cmds


def _printed() -> dict[str, float]:
    """TexasSolver's last printed figures: ``ip`` (its player 0), ``oop`` (its player 1), ``total`` (percent)."""
    text = (DATA / "river_exploitability.txt").read_text()
    p0 = float(re.search(r"player 0 exploitability (\S+)", text).group(1))
    p1 = float(re.search(r"player 1 exploitability (\S+)", text).group(1))
    total = float(re.search(r"Total exploitability (\S+) precent", text).group(1))
    return {"ip": p0, "oop": p1, "total": total}


def _spot() -> Spot:
    cmds = _input()
    # Every bet, raise and donk size is 50 and 100 for both players, and nothing else: check, so the one
    # size string below is the input's.
    for item in cmds["bet_sizes"].split(";"):
        who, street, kind, *sizes = item.split(",")
        assert who in ("oop", "ip") and street == "river" and kind in ("bet", "raise", "donk")
        assert sizes == ["50", "100"], item
    assert float(cmds["set_allin_threshold"]) > 1  # no automatic all-in
    # TexasSolver's console caps raises at raise_limit = 4 raise "times" with the opening bet counting as
    # the first: a bet and three raises, our max_raises=3 (the tree comparison below checks it).
    return Spot(board=cmds["set_board"].replace(",", ""), pot=cmds["set_pot"], stack=cmds["set_effective_stack"],
                oop=cmds["set_range_oop"], ip=cmds["set_range_ip"], bets="50%,100%", raises="50%,100%",
                max_raises=3, allin_threshold=None)


class Loaded:
    """Our tree with TexasSolver's strategy loaded into a strategy array."""

    def __init__(self) -> None:
        self.spot = spot = _spot()
        self.tree = tree = spot.tree()
        self.hands = (spot.hands(0), spot.hands(1))
        self.ranges = (spot.weights[0][self.hands[0]], spot.weights[1][self.hands[1]])
        self.sol = SpotSolution(spot, tree, Solver(tree, "dcfr", ranges=self.ranges), self.hands)
        self.stack = float(spot.stack)
        dump = json.loads((DATA / "river_dump.json").read_text())
        index = {tuple(int(c) for c in HANDS[i]): i for i in range(HANDS.shape[0])}
        pos = [{int(h): k for k, h in enumerate(self.hands[p])} for p in range(2)]
        self.strat = np.zeros(tree.num_slots)
        self.filled = np.zeros(tree.num_slots, dtype=bool)
        self.mapped: dict[int, list[str]] = {}  # our node -> TexasSolver's action path
        self.ts_hands: list[set[int]] = [set(), set()]
        self._load(dump, 0, [], [0.0, 0.0], index, pos)

    def _label(self, action: str, totals: list[float], mover: int) -> str:
        """Our label (``x``, ``c``, ``f``, ``b600``, ``r1800``, ``a19400``) of TexasSolver's ``action``:
        its BET amount is the bettor's chips in, its RAISE amount the raiser's chips added (call included)."""
        name, _, amount = action.partition(" ")
        if name in ("CHECK", "CALL", "FOLD"):
            return {"CHECK": "x", "CALL": "c", "FOLD": "f"}[name]
        assert name in ("BET", "RAISE"), action
        to = totals[mover] + float(amount)
        assert to == int(to), action
        if to == self.stack:
            return f"a{int(to)}"
        return ("b" if max(totals) == 0 else "r") + str(int(to))

    def _load(self, node: dict, n: int, path: list[str], totals: list[float], index: dict, pos: list[dict]) -> None:
        tree = self.tree
        assert node["node_type"] == "action_node"
        assert tree.kind[n] == K.DECISION, f"{path}: TexasSolver has a decision, we have node kind {tree.kind[n]}"
        p = int(tree.player[n])
        assert p == 1 - int(node["player"]), f"{path}: player to act differs"
        ours = self.sol.action_labels(n)
        theirs = [self._label(a, totals, p) for a in node["actions"]]
        assert sorted(theirs) == sorted(ours), f"{path}: actions {theirs} (TexasSolver) vs {ours} (ours)"
        assert node["strategy"]["actions"] == node["actions"]
        assert n not in self.mapped
        self.mapped[n] = path
        nh = tree.num_hands[p]
        slot = int(tree.slot[n])
        for hand, probs in node["strategy"]["strategy"].items():
            cards = tuple(sorted(parse_cards(hand), reverse=True))
            h = pos[p].get(index[cards])
            self.ts_hands[p].add(index[cards])
            if h is None:  # a hand outside our range gets nothing (the hand-set check below fails then)
                continue
            for a, x in zip(theirs, probs):
                k = slot + ours.index(a) * nh + h
                self.strat[k] = x
                self.filled[k] = True
        first = int(tree.first_child[n])
        for action, child in node.get("childrens", {}).items():
            lab = self._label(action, totals, p)
            new = list(totals)
            if lab == "c":
                new[p] = max(totals)
            elif lab[0] in "bra":
                new[p] = float(lab[1:])
            self._load(child, first + ours.index(lab), path + [action], new, index, pos)


@pytest.fixture(scope="module")
def loaded() -> Loaded:
    return Loaded()


def test_trees_and_hands_match(loaded: Loaded) -> None:
    tree = loaded.tree
    decisions = set(np.nonzero(tree.kind == K.DECISION)[0].tolist())
    # Every TexasSolver action node maps to a distinct decision node of ours with the same actions (checked
    # while loading); none of ours is left over, so the trees are the same (54 decision nodes).
    assert set(loaded.mapped) == decisions
    assert len(decisions) == 54
    for p in range(2):
        assert loaded.ts_hands[p] == set(loaded.hands[p].tolist()), f"player {p}: hand lists differ"
    assert loaded.filled.all()
    # TexasSolver's average strategies are distributions (float32: sums within 1e-6 of 1).
    for n in decisions:
        p = int(tree.player[n])
        nh, nc = tree.num_hands[p], int(tree.num_children[n])
        block = loaded.strat[int(tree.slot[n]) : int(tree.slot[n]) + nc * nh].reshape(nc, nh)
        assert np.all(block >= 0) and np.allclose(block.sum(axis=0), 1.0, atol=1e-6)


def test_best_response_matches_texassolver(loaded: Loaded) -> None:
    printed = _printed()
    scale = loaded.spot.scale
    br0, br1 = best_response_values(loaded.tree, loaded.strat, loaded.ranges)
    br0, br1 = br0 / scale, br1 / scale
    assert abs(br0 - printed["oop"]) <= BR_TOL, (br0, printed)
    assert abs(br1 - printed["ip"]) <= BR_TOL, (br1, printed)
    total = 100.0 * (br0 + br1) / 2.0 / float(loaded.spot.pot)
    assert abs(total - printed["total"]) <= 100.0 * BR_TOL / float(loaded.spot.pot), (total, printed)


@pytest.mark.parametrize("perturbation", ["root_actions", "two_hands"])
def test_perturbed_strategy_is_caught(loaded: Loaded, perturbation: str) -> None:
    """Negative controls at the root (OOP to act): swap the probabilities of check and bet 1200 for every
    hand, or swap the whole root strategies of AsAh (always bets 600) and QsJs (always checks)."""
    tree = loaded.tree
    strat = loaded.strat.copy()
    nh, nc, s = tree.num_hands[0], int(tree.num_children[0]), int(tree.slot[0])
    block = strat[s : s + nc * nh].reshape(nc, nh)  # a view: (actions, hands)
    if perturbation == "root_actions":
        labels = loaded.sol.action_labels(0)
        a, b = labels.index("x"), labels.index("b1200")
        block[[a, b]] = block[[b, a]]
    else:
        index = {int(h): k for k, h in enumerate(loaded.hands[0])}
        a, b = (index[int(np.nonzero((HANDS == sorted(parse_cards(x), reverse=True)).all(axis=1))[0][0])]
                for x in ("AsAh", "QsJs"))
        block[:, [a, b]] = block[:, [b, a]]
    assert not np.array_equal(strat, loaded.strat)
    printed = _printed()
    br0, br1 = (v / loaded.spot.scale for v in best_response_values(tree, strat, loaded.ranges))
    # OOP's own best response does not read OOP's strategy; IP's does, and gains far beyond the tolerance.
    assert abs(br0 - printed["oop"]) <= BR_TOL
    assert br1 - printed["ip"] > 1000 * BR_TOL, (br1, printed)


def test_our_solve_agrees_with_texassolver(loaded: Loaded) -> None:
    spot = loaded.spot
    scale = spot.scale
    pot = float(spot.pot)
    sol = spot.solve(target=0.01, iterations=5000, progress=False)
    assert sol.exploitability_pct <= 0.01
    assert abs(sol.ev[0] + sol.ev[1]) <= 1e-6 * pot  # zero-sum, up to float32 strategy sums
    theirs = expected_value(loaded.tree, loaded.strat, loaded.ranges) / scale
    br0, br1 = (v / scale for v in best_response_values(loaded.tree, loaded.strat, loaded.ranges))
    # For any strategy profile s, the game value v* and s's own value lie in [-BR1(s), BR0(s)], an
    # interval as wide as s's NashConv (BR0 + BR1 = 2 * exploitability). So two profiles' values differ
    # by at most the sum of their NashConvs; 1e-6 of the pot covers float32 in our figures.
    nashconv_ours = 2.0 * sol.exploitability_pct / 100.0 * pot
    nashconv_theirs = br0 + br1
    tol = nashconv_ours + nashconv_theirs + 1e-6 * pot
    assert -br1 <= theirs <= br0
    assert abs(sol.ev[0] - theirs) <= tol, (sol.ev, theirs, tol)
    # Ours lies within our NashConv of the interval TexasSolver's strategy pins the game value to.
    assert -br1 - nashconv_ours - 1e-6 * pot <= sol.ev[0] <= br0 + nashconv_ours + 1e-6 * pot
