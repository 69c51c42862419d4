"""What re-solving one street gains over the blueprint, exactly per public state (HUNL-sized games).

Playing hands measures the real-time agent against its blueprint only to within hundreds of mbb/g
(AIVAT, thousands of hands): too coarse to tell which street, leaf model or setting throws a gain
away. This module measures each street's gain without dealing private cards or later board cards:

* The agent re-solves only street ``r`` (every other round plays the blueprint) and faces the
  blueprint. Until street ``r`` starts both play the blueprint, so the public states there are
  distributed as in blueprint self-play: :func:`sample_states` draws them by playing whole deals.
* At such a state ``S`` (:func:`gain_at`) both players' ranges are the blueprint's reach of every
  hand over the public history (:func:`blueprint_ranges`). The tree from ``S`` to the end of the hand,
  with the blueprint's menu (plus the agent's added sizes at its own nodes), carries the agent's
  decisions at its nodes (composed from :meth:`realtime.agent.Resolver.decide`, as the exact
  small-game tests compose it: :func:`realtime.exact.compose`) and the blueprint everywhere else. The
  gain is the agent's expected winnings there minus the blueprint's own on the same tree, both
  exact over every pair of hands and every later card.
* Averaged over the states and multiplied by the fraction of hands that reach the street, the gain
  is the street's share of the agent's head-to-head mbb/g against its blueprint -- with no variance
  from private cards or the run-out, only from which public states were drawn (reported as a 95%
  interval over states). Variants of the agent are measured on the same states (common random
  numbers), and their paired differences against the first are reported.

The tree from a state to the end of the hand must fit in memory as strategy arrays: the turn
(hunl-tiny's menu: about 7,000 nodes x 1,326 hands, 40 MB) and the river are cheap; a flop
state's tree to the end holds every turn card (49 turn trees) and is refused. At a flop state
the tree holds a few turn cards drawn at random instead (``Design.turn_cards``; every river card
after each), weighted to stand for all 49 (``build_tree(deals=...)``): the agent's flop decisions
do not depend on the turn card, and both its winnings and the blueprint's are estimated without
bias on the same cards, so the sampled cards add variance over states, not bias.

>>> from realtime.street_gain import override
>>> override({"round": {"2": {"mode": "solve"}}}, ["round.2.iterations=50", "leaves.k=2"])
{'round': {'2': {'mode': 'solve', 'iterations': 50}}, 'leaves': {'k': 2}}
"""

from __future__ import annotations

import math
import time
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from blueprint.model import Blueprint
from blueprint.policy import BlueprintPolicy
from pokerbot.errors import PokerbotError
from pokerbot.solver.best_response import expected_value
from pokerbot.solver.tree import PublicTree, build_tree, hand_universe
from pokerbot.state import State
from realtime.agent import Resolver
from realtime.exact import EvalMenu, agent_sizes, compose, decisions

#: Street names as people say them.
STREETS = {"preflop": 0, "flop": 1, "turn": 2, "river": 3}

#: Largest tree (nodes) :func:`gain_at` builds: the turn to the end of the hand fits, a flop with every
#: turn card does not (with 4 of them, hunl-tiny's largest flop trees hold ~130,000 nodes, 1.2 GB a strategy).
MAX_NODES = 300_000


