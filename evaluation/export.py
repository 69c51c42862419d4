"""Hand histories in the formats other tools read: PHH (pokerkit's standard) and PokerStars-style text.

Converts the hands of any ACPC match log (ours or the reference dealer's) of a hold'em game: heads-up
no-limit (HUNL) and limit (HULHE), or any ``.game`` file with the same structure (a 52-card deck, two hole
cards, a 3-1-1 board over four rounds, blinds and first players seated as in standard hold'em; other
stacks, blinds, bet sizes and player counts are fine). Kuhn, Leduc and the flop-only games have no PHH
variant and no PokerStars form: they raise :class:`ExportError` naming the game.

- **PHH** (https://phh.readthedocs.io): one :class:`pokerkit.HandHistory` per hand, built by replaying the
  hand in pokerkit (variant ``NT`` or ``FT``) and written by pokerkit (``dumps``; ``dumps_all`` for a
  ``.phhs`` file of many hands). Every hand is checked on the way: pokerkit must accept each action of the
  log, played by the same player, and end the hand with the log's chips won per player, or the hand raises
  :class:`ExportError`. Fields: ``players`` (in the hand's player order: ACPC seats rotate, so the order
  changes from hand to hand), ``seats`` (each player's seat: the order of the log's ``SCORE`` line, else of
  its first hand), ``hand`` (the ACPC hand number), blinds, antes (none in ACPC games), ``starting_stacks``
  (ACPC stacks are reset every hand; a limit game's "no limit" is ACPC's 2**31 - 1), ``finishing_stacks``,
  the dealt cards, actions and shown hands, ``event`` (the match name of the log's header) and
  ``_acpc_game``.
- **PokerStars**: the familiar text layout (``PokerStars Hand #N: Hold'em No Limit (50/100) - date``, seats,
  blinds, ``*** HOLE CARDS ***`` with every known hand dealt, one street header per street, uncalled bets
  returned, ``*** SHOW DOWN ***``, ``*** SUMMARY ***``), amounts in the log's chips, the hand number the
  ACPC one. A log records no dates: every hand carries the date given (the CLI uses the log's modification
  time), the Unix epoch by default.

>>> from pokerbot.gamedef import load_game
>>> from pokerbot.protocol.log import parse_log
>>> game = load_game("hunl")
>>> log = parse_log(game, ["STATE:0:cr13024c/r16916f:5d5c|9hQd/8dAs8s:13024|-13024:Alice|Bob"])
>>> phh = phh_hand(game, log.hands[0])
>>> phh.players, phh.hand, phh.actions[2:]
(['Alice', 'Bob'], 0, ['p2 cc', 'p1 cbr 13024', 'p2 cc', 'd db 8dAs8s', 'p1 cbr 3892', 'p2 f'])
>>> text = pokerstars_hand(game, log.hands[0])
>>> print("\\n".join(text.splitlines()[:3]))
PokerStars Hand #0: Hold'em No Limit (50/100) - 1970/01/01 00:00:00 UTC
Table 'pokerbot' 2-max Seat #2 is the button
Seat 1: Alice (20000 in chips)
>>> kuhn = load_game("kuhn")
>>> phh_hand(kuhn, parse_log(kuhn, ["STATE:0:cc:Ks|Qs:1|-1:A|B"]).hands[0])  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
evaluation.export.ExportError: game 'kuhn' cannot be written as PHH or PokerStars hands: its deck has 3 cards ...
"""

from __future__ import annotations

import datetime as _dt
import functools
import math
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pokerbot.cards import format_card
from pokerbot.errors import PokerbotError
from pokerbot.gamedef import GameDef
from pokerbot.protocol.log import HandRecord, MatchLog, format_value
from pokerbot.state import ActionType, State

if TYPE_CHECKING:
    from pokerkit import HandHistory

__all__ = ["ExportError", "FORMATS", "export_text", "game_of_log", "header_game", "match_name", "phh_hand",
           "phh_hands", "phhs_text", "pokerkit_variant", "pokerstars_hand", "pokerstars_text", "read_log_file",
           "seat_order"]

#: The formats :func:`export_text` writes, with the suffix of their files.
FORMATS: dict[str, str] = {"phh": ".phhs", "pokerstars": ".txt"}

