# The 8x8 evaluations: hand-made features and the trained patterns.
# Included by engine/_core.pyx, in the order listed there.

# -- midgame evaluation (8x8): corners, X/C-squares, mobility, potential mobility, stable edges, parity
# Every evaluation takes the holes H of a shaped board: no move and no empty square is counted
# on a hole.  Otherwise the patterns and the square weights see a hole as an empty square.

cdef int eval8(uint64_t P, uint64_t O, uint64_t H) noexcept nogil:
    cdef uint64_t E = ~(P | O | H)
    cdef int score = 0
    cdef int mp = bits_count(moves8(P, O) & ~H), mo = bits_count(moves8(O, P) & ~H)
    cdef int corner, x, c, i
    # corners and the squares next to an empty corner
    cdef int cs[4]
    cdef uint64_t xs[4]
    cdef uint64_t cc[4]
    cs[:] = [0, 7, 56, 63]
    xs[:] = [1ULL << 9, 1ULL << 14, 1ULL << 49, 1ULL << 54]
    cc[:] = [(1ULL << 1) | (1ULL << 8), (1ULL << 6) | (1ULL << 15),
             (1ULL << 48) | (1ULL << 57), (1ULL << 55) | (1ULL << 62)]
    for i in range(4):
        corner = cs[i]
        if (P >> corner) & 1:
            score += 30
        elif (O >> corner) & 1:
            score -= 30
        elif not (H >> corner) & 1:   # next to a corner that is a hole, a square is no X or C
            score -= 15 * (bits_count(P & xs[i]) - bits_count(O & xs[i]))
            score -= 5 * (bits_count(P & cc[i]) - bits_count(O & cc[i]))
    score += 8 * (mp - mo)
    score += 3 * (bits_count(_neighbours(O) & E) - bits_count(_neighbours(P) & E))
    score += 8 * (bits_count(_edge_stable(P)) - bits_count(_edge_stable(O)))
    if bits_count(E) & 1:
        score += 2
    return score


cdef int W8[64]


