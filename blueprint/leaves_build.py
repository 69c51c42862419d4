"""What ``pokerbot leaves build CONFIG`` does: the ``[leaves]`` table of a ``configs/leaves-*.toml``
(:class:`LeavesConfig`) and the build it describes (:func:`build_leaves`).

The config is checked as a whole when it is read, before any work (a bad one raises
:class:`~pokerbot.errors.PokerbotError` naming the file); the build loads or solves the
blueprint and writes the continuation set(s) of :mod:`blueprint.continuation`, reporting
its progress through a callback, so the caller chooses how to show it.

Two methods (``method``):

* ``bias`` (default): K copies of a trained blueprint (``blueprint = NAME`` or a ``.npz``
  path) -- the blueprint, then fold-, call- and raise-biased ones (``factor``). Keys:
  :data:`BIAS_KEYS`.
* ``self-generative``: on a small game (``game``), each chooser's set grown from
  {blueprint} by exact best responses. The blueprint is the ``.npy`` strategy array named
  by ``blueprint``, one saved by an earlier (stopped) build, or DCFR on the whole game
  (``blueprint_iterations``). Keys: :data:`GENERATIVE_KEYS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from blueprint.continuation import (
    ContinuationError,
    ContinuationSet,
    build_bias_set,
    build_generated_set,
    check_count,
    check_small_game,
    leaves_dir,
)
from pokerbot.errors import PokerbotError
from pokerbot.menus import MenuError, PotFractionMenu

#: The ``[leaves]`` keys of each method.
BIAS_KEYS = frozenset({"name", "blueprint", "method", "k", "factor"})
GENERATIVE_KEYS = frozenset({"name", "method", "game", "menu", "fractions", "max_raises", "all_in", "k", "chooser",
                             "iterations", "blueprint", "blueprint_iterations", "weaken"})
#: What each ``[leaves]`` key means, for the configuration reference (docs/config-reference.md, made by
#: :mod:`evaluation.configref`): ``(meaning, allowed values or range, type, default)`` (no dataclass field holds
#: these keys as written, so each entry gives its type and default).
KEY_DOCS: dict[str, dict[str, str | tuple[str, ...]]] = {
    "leaves": {
        "name": ("the set's name: its directory under $POKERBOT_HOME/leaves/ (what a real-time config's "
                 "`continuations` names)", "", "string", "required"),
        "method": ("K biased copies of a trained blueprint, or a set grown by exact best responses on a small game",
                   "bias, self-generative", "string", "`\"bias\"`"),
        "blueprint": ("bias: a blueprint run name under $POKERBOT_HOME/blueprints/ or a blueprint.npz path "
                      "(required); self-generative: a .npy strategy array of the game's tree (else DCFR solves "
                      "one)", "", "string", "bias: required; self-generative: solved"),
        "k": ("strategies in the set (per chooser), the blueprint included", ">= 1 (bias: <= 4)", "integer", "`4`"),
        "factor": ("bias factor: a biased copy multiplies the probabilities of its kind of action (fold, call, "
                   "raise) by this and renormalises", "> 0", "float", "`10.0`"),
        "game": ("the small game (a shipped name or .game path) whose whole tree is solved", "", "string",
                 "required"),
        "menu": ("the bet menu as a spec line, e.g. \"pot 0.5,1 all_in=1 max_raises=2\" (instead of fractions, "
                 "max_raises, all_in)", "a pot-fraction menu", "string", "from fractions"),
        "fractions": ("the bet menu's raises as pot fractions (with max_raises, all_in; or give menu)", "each > 0",
                      "array of floats", "required unless menu"),
        "max_raises": ("raises per round of the bet menu", ">= 0", "integer", "`3`"),
        "all_in": ("the bet menu has an all-in too", "", "boolean", "`true`"),
        "chooser": ("the seat that chooses among the set at a leaf; \"both\" builds one set per seat",
                    "0, 1, \"both\"", "integer or string", "`\"both\"`"),
        "iterations": ("DCFR iterations of each depth-limited solve", ">= 1", "integer", "`300`"),
        "blueprint_iterations": ("DCFR iterations of the whole-game blueprint when none is given", ">= 1",
                                 "integer", "`1000`"),
        "weaken": ("penalise a generated strategy that beats the blueprint's value", "", "boolean", "`true`"),
    },
}

#: The seats each ``chooser`` value builds a set for.
CHOOSER_SEATS: dict[int | str, tuple[int, ...]] = {0: (0,), 1: (1,), "both": (0, 1)}

#: ``progress(done, total)``: strategies built so far of all the build makes.
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class LeavesConfig:
    """A checked ``[leaves]`` table. ``source`` is the file it was read from (in messages and manifests)."""

    name: str
    method: str
    source: str
    k: int
    #: bias: a blueprint name or ``.npz`` path; self-generative: a ``.npy`` strategy array, or None (solve one).
    blueprint: str | None = None
    factor: float = 10.0
    game: str = ""
    menu: PotFractionMenu | None = None
    seats: tuple[int, ...] = (0, 1)
    iterations: int = 300
    weaken: bool = True
    #: As given: checked only when the blueprint is solved (a config naming a strategy array needs none).
    blueprint_iterations: object = 1000

    @property
    def total(self) -> int:
        """How many strategies the build makes in all (K per chooser)."""
        return self.k if self.method == "bias" else self.k * len(self.seats)

    @classmethod
    def load(cls, spec: str) -> LeavesConfig:
        """The config ``spec`` (a TOML file, or a name in configs/), checked; :class:`PokerbotError` if it is bad."""
        from pokerbot.files import read_toml_config

        path, data = read_toml_config(spec)
        return cls.from_toml(data, str(path))

    @classmethod
    def from_toml(cls, data: dict[str, Any], source: str) -> LeavesConfig:
        """The config of the parsed TOML ``data`` (read from ``source``), checked."""
        from pokerbot.schema import take

        unknown_tables = set(data) - {"leaves"}
        if unknown_tables:
            raise PokerbotError(f"{source}: unknown tables {sorted(unknown_tables)} (only [leaves])")
        section = take(data, "leaves", dict, {}, source)
        method = take(section, "method", str, "bias", source)
        if method not in ("bias", "self-generative"):
            raise PokerbotError(f"{source}: method {method!r}: use 'bias' or 'self-generative'")
        allowed = BIAS_KEYS if method == "bias" else GENERATIVE_KEYS
        unknown = set(section) - allowed
        if unknown:
            raise PokerbotError(f"{source}: unknown [leaves] keys {sorted(unknown)} for method {method!r} "
                                f"(known: {sorted(allowed)})")
        if not take(section, "name", str, "", source):
            raise PokerbotError(f"{source}: [leaves] needs 'name'")
        try:
            return _bias(section, source) if method == "bias" else _generative(section, source)
        except (ContinuationError, MenuError) as exc:  # a count or menu the builders refuse: say which file
            raise PokerbotError(f"{source}: {exc}") from None


def _bias(section: dict[str, Any], source: str) -> LeavesConfig:
    from pokerbot.schema import take

    bp_name = take(section, "blueprint", str, "", source)
    if not bp_name:
        raise PokerbotError(f"{source}: [leaves] needs 'blueprint' for method 'bias'")
    k = take(section, "k", int, 4, source)
    factor = take(section, "factor", float, 10.0, source)
    check_count(k, 4)
    if not factor > 0:
        raise PokerbotError(f"{source}: factor must be positive, got {factor}")
    return LeavesConfig(section["name"], "bias", source, k, bp_name, factor)


def _generative(section: dict[str, Any], source: str) -> LeavesConfig:
    from pokerbot.schema import take

    game = take(section, "game", str, "", source)
    if not game:
        raise PokerbotError(f"{source}: [leaves] needs 'game' for method 'self-generative'")
    k = section.get("k", 4)
    if isinstance(k, bool) or not isinstance(k, int):
        raise PokerbotError(f"{source}: k must be an integer, got {k!r}")
    iterations = _positive_int(section.get("iterations", 300), "iterations", source)
    weaken = section.get("weaken", True)
    if not isinstance(weaken, bool):
        raise PokerbotError(f"{source}: weaken must be true or false, got {weaken!r}")
    chooser = section.get("chooser", "both")
    valid = isinstance(chooser, (int, str)) and not isinstance(chooser, bool)
    seats = CHOOSER_SEATS.get(chooser) if valid else None
    if seats is None:
        raise PokerbotError(f"{source}: chooser must be 0, 1 or \"both\", got {chooser!r}")
    check_count(k)
    named = take(section, "blueprint", str, "", source)
    return LeavesConfig(section["name"], "self-generative", source, k, named or None,
                        game=game, menu=_menu(section, source), seats=seats, iterations=iterations,
                        weaken=weaken, blueprint_iterations=section.get("blueprint_iterations", 1000))


def _positive_int(value: object, key: str, source: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise PokerbotError(f"{source}: {key} must be a positive integer, got {value!r}")
    return value


def _menu(section: dict[str, Any], source: str) -> PotFractionMenu:
    """The bet menu of a self-generative config: ``menu`` (a spec line) or ``fractions`` (+ ``max_raises``, ``all_in``)."""
    from pokerbot.menus import menu_from_spec
    from pokerbot.schema import take

    if "menu" in section:
        if {"fractions", "max_raises", "all_in"} & set(section):
            raise PokerbotError(f"{source}: give 'menu' or 'fractions'/'max_raises'/'all_in', not both")
        menu = menu_from_spec(take(section, "menu", str, where=source))
        if not isinstance(menu, PotFractionMenu):
            raise PokerbotError(f"{source}: menu {section['menu']!r} is not a pot-fraction menu (no-limit games)")
        return menu
    if "fractions" not in section:
        raise PokerbotError(f"{source}: [leaves] needs 'menu' (a spec line) or 'fractions' for method 'self-generative'")
    fractions = take(section, "fractions", list[float], where=source)
    if not fractions or not all(f > 0 for f in fractions):
        raise PokerbotError(f"{source}: fractions must be a list of positive pot fractions, got {fractions}")
    return PotFractionMenu(tuple(float(f) for f in fractions), take(section, "all_in", bool, True, source),
                           take(section, "max_raises", int, 3, source, low=0))


def build_leaves(config: LeavesConfig, directory: str | Path | None = None,
                 progress: Progress | None = None) -> list[str]:
    """Build (or finish: a stopped build resumes) the set(s) of ``config`` in ``directory``
    (default ``$POKERBOT_HOME/leaves/<name>``); returns the lines that sum up what was built.

    ``progress(done, total)`` is called with ``done = 0`` when the strategies start being built and after
    each one; with it, a DCFR solve of the blueprint also shows its own progress bar.
    """
    from pokerbot.files import exclusive

    out = Path(directory) if directory is not None else leaves_dir(config.name)
    out.parent.mkdir(parents=True, exist_ok=True)
    with exclusive(out, "the leaves directory"):  # a second build into it stops at once (LockedError)
        if config.method == "bias":
            return [_build_bias(config, out, progress)]
        return _build_generative(config, out, progress)


def _build_bias(config: LeavesConfig, directory: Path, progress: Progress | None) -> str:
    from blueprint.model import Blueprint
    from blueprint.storage import blueprint_dir
    from pokerbot.files import is_plain_name

    assert config.blueprint is not None
    bp_path = Path(config.blueprint)
    if not bp_path.is_file() and is_plain_name(config.blueprint):
        bp_path = blueprint_dir(config.blueprint) / "blueprint.npz"
    bp = Blueprint.load(bp_path)
    if progress is not None:
        progress(0, config.total)
    cs = build_bias_set(directory, config.name, bp.tree, bp.strategy, bp.tree.signature(), config.k, config.factor,
                        None if progress is None else lambda done: progress(done, config.total),
                        {"config": config.source, "blueprint": str(bp_path)})
    size = sum((directory / f"strategy_{i}.npy").stat().st_size for i in range(cs.k))
    return (f"{config.name}: {cs.k} continuation strategies ({cs.method}, factor {cs.factor:g}) of {bp_path} "
            f"in {directory} ({size / 1e6:.2f} MB, one byte per infoset action)")


def _build_generative(config: LeavesConfig, directory: Path, progress: Progress | None) -> list[str]:
    from pokerbot.gamedef import load_game
    from pokerbot.solver import build_tree

    game = load_game(config.game)
    check_small_game(game)
    full = build_tree(game, config.menu)
    dl = build_tree(game, config.menu, depth_limit=0)
    bp, bp_source = _generative_blueprint(config, directory, full, progress is not None)
    if progress is not None:
        progress(0, config.total)
    sets: list[ContinuationSet] = []
    for n, seat in enumerate(config.seats):
        def seat_progress(done: int, offset: int = n * config.k) -> None:
            if progress is not None:
                progress(offset + done, config.total)

        sets.append(build_generated_set(directory / f"chooser{seat}", config.name, game, config.menu, bp, config.k,
                                        seat, iterations=config.iterations, weaken=config.weaken, full_tree=full,
                                        dl_tree=dl, progress=seat_progress,
                                        source={"config": config.source, "blueprint": bp_source}))
    lines = []
    for seat, cs in zip(config.seats, sets):
        pens = ", ".join(f"{p:.4g}" for p in cs.penalties)
        lines.append(f"{config.name}: chooser {seat}: {cs.k} self-generated continuation strategies of {config.game} "
                     f"(blueprint: {bp_source}) in {directory / f'chooser{seat}'}; penalties (chips) [{pens}]")
    return lines


def _generative_blueprint(config: LeavesConfig, directory: Path, full: Any, show: bool) -> tuple[np.ndarray, str]:
    """The blueprint strategy array and where it came from: the config's ``.npy``, the one
    saved by an earlier (stopped) build, or DCFR on the whole game (saved for a resume;
    its progress bar shown if ``show``)."""
    from pokerbot.npz import read_npy, write_npy
    from pokerbot.solver import Solver

    path = Path(config.blueprint) if config.blueprint else directory / "blueprint.npy"
    if config.blueprint or path.is_file():
        try:
            bp = read_npy(path)
        except (OSError, ValueError) as exc:
            raise PokerbotError(f"{path}: not a readable blueprint strategy array ({exc})") from None
        if bp.dtype != np.float64 or bp.shape != (full.num_slots,):
            raise PokerbotError(f"{path}: a {bp.dtype} array of shape {bp.shape}, the game's tree needs float64 "
                                f"({full.num_slots},)")
        return bp, str(path)
    iterations = _positive_int(config.blueprint_iterations, "blueprint_iterations", config.source)
    solver = Solver(full, "dcfr")
    solver.run(iterations, progress=show)
    bp = solver.average_strategy()
    directory.mkdir(parents=True, exist_ok=True)
    write_npy(path, bp)
    return bp, f"DCFR, {iterations} iterations ({path})"