#: The header line our match runner and the reference dealer open a log with.
_HEADER = "# name/game/hands/seed "
#: The pokerkit variant's most raises (bet included) per street; an ACPC limit game may not allow more.
_PK_LIMIT_RAISES = 4
_STREETS = ("Flop", "Turn", "River")
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)


class ExportError(PokerbotError, ValueError):
    """A log or a game that cannot be written as PHH or PokerStars text (the message says why)."""


# --- which games ---------------------------------------------------------------------------------------


def pokerkit_variant(game: GameDef) -> str:
    """The PHH variant code of ``game`` (``"NT"`` no-limit or ``"FT"`` fixed-limit Texas hold'em).

    Raises :class:`ExportError` naming the game and what differs from hold'em as pokerkit and PokerStars
    deal it: the deck, the cards, the rounds, the seating (who posts which blind, who acts first) or, in
    a limit game, the bet sizes and raise caps.

    >>> from pokerbot.gamedef import load_game
    >>> pokerkit_variant(load_game("hunl")), pokerkit_variant(load_game("hulhe"))
    ('NT', 'FT')
    """
    why = _unrepresentable(game)
    if why:
        raise ExportError(f"game {game.name or 'from the .game file'!r} cannot be written as PHH or PokerStars "
                          f"hands: {why}")
    return "NT" if game.nolimit else "FT"


def _unrepresentable(game: GameDef) -> str:
    """Why pokerkit's hold'em cannot play ``game`` exactly ("" when it can)."""
    if game.num_suits != 4 or game.num_ranks != 13:
        return f"its deck has {game.deck_size} cards (PHH and PokerStars need hold'em's 52)"
    if game.num_hole_cards != 2:
        return f"{game.num_hole_cards} hole cards (hold'em deals 2)"
    if game.num_rounds != 4 or tuple(game.num_board_cards) != (0, 3, 1, 1):
        board = "-".join(map(str, game.num_board_cards))
        return f"{game.num_rounds} rounds with {board} board cards (hold'em has 4 rounds dealing 0-3-1-1)"
    n = game.num_players
    # pokerkit seats hold'em as standard: preflop the player after the largest blind opens, then player 0.
    big = max(range(n), key=lambda p: (game.blind[p], p))
    expected = ((big + 1) % n,) + (0,) * 3
    if tuple(game.first_player) != expected:
        got = " ".join(str(p + 1) for p in game.first_player)
        want = " ".join(str(p + 1) for p in expected)
        return f"firstPlayer {got} (hold'em with these blinds seats it as {want})"
    if not game.nolimit:
        if game.raise_size[0] != game.raise_size[1] or game.raise_size[2] != game.raise_size[3]:
            return (f"raise sizes {' '.join(map(str, game.raise_size))} (limit hold'em has a small bet on the "
                    f"first two rounds and a big bet on the last two)")
        if max(game.max_raises) > _PK_LIMIT_RAISES:
            return f"up to {max(game.max_raises)} raises a round (limit hold'em caps a round at {_PK_LIMIT_RAISES})"
    return ""


# --- the log around the hands ----------------------------------------------------------------------------


def header_game(comments: Iterable[str]) -> str | None:
    """The game named by a log's ``# name/game/hands/seed`` line (None without one).

    >>> header_game(["# name/game/hands/seed demo holdem.nolimit.2p.reverse_blinds.game 1000 0"])
    'holdem.nolimit.2p.reverse_blinds.game'
    """
    for line in comments:
        if line.startswith(_HEADER):
            fields = line[len(_HEADER):].split()
            if len(fields) >= 2:
                return fields[1]
    return None


def match_name(comments: Iterable[str]) -> str | None:
    """The match name of a log's ``# name/game/hands/seed`` line (None without one)."""
    for line in comments:
        if line.startswith(_HEADER):
            fields = line[len(_HEADER):].split()
            if fields:
                return fields[0]
    return None


