"""Network leaf evaluator: card-removal algebra, agreement with exact leaf values, refusals, HUNL batches."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from blueprint.leafnet import FeatureSpec, LeafNet, LeafNetError, TrainConfig, strategy_identity, train
from pokerbot.solver import Solver
from realtime.leafnet_data import DataConfig, class_pair_targets, generate, load_data, small_context, tree_rows
from realtime.network_leaves import NetworkLeafEvaluator, class_reach, leaf_rows

SMALL = DataConfig(name="t", source="small", game="leduc-nl", fractions=[0.5, 1.0], max_raises=2, k=3,
                   iterations=60, shards=2, workers=0)


@pytest.fixture(scope="module")
def ctx():  # type: ignore[no-untyped-def]
    return small_context(SMALL)


class _TableNet(LeafNet):
    """A stand-in 'network' that returns given rows: tests the evaluator's algebra alone."""

    def __init__(self, table: np.ndarray, meta: dict) -> None:
        super().__init__(model=None, meta=meta)
        self.table = table

    def predict(self, x: np.ndarray, batch: int = 65536, threads: int | None = 1) -> np.ndarray:
        assert x.shape[0] == self.table.shape[0]
        return self.table


def _meta(ctx, spec=FeatureSpec()):  # type: ignore[no-untyped-def]
    bpf, csf = ctx.identities
    return {"spec": spec.as_dict(), "choices": [1, len(ctx.continuations)], "classes": "hand", "blueprint": bpf,
            "continuations": csf, "game": "leduc-nl", "hidden": [8]}


def test_class_reach_is_exact_card_removal() -> None:
    rng = np.random.default_rng(0)
    hands = np.array(list(itertools.combinations(range(9), 2)), dtype=np.int64)[::-1].copy()
    cls = rng.integers(-1, 4, size=len(hands))
    reach = rng.random((2, len(hands)))
    out = np.zeros((2, len(hands), 4))
    class_reach(reach, hands, cls, hands, cls, np.arange(len(hands)), 4, out)
    for k, h, b in itertools.product(range(2), range(len(hands)), range(4)):
        if cls[h] < 0:
            continue
        want = sum(reach[k, j] for j in range(len(hands)) if cls[j] == b and not set(hands[j]) & set(hands[h]))
        assert out[k, h, b] == pytest.approx(want, abs=1e-12)


def test_exact_class_values_reproduce_the_exact_evaluator(ctx) -> None:
    tree = ctx.dl
    ev = ctx.evaluator()
    x, maps, ncls = leaf_rows(tree, "hand", FeatureSpec())
    v, _ = class_pair_targets(tree, ev, maps, ncls)
    pots = np.array([float(sum(tree.leaf_states[int(li)].spent)) for li in tree.continuation_leaves])
    table = (v / pots[:, None, None]).reshape(-1, v.shape[-1])
    bpf, csf = ctx.identities
    net_ev = NetworkLeafEvaluator(tree, _TableNet(table, _meta(ctx)), classes="hand", blueprint=bpf, continuations=csf)
    rng = np.random.default_rng(1)
    nl, k1 = len(tree.continuation_leaves), len(ctx.continuations)
    for player, ko in ((0, k1), (1, 1)):
        reach = rng.random((nl, ko, tree.num_hands[1 - player]))
        assert np.allclose(net_ev.values(player, reach), ev.values(player, reach), atol=1e-9)
    # Negative control: one wrong class-pair value changes the result.
    bad = table.copy()
    bad[1, 0] += 0.5
    bad_ev = NetworkLeafEvaluator(tree, _TableNet(bad, _meta(ctx)), classes="hand", blueprint=bpf, continuations=csf)
    reach = rng.random((nl, k1, tree.num_hands[1]))
    assert not np.allclose(bad_ev.values(0, reach), ev.values(0, reach), atol=1e-6)