def override(data: dict, settings: Sequence[str]) -> dict:
    """``data`` (a real-time config as a dict) with dotted ``key=value`` settings applied (values in TOML)."""
    for item in settings:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise PokerbotError(f"a setting is KEY=VALUE (e.g. round.2.iterations=50), got {item!r}")
        try:
            value = tomllib.loads(f"v = {text.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            value = text.strip()  # a bare word: a string
        parts = key.strip().split(".")
        node = data
        for p in parts[:-1]:
            nxt = node.setdefault(p, {})
            if not isinstance(nxt, dict):
                raise PokerbotError(f"setting {key!r}: {p!r} is not a table")
            node = nxt
        node[parts[-1]] = value
    return data


def street_only(data: dict, street: int, rounds: int) -> dict:
    """``data`` with every round but ``street`` playing the blueprint (``street`` as the config has it)."""
    table = data.setdefault("round", {})
    for r in range(rounds):
        if r != street:
            table[str(r)] = {"mode": "blueprint"}
    if table.get(str(street), {}).get("mode", "blueprint") != "solve":
        raise PokerbotError(f"the config does not re-solve round {street}: nothing to measure there")
    return data


def blueprint_ranges(policy: BlueprintPolicy, state: State) -> tuple[np.ndarray, np.ndarray]:
    """Each player's blueprint reach of every hand of the universe over ``state``'s public history."""
    n = len(policy.hands)
    reach = [np.ones(n), np.ones(n)]
    s = State.initial(policy.game).with_cards(board_cards=state.visible_board)
    for a in state.actions():
        p = s.current_player
        assert p is not None
        reach[p] = reach[p] * policy.action_probabilities(s, a)
        s = s.apply(a)
    return reach[0], reach[1]


@dataclass
class Sampled:
    """Public states at the start of a street, drawn by blueprint self-play, and how many deals it took."""

    states: list[State]
    deals: int
    reached: int

    @property
    def reach_fraction(self) -> float:
        """The fraction of hands that reach the street (from the deals drawn)."""
        return self.reached / self.deals


def sample_states(policy: BlueprintPolicy, street: int, count: int, seed: int, min_deals: int = 2000) -> Sampled:
    """``count`` public states at the start of ``street`` (no action there yet), from blueprint self-play
    on random deals (a hand that ends earlier is counted in ``deals`` and drawn again). Deals go on to
    ``min_deals`` at least so that the fraction reaching the street is estimated from that many hands."""
    game = policy.game
    rng = np.random.default_rng(seed)
    index = {tuple(int(c) for c in row): i for i, row in enumerate(policy.hands)}
    states: list[State] = []
    deals = reached = 0
    need = game.num_hole_cards * game.num_players + game.total_board_cards
    while len(states) < count or deals < min_deals:
        deals += 1
        cards = [int(c) for c in rng.permutation(game.deck_size)[:need]]
        h = game.num_hole_cards
        holes = [tuple(sorted(cards[p * h : (p + 1) * h], reverse=True)) for p in range(game.num_players)]
        board = cards[h * game.num_players :]
        s = State.initial(game, hole_cards=holes, board_cards=board)
        while not s.finished and s.round < street:
            p = s.current_player
            assert p is not None
            pub = s.with_cards(hole_cards=((),) * game.num_players, board_cards=s.visible_board)
            actions, probs = policy.probabilities(pub)
            col = probs[:, index[holes[p]]]
            s = s.apply(actions[int(rng.choice(len(actions), p=col / col.sum()))])
        if not s.finished and s.round == street:
            reached += 1
            if len(states) < count:
                states.append(s.with_cards(hole_cards=((),) * game.num_players, board_cards=s.visible_board))
    return Sampled(states, deals, reached)


@dataclass
class Gain:
    """The exact expected winnings of the agent and of the blueprint in ``seat`` at one public state
    (chips per hand, both against the blueprint), and the agent's seconds there."""

    state: str
    seat: int
    agent: float
    blueprint: float
    seconds: float
    solves: int

    @property
    def gain(self) -> float:
        return self.agent - self.blueprint


def next_cards(state: State, count: int, seed: int) -> tuple[int, ...]:
    """``count`` cards of the next round's deal after ``state``'s board, drawn uniformly without replacement
    (the game's next round must deal one card) from a generator seeded by ``seed``."""
    game = state.game
    if state.round + 1 >= game.num_rounds or game.num_board_cards[state.round + 1] != 1:
        raise PokerbotError(f"sampled cards need a one-card deal after round {state.round}")
    free = [c for c in sorted(game.deck()) if c not in state.visible_board]
    if not 0 < count <= len(free):
        raise PokerbotError(f"sampled cards: 1 to {len(free)}, got {count}")
    rng = np.random.default_rng(seed)
    return tuple(sorted(int(c) for c in rng.choice(free, size=count, replace=False)))


@dataclass
class Baseline:
    """The blueprint against itself from a public state, for one seat of the agent: the tree to the end of the
    hand (the agent's added sizes at its nodes), both players' blueprint strategies on it, the blueprint's
    ranges there and its expected winnings (player 0's chips). The same for every variant of an agent that
    adds the same sizes, so :func:`measure` makes it once a state and seat."""

    tree: PublicTree
    strategy: np.ndarray
    ranges: tuple[np.ndarray, np.ndarray]
    value: float
    sizes: tuple[str, ...]
    label: str


def sizes_key(resolver: Resolver) -> tuple[str, ...]:
    """The agent's added sizes per round (what shapes its evaluation tree)."""
    game = resolver.policy.game
    return tuple(resolver.config.round(r).sizes if resolver.config.round(r).mode == "solve" else ""
                 for r in range(game.num_rounds))


def baseline(resolver: Resolver, state: State, seat: int, cards: Sequence[int] = ()) -> Baseline:
    """The :class:`Baseline` of ``resolver``'s agent in ``seat`` at public ``state``; ``cards``: the next round's
    deals the tree holds (a sample standing for all; empty: every card)."""
    policy = resolver.policy
    game = policy.game
    uni = hand_universe(game)
    root = state.with_cards(hole_cards=((),) * game.num_players, board_cards=state.visible_board)
    deals = {root.round + 1: [(int(c),) for c in cards]} if len(cards) else None
    tree = build_tree(game, EvalMenu(policy, seat, None, agent_sizes(resolver)), root=root, hands=(uni, uni),
                      deals=deals)
    if tree.num_nodes > MAX_NODES:
        raise PokerbotError(f"the tree from {root.betting_string()!r} to the end has {tree.num_nodes:,} nodes "
                            f"(at most {MAX_NODES:,}): measure a later street, or sample fewer turn cards")
    ranges = blueprint_ranges(policy, root)
    strategy = compose(tree, 1 - seat, policy.probabilities)
    compose(tree, seat, policy.probabilities, into=strategy)
    label = (root.betting_string() + "|" + " ".join(map(str, root.visible_board))
             + ("|" + " ".join(map(str, cards)) if len(cards) else ""))
    return Baseline(tree, strategy, ranges, expected_value(tree, strategy, ranges), sizes_key(resolver), label)


def agent_rounds(resolver: Resolver) -> set[int]:
    """The rounds where the agent's decisions can differ from the blueprint's: those it re-solves, and the
    rounds after the first that adds sizes (there its history may hold a size the blueprint must translate).
    Elsewhere the agent plays the blueprint on the blueprint's own tree (the negative control in
    tests/test_realtime_street_gain.py checks that the two agree to the last bit)."""
    n = resolver.policy.game.num_rounds
    out = {r for r in range(n) if resolver.config.round(r).mode == "solve"}
    sized = [r for r in out if resolver.config.round(r).sizes]
    return out | set(range(min(sized), n)) if sized else out


def gain_at(resolver: Resolver, state: State, seat: int, cards: Sequence[int] = (),
            base: Baseline | None = None) -> Gain:
    """The agent in ``seat`` against the blueprint from public ``state`` to the end of the hand (see the module);
    ``cards``: the next round's deals the tree holds (a sample standing for all; empty: every card); ``base``:
    the state's :class:`Baseline` for this seat if made already (the agent's sizes must be its)."""
    if base is None:
        base = baseline(resolver, state, seat, cards)
    elif len(cards):
        raise PokerbotError("give the sampled cards to baseline(), not with a baseline made already")
    elif base.sizes != sizes_key(resolver):
        raise PokerbotError("the baseline was made for an agent with other added sizes")
    resolver.clear()  # this state's decisions only (the solve count below)
    start = time.perf_counter()
    mine = compose(base.tree, seat, decisions(resolver), into=base.strategy.copy(), rounds=agent_rounds(resolver))
    seconds = time.perf_counter() - start
    solves = sum(1 for d in resolver.memo.values() if d.source == "solve")
    sign = 1.0 if seat == 0 else -1.0
    return Gain(base.label, seat, sign * expected_value(base.tree, mine, base.ranges), sign * base.value, seconds,
                solves)


def summary(gains: Sequence[float] | np.ndarray, scale: float) -> tuple[float, float]:
    """Mean and 95% half-width (normal approximation over the states) of ``gains`` times ``scale``."""
    x = np.asarray(gains, dtype=np.float64) * scale
    if len(x) < 2:
        return float(x.mean()) if len(x) else math.nan, math.nan
    return float(x.mean()), float(1.96 * x.std(ddof=1) / math.sqrt(len(x)))


@dataclass(frozen=True)
class Variant:
    """One agent of an ablation: a name and the config settings it changes (dotted ``key=value``)."""

    name: str
    settings: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str) -> Variant:
        """``NAME`` or ``NAME: key=value, key=value`` (the shipped config when no setting is given).

        >>> Variant.parse("rollouts 30: leaves.rollouts=30, round.2.iterations=50")
        Variant(name='rollouts 30', settings=('leaves.rollouts=30', 'round.2.iterations=50'))
        >>> Variant.parse("sized: round.3.sizes='pot 0.5,1.5 all_in=0', leaves.k=2").settings
        ("round.3.sizes='pot 0.5,1.5 all_in=0'", 'leaves.k=2')
        """
        name, _, rest = text.partition(":")
        if not name.strip():
            raise PokerbotError(f"a variant is NAME or NAME: key=value, ... ; got {text!r}")
        settings, item, quote = [], "", ""
        for ch in rest:  # commas inside a quoted value belong to it
            if quote:
                quote = "" if ch == quote else quote
            elif ch in "'\"":
                quote = ch
            elif ch == ",":
                settings.append(item)
                item = ""
                continue
            item += ch
        if quote:
            raise PokerbotError(f"variant {name.strip()!r}: a quote is not closed in {rest.strip()!r}")
        settings.append(item)
        return cls(name.strip(), tuple(s.strip() for s in settings if s.strip()))


