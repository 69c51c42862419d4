"""A person against an agent, hand after hand, on the exact engine, with a durable ACPC log.

:class:`PlaySession` is the whole game logic behind ``pokerbot play``; the web
layer (:mod:`evaluation.play.server`) only moves JSON. It

- deals like the ACPC dealer (:class:`~pokerbot.protocol.deal.AcpcDeck`, so hand
  ``i`` of seed ``s`` has the same cards as in ``pokerbot match`` or the
  reference dealer) and rotates seats the same way: the person is seat 0
  (player 0 in even hands, player 1 in odd ones);
- runs every hand on :class:`~pokerbot.state.State` and shows the agent only
  what an ACPC player sees (the views :func:`evaluation.match.play_match` gives);
- appends each finished hand to an ACPC-format log the moment it ends (one
  ``write`` of the whole line, flushed and fsynced), and keeps the hand in
  progress in a small journal beside the log (``<log>.hand``, replaced
  atomically after every action). A new session on the same log replays both:
  finished hands are checked against the seeded deal, the hand in progress
  continues where it stopped (so a restart cannot be used to re-deal a bad hand);
- refuses bad input without touching the hand: an action for another hand or
  an older position (a double click, a stale tab), an illegal amount, a
  non-number. Every refusal is a :class:`PlayError` naming what was wrong.

Amounts the person types are *street* amounts, as on any poker site ("raise to
450" on the flop means 450 chips this street); the engine's ACPC raise-to
totals count the whole hand, and :meth:`PlaySession.act` converts.

>>> import tempfile, os
>>> from pokerbot.bots import make_agent
>>> from pokerbot.gamedef import load_game
>>> game = load_game("hunl")
>>> log = os.path.join(tempfile.mkdtemp(), "play.log")
>>> s = PlaySession(game, make_agent("call", game), seed=3, log_path=log)
>>> s.start_hand()                       # hand 0: the person is player 0, the big blind
>>> s.run_bot()                          # the small blind (the bot) acts first preflop: it calls
True
>>> s.act(hand=0, seq=1, kind="raise", amount=400).betting_string()
'cr400'
>>> s.run_bot()
True
>>> s.act(hand=0, seq=3, kind="bet", amount=19600).betting_string()     # all-in on the flop
'cr400c/r20000'
>>> s.run_bot()                          # it calls; the board runs out and the hand is logged
True
>>> s.chips, open(log).read().splitlines()[-1]
([-20000.0], 'STATE:0:cr400c/r20000c//:4cKs|KhKc/3s2hAh/9d/4s:-20000|20000:you|call')
"""

from __future__ import annotations

import json
import os
import threading
import time
import types
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from evaluation.aivat import Distribution, EquityValue, aivat_hand, distribution_arrays
from evaluation.match import _view as _agent_view  # the one home of an ACPC player's view
from evaluation.match import match_names
from evaluation.play.hands import showdown_words
from evaluation.stats import win_rate
from pokerbot.actions import action_text
from pokerbot.agent import Agent, fallback_note, legal_or_call
from pokerbot.cards import format_card
from pokerbot.errors import PokerbotError
from pokerbot.files import atomic_write_text
from pokerbot.gamedef import UNLIMITED_STACK, GameDef
from pokerbot.protocol.deal import AcpcDeck
from pokerbot.protocol.dealer import player0_seat_of, player_to_seat, seat_to_player
from pokerbot.protocol.log import format_hand_line, parse_log
from pokerbot.solver.tree import PotFractionMenu
from pokerbot.state import CALL, FOLD, Action, ActionType, State, raise_to

#: The person's seat; the agent sits in seat 1 (seats rotate positions every hand, as in the dealer).
HUMAN_SEAT = 0
BOT_SEAT = 1
#: Pot fractions offered as buttons (raise to the current bet plus f times the pot after calling).
PRESET_FRACTIONS: tuple[tuple[str, float], ...] = (
    ("⅓ pot", 1 / 3), ("½ pot", 0.5), ("¾ pot", 0.75), ("pot", 1.0), ("2× pot", 2.0),
)
#: Finished hands listed in a snapshot (newest first); the log keeps all of them.
HISTORY_IN_SNAPSHOT = 40
#: Points of the cumulative-winnings series in a snapshot (longer sessions are thinned evenly).
SERIES_POINTS = 400
#: A reported policy with more raise sizes than this is shown in the review as one "raise" row (the random bot).
REVIEW_RAISE_ROWS = 8
_HOLDEM_STREETS = ("preflop", "flop", "turn", "river")
_HEADER_TAG = "# pokerbot-play"


def _clip(text: str, limit: int = 24) -> str:
    """``text``, cut to ``limit`` characters with an ellipsis: a request's junk is not echoed whole.

    >>> _clip("9" * 30, 5)
    '99999…'
    """
    return text if len(text) <= limit else text[:limit] + "…"


class PlayError(PokerbotError, ValueError):
    """An action or request the session refuses; the hand and the log are left as they were."""


class StaleActionError(PlayError):
    """An action for a hand or position that is no longer current (a double click, an old tab)."""