cdef void _init_w8() noexcept nogil:
    cdef int d
    _mb_weights(8)
    for d in range(64):
        W8[d] = MB_W[(d // 8 + 1) * W + d % 8 + 1]


_init_w8()


cdef int eval_simple8(uint64_t P, uint64_t O, uint64_t H) noexcept nogil:
    """Square weights and mobility only: the evaluation of the weaker search levels."""
    cdef int score = 0, sq
    cdef uint64_t b = P
    while b:
        sq = bits_ctz(b)
        b &= b - 1
        score += W8[sq]
    b = O
    while b:
        sq = bits_ctz(b)
        b &= b - 1
        score -= W8[sq]
    return score + 8 * (bits_count(moves8(P, O) & ~H) - bits_count(moves8(O, P) & ~H))


# -- trained pattern evaluation: the layout and its meaning are in engine/patterns.py

cdef int PAT_COUNT = 0
cdef int PAT_LEN[64]
cdef int PAT_SQ[64][12]
cdef int PAT_OFF[64]
cdef int PAT_MOB = 0
cdef int PAT_STAGE_SIZE = 0
cdef int PAT_STAGE_OF[65]
cdef int PAT_DIV = 1
cdef const int16_t* PAT_W = NULL
cdef object PAT_HELD = None     # the buffer PAT_W points into, held while it is installed
cdef uint64_t PAT_MASK[64]   # the squares of each instance, for the pext path
cdef int32_t* PAT_TERN[64]   # per instance: packed bits of its squares -> base-3 value with digit 1

cdef extern from "_bits.h" nogil:
    int BITS_HAVE_PEXT
    uint64_t bits_pext(uint64_t x, uint64_t m)


cdef inline int _eval_patterns_pext(const int16_t* w, uint64_t P, uint64_t O) noexcept nogil:
    cdef int i, total = 0
    cdef uint64_t m
    for i in range(PAT_COUNT):
        m = PAT_MASK[i]
        total += w[PAT_OFF[i] + PAT_TERN[i][bits_pext(P, m)] + 2 * PAT_TERN[i][bits_pext(O, m)]]
    return total


cdef int eval_patterns8(uint64_t P, uint64_t O, uint64_t H) noexcept nogil:
    cdef const int16_t* w = PAT_W + PAT_STAGE_OF[64 - bits_count(P | O)] * PAT_STAGE_SIZE
    cdef int i, k, idx, total = 0
    cdef int mp = bits_count(moves8(P, O) & ~H), mo = bits_count(moves8(O, P) & ~H)
    cdef int digit[64]
    cdef const int* sqs
    if BITS_HAVE_PEXT:
        total = _eval_patterns_pext(w, P, O)
        total += w[PAT_MOB + (mp if mp < 32 else 32)] + w[PAT_MOB + 33 + (mo if mo < 32 else 32)]
        return total // PAT_DIV
    memset(digit, 0, sizeof(digit))
    while P:
        digit[bits_ctz(P)] = 1
        P &= P - 1
    while O:
        digit[bits_ctz(O)] = 2
        O &= O - 1
    for i in range(PAT_COUNT):
        sqs = PAT_SQ[i]
        idx = 0
        for k in range(PAT_LEN[i]):
            idx = idx * 3 + digit[sqs[k]]
        total += w[PAT_OFF[i] + idx]
    total += w[PAT_MOB + (mp if mp < 32 else 32)] + w[PAT_MOB + 33 + (mo if mo < 32 else 32)]
    return total // PAT_DIV  # cdivision: toward zero


def clear_patterns():
    """Take the pattern evaluation out of the core (``engine.patterns.uninstall``): the search and
    the solver's ordering then use the hand-written evaluation."""
    global PAT_W, PAT_COUNT, PAT_HELD
    cdef int i
    for i in range(PAT_COUNT):
        free(PAT_TERN[i])
        PAT_TERN[i] = NULL
    PAT_COUNT = 0
    PAT_W = NULL
    PAT_HELD = None


def set_patterns(instances, offsets, int mobility_offset, int stage_size, stage_of, int divisor,
                 const int16_t[::1] weights):
    """Install the pattern evaluation (called by ``engine.patterns.install``).  The weights are
    read in place, not copied: the core holds ``weights`` until ``clear_patterns`` or the next
    ``set_patterns``, and its memory must not change meanwhile."""
    global PAT_MOB, PAT_STAGE_SIZE, PAT_DIV, PAT_W, PAT_COUNT, PAT_HELD
    cdef int i, k, j, bits, v
    cdef int place[12]
    if len(instances) > 64 or any(len(sqs) > 12 for sqs in instances) or len(stage_of) != 65:
        raise ValueError("pattern layout too large")
    stages = max(stage_of) + 1
    if weights.shape[0] != stages * stage_size or mobility_offset + 66 > stage_size:
        raise ValueError("weights do not match the layout")
    clear_patterns()
    for i in range(len(instances)):
        PAT_LEN[i] = len(instances[i])
        PAT_OFF[i] = offsets[i]
        for k in range(PAT_LEN[i]):
            PAT_SQ[i][k] = instances[i][k]
        ordered = sorted(instances[i])
        PAT_MASK[i] = sum((<uint64_t>1) << sq for sq in ordered)
        PAT_TERN[i] = <int32_t*> malloc((1 << PAT_LEN[i]) * sizeof(int32_t))
        if PAT_TERN[i] == NULL:
            raise MemoryError("no memory for the pattern tables")
        for j in range(PAT_LEN[i]):
            place[j] = <int> (3 ** (PAT_LEN[i] - 1 - list(instances[i]).index(ordered[j])))
        for bits in range(1 << PAT_LEN[i]):
            v = 0
            for j in range(PAT_LEN[i]):
                if (bits >> j) & 1:
                    v += place[j]
            PAT_TERN[i][bits] = v
    for i in range(65):
        PAT_STAGE_OF[i] = stage_of[i]
    PAT_MOB, PAT_STAGE_SIZE, PAT_DIV = mobility_offset, stage_size, divisor
    PAT_HELD = weights
    PAT_W = &weights[0]
    PAT_COUNT = len(instances)

