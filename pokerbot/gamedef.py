"""Game definitions in the ACPC ``.game`` format.

A :class:`GameDef` holds every field of the format. :func:`parse_gamedef` reads
the text the way the ACPC server's ``readGame`` does (case-insensitive keys,
``#`` comments, ``key = v1 v2 ...``) but refuses what that server would silently
accept or reject without saying why, naming the field that is wrong.

>>> game = load_game("leduc")
>>> game.num_rounds, game.raise_size, game.deck_size
(2, (2, 4), 6)
>>> load_game("hunl").stack
(20000, 20000)
"""

from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from pokerbot.cards import deck
from pokerbot.errors import GameDefError

MAX_ROUNDS = 4
MAX_PLAYERS = 10
MAX_HOLE_CARDS = 3
MAX_BOARD_CARDS = 7
#: ACPC stores missing stacks as INT32_MAX: limit games have no stack limit in practice.
UNLIMITED_STACK = 2**31 - 1
#: ACPC's default for maxRaises when the file gives none.
UNLIMITED_RAISES = 255

#: Short names of the games shipped in ``pokerbot/games``.
SHIPPED_GAMES: dict[str, str] = {
    "kuhn": "kuhn.limit.2p.game",
    "leduc": "leduc.limit.2p.game",
    "leduc-nl": "leduc.nolimit.2p.game",
    "hunl": "holdem.nolimit.2p.reverse_blinds.game",
    "hulhe": "holdem.limit.2p.reverse_blinds.game",
    "nlfh": "holdem.nolimit.2p.flop.game",
    "nlfh-small": "holdem.nolimit.2p.flop.smalldeck.game",
    "lfh-tiny": "holdem.limit.2p.flop.tiny.game",
}


@dataclass(frozen=True)
class GameDef:
    """Every field of an ACPC game definition. Player and round indices are 0-based.

    ``first_player`` is stored 0-based (the file is 1-based, as in ACPC).
    """

    nolimit: bool
    num_players: int
    num_rounds: int
    stack: tuple[int, ...]
    blind: tuple[int, ...]
    raise_size: tuple[int, ...]
    first_player: tuple[int, ...]
    max_raises: tuple[int, ...]
    num_suits: int
    num_ranks: int
    num_hole_cards: int
    num_board_cards: tuple[int, ...]
    name: str = dataclasses.field(default="", compare=False)

    @property
    def big_blind(self) -> int:
        """The largest blind: the unit of mbb/g (1 chip in Kuhn and Leduc)."""
        return max(self.blind)

    @property
    def deck_size(self) -> int:
        return self.num_suits * self.num_ranks

    def deck(self) -> list[int]:
        """The cards in play, as the ACPC server builds the deck."""
        return deck(self.num_ranks, self.num_suits)

    def board_cards_before(self, round_: int) -> int:
        """Number of board cards dealt before ``round_`` starts (ACPC ``bcStart``)."""
        return sum(self.num_board_cards[:round_])

    def board_cards_through(self, round_: int) -> int:
        """Number of board cards visible during ``round_`` (ACPC ``sumBoardCards``)."""
        return sum(self.num_board_cards[: round_ + 1])

    @property
    def total_board_cards(self) -> int:
        return sum(self.num_board_cards)

    def to_text(self) -> str:
        """The ``.game`` text of this definition; :func:`parse_gamedef` reads it back."""
        lines = ["GAMEDEF", "nolimit" if self.nolimit else "limit"]
        lines.append(f"numPlayers = {self.num_players}")
        lines.append(f"numRounds = {self.num_rounds}")
        if any(s != UNLIMITED_STACK for s in self.stack):
            lines.append("stack = " + " ".join(map(str, self.stack)))
        lines.append("blind = " + " ".join(map(str, self.blind)))
        if not self.nolimit or any(self.raise_size):
            # No-limit games ignore raiseSize, but keep it so that the text reads back equal.
            lines.append("raiseSize = " + " ".join(map(str, self.raise_size)))
        lines.append("firstPlayer = " + " ".join(str(p + 1) for p in self.first_player))
        if any(m != UNLIMITED_RAISES for m in self.max_raises):
            lines.append("maxRaises = " + " ".join(map(str, self.max_raises)))
        lines.append(f"numSuits = {self.num_suits}")
        lines.append(f"numRanks = {self.num_ranks}")
        lines.append(f"numHoleCards = {self.num_hole_cards}")
        lines.append("numBoardCards = " + " ".join(map(str, self.num_board_cards)))
        lines.append("END GAMEDEF")
        return "\n".join(lines) + "\n"