class PlayLogError(PlayError):
    """A log or journal that does not belong to this session (other game, seed or players) or is damaged."""


@dataclass
class BotStatus:
    """What the agent is doing: thinking since when, how long its last decision took, its last failure."""

    thinking_since: float | None = None
    last_seconds: float | None = None
    decisions: int = 0
    total_seconds: float = 0.0
    error: str | None = None
    #: The agent's :meth:`~pokerbot.agent.Agent.decision_note` on its last decision.
    last_note: str | None = None


@dataclass
class BotDecision:
    """One decision of the agent: the policy it reported, how it decided (its note) and how long it took.

    ``policy`` is what :meth:`~pokerbot.agent.Agent.action_distribution` answered just before
    :meth:`~pokerbot.agent.Agent.act` at that decision, None when unknown (the agent does not say,
    or its answer did not fit what it played: then ``unknown`` says why).
    """

    index: int
    seconds: float
    note: str | None = None
    policy: list[tuple[Action, float]] | None = None
    unknown: str | None = None


@dataclass
class _Finished:
    """A finished hand as the page lists it: the person's chips and AIVAT estimate, the agent's decisions."""

    hand_id: int
    state: State
    human_player: int
    chips: float
    aivat: float = 0.0
    decisions: dict[int, BotDecision] = field(default_factory=dict)
    #: The review's JSON, made when the hand is recorded (then ``decisions`` is emptied: a random bot's
    #: policy has thousands of raise sizes, too many to keep for every hand) or on first demand.
    review: dict[str, Any] | None = None


@dataclass
class _Hand:
    """The hand in progress (or just finished): its full state and the cards dealt for it."""

    hand_id: int
    state: State
    human_player: int
    notes: list[str] = field(default_factory=list)
    #: The agent's decisions by the index of their action in the hand.
    decisions: dict[int, BotDecision] = field(default_factory=dict)


def street_name(game: GameDef, round_: int) -> str:
    """``preflop``/``flop``/``turn``/``river`` in hold'em, else ``round N``."""
    if game.num_rounds == 4 and game.num_board_cards[1:] == (3, 1, 1):
        return _HOLDEM_STREETS[round_]
    return f"round {round_ + 1}"


def street_base(state: State) -> int:
    """Chips each player still in had put in when the current round began (0 in the first round).

    A raise-to total of the engine minus this is the amount "raised to" this street.

    >>> from pokerbot.gamedef import load_game
    >>> s = State.from_betting(load_game("hunl"), "r300c/r450")
    >>> street_base(s), s.max_spent - street_base(s)
    (300, 150)
    """
    if state.round == 0:
        return 0
    s = State.initial(state.game)
    for action in state.actions():
        s = s.apply(action)
        if s.round == state.round:
            return max(s.spent)
    return max(s.spent)


def describe_action(state: State, action: Action, third_person: bool = True) -> str:
    """``action`` of the player to act in ``state`` in words, with street amounts.

    >>> from pokerbot.gamedef import load_game
    >>> s = State.from_betting(load_game("hunl"), "r300c/")
    >>> describe_action(s, raise_to(20000)), describe_action(s.apply(raise_to(450)), CALL, third_person=False)
    ('bets 19700 (all-in)', 'call 150')
    """
    s3 = "s" if third_person else ""
    if action.kind == ActionType.FOLD:
        return f"fold{s3}"
    to_call = state.to_call()
    if action.kind == ActionType.CALL:
        return f"call{s3} {to_call}" if to_call else f"check{s3}"
    base = street_base(state)
    actor = state.current_player
    assert actor is not None  # the player to act
    if action.size:
        size = action.size
    else:  # a limit raise has no size of its own
        bounds = state.raise_bounds()
        assert bounds is not None  # the raise is legal
        size = bounds[0]
    all_in = " (all-in)" if size >= state.game.stack[actor] else ""
    if state.max_spent > base:
        return f"raise{s3} to {size - base}{all_in}"
    return f"bet{s3} {size - base}{all_in}"


def settled_pot(state: State) -> int:
    """The pot as the hand settles it: a bet nobody called goes back to its owner, so it is not in the pot.

    >>> from pokerbot.gamedef import load_game
    >>> s = State.from_betting(load_game("hunl"), "r300c/r20000")
    >>> s.pot, settled_pot(s), settled_pot(s.apply(FOLD))
    (20300, 20300, 600)
    """
    if not state.finished:
        return state.pot
    matched = _matched(state)
    return sum(min(x, matched) for x in state.spent)


def _matched(state: State) -> int:
    """The most any player has in the pot that another has matched (the second largest ``spent``)."""
    spent = sorted(state.spent, reverse=True)
    return spent[1] if len(spent) > 1 else spent[0]


def aivat_value(seed: int, hand_id: int) -> EquityValue:
    """The value function that scores hand ``hand_id`` of a session with card seed ``seed`` (AIVAT).

    :class:`~evaluation.aivat.EquityValue` (the check-down value), with its preflop run-outs sampled
    from its own seed: a fresh one per hand, so a hand's estimate depends on that hand alone.
    """
    return EquityValue(seed=(int(seed) * 1_000_003 + int(hand_id)) % 2**63)


