# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled rules core.

8x8 is the fast path: two 64-bit masks, move generation by shifts, flips by
precomputed rays.  Every other even size (4..26) uses a mailbox board in C
(``_mb_*``), an implementation independent of both the 8x8 bitboard and the
pure-Python core, so the three can be checked against one another.

The Python-facing functions take and return masks as Python ints, square
``i = y * size + x``, exactly like ``engine._pure``.
"""
from libc.stdint cimport uint64_t
from libc.string cimport memset

cdef extern from "_bits.h" nogil:
    int bits_ctz(uint64_t x)
    int bits_msb(uint64_t x)
    int bits_count(uint64_t x)

NAME = "compiled"

# ---------------------------------------------------------------- 8x8 bitboard

cdef uint64_t RAY[64][8]   # squares along each direction, the square itself excluded


cdef void _init_rays():
    cdef int sq, d, x, y, dx, dy
    cdef int DX[8]
    cdef int DY[8]
    DX[:] = [0, 1, 1, 1, 0, -1, -1, -1]
    DY[:] = [-1, -1, 0, 1, 1, 1, 0, -1]
    for sq in range(64):
        for d in range(8):
            RAY[sq][d] = 0
            x = sq % 8 + DX[d]
            y = sq // 8 + DY[d]
            while 0 <= x < 8 and 0 <= y < 8:
                RAY[sq][d] |= (<uint64_t>1) << (y * 8 + x)
                x += DX[d]
                y += DY[d]


_init_rays()


cdef inline uint64_t _dir_moves(uint64_t P, uint64_t m, int d) noexcept nogil:
    """Moves along one line (both ways), by doubling: runs of 1, 2, then 4."""
    cdef uint64_t fl, fr, ml, mr
    fl = m & (P << d)
    fr = m & (P >> d)
    fl |= m & (fl << d)
    fr |= m & (fr >> d)
    ml = m & (m << d)
    mr = ml >> d
    fl |= ml & (fl << (2 * d))
    fr |= mr & (fr >> (2 * d))
    fl |= ml & (fl << (2 * d))
    fr |= mr & (fr >> (2 * d))
    return (fl << d) | (fr >> d)


cdef inline uint64_t moves8(uint64_t P, uint64_t O) noexcept nogil:
    cdef uint64_t m = O & 0x7E7E7E7E7E7E7E7EULL  # no wrap across the a/h edge
    cdef uint64_t found = (_dir_moves(P, m, 1) | _dir_moves(P, O, 8)
                           | _dir_moves(P, m, 7) | _dir_moves(P, m, 9))
    return found & ~(P | O)


cdef inline uint64_t _flip_up(uint64_t P, uint64_t O, uint64_t mask) noexcept nogil:
    # towards higher indices: the nearest non-opponent square is the lowest bit
    cdef uint64_t t = mask & ~O
    cdef uint64_t o = t & (0 - t) & P
    return (o - (o != 0)) & mask


cdef inline uint64_t _flip_down(uint64_t P, uint64_t O, uint64_t mask) noexcept nogil:
    # towards lower indices: the nearest non-opponent square is the highest bit
    cdef uint64_t o = ((<uint64_t>1) << bits_msb((mask & ~O) | 1)) & P & mask
    return mask & (0 - (o << 1))


cdef inline uint64_t flips8(uint64_t P, uint64_t O, int sq) noexcept nogil:
    cdef uint64_t* r = RAY[sq]
    return (_flip_down(P, O, r[0]) | _flip_down(P, O, r[1]) | _flip_up(P, O, r[2])
            | _flip_up(P, O, r[3]) | _flip_up(P, O, r[4]) | _flip_up(P, O, r[5])
            | _flip_down(P, O, r[6]) | _flip_down(P, O, r[7]))


cdef inline uint64_t _perft8_last(uint64_t P, uint64_t O, bint bulk) noexcept nogil:
    """Leaves one ply below (P, O): the last ply, inlined into its parent."""
    cdef uint64_t m = moves8(P, O), nodes = 0, f
    cdef int sq
    if m == 0:
        return 1  # a pass or the end of the game: one leaf either way
    if bulk:
        return bits_count(m)
    while m:
        sq = bits_ctz(m)
        m &= m - 1
        f = flips8(P, O, sq)
        # The leaf is made: its flips decide the count (never 0 for a legal
        # move), so the compiler cannot drop the work.
        nodes += (f != 0)
    return nodes


cdef uint64_t perft8(uint64_t P, uint64_t O, int depth, bint passed, bint bulk) noexcept nogil:
    cdef uint64_t m, f, nodes = 0
    cdef int sq
    if depth == 0:
        return 1
    if depth == 1 and not passed:
        return _perft8_last(P, O, bulk)
    m = moves8(P, O)
    if m == 0:
        if passed:
            return 1
        return perft8(O, P, depth - 1, True, bulk)
    while m:
        sq = bits_ctz(m)
        m &= m - 1
        f = flips8(P, O, sq)
        if depth == 2:
            nodes += _perft8_last(O ^ f, P | f | ((<uint64_t>1) << sq), bulk)
        else:
            nodes += perft8(O ^ f, P | f | ((<uint64_t>1) << sq), depth - 1, False, bulk)
    return nodes


cdef inline uint64_t mix64(uint64_t z) noexcept nogil:
    z = z + 0x9E3779B97F4A7C15ULL
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


# ------------------------------------------------------ mailbox, any even size

cdef enum:
    MAXN = 26
    W = MAXN + 2
    CELLS = W * W
    EMPTY = 0
    WALL = 3

cdef int MB_DIRS[8]
MB_DIRS[:] = [-W, -W + 1, 1, W + 1, W, W - 1, -1, -W - 1]


cdef struct Mailbox:
    int n
    signed char cell[CELLS]   # 1: side to move at the root, 2: its opponent


cdef inline int _mb_index(int n, int sq) noexcept nogil:
    return (sq // n + 1) * W + sq % n + 1


cdef int _mb_flip_dir(Mailbox* b, int at, int d, int me) noexcept nogil:
    """Discs flanked from ``at`` along ``d`` for colour ``me`` (0: none)."""
    cdef int opp = 3 - me, k = 0, i = at + d
    while b.cell[i] == opp:
        i += d
        k += 1
    if k and b.cell[i] == me:
        return k
    return 0


cdef bint _mb_legal(Mailbox* b, int at, int me) noexcept nogil:
    cdef int d
    if b.cell[at] != EMPTY:
        return False
    for d in range(8):
        if _mb_flip_dir(b, at, MB_DIRS[d], me):
            return True
    return False


cdef int _mb_play(Mailbox* b, int at, int me, int* undo) noexcept nogil:
    """Place and flip; the flipped cells go to ``undo``; returns how many."""
    cdef int d, k, j, i, count = 0
    for d in range(8):
        k = _mb_flip_dir(b, at, MB_DIRS[d], me)
        i = at
        for j in range(k):
            i += MB_DIRS[d]
            b.cell[i] = me
            undo[count] = i
            count += 1
    b.cell[at] = me
    return count


cdef void _mb_unplay(Mailbox* b, int at, int me, int* undo, int count) noexcept nogil:
    cdef int j
    for j in range(count):
        b.cell[undo[j]] = 3 - me
    b.cell[at] = EMPTY


cdef int _mb_moves(Mailbox* b, int me, int* out) noexcept nogil:
    cdef int x, y, at, count = 0
    for y in range(b.n):
        for x in range(b.n):
            at = (y + 1) * W + x + 1
            if _mb_legal(b, at, me):
                out[count] = at
                count += 1
    return count


cdef uint64_t _mb_perft(Mailbox* b, int me, int depth, bint passed, bint bulk) noexcept nogil:
    cdef int moves[MAXN * MAXN]
    cdef int undo[8 * MAXN]
    cdef int count, j, flipped
    cdef uint64_t nodes = 0
    if depth == 0:
        return 1
    count = _mb_moves(b, me, moves)
    if count == 0:
        if passed:
            return 1
        return _mb_perft(b, 3 - me, depth - 1, True, bulk)
    if bulk and depth == 1:
        return count
    for j in range(count):
        flipped = _mb_play(b, moves[j], me, undo)
        nodes += _mb_perft(b, 3 - me, depth - 1, False, bulk)
        _mb_unplay(b, moves[j], me, undo, flipped)
    return nodes


cdef void _mb_load(Mailbox* b, int n, object P, object O):
    cdef int sq, at
    b.n = n
    memset(b.cell, WALL, CELLS)
    for sq in range(n * n):
        at = _mb_index(n, sq)
        if (P >> sq) & 1:
            b.cell[at] = 1
        elif (O >> sq) & 1:
            b.cell[at] = 2
        else:
            b.cell[at] = EMPTY


cdef object _mb_mask(Mailbox* b, int colour):
    cdef int sq, n = b.n
    bits = 0
    for sq in range(n * n):
        if b.cell[_mb_index(n, sq)] == colour:
            bits |= (<object>1) << sq
    return bits


# ------------------------------------------------------------ Python face

cdef int _check(int size) except -1:
    if size < 4 or size > MAXN or size % 2:
        raise ValueError(f"board size must be even, 4..{MAXN}: {size}")
    return 0


def moves(int size, P, O, bint mailbox=False):
    """Mask of the legal moves for the side to move."""
    cdef Mailbox b
    cdef int out[MAXN * MAXN]
    cdef int count, j
    _check(size)
    if size == 8 and not mailbox:
        return moves8(P, O)
    _mb_load(&b, size, P, O)
    count = _mb_moves(&b, 1, out)
    found = 0
    for j in range(count):
        found |= (<object>1) << ((out[j] // W - 1) * size + out[j] % W - 1)
    return found


def flips(int size, P, O, int sq, bint mailbox=False):
    """Mask of the discs that playing on ``sq`` turns over (0: not a legal move)."""
    cdef Mailbox b
    cdef int undo[8 * MAXN]
    cdef int at
    _check(size)
    if not 0 <= sq < size * size:
        raise ValueError(f"square out of range: {sq}")
    if size == 8 and not mailbox:
        if ((<uint64_t>P | <uint64_t>O) >> sq) & 1:
            return 0
        return flips8(P, O, sq)
    _mb_load(&b, size, P, O)
    at = _mb_index(size, sq)
    if b.cell[at] != EMPTY:
        return 0
    _mb_play(&b, at, 1, undo)
    return _mb_mask(&b, 1) & O


def perft(int size, P, O, int depth, bint bulk=False, bint mailbox=False):
    """Leaf positions ``depth`` plies from here (see ``engine._pure.perft``)."""
    cdef Mailbox b
    cdef uint64_t p8, o8, nodes
    _check(size)
    if depth < 0:
        raise ValueError("depth must be >= 0")
    if size == 8 and not mailbox:
        p8 = P
        o8 = O
        with nogil:
            nodes = perft8(p8, o8, depth, False, bulk)
        return nodes
    _mb_load(&b, size, P, O)
    with nogil:
        nodes = _mb_perft(&b, 1, depth, False, bulk)
    return nodes


def hash64(int size, P, O):
    """A 64-bit hash of (size, P, O), equal to ``engine._pure.hash64``."""
    cdef uint64_t h = mix64(size)
    cdef uint64_t M = 0xFFFFFFFFFFFFFFFFULL
    while P or O:
        h = mix64(h ^ <uint64_t>(P & M))
        h = mix64(h ^ <uint64_t>(O & M) ^ 0x5555555555555555ULL)
        P >>= 64
        O >>= 64
    return h
