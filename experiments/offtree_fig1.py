"""The Modicum paper's Fig. 1 experiment on small-deck no-limit flop hold'em (``nlfh-small``).

The blueprint is solved in the action abstraction {0.5, 1} pot (no all-in; one raise a
round by default, :func:`menus`). The opponent (player 1, first to act preflop) opens with a
0.75-pot bet, which the abstraction lacks. Player 0's answer is measured exactly in the
game where 0.75 is available to the opponent at the first decision, as the chips a best
response wins from player 0 beyond the game value, in mbb/g:

(a) **translation**: randomized pseudo-harmonic mapping of 0.75 to 0.5 / 1 (Ganzfried &
    Sandholm), i.e. the reach-weighted mixture of the blueprint's answers to both;
(b) **depth-limited solving** of the subgame rooted just before the opponent's bet (appendix
    A's nested solving: the opponent chooses among 0.5, 0.75 and 1), to the end of round 1,
    with the first K self-generated opponent continuations (K = 1 is the blueprint alone);
    player 0 answers the 0.75 bet with its solution. Leaf values:
    the average of the value vectors of the two in-abstraction leaves with the same
    action sequence after a 0.5 or 1 pot bet, as fractions of the pot (section 6.1).
    Round 2 after the bet, one row per choice in ``round2``: re-solved below each leaf
    with a safe root gadget (section 6.1: "the remaining game was solved using safe
    subgame solving"; default ``maxmargin``, or ``resolve``) whose alternative value for
    each opponent hand is the best of its K continuations at that leaf against the
    depth-limited solution (:func:`resolve_round2`); or re-solved unsafely from the two
    reaches (``unsafe``); or played as the depth-limited game assumed, the blueprint of
    the two mapped leaves mixed half and half (``blueprint``);
(c) the equilibrium of the abstraction that contains 0.75.

Leaf mapping (appendix A): a leaf of the real subgame maps to the blueprint leaves
reached by the *same sequence of menu positions* after the neighbouring in-abstraction
sizes (the i-th action at each node in place of the i-th), and values are scaled by
pot size. :func:`match_subtrees` walks the trees in parallel by position.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from abstraction.translation import pseudo_harmonic
from blueprint.continuation import self_generative
from pokerbot.actions import Action, ActionType, action_from_text
from pokerbot.files import save_figure
from pokerbot.gamedef import GameDef, load_game
from pokerbot.menus import BetMenuFn, fraction_of_raise
from pokerbot.solver import PotFractionMenu, Solver, build_tree, uniform_strategy
from pokerbot.solver import kernels as K
from pokerbot.solver.best_response import best_response_values
from pokerbot.solver.gadgets import GADGETS, SubgameSolver
from pokerbot.solver.leaf_tables import PairTableEvaluator, embed_strategy, leaf_nodes_in_full_tree
from pokerbot.solver.tree import CHANCE, DECISION, LEAF, PublicTree, SolverError
from pokerbot.state import State


@dataclass(frozen=True)
class RoundMenu:
    """A pot-fraction menu per round, with other fractions at the very first decision of the hand."""

    rounds: tuple[PotFractionMenu, ...]
    first: PotFractionMenu | None = None

    def __call__(self, state: State) -> list[Action]:
        if self.first is not None and state.round == 0 and not state.betting_string():
            return self.first(state)
        return self.rounds[min(state.round, len(self.rounds) - 1)](state)


def menus(preflop_raises: int = 1) -> tuple[RoundMenu, RoundMenu]:
    """(the abstraction {0.5, 1}, the same with 0.75 at the first decision); one raise on the flop."""
    rounds = (PotFractionMenu((0.5, 1.0), False, preflop_raises), PotFractionMenu((0.5, 1.0), False, 1))
    return RoundMenu(rounds), RoundMenu(rounds, PotFractionMenu((0.5, 0.75, 1.0), False, preflop_raises))


def match_subtrees(a: PublicTree, a_node: int, b: PublicTree, b_node: int) -> list[tuple[int, int]]:
    """Pairs (node of ``a``, node of ``b``) reached by the same sequence of child positions."""
    out = []
    stack = [(a_node, b_node)]
    while stack:
        x, y = stack.pop()
        out.append((x, y))
        if a.kind[x] in (DECISION, CHANCE):
            if a.kind[x] != b.kind[y] or a.num_children[x] != b.num_children[y]:
                raise SolverError(f"trees differ below {a.betting[int(a.template[x])]!r} / {b.betting[int(b.template[y])]!r}")
            for c in range(int(a.num_children[x])):
                stack.append((int(a.first_child[x]) + c, int(b.first_child[y]) + c))
    return out


def _child_by_label(tree: PublicTree, node: int, label: str) -> int:
    labels = tree.node_labels(node)
    return int(tree.first_child[node]) + labels.index(label)


def translation_mixture(
    src: PublicTree, strat: np.ndarray, sources: Sequence[tuple[int, float]], dst: PublicTree, dst_node: int,
    out: np.ndarray, player: int = 0,
) -> None:
    """Write into ``out`` (a ``dst`` strategy array) ``player``'s behaviour below ``dst_node`` that plays
    the ``src`` strategy below source node ``i`` with probability ``w_i`` (picked once, at the top):
    per information set, the sources' strategies weighted by ``w_i`` x ``player``'s own reach."""
    pairs = [match_subtrees(dst, dst_node, src, n) for n, _ in sources]
    nh = dst.num_hands[player]
    reach = [{dst_node: np.full(nh, w)} for _, w in sources]
    for idx in range(len(pairs[0])):
        d = pairs[0][idx][0]
        if dst.kind[d] not in (DECISION, CHANCE):
            continue
        nc = int(dst.num_children[d])
        mine = dst.kind[d] == DECISION and dst.player[d] == player
        blocks: list[np.ndarray] = []  # player's blocks (at its own decisions only)
        for i, pr in enumerate(pairs):
            s = pr[idx][1]
            blk = strat[int(src.slot[s]) : int(src.slot[s]) + nc * nh].reshape(nc, nh) if mine else None
            if blk is not None:
                blocks.append(blk)
            for c in range(nc):
                child = int(dst.first_child[d]) + c
                reach[i][child] = reach[i][d] * blk[c] if blk is not None else reach[i][d]
        if mine:
            num = sum(r[d] * blk for r, blk in zip(reach, blocks))
            den = sum(r[d] for r in reach)
            mix = np.where(den > 0, num / np.where(den > 0, den, 1.0), sum(blocks) / len(blocks))
            out[int(dst.slot[d]) : int(dst.slot[d]) + nc * nh] = mix.ravel()


@dataclass
class Fig1Result:
    rows: list[tuple[str, float]]
    value: float
    blueprint_exploitability: float
    seconds: float
    details: dict[str, float] = field(default_factory=dict)

    def table(self) -> str:
        lines = ["| method | exploitability of player 0 (mbb/g) |", "|---|---|"]
        lines += [f"| {name} | {x:.1f} |" for name, x in self.rows]
        return "\n".join(lines)


#: How player 0 may play round 2 after the off-tree bet (the rows' names).
ROUND2_NAMES = {
    "blueprint": "blueprint beyond",
    "maxmargin": "re-solved (safe, maxmargin)",
    "resolve": "re-solved (safe, resolve)",
    "unsafe": "re-solved (unsafe)",
}


def round2_tree(game: GameDef, menu: BetMenuFn, leaf_state: State) -> PublicTree:
    """The rest of the game below a round-1 leaf: a tree that starts with the next round's deal."""
    return build_tree(game, menu, root=leaf_state, deal_at_root=True)


