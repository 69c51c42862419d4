"""Baseline bots, and :func:`make_agent` to build any agent from a short spec.

The baselines every evaluation runs against, each playing every shipped game:

- ``random``: uniform over the legal action kinds; a no-limit raise size is
  uniform over the legal raise-to totals;
- ``call``: always checks or calls;
- ``raise``: always raises pot-size (call, then raise the pot), else calls;
- ``equity``: Monte Carlo equity of its hand against one uniformly random
  opponent hand; folds when the equity is below the pot odds, raises pot-size
  when it is at least ``raise`` (0.65), otherwise checks or calls.

A spec is an agent's name, optionally followed by ``?key=value&key2=value2``; a
factory is called as ``factory(game=game, seed=seed, **options)`` with the option
values as strings. The names are those of :func:`registered_agents`: the
baselines above, the project's agents (``blueprint``, ``realtime``, ``sog``, also
spelt as their ``package.module:factory``), and any a package registers under the
``pokerbot.agents`` entry-point group. A spec never imports other code:
``package.module:factory`` naming an unregistered callable is refused unless the
user opts in (``pokerbot --allow-any-agent``, or ``POKERBOT_ALLOW_ANY_AGENT=1``),
since a shared evaluation file could otherwise call anything importable
(``logging:basicConfig?filename=...`` truncates a file).

>>> from pokerbot.gamedef import load_game
>>> from pokerbot.matchstate import parse_matchstate
>>> game = load_game("hunl")
>>> view = parse_matchstate(game, "MATCHSTATE:1:0::|AsAh")
>>> str(make_agent("raise", game).act(view)), str(make_agent("call", game).act(view))
('r300', 'c')
>>> str(make_agent("equity?samples=400", game, seed=1).act(view))
'r300'
"""

from __future__ import annotations

import importlib
import os
import random
from collections import OrderedDict
from collections.abc import Callable
from urllib.parse import parse_qsl

import numpy as np
from numba import njit

from pokerbot.agent import Agent, Holes
from pokerbot.errors import PokerbotError
from pokerbot.evaluator import eval_cards
from pokerbot.gamedef import GameDef
from pokerbot.matchstate import MatchState
from pokerbot.menus import raise_size_for_fraction
from pokerbot.state import CALL, FOLD, RAISE, Action, ActionType, State, raise_to


class AgentSpecError(PokerbotError, ValueError):
    """An agent spec that names no agent, or options the agent does not take."""


def pot_raise(state: State) -> Action | None:
    """A pot-size raise for the player to act (clamped to the legal sizes), or None if no raise is legal.

    >>> from pokerbot.gamedef import load_game
    >>> s = State.initial(load_game("hunl"))
    >>> str(pot_raise(s)), str(pot_raise(s.apply(raise_to(300))))
    ('r300', 'r900')
    """
    bounds = state.raise_bounds()
    if bounds is None:
        return None
    if not state.game.nolimit:
        return RAISE
    return raise_to(min(max(raise_size_for_fraction(state, 1.0), bounds[0]), bounds[1]))


