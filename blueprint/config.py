"""Blueprint training configurations (TOML files under ``configs/``).

A config names the game, the card and action abstractions, the MCCFR options
and how the run is driven::

    name = "leduc"
    [game]
    name = "leduc"
    [abstraction]
    cards = "lossless"        # or a preset of abstraction.buckets: "tiny", "default", "large"
    actions = "legal"         # limit games; or "tiny", "default", "large" (pokerbot.menus.PotFractionMenu), "pot_allin"
    [mccfr]
    iterations = 1_000_000
    seed = 0
    dtype = "float64"         # regrets and strategy sums: float64, float32 or compact (int32 / 16-bit)
    regret_scale = 1.0        # compact only: regrets are stored in units of 1/regret_scale chips
    discount_every = 0        # Pluribus linear discounting (0 = off)
    discount_until = 0
    prune_after = -1          # negative-regret pruning (-1 = off)
    prune_threshold = -3e8
    prune_probability = 0.95
    regret_floor = -inf
    shared_deal = false       # true: both traversals of an iteration share one deal (faster in HUNL)
    [run]
    chunk = 10_000            # iterations per kernel call
    checkpoint_every = 100_000
    snapshot_every = 0        # keep the blueprint at every multiple of this (snapshots/; 0 = never)
    eval_every = 0            # exploitability on the progress bar (small games)
    workers = 1               # ray workers (1 = in-process)
    ray_address = ""          # "" = local ray; "auto" or host:port for a cluster
    sync_every = 20_000       # iterations per worker between merges

>>> cfg = BlueprintConfig(name="k", game="kuhn", iterations=10)
>>> cfg.identity()["game"]
'kuhn'
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pokerbot.errors import PokerbotError
from pokerbot.files import is_plain_name, read_toml_config


class ConfigError(PokerbotError, ValueError):
    """A malformed blueprint configuration."""


#: Fields that change what a run computes: a checkpoint refuses a config that differs in any.
IDENTITY_FIELDS = (
    "game", "cards", "actions", "seed", "dtype", "discount_every", "discount_until", "prune_after",
    "prune_threshold", "prune_probability", "regret_floor", "shared_deal", "workers", "sync_every",
)

_SECTIONS = {
    "game": {"name": "game"},
    "abstraction": {"cards": "cards", "actions": "actions"},
    "mccfr": {
        "iterations": "iterations", "seed": "seed", "dtype": "dtype", "regret_scale": "regret_scale",
        "discount_every": "discount_every",
        "discount_until": "discount_until", "prune_after": "prune_after", "prune_threshold": "prune_threshold",
        "prune_probability": "prune_probability", "regret_floor": "regret_floor", "shared_deal": "shared_deal",
    },
    "run": {
        "chunk": "chunk", "checkpoint_every": "checkpoint_every", "snapshot_every": "snapshot_every",
        "eval_every": "eval_every",
        "workers": "workers", "ray_address": "ray_address", "sync_every": "sync_every",
    },
}

#: What each key means, by table ("" = the top level), for the configuration reference (docs/config-reference.md,
#: made by :mod:`evaluation.configref`): ``"meaning"`` or ``(meaning, allowed values or range[, type, default])``.
KEY_DOCS: dict[str, dict[str, str | tuple[str, ...]]] = {
    "": {
        "name": ("the run's name: its directory under $POKERBOT_HOME/blueprints/ and the name agents use "
                 "(`blueprint?path=NAME`)", "", "", "the file's name"),
    },
    "game": {
        "name": ("the game: a shipped name or the path of an ACPC .game file",
                 "kuhn, leduc, leduc-nl, hunl, hulhe, nlfh, nlfh-small, or a .game path"),
    },
    "abstraction": {
        "cards": ("card abstraction: every hand its own bucket (small games) or a bucket-table preset of "
                  "`pokerbot abstraction build` (hold'em)", "lossless, tiny, default, large"),
        "actions": ("action abstraction: every legal action (limit games) or a bet menu (no-limit): tiny = "
                    "pot-size raises and all-in, default = more sizes, large = the sizes people play (2/2.5/3 bb "
                    "opens, 3-bets, 4-bets; 0.33-2 pot bets), pot_allin = one pot raise per street (two preflop) and "
                    "all-in", "legal, tiny, default, large, pot_allin"),
    },
    "mccfr": {
        "iterations": ("MCCFR iterations in all (one traversal per player each), counting those of a resumed "
                       "run", ">= 0"),
        "seed": ("seed of the deals and sampling: a run is reproducible for a seed", "0 .. 2**63-1"),
        "dtype": ("storage of the regrets and strategy sums: float64; float32 (half the memory: HUNL); compact "
                  "(int32 regrets, 16-bit strategy sums with a power-of-two scale per information set: 6 bytes "
                  "an infoset action)", "float32, float64, compact"),
        "regret_scale": ("with dtype = compact: regrets are whole numbers of 1/regret_scale chips (1 suits "
                         "HUNL's chip scale; small games want about 1000)", "> 0"),
        "discount_every": ("linear discounting (Pluribus): every this many iterations, multiply regrets and "
                           "strategy sums by k/(k+1); 0: off", ">= 0"),
        "discount_until": ("no discounting after this iteration", ">= 0"),
        "prune_after": "negative-regret pruning (Pluribus) from this iteration on; -1: never",
        "prune_threshold": ("with pruning, skip the traverser's actions whose regret is below this (far below "
                            "the sampling noise of cumulative regrets, about sqrt(T) x payoff)"),
        "prune_probability": ("share of traversals that prune once pruning is on", "0 .. 1"),
        "regret_floor": "regrets never fall below this (Pluribus: -310M); -inf: no floor",
        "shared_deal": ("both traversals of an iteration share one deal (each stays unbiased; about +45% "
                        "iterations/s in HUNL)"),
    },
    "run": {
        "chunk": ("iterations per kernel call (how often the progress bar and stop signals are looked at)",
                  ">= 1"),
        "checkpoint_every": ("iterations between checkpoints (a stopped run resumes from the last)", ">= 1"),
        "snapshot_every": ("keep the blueprint as snapshots/blueprint-<iteration>.npz at every checkpoint that "
                           "is a multiple of this, for training curves; 0: never", ">= 0"),
        "eval_every": ("iterations between exact exploitability figures on the progress bar (small games "
                       "with a lossless abstraction); 0: never", ">= 0"),
        "workers": ("ray workers; 1 trains in this process", ">= 1"),
        "ray_address": "ray cluster to join: \"\" starts a local ray, \"auto\" or host:port joins a cluster",
        "sync_every": ("with workers > 1: iterations each worker runs between merges of the regrets and "
                       "strategy sums", ">= 1"),
    },
}


@dataclass
class BlueprintConfig:
    """Everything that defines a blueprint run (see the module docstring for the TOML layout)."""

    name: str
    game: str
    iterations: int
    cards: str = "lossless"
    actions: str = "legal"
    seed: int = 0
    dtype: str = "float64"
    regret_scale: float = 1.0
    discount_every: int = 0
    discount_until: int = 0
    prune_after: int = -1
    prune_threshold: float = -3e8
    prune_probability: float = 0.95
    regret_floor: float = -math.inf
    shared_deal: bool = False
    chunk: int = 10_000
    checkpoint_every: int = 100_000
    snapshot_every: int = 0
    eval_every: int = 0
    workers: int = 1
    ray_address: str = ""
    sync_every: int = 20_000
    source: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        where = self.source or "config"

        def refuse(message: str) -> None:
            raise ConfigError(f"{where}: {message}")

        kinds: dict[str, type | tuple[type, ...]] = {"int": int, "float": (int, float), "str": str, "bool": bool}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            kind = kinds[str(f.type)]
            if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
                want = {"int": "a whole number", "float": "a number", "str": "a string", "bool": "true or false"}
                refuse(f"{f.name} must be {want[str(f.type)]}, got {value!r}")
        if self.snapshot_every < 0:
            refuse(f"snapshot_every must be >= 0, got {self.snapshot_every}")
        if self.eval_every < 0:
            refuse(f"eval_every must be >= 0, got {self.eval_every}")
        if self.discount_until < 0:
            refuse(f"discount_until must be >= 0, got {self.discount_until}")
        if not 0 <= self.seed < 2**63:
            refuse(f"seed must be in 0..2**63-1, got {self.seed}")
        for name in ("prune_threshold", "regret_floor"):
            if math.isnan(getattr(self, name)):
                refuse(f"{name} must be a number, not nan")
        if not is_plain_name(self.name):
            refuse(f"name {self.name!r} must be a plain name (no '/', not '.' or '..'): it names the run's directory "
                   "under $POKERBOT_HOME/blueprints")
        for name in ("game", "cards", "actions"):
            if not getattr(self, name):
                refuse(f"{name} must not be empty")
        if self.dtype not in ("float32", "float64", "compact"):
            refuse(f"dtype must be float32, float64 or compact, got {self.dtype!r}")
        if not (math.isfinite(self.regret_scale) and self.regret_scale > 0):
            refuse(f"regret_scale must be a positive number, got {self.regret_scale!r}")
        for name in ("iterations", "chunk", "checkpoint_every", "workers", "sync_every"):
            if int(getattr(self, name)) < (0 if name == "iterations" else 1):
                refuse(f"{name} must be positive, got {getattr(self, name)!r}")
        if not 0.0 <= self.prune_probability <= 1.0:
            refuse(f"prune_probability must be in [0, 1], got {self.prune_probability}")
        if self.discount_every < 0:
            refuse(f"discount_every must be >= 0, got {self.discount_every}")

    def identity(self) -> dict[str, Any]:
        """The fields a checkpoint must agree on (see :data:`IDENTITY_FIELDS`)."""
        out = {k: getattr(self, k) for k in IDENTITY_FIELDS}
        if self.dtype == "compact":  # only compact runs name it, so float runs keep their identity
            out["regret_scale"] = repr(float(self.regret_scale))
        out["regret_floor"] = repr(float(out["regret_floor"]))
        out["prune_threshold"] = repr(float(out["prune_threshold"]))
        return out

    def params(self) -> list[float]:
        return [
            float(self.discount_every), float(self.discount_until), float(self.prune_after),
            float(self.prune_threshold), float(self.prune_probability), float(self.regret_floor),
            float(self.regret_scale),
        ]

    def replace(self, **changes: Any) -> BlueprintConfig:
        return dataclasses.replace(self, **changes)


def load_config(path: str | Path) -> BlueprintConfig:
    """Read a TOML config; a bare name ("leduc", "hunl-tiny") means ``configs/<name>.toml`` of this repo."""
    p, data = read_toml_config(path, ConfigError)
    return config_from_dict(data, source=str(p))


def config_from_dict(data: dict[str, Any], source: str = "") -> BlueprintConfig:
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        if key == "name":
            if not isinstance(value, str):
                raise ConfigError(f"{source or 'config'}: name must be a string, got {value!r}")
            kwargs["name"] = value
            continue
        if key not in _SECTIONS or not isinstance(value, dict):
            raise ConfigError(f"{source or 'config'}: unknown key or section {key!r}")
        for k, v in value.items():
            if k not in _SECTIONS[key]:
                raise ConfigError(f"{source or 'config'}: unknown key {k!r} in [{key}]")
            kwargs[_SECTIONS[key][k]] = v
    for required in ("game", "iterations"):
        if required not in kwargs:
            raise ConfigError(f"{source or 'config'}: missing {required!r}")
    kwargs.setdefault("name", Path(source).stem if source else str(kwargs["game"]))
    try:
        return BlueprintConfig(source=source, **kwargs)
    except TypeError as exc:
        raise ConfigError(f"{source or 'config'}: {exc}") from None
