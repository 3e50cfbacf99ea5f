"""Opening books: a few named openings, and the learned book that ``best`` plays from.

Named lines are written from black's first move f5; a game that began d3, c4
or e6 is matched through the board's symmetries that keep the start position.

The learned book (``book.bin.gz`` beside this file, built by
``python -m engine book build``, see ``engine.fit.book``) holds 8x8 positions
in a canonical form under the 8 symmetries of the square board, each with the
value of every legal move: the final disc difference for the side to move,
in 1/4 disc, from a deep search with the pattern evaluation at the leaves and
the book's negamax above them.

>>> from engine import Position
>>> p = Position.start().play("f5")
>>> key = canonical(p.player, p.opponent)
>>> key == canonical(*transform(p.player, p.opponent, 5))
True
"""
import gzip
import struct
import zlib
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Optional, TypedDict, Union

from . import files, gzipped
from .backend import core
from .game import Game
from .notation import square_name
from .position import Position

Key = tuple[int, int]
"""A book key: the canonical ``(P, O)`` of a position."""
PathLike = Union[str, Path]

# name, moves (from f5). Names follow the common English / Japanese usage.
OPENINGS = [
    ("Perpendicular", "f5d6"),
    ("Diagonal", "f5f6"),
    ("Parallel", "f5f4"),
    ("Tiger (Tora)", "f5d6c3d3c4"),
    ("Buffalo (Tanaka)", "f5d6c3d3c4f4c5b3c2"),
    ("Cow (Ushi)", "f5d6c5f4e3"),
]