def test_a_trained_network_agrees_with_exact_leaf_values(ctx, tmp_path) -> None:
    """Leduc, exact targets: validation Huber loss < 0.05 (pot units); leaf values within 0.1 pot per opponent hand
    of the exact ones on average; a solve with network leaves is under 15% as exploitable as uniform play in the exact
    depth-limited game."""
    manifest = generate(SMALL, FeatureSpec(), tmp_path / "data")
    _, data = load_data(tmp_path / "data")
    assert manifest["choices"] == [1, SMALL.k] and len(data["x"]) == sum(s["rows"] for s in manifest["shards"].values())
    res = train(data["x"], data["y"], data["group"], tmp_path / "model",
                TrainConfig(hidden=[64, 64], lr=3e-3, batch=64, epochs=250, patience=40), _meta(ctx))
    assert res.history[res.best_epoch][1] < 0.05
    tree = ctx.dl
    ev = ctx.evaluator()
    bpf, csf = ctx.identities
    net_ev = NetworkLeafEvaluator(tree, LeafNet.load(tmp_path / "model"), classes="hand", blueprint=bpf,
                                  continuations=csf)
    nl = len(tree.continuation_leaves)
    pots = np.array([float(sum(tree.leaf_states[int(li)].spent)) for li in tree.continuation_leaves])
    reach = np.ones((nl, SMALL.k, tree.num_hands[1])) / SMALL.k  # uniform range, options evenly
    n_opp = tree.num_hands[1] - 1
    err = np.abs(net_ev.values(0, reach) - ev.values(0, reach)) / (pots[:, None, None] * n_opp)
    assert err.mean() < 0.1
    # Solving with network leaves, judged in the exact depth-limited game (exact leaves).
    from pokerbot.solver import exploitability, uniform_strategy

    approx = Solver(tree, "dcfr", leaves=net_ev)
    approx.run(200)
    expl_net = exploitability(tree, approx.average_strategy(), None, ev)
    expl_uniform = exploitability(tree, uniform_strategy(tree, ev), None, ev)
    print(f"exact-game exploitability: network-leaf solution {expl_net:.1f}, uniform {expl_uniform:.1f} mbb/g")
    assert expl_net < 0.15 * expl_uniform


def test_the_evaluator_refuses_another_blueprint_set_spec_or_game(ctx) -> None:
    tree = ctx.dl
    bpf, csf = ctx.identities
    x, maps, ncls = leaf_rows(tree, "hand", FeatureSpec())
    table = np.zeros((x.shape[0] * x.shape[1], len(ctx.continuations)))
    net = _TableNet(table, _meta(ctx))
    with pytest.raises(LeafNetError, match="blueprint"):
        NetworkLeafEvaluator(tree, net, classes="hand", blueprint=dict(bpf, tree="other"), continuations=csf)
    with pytest.raises(LeafNetError, match="blueprint: strategy 0 differs"):
        shifted = strategy_identity(bpf["tree"], [np.roll(ctx.blueprint, 1)])
        NetworkLeafEvaluator(tree, net, classes="hand", blueprint=shifted, continuations=csf)
    with pytest.raises(LeafNetError, match="continuation set"):
        NetworkLeafEvaluator(tree, net, classes="hand", blueprint=bpf,
                             continuations=strategy_identity(bpf["tree"], ctx.continuations[::-1], ctx.penalties))
    with pytest.raises(LeafNetError, match="card classes"):
        NetworkLeafEvaluator(tree, net, classes="buckets:tiny", blueprint=bpf, continuations=csf)
    with pytest.raises(LeafNetError, match="options"):
        NetworkLeafEvaluator(tree, net, classes="hand", blueprint=bpf, continuations=csf, options=([0], [5]))
    other = _TableNet(table, dict(_meta(ctx), game="kuhn"))
    with pytest.raises(LeafNetError, match="kuhn"):
        NetworkLeafEvaluator(tree, other, classes="hand", blueprint=bpf, continuations=csf)


