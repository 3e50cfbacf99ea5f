# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled rules core.

8x8 is the fast path: two 64-bit masks, move generation by shifts, flips by
precomputed rays.  Every other even size (4..26) uses a mailbox board in C
(``_mb_*``), an implementation independent of both the 8x8 bitboard and the
pure-Python core, so the three can be checked against one another.

The Python-facing functions take and return masks as Python ints, square
``i = y * size + x``, exactly like ``engine._pure``.
"""
from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint16_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
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


# ------------------------------------------------------------------- search

cdef extern from "_bits.h" nogil:
    double bits_now()

cdef enum:
    INF = 32000
    WIN = 10000          # a finished game in a midgame search: WIN + disc difference
    TT_BITS = 20
    KIND_EXACT = 1
    KIND_MID = 2
    SOLVE_TT_EMPTIES = 10     # positions with this many empties or more go to the hash table
    SOLVE_ORDER_EMPTIES = 6   # fastest-first ordering from here; parity alone below
    SOLVE_SMALL = 5           # from here on: no move generation, no hash table
    SOLVE_STABLE_EMPTIES = 8
    SOLVE_ETC_EMPTIES = 14    # enhanced transposition cutoffs above this
    SOLVE_EVAL_EMPTIES = 14   # ordering by a shallow midgame search from here
    SOLVE_EVAL_BASE = 12      # ... of depth (empties - SOLVE_EVAL_BASE) / 2
    SOLVE_EVAL_MOBILITY = 8   # ... plus this weight times the opponent's mobility
    BUSY_SIZE = 1 << 14       # words in the table of positions being searched
    SPLIT_EMPTIES = 12        # threads spread over the moves of solver nodes with this many empties
    SPLIT_DEPTH = 4           # ... and of midgame nodes this deep
    EVAL_FULL = 0        # hand-written: corners, X/C squares, mobility, potential mobility, edges, parity
    EVAL_SIMPLE = 1      # square weights and mobility
    EVAL_PATTERNS = 2    # trained patterns (engine/patterns.py)

cdef extern from "_bits.h" nogil:
    ctypedef struct bits_tt_entry:
        uint64_t P
        uint64_t O
        uint64_t data
        uint64_t check
    void bits_tt_read(const bits_tt_entry* e, bits_tt_entry* out)
    void bits_tt_write(bits_tt_entry* e, uint64_t P, uint64_t O, uint64_t data, uint64_t check)
    int bits_flag(const int* p)
    void bits_set_flag(int* p, int v)
    uint64_t bits_load64(const uint64_t* p)
    void bits_store64(uint64_t* p, uint64_t v)

cdef struct TTData:      # one hash entry, unpacked
    int lower
    int upper
    int depth
    int move
    int kind
    int gen

cdef struct Search:      # one thread's search; the hash table is shared by the threads of a Searcher
    bits_tt_entry* tt
    uint64_t mask
    uint64_t nodes
    double deadline      # 0: none
    int aborted
    int evaluation       # EVAL_FULL, EVAL_SIMPLE or EVAL_PATTERNS
    int gen              # this search's generation: older entries are replaced first
    int id               # 0: the main thread, which decides when a timed search stops
    int selective        # ProbCut in the midgame search (with the pattern evaluation)
    int* halt            # set when another thread of the same search has finished
    int* cancel          # set by Searcher.stop()
    uint64_t* busy       # the positions threads are searching now (BUSY_SIZE words; NULL: one thread)

cdef uint64_t DEF_CORNERS = 0x8100000000000081ULL


cdef inline uint64_t _mix(uint64_t P, uint64_t O) noexcept nogil:
    return mix64(P ^ mix64(O))


cdef inline bint _busy_enter(Search* s, uint64_t P, uint64_t O, bint defer, uint64_t* h) noexcept nogil:
    """Threads spread over the moves of a node (ABDADA): a move whose position another
    thread is searching now is left for later (False) when ``defer``; otherwise the
    position is marked as searched by this thread until ``_busy_leave``."""
    h[0] = _mix(P, O)
    cdef uint64_t* slot = &s.busy[h[0] & (BUSY_SIZE - 1)]
    if defer and bits_load64(slot) == h[0]:
        return False
    bits_store64(slot, h[0])
    return True


cdef inline void _busy_leave(Search* s, uint64_t h) noexcept nogil:
    cdef uint64_t* slot = &s.busy[h & (BUSY_SIZE - 1)]
    if bits_load64(slot) == h:
        bits_store64(slot, 0)


cdef inline int _next_move(Search* s, uint64_t P, uint64_t O, int* sqs, uint64_t* fl, int n, int* k,
                           int* deferred, int* nd, bint split, uint64_t* cP, uint64_t* cO,
                           uint64_t* h) noexcept nogil:
    """The index of the next of a node's n moves to search, with its position in (cP, cO);
    -1 when none is left.  The moves go in order, then those left for later (``split``:
    see ``_busy_enter``); ``k`` counts the moves taken so far, ``deferred[:nd]`` the ones
    left; ``_busy_leave(s, h)`` once the move is searched."""
    cdef int i
    while k[0] < n + nd[0]:
        i = k[0] if k[0] < n else deferred[k[0] - n]
        k[0] += 1
        cP[0] = O ^ fl[i]
        cO[0] = P | fl[i] | ((<uint64_t>1) << sqs[i])
        if split and not _busy_enter(s, cP[0], cO[0], i > 0 and k[0] <= n, h):
            deferred[nd[0]] = i
            nd[0] += 1
            continue
        return i
    return -1


cdef inline bint _tick(Search* s) noexcept nogil:
    """Count a node; True when the search must stop (checked every 2048 nodes): the time is
    up, another thread has finished, or Searcher.stop() was called."""
    s.nodes += 1
    if (s.nodes & 2047) == 0:
        if (s.deadline > 0 and bits_now() > s.deadline) or bits_flag(s.halt) or bits_flag(s.cancel):
            s.aborted = 1
    return s.aborted


cdef inline int final_score(uint64_t P, uint64_t O) noexcept nogil:
    cdef int p = bits_count(P), o = bits_count(O)
    cdef int e = 64 - p - o
    if p > o:
        return p - o + e
    if p < o:
        return p - o - e
    return 0


cdef inline bint _load(Search* s, uint64_t P, uint64_t O, TTData* d) noexcept nogil:
    """The hash entry of (P, O), if there is one whose words were written together."""
    cdef uint64_t h = _mix(P, O)
    cdef bits_tt_entry e
    bits_tt_read(&s.tt[h & s.mask], &e)
    if e.P != P or e.O != O or (e.check ^ e.data) != h:
        return False
    d.lower = <int16_t>(e.data & 0xFFFF)
    d.upper = <int16_t>((e.data >> 16) & 0xFFFF)
    d.depth = (e.data >> 32) & 0xFF
    d.move = <int8_t>((e.data >> 40) & 0xFF)
    d.kind = (e.data >> 48) & 0xFF
    d.gen = (e.data >> 56) & 0xFF
    return d.kind != 0


cdef inline void _store(Search* s, uint64_t P, uint64_t O, int kind, int depth, int alpha, int beta,
                        int score, int move) noexcept nogil:
    cdef uint64_t h = _mix(P, O), data
    cdef bits_tt_entry* slot = &s.tt[h & s.mask]
    cdef bits_tt_entry e
    cdef int old_kind, lower = -INF, upper = INF
    bits_tt_read(slot, &e)
    old_kind = (e.data >> 48) & 0xFF
    if old_kind and (e.check ^ e.data) == _mix(e.P, e.O):
        if e.P == P and e.O == O:
            if old_kind == KIND_EXACT and kind == KIND_MID:
                return  # a solved position keeps its exact bounds
        elif <int>((e.data >> 56) & 0xFF) == s.gen and <int>((e.data >> 32) & 0xFF) > depth:
            return  # keep the deeper entry of another position from this search
    if score > alpha:
        lower = score
    if score < beta:
        upper = score
    data = (<uint64_t><uint16_t>lower) | ((<uint64_t><uint16_t>upper) << 16) \
        | ((<uint64_t><uint8_t>depth) << 32) | ((<uint64_t><uint8_t>move) << 40) \
        | ((<uint64_t>kind) << 48) | ((<uint64_t><uint8_t>s.gen) << 56)
    bits_tt_write(slot, P, O, data, h ^ data)


cdef inline uint64_t _neighbours(uint64_t b) noexcept nogil:
    cdef uint64_t l = b & 0xFEFEFEFEFEFEFEFEULL, r = b & 0x7F7F7F7F7F7F7F7FULL
    return ((l >> 1) | (r << 1) | (b << 8) | (b >> 8) | (l >> 9) | (l << 7) | (r << 9) | (r >> 7))


cdef inline uint64_t _edge_stable(uint64_t P) noexcept nogil:
    """Discs of P on an edge joined to one of P's corners by P's discs along that edge."""
    cdef uint64_t st = P & DEF_CORNERS, prev = 0
    cdef uint64_t top = 0xFFULL, bottom = 0xFF00000000000000ULL
    cdef uint64_t left = 0x0101010101010101ULL, right = 0x8080808080808080ULL
    while st != prev:
        prev = st
        st |= P & top & ((st << 1) | (st >> 1))
        st |= P & bottom & ((st << 1) | (st >> 1))
        st |= P & left & ((st << 8) | (st >> 8))
        st |= P & right & ((st << 8) | (st >> 8))
    return st


cdef inline void _insert(int* keys, int* sqs, uint64_t* flips, int n, int k, int sq,
                         uint64_t f) noexcept nogil:
    """Insert a move into the first n, kept sorted by key (smallest first)."""
    cdef int i = n
    while i > 0 and keys[i - 1] > k:
        keys[i] = keys[i - 1]
        sqs[i] = sqs[i - 1]
        flips[i] = flips[i - 1]
        i -= 1
    keys[i] = k
    sqs[i] = sq
    flips[i] = f


cdef int _order(uint64_t P, uint64_t O, uint64_t moves, int hash_move, int* sqs, uint64_t* flips) noexcept nogil:
    """Moves sorted fastest-first: fewest replies for the opponent (corners count double)."""
    cdef int keys[32]
    cdef int n = 0, i, j, sq, k
    cdef uint64_t f, b, reply
    while moves:
        sq = bits_ctz(moves)
        moves &= moves - 1
        b = (<uint64_t>1) << sq
        f = flips8(P, O, sq)
        reply = moves8(O ^ f, P | f | b)
        k = 4 * (bits_count(reply) + bits_count(reply & DEF_CORNERS)) \
            + bits_count(_neighbours(P | f | b) & ~(P | O | b))
        if sq == hash_move:
            k = -100
        elif b & DEF_CORNERS:
            k -= 1
        _insert(keys, sqs, flips, n, k, sq, f)
        n += 1
    return n


cdef uint64_t NEIGH[64]
for _sq in range(64):
    NEIGH[_sq] = _neighbours((<uint64_t>1) << _sq)

cdef uint64_t QUADRANT[4]
QUADRANT[:] = [0x000000000F0F0F0FULL, 0x00000000F0F0F0F0ULL, 0x0F0F0F0F00000000ULL, 0xF0F0F0F000000000ULL]


cdef inline uint64_t _odd_regions(uint64_t E) noexcept nogil:
    """Empty squares in quadrants holding an odd number of empties (played first: parity)."""
    cdef uint64_t odd = 0
    cdef int q
    for q in range(4):
        if bits_count(E & QUADRANT[q]) & 1:
            odd |= QUADRANT[q]
    return E & odd


# -- midgame evaluation (8x8): corners, X/C-squares, mobility, potential mobility, stable edges, parity

cdef int eval8(uint64_t P, uint64_t O) noexcept nogil:
    cdef uint64_t E = ~(P | O)
    cdef int score = 0
    cdef int mp = bits_count(moves8(P, O)), mo = bits_count(moves8(O, P))
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
        else:
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


cdef int eval_simple8(uint64_t P, uint64_t O) noexcept nogil:
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
    return score + 8 * (bits_count(moves8(P, O)) - bits_count(moves8(O, P)))


# -- trained pattern evaluation: the layout and its meaning are in engine/patterns.py

cdef int PAT_COUNT = 0
cdef int PAT_LEN[64]
cdef int PAT_SQ[64][12]
cdef int PAT_OFF[64]
cdef int PAT_MOB = 0
cdef int PAT_STAGE_SIZE = 0
cdef int PAT_STAGE_OF[65]
cdef int PAT_DIV = 1
cdef int16_t* PAT_W = NULL
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


cdef int eval_patterns8(uint64_t P, uint64_t O) noexcept nogil:
    cdef const int16_t* w = PAT_W + PAT_STAGE_OF[64 - bits_count(P | O)] * PAT_STAGE_SIZE
    cdef int i, k, idx, total = 0
    cdef int mp = bits_count(moves8(P, O)), mo = bits_count(moves8(O, P))
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


def set_patterns(instances, offsets, int mobility_offset, int stage_size, stage_of, int divisor,
                 const int16_t[:] weights):
    """Install the pattern evaluation (called by ``engine.patterns.install``)."""
    global PAT_MOB, PAT_STAGE_SIZE, PAT_DIV, PAT_W, PAT_COUNT
    cdef int i, k
    cdef int16_t* w
    if len(instances) > 64 or any(len(sqs) > 12 for sqs in instances) or len(stage_of) != 65:
        raise ValueError("pattern layout too large")
    stages = max(stage_of) + 1
    if weights.shape[0] != stages * stage_size or mobility_offset + 66 > stage_size:
        raise ValueError("weights do not match the layout")
    w = <int16_t*> malloc(weights.shape[0] * sizeof(int16_t))
    if w == NULL:
        raise MemoryError("no memory for the pattern weights")
    for i in range(weights.shape[0]):
        w[i] = weights[i]
    for i in range(PAT_COUNT):
        free(PAT_TERN[i])
        PAT_TERN[i] = NULL
    PAT_COUNT = 0
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
        place = [3 ** (PAT_LEN[i] - 1 - list(instances[i]).index(sq)) for sq in ordered]
        for bits in range(1 << PAT_LEN[i]):
            PAT_TERN[i][bits] = sum(place[j] for j in range(PAT_LEN[i]) if (bits >> j) & 1)
    for i in range(65):
        PAT_STAGE_OF[i] = stage_of[i]
    PAT_MOB, PAT_STAGE_SIZE, PAT_DIV = mobility_offset, stage_size, divisor
    free(PAT_W)
    PAT_W = w
    PAT_COUNT = len(instances)


def has_patterns():
    return PAT_W != NULL


# -- ProbCut (Buro): a shallow search at depth d/2 predicts the depth-d value; where it lies
# far enough outside the window, the deep search is skipped.  The error of the prediction
# (its standard deviation, by depth and stage of the game) is fitted on self-play by
# engine/probcut.py; PC_T100 / 100 standard deviations count as "far enough".
cdef enum:
    PC_MIN_DEPTH = 3
    PC_MAX_DEPTH = 12
    PC_STAGES = 3        # 40 or more empties, 25 to 39, fewer

cdef int PC_SIGMA[PC_STAGES][PC_MAX_DEPTH + 1]
cdef int PC_BIAS[PC_STAGES][PC_MAX_DEPTH + 1]    # mean of (deep - shallow)
cdef int PC_T100 = 0     # 0: no table installed


cdef inline int _pc_stage(uint64_t P, uint64_t O) noexcept nogil:
    cdef int empties = 64 - bits_count(P | O)
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
    cdef int stage = _pc_stage(P, O)
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
    moves = moves8(P, O)
    if moves == 0:
        if passed:
            d = final_score(P, O)
            return WIN + d if d > 0 else (-WIN + d if d < 0 else 0)
        return -_mid(s, O, P, depth, -beta, -alpha, True)
    if depth <= 0:
        if s.evaluation == EVAL_PATTERNS:
            return eval_patterns8(P, O)
        return eval_simple8(P, O) if s.evaluation == EVAL_SIMPLE else eval8(P, O)
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
    if depth >= 2:
        n = _order(P, O, moves, hash_move, sqs, fl)
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


# -- exact solver (8x8)

cdef inline int _solve_last1(uint64_t P, uint64_t O, int sq) noexcept nogil:
    """One empty square left: whoever can play it does; the other side is final."""
    cdef uint64_t b = (<uint64_t>1) << sq
    cdef uint64_t f = flips8(P, O, sq)
    cdef int p
    if f:
        p = bits_count(P | f | b)
        return 2 * p - 64
    f = flips8(O, P, sq)
    if f:
        p = bits_count(P & ~f)
        return 2 * p - 64
    return final_score(P, O)


cdef int _solve2(Search* s, uint64_t P, uint64_t O, int alpha, int beta, int x1, int x2,
                 bint passed) noexcept nogil:
    """Two empties, x1 and x2."""
    cdef uint64_t f
    cdef int best = -INF, v
    s.nodes += 1
    if NEIGH[x1] & O:
        f = flips8(P, O, x1)
        if f:
            best = -_solve_last1(O ^ f, P | f | ((<uint64_t>1) << x1), x2)
            if best >= beta:
                return best
    if NEIGH[x2] & O:
        f = flips8(P, O, x2)
        if f:
            v = -_solve_last1(O ^ f, P | f | ((<uint64_t>1) << x2), x1)
            return v if v > best else best
    if best > -INF:
        return best
    if passed:
        return final_score(P, O)
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
        return final_score(P, O)
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
    cdef uint64_t E = ~(P | O), e, f, b, odd
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
            return _solve_last1(P, O, bits_ctz(E))
        return final_score(P, O)
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
            return final_score(P, O)
        return -_solve_small(s, O, P, -beta, -alpha, True)
    return best


cdef int _order_eval(Search* s, uint64_t P, uint64_t O, uint64_t moves, int hash_move, int depth,
                     int* sqs, uint64_t* flips) noexcept nogil:
    """Moves sorted by a shallow midgame search of each (in the search's evaluation) and the
    opponent's replies (fewest first), the hash move first."""
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
        reply = moves8(np, no)
        k += SOLVE_EVAL_MOBILITY * (bits_count(reply) + bits_count(reply & DEF_CORNERS))
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
        v = 64 - 2 * bits_count(_edge_stable(O))
        if v <= alpha:
            return v
    moves = moves8(P, O)
    if moves == 0:
        if passed:
            return final_score(P, O)
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
        n = _order_eval(s, P, O, moves, hash_move, (empties - SOLVE_EVAL_BASE) // 2, sqs, fl)
    elif empties >= SOLVE_ORDER_EMPTIES:
        n = _order(P, O, moves, hash_move, sqs, fl)
    else:
        n = 0
        odd = _odd_regions(~(P | O)) & moves
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


cdef int _root8(Search* s, uint64_t P, uint64_t O, int depth, bint exact, int alpha, int beta, int* out_move) noexcept nogil:
    """One full-window (alpha, beta) search of the root; the best move goes to out_move."""
    cdef uint64_t moves = moves8(P, O), fl[32]
    cdef int sqs[32]
    cdef int n, i, v, best = -INF, hash_move = -1, k, nd = 0
    cdef int empties = 64 - bits_count(P | O)
    cdef int deferred[32]
    cdef uint64_t cP, cO, h = 0
    cdef bint split = s.busy != NULL
    cdef TTData e
    if _load(s, P, O, &e):
        hash_move = e.move
    n = _order(P, O, moves, hash_move, sqs, fl)
    out_move[0] = sqs[0] if n else -1
    k = 0
    while True:
        i = _next_move(s, P, O, sqs, fl, n, &k, deferred, &nd, split, &cP, &cO, &h)
        if i < 0:
            break
        if exact:
            if i == 0:
                v = -_solve(s, cP, cO, -beta, -alpha, False, empties - 1)
            else:
                v = -_solve(s, cP, cO, -alpha - 1, -alpha, False, empties - 1)
                if alpha < v < beta:
                    v = -_solve(s, cP, cO, -beta, -v, False, empties - 1)
        else:
            if i == 0:
                v = -_mid(s, cP, cO, depth - 1, -beta, -alpha, False)
            else:
                v = -_mid(s, cP, cO, depth - 1, -alpha - 1, -alpha, False)
                if alpha < v < beta:
                    v = -_mid(s, cP, cO, depth - 1, -beta, -v, False)
        if split:
            _busy_leave(s, h)
        if s.aborted:
            break
        if v > best:
            best = v
            out_move[0] = sqs[i]
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    if not s.aborted:
        _store(s, P, O, KIND_EXACT if exact else KIND_MID, empties if exact else depth, -INF, INF, best, out_move[0])
    return best


cdef int _check_seconds(double seconds) except -1:
    if not seconds >= 0:   # NaN too
        raise ValueError(f"seconds must be 0 (no limit) or more: {seconds}")
    return 0


cdef int NO_FLAG = 0     # what halt and cancel point to outside a Searcher


cdef void _init_search(Search* s, double seconds) noexcept nogil:
    """A search without a hash table (the mailbox boards) or before a Searcher fills it in."""
    s.tt = NULL
    s.mask = 0
    s.nodes = 0
    s.aborted = 0
    s.evaluation = EVAL_FULL
    s.gen = 0
    s.id = 0
    s.selective = 0
    s.halt = &NO_FLAG
    s.cancel = &NO_FLAG
    s.busy = NULL
    s.deadline = bits_now() + seconds if seconds > 0 else 0


cdef void _work_solve(Search* s, uint64_t P, uint64_t O, int alpha, int beta, int* score,
                      int* move) noexcept nogil:
    """One thread's exact solve of the root; the first to finish stops the others."""
    score[0] = _root8(s, P, O, 0, True, alpha, beta, move)
    if not s.aborted:
        bits_set_flag(s.halt, 1)


cdef void _work_search(Search* s, uint64_t P, uint64_t O, int max_depth, double start, double seconds,
                       int* score, int* move, int* depth) noexcept nogil:
    """One thread's iterative deepening.  The main thread (id 0) decides when to stop."""
    cdef int d, v, m, empties = 64 - bits_count(P | O)
    depth[0] = 0
    for d in range(1, max_depth + 1):
        v = _root8(s, P, O, d, False, -INF, INF, &m)
        if s.aborted:
            break
        score[0], move[0], depth[0] = v, m, d
        if d >= empties or (s.id == 0 and seconds > 0 and bits_now() - start > 0.4 * seconds):
            break
    if s.id == 0:
        bits_set_flag(s.halt, 1)


MAX_THREADS = 64


cdef class Searcher:
    """A search that keeps its hash table between calls, on one or several threads.

    ``Searcher(hash_bits=20, threads=1)``: the hash table has 2**hash_bits
    entries of 32 bytes (2**20: 32 MiB), shared by ``threads`` threads.
    Every thread searches the same position and they spread over its tree
    (ABDADA): at a node, once its first move is searched, a thread leaves
    for later a move whose position another thread is searching now, and
    takes the next; what the others found waits in the table.  The searches
    release the GIL.  ``stop()`` (from any thread) ends the running search
    at once with its best so far, as if its time were up; every search
    started before ``clear_stop()`` returns at once too.  8x8 only uses the
    table and the threads; other sizes search on one thread.
    """
    cdef bits_tt_entry* tt
    cdef uint64_t* busy
    cdef uint64_t mask
    cdef int gen
    cdef int halt
    cdef int cancel
    cdef readonly int threads
    cdef readonly int hash_bits
    cdef public bint selective
    cdef Search work[64]
    cdef int scores[64]
    cdef int moves_[64]
    cdef int depths[64]
    cdef object lock

    def __cinit__(self, int hash_bits=TT_BITS, int threads=1):
        if not 10 <= hash_bits <= 30:
            raise ValueError("hash_bits must be 10..30")
        if not 1 <= threads <= MAX_THREADS:
            raise ValueError(f"threads must be 1..{MAX_THREADS}")
        self.tt = <bits_tt_entry*> calloc((<size_t>1) << hash_bits, sizeof(bits_tt_entry))
        self.busy = <uint64_t*> calloc(BUSY_SIZE, sizeof(uint64_t))
        if self.tt == NULL or self.busy == NULL:
            raise MemoryError("no memory for the hash table")
        self.mask = ((<uint64_t>1) << hash_bits) - 1
        self.hash_bits = hash_bits
        self.threads = threads
        self.selective = True
        self.gen = 0
        self.halt = 0
        self.cancel = 0

    def __init__(self, int hash_bits=TT_BITS, int threads=1):
        import threading
        self.lock = threading.Lock()

    def __dealloc__(self):
        free(self.tt)
        free(self.busy)

    @property
    def thread_nodes(self):
        """Nodes of each thread in the last search (the main thread first)."""
        return [self.work[k].nodes for k in range(self.threads)]

    def stop(self):
        """End the running search now (it answers with its best so far); see ``clear_stop``."""
        bits_set_flag(&self.cancel, 1)

    def clear_stop(self):
        """Let searches run again after ``stop()``."""
        bits_set_flag(&self.cancel, 0)

    def clear(self):
        """Forget everything in the hash table."""
        with self.lock:
            memset(self.tt, 0, (self.mask + 1) * sizeof(bits_tt_entry))

    cdef int _begin(self, int size, double seconds, int evaluation) noexcept:
        """A new search: its generation, no halt, each thread's Search; returns the threads."""
        cdef int k, threads = self.threads if size == 8 else 1
        self.gen = (self.gen + 1) & 0xFF
        self.halt = 0
        for k in range(threads):
            self._prepare(k, seconds, evaluation)
        return threads

    cdef void _prepare(self, int k, double seconds, int evaluation) noexcept:
        cdef Search* s = &self.work[k]
        _init_search(s, seconds)
        s.tt = self.tt
        s.mask = self.mask
        s.gen = self.gen
        s.evaluation = evaluation
        s.id = k
        s.selective = self.selective and evaluation == EVAL_PATTERNS
        s.halt = &self.halt
        s.cancel = &self.cancel
        s.busy = self.busy if self.threads > 1 else NULL
        s.aborted = bits_flag(&self.cancel)  # stopped before it began: return at once

    # Each thread searches with its own copy of its Search, on its own stack: the node counters
    # of neighbouring threads in one array would share cache lines and slow every node.
    def _helper_solve(self, int k, uint64_t P, uint64_t O, int alpha, int beta):
        cdef Search local = self.work[k]
        cdef int score = 0, move = -1
        with nogil:
            _work_solve(&local, P, O, alpha, beta, &score, &move)
        self.work[k] = local
        self.scores[k], self.moves_[k] = score, move

    def _helper_search(self, int k, uint64_t P, uint64_t O, int max_depth, double start, double seconds):
        cdef Search local = self.work[k]
        cdef int score = 0, move = -1, depth = 0
        with nogil:
            _work_search(&local, P, O, max_depth, start, seconds, &score, &move, &depth)
        self.work[k] = local
        self.scores[k], self.moves_[k], self.depths[k] = score, move, depth

    def _run(self, helper, args, int threads):
        """Run the main search and its helpers, each on a thread of its own, and wait for them.
        The caller waits in short steps, so that Ctrl-C (KeyboardInterrupt) stops the search
        at once and is passed on."""
        import threading
        workers = [threading.Thread(target=helper, args=(k,) + args, daemon=True) for k in range(threads)]
        try:
            for t in workers:
                t.start()
            while workers[0].is_alive():
                workers[0].join(0.05)
        except BaseException:
            bits_set_flag(&self.cancel, 1)
            for t in workers:
                if t.ident is not None:
                    t.join()
            bits_set_flag(&self.cancel, 0)
            raise
        bits_set_flag(&self.halt, 1)
        for t in workers:
            t.join()

    def solve(self, int size, P, O, double seconds=0.0, int alpha=-64, int beta=64):
        """Exact result for the side to move: ``(score, move, nodes, complete)``.

        ``score`` is the final disc difference with empties to the winner,
        exact when it lies inside (alpha, beta) (otherwise a bound); ``move``
        the best square (-1: must pass); ``complete`` is False when
        ``seconds`` ran out or ``stop()`` was called (then score and move are
        not to be trusted).  Moves are ordered with the trained patterns when
        they are installed.
        """
        cdef Mailbox b
        cdef Search* s
        cdef int score, move = -1, n2 = size * size, k, threads
        cdef uint64_t p8, o8, nodes = 0
        _check_position(size, P, O)
        _check_seconds(seconds)
        if alpha >= beta:
            raise ValueError("alpha must be below beta")
        with self.lock:
            threads = self._begin(size, seconds, EVAL_PATTERNS if PAT_W != NULL else EVAL_FULL)
            s = &self.work[0]
            if size == 8:
                p8, o8 = P, O
                if moves8(p8, o8) == 0:
                    score = -_solve(s, o8, p8, -beta, -alpha, True, 64 - bits_count(p8 | o8)) \
                        if moves8(o8, p8) else final_score(p8, o8)
                    return score, -1, s.nodes, not s.aborted
                self._run(self._helper_solve, (p8, o8, alpha, beta), threads)
                nodes = sum(self.thread_nodes)
                for k in range(threads):
                    if not self.work[k].aborted:
                        return self.scores[k], self.moves_[k], nodes, True
                return self.scores[0], self.moves_[0], nodes, False
            _mb_load(&b, size, P, O)
            _mb_weights(size)
            with nogil:
                score = _mb_search(s, &b, 1, n2, alpha, beta, False, True, &move)
            return score, _mb_square(&b, move), s.nodes, not s.aborted

    def search(self, int size, P, O, int max_depth=60, double seconds=1.0, evaluation="full"):
        """Iterative deepening under a time limit: ``(score, move, nodes, depth)``.

        Scores are evaluation units for the side to move (a won game: 10000
        plus the disc difference).  ``evaluation`` (8x8): "full"
        (hand-written), "simple" (square weights and mobility, what other
        sizes always use) or "patterns" (trained; 1/4 disc units; needs
        ``engine.patterns.install()``).  A new depth is not started after
        40% of ``seconds``; a depth cut off by the clock is dropped.
        ``seconds`` 0: no limit (until ``max_depth`` or ``stop()``).
        """
        cdef Mailbox b
        cdef Search* s
        cdef int score = 0, move = -1, d, v, m, done = 0, threads
        cdef uint64_t p8, o8, nodes = 0
        cdef double start = bits_now()
        _check_position(size, P, O)
        kinds = {"full": EVAL_FULL, "simple": EVAL_SIMPLE, "patterns": EVAL_PATTERNS}
        if evaluation not in kinds:
            raise ValueError(f"evaluation must be one of {', '.join(kinds)}: {evaluation!r}")
        if evaluation == "patterns" and PAT_W == NULL:
            raise RuntimeError("no pattern weights installed (engine.patterns.install())")
        if max_depth < 1:
            raise ValueError("max_depth must be >= 1")
        _check_seconds(seconds)
        with self.lock:
            threads = self._begin(size, seconds, kinds[evaluation])
            s = &self.work[0]
            if size == 8:
                p8, o8 = P, O
                if moves8(p8, o8) == 0:
                    return 0, -1, 0, 0
                self._run(self._helper_search, (p8, o8, max_depth, start, seconds), threads)
                nodes = sum(self.thread_nodes)
                if self.depths[0] == 0:
                    return 0, -1, nodes, 0
                return self.scores[0], self.moves_[0], nodes, self.depths[0]
            _mb_load(&b, size, P, O)
            _mb_weights(size)
            for d in range(1, max_depth + 1):
                with nogil:
                    v = _mb_search(s, &b, 1, d, -INF, INF, False, False, &m)
                if s.aborted:
                    break
                score, move, done = v, m, d
                if (seconds > 0 and bits_now() - start > 0.4 * seconds) or d >= size * size:
                    break
            return score, _mb_square(&b, move), s.nodes, done


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
    """Final disc difference for ``me``, empties to the winner."""
    cdef int x, y, c, p = 0, o = 0, e = 0
    for y in range(b.n):
        for x in range(b.n):
            c = b.cell[(y + 1) * W + x + 1]
            if c == me:
                p += 1
            elif c == EMPTY:
                e += 1
            else:
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
            elif c != EMPTY:
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


# ------------------------------------------------------------ Python face

cdef int _check(int size) except -1:
    if size < 4 or size > MAXN or size % 2:
        raise ValueError(f"board size must be even, 4..{MAXN}: {size}")
    return 0


cdef int _check_position(int size, P, O) except -1:
    _check(size)
    if P < 0 or O < 0 or (P | O) >> (size * size):
        raise ValueError(f"discs outside the {size}x{size} board")
    if P & O:
        raise ValueError("a square holds discs of both colours (the masks overlap)")
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


def solve(int size, P, O, double seconds=0.0, int alpha=-64, int beta=64, int threads=1):
    """Exact result for the side to move: ``(score, move, nodes, complete)``; see
    ``Searcher.solve`` (this one starts with an empty hash table)."""
    return Searcher(TT_BITS, threads).solve(size, P, O, seconds, alpha, beta)


def search(int size, P, O, int max_depth=60, double seconds=1.0, evaluation="full", int hash_bits=20,
           int threads=1):
    """Iterative deepening under a time limit: ``(score, move, nodes, depth)``; see
    ``Searcher.search`` (this one starts with an empty hash table of 2**hash_bits entries)."""
    return Searcher(hash_bits, threads).search(size, P, O, max_depth, seconds, evaluation)


def evaluate(P, O, evaluation="full"):
    """An 8x8 midgame evaluation of (P, O) for the side to move (P); see ``search``."""
    if evaluation == "patterns":
        if PAT_W == NULL:
            raise RuntimeError("no pattern weights installed (engine.patterns.install())")
        return eval_patterns8(P, O)
    return eval_simple8(P, O) if evaluation == "simple" else eval8(P, O)
