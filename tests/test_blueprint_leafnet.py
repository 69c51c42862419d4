"""Leaf-value network: features (hand-computed), model storage, training (resume, early stop), refusals."""

from __future__ import annotations

import json

import numpy as np
import pytest

from blueprint.leafnet import (
    FeatureSpec,
    LeafNet,
    LeafNetError,
    TrainConfig,
    board_features,
    pair_rows,
    plot_losses,
    public_features,
    strategy_identity,
    train,
)
from pokerbot.cards import parse_cards
from pokerbot.errors import PokerbotError
from pokerbot.gamedef import load_game
from pokerbot.state import CALL, State, raise_to


BP = strategy_identity("t", [np.linspace(0, 1, 50)])
CS = strategy_identity("t", [np.linspace(0, 1, 50), np.linspace(1, 0, 50)])


def _meta(**over):  # type: ignore[no-untyped-def]
    meta = {"spec": FeatureSpec().as_dict(), "choices": [1, 2], "classes": "hand", "blueprint": BP,
            "continuations": CS, "game": "leduc-nl"}
    meta.update(over)
    return meta


def test_public_features_match_a_hand_computed_leaf() -> None:
    game = load_game("leduc-nl")  # stacks 20, antes 1
    s = State.initial(game).apply(raise_to(3)).apply(CALL)  # 'r3c/': pot 6, 17 behind each; player 0 raised
    f = public_features(s)
    spr = 17 / 6
    assert np.allclose(f, [6 / 40, spr / (1 + spr), 1 / 4, 1 / 8, 1, 0, 2 / 6])
    s2 = State.initial(game).apply(CALL).apply(CALL)  # 'cc/': pot 2, 19 behind
    assert np.allclose(public_features(s2), [2 / 40, 9.5 / 10.5, 0, 0, 0, 0, 2 / 6])
    s3 = State.initial(game).apply(CALL).apply(raise_to(3)).apply(CALL)  # 'cr3c/': same pot, player 1 raised
    assert np.allclose(public_features(s3), [6 / 40, spr / (1 + spr), 1 / 4, 1 / 8, -1, 0, 3 / 6])
    # Round 2 of 'r3c/' after a check and a pot bet by player 1: the round-1 raiser is in feature 5.
    s4 = s.with_cards(board_cards=parse_cards("Kh")).apply(CALL).apply(raise_to(9))
    assert np.allclose(public_features(s4)[2:], [1 / 4, 2 / 8, -1, 1, 2 / 6])


def test_board_features_match_a_hand_computed_leduc_example() -> None:
    game = load_game("leduc-nl")
    hands = np.array([[c] for c in sorted(game.deck(), reverse=True)], dtype=np.int64)
    # pokerbot's Leduc deck is Q, K, A in two suits.
    i_ks, i_qs = (int(np.nonzero(hands[:, 0] == parse_cards(c)[0])[0][0]) for c in ("As", "Ks"))
    bf = board_features(game, [], hands, np.arange(6), 6, FeatureSpec())
    # A♠: the board card is A♥ once (pair: beats all 4 others, percentile 1) and a K or Q four times
    # (beats the two other unpaired cards, ties A♥, loses to the paired card: (2 + 0.5) / 4 = 0.625).
    assert np.allclose(bf.hist[i_ks], [0, 0, 0, 0, 0, 0.8, 0, 0.2])
    assert bf.mean[i_ks] == pytest.approx(0.7)
    # K♠: pairs once (1); board A (twice): loses to both aces (one paired), ties K♥,
    # beats both queens -> 0.625; board Q (twice): loses to the paired queen and both aces, ties K♥ -> 0.125.
    assert np.allclose(bf.hist[i_qs], [0, 0.4, 0, 0, 0, 0.4, 0, 0.2])
    # A♠ against K♠ over the 4 other board cards: A♥ +1, K♥ -1 (kings pair), Q♠ +1, Q♥ +1.
    assert bf.eq[i_ks, i_qs] == pytest.approx(0.5) and bf.eq[i_qs, i_ks] == pytest.approx(-0.5)
    assert bf.pairs[i_ks, i_ks] == 0  # a hand never meets itself
    rows = pair_rows(np.arange(7, dtype=np.float64), bf)
    r = rows[i_ks * 6 + i_qs]
    assert rows.shape == (36, FeatureSpec().num_features) == (36, 26)
    assert np.allclose(r[:7], np.arange(7)) and np.allclose(r[7:15], bf.hist[i_ks]) and r[15] == pytest.approx(0.7)
    assert np.allclose(r[16:24], bf.hist[i_qs]) and r[24] == pytest.approx(bf.mean[i_qs]) and r[25] == pytest.approx(0.5)


