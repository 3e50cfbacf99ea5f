# The search on the mailbox board (every size): square weights and mobility.
# Included by engine/_core.pyx, in the order listed there.

# -- any size: alpha-beta on the mailbox board, square weights and mobility

cdef int MB_W[CELLS]


cdef void _mb_weights(int n) noexcept nogil:
    cdef int x, y, ex, ey, v
    for y in range(n):
        for x in range(n):
            ex = x if x < n - 1 - x else n - 1 - x
            ey = y if y < n - 1 - y else n - 1 - y
            if ex == 0 and ey == 0:
                v = 100
            elif ex <= 1 and ey <= 1:
                v = -40 if ex == 1 and ey == 1 else -20
            elif ex == 0 or ey == 0:
                v = 10 if (ex if ex > ey else ey) >= 2 else 5
            elif ex == 1 or ey == 1:
                v = -5
            else:
                v = 1
            MB_W[(y + 1) * W + x + 1] = v


cdef int _mb_score(Mailbox* b, int me) noexcept nogil:
    """Final disc difference for ``me``, empties to the winner (a hole is no empty)."""
    cdef int x, y, c, p = 0, o = 0, e = 0
    for y in range(b.n):
        for x in range(b.n):
            c = b.cell[(y + 1) * W + x + 1]
            if c == me:
                p += 1
            elif c == EMPTY:
                e += 1
            elif c == 3 - me:
                o += 1
    if p > o:
        return p - o + e
    if p < o:
        return p - o - e
    return 0


cdef int _mb_eval(Mailbox* b, int me) noexcept nogil:
    cdef int x, y, at, c, score = 0
    cdef int buf[MAXN * MAXN]
    for y in range(b.n):
        for x in range(b.n):
            at = (y + 1) * W + x + 1
            c = b.cell[at]
            if c == me:
                score += MB_W[at]
            elif c == 3 - me:
                score -= MB_W[at]
    return score + 8 * (_mb_moves(b, me, buf) - _mb_moves(b, 3 - me, buf))


cdef int _mb_search(Search* s, Mailbox* b, int me, int depth, int alpha, int beta, bint passed,
                    bint exact, int* out_move) noexcept nogil:
    cdef int moves[MAXN * MAXN]
    cdef int undo[8 * MAXN]
    cdef int n, i, j, k, v, d, flipped, best = -INF, dummy
    if _tick(s):
        return 0
    n = _mb_moves(b, me, moves)
    if n == 0:
        if passed:
            d = _mb_score(b, me)
            if exact:
                return d
            return WIN + d if d > 0 else (-WIN + d if d < 0 else 0)
        return -_mb_search(s, b, 3 - me, depth, -beta, -alpha, True, exact, &dummy)
    if depth <= 0 and not exact:
        return _mb_eval(b, me)
    for i in range(1, n):  # best squares first
        k = moves[i]
        j = i
        while j > 0 and MB_W[moves[j - 1]] < MB_W[k]:
            moves[j] = moves[j - 1]
            j -= 1
        moves[j] = k
    out_move[0] = moves[0]
    for i in range(n):
        flipped = _mb_play(b, moves[i], me, undo)
        v = -_mb_search(s, b, 3 - me, depth - 1, -beta, -alpha, False, exact, &dummy)
        _mb_unplay(b, moves[i], me, undo, flipped)
        if s.aborted:
            return 0
        if v > best:
            best = v
            out_move[0] = moves[i]
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    return best
