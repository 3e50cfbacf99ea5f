# The exact 8x8 solver: the last empties, ETC, the solve of _solve.
# Included by engine/_core.pyx, in the order listed there.

# -- exact solver (8x8)

cdef inline int _solve_last1(uint64_t P, uint64_t O, int sq, int squares) noexcept nogil:
    """One empty square left: whoever can play it does; the other side is final."""
    cdef uint64_t b = (<uint64_t>1) << sq
    cdef uint64_t f = flips8(P, O, sq)
    cdef int p
    if f:
        p = bits_count(P | f | b)
        return 2 * p - squares
    f = flips8(O, P, sq)
    if f:
        p = bits_count(P & ~f)
        return 2 * p - squares
    return final_score(P, O, squares)


cdef int _solve2(Search* s, uint64_t P, uint64_t O, int alpha, int beta, int x1, int x2,
                 bint passed) noexcept nogil:
    """Two empties, x1 and x2."""
    cdef uint64_t f
    cdef int best = -INF, v
    s.nodes += 1
    if NEIGH[x1] & O:
        f = flips8(P, O, x1)
        if f:
            best = -_solve_last1(O ^ f, P | f | ((<uint64_t>1) << x1), x2, s.squares)
            if best >= beta:
                return best
    if NEIGH[x2] & O:
        f = flips8(P, O, x2)
        if f:
            v = -_solve_last1(O ^ f, P | f | ((<uint64_t>1) << x2), x1, s.squares)
            return v if v > best else best
    if best > -INF:
        return best
    if passed:
        return final_score(P, O, s.squares)
    return -_solve2(s, O, P, -beta, -alpha, x1, x2, True)


cdef inline int _quadrant(int sq) noexcept nogil:
    return ((sq >> 2) & 1) | ((sq >> 4) & 2)


cdef int _solve3(Search* s, uint64_t P, uint64_t O, int alpha, int beta, int x1, int x2, int x3,
                 bint passed) noexcept nogil:
    """Three empties; the one alone in its quadrant first (parity)."""
    cdef uint64_t f
    cdef int best = -INF, v, t
    s.nodes += 1
    if NEIGH[x1] & O:
        f = flips8(P, O, x1)
        if f:
            best = -_solve2(s, O ^ f, P | f | ((<uint64_t>1) << x1), -beta, -alpha, x2, x3, False)
            if best >= beta:
                return best
            if best > alpha:
                alpha = best
    if NEIGH[x2] & O:
        f = flips8(P, O, x2)
        if f:
            v = -_solve2(s, O ^ f, P | f | ((<uint64_t>1) << x2), -beta, -alpha, x1, x3, False)
            if v > best:
                best = v
                if best >= beta:
                    return best
                if best > alpha:
                    alpha = best
    if NEIGH[x3] & O:
        f = flips8(P, O, x3)
        if f:
            v = -_solve2(s, O ^ f, P | f | ((<uint64_t>1) << x3), -beta, -alpha, x1, x2, False)
            return v if v > best else best
    if best > -INF:
        return best
    if passed:
        return final_score(P, O, s.squares)
    return -_solve3(s, O, P, -beta, -alpha, x1, x2, x3, True)


cdef inline int _solve3_start(Search* s, uint64_t P, uint64_t O, int alpha, int beta, uint64_t E) noexcept nogil:
    cdef int x1 = bits_ctz(E), x2, x3, q1, q2, q3
    E &= E - 1
    x2 = bits_ctz(E)
    x3 = bits_ctz(E & (E - 1))
    q1, q2, q3 = _quadrant(x1), _quadrant(x2), _quadrant(x3)
    if q1 == q2 and q3 != q1:
        return _solve3(s, P, O, alpha, beta, x3, x1, x2, False)
    if q1 == q3 and q2 != q1:
        return _solve3(s, P, O, alpha, beta, x2, x1, x3, False)
    return _solve3(s, P, O, alpha, beta, x1, x2, x3, False)


cdef int _solve_small(Search* s, uint64_t P, uint64_t O, int alpha, int beta, bint passed) noexcept nogil:
    """The last few empties: try each empty square directly (odd regions first), no move generation."""
    cdef uint64_t E = ~(P | O | s.holes), e, f, b, odd
    cdef int best = -INF, v, sq, n
    cdef bint moved = False
    if _tick(s):
        return 0
    n = bits_count(E)
    if n <= 3:
        s.nodes -= 1
        if n == 3:
            return _solve3_start(s, P, O, alpha, beta, E)
        if n == 2:
            sq = bits_ctz(E)
            return _solve2(s, P, O, alpha, beta, sq, bits_ctz(E & (E - 1)), passed)
        if n == 1:
            return _solve_last1(P, O, bits_ctz(E), s.squares)
        return final_score(P, O, s.squares)
    odd = _odd_regions(E)
    e = odd
    while True:
        if not e:
            if odd == E:
                break
            e = E & ~odd
            odd = E
        sq = bits_ctz(e)
        e &= e - 1
        if not (NEIGH[sq] & O):
            continue  # no opponent disc next to it: flips nothing
        f = flips8(P, O, sq)
        if f == 0:
            continue
        moved = True
        b = (<uint64_t>1) << sq
        if n == 4:
            v = -_solve3_start(s, O ^ f, P | f | b, -beta, -alpha, E ^ b)
        else:
            v = -_solve_small(s, O ^ f, P | f | b, -beta, -alpha, False)
        if v > best:
            best = v
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    return best
    if not moved:
        if passed:
            return final_score(P, O, s.squares)
        return -_solve_small(s, O, P, -beta, -alpha, True)
    return best


