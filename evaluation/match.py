"""Matches between two agents: in-process for speed, or over ACPC sockets through the dealer.

Both ways deal the same cards as the reference ACPC dealer with the same seed,
rotate seats the same way (agent A is player 0 in hand 0, player 1 in hand 1,
...), show each agent only what an ACPC player sees, and write the same
ACPC-format log line by line as the hands finish. So an in-process match and
the same match over sockets produce the same hands.

Duplicate mode plays every deal twice (hands 2k and 2k+1 share their cards;
the rotation swaps the seats), which removes most of the luck of the cards;
the confidence interval is then computed over pairs.

>>> from pokerbot.bots import make_agent
>>> from pokerbot.gamedef import load_game
>>> game = load_game("kuhn")
>>> r = play_match(make_agent("raise", game), make_agent("call", game), game, hands=200, seed=7,
...                progress=False)
>>> r.hands, r.chips.shape, r.names
(200, (200,), ('raise', 'call'))
"""

from __future__ import annotations

import io
import math
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

import numpy as np

from evaluation.stats import WinRate, win_rate
from pokerbot.agent import Agent, count_changes, fallback_note, legal_or_call
from pokerbot.errors import PokerbotError
from pokerbot.gamedef import GameDef
from pokerbot.interrupts import held
from pokerbot.matchstate import MatchState
from pokerbot.protocol.deal import AcpcDeck
from pokerbot.protocol.dealer import (
    Dealer,
    DealerConfig,
    player0_seat_of,
    player_to_seat,
    seat_to_player,
)
from pokerbot.protocol.log import LogWriter, format_score_line
from pokerbot.state import State


@dataclass
class MatchResult:
    """Agent A's results. ``chips[i]``: chips A won in hand ``i``."""

    names: tuple[str, str]
    game: GameDef
    chips: np.ndarray
    duplicate: bool = False
    seconds: float = 0.0
    log_path: str | None = None
    over_acpc: bool = False
    error: str | None = None
    extra: dict[str, object] = field(default_factory=dict)
    #: A's and B's decisions in this match by how they were made (:meth:`Agent.decision_counts`; None: one way).
    decisions: tuple[dict[str, int] | None, dict[str, int] | None] = (None, None)

    @property
    def hands(self) -> int:
        return int(self.chips.size)

    @property
    def win_rate(self) -> WinRate:
        """A's mbb/g and 95% CI (over duplicate pairs in duplicate mode)."""
        return win_rate(self.chips, self.game, pair=self.duplicate)

    @property
    def mbb(self) -> float:
        return self.win_rate.mbb

    @property
    def ci95(self) -> float:
        return self.win_rate.ci95

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds if self.seconds > 0 else math.inf

    def speed(self) -> str:
        """Hands per second, or seconds a hand for agents slower than ten hands a second.

        >>> from pokerbot.gamedef import load_game
        >>> kuhn = load_game("kuhn")
        >>> MatchResult(("a", "b"), kuhn, np.zeros(220), seconds=774.0).speed()
        '3.52 s a hand'
        >>> MatchResult(("a", "b"), kuhn, np.zeros(3000), seconds=1.5).speed()
        '2,000 hands/s'
        """
        rate = self.hands_per_second
        return f"{rate:,.0f} hands/s" if rate >= 10 else f"{self.seconds / self.hands:.2f} s a hand"

    def summary(self) -> str:
        """One line: A's result against B (no figures when no hand finished: a mean of nothing is not a result)."""
        mode = " duplicate" if self.duplicate else ""
        how = "over ACPC" if self.over_acpc else "in-process"
        a, b = self.names
        if not self.hands:
            return f"{a} vs {b} ({self.game.name}, {how}{mode}): no hands finished"
        return (
            f"{a} vs {b} ({self.game.name}, {how}{mode}): {a} {self.win_rate}, "
            f"{self.speed()}" + self.fallback_text()
        )

    def fallback_text(self) -> str:
        """``"; realtime fell back at 3 of 812 decisions (time budget 3)"`` per agent that fell back, else ``""``."""
        notes = [(n, fallback_note(c)) for n, c in zip(self.names, self.decisions)]
        return "".join(f"; {n} {note}" for n, note in notes if note)

    def __repr__(self) -> str:
        """The summary line, not the arrays (what a notebook or the REPL shows)."""
        return f"<MatchResult {self.summary()}>"

    def _repr_html_(self) -> str:
        """A small table for Jupyter: players, game, hands, A's win rate, speed and log."""
        from html import escape

        a, b = self.names
        rate = f"{self.win_rate}" if self.hands else "no hands finished"
        rows = [("match", f"{a} vs {b}"), ("game", self.game.name),
                ("hands", f"{self.hands:,}{' (duplicate)' if self.duplicate else ''}"
                          f"{', over ACPC' if self.over_acpc else ''}"),
                (f"{a} (95% CI)", rate), ("speed", self.speed() if self.hands else "-")]
        for n, c in zip(self.names, self.decisions):
            note = fallback_note(c)
            if note:
                rows.append((n, note))
        if self.log_path:
            rows.append(("log", self.log_path))
        if self.error:
            rows.append(("error", self.error))
        body = "".join(f"<tr><th style='text-align:left'>{escape(k)}</th><td style='text-align:left'>{escape(v)}</td>"
                       f"</tr>" for k, v in rows)
        return f"<table><caption>MatchResult</caption>{body}</table>"

    def hand_rows(self) -> list[dict[str, object]]:
        """One dict per hand: ``hand``, ``chips`` (A's) and, when the match wrote its log, the hand's betting,
        board, cards, players and their chips (:func:`evaluation.hand_history.hand_row`)."""
        rows: list[dict[str, object]] = [{"hand": i, "chips": float(c)} for i, c in enumerate(self.chips)]
        if self.log_path and os.path.isfile(self.log_path):
            from evaluation.hand_history import hand_rows, load_history

            logged = hand_rows(load_history(self.game, self.log_path))
            if len(logged) == len(rows):  # the log is this match's (not replaced since)
                for row, more in zip(rows, logged):
                    row.update({k: v for k, v in more.items() if k != "hand"})
        return rows

    def hands_frame(self) -> Any:
        """:meth:`hand_rows` as a pandas DataFrame (pandas is not a pokerbot dependency: an ImportError says how
        to get it)."""
        from evaluation.hand_history import to_frame

        return to_frame(self.hand_rows())