@dataclass(frozen=True)
class Design:
    """An ablation fixed before its first state is measured: the agent's config, the street, the states
    (how many, from which seed), the variants, measured in that order on the same states, and on the flop
    how many turn cards stand for all at each state (0: every card, only where the tree fits)."""

    config: str
    street: int
    states: int
    seed: int
    variants: tuple[Variant, ...]
    turn_cards: int = 0

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"config": self.config, "street": self.street, "states": self.states,
                                  "seed": self.seed, "variants": [[v.name, list(v.settings)] for v in self.variants]}
        if self.turn_cards:
            out["turn_cards"] = self.turn_cards
        return out

    def cards(self, index: int, state: State) -> tuple[int, ...]:
        """The turn cards the tree at state ``index`` holds (the same for every variant), or () for every card."""
        if not self.turn_cards:
            return ()
        return next_cards(state, self.turn_cards, self.seed * 1_000_003 + index)


def make_resolver(design: Design, variant: Variant, blueprint: Blueprint | None = None) -> Resolver:
    """The untimed agent of ``variant``: the design's config, only its street re-solved, the settings applied."""
    from blueprint.agent import resolve_path
    from pokerbot.files import read_toml_config
    from realtime.agent import untimed
    from realtime.config import CONFIG_PREFIX, RealtimeConfig, RealtimeConfigError

    _, data = read_toml_config(design.config, RealtimeConfigError, prefix=CONFIG_PREFIX, what="real-time config")
    data = override(data, variant.settings)
    bp = blueprint if blueprint is not None else Blueprint.load(resolve_path(str(data.get("blueprint", ""))))
    data = street_only(data, design.street, bp.game.num_rounds)
    try:
        cfg = untimed(RealtimeConfig.from_dict(data))
    except RealtimeConfigError as exc:
        raise PokerbotError(f"variant {variant.name!r}: {exc}") from None
    return Resolver(cfg, bp)


