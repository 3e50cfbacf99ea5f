# The 8x8 bitboard: move generation by shifts, flips by rays, perft.
# Included by engine/_core.pyx, in the order listed there.

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


cdef extern from "_bits.h" nogil:
    uint64_t bits_moves8(uint64_t P, uint64_t O)


cdef inline uint64_t moves8(uint64_t P, uint64_t O) noexcept nogil:
    return bits_moves8(P, O)


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


cdef inline uint64_t _perft8_last(uint64_t P, uint64_t O, uint64_t free, bint bulk) noexcept nogil:
    """Leaves one ply below (P, O): the last ply, inlined into its parent.  ``free``: the
    squares that are not holes (a hole is neither colour, so lines of flips stop there
    by themselves; only the moves need the mask)."""
    cdef uint64_t m = moves8(P, O) & free, nodes = 0, f
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


cdef uint64_t perft8(uint64_t P, uint64_t O, uint64_t free, int depth, bint passed, bint bulk) noexcept nogil:
    cdef uint64_t m, f, nodes = 0
    cdef int sq
    if depth == 0:
        return 1
    if depth == 1 and not passed:
        return _perft8_last(P, O, free, bulk)
    m = moves8(P, O) & free
    if m == 0:
        if passed:
            return 1
        return perft8(O, P, free, depth - 1, True, bulk)
    while m:
        sq = bits_ctz(m)
        m &= m - 1
        f = flips8(P, O, sq)
        if depth == 2:
            nodes += _perft8_last(O ^ f, P | f | ((<uint64_t>1) << sq), free, bulk)
        else:
            nodes += perft8(O ^ f, P | f | ((<uint64_t>1) << sq), free, depth - 1, False, bulk)
    return nodes


cdef inline uint64_t mix64(uint64_t z) noexcept nogil:
    z = z + 0x9E3779B97F4A7C15ULL
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)
