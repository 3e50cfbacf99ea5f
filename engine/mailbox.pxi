# The mailbox board for every even size 4..26: moves, flips, perft.
# Included by engine/_core.pyx, in the order listed there.

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


cdef void _mb_load(Mailbox* b, int n, object P, object O, object holes=0):
    """The board of (P, O); a hole is a wall cell: never played, and a line of flips stops there."""
    cdef int sq, at
    b.n = n
    memset(b.cell, WALL, CELLS)
    for sq in range(n * n):
        at = _mb_index(n, sq)
        if (P >> sq) & 1:
            b.cell[at] = 1
        elif (O >> sq) & 1:
            b.cell[at] = 2
        elif (holes >> sq) & 1:
            b.cell[at] = WALL
        else:
            b.cell[at] = EMPTY


cdef int _mb_square(Mailbox* b, int at) noexcept:
    """The square index of a mailbox cell the side to move may play, or -1 (none, or a pass)."""
    if at < 0 or not _mb_legal(b, at, 1):
        return -1
    return (at // W - 1) * b.n + at % W - 1


cdef object _mb_mask(Mailbox* b, int colour):
    cdef int sq, n = b.n
    bits = 0
    for sq in range(n * n):
        if b.cell[_mb_index(n, sq)] == colour:
            bits |= (<object>1) << sq
    return bits
