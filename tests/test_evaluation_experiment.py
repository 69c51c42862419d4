"""`pokerbot eval`: experiment files, resumable runs, tables, plots and bad input."""

from __future__ import annotations

import csv
import shutil
import io
from pathlib import Path

import numpy as np
import pytest

import evaluation.experiment as experiment
from evaluation.experiment import ExperimentError, load_experiment, parse_experiment
from evaluation.stats import win_rate
from pokerbot.cli import main
from pokerbot.gamedef import load_game

SMALL = """
name = "small"
game = "kuhn"
hands = 200
chunk = 100
seed = 3
round_robin = true
[agents]
call = "call"
raise = "raise"
random = "random"
[[lbr]]
agent = "random"
hands = 60
[[training]]
config = "kuhn"
iterations = 20000
eval_every = 5000
"""


def test_experiment_writes_tables_logs_plots_and_resumes(tmp_path: Path, monkeypatch):
    cfg = tmp_path / "e.toml"
    cfg.write_text(SMALL)
    out = tmp_path / "out"
    assert main(["eval", str(cfg), "--out", str(out), "--no-progress"]) == 0
    for name in ("results.csv", "results.md", "win_rates.png", "cumulative.png", "lbr.png", "exploitability.png"):
        assert (out / name).stat().st_size > 0, name
    assert len(list((out / "logs").glob("*.log"))) == 3 * 2  # three matchups, two chunks each
    rows = list(csv.DictReader(open(out / "results.csv")))
    matches = [r for r in rows if r["kind"] == "match"]
    assert [(r["a"], r["b"]) for r in matches] == [("call", "raise"), ("call", "random"), ("raise", "random")]
    # The table is the statistics of the saved chips.
    parts = [np.load(out / "matches" / f"raise_vs_random.{k:03d}.npz") for k in range(2)]
    chips = np.concatenate([p["chips"] for p in parts])
    assert chips.size == 200
    assert float(matches[2]["mbb_per_game"]) == pytest.approx(win_rate(chips, load_game("kuhn"), pair=True).mbb, abs=0.01)
    curve = [float(r["mbb_per_game"]) for r in rows if r["kind"] == "exploitability"]
    assert len(curve) == 4 and curve[-1] < curve[0]
    assert any(r["kind"] == "lbr" and r["b"] == "random" and float(r["mbb_per_game"]) > 0 for r in rows)

    # Everything is saved: a rerun does no work at all...
    def refuse(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("a finished chunk was played again")

    monkeypatch.setattr(experiment, "play_chunk", refuse)
    monkeypatch.setattr(experiment, "lbr_chunk", refuse)
    monkeypatch.setattr(experiment, "train_curve", refuse)
    before = (out / "results.csv").read_text()
    assert main(["eval", str(cfg), "--out", str(out), "--no-progress"]) == 0
    assert (out / "results.csv").read_text() == before
    # ... and a lost chunk is the only one played again, with the same cards and result.
    (out / "matches" / "call_vs_random.001.npz").unlink()
    played = []
    monkeypatch.setattr(experiment, "play_chunk", lambda *a: played.append(a) or _real_chunk(*a))
    assert main(["eval", str(cfg), "--out", str(out), "--no-progress"]) == 0
    def without_seconds(text: str) -> list[dict[str, str]]:  # a replayed chunk's wall time differs, nothing else
        return [{k: v for k, v in row.items() if k != "seconds"} for row in csv.DictReader(io.StringIO(text))]

    assert len(played) == 1
    assert without_seconds((out / "results.csv").read_text()) == without_seconds(before)


_real_chunk = experiment.play_chunk


def test_a_damaged_or_foreign_piece_is_refused_not_used(tmp_path: Path, capsys):
    """A saved chunk whose chips were changed (its header intact) fails its checksum; a chunk copied from an
    experiment with another seed is refused by its identity; deleting the file replays it."""
    cfg = tmp_path / "e.toml"
    cfg.write_text("game = 'kuhn'\nhands = 40\nchunk = 20\nseed = 3\nmatchups = [['a', 'b']]\n"
                   "[agents]\na = 'call'\nb = 'raise'\n")
    out = tmp_path / "out"
    assert main(["eval", str(cfg), "--out", str(out), "--no-progress"]) == 0
    piece = out / "matches" / "a_vs_b.000.npz"
    with np.load(piece) as f:
        arrays = {k: f[k] for k in f.files}
    arrays["chips"] = arrays["chips"] + 1.0
    np.savez(piece, **arrays)
    capsys.readouterr()
    assert main(["eval", str(cfg), "--out", str(out), "--no-progress"]) == 1
    assert "a_vs_b.000.npz: checksum mismatch" in capsys.readouterr().err
    other = tmp_path / "other"
    cfg2 = tmp_path / "e2.toml"
    cfg2.write_text(cfg.read_text().replace("seed = 3", "seed = 4"))
    assert main(["eval", str(cfg2), "--out", str(other), "--no-progress"]) == 0
    shutil.copy(other / "matches" / "a_vs_b.000.npz", piece)
    capsys.readouterr()
    assert main(["eval", str(cfg), "--out", str(out), "--no-progress"]) == 1
    assert "was played for another experiment" in capsys.readouterr().err
    piece.unlink()  # the fix the message gives
    assert main(["eval", str(cfg), "--out", str(out), "--no-progress"]) == 0


def test_lbr_runs_are_resumable_pieces_of_one_run(tmp_path: Path, monkeypatch):
    """An [[lbr]] run is saved in pieces of `chunk` hands; together they are run_lbr's run, hand for hand, and a
    longer run (--lbr-hands) plays only the hands after the pieces already saved."""
    from evaluation.lbr import run_lbr

    cfg = tmp_path / "e.toml"
    cfg.write_text("game = 'leduc-nl'\nseed = 4\nchunk = 20\n[agents]\nraise = 'raise'\n"
                   "[[lbr]]\nagent = 'raise'\nhands = 60\n"
                   "[[lbr]]\nagent = 'raise'\nhands = 60\nchunk = 30\nexpected_from = 1\n")
    out = tmp_path / "out"
    assert main(["eval", str(cfg), "--out", str(out), "--no-progress"]) == 0
    assert len(list((out / "lbr").glob("raise.FCPA.*.npz"))) == 3
    assert len(list((out / "lbr").glob("raise.FCPA-E2.*.npz"))) == 2
    whole = run_lbr("raise", "leduc-nl", 100, seed=4, progress=False)
    played = []
    monkeypatch.setattr(experiment, "lbr_chunk", lambda *a: played.append(a) or _real_lbr_chunk(*a))
    assert main(["eval", str(cfg), "--out", str(out), "--no-progress", "--lbr-hands", "100"]) == 0
    assert [a[-1] for a in played] == [60, 80, 60, 90]  # the first hands of the new pieces
    row = next(r for r in csv.DictReader(open(out / "results.csv")) if r["kind"] == "lbr")
    assert int(row["hands"]) == 100
    assert float(row["mbb_per_game"]) == pytest.approx(whole.rate.mbb, abs=0.01)
    # A piece played with another seed is refused, not mixed in.
    cfg.write_text(cfg.read_text().replace("seed = 4", "seed = 5"))
    assert main(["eval", str(cfg), "--out", str(out), "--no-progress"]) == 1


_real_lbr_chunk = experiment.lbr_chunk


def test_status_shows_progress_and_no_results(tmp_path: Path, capsys, monkeypatch):
    """``--status`` counts the pieces and hands played, their pace and the time left, reads each piece as a run
    does (a damaged one is refused), prints no win rate and plays nothing."""
    cfg = tmp_path / "e.toml"
    cfg.write_text("name = 'st'\ngame = 'kuhn'\nhands = 40\nchunk = 20\nseed = 3\nmatchups = [['a', 'b'], ['a', 'c']]\n"
                   "[agents]\na = 'call'\nb = 'raise'\nc = 'random'\n[[lbr]]\nagent = 'b'\nhands = 40\nchunk = 20\n")
    out = tmp_path / "out"

    def refuse(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("--status played a piece")

    with monkeypatch.context() as m:
        m.setattr(experiment, "play_chunk", refuse)
        m.setattr(experiment, "lbr_chunk", refuse)
        assert main(["eval", str(cfg), "--out", str(out), "--status"]) == 0
    text = capsys.readouterr().out
    assert "0/2 pieces" in text and "time left: unknown until a piece is played" in text
    assert main(["eval", str(cfg), "--out", str(out), "--no-progress", "--hands", "20", "--lbr-hands", "20"]) == 0
    capsys.readouterr()
    assert main(["eval", str(cfg), "--out", str(out), "--status"]) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    assert lines[0].startswith("st: ")
    assert "a vs b" in lines[1] and "1/2 pieces" in lines[1] and "20/40 hands" in lines[1] and "s a hand" in lines[1]
    assert "a vs c" in lines[2] and "1/2 pieces" in lines[2]
    assert "LBR FCPA vs b" in lines[3] and "20/40 hands" in lines[3]
    assert lines[-1].startswith("time left: about ") and "not started" not in lines[-1]
    assert "mbb" not in text and "±" not in text  # no results
    exp = load_experiment(cfg)
    exp.out = str(out)
    rows = experiment.experiment_progress(exp)
    assert [(r.pieces_done, r.hands_done) for r in rows] == [(1, 20), (1, 20), (1, 20)]
    assert rows[0].seconds_left(2) == pytest.approx(rows[0].seconds / 2)  # 20 hands left at 2 workers
    # an agent's fallbacks are named (the baseline bots count no decisions)
    from pokerbot.agent import FELL_BACK

    rows[0].decisions = ({"solved": 30, f"{FELL_BACK}: time limit": 2}, None)
    assert "a fell back at 2 of 32 decisions (time limit 2)" in experiment.format_progress(exp, rows).splitlines()[1]
    # a piece changed on disk is refused, as a run refuses it
    piece = out / "matches" / "a_vs_b.000.npz"
    with np.load(piece) as f:
        arrays = {k: f[k] for k in f.files}
    arrays["seconds"] = arrays["seconds"] + 1.0
    np.savez(piece, **arrays)
    assert main(["eval", str(cfg), "--out", str(out), "--status"]) == 1
    assert "checksum mismatch" in capsys.readouterr().err
    piece.unlink()
    assert main(["eval", str(cfg), "--out", str(out), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["eval", str(cfg), "--out", str(out), "--status"]) == 0
    assert "every piece is played" in capsys.readouterr().out


@pytest.mark.parametrize("text,message", [
    ("game = 'kuhn'\n[agents]\na = 'call'\nb = 'raise'\n", "nothing to do"),
    ("game = 'kuhn'\nbogus = 1\n[agents]\na = 'call'\n", "unknown keys"),
    ("game = 'kuhn'\nmatchups = [['a', 'c']]\n[agents]\na = 'call'\nb = 'raise'\n", "matchup"),
    ("game = 'kuhn'\nhands = 0\nround_robin = true\n[agents]\na = 'call'\nb = 'raise'\n", "hands"),
    ("game = 'kuhn'\nhands = 3\nround_robin = true\n[agents]\na = 'call'\nb = 'raise'\n", "even"),
    ("game = 'nope'\nround_robin = true\n[agents]\na = 'call'\nb = 'raise'\n", "game"),
    ("game = 'kuhn'\n[agents]\na = 'call'\n[[lbr]]\nagent = 'x'\n", "[[lbr]]"),
    ("game = 'kuhn'\n[agents]\n", "[agents]"),
    ("game = = 'kuhn'\n", "not valid TOML"),
    ("game = 'kuhn'\nvalue = 'blueprint'\nround_robin = true\n[agents]\na = 'call'\nb = 'raise'\n", "value"),
    ("game = 'kuhn'\nvalue = 'magic'\nround_robin = true\n[agents]\na = 'call'\nb = 'raise'\n", "value"),
    # types are strict: no silent coercion of a string to a boolean, nor of a table to a list
    ("game = 'kuhn'\nduplicate = 'false'\nround_robin = true\n[agents]\na = 'call'\nb = 'raise'\n",
     "duplicate must be true or false"),
    ("game = 'kuhn'\nlbr = 5\n[agents]\na = 'call'\n", "lbr must be a list"),
    ("game = 'kuhn'\n[agents]\na = 'call'\n[[lbr]]\nagent = 'a'\nall_in = 1\n", "all_in must be true or false"),
    ("game = 'kuhn'\n[agents]\na = 'call'\n[[lbr]]\nagent = 'a'\nfractions = ['x']\n", "fractions must be"),
])
def test_bad_experiment_files_are_one_line_errors(tmp_path: Path, capsys, text: str, message: str):
    cfg = tmp_path / "bad.toml"
    cfg.write_text(text)
    assert main(["eval", str(cfg), "--out", str(tmp_path / "o"), "--no-progress"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("pokerbot eval: error:") and message in err and "\n" not in err
    assert not (tmp_path / "o").exists()


def test_bad_agent_spec_fails_before_any_work(tmp_path: Path, capsys):
    cfg = tmp_path / "e.toml"
    cfg.write_text("game = 'kuhn'\nhands = 10\nround_robin = true\n[agents]\na = 'call'\nb = 'no-such-bot'\n")
    assert main(["eval", str(cfg), "--out", str(tmp_path / "o"), "--no-progress"]) == 1
    assert "no-such-bot" in capsys.readouterr().err
    assert not list((tmp_path / "o" / "matches").glob("*.npz"))


def test_shipped_experiment_files_parse():
    root = Path(__file__).resolve().parent.parent / "configs"
    for path in sorted(root.glob("eval-*.toml")):
        exp = load_experiment(path)
        assert exp.pairs() or exp.lbr or exp.training, path
    with pytest.raises(ExperimentError):
        parse_experiment({"agents": {"a": "call"}, "game": "kuhn", "round_robin": True, "chunk": 3})


def test_blueprint_value_function_from_the_file(tmp_path: Path, monkeypatch):
    """value = "blueprint:<file>": the matches are scored with the blueprint's own values (evaluation.blueprint_value)."""
    from blueprint.config import BlueprintConfig
    from blueprint.trainer import Trainer

    monkeypatch.setenv("POKERBOT_HOME", str(tmp_path / "home"))
    t = Trainer(BlueprintConfig(name="leduc", game="leduc", iterations=5_000, chunk=5_000), directory=None)
    t.train(progress=False)
    t.blueprint().save(tmp_path / "bp.npz")
    cfg = tmp_path / "e.toml"
    cfg.write_text(f"game = 'leduc'\nhands = 200\nchunk = 200\nvalue = 'blueprint:{tmp_path / 'bp.npz'}'\n"
                   f"matchups = [['bp', 'random']]\n[agents]\nbp = 'blueprint.agent:make_agent?path={tmp_path / 'bp.npz'}'\n"
                   "random = 'random'\n")
    assert main(["eval", str(cfg), "--out", str(tmp_path / "o"), "--no-progress"]) == 0
    data = np.load(tmp_path / "o" / "matches" / "bp_vs_random.000.npz")
    assert np.isfinite(data["aivat"]).all() and np.std(data["aivat"]) < np.std(data["chips"])
    assert list((tmp_path / "home" / "aivat").glob("*.npz"))  # the transition tables were cached


def test_lbr_runs_on_the_same_deals_are_paired(tmp_path: Path):
    """Each LBR run is also reported minus the first run of the same actions and length, hand by hand: zero
    for an agent that plays as the first one; a different agent differs on some hands, and the paired
    figure is the statistics of the per-hand difference."""
    cfg = tmp_path / "e.toml"
    cfg.write_text('name = "paired"\ngame = "leduc"\nseed = 5\n[agents]\ncall = "call"\nsame = "call"\n'
                   'random = "random"\n' + "".join(f'[[lbr]]\nagent = "{a}"\nhands = 200\n'
                                                   for a in ("call", "same", "random")))
    out = tmp_path / "out"
    assert main(["eval", str(cfg), "--out", str(out), "--no-progress"]) == 0
    rows = [r for r in csv.DictReader(open(out / "results.csv")) if r["kind"] == "lbr_paired"]
    assert [r["b"] for r in rows] == ["same - call", "random - call"]
    assert float(rows[0]["mbb_per_game"]) == 0.0 and float(rows[0]["ci95"]) == 0.0
    files = {f.name.split(".")[0]: np.load(f)["chips"] for f in (out / "lbr").glob("*.npz")}
    expected = win_rate(files["random"] - files["call"], load_game("leduc"), pair=True)
    assert np.count_nonzero(files["random"] != files["call"]) > 0
    assert float(rows[1]["mbb_per_game"]) == pytest.approx(expected.mbb, abs=0.01)
    assert float(rows[1]["ci95"]) == pytest.approx(expected.ci95, abs=0.01)
    assert "hands that differ" in (out / "results.md").read_text()


@pytest.mark.parametrize("seed", [-1, 2**32, "3", 1.5, True])
def test_a_bad_seed_is_a_config_error(seed: object) -> None:
    """A negative seed was an internal error (found by the slow CLI fuzzer); any non-seed is refused by name."""
    data = {"game": "kuhn", "seed": seed, "round_robin": True, "agents": {"a": "call", "b": "random"}}
    with pytest.raises(ExperimentError, match="seed must be an integer"):
        parse_experiment(data)
    assert parse_experiment(dict(data, seed=2**32 - 1)).seed == 2**32 - 1  # negative control


def test_matches_on_the_same_deals_are_paired(tmp_path: Path, monkeypatch):
    """[[paired]]: A's winnings against B minus a reference's, hand by hand, plain and AIVAT. The blueprint under
    a second name plays every hand exactly as the blueprint does (common cards and random numbers), so its
    difference is zero in every hand; the call bot (the negative control) differs, and its paired figures are the
    statistics of the saved per-hand differences."""
    from blueprint.config import BlueprintConfig
    from blueprint.trainer import Trainer

    monkeypatch.setenv("POKERBOT_HOME", str(tmp_path / "home"))
    t = Trainer(BlueprintConfig(name="leduc", game="leduc", iterations=2_000, chunk=2_000), directory=None)
    t.train(progress=False)
    bp = tmp_path / "bp.npz"
    t.blueprint().save(bp)
    spec = f"blueprint.agent:make_agent?path={bp}"
    cfg = tmp_path / "e.toml"
    cfg.write_text(f"game = 'leduc'\nhands = 200\nchunk = 100\nseed = 4\nvalue = 'blueprint:{bp}'\n"
                   "matchups = [['bp', 'opp'], ['same', 'opp'], ['call', 'opp']]\n"
                   "[[paired]]\nagent = 'same'\nreference = 'bp'\nopponent = 'opp'\n"
                   "[[paired]]\nagent = 'call'\nreference = 'bp'\nopponent = 'opp'\n"
                   f"[agents]\nbp = '{spec}'\nsame = '{spec}'\nopp = '{spec}'\ncall = 'call'\n")
    out = tmp_path / "out"
    assert main(["eval", str(cfg), "--out", str(out), "--no-progress"]) == 0
    rows = [r for r in csv.DictReader(open(out / "results.csv")) if r["kind"] == "match_paired"]
    assert [(r["a"], r["b"]) for r in rows] == [("same - bp", "opp"), ("call - bp", "opp")]
    for key in ("mbb_per_game", "ci95", "aivat_mbb_per_game", "aivat_ci95"):
        assert float(rows[0][key]) == 0.0, key

    def saved(name: str, key: str) -> np.ndarray:
        return np.concatenate([np.load(out / "matches" / f"{name}_vs_opp.{k:03d}.npz")[key] for k in range(2)])

    game = load_game("leduc")
    for key, column in (("chips", "mbb_per_game"), ("aivat", "aivat_mbb_per_game")):
        diff = saved("call", key) - saved("bp", key)
        assert np.count_nonzero(diff) > 0
        assert float(rows[1][column]) == pytest.approx(win_rate(diff, game, pair=True).mbb, abs=0.01)
    text = (out / "results.md").read_text()
    assert "| same | bp | opp | 200 | +0.0 | ± 0.0 | +0.0 | ± 0.0 | 0 |" in text


def test_a_paired_comparison_needs_both_matchups() -> None:
    data = {"game": "kuhn", "agents": {"a": "call", "r": "raise", "b": "random"}, "matchups": [["a", "b"]],
            "paired": [{"agent": "a", "reference": "r", "opponent": "b"}]}
    with pytest.raises(ExperimentError, match=r"missing: \[\['r', 'b'\]\]"):
        parse_experiment(data)
    data["matchups"].append(["r", "b"])
    assert parse_experiment(data).paired[0].reference == "r"
    with pytest.raises(ExperimentError, match="unknown keys"):
        parse_experiment({**data, "paired": [{"agent": "a", "reference": "r", "opponent": "b", "x": 1}]})