def test_data_generation_resumes_and_refuses_other_options(ctx, tmp_path) -> None:
    d = tmp_path / "data"
    m1 = generate(SMALL, FeatureSpec(), d)
    first = (d / m1["shards"]["1"]["file"]).read_bytes()
    (d / m1["shards"]["1"]["file"]).unlink()
    m2 = generate(SMALL, FeatureSpec(), d)
    assert (d / m2["shards"]["1"]["file"]).read_bytes() == first and m1["shards"] == m2["shards"]
    from dataclasses import replace

    with pytest.raises(LeafNetError, match="another config"):
        generate(replace(SMALL, seed=5), FeatureSpec(), d)
    with pytest.raises(LeafNetError, match="another spec"):
        generate(SMALL, FeatureSpec(bins=4), d)
    x, y, leaf = tree_rows(ctx.dl, ctx.evaluator(), "hand", FeatureSpec())
    _, data = load_data(d)
    assert len(data["x"]) == len(x)


def test_damaged_or_crafted_leaf_data_is_refused(ctx, tmp_path) -> None:
    import json

    d = tmp_path / "data"
    generate(SMALL, FeatureSpec(), d)
    load_data(d)  # negative control
    manifest = json.loads((d / "manifest.json").read_text())
    crafted = json.loads(json.dumps(manifest))
    crafted["shards"]["0"]["file"] = "../../outside.npz"  # a manifest naming a file outside the data set
    (d / "manifest.json").write_text(json.dumps(crafted))
    with pytest.raises(LeafNetError, match="not a leaf data manifest"):
        load_data(d)
    (d / "manifest.json").write_text("[1, 2]")
    with pytest.raises(LeafNetError, match="not a leaf data manifest"):
        generate(SMALL, FeatureSpec(), d)
    (d / "manifest.json").write_text(json.dumps(manifest))
    context = d / "context.npz"  # the cached small-game solution, one value changed
    with np.load(context) as f:
        arrays = {k: f[k] for k in f.files}
    arrays["blueprint"] = arrays["blueprint"] * 0.5
    np.savez(context, **arrays)
    with pytest.raises(LeafNetError, match="checksum mismatch"):
        small_context(SMALL, d)


def test_hunl_flop_subgame_with_network_leaves(tmp_path, hunl_tiny_home, monkeypatch) -> None:
    """The whole hold'em path on one sampled subgame: data (rollouts), a short training, the factory."""
    from blueprint.continuation import leaves_dir, load_set
    from blueprint.model import Blueprint
    from blueprint.storage import blueprint_dir
    from pokerbot.cards import parse_cards
    from pokerbot.gamedef import load_game
    from pokerbot.solver import PotFractionMenu, build_tree
    from pokerbot.state import CALL, State, raise_to
    from realtime.network_leaves import make_leaf_evaluator

    monkeypatch.setenv("POKERBOT_HOME", str(hunl_tiny_home))
    path = blueprint_dir("hunl-tiny") / "blueprint.npz"
    cfg = DataConfig(name="h", source="holdem", subgames=2, shards=1, workers=0, menus=[[1.0]], max_raises=1,
                     rollouts=1)
    manifest = generate(cfg, FeatureSpec(), tmp_path / "data")
    assert manifest["classes"] == "buckets:tiny" and manifest["choices"] == [4, 4]
    _, data = load_data(tmp_path / "data")
    assert data["y"].shape[1] == 16 and len(np.unique(data["group"])) == 2
    meta = {k: manifest[k] for k in ("spec", "choices", "classes", "blueprint", "continuations", "game")}
    net = train(data["x"], data["y"], data["group"], tmp_path / "model", TrainConfig(epochs=3, val_fraction=0.5), meta).net
    bp = Blueprint.load(path)
    cs = load_set(leaves_dir("hunl-tiny-bias"), bp.tree, bp.tree.signature()).strategies
    game = load_game("hunl")
    root = State.initial(game).apply(raise_to(300)).apply(CALL).with_cards(board_cards=parse_cards("Ks7h2c"))
    tree = build_tree(game, PotFractionMenu((1.0,), True, 1), root=root, depth_limit=0)
    ev = make_leaf_evaluator("network", tree, blueprint=bp, continuations=([cs[0]], cs), model=tmp_path / "model")
    assert ev.num_choices == (1, 4)
    nl = len(tree.continuation_leaves)
    rng = np.random.default_rng(0)
    r0, r1 = rng.random((nl, 1, tree.num_hands[0])), rng.random((nl, 4, tree.num_hands[1]))
    v0, v1 = ev.values(0, r1), ev.values(1, r0)
    assert v0.shape == (nl, 1, tree.num_hands[0]) and v1.shape == (nl, 4, tree.num_hands[1])
    # The set recomputed in memory (not through its one-byte storage) is the same set; its first two are a
    # smaller set (options 0 and 1), and the same model serves player 1 choosing (options (K, 1)).
    from blueprint.continuation import bias_strategies

    fresh = bias_strategies(bp.tree, bp.strategy, 10.0, 4)
    assert make_leaf_evaluator("network", tree, blueprint=bp, continuations=([cs[0]], fresh[:2]), model=net).num_choices == (1, 2)
    assert make_leaf_evaluator("network", tree, blueprint=bp, continuations=(fresh, [cs[0]]), model=net).num_choices == (4, 1)
    # Zero-sum: the reach-weighted values of the two sides cancel at every leaf.
    assert np.allclose(np.einsum("lkh,lkh->l", r0, v0), -np.einsum("lkh,lkh->l", r1, v1), rtol=1e-9, atol=1e-6)
    # Another continuation set (reordered) or blueprint is refused.
    with pytest.raises(LeafNetError, match="continuation set"):
        make_leaf_evaluator("network", tree, blueprint=bp, continuations=([cs[0]], cs[::-1]), model=net)
    with pytest.raises(LeafNetError, match="blueprint"):
        bp2 = Blueprint(bp.tree, bp.strategy * 0.5, bp.cards_name, bp.actions_name, bp.meta)
        make_leaf_evaluator("network", tree, blueprint=bp2, continuations=([cs[0]], cs), model=net)