@dataclass
class Row:
    """One variant's line of the ablation table (gains in mbb per hand that reaches the street; the share of
    head-to-head mbb/g is that times the fraction of hands reaching it)."""

    variant: str
    states: int
    gain: float
    gain_ci: float
    share: float
    share_ci: float
    diff: float
    diff_ci: float
    seconds: float
    solves: float


def load_results(path: str, design: Design) -> list[dict]:
    """The results already in ``path`` (a JSON-lines file whose first line is the design), or [] if none."""
    import json
    import os

    if not os.path.exists(path):
        return []
    with open(path) as f:
        lines = f.read().splitlines()
    if not lines:
        return []
    try:
        head = json.loads(lines[0])
    except json.JSONDecodeError:
        raise PokerbotError(f"{path}: not a street-gain results file (give another --out)") from None
    if head.get("design") != design.as_dict():
        raise PokerbotError(f"{path} holds another design's results ({head.get('design')}); give another --out, "
                            "or delete the file to start again")
    out = []
    for line in lines[1:]:
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            break  # a line cut short by a stop: measured again
    return out


def measure(design: Design, out: str, progress: bool = True) -> tuple[list[dict], Sampled]:
    """Measure every variant at every state and seat, appending each result to ``out`` as it is made (a
    stopped run resumes where it stopped); returns all results and the sampled states."""
    import json
    import os

    done = load_results(out, design)
    have = {(r["variant"], r["index"], r["seat"]) for r in done}
    first = make_resolver(design, design.variants[0])
    bp = first.blueprint
    sampled = sample_states(first.policy, design.street, design.states, design.seed)
    todo = [(i, v, seat) for i in range(design.states) for v in design.variants for seat in range(2)
            if (v.name, i, seat) not in have]
    bar = None
    if progress and todo:
        from tqdm import tqdm

        bar = tqdm(total=len(todo), unit="seat", desc=f"street gain ({len(design.variants)} variants)")
    resolvers: dict[str, Resolver] = {design.variants[0].name: first}
    bases: dict[tuple[int, int, tuple[str, ...]], Baseline] = {}  # the current state's, per seat and sizes
    new = not os.path.exists(out) or os.path.getsize(out) == 0
    with open(out, "a") as f:
        if new:
            f.write(json.dumps({"design": design.as_dict(), "reach_fraction": sampled.reach_fraction,
                                "deals": sampled.deals}) + "\n")
        for i, v, seat in todo:
            res = resolvers.get(v.name)
            if res is None:
                res = resolvers[v.name] = make_resolver(design, v, bp)
            key = (i, seat, sizes_key(res))
            if key not in bases:
                bases = {k: b for k, b in bases.items() if k[0] == i}  # one state's trees in memory at a time
                bases[key] = baseline(res, sampled.states[i], seat, design.cards(i, sampled.states[i]))
            g = gain_at(res, sampled.states[i], seat, base=bases[key])
            row = {"variant": v.name, "index": i, "seat": seat, "state": g.state, "agent": g.agent,
                   "blueprint": g.blueprint, "seconds": g.seconds, "solves": g.solves}
            done.append(row)
            f.write(json.dumps(row) + "\n")
            f.flush()
            os.fsync(f.fileno())
            if bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()
    return done, sampled


