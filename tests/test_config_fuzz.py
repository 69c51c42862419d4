"""Every config loader refuses hostile TOML with one typed line, or loads exactly what the file says (issue 30).

For each kind of config (blueprint, real-time agent, Student of Games, leaf-value network,
continuation leaves, evaluation experiment) every shipped file of ``configs/`` of that kind
is the starting point of hostile variants: a value replaced by one of another TOML type (a
string for a number, a float for an integer, ``"false"`` for a boolean, an array or a table
for a scalar, a scalar for a table), nan and infinities, integers beyond TOML's 64 bits,
huge and negative numbers, empty arrays and strings; unknown keys and unknown or misspelt
tables added; keys and tables removed; and whole configs of another kind.

The loader must either

- raise its kind's :class:`~pokerbot.errors.PokerbotError` subclass, in one line that names
  the file and the key or table at fault, or
- load, and then every field of what it returns (walked from the dataclasses' annotations)
  has exactly its declared type (no bool for an int, no float for an int, no string for
  anything else), integers within 64 bits, floats finite (but where a field allows an
  infinity), numbers within the field's range (:data:`RANGES`), and the changed value is the
  value the file gave: a silent coercion (``"false"`` read as true, 1.7 as 1, ``["1"]`` as
  ``[1.0]``) fails. An unknown key or table that loads fails.

The default run draws a few derandomized variants per kind (hypothesis); ``-m slow`` tries
every variant of every shipped config (:func:`every_variant`). The ``pokerbot`` commands that
take a config are run in-process on hostile configs: exit 1, one ``pokerbot <command>: error:``
line.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import tomllib
import types
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from pokerbot.errors import PokerbotError

CONFIGS = Path(__file__).parent.parent / "configs"
#: Variants per kind in the default run.
EXAMPLES = 150
NOTHING = object()
INT64 = (-(2**63), 2**63 - 1)


# --- writing TOML (the variants are parsed TOML, written back) -----------------------------------------------


def _key(k: str) -> str:
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k)


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(v)


def dumps(data: dict[str, Any], prefix: tuple[str, ...] = ()) -> str:
    """``data`` as TOML (scalars first, then tables, then arrays of tables)."""
    lines = []
    for k, v in data.items():
        if not isinstance(v, dict) and not (isinstance(v, list) and v and all(isinstance(x, dict) for x in v)):
            lines.append(f"{_key(k)} = {_value(v)}")
    for k, v in data.items():
        if isinstance(v, dict):
            name = ".".join(_key(p) for p in prefix + (k,))
            lines.append(f"\n[{name}]")
            lines.append(dumps(v, prefix + (k,)))
    for k, v in data.items():
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            name = ".".join(_key(p) for p in prefix + (k,))
            for x in v:
                lines.append(f"\n[[{name}]]")
                lines.append(dumps(x, prefix + (k,)))
    return "\n".join(lines)


# --- the kinds of config -----------------------------------------------------------------------------------


def _load_blueprint(path: Path) -> Any:
    from blueprint.config import load_config

    return load_config(path)


def _load_realtime(path: Path) -> Any:
    from realtime.config import RealtimeConfig

    return RealtimeConfig.load(path)


def _load_sog(path: Path) -> Any:
    from realtime.sog.training import load_config

    return load_config(str(path))


def _load_leafnet(path: Path) -> Any:
    from realtime.leafnet_run import LeafnetConfig

    return LeafnetConfig.load(str(path))


def _load_leaves(path: Path) -> Any:
    from blueprint.leaves_build import LeavesConfig

    return LeavesConfig.load(str(path))


def _load_experiment(path: Path) -> Any:
    from evaluation.experiment import load_experiment

    return load_experiment(path)


def _error(kind: str) -> type[Exception]:
    if kind == "blueprint":
        from blueprint.config import ConfigError

        return ConfigError
    if kind == "realtime":
        from realtime.config import RealtimeConfigError

        return RealtimeConfigError
    if kind == "sog":
        from realtime.sog.search import SoGError

        return SoGError
    if kind == "experiment":
        from evaluation.experiment import ExperimentError

        return ExperimentError
    return PokerbotError  # leafnet and leaves configs raise PokerbotError itself


def _lookup_blueprint(cfg: Any, path: tuple[Any, ...]) -> Any:
    from blueprint.config import _SECTIONS

    if path == ("name",):
        return cfg.name
    if len(path) >= 2 and path[0] in _SECTIONS and path[1] in _SECTIONS[path[0]]:
        return getattr(cfg, _SECTIONS[path[0]][path[1]])
    return NOTHING


def _lookup_realtime(cfg: Any, path: tuple[Any, ...]) -> Any:
    if len(path) == 1:
        return getattr(cfg, path[0], NOTHING) if path[0] not in ("leaves", "round") else NOTHING
    if path[0] == "leaves":
        return getattr(cfg.leaves, path[1], NOTHING)
    if path[0] == "round" and len(path) >= 3:
        return getattr(cfg.round(int(path[1])), path[2], NOTHING)
    return NOTHING


def _lookup_sog(cfg: Any, path: tuple[Any, ...]) -> Any:
    if path == ("name",):
        return NOTHING  # the [sog] table's name wins
    return getattr(cfg, path[1], NOTHING) if path[0] == "sog" and len(path) >= 2 else NOTHING


def _lookup_leafnet(cfg: Any, path: tuple[Any, ...]) -> Any:
    where = {"leafnet": cfg.data, "data": cfg.data, "features": cfg.spec, "train": cfg.train}.get(path[0])
    return getattr(where, path[1], NOTHING) if where is not None and len(path) >= 2 else NOTHING


def _lookup_leaves(cfg: Any, path: tuple[Any, ...]) -> Any:
    if path[0] != "leaves" or len(path) < 2:
        return NOTHING
    key = path[1]
    if key in ("fractions", "max_raises", "all_in"):
        if cfg.menu is None:
            return NOTHING
        fractions = cfg.menu.fractions
        flat = list(fractions[0][0]) if list(fractions) == [0] and len(fractions[0]) == 1 else fractions
        return {"fractions": flat, "max_raises": cfg.menu.max_raises, "all_in": cfg.menu.all_in}[key]
    if key == "chooser":
        from blueprint.leaves_build import CHOOSER_SEATS

        return {seats: chooser for chooser, seats in CHOOSER_SEATS.items()}[cfg.seats]
    if key in ("menu", "method"):
        return NOTHING
    return getattr(cfg, key, NOTHING)


def _lookup_experiment(exp: Any, path: tuple[Any, ...]) -> Any:
    if path[0] == "agents":
        return exp.agents.get(path[1], NOTHING) if len(path) >= 2 else exp.agents
    if path[0] == "matchups":
        return [list(p) for p in exp.matchups] if len(path) == 1 else NOTHING
    if path[0] in ("lbr", "training") and len(path) < 3:
        return NOTHING
    if path[0] in ("lbr", "training"):
        runs = exp.lbr if path[0] == "lbr" else exp.training
        if path[1] >= len(runs):
            return NOTHING
        run = runs[path[1]]
        if path[0] == "lbr" and path[2] not in ("agent", "hands", "chunk"):
            value = getattr(run.settings, path[2], NOTHING)
            return list(value) if isinstance(value, tuple) else value
        if path[2] == "agent":
            return run.agent
        return getattr(run, path[2], NOTHING)
    return getattr(exp, path[0], NOTHING) if len(path) == 1 else NOTHING


@dataclass(frozen=True)
class Kind:
    name: str
    prefixes: tuple[str, ...]
    load: Callable[[Path], Any]
    lookup: Callable[[Any, tuple[Any, ...]], Any]

    def files(self) -> list[Path]:
        return sorted(p for p in CONFIGS.glob("*.toml") if kind_of(p) == self.name)


KINDS = {k.name: k for k in (
    Kind("blueprint", (), _load_blueprint, _lookup_blueprint),
    Kind("realtime", ("realtime-",), _load_realtime, _lookup_realtime),
    Kind("sog", ("sog-",), _load_sog, _lookup_sog),
    Kind("leafnet", ("leafnet-",), _load_leafnet, _lookup_leafnet),
    Kind("leaves", ("leaves-",), _load_leaves, _lookup_leaves),
    Kind("experiment", ("eval-",), _load_experiment, _lookup_experiment),
)}


def kind_of(path: Path) -> str:
    for k in ("realtime", "sog", "leafnet", "leaves", "experiment"):
        if any(path.name.startswith(p) for p in {"realtime": ("realtime-",), "sog": ("sog-",),
                                                  "leafnet": ("leafnet-",), "leaves": ("leaves-",),
                                                  "experiment": ("eval-",)}[k]):
            return k
    return "blueprint"


# --- what a loaded config must hold ------------------------------------------------------------------------

#: Ranges of numeric fields, by dataclass (module.qualname) and field: (low, high), None for no bound; a field
#: not listed only needs to be a 64-bit integer or a finite float.
POSITIVE = (1, None)
COUNT = (0, None)
PROBABILITY = (0.0, 1.0)
SEED = (0, 2**63 - 1)
RANGES: dict[str, dict[str, tuple[float | None, float | None]]] = {
    "blueprint.config.BlueprintConfig": {
        "iterations": COUNT, "seed": SEED, "discount_every": COUNT, "discount_until": COUNT,
        "prune_probability": PROBABILITY, "chunk": POSITIVE, "checkpoint_every": POSITIVE, "eval_every": COUNT,
        "workers": POSITIVE, "sync_every": POSITIVE},
    "realtime.config.RealtimeConfig": {"seed": SEED, "action_time_limit": (1e-3, None), "hand_time_limit": (0.0, None)},
    "realtime.config.RoundConfig": {"iterations": POSITIVE, "min_iterations": COUNT, "time_budget": (1e-9, None),
                                    "depth_limit": (-1, None), "rollouts": (-1, None), "leaf_mb": (-1.0, None)},
    "realtime.config.LeavesConfig": {"k": POSITIVE, "factor": (1e-300, None), "rollouts": COUNT,  # 0: every run-out
                                     "equity_samples": COUNT, "max_mb": (1e-300, None)},
    "realtime.sog.training.TrainConfig": {
        **{f: POSITIVE for f in ("hidden", "layers", "simulations", "steps", "batch_size", "replay_size",
                                 "decay_steps", "eval_seeds", "eval_simulations")},
        **{f: (1e-300, None) for f in ("c", "lr", "decay_rate", "max_updates_per_example", "prior_temperature",
                                       "eval_c")},
        "w_v": (0.0, None), "w_p": (0.0, None), "epsilon": PROBABILITY, "q_search": PROBABILITY,
        "q_recursive": PROBABILITY, "seed": SEED,
        **{f: COUNT for f in ("workers", "eval_every", "checkpoint_every", "snapshot_every", "max_queries")}},
    "realtime.leafnet_data.DataConfig": {
        "fractions": (1e-300, None), "max_raises": COUNT, "k": POSITIVE, "iterations": POSITIVE,
        "menus": (1e-300, None), "rollouts": POSITIVE, "explore": PROBABILITY, "subgames": POSITIVE,
        "shards": POSITIVE, "workers": COUNT, "seed": SEED},
    "blueprint.leafnet.FeatureSpec": {"bins": POSITIVE, "runouts": POSITIVE, "exact_runouts": COUNT, "seed": SEED},
    "blueprint.leafnet.TrainConfig": {
        "hidden": POSITIVE, "lr": (1e-300, None), "batch": POSITIVE, "epochs": POSITIVE, "patience": POSITIVE,
        "val_fraction": (1e-300, 1 - 1e-16), "huber_delta": (1e-300, None), "seed": SEED, "threads": POSITIVE},
    "blueprint.leaves_build.LeavesConfig": {"k": POSITIVE, "factor": (1e-300, None), "iterations": POSITIVE},
    "pokerbot.menus.PotFractionMenu": {"max_raises": COUNT},
    "evaluation.experiment.Experiment": {"hands": POSITIVE, "seed": (0, 2**32 - 1), "chunk": POSITIVE,
                                         "workers": POSITIVE},
    "evaluation.experiment.LbrRun": {"hands": POSITIVE, "chunk": POSITIVE},
    "evaluation.experiment.TrainingRun": {"iterations": POSITIVE, "eval_every": POSITIVE},
    "evaluation.lbr.LbrSettings": {"fractions": (1e-300, None), "call_rounds": (0, 3), "samples": POSITIVE,
                                   "max_exact": POSITIVE, "expected_from": (0, 3)},
}
#: String fields that name something (a run, its directory, a game): never empty.
NAMES = {"blueprint.config.BlueprintConfig": {"name", "game", "cards", "actions"},
         "realtime.config.RealtimeConfig": {"name", "blueprint"},
         "realtime.sog.training.TrainConfig": {"name", "game"},
         "realtime.leafnet_data.DataConfig": {"name", "game"},
         "blueprint.leaves_build.LeavesConfig": {"name"},
         "evaluation.experiment.Experiment": {"name", "game"}}
#: Float fields where an infinity means something (the blueprint's regret floor: none).
INFINITE_OK = {("blueprint.config.BlueprintConfig", "regret_floor"),
               ("blueprint.config.BlueprintConfig", "prune_threshold")}


def _qualname(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _numbers(value: Any) -> Iterator[Any]:
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from _numbers(v)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield value


def _fits(value: Any, kind: Any, infinite_ok: bool) -> bool:
    """Whether ``value`` has exactly the type ``kind`` (strict: see the module docstring)."""
    origin = typing.get_origin(kind)
    if kind is Any or kind is object:
        return True
    if kind is bool:
        return isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool) and INT64[0] <= value <= INT64[1]
    if kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        if isinstance(value, int):
            return INT64[0] <= value <= INT64[1]
        return not math.isnan(value) and (infinite_ok or math.isfinite(value))
    if kind is str:
        return isinstance(value, str)
    if kind is type(None):
        return value is None
    if origin in (list, tuple):
        args = typing.get_args(kind)
        if not isinstance(value, origin):
            return False
        if origin is tuple and args and Ellipsis not in args:
            return len(value) == len(args) and all(_fits(v, a, infinite_ok) for v, a in zip(value, args))
        return not args or all(_fits(v, args[0], infinite_ok) for v in value)
    if origin is dict:
        kt, vt = typing.get_args(kind) or (Any, Any)
        return isinstance(value, dict) and all(_fits(k, kt, False) and _fits(v, vt, infinite_ok)
                                               for k, v in value.items())
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, a, infinite_ok) for a in typing.get_args(kind))
    if isinstance(kind, type):
        return isinstance(value, kind)
    raise AssertionError(f"an annotation this test does not know: {kind!r}")


def check_loaded(obj: Any, where: str = "config") -> None:
    """Every field of the dataclass ``obj`` (and the dataclasses within) of its declared type and in range."""
    cls = type(obj)
    if cls.__name__ == "PotFractionMenu":
        fractions = [f for depths in obj.fractions.values() for d in depths for f in d]
        assert fractions and all(isinstance(f, float) and math.isfinite(f) and f > 0 for f in fractions), \
            f"{where}: {obj.fractions!r}"
        assert isinstance(obj.all_in, bool), f"{where}.all_in: {obj.all_in!r}"
        assert obj.max_raises is None or (_fits(obj.max_raises, int, False) and obj.max_raises >= 0), where
        return
    assert dataclasses.is_dataclass(obj), f"{where}: {obj!r}"
    hints = typing.get_type_hints(cls)
    ranges = RANGES.get(_qualname(cls), {})
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        name = f"{where}.{f.name}"
        infinite_ok = (_qualname(cls), f.name) in INFINITE_OK
        assert _fits(value, hints[f.name], infinite_ok), f"{name} = {value!r} is not a {hints[f.name]}"
        assert value or f.name not in NAMES.get(_qualname(cls), ()), f"{name} is empty"
        if f.name in ranges:
            low, high = ranges[f.name]
            for x in _numbers(value):
                assert (low is None or x >= low) and (high is None or x <= high), f"{name} = {value!r} not in " \
                                                                                   f"{low}..{high}"
        for child, label in _children(value, name):
            check_loaded(child, label)
    if cls.__name__ == "RoundConfig":
        assert obj.min_iterations <= obj.iterations, where
    if cls.__name__ == "Experiment":
        assert obj.agents and all(a in obj.agents and b in obj.agents and a != b for a, b in obj.matchups), where


def _children(value: Any, where: str) -> Iterator[tuple[Any, str]]:
    if dataclasses.is_dataclass(value) and not isinstance(value, type) or type(value).__name__ == "PotFractionMenu":
        yield value, where
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from _children(v, f"{where}[{i}]")


def same(loaded: Any, given: Any) -> bool:
    """Whether the loaded ``loaded`` is the file's ``given`` (types kept: no bool for a number, no rounding)."""
    if isinstance(given, bool) or isinstance(loaded, bool):
        return type(loaded) is type(given) and loaded == given
    if isinstance(given, (int, float)):
        if not isinstance(loaded, (int, float)):
            return False
        if isinstance(given, float) and isinstance(loaded, int):
            return False  # a float read as a whole number
        return loaded == given or (math.isnan(given) and math.isnan(loaded))
    if isinstance(given, str):
        return isinstance(loaded, str) and loaded == given
    if isinstance(given, list):
        return isinstance(loaded, (list, tuple)) and len(loaded) == len(given) and all(
            same(a, b) for a, b in zip(loaded, given))
    if isinstance(given, dict):
        return isinstance(loaded, dict) and loaded.keys() == given.keys() and all(
            same(loaded[k], given[k]) for k in given)
    return loaded == given


