"""Local best response (Lisý & Bowling, "Equilibrium Approximation Quality of Current No-Limit
Poker Bots", 2017): a lower bound on an agent's exploitability in games too large for a best response.

:class:`LocalBestResponse` is an :class:`~pokerbot.agent.Agent` that plays against
an agent reporting its policy (``Agent.action_distribution`` / ``action_probability``).
It tracks the agent's range: every hole-card combination starts with weight 1
(0 if it meets LBR's cards or the board) and is multiplied, at each of the
agent's actions, by the probability that the agent takes that action with those
cards. At its own turn it computes its showdown equity ``WP`` against that range,
enumerating every missing board card exactly (:mod:`evaluation.equity`; a HUNL
preflop board, 1.7 million of them, is sampled), and picks the action of
largest immediate value, assuming no betting after it::

    fold:        -spent_me
    check/call:  (2 WP - 1) x M                           (M: the bet, called)
    raise to T:  fp x spent_opp + (1 - fp) x (2 WP - 1) x T

where ``fp`` is the probability, over the range, that the agent folds to the
raise. The raises are the pot fractions of ``fractions`` and all-in (default:
fold, call, pot, all-in, as in the paper), through the solver's
:class:`~pokerbot.solver.tree.PotFractionMenu`; ``call_rounds`` lists rounds
where LBR only checks or calls (the paper's variants check/call preflop and on
the flop). LBR's winnings are a lower bound on the agent's exploitability in
expectation: LBR is one (greedy) strategy of the game.

:func:`run_lbr` plays LBR against an agent spec, seats alternating, over ray
workers (local by default; ``workers=1`` runs in-process), and reports mbb/g with
a 95% CI; :func:`lbr_hands` plays any consecutive piece of such a run, hand for
hand as in the whole run (``pokerbot eval`` saves LBR runs in such pieces).

>>> from pokerbot.bots import make_agent
>>> from pokerbot.gamedef import load_game
>>> game = load_game("leduc-nl")
>>> r = run_lbr("call", game, hands=200, seed=1, progress=False)
>>> r.rate.mbb > 0
True
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from evaluation.equity import MAX_EXACT_RUNOUTS, all_hands, hand_equities
from evaluation.stats import WinRate, win_rate
from pokerbot.agent import Agent, hand_rng
from pokerbot.errors import PokerbotError
from pokerbot.gamedef import GameDef
from pokerbot.matchstate import MatchState
from pokerbot.solver.tree import PotFractionMenu
from pokerbot.state import FOLD, Action, ActionType, State


class LbrError(PokerbotError, ValueError):
    """LBR cannot run: the agent reports no policy, or the settings are invalid."""


@dataclass(frozen=True)
class LbrSettings:
    """LBR's actions and equity computation.

    ``fractions``: raise sizes as fractions of the pot after calling (default
    ``(1.0,)``: pot); ``all_in``: also consider all-in; ``call_rounds``: rounds
    where LBR only checks or calls (``(0, 1)``: preflop and flop);
    ``max_exact``/``samples``: exact run-outs up to this many, else this many
    sampled (only a HUNL preflop board is sampled).
    """

    fractions: tuple[float, ...] = (1.0,)
    all_in: bool = True
    call_rounds: tuple[int, ...] = ()
    max_exact: int = MAX_EXACT_RUNOUTS
    samples: int = 1_000
    #: Score each hand by its expectation over the agent's actions from this round on (None: the chips won).
    expected_from: int | None = None
    #: Value a raise with the equity against the hands that call it (the range weighted by each hand's
    #: probability of not folding) instead of the whole range, as the paper does. Still a lower bound.
    call_range: bool = False

    def __post_init__(self) -> None:
        if any(not f > 0 for f in self.fractions) or self.samples < 1 or self.max_exact < 1:
            raise LbrError(f"LBR needs positive pot fractions, samples and max_exact: {self}")
        if self.expected_from is not None and self.expected_from < 0:
            raise LbrError(f"expected_from must be a round (0: preflop), got {self.expected_from}")

    def label(self) -> str:
        """A short name: ``FCPA`` (fold, call, pot, all-in), ``FC12-FCPA34`` style for call rounds, ``-CR`` for
        raises valued against the calling range, ``-E4`` for hands scored by their expectation over the agent's
        actions from round 4 on.

        >>> LbrSettings(call_rounds=(0, 1), expected_from=3).label()
        'FC12-FCPA-E4'
        >>> LbrSettings(call_range=True).label()
        'FCPA-CR'
        """
        sizes = "".join("P" if f == 1.0 else f"{f:g}P" for f in self.fractions) + ("A" if self.all_in else "")
        name = f"FC{sizes}" if not self.call_rounds else f"FC{''.join(str(r + 1) for r in self.call_rounds)}-FC{sizes}"
        name += "-CR" if self.call_range else ""
        return name if self.expected_from is None else f"{name}-E{self.expected_from + 1}"

    @property
    def menu(self) -> PotFractionMenu:
        return PotFractionMenu(self.fractions, self.all_in, max_raises=10**6)


class LocalBestResponse(Agent):
    """Plays the greedy best response against ``policy`` (an agent reporting its action probabilities).

    ``policy`` must answer ``action_probability`` for any hole cards; it is only
    asked, never played. For an agent that tracks the hand internally pass a
    separate instance built the same way as the one at the table (``run_lbr`` does).
    """

    def __init__(self, game: GameDef, policy: Agent, settings: LbrSettings | None = None, seed: int = 0,
                 name: str = "lbr") -> None:
        self.game = game
        self.policy = policy
        self.settings = settings or LbrSettings()
        self.name = name
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.hands = all_hands(game)
        self._masks = np.array([sum(1 << int(c) for c in h) for h in self.hands], dtype=np.int64)
        self.stats = {"decisions": 0, "folds": 0, "calls": 0, "raises": 0}
        self._weights = np.ones(len(self.hands))
        self._seen = 0
        self._state: State | None = None

    def begin_hand(self, view: MatchState) -> None:
        self.rng = hand_rng(self.seed, view)  # per hand, so runs against two agents share the sampled equities
        self._restart(view)
        opp = 1 - view.viewer
        if type(self.policy).begin_hand is not Agent.begin_hand:
            self.policy.begin_hand(MatchState(opp, view.state.with_cards([()] * self.game.num_players)))

    def _restart(self, view: MatchState) -> None:
        """The range at the start of the hand (the policy is not told: it keeps what it has solved)."""
        self._weights = np.ones(len(self.hands))
        self._weights[(self._masks & _mask(view.state.hole_cards[view.viewer])) != 0] = 0.0
        self._seen = 0
        self._state = State.initial(self.game, view.state.hand_id)

    def expected_payoff(self, final: State, me: int, from_round: int) -> float:
        """LBR's expected chips in the hand that ended at ``final`` (every card in it), LBR being player ``me``:
        the agent's actions from its first decision in round ``from_round`` or later are not the ones it drew but
        all of its actions, weighted by its probabilities (LBR's replies are deterministic), so the estimate
        keeps LBR's expectation and loses the noise of the agent's draws there. A hand with no such decision
        scores its chips. The policy is asked at the new states (LBR's range needs it there anyway).
        """
        opp = 1 - me
        s = State.initial(self.game, final.hand_id, final.hole_cards, final.board_cards)
        for action in final.actions():
            if s.round >= from_round and s.current_player == opp:
                break
            s = s.apply(action)
        else:
            return float(final.payoffs()[me])
        mine = [h if q == me else () for q, h in enumerate(final.hole_cards)]
        self._restart(MatchState(me, State.initial(self.game, final.hand_id, mine)))
        return self._expand(s, me)

    def _expand(self, s: State, me: int) -> float:
        if s.finished:
            return float(s.payoffs()[me])
        p = s.current_player
        assert p is not None  # the hand goes on
        holes = [h if q == p else () for q, h in enumerate(s.hole_cards)]
        view = MatchState(p, s.with_cards(holes, s.visible_board))
        if p == me:
            return self._expand(s.apply(choose(self.action_values(view))), me)
        dist = self.policy.action_distribution(view)
        if dist is None:
            raise LbrError(f"LBR needs the policy of {self.policy.name!r}, which reports none")
        saved = (self._weights.copy(), self._seen, self._state)
        total = 0.0
        for action, q in dist:
            if q > 0:
                self._weights, self._seen, self._state = saved[0].copy(), saved[1], saved[2]
                total += q * self._expand(s.apply(action), me)
        return total / sum(q for _, q in dist if q > 0)

    def range(self, view: MatchState) -> np.ndarray:
        """The agent's range at ``view``: weight per row of ``all_hands(game)``, unnormalised."""
        if self._state is None or self._state.hand_id != view.state.hand_id:
            self.begin_hand(view)
        state = view.state
        actions = state.actions()
        opp = 1 - view.viewer
        assert self._state is not None
        # Hands meeting the board are impossible (and cannot be shown to the agent).
        self._weights[(self._masks & _mask(state.visible_board)) != 0] = 0.0
        s = self._state
        while self._seen < len(actions):
            action = actions[self._seen]
            s = s.with_cards(board_cards=state.board_cards)
            if s.current_player == opp:
                self._update(s, opp, action)
            s = s.apply(action)
            self._seen += 1
        self._state = s
        return self._weights

    def _probabilities(self, state: State, opp: int, action: Action, weights: np.ndarray) -> np.ndarray:
        out = np.zeros(len(self.hands))
        live = np.nonzero(weights > 0)[0]
        if live.size:
            view = MatchState(opp, state.with_cards([()] * self.game.num_players, state.visible_board))
            p = self.policy.action_probabilities(view, self.hands[live], action)
            if p is None:
                raise LbrError(f"LBR needs the policy of {self.policy.name!r}, which reports none")
            out[live] = p
        return out

    def _update(self, state: State, opp: int, action: Action) -> None:
        self._weights *= self._probabilities(state, opp, action, self._weights)

    def action_values(self, view: MatchState) -> dict[Action, float]:
        """LBR's value of each action it considers at ``view`` (chips won by the end of the hand, no more betting)."""
        state = view.state
        me = view.viewer
        opp = 1 - me
        weights = self.range(view).copy()
        if weights.sum() <= 0:
            weights = np.ones(len(self.hands))  # the agent did something "impossible": fall back to uniform
            weights[(self._masks & (_mask(state.hole_cards[me]) | _mask(state.visible_board))) != 0] = 0.0
        eq, _ = hand_equities(self.game, state.hole_cards[me], state.visible_board, self.hands, weights,
                              self.settings.max_exact, self.settings.samples, self.rng)
        ok = ~np.isnan(eq)
        wp = float(np.dot(weights[ok], eq[ok]) / weights[ok].sum())
        k = 2.0 * wp - 1.0
        values: dict[Action, float] = {}
        for action in self.settings.menu(state):
            if action.kind == ActionType.FOLD:
                values[action] = -float(state.spent[me])
            elif action.kind == ActionType.CALL:
                values[action] = k * state.max_spent
            elif state.round not in self.settings.call_rounds:
                after = state.apply(action)
                fold = self._probabilities(after, opp, FOLD, weights)
                fp = float(np.dot(weights[ok], fold[ok]) / weights[ok].sum())
                total = after.max_spent
                k_call = k
                if self.settings.call_range:
                    calling = weights[ok] * (1.0 - fold[ok])
                    if calling.sum() > 0:
                        k_call = 2.0 * float(np.dot(calling, eq[ok]) / calling.sum()) - 1.0
                values[action] = fp * state.spent[opp] + (1.0 - fp) * k_call * total
        return values

    def act(self, view: MatchState) -> Action:
        self.stats["decisions"] += 1
        best = choose(self.action_values(view))
        self.stats[{ActionType.FOLD: "folds", ActionType.CALL: "calls", ActionType.RAISE: "raises"}[best.kind]] += 1
        return best


def choose(values: dict[Action, float]) -> Action:
    """LBR's action: the best value, ties going to the more passive action (menu order: fold, call, then raises
    small to large) and folding needing a better value than calling. Values within 1e-9 (relative) tie: they
    differ by float rounding only (two agents with one strategy, their probabilities summed in another order),
    and a tie broken by rounding would make LBR against them play differently.

    >>> from pokerbot.state import CALL, FOLD, raise_to
    >>> str(choose({FOLD: -50.0, CALL: 10.0, raise_to(300): 10.0 + 1e-12, raise_to(900): 9.0}))
    'c'
    >>> str(choose({FOLD: -50.0, CALL: -50.0 + 1e-12}))
    'c'
    """
    top = max(values.values())
    tol = 1e-9 * max(1.0, abs(top))
    call = next((v for a, v in values.items() if a.kind == ActionType.CALL), None)
    for action, v in values.items():
        if action.kind == ActionType.FOLD and call is not None and v <= call + tol:
            continue
        if v >= top - tol:
            return action
    raise AssertionError("unreachable: some value is the top one")  # pragma: no cover


def _mask(cards: Sequence[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << int(c)
    return m


@dataclass
class LbrResult:
    """LBR's per-hand chips against ``agent`` (positive: the agent is exploited)."""

    agent: str
    game: GameDef
    settings: LbrSettings
    chips: np.ndarray
    seconds: float
    workers: int = 1
    stats: dict[str, int] = field(default_factory=dict)
    #: AIVAT estimates of the same hands (``run_lbr(value=...)``), or None.
    aivat: np.ndarray | None = None

    @property
    def rate(self) -> WinRate:
        return win_rate(self.chips, self.game, pair=True)

    @property
    def aivat_rate(self) -> WinRate | None:
        """LBR's winnings estimated by AIVAT (the agent's policy known, LBR's not), or None."""
        return None if self.aivat is None else win_rate(self.aivat, self.game, pair=True)

    @property
    def hands(self) -> int:
        return int(self.chips.size)

    def summary(self) -> str:
        av = "" if self.aivat_rate is None else f"; AIVAT {self.aivat_rate}"
        return (f"LBR ({self.settings.label()}) vs {self.agent}: {self.rate}{av} "
                f"in {self.seconds:.0f} s on {self.workers} worker(s)")


def lbr_hands(spec: str, game_name: str, hands: int, seed: int, settings: LbrSettings, progress: bool = False,
              value: str = "", first_hand: int = 0) -> tuple[np.ndarray, dict[str, int], np.ndarray | None]:
    """LBR against the agent of ``spec``: hands ``first_hand`` to ``first_hand + hands - 1`` of the duplicate
    match that card seed ``seed`` deals (seats swapped on each deal); LBR and the agent are seeded with ``seed``
    and draw their random numbers per hand, so any split of a run into pieces plays the same hands.

    Returns LBR's chips per hand (with ``settings.expected_from``, each hand's expectation from that round on:
    :meth:`LocalBestResponse.expected_payoff`), LBR's action counts and, with ``value`` (a value function of
    :func:`evaluation.blueprint_value.make_value`: ``equity``, ``fitted`` or ``blueprint:<file or run name>``),
    the AIVAT estimate of each hand (else None).
    """
    from evaluation.match import play_match
    from pokerbot.bots import make_agent
    from pokerbot.gamedef import load_game

    game = load_game(game_name)
    agent = make_agent(spec, game, seed=seed)
    tracks_hands = type(agent).begin_hand is not Agent.begin_hand
    policy = make_agent(spec, game, seed=seed) if tracks_hands else agent
    if type(policy).action_distribution is Agent.action_distribution and \
            type(policy).action_probability is Agent.action_probability:
        raise LbrError(f"agent {spec!r} reports no policy: LBR needs Agent.action_distribution")
    lbr = LocalBestResponse(game, policy, settings, seed=seed)
    if not value:
        expected = np.zeros(hands)

        def score(hand: int, final: State, lbr_player: int) -> None:
            assert settings.expected_from is not None  # score is only used with it
            expected[hand] = lbr.expected_payoff(final, lbr_player, settings.expected_from)

        r = play_match(lbr, agent, game, hands, seed, duplicate=True, progress=progress, first_hand=first_hand,
                       on_state=None if settings.expected_from is None else score)
        return r.chips if settings.expected_from is None else expected, dict(lbr.stats), None
    if settings.expected_from is not None:
        raise LbrError("score LBR hands by expectation or with AIVAT, not both")
    from evaluation.aivat import play_match_aivat
    from evaluation.blueprint_value import make_value

    kind, _, path = value.partition(":")
    scored = play_match_aivat(lbr, agent, game, hands, seed, value_fn=make_value(kind, game, seed, blueprint=path),
                              duplicate=True, progress=progress, first_hand=first_hand)
    return scored.chips, dict(lbr.stats), scored.aivat


def run_lbr(
    spec: str,
    game: GameDef | str,
    hands: int,
    seed: int = 0,
    settings: LbrSettings | None = None,
    workers: int = 1,
    ray_address: str = "",
    progress: bool = True,
    value: str = "",
) -> LbrResult:
    """LBR against the agent of ``spec`` over ``hands`` duplicate hands, split over ``workers`` ray tasks.

    With ``workers=1`` (and no ``ray_address``) it runs in this process. The
    cards come from :func:`card_seed` whatever the number of workers:
    each worker plays its own consecutive pairs of that match (see
    :func:`lbr_hands`), so the result does not depend on ``workers``. ``value``:
    also score the hands with AIVAT and this value function.
    """
    from pokerbot.gamedef import load_game

    g = load_game(game) if isinstance(game, str) else game
    settings = settings or LbrSettings()
    if hands < 2:
        raise LbrError(f"LBR needs at least 2 hands, got {hands}")
    workers = max(1, min(int(workers), hands // 2))
    pairs = math.ceil(hands / 2)
    bounds = [2 * (pairs * i // workers) for i in range(workers + 1)]
    start = time.perf_counter()
    game_name = _game_name(g)
    cards = card_seed(seed)
    if workers == 1 and not ray_address:
        parts = [lbr_hands(spec, game_name, bounds[1], cards, settings, progress, value)]
    else:
        from pokerbot.ray_util import share_cores, start_ray

        ray = start_ray(ray_address, workers, share_cores(workers))
        task = ray.remote(num_cpus=1)(lbr_hands)
        parts = ray.get([task.remote(spec, game_name, hi - lo, cards, settings, False, value, lo)
                         for lo, hi in itertools.pairwise(bounds)])
    chips = np.concatenate([c for c, _, _ in parts])
    aivat = np.concatenate([a for _, _, a in parts]) if value else None
    return LbrResult(spec, g, settings, chips, time.perf_counter() - start, workers, add_counts(s for _, s, _ in parts),
                     aivat)


def card_seed(seed: int) -> int:
    """The card seed of the LBR run with seed ``seed`` (LBR and the agent are seeded with it too).

    >>> card_seed(1)
    1000
    """
    return seed * 1000


def add_counts(counts: Iterable[dict[str, int]]) -> dict[str, int]:
    """The sum of LBR action counts (``LocalBestResponse.stats``) of several pieces of a run.

    >>> add_counts([{"raises": 2, "calls": 1}, {"raises": 1}])
    {'raises': 3, 'calls': 1}
    """
    total: dict[str, int] = {}
    for c in counts:
        for key, v in c.items():
            total[key] = total.get(key, 0) + v
    return total


def _game_name(game: GameDef) -> str:
    from pokerbot.gamedef import SHIPPED_GAMES

    for short, file in SHIPPED_GAMES.items():
        if game.name in (short, file):
            return short
    return game.name
