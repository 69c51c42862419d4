"""Card abstraction tables: loading, manifest checks, memory mapping, numba access; the real tiny build (slow)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from numba import njit

from abstraction.buckets import PRESETS, CardAbstraction, artifact_dir, build_abstraction, load_abstraction
from abstraction.isomorphism import hand_index, num_classes
from pokerbot.cards import parse_cards
from pokerbot.errors import CardError, CheckpointError
from pokerbot.files import file_sha256


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("POKERBOT_HOME", str(tmp_path))
    return tmp_path


def fake_artifact(preset="tiny"):
    """Write sparse tables of the right shapes (bucket = index mod k) and a manifest, without building."""
    d = artifact_dir(preset)
    d.mkdir(parents=True)
    from abstraction.buckets import _config_of

    _, cfg = _config_of(preset)
    for r in range(4):
        t = np.lib.format.open_memmap(d / f"table_{r}.npy", mode="w+", dtype=np.uint8, shape=(num_classes(r),))
        t[:1000] = np.arange(min(1000, num_classes(r))) % cfg["buckets"][r]
        t.flush()
        del t
    sums = {f"table_{r}.npy": file_sha256(d / f"table_{r}.npy") for r in range(4)}
    (d / "manifest.json").write_text(json.dumps({"name": preset, "config": cfg, "sha256": sums}))
    return d


def river_points(ab: CardAbstraction, n: int = 40) -> list[tuple[float, int]]:
    """(exact equity, river bucket) of ``n`` seeded random river hands, sorted by equity."""
    from abstraction.features import equity_bruteforce

    rng = np.random.default_rng(0)
    pts = []
    for _ in range(n):
        c = rng.choice(52, 7, replace=False).tolist()
        pts.append((equity_bruteforce(c[:2], c[2:]), ab.bucket(3, c[:2], c[2:])))
    return sorted(pts)


@njit(cache=True)
def _kernel_lookup(t0, t1, t2, t3, r, cards):
    """What a blueprint kernel does: tables[r][hand_index(r, cards)]."""
    i = hand_index(r, cards)
    if r == 0:
        return t0[i]
    if r == 1:
        return t1[i]
    if r == 2:
        return t2[i]
    return t3[i]


def test_missing_abstraction_is_a_typed_error(home):
    with pytest.raises(CheckpointError, match="not built"):
        load_abstraction("tiny", build_if_missing=False)
    with pytest.raises(CheckpointError, match="unknown abstraction preset"):
        load_abstraction("huge", build_if_missing=False)


def test_load_memory_maps_and_buckets(home):
    fake_artifact()
    ab = load_abstraction("tiny", build_if_missing=False)
    assert isinstance(ab, CardAbstraction) and ab.name == "tiny"
    assert [ab.num_buckets(r) for r in range(4)] == PRESETS["tiny"]["buckets"]
    assert [t.shape[0] for t in ab.tables] == [num_classes(r) for r in range(4)]
    assert all(not t.flags.writeable for t in ab.tables)  # read-only memory maps
    hole = parse_cards("AsKs")
    i = int(hand_index(0, np.array(hole)))
    assert ab.bucket(0, hole) == i  # preflop: bucket = class (index < 1000 here)
    # a dealer's full board works for any round; the bucket equals the kernel lookup
    board = parse_cards("2c3d4h5s6c")
    for r, nb in enumerate((0, 3, 4, 5)):
        cards = np.array(hole + board[:nb], np.int64)
        assert ab.bucket(r, hole, board) == int(_kernel_lookup(*ab.tables, r, cards))
    with pytest.raises(CardError, match="board"):
        ab.bucket(2, hole, board[:3])
    with pytest.raises(CardError, match="distinct"):
        ab.bucket(1, hole, parse_cards("As2c3c"))


def test_manifest_and_table_mismatch_are_detected(home):
    d = fake_artifact()
    m = json.loads((d / "manifest.json").read_text())
    m["config"]["buckets"] = [169, 1, 1, 1]
    (d / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(CheckpointError, match="another config"):
        load_abstraction("tiny", build_if_missing=False)
    d2 = artifact_dir("default")
    fake_artifact("default")
    np.save(d2 / "table_2.npy", np.zeros(10, np.uint8))
    with pytest.raises(CheckpointError, match="shape"):
        load_abstraction("default", build_if_missing=False)
    (d2 / "manifest.json").write_text("{not json")
    with pytest.raises(CheckpointError, match="unreadable"):
        load_abstraction("default", build_if_missing=False)


def _poke(path, index, value):
    t = np.load(path, mmap_mode="r+")
    t[index] = value
    t.flush()
    del t


def test_a_damaged_table_is_refused_by_its_checksum(home):
    """A bucket changed to another valid bucket: in range, so only the checksum can tell."""
    d = fake_artifact()
    load_abstraction("tiny", build_if_missing=False)  # negative control: the intact tables load
    _poke(d / "table_3.npy", 5, 7)  # was 5 % 12 = 5
    with pytest.raises(CheckpointError, match="table_3.npy: checksum mismatch"):
        load_abstraction("tiny", build_if_missing=False)


@pytest.mark.parametrize("r", [1, 2, 3])
def test_a_bucket_beyond_the_round_is_refused_on_every_round(home, r):
    """The river table, once checked by shape only, included: training indexed out of bounds with it."""
    d = fake_artifact()
    _poke(d / f"table_{r}.npy", num_classes(r) - 1, 12)
    with pytest.raises(CheckpointError, match=f"table_{r}.npy holds bucket 12, the round has 12"):
        load_abstraction("tiny", build_if_missing=False)


def test_a_manifest_without_checksums_is_refused_with_the_fix(home):
    d = fake_artifact()
    m = json.loads((d / "manifest.json").read_text())
    del m["sha256"]
    (d / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(CheckpointError, match="no checksums.*--force"):
        load_abstraction("tiny", build_if_missing=False)


def test_config_changes_change_the_directory():
    a = artifact_dir("tiny")
    b = artifact_dir({**PRESETS["tiny"], "name": "tiny", "seed": 1})
    assert a != b and a.name.startswith("tiny-")
    with pytest.raises(CheckpointError, match="buckets"):
        artifact_dir({**PRESETS["tiny"], "buckets": [100, 2, 2, 2]})


def test_presets_keep_their_directories():
    """Optional config keys (river_feature, ochs_groups, flop_turn_buckets) left out keep a preset's hash, so
    tables built before they existed stay valid."""
    assert artifact_dir("tiny").name == "tiny-d89b0ca3ce42"
    assert artifact_dir("default").name == "default-a9964cef5a0c"
    assert PRESETS["large"]["buckets"] == [169, 2000, 2000, 2000]


@pytest.mark.parametrize("key,value,message", [
    ("river_feature", "hist", "river_feature"), ("ochs_groups", 1, "ochs_groups"),
    ("flop_turn_buckets", 13, "flop_turn_buckets"), ("flop_turn_buckets", 1, "flop_turn_buckets"),
    ("river_equity_levels", 7, "river_equity_levels"), ("river_equity_levels", 0, "river_equity_levels"),
])
def test_bad_large_options_are_refused(key, value, message):
    with pytest.raises(CheckpointError, match=message):
        artifact_dir({**PRESETS["tiny"], key: value})


@pytest.mark.slow
def test_an_ochs_build_with_coarser_flop_histograms_is_consistent(home):
    """A small preset built the `large` way (OCHS river, flop potential over a coarser turn clustering)."""
    from abstraction.quality import ehs_spread

    cfg = {**PRESETS["tiny"], "name": "ochs", "buckets": [169, 8, 12, 300], "river_feature": "ochs",
           "river_equity_levels": 30, "ochs_groups": 4, "flop_turn_buckets": 5}
    d = build_abstraction(cfg, progress=False)
    ab = load_abstraction(cfg, build_if_missing=False)
    assert np.asarray(ab.tables[3]).dtype == np.uint16  # more than 256 river buckets
    for r in range(1, 4):
        t = np.asarray(ab.tables[r])
        assert t.max() < ab.num_buckets(r) and len(np.unique(t)) == ab.num_buckets(r)
    mid = np.load(d / "turn_mid_table.npy")
    assert mid.max() == 4 and np.asarray(ab.tables[2]).max() == 11
    assert ab.bucket(3, parse_cards("AsKs"), parse_cards("2s7sQd4h9c")) == ab.bucket(
        3, parse_cards("AhKh"), parse_cards("Qc7h2h4d9s"))
    # river buckets rise with their mean equity, each within one equity level: a narrow band of equity
    cells = np.load(d / "river_bucket_eq.npy")
    means = cells @ np.arange(cells.shape[1]) / cells.sum(axis=1)
    assert np.all(np.diff(means) >= 0)
    held = [np.flatnonzero(row) / (cells.shape[1] - 1) for row in cells]
    assert max(h.max() - h.min() for h in held) < 0.2
    pts = river_points(ab)
    assert all(b2 >= b1 for (e1, b1), (e2, b2) in zip(pts, pts[1:]) if e2 - e1 > 0.3)
    rows = ehs_spread(d)
    assert rows[3]["buckets"] == 300 and rows[3]["within"] < rows[3]["total"] / 5


@pytest.mark.slow
def test_tiny_build_is_consistent(home):
    """Builds tiny from scratch (a few minutes): isomorphic hands share buckets, buckets rise with EHS."""
    from abstraction.quality import ehs_spread

    d = build_abstraction("tiny", progress=False)
    ab = load_abstraction("tiny", build_if_missing=False)
    for r in range(4):
        t = np.asarray(ab.tables[r])
        assert t.max() < ab.num_buckets(r) and len(np.unique(t)) == ab.num_buckets(r)
    assert ab.bucket(1, parse_cards("AsKs"), parse_cards("2s7sQd")) == ab.bucket(1, parse_cards("AhKh"), parse_cards("Qc7h2h"))
    # river buckets are ordered by equity
    pts = river_points(ab)
    assert all(b1 <= b2 for (_, b1), (_, b2) in zip(pts, pts[1:]))
    rows = ehs_spread(d)
    assert all(row["within"] < row["total"] / 3 for row in rows[1:])
    # a second call finds the manifest and does not rebuild
    assert build_abstraction("tiny", progress=False) == d


def test_nlfh_small_abstract_equilibrium_is_tied_and_measured():
    from abstraction.quality import nlfh_small_exploitability

    res = nlfh_small_exploitability(4, iterations=3)
    assert res["tie_spread"] < 1e-9  # one strategy per (betting, flop bucket)
    uniform = nlfh_small_exploitability(4, iterations=0)["exploitability"]  # no iteration: the uniform strategy
    assert 0.0 < res["exploitability"] < 0.9 * uniform  # measured 1777 vs 2425 mbb/g


def test_nlfh_small_ochs_buckets_split_equity_levels_by_opponent_groups():
    from abstraction.quality import _flop_equities, _flop_ochs, nlfh_small_flop_buckets, nlfh_small_exploitability
    from pokerbot.gamedef import load_game
    from pokerbot.menus import PotFractionMenu
    from pokerbot.solver import build_tree

    tree = build_tree(load_game("nlfh-small"), PotFractionMenu.tiny())
    hands = tree.hands[0].astype(np.int64)
    flops = [grp[1] for grp in tree.boards if len(grp) == 2 and len(grp[1]) == 3]
    boards = np.array(flops[:: max(1, len(flops) // 40)], np.int64)  # a spread of 40-odd boards
    eq = np.empty((len(boards), len(hands)))
    _flop_equities(hands, boards, eq)
    # The groups' results add up to the equity against every hand (counts and half-wins exact).
    group = np.arange(len(hands)) % 3
    ochs = np.empty((len(boards), len(hands), 3))
    _flop_ochs(hands, boards, group, 3, ochs)
    ok = eq >= 0
    assert np.array_equal(ok, ochs[:, :, 0] >= 0) and not ok.all()
    b, h = np.nonzero(ok)
    for bi, hi in list(zip(b, h))[::97]:
        masks = np.array([(1 << int(x)) | (1 << int(y)) for x, y in hands])
        used = (1 << int(boards[bi, 0])) | (1 << int(boards[bi, 1])) | (1 << int(boards[bi, 2])) | int(masks[hi])
        n = np.array([np.sum((masks & used == 0) & (group == g)) for g in range(3)])
        assert abs(float(n @ ochs[bi, hi]) / n.sum() - eq[bi, hi]) < 1e-12
    lab = nlfh_small_flop_buckets(hands, boards, 6, "ochs", levels=3)
    assert np.array_equal(lab >= 0, ok) and set(np.unique(lab[ok])) <= set(range(6))
    # No bucket mixes equity levels: the equity ranges of the three levels do not overlap.
    level = lab[ok] // 2
    spans = sorted((eq[ok][level == lv].min(), eq[ok][level == lv].max()) for lv in range(3))
    assert all(spans[i][1] < spans[i + 1][0] for i in range(2))
    # ... and it is another partition than 6 equity buckets (the same one would pair each label with one other).
    eq_lab = nlfh_small_flop_buckets(hands, boards, 6, "equity")
    assert np.unique(np.stack([eq_lab[ok], lab[ok]]), axis=1).shape[1] > 6
    with pytest.raises(ValueError, match="levels"):
        nlfh_small_flop_buckets(hands, boards, 6, "ochs", levels=4)
    with pytest.raises(ValueError, match="features"):
        nlfh_small_flop_buckets(hands, boards, 6, "hs")
    res = nlfh_small_exploitability(6, iterations=2, features="ochs", levels=3)
    assert res["tie_spread"] < 1e-9 and res["exploitability"] > 0


@pytest.mark.slow
def test_more_flop_buckets_are_less_exploitable():
    from abstraction.quality import nlfh_small_exploitability

    e3 = nlfh_small_exploitability(3, iterations=100)["exploitability"]
    e10 = nlfh_small_exploitability(10, iterations=100)["exploitability"]
    assert e10 < e3


def test_report_puts_presets_side_by_side(tiny_card_abstraction, capsys):
    from abstraction.quality import ehs_spread, format_comparison
    from pokerbot.cli import main

    rows = ehs_spread(tiny_card_abstraction.path)
    lines = format_comparison({"tiny": rows, "again": rows}).splitlines()
    assert lines[0].split() == ["round", "tiny", "again", "one", "bucket"]
    flop = lines[2].split()
    assert flop[0] == "flop" and flop[1:3] == flop[3:5] and flop[2] == "(12)"
    assert float(flop[1]) == pytest.approx(rows[1]["within"], abs=1e-4)
    assert main(["abstraction", "report", "--preset", "tiny,no-such"]) != 0
    assert "no-such" in capsys.readouterr().err


def test_report_measures_nlfh_small_exploitability_with_equity_and_ochs_buckets(tiny_card_abstraction, capsys):
    from pokerbot.cli import main

    assert main(["abstraction", "report", "--preset", "tiny", "--exploitability", "--buckets", "4",
                 "--ochs-levels", "2", "--iterations", "2"]) == 0
    out = capsys.readouterr().out
    assert "lossless flop" in out
    line = next(x for x in out.splitlines() if "4 flop buckets" in x)
    assert "equity" in line and "OCHS (2 levels x 2)" in line
    assert main(["abstraction", "report", "--preset", "tiny", "--exploitability", "--buckets", "4",
                 "--ochs-levels", "3"]) != 0
    assert "must divide" in capsys.readouterr().err
