"""AIVAT: unbiased, low-variance win rates (Burch et al., "AIVAT: A New Variance Reduction
Technique for Agent Evaluation in Imperfect Information Games", AAAI 2018).

A hand's AIVAT value is its chips minus a sum of control variates, one at every
chance event and one at every decision of a player whose policy is known::

    aivat = chips - sum over chance events c:  v(after c) - E_c[v(after c)]
                  - sum over known decisions: v(after the action taken) - sum_a sigma(a) v(after a)

Each term has expectation zero given what happened before it (the expectation
of the chance event is over its true distribution, that of a decision over the
policy ``sigma`` the player really used), so the estimate is unbiased for any
value function ``v``; a good ``v`` cancels most of the luck. A player whose
policy is unknown (a remote ACPC player, a human: ``Agent.action_distribution``
returns None) gets no decision terms; chance events are always corrected.

Here ``v`` sees every card (the match runner and the dealer's logs know both
players' hole cards, folded or not), which the paper's general form allows.
:class:`EquityValue` (the default) is the check-down value: the chips player 0
wins if the current bet is called and nobody bets again, ``(2 equity - 1) x
max_spent`` with the equity enumerated exactly over the missing board cards
(sampled for a HUNL preflop, see :mod:`evaluation.equity`: an independent
unbiased estimate keeps every term's expectation zero). For it the chance terms
are ``v(after) - v(before)``, since the equity before a deal is the mean of the
equities after it. Any :class:`ValueFunction` can be plugged in.

Unbiasedness is proven exactly in ``tests/test_evaluation_aivat.py``: on Kuhn and
Leduc the expectation over every deal and every action equals the true expected
value to 1e-9, for several agent pairs and value functions, a poor one included.

>>> from pokerbot.bots import make_agent
>>> from pokerbot.gamedef import load_game
>>> game = load_game("leduc")
>>> r = play_match_aivat(make_agent("random", game, 1), make_agent("raise", game, 2), game, 2000, seed=1,
...                      progress=False)
>>> r.aivat_rate.ci95 < r.plain_rate.ci95
True
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from evaluation.equity import DEFAULT_SAMPLES, MAX_EXACT_RUNOUTS, hand_equities
from evaluation.stats import WinRate, win_rate
from pokerbot.agent import Agent
from pokerbot.errors import PokerbotError
from pokerbot.gamedef import GameDef
from pokerbot.matchstate import MatchState
from pokerbot.state import Action, ActionType, State

if TYPE_CHECKING:
    from pokerbot.protocol.log import MatchLog

#: One decision's reported policy: (action, probability) pairs, or None when unknown.
Distribution = Sequence[tuple[Action, float]] | None


class AivatError(PokerbotError, ValueError):
    """A hand AIVAT cannot score: hole cards missing from a log, a policy that does not fit the hand."""


class ValueFunction:
    """Player 0's expected chips at a state whose hole cards are all known (``state.board_cards``: the board so far).

    Subclasses give :meth:`value`; the expectations over chance events default to
    exact enumeration (fine for Kuhn and Leduc), and :meth:`action_values` to
    applying each action. ``seat`` is set before each hand to agent A's player
    index (a value function may use it: the seats rotate).
    """

    seat: int = 0

    def value(self, state: State) -> float:
        raise NotImplementedError

    def action_values(self, state: State, kinds: np.ndarray, sizes: np.ndarray) -> np.ndarray:
        """:meth:`value` after each action (``kinds[i]``: an ``ActionType``, ``sizes[i]``: its size) at ``state``."""
        return np.array([self.value(state.apply(Action(ActionType(int(k)), int(z)))) for k, z in zip(kinds, sizes)],
                        dtype=np.float64)

    def chance_mean(self, state: State, new_cards: int) -> float:
        """Expectation of :meth:`value` after ``new_cards`` more board cards are dealt at ``state``."""
        game = state.game
        used = {c for h in state.hole_cards for c in h} | set(state.board_cards)
        rest = [c for c in game.deck() if c not in used]
        total = 0.0
        count = 0
        for cards in itertools.combinations(rest, new_cards):
            total += self.value(state.with_cards(board_cards=state.board_cards + cards))
            count += 1
        return total / count

    def deal_mean(self, game: GameDef) -> float:
        """Expectation of :meth:`value` over the hole-card deal, at the start of a hand."""
        hands = list(itertools.combinations(game.deck(), game.num_hole_cards))
        total = 0.0
        count = 0
        for h0 in hands:
            for h1 in hands:
                if set(h0) & set(h1):
                    continue
                total += self.value(State.initial(game, hole_cards=(h0, h1)))
                count += 1
        return total / count


class EquityValue(ValueFunction):
    """The check-down value: the current bet called, no more betting, the best hand wins.

    ``(2 e - 1) * max_spent`` for player 0's showdown equity ``e`` (ties half);
    a folded hand is worth its payoff. Equities are exact where the missing board
    has at most ``max_exact`` run-outs and sampled (``samples``, seeded by ``seed``)
    otherwise; each is computed once per set of cards.
    """

    def __init__(self, max_exact: int = MAX_EXACT_RUNOUTS, samples: int = DEFAULT_SAMPLES, seed: int = 0,
                 cache_size: int = 100_000) -> None:
        self.max_exact = max_exact
        self.samples = samples
        self.rng = np.random.default_rng(seed)
        self._cache: dict[tuple, float] = {}
        self._cache_size = cache_size

    def equity(self, state: State) -> float:
        """Player 0's showdown equity against player 1 over the missing board cards."""
        key = (state.hole_cards, state.board_cards)
        e = self._cache.get(key)
        if e is None:
            if len(self._cache) >= self._cache_size:
                self._cache.clear()
            h0, h1 = state.hole_cards
            eq, _ = hand_equities(state.game, h0, state.board_cards, np.array([h1]), None, self.max_exact,
                                  self.samples, self.rng)
            e = self._cache[key] = float(eq[0])
        return e

    def value(self, state: State) -> float:
        if any(state.folded):
            return float(state.payoffs()[0])
        return (2.0 * self.equity(state) - 1.0) * state.max_spent

    def action_values(self, state: State, kinds: np.ndarray, sizes: np.ndarray) -> np.ndarray:
        # Closed form, vectorised (no State.apply): a random bot reports thousands of raise sizes.
        k = 2.0 * self.equity(state) - 1.0
        p = state.current_player
        assert p is not None
        out = np.where(kinds == ActionType.RAISE, k * _raise_totals(state, sizes), k * state.max_spent)
        out[kinds == ActionType.FOLD] = -state.spent[0] if p == 0 else state.spent[1]
        return out

    def chance_mean(self, state: State, new_cards: int) -> float:
        # The equity before a deal is the mean of the equities after it.
        return self.value(state)

    def deal_mean(self, game: GameDef) -> float:
        # Both players' hands come from the same deck: each wins a random deal half the time.
        return 0.0