def game_of_log(path: str | os.PathLike[str], game: str | os.PathLike[str] | None = None) -> GameDef:
    """The game of the ACPC log at ``path``: ``game`` (a shipped name or a ``.game`` file) when given, else
    the one its header names.

    A header names the game as it was given to the match: a shipped name (``hunl``: our match runner) or a
    ``.game`` file (the reference dealer). A file is looked for as written, then beside the log; a file name
    of a shipped game is that game. Anything else raises :class:`ExportError` asking for ``--game``.
    """
    from pokerbot.gamedef import SHIPPED_GAMES, load_game

    if game is not None:
        return load_game(os.fspath(game))
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            comments = []
            for line in f:
                if not line.startswith("#"):
                    break
                comments.append(line.rstrip("\r\n"))
    except OSError as exc:
        raise ExportError(f"cannot read log {os.fspath(path)!r}: {exc.strerror}") from None
    named = header_game(comments)
    if named is None:
        raise ExportError(f"{os.fspath(path)}: no '{_HEADER.strip()}' header line names the log's game: "
                          f"give it with --game")
    if named in SHIPPED_GAMES:
        return load_game(named)
    for candidate in (Path(named), Path(path).parent / named):
        if candidate.is_file():
            return load_game(candidate)
    by_file = {file: short for short, file in SHIPPED_GAMES.items()}
    if Path(named).name in by_file:
        return load_game(by_file[Path(named).name])
    raise ExportError(f"{os.fspath(path)}: its header names the game {named!r}, neither a shipped game "
                      f"({', '.join(SHIPPED_GAMES)}) nor a .game file found here: give it with --game")


def read_log_file(game: GameDef, path: str | os.PathLike[str]) -> MatchLog:
    """The parsed ACPC log at ``path``; :class:`ExportError` naming the file and the line if it is not a log of
    ``game`` (or holds no hands)."""
    from pokerbot.errors import MatchStateError
    from pokerbot.protocol.log import read_log

    try:
        log = read_log(game, path)
    except MatchStateError as exc:
        text = str(exc)
        prefix = f"{os.fspath(path)}: "
        raise ExportError(text if text.startswith(prefix) or "cannot read log" in text else
                          f"{prefix}not an ACPC log of {game.name or 'this game'} ({text})") from None
    if not log.hands:
        raise ExportError(f"{os.fspath(path)}: the log holds no hands")
    return log


def seat_order(log: MatchLog) -> list[str]:
    """The players' names in seat order: the ``SCORE`` line's, else the first hand's (player order)."""
    if log.score:
        return list(log.score)
    return list(log.hands[0].names) if log.hands else []


# --- PHH ---------------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=16)
def _pokerkit_game(game: GameDef) -> Any:
    """The pokerkit game (``NoLimitTexasHoldem`` or ``FixedLimitTexasHoldem``) playing ``game``'s rules."""
    from pokerkit import Automation, FixedLimitTexasHoldem, Mode, NoLimitTexasHoldem

    variant = pokerkit_variant(game)
    # Cards are dealt (burnt cards unknown: pokerkit would burn one of its deck), and hands shown, by the replay
    # (from the log); the chips move by themselves.
    automations = (Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING,
                   Automation.RUNOUT_COUNT_SELECTION, Automation.HAND_KILLING, Automation.CHIPS_PUSHING,
                   Automation.CHIPS_PULLING)
    # pokerkit's heads-up rule: player i posts blinds_or_straddles[1 - i] (the big blind is player 0, as in ACPC).
    blinds = list(game.blind[::-1]) if game.num_players == 2 else list(game.blind)
    if variant == "NT":
        return NoLimitTexasHoldem(automations, False, 0, blinds, game.big_blind, mode=Mode.CASH_GAME)
    return FixedLimitTexasHoldem(automations, False, 0, blinds, game.raise_size[0], game.raise_size[2],
                                 mode=Mode.CASH_GAME)


def _cards(cards: Sequence[int], count: int) -> str:
    return "".join(format_card(c) for c in cards) if cards else "??" * count