class MatchAborted(PokerbotError):
    """A match stopped before its last hand; ``result`` holds every hand finished before."""

    def __init__(self, message: str, result: MatchResult) -> None:
        super().__init__(message)
        self.result = result


def _clean_name(name: str, fallback: str) -> str:
    text = "".join(c if c not in ":|\r\n " else "_" for c in (name or ""))
    return text or fallback


def match_names(agent_a: object, agent_b: object) -> tuple[str, str]:
    """Names for the log: the agents' names (their ``name``, if any), made distinct and free of ':' and '|'."""
    a = _clean_name(getattr(agent_a, "name", ""), "A")
    b = _clean_name(getattr(agent_b, "name", ""), "B")
    if a == b:
        a, b = f"{a}-A", f"{b}-B"
    return a, b


def _view(state: State, viewer: int) -> MatchState:
    """What ``viewer`` sees: its cards, the visible board, others' cards only at a showdown."""
    show = state.is_showdown()
    holes = [h if p == viewer or (show and not state.folded[p]) else () for p, h in enumerate(state.hole_cards)]
    return MatchState(viewer, state.with_cards(holes, state.visible_board))


def _quiet_cpu() -> int | None:
    """One CPU this thread may use, the least busy over a brief look; None if affinity is not supported."""
    if not hasattr(os, "sched_getaffinity"):
        return None
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) <= 1:
        return None

    def busy() -> dict[int, int]:
        out = {}
        with open("/proc/stat") as f:
            for line in f:
                name, *ticks = line.split()
                if name.startswith("cpu") and name[3:].isdigit():
                    t = [int(x) for x in ticks]
                    out[int(name[3:])] = sum(t) - t[3] - (t[4] if len(t) > 4 else 0)  # all but idle and iowait
        return out

    try:
        before = busy()
        time.sleep(0.02)
        after = busy()
        return min(allowed, key=lambda c: (after.get(c, 0) - before.get(c, 0), c))
    except (OSError, ValueError, IndexError):
        return allowed[0]


