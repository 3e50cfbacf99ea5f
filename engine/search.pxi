# What every search shares: its state, the hash table, stability, move ordering.
# Included by engine/_core.pyx, in the order listed there.

# ------------------------------------------------------------------- search

cdef extern from "_bits.h" nogil:
    double bits_now()

cdef enum:
    INF = 32000
    WIN = 10000          # a finished game in a midgame search: WIN + disc difference
    TT_BITS = 20
    KIND_EXACT = 1
    KIND_MID = 2
    SOLVE_TT_EMPTIES = 8      # positions with this many empties or more go to the hash table
    SOLVE_ORDER_EMPTIES = 6   # fastest-first ordering from here; parity alone below
    SOLVE_PARITY = 2          # ... where a move into an odd region gains this (a reply is 4)
    SOLVE_SMALL = 5           # from here on: no move generation, no hash table
    SOLVE_STABLE_EMPTIES = 8
    SOLVE_ETC_EMPTIES = 12    # enhanced transposition cutoffs above this
    SOLVE_EVAL_EMPTIES = 12   # ordering by a shallow midgame search from here
    SOLVE_EVAL_BASE = 12      # ... of depth (empties - SOLVE_EVAL_BASE) / 2
    SOLVE_EVAL_MOBILITY = 4   # ... plus this weight times the opponent's mobility
    MID_EVAL_DEPTH = 6        # midgame nodes this deep: ordered by the evaluation of each move
    MID_EVAL_MOBILITY = 8     # ... plus this weight times the opponent's mobility
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
    uint64_t holes       # 8x8: the squares that are no part of the board (a shaped board)
    int squares          # 8x8: the squares that can take a disc (64 less the holes)

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


cdef inline int final_score(uint64_t P, uint64_t O, int squares) noexcept nogil:
    """The disc difference for P at the end, empties to the winner (``squares``: 64 less the holes)."""
    cdef int p = bits_count(P), o = bits_count(O)
    cdef int e = squares - p - o
    if p > o:
        return p - o + e
    if p < o:
        return p - o - e
    return 0


cdef inline bint _unpack(bits_tt_entry* e, TTData* d) noexcept nogil:
    d.lower = <int16_t>(e.data & 0xFFFF)
    d.upper = <int16_t>((e.data >> 16) & 0xFFFF)
    d.depth = (e.data >> 32) & 0xFF
    d.move = <int8_t>((e.data >> 40) & 0xFF)
    d.kind = (e.data >> 48) & 0xFF
    d.gen = (e.data >> 56) & 0xFF
    return d.kind != 0


cdef inline bint _load(Search* s, uint64_t P, uint64_t O, TTData* d) noexcept nogil:
    """The hash entry of (P, O), if there is one whose words were written together.  A position
    has two places (a bucket: one cache line), the even and the odd entry of its pair."""
    cdef uint64_t h = _mix(P, O)
    cdef bits_tt_entry* bucket = &s.tt[h & s.mask & ~(<uint64_t>1)]
    cdef bits_tt_entry e
    cdef int i
    for i in range(2):
        bits_tt_read(&bucket[i], &e)
        if e.P == P and e.O == O and (e.check ^ e.data) == h:
            return _unpack(&e, d)
    return False


cdef inline void _store(Search* s, uint64_t P, uint64_t O, int kind, int depth, int alpha, int beta,
                        int score, int move) noexcept nogil:
    """Into the entry of the bucket that holds (P, O); else into the one worth less: empty or
    torn, then one from an earlier search, then the shallower (a tie: the odd one).  When both
    are deeper entries of this search, nothing is stored."""
    cdef uint64_t h = _mix(P, O), data
    cdef bits_tt_entry* bucket = &s.tt[h & s.mask & ~(<uint64_t>1)]
    cdef bits_tt_entry e
    cdef int old_kind, lower = -INF, upper = INF, i, worth[2], target = -1
    for i in range(2):
        bits_tt_read(&bucket[i], &e)
        old_kind = (e.data >> 48) & 0xFF
        if not old_kind or (e.check ^ e.data) != _mix(e.P, e.O):
            worth[i] = -2
        elif e.P == P and e.O == O:
            if old_kind == KIND_EXACT and kind == KIND_MID:
                return  # a solved position keeps its exact bounds
            target = i
            break
        elif <int>((e.data >> 56) & 0xFF) != s.gen:
            worth[i] = -1
        else:
            worth[i] = <int>((e.data >> 32) & 0xFF)
    if target < 0:
        target = 0 if worth[0] < worth[1] else 1
        if worth[target] > depth:
            return  # keep the deeper entries of other positions from this search
    if score > alpha:
        lower = score
    if score < beta:
        upper = score
    data = (<uint64_t><uint16_t>lower) | ((<uint64_t><uint16_t>upper) << 16) \
        | ((<uint64_t><uint8_t>depth) << 32) | ((<uint64_t><uint8_t>move) << 40) \
        | ((<uint64_t>kind) << 48) | ((<uint64_t><uint8_t>s.gen) << 56)
    bits_tt_write(&bucket[target], P, O, data, h ^ data)


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


cdef int _order(uint64_t P, uint64_t O, uint64_t H, uint64_t moves, int hash_move, uint64_t odd,
                int* sqs, uint64_t* flips) noexcept nogil:
    """Moves sorted fastest-first: fewest replies for the opponent (corners count double);
    ``H``: the holes; a move on one of the ``odd`` squares (parity) gains SOLVE_PARITY."""
    cdef int keys[32]
    cdef int n = 0, i, j, sq, k
    cdef uint64_t f, b, reply
    while moves:
        sq = bits_ctz(moves)
        moves &= moves - 1
        b = (<uint64_t>1) << sq
        f = flips8(P, O, sq)
        reply = moves8(O ^ f, P | f | b) & ~H
        k = 4 * (bits_count(reply) + bits_count(reply & DEF_CORNERS)) \
            + bits_count(_neighbours(P | f | b) & ~(P | O | b | H))
        if sq == hash_move:
            k = -100
        elif b & DEF_CORNERS:
            k -= 1
        if b & odd:
            k -= SOLVE_PARITY
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
