"""Fast poker hand evaluation: numba kernels over small lookup tables.

Cards use the ACPC encoding of :mod:`pokerbot.cards` (``rank * 4 + suit``).

Values
------
For 5, 6 and 7 cards a hand's value is an integer in 1..7462, **higher is
better and equal values tie**. The ordering and the 7,462 equivalence classes
are exactly those of treys / Cactus Kev: ``value == 7463 - treys_rank``
(the royal flush is 7462, 7-5-4-3-2 offsuit is 1). Six and seven cards are
worth their best five-card hand.

Fewer than five cards (the ACPC research games: Kuhn deals one card, a Leduc
showdown has hole + board = two cards) follow the ACPC server's rule for partial
card sets: no straights and no flushes, categories high card < pair < two pair
< trips < quads, then kickers by rank, highest first. These values are dense
ranks **among hands with the same number of cards only**: compare a three-card
value with another three-card value, never with a two-card or a 5+-card value.

Kernels (``@njit(cache=True)``, callable from other numba kernels):
:func:`eval5`, :func:`eval6`, :func:`eval7` (cards as separate arguments) and
:func:`eval_cards` (an integer array and a count). Python wrappers:
:func:`evaluate` (validating), :func:`evaluate_batch` (an ``(N, k)`` array) and
:func:`hand_class_name`.

How it works
------------
Every card maps to one 64-bit word (``_PACK``); the sum of a hand's words holds
at once

* bits 0..16: the counts of ranks 2..8 as a base-5 number ("quinary"),
* bits 20..35: four 4-bit suit counters, each starting at 3, so a suit with
  five or more cards sets that counter's top bit (one ``&`` tests for a flush),
* bits 40..53: the counts of ranks 9..A in base 5.

A flush (at most one suit can have five of seven cards, and with five suited
cards out of seven no full house or quads is possible) is looked up by the
13-bit rank mask of the flush suit in ``_FLUSH``. Otherwise the rank multiset
is perfectly hashed: ``_HIOFF[n, hi] + _LO[lo]`` enumerates the n-card rank
multisets without gaps (``_LO`` numbers the low halves among those of the same
size; ``_HIOFF`` gives each high half a block as large as the number of low
halves that complete it to n cards), and ``_NONFLUSH`` holds the value. All
tables are computed from the rules at import (well under a second, a few
hundred kB) by :func:`_build_tables`; no external evaluator is used.

numba freezes the tables into the compiled kernels, and ``cache=True`` keeps
those on disk next to this file. numba does not track dependencies across
modules: a kernel elsewhere compiled with ``cache=True`` that calls these
kernels keeps its cached copy if this file changes; clear that module's
``__pycache__/*.nbi`` / ``*.nbc`` after changing the evaluator.

>>> from pokerbot.cards import parse_cards
>>> evaluate(parse_cards("AsKsQsJsTs"))
7462
>>> evaluate(parse_cards("7c5d4h3s2c"))
1
>>> hand_class_name(evaluate(parse_cards("AhAd2c2s9h3d7c")))
'Two Pair'
>>> evaluate(parse_cards("Ks")) > evaluate(parse_cards("Qh"))  # Kuhn
True
>>> evaluate(parse_cards("QhQs")) > evaluate(parse_cards("AhKs"))  # Leduc pair
True
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np
from numba import njit

from pokerbot.errors import CardError

__all__ = [
    "NUM_HAND_VALUES",
    "HAND_CLASS_NAMES",
    "eval5",
    "eval6",
    "eval7",
    "eval_cards",
    "evaluate",
    "evaluate_batch",
    "hand_class_name",
]

#: Number of distinct values (equivalence classes) of 5..7-card hands.
NUM_HAND_VALUES = 7462

#: Category names, weakest first (index = category number used internally).
HAND_CLASS_NAMES = (
    "High Card",
    "Pair",
    "Two Pair",
    "Three of a Kind",
    "Straight",
    "Flush",
    "Full House",
    "Four of a Kind",
    "Straight Flush",
)

# Categories of 5+-card hands, weakest first.
_HIGH, _PAIR, _TWO_PAIR, _TRIPS, _STRAIGHT = 0, 1, 2, 3, 4
_FLUSH_CAT, _FULL_HOUSE, _QUADS, _STRAIGHT_FLUSH = 5, 6, 7, 8

_NLO = 7  # ranks 2..8 form the low half of the quinary rank count
_NHI = 6  # ranks 9..A form the high half
_LO_SIZE = 5**_NLO  # 78125
_HI_SIZE = 5**_NHI  # 15625
_MAX_CARDS = 7

_SUIT_SHIFT = 20
_HI_SHIFT = 40
_LO_MASK = (1 << 17) - 1
_SUIT_INIT = 0x3333 << _SUIT_SHIFT  # every suit counter starts at 3
_FLUSH_BITS = 0x8888 << _SUIT_SHIFT  # counter >= 8  <=>  five or more cards of that suit

_KEY_SHIFT = 20  # ordering key = category << 20 | up to five 4-bit ranks, most significant first


def _base5_digits(n_digits: int) -> np.ndarray:
    """``(5**n_digits, n_digits)`` array: digit ``j`` of every number below ``5**n_digits``."""
    q = np.arange(5**n_digits, dtype=np.int64)
    return np.stack([(q // 5**j) % 5 for j in range(n_digits)], axis=1)


def _straight_tops(mask: np.ndarray) -> np.ndarray:
    """Highest straight in each 13-bit rank mask as its top rank (3 = five-high), or -1."""
    top = np.full(mask.shape, -1, dtype=np.int64)
    wheel = (1 << 12) | 0b1111
    top[(mask & wheel) == wheel] = 3
    for t in range(4, 13):  # ascending, so the highest straight wins
        run = 0b11111 << (t - 4)
        top[(mask & run) == run] = t
    return top


def _keys_from_counts(counts: np.ndarray, short: bool) -> np.ndarray:
    """Ordering keys of rank multisets of at most five cards (no flushes).

    ``counts`` is ``(M, 13)``. The key is ``category << 20`` plus the ranks in
    order of significance (by count, then rank, descending), four bits each,
    the first in the top nibble. ``short`` (fewer than five cards): the ACPC
    partial-hand categories, no straights; otherwise the poker categories of a
    five-card hand.
    """
    m = counts.shape[0]
    ranks = np.arange(13, dtype=np.int64)
    order = np.sort(counts * 16 + ranks, axis=1)[:, ::-1][:, :5]  # by count, then rank, desc
    cnt = order >> 4
    rk = np.where(cnt > 0, order & 15, 0)
    kick = np.zeros(m, dtype=np.int64)
    for j in range(5):
        kick |= rk[:, j] << (4 * (4 - j))
    c0, c1 = cnt[:, 0], cnt[:, 1]
    cat = np.full(m, _HIGH, dtype=np.int64)
    cat[c0 == 2] = _PAIR
    cat[(c0 == 2) & (c1 == 2)] = _TWO_PAIR
    if short:  # partial card sets: 0..4 = high card, pair, two pair, trips, quads
        cat[c0 == 3] = 3
        cat[c0 == 4] = 4
        return (cat << _KEY_SHIFT) | kick
    cat[c0 == 3] = _TRIPS
    cat[(c0 == 3) & (c1 == 2)] = _FULL_HOUSE
    cat[c0 == 4] = _QUADS
    mask = ((counts > 0).astype(np.int64) << ranks).sum(axis=1)
    top = _straight_tops(mask)
    straight = (c0 == 1) & (top >= 0)
    key = (cat << _KEY_SHIFT) | kick
    key[straight] = (_STRAIGHT << _KEY_SHIFT) | top[straight]
    return key


def _flush_keys(masks: np.ndarray) -> np.ndarray:
    """Ordering keys of the best flush / straight flush in each rank mask (>= 5 bits)."""
    top = _straight_tops(masks)
    kick = np.zeros(masks.shape, dtype=np.int64)
    taken = np.zeros(masks.shape, dtype=np.int64)
    for r in range(12, -1, -1):  # the five highest ranks of the mask
        take = ((masks >> r) & 1).astype(bool) & (taken < 5)
        kick[take] |= np.int64(r) << (4 * (4 - taken[take]))
        taken += take
    key = (_FLUSH_CAT << _KEY_SHIFT) | kick
    sf = top >= 0
    key[sf] = (_STRAIGHT_FLUSH << _KEY_SHIFT) | top[sf]
    return key


def _build_tables() -> dict[str, np.ndarray]:
    """Compute every lookup table from the rules of poker (see the module docstring)."""
    lo_digits = _base5_digits(_NLO)
    hi_digits = _base5_digits(_NHI)
    lo_size = lo_digits.sum(axis=1)
    hi_size = hi_digits.sum(axis=1)

    # _LO: index of a low half among the low halves with the same number of cards.
    lo_index = np.zeros(_LO_SIZE, dtype=np.int64)
    n_lo = np.zeros(_MAX_CARDS + 1, dtype=np.int64)
    lo_by_size = []
    for s in range(_MAX_CARDS + 1):
        qs = np.flatnonzero(lo_size == s)
        lo_index[qs] = np.arange(qs.size)
        n_lo[s] = qs.size
        lo_by_size.append(qs)
    hi_by_size = [np.flatnonzero(hi_size == s) for s in range(_MAX_CARDS + 1)]

    # _HIOFF[n, hi]: start of hi's block among the n-card multisets, after the
    # blocks of all multisets with fewer cards (so one flat value table serves every n).
    hioff = np.zeros((_MAX_CARDS + 1, _HI_SIZE), dtype=np.int64)
    base = 0
    n_multisets = np.zeros(_MAX_CARDS + 1, dtype=np.int64)
    for n in range(_MAX_CARDS + 1):
        valid = hi_size <= n
        block = np.where(valid, n_lo[np.clip(n - hi_size, 0, _MAX_CARDS)], 0)
        start = np.cumsum(block) - block
        hioff[n] = np.where(valid, base + start, 0)
        n_multisets[n] = block.sum()
        base += n_multisets[n]
    total = base

    def multisets(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """All n-card rank multisets: (hi quinary, lo quinary, counts (M, 13))."""
        his, los = [], []
        for k in range(n + 1):
            h, l = np.meshgrid(hi_by_size[k], lo_by_size[n - k], indexing="ij")
            his.append(h.ravel())
            los.append(l.ravel())
        hi = np.concatenate(his)
        lo = np.concatenate(los)
        counts = np.concatenate([lo_digits[lo], hi_digits[hi]], axis=1)
        return hi, lo, counts

    nonflush = np.zeros(total, dtype=np.int64)
    pow5 = 5 ** np.arange(13, dtype=np.int64)

    # Five cards: the 6,175 non-flush classes and the 1,287 flush classes together
    # are all 7,462 five-card classes; a value is the rank of the key among them.
    flush_masks = np.arange(1 << 13, dtype=np.int64)
    popcount = ((flush_masks[:, None] >> np.arange(13)) & 1).sum(axis=1)
    flush_key = _flush_keys(flush_masks)
    hi5, lo5, counts5 = multisets(5)
    key5 = _keys_from_counts(counts5, short=False)
    all_keys = np.unique(np.concatenate([key5, flush_key[popcount == 5]]))
    if all_keys.size != NUM_HAND_VALUES:  # pragma: no cover - a broken build
        raise AssertionError(f"{all_keys.size} five-card classes, expected {NUM_HAND_VALUES}")
    nonflush[hioff[5, hi5] + lo_index[lo5]] = np.searchsorted(all_keys, key5) + 1

    flush = np.zeros(1 << 13, dtype=np.int64)
    big = popcount >= 5
    flush[big] = np.searchsorted(all_keys, flush_key[big]) + 1

    # Six and seven cards: the best of the (n-1)-card hands left by dropping one card.
    for n in (6, 7):
        hi, lo, counts = multisets(n)
        best = np.zeros(hi.size, dtype=np.int64)
        for r in range(13):
            has = counts[:, r] > 0
            if r < _NLO:
                idx = hioff[n - 1, hi[has]] + lo_index[lo[has] - pow5[r]]
            else:
                idx = hioff[n - 1, hi[has] - pow5[r - _NLO]] + lo_index[lo[has]]
            best[has] = np.maximum(best[has], nonflush[idx])
        nonflush[hioff[n, hi] + lo_index[lo]] = best

    # One to four cards: ACPC partial hands, dense rank among hands of the same size.
    for n in range(1, 5):
        hi, lo, counts = multisets(n)
        key = _keys_from_counts(counts, short=True)
        nonflush[hioff[n, hi] + lo_index[lo]] = np.searchsorted(np.unique(key), key) + 1

    pack = np.zeros(52, dtype=np.int64)
    for card in range(52):
        rank, suit = divmod(card, 4)
        half = pow5[rank] if rank < _NLO else pow5[rank - _NLO] << _HI_SHIFT
        pack[card] = half + (1 << (_SUIT_SHIFT + 4 * suit))

    # Highest value of each category (5+ cards), for hand_class_name.
    cat_of_class = all_keys >> _KEY_SHIFT
    class_max = np.array([np.flatnonzero(cat_of_class == c).max() + 1 for c in range(9)])

    return {
        "pack": pack,
        "lo": lo_index.astype(np.int16),
        "hioff": hioff.ravel().astype(np.int32),
        "nonflush": nonflush.astype(np.int16),
        "flush": flush.astype(np.int16),
        "class_max": class_max.astype(np.int64),
    }


_TABLES = _build_tables()
# Flat numpy arrays; numba freezes them into the compiled kernels as constants.
_PACK = _TABLES["pack"]
_LO = _TABLES["lo"]
_HIOFF = _TABLES["hioff"]
_NONFLUSH = _TABLES["nonflush"]
_FLUSH = _TABLES["flush"]
_CLASS_MAX = _TABLES["class_max"]


@njit(cache=True, inline="always")
def _nonflush(s, n):
    """Value of the rank multiset encoded in the packed sum ``s`` of ``n`` cards."""
    return np.int32(_NONFLUSH[_HIOFF[n * _HI_SIZE + (s >> _HI_SHIFT)] + _LO[s & _LO_MASK]])


@njit(cache=True, inline="always")
def _flush_suit(s):
    """The suit with five or more cards, given a packed sum with a flush bit set."""
    f = (s >> _SUIT_SHIFT) & 0x8888
    if f & 0x8:
        return 0
    if f & 0x80:
        return 1
    if f & 0x800:
        return 2
    return 3


@njit(cache=True, inline="always")
def _bit(card, suit):
    """Rank bit of ``card`` if it has ``suit``, else 0."""
    return (1 << (card >> 2)) if (card & 3) == suit else 0


@njit(cache=True)
def eval5(c0, c1, c2, c3, c4):
    """Value (1..7462, higher is better) of a five-card hand.

    >>> from pokerbot.cards import parse_cards
    >>> int(eval5(*parse_cards("AsKsQsJsTs")))
    7462
    >>> int(eval5(*parse_cards("AcAdAhKsKc"))) > int(eval5(*parse_cards("AsQsTs8s6s")))
    True
    """
    s = _SUIT_INIT + _PACK[c0] + _PACK[c1] + _PACK[c2] + _PACK[c3] + _PACK[c4]
    if s & _FLUSH_BITS:
        u = _flush_suit(s)
        m = _bit(c0, u) | _bit(c1, u) | _bit(c2, u) | _bit(c3, u) | _bit(c4, u)
        return np.int32(_FLUSH[m])
    return _nonflush(s, 5)


@njit(cache=True)
def eval6(c0, c1, c2, c3, c4, c5):
    """Value (1..7462, higher is better) of the best five of six cards.

    >>> from pokerbot.cards import parse_cards
    >>> int(eval6(*parse_cards("AsKsQsJsTs2c")))
    7462
    """
    s = _SUIT_INIT + _PACK[c0] + _PACK[c1] + _PACK[c2] + _PACK[c3] + _PACK[c4] + _PACK[c5]
    if s & _FLUSH_BITS:
        u = _flush_suit(s)
        m = _bit(c0, u) | _bit(c1, u) | _bit(c2, u) | _bit(c3, u) | _bit(c4, u) | _bit(c5, u)
        return np.int32(_FLUSH[m])
    return _nonflush(s, 6)


@njit(cache=True)
def eval7(c0, c1, c2, c3, c4, c5, c6):
    """Value (1..7462, higher is better) of the best five of seven cards.

    >>> from pokerbot.cards import parse_cards
    >>> int(eval7(*parse_cards("2c3d4h5s7c8dAs")))  # wheel straight
    5854
    """
    s = (
        _SUIT_INIT
        + _PACK[c0]
        + _PACK[c1]
        + _PACK[c2]
        + _PACK[c3]
        + _PACK[c4]
        + _PACK[c5]
        + _PACK[c6]
    )
    if s & _FLUSH_BITS:
        u = _flush_suit(s)
        m = (
            _bit(c0, u)
            | _bit(c1, u)
            | _bit(c2, u)
            | _bit(c3, u)
            | _bit(c4, u)
            | _bit(c5, u)
            | _bit(c6, u)
        )
        return np.int32(_FLUSH[m])
    return _nonflush(s, 7)


@njit(cache=True)
def eval_cards(cards, n):
    """Value of the first ``n`` (1..7) cards of the integer array ``cards``.

    ``n >= 5``: same as :func:`eval5` / :func:`eval6` / :func:`eval7`.
    ``n < 5``: ACPC partial-hand value, comparable only among hands of ``n``
    cards (see the module docstring). No validation: pass distinct cards in 0..51.

    >>> import numpy as np
    >>> int(eval_cards(np.array([51, 47]), 2)) == int(eval_cards(np.array([50, 46]), 2))  # AsKs ties AhKh
    True
    >>> int(eval_cards(np.array([40, 41]), 2)) > int(eval_cards(np.array([51, 47]), 2))  # QcQd beats AsKs
    True
    """
    s = _SUIT_INIT
    for i in range(n):
        s += _PACK[cards[i]]
    if n >= 5 and (s & _FLUSH_BITS):
        u = _flush_suit(s)
        m = 0
        for i in range(n):
            m |= _bit(cards[i], u)
        return np.int32(_FLUSH[m])
    return _nonflush(s, n)


@njit(cache=True)
def _first_invalid_row(cards):
    """Index of the first row with a card outside 0..51 or a repeated card, else -1."""
    for i in range(cards.shape[0]):
        seen = np.int64(0)
        for j in range(cards.shape[1]):
            c = np.int64(cards[i, j])
            if c < 0 or c > 51:
                return i
            b = np.int64(1) << c
            if seen & b:
                return i
            seen |= b
    return -1


@njit(cache=True)
def _batch(cards, out):
    """``out[i]`` = value of row ``i`` of ``cards`` (``(N, k)``, k in 5..7); no validation."""
    n, k = cards.shape
    if k == 7:
        for i in range(n):
            out[i] = eval7(
                cards[i, 0], cards[i, 1], cards[i, 2], cards[i, 3], cards[i, 4], cards[i, 5], cards[i, 6]
            )
    elif k == 6:
        for i in range(n):
            out[i] = eval6(cards[i, 0], cards[i, 1], cards[i, 2], cards[i, 3], cards[i, 4], cards[i, 5])
    else:
        for i in range(n):
            out[i] = eval5(cards[i, 0], cards[i, 1], cards[i, 2], cards[i, 3], cards[i, 4])


def evaluate(cards: Sequence[int]) -> int:
    """Value of a hand of 1..7 distinct cards (see the module docstring for the scale).

    Raises :class:`~pokerbot.errors.CardError` for no cards, more than seven,
    a card outside 0..51 or a repeated card.

    >>> from pokerbot.cards import parse_cards
    >>> evaluate(parse_cards("AsAhKdKc2s")) > evaluate(parse_cards("AsAhKdQc2s"))
    True
    """
    try:
        hand = [operator.index(c) for c in cards]
    except TypeError as exc:
        raise CardError(f"cards must be integers, got {cards!r}") from exc
    if not 1 <= len(hand) <= _MAX_CARDS:
        raise CardError(f"can evaluate 1 to 7 cards, got {len(hand)}")
    for c in hand:
        if not 0 <= c < 52:
            raise CardError(f"not a card index: {c}")
    if len(set(hand)) != len(hand):
        raise CardError(f"repeated card in {hand}")
    return int(eval_cards(np.array(hand, dtype=np.int64), len(hand)))


def evaluate_batch(cards: np.ndarray) -> np.ndarray:
    """Values of ``N`` hands of ``k`` cards, ``cards`` of shape ``(N, k)`` with ``k`` in 5..7.

    Returns an ``int32`` array of shape ``(N,)``. Any integer dtype works; the
    kernels read ``uint8`` (other dtypes are copied into it once checked). Rows are
    validated (cards in 0..51, no repeats) before any is evaluated; a bad row raises
    :class:`~pokerbot.errors.CardError` naming its index.

    >>> import numpy as np
    >>> from pokerbot.cards import parse_cards
    >>> evaluate_batch(np.array([parse_cards("AsKsQsJsTs9s9h"), parse_cards("2c3d4h5s6c8d9h")]))
    array([7462, 5855], dtype=int32)
    """
    arr = np.asarray(cards)
    if arr.ndim != 2 or not 5 <= arr.shape[1] <= _MAX_CARDS:
        raise CardError(f"expected an (N, k) array with k in 5..7, got shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise CardError(f"cards must be integers, got dtype {arr.dtype}")
    # One compiled kernel for every input dtype: the cards as uint8, once the range is checked here.
    in_range = not arr.size or (int(arr.min()) >= 0 and int(arr.max()) <= 51)  # two cheap passes; rows only if not
    out_of_range = np.zeros(0, np.int64) if in_range else np.flatnonzero(((arr < 0) | (arr > 51)).any(axis=1))
    compact = np.ascontiguousarray(arr, dtype=np.uint8)
    bad = _first_invalid_row(compact)
    if len(out_of_range):
        bad = int(out_of_range[0]) if bad < 0 else min(bad, int(out_of_range[0]))
    if bad >= 0:
        raise CardError(f"row {bad}: cards must be distinct and in 0..51, got {arr[bad].tolist()}")
    out = np.empty(arr.shape[0], dtype=np.int32)
    _batch(compact, out)
    return out


def hand_class_name(value: int) -> str:
    """Category of a 5+-card hand value: "Straight Flush", "Four of a Kind", ..., "High Card".

    A royal flush is a "Straight Flush". Raises :class:`~pokerbot.errors.CardError`
    for a value outside 1..7462.

    >>> hand_class_name(7462)
    'Straight Flush'
    >>> hand_class_name(1)
    'High Card'
    """
    v = int(value)
    if not 1 <= v <= NUM_HAND_VALUES:
        raise CardError(f"not a hand value: {value!r} (expected 1..{NUM_HAND_VALUES})")
    return HAND_CLASS_NAMES[int(np.searchsorted(_CLASS_MAX, v))]