# --- the real-time agent with network leaves (its [leaves] config) ---------------------------------------------


@pytest.fixture(scope="module")
def hunl_model(tmp_path_factory, hunl_tiny_home):  # type: ignore[no-untyped-def]
    """The hunl-tiny blueprint and an (untrained, small) flop leaf-value model built for it and its K = 4 bias set.

    Untrained weights are enough to check the wiring (the agent's config selects it, legal deterministic play,
    refusals); how good trained leaves are is the benchmark's question.
    """
    from blueprint.continuation import bias_strategies
    from blueprint.leafnet import make_model
    from realtime.network_leaves import blueprint_identity, holdem_classes

    from blueprint.model import Blueprint

    bp = Blueprint.load(hunl_tiny_home / "blueprints" / "hunl-tiny" / "blueprint.npz")
    spec = FeatureSpec()
    conts = bias_strategies(bp.tree, bp.strategy, 10.0, 4)
    meta = {"spec": spec.as_dict(), "choices": [4, 4], "classes": holdem_classes(bp), "game": "hunl", "hidden": [8],
            "blueprint": blueprint_identity(bp), "leaf_round": 1,
            "continuations": strategy_identity(bp.tree.signature(), conts)}
    d = tmp_path_factory.mktemp("leafnet") / "model"
    import torch

    torch.manual_seed(0)
    LeafNet(make_model(spec.num_features, 16, [8]), meta).save(d)
    return bp, d


def _agent_config(model: object, **leaves: object):  # type: ignore[no-untyped-def]
    """Flop solved (10 DCFR iterations, no time pressure) with network leaves; the other rounds the blueprint."""
    from realtime.config import RealtimeConfig

    return RealtimeConfig.from_dict({
        "blueprint": "hunl-tiny", "seed": 3, "action_time_limit": 1e6,
        "leaves": {"evaluator": "network", "model": str(model), "equity_samples": 20, **leaves},
        "round": {"1": {"mode": "solve", "iterations": 10, "min_iterations": 1, "time_budget": 1e6, "depth_limit": 0}},
    })