_LIST_KEYS = {
    "stack": "stack",
    "blind": "blind",
    "raisesize": "raise_size",
    "firstplayer": "first_player",
    "maxraises": "max_raises",
    "numboardcards": "num_board_cards",
}
_SCALAR_KEYS = {
    "numplayers": "num_players",
    "numrounds": "num_rounds",
    "numsuits": "num_suits",
    "numranks": "num_ranks",
    "numholecards": "num_hole_cards",
}


def _parse_ints(key: str, text: str, line_no: int) -> list[int]:
    text = text.strip()
    if text.startswith("="):
        text = text[1:]
    try:
        return [int(tok) for tok in text.split()]
    except ValueError:
        raise GameDefError(f"line {line_no}: {key} needs whole numbers, got {text.strip()!r}") from None


def parse_gamedef(text: str, name: str = "") -> GameDef:
    """Parse the text of an ACPC ``.game`` file.

    Raises :class:`GameDefError` naming the first field that is missing,
    malformed or inconsistent.
    """
    fields: dict[str, int | list[int]] = {}
    betting: str | None = None
    seen_header = False
    for line_no, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        lower = line.lower()
        if lower.startswith("end gamedef"):
            break
        if lower.startswith("gamedef"):
            seen_header = True
            continue
        if lower in ("limit", "nolimit"):
            betting = lower
            continue
        # "key = v1 v2", "key=v1" or, as ACPC also accepts, "key v1" (any whitespace).
        match = re.match(r"([^\s=]*)(.*)", lower)
        assert match is not None
        key, rest = match.group(1), match.group(2)
        if key in _LIST_KEYS:
            fields[_LIST_KEYS[key]] = _parse_ints(key, rest, line_no)
        elif key in _SCALAR_KEYS:
            values = _parse_ints(key, rest, line_no)
            if len(values) != 1:
                raise GameDefError(f"line {line_no}: {key} takes one number, got {len(values)}")
            fields[_SCALAR_KEYS[key]] = values[0]
        else:
            raise GameDefError(f"line {line_no}: unknown game definition line {raw.strip()!r}")
    if not seen_header:
        raise GameDefError("no GAMEDEF header")
    return _build(fields, betting, name)


