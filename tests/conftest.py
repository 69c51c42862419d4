"""Shared helpers for the engine tests: dealing and random legal play."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pokerbot.gamedef import GameDef
from pokerbot.state import CALL, FOLD, RAISE, ActionType, State, raise_to

DATA = Path(__file__).parent / "data"


def random_behavioral(tp: Any, seed: int) -> np.ndarray:
    """A random behavioural strategy over treeplex ``tp`` (Dirichlet(1) at every infoset), seeded."""
    rng = np.random.default_rng(seed)
    beh = np.ones(tp.num_seqs)
    for d in range(tp.num_infosets):
        f, n = int(tp.first_seq[d]), int(tp.num_actions[d])
        beh[f : f + n] = rng.dirichlet(np.ones(n))
    return beh


def deal(game: GameDef, rng: random.Random) -> tuple[list[list[int]], list[int]]:
    """Random hole cards for every player and a full board, from the game's ACPC deck."""
    cards = game.deck()
    rng.shuffle(cards)
    k = game.num_hole_cards
    holes = [cards[p * k : (p + 1) * k] for p in range(game.num_players)]
    start = game.num_players * k
    return holes, cards[start : start + game.total_board_cards]


def random_raise_size(lo: int, hi: int, rng: random.Random) -> int:
    """A raise-to total in [lo, hi], weighted towards the edges where the rules bite."""
    u = rng.random()
    if u < 0.25:
        return lo
    if u < 0.40:
        return hi
    if u < 0.55:
        return min(hi, lo + rng.randint(0, 3))
    if u < 0.65:
        return max(lo, hi - rng.randint(0, 3))
    return rng.randint(lo, hi)


def random_action(state: State, rng: random.Random, p_fold: float = 0.12, p_raise: float = 0.35):
    """A random legal action of the player to act."""
    kinds = state.legal_kinds()
    u = rng.random()
    if ActionType.FOLD in kinds and u < p_fold:
        return FOLD
    if ActionType.RAISE in kinds and u < p_fold + p_raise:
        if not state.game.nolimit:
            return RAISE
        lo, hi = state.raise_bounds()
        return raise_to(random_raise_size(lo, hi, rng))
    return CALL


@pytest.fixture
def rng() -> random.Random:
    return random.Random(12345)


@pytest.fixture(scope="session")
def tiny_card_abstraction():  # type: ignore[no-untyped-def]
    """The ``tiny`` HUNL card abstraction, built into ``$POKERBOT_HOME`` on first use (a couple of minutes, once)."""
    from abstraction.buckets import load_abstraction

    return load_abstraction("tiny", build_if_missing=True, progress=False)


@pytest.fixture(scope="session")
def hunl_tiny_home(tmp_path_factory, tiny_card_abstraction: object) -> Path:
    """A ``$POKERBOT_HOME`` with a short ``hunl-tiny`` blueprint and its ``hunl-tiny-bias`` set (seconds).

    The card abstraction is linked from the real home (built once by ``tiny_card_abstraction``); the
    blueprint is trained here, so the tests neither need ``pokerbot demo`` first nor touch the user's cache.
    """
    from blueprint.config import BlueprintConfig
    from blueprint.continuation import build_bias_set
    from blueprint.model import Blueprint
    from blueprint.trainer import Trainer
    from pokerbot.files import pokerbot_home

    home = tmp_path_factory.mktemp("pokerbot-home")
    (home / "abstraction").symlink_to((pokerbot_home() / "abstraction").resolve(), target_is_directory=True)
    directory = home / "blueprints" / "hunl-tiny"
    Trainer(BlueprintConfig(name="hunl-tiny", game="hunl", cards="tiny", actions="tiny", iterations=20_000,
                            dtype="float32", chunk=10_000), directory=directory).train(progress=False)
    bp = Blueprint.load(directory / "blueprint.npz")
    build_bias_set(home / "leaves" / "hunl-tiny-bias", "hunl-tiny-bias", bp.tree, bp.strategy, bp.tree.signature())
    return home


@pytest.fixture(scope="session")
def leduc_nl_tiny_blueprint(tmp_path_factory):
    """A 20,000-iteration MCCFR blueprint of no-limit Leduc with the ``tiny`` menu (pot, all-in), about 2 s."""
    from blueprint.config import BlueprintConfig
    from blueprint.trainer import Trainer

    d = tmp_path_factory.mktemp("bp-leduc-nl")
    t = Trainer(BlueprintConfig(name="leduc-nl-tiny", game="leduc-nl", iterations=20_000, actions="tiny", chunk=10_000),
                directory=d)
    t.train(progress=False)
    return t.blueprint()