def _pin_thread(cpu: int | None) -> set[int] | None:
    """Keep the calling thread on ``cpu``; returns the CPUs it was allowed before (None: left alone)."""
    if cpu is None:
        return None
    try:
        before = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {cpu})  # 0: the calling thread only (Linux)
        return before
    except OSError:
        return None


def _progress(total: int, enabled: bool, desc: str) -> Any:  # a tqdm bar
    from tqdm import tqdm

    return tqdm(total=total, disable=not enabled, unit="hand", desc=desc, file=sys.stderr,
                mininterval=0.5, dynamic_ncols=True)


def play_match(
    agent_a: Agent,
    agent_b: Agent,
    game: GameDef,
    hands: int,
    seed: int,
    duplicate: bool = False,
    log_path: str | os.PathLike[str] | None = None,
    progress: bool = True,
    over_acpc: bool = False,
    match_name: str = "match",
    t_response_ms: int = 600_000,
    on_hand: Callable[[int, float], None] | None = None,
    coalesce: bool = True,
    one_cpu: bool = True,
    on_state: Callable[[int, State, int], None] | None = None,
    first_hand: int = 0,
) -> MatchResult:
    """Play ``hands`` hands between A and B; return A's per-hand chips, mbb/g and 95% CI.

    ``seed`` fixes the cards (as the ACPC dealer's seed does); the agents'
    own randomness is theirs to seed. ``over_acpc`` runs the match through
    :class:`~pokerbot.protocol.dealer.Dealer` on loopback sockets with each
    agent behind an ACPC client thread (``coalesce``: the dealer batches a
    seat's states until it must act, see :class:`DealerConfig`; ``one_cpu``: the dealer and both
    client threads run on one CPU, see below). The log (if ``log_path``) is written as
    the hands finish. Raises :class:`MatchAborted` (holding the finished hands)
    if the match stops early.

    Over ACPC the dealer and the clients take turns (one message at a time, and
    they share the interpreter lock), so a second CPU buys nothing, while waking
    a thread on another, idle CPU is slow (about 50 µs per message on a 2-core
    VM, against about 5 µs on the same CPU: 2 to 3 times fewer hands/s). With
    ``one_cpu`` (the default, where the OS allows it) the match's threads are
    kept on the least busy CPU for the match; the calling thread gets its CPUs back after.

    ``on_state(hand, final_state, a_player)`` (in-process only) is called after
    each hand with its final state, every card included, and A's player index
    in it (AIVAT scores hands with it).

    ``first_hand`` (in-process only) plays hands ``first_hand`` to ``first_hand + hands - 1`` of the match
    that ``seed`` deals: the same cards, seats and hand ids as in one long match, so a match played in pieces
    (chunks, workers) is the long match, hand for hand, for agents whose randomness is drawn per hand.
    ``chips``, ``on_hand`` and ``on_state`` count from 0 within the piece.
    """
    if hands <= 0:
        raise PokerbotError(f"a match needs at least one hand, got {hands}")
    if game.num_players != 2:
        raise PokerbotError(f"matches are heads-up; {game.name} has {game.num_players} players")
    if duplicate and hands % 2:
        raise PokerbotError(f"duplicate matches play deals in pairs: use an even number of hands, not {hands}")
    if over_acpc and on_state is not None:
        raise PokerbotError("on_state needs an in-process match; score an ACPC match from its log")
    if first_hand < 0 or (duplicate and first_hand % 2) or (over_acpc and first_hand):
        raise PokerbotError(f"first_hand must be >= 0, even in a duplicate match and 0 over ACPC, not {first_hand}")
    names = match_names(agent_a, agent_b)
    before = (agent_a.decision_counts(), agent_b.decision_counts())
    for agent in (agent_a, agent_b):
        agent.set_match_hands(hands)

    def decisions() -> tuple[dict[str, int] | None, dict[str, int] | None]:
        return (count_changes(agent_a.decision_counts(), before[0]),
                count_changes(agent_b.decision_counts(), before[1]))

    try:
        if over_acpc:
            result = _play_acpc(agent_a, agent_b, game, hands, seed, duplicate, log_path, progress, match_name,
                                names, t_response_ms, on_hand, coalesce, one_cpu)
        else:
            result = _play_local(agent_a, agent_b, game, hands, seed, duplicate, log_path, progress, match_name,
                                 names, t_response_ms, on_hand, coalesce, one_cpu, on_state, first_hand)
    except MatchAborted as exc:
        exc.result.decisions = decisions()
        raise
    result.decisions = decisions()
    return result