def checked_policy(state: State, policy: object,
                   played: Action) -> tuple[list[tuple[Action, float]] | None, str | None]:
    """``policy`` (an agent's reported distribution at ``state``) if AIVAT may use it, else (None, why not).

    It must be a list of (legal action, probability) pairs summing to 1 that gives the action the
    agent played a positive probability; a true report always is, so dropping the others keeps
    AIVAT unbiased (an agent's wrong report would not).
    """
    if policy is None:
        return None, "the agent does not report its policy"
    try:
        pairs = [(a, float(q)) for a, q in policy]  # type: ignore[attr-defined]
        if not pairs or not all(isinstance(a, Action) for a, _ in pairs):
            raise ValueError("not (Action, probability) pairs")
        kinds, sizes, probs = distribution_arrays(pairs)
    except (TypeError, ValueError) as exc:
        return None, f"the agent's policy is malformed ({_clip(str(exc), 60)})"
    if not np.isfinite(probs).all() or (probs < 0).any() or abs(float(probs.sum()) - 1.0) > 1e-6:
        return None, "the agent's policy is not a probability distribution"
    legal = np.ones(len(pairs), dtype=bool)
    if not state.can_fold():
        legal &= kinds != ActionType.FOLD
    bounds = state.raise_bounds()
    raises = kinds == ActionType.RAISE
    if bounds is None:
        legal &= ~raises
    elif state.game.nolimit:
        legal &= ~raises | ((sizes >= bounds[0]) & (sizes <= bounds[1]))
    if not legal.all():
        return None, "the agent's policy has illegal actions"
    if float(probs[(kinds == played.kind) & (sizes == played.size)].sum()) <= 0.0:
        return None, f"the agent's policy gives {played} no probability, yet it played it"
    return pairs, None


def _human_view(state: State, human_player: int) -> State:
    """What the person may see: what an ACPC player sees (own cards, visible board, a showdown's cards)."""
    return _agent_view(state, human_player).state


def _cards(cards: tuple[int, ...]) -> list[str]:
    return [format_card(c) for c in cards]


