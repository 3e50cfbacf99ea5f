"""ProbCut's table: how far a search at depth d/2 lands from one at depth d, fitted on self-play.

The compiled midgame search (with the trained patterns) skips a node at depth
d, 3 <= d <= 20, when a search at depth d/2 is more than ``t`` standard
deviations outside the window (Buro's ProbCut, with one test a node).  The
table here holds, for each depth and stage of the game (40 or more empty
squares, 25 to 39, fewer), the mean and the standard deviation of
(value at depth d) - (value at depth d/2), in evaluation units (1/4 disc).

The table is ``probcut.txt`` beside this file, fitted offline by
``python -m engine.fit.probcut fit`` (``engine/fit/probcut.py``); this module
only reads it and gives it to the compiled search.  A depth deeper than the
fitted ones takes the row of depth - 4: the error hardly grows with depth,
and its bias follows the parities of d and d/2, which d - 4 shares.
"""
import logging
from pathlib import Path
from typing import Optional

log = logging.getLogger(__name__)

TABLE = Path(__file__).with_name("probcut.txt")
T = 1.5                 # standard deviations that make a cut
STAGES = 3
MAX_DEPTH = 20
MIN_DEPTH = 3


def stage(empties: int) -> int:
    """The table's stage of a position with ``empties`` empty squares."""
    return 0 if empties >= 40 else (1 if empties >= 25 else 2)


def load(path: Path = TABLE) -> tuple[float, list[list[int]], list[list[int]]]:
    """``(t, biases, sigmas)`` from a table file; ValueError on anything malformed."""
    t: Optional[float] = None
    biases = [[0] * (MAX_DEPTH + 1) for _ in range(STAGES)]
    sigmas = [[0] * (MAX_DEPTH + 1) for _ in range(STAGES)]
    for number, line in enumerate(Path(path).read_text(encoding="ascii").splitlines(), 1):
        words = line.split("#")[0].split()
        if not words:
            continue
        try:
            if words[0] == "t" and len(words) == 2:
                t = float(words[1])
                if not 0 <= t <= 10:
                    raise ValueError
                continue
            if words[0] != "stage" or len(words) < 8 or words[2] != "depth" or words[4:8:2] != ["bias", "sigma"]:
                raise ValueError
            st, depth = int(words[1]), int(words[3])
            bias, sigma = float(words[5]), float(words[7])
            if not (0 <= st < STAGES and MIN_DEPTH <= depth <= MAX_DEPTH and abs(bias) < 4000
                    and 0 <= sigma < 4000):
                raise ValueError
        except ValueError:
            raise ValueError(f"{path}: line {number} is not a ProbCut entry: {line[:80]!r}") from None
        biases[st][depth] = round(bias)
        sigmas[st][depth] = max(1, round(sigma))
    if t is None:
        raise ValueError(f"{path}: no 't' line")
    for st in range(STAGES):
        deepest = max((d for d in range(MAX_DEPTH + 1) if sigmas[st][d]), default=MAX_DEPTH)
        for depth in range(deepest + 1, MAX_DEPTH + 1):
            if depth - 4 >= MIN_DEPTH:
                biases[st][depth], sigmas[st][depth] = biases[st][depth - 4], sigmas[st][depth - 4]
    return t, biases, sigmas


def problem(e: Exception, path: Path = TABLE) -> str:
    """What ``load``'s error says, in one line that names the file."""
    if isinstance(e, UnicodeDecodeError):
        return f"{path}: not a ProbCut table (it is not text)"
    if isinstance(e, OSError):
        return f"{path}: {e.strerror or e}"
    return str(e)


def install(path: Path = TABLE) -> bool:
    """Give the table to the compiled search; False (and no cuts) without a core or a usable file."""
    try:
        from . import _core
    except ImportError:
        return False
    try:
        t, biases, sigmas = load(path)
    except (OSError, ValueError) as e:
        _core.set_probcut([[0] * (MAX_DEPTH + 1)] * STAGES, [[0] * (MAX_DEPTH + 1)] * STAGES, 0)
        log.warning("%s; the search runs without ProbCut's cuts", problem(e, path))
        return False
    _core.set_probcut(sigmas, biases, t)
    return True
