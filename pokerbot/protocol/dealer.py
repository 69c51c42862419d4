"""An ACPC 2.0.0 dealer that behaves like the reference ``dealer``.

It opens one port per seat and prints them on one line, waits for the players,
reads each one's ``VERSION`` line, deals every hand from the reference
dealer's seeded generator (:mod:`pokerbot.protocol.deal`, so the same seed
deals the same cards), sends every state to every seat, rotates the seats
between hands, and writes ``<match>.log`` in the reference format, flushed
after every hand. The treatment of faults follows ``dealer.c``:

- comment lines (``#``/``;``) from a player are ignored;
- a line that is not a match state, or a response to a state other than the
  one asked, is ignored with a warning (the player can still answer in time);
- a no-limit raise outside the legal sizes is clamped to the nearest one;
- any other invalid action (or an unreadable one) becomes a call, and once a
  seat has made more than ``max_invalid`` of them the match ends with an error;
- a response slower than ``t_response``, or a seat over ``t_hand`` within a
  hand or over ``t_per_hand`` × hands in the match, ends the match with an error;
- a player that disconnects ends the match with an error.

Where the reference dealer would wait forever (it reads ``VERSION`` with no
time limit, and restarts the response clock after every ignored line), this
one measures every wait against the response deadline, so a silent or
babbling player cannot hang a match. A ``VERSION`` line that does not parse,
or names another major version, is refused with an error (the reference
prints an error for the latter and plays on). Hands finished before an error
stay in the log and in :attr:`DealerResult.hand_values`.

Extensions (off by default): ``max_invalid`` (the reference fixes it at
2**32-1), ``duplicate`` (hands 2k and 2k+1 share their cards; with the seat
rotation the players swap positions), ``coalesce`` (a seat is sent its
queued states only when it must act, several lines per write: the same lines
in the same order, fewer packets and wake-ups) and ``host`` (the address to
listen on, 127.0.0.1 unless told otherwise).

>>> from pokerbot.gamedef import load_game
>>> cfg = DealerConfig("m", load_game("kuhn"), hands=10, seed=1, names=["A", "B"], log=False)
>>> cfg.log_path is None and cfg.t_per_hand_ms
7000
"""

from __future__ import annotations

import socket
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TextIO

from pokerbot.actions import Action, action_text, parse_action
from pokerbot.errors import MatchStateError, PokerbotError, ProtocolError
from pokerbot.gamedef import GameDef
from pokerbot.cards import format_cards
from pokerbot.infoset import board_text
from pokerbot.matchstate import parse_matchstate
from pokerbot.protocol.deal import AcpcDeck
from pokerbot.protocol.log import LogWriter, format_score_line, header_lines
from pokerbot.protocol.net import LineConnection, LineTimeout
from pokerbot.state import CALL, State

VERSION = (2, 0, 0)
DEFAULT_MAX_INVALID = 2**32 - 1
DEFAULT_T_RESPONSE_MS = 600_000
DEFAULT_T_HAND_MS = 600_000
DEFAULT_T_PER_HAND_MS = 7_000


def seat_messages(state: State, hole_text: Sequence[str], player0_seat: int) -> list[str]:
    """The MATCHSTATE line for every seat (same text as :func:`format_matchstate`, built once per state).

    ``hole_text[p]``: player ``p``'s hole cards as text.
    """
    game = state.game
    n = game.num_players
    head = f"{state.hand_id}:{state.betting_string()}:"
    board = board_text(state)
    show = state.is_showdown()
    folded = state.folded
    out = []
    for seat in range(n):
        viewer = (seat + n - player0_seat) % n
        holes = "|".join(
            hole_text[p] if p == viewer or (show and not folded[p]) else "" for p in range(n)
        )
        out.append(f"MATCHSTATE:{viewer}:{head}{holes}{board}")
    return out