class RandomAgent(Agent):
    """Uniform over the legal action kinds; uniform legal raise-to size in no-limit."""

    def __init__(self, game: GameDef, seed: int | None = None, name: str = "random") -> None:
        self.game = game
        self.name = name
        self.rng = random.Random(seed)
        self._dists: OrderedDict[tuple[object, ...], list[tuple[Action, float]]] = OrderedDict()

    def act(self, view: MatchState) -> Action:
        state = view.state
        kind = self.rng.choice(state.legal_kinds())
        if kind == ActionType.FOLD:
            return FOLD
        if kind == ActionType.CALL:
            return CALL
        bounds = state.raise_bounds()
        assert bounds is not None  # a raise is legal
        lo, hi = bounds
        return raise_to(self.rng.randint(lo, hi)) if self.game.nolimit else RAISE

    def action_distribution(self, view: MatchState) -> list[tuple[Action, float]]:
        """Uniform over the legal kinds, a raise's share spread evenly over its sizes.

        The list is cached by the legal actions (they recur) and shared: do not change it.
        """
        state = view.state
        kinds = tuple(state.legal_kinds())
        bounds = state.raise_bounds() if self.game.nolimit else None
        key = (kinds, bounds)
        cached = self._dists.get(key)
        if cached is not None:
            return cached
        share = 1.0 / len(kinds)
        out: list[tuple[Action, float]] = []
        for kind in kinds:
            if kind == ActionType.FOLD:
                out.append((FOLD, share))
            elif kind == ActionType.CALL:
                out.append((CALL, share))
            elif bounds is None:
                out.append((RAISE, share))
            else:
                lo, hi = bounds
                each = share / (hi - lo + 1)
                out.extend((raise_to(size), each) for size in range(lo, hi + 1))
        self._dists[key] = out
        if len(self._dists) > 64:
            self._dists.popitem(last=False)
        return out

    def action_probabilities(self, view: MatchState, holes: Holes, action: Action) -> np.ndarray:
        return np.full(len(holes), self.action_probability(view, action))  # the cards do not matter

    def action_probability(self, view: MatchState, action: Action) -> float:
        state = view.state
        if not state.is_legal(action):
            return 0.0
        share = 1.0 / len(state.legal_kinds())
        if action.kind != ActionType.RAISE or not self.game.nolimit:
            return share
        bounds = state.raise_bounds()
        assert bounds is not None  # the raise is legal
        lo, hi = bounds
        return share / (hi - lo + 1)


class CallAgent(Agent):
    """Always checks or calls."""

    def __init__(self, game: GameDef | None = None, seed: int | None = None, name: str = "call") -> None:
        self.name = name

    def act(self, view: MatchState) -> Action:
        return CALL

    def action_distribution(self, view: MatchState) -> list[tuple[Action, float]]:
        return [(CALL, 1.0)]

    def action_probabilities(self, view: MatchState, holes: Holes, action: Action) -> np.ndarray:
        return np.full(len(holes), 1.0 if action == CALL else 0.0)


class RaiseAgent(Agent):
    """Raises pot-size whenever a raise is legal, else calls."""

    def __init__(self, game: GameDef | None = None, seed: int | None = None, name: str = "raise") -> None:
        self.name = name

    def act(self, view: MatchState) -> Action:
        return pot_raise(view.state) or CALL

    def action_distribution(self, view: MatchState) -> list[tuple[Action, float]]:
        return [(self.act(view), 1.0)]

    def action_probabilities(self, view: MatchState, holes: Holes, action: Action) -> np.ndarray:
        return np.full(len(holes), 1.0 if self.act(view) == action else 0.0)  # the cards do not matter


@njit(cache=True)
def _mc_equity(hole, board, avail, n_opp, n_missing, samples, seed):  # pragma: no cover - numba
    """Equity of ``hole`` + ``board`` against a random ``n_opp``-card hand, with ``n_missing`` board cards to come."""
    np.random.seed(seed)
    nh = hole.shape[0]
    nb = board.shape[0]
    total = nh + nb + n_missing
    mine = np.empty(total, dtype=np.int64)
    theirs = np.empty(n_opp + nb + n_missing, dtype=np.int64)
    for i in range(nh):
        mine[i] = hole[i]
    for i in range(nb):
        mine[nh + i] = board[i]
        theirs[n_opp + i] = board[i]
    pool = avail.copy()
    m = pool.shape[0]
    need = n_opp + n_missing
    score = 0.0
    for _ in range(samples):
        for i in range(need):
            j = i + np.random.randint(m - i)
            t = pool[i]
            pool[i] = pool[j]
            pool[j] = t
        for i in range(n_opp):
            theirs[i] = pool[i]
        for i in range(n_missing):
            c = pool[n_opp + i]
            mine[nh + nb + i] = c
            theirs[n_opp + nb + i] = c
        a = eval_cards(mine, total)
        b = eval_cards(theirs, n_opp + nb + n_missing)
        if a > b:
            score += 1.0
        elif a == b:
            score += 0.5
    return score / samples