# --- the variants ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    """A hostile change of a config: what it is, the TOML path it touches and the names an error must give."""

    what: str  # "replace", "unknown key", "unknown table", "remove", "foreign"
    path: tuple[Any, ...] = ()
    value: Any = None
    source: str = ""  # "foreign": the config file given instead
    inner: tuple[str, ...] = ()  # the keys of the table replaced or removed (an error may name one of them)

    def apply(self, data: dict[str, Any]) -> dict[str, Any]:
        data = json.loads(json.dumps(data, allow_nan=True))  # a deep copy (parsed TOML is JSON-shaped)
        if self.what == "foreign":
            return tomllib.loads((CONFIGS / self.source).read_text())
        *parents, last = self.path
        node = data
        for p in parents:
            node = node[p]
        if self.what == "remove":
            del node[last]
        else:
            node[last] = self.value
        return data

    def names(self) -> list[str]:
        """Names of which one an error must give: the key or the table (and, removing a table, its keys)."""
        keys = [p for p in self.path if isinstance(p, str)]
        return keys[-2:] + list(self.inner)

    def __str__(self) -> str:
        if self.what == "foreign":
            return f"foreign {self.source}"
        return f"{self.what} {'.'.join(map(str, self.path))}" + (f" = {self.value!r}" if self.what != "remove" else "")