class PlaySession:
    """A person (seat 0) against ``bot`` (seat 1) in ``game``, cards from ``seed``, logged to ``log_path``.

    If ``log_path`` holds a log of the same game, seed and players, the session
    resumes it (see the module docstring); if it holds anything else, PlayLogError.
    Thread-safe: every method takes the session's lock, except that the agent's
    :meth:`~pokerbot.agent.Agent.act` runs outside it (:meth:`run_bot`), so the page
    can be served while the bot thinks.
    """

    def __init__(
        self,
        game: GameDef,
        bot: Agent,
        seed: int,
        log_path: str | os.PathLike[str],
        human_name: str = "you",
        spec: str = "",
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if game.num_players != 2:
            raise PlayError(f"play is heads-up; {game.name} has {game.num_players} players")
        self.game = game
        self.bot = bot
        self.seed = seed
        self.spec = spec or getattr(bot, "name", "bot")
        self.log_path = Path(log_path)
        self.journal_path = self.log_path.with_name(self.log_path.name + ".hand")
        human, bot_name = match_names(types.SimpleNamespace(name=human_name), bot)
        self.names = (human, bot_name)  # by seat
        self.clock = clock
        self.bot_status = BotStatus()
        self.warnings: list[str] = []
        self.chips: list[float] = []  # the person's chips per finished hand
        self.aivat: list[float] = []  # the person's AIVAT estimate per finished hand (chips)
        self.finished: list[_Finished] = []
        self.version = 0  # bumped on every change a page should redraw for
        self.run_id = os.urandom(6).hex()  # tells a page that the server was restarted
        self._lock = threading.RLock()
        self._deck = AcpcDeck(game, seed)
        self._hand: _Hand | None = None
        self._bot_busy = False
        self._started_match = False
        self._open_log()

    # --- the log and the journal ------------------------------------------------------

    def _header(self) -> str:
        spec = urllib.parse.quote(self.spec, safe="")
        return (f"{_HEADER_TAG} game={self.game.name} seed={self.seed} "
                f"human={self.names[0]} bot={self.names[1]} spec={spec}")

    def _open_log(self) -> None:
        path = self.log_path
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.stat().st_size == 0:
            with open(path, "w") as f:
                f.write(f"# name/game/hands/seed play {self.game.name} 0 {self.seed}\n")
                f.write(self._header() + "\n")
                f.write("# one STATE line per finished hand, appended as it ends; no SCORE line (open-ended)\n")
                f.flush()
                os.fsync(f.fileno())
            self._clear_journal()
            return
        raw = path.read_bytes()
        if not raw.endswith(b"\n"):
            # A line cut short by a crash mid-write: that hand was never recorded, so it is dropped
            # (and replayed from the journal or dealt again).
            keep = raw.rfind(b"\n") + 1
            with open(path, "r+b") as f:
                f.truncate(keep)
            self.warnings.append(f"dropped an unfinished last line of {path} ({len(raw) - keep} bytes)")
            raw = raw[:keep]
        try:
            lines = raw.decode().splitlines()
            log = parse_log(self.game, lines)
        except (PokerbotError, UnicodeDecodeError) as exc:
            raise PlayLogError(f"{path} is not a readable ACPC log: {exc}") from exc
        if self._header() not in log.comments:
            found = next((c for c in log.comments if c.startswith(_HEADER_TAG)), "no pokerbot-play header")
            raise PlayLogError(
                f"{path} belongs to another session ({found!r}); this one is {self._header()!r}: "
                "use another --log, or the same --game, --seed, --name and --agent"
            )
        if log.score is not None:
            raise PlayLogError(f"{path} holds a finished match (it has a SCORE line)")
        for i, rec in enumerate(log.hands):
            holes, board = self._deck.deal()
            human_player = self._human_player(i)
            state = rec.state
            names = self._names_by_player(i)
            where = f"{path}, hand {i}"
            if rec.hand_id != i:
                raise PlayLogError(f"{where}: hand number {rec.hand_id}, expected {i}")
            if list(rec.names) != names:
                raise PlayLogError(f"{where}: players {'|'.join(rec.names)}, expected {'|'.join(names)}")
            if [list(h) for h in state.hole_cards] != holes or list(state.visible_board) != board[: len(state.visible_board)]:
                raise PlayLogError(f"{where}: cards differ from the deal of seed {self.seed}")
            full = state.with_cards(holes, board)
            if [float(v) for v in rec.values] != full.payoffs():
                raise PlayLogError(f"{where}: values {rec.values} differ from the engine's {full.payoffs()}")
            self._record(self._scored(i, full, human_player, {}))  # the agent's policies died with the last server
        self._resume_journal()

    def _scored(self, hand_id: int, state: State, human_player: int, decisions: dict[int, BotDecision]) -> _Finished:
        """The finished hand with the person's chips and AIVAT estimate (:func:`evaluation.aivat.aivat_hand`).

        The agent's decisions count with the policies it reported; the person's, and the agent's where its
        policy is unknown, get no decision term (the chance terms are always there).
        """
        dists: list[Distribution] = [decisions[i].policy if i in decisions else None
                                     for i in range(len(state.actions()))]
        value_fn = aivat_value(self.seed, hand_id)
        value_fn.seat = human_player
        _, estimate = aivat_hand(state, value_fn, dists)
        chips = state.payoffs()[human_player]
        return _Finished(hand_id, state, human_player, chips, estimate if human_player == 0 else -estimate, decisions)

    def _record(self, done: _Finished) -> None:
        if done.decisions:
            done.review = self._review_json(done)
            done.decisions = {}
        self.finished.append(done)
        self.chips.append(done.chips)
        self.aivat.append(done.aivat)

    def _resume_journal(self) -> None:
        """Continue the hand that was in progress when the last session stopped, if any."""
        if not self.journal_path.exists():
            return
        try:
            data = json.loads(self.journal_path.read_text())
            hand_id, betting = int(data["hand"]), str(data["betting"])
        except (ValueError, KeyError, TypeError, OSError) as exc:
            self.warnings.append(f"ignored an unreadable journal {self.journal_path}: {exc}")
            self._clear_journal()
            return
        if hand_id != len(self.finished):
            self._clear_journal()  # the hand it held was logged before the stop
            return
        holes, board = self._deck.deal()
        try:
            state = State.from_betting(self.game, betting, hand_id, holes, board)
        except PokerbotError as exc:
            raise PlayLogError(f"journal {self.journal_path} holds betting {betting!r} that does not replay: {exc}") from exc
        self._hand = _Hand(hand_id, State.initial(self.game, hand_id, holes, board), self._human_player(hand_id),
                           ["resumed after a restart"])
        self._begin_match()
        self._hook("begin_hand", _agent_view(self._hand.state, self._bot_player(hand_id)))
        if state.finished:
            self._finish(state)
        else:
            self._hand.state = state
        self.version += 1

    def _write_journal(self) -> None:
        hand = self._hand
        assert hand is not None
        atomic_write_text(self.journal_path, json.dumps({"hand": hand.hand_id, "betting": hand.state.betting_string()}))

    def _clear_journal(self) -> None:
        try:
            self.journal_path.unlink()
        except FileNotFoundError:
            pass

    def _append_log(self, line: str) -> None:
        """Append one line durably; on failure the log is cut back to what it was and PlayLogError is raised."""
        try:
            with open(self.log_path, "a") as f:
                size = f.tell()
                try:
                    f.write(line + "\n")  # one write: a crash leaves a whole line or a cut one, never two mixed
                    f.flush()
                    os.fsync(f.fileno())
                except OSError:
                    f.truncate(size)
                    raise
        except OSError as exc:
            raise PlayLogError(f"could not append to the log {self.log_path}: {exc}; the action was not taken") from exc

    # --- seats ----------------------------------------------------------------------

    def _human_player(self, hand_id: int) -> int:
        return seat_to_player(2, player0_seat_of(hand_id, 2, False), HUMAN_SEAT)

    def _bot_player(self, hand_id: int) -> int:
        return 1 - self._human_player(hand_id)

    def _names_by_player(self, hand_id: int) -> list[str]:
        p0 = player0_seat_of(hand_id, 2, False)
        return [self.names[player_to_seat(2, p0, p)] for p in range(2)]

    # --- playing ----------------------------------------------------------------------

    def _begin_match(self) -> None:
        if not self._started_match:
            self._hook("begin_match", self.game)
            self._started_match = True

    @property
    def hand(self) -> _Hand | None:
        return self._hand

    def start_hand(self, after: int | None = None) -> None:
        """Deal the next hand. ``after``: the hand the page saw finish (a repeated click deals only once)."""
        with self._lock:
            current = self._hand
            if current is not None and not current.state.finished:
                raise StaleActionError(f"hand {current.hand_id} is still being played")
            if after is not None and current is not None and after != current.hand_id:
                raise StaleActionError(f"hand {after} is not the last hand (hand {current.hand_id} is)")
            hand_id = len(self.finished)
            holes, board = self._deck.deal()
            state = State.initial(self.game, hand_id, holes, board)
            self._hand = _Hand(hand_id, state, self._human_player(hand_id))
            self._write_journal()
            self.bot_status.error = None
            self._begin_match()
            self._hook("begin_hand", _agent_view(state, self._bot_player(hand_id)))
            self.version += 1

    def bot_to_act(self) -> bool:
        """Whether the agent is to act now (and is not already thinking)."""
        with self._lock:
            h = self._hand
            return (h is not None and not h.state.finished and h.state.current_player != h.human_player
                    and not self._bot_busy)

    def human_to_act(self) -> bool:
        with self._lock:
            h = self._hand
            return h is not None and not h.state.finished and h.state.current_player == h.human_player

    def run_bot(self) -> bool:
        """Let the agent take its action if it is to act; False if it was not. Blocks while it thinks.

        The agent's ``act`` runs outside the lock; nothing can change the hand meanwhile,
        as only the player to act moves it. An exception or an illegal answer from the
        agent becomes the dealer's repair (a clamped raise, else check/call), noted on the page.
        Before ``act`` the agent is asked for its policy (``action_distribution``: AIVAT and the
        review use it; the contract of that method is that asking does not change the play), and
        after it for its :meth:`~pokerbot.agent.Agent.decision_note`; the decision's time counts both.
        """
        with self._lock:
            if not self.bot_to_act():
                return False
            hand = self._hand
            assert hand is not None
            self._bot_busy = True
            player = hand.state.current_player
            assert player is not None  # bot_to_act: the hand goes on
            view = _agent_view(hand.state, player)
            start = self.clock()
            self.bot_status.thinking_since = start
            self.version += 1
        error = None
        policy: object = None
        unknown = None
        try:
            policy = self.bot.action_distribution(view)
        except Exception as exc:  # a policy it cannot report is unknown; the play goes on
            unknown = f"action_distribution failed: {type(exc).__name__}: {_clip(str(exc), 60)}"
        try:
            action = self.bot.act(view)
        except Exception as exc:  # a broken agent must not break the person's session
            action, error = CALL, f"{type(exc).__name__}: {exc}"
        note = None
        if error is None:
            try:
                raw_note = getattr(self.bot, "decision_note", lambda: None)()
                note = None if raw_note is None else _clip(str(raw_note), 120)
            except Exception as exc:
                note = f"decision_note failed: {type(exc).__name__}"
        seconds = self.clock() - start
        with self._lock:
            try:
                status = self.bot_status
                status.thinking_since = None
                status.last_seconds = seconds
                status.decisions += 1
                status.total_seconds += seconds
                state = hand.state
                if not isinstance(action, Action) or not state.is_legal(action):
                    fixed = legal_or_call(state, action) if isinstance(action, Action) else CALL
                    error = error or f"the agent answered {action}, not legal at {state.betting_string()!r}"
                    action = fixed
                index = len(state.actions())
                if error:
                    status.error = f"hand {hand.hand_id}: {error}; played {action} instead"
                    hand.notes.append(status.error)
                    checked, unknown = None, unknown or "the agent failed; the dealer's repair was played"
                    note = f"error: the dealer played {describe_action(state, action, third_person=False)}"
                elif unknown is None:
                    checked, unknown = checked_policy(state, policy, action)
                else:
                    checked = None
                decision = BotDecision(index, seconds, note, checked, unknown)
                status.last_note = note
                self._apply(action, decision)
            except PlayLogError as exc:
                status.error = str(exc)  # the agent is asked again on the next try
                raise
            finally:
                self._bot_busy = False
                self.version += 1
        return True

    def act(self, hand: int, seq: int, kind: str, amount: int | str | None = None) -> State:
        """The person's action ``kind`` (fold, call/check, raise/bet) in hand ``hand`` after ``seq`` actions.

        ``amount`` (raises only) is the street total to raise to; the engine gets the
        hand total. Returns the new state. Raises StaleActionError if ``hand``/``seq``
        is not the current position, PlayError for an illegal action or amount.
        """
        with self._lock:
            h = self._hand
            if h is None or hand != h.hand_id or seq != len(h.state.actions()):
                where = "no hand" if h is None else f"hand {h.hand_id} after {len(h.state.actions())} actions"
                raise StaleActionError(f"action for hand {hand} after {seq} actions, but the table is at {where}")
            state = h.state
            if state.finished or state.current_player != h.human_player:
                raise StaleActionError(f"it is not your turn in hand {hand}")
            action = self._parse_action(state, kind, amount)
            self._apply(action)
            self.version += 1
            return h.state

    def _parse_action(self, state: State, kind: str, amount: int | str | None) -> Action:
        kind = str(kind).lower()
        if kind == "fold":
            if not state.can_fold():
                raise PlayError("you cannot fold: nothing to call, check instead")
            return FOLD
        if kind in ("call", "check"):
            return CALL
        if kind not in ("raise", "bet"):
            raise PlayError(f"unknown action {_clip(kind)!r}: use fold, call, check, raise or bet")
        bounds = state.raise_bounds()
        if bounds is None:
            raise PlayError("no raise is allowed here")
        if not self.game.nolimit:
            return Action(ActionType.RAISE)
        base = street_base(state)
        lo, hi = bounds[0] - base, bounds[1] - base
        text = str(amount).strip() if amount is not None else ""
        if not (text.isascii() and text.isdigit()):
            raise PlayError(f"raise amount {_clip(text) or 'missing'!r} is not a whole number of chips: {lo}..{hi}")
        digits = text.lstrip("0") or "0"
        if len(digits) > len(str(hi)):  # more digits than any legal amount (and than int() converts, at 4300)
            raise PlayError(f"raise to {_clip(digits)} is not legal: raise to {lo}..{hi} this street")
        street_to = int(digits)
        if not lo <= street_to <= hi:
            raise PlayError(f"raise to {street_to} is not legal: raise to {lo}..{hi} this street")
        return raise_to(base + street_to)

    def _apply(self, action: Action, decision: BotDecision | None = None) -> None:
        """Take ``action`` (the agent's ``decision``, if it is the agent's): a finished hand is logged first and
        only then becomes the table's state, so a failed write (a full disk) leaves the hand where it was and
        the log whole."""
        hand = self._hand
        assert hand is not None
        new = hand.state.apply(action)
        if decision is not None:
            hand.decisions[decision.index] = decision
        try:
            if new.finished:
                self._finish(new)
                return
            before = hand.state
            hand.state = new
            try:
                self._write_journal()
            except OSError as exc:
                hand.state = before
                raise PlayLogError(f"could not write the journal {self.journal_path}: {exc}; "
                                   "the action was not taken") from exc
        except PlayLogError:
            if decision is not None:
                hand.decisions.pop(decision.index, None)
            raise

    def _finish(self, state: State) -> None:
        """Log the finished hand (before anything else), then show it, forget the journal and tell the agent."""
        hand = self._hand
        assert hand is not None
        values = state.payoffs()
        self._append_log(format_hand_line(state, values, self._names_by_player(hand.hand_id)))
        hand.state = state
        self._record(self._scored(hand.hand_id, state, hand.human_player, dict(hand.decisions)))
        self._clear_journal()
        self._hook("end_hand", _agent_view(state, 1 - hand.human_player))

    def _hook(self, name: str, *args: object) -> None:
        """Call the agent's ``begin_match``/``begin_hand``/``end_hand``; a failure is shown, not raised."""
        try:
            getattr(self.bot, name)(*args)
        except Exception as exc:  # a broken agent must not break the person's session
            where = f"hand {self._hand.hand_id}: " if self._hand is not None else ""
            self.bot_status.error = f"{where}{name} failed: {type(exc).__name__}: {exc}"

    # --- what the page shows --------------------------------------------------------------

    def legal(self) -> dict[str, Any] | None:
        """The person's legal actions now (street amounts), or None when it is not their turn."""
        with self._lock:
            if not self.human_to_act():
                return None
            assert self._hand is not None  # human_to_act: a hand is on
            state = self._hand.state
            out: dict[str, Any] = {"fold": state.can_fold(), "call": state.to_call(), "raise": None}
            bounds = state.raise_bounds()
            if bounds is None:
                return out
            base = street_base(state)
            presets = [{"label": "min", "to": bounds[0] - base}] if bounds[0] < bounds[1] else []
            if self.game.nolimit:
                for label, frac in PRESET_FRACTIONS:
                    raises = [a for a in PotFractionMenu((frac,), all_in=False, max_raises=10**6)(state)
                              if a.kind == ActionType.RAISE]
                    size = raises[-1].size - base
                    if bounds[0] - base < size < bounds[1] - base and all(p["to"] != size for p in presets):
                        presets.append({"label": label, "to": size})
            out["raise"] = {
                "min": bounds[0] - base,
                "max": bounds[1] - base,
                "presets": presets,
                "word": "raise" if state.max_spent > base else "bet",
            }
            return out

    def stats(self) -> dict[str, Any]:
        """The person's result so far, plain and luck-adjusted (AIVAT): hands, chips, mbb/g with 95% CIs,
        cumulative big blinds (``series``, ``aivat_series``: ``[hands, bb]`` points), and ``fallbacks``: how
        many of the bot's decisions fell back to its blueprint, in words (None when none did)."""
        with self._lock:
            n = len(self.chips)
            out: dict[str, Any] = {"hands": n}
            for prefix, values in (("", self.chips), ("aivat_", self.aivat)):
                rate = win_rate(values, self.game) if n else None
                cumulative, total = [0.0], 0.0
                for c in values:
                    total += c
                    cumulative.append(total / self.game.big_blind)
                step = max(1, -(-len(cumulative) // SERIES_POINTS))
                series = [[i, round(cumulative[i], 2)] for i in range(0, len(cumulative), step)]
                if series[-1][0] != n:
                    series.append([n, round(cumulative[n], 2)])
                out.update({
                    f"{prefix}chips": total,
                    f"{prefix}mbb": rate.mbb if rate else None,
                    f"{prefix}ci95": rate.ci95 if rate is not None and n >= 2 else None,
                    f"{prefix}series": series,
                })
            out["fallbacks"] = fallback_note(self.bot.decision_counts())
            return out

    def _bb(self, chips: float) -> str:
        """Chips as big blinds, for results: ``4.5 bb``."""
        return f"{round(chips / self.game.big_blind, 2):g} bb"

    def _hand_json(self, hand: _Hand) -> dict[str, Any]:
        state = hand.state
        human, bot = hand.human_player, 1 - hand.human_player
        seen = _human_view(state, human)
        stack = self.game.stack
        unlimited = stack[human] >= UNLIMITED_STACK
        # Chips behind each player: the stack less what is in the pot, and once the hand is over, after the
        # pot is settled (every hand starts again from the game's stacks, as in ACPC matches).
        settled = state.payoffs() if state.finished else [0.0, 0.0]
        behind = [stack[p] - state.spent[p] if not state.finished else stack[p] + round(settled[p]) for p in range(2)]
        pot = settled_pot(state)
        cap = _matched(state) if state.finished else state.max_spent  # an uncalled bet went back to its owner
        in_pot = [min(x, cap) for x in state.spent]
        actions = []
        last: dict[str, tuple[int, str, str | None]] = {}
        s = State.initial(self.game, hand.hand_id)
        for i, action in enumerate(state.actions()):
            who = "you" if s.current_player == human else "bot"
            text = describe_action(s, action, third_person=who == "bot")
            decision = hand.decisions.get(i) if who == "bot" else None
            actions.append({"who": who, "street": street_name(self.game, s.round), "text": text,
                            "note": decision.note if decision else None,
                            "seconds": decision.seconds if decision else None})
            last[who] = (s.round, text, decision.note if decision else None)
            s = s.apply(action)

        def last_action(who: str) -> dict[str, Any] | None:
            if who not in last:
                return None
            round_, text, note = last[who]
            street = street_name(self.game, round_)
            return {"text": text if round_ == state.round else f"{street}: {text}", "street": street, "note": note}

        result = None
        words: dict[str, str] | None = None
        if state.finished:
            won = state.payoffs()[human]
            if state.is_showdown():
                board = state.visible_board
                mine, theirs = showdown_words(state.hole_cards[human], state.hole_cards[bot], board)
                words = {"you": mine, "bot": theirs}
                how = f"at showdown with {mine} against {theirs}"
                text = (f"You win {self._bb(won)} {how}" if won > 0 else f"You lose {self._bb(-won)} {how}"
                        if won < 0 else f"Split pot at showdown: both have {mine}")
            else:
                how = "(bot folded)" if state.folded[bot] else "(you folded)"
                text = (f"You win {self._bb(won)} {how}" if won > 0 else f"You lose {self._bb(-won)} {how}"
                        if won < 0 else f"Split pot {how}")
            result = {"chips": won, "bb": won / self.game.big_blind, "showdown": state.is_showdown(),
                      "hands": words, "text": text}
        base = street_base(state)
        return {
            "id": hand.hand_id,
            "seq": len(state.actions()),
            "finished": state.finished,
            "street": "showdown" if state.is_showdown() else street_name(self.game, state.round),
            "board": _cards(seen.visible_board),
            "you": {
                "cards": _cards(seen.hole_cards[human]),
                "stack": None if unlimited else behind[human],
                "in_pot": in_pot[human],
                "street_bet": state.spent[human] - base if not state.finished else 0,
                "button": human == 1,  # reverse blinds: player 1 is the small blind and the button
                "last_action": last_action("you"),
                "hand_name": words["you"] if words else None,
            },
            "bot": {
                "cards": _cards(seen.hole_cards[bot]) if seen.hole_cards[bot] else None,
                "stack": None if unlimited else behind[bot],
                "in_pot": in_pot[bot],
                "street_bet": state.spent[bot] - base if not state.finished else 0,
                "button": bot == 1,
                "last_action": last_action("bot"),
                "hand_name": words["bot"] if words else None,
            },
            "pot": pot,
            "to_act": None if state.finished else ("you" if state.current_player == human else "bot"),
            "actions": actions,
            "betting": state.betting_string(),
            "result": result,
            "notes": list(hand.notes),
        }

    def _history_json(self) -> list[dict[str, Any]]:
        out = []
        for done in reversed(self.finished[-HISTORY_IN_SNAPSHOT:]):
            state, human = done.state, done.human_player
            seen = _human_view(state, human)
            bot_cards = seen.hole_cards[1 - human]
            out.append({
                "id": done.hand_id,
                "you": _cards(state.hole_cards[human]),
                "bot": _cards(bot_cards) if bot_cards else None,
                "board": _cards(seen.visible_board),
                "betting": state.betting_string(),
                "position": "SB" if human == 1 else "BB",
                "chips": done.chips,
                "aivat": done.aivat,
            })
        return out

    def _policy_rows(self, state: State, policy: list[tuple[Action, float]]) -> list[dict[str, Any]]:
        """A reported policy as review rows (one per action, the same action merged; many raise sizes as one row)."""
        merged: dict[Action, float] = {}
        for a, q in policy:
            merged[a] = merged.get(a, 0.0) + q
        raises = [a for a in merged if a.kind == ActionType.RAISE]
        rows: list[dict[str, Any]] = []
        for a, q in merged.items():
            if a.kind == ActionType.RAISE and len(raises) > REVIEW_RAISE_ROWS:
                continue
            rows.append({"action": action_text(a, self.game.nolimit),
                         "text": describe_action(state, a, third_person=False), "p": q})
        if len(raises) > REVIEW_RAISE_ROWS:
            base = street_base(state)
            sizes = sorted(a.size - base for a in raises)
            word = "raise to" if state.max_spent > base else "bet"
            rows.append({"action": None, "text": f"{word} {sizes[0]}..{sizes[-1]} ({len(raises)} sizes)",
                         "p": sum(merged[a] for a in raises)})
        return rows

    def _review(self, done: _Finished) -> dict[str, Any]:
        if done.review is None:
            done.review = self._review_json(done)
        return done.review

    def _review_json(self, done: _Finished) -> dict[str, Any]:
        """The agent's side of a finished hand: its cards, and at each of its decisions what it played, how, and
        with which probabilities (the policy it reported before acting, for the cards it held)."""
        state, human = done.state, done.human_player
        bot = 1 - human
        decisions = []
        s = State.initial(self.game, done.hand_id)
        for i, action in enumerate(state.actions()):
            if s.current_player == bot:
                d = done.decisions.get(i)
                decisions.append({
                    "index": i,
                    "street": street_name(self.game, s.round),
                    "before": s.betting_string(),
                    "pot": s.pot,
                    "to_call": s.to_call(),
                    "played": describe_action(s, action, third_person=False),
                    "played_action": action_text(action, self.game.nolimit),
                    "note": d.note if d else None,
                    "seconds": d.seconds if d else None,
                    "policy": self._policy_rows(s, d.policy) if d and d.policy is not None else None,
                    "unknown": None if d and d.policy is not None else (
                        d.unknown if d else "made before the server restarted, not recorded"),
                })
            s = s.apply(action)
        return {
            "id": done.hand_id,
            "bot_position": "SB" if bot == 1 else "BB",
            "bot_cards": _cards(state.hole_cards[bot]),
            "you": _cards(state.hole_cards[human]),
            "board": _cards(state.visible_board),
            "chips": done.chips,
            "aivat": done.aivat,
            "decisions": decisions,
        }

    def snapshot(self) -> dict[str, Any]:
        """Everything the page draws, as JSON-ready data; never a card the person may not see."""
        with self._lock:
            status = self.bot_status
            thinking = status.thinking_since
            return {
                "run": self.run_id,
                "version": self.version,
                "game": self.game.name,
                "big_blind": self.game.big_blind,
                "hole_cards": self.game.num_hole_cards,
                "board_cards": self.game.total_board_cards,
                "names": {"you": self.names[0], "bot": self.names[1], "spec": self.spec},
                "hand": self._hand_json(self._hand) if self._hand is not None else None,
                "legal": self.legal(),
                "bot_status": {
                    "thinking": thinking is not None,
                    "thinking_for": None if thinking is None else self.clock() - thinking,
                    "last_seconds": status.last_seconds,
                    "mean_seconds": status.total_seconds / status.decisions if status.decisions else None,
                    "error": status.error,
                    "last_note": status.last_note,
                },
                "stats": self.stats(),
                "history": self._history_json(),
                "review": self._review(self.finished[-1]) if self.finished else None,
                "log": str(self.log_path),
                "warnings": list(self.warnings),
            }