class EquityAgent(Agent):
    """Rule-based: Monte Carlo equity against a random hand, thresholds from the pot odds.

    Options: ``samples`` (Monte Carlo deals per decision, 300), ``raise``
    (equity at which it raises pot-size, 0.65). Equities are cached per
    (hole, board), so repeated preflop hands cost nothing.
    """

    def __init__(
        self,
        game: GameDef,
        seed: int | None = None,
        samples: int | str = 300,
        raise_at: float | str = 0.65,
        name: str = "equity",
        cache_size: int | str = 50_000,
    ) -> None:
        self.game = game
        self.name = name
        self.samples = int(samples)
        self.raise_at = float(raise_at)
        if self.samples < 1 or not 0.0 <= self.raise_at <= 1.0:
            raise AgentSpecError(f"equity bot needs samples >= 1 and 0 <= raise <= 1, got {samples}, {raise_at}")
        self.rng = random.Random(seed)
        self._deck = game.deck()
        self._cache: OrderedDict[tuple[tuple[int, ...], tuple[int, ...]], float] = OrderedDict()
        self._cache_size = int(cache_size)

    def equity(self, hole: tuple[int, ...], board: tuple[int, ...]) -> float:
        """Probability of beating (ties count half) a uniformly random opponent hand by the river."""
        key = (tuple(sorted(hole)), tuple(board))
        cached = self._cache.get(key)
        if cached is not None:
            self._cache.move_to_end(key)
            return cached
        used = set(hole) | set(board)
        avail = np.array([c for c in self._deck if c not in used], dtype=np.int64)
        n_missing = self.game.total_board_cards - len(board)
        value = float(
            _mc_equity(
                np.array(hole, dtype=np.int64),
                np.array(board, dtype=np.int64),
                avail,
                self.game.num_hole_cards,
                n_missing,
                self.samples,
                self.rng.getrandbits(31),
            )
        )
        self._cache[key] = value
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return value

    def act(self, view: MatchState) -> Action:
        state = view.state
        e = self.equity(state.hole_cards[view.viewer], state.visible_board)
        to_call = state.to_call()
        if e >= self.raise_at:
            bet = pot_raise(state)
            if bet is not None:
                return bet
        if to_call > 0 and state.can_fold() and e < to_call / (state.pot + to_call):
            return FOLD
        return CALL

    def action_distribution(self, view: MatchState) -> list[tuple[Action, float]]:
        """One action with probability 1: the equity estimate is cached, so ``act`` repeats it.

        (A view whose estimate was evicted from the cache is estimated afresh, like ``act`` would.)
        """
        return [(self.act(view), 1.0)]


def _equity_factory(game: GameDef, seed: int | None = None, **options: str) -> Agent:
    if "raise" in options:
        options["raise_at"] = options.pop("raise")
    return EquityAgent(game, seed, **options)


