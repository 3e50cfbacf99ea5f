# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled rules core.

8x8 is the fast path: two 64-bit masks, move generation by shifts, flips by
precomputed rays.  Every other even size (4..26) uses a mailbox board in C
(``_mb_*``), an implementation independent of both the 8x8 bitboard and the
pure-Python core, so the three can be checked against one another.

The Python-facing functions take and return masks as Python ints, square
``i = y * size + x``, exactly like ``engine._pure``.  ``holes`` (a mask) are
the squares a shaped board lacks: on the 8x8 bitboard they are masked out of
every move and every count of empties (and the final score's); on the
mailbox board they are wall cells.  Either way a hole holds neither colour,
so a line of flips stops there with no code of its own.

One concern a file, included in this order (one C module, so the compiler
inlines across them as before): ``board8.pxi``, ``mailbox.pxi``,
``search.pxi`` (state, hash table, ordering), ``eval.pxi``, ``midgame.pxi``,
``endgame.pxi``, ``searcher.pxi`` (root, threads, ``Searcher``) and
``mailbox_search.pxi``; the Python face is below.
"""
from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint16_t, uint64_t, uintptr_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset

cdef extern from "_bits.h" nogil:
    int bits_ctz(uint64_t x)
    int bits_msb(uint64_t x)
    int bits_count(uint64_t x)

NAME = "compiled"

include "board8.pxi"
include "mailbox.pxi"
include "search.pxi"
include "eval.pxi"
include "midgame.pxi"
include "endgame.pxi"
include "searcher.pxi"
include "mailbox_search.pxi"


# ------------------------------------------------------------ Python face

cdef int _check(int size) except -1:
    if size < 4 or size > MAXN or size % 2:
        raise ValueError(f"board size must be even, 4..{MAXN}: {size}")
    return 0


cdef int _check_position(int size, P, O, holes=0) except -1:
    _check(size)
    if P < 0 or O < 0 or holes < 0 or (P | O | holes) >> (size * size):
        raise ValueError(f"discs or holes outside the {size}x{size} board")
    if P & O:
        raise ValueError("a square holds discs of both colours (the masks overlap)")
    if holes & (P | O):
        raise ValueError("a disc on a hole (the masks overlap)")
    return 0


def moves(int size, P, O, bint mailbox=False, holes=0):
    """Mask of the legal moves for the side to move (never a hole)."""
    cdef Mailbox b
    cdef int out[MAXN * MAXN]
    cdef int count, j
    _check(size)
    if size == 8 and not mailbox:
        return moves8(P, O) & ~(<uint64_t>holes)
    _mb_load(&b, size, P, O, holes)
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


def perft(int size, P, O, int depth, bint bulk=False, bint mailbox=False, holes=0):
    """Leaf positions ``depth`` plies from here (see ``engine._pure.perft``)."""
    cdef Mailbox b
    cdef uint64_t p8, o8, free8, nodes
    _check_position(size, P, O, holes)
    if depth < 0:
        raise ValueError("depth must be >= 0")
    if size == 8 and not mailbox:
        p8 = P
        o8 = O
        free8 = ~(<uint64_t>holes)
        with nogil:
            nodes = perft8(p8, o8, free8, depth, False, bulk)
        return nodes
    _mb_load(&b, size, P, O, holes)
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


def solve(int size, P, O, double seconds=0.0, int alpha=-64, int beta=64, int threads=1, holes=0):
    """Exact result for the side to move: ``(score, move, nodes, complete)``; see
    ``Searcher.solve`` (this one starts with an empty hash table)."""
    return Searcher(TT_BITS, threads).solve(size, P, O, seconds, alpha, beta, holes)


def search(int size, P, O, int max_depth=60, double seconds=1.0, evaluation="full", int hash_bits=20,
           int threads=1, holes=0):
    """Iterative deepening under a time limit: ``(score, move, nodes, depth)``; see
    ``Searcher.search`` (this one starts with an empty hash table of 2**hash_bits entries)."""
    return Searcher(hash_bits, threads).search(size, P, O, max_depth, seconds, evaluation, holes)


def evaluate(P, O, evaluation="full", holes=0):
    """An 8x8 midgame evaluation of (P, O) for the side to move (P); see ``search``."""
    cdef uint64_t h = holes
    if evaluation == "patterns":
        if PAT_W == NULL:
            raise RuntimeError("no pattern weights installed (engine.patterns.install())")
        return eval_patterns8(P, O, h)
    return eval_simple8(P, O, h) if evaluation == "simple" else eval8(P, O, h)