def _replay(pk_game: Any, game: GameDef, rec: HandRecord) -> Any:
    """The finished pokerkit state of the hand ``rec``, its actions checked one by one against the log's."""
    final = rec.state
    where = f"hand {rec.hand_id}"
    state = pk_game(list(game.stack), game.num_players)
    for holes in final.hole_cards:
        state.deal_hole(_cards(holes, game.num_hole_cards))
    board = final.board_cards
    acpc = State.initial(game, final.hand_id)
    todo = [(r, p, a) for r, rnd in enumerate(final.history) for p, a in rnd]
    # pokerkit counts bets per street: a raise-to less everyone's chips in when the street began (preflop the
    # blinds are bets of the street, so nothing is taken off)
    base, base_round = 0, 0
    i = 0
    try:
        while state.status:
            if state.actor_index is not None:
                if i == len(todo):
                    raise ExportError(f"{where}: pokerkit expects another action after the log's last")
                r, p, action = todo[i]
                if state.street_index != r or state.actor_index != p:
                    raise ExportError(f"{where}: pokerkit has player {state.actor_index} to act in round "
                                      f"{state.street_index}, the log player {p} in round {r}")
                if base_round != r:
                    base, base_round = acpc.max_spent, r
                if action.kind == ActionType.FOLD:
                    state.fold()
                elif action.kind == ActionType.CALL:
                    state.check_or_call()
                else:
                    state.complete_bet_or_raise_to(action.size - base if game.nolimit else None)
                acpc = acpc.apply(action)
                i += 1
            elif state.can_burn_card():
                state.burn_card("??")
            elif state.can_deal_board():
                street = state.street_index
                lo, hi = game.board_cards_through(street - 1), game.board_cards_through(street)
                if len(board) < hi:
                    raise ExportError(f"{where}: the log shows {len(board)} board cards, round {street} needs {hi}")
                state.deal_board(_cards(board[lo:hi], hi - lo))
            elif state.can_show_or_muck_hole_cards():
                shown = state.showdown_index
                if not final.hole_cards[shown]:
                    raise ExportError(f"{where}: a showdown, and the log does not show player {shown}'s cards")
                state.show_or_muck_hole_cards(True)
            else:
                raise ExportError(f"{where}: pokerkit's replay stopped before the end of the hand")
    except ValueError as exc:  # pokerkit refusing an action or a card (ExportError is one too: passed on)
        if isinstance(exc, ExportError):
            raise
        raise ExportError(f"{where}: pokerkit refuses the log's hand: {exc}") from None
    if i != len(todo):
        raise ExportError(f"{where}: pokerkit ended the hand with {len(todo) - i} of the log's actions left")
    _check_payoffs(where, list(state.payoffs), rec.values)
    return state


def _check_payoffs(where: str, got: Sequence[float], logged: Sequence[float], by: str = "pokerkit's") -> None:
    """The chips won replayed (``by`` pokerkit or our engine) must be the log's (within a chip where the log splits a
    pot into fractions)."""
    exact = all(float(v).is_integer() for v in logged)
    if not all(math.isfinite(v) for v in logged) or any((g != v) if exact else abs(g - v) >= 1
                                                        for g, v in zip(got, logged)):
        raise ExportError(f"{where}: {by} chips won {list(got)} differ from the log's "
                          f"{[format_value(v) for v in logged]}")


def phh_hand(game: GameDef, rec: HandRecord, seats: Sequence[str] | None = None,
             event: str | None = None) -> HandHistory:
    """The PHH hand history of the log's hand ``rec`` (``seats``: the names in seat order; ``event``: the
    match name). Raises :class:`ExportError` if pokerkit cannot replay it to the log's result."""
    from pokerkit import HandHistory

    pk_game = _pokerkit_game(game)
    state = _replay(pk_game, game, rec)
    fields: dict[str, Any] = {"hand": rec.hand_id, "players": list(rec.names),
                              "finishing_stacks": list(state.stacks)}
    if seats is not None and all(name in seats for name in rec.names):
        fields["seats"] = [list(seats).index(name) + 1 for name in rec.names]
        fields["seat_count"] = len(seats)
    if event:
        fields["event"] = event
    fields["_acpc_game"] = game.name
    return HandHistory.from_game_state(pk_game, state, **fields)


def phh_hands(game: GameDef, log: MatchLog) -> list[HandHistory]:
    """Every hand of ``log`` as PHH (see :func:`phh_hand`); the seats and event come from the log."""
    pokerkit_variant(game)
    if not log.hands:
        raise ExportError("the log holds no hands")
    seats = seat_order(log)
    event = match_name(log.comments)
    return [phh_hand(game, rec, seats, event) for rec in log.hands]


def phhs_text(game: GameDef, log: MatchLog) -> str:
    """The ``.phhs`` text of every hand of ``log`` (tables ``[1]``, ``[2]``, ... in log order)."""
    from pokerkit import HandHistory

    return HandHistory.dumps_all(phh_hands(game, log)) + "\n"