def _build(fields: dict[str, int | list[int]], betting: str | None, name: str) -> GameDef:
    def scalar(key: str) -> int:
        if key not in fields:
            raise GameDefError(f"missing {key}")
        value = fields[key]
        assert isinstance(value, int)
        return value

    def per(key: str, count: int, default: int | None, what: str) -> tuple[int, ...]:
        values = fields.get(key)
        if values is None:
            if default is None:
                raise GameDefError(f"missing {what}")
            return (default,) * count
        assert isinstance(values, list)
        if len(values) < count:
            raise GameDefError(f"{what}: read {len(values)} values, need {count}")
        return tuple(values[:count])

    if betting is None:
        betting = "limit"  # ACPC's default betting type
    num_rounds = scalar("num_rounds")
    if not 1 <= num_rounds <= MAX_ROUNDS:
        raise GameDefError(f"invalid number of rounds: {num_rounds}")
    num_players = scalar("num_players")
    if not 2 <= num_players <= MAX_PLAYERS:
        raise GameDefError(f"invalid number of players: {num_players}")
    stack = per("stack", num_players, UNLIMITED_STACK, "stack sizes")
    blind = per("blind", num_players, None, "blinds")
    for p in range(num_players):
        if blind[p] < 0:
            raise GameDefError(f"negative blind for player {p + 1}")
        if blind[p] > stack[p]:
            raise GameDefError(f"blind for player {p + 1} is greater than stack size")
        if stack[p] <= 0:
            raise GameDefError(f"stack of player {p + 1} must be positive")
    nolimit = betting == "nolimit"
    if nolimit:
        sizes = fields.get("raise_size", [0] * num_rounds)
        assert isinstance(sizes, list)
        raise_size = tuple(int(v) for v in sizes)[:num_rounds]
        raise_size = raise_size + (0,) * (num_rounds - len(raise_size))
    else:
        raise_size = per("raise_size", num_rounds, None, "raise sizes")
        if any(r <= 0 for r in raise_size):
            raise GameDefError(f"raise sizes must be positive, got {raise_size}")
    first_one_based = per("first_player", num_rounds, 1, "first players")
    for r, p in enumerate(first_one_based):
        if not 1 <= p <= num_players:
            raise GameDefError(f"invalid first player {p} on round {r + 1}")
    max_raises = per("max_raises", num_rounds, UNLIMITED_RAISES, "max raises")
    if any(not 0 <= m <= UNLIMITED_RAISES for m in max_raises):  # ACPC stores maxRaises in a uint8
        raise GameDefError(f"max raises must be in 0..{UNLIMITED_RAISES}, got {max_raises}")
    num_suits = scalar("num_suits")
    if not 1 <= num_suits <= 4:
        raise GameDefError(f"invalid number of suits: {num_suits}")
    num_ranks = scalar("num_ranks")
    if not 1 <= num_ranks <= 13:
        raise GameDefError(f"invalid number of ranks: {num_ranks}")
    num_hole_cards = scalar("num_hole_cards")
    if not 1 <= num_hole_cards <= MAX_HOLE_CARDS:
        raise GameDefError(f"invalid number of hole cards: {num_hole_cards}")
    num_board_cards = per("num_board_cards", num_rounds, None, "board card numbers")
    if any(b < 0 for b in num_board_cards) or sum(num_board_cards) > MAX_BOARD_CARDS:
        raise GameDefError(f"invalid board card numbers {num_board_cards}")
    if num_hole_cards * num_players + sum(num_board_cards) > num_suits * num_ranks:
        raise GameDefError("too many hole and board cards for specified deck")
    return GameDef(
        nolimit=nolimit,
        num_players=num_players,
        num_rounds=num_rounds,
        stack=stack,
        blind=blind,
        raise_size=raise_size,
        first_player=tuple(p - 1 for p in first_one_based),
        max_raises=max_raises,
        num_suits=num_suits,
        num_ranks=num_ranks,
        num_hole_cards=num_hole_cards,
        num_board_cards=num_board_cards,
        name=name,
    )


def shipped_game_path(name: str) -> Path:
    """Path of a shipped ``.game`` file by short name (see :data:`SHIPPED_GAMES`)."""
    if name not in SHIPPED_GAMES:
        raise GameDefError(f"unknown game {name!r}; shipped games: {', '.join(SHIPPED_GAMES)}")
    return Path(str(resources.files("pokerbot") / "games" / SHIPPED_GAMES[name]))


@cache
def load_game(name_or_path: str | os.PathLike[str]) -> GameDef:
    """A shipped game by short name ("kuhn", "leduc", "hunl", ...) or any ``.game`` path."""
    key = str(name_or_path)
    if key in SHIPPED_GAMES:
        path, name = shipped_game_path(key), key
    else:
        path = Path(key)
        name = path.name.removesuffix(".game")
        if not path.is_file():
            raise GameDefError(
                f"no game {key!r}: not a shipped game ({', '.join(SHIPPED_GAMES)}) nor a .game file"
            )
    text = read_text_file(path, "game definition", GameDefError)
    try:
        return parse_gamedef(text, name=name)
    except GameDefError as exc:
        raise GameDefError(f"{path}: {exc}") from None


def read_text_file(path: Path, what: str, error: type[Exception], max_bytes: int = 1 << 20) -> str:
    """The UTF-8 text of a small text file, or ``error`` naming ``path`` if it is binary, huge or unreadable."""
    try:
        with open(path, "rb") as f:
            data = f.read(max_bytes + 1)
    except OSError as exc:
        raise error(f"cannot read {what} {os.fspath(path)!r}: {exc.strerror}") from None
    if len(data) > max_bytes:
        raise error(f"{os.fspath(path)}: not a {what} (over {max_bytes >> 20} MB)")
    if b"\0" in data:
        raise error(f"{os.fspath(path)}: not a {what} (binary data)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{os.fspath(path)}: not a {what} (not UTF-8 text: {exc.reason} at byte {exc.start})") from None