BIG = 2**63  # one beyond TOML's integers


def hostile(value: Any) -> list[Any]:
    """Values of other TOML types (and out-of-range ones of the same) for a key whose value is ``value``."""
    if isinstance(value, bool):
        return ["false", "true", 0, 1, 1.0, [value], {"x": value}]
    if isinstance(value, int):
        return [str(value), 1.7, float(value), True, [value], {"x": value}, BIG, -BIG - 1, 10**30, -1, 0, -(10**6)]
    if isinstance(value, float):
        return [str(value), math.nan, math.inf, -math.inf, True, [value], {"x": value}, -1.0, 0.0, 1e300, BIG]
    if isinstance(value, str):
        return [1, 1.5, True, [value], {"x": value}, "", "false"]
    if isinstance(value, list):
        return ["x", 1, True, {"x": 1}, [], [[1]], ["x"], [math.nan], [-1], [True], [BIG], [1e300], [1.5]]
    if isinstance(value, dict):
        return [1, "x", [], {}, True]
    return []


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every (path, value) of parsed TOML: tables, their keys, arrays and their items."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield prefix + (k,), v
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield prefix + (i,), v
            yield from _paths(v, prefix + (i,))


def _tables(node: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(node, dict):
        yield prefix
        for k, v in node.items():
            yield from _tables(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _tables(v, prefix + (i,))


#: Tables whose keys are names the user chooses (an added key is a new entry, not a misspelling).
FREE_TABLES = {("agents",)}


def _misspelt(key: str) -> str:
    return key[:-1] if len(key) > 2 else key + "s"


def every_variant(data: dict[str, Any], kind: str) -> list[Variant]:
    """Every hostile variant of the parsed config ``data`` of ``kind`` (see the module docstring)."""
    out = []
    for path, value in _paths(data):
        inner = tuple(value) if isinstance(value, dict) else ()
        out += [Variant("replace", path, v, inner=inner) for v in hostile(value)]
        out.append(Variant("remove", path, inner=inner))
    for table in _tables(data):
        if table in FREE_TABLES:
            continue
        node = data
        for p in table:
            node = node[p]
        out.append(Variant("unknown key", table + ("bogus_key",), 1))
        for k in list(node)[:3]:
            if _misspelt(k) not in node:
                value = node[k]
                out.append(Variant("unknown key" if not isinstance(value, dict) else "unknown table",
                                   table + (_misspelt(k),), value))
        out.append(Variant("unknown table", table + ("bogus_table",), {"x": 1}))
    for other in sorted(CONFIGS.glob("*.toml")):
        if kind_of(other) != kind:
            out.append(Variant("foreign", source=other.name))
    return out


def try_variant(kind: str, base: Path, variant: Variant, tmp: Path) -> str:
    """Load ``variant`` of ``base`` with the loader of ``kind`` and assert the outcome; "refused" or "loaded"."""
    data = variant.apply(tomllib.loads(base.read_text()))
    text = dumps(data)
    assert tomllib.loads(text) == data or "nan" in text, f"the test's TOML writer: {text}"
    path = tmp / f"mutant-{base.stem}.toml"
    path.write_text(text)
    spec = KINDS[kind]
    try:
        obj = spec.load(path)
    except PokerbotError as exc:
        message = str(exc)
        assert isinstance(exc, _error(kind)), f"{variant}: {type(exc).__name__}, not a {_error(kind).__name__}: " \
                                              f"{message}"
        assert "\n" not in message, f"{variant}: more than one line: {message!r}"
        assert path.name in message or path.stem in message, f"{variant}: the error does not name the file: {message}"
        names = variant.names()
        if names and variant.what != "foreign":
            assert any(re.search(rf"(?<![A-Za-z0-9_]){re.escape(n)}(?![A-Za-z0-9_])", message, re.IGNORECASE)
                       for n in names), f"{variant}: the error names none of {names}: {message}"
        return "refused"
    assert variant.what not in ("unknown key", "unknown table", "foreign"), f"{variant} was accepted: {obj!r}"
    check_loaded(obj, f"{variant}: {kind}")
    if variant.what == "replace":
        key = variant.path
        while isinstance(key[-1], int) and len(key) > 1:  # an array item: the whole array
            key = key[:-1]
        given = data
        for p in key:
            given = given[p]
        loaded = spec.lookup(obj, key)
        if loaded is not NOTHING:
            assert same(loaded, given), f"{variant} was read as {loaded!r}"
    return "loaded"


# --- the tests -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_shipped_config_loads_and_holds_its_declared_types(kind: str) -> None:
    files = KINDS[kind].files()
    assert files, kind
    for path in files:
        check_loaded(KINDS[kind].load(path), path.name)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_toml_writer_round_trips_every_shipped_config(kind: str) -> None:
    for path in KINDS[kind].files():
        data = tomllib.loads(path.read_text())
        assert tomllib.loads(dumps(data)) == data, path.name


@st.composite
def variants(draw: st.DrawFn, kind: str) -> tuple[Path, Variant]:
    base = draw(st.sampled_from(KINDS[kind].files()))
    return base, draw(st.sampled_from(every_variant(tomllib.loads(base.read_text()), kind)))


@pytest.mark.parametrize("kind", sorted(KINDS))
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          phases=[Phase.explicit, Phase.generate], suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_hostile_config_is_refused_in_one_line_or_loaded_exactly(kind: str, data: st.DataObject,
                                                                   tmp_path: Path) -> None:
    base, variant = data.draw(variants(kind))
    try_variant(kind, base, variant, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_hostile_variant_of_every_shipped_config(kind: str, tmp_path: Path) -> None:
    failures = []
    for base in KINDS[kind].files():
        for variant in every_variant(tomllib.loads(base.read_text()), kind):
            try:
                try_variant(kind, base, variant, tmp_path)
            except AssertionError as exc:
                failures.append(f"{base.name}: {str(exc).splitlines()[0]}")
    assert not failures, f"{len(failures)} variants:\n" + "\n".join(failures[:40])


def test_the_oracle_catches_silent_coercions(tmp_path: Path) -> None:
    """Negative controls: a loader that coerces, or accepts an unknown key, fails :func:`try_variant`."""
    kind = Kind("sog-coercing", (), lambda p: _coercing_load(p), _lookup_sog)
    KINDS[kind.name] = kind
    try:
        base = CONFIGS / "sog-kuhn.toml"
        with pytest.raises(AssertionError, match="read as"):
            try_variant(kind.name, base, Variant("replace", ("sog", "seed"), 1.7), tmp_path)
        with pytest.raises(AssertionError, match="accepted"):
            try_variant(kind.name, base, Variant("unknown key", ("sog", "bogus_key"), 1), tmp_path)
    finally:
        del KINDS[kind.name]
    assert not same(True, "false") and not same(1, 1.7) and not same([1.0], ["1"]) and same(3, 3)


def _coercing_load(path: Path) -> Any:
    from realtime.sog.training import TrainConfig

    table = tomllib.loads(path.read_text())["sog"]
    fields = {f.name for f in dataclasses.fields(TrainConfig)}
    return TrainConfig(**{k: int(v) if k == "seed" else v for k, v in table.items() if k in fields})


# --- the commands ------------------------------------------------------------------------------------------

#: (command line before the config, shipped config, variant): each refused when the config is read.
COMMANDS = [
    (["train", "--no-progress"], "kuhn.toml", Variant("replace", ("mccfr", "iterations"), "10")),
    (["train", "--no-progress"], "leduc.toml", Variant("replace", ("mccfr", "shared_deal"), "false")),
    (["train", "--no-progress"], "kuhn.toml", Variant("unknown table", ("mccfr2",), {"iterations": 3})),
    (["train", "--no-progress"], "kuhn.toml", Variant("foreign", source="sog-kuhn.toml")),
    (["eval", "--no-progress"], "eval-leduc.toml", Variant("replace", ("hands",), 10.5)),
    (["eval", "--no-progress"], "eval-leduc.toml", Variant("replace", ("duplicate",), "false")),
    (["eval", "--no-progress"], "eval-leduc.toml", Variant("replace", ("lbr", 0, "hands"), BIG)),
    (["eval", "--no-progress"], "eval-leduc.toml", Variant("foreign", source="leduc.toml")),
    (["sog", "train", "--no-progress"], "sog-kuhn.toml", Variant("replace", ("sog", "lr"), math.inf)),
    (["sog", "train", "--no-progress"], "sog-kuhn.toml", Variant("replace", ("sog", "hidden"), [64])),
    (["sog", "train", "--no-progress"], "sog-kuhn.toml", Variant("replace", ("sog", "seed"), BIG)),
    (["sog", "train", "--no-progress"], "sog-kuhn.toml", Variant("foreign", source="leafnet-leduc.toml")),
    (["leafnet", "data", "--no-progress"], "leafnet-leduc.toml", Variant("replace", ("leafnet", "k"), 2.5)),
    (["leafnet", "data", "--no-progress"], "leafnet-leduc.toml", Variant("replace", ("leafnet",), 3)),
    (["leafnet", "train", "--no-progress"], "leafnet-leduc.toml", Variant("replace", ("train", "huber_delta"), -1.0)),
    (["leafnet", "train", "--no-progress"], "leafnet-leduc.toml", Variant("replace", ("features", "bins"), 0)),
    (["leaves", "build"], "leaves-leduc-nl-sg.toml", Variant("replace", ("leaves", "weaken"), "false")),
    (["leaves", "build"], "leaves-leduc-nl-sg.toml", Variant("replace", ("leaves", "fractions"), ["1"])),
    (["leaves", "build"], "leaves-leduc-nl-sg.toml", Variant("replace", ("leaves", "all_in"), "false")),
    (["leaves", "build"], "leaves-hunl-tiny.toml", Variant("replace", ("leaves",), "x")),
]


@pytest.mark.parametrize("argv, base, variant", COMMANDS, ids=[f"{' '.join(c[0][:2])}-{c[2]}" for c in COMMANDS])
def test_a_command_given_a_hostile_config_fails_in_one_line(argv: list[str], base: str, variant: Variant,
                                                           tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    from pokerbot.cli import main

    monkeypatch.setenv("POKERBOT_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    config = tmp_path / f"hostile-{Path(base).stem}.toml"
    config.write_text(dumps(variant.apply(tomllib.loads((CONFIGS / base).read_text()))))
    command = " ".join(a for a in argv[:2] if not a.startswith("-")).split()[0]
    assert main([*argv, str(config)]) == 1, variant
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"pokerbot {command}: error: "), err
    assert config.name in err[0] and "internal error" not in err[0], err[0]
    assert not (tmp_path / "home").exists() or not any((tmp_path / "home").rglob("*.npz")), "work was done"