# --- PokerStars ---------------------------------------------------------------------------------------------


def _game_label(game: GameDef) -> str:
    small = min(b for b in game.blind if b > 0) if any(game.blind) else 0
    if game.nolimit:
        return f"Hold'em No Limit ({small}/{game.big_blind})"
    return f"Hold'em Limit ({game.raise_size[0]}/{game.raise_size[2]})"


def _button(game: GameDef) -> int:
    """The player on the button: heads-up the small blind (player 1 in ACPC), else the last player."""
    return 1 if game.num_players == 2 else game.num_players - 1


def _spaced(cards: Sequence[int]) -> str:
    return " ".join(format_card(c) for c in cards)


def _hand_name(holes: Sequence[int], board: Sequence[int]) -> str:
    from pokerbot.evaluator import evaluate, hand_class_name

    return hand_class_name(evaluate(list(holes) + list(board))).lower()


def pokerstars_hand(game: GameDef, rec: HandRecord, seats: Sequence[str] | None = None, table: str = "pokerbot",
                    when: _dt.datetime | None = None) -> str:
    """The hand ``rec`` as a PokerStars-style hand history (``seats``: the names in seat order, by default the
    hand's player order; ``table``: the table name; ``when``: the date printed, the epoch by default)."""
    pokerkit_variant(game)
    final = rec.state
    names = rec.names
    n = game.num_players
    seat_names = list(seats) if seats is not None and all(x in seats for x in names) else list(names)
    seat_of = {name: seat_names.index(name) + 1 for name in names}
    where = f"hand {rec.hand_id}"
    if len(final.board_cards) < game.board_cards_through(final.round):
        raise ExportError(f"{where}: the log does not show the board of round {final.round}")
    for p in range(n):
        if final.is_showdown() and not final.folded[p] and not final.hole_cards[p]:
            raise ExportError(f"{where}: a showdown, and the log does not show player {p}'s cards")
    _check_payoffs(where, final.payoffs(), rec.values, "the engine's")
    stamp = (when or _EPOCH).astimezone(_dt.timezone.utc).strftime("%Y/%m/%d %H:%M:%S UTC")
    button = _button(game)
    out = [f"PokerStars Hand #{rec.hand_id}: {_game_label(game)} - {stamp}",
           f"Table '{table}' {n}-max Seat #{seat_of[names[button]]} is the button"]
    for name in sorted(names, key=seat_of.__getitem__):
        out.append(f"Seat {seat_of[name]}: {name} ({format_value(game.stack[names.index(name)])} in chips)")
    big = max(range(n), key=lambda p: (game.blind[p], p))
    roles: dict[int, list[str]] = {p: [] for p in range(n)}
    roles[button].append("button")
    posting_order = sorted((p for p in range(n) if game.blind[p] > 0), key=lambda p: (p == big, game.blind[p]))
    for p in posting_order:
        kind = "big" if p == big else "small"
        roles[p].append(f"{kind} blind")
        out.append(f"{names[p]}: posts {kind} blind {game.blind[p]}")
    out.append("*** HOLE CARDS ***")
    for p in range(n):
        if final.hole_cards[p]:
            out.append(f"Dealt to {names[p]} [{_spaced(final.hole_cards[p])}]")
    state = State.initial(game, final.hand_id)
    board = final.board_cards
    actions = [(r, p, a) for r, rnd in enumerate(final.history) for p, a in rnd]
    last_action_round = actions[-1][0] if actions else 0
    folded_in: dict[int, int] = {}
    base = 0  # each player's chips in when the street began (preflop the blinds belong to the street)
    for r in range(final.round + 1):
        if r > 0:
            seen, new = board[: game.board_cards_through(r - 1)], board[game.board_cards_through(r - 1):
                                                                       game.board_cards_through(r)]
            shown = f"[{_spaced(new)}]" if r == 1 else f"[{_spaced(seen)}] [{_spaced(new)}]"
            out.append(f"*** {_STREETS[r - 1].upper()} *** {shown}")
            base = state.max_spent
        for p, action in final.history[r]:
            out.append(_action_line(state, names[p], p, action, base))
            if action.kind == ActionType.FOLD:
                folded_in[p] = r
            state = state.apply(action)
        if r == last_action_round:
            out.extend(_uncalled(state, names))
    spent = list(state.spent)
    top = max(range(n), key=lambda p: spent[p])
    spent[top] = max(spent[p] for p in range(n) if p != top)  # the uncalled part went back
    pot = sum(spent)
    showdown = final.is_showdown()
    full_board = board[: game.total_board_cards]
    if showdown:
        out.append("*** SHOW DOWN ***")
        for p in range(n):
            if not final.folded[p]:
                out.append(f"{names[p]}: shows [{_spaced(final.hole_cards[p])}] "
                           f"({_hand_name(final.hole_cards[p], full_board)})")
    collected = [rec.values[p] + spent[p] for p in range(n)]
    for p in range(n):
        if collected[p] > 0:
            out.append(f"{names[p]} collected {format_value(collected[p])} from pot")
    out.append("*** SUMMARY ***")
    out.append(f"Total pot {format_value(pot)} | Rake 0")
    if board[: game.board_cards_through(final.round)]:
        out.append(f"Board [{_spaced(board[: game.board_cards_through(final.round)])}]")
    for name in sorted(names, key=seat_of.__getitem__):
        p = names.index(name)
        label = "".join(f" ({role})" for role in roles[p])
        if final.folded[p]:
            r = folded_in[p]
            result = "folded before Flop" if r == 0 else f"folded on the {_STREETS[r - 1]}"
        elif showdown:
            cards = f"[{_spaced(final.hole_cards[p])}]"
            hand = _hand_name(final.hole_cards[p], full_board)
            result = (f"showed {cards} and won ({format_value(collected[p])}) with {hand}" if collected[p] > 0
                      else f"showed {cards} and lost with {hand}")
        else:
            result = f"collected ({format_value(collected[p])})"
        out.append(f"Seat {seat_of[name]}: {name}{label} {result}")
    return "\n".join(out) + "\n"