def _play_local(agent_a: Agent, agent_b: Agent, game: GameDef, hands: int, seed: int, duplicate: bool,
                log_path: str | os.PathLike[str] | None, progress: bool, match_name: str, names: tuple[str, str],
                t_response_ms: int, on_hand: Callable[[int, float], None] | None, coalesce: bool, one_cpu: bool,
                on_state: Callable[[int, State, int], None] | None = None, first_hand: int = 0) -> MatchResult:
    chips = np.zeros(hands, dtype=np.float64)
    seats = (agent_a, agent_b)
    deck = AcpcDeck(game, seed)
    for _ in range(first_hand // 2 if duplicate else first_hand):  # the deals of the hands before this piece
        deck.deal()
    log = LogWriter(log_path)
    log.write(f"# name/game/hands/seed {match_name} {game.name} {hands} {seed}")
    log.write(f"# in-process match by pokerbot{', duplicate deals' if duplicate else ''}")
    done = 0
    start = time.perf_counter()
    bar = _progress(hands, progress, f"{names[0]} vs {names[1]}")
    totals = [0.0, 0.0]
    repaired = [0, 0]  # illegal actions replaced as the dealer would, per seat
    dealt: tuple[list[list[int]], list[int]] = ([], [])
    # Skip building views for hooks an agent does not override (they are no-ops).
    hooks_begin = [type(a).begin_hand is not Agent.begin_hand for a in seats]
    hooks_end = [type(a).end_hand is not Agent.end_hand for a in seats]
    try:
        for agent in seats:
            agent.begin_match(game)
        for i in range(hands):
            hand = first_hand + i
            if not duplicate or hand % 2 == 0:
                dealt = deck.deal()
            p0 = player0_seat_of(hand, 2, False)
            by_player = [seats[player_to_seat(2, p0, p)] for p in range(2)]
            state = State.initial(game, hand, dealt[0], dealt[1])
            for seat in range(2):
                if hooks_begin[seat]:
                    seats[seat].begin_hand(_view(state, seat_to_player(2, p0, seat)))
            while not state.finished:
                actor = state.current_player
                assert actor is not None  # the hand goes on
                action = by_player[actor].act(_view(state, actor))
                if not state.is_legal(action):
                    action = legal_or_call(state, action)
                    repaired[player_to_seat(2, p0, actor)] += 1
                state = state.apply(action)
            values = state.payoffs()
            chips[i] = values[seat_to_player(2, p0, 0)]
            with held(log_path is not None):  # a logged hand is a finished hand, even under Ctrl-C
                log.hand(state, values, [names[player_to_seat(2, p0, p)] for p in range(2)])
                done = i + 1
            for seat in range(2):
                player = seat_to_player(2, p0, seat)
                if hooks_end[seat]:
                    seats[seat].end_hand(_view(state, player))
                totals[seat] += values[player]
            if on_state is not None:
                on_state(i, state, seat_to_player(2, p0, 0))
            if on_hand is not None:
                on_hand(i, chips[i])
            bar.update(1)
        log.write(format_score_line(totals, names))
    except BaseException as exc:
        result = MatchResult(names, game, chips[:done].copy(), duplicate, time.perf_counter() - start,
                             str(log_path) if log_path else None, False, f"{type(exc).__name__}: {exc}")
        log.write(f"# ERROR: {type(exc).__name__}: {exc} (after {done} finished hands)")
        if isinstance(exc, Exception):
            raise MatchAborted(f"match stopped after {done} hands: {type(exc).__name__}: {exc}", result) from exc
        raise
    finally:
        bar.close()
        log.close()
    result = MatchResult(names, game, chips, duplicate, time.perf_counter() - start,
                         str(log_path) if log_path else None, False)
    if any(repaired):
        result.extra["repaired"] = repaired
    return result


def _play_acpc(agent_a: Agent, agent_b: Agent, game: GameDef, hands: int, seed: int, duplicate: bool,
               log_path: str | os.PathLike[str] | None, progress: bool, match_name: str, names: tuple[str, str],
               t_response_ms: int, on_hand: Callable[[int, float], None] | None, coalesce: bool,
               one_cpu: bool) -> MatchResult:
    from pokerbot.protocol.client import play_acpc

    chips = np.zeros(hands, dtype=np.float64)
    done = [0]
    bar = _progress(hands, progress, f"{names[0]} vs {names[1]} (ACPC)")

    def hand_done(hand: int, seat_values: list[float]) -> None:
        chips[hand] = seat_values[0]
        done[0] = hand + 1
        if on_hand is not None:
            on_hand(hand, seat_values[0])
        bar.update(1)

    config = DealerConfig(
        match_name, game, hands, seed, list(names), log=log_path is not None,
        log_file=str(log_path) if log_path else None, quiet=True, duplicate=duplicate, coalesce=coalesce,
        t_response_ms=t_response_ms, t_hand_ms=max(600_000, t_response_ms),
        t_per_hand_ms=max(7_000, t_response_ms), start_timeout_ms=30_000,
    )
    dealer_err = io.StringIO()
    dealer = Dealer(config, out=io.StringIO(), err=dealer_err, on_hand=hand_done)
    ports = dealer.listen()
    client_errors: list[str] = []

    cpu = _quiet_cpu() if one_cpu else None

    def run_client(agent: Agent, port: int) -> None:
        _pin_thread(cpu)
        try:
            play_acpc(agent, game, "127.0.0.1", port, idle_timeout=None, err=dealer_err, track_values=False)
        except Exception as exc:  # reported through the dealer's error and the result
            client_errors.append(f"{agent.name}: {type(exc).__name__}: {exc}")

    threads = [
        threading.Thread(target=run_client, args=(agent, port), daemon=True, name=f"acpc-client-{port}")
        for agent, port in zip((agent_a, agent_b), ports)
    ]
    start = time.perf_counter()
    allowed = _pin_thread(cpu)
    for t in threads:
        t.start()
    try:
        result = dealer.play()
    finally:
        if allowed is not None:
            os.sched_setaffinity(0, allowed)
        bar.close()
    for t in threads:
        t.join(timeout=10)
    seconds = time.perf_counter() - start
    if result.error is not None:
        why = result.error + (f" ({'; '.join(client_errors)})" if client_errors else "")
        partial = MatchResult(names, game, chips[: done[0]].copy(), duplicate, seconds,
                              str(log_path) if log_path else None, True, why)
        raise MatchAborted(f"match stopped after {done[0]} hands: {why}", partial)
    out = MatchResult(names, game, chips, duplicate, seconds, str(log_path) if log_path else None, True)
    warnings = [line for line in dealer_err.getvalue().splitlines() if line.startswith("WARNING")]
    if warnings:
        out.extra["dealer_warnings"] = warnings
    return out


def baseline_demo(
    spec_a: str = "equity",
    spec_b: str = "random",
    game: GameDef | str = "hunl",
    hands: int = 4000,
    seed: int = 0,
    duplicate: bool = True,
    progress: bool = True,
    out: TextIO | None = None,
) -> MatchResult:
    """The demo's match: two agents by spec, in-process, each one's mbb/g and 95% CI printed.

    Reusable by a longer demo (say, a freshly trained blueprint as ``spec_a``).

    >>> r = baseline_demo("raise", "call", game="kuhn", hands=100, progress=False, out=io.StringIO())
    >>> r.hands
    100
    """
    from pokerbot.bots import make_agent
    from pokerbot.gamedef import load_game

    out = out if out is not None else sys.stdout
    g = load_game(game) if isinstance(game, str) else game
    if duplicate and hands % 2:
        hands += 1
    agent_a = make_agent(spec_a, g, seed=2 * seed + 1)
    agent_b = make_agent(spec_b, g, seed=2 * seed + 2)
    result = play_match(agent_a, agent_b, g, hands, seed, duplicate=duplicate, progress=progress)
    a, b = result.names
    rate = result.win_rate
    kind = "duplicate " if duplicate else ""
    print(f"{g.name}: {result.hands} {kind}hands in {result.seconds:.1f} s "
          f"({result.speed()}), seed {seed}", file=out)
    print(f"  {a:>12}: {rate.mbb:+9.1f} ± {rate.ci95:.1f} mbb/g (95% CI)", file=out)
    print(f"  {b:>12}: {-rate.mbb:+9.1f} ± {rate.ci95:.1f} mbb/g (95% CI)", file=out)
    return result
