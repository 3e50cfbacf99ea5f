"""The pattern evaluation (8x8): which squares make up each pattern, and its trained weights.

A pattern is a fixed list of squares; its *instances* are its images under the
eight symmetries of the board, and all instances of one pattern share one
table of weights.  A configuration of an instance is read as a base-3 number,
first square most significant, one digit per square: 0 empty, 1 a disc of the
side to move, 2 an opponent disc.  The evaluation of a position with ``e``
empty squares is the sum, over all instances, of the weight of their
configuration in the table of stage ``stage_of(e, stages)``, plus two mobility terms
(the number of legal moves of each side, capped at 32).  Weights are stored
in 1/``SCALE`` disc; the sum is returned in 1/``EVAL_UNIT`` disc, rounded
toward zero.  Its meaning is the expected final
disc difference for the side to move.

The weights are fitted by ``python -m engine.fit.weights`` (see docs/ai.md) and
shipped in ``weights.bin.gz`` beside this file.  A weights file says how many stages it
has (1 to ``MAX_STAGES``, each an equal share of the 60 plies); ``STAGES`` is the number
the fitting makes.  ``evaluate`` below is the readable reference that the compiled
evaluation is tested against.
"""
import array
import contextlib
import functools
import gzip
import os
import stat
import struct
import logging
import sys
from pathlib import Path
from typing import Callable, Iterator, Optional, Sequence, Union

from . import files, gzipped

log = logging.getLogger(__name__)
WEIGHTS = Path(__file__).with_name("weights.bin.gz")
MAGIC = b"OTHPAT1\n"
SCALE = 16          # weights are stored in 1/16 disc
EVAL_UNIT = 4       # the evaluation is returned in 1/4 disc
STAGES = 12         # stages of the fitted weights (a file may have another number)
MAX_STAGES = 60
MOBILITY = 33       # legal-move counts 0..32


BASE = {
    "corner3x3": [(x, y) for y in range(3) for x in range(3)],
    "corner2x5": [(x, 0) for x in range(5)] + [(x, 1) for x in range(5)],
    "edge2x": [(x, 0) for x in range(8)] + [(1, 1), (6, 1)],
    "line2": [(x, 1) for x in range(8)],
    "line3": [(x, 2) for x in range(8)],
    "line4": [(x, 3) for x in range(8)],
    "diag8": [(i, i) for i in range(8)],
    "diag7": [(i + 1, i) for i in range(7)],
    "diag6": [(i + 2, i) for i in range(6)],
    "diag5": [(i + 3, i) for i in range(5)],
    "diag4": [(i + 4, i) for i in range(4)],
    "triangle": [(0, 0), (1, 0), (2, 0), (3, 0), (0, 1), (1, 1), (2, 1), (0, 2), (1, 2), (0, 3)],
    "edgeblock": [(0, 0), (2, 0), (3, 0), (4, 0), (5, 0), (7, 0), (2, 1), (3, 1), (4, 1), (5, 1)],
    "diagband": [(0, 0), (1, 1), (2, 2), (3, 3), (1, 0), (2, 1), (3, 2), (0, 1), (1, 2), (2, 3)],
    "arms": [(0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (0, 1), (1, 1), (0, 2), (0, 3), (0, 4)],
}

SYMMETRIES: list[Callable[[int, int], tuple[int, int]]] = [
    lambda x, y: (x, y), lambda x, y: (7 - x, y), lambda x, y: (x, 7 - y), lambda x, y: (7 - x, 7 - y),
    lambda x, y: (y, x), lambda x, y: (7 - y, x), lambda x, y: (y, 7 - x), lambda x, y: (7 - y, 7 - x),
]


def _instances(points: list[tuple[int, int]]) -> list[list[int]]:
    seen: set[frozenset[int]] = set()
    out: list[list[int]] = []
    for f in SYMMETRIES:
        squares = [y * 8 + x for x, y in (f(*p) for p in points)]
        key = frozenset(squares)
        if key not in seen:
            seen.add(key)
            out.append(squares)
    return out


@functools.cache
def layout() -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...], int, int]:
    """``(instances, offsets, mobility_offset, stage_size)``: each instance's squares, the
    offset of its pattern's table inside one stage, where the two mobility tables start
    (side to move, then opponent), and the number of weights in one stage.  Made once."""
    instances: list[tuple[int, ...]] = []
    offsets: list[int] = []
    at = 0
    for points in BASE.values():
        for squares in _instances(points):
            instances.append(tuple(squares))
            offsets.append(at)
        at += 3 ** len(points)
    return tuple(instances), tuple(offsets), at, at + 2 * MOBILITY


