"""Suit isomorphism for hold'em: a dense index over (hole cards, board) classes.

Two hands are isomorphic when a permutation of the four suits maps one onto the
other (hole cards onto hole cards, board onto board; order inside each group is
irrelevant). :func:`hand_index` maps a hand of round ``r`` (2 hole cards followed
by 0, 3, 4 or 5 board cards) to an integer in ``0 .. num_classes(r) - 1`` and
:func:`hand_unindex` gives back a canonical representative. The class counts are

=====  ========  ============
round  board     classes
=====  ========  ============
0      0         169
1      3         1,286,792
2      4         13,960,050
3      5         123,156,254
=====  ========  ============

How it works (our own construction, in the spirit of Waugh 2013): each suit of a
hand has a *shape* ``(n0, n1)`` (hole and board cards of that suit) and, within
its shape, a *suit index* (colex rank of the hole ranks times the number of board
rank sets, plus the colex rank of the board ranks among the ranks left). A class
is the multiset of the four (shape, suit index) pairs. Sorting the suits by shape
gives a *configuration* (a sorted 4-tuple of shapes); suits of equal shape form a
multiset of suit indices, ranked with the combinatorial number system. The index
is the configuration's offset plus a mixed-radix number of those multiset ranks.

>>> import numpy as np
>>> from pokerbot.cards import parse_cards
>>> a = hand_index(0, np.array(parse_cards("AsKs")))
>>> a == hand_index(0, np.array(parse_cards("AhKh")))
True
>>> num_classes(1), num_classes(3)
(1286792, 123156254)
>>> from pokerbot.cards import format_cards
>>> format_cards(hand_unindex(1, hand_index(1, np.array(parse_cards("AsKs2s3s4h")))))
'KcAc2c3c4d'
"""

from __future__ import annotations

import itertools

import numpy as np
from numba import njit

from pokerbot.errors import CardError

__all__ = [
    "BOARD_CARDS",
    "NUM_ROUNDS",
    "num_classes",
    "hand_index",
    "hand_unindex",
    "hand_index_batch",
    "hand_unindex_batch",
    "class_sizes",
    "index_hand",
]

#: Board cards visible in each round (preflop, flop, turn, river).
BOARD_CARDS = (0, 3, 4, 5)
NUM_ROUNDS = 4

_NR = 13  # ranks
_NSH = 18  # shape codes n0 * 6 + n1, n0 in 0..2, n1 in 0..5
_BMAX = 1024  # binomial table rows for k >= 2 (k = 1 is computed: C(n, 1) = n)


def _binomials(rows: int, cols: int) -> np.ndarray:
    """C(n, k) for n < rows, k < cols; entries beyond int64 (never used) are -1."""
    from math import comb

    c = np.zeros((rows, cols), dtype=np.int64)
    for n in range(rows):
        for k in range(cols):
            v = comb(n, k)
            c[n, k] = v if v < 2**63 else -1
    return c


_BINOM = _binomials(_BMAX, 6)


@njit(cache=True, inline="always")
def _C(n, k):
    """C(n, k) for k <= 5; n may exceed the table only when k <= 1."""
    if k == 0:
        return np.int64(1)
    if k == 1:
        return np.int64(n)
    return _BINOM[n, k]