def table(design: Design, results: Sequence[dict], reach_fraction: float, big_blind: int) -> list[Row]:
    """One :class:`Row` per variant over the states measured for both seats by every variant so far."""
    per: dict[str, dict[int, dict[int, dict]]] = {}
    for r in results:
        per.setdefault(r["variant"], {}).setdefault(int(r["index"]), {})[int(r["seat"])] = r
    names = [v.name for v in design.variants]
    common = sorted(i for i in range(design.states) if all(len(per.get(n, {}).get(i, {})) == 2 for n in names))
    mbb = 1000.0 / big_blind

    def gains(name: str) -> np.ndarray:
        return np.array([sum(per[name][i][s]["agent"] - per[name][i][s]["blueprint"] for s in (0, 1)) / 2.0
                         for i in common])

    base = gains(names[0]) if common else np.zeros(0)
    rows = []
    for name in names:
        g = gains(name) if common else np.zeros(0)
        m, ci = summary(g, mbb)
        dm, dci = summary(g - base, mbb)
        recs = [per[name][i][s] for i in common for s in (0, 1)]
        rows.append(Row(name, len(common), m, ci, m * reach_fraction, ci * reach_fraction, dm, dci,
                        float(np.mean([r["seconds"] for r in recs])) if recs else math.nan,
                        float(np.mean([r["solves"] for r in recs])) if recs else math.nan))
    return rows


def render(design: Design, rows: Sequence[Row], reach_fraction: float) -> str:
    """The ablation table as Markdown."""
    street = next(k for k, v in STREETS.items() if v == design.street)
    lines = [f"Re-solving the {street} alone against the blueprint ({design.config}), exact at {rows[0].states if rows else 0} "
             f"public states drawn by blueprint self-play (seed {design.seed}); {100 * reach_fraction:.1f}% of hands reach "
             f"the {street}. Gains in mbb per hand reaching the {street}, 95% intervals over the states.",
             "",
             f"| variant | gain at the {street} | share of mbb/g | paired against {rows[0].variant if rows else ''} "
             "| solves per seat and state | seconds per seat and state |",
             "|---|---:|---:|---:|---:|---:|"]

    def pm(m: float, ci: float) -> str:
        return f"{m:+.1f} ± {ci:.1f}" if math.isfinite(ci) else f"{m:+.1f} (one state: no interval)"

    for r in rows:
        lines.append(f"| {r.variant} | {pm(r.gain, r.gain_ci)} | {pm(r.share, r.share_ci)} | {pm(r.diff, r.diff_ci)} | "
                     f"{r.solves:.1f} | {r.seconds:.1f} |")
    return "\n".join(lines)