cdef int _order_eval(Search* s, uint64_t P, uint64_t O, uint64_t moves, int hash_move, int depth,
                     int mobility, int* sqs, uint64_t* flips) noexcept nogil:
    """Moves sorted by a shallow midgame search of each (in the search's evaluation) plus
    ``mobility`` times the opponent's replies (fewest first), the hash move first."""
    cdef int keys[32]
    cdef int n = 0, i, sq, k
    cdef uint64_t f, b, np, no, reply
    while moves:
        sq = bits_ctz(moves)
        moves &= moves - 1
        b = (<uint64_t>1) << sq
        f = flips8(P, O, sq)
        np = O ^ f
        no = P | f | b
        k = _mid(s, np, no, depth, -INF, INF, False)
        reply = moves8(np, no) & ~s.holes
        k += mobility * (bits_count(reply) + bits_count(reply & DEF_CORNERS))
        if sq == hash_move:
            k = -INF
        _insert(keys, sqs, flips, n, k, sq, f)
        n += 1
    return n


cdef int _etc(Search* s, uint64_t P, uint64_t O, uint64_t moves, int beta) noexcept nogil:
    """Enhanced transposition cutoff: a child already solved well enough to refute the
    opponent (its upper bound at most -beta) ends the search before any move is made."""
    cdef uint64_t f, b
    cdef int sq
    cdef TTData e
    while moves:
        sq = bits_ctz(moves)
        moves &= moves - 1
        b = (<uint64_t>1) << sq
        f = flips8(P, O, sq)
        if _load(s, O ^ f, P | f | b, &e) and e.kind == KIND_EXACT and -e.upper >= beta:
            return -e.upper
    return -INF


cdef int _solve(Search* s, uint64_t P, uint64_t O, int alpha, int beta, bint passed, int empties) noexcept nogil:
    """Exact disc difference for the side to move (empties to the winner), PVS with a hash table."""
    cdef uint64_t moves, odd, fl[32]
    cdef int sqs[32]
    cdef int n, i, v, best = -INF, best_move = -1, hash_move = -1, a0 = alpha, k, nd = 0
    cdef int deferred[32]
    cdef uint64_t cP, cO, h = 0
    cdef bint split = s.busy != NULL and empties >= SPLIT_EMPTIES
    cdef TTData e
    if empties <= SOLVE_SMALL:
        return _solve_small(s, P, O, alpha, beta, passed)
    if _tick(s):
        return 0
    if empties >= SOLVE_STABLE_EMPTIES:
        # stability cutoff: the opponent's stable discs cap our score
        v = s.squares - 2 * bits_count(_edge_stable(O))
        if v <= alpha:
            return v
    moves = moves8(P, O) & ~s.holes
    if moves == 0:
        if passed:
            return final_score(P, O, s.squares)
        return -_solve(s, O, P, -beta, -alpha, True, empties)
    if empties >= SOLVE_TT_EMPTIES:
        if _load(s, P, O, &e) and e.kind == KIND_EXACT:
            if e.lower >= beta:
                return e.lower
            if e.upper <= alpha:
                return e.upper
            if e.lower > alpha:
                alpha = e.lower
            if e.upper < beta:
                beta = e.upper
            hash_move = e.move
        a0 = alpha
        if empties > SOLVE_ETC_EMPTIES:
            v = _etc(s, P, O, moves, beta)
            if v >= beta:
                return v
    if empties >= SOLVE_EVAL_EMPTIES:
        n = _order_eval(s, P, O, moves, hash_move, (empties - SOLVE_EVAL_BASE) // 2, SOLVE_EVAL_MOBILITY, sqs, fl)
    elif empties >= SOLVE_ORDER_EMPTIES:
        n = _order(P, O, s.holes, moves, hash_move, _odd_regions(~(P | O | s.holes)), sqs, fl)
    else:
        n = 0
        odd = _odd_regions(~(P | O | s.holes)) & moves
        while odd or moves:
            if odd:
                sqs[n] = bits_ctz(odd)
                odd &= odd - 1
                moves &= ~((<uint64_t>1) << sqs[n])
            else:
                sqs[n] = bits_ctz(moves)
                moves &= moves - 1
            fl[n] = flips8(P, O, sqs[n])
            n += 1
    k = 0
    while True:
        i = _next_move(s, P, O, sqs, fl, n, &k, deferred, &nd, split, &cP, &cO, &h)
        if i < 0:
            break
        if i == 0:
            v = -_solve(s, cP, cO, -beta, -alpha, False, empties - 1)
        else:
            v = -_solve(s, cP, cO, -alpha - 1, -alpha, False, empties - 1)
            if alpha < v < beta:
                v = -_solve(s, cP, cO, -beta, -v, False, empties - 1)
        if split:
            _busy_leave(s, h)
        if s.aborted:
            return 0
        if v > best:
            best = v
            best_move = sqs[i]
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    if empties >= SOLVE_TT_EMPTIES:
        _store(s, P, O, KIND_EXACT, empties, a0, beta, best, best_move)
    return best