class FittedValue(EquityValue):
    """A check-down value fitted to how the players bet: ``m (w0 + w1 k) + d (w2 + w3 k)``, ``k = 2 e - 1``.

    ``m`` is what both players have matched (the smaller ``spent``) and ``d`` the
    bet still to call. The weights are fitted by ridge least squares of the final
    chips on those four features (all divided by ``max_spent``) per public context
    (round, raises this round, player to act, size bucket of ``max_spent``), over
    the hands seen so far (:meth:`learn`, refitted every ``refit_every`` hands);
    an unseen context keeps the prior ``(0, 1, 0, 0)``: the matched chips checked
    down, a pending bet handed back. A hand is always scored
    with weights fitted on earlier hands only, so each estimate stays unbiased.
    Linear in ``e`` with weights that a deal does not change, so a chance event's
    expectation is still the value before it.
    """

    def __init__(self, refit_every: int = 100, ridge: float = 20.0, **options: int) -> None:
        super().__init__(**options)
        self.refit_every = refit_every
        self.ridge = ridge
        self.weights: dict[tuple[int, ...], np.ndarray] = {}
        self._stats: dict[tuple[int, ...], np.ndarray] = {}
        self._seen = 0
        #: Which player agent A is in the hand being scored (set by the scorer; the seats rotate):
        #: part of the context, as two different agents bet differently.
        self.seat = 0

    def context(self, state: State, player: int | None = None) -> tuple[int, ...]:
        m = max(state.max_spent, 1)
        acting = state.current_player if player is None else player
        return (self.seat, state.round, min(state.num_raises(), 3), -1 if acting is None else acting,
                int(math.log2(m * 4 / max(state.game.big_blind, 1))))

    def _scale(self, ctx: tuple[int, ...]) -> np.ndarray:
        return self.weights.get(ctx, _PRIOR)

    @staticmethod
    def _features(m: float, d: float, k: float) -> np.ndarray:
        return np.array([m, m * k, d, d * k])

    def value(self, state: State) -> float:
        if any(state.folded):
            return float(state.payoffs()[0])
        k = 2.0 * self.equity(state) - 1.0
        if state.finished:
            return k * state.max_spent
        m = min(state.spent)
        w = self._scale(self.context(state))
        return float(self._features(m, state.max_spent - m, k) @ w)

    def deal_mean(self, game: GameDef) -> float:
        # Linear in k, whose mean over the deal is zero (each player wins a random deal half the time).
        state = State.initial(game)
        m = min(state.spent)
        return float(self._features(m, state.max_spent - m, 0.0) @ self._scale(self.context(state)))

    def action_values(self, state: State, kinds: np.ndarray, sizes: np.ndarray) -> np.ndarray:
        k = 2.0 * self.equity(state) - 1.0
        p = state.current_player
        assert p is not None
        game = state.game
        out = np.empty(kinds.size)
        out[kinds == ActionType.FOLD] = -state.spent[0] if p == 0 else state.spent[1]
        call = kinds == ActionType.CALL
        if call.any():
            out[call] = self.value(state.apply(Action(ActionType.CALL)))
        raised = np.nonzero(kinds == ActionType.RAISE)[0]
        if raised.size:
            totals = _raise_totals(state, sizes[raised])
            buckets = np.log2(np.maximum(totals, 1.0) * 4.0 / max(game.big_blind, 1)).astype(np.int64)
            m = float(state.spent[1 - p])
            raises = min(state.num_raises() + 1, 3)
            vals = np.empty(raised.size)
            for b in np.unique(buckets):
                w = self._scale((self.seat, state.round, raises, 1 - p, int(b)))
                sel = buckets == b
                vals[sel] = m * (w[0] + w[1] * k) + (totals[sel] - m) * (w[2] + w[3] * k)
            out[raised] = vals
        return out

    def learn(self, final: State) -> None:
        """Add the states of the finished hand ``final`` (every hole card known) to the fit."""
        chips = float(final.payoffs()[0])
        game = final.game
        board = final.board_cards
        state = State.initial(game, final.hand_id, final.hole_cards)
        for r in range(final.round + 1):
            if r > 0 and game.num_board_cards[r] > 0:
                state = state.with_cards(board_cards=board[: game.board_cards_through(r)])
            for _, action in final.history[r]:
                self._add(state, chips)
                state = state.apply(action)
                if not state.finished:
                    self._add(state, chips)
        self._seen += 1
        if self._seen % self.refit_every == 0:
            self.refit()

    def _add(self, state: State, chips: float) -> None:
        scale = max(state.max_spent, 1)
        m = min(state.spent)
        x = self._features(m, state.max_spent - m, 2.0 * self.equity(state) - 1.0) / scale
        st = self._stats.setdefault(self.context(state), np.zeros(20))
        st[0:16] += np.outer(x, x).ravel()
        st[16:20] += x * (chips / scale)

    def refit(self) -> None:
        """Weights from the hands learned so far (ridge towards the check-down weights)."""
        reg = self.ridge * np.eye(4)
        for ctx, st in self._stats.items():
            self.weights[ctx] = np.linalg.solve(st[0:16].reshape(4, 4) + reg, st[16:20] + reg @ _PRIOR)