class HandMessages:
    """The MATCHSTATE lines of one hand, built from text kept up to date action by action.

    Gives the same lines as :func:`seat_messages` without rebuilding the betting
    string and the board from the state at every step: the betting grows by
    each action's text (and a ``/`` per round passed), the hole-card and board
    texts are made once per hand.
    """

    def __init__(self, state: State, hole_text: Sequence[str], player0_seat: int) -> None:
        game = state.game
        n = game.num_players
        self._state = state
        self._hole_text = list(hole_text)
        self._viewers = [(seat + n - player0_seat) % n for seat in range(n)]
        # Per seat: the hole cards it sees before a showdown (its own).
        self._own = ["|".join(hole_text[p] if p == v else "" for p in range(n)) for v in self._viewers]
        board = state.board_cards
        self._boards: list[str] = []
        text = ""
        for r in range(game.num_rounds):
            cards = board[game.board_cards_before(r) : game.board_cards_through(r)]
            text = f"{text}/{format_cards(cards)}" if r else format_cards(cards)
            self._boards.append(text)
        self._head = f"MATCHSTATE:{{}}:{state.hand_id}:"
        self._betting = ""

    def apply(self, state: State, text: str) -> None:
        """Follow ``state``, reached from the last one by the action written ``text`` (its :func:`action_text`)."""
        self._betting += text + "/" * (state.round - self._state.round)
        self._state = state

    @property
    def betting(self) -> str:
        """The betting string of the current state."""
        return self._betting

    def lines(self) -> list[str]:
        """The current state's line for every seat, in seat order."""
        state = self._state
        n = len(self._viewers)
        tail = f"{self._betting}:"
        board = self._boards[state.round]
        hand = state.hand_id
        if state.is_showdown():
            folded = state.folded
            shown = [
                "|".join(self._hole_text[p] if p == v or not folded[p] else "" for p in range(n))
                for v in self._viewers
            ]
            return [f"MATCHSTATE:{v}:{hand}:{tail}{shown[i]}{board}" for i, v in enumerate(self._viewers)]
        own = self._own
        return [f"MATCHSTATE:{v}:{hand}:{tail}{own[i]}{board}" for i, v in enumerate(self._viewers)]


class DealerError(ProtocolError):
    """The match was stopped: a player broke a rule the dealer cannot repair."""


def seat_to_player(num_players: int, player0_seat: int, seat: int) -> int:
    """The position played by ``seat`` when player 0 sits in ``player0_seat`` (ACPC ``seatToPlayer``)."""
    return (seat + num_players - player0_seat) % num_players


def player_to_seat(num_players: int, player0_seat: int, player: int) -> int:
    """The seat playing position ``player`` (ACPC ``playerToSeat``)."""
    return (player + player0_seat) % num_players


def player0_seat_of(hand_index: int, num_players: int, fixed_seats: bool) -> int:
    """Seat of player 0 in hand ``hand_index``: hand 0 has seat 0 as player 0, then it rotates."""
    return 0 if fixed_seats else hand_index % num_players


def parse_version(line: str) -> tuple[int, int, int]:
    """Parse ``VERSION:<major>.<minor>.<revision>``; ProtocolError if it is not one."""
    if not line.startswith("VERSION:"):
        raise ProtocolError(f"invalid version string {line!r} (expected VERSION:2.0.0)")
    parts = line[len("VERSION:") :].strip().split(".")
    if len(parts) != 3 or not all(p.isascii() and p.isdigit() for p in parts):
        raise ProtocolError(f"invalid version string {line!r} (expected VERSION:2.0.0)")
    return int(parts[0]), int(parts[1]), int(parts[2])


@dataclass
class DealerConfig:
    """Everything the dealer command line sets (times in milliseconds, as the reference)."""

    match_name: str
    game: GameDef
    hands: int
    seed: int
    names: Sequence[str]
    game_file: str = ""
    ports: Sequence[int] | None = None
    fixed_seats: bool = False
    log: bool = True
    append: bool = False
    quiet: bool = False
    t_response_ms: int = DEFAULT_T_RESPONSE_MS
    t_hand_ms: int = DEFAULT_T_HAND_MS
    t_per_hand_ms: int = DEFAULT_T_PER_HAND_MS
    start_timeout_ms: int = -1
    max_invalid: int = DEFAULT_MAX_INVALID
    duplicate: bool = False
    host: str = "127.0.0.1"
    log_file: str | None = None
    #: Extension: send a seat its states only when it must act (and at the end), several per
    #: packet. Each seat gets the same lines in the same order, just fewer wake-ups.
    coalesce: bool = False

    def __post_init__(self) -> None:
        n = self.game.num_players
        if self.hands <= 0:
            raise PokerbotError(f"invalid number of hands {self.hands}")
        if len(self.names) != n:
            raise PokerbotError(f"the game has {n} players, got {len(self.names)} names")
        if any(not name or any(c in name for c in ":|\r\n") for name in self.names):
            raise PokerbotError(f"player names must be non-empty without ':' or '|': {list(self.names)}")
        if self.ports is not None and len(self.ports) not in (0, n):
            raise PokerbotError(f"need {n} ports, got {len(self.ports)}")
        if self.duplicate and n != 2:
            raise PokerbotError("duplicate deals need a two-player game")
        if not self.game_file:
            self.game_file = self.game.name

    @property
    def log_path(self) -> str | None:
        if not self.log:
            return None
        return self.log_file or f"{self.match_name}.log"