def test_sampled_runouts_are_seeded_by_board() -> None:
    from blueprint.leafnet import runouts

    game = load_game("hunl")
    board = list(parse_cards("Ks7h2c"))
    a, b = runouts(game, board, FeatureSpec()), runouts(game, board, FeatureSpec())
    assert a == b and len(a) == 24 and len(set(a)) == 24
    assert runouts(game, board, FeatureSpec(seed=1)) != a
    assert all(not set(r) & set(board) for r in a)


def _data(n: int = 600, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.random((n, 26)).astype(np.float32)
    y = np.stack([x[:, 0] - x[:, 25], np.sin(3 * x[:, 1])], axis=1).astype(np.float32)
    return x, y, np.arange(n) // 6


def test_training_learns_and_resume_equals_an_uninterrupted_run(tmp_path) -> None:
    x, y, g = _data()
    cfg = TrainConfig(hidden=[16, 16], epochs=12, patience=50, batch=64, lr=3e-3)
    full = train(x, y, g, tmp_path / "full", cfg, _meta())
    assert full.history[-1][1] < 0.5 * full.history[0][1]  # it learns
    part = train(x, y, g, tmp_path / "part", TrainConfig(hidden=[16, 16], epochs=5, patience=50, batch=64, lr=3e-3), _meta())
    assert len(part.history) == 5
    # Resume with the full epoch budget: same key only if the config matches, so copy the checkpoint over.
    import shutil

    shutil.copy(tmp_path / "part" / "checkpoint.pt", tmp_path / "resumed.pt")
    import torch

    ck = torch.load(tmp_path / "resumed.pt", weights_only=False)
    from dataclasses import asdict

    ck["key"]["config"] = asdict(cfg)
    (tmp_path / "res").mkdir()
    torch.save(ck, tmp_path / "res" / "checkpoint.pt")
    resumed = train(x, y, g, tmp_path / "res", cfg, _meta())
    assert np.allclose(resumed.history, full.history, rtol=0, atol=1e-6)
    p1 = full.net.predict(x[:50])
    assert np.allclose(resumed.net.predict(x[:50]), p1, atol=1e-6)
    plot_losses(full.history, tmp_path / "loss.png")
    assert (tmp_path / "loss.png").stat().st_size > 1000


def test_early_stopping_stops(tmp_path) -> None:
    x, _, g = _data()
    y = np.random.default_rng(1).random((len(x), 2)).astype(np.float32)  # noise: validation stops improving
    res = train(x, y, g, tmp_path, TrainConfig(hidden=[32], epochs=400, patience=3, lr=1e-2, batch=32), _meta())
    assert res.stopped_early and len(res.history) == res.best_epoch + 3 + 1 < 400


def test_save_load_round_trips_exactly_and_refuses_corruption(tmp_path) -> None:
    x, y, g = _data()
    res = train(x, y, g, tmp_path, TrainConfig(hidden=[8, 8], epochs=2), _meta())
    loaded = LeafNet.load(tmp_path)
    assert np.array_equal(loaded.predict(x), res.net.predict(x))
    assert loaded.meta == json.loads((tmp_path / "model.json").read_text()) and loaded.choices == (1, 2)
    # Corrupt weights.
    raw = bytearray((tmp_path / "model.pt").read_bytes())
    raw[-20] ^= 0xFF
    (tmp_path / "model.pt").write_bytes(bytes(raw))
    with pytest.raises(LeafNetError, match="checksum"):
        LeafNet.load(tmp_path)
    # Not a model description.
    (tmp_path / "model.json").write_text(json.dumps({"spec": {}}))
    with pytest.raises(LeafNetError, match="not a leaf-value model"):
        LeafNet.load(tmp_path)
    with pytest.raises(LeafNetError):
        LeafNet.load(tmp_path / "nowhere")


def test_a_model_refuses_what_it_was_not_built_for(tmp_path) -> None:
    x, y, g = _data()
    net = train(x, y, g, tmp_path, TrainConfig(hidden=[8], epochs=1), _meta()).net
    ok = dict(spec=FeatureSpec(), choices=(1, 2), classes="hand", blueprint=BP, continuations=CS)
    net.check_built_for(**ok)
    # Within the one-byte storage's rounding, and a first part of the set, are the same.
    near = strategy_identity("t", [np.linspace(0, 1, 50) + 0.004])
    net.check_built_for(**dict(ok, blueprint=near, continuations=near))
    far = strategy_identity("t", [np.linspace(0, 1, 50) ** 2])
    three = strategy_identity("t", [np.linspace(0, 1, 50)] * 3)
    for key, bad, word in (("blueprint", far, "blueprint: strategy 0 differs"),
                           ("blueprint", strategy_identity("u", [np.linspace(0, 1, 50)]), "blueprint: tree"),
                           ("continuations", three, "continuation set: 2 strategies, here 3"),
                           ("continuations", strategy_identity("t", [np.linspace(1, 0, 50)]), "continuation set"),
                           ("spec", FeatureSpec(bins=4), "feature spec"), ("classes", "buckets:tiny", "card classes"),
                           ("choices", (1, 3), "options")):
        with pytest.raises(LeafNetError, match=word):
            net.check_built_for(**dict(ok, **{key: bad}))


def test_bad_training_options_are_typed_errors() -> None:
    for bad in (TrainConfig(hidden=[]), TrainConfig(lr=0), TrainConfig(val_fraction=1.0), TrainConfig(threads=0)):
        with pytest.raises(PokerbotError):
            bad.check()


def test_the_command_reports_bad_configs_in_one_line(tmp_path, capsys) -> None:
    from pokerbot.cli import main

    bad = tmp_path / "bad.toml"
    bad.write_text('[leafnet]\nname = "x"\nsource = "small"\nlayers = 3\n')
    assert main(["leafnet", "train", str(bad)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("pokerbot leafnet: error:") and "layers" in err[0]
    bad.write_text('[leafnet]\nname = "x"\nsource = "elsewhere"\n')
    assert main(["leafnet", "data", str(bad)]) == 1
    assert "source" in capsys.readouterr().err
    bad.write_text('[leafnet]\nname = "x"\nsource = "small"\n[train]\nlr = -1\n')
    assert main(["leafnet", "train", str(bad), "--dir", str(tmp_path / "run")]) == 1
    assert "lr" in capsys.readouterr().err and not (tmp_path / "run").exists()
    assert main(["leafnet", "data", "no-such-config"]) == 1


def test_leaves_train_net_is_leafnet_train(tmp_path, capsys) -> None:
    """``pokerbot leaves train-net`` runs ``pokerbot leafnet train``: the second command resumes the first's run."""
    import json

    from pokerbot.cli import main

    cfg = tmp_path / "small.toml"
    cfg.write_text('[leafnet]\nname = "x"\nsource = "small"\ngame = "leduc-nl"\nfractions = [1.0]\nmax_raises = 1\n'
                   'k = 2\niterations = 30\n[data]\nshards = 1\nworkers = 0\n[train]\nhidden = [8]\nepochs = 3\n')
    run = tmp_path / "run"
    assert main(["leaves", "train-net", str(cfg), "--dir", str(run), "--no-progress"]) == 0
    first = json.loads((run / "model" / "model.json").read_text())
    assert first["leaf_round"] == 0 and first["epochs_run"] == 3 and first["choices"] == [1, 2]
    assert main(["leafnet", "train", str(cfg), "--dir", str(run), "--no-progress"]) == 0
    assert json.loads((run / "model" / "model.json").read_text()) == first  # resumed: nothing left to train
    capsys.readouterr()
    assert main(["leaves", "build", "leaves-hunl-tiny", "--fresh"]) == 1
    assert "train-net" in capsys.readouterr().err