def resolve_round2(
    tree: PublicTree, gadget: str, ours: np.ndarray, theirs: np.ndarray, opp_values: np.ndarray, iterations: int,
) -> np.ndarray:
    """Player 0's round-2 strategy below a depth-limited leaf, re-solved with a root gadget.

    ``tree`` starts with the deal (:func:`round2_tree`); ``ours`` / ``theirs`` are the two
    players' reaches at the leaf in the depth-limited solution; ``opp_values[k, h]`` is the
    opponent's value there (counterfactual, against ``ours``) for continuing with its
    ``k``-th strategy. The safe gadgets (``maxmargin``, ``resolve``) take as alternative
    value of each opponent hand the best of its continuations, the value the
    depth-limited solution conceded to it at that leaf, so re-solving keeps (maxmargin:
    tries to keep) every hand's value at or below what round 1 was solved against
    (Modicum section 6.1: "the remaining game was solved using safe subgame solving").
    ``unsafe`` solves from the two reaches instead.
    """
    if gadget == "unsafe":
        sub = SubgameSolver(tree, 0, "unsafe", ours, opp_range=theirs, algorithm="dcfr")
    else:
        sub = SubgameSolver(tree, 0, gadget, ours, alt=np.asarray(opp_values).max(axis=0), algorithm="dcfr")
    sub.run(iterations)
    return sub.strategy()


