"""Killing long jobs at random moments loses at most one checkpoint interval (issue 13).

``pokerbot train``, ``pokerbot solve --checkpoint`` and ``pokerbot match`` run as
real processes and get SIGINT (Ctrl-C), SIGTERM (SIGHUP too with -m slow) or SIGKILL at a random moment once they
are under way. Then:

- the checkpoint left behind loads (never half-written), holds at least the work
  the process had reported minus one checkpoint interval, and a second run resumes
  from it and finishes with the right total;
- after a stop signal the job saves everything it did and exits 128 + the signal (130, 143, 129);
- a match log holds every hand the process had finished, each line whole.

The moments are drawn from a seeded generator, so a failure reproduces; ``-m slow``
repeats each kill at more moments.
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from pokerbot.gamedef import load_game
from pokerbot.protocol.log import read_log

ROOT = Path(__file__).resolve().parent.parent
#: Seconds to wait for a job to get under way, or to stop after SIGINT.
PATIENCE = 120.0


def start(args: list[str], tmp_path: Path) -> tuple[subprocess.Popen[str], Path, Path]:
    """``python -m pokerbot ARGS`` in ``tmp_path``, stdout and stderr to files (read while it runs)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), POKERBOT_HOME=str(tmp_path / "home"), PYTHONUNBUFFERED="1")
    out, err = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    # A job started in the background by a non-interactive shell (nohup, `cmd &`, some CI runners) inherits
    # SIGINT as ignored, and Python then never installs its Ctrl-C handler: give the child the default back.
    proc = subprocess.Popen([sys.executable, "-m", "pokerbot", *args], cwd=tmp_path, env=env, text=True,
                            stdout=open(out, "w"), stderr=open(err, "w"),
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    return proc, out, err


def wait_for(condition: Callable[[], bool], proc: subprocess.Popen[str], what: str) -> None:
    deadline = time.monotonic() + PATIENCE
    while not condition():
        if proc.poll() is not None:
            raise AssertionError(f"the job ended (status {proc.returncode}) before {what}")
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def stop(proc: subprocess.Popen[str], sig: int) -> int:
    proc.send_signal(sig)
    try:
        return proc.wait(PATIENCE)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError(f"the job ignored signal {sig}") from None


def run(args: list[str], tmp_path: Path) -> str:
    proc, out, err = start(args, tmp_path)
    status = proc.wait(PATIENCE * 2)
    assert status == 0, (out.read_text(), err.read_text())
    return out.read_text()


# --- pokerbot train ------------------------------------------------------------------------------------------

CHECKPOINT_EVERY = 4_000


def _train_config(tmp_path: Path) -> Path:
    conf = tmp_path / "kill.toml"
    conf.write_text('name = "kill"\n[game]\nname = "leduc"\n[mccfr]\niterations = 100_000_000\nseed = 5\n'
                    f"[run]\nchunk = 1_000\ncheckpoint_every = {CHECKPOINT_EVERY}\n")
    return conf


def _progress_count(text: str) -> int:
    """The last iteration count tqdm reported (``  12000/100000000 [...]``)."""
    counts = re.findall(r"(\d+)/100000000", text)
    return int(counts[-1]) if counts else 0


def _checkpoint_iteration(path: Path) -> int:
    from pokerbot.npz import load_checked

    meta, _ = load_checked(path, "checkpoint")
    return int(meta["iteration"])


def kill_train(tmp_path: Path, sig: int, rng: random.Random) -> None:
    conf = _train_config(tmp_path)
    run_dir = tmp_path / "run"
    proc, out, err = start(["train", str(conf), "--dir", str(run_dir)], tmp_path)
    ckpt = run_dir / "checkpoint.npz"
    wait_for(ckpt.is_file, proc, "the first checkpoint")
    time.sleep(rng.uniform(0.0, 1.5))
    reported = _progress_count(err.read_text())
    status = stop(proc, sig)
    saved = _checkpoint_iteration(ckpt)  # loads: the file is whole whatever the moment of the kill
    assert saved >= reported - CHECKPOINT_EVERY, (saved, reported)
    if sig in GRACEFUL:
        assert status == 128 + sig, err.read_text()  # 130 after Ctrl-C, 143 after SIGTERM, 129 after SIGHUP
        text = out.read_text()
        assert "interrupted, checkpoint saved" in text
        done = int(re.search(r"saved: ([\d,]+) iterations", text).group(1).replace(",", ""))
        assert saved == done >= reported  # nothing lost
    else:
        assert status == -signal.SIGKILL
    target = saved + 2_000
    text = run(["train", str(conf), "--dir", str(run_dir), "--iterations", str(target), "--no-progress"], tmp_path)
    assert f"done: {target:,} iterations ({target - saved:,} new" in text, text
    assert _checkpoint_iteration(ckpt) == target


# --- pokerbot solve --checkpoint ----------------------------------------------------------------------------

EVAL_EVERY = 20


def kill_solve(tmp_path: Path, sig: int, rng: random.Random) -> None:
    ckpt = tmp_path / "leduc.npz"
    args = ["solve", "leduc", "--iterations", "100000000", "--eval-every", str(EVAL_EVERY), "--checkpoint", str(ckpt),
            "-q"]
    proc, out, err = start(args, tmp_path)
    wait_for(ckpt.is_file, proc, "the first checkpoint")
    time.sleep(rng.uniform(0.0, 1.0))
    printed = [int(n) for n in re.findall(r"iteration (\d+): exploitability", out.read_text())]
    status = stop(proc, sig)
    from pokerbot.solver import Solver, build_tree

    solver = Solver(build_tree(load_game("leduc")), "cfr+")
    solver.load_checkpoint(ckpt)
    saved = solver.iteration
    last = printed[-1] if printed else 0
    assert saved >= last - EVAL_EVERY, (saved, last)
    if sig in GRACEFUL:
        assert status == 128 + sig and "pokerbot solve: interrupted" in err.read_text(), err.read_text()
        assert saved >= last  # saved on the way out
    else:
        assert status == -signal.SIGKILL
    target = saved + 30
    text = run(["solve", "leduc", "--iterations", str(target), "--eval-every", "0", "--checkpoint", str(ckpt), "-q"],
               tmp_path)
    assert f"resumed from {ckpt} at iteration {saved}" in text
    assert f"cfr+: {target} iterations" in text


# --- pokerbot match -----------------------------------------------------------------------------------------


def kill_match(tmp_path: Path, sig: int, rng: random.Random) -> None:
    log = tmp_path / "m.log"
    proc, out, err = start(["match", "random", "call", "--game", "leduc", "--hands", "100000000", "--no-progress",
                            "--log", str(log)], tmp_path)

    def hands_in_log() -> int:
        return log.read_text().count("\nSTATE:") if log.exists() else 0

    wait_for(lambda: hands_in_log() >= 20, proc, "20 hands")
    time.sleep(rng.uniform(0.0, 1.0))
    finished = hands_in_log()
    status = stop(proc, sig)
    text = log.read_text()
    assert text.endswith("\n"), "the last line of the log is torn"
    record = read_log(load_game("leduc"), log)  # every line parses
    ids = [h.hand_id for h in record.hands]
    assert ids == list(range(len(ids))) and len(ids) >= finished
    if sig in GRACEFUL:
        assert status == 128 + sig, err.read_text()
        assert f"(after {len(ids)} finished hands)" in text  # the log says where it stopped
    else:
        assert status == -signal.SIGKILL


JOBS = {"train": kill_train, "solve": kill_solve, "match": kill_match}
#: Stop signals, which save and exit 128 + signal; SIGKILL, which loses at most one checkpoint interval.
GRACEFUL = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
SIGNALS = {"SIGINT": signal.SIGINT, "SIGTERM": signal.SIGTERM, "SIGKILL": signal.SIGKILL}
MORE_SIGNALS = {**SIGNALS, "SIGHUP": signal.SIGHUP}


@pytest.mark.parametrize("sig", SIGNALS)
@pytest.mark.parametrize("job", JOBS)
def test_killed_job_resumes_losing_at_most_one_interval(job: str, sig: str, tmp_path: Path) -> None:
    JOBS[job](tmp_path, SIGNALS[sig], random.Random(f"{job}-{sig}"))


@pytest.mark.slow
@pytest.mark.parametrize("moment", range(5))
@pytest.mark.parametrize("sig", MORE_SIGNALS)
@pytest.mark.parametrize("job", JOBS)
def test_killed_job_at_more_moments(job: str, sig: str, moment: int, tmp_path: Path) -> None:
    JOBS[job](tmp_path, MORE_SIGNALS[sig], random.Random(f"{job}-{sig}-{moment}"))


@pytest.mark.parametrize("sig", GRACEFUL)
def test_ctrl_c_during_a_solver_checkpoint_save_waits_for_the_file(sig: int, tmp_path: Path, monkeypatch,
                                                                   capsys) -> None:
    """Deterministic form of the race the random kills found: a stop signal arriving while the checkpoint is
    written."""
    from pokerbot.cli import main

    import zipfile

    real_close = zipfile._ZipWriteFile.close
    calls = []

    def close_with_ctrl_c(self):  # type: ignore[no-untyped-def]
        calls.append(1)
        if len(calls) == 7:  # closing the second array of the second save: inside the zip being written
            os.kill(os.getpid(), sig)
            time.sleep(0.05)  # were it delivered now, the zip would be left with an open entry
        return real_close(self)

    monkeypatch.setattr(zipfile._ZipWriteFile, "close", close_with_ctrl_c)
    ckpt = tmp_path / "k.npz"
    status = main(["solve", "kuhn", "--iterations", "100", "--eval-every", "10", "--checkpoint", str(ckpt), "-q"])
    err = capsys.readouterr().err
    name = "" if sig == signal.SIGINT else f" ({signal.Signals(sig).name})"
    assert status == 128 + sig and err == f"pokerbot solve: interrupted{name}\n", err
    monkeypatch.setattr(zipfile._ZipWriteFile, "close", real_close)
    from pokerbot.solver import Solver, build_tree

    solver = Solver(build_tree(load_game("kuhn")), "cfr+")
    solver.load_checkpoint(ckpt)  # whole
    assert solver.iteration >= 20 and not list(tmp_path.glob("*.tmp*"))


# --- two jobs on one run directory, checkpoint or log ----------------------------------------------------------


@pytest.mark.parametrize("job", ["train", "solve", "match"])
def test_a_second_job_on_the_same_files_stops_at_once(job: str, tmp_path: Path, capsys) -> None:
    """The first job holds its run directory (checkpoint, log); a second one on it fails with one line and
    touches nothing; once the first is stopped (even by SIGKILL) the files are free again."""
    from pokerbot.cli import main

    if job == "train":
        conf = _train_config(tmp_path)
        args = ["train", str(conf), "--dir", str(tmp_path / "run"), "--no-progress"]
        ready = (tmp_path / "run" / "checkpoint.npz").is_file
    elif job == "solve":
        args = ["solve", "leduc", "--iterations", "100000000", "--eval-every", str(EVAL_EVERY),
                "--checkpoint", str(tmp_path / "k.npz"), "-q"]
        ready = (tmp_path / "k.npz").is_file
    else:
        args = ["match", "random", "call", "--game", "leduc", "--hands", "100000000", "--no-progress",
                "--log", str(tmp_path / "m.log")]
        ready = (tmp_path / "m.log").is_file
    proc, out, err = start(args, tmp_path)
    try:
        wait_for(ready, proc, "its first file")
        capsys.readouterr()
        status = main(args)
        message = capsys.readouterr().err
        assert status == 1 and "is being written by another job" in message, message
        assert message.count("\n") == 1
    finally:
        proc.kill()
        proc.wait(PATIENCE)
    from pokerbot.files import exclusive

    target = tmp_path / "run" if job == "train" else tmp_path / ("k.npz" if job == "solve" else "m.log")
    with exclusive(target):  # the lock died with its holder
        pass
