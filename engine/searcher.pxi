# The root search, the threads and the Searcher class that owns a hash table.
# Included by engine/_core.pyx, in the order listed there.

cdef int _root8(Search* s, uint64_t P, uint64_t O, int depth, bint exact, int alpha, int beta, int* out_move) noexcept nogil:
    """One full-window (alpha, beta) search of the root; the best move goes to out_move."""
    cdef uint64_t moves = moves8(P, O) & ~s.holes, fl[32]
    cdef int sqs[32]
    cdef int n, i, v, best = -INF, hash_move = -1, k, nd = 0
    cdef int empties = s.squares - bits_count(P | O)
    cdef int deferred[32]
    cdef uint64_t cP, cO, h = 0
    cdef bint split = s.busy != NULL
    cdef TTData e
    if _load(s, P, O, &e):
        hash_move = e.move
    if exact and empties >= SOLVE_EVAL_EMPTIES:
        n = _order_eval(s, P, O, moves, hash_move, (empties - SOLVE_EVAL_BASE) // 2, SOLVE_EVAL_MOBILITY, sqs, fl)
    else:
        n = _order(P, O, s.holes, moves, hash_move, 0, sqs, fl)
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
    s.holes = 0
    s.squares = 64
    s.deadline = bits_now() + seconds if seconds > 0 else 0


cdef void _work_solve(Search* s, uint64_t P, uint64_t O, int alpha, int beta, int* score,
                      int* move) noexcept nogil:
    """One thread's exact solve of the root; the first to finish stops the others."""
    score[0] = _root8(s, P, O, 0, True, alpha, beta, move)
    if not s.aborted:
        bits_set_flag(s.halt, 1)


cdef void _work_search(Search* s, uint64_t P, uint64_t O, int max_depth,
                       int* score, int* move, int* depth) noexcept nogil:
    """One thread's iterative deepening, until max_depth, the end of the game or the clock; the
    main thread (id 0) stops the others when it ends."""
    cdef int d, v, m, empties = s.squares - bits_count(P | O)
    depth[0] = 0
    for d in range(1, max_depth + 1):
        v = _root8(s, P, O, d, False, -INF, INF, &m)
        if s.aborted:
            if v > -INF and d > 1:   # the moves of the cut-off depth searched in full: the best of them
                score[0], move[0] = v, m
            break
        score[0], move[0], depth[0] = v, m, d
        if d >= empties:
            break
    if s.id == 0:
        bits_set_flag(s.halt, 1)


MAX_THREADS = 64


cdef class Searcher:
    """A search that keeps its hash table between calls, on one or several threads.

    ``Searcher(hash_bits=20, threads=1)``: the hash table has 2**hash_bits
    entries of 32 bytes (2**20: 32 MiB) in buckets of two (a position may
    sit in either; the one worth less is replaced), shared by ``threads`` threads.
    Every thread searches the same position and they spread over its tree
    (ABDADA): at a node, once its first move is searched, a thread leaves
    for later a move whose position another thread is searching now, and
    takes the next; what the others found waits in the table.  The searches
    release the GIL.  ``stop()`` (from any thread) ends the running search
    at once with its best so far, as if its time were up; every search
    started before ``clear_stop()`` returns at once too.  8x8 only uses the
    table and the threads; other sizes search on one thread.  A search on
    other holes than the last one's starts with an empty table (the table
    knows positions by their discs only).
    """
    cdef bits_tt_entry* tt   # aligned to a cache line (64 bytes: one bucket of two entries)
    cdef void* tt_block      # the allocation tt lies in
    cdef uint64_t* busy
    cdef uint64_t mask
    cdef uint64_t holes    # of the last search: the table holds positions of that board
    cdef bint used         # a search has written to the table since it was made or cleared
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
        self.tt_block = calloc(((<size_t>1) << hash_bits) + 2, sizeof(bits_tt_entry))
        self.tt = <bits_tt_entry*> ((<uintptr_t>self.tt_block + 63) & ~(<uintptr_t>63))
        self.busy = <uint64_t*> calloc(BUSY_SIZE, sizeof(uint64_t))
        if self.tt_block == NULL or self.busy == NULL:
            raise MemoryError("no memory for the hash table")
        self.mask = ((<uint64_t>1) << hash_bits) - 1
        self.hash_bits = hash_bits
        self.threads = threads
        self.selective = True
        self.gen = 0
        self.holes = 0
        self.used = False
        self.halt = 0
        self.cancel = 0

    def __init__(self, int hash_bits=TT_BITS, int threads=1):
        import threading
        self.lock = threading.Lock()

    def __dealloc__(self):
        free(self.tt_block)
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
            self.used = False

    cdef int _begin(self, int size, double seconds, int evaluation, uint64_t holes) noexcept:
        """A new search: its generation, no halt, each thread's Search; returns the threads.
        ``holes``: 8x8 only (the mailbox board has its holes in its cells)."""
        cdef int k, threads = self.threads if size == 8 else 1
        if size == 8 and holes != self.holes:
            if self.used:   # (a new table is zeroed already: touching it all would cost its pages)
                memset(self.tt, 0, (self.mask + 1) * sizeof(bits_tt_entry))
                self.used = False
            self.holes = holes
        if size == 8:
            self.used = True
        self.gen = (self.gen + 1) & 0xFF
        self.halt = 0
        for k in range(threads):
            self._prepare(k, seconds, evaluation)
            if size == 8:
                self.work[k].holes = holes
                self.work[k].squares = 64 - bits_count(holes)
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

    def _helper_search(self, int k, uint64_t P, uint64_t O, int max_depth):
        cdef Search local = self.work[k]
        cdef int score = 0, move = -1, depth = 0
        with nogil:
            _work_search(&local, P, O, max_depth, &score, &move, &depth)
        self.work[k] = local
        self.scores[k], self.moves_[k], self.depths[k] = score, move, depth

    def _run(self, helper, args, int threads):
        """Run the main search and its helpers, each on a thread of its own, and wait for them.

        Ctrl-C stops the search at once and is passed on once every thread has ended: in the
        main thread, while they run, SIGINT's handler only records it and cancels the search,
        and the handler that was there is called afterwards (Python's raises KeyboardInterrupt).
        An exception must not break into the waits: CPython 3.11's ``Thread.join``, interrupted,
        may take a running thread for stopped, and the search's memory was then freed under it."""
        import signal
        import threading
        workers = [threading.Thread(target=helper, args=(k,) + args, daemon=True) for k in range(threads)]
        caught = []

        def record(signum, frame):
            caught.append((signum, frame))
            self.stop()

        before = None       # (a handler that was there, swapped out; not one ignoring it, or set from C)
        if threading.current_thread() is threading.main_thread():
            current = signal.getsignal(signal.SIGINT)
            if callable(current) or current == signal.SIG_DFL:
                before = signal.signal(signal.SIGINT, record)
        try:
            for t in workers:
                t.start()
            workers[0].join()
            bits_set_flag(&self.halt, 1)
            for t in workers:
                t.join()
        except BaseException:       # (another signal's handler that raises: stop, and pass it on)
            bits_set_flag(&self.cancel, 1)
            for t in workers:
                if t.ident is not None:
                    t.join()
            bits_set_flag(&self.cancel, 0)
            raise
        finally:
            if before is not None:
                signal.signal(signal.SIGINT, before)
        if caught:
            self.clear_stop()
            if callable(before):
                before(*caught[0])
            elif before == signal.SIG_DFL:
                raise KeyboardInterrupt

    def solve(self, int size, P, O, double seconds=0.0, int alpha=-64, int beta=64, holes=0):
        """Exact result for the side to move: ``(score, move, nodes, complete)``.

        ``holes``: the squares of a shaped board that are no part of it.
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
        cdef uint64_t p8, o8, h8 = 0, nodes = 0
        _check_position(size, P, O, holes)
        _check_seconds(seconds)
        if alpha >= beta:
            raise ValueError("alpha must be below beta")
        if size == 8:
            h8 = holes
        with self.lock:
            threads = self._begin(size, seconds, EVAL_PATTERNS if PAT_W != NULL else EVAL_FULL, h8)
            s = &self.work[0]
            if size == 8:
                p8, o8 = P, O
                if (moves8(p8, o8) & ~h8) == 0:
                    score = -_solve(s, o8, p8, -beta, -alpha, True, s.squares - bits_count(p8 | o8)) \
                        if moves8(o8, p8) & ~h8 else final_score(p8, o8, s.squares)
                    return score, -1, s.nodes, not s.aborted
                self._run(self._helper_solve, (p8, o8, alpha, beta), threads)
                nodes = sum(self.thread_nodes)
                for k in range(threads):
                    if not self.work[k].aborted:
                        return self.scores[k], self.moves_[k], nodes, True
                return self.scores[0], self.moves_[0], nodes, False
            _mb_load(&b, size, P, O, holes)
            _mb_weights(size)
            with nogil:
                score = _mb_search(s, &b, 1, n2, alpha, beta, False, True, &move)
            return score, _mb_square(&b, move), s.nodes, not s.aborted

    def search(self, int size, P, O, int max_depth=60, double seconds=1.0, evaluation="full", holes=0):
        """Iterative deepening under a time limit: ``(score, move, nodes, depth)``.

        Scores are evaluation units for the side to move (a won game: 10000
        plus the disc difference).  ``evaluation`` (8x8): "full"
        (hand-written), "simple" (square weights and mobility, what other
        sizes always use) or "patterns" (trained; 1/4 disc units; needs
        ``engine.patterns.install()``).  On 8x8 the search deepens until
        ``seconds`` are up, and a depth cut off by the clock still counts the
        moves it searched in full (the previous depth's best first): the best
        of them is the move, with its score; ``depth`` is the deepest depth
        completed.  On other sizes a new depth is not started after 40% of
        ``seconds``, and a depth cut off is dropped.
        ``seconds`` 0: no limit (until ``max_depth`` or ``stop()``).
        ``holes``: the squares of a shaped board that are no part of it.
        """
        cdef Mailbox b
        cdef Search* s
        cdef int score = 0, move = -1, d, v, m, done = 0, threads
        cdef uint64_t p8, o8, h8 = 0, nodes = 0
        cdef double start = bits_now()
        _check_position(size, P, O, holes)
        kinds = {"full": EVAL_FULL, "simple": EVAL_SIMPLE, "patterns": EVAL_PATTERNS}
        if evaluation not in kinds:
            raise ValueError(f"evaluation must be one of {', '.join(kinds)}: {evaluation!r}")
        if evaluation == "patterns" and PAT_W == NULL:
            raise RuntimeError("no pattern weights installed (engine.patterns.install())")
        if max_depth < 1:
            raise ValueError("max_depth must be >= 1")
        _check_seconds(seconds)
        if size == 8:
            h8 = holes
        with self.lock:
            threads = self._begin(size, seconds, kinds[evaluation], h8)
            s = &self.work[0]
            if size == 8:
                p8, o8 = P, O
                if (moves8(p8, o8) & ~h8) == 0:
                    return 0, -1, 0, 0
                self._run(self._helper_search, (p8, o8, max_depth), threads)
                nodes = sum(self.thread_nodes)
                if self.depths[0] == 0:
                    return 0, -1, nodes, 0
                return self.scores[0], self.moves_[0], nodes, self.depths[0]
            _mb_load(&b, size, P, O, holes)
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