def symmetries(size: int = 8) -> list[tuple[int, ...]]:
    """The 4 maps of squares that keep the start position (identity, half turn, both diagonals)."""
    n = size
    maps: list[Callable[[int, int], tuple[int, int]]] = [
        lambda x, y: (x, y), lambda x, y: (n - 1 - x, n - 1 - y),
        lambda x, y: (y, x), lambda x, y: (n - 1 - y, n - 1 - x)]
    return [tuple(fy * n + fx for fx, fy in (m(sq % n, sq // n) for sq in range(n * n))) for m in maps]


@lru_cache(maxsize=None)
def _table() -> dict[Key, dict[int, Optional[str]]]:
    table: dict[Key, dict[int, Optional[str]]] = {}
    for sym in symmetries(8):
        for name, line in OPENINGS:
            g = Game.from_transcript(line)
            pos = Position.start()
            for i, m in enumerate(g.moves):
                mm = sym[m]
                key = (pos.player, pos.opponent)
                entry = table.setdefault(key, {})
                entry.setdefault(mm, name if i == len(g.moves) - 1 else None)
                if i == len(g.moves) - 1:
                    entry[mm] = name
                pos = pos.play(mm)
    return table


def book_moves(position: Position) -> dict[int, Optional[str]]:
    """Book moves from ``position`` (the plain 8x8 board): ``{square: opening name or None}``."""
    if position.size != 8 or position.holes:
        return {}
    return dict(_table().get((position.player, position.opponent), {}))


def opening_name(game: Game) -> Optional[str]:
    """The name of the longest book opening that ``game`` (a ``Game`` on the plain 8x8 board)
    followed, or None."""
    if game.size != 8 or game.start.holes:
        return None
    best: Optional[tuple[int, str]] = None
    for sym in symmetries(8):
        for name, line in OPENINGS:
            moves = [sym[m] for m in Game.from_transcript(line).moves]
            if game.moves[:len(moves)] == moves and (best is None or len(moves) > best[0]):
                best = (len(moves), name)
    return best[1] if best else None




# -- the 8 symmetries of the 8x8 board, on bit masks (square y * 8 + x) -----------------

def _mirror(b: int) -> int:
    """x -> 7 - x: each row reversed."""
    b = ((b >> 1) & 0x5555555555555555) | ((b & 0x5555555555555555) << 1)
    b = ((b >> 2) & 0x3333333333333333) | ((b & 0x3333333333333333) << 2)
    return ((b >> 4) & 0x0F0F0F0F0F0F0F0F) | ((b & 0x0F0F0F0F0F0F0F0F) << 4)


def _flip(b: int) -> int:
    """y -> 7 - y: the rows in reverse order."""
    return int.from_bytes(b.to_bytes(8, "little"), "big")


def _transpose(b: int) -> int:
    """(x, y) -> (y, x)."""
    t = 0x0F0F0F0F00000000 & (b ^ (b << 28))
    b ^= t ^ (t >> 28)
    t = 0x3333000033330000 & (b ^ (b << 14))
    b ^= t ^ (t >> 14)
    t = 0x5500550055005500 & (b ^ (b << 7))
    return b ^ t ^ (t >> 7)


def _apply(b: int, i: int) -> int:
    """Symmetry ``i`` (0..7; 0 is the identity) of a mask: transpose if bit 2, then flip the
    rows if bit 1, then mirror them if bit 0."""
    if i & 4:
        b = _transpose(b)
    if i & 2:
        b = _flip(b)
    if i & 1:
        b = _mirror(b)
    return b


def transform(P: int, O: int, i: int) -> Key:
    """Symmetry ``i`` (0..7) of the position (P, O) on 8x8."""
    return _apply(P, i), _apply(O, i)


# SQUARE_MAPS[i][sq]: where symmetry i sends square sq; INVERSE[i]: the symmetry that undoes i
SQUARE_MAPS = tuple(tuple(_apply(1 << sq, i).bit_length() - 1 for sq in range(64)) for i in range(8))
INVERSE = tuple(next(j for j in range(8) if all(SQUARE_MAPS[j][SQUARE_MAPS[i][sq]] == sq for sq in range(64)))
                for i in range(8))


def canonical_form(P: int, O: int) -> tuple[int, int, int]:
    """``(P', O', i)``: the least of the 8 images of (P, O), and the symmetry ``i`` that makes it."""
    best = (P, O, 0)
    for i in range(1, 8):
        p, o = _apply(P, i), _apply(O, i)
        if (p, o) < best[:2]:
            best = (p, o, i)
    return best


def canonical(P: int, O: int) -> Key:
    """The key of (P, O) in the learned book: the same for all 8 symmetric images."""
    p, o, _ = canonical_form(P, O)
    return p, o


# -- the learned book ----------------------------------------------------------------------

BOOK = Path(__file__).with_name("book.bin.gz")
MAGIC = b"OTHBOOK\n"
VERSION = 1
# after MAGIC: version, positions, moves, plies, leaf depth, width (1/4 disc), seed, CRC-32 of the body
_HEAD = struct.Struct("<HIIBBHII")
_POS = struct.Struct("<QQB")    # P, O (side to move first), number of moves
_MOVE = struct.Struct("<Bh")    # square, value in 1/4 disc for the side to move
UNIT = 4                        # values are stored in 1/UNIT disc
MAX_BYTES = 32 << 20            # a book file, and what its gzip data expands to, at most (32 MiB)
CENTRE = (1 << 27) | (1 << 28) | (1 << 35) | (1 << 36)


class BookError(ValueError):
    """A book file that cannot be used: not a book, another version, damaged or inconsistent."""


class LearnedBook:
    """Canonical positions ``(P, O)`` -> ``{square: value in 1/4 disc}`` (every legal move, squares
    of the canonical position), and how the book was built (``plies``, ``depth``, ``width`` in
    1/4 disc, ``seed``)."""

    def __init__(self, entries: Optional[dict[Key, dict[int, int]]] = None, plies: int = 0, depth: int = 0,
                 width: int = 0, seed: int = 0) -> None:
        self.entries: dict[Key, dict[int, int]] = {} if entries is None else entries
        self.plies, self.depth, self.width, self.seed = plies, depth, width, seed

    def __len__(self) -> int:
        return len(self.entries)

    def moves(self, position: Position) -> dict[int, float]:
        """``{square: value in discs}`` for ``position`` (in its own squares), or ``{}`` if it is not
        in the book under any symmetry (a board with holes never is)."""
        if position.size != 8 or position.holes:
            return {}
        P, O, i = canonical_form(position.player, position.opponent)
        stored = self.entries.get((P, O))
        if not stored:
            return {}
        back = SQUARE_MAPS[INVERSE[i]]
        return {back[sq]: v / UNIT for sq, v in stored.items()}

    def value(self, key: Key) -> int:
        """The book's negamax value of a stored position (1/4 disc)."""
        return max(self.entries[key].values())


def child_key(P: int, O: int, sq: int) -> Key:
    """The book key of the position after the side to move of (P, O) plays ``sq``."""
    f = core.flips(8, P, O, sq)
    return canonical(O ^ f, P | f | (1 << sq))


def dumps(book: LearnedBook) -> bytes:
    """The file's bytes (gzip) for a ``LearnedBook``; the same book always gives the same bytes."""
    body = bytearray()
    moves = 0
    for (P, O) in sorted(book.entries):
        stored = book.entries[(P, O)]
        body += _POS.pack(P, O, len(stored))
        for sq in sorted(stored):
            body += _MOVE.pack(sq, max(-32768, min(32767, stored[sq])))
        moves += len(stored)
    head = _HEAD.pack(VERSION, len(book.entries), moves, book.plies, book.depth, book.width,
                      book.seed & 0xFFFFFFFF, zlib.crc32(body))
    return gzip.compress(MAGIC + head + bytes(body), 9, mtime=0)


def save(book: LearnedBook, path: PathLike = BOOK) -> None:
    """Write ``book`` to ``path`` (through a temporary file, so a reader never sees half a book)."""
    files.write_whole(path, dumps(book))


def _records(raw: bytes, name: str) -> tuple[tuple[Any, ...], list[tuple[int, int, list[tuple[int, int]]]]]:
    """``(header fields, [(P, O, [(square, value)])])`` from a book file's bytes; BookError when
    they are not a whole book of this version."""
    if raw[:2] == gzipped.GZIP_MAGIC:
        try:
            raw = gzipped.decompress(raw, MAX_BYTES)
        except ValueError as e:
            raise BookError(f"{name}: refused: {e}") from None
    if not raw.startswith(MAGIC):
        raise BookError(f"{name}: not an opening book (it starts with {raw[:len(MAGIC)]!r}, "
                        f"a book with {MAGIC!r})")
    if len(raw) < len(MAGIC) + _HEAD.size:
        raise BookError(f"{name}: truncated inside the header")
    head = _HEAD.unpack_from(raw, len(MAGIC))
    version, npos, nmoves, crc = head[0], head[1], head[2], head[7]
    if version != VERSION:
        raise BookError(f"{name}: book format version {version}; this program reads version {VERSION}")
    body = raw[len(MAGIC) + _HEAD.size:]
    want = npos * _POS.size + nmoves * _MOVE.size
    if len(body) != want:
        raise BookError(f"{name}: {'truncated' if len(body) < want else 'trailing bytes'}: "
                        f"{len(body)} bytes of positions, the header says {want} "
                        f"({npos} positions, {nmoves} moves)")
    if zlib.crc32(body) != crc:
        raise BookError(f"{name}: damaged: the checksum of the positions does not match the header")
    out: list[tuple[int, int, list[tuple[int, int]]]] = []
    at = 0
    for i in range(npos):
        if at + _POS.size > len(body):
            raise BookError(f"{name}: the move counts of the positions do not add up to {nmoves}")
        P, O, n = _POS.unpack_from(body, at)
        at += _POS.size
        if at + n * _MOVE.size > len(body):
            raise BookError(f"{name}: the move counts of the positions do not add up to {nmoves}")
        out.append((P, O, [_MOVE.unpack_from(body, at + k * _MOVE.size) for k in range(n)]))
        at += n * _MOVE.size
    if at != len(body):
        raise BookError(f"{name}: the move counts of the positions do not add up to {nmoves}")
    return head, out


def loads(raw: bytes, name: str = "book") -> LearnedBook:
    """A ``LearnedBook`` from a file's bytes; BookError if they are not a whole book."""
    head, records = _records(raw, name)
    entries: dict[Key, dict[int, int]] = {}
    for i, (P, O, moves) in enumerate(records):
        if (P, O) in entries:
            raise BookError(f"{name}: position {i} is stored twice")
        entries[(P, O)] = dict(moves)
        if len(entries[(P, O)]) != len(moves):
            raise BookError(f"{name}: position {i} has a move stored twice")
    return LearnedBook(entries, plies=head[3], depth=head[4], width=head[5], seed=head[6])


def _read(path: PathLike) -> bytes:
    """The bytes of a book file; BookError when it cannot be read or is larger than MAX_BYTES."""
    try:
        return gzipped.read_file(path, MAX_BYTES)
    except OSError as e:
        raise BookError(f"{path}: cannot read: {e.strerror or e}") from None
    except ValueError as e:
        raise BookError(f"{path}: refused: {e}") from None


def load(path: PathLike = BOOK) -> LearnedBook:
    """The ``LearnedBook`` in ``path``; BookError (with the reason) when it cannot be used."""
    return loads(_read(path), str(path))


_loaded: dict[str, tuple[Optional[LearnedBook], Optional[str]]] = {}


def learned(path: PathLike = BOOK) -> Optional[LearnedBook]:
    """The learned book in ``path``, read once; None when it is missing or unusable
    (``learned_error(path)`` says why)."""
    key = str(path)
    if key not in _loaded:
        try:
            _loaded[key] = (load(path), None)
        except BookError as e:
            _loaded[key] = (None, str(e))
    return _loaded[key][0]


def learned_error(path: PathLike = BOOK) -> Optional[str]:
    """Why ``learned(path)`` is None (None when it loaded, or was not tried yet)."""
    return _loaded.get(str(path), (None, None))[1]


def _describe(i: int, P: int, O: int) -> str:
    """``position 12 (---...XO..., X to move)``: its number in the file and its squares (``#`` for two discs)."""
    cells = "".join("#" if (P & O) >> s & 1 else "X" if P >> s & 1 else "O" if O >> s & 1 else "-"
                    for s in range(64))
    return f"position {i} ({cells}, X to move)"


class Summary(TypedDict):
    """What ``check`` found in a good book file."""

    positions: int
    moves: int
    deepest: int            # the most plies from the start of a stored position
    bytes: int              # the file's size
    plies: int              # the build's options
    depth: int
    width: float            # discs
    seed: int
    root: Optional[float]   # the start position's value in discs (None: not in the book)


def check(path: PathLike = BOOK) -> Summary:
    """Verify a book file; a summary dict when it is good, else BookError naming the first problem.

    Checks the header and checksum, that every position is in canonical form, has no square
    twice, has the 4 centre squares taken and has moves, that every stored move is legal,
    and that the negamax is consistent: a move into another stored position has minus
    that position's best value.
    """
    path = Path(path)
    raw = _read(path)
    head, records = _records(raw, str(path))
    index: dict[Key, int] = {}
    deepest = 0
    for i, (P, O, moves) in enumerate(records):
        what = _describe(i, P, O)
        if P & O:
            raise BookError(f"{path}: {what}: a square holds two discs")
        if (P | O) & CENTRE != CENTRE:
            raise BookError(f"{path}: {what}: a centre square is empty")
        if canonical(P, O) != (P, O):
            raise BookError(f"{path}: {what}: not in canonical form")
        if (P, O) in index:
            raise BookError(f"{path}: {what}: stored twice (first as position {index[(P, O)]})")
        if not moves:
            raise BookError(f"{path}: {what}: no moves")
        legal = core.moves(8, P, O)
        seen: set[int] = set()
        for sq, v in moves:
            name = square_name(sq) if sq < 64 else f"square {sq}"
            if sq >= 64 or not legal >> sq & 1:
                raise BookError(f"{path}: {what}: move {name} is not legal")
            if sq in seen:
                raise BookError(f"{path}: {what}: move {name} is stored twice")
            if abs(v) > 64 * UNIT:
                raise BookError(f"{path}: {what}: move {name} has value {v / UNIT:+.2f}, beyond 64 discs")
            seen.add(sq)
        index[(P, O)] = i
        deepest = max(deepest, (P | O).bit_count() - 4)
    best = {(P, O): max(v for _, v in moves) for P, O, moves in records}
    total = 0
    for i, (P, O, moves) in enumerate(records):
        total += len(moves)
        for sq, v in moves:
            key = child_key(P, O, sq)
            if key in best and v != -best[key]:
                raise BookError(f"{path}: {_describe(i, P, O)}: move {square_name(sq)} has value "
                                f"{v / UNIT:+.2f}, but it leads to position {index[key]}, whose best "
                                f"value is {best[key] / UNIT:+.2f} (expected {-best[key] / UNIT:+.2f})")
    start = Position.start()
    root = best.get(canonical(start.player, start.opponent))
    return {"positions": len(records), "moves": total, "deepest": deepest, "bytes": len(raw),
            "plies": head[3], "depth": head[4], "width": head[5] / UNIT, "seed": head[6],
            "root": None if root is None else root / UNIT}


def show(book: LearnedBook, transcript: str = "") -> list[str]:
    """Lines describing the book moves after ``transcript`` (``'f5d6c3'``), best first."""
    game = Game.from_transcript(transcript)
    p = game.position
    where = f"after {game.transcript()}" if game.moves else "at the start"
    moves = book.moves(p)
    if not moves:
        return [f"{where}: not in the book"]
    lines = [f"{where}: {'black' if p.turn == 0 else 'white'} to move, "
             f"{len(moves)} book moves (values in discs for the side to move)"]
    for sq, v in sorted(moves.items(), key=lambda t: (-t[1], t[0])):
        nxt = p.play(sq)
        mark = "  book" if canonical(nxt.player, nxt.opponent) in book.entries else ""
        lines.append(f"  {square_name(sq)}  {v:+6.2f}{mark}")
    return lines


__all__ = ["OPENINGS", "book_moves", "opening_name", "symmetries", "BOOK", "BookError", "LearnedBook",
           "canonical", "canonical_form", "transform", "SQUARE_MAPS", "INVERSE", "load", "loads",
           "dumps", "save", "learned", "learned_error", "check", "Summary", "show", "child_key"]
