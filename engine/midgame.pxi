# The 8x8 midgame search: ProbCut and the alpha-beta of _mid.
# Included by engine/_core.pyx, in the order listed there.

# -- ProbCut (Buro): a shallow search at depth d/2 predicts the depth-d value; where it lies
# far enough outside the window, the deep search is skipped.  The error of the prediction
# (its standard deviation, by depth and stage of the game) is fitted on self-play by
# engine/probcut.py; PC_T100 / 100 standard deviations count as "far enough".
cdef enum:
    PC_MIN_DEPTH = 3
    PC_MAX_DEPTH = 20
    PC_STAGES = 3        # 40 or more empties, 25 to 39, fewer

cdef int PC_SIGMA[PC_STAGES][PC_MAX_DEPTH + 1]
cdef int PC_BIAS[PC_STAGES][PC_MAX_DEPTH + 1]    # mean of (deep - shallow)
cdef int PC_T100 = 0     # 0: no table installed


cdef inline int _pc_stage(Search* s, uint64_t P, uint64_t O) noexcept nogil:
    cdef int empties = s.squares - bits_count(P | O)
    return 0 if empties >= 40 else (1 if empties >= 25 else 2)


def set_probcut(sigmas, biases, double t):
    """Install ProbCut's table (``engine.probcut.install`` does): ``sigmas[stage][depth]`` and
    ``biases[stage][depth]``, the standard deviation and the mean of (depth-d value - depth-d/2
    value) in evaluation units (1/4 disc), for depths 0..12 and the 3 stages (0: no cut at that
    depth); ``t``: how many standard deviations make a cut (0: none at all)."""
    global PC_T100
    cdef int st, d
    for table in (sigmas, biases):
        if len(table) != PC_STAGES or any(len(row) != PC_MAX_DEPTH + 1 for row in table):
            raise ValueError(f"ProbCut tables must be {PC_STAGES} rows of {PC_MAX_DEPTH + 1}")
    if not 0 <= t <= 10:
        raise ValueError("t must be 0..10")
    for st in range(PC_STAGES):
        for d in range(PC_MAX_DEPTH + 1):
            PC_SIGMA[st][d] = max(0, min(4000, int(sigmas[st][d])))
            PC_BIAS[st][d] = max(-4000, min(4000, int(biases[st][d])))
    PC_T100 = int(t * 100)


PROBCUT_STAGES = PC_STAGES
PROBCUT_MAX_DEPTH = PC_MAX_DEPTH


cdef inline int _probcut(Search* s, uint64_t P, uint64_t O, int depth, int beta, bint passed) noexcept nogil:
    """At a null-window node (beta - 1, beta): 1 when a shallow search says the node fails high,
    -1 when it says it fails low, 0 when it cannot tell."""
    cdef int stage = _pc_stage(s, P, O)
    cdef int sigma = PC_SIGMA[stage][depth], bias = PC_BIAS[stage][depth], margin, bound
    cdef int shallow = depth // 2
    if sigma == 0:
        return 0
    margin = (PC_T100 * sigma + 50) // 100
    bound = beta + margin - bias          # shallow >= bound: deep >= beta, but for t sigmas
    if bound < WIN - 1000 and _mid(s, P, O, shallow, bound - 1, bound, passed) >= bound:
        return 1
    bound = beta - 1 - margin - bias      # shallow <= bound: deep <= beta - 1
    if bound > -WIN + 1000 and _mid(s, P, O, shallow, bound, bound + 1, passed) <= bound:
        return -1
    return 0


cdef int _mid(Search* s, uint64_t P, uint64_t O, int depth, int alpha, int beta, bint passed) noexcept nogil:
    cdef uint64_t moves, fl[32]
    cdef int sqs[32]
    cdef int n, i, v, d, best = -INF, best_move = -1, hash_move = -1, a0 = alpha, k, nd = 0
    cdef int deferred[32]
    cdef uint64_t cP, cO, h = 0
    cdef bint split = s.busy != NULL and depth >= SPLIT_DEPTH
    cdef TTData e
    if _tick(s):
        return 0
    moves = moves8(P, O) & ~s.holes
    if moves == 0:
        if passed:
            d = final_score(P, O, s.squares)
            return WIN + d if d > 0 else (-WIN + d if d < 0 else 0)
        return -_mid(s, O, P, depth, -beta, -alpha, True)
    if depth <= 0:
        if s.evaluation == EVAL_PATTERNS:
            return eval_patterns8(P, O, s.holes)
        return eval_simple8(P, O, s.holes) if s.evaluation == EVAL_SIMPLE else eval8(P, O, s.holes)
    if _load(s, P, O, &e) and e.kind == KIND_MID:
        if e.depth >= depth:
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
    if s.selective and beta == alpha + 1 and PC_MIN_DEPTH <= depth <= PC_MAX_DEPTH and PC_T100:
        v = _probcut(s, P, O, depth, beta, passed)
        if s.aborted:
            return 0
        if v > 0:
            return beta
        if v < 0:
            return alpha
    if depth >= MID_EVAL_DEPTH:
        n = _order_eval(s, P, O, moves, hash_move, 0, MID_EVAL_MOBILITY, sqs, fl)
    elif depth >= 2:
        n = _order(P, O, s.holes, moves, hash_move, 0, sqs, fl)
    else:
        n = 0
        while moves:
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
            v = -_mid(s, cP, cO, depth - 1, -beta, -alpha, False)
        else:
            v = -_mid(s, cP, cO, depth - 1, -alpha - 1, -alpha, False)
            if alpha < v < beta:
                v = -_mid(s, cP, cO, depth - 1, -beta, -v, False)
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
    _store(s, P, O, KIND_MID, depth, a0, beta, best, best_move)
    return best