def _pot(state: State) -> int:
    return int(sum(state.spent))


def fig1(
    k_values: Sequence[int] = (1, 2, 4, 8, 16),
    *,
    blueprint_iterations: int = 300,
    full_iterations: int = 300,
    dl_iterations: int = 400,
    generate_iterations: int = 200,
    round2_iterations: int = 150,
    preflop_raises: int = 1,
    round2: Sequence[str] = ("maxmargin",),
    game: GameDef | None = None,
    log: Callable[[str], None] = print,
) -> Fig1Result:
    """Run the experiment; returns the rows (a), (b) per K, (c) in mbb/g (deterministic: no sampling).

    ``preflop_raises`` caps raises in round 1 (1: the answer to the 0.75 open is fold or
    call, then the flop; 2 lets player 0 re-raise, about 2.6 times the work).
    ``round2`` picks how player 0 plays round 2 after the bet, one row (b) per K for each:
    ``"blueprint"`` (what the depth-limited game assumed), or a root gadget of
    :mod:`pokerbot.solver.gadgets` for re-solving (:func:`resolve_round2`): ``"maxmargin"``
    (safe, the default), ``"resolve"`` (safe) or ``"unsafe"``.
    """
    unknown = [g for g in round2 if g not in ROUND2_NAMES]
    if unknown or not round2:
        raise SolverError(f"round2 takes some of {', '.join(ROUND2_NAMES)}; got {list(round2)}")
    start = time.perf_counter()
    game = game or load_game("nlfh-small")
    abstract_menu, eval_menu = menus(preflop_raises)
    bb = game.big_blind
    abs_full = build_tree(game, abstract_menu)
    abs_dl = build_tree(game, abstract_menu, depth_limit=0)
    solver = Solver(abs_full, "dcfr")
    solver.run(blueprint_iterations)
    bp = solver.average_strategy()
    bp_expl = solver.exploitability()
    log(f"blueprint {{0.5, 1}}: {abs_full.num_nodes:,} nodes, {blueprint_iterations} DCFR iterations, "
        f"{bp_expl:.2f} mbb/g in its abstraction")

    g_full = build_tree(game, eval_menu)
    full_solver = Solver(g_full, "dcfr")
    full_solver.run(full_iterations)
    sigma_c = full_solver.average_strategy()
    br0, br1 = best_response_values(g_full, sigma_c)
    value = (br0 - br1) / 2.0  # player 0's game value, within the (c) solution's exploitability
    log(f"abstraction with 0.75: {g_full.num_nodes:,} nodes; value {value:+.4f} chips; its exploitability "
        f"{1000 * (br0 + br1) / 2 / bb:.2f} mbb/g")

    def expl0(sigma: np.ndarray) -> float:
        return 1000.0 * (value + best_response_values(g_full, sigma)[1]) / bb

    # Bet nodes: the first decision's raises in both trees.
    root_labels = g_full.node_labels(0)
    abs_labels = abs_full.node_labels(0)
    mid = next(lab for lab in root_labels if lab not in abs_labels)
    raises = [lab for lab in abs_labels if action_from_text(lab, game.nolimit).kind == ActionType.RAISE]
    small, big = raises[0], raises[1]
    mid_node = _child_by_label(g_full, 0, mid)
    base = embed_strategy(abs_full, bp, g_full, uniform_strategy(g_full))
    root = State.initial(game)
    frac = {lab: fraction_of_raise(root, action_from_text(lab, game.nolimit).size) for lab in (small, mid, big)}
    p_small = pseudo_harmonic(frac[small], frac[big], frac[mid])

    rows: list[tuple[str, float]] = []
    sigma_a = base.copy()
    translation_mixture(abs_full, bp, [(_child_by_label(abs_full, 0, small), p_small),
                                       (_child_by_label(abs_full, 0, big), 1 - p_small)], g_full, mid_node, sigma_a)
    rows.append(("(a) pseudo-harmonic translation", expl0(sigma_a)))
    log(f"{rows[-1][0]}: {rows[-1][1]:.1f} mbb/g (maps {mid} to {small} with p = {p_small:.3f})")

    # (b) self-generated opponent continuations at the end of round 1, in the abstraction.
    kmax = max(k_values)
    gen = self_generative(game, abstract_menu, bp, kmax, chooser=1, iterations=generate_iterations,
                          full_tree=abs_full, dl_tree=abs_dl,
                          progress=lambda i: log(f"  self-generated continuation {i}/{kmax}"))
    # The subgame is rooted just before the opponent's bet (appendix A: nested solving), so the
    # opponent chooses among the abstraction's sizes and the real one: at the start of the game here.
    sub = build_tree(game, eval_menu, depth_limit=0)
    # Leaf mapping: in-abstraction lines map to themselves; below the 0.75 bet, by position below the
    # two neighbouring sizes (values averaged as pot fractions).
    cont = sub.continuation_leaves
    cont_pos = {int(li): i for i, li in enumerate(cont)}
    abs_leaf_of = {int(n): i for i, n in enumerate(abs_dl.leaf_nodes[abs_dl.continuation_leaves])}
    mapping: list[list[int]] = [[] for _ in cont]
    for lab in sub.node_labels(0):
        sources = [small, big] if lab == mid else [lab]
        for src_lab in sources:
            for x, y in match_subtrees(sub, _child_by_label(sub, 0, lab), abs_dl, _child_by_label(abs_dl, 0, src_lab)):
                if sub.kind[x] == LEAF and not sub.leaf_equity[sub.leaf_index[x]]:
                    mapping[cont_pos[int(sub.leaf_index[x])]].append(abs_leaf_of[y])
    abs_pots = [_pot(abs_dl.leaf_states[int(i)]) for i in abs_dl.continuation_leaves]
    sub_pots = [_pot(sub.leaf_states[int(i)]) for i in cont]
    under_mid = np.array([g_full.betting[int(g_full.template[n])].startswith(mid) for n in range(g_full.num_nodes)])
    p0_mid_slots = np.zeros(g_full.num_slots, dtype=bool)
    for n in g_full.decision_nodes[0]:
        if under_mid[n]:
            p0_mid_slots[int(g_full.slot[n]) : int(g_full.slot[n]) + int(g_full.num_children[n]) * g_full.num_hands[0]] = True
    details: dict[str, float] = {}
    abs_full_leaf = leaf_nodes_in_full_tree(abs_dl, abs_full)  # per abs_dl continuation leaf
    g_chance = {(g_full.betting[int(g_full.template[n])], ()): int(n) for n in np.nonzero(g_full.kind == CHANCE)[0]}
    round2_trees: dict[int, PublicTree] = {}
    for k in k_values:
        tables = np.zeros((len(cont), 1, k) + sub.num_hands)
        for j in range(k):
            t = gen.tables[j]
            for i, srcs in enumerate(mapping):
                tables[i, 0, j] = sub_pots[i] * np.mean([t[s] / abs_pots[s] for s in srcs], axis=0)
        ev = PairTableEvaluator(tables)
        s = Solver(sub, "dcfr", leaves=ev)
        s.run(dl_iterations)
        avg = s.average_strategy()
        details[f"K={k} depth-limited exploitability"] = s.exploitability()
        # Player 0 answers the 0.75 bet with the depth-limited solution; elsewhere it keeps the blueprint.
        sigma_dl = np.where(p0_mid_slots, embed_strategy(sub, avg, g_full, base, players=(0,)), base)
        # Round 2, as the depth-limited game assumed: player 0 plays the blueprint beyond each leaf,
        # the average of the two mapped leaves' continuations (reach-weighted, like the leaf values).
        if "blueprint" in round2:
            sigma = sigma_dl.copy()
            for i, li in enumerate(cont):
                if not sub.betting[int(sub.template[sub.leaf_nodes[li]])].startswith(mid):
                    continue
                dst = g_chance[(sub.betting[int(sub.template[sub.leaf_nodes[li]])], ())]
                weighted = [(int(abs_full_leaf[s_]), 1.0 / len(mapping[i])) for s_ in mapping[i]]
                translation_mixture(abs_full, bp, weighted, g_full, dst, sigma)
            rows.append((f"(b) depth-limited, K = {k}, blueprint beyond", expl0(sigma)))
            log(f"{rows[-1][0]}: {rows[-1][1]:.1f} mbb/g")
        # Round 2 re-solved below each leaf after the bet, from the depth-limited solution's reaches.
        reach = [np.zeros((sub.num_leaves, s.layout.max_choices[p], sub.num_hands[p])) for p in range(2)]
        for p in range(2):
            K.reach_at_leaves(p, 0, s._reach[p], s.layout.bundle, sub.valid[p], avg, reach[p])
        # The opponent's value of each leaf continuation per hand, against our reach there (L, k, H1).
        opp_values = ev.values(1, reach[0][cont])
        for gadget in (g for g in round2 if g in GADGETS):  # gadgets: round 2 re-solved
            sigma = sigma_dl
            for i, li in enumerate(cont):
                if not sub.betting[int(sub.template[sub.leaf_nodes[li]])].startswith(mid):
                    continue
                ours, theirs = reach[0][li].sum(axis=0), reach[1][li].sum(axis=0)
                if not ours.any() or not theirs.any():
                    continue  # nobody gets here: nothing to re-solve
                if int(li) not in round2_trees:
                    round2_trees[int(li)] = round2_tree(game, eval_menu, sub.leaf_states[int(li)])
                t2 = round2_trees[int(li)]
                sigma = embed_strategy(t2, resolve_round2(t2, gadget, ours, theirs, opp_values[i], round2_iterations),
                                       g_full, sigma, players=(0,))
            rows.append((f"(b) depth-limited, K = {k}, round 2 {ROUND2_NAMES[gadget]}", expl0(sigma)))
            log(f"{rows[-1][0]}: {rows[-1][1]:.1f} mbb/g")
    rows.append(("(c) abstraction with 0.75", expl0(sigma_c)))
    log(f"{rows[-1][0]}: {rows[-1][1]:.1f} mbb/g")
    return Fig1Result(rows, value, bp_expl, time.perf_counter() - start, details)


def plot(result: Fig1Result, path: str) -> None:
    """The paper's Fig. 1 layout (matplotlib, PNG): exploitability against the number of leaf values K,
    one line per way of playing round 2, translation and the abstraction with 0.75 as horizontal lines."""
    import re

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lines: dict[str, list[tuple[int, float]]] = {}
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, v in result.rows:
        m = re.match(r"\(b\) depth-limited, K = (\d+), (.*)", name)
        if m:
            lines.setdefault(m.group(2), []).append((int(m.group(1)), max(v, 0.01)))
        else:
            ax.axhline(max(v, 0.01), linestyle="--" if name.startswith("(a)") else ":", color="black", label=name)
    for label, pts in lines.items():
        ks, vs = zip(*sorted(pts))
        ax.plot(ks, vs, marker="o", label=f"depth-limited, {label}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")  # exploitabilities are >= 0; the floor keeps a converged 0 on the plot
    ax.set_xlabel("values per leaf K (self-generated opponent continuations)")
    ax.set_ylabel("exploitability of player 0 (mbb/g)")
    ax.set_title("nlfh-small: answering an off-tree 0.75-pot open (Modicum Fig. 1)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, path, dpi=120)
    plt.close(fig)