_PRIOR = np.array([0.0, 1.0, 0.0, 0.0])


def _raise_totals(state: State, sizes: np.ndarray) -> np.ndarray:
    """The raise-to totals of raises with these sizes (a limit raise has size 0: the game fixes it)."""
    game = state.game
    if game.nolimit:
        return sizes.astype(np.float64)
    p = state.current_player
    assert p is not None
    return np.full(sizes.size, float(min(state.max_spent + game.raise_size[state.round], game.stack[p])))


_ARRAYS: dict[int, tuple[object, np.ndarray, np.ndarray, np.ndarray]] = {}


def distribution_arrays(dist: Sequence[tuple[Action, float]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(kinds, sizes, probabilities) of a reported policy; cached for lists an agent hands out repeatedly."""
    hit = _ARRAYS.get(id(dist))
    if hit is not None and hit[0] is dist:
        return hit[1], hit[2], hit[3]
    n = len(dist)
    kinds = np.fromiter((a.kind for a, _ in dist), dtype=np.int8, count=n)
    sizes = np.fromiter((a.size for a, _ in dist), dtype=np.int64, count=n)
    probs = np.fromiter((q for _, q in dist), dtype=np.float64, count=n)
    if n > 64:
        if len(_ARRAYS) > 16:
            _ARRAYS.clear()
        _ARRAYS[id(dist)] = (dist, kinds, sizes, probs)
    return kinds, sizes, probs


def aivat_hand(final: State, value_fn: ValueFunction, dists: Sequence[Distribution]) -> tuple[float, float]:
    """(chips, AIVAT estimate) of player 0 in the finished hand ``final`` (every hole card known).

    ``dists[i]`` is the policy of the player who took the hand's ``i``-th action,
    as reported at that decision (None: unknown, no correction).
    """
    game = final.game
    if any(len(h) != game.num_hole_cards for h in final.hole_cards):
        raise AivatError(f"hand {final.hand_id}: AIVAT needs every player's hole cards")
    actions = final.actions()
    if len(dists) != len(actions):
        raise AivatError(f"hand {final.hand_id}: {len(dists)} policies for {len(actions)} actions")
    board = final.board_cards
    if len(board) < game.board_cards_through(final.round):
        raise AivatError(f"hand {final.hand_id}: the board of round {final.round} is missing")
    state = State.initial(game, final.hand_id, final.hole_cards)
    correction = value_fn.value(state) - value_fn.deal_mean(game)
    i = 0
    for r in range(final.round + 1):
        new = game.num_board_cards[r]
        if r > 0 and new > 0:
            after = state.with_cards(board_cards=board[: game.board_cards_through(r)])
            correction += value_fn.value(after) - value_fn.chance_mean(state, new)
            state = after
        for _, action in final.history[r]:
            dist = dists[i]
            i += 1
            if dist is not None:
                kinds, sizes, probs = distribution_arrays(dist)
                vals = value_fn.action_values(state, kinds, sizes)
                taken = value_fn.action_values(state, np.array([action.kind], dtype=np.int8),
                                               np.array([action.size], dtype=np.int64))
                correction += float(taken[0]) - float(probs @ vals)
            state = state.apply(action)
    chips = float(final.payoffs()[0])
    return chips, chips - correction


@dataclass
class AivatResult:
    """Agent A's per-hand chips and AIVAT estimates over the same hands."""

    names: tuple[str, str]
    game: GameDef
    chips: np.ndarray
    aivat: np.ndarray
    duplicate: bool = False
    known: tuple[bool, bool] = (True, True)
    #: The in-process match the hands came from (None when scored from a log).
    match: object | None = None

    @property
    def plain_rate(self) -> WinRate:
        return win_rate(self.chips, self.game, pair=self.duplicate)

    @property
    def aivat_rate(self) -> WinRate:
        return win_rate(self.aivat, self.game, pair=self.duplicate)

    @property
    def std_cut(self) -> float:
        """1 - std(AIVAT) / std(chips): the fraction of the standard deviation removed (per duplicate pair if duplicate)."""
        a, b = self._units(self.aivat), self._units(self.chips)
        sb = float(np.std(b, ddof=1)) if b.size > 1 else math.nan
        return 1.0 - float(np.std(a, ddof=1)) / sb if sb > 0 else math.nan

    def _units(self, x: np.ndarray) -> np.ndarray:
        if self.duplicate and x.size >= 2:
            return x[: x.size // 2 * 2].reshape(-1, 2).mean(axis=1)
        return x

    def summary(self) -> str:
        a, b = self.names
        from evaluation.match import MatchResult

        fell = self.match.fallback_text() if isinstance(self.match, MatchResult) else ""
        return (f"{a} vs {b}: plain {self.plain_rate}; AIVAT {self.aivat_rate}; "
                f"std cut {100 * self.std_cut:.0f}%{fell}")

    def __repr__(self) -> str:
        """The summary line, not the arrays (what a notebook or the REPL shows)."""
        return f"<AivatResult {self.summary()}>"

    def _repr_html_(self) -> str:
        """A small table for Jupyter: players, game, hands, the plain and AIVAT win rates, the std cut."""
        from html import escape

        a, b = self.names
        known = ", ".join(n for n, k in zip(self.names, self.known) if k) or "none"
        rows = [("match", f"{a} vs {b}"), ("game", self.game.name),
                ("hands", f"{self.chips.size:,}{' (duplicate)' if self.duplicate else ''}"),
                (f"{a} plain (95% CI)", str(self.plain_rate)), (f"{a} AIVAT (95% CI)", str(self.aivat_rate)),
                ("std cut", f"{100 * self.std_cut:.0f}%"), ("known policies", known)]
        body = "".join(f"<tr><th style='text-align:left'>{escape(k)}</th><td style='text-align:left'>{escape(v)}</td>"
                       f"</tr>" for k, v in rows)
        return f"<table><caption>AivatResult</caption>{body}</table>"


class PolicyRecorder(Agent):
    """Wraps an agent and records the policy it reports before each action (for AIVAT of a live match).

    ``known=False`` records None: the agent is treated as a player whose policy is unknown.
    """

    def __init__(self, inner: Agent, known: bool = True) -> None:
        self.inner = inner
        self.name = inner.name
        self.known = known
        self.dists: dict[tuple[int, int], Distribution] = {}

    def begin_match(self, game: GameDef) -> None:
        self.inner.begin_match(game)

    def begin_hand(self, view: MatchState) -> None:
        self.inner.begin_hand(view)

    def end_hand(self, view: MatchState) -> None:
        self.inner.end_hand(view)

    def act(self, view: MatchState) -> Action:
        state = view.state
        dist = self.inner.action_distribution(view) if self.known else None
        self.dists[(state.hand_id, len(state.actions()))] = dist
        return self.inner.act(view)

    def action_distribution(self, view: MatchState) -> list[tuple[Action, float]] | None:
        return self.inner.action_distribution(view) if self.known else None

    def decision_counts(self) -> dict[str, int] | None:
        return self.inner.decision_counts()

    def decision_note(self) -> str | None:
        return self.inner.decision_note()

    def take(self, hand_id: int) -> dict[int, Distribution]:
        """The policies recorded in hand ``hand_id`` by action index, forgotten afterwards."""
        out = {i: d for (h, i), d in self.dists.items() if h == hand_id}
        for i in out:
            del self.dists[(hand_id, i)]
        return out


def play_match_aivat(
    agent_a: Agent,
    agent_b: Agent,
    game: GameDef,
    hands: int,
    seed: int,
    value_fn: ValueFunction | None = None,
    known: tuple[bool, bool] = (True, True),
    duplicate: bool = False,
    **match_options: Any,
) -> AivatResult:
    """An in-process match (see :func:`evaluation.match.play_match`) scored with plain chips and AIVAT.

    ``known``: whether A's and B's reported policies are used (an agent that
    reports None is unknown either way). ``match_options`` go to ``play_match``.
    """
    from evaluation.match import play_match

    value_fn = value_fn if value_fn is not None else FittedValue(seed=seed)
    learn = getattr(value_fn, "learn", lambda final: None)
    rec = (PolicyRecorder(agent_a, known[0]), PolicyRecorder(agent_b, known[1]))
    estimates = np.zeros(hands)

    def scored(hand: int, final: State, a_player: int) -> None:
        by_player = (rec[0], rec[1]) if a_player == 0 else (rec[1], rec[0])
        taken = [by_player[p].take(final.hand_id) for p in range(2)]
        dists = []
        for i, (p, _) in enumerate((p, a) for rnd in final.history for p, a in rnd):
            dists.append(taken[p].get(i))
        value_fn.seat = a_player
        _, est0 = aivat_hand(final, value_fn, dists)
        estimates[hand] = est0 if a_player == 0 else -est0
        learn(final)

    result = play_match(rec[0], rec[1], game, hands, seed, duplicate=duplicate, on_state=scored,
                        **match_options)
    kn = (known[0] and _reports_policy(agent_a), known[1] and _reports_policy(agent_b))
    return AivatResult(result.names, game, result.chips, estimates, duplicate, kn, result)


def _reports_policy(agent: Agent) -> bool:
    return type(agent).action_distribution is not Agent.action_distribution


def aivat_from_log(
    game: GameDef,
    log: str | os.PathLike[str] | MatchLog,
    name_a: str,
    agents: Mapping[str, Agent],
    value_fn: ValueFunction | None = None,
    duplicate: bool = False,
    seed: int = 0,
) -> AivatResult:
    """AIVAT of ``name_a`` over the hands of a finished match's ACPC log (a path or a parsed ``MatchLog``).

    ``agents`` maps player names to agents reporting their policies (fresh
    instances built like the ones that played); a name missing from it is a
    player of unknown policy. Each hand is replayed through the agents
    (``begin_hand``, then ``action_distribution`` at each of their decisions).
    An agent whose play depends on its own earlier random draws beyond its action
    sampling (the blueprint's randomised translation of off-menu raises) is scored
    with the draws its replay makes, not those of the match.
    """
    from evaluation.hand_history import load_history
    from pokerbot.protocol.log import MatchLog

    parsed = log if isinstance(log, MatchLog) else load_history(game, log)
    value_fn = value_fn if value_fn is not None else FittedValue(seed=seed)
    learn = getattr(value_fn, "learn", lambda final: None)
    names: tuple[str, str] | None = None
    chips = np.zeros(len(parsed.hands))
    est = np.zeros(len(parsed.hands))
    for agent in agents.values():
        agent.begin_match(game)
    for k, rec in enumerate(parsed.hands):
        if name_a not in rec.names:
            raise AivatError(f"hand {rec.hand_id}: no player {name_a!r} in {rec.names}")
        a_player = rec.names.index(name_a)
        if names is None:
            names = (name_a, rec.names[1 - a_player])
        final = rec.state
        dists = replay_policies(final, [agents.get(n) for n in rec.names])
        value_fn.seat = a_player
        _, est0 = aivat_hand(final, value_fn, dists)
        learn(final)
        chips[k] = rec.values[a_player]
        est[k] = est0 if a_player == 0 else -est0
    if names is None:
        raise AivatError("the log holds no hands")
    known = (names[0] in agents, names[1] in agents)
    return AivatResult(names, game, chips, est, duplicate, known)


def _view(state: State, viewer: int) -> MatchState:
    holes = [h if p == viewer else () for p, h in enumerate(state.hole_cards)]
    return MatchState(viewer, state.with_cards(holes, state.visible_board))


def replay_policies(final: State, by_player: Sequence[Agent | None]) -> list[Distribution]:
    """Each action's reported policy when the hand ``final`` is replayed through ``by_player`` (None: unknown)."""
    game = final.game
    state = State.initial(game, final.hand_id, final.hole_cards, final.board_cards)
    for p, agent in enumerate(by_player):
        if agent is not None:
            agent.begin_hand(_view(state, p))
    out: list[Distribution] = []
    for action in final.actions():
        actor = state.current_player
        assert actor is not None
        agent = by_player[actor]
        out.append(agent.action_distribution(_view(state, actor)) if agent is not None else None)
        state = state.apply(action)
    return out


