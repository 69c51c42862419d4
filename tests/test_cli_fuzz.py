"""Fuzzing every ``pokerbot`` command: generated arguments and damaged files (issue 13).

Every command the CLI discovers in :mod:`pokerbot.commands` is run in-process with
a command line made from a cheap valid one (:data:`BASELINES`) plus one to three
mutations drawn by hypothesis: wrong types, negative and huge numbers, empty and
odd strings, odd agent specs, missing, unwritable and directory paths, and files
that are random bytes, truncated at a random offset, or valid with one field
changed. Each run must

- end within :data:`TIME_LIMIT` seconds,
- exit 0, 1 or 2,
- print no traceback and no "internal error" (the CLI's word for an uncaught exception),
- on failure, say so in exactly one ``pokerbot <command>: error: ...`` line, the last on stderr,
- leave no partial output behind: no ``*.tmp*`` file, no output file a failed run named.

A command missing from :data:`BASELINES` (a new one) is fuzzed from its argparse
definition alone: its positionals get a missing file name and its options only
values no command should accept (huge or non-numeric numbers, empty strings, bad
paths), so a command that validates its arguments before working fails fast. Give it a baseline
(a cheap valid command line) to have its valid paths explored too.

The default run tries :data:`EXAMPLES` command lines per command (derandomized, so
a failure reproduces, and not shrunk, so a hang costs one :data:`TIME_LIMIT`);
``-m slow`` runs many more with fresh randomness and shrinks what fails.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import os
import re
import shutil
import signal
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from pokerbot.cli import _refuse_swallowed_values, build_parser, command_modules, main
from pokerbot.files import pokerbot_home

#: Seconds one fuzzed command may run (the slowest valid baseline takes about one, on a loaded machine a few).
TIME_LIMIT = 20.0
#: Command lines per command in the default run, and in the slow run.
EXAMPLES = 14
SLOW_EXAMPLES = 150

BAD_INTS = ["-1", "0", "-99999999999999999999", "99999999999999999999", "10000000000000", "x", "", "1.5", "1e3"]
SMALL_INTS = ["1", "2"]
STRICTLY_BAD_INTS = ["-99999999999999999999", "99999999999999999999", "x", "", "1.5"]
BAD_FLOATS = ["nan", "inf", "-inf", "-1e999", "x", "", "-0.5", "0"]
ODD_TEXT = ["", " ", "-", "--", "é", "a" * 300, "../", "%s", "random?x=1", "random?seed=abc",
            "pokerbot.bots:nothing", "no.such.module:f", "call?", ":", "kuhn,leduc", "hunl\n"]
AGENTS = ["random", "call", "raise", "equity?samples=5", "random?name=r", "random?nope=1", "RANDOM", "equity?samples=-1"]


class FuzzTimeout(BaseException):
    """Raised by SIGALRM in a command that ran past :data:`TIME_LIMIT` (BaseException: nothing catches it)."""


# --- the workspace: valid sample files and damaged copies --------------------------------------------------


@dataclass
class Workspace:
    root: Path
    samples: dict[str, Path] = field(default_factory=dict)
    counter: Iterator[int] = field(default_factory=itertools.count)

    def fresh_dir(self) -> Path:
        d = self.root / "runs" / f"r{next(self.counter)}"
        d.mkdir(parents=True)
        return d

    def file(self, name: str, data: bytes) -> Path:
        """A new file (a unique name, since readers may cache by path)."""
        p = self.root / "files" / f"{next(self.counter)}-{name}"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        return p


def _make_samples(ws: Workspace) -> None:
    """Valid files of every kind the commands read, made by the commands themselves."""
    d = ws.root / "samples"
    d.mkdir()
    ws.samples["game"] = d / "leduc.game"
    shutil.copy(Path(__file__).parent.parent / "pokerbot" / "games" / "kuhn.limit.2p.game", ws.samples["game"])
    ws.samples["strategy"] = d / "kuhn.strategy"
    ws.samples["solver-checkpoint"] = d / "kuhn-ckpt.npz"
    assert main(["solve", "kuhn", "--iterations", "20", "-q", "--out", str(ws.samples["strategy"]),
                 "--checkpoint", str(ws.samples["solver-checkpoint"])]) == 0
    ws.samples["config"] = d / "kuhn.toml"
    ws.samples["config"].write_text(
        'name = "fuzz-kuhn"\n[game]\nname = "kuhn"\n[mccfr]\niterations = 200\nseed = 3\n'
        "[run]\nchunk = 50\ncheckpoint_every = 100\n"
    )
    run_dir = d / "run"
    assert main(["train", str(ws.samples["config"]), "--dir", str(run_dir), "--no-progress"]) == 0
    ws.samples["train-checkpoint"] = run_dir / "checkpoint.npz"
    ws.samples["blueprint"] = run_dir / "blueprint.npz"
    ws.samples["log"] = d / "m.log"
    assert main(["match", "random", "call", "--game", "kuhn", "--hands", "4", "--no-progress",
                 "--log", str(ws.samples["log"])]) == 0
    ws.samples["hunl-log"] = d / "hunl.log"  # convert writes hold'em only
    assert main(["match", "random", "call", "--game", "hunl", "--hands", "4", "--no-progress",
                 "--log", str(ws.samples["hunl-log"])]) == 0
    ws.samples["eval-config"] = d / "eval.toml"
    ws.samples["eval-config"].write_text(
        'name = "fuzz"\ngame = "kuhn"\nhands = 20\nseed = 0\nduplicate = true\naivat = true\nround_robin = true\n'
        '[agents]\ncall = "call"\nrandom = "random"\n'
    )
    ws.samples["realtime-config"] = d / "realtime.toml"
    ws.samples["realtime-config"].write_text(f'blueprint = "{ws.samples["blueprint"]}"\n[round.0]\nmode = "solve"\n'
                                             'iterations = 10\nmin_iterations = 1\n')
    ws.samples["leaves-config"] = d / "leaves.toml"
    ws.samples["leaves-config"].write_text(f'[leaves]\nname = "fuzz"\nblueprint = "{ws.samples["blueprint"]}"\nk = 2\n')
    ws.samples["leafnet-config"] = d / "leafnet.toml"
    ws.samples["leafnet-config"].write_text(
        '[leafnet]\nname = "fuzz"\nsource = "small"\ngame = "leduc-nl"\nfractions = [1.0]\nmax_raises = 1\nk = 1\n'
        'iterations = 5\n[data]\nshards = 1\nworkers = 0\nseed = 0\n'
    )


def damaged(kind: str) -> st.SearchStrategy[Callable[[Workspace], Path]]:
    """A file of ``kind``: valid, random bytes, empty, truncated, or with one field changed."""

    def valid(ws: Workspace) -> Path:
        return ws.samples[kind]

    def random_bytes(data: bytes) -> Callable[[Workspace], Path]:
        return lambda ws: ws.file(f"random.{kind}", data)

    def truncated(fraction: float) -> Callable[[Workspace], Path]:
        def make(ws: Workspace) -> Path:
            data = ws.samples[kind].read_bytes()
            return ws.file(f"truncated.{kind}", data[: int(len(data) * fraction)])
        return make

    def one_field(position: float, replacement: str) -> Callable[[Workspace], Path]:
        def make(ws: Workspace) -> Path:
            data = ws.samples[kind].read_bytes()
            if data.startswith(b"PK"):  # an .npz: flip one byte inside (the checksum or the zip must notice)
                i = int(position * (len(data) - 1))
                return ws.file(f"flipped.{kind}", data[:i] + bytes([data[i] ^ 0x55]) + data[i + 1 :])
            tokens = re.split(rb"(\s+|=|\t|:)", data)
            values = [i for i, t in enumerate(tokens) if t.strip() and t not in (b"=", b":")]
            i = values[int(position * (len(values) - 1))]
            tokens[i] = replacement.encode()
            return ws.file(f"changed.{kind}", b"".join(tokens))
        return make

    return st.one_of(
        st.just(valid),
        st.binary(max_size=300).map(random_bytes),
        st.floats(0.0, 0.999).map(truncated),
        st.builds(one_field, st.floats(0.0, 1.0), st.sampled_from(["-1", "0", "99999", "x", "nan", "1e400", ""])),
    )


def bad_paths() -> st.SearchStrategy[Callable[[Workspace], str]]:
    """Paths a command must refuse or handle: missing, a directory, under a file, unwritable, empty."""
    return st.sampled_from([
        lambda ws: str(ws.root / "missing" / "deeper" / "file"),
        lambda ws: str(ws.root),
        lambda ws: str(ws.samples["game"] / "under-a-file"),
        lambda ws: "/proc/pokerbot-fuzz/file",
        lambda ws: "",
    ])


# --- what each command is given -------------------------------------------------------------------------


@dataclass(frozen=True)
class Baseline:
    """A cheap valid command line and what its arguments mean to the fuzzer."""

    argv: Callable[[Workspace, Path], list[str]]
    #: argparse dest -> file kind it reads (a key of ``Workspace.samples``), for damaged files.
    reads: dict[str, str] = field(default_factory=dict)
    #: dests naming files the command writes: a failed run must not leave them.
    writes: tuple[str, ...] = ()
    #: dests never changed (a valid value there would make the run long or block; a cluster address would try to connect).
    pinned: frozenset[str] = frozenset()
    #: only values no command should accept (see :func:`values_for`): for commands without a baseline.
    strict: bool = False


BASELINES: dict[str, Baseline] = {
    "solve": Baseline(
        lambda ws, d: ["kuhn", "--iterations", "5", "-q", "--out", str(d / "s.txt"), "--checkpoint", str(d / "c.npz")],
        reads={"game": "game", "checkpoint": "solver-checkpoint"}, writes=("out",),
        pinned=frozenset({"iterations"}),
    ),
    "exploitability": Baseline(lambda ws, d: ["kuhn", str(ws.samples["strategy"])],
                               reads={"game": "game", "file": "strategy"}),
    "train": Baseline(
        lambda ws, d: [str(ws.samples["config"]), "--iterations", "100", "--dir", str(d / "run"), "--no-progress"],
        reads={"config": "config"}, pinned=frozenset({"iterations", "workers", "ray_address"}),
    ),
    "match": Baseline(
        lambda ws, d: ["random", "call", "--game", "kuhn", "--hands", "3", "--no-progress", "--log", str(d / "m.log")],
        reads={"game": "game"}, pinned=frozenset({"hands"}),
    ),
    "dealer": Baseline(
        lambda ws, d: [str(d / "m"), "kuhn", "2", "0", "a", "b", "--start_timeout", "30"],
        reads={"gamedef": "game"}, pinned=frozenset({"start_timeout", "names", "hands"}),
    ),
    "connect": Baseline(lambda ws, d: ["127.0.0.1", "1", "--game", "kuhn", "--timeout", "1"],
                        reads={"game": "game"}, pinned=frozenset({"host", "timeout"})),
    "demo": Baseline(lambda ws, d: ["--baseline", "--hands", "4", "--no-progress"],
                     pinned=frozenset({"hands", "iterations"})),
    "klss": Baseline(lambda ws, d: ["--games", "kuhn", "--prop3", "4"], pinned=frozenset({"games", "prop3"})),
    "abstraction": Baseline(lambda ws, d: ["bucket", "AsKs", "2c3c4c"], pinned=frozenset({"action", "force"})),
    "efce": Baseline(lambda ws, d: ["--instances", "3,2", "--gammas", "2", "--seeds", "0", "--no-check"],
                     pinned=frozenset({"instances", "seeds"})),
    "eval": Baseline(lambda ws, d: [str(ws.samples["eval-config"]), "--out", str(d / "ev"), "--no-progress"],
                     reads={"config": "eval-config"}, pinned=frozenset({"hands", "workers", "ray_address"})),
    "leafnet": Baseline(lambda ws, d: ["data", str(ws.samples["leafnet-config"]), "--dir", str(d / "net"),
                                       "--workers", "0", "--no-progress"],
                        reads={"config": "leafnet-config"}, pinned=frozenset({"action", "workers", "ray_address"})),
    "leaves": Baseline(lambda ws, d: ["build", str(ws.samples["leaves-config"]), "--dir", str(d / "set"),
                                      "--no-progress"], reads={"config": "leaves-config"},
                      pinned=frozenset({"action", "ray_address"})),
    "sog": Baseline(lambda ws, d: ["eval", "--game", "kuhn", "--search", "1,1", "--seeds", "1",
                                   "--exact-iterations", "2", "--out", str(d / "sog"), "--no-progress"],
                    pinned=frozenset({"sog_command", "game", "search", "seeds", "exact_iterations", "checkpoint"})),
    "street-gain": Baseline(lambda ws, d: ["--config", str(ws.samples["realtime-config"]), "--street", "preflop",
                                           "--states", "1", "--out", str(d / "gain.jsonl"), "--no-progress"],
                            reads={"config": "realtime-config"}, pinned=frozenset({"states"})),
    "stackelberg": Baseline(lambda ws, d: ["figures"], pinned=frozenset({"tables"})),
    "spot": Baseline(lambda ws, d: ["--board", "Ks9h4c7d2s", "--pot", "100", "--stack", "200", "--oop", "AA,72o",
                                    "--ip", "QQ,AKs", "--bets", "100%", "--raises", "a", "--iterations", "20", "-q",
                                    "--out", str(d / "spot.json")],
                     writes=("out",), pinned=frozenset({"iterations", "check_every", "threads", "streets"})),
    "convert": Baseline(lambda ws, d: [str(ws.samples["hunl-log"]), "--to", "phh", "--out", str(d / "m.phhs")],
                        reads={"log": "hunl-log", "game": "game"}, writes=("out",)),
    "aivat": Baseline(lambda ws, d: [str(ws.samples["log"]), "--agent", "random=random", "--agent", "call=call"],
                      reads={"log": "log", "game": "game"}),
    # ``play`` serves its page until Ctrl-C: the workspace replaces the serving loop (see :func:`no_serving`), so
    # a run checks everything up to serving (arguments, game, agent, log, socket) and returns.
    "play": Baseline(lambda ws, d: ["--agent", "call", "--port", "0", "--no-browser", "--log", str(d / "play.log")],
                     reads={"game": "game"}, pinned=frozenset({"host"})),
    # ``explore`` serves its page until Ctrl-C too (same stub): a run opens the source and binds the socket.
    "explore": Baseline(lambda ws, d: [str(ws.samples["blueprint"]), "--port", "0", "--no-browser"],
                        reads={"source": "blueprint"}, pinned=frozenset({"host"})),
}


def no_serving(monkeypatch: pytest.MonkeyPatch) -> None:
    """``pokerbot play`` without its endless serving loop nor a browser: the socket is closed at once.

    What happens after serving starts is tested by tests/test_evaluation_play*.py; the fuzzer checks what comes
    before (a valid run would otherwise serve until the time limit).
    """
    import webbrowser

    import evaluation.play.server as server

    monkeypatch.setattr(server, "serve", lambda session, sock: sock.close())
    import evaluation.explore.server as explore_server

    monkeypatch.setattr(explore_server, "serve", lambda app, sock: sock.close())
    monkeypatch.setattr(webbrowser, "open", lambda *args, **kwargs: True)


# --- running a command ------------------------------------------------------------------------------------


@dataclass
class Outcome:
    status: int
    stdout: str
    stderr: str
    seconds: float


def run_command(argv: list[str], limit: float = TIME_LIMIT) -> Outcome:
    import time

    out, err = io.StringIO(), io.StringIO()

    def on_alarm(signum: int, frame: object) -> None:
        raise FuzzTimeout(f"pokerbot {' '.join(argv)} ran past {limit} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    start = time.perf_counter()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(argv)
            except SystemExit as exc:  # argparse: --help (0) and usage errors (2)
                status = exc.code if isinstance(exc.code, int) else 1
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    return Outcome(status, out.getvalue(), err.getvalue(), time.perf_counter() - start)


def check_outcome(command: str, argv: list[str], outcome: Outcome, outputs: list[Path], root: Path,
                  existed: set[Path]) -> None:
    """The properties every run must have (see the module docstring)."""
    shown = f"pokerbot {' '.join(map(repr, argv))}\nstdout: {outcome.stdout[-2000:]}\nstderr: {outcome.stderr[-2000:]}"
    assert outcome.status in (0, 1, 2), shown
    assert "Traceback" not in outcome.stderr and "Traceback" not in outcome.stdout, shown
    assert "internal error" not in outcome.stderr, shown
    raw = re.search(r"object at 0x|PosixPath\(|Namespace\(|\{'|<class ", outcome.stdout + outcome.stderr)
    assert raw is None, f"a raw Python object in the output\n{shown}"
    lines = [line for line in outcome.stderr.splitlines() if line.strip()]
    error_lines = [line for line in lines if line.startswith(f"pokerbot {command}") and ": error: " in line]
    if outcome.status in (1, 2):
        assert lines, f"failed without a message\n{shown}"
        if error_lines or outcome.status == 2:
            assert len(error_lines) == 1 and lines[-1] == error_lines[0], shown
    else:
        assert not error_lines, shown
    leftovers = [p for p in root.rglob("*") if ".tmp" in p.name]
    assert not leftovers, f"partial files left behind: {leftovers}\n{shown}"
    if outcome.status != 0:
        for path in outputs:
            assert path in existed or not os.path.lexists(path), f"a failed run left {path}\n{shown}"


# --- generating command lines ---------------------------------------------------------------------------


def subparser(command: str, argv: list[str]) -> argparse.ArgumentParser:
    """The parser that reads the options of ``argv`` (descending into sub-commands like ``abstraction build``)."""
    parser = build_parser()
    tokens = [command, *argv]
    while True:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs or not tokens or tokens[0] not in subs[0].choices:
            return parser
        parser = subs[0].choices[tokens.pop(0)]


def values_for(action: argparse.Action, reads: dict[str, str],
               strict: bool = False) -> st.SearchStrategy[Callable[[Workspace], str]]:
    """Odd values for one argument, given its type and what the fuzzer knows about it.

    ``strict`` (a command without a baseline): only values no command should accept, so that a
    mutated command line never starts a default-sized job.
    """
    def const(text: str) -> Callable[[Workspace], str]:
        return lambda ws: text

    if strict:
        if action.type is int:
            return st.sampled_from(STRICTLY_BAD_INTS).map(const)
        if action.type is float:
            return st.sampled_from(["nan", "inf", "-inf", "x", ""]).map(const)
        return st.one_of(st.sampled_from(["", "\x7f", "pokerbot.bots:nothing"]).map(const), bad_paths())

    if action.dest in reads:
        kind = reads[action.dest]
        named = st.sampled_from(["kuhn", "leduc", "nosuchgame"]).map(const) if kind == "game" else st.nothing()
        return st.one_of(damaged(kind).map(lambda make: (lambda ws: str(make(ws)))), bad_paths(), named)
    if action.choices is not None and not isinstance(action, argparse._SubParsersAction):
        return st.sampled_from([*map(str, action.choices), "", "x", "CFR"]).map(const)
    if action.type is int:
        return st.sampled_from(BAD_INTS + SMALL_INTS).map(const)
    if action.type is float:
        return st.sampled_from(BAD_FLOATS + ["0.5", "1"]).map(const)
    if "agent" in action.dest or action.dest in ("a", "b"):
        return st.sampled_from(AGENTS + ODD_TEXT).map(const)
    return st.one_of(st.sampled_from(ODD_TEXT).map(const), bad_paths())


@dataclass(frozen=True)
class Mutation:
    kind: str  # "set", "positional", "drop", "unknown"
    dest: str = ""
    value: Callable[[Workspace], str] | None = None
    index: int = 0


def mutations(command: str, baseline: Baseline, argv0: list[str]) -> st.SearchStrategy[list[Mutation]]:
    strict = baseline.strict
    parser = subparser(command, argv0)
    options = [a for a in parser._actions if a.option_strings and a.nargs != 0 and a.dest not in baseline.pinned
               and not isinstance(a, (argparse._HelpAction, argparse._VersionAction))]
    positionals = [a for a in parser._actions if not a.option_strings and a.dest not in baseline.pinned
                   and not isinstance(a, argparse._SubParsersAction)]
    choices: list[st.SearchStrategy[Mutation]] = [st.just(Mutation("unknown")), st.just(Mutation("drop"))]
    for a in options:
        choices.append(values_for(a, baseline.reads, strict).map(lambda v, a=a: Mutation("set", a.dest, v)))
    for i, a in enumerate(positionals):
        choices.append(values_for(a, baseline.reads, strict).map(
            lambda v, a=a, i=i: Mutation("positional", a.dest, v, i)))
    return st.lists(st.one_of(choices), min_size=1, max_size=3)


def apply(command: str, argv: list[str], muts: list[Mutation], ws: Workspace) -> list[str]:
    """``argv`` with the mutations applied (options appended, so the last occurrence wins)."""
    parser = subparser(command, argv)
    prefix = len(argv) - len(_after_subcommands(command, argv))
    head, rest = argv[:prefix], list(argv[prefix:])
    positional_slots = [i for i, tok in enumerate(rest) if _is_positional(parser, rest, i)]
    extra: list[str] = []
    for m in muts:
        if m.kind == "unknown":
            extra.append("--no-such-option")
        elif m.kind == "drop" and positional_slots:
            rest[positional_slots[-1]] = None  # type: ignore[call-overload]
            positional_slots.pop()
        elif m.kind == "set":
            action = next(a for a in parser._actions if a.dest == m.dest and a.option_strings)
            value = m.value(ws)  # type: ignore[misc]
            extra.extend([f"{action.option_strings[-1]}={value}"] if value.startswith("-") else
                         [action.option_strings[-1], value])
        elif m.kind == "positional":
            value = m.value(ws)  # type: ignore[misc]
            if m.index < len(positional_slots):
                rest[positional_slots[m.index]] = value
    return head + [t for t in rest if t is not None] + extra


def _after_subcommands(command: str, argv: list[str]) -> list[str]:
    parser, tokens = build_parser(), [command, *argv]
    while True:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs or not tokens or tokens[0] not in subs[0].choices:
            return tokens
        parser = subs[0].choices[tokens.pop(0)]


def _is_positional(parser: argparse.ArgumentParser, tokens: list[str], i: int) -> bool:
    """Whether ``tokens[i]`` is a positional value (not an option nor an option's value)."""
    if tokens[i].startswith("-") and not re.fullmatch(r"-\d+", tokens[i]):
        return False
    if i == 0:
        return True
    prev = tokens[i - 1]
    for a in parser._actions:
        if prev in a.option_strings:
            return a.nargs == 0
    return True


def generic_baseline(command: str) -> Baseline:
    """For a command with no baseline: its positionals given odd values (so a valid run is unlikely)."""
    parser = subparser(command, [])
    n = sum(1 for a in parser._actions if not a.option_strings and not isinstance(a, argparse._SubParsersAction))
    return Baseline(lambda ws, d: ["missing-input-file"] * n, strict=True)


# --- the tests --------------------------------------------------------------------------------------------


#: Commands whose first run compiles large numba kernels: their baselines run once, untimed, before any timed run.
COMPILING = ("solve", "spot", "sog")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    root = tmp_path_factory.mktemp("fuzz")
    home = root / "home"
    home.mkdir()
    real_home = pokerbot_home()
    if (real_home / "abstraction").is_dir():  # read-only use: the fuzzer never passes --force
        (home / "abstraction").symlink_to(real_home / "abstraction")
    cwd = root / "cwd"
    cwd.mkdir()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("POKERBOT_HOME", str(home))
        mp.delenv("POKERBOT_DEBUG", raising=False)
        mp.chdir(cwd)
        no_serving(mp)
        ws = Workspace(root)
        _make_samples(ws)
        # A fresh clone has no numba cache: a command's first compilation alone can take longer than
        # TIME_LIMIT on a loaded machine, so the compiling commands run once before any timed run.
        for command in COMPILING:
            run_command([command, *BASELINES[command].argv(ws, ws.fresh_dir())], limit=1800.0)
        yield ws


def fuzz_one(command: str, ws: Workspace, data: st.DataObject, use_baseline: bool = True) -> None:
    baseline = (BASELINES.get(command) if use_baseline else None) or generic_baseline(command)
    run_dir = ws.fresh_dir()
    argv0 = baseline.argv(ws, run_dir)
    muts = data.draw(mutations(command, baseline, argv0), label="mutations")
    argv = apply(command, argv0, muts, ws)
    parsed = _parse_quietly(command, argv)
    outputs = [Path(getattr(parsed, dest)) for dest in baseline.writes
               if parsed is not None and getattr(parsed, dest, None)]
    existed = {p for p in outputs if os.path.lexists(p)}
    outcome = run_command([command, *argv])
    check_outcome(command, argv, outcome, outputs, ws.root, existed)


def _parse_quietly(command: str, argv: list[str]) -> argparse.Namespace | None:
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        try:
            return build_parser().parse_args([command, *argv])
        except SystemExit:
            return None


COMMANDS = sorted(command_modules())


@pytest.mark.parametrize("command", COMMANDS)
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          phases=[Phase.explicit, Phase.generate],  # no shrinking: a hang would repeat TIME_LIMIT many times
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_fuzzed_command_fails_cleanly(command: str, workspace: Workspace, data: st.DataObject) -> None:
    fuzz_one(command, workspace, data)


#: Commands whose default run (no arguments) is long by design, so the strict generic mode cannot be bounded:
#: ``demo`` trains and plays, ``efce`` solves Table 1's LPs (tens of seconds).
LONG_BY_DEFAULT = {"demo", "efce"}


@pytest.mark.parametrize("command", [c for c in COMMANDS if c not in LONG_BY_DEFAULT])
@settings(max_examples=6, deadline=None, derandomize=True, database=None, phases=[Phase.explicit, Phase.generate],
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_fuzzed_without_a_baseline(command: str, workspace: Workspace, data: st.DataObject) -> None:
    """The fallback a new command gets (its argparse definition alone) runs and holds on today's commands."""
    fuzz_one(command, workspace, data, use_baseline=False)


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS)
@settings(max_examples=SLOW_EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_fuzzed_command_fails_cleanly_long_run(command: str, workspace: Workspace, data: st.DataObject) -> None:
    fuzz_one(command, workspace, data)


#: Commands without a baseline, and why (none today).
NO_BASELINE: set[str] = set()


def test_every_command_has_a_baseline() -> None:
    """A new command gets a cheap valid command line here, so the fuzzer explores its valid paths too."""
    assert sorted(set(COMMANDS) - set(BASELINES) - NO_BASELINE) == []


@pytest.mark.parametrize("command", [c for c in COMMANDS if c not in NO_BASELINE])
def test_baseline_command_line_succeeds(command: str, workspace: Workspace) -> None:
    """The un-mutated baselines run (so the fuzzer's valid paths are real), within the time limit."""
    argv = BASELINES[command].argv(workspace, workspace.fresh_dir())
    outcome = run_command([command, *argv])
    expected = 1 if command in ("dealer", "connect") else 0  # nobody connects / nobody listens
    assert outcome.status == expected, (outcome.stdout, outcome.stderr)
    check_outcome(command, argv, outcome, [], workspace.root, set())


def test_the_checks_catch_a_traceback_and_a_partial_file(tmp_path: Path) -> None:
    """Negative control: an uncaught exception, a multi-line error and a left .tmp file all fail the checks."""
    crash = Outcome(1, "", "pokerbot solve: error: internal error (ValueError: x); please report it", 0.1)
    with pytest.raises(AssertionError):
        check_outcome("solve", [], crash, [], tmp_path, set())
    raw = Outcome(0, "made {'a': 1}\n", "", 0.1)
    with pytest.raises(AssertionError, match="raw Python object"):
        check_outcome("solve", [], raw, [], tmp_path, set())
    two_lines = Outcome(1, "", "pokerbot solve: error: a\npokerbot solve: error: b\n", 0.1)
    with pytest.raises(AssertionError):
        check_outcome("solve", [], two_lines, [], tmp_path, set())
    (tmp_path / "x.strategy.tmp").write_text("partial")
    with pytest.raises(AssertionError):
        check_outcome("solve", [], Outcome(1, "", "pokerbot solve: error: no\n", 0.1), [], tmp_path, set())
    looping = [0]

    def spin(argv: list[str] | None = None) -> int:
        while True:
            looping[0] += 1

    import pokerbot.cli as cli
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(__import__(__name__, fromlist=["main"]), "main", spin)
        with pytest.raises(FuzzTimeout):
            run_command(["solve"], limit=0.2)
    assert looping[0] > 0 and cli.main is not spin


@pytest.mark.parametrize("argv", [["solve", "kuhn", "--out=--"], ["sog", "eval", "--search=--"]])
def test_an_option_given_the_separator_as_its_value_is_a_usage_error(argv: list[str],
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2 and "expected one argument" in capsys.readouterr().err


def test_an_append_option_may_be_given_twice() -> None:
    args, _ = build_parser().parse_known_args(["sog", "eval", "--search", "5,1", "--search", "20,1"])
    _refuse_swallowed_values(args)  # must not raise
    assert len(args.search) == 2
