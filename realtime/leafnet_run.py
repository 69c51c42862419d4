"""What ``pokerbot leafnet data|train CONFIG`` does: a whole ``configs/leafnet-*.toml``
(:class:`LeafnetConfig`) and its two steps, the training data (:func:`make_data`) and the
network trained on it (:func:`train_net`).

The config ties the data (``[leafnet]`` + ``[data]``: :class:`~realtime.leafnet_data.DataConfig`),
the features (``[features]``: :class:`~blueprint.leafnet.FeatureSpec`) and the training
(``[train]``: :class:`~blueprint.leafnet.TrainConfig`) together; it lives here because the
data generation is the real-time package's. A run directory holds ``data/`` (shards +
manifest) and ``model/`` (``model.pt``, ``model.json``, ``checkpoint.pt``, ``loss.png``);
both steps resume. Progress is reported through callbacks, so the caller chooses how to show it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from blueprint.leafnet import FeatureSpec, TrainConfig, plot_losses, train
from pokerbot.errors import PokerbotError
from realtime.leafnet_data import DataConfig, generate, load_data
from realtime.network_leaves import leafnet_dir

#: The keys of each table of a leafnet config.
SECTION_KEYS: dict[str, frozenset[str]] = {
    "leafnet": frozenset({"name", "source", "game", "fractions", "max_raises", "k", "iterations", "blueprint",
                          "leaves", "menus", "rollouts", "explore"}),
    "data": frozenset({"subgames", "shards", "workers", "address", "seed"}),
    "features": frozenset({"bins", "runouts", "exact_runouts", "seed"}),
    "train": frozenset({"hidden", "lr", "batch", "epochs", "patience", "val_fraction", "huber_delta", "seed",
                        "threads"}),
}
#: The manifest entries a trained model records (what its data was built for).
_MODEL_META = ("spec", "choices", "classes", "blueprint", "continuations", "game", "leaf_round")


def load_config(spec: str) -> tuple[dict[str, Any], str]:
    """The TOML config ``spec`` (a path or a name in configs/), checked for unknown keys, and its path."""
    from pokerbot.files import read_toml_config
    from pokerbot.schema import take

    path, data = read_toml_config(spec)
    for section, keys in SECTION_KEYS.items():
        unknown = set(take(data, section, dict, {}, str(path))) - keys
        if unknown:
            raise PokerbotError(f"{path}: unknown [{section}] keys {sorted(unknown)}")
    unknown_sections = set(data) - set(SECTION_KEYS)
    if unknown_sections:
        raise PokerbotError(f"{path}: unknown sections {sorted(unknown_sections)}")
    if not data.get("leafnet", {}).get("name") or not data.get("leafnet", {}).get("source"):
        raise PokerbotError(f"{path}: [leafnet] needs 'name' and 'source'")
    return data, str(path)


@dataclass
class LeafnetConfig:
    """A checked leafnet config: the data, feature and training options, and the file they came from."""

    data: DataConfig
    spec: FeatureSpec
    train: TrainConfig
    source: str

    @property
    def name(self) -> str:
        return self.data.name

    @classmethod
    def load(cls, spec: str) -> LeafnetConfig:
        """The config ``spec`` (:func:`load_config`) with its options built and checked
        (:class:`PokerbotError` naming the file for an option of the wrong kind)."""
        from pokerbot.schema import build, take

        data, source = load_config(spec)
        sections = {key: take(data, key, dict, {}, source) for key in ("leafnet", "data", "features", "train")}
        where = "[leafnet]/[data]"
        try:  # each part's ranges checked: an error names the file and the table
            cfg = build(DataConfig, {**sections["leafnet"], **sections["data"]}, f"{source} {where}").check()
            where = "[features]"
            features = build(FeatureSpec, sections["features"], f"{source} {where}").check()
            where = "[train]"
            tcfg = build(TrainConfig, sections["train"], f"{source} {where}").check()
        except PokerbotError as exc:
            message = str(exc)
            raise PokerbotError(message if message.startswith(source) else f"{source} {where}: {message}") from None
        return cls(cfg, features, tcfg, source)

    def run_dir(self, directory: str | os.PathLike[str] | None = None) -> Path:
        """The run directory: ``directory`` if given, else ``$POKERBOT_HOME/leafnet/<name>``."""
        return Path(directory) if directory is not None else leafnet_dir(self.name)


@dataclass(frozen=True)
class LeafData:
    """A complete training data set: where it is and its manifest (as :func:`~realtime.leafnet_data.generate`
    returns it)."""

    directory: Path
    manifest: dict[str, Any]

    @property
    def rows(self) -> int:
        return sum(s["rows"] for s in self.manifest["shards"].values())

    @property
    def summary(self) -> str:
        """One line: its name, rows, shards, directory, classes and K0 x K1."""
        m = self.manifest
        return (f"{m['config']['name']}: {self.rows} rows in {len(m['shards'])} shards in {self.directory} "
                f"({m['classes']} classes, K0 x K1 = {m['choices'][0]} x {m['choices'][1]})")


def make_data(config: LeafnetConfig, directory: str | os.PathLike[str] | None = None,
              progress: Callable[[int, int], None] | None = None) -> LeafData:
    """Generate (or complete) the data of ``config`` in ``<run directory>/data``
    (:meth:`LeafnetConfig.run_dir`); ``progress(done, total)`` is called as shards finish."""
    out = config.run_dir(directory) / "data"
    return LeafData(out, generate(config.data, config.spec, out, progress))


def train_net(config: LeafnetConfig, data: LeafData, directory: str | os.PathLike[str] | None = None, *,
              fresh: bool = False, progress: Callable[[int, float, float], None] | None = None) -> str:
    """Train the network of ``config`` on ``data`` into ``<run directory>/model`` (resuming from its checkpoint
    unless ``fresh``), plot its losses there; returns the line that sums it up.
    ``progress(epoch, train_loss, val_loss)`` is called after each epoch."""
    _, arrays = load_data(data.directory)
    model_dir = config.run_dir(directory) / "model"
    if fresh and (model_dir / "checkpoint.pt").is_file():
        (model_dir / "checkpoint.pt").unlink()
    meta = {k: data.manifest[k] for k in _MODEL_META}
    meta["data"] = {"dir": str(data.directory), "rows": data.rows, "shards": data.manifest["shards"]}
    result = train(arrays["x"], arrays["y"], arrays["group"], model_dir, config.train, meta, progress)
    plot_losses(result.history, model_dir / "loss.png", f"{config.name}: hidden {config.train.hidden}")
    curve = f"loss curve {model_dir / 'loss.png'}"
    tl, vl = result.history[result.best_epoch]
    return (f"{config.name}: best validation Huber loss {vl:.4f} (train {tl:.4f}) at epoch {result.best_epoch + 1} of "
            f"{len(result.history)}{' (stopped early)' if result.stopped_early else ''}; model in {model_dir}, {curve}")
