"""A PettingZoo AEC environment for the shipped heads-up games: one hand per episode.

:class:`PokerEnv` puts the exact engine (:class:`~pokerbot.state.State`) behind
PettingZoo's agent-environment-cycle API, for Kuhn, Leduc, no-limit Leduc, the
flop games, limit and no-limit hold'em or any heads-up ``.game`` file. The two
agents are ``"player_0"`` and ``"player_1"``; they swap ACPC positions from one
hand to the next (as in :func:`evaluation.match.play_match`) unless ``button``
fixes them.

Cards come from the ACPC dealer's seeded stream
(:class:`~pokerbot.protocol.deal.AcpcDeck`): ``reset(seed=s)`` starts a match
with dealer seed ``s`` and deals its hand 0; each later ``reset()`` deals the
next hand of that match. So ``reset(seed=s)`` and ``n`` plain resets play the
first ``n + 1`` deals of ``play_match(..., seed=s)``, with the same positions.

Observation (per agent; a :class:`gymnasium.spaces.Dict`):

- ``"observation"``: float32 vector in [0, 1], laid out as :meth:`PokerEnv.observation_labels`
  names it: own hole cards one-hot over the game's deck (ascending card codes),
  the visible board one-hot over the deck, the round one-hot, the agent's ACPC
  position one-hot, nine scalars (pot / (2 x scale); own and opponent chips in
  the pot / scale; own and opponent chips behind / scale; chips to call / scale;
  the minimum and maximum legal raise-to / scale, 0 unless the agent is to act and
  may raise; 1 if the agent is to act), then per round, for the agent then the
  opponent, min(raises, 8) / 8 and min(checks and calls, 8) / 8. ``scale`` is
  :attr:`PokerEnv.chip_scale`: the stack in no-limit games, the most a player
  can put in the pot in limit games.
- ``"action_mask"``: int8, 1 exactly where the action-space entry is legal (all
  zeros once the hand is over).

Actions. By default a :class:`gymnasium.spaces.Discrete` menu: 0 fold, 1
check/call, then in no-limit games one raise per ``bet_sizes`` pot fraction
(default 0.5, 1, 2; the :mod:`pokerbot.menus` convention: raise-to = the largest
bet + fraction x the pot after calling, rounded and clamped into the legal
raise-to range) and all-in (``all_in=True``); in limit games 2 is the raise (the
game fixes its size). With ``continuous_raise=True`` the action is the pair
``(kind, amount)``: kind 0 fold, 1 check/call, 2 raise, and ``amount`` in [0, 1]
picks the raise-to total ``lo + round(amount x (hi - lo))`` between the legal
minimum ``lo`` and maximum ``hi`` (every legal size is reachable; the amount is
ignored for other kinds and in limit games); the mask then covers the three kinds.
:meth:`PokerEnv.encode_action` and :meth:`PokerEnv.decode_action` convert between
the action space and engine :class:`~pokerbot.state.Action`\\ s. An illegal action raises
:class:`~pokerbot.errors.IllegalActionError`.

Rewards: at the hand's end both agents get the chips they won divided by the big
blind (zero-sum; 1000 x reward is the hand's mbb); ``infos[agent]["chips"]``
holds the chips. Rewards are 0 before then.

>>> env = PokerEnv("kuhn")
>>> env.reset(seed=0)
>>> env.agent_selection, env.position_of("player_0"), env.action_labels
('player_0', 0, ['fold', 'check/call', 'raise'])
>>> env.observe("player_0")["action_mask"].tolist()
[0, 1, 1]
>>> env.step(2)
>>> env.step(1)
>>> env.game_state.betting_string(), env.terminations["player_0"], env.rewards["player_0"] + env.rewards["player_1"]
('rc', True, 0.0)
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, Literal, cast

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from pokerbot.cards import format_card, format_cards
from pokerbot.errors import IllegalActionError, PokerbotError
from pokerbot.gamedef import GameDef, load_game
from pokerbot.matchstate import MatchState, format_matchstate
from pokerbot.menus import raise_size_for_fraction
from pokerbot.protocol.deal import AcpcDeck
from pokerbot.state import CALL, FOLD, MAX_ACTIONS_PER_ROUND, RAISE, Action, ActionType, State, raise_to

__all__ = [
    "AGENTS",
    "DEFAULT_BET_SIZES",
    "EnvError",
    "KindAmountSpace",
    "PokerEnv",
    "env",
    "raw_env",
]

#: The agents, in the order of ``possible_agents``.
AGENTS = ("player_0", "player_1")
#: The default pot fractions of the no-limit menu (all-in is added by ``all_in=True``).
DEFAULT_BET_SIZES = (0.5, 1.0, 2.0)
#: History counts are clipped at this many and divided by it.
MAX_COUNT = 8
#: The nine chip scalars of the observation, in order.
SCALARS = ("pot", "own_in_pot", "opp_in_pot", "own_behind", "opp_behind", "to_call", "min_raise_to",
           "max_raise_to", "to_act")

RenderMode = Literal["human", "ansi"]
_RAISE = ActionType.RAISE
_FOLD = ActionType.FOLD
#: An action of either action space: a menu index, or ``(kind, amount)``.
EnvAction = int | np.integer[Any] | tuple[Any, ...] | Sequence[Any] | np.ndarray | Mapping[str, Any]


class EnvError(PokerbotError, ValueError):
    """A bad environment setting (a game that is not heads-up, bet sizes in a limit game, a bad button)."""


class KindAmountSpace(spaces.Tuple):
    """The action space of ``continuous_raise=True``: ``(kind, amount)``, kind in ``Discrete(3)``
    (fold, check/call, raise), amount a float32 ``Box(0, 1, (1,))``.

    :meth:`sample` also takes the observation's ``action_mask`` (the kind mask) as
    it is, so the usual ``space.sample(obs["action_mask"])`` draws a legal action.
    """

    def __init__(self, seed: int | None = None) -> None:
        super().__init__((spaces.Discrete(3), spaces.Box(0.0, 1.0, shape=(1,), dtype=np.float32)), seed=seed)

    def sample(
        self,
        mask: tuple[Any | None, ...] | np.ndarray | None = None,
        probability: tuple[Any | None, ...] | None = None,
    ) -> tuple[Any, ...]:
        """A random ``(kind, amount)``; ``mask`` may be the kind mask alone (an int8 array of 3)."""
        if isinstance(mask, np.ndarray):
            mask = (mask, None)
        return super().sample(mask=mask, probability=probability)


class _Where:
    """Where an illegal action was tried, as text built only when an error message needs it."""

    def __init__(self, state: State) -> None:
        self.state = state

    def __str__(self) -> str:
        return f"at {self.state.betting_string()!r} (legal: {self.state.describe_legal()})"


def _chip_scale(game: GameDef) -> int:
    """The stack in no-limit games; in limit games the most a player can put in (when below the stack)."""
    if game.nolimit:
        return max(game.stack)
    most = max(game.blind) + sum(
        min(game.max_raises[r], MAX_ACTIONS_PER_ROUND) * game.raise_size[r] for r in range(game.num_rounds)
    )
    return max(1, min(max(game.stack), most))


class PokerEnv(AECEnv):
    """One hand of a heads-up game per episode (see the module docstring for the encodings).

    ``game``: a shipped game's short name (``"kuhn"``, ``"leduc"``, ``"leduc-nl"``,
    ``"hunl"``, ``"hulhe"``, ``"nlfh"``, ``"nlfh-small"``), a ``.game`` path or a
    :class:`~pokerbot.gamedef.GameDef`. ``bet_sizes``: the pot fractions of the
    no-limit menu (not allowed in limit games). ``all_in``: add an all-in entry to
    the no-limit menu. ``continuous_raise``: ``(kind, amount)`` actions instead of
    the menu. ``button``: the agent (0 or 1) that always plays ACPC position 1 (the
    small blind, first to act preflop, in hold'em; second to act in Kuhn and Leduc);
    None alternates: in hand ``h`` ``player_{h % 2}`` plays position 0.
    ``render_mode``: None, ``"human"`` (print after each reset and step) or
    ``"ansi"`` (:meth:`render` returns the text).
    """

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi"], "name": "pokerbot_v0", "is_parallelizable": False}

    def __init__(
        self,
        game: str | os.PathLike[str] | GameDef = "hunl",
        *,
        bet_sizes: Sequence[float] | None = None,
        all_in: bool = True,
        continuous_raise: bool = False,
        button: int | None = None,
        render_mode: RenderMode | None = None,
    ) -> None:
        super().__init__()
        self.game: GameDef = game if isinstance(game, GameDef) else load_game(os.fspath(game))
        g = self.game
        if g.num_players != 2:
            raise EnvError(f"the environment plays heads-up games; {g.name or 'this game'} has {g.num_players} players")
        if bet_sizes is not None and not g.nolimit:
            raise EnvError(f"bet_sizes is for no-limit games; {g.name or 'this game'} is a limit game (fixed raises)")
        sizes = tuple(float(f) for f in (DEFAULT_BET_SIZES if bet_sizes is None else bet_sizes))
        if any(not f > 0 or f != f or f == float("inf") for f in sizes):
            raise EnvError(f"bet_sizes must be positive finite pot fractions, got {sizes}")
        if button not in (None, 0, 1):
            raise EnvError(f"button must be 0, 1 or None (alternate), got {button!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise EnvError(f"render_mode must be None, 'human' or 'ansi', got {render_mode!r}")
        self.bet_sizes: tuple[float, ...] = sizes if g.nolimit else ()
        self.all_in: bool = bool(all_in) and g.nolimit
        self.continuous_raise: bool = bool(continuous_raise)
        self.button: int | None = button
        self.render_mode: RenderMode | None = render_mode
        #: Chip amounts in the observation are divided by this.
        self.chip_scale: int = _chip_scale(g)
        self._cards: list[int] = g.deck()
        self._card_index: dict[int, int] = {c: i for i, c in enumerate(self._cards)}
        if self.continuous_raise:
            self.action_labels: list[str] = ["fold", "check/call", "raise"]
        elif g.nolimit:
            self.action_labels = ["fold", "check/call"] + [f"raise {f:g} pot" for f in self.bet_sizes]
            self.action_labels += ["all-in"] if self.all_in else []
        else:
            self.action_labels = ["fold", "check/call", "raise"]
        n_actions = len(self.action_labels)
        self._labels = self.observation_labels()
        obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, shape=(len(self._labels),), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(n_actions,), dtype=np.int8),
        })
        self.possible_agents: list[str] = list(AGENTS)
        self.observation_spaces: dict[str, spaces.Dict] = {AGENTS[0]: obs_space, AGENTS[1]: obs_space}
        self.action_spaces: dict[str, spaces.Space[Any]] = {
            a: KindAmountSpace() if self.continuous_raise else spaces.Discrete(n_actions) for a in AGENTS
        }
        #: The dealer seed of the current match (set by :meth:`reset`).
        self.seed: int | None = None
        #: The number of the current hand within the match (0 after ``reset(seed=...)``).
        self.hand: int = -1
        self._deck: AcpcDeck | None = None
        self._state: State | None = None
        self._player0_agent = 0
        self.agents: list[str] = []
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}
        self.agent_selection: str = AGENTS[0]

    # --- spaces ---------------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def observation_labels(self) -> list[str]:
        """The name of each entry of the observation vector, in order (the documented encoding).

        >>> PokerEnv("kuhn").observation_labels()[:4]
        ['hole:Qs', 'hole:Ks', 'hole:As', 'board:Qs']
        >>> len(PokerEnv("hunl").observation_labels())
        135
        """
        g = self.game
        labels = [f"hole:{format_card(c)}" for c in self._cards]
        labels += [f"board:{format_card(c)}" for c in self._cards]
        labels += [f"round:{r}" for r in range(g.num_rounds)]
        labels += [f"position:{p}" for p in range(2)]
        labels += list(SCALARS)
        for r in range(g.num_rounds):
            labels += [f"r{r}:{who}_{what}" for who in ("own", "opp") for what in ("raises", "calls")]
        return labels

    # --- positions ------------------------------------------------------------------------

    def position_of(self, agent: str) -> int:
        """The ACPC position (0 or 1) ``agent`` plays in the current hand."""
        return (AGENTS.index(agent) - self._player0_agent) % 2

    def agent_at(self, position: int) -> str:
        """The agent playing ACPC position ``position`` in the current hand."""
        return AGENTS[(position + self._player0_agent) % 2]

    @property
    def game_state(self) -> State:
        """The engine state of the current hand, every card known (the dealer's view)."""
        if self._state is None:
            raise EnvError("reset the environment before reading its state")
        return self._state

    def view(self, agent: str) -> MatchState:
        """What ``agent`` sees as an ACPC player: own hole cards, the visible board, the opponent's cards only
        at a showdown. A :class:`~pokerbot.agent.Agent` acts on it: ``env.encode_action(bot.act(env.view(a)))``."""
        s = self.game_state
        p = self.position_of(agent)
        show = s.is_showdown()
        holes = [h if q == p or (show and not s.folded[q]) else () for q, h in enumerate(s.hole_cards)]
        return MatchState(p, s.with_cards(holes, s.visible_board))

    # --- the episode ------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a hand: hand 0 of a new match with dealer seed ``seed``, else the next hand of the match.

        Without a seed the first reset draws one at random (kept in :attr:`seed`). ``options`` is ignored.
        """
        if seed is not None or self._deck is None:
            if seed is None:
                seed = int(cast(int, np.random.SeedSequence().entropy) % 2**32)
            self._deck = AcpcDeck(self.game, int(seed))
            self.seed = int(seed)
            self.hand = 0
        else:
            self.hand += 1
        holes, board = self._deck.deal()
        self._player0_agent = self.hand % 2 if self.button is None else 1 - self.button
        self._state = State.initial(self.game, self.hand, holes, board)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {"hand": self.hand, "position": self.position_of(a)} for a in self.agents}
        player = self._state.current_player
        assert player is not None  # the blinds never end a hand
        self.agent_selection = self.agent_at(player)
        if self.render_mode == "human":
            self.render()

    def step(self, action: EnvAction | None) -> None:
        """Take ``action`` for :attr:`agent_selection` (None for an agent whose hand is over)."""
        if self._state is None:
            raise EnvError("reset the environment before stepping it")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise IllegalActionError(f"{agent} is to act: None is only for an agent whose hand is over")
        state = self.game_state.apply(self.decode_action(action))
        self._state = state
        self._cumulative_rewards[agent] = 0.0
        if state.finished:
            payoffs = state.payoffs()
            bb = self.game.big_blind or 1
            for a in self.agents:
                p = self.position_of(a)
                self.rewards[a] = payoffs[p] / bb
                self.terminations[a] = True
                self.infos[a] = {**self.infos[a], "chips": payoffs[p], "matchstate": format_matchstate(state, p)}
        else:
            player = state.current_player
            assert player is not None
            self.agent_selection = self.agent_at(player)
        self._accumulate_rewards()
        self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    # --- observations ------------------------------------------------------------------------

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``{"observation": float32 vector, "action_mask": int8 vector}`` for ``agent`` (see the module docstring)."""
        s = self.game_state
        g = self.game
        p = self.position_of(agent)
        o = 1 - p
        deck_n = len(self._cards)
        index = self._card_index
        scale = self.chip_scale
        to_act = s.current_player == p
        bounds = s.raise_bounds() if to_act else None
        spent = s.spent
        # Every chip figure is at most chip_scale (the stack, or the most a limit game lets a player put in).
        tail = [
            s.pot / (2 * scale),
            spent[p] / scale,
            spent[o] / scale,
            max(0, min(g.stack[p], scale) - spent[p]) / scale,
            max(0, min(g.stack[o], scale) - spent[o]) / scale,
            (0 if s.finished else max(0, min(s.max_spent, g.stack[p]) - spent[p])) / scale,
            0.0 if bounds is None else bounds[0] / scale,
            0.0 if bounds is None else bounds[1] / scale,
            1.0 if to_act else 0.0,
        ]
        for r in range(g.num_rounds):
            counts = [0, 0, 0, 0]  # own raises, own calls, opp raises, opp calls
            if r < len(s.history):
                for q, a in s.history[r]:
                    if a.kind != _FOLD:
                        counts[(0 if q == p else 2) + (0 if a.kind == _RAISE else 1)] += 1
            tail += [min(c, MAX_COUNT) / MAX_COUNT for c in counts]
        obs = np.zeros(len(self._labels), dtype=np.float32)
        ones = [index[c] for c in s.hole_cards[p]] + [deck_n + index[c] for c in s.visible_board]
        ones += [2 * deck_n + s.round, 2 * deck_n + g.num_rounds + p]
        obs[ones] = 1.0
        obs[2 * deck_n + g.num_rounds + 2 :] = tail
        mask = self.action_mask() if to_act else np.zeros(len(self.action_labels), dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    # --- actions ---------------------------------------------------------------------------------

    def menu_actions(self) -> list[Action | None]:
        """Per entry of the action space's mask, the engine action it takes now (None where illegal).

        In the menu (Discrete) form this is every entry; with ``continuous_raise`` the
        raise entry shows the minimum raise.

        >>> env = PokerEnv("hunl")
        >>> env.reset(seed=0)
        >>> [str(a) for a in env.menu_actions()]
        ['f', 'c', 'r200', 'r300', 'r500', 'r20000']
        """
        s = self.game_state
        if s.finished:
            return [None] * len(self.action_labels)
        out: list[Action | None] = [FOLD if s.can_fold() else None, CALL]
        bounds = s.raise_bounds()
        if not self.game.nolimit:
            out.append(None if bounds is None else RAISE)
        elif self.continuous_raise:
            out.append(None if bounds is None else raise_to(bounds[0]))
        else:
            for f in self.bet_sizes:
                out.append(None if bounds is None else raise_to(min(max(raise_size_for_fraction(s, f), bounds[0]),
                                                                    bounds[1])))
            if self.all_in:
                out.append(None if bounds is None else raise_to(bounds[1]))
        return out

    def action_mask(self) -> np.ndarray:
        """The int8 mask of the legal entries for the agent to act (all zeros once the hand is over)."""
        return np.array([a is not None for a in self.menu_actions()], dtype=np.int8)

    def decode_action(self, action: EnvAction) -> Action:
        """The engine action that ``action`` (from the action space) takes now; IllegalActionError if not legal."""
        s = self.game_state
        where = _Where(s)
        if not self.continuous_raise:
            if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
                raise IllegalActionError(f"a menu action is an int in 0..{len(self.action_labels) - 1}, got {action!r}")
            index = int(action)
            if not 0 <= index < len(self.action_labels):
                raise IllegalActionError(f"no menu action {index}: the menu has {len(self.action_labels)} entries")
            chosen = self.menu_actions()[index]
            if chosen is None:
                raise IllegalActionError(f"menu action {index} ({self.action_labels[index]}) is not legal {where}")
            return chosen
        kind, amount = self._kind_amount(action)
        if kind == ActionType.FOLD:
            if not s.can_fold():
                raise IllegalActionError(f"fold is not legal {where}")
            return FOLD
        if kind == ActionType.CALL:
            return CALL
        bounds = s.raise_bounds()
        if bounds is None:
            raise IllegalActionError(f"a raise is not legal {where}")
        if not self.game.nolimit:
            return RAISE
        lo, hi = bounds
        return raise_to(lo + int(np.floor(min(max(amount, 0.0), 1.0) * (hi - lo) + 0.5)))

    @staticmethod
    def _kind_amount(action: EnvAction) -> tuple[int, float]:
        """Read a ``(kind, amount)`` pair (a tuple, list, array or ``{"kind", "amount"}`` mapping)."""
        try:
            if isinstance(action, Mapping):
                kind_v, amount_v = action["kind"], action["amount"]
            else:
                kind_v, amount_v = action  # type: ignore[misc]
            kind = int(kind_v)
            amount = float(np.asarray(amount_v, dtype=np.float64).reshape(-1)[0])
        except (TypeError, ValueError, KeyError, IndexError):
            raise IllegalActionError(f"a continuous action is (kind, amount), got {action!r}") from None
        if kind not in (0, 1, 2) or amount != amount:
            raise IllegalActionError(f"a continuous action needs kind 0, 1 or 2 and a number amount, got {action!r}")
        return kind, amount

    def encode_action(self, action: Action) -> int | tuple[int, np.ndarray]:
        """The action-space action that takes the engine ``action`` now (IllegalActionError if it is illegal).

        With ``continuous_raise`` it is exact: :meth:`decode_action` gives ``action`` back. In
        the menu form a no-limit raise that is not on the menu becomes the entry with the nearest
        raise-to total (the first of equally near ones).

        >>> env = PokerEnv("hunl")
        >>> env.reset(seed=0)
        >>> env.encode_action(raise_to(300)), env.encode_action(raise_to(450))
        (3, 4)
        """
        s = self.game_state
        if not s.is_legal(action):
            raise IllegalActionError(f"{action} is not legal at {s.betting_string()!r} (legal: {s.describe_legal()})")
        kind = int(action.kind)
        if self.continuous_raise:
            amount = 0.0
            bounds = s.raise_bounds()
            if kind == ActionType.RAISE and self.game.nolimit and bounds is not None and bounds[1] > bounds[0]:
                amount = (action.size - bounds[0]) / (bounds[1] - bounds[0])
            return kind, np.array([amount], dtype=np.float32)
        if kind != ActionType.RAISE or not self.game.nolimit:
            return kind
        menu = self.menu_actions()
        near = [(abs(a.size - action.size), i) for i, a in enumerate(menu) if a is not None and a.kind == _RAISE]
        return min(near)[1]

    # --- rendering --------------------------------------------------------------------------------

    def render(self) -> str | None:
        """The hand as text: returned in ``"ansi"`` mode, printed in ``"human"`` mode."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        text = self._render_text()
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def _render_text(self) -> str:
        s = self.game_state
        head = (
            f"{self.game.name or 'game'} hand {s.hand_id} (seed {self.seed}): betting {s.betting_string() or '-'}, "
            f"board {format_cards(s.visible_board) or '-'}, pot {s.pot}"
        )
        lines = [head]
        for agent in self.possible_agents:
            p = self.position_of(agent)
            mark = ", to act" if s.current_player == p else ""
            lines.append(f"  {agent} (position {p}): {format_cards(s.hole_cards[p])}, {s.spent[p]} in the pot{mark}")
        if s.finished:
            payoffs = s.payoffs()
            lines.append("  won: " + ", ".join(f"{a} {payoffs[self.position_of(a)]:+g}" for a in self.possible_agents))
        return "\n".join(lines)

    def close(self) -> None:
        """Nothing to release."""

    def __repr__(self) -> str:
        form = "continuous" if self.continuous_raise else f"{len(self.action_labels)} actions"
        return f"PokerEnv({self.game.name or 'game'}, {form})"


def raw_env(
    game: str | os.PathLike[str] | GameDef = "hunl",
    *,
    bet_sizes: Sequence[float] | None = None,
    all_in: bool = True,
    continuous_raise: bool = False,
    button: int | None = None,
    render_mode: RenderMode | None = None,
) -> PokerEnv:
    """The environment without PettingZoo's wrappers (PettingZoo's ``raw_env`` convention)."""
    return PokerEnv(game, bet_sizes=bet_sizes, all_in=all_in, continuous_raise=continuous_raise, button=button,
                    render_mode=render_mode)


def env(
    game: str | os.PathLike[str] | GameDef = "hunl",
    *,
    bet_sizes: Sequence[float] | None = None,
    all_in: bool = True,
    continuous_raise: bool = False,
    button: int | None = None,
    render_mode: RenderMode | None = None,
) -> AECEnv:
    """The environment in PettingZoo's usual wrappers: out-of-bounds actions asserted (menu form) and the call
    order enforced (no step or observe before reset). Attribute reads reach the :class:`PokerEnv` inside."""
    e: AECEnv = raw_env(game, bet_sizes=bet_sizes, all_in=all_in, continuous_raise=continuous_raise, button=button,
                        render_mode=render_mode)
    if not continuous_raise:
        e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)