def test_the_agent_with_network_leaves_plays_hunl_legally_and_deterministically(hunl_model) -> None:
    from evaluation.match import play_match
    from pokerbot.bots import make_agent
    from realtime.agent import RealtimeAgent

    bp, model = hunl_model
    runs = []
    for _ in range(2):
        agent = RealtimeAgent(_agent_config(model), bp, seed=5)
        solved = []
        decide = agent.resolver.decide

        def spy(state, decide=decide, solved=solved):  # type: ignore[no-untyped-def]
            d = decide(state)
            if d.source == "solve":
                solved.append(d)
            return d

        agent.resolver.decide = spy  # type: ignore[method-assign]
        opp = make_agent("call", bp.game, seed=6)
        res = play_match(agent, opp, bp.game, 6, seed=11, duplicate=True, progress=False)
        assert "repaired" not in res.extra  # no illegal action
        runs.append((res.chips.tolist(), [(s["round"], s["source"], s["iterations"]) for s in agent.stats]))
        assert solved and all(isinstance(d.solution.leaves, NetworkLeafEvaluator) for d in solved)
    assert runs[0] == runs[1]
    assert any(src == "solve" for _, src, _ in runs[0][1])


def test_the_agent_refuses_a_model_built_for_something_else(hunl_model, tmp_path) -> None:
    import json

    from blueprint.model import Blueprint
    from realtime.agent import RealtimeAgent
    from realtime.config import RealtimeConfig, RealtimeConfigError

    bp, model = hunl_model
    RealtimeAgent(_agent_config(model), bp)  # the one it was built for
    RealtimeAgent(_agent_config(model, k=2), bp)  # its first two continuations: options 0 and 1
    with pytest.raises(LeafNetError, match="continuation set: strategy 1 differs"):
        RealtimeAgent(_agent_config(model, factor=3.0), bp)
    with pytest.raises(LeafNetError, match="blueprint: strategy 0 differs"):
        other = np.where(bp.strategy > 0.5, bp.strategy * 0.5, bp.strategy)
        RealtimeAgent(_agent_config(model), Blueprint(bp.tree, other, bp.cards_name, bp.actions_name, bp.meta))
    # The turn's leaves (end of the turn) are not the model's (end of the flop); the config can keep rollouts there.
    turn = {"mode": "solve", "iterations": 20, "min_iterations": 1, "time_budget": 1e6, "depth_limit": 0}
    base = {"blueprint": "hunl-tiny", "leaves": {"evaluator": "network", "model": str(model)}}
    with pytest.raises(LeafNetError, match="end of round 1; round 2 with depth_limit 0"):
        RealtimeAgent(RealtimeConfig.from_dict(dict(base, round={"2": turn})), bp)
    RealtimeAgent(RealtimeConfig.from_dict(dict(base, round={"2": dict(turn, leaves="rollout")})), bp)
    # Another feature spec version, another game, card classes: model.json edited (the weights' checksum still holds).
    meta = json.loads((model / "model.json").read_text())
    for key, value, word in (("spec", dict(meta["spec"], version=1), "feature spec"), ("game", "leduc-nl", "leduc-nl"),
                             ("classes", "buckets:other", "card classes")):
        d = tmp_path / key
        d.mkdir()
        (d / "model.pt").write_bytes((model / "model.pt").read_bytes())
        (d / "model.json").write_text(json.dumps(dict(meta, **{key: value})))
        with pytest.raises(LeafNetError, match=word):
            RealtimeAgent(_agent_config(d), bp)
    with pytest.raises(LeafNetError, match="no readable leaf-value model"):
        RealtimeAgent(_agent_config(tmp_path / "missing"), bp)
    # Config errors before any model is read.
    with pytest.raises(RealtimeConfigError, match="leaves.model must name"):
        RealtimeConfig.from_dict({"blueprint": "x", "leaves": {"evaluator": "network"}, "round": {"1": turn}})
    with pytest.raises(RealtimeConfigError, match="leaves.evaluator"):
        RealtimeConfig.from_dict({"blueprint": "x", "leaves": {"evaluator": "table"}})
    with pytest.raises(RealtimeConfigError, match=r"round.1.leaves"):
        RealtimeConfig.from_dict({"blueprint": "x", "round": {"1": dict(turn, leaves="nets")}})
    # The shipped config selects the network on the flop and rollouts on the turn.
    shipped = RealtimeConfig.load("hunl-tiny-net")
    assert shipped.network_rounds() == [1] and shipped.leaf_evaluator(2) == "rollout"
    assert shipped.leaves.model == "hunl-tiny-bias-net"
