"""Hold'em hand ranges in PioSOLVER's text format: one weight per two-card combo.

A range is a ``float64`` array of 1,326 weights in [0, 1], indexed like
:data:`HANDS`, the solver's hand order for a 52-card deck (each hand's cards high
to low; hands in ``itertools.combinations`` order over the cards 51..0, as
:func:`pokerbot.solver.tree.hand_list` builds them).

The text is a comma-separated list of items; a later item overrides an earlier
one on the combos they share, as in PioSOLVER. An item is

* a hand class: a pair ``QQ``, ``AKs`` (suited, 4 combos), ``AKo`` (offsuit, 12)
  or ``AK`` (both, 16), the higher rank first;
* a run of classes: ``QQ+`` (QQ, KK, AA), ``99-66`` or ``66-99`` (pairs between),
  ``A5s-A2s`` (one top card, kickers between, one suitedness), ``KTo+`` (kickers
  up to one below the top card: KTo, KJo, KQo);
* one combo, ``AcKd`` (cards in either order);
* ``random`` or ``all``: every combo;

optionally followed by a weight, ``:0.75`` (a plain number in [0, 1], no ``%``;
default 1). Everything is read case-insensitively (``aks``, ``AcKD``, ``Random``),
whitespace around items and weights is ignored and empty items are skipped.

>>> w = parse_range("QQ+, AKs, A5s-A2s:0.5")
>>> int(np.count_nonzero(w)), float(w.sum())
(38, 30.0)
>>> format_range(w)
'QQ+,AKs,A5s-A2s:0.5'
>>> format_range(parse_range("99-77, AcKd:0.25, KQs, KsQs:0"))   # mixed classes print combo by combo
'99-77,KhQh,KdQd,KcQc,AcKd:0.25'
>>> from pokerbot.cards import parse_cards
>>> hand_class(parse_cards("Td9d")), len(class_combos("T9o"))
('T9s', 12)
>>> format_range(range_on_board(parse_range("AA"), parse_cards("As")))
'AhAd,AhAc,AdAc'
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from pokerbot.cards import NUM_CARDS, RANK_CHARS, SUIT_CHARS, check_distinct, format_card, format_cards
from pokerbot.errors import CardError, SolverError

__all__ = [
    "HANDS",
    "RangeError",
    "class_combos",
    "format_range",
    "grid_classes",
    "hand_class",
    "parse_range",
    "range_on_board",
]


class RangeError(SolverError):
    """A malformed range string or range array (a :class:`SolverError`, since ranges feed the solver)."""


#: Every two-card hand in the solver's order: ``int32`` rows (high card, low card).
HANDS: np.ndarray = np.array(list(itertools.combinations(range(NUM_CARDS - 1, -1, -1), 2)), dtype=np.int32)
HANDS.flags.writeable = False
NUM_HANDS = len(HANDS)  # 1326

#: Index into :data:`HANDS` of the hand of cards (a, b), in either order; -1 on the diagonal.
_INDEX = np.full((NUM_CARDS, NUM_CARDS), -1, dtype=np.int64)
_INDEX[HANDS[:, 0], HANDS[:, 1]] = np.arange(NUM_HANDS)
_INDEX[HANDS[:, 1], HANDS[:, 0]] = np.arange(NUM_HANDS)


def _class_id(high: int, low: int, suited: bool) -> int:
    """Cell of the 13x13 grid (row-major, ranks A..2): pairs on the diagonal, suited above, offsuit below."""
    if high == low or suited:
        return (12 - high) * 13 + (12 - low)
    return (12 - low) * 13 + (12 - high)


def _class_name(cid: int) -> str:
    row, col = divmod(cid, 13)
    if row == col:
        return RANK_CHARS[12 - row] * 2
    if row < col:
        return RANK_CHARS[12 - row] + RANK_CHARS[12 - col] + "s"
    return RANK_CHARS[12 - col] + RANK_CHARS[12 - row] + "o"


_NAMES: tuple[str, ...] = tuple(_class_name(cid) for cid in range(169))
_NAME_TO_ID = {name: cid for cid, name in enumerate(_NAMES)}
#: Class id of every hand of :data:`HANDS`.
_CLASS_OF = np.array(
    [_class_id(int(a) // 4, int(b) // 4, int(a) % 4 == int(b) % 4) for a, b in HANDS], dtype=np.int64
)
#: Indices into :data:`HANDS` of each class, ascending.
_CLASS_IDX: tuple[np.ndarray, ...] = tuple(np.flatnonzero(_CLASS_OF == cid) for cid in range(169))
_ALL = np.arange(NUM_HANDS)
#: Each class's indices, padded to 12 by repeating its first.
_CLASS_PAD = np.array([np.pad(idx, (0, 12 - len(idx)), mode="edge") for idx in _CLASS_IDX])
#: Each hand as text, "AcKd".
_COMBO_TEXT: tuple[str, ...] = tuple(format_cards(hand) for hand in HANDS)

_RANK_OF = {c: r for r, c in enumerate(RANK_CHARS)}
_CLASS_RE = re.compile(r"([2-9TJQKA])([2-9TJQKA])([SO]?)", re.IGNORECASE)
_COMBO_RE = re.compile(r"[2-9TJQKA][CDHS][2-9TJQKA][CDHS]", re.IGNORECASE)
_WEIGHT_RE = re.compile(r"[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?")


def hand_class(cards: Sequence[int]) -> str:
    """The class ("AKs", "QQ", "T9o") of a hand of two distinct cards; :class:`CardError` otherwise."""
    if len(cards) != 2:
        raise CardError(f"a hold'em hand is two cards, got {len(cards)}")
    a, b = (int(c) for c in cards)
    for card in (a, b):
        format_card(card)  # validates
    check_distinct((a, b))
    return _NAMES[_CLASS_OF[_INDEX[a, b]]]


def class_combos(name: str) -> list[int]:
    """Indices into :data:`HANDS` of the combos of one of the 169 classes, spelled as :func:`grid_classes`."""
    cid = _NAME_TO_ID.get(name)
    if cid is None:
        raise RangeError(f"not a hand class: {name!r} (write e.g. 'AKs', 'AKo', 'QQ')")
    return [int(i) for i in _CLASS_IDX[cid]]


def grid_classes() -> list[list[str]]:
    """The 169 class names as the usual 13x13 grid: row and column ranks A..2, pairs on the
    diagonal, suited hands above it (row rank first), offsuit below (column rank first).

    >>> grid_classes()[0][:3], grid_classes()[1][:3], grid_classes()[12][12]
    (['AA', 'AKs', 'AQs'], ['AKo', 'KK', 'KQs'], '22')
    """
    return [list(_NAMES[row * 13 : row * 13 + 13]) for row in range(13)]


class _BadItem(Exception):
    """Why an item is bad; :func:`parse_range` turns it into a :class:`RangeError` naming the item."""


def _read_class(token: str) -> tuple[int, int, str]:
    """(high rank, low rank, "s" | "o" | "") of a class token such as "AKs"."""
    m = _CLASS_RE.fullmatch(token)
    if m is None and _COMBO_RE.fullmatch(token):
        raise _BadItem(f"a combo ({token!r}) cannot start or end a run")
    if m is None:
        raise _BadItem(f"{token!r} is not a hand class ('QQ', 'AKs', 'AKo', 'AK'), a combo ('AcKd') or a run")
    high, low, kind = _RANK_OF[m[1].upper()], _RANK_OF[m[2].upper()], m[3].lower()
    if high == low and kind:
        raise _BadItem(f"a pair is neither suited nor offsuit ({token!r})")
    if high < low:
        raise _BadItem(f"write the higher rank first ({token[1] + token[0] + token[2:]!r}, not {token!r})")
    return high, low, kind


def _class_ids(high: int, lows: Iterable[int], kind: str) -> list[int]:
    """Class ids of the classes (high, low) for each of ``lows``, of suitedness ``kind`` ("" for both)."""
    ids = []
    for low in lows:
        if low == high:
            ids.append(_class_id(high, high, False))
        else:
            ids += [_class_id(high, low, k == "s") for k in (kind or "so")]
    return ids


def _indices(cids: Iterable[int]) -> np.ndarray:
    return np.concatenate([_CLASS_IDX[cid] for cid in cids])


@lru_cache(maxsize=4096)
def _item_indices(body: str) -> np.ndarray:
    """Indices into :data:`HANDS` of the combos an item (without its weight) names (read-only)."""
    found = _read_item(body)
    found.flags.writeable = False
    return found


def _read_item(body: str) -> np.ndarray:
    if body.lower() in ("random", "all"):
        return _ALL.copy()
    if _COMBO_RE.fullmatch(body):
        a = _RANK_OF[body[0].upper()] * 4 + SUIT_CHARS.index(body[1].lower())
        b = _RANK_OF[body[2].upper()] * 4 + SUIT_CHARS.index(body[3].lower())
        if a == b:
            raise _BadItem(f"repeated card {format_card(a)}")
        return np.array([_INDEX[a, b]])
    if "-" in body:
        first, _, last = (t.strip() for t in body.partition("-"))
        (h1, l1, k1), (h2, l2, k2) = _read_class(first), _read_class(last)
        if h1 == l1 and h2 == l2:  # pairs: 99-66
            return _indices(_class_id(r, r, False) for r in range(min(h1, h2), max(h1, h2) + 1))
        if h1 != l1 and h2 != l2 and h1 == h2 and k1 == k2:  # A5s-A2s
            return _indices(_class_ids(h1, range(min(l1, l2), max(l1, l2) + 1), k1))
        raise _BadItem("the ends of a run must both be pairs, or share the top card and suitedness")
    if body.endswith("+"):
        high, low, kind = _read_class(body[:-1].rstrip())
        if high == low:  # QQ+
            return _indices(_class_id(r, r, False) for r in range(high, 13))
        return _indices(_class_ids(high, range(low, high), kind))  # KTo+: kickers up to one below the top
    if len(body) == 4 and body.isalnum():
        raise _BadItem(f"{body!r} is not a combo: bad rank or suit")
    high, low, kind = _read_class(body)
    return _indices(_class_ids(high, [low], kind))


def _read_weight(text: str) -> float:
    if not _WEIGHT_RE.fullmatch(text):
        raise _BadItem(f"weight {text!r} is not a number")
    weight = float(text)
    if not 0.0 <= weight <= 1.0:
        raise _BadItem(f"weight {text} is outside [0, 1]")
    return weight


def parse_range(text: str) -> np.ndarray:
    """The weights (``float64``, shape (1326,), order of :data:`HANDS`) of a PioSOLVER range string.

    See the module docstring for the syntax; "" is the empty range. Raises a
    one-line :class:`RangeError` naming the first bad item.

    >>> w = parse_range("AA, AsAh:0.5")
    >>> [float(w[i]) for i in class_combos("AA")]
    [0.5, 1.0, 1.0, 1.0, 1.0, 1.0]
    >>> try:
    ...     parse_range("AA, QQs:0.5")
    ... except RangeError as e:
    ...     print(e)
    bad range item 'QQs:0.5': a pair is neither suited nor offsuit ('QQs')
    """
    weights = np.zeros(NUM_HANDS, dtype=np.float64)
    for raw in text.split(","):
        item = raw.strip()
        if not item:
            continue
        body, colon, wtext = item.partition(":")
        body = body.rstrip()
        try:
            weight = _read_weight(wtext.strip()) if colon else 1.0
            if not body:
                raise _BadItem("no hands before the weight")
            weights[_item_indices(body)] = weight
        except _BadItem as exc:
            raise RangeError(f"bad range item {item!r}: {exc}") from None
    return weights


def _check_weights(weights: npt.ArrayLike) -> np.ndarray:
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (NUM_HANDS,):
        raise RangeError(f"a range has {NUM_HANDS} weights, got an array of shape {w.shape}")
    if not (np.isfinite(w).all() and (w >= 0).all() and (w <= 1).all()):
        raise RangeError("range weights must be finite and in [0, 1]")
    return w


def _weight_text(weight: float) -> str:
    return "" if weight == 1.0 else f":{weight:.4g}"


def format_range(weights: npt.ArrayLike) -> str:
    """The compact, canonical PioSOLVER string of a range: ``parse_range(format_range(w)) == w``
    whenever every weight has at most 4 significant digits (others are rounded to 4).

    A class whose combos share one weight prints as the class, runs of classes of
    one weight as ``QQ+``, ``99-66``, ``A5s-A2s``, ``KTo+``; a class of mixed
    weights prints its nonzero combos (``AcKd:0.5``); zero weights are left out.
    Pairs come first, then suited and offsuit hands, each high to low.

    >>> format_range(parse_range("22+, A2s+, KTo+:0.5, 54o:0.3333"))
    '22+,A2s+,KTo+:0.5,54o:0.3333'
    >>> format_range(np.zeros(1326))
    ''
    """
    w = _check_weights(weights)
    values, inverse = np.unique(w, return_inverse=True)
    rounded = np.array([float(f"{v:.4g}") for v in values.tolist()])[inverse.reshape(-1)]
    # Combo i's weight prints as texts[code[i]]; code 0 is weight 0 if any.
    printed, code = np.unique(rounded, return_inverse=True)
    code = code.reshape(-1)
    texts = [_weight_text(v) for v in printed.tolist()]
    zero = 0 if printed[0] == 0 else -1
    # Per class: the code of its one weight, or -1 if its combos differ.
    by_class = code[_CLASS_PAD]
    class_code = np.where((by_class == by_class[:, :1]).all(axis=1), by_class[:, 0], -1).tolist()
    code_list = code.tolist()

    items: list[str] = []

    def emit(cids: list[int]) -> None:
        """Items of a sequence of classes from the top of a '+' run downwards (AA, KK, ... or AKs, AQs, ...)."""
        i = 0
        while i < len(cids):
            k = class_code[cids[i]]
            if k < 0:
                items.extend(
                    _COMBO_TEXT[j] + texts[code_list[j]] for j in _CLASS_IDX[cids[i]].tolist() if code_list[j] != zero
                )
                i += 1
                continue
            j = i + 1
            while j < len(cids) and class_code[cids[j]] == k:
                j += 1
            if k != zero:
                top, bottom = _NAMES[cids[i]], _NAMES[cids[j - 1]]
                if j - i == 1:
                    text = top
                elif i == 0:
                    text = bottom + "+"
                else:
                    text = f"{top}-{bottom}"
                items.append(text + texts[k])
            i = j

    emit([_class_id(r, r, False) for r in range(12, -1, -1)])
    for suited in (True, False):
        for high in range(12, 0, -1):
            emit([_class_id(high, low, suited) for low in range(high - 1, -1, -1)])
    return ",".join(items)


def range_on_board(weights: npt.ArrayLike, board_cards: Iterable[int]) -> np.ndarray:
    """A copy of the range ``weights`` with every combo holding a card of ``board_cards`` set to 0.

    >>> int(np.count_nonzero(range_on_board(parse_range("random"), [51, 50, 49])))
    1176
    """
    w = _check_weights(weights).copy()
    board = [int(c) for c in board_cards]
    for c in board:
        format_card(c)  # validates
    check_distinct(board)
    if board:
        w[np.isin(HANDS, board).any(axis=1)] = 0.0
    return w