#: Built-in agents by name (aliases included).
BUILTIN: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "call": CallAgent,
    "always-call": CallAgent,
    "raise": RaiseAgent,
    "always-raise": RaiseAgent,
    "equity": _equity_factory,
}


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``name?key=value&...`` into the name and its options.

    >>> parse_spec("blueprint.agent:make_agent?path=/tmp/bp&k=2")
    ('blueprint.agent:make_agent', {'path': '/tmp/bp', 'k': '2'})
    """
    name, _, query = spec.strip().partition("?")
    if not name:
        raise AgentSpecError(f"empty agent spec {spec!r}")
    try:
        options = dict(parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query)))
    except ValueError:
        raise AgentSpecError(f"bad options {query!r} in agent spec {spec!r}: use key=value&key2=value2") from None
    return name, options


#: The project's agents above the baselines, by name: ``package.module:factory`` (imported when used).
PROJECT_AGENTS: dict[str, str] = {
    "blueprint": "blueprint.agent:make_agent",
    "realtime": "realtime.agent:make_agent",
    "sog": "realtime.sog.agent:make_agent",
}

#: The entry-point group through which a package registers agent factories (name = "package.module:factory").
ENTRY_POINT_GROUP = "pokerbot.agents"

#: Set to ``1`` to let a spec import any ``package.module:factory`` (``pokerbot --allow-any-agent`` sets it).
ALLOW_ANY_ENV = "POKERBOT_ALLOW_ANY_AGENT"


def registered_agents() -> dict[str, str]:
    """Every agent name a spec may use, other than the baselines: the project's and the entry points',
    each mapped to its ``package.module:factory``.

    >>> registered_agents()["blueprint"]
    'blueprint.agent:make_agent'
    """
    from importlib.metadata import entry_points

    found = dict(PROJECT_AGENTS)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(ep.name, ep.value)
    return found


def any_agent_allowed() -> bool:
    """Whether the user opted in to specs naming any importable factory."""
    return os.environ.get(ALLOW_ANY_ENV, "") not in ("", "0")


def resolve_spec_name(name: str) -> str | None:
    """The built-in name or ``package.module:factory`` a spec's ``name`` stands for, or None if it names nothing
    a spec may use (an unregistered factory without the opt-in; :func:`make_agent` says which)."""
    if name in BUILTIN:
        return name
    registered = registered_agents()
    if name in registered:
        return registered[name]
    if ":" in name and (name in registered.values() or any_agent_allowed()):
        return name
    return None


def make_agent(spec: str, game: GameDef, seed: int | None = None) -> Agent:
    """The agent named by ``spec`` (see the module docstring) for ``game``, seeded with ``seed``.

    >>> from pokerbot.gamedef import load_game
    >>> make_agent("random?name=r1", load_game("kuhn"), seed=3).name
    'r1'
    >>> make_agent("logging:basicConfig?filename=x", load_game("kuhn"))
    Traceback (most recent call last):
    pokerbot.bots.AgentSpecError: agent spec 'logging:basicConfig?filename=x': logging:basicConfig is not a registered agent factory (registered: random, call, always-call, raise, always-raise, equity, blueprint, realtime, sog); to run it anyway, opt in with pokerbot --allow-any-agent (or POKERBOT_ALLOW_ANY_AGENT=1)
    """
    spec_name, options = parse_spec(spec)
    name = resolve_spec_name(spec_name)
    if name is None and ":" in spec_name:
        names = ", ".join([*BUILTIN, *registered_agents()])
        raise AgentSpecError(f"agent spec {spec!r}: {spec_name} is not a registered agent factory (registered: "
                             f"{names}); to run it anyway, opt in with pokerbot --allow-any-agent "
                             f"(or {ALLOW_ANY_ENV}=1)")
    if name is None:
        raise AgentSpecError(
            f"unknown agent {spec_name!r}: use one of {', '.join([*BUILTIN, *registered_agents()])}"
        )
    if name in BUILTIN:
        factory = BUILTIN[name]
    else:
        module_name, _, attr = name.partition(":")
        try:
            module = importlib.import_module(module_name)
        except (ImportError, ValueError, TypeError) as exc:  # empty (ValueError) or relative (TypeError) names
            raise AgentSpecError(f"agent spec {spec!r}: cannot import {module_name!r}: {exc}") from exc
        found = getattr(module, attr, None)
        if not callable(found):
            raise AgentSpecError(f"agent spec {spec!r}: {module_name} has no callable {attr!r}")
        factory = found
    try:
        agent = factory(game=game, seed=seed, **options)
    except TypeError as exc:
        raise AgentSpecError(f"agent spec {spec!r}: {exc}") from exc
    if not isinstance(agent, Agent):
        raise AgentSpecError(f"agent spec {spec!r} built a {type(agent).__name__}, not an Agent")
    if "name" not in options and spec_name in BUILTIN:
        agent.name = spec_name
    return agent