@dataclass
class DealerResult:
    """What a match produced, also when it stopped early (``error`` then says why)."""

    names: list[str]
    hands_played: int = 0
    #: Per finished hand, chips won per seat (seat order = order of ``names``).
    hand_values: list[list[float]] = field(default_factory=list)
    error: str | None = None

    @property
    def totals(self) -> list[float]:
        return [sum(v[s] for v in self.hand_values) for s in range(len(self.names))]


class Dealer:
    """Runs one match. Call :meth:`listen`, start the players, then :meth:`play`; or just :meth:`run`."""

    def __init__(
        self,
        config: DealerConfig,
        out: TextIO | None = None,
        err: TextIO | None = None,
        on_hand: Callable[[int, list[float]], None] | None = None,
    ) -> None:
        self.config = config
        #: Called after each finished hand with its index and the chips won per seat.
        self.on_hand = on_hand
        self.out = out if out is not None else sys.stdout
        self.err = err if err is not None else sys.stderr
        self.ports: list[int] = []
        self._listeners: list[socket.socket] = []
        self._conns: list[LineConnection] = []
        self.result = DealerResult(names=list(config.names))

    # --- setting up --------------------------------------------------------------

    def listen(self) -> list[int]:
        """Open one listening socket per seat; returns (and remembers) the ports."""
        cfg = self.config
        wanted = list(cfg.ports) if cfg.ports else [0] * cfg.game.num_players
        for seat, port in enumerate(wanted):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind((cfg.host, port))
                sock.listen(8)
            except OSError as exc:
                sock.close()
                self.close()
                raise DealerError(f"could not create listen socket for player {seat + 1}: {exc}") from exc
            self._listeners.append(sock)
            self.ports.append(sock.getsockname()[1])
        return self.ports

    def _accept(self) -> None:
        cfg = self.config
        start = time.monotonic()
        for seat, listener in enumerate(self._listeners):
            if cfg.start_timeout_ms >= 0:
                left = cfg.start_timeout_ms / 1000 - (time.monotonic() - start)
                listener.settimeout(max(left, 0.0))
            else:
                listener.settimeout(None)
            try:
                sock, _ = listener.accept()
            except TimeoutError:
                raise DealerError(f"timed out waiting for seat {seat + 1} to connect") from None
            except OSError as exc:
                raise DealerError(f"seat {seat + 1} could not connect: {exc}") from exc
            listener.close()
            sock.settimeout(None)
            self._conns.append(LineConnection(sock, peer=f"seat {seat + 1} ({cfg.names[seat]})",
                                              send_timeout=max(cfg.t_response_ms / 1000, 1.0)))
        self._listeners = []

    def _check_versions(self) -> None:
        deadline = time.monotonic() + self.config.t_response_ms / 1000
        for seat, conn in enumerate(self._conns):
            try:
                line = conn.read_line(deadline)
            except LineTimeout:
                raise DealerError(f"could not read version string from seat {seat + 1}: timed out") from None
            if line is None:
                raise DealerError(f"could not read version string from seat {seat + 1}: disconnected")
            try:
                major, minor, _ = parse_version(line)
            except ProtocolError as exc:
                raise DealerError(f"seat {seat + 1}: {exc}") from None
            if major != VERSION[0]:
                raise DealerError(
                    f"seat {seat + 1} speaks protocol version {major}.{minor}; this dealer uses 2.0.0"
                )
            if minor > VERSION[1]:
                self._say(f"WARNING: seat {seat + 1} uses version {line[8:]}; this dealer uses 2.0.0")

    # --- messages ------------------------------------------------------------------

    def _say(self, text: str) -> None:
        print(text, file=self.err, flush=True)

    def _send(self, seat: int, text: str) -> None:
        """Queue a state for ``seat``; sent at once unless ``coalesce`` (then at the next flush)."""
        self._pending[seat].append(text)
        if not self.config.coalesce:
            self._flush(seat)

    def _flush(self, seat: int) -> None:
        pending = self._pending[seat]
        if not pending:
            return
        try:
            self._conns[seat].send_lines(pending)
        except ProtocolError as exc:
            raise DealerError(f"could not send state to seat {seat + 1}: {exc}") from None
        if not self.config.quiet:
            now = time.time()
            for text in pending:
                print(f"TO {seat + 1} at {now:.6f} {text}", file=self.err)
        pending.clear()

    def _flush_all(self) -> None:
        for seat in range(len(self._pending)):
            self._flush(seat)

    def _read_action(self, seat: int, sent: str, viewer: int,
                     state: State, deadline: float, timer: _SeatTimer) -> Action:
        """The acting seat's action: repaired or replaced by a call as the reference does."""
        cfg = self.config
        conn = self._conns[seat]
        while True:
            try:
                line = conn.read_line(deadline)
            except LineTimeout:
                raise DealerError(
                    f"seat {seat + 1} ran out of time (no response within {timer.describe()})"
                ) from None
            except ProtocolError as exc:
                raise DealerError(f"could not get action from seat {seat + 1}: {exc}") from None
            if line is None:
                raise DealerError(f"could not get action from seat {seat + 1}: disconnected")
            if not cfg.quiet:
                print(f"FROM {seat + 1} at {time.time():.6f} {line}", file=self.err)
            if line[:1] in ("#", ";"):
                continue
            head, sep, answer = line.rpartition(":")
            if not sep:
                self._say(f"WARNING: bad state format in response from seat {seat + 1}: {line!r}")
                continue
            if head != sent:
                try:
                    theirs = parse_matchstate(cfg.game, head)
                except MatchStateError:
                    self._say(f"WARNING: bad state format in response from seat {seat + 1}: {line!r}")
                    continue
                ts, vs = theirs.state, state
                if (
                    theirs.viewer != viewer
                    or ts.hand_id != vs.hand_id
                    or ts.history != vs.history
                    or ts.visible_board != vs.visible_board
                    or ts.hole_cards[viewer] != vs.hole_cards[viewer]
                ):
                    self._say(f"WARNING: ignoring un-requested response from seat {seat + 1}: {line!r}")
                    continue
            try:
                action, _ = parse_action(answer, cfg.game.nolimit)
            except PokerbotError:
                self._invalid(seat, f"bad action format {answer!r}")
                return CALL
            if state.is_legal(action):
                return action
            if action.kind == 2 and state.raise_bounds() is not None:
                fixed = state.fix_action(action)
                if action.size != fixed.size:
                    verb = "increased" if fixed.size > action.size else "decreased"
                    self._say(f"WARNING: raise of {action.size} {verb} to {fixed.size}")
                return fixed
            self._invalid(seat, f"invalid action {answer!r} at {state.betting_string()!r}")
            return CALL

    def _invalid(self, seat: int, what: str) -> None:
        self._invalid_counts[seat] += 1
        if self._invalid_counts[seat] > self.config.max_invalid:
            raise DealerError(
                f"seat {seat + 1} made more than {self.config.max_invalid} invalid actions (last: {what})"
            )
        self._say(f"WARNING: seat {seat + 1}: {what}, changed to call")

    # --- the match -------------------------------------------------------------------

    def play(self, log: LogWriter | None = None) -> DealerResult:
        """Accept the players and play the match; errors end it with ``result.error`` set.

        Raises nothing for player faults: they are reported in the result (and on
        stderr), with every hand finished before them kept.
        """
        cfg = self.config
        game = cfg.game
        n = game.num_players
        if not self._listeners:
            raise PokerbotError("Dealer.play() needs the seats open: call listen() first (or use run())")
        own_log = log is None
        if log is None:
            log = LogWriter(cfg.log_path, append=cfg.append)
        per_hand = cfg.t_per_hand_ms
        for line in header_lines(cfg.match_name, cfg.game_file, cfg.hands, cfg.seed,
                                 cfg.t_response_ms, cfg.t_hand_ms, per_hand):
            print(line, file=self.err)
            log.write(line)
        self.err.flush()
        self._invalid_counts = [0] * n
        self._pending: list[list[str]] = [[] for _ in range(n)]
        try:
            self._accept()
            self._check_versions()
            if not cfg.quiet:
                self._say(f"STARTED at {time.time():.6f}")
            deck = AcpcDeck(game, cfg.seed)
            timer = _SeatTimer(n, cfg)
            dealt: tuple[list[list[int]], list[int]] = ([], [])
            for hand in range(cfg.hands):
                if not cfg.duplicate or hand % 2 == 0:
                    dealt = deck.deal()
                holes, board = dealt
                p0 = player0_seat_of(hand, n, cfg.fixed_seats)
                timer.new_hand()
                state = State.initial(game, hand, holes, board)
                hole_text = [format_cards(h) for h in holes]
                messages = HandMessages(state, hole_text, p0)
                while not state.finished:
                    actor = state.current_player
                    assert actor is not None
                    actor_seat = player_to_seat(n, p0, actor)
                    sent = ""
                    for seat, text in enumerate(messages.lines()):
                        self._send(seat, text)
                        if seat == actor_seat:
                            sent = text
                            if cfg.coalesce:
                                self._flush(seat)
                            send_time = time.monotonic()
                    deadline = timer.deadline(actor_seat, send_time)
                    action = self._read_action(actor_seat, sent, actor, state, deadline, timer)
                    timer.charge(actor_seat, send_time, time.monotonic())
                    state = state.apply(action)
                    messages.apply(state, action_text(action, game.nolimit))
                values = state.payoffs()
                names = [cfg.names[player_to_seat(n, p0, p)] for p in range(n)]
                log.hand(state, values, names)
                seat_values = [values[seat_to_player(n, p0, s)] for s in range(n)]
                self.result.hand_values.append(seat_values)
                self.result.hands_played += 1
                if self.on_hand is not None:
                    self.on_hand(hand, seat_values)
                for seat, text in enumerate(messages.lines()):
                    self._send(seat, text)
            self._flush_all()
            if not cfg.quiet:
                self._say(f"FINISHED at {time.time():.6f}")
            score = format_score_line(self.result.totals, cfg.names)
            print(score, file=self.out, flush=True)
            print(score, file=self.err, flush=True)
            log.write(score)
        except DealerError as exc:
            try:
                self._flush_all()  # what the other seats have not yet been sent
            except DealerError:
                pass
            self.result.error = str(exc)
            self._say(f"ERROR: {exc}")
            log.write(f"# ERROR: {exc} (after {self.result.hands_played} finished hands)")
        finally:
            self.err.flush()
            if own_log:
                log.close()
            self.close()
        return self.result

    def run(self) -> DealerResult:
        """Listen, print the ports on stdout, then :meth:`play`."""
        ports = self.listen()
        print(" ".join(str(p) for p in ports), file=self.out, flush=True)
        return self.play()

    def close(self) -> None:
        for conn in self._conns:
            conn.close()
        for sock in self._listeners:
            sock.close()
        self._conns = []
        self._listeners = []