def _shape_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per shape code: n0, n1, size (suit indices of that shape) and the board-rank-set count."""
    n0 = np.zeros(_NSH, np.int64)
    n1 = np.zeros(_NSH, np.int64)
    size = np.zeros(_NSH, np.int64)
    nboard = np.zeros(_NSH, np.int64)
    for code in range(_NSH):
        a, b = divmod(code, 6)
        n0[code], n1[code] = a, b
        if a + b <= _NR:
            nboard[code] = _BINOM[_NR - a, b]
            size[code] = _BINOM[_NR, a] * nboard[code]
    return n0, n1, size, nboard


_SH_N0, _SH_N1, _SH_SIZE, _SH_NBOARD = _shape_tables()


def _configs() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Configurations of every round.

    Returns (keys (C,), codes (C, 4), offsets (C,), round_start (5,)). Configurations of
    round r are ids round_start[r] .. round_start[r+1]-1, sorted by key (and so by offset).
    """
    keys: list[int] = []
    codes: list[tuple[int, ...]] = []
    offsets: list[int] = []
    starts = [0]
    for r, k in enumerate(BOARD_CARDS):
        total = 0
        found = []
        for c0 in range(_NSH - 1, -1, -1):
            for c1 in range(c0, -1, -1):
                for c2 in range(c1, -1, -1):
                    for c3 in range(c2, -1, -1):
                        cs = (c0, c1, c2, c3)
                        if sum(c // 6 for c in cs) != 2 or sum(c % 6 for c in cs) != k:
                            continue
                        if any(_SH_SIZE[c] == 0 for c in cs):
                            continue
                        found.append(cs)
        found.sort(key=lambda cs: ((cs[0] * _NSH + cs[1]) * _NSH + cs[2]) * _NSH + cs[3])
        for cs in found:
            count = 1
            i = 0
            while i < 4:
                j = i
                while j < 4 and cs[j] == cs[i]:
                    j += 1
                m = j - i
                n = int(_SH_SIZE[cs[i]]) + m - 1
                assert m == 1 or n < _BMAX
                count *= n if m == 1 else int(_BINOM[n, m])
                i = j
            key = ((cs[0] * _NSH + cs[1]) * _NSH + cs[2]) * _NSH + cs[3]
            keys.append(key)
            codes.append(cs)
            offsets.append(total)
            total += count
        offsets_r_end = total
        starts.append(len(codes))
        _TOTALS.append(offsets_r_end)
    return np.array(keys, np.int64), np.array(codes, np.int64), np.array(offsets, np.int64), np.array(starts, np.int64)


_TOTALS: list[int] = []
_CFG_KEY, _CFG_CODES, _CFG_OFFSET, _CFG_START = _configs()
_NUM_CLASSES = np.array(_TOTALS, dtype=np.int64)


def num_classes(round_: int) -> int:
    """Number of suit-isomorphic classes of round ``round_`` (0..3).

    >>> [num_classes(r) for r in range(4)]
    [169, 1286792, 13960050, 123156254]
    """
    if not 0 <= round_ < NUM_ROUNDS:
        raise CardError(f"no hold'em round {round_!r} (expected 0..3)")
    return int(_NUM_CLASSES[round_])


# --- kernels ------------------------------------------------------------------


def _colex_table() -> tuple[np.ndarray, np.ndarray]:
    colex = np.zeros(1 << _NR, np.int64)
    pop = np.zeros(1 << _NR, np.int64)
    for mask in range(1 << _NR):
        j = 0
        for r in range(_NR):
            if mask >> r & 1:
                j += 1
                if j < _BINOM.shape[1]:
                    colex[mask] += _BINOM[r, j]
        pop[mask] = j
    return colex, pop


#: Colex rank of each 13-bit rank set among sets of its size, and its popcount.
_COLEX, _POP = _colex_table()


@njit(cache=True, inline="always")
def _suit_key(hm, bm):
    """(shape code << 20) | suit index of one suit with hole ranks ``hm`` and board ranks ``bm``."""
    n0 = _POP[hm]
    # board ranks compressed to positions among the ranks not in hm
    comp = np.int64(0)
    n1 = 0
    x = bm
    while x:
        low = x & (-x)
        comp |= low >> _POP[hm & (low - 1)]
        n1 += 1
        x ^= low
    code = n0 * 6 + n1
    return (np.int64(code) << 20) | (_COLEX[hm] * _SH_NBOARD[code] + _COLEX[comp])


@njit(cache=True)
def hand_index(round_, cards):
    """Isomorphic index of 2 hole cards followed by the round's board cards (no validation).

    >>> import numpy as np
    >>> int(hand_index(0, np.array([51, 47])))  # AsKs
    168
    """
    nb = 0
    if round_ == 1:
        nb = 3
    elif round_ == 2:
        nb = 4
    elif round_ == 3:
        nb = 5
    h0 = np.int64(0)
    h1 = np.int64(0)
    h2 = np.int64(0)
    h3 = np.int64(0)
    b0 = np.int64(0)
    b1 = np.int64(0)
    b2 = np.int64(0)
    b3 = np.int64(0)
    for i in range(2 + nb):
        c = np.int64(cards[i])
        bit = np.int64(1) << (c >> 2)
        s = c & 3
        if i < 2:
            if s == 0:
                h0 |= bit
            elif s == 1:
                h1 |= bit
            elif s == 2:
                h2 |= bit
            else:
                h3 |= bit
        else:
            if s == 0:
                b0 |= bit
            elif s == 1:
                b1 |= bit
            elif s == 2:
                b2 |= bit
            else:
                b3 |= bit
    # per suit: sort key = code * 2**20 + suit index (suit indices < 36036 < 2**20)
    k0 = _suit_key(h0, b0)
    k1 = _suit_key(h1, b1)
    k2 = _suit_key(h2, b2)
    k3 = _suit_key(h3, b3)
    # sorting network, descending
    if k0 < k1:
        k0, k1 = k1, k0
    if k2 < k3:
        k2, k3 = k3, k2
    if k0 < k2:
        k0, k2 = k2, k0
    if k1 < k3:
        k1, k3 = k3, k1
    if k1 < k2:
        k1, k2 = k2, k1
    keys = (k0, k1, k2, k3)
    ckey = 0
    for i in range(4):
        ckey = ckey * 18 + (keys[i] >> 20)
    lo = _CFG_START[round_]
    hi = _CFG_START[round_ + 1] - 1
    while lo < hi:
        mid = (lo + hi) >> 1
        if _CFG_KEY[mid] < ckey:
            lo = mid + 1
        else:
            hi = mid
    cfg = lo
    idx = np.int64(0)
    i = 0
    while i < 4:
        code = keys[i] >> 20
        j = i
        while j < 4 and (keys[j] >> 20) == code:
            j += 1
        m = j - i
        size = _SH_SIZE[code]
        mi = np.int64(0)
        for t in range(m):
            a = keys[i + t] & 0xFFFFF
            mi += _C(a + (m - 1 - t), m - t)
        idx = idx * _C(size + m - 1, m) + mi
        i = j
    return _CFG_OFFSET[cfg] + idx


@njit(cache=True, inline="always")
def _largest_below(k, value, hi):
    """Largest b in [k-1, hi) with C(b, k) <= value (binary search)."""
    if k == 1:
        return value if value < hi else hi - 1
    lo = k - 1
    h = hi
    while h - lo > 1:
        mid = (lo + h) >> 1
        if _BINOM[mid, k] <= value:
            lo = mid
        else:
            h = mid
    return lo


@njit(cache=True, inline="always")
def _uncolex(idx, n, limit):
    """The set (mask) of ``n`` positions in 0..limit-1 with colex rank ``idx``."""
    mask = np.int64(0)
    rem = idx
    for k in range(n, 0, -1):
        b = _largest_below(k, rem, limit)
        mask |= np.int64(1) << b
        rem -= _C(b, k)
        limit = b
    return mask


@njit(cache=True)
def _unindex_into(round_, index, out):
    lo = _CFG_START[round_]
    hi = _CFG_START[round_ + 1]
    # last config with offset <= index
    while hi - lo > 1:
        mid = (lo + hi) >> 1
        if _CFG_OFFSET[mid] <= index:
            lo = mid
        else:
            hi = mid
    cfg = lo
    rem = index - _CFG_OFFSET[cfg]
    codes = _CFG_CODES[cfg]
    sidx = np.zeros(4, np.int64)
    # groups from the last to the first (mixed radix, last group least significant)
    j = 4
    while j > 0:
        i = j - 1
        while i > 0 and codes[i - 1] == codes[j - 1]:
            i -= 1
        m = j - i
        size = _SH_SIZE[codes[i]]
        radix = _C(size + m - 1, m)
        mi = rem % radix
        rem //= radix
        top = size + m - 1
        for t in range(m):
            k = m - t
            b = _largest_below(k, mi, top + 1)
            mi -= _C(b, k)
            sidx[i + t] = b - (m - 1 - t)
            top = b - 1
        j = i
    nh = 0
    nbrd = 0
    for s in range(4):
        code = codes[s]
        n0 = _SH_N0[code]
        n1 = _SH_N1[code]
        nbs = _SH_NBOARD[code]
        hm = _uncolex(sidx[s] // nbs, n0, 13)
        comp = _uncolex(sidx[s] % nbs, n1, 13 - n0)
        for r in range(13):
            if (hm >> r) & 1:
                out[nh] = r * 4 + s
                nh += 1
        # expand compressed board positions over the ranks not in hm
        pos = 0
        for r in range(13):
            if (hm >> r) & 1:
                continue
            if (comp >> pos) & 1:
                out[2 + nbrd] = r * 4 + s
                nbrd += 1
            pos += 1
    # board ascending
    for a in range(1, nbrd):
        v = out[2 + a]
        b = a - 1
        while b >= 0 and out[2 + b] > v:
            out[3 + b] = out[2 + b]
            b -= 1
        out[3 + b] = v


@njit(cache=True)
def _unindex(round_, index):
    nb = 0
    if round_ == 1:
        nb = 3
    elif round_ == 2:
        nb = 4
    elif round_ == 3:
        nb = 5
    out = np.empty(2 + nb, np.int64)
    _unindex_into(round_, index, out)
    return out


def hand_unindex(round_: int, index: int) -> np.ndarray:
    """A canonical representative (int64 array: 2 hole cards, then the board) of class ``index``.

    >>> from pokerbot.cards import format_cards
    >>> format_cards(hand_unindex(0, 168))
    'KcAc'
    """
    n = num_classes(round_)
    if not 0 <= int(index) < n:
        raise CardError(f"index {index} out of range for round {round_} ({n} classes)")
    return _unindex(int(round_), np.int64(index))


@njit(cache=True)
def _index_batch(round_, cards, out):
    for i in range(cards.shape[0]):
        out[i] = hand_index(round_, cards[i])


@njit(cache=True)
def _unindex_batch(round_, indices, out):
    for i in range(indices.shape[0]):
        _unindex_into(round_, indices[i], out[i])


def _check_round(round_: int) -> int:
    if not isinstance(round_, (int, np.integer)) or not 0 <= round_ < NUM_ROUNDS:
        raise CardError(f"no hold'em round {round_!r} (expected 0..3)")
    return int(round_)


def hand_index_batch(round_: int, cards: np.ndarray) -> np.ndarray:
    """Indices (int64, shape (N,)) of the rows of an ``(N, 2 + board)`` card array.

    >>> import numpy as np
    >>> hand_index_batch(0, np.array([[51, 47], [50, 46]])).tolist()
    [168, 168]
    """
    r = _check_round(round_)
    arr = np.ascontiguousarray(cards)
    if arr.ndim != 2 or arr.shape[1] != 2 + BOARD_CARDS[r]:
        raise CardError(f"round {r} needs an (N, {2 + BOARD_CARDS[r]}) card array, got shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise CardError(f"cards must be integers, got dtype {arr.dtype}")
    if arr.size and (arr.min() < 0 or arr.max() > 51):
        raise CardError("cards must be in 0..51")
    out = np.empty(arr.shape[0], np.int64)
    _index_batch(r, arr, out)
    return out


def hand_unindex_batch(round_: int, indices: np.ndarray) -> np.ndarray:
    """Canonical representatives, shape ``(N, 2 + board)``, of an array of indices."""
    r = _check_round(round_)
    idx = np.ascontiguousarray(indices, dtype=np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= _NUM_CLASSES[r]):
        raise CardError(f"indices out of range for round {r} ({int(_NUM_CLASSES[r])} classes)")
    out = np.empty((idx.shape[0], 2 + BOARD_CARDS[r]), np.int64)
    _unindex_batch(r, idx, out)
    return out


def index_hand(hole, board=()) -> tuple[int, int]:
    """Validated (round, index) of a hand given as hole cards and a board (0, 3, 4 or 5 cards).

    >>> from pokerbot.cards import parse_cards
    >>> index_hand(parse_cards("AsKs"), parse_cards("2c3c4c"))[0]
    1
    """
    hole = [int(c) for c in hole]
    board = [int(c) for c in board]
    if len(hole) != 2:
        raise CardError(f"hold'em hands have 2 hole cards, got {len(hole)}")
    if len(board) not in BOARD_CARDS:
        raise CardError(f"a hold'em board has 0, 3, 4 or 5 cards, got {len(board)}")
    cards = hole + board
    if any(not 0 <= c < 52 for c in cards):
        raise CardError(f"cards must be in 0..51, got {cards}")
    if len(set(cards)) != len(cards):
        raise CardError(f"repeated card in {cards}")
    r = BOARD_CARDS.index(len(board))
    return r, int(hand_index(r, np.array(cards, dtype=np.int64)))


#: The 24 permutations of the suits c, d, h, s (row q maps suit s to SUIT_PERMUTATIONS[q, s]).
SUIT_PERMUTATIONS = np.array(list(itertools.permutations(range(4))), dtype=np.int64)


@njit(cache=True)
def _suit_orbit_size(cards, n_hole):
    """Number of distinct hands (as (hole set, board set)) in the suit orbit of ``cards``."""
    # orbit size = 24 / |stabilizer|; count permutations that fix the hand
    perms = 0
    hm = np.int64(0)
    bm = np.int64(0)
    for i in range(cards.shape[0]):
        if i < n_hole:
            hm |= np.int64(1) << cards[i]
        else:
            bm |= np.int64(1) << cards[i]
    for q in range(SUIT_PERMUTATIONS.shape[0]):
        p = SUIT_PERMUTATIONS[q]
        h2 = np.int64(0)
        b2 = np.int64(0)
        for i in range(cards.shape[0]):
            cc = (cards[i] & ~np.int64(3)) | p[cards[i] & 3]
            if i < n_hole:
                h2 |= np.int64(1) << cc
            else:
                b2 |= np.int64(1) << cc
        if h2 == hm and b2 == bm:
            perms += 1
    return 24 // perms


def class_sizes(round_: int, indices: np.ndarray | None = None) -> np.ndarray:
    """Multiplicity (number of concrete (hole, board) hands) of each class (default: all of the round).

    The multiplicities of a round sum to C(52,2) * C(50, board).

    >>> int(class_sizes(0).sum())
    1326
    """
    r = _check_round(round_)
    if indices is None:
        indices = np.arange(_NUM_CLASSES[r], dtype=np.int64)
    reps = hand_unindex_batch(r, indices)
    return _orbit_sizes(reps)


@njit(cache=True)
def _orbit_sizes(reps):
    out = np.empty(reps.shape[0], np.int32)
    for i in range(reps.shape[0]):
        out[i] = _suit_orbit_size(reps[i], 2)
    return out