def _action_line(state: State, name: str, p: int, action: Any, base: int) -> str:
    """One action as PokerStars writes it; ``base``: each player's chips in when the street began."""
    game = state.game
    stack = game.stack[p]
    if action.kind == ActionType.FOLD:
        return f"{name}: folds"
    if action.kind == ActionType.CALL:
        to_call = state.to_call()
        if to_call == 0:
            return f"{name}: checks"
        allin = " and is all-in" if state.spent[p] + to_call >= stack else ""
        return f"{name}: calls {to_call}{allin}"
    total = action.size if game.nolimit else min(state.max_spent + game.raise_size[state.round], stack)
    allin = " and is all-in" if total >= stack else ""
    if state.max_spent == base:  # nobody has bet this street
        return f"{name}: bets {total - base}{allin}"
    return f"{name}: raises {total - state.max_spent} to {total - base}{allin}"


def _uncalled(state: State, names: Sequence[str]) -> list[str]:
    """The line returning the part of the last bet nobody matched, if any."""
    spent = state.spent
    top = max(range(len(spent)), key=lambda p: spent[p])
    second = max(spent[p] for p in range(len(spent)) if p != top)
    if spent[top] > second:
        return [f"Uncalled bet ({spent[top] - second}) returned to {names[top]}"]
    return []


def pokerstars_text(game: GameDef, log: MatchLog, table: str | None = None,
                    when: _dt.datetime | None = None) -> str:
    """Every hand of ``log`` as PokerStars-style text, hands separated by blank lines (``table``: by default the
    log's match name; ``when``: the date of every hand, the epoch by default)."""
    pokerkit_variant(game)
    if not log.hands:
        raise ExportError("the log holds no hands")
    seats = seat_order(log)
    name = table or match_name(log.comments) or "pokerbot"
    return "\n\n".join(pokerstars_hand(game, rec, seats, name, when) for rec in log.hands) + "\n"


# --- one entry point -------------------------------------------------------------------------------------------


def export_text(game: GameDef, log: MatchLog, fmt: str, when: _dt.datetime | None = None) -> str:
    """``log`` in the format ``fmt`` (a key of :data:`FORMATS`): the text of its file."""
    writers: dict[str, Callable[[], str]] = {
        "phh": lambda: phhs_text(game, log),
        "pokerstars": lambda: pokerstars_text(game, log, when=when),
    }
    if fmt not in writers:
        raise ExportError(f"unknown format {fmt!r}: use {' or '.join(FORMATS)}")
    return writers[fmt]()
