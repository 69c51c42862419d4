"""Blueprint training configurations (TOML files under ``configs/``).

A config names the game, the card and action abstractions, the MCCFR options
and how the run is driven::

    name = "leduc"
    [game]
    name = "leduc"
    [abstraction]
    cards = "lossless"        # or a preset of abstraction.buckets: "tiny", "default"
    actions = "legal"         # limit games; or "tiny", "default" (pokerbot.menus.PotFractionMenu), "pot_allin"
    [mccfr]
    iterations = 1_000_000
    seed = 0
    dtype = "float64"         # regrets and strategy sums
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
from pokerbot.files import read_toml_config


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
        "iterations": "iterations", "seed": "seed", "dtype": "dtype", "discount_every": "discount_every",
        "discount_until": "discount_until", "prune_after": "prune_after", "prune_threshold": "prune_threshold",
        "prune_probability": "prune_probability", "regret_floor": "regret_floor", "shared_deal": "shared_deal",
    },
    "run": {
        "chunk": "chunk", "checkpoint_every": "checkpoint_every", "eval_every": "eval_every",
        "workers": "workers", "ray_address": "ray_address", "sync_every": "sync_every",
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
    discount_every: int = 0
    discount_until: int = 0
    prune_after: int = -1
    prune_threshold: float = -3e8
    prune_probability: float = 0.95
    regret_floor: float = -math.inf
    shared_deal: bool = False
    chunk: int = 10_000
    checkpoint_every: int = 100_000
    eval_every: int = 0
    workers: int = 1
    ray_address: str = ""
    sync_every: int = 20_000
    source: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        kinds: dict[str, type | tuple[type, ...]] = {"int": int, "float": (int, float), "str": str, "bool": bool}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            kind = kinds[str(f.type)]
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                want = {"int": "a whole number", "float": "a number", "str": "a string", "bool": "true or false"}
                raise ConfigError(f"{self.source or 'config'}: {f.name} must be {want[str(f.type)]}, got {value!r}")
        if self.eval_every < 0 or self.discount_until < 0:
            raise ConfigError("eval_every and discount_until must be >= 0")
        if not 0 <= self.seed < 2**63:
            raise ConfigError(f"seed must be in 0..2**63-1, got {self.seed}")
        if math.isnan(self.prune_threshold) or math.isnan(self.regret_floor):
            raise ConfigError("prune_threshold and regret_floor must be numbers, not nan")
        if self.dtype not in ("float32", "float64"):
            raise ConfigError(f"dtype must be float32 or float64, got {self.dtype!r}")
        for name in ("iterations", "chunk", "checkpoint_every", "workers", "sync_every"):
            if int(getattr(self, name)) < (0 if name == "iterations" else 1):
                raise ConfigError(f"{name} must be positive, got {getattr(self, name)!r}")
        if not 0.0 <= self.prune_probability <= 1.0:
            raise ConfigError(f"prune_probability must be in [0, 1], got {self.prune_probability}")
        if self.discount_every < 0:
            raise ConfigError("discount_every must be >= 0")

    def identity(self) -> dict[str, Any]:
        """The fields a checkpoint must agree on (see :data:`IDENTITY_FIELDS`)."""
        out = {k: getattr(self, k) for k in IDENTITY_FIELDS}
        out["regret_floor"] = repr(float(out["regret_floor"]))
        out["prune_threshold"] = repr(float(out["prune_threshold"]))
        return out

    def params(self) -> list[float]:
        return [
            float(self.discount_every), float(self.discount_until), float(self.prune_after),
            float(self.prune_threshold), float(self.prune_probability), float(self.regret_floor),
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