def stage_of(empties: int, stages: int = STAGES) -> int:
    """The weight stage of a position with ``empties`` empty squares (0..60), out of ``stages``."""
    return min(stages - 1, max(0, empties - 1) * stages // 60)


def save(weights: Sequence[int], path: Union[str, Path] = WEIGHTS) -> None:
    """Write weights (a sequence of ints in 1/SCALE disc, a whole number of stages of
    ``layout()[3]`` each, 1 to MAX_STAGES stages): whole or not at all."""
    stage_size = layout()[3]
    stages = len(weights) // stage_size
    if len(weights) != stages * stage_size or not 1 <= stages <= MAX_STAGES:
        raise ValueError(f"expected 1 to {MAX_STAGES} stages of {stage_size} weights, got {len(weights)} weights")
    data = array.array("h", weights)
    if sys.byteorder == "big":
        data.byteswap()
    head = MAGIC + struct.pack("<II", stages, stage_size)
    files.write_whole(path, gzip.compress(head + data.tobytes(), mtime=0))


def load(path: Union[str, Path] = WEIGHTS) -> "array.array[int]":
    """The weights as an ``array('h')`` (native byte order), ``stages(weights)`` stages of them;
    ValueError if the file is not ours."""
    return read(path, (layout()[3],))[1]


def read(path: Union[str, Path], sizes: Sequence[int], raw: Optional[bytes] = None) -> "tuple[int, array.array[int]]":
    """``(stage size, weights)`` of a file whose stage size is one of ``sizes``: ``load`` for the
    weights of other layouts (the fitting starts from those of earlier ones).  ``raw``: the file
    already unpacked."""
    head = len(MAGIC) + 8
    most = head + 2 * MAX_STAGES * max(sizes)
    try:   # at most the largest file of these layouts, unpacked
        if raw is None:
            raw = gzipped.decompress(gzipped.read_file(path, most), most)
    except ValueError as e:
        raise ValueError(f"{path}: refused: {e}") from None
    if not raw.startswith(MAGIC) or len(raw) < head:
        raise ValueError(f"{path}: not a pattern-weights file")
    stages, size = struct.unpack_from("<II", raw, len(MAGIC))
    if size not in sizes:
        raise ValueError(f"{path}: weights for another pattern layout ({size:,} weights a stage, "
                         f"{sizes[-1]:,} here)")
    if not 1 <= stages <= MAX_STAGES:
        raise ValueError(f"{path}: {stages:,} stages (1 to {MAX_STAGES} are possible)")
    if len(raw) != head + 2 * stages * size:
        raise ValueError(f"{path}: truncated or too long ({len(raw) - head} bytes of weights, "
                         f"{2 * stages * size} expected)")
    data = array.array("h")
    data.frombytes(raw[head:])
    if sys.byteorder == "big":
        data.byteswap()
    return size, data


CACHE_ENV = "CARDSTAND_CACHE"     # the folder of unpacked weights ("" or "0": none kept)


def cache_dir() -> Optional[Path]:
    """Where this user keeps unpacked weights (``unpacked``): ``CARDSTAND_CACHE``, else the
    platform's cache folder (``$XDG_CACHE_HOME`` or ``~/.cache``, ``%LOCALAPPDATA%``), in a
    ``cardstand`` folder; None when none is kept."""
    env = os.environ.get(CACHE_ENV)
    if env is not None:
        return Path(env) if env.strip() not in ("", "0") else None
    if os.name == "nt":
        base = os.environ.get("LOCALAPPDATA")
        return Path(base) / "cardstand" / "cache" if base else None
    home = os.path.expanduser("~")
    base = os.environ.get("XDG_CACHE_HOME") or (os.path.join(home, ".cache") if home != "~" else "")
    return Path(base) / "cardstand" if base else None


def unpacked(path: Union[str, Path] = WEIGHTS) -> "tuple[memoryview | array.array[int], Callable[[], None]]":
    """The weights of ``path`` to install, and what to call once they are installed: read in place
    from this user's cache of unpacked weights when it holds this file's (a few milliseconds:
    nothing is inflated), else as ``load`` reads them (and kept there for the next process: a
    one-shot move pays the unpacking once per machine, not per move).  The cache is keyed by the
    SHA-256 of the file as it is; one that is not this user's own regular file, that others may
    write, or that is not whole is not used (and written again).  Installed weights are read in
    place: the kept file is only ever replaced whole (written beside it, then renamed), since a
    file rewritten in place under a running engine stops it (SIGBUS, on reading a page cut off)."""
    size = layout()[3]
    folder = cache_dir()
    if folder is None or sys.byteorder != "little":
        return load(path), lambda: None
    packed = gzipped.read_file(path, len(MAGIC) + 8 + 2 * MAX_STAGES * size)
    import hashlib
    name = f"weights-{hashlib.sha256(packed).hexdigest()[:32]}-{size}.bin"
    found = _mapped(folder / name, size)
    if found is not None:
        return found
    try:
        raw = gzipped.decompress(packed, len(MAGIC) + 8 + 2 * MAX_STAGES * size)
    except ValueError as e:
        raise ValueError(f"{path}: refused: {e}") from None
    weights = read(path, (size,), raw)[1]
    _keep(folder, name, raw)
    return weights, lambda: None


def _mapped(cached: Path, size: int) -> "Optional[tuple[memoryview, Callable[[], None]]]":
    """The weights in the unpacked file ``cached``, mapped (no copy), and its closing; None when
    it is missing or not to be trusted."""
    import mmap
    try:
        fd = os.open(cached, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
                     | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        own = not hasattr(os, "getuid") or st.st_uid == os.getuid()
        shared = os.name != "nt" and st.st_mode & 0o022     # (Windows: a user's LOCALAPPDATA is its own)
        head = len(MAGIC) + 8
        if not stat.S_ISREG(st.st_mode) or not own or shared or st.st_size <= head:
            return None
        mm = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)
    stages, got = struct.unpack_from("<II", mm, len(MAGIC))
    if mm[:len(MAGIC)] != MAGIC or got != size or not 1 <= stages <= MAX_STAGES \
            or len(mm) != head + 2 * stages * size:
        mm.close()
        return None
    view = memoryview(mm)[head:].cast("h")

    def close() -> None:
        view.release()
        mm.close()
    return view, close


def _keep(folder: Path, name: str, raw: bytes) -> None:
    """Write unpacked weights into the cache, whole or not at all (nothing said when it cannot be)."""
    import tempfile
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".weights-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(raw)
            os.replace(tmp, folder / name)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError as e:
        log.debug("unpacked weights not kept in %s: %s", folder, e)


def stages(weights: Sequence[int]) -> int:
    """The number of stages of loaded weights."""
    return len(weights) // layout()[3]


def configuration(P: int, O: int, squares: Sequence[int]) -> int:
    """The base-3 index of one instance (see the module docstring)."""
    idx = 0
    for sq in squares:
        idx = idx * 3 + ((P >> sq) & 1) + 2 * ((O >> sq) & 1)
    return idx


def evaluate(P: int, O: int, weights: Sequence[int], moves_p: int, moves_o: int) -> int:
    """Reference evaluation of (P, O) for the side to move, in 1/EVAL_UNIT disc.

    ``moves_p``/``moves_o``: the number of legal moves of each side.
    """
    instances, offsets, mob, stage_size = layout()
    empties = 64 - bin(P | O).count("1")
    base = stage_of(empties, stages(weights)) * stage_size
    total = sum(weights[base + off + configuration(P, O, sq)] for sq, off in zip(instances, offsets))
    total += weights[base + mob + min(moves_p, 32)] + weights[base + mob + MOBILITY + min(moves_o, 32)]
    q = abs(total) // (SCALE // EVAL_UNIT)
    return q if total >= 0 else -q


_digests: dict[tuple[str, int, int, int], str] = {}


def digest(path: Union[str, Path] = WEIGHTS) -> str:
    """SHA-256 of the weights in ``path`` (of the values, whatever the compression): the same on
    every machine for the same weights.  ValueError or OSError as ``load``.  Computed once per
    version of the file (its inode, size and modification time): jobs ask it for every batch."""
    import hashlib
    st = os.stat(path)
    key = (os.path.abspath(path), st.st_ino, st.st_size, st.st_mtime_ns)
    if key not in _digests:
        weights = load(path)
        if sys.byteorder == "big":
            weights.byteswap()
        _digests[key] = hashlib.sha256(weights.tobytes()).hexdigest()
    return _digests[key]


_installed: Optional[bool] = None
_held: list[Callable[[], None]] = []     # closes what the installed weights are read from
_installed_path: Union[str, Path] = WEIGHTS
_problem: Optional[str] = None


def install(path: Union[str, Path] = WEIGHTS) -> bool:
    """Load the weights into the compiled core (once per file); False when there is no
    compiled core or no usable file (``install_error`` says why; a file that is there but
    refused is also logged, once, as a warning: ``best`` then plays with the hand-written
    evaluation)."""
    global _installed, _installed_path, _problem
    if _installed_path != path:
        _installed, _installed_path = None, path
    if _installed is None:
        try:
            from . import _core
        except ImportError:
            _installed, _problem = False, "no compiled core"
            return False
        try:
            weights, done = unpacked(path)
        except (OSError, ValueError) as e:
            _release()  # not another file's weights in its place
            _installed, _problem = False, str(e) if isinstance(e, ValueError) else f"{path}: {e.strerror or e}"
            if os.path.lexists(path):     # (a link to nothing, too)
                log.warning("%s; the hand-written evaluation plays instead", _problem)
            return False
        instances, offsets, mob, stage_size = layout()
        n = stages(weights)
        _release()
        try:
            _core.set_patterns(instances, offsets, mob, stage_size, [stage_of(min(e, 60), n) for e in range(65)],
                               SCALE // EVAL_UNIT, weights)     # (read in place: held by the core)
        except BaseException:
            del weights
            done()
            raise
        del weights
        _held.append(done)
        from . import probcut
        probcut.install()  # the midgame search's cuts, fitted for these weights
        _installed, _problem = True, None
    return _installed


def install_error() -> Optional[str]:
    """Why the last ``install`` returned False (None after one that succeeded, or before any)."""
    return _problem


def uninstall() -> None:
    """Take the weights out of the compiled core, as in a process that never installed them:
    the search and the solver's move ordering use the hand-written evaluation again."""
    global _installed
    try:
        from . import _core
    except ImportError:
        return
    _release()
    _installed = None


def _release() -> None:
    """Close what held the weights the core no longer reads (a mapped file's view and map)."""
    from . import _core
    _core.clear_patterns()
    while _held:
        _held.pop()()


@contextlib.contextmanager
def installed_only(path: Optional[Union[str, Path]]) -> Iterator[bool]:
    """Within the block, the weights of ``path`` are installed (None: none are, as in a process
    that never installed any); yields whether they are.  What was installed before is installed
    again after, so a job run inside another program (a test, a notebook) leaves it as it was."""
    before = _installed_path if _installed else None
    try:
        if path is None:
            uninstall()
            ok = False
        else:
            ok = install(path)
        yield ok
    finally:
        if before is None:
            uninstall()
        else:
            install(before)