class _SeatTimer:
    """Time used per seat in the hand and in the match, against the three limits."""

    def __init__(self, num_seats: int, cfg: DealerConfig) -> None:
        self.response = cfg.t_response_ms / 1000
        self.hand = cfg.t_hand_ms / 1000
        self.match = cfg.t_per_hand_ms * cfg.hands / 1000
        self.used_hand = [0.0] * num_seats
        self.used_match = [0.0] * num_seats
        self._seat = 0

    def new_hand(self) -> None:
        self.used_hand = [0.0] * len(self.used_hand)

    def deadline(self, seat: int, sent: float) -> float:
        self._seat = seat
        return sent + max(min(self.response, self.hand - self.used_hand[seat],
                              self.match - self.used_match[seat]), 0.0)

    def charge(self, seat: int, sent: float, received: float) -> None:
        used = max(received - sent, 0.0)
        self.used_hand[seat] += used
        self.used_match[seat] += used

    def describe(self) -> str:
        """Which limit the last deadline came from."""
        seat = self._seat
        limits = {
            f"t_response {self.response * 1000:.0f} ms": self.response,
            f"the t_hand budget ({self.hand * 1000:.0f} ms a hand)": self.hand - self.used_hand[seat],
            f"the t_per_hand budget ({self.match * 1000:.0f} ms a match)": self.match - self.used_match[seat],
        }
        return min(limits, key=limits.__getitem__)
