"""Fit the pattern evaluation (``engine/weights.bin.gz``) from self-play.

    python -m engine.fit.weights                      # both rounds below, about an hour on 2 cores
    python -m engine.fit.weights generate --games 50000 --data games.npz
    python -m engine.fit.weights generate --games 30000 --seed 2 --evaluation patterns --data more.npz
    python -m engine.fit.weights fit --data games.npz --data more.npz --out fitted.bin.gz
    python -m engine.fit.weights smooth --weights fitted.bin.gz --out engine/weights.bin.gz
    python -m engine.fit.weights fit --data new.npz --stages 30 --prior engine/weights.bin.gz --out w30.bin.gz
    python -m engine.fit.weights check --data new.npz --weights engine/weights.bin.gz --weights w30.bin.gz --solve 300
    python -m engine.fit.weights label --data games.npz --every 3 --depth 8 --labels deeper.npz --rest rest.npz

Generation: each game starts with a few random moves (2..24 plies), then the
compiled PVS plays both sides at a fixed depth (deterministic) until at most
``--exact`` squares are empty; from there the solver plays perfectly.  Every
position from the first engine move on is labelled with the exact final disc
difference of that game for its side to move (empties to the winner): the
result of good play from a varied position, exact in the endgame.

Label: one position in ``--every`` of data files relabelled by a search of its own: exact (the
solver) with at most ``--exact`` empty squares (default 18), else the compiled search with the
installed patterns to ``--depth`` plies (default 8), one thread, its own hash table, so the label
is the same wherever it is computed (local processes or ``--cluster``, ``--journal`` to resume).
Each label is the mean of that value and the game's result (``--mix``: the result's share); the
results are kept in the column ``result``, and ``fit`` reads ``label``.  ``--rest`` writes the
positions left out, as they were.

Fit: ridge least squares of those labels on the pattern configurations and
mobility counts of ``engine.patterns`` (one set of weights per stage), by
conjugate gradients on the normal equations; 5% of the games are held out and
their error printed.  ``--stages`` sets the number of stages (the file records
it); ``--prior FILE`` starts from earlier weights (resampled to those stages; of
this layout, or of the one before patterns were added at the end of ``BASE``)
and pulls toward them rather than toward zero, so new data refines a fit
without the data it was made from.

Smooth: the fitted weights made symmetric (``symmetric``: configurations that
a symmetry of the board maps onto each other get their average) and blended
into ``--stages`` stages (default 30; ``interpolated``: each the linear blend
of the two fitted stages nearest to it), so the evaluation moves by small
steps as the board fills.

Check: the mean absolute and rms error of weights files on the held-out games
of a data file, by empty squares, and with ``--solve N`` on N of their
positions of 16-20 empties labelled by the exact solver.

``all`` (the default) plays round 1 with the hand-written evaluation, fits,
plays round 2 with those weights (``--games2`` games, seed + 1), fits both
rounds together and smooths that fit into 30 stages.  Seeded, fixed-depth searches: the same
options give the same file.  The shipped file was refined from such a start by the steps of
docs/ai.md (more rounds, labels from searches, patterns added).  Needs numpy (``pip install -e '.[train]'``) and the
compiled core.
"""
import argparse
import contextlib
import os
import random
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Optional, Sequence, Union

from .. import files, patterns
from ..cliargs import file_name, number, output_file, whole
from . import jobs
from ..position import Position

if TYPE_CHECKING:
    from numpy.typing import NDArray

Data = dict[str, "NDArray[Any]"]
"""Self-play positions as columns: game, P, O, mp, mo (legal-move counts), label."""
Sample = tuple[int, int, int, int, int]
"""One position of a game: P, O, legal moves of P and of O, the label for P."""
SMOOTH_STAGES = 30   # stages of the shipped file: the fitted ones blended (``interpolated``)



def play_game(seed: int, depth: int = 6, exact: int = 14, evaluation: str = "full") -> list[Sample]:
    """One self-play game: a list of (P, O, moves of P, moves of O, label for P)."""
    from .. import _core
    rng = random.Random(seed)
    start = Position.start()
    P, O = start.player, start.opponent
    colour, ply, random_plies = 1, 0, rng.randint(2, 24)
    seen = []  # (P, O, mp, mo, colour)
    final = None
    while True:
        m = _core.moves(8, P, O)
        if not m:
            if not _core.moves(8, O, P):
                p, o = bin(P).count("1"), bin(O).count("1")
                diff = p - o + (64 - p - o) * ((p > o) - (p < o))
                final = diff * colour
                break
            P, O, colour = O, P, -colour
            continue
        empties = 64 - bin(P | O).count("1")
        if ply < random_plies:
            sq = rng.choice(Position(8, P, O).legal_moves())
        else:
            mo = bin(_core.moves(8, O, P)).count("1")
            if empties <= exact:
                score, sq, _, _ = _core.solve(8, P, O)
                if final is None:
                    final = score * colour
            else:
                sq = _core.search(8, P, O, depth, 1e9, evaluation, 16)[1]
            seen.append((P, O, bin(m).count("1"), mo, colour))
        f = _core.flips(8, P, O, sq)
        P, O, colour, ply = O ^ f, P | f | (1 << sq), -colour, ply + 1
    return [(p, o, mp, mo, final * c) for p, o, mp, mo, c in seen]


@contextlib.contextmanager
def _job_weights(weights: Optional[jobs.Carried], sha: str) -> Iterator[None]:
    """A job's block with exactly ``weights`` installed (None: none), carried in the job's argument
    to wherever it runs (a worker shares no folder with the machine that started the run), and
    which must be the ones of digest ``sha`` the run started with."""
    if weights is None:
        with patterns.installed_only(None):
            yield
        return
    with weights.file() as path, patterns.installed_only(path) as ok:
        if not ok:
            raise RuntimeError(f"cannot load the pattern weights {weights.name} carried to this worker: "
                               f"{patterns.install_error()}")
        if patterns.digest(path) != sha:
            raise RuntimeError(f"the pattern weights {weights.name} reached this worker changed")
        yield


def _batch(args: tuple[list[int], int, int, str, Optional[jobs.Carried], str]) -> list[tuple[int, ...]]:
    seeds, depth, exact, evaluation, weights, sha = args
    # the solver orders its moves with installed weights: exactly these (or none), wherever this runs
    with _job_weights(weights if evaluation == "patterns" else None, sha):
        rows: list[tuple[int, ...]] = []
        for s in seeds:
            rows.extend((s,) + r for r in play_game(s, depth, exact, evaluation))
        return rows


def generate(games: int, seed: int = 1, depth: int = 6, exact: int = 14, workers: int = 2, evaluation: str = "full",
             out: Optional[Union[str, Path]] = None, weights: Union[str, Path] = patterns.WEIGHTS,
             cluster: Optional[str] = None, journal: Optional[Union[str, Path]] = None, batch: int = 100) -> Data:
    """Play ``games`` self-play games in batches of ``batch`` (``engine.fit.jobs``: on ``workers`` local
    processes, or on the Dask ``cluster``; kept in ``journal`` to resume); their positions (saved
    to ``out``).  The same for a seed wherever they are played."""
    import numpy as np
    seeds = [seed * 1_000_003 + g for g in range(games)]
    # (the weights' digest is part of each job: a journal of other weights is refused, and so is a
    # worker that finds other weights under the same name)
    sha = patterns.digest(weights) if evaluation == "patterns" else ""
    carried = jobs.Carried(weights, sha) if evaluation == "patterns" else None
    chunks = [(seeds[i:i + batch], depth, exact, evaluation, carried, sha) for i in range(0, games, batch)]
    rows: list[list[int]] = [r for part in jobs.run(_batch, chunks, cluster=cluster, workers=workers,
                                                    journal=journal, label="self-play") for r in part]
    data: Data = {
        "game": np.array([r[0] for r in rows], dtype=np.int64),
        "P": np.array([r[1] for r in rows], dtype=np.uint64),
        "O": np.array([r[2] for r in rows], dtype=np.uint64),
        "mp": np.array([r[3] for r in rows], dtype=np.int16),
        "mo": np.array([r[4] for r in rows], dtype=np.int16),
        "label": np.array([r[5] for r in rows], dtype=np.float32),
    }
    if out:
        save_data(data, out)
    return data


WON = 10000   # the search's score of a game it saw end: WON plus the disc difference


def search_value(P: int, O: int, depth: int, exact: int) -> float:
    """The value in discs of (P, O) for P: exact (the solver) with at most ``exact`` empty squares,
    else the compiled search's to ``depth`` plies with the installed patterns, within 64 discs (one
    thread, its own hash table: the same value wherever it is computed)."""
    from .. import _core
    if 64 - bin(P | O).count("1") <= exact:
        return float(_core.solve(8, P, O)[0])
    score = _core.search(8, P, O, depth, 0.0, "patterns", 16)[0]
    if abs(score) >= WON:
        return float(score - WON if score > 0 else score + WON)
    return max(-64.0, min(64.0, score / patterns.EVAL_UNIT))    # (an evaluation may say more)


def _label_batch(args: tuple[list[int], list[int], int, int, jobs.Carried, str]) -> list[float]:
    Ps, Os, depth, exact, weights, sha = args
    with _job_weights(weights, sha):
        return [search_value(p, o, depth, exact) for p, o in zip(Ps, Os)]


def label(data: Data, depth: int = 8, exact: int = 18, every: int = 1, workers: int = 2,
          weights: Union[str, Path] = patterns.WEIGHTS, cluster: Optional[str] = None,
          journal: Optional[Union[str, Path]] = None, batch: int = 2000, mix: float = 0.5) -> Data:
    """One position in ``every`` of ``data``, each labelled with ``search_value`` (by ``weights``)
    mixed with its game's result: ``(1 - mix) * search + mix * result`` (0: the search alone).  The
    result is kept as ``result``.  Jobs of ``batch`` positions, run as ``generate``'s are; the same
    labels whatever runs them."""
    import numpy as np
    if depth < 1 or every < 1 or not 0 <= exact <= 60 or not 0 <= mix <= 1:
        raise ValueError("label needs --depth 1 or more, --every 1 or more, --exact 0..60 and --mix 0..1")
    keep = np.arange(0, len(data["label"]), every)
    part = {k: v[keep] for k, v in data.items() if k != "result"}
    Ps, Os = [int(x) for x in part["P"]], [int(x) for x in part["O"]]
    sha = patterns.digest(weights)
    carried = jobs.Carried(weights, sha)
    chunks = [(Ps[i:i + batch], Os[i:i + batch], depth, exact, carried, sha) for i in range(0, len(Ps), batch)]
    values = [v for chunk in jobs.run(_label_batch, chunks, cluster=cluster, workers=workers, journal=journal,
                                      label="labels") for v in chunk]
    part["result"] = data["result"][keep] if "result" in data else part["label"]   # (relabelled: the games' still)
    searched = np.array(values, dtype=np.float64)
    part["label"] = ((1 - mix) * searched + mix * part["result"].astype(np.float64)).astype(np.float32)
    return part


def features(data: Data, stages: int = patterns.STAGES) -> "NDArray[Any]":
    """Global weight indices for weights of ``stages`` stages, one row per position, one column
    per instance plus two mobility terms."""
    import numpy as np
    instances, offsets, mob, stage_size = patterns.layout()
    P, O = data["P"], data["O"]
    filled = np.zeros(len(P), dtype=np.int64)
    for sq in range(64):
        filled += (((P | O) >> np.uint64(sq)) & np.uint64(1)).astype(np.int64)
    stage_table = np.array([patterns.stage_of(e, stages) for e in range(61)], dtype=np.int64)
    base = stage_table[64 - filled] * stage_size
    cells = [(((P >> np.uint64(sq)) & np.uint64(1)) + 2 * ((O >> np.uint64(sq)) & np.uint64(1))).astype(np.int64)
             for sq in range(64)]
    cols = []
    for squares, off in zip(instances, offsets):
        idx = np.zeros(len(P), dtype=np.int64)
        for sq in squares:
            idx = idx * 3 + cells[sq]
        cols.append(base + off + idx)
    cols.append(base + mob + np.minimum(data["mp"], 32))
    cols.append(base + mob + patterns.MOBILITY + np.minimum(data["mo"], 32))
    return np.stack(cols, axis=1).astype(np.int32)


def held_out(data: Data, holdout: float = 0.05) -> "NDArray[Any]":
    """Which positions belong to the games held out of the fit (one game in 1/``holdout``)."""
    return (data["game"] % int(1 / holdout)) == 0


def fit(data: Data, ridge: float = 2.0, iterations: int = 150, holdout: float = 0.05,
        stages: int = patterns.STAGES, prior: "Optional[NDArray[Any]]" = None) -> "NDArray[Any]":
    """Ridge least squares by CGLS; returns the weights (floats, discs) and prints the errors.

    ``prior`` (weights in discs, ``stages`` stages, e.g. ``resample`` of an earlier fit): the
    fit starts there and the ridge pulls toward it instead of toward zero, so configurations the
    data rarely shows keep their earlier values."""
    import numpy as np
    X = features(data, stages)
    y = data["label"].astype(np.float64)
    size = stages * patterns.layout()[3]
    w0 = np.zeros(size) if prior is None else np.asarray(prior, dtype=np.float64)
    if w0.shape != (size,):
        raise ValueError(f"the prior has {w0.shape[0]} weights, {size} expected")
    test = held_out(data, holdout)
    if test.all():
        raise ValueError("no positions to fit (none but those of the held-out games)")
    Xt, yt, Xv, yv = X[~test], y[~test], X[test], y[test]
    flat = Xt.ravel()

    def A(w: "NDArray[Any]") -> "NDArray[Any]":
        return w[Xt].sum(axis=1)

    def AT(r: "NDArray[Any]") -> "NDArray[Any]":
        return np.bincount(flat, weights=np.repeat(r, Xt.shape[1]), minlength=size)

    d = np.zeros(size)          # the change from the prior
    r = yt - A(w0)
    s = AT(r)
    p = s.copy()
    gamma = s @ s
    for it in range(1, iterations + 1):
        q = A(p)
        denominator = q @ q + ridge * (p @ p)
        if gamma == 0 or denominator == 0:     # nothing left to fit (all labels met)
            break
        alpha = gamma / denominator
        d += alpha * p
        r -= alpha * q
        s = AT(r) - ridge * d
        g2 = s @ s
        p = s + (g2 / gamma) * p
        gamma = g2
        if it % 25 == 0 or it == iterations:
            train = np.sqrt(np.mean(r * r))
            miss = yv - (w0 + d)[Xv].sum(axis=1)
            held = (f"{np.sqrt(np.mean(miss ** 2)):.2f} (held out; mean absolute {np.mean(np.abs(miss)):.2f})"
                    if len(yv) else "no held-out games")
            print(f"  iteration {it}: rms error {train:.2f} discs (training), {held}", file=sys.stderr)
    return w0 + d


def grown(path: Union[str, Path]) -> "NDArray[Any]":
    """The weights of a file (1/SCALE disc, as ``patterns.load`` gives them) of this layout or of an
    earlier one: that of the first patterns of ``patterns.BASE`` only (patterns are added at its
    end), whose weights keep their meaning here; the added patterns' tables are zero."""
    import numpy as np
    tables = [3 ** len(points) for points in patterns.BASE.values()]
    size, raw = patterns.read(path, [sum(tables[:k]) + 2 * patterns.MOBILITY for k in range(1, len(tables) + 1)])
    old = np.asarray(raw, dtype=np.float64).reshape(-1, size)
    old_mob = size - 2 * patterns.MOBILITY          # where its mobility tables start
    _, _, mob, new_size = patterns.layout()
    new = np.zeros((old.shape[0], new_size))
    new[:, :old_mob] = old[:, :old_mob]
    new[:, mob:] = old[:, old_mob:]
    return new.ravel()


def resample(weights: "Sequence[int] | NDArray[Any]", stages: int) -> "NDArray[Any]":
    """Weights of any number of stages (as ``patterns.load`` gives them, 1/SCALE disc) as
    ``stages`` stages, in discs: each new stage takes the old stage of its middle ply."""
    import numpy as np
    size = patterns.layout()[3]
    old = np.asarray(weights, dtype=np.float64).reshape(-1, size) / patterns.SCALE
    out = np.empty((stages, size))
    for t in range(stages):
        empties = [e for e in range(61) if patterns.stage_of(e, stages) == t]
        out[t] = old[patterns.stage_of(empties[len(empties) // 2], old.shape[0])]
    return out.ravel()


def symmetric(weights: "Sequence[int] | NDArray[Any]") -> "NDArray[Any]":
    """Weights (any stages, any unit) with each pattern's configurations that a symmetry of the
    board maps onto each other averaged: an edge read left to right or right to left is the same
    edge, so its two weights estimate one value (the fit sees them apart)."""
    import numpy as np
    size = patterns.layout()[3]
    w = np.asarray(weights, dtype=np.float64).reshape(-1, size).copy()
    at = 0
    for points in patterns.BASE.values():
        n = len(points)
        squares = [y * 8 + x for x, y in points]
        digits = (np.arange(3 ** n)[:, None] // 3 ** np.arange(n - 1, -1, -1)[None, :]) % 3
        images = []
        for f in patterns.SYMMETRIES:
            moved = [y * 8 + x for x, y in (f(*q) for q in points)]
            if sorted(moved) == sorted(squares):    # the symmetry maps the pattern onto itself
                where = [squares.index(sq) for sq in moved]   # digit j of a configuration lands at where[j]
                image = np.zeros(3 ** n, dtype=np.int64)
                for j in range(n):
                    image += digits[:, j] * 3 ** (n - 1 - where[j])
                images.append(image)
        block = w[:, at:at + 3 ** n]
        w[:, at:at + 3 ** n] = sum(block[:, image] for image in images) / len(images)
        at += 3 ** n
    return w.ravel()


def interpolated(weights: "Sequence[int] | NDArray[Any]", stages: int) -> "NDArray[Any]":
    """Weights of any number of stages as ``stages`` stages: each new stage is the linear blend
    of the two old stages whose middles are nearest to its own (by empty squares), so the
    evaluation changes by small steps as the board fills instead of jumping at the old stages'
    edges.  Same unit as given."""
    import numpy as np
    size = patterns.layout()[3]
    old = np.asarray(weights, dtype=np.float64).reshape(-1, size)
    n = old.shape[0]

    def middle(t: int, count: int) -> float:
        empties = [e for e in range(1, 61) if patterns.stage_of(e, count) == t]
        return (empties[0] + empties[-1]) / 2

    centres = np.array([middle(t, n) for t in range(n)])
    out = np.empty((stages, size))
    for t in range(stages):
        e = middle(t, stages)
        k = int(np.clip(np.searchsorted(centres, e) - 1, 0, max(n - 2, 0)))
        share = 0.0 if n == 1 else float(np.clip((e - centres[k]) / (centres[k + 1] - centres[k]), 0, 1))
        out[t] = old[k] * (1 - share) + (old[k + 1] if n > 1 else old[k]) * share
    return out.ravel()


def solved(data: Data, count: int, empties: tuple[int, int] = (16, 20), holdout: float = 0.05) -> Data:
    """Up to ``count`` positions of the held-out games with ``empties`` empty squares (a range),
    labelled with their exact value (the solver's) instead of their game's result; the same
    positions for the same data.  A test of the weights against perfect play."""
    import numpy as np
    from .. import _core
    test = held_out(data, holdout)
    e = 64 - np.array([bin(int(a) | int(b)).count("1") for a, b in zip(data["P"], data["O"])])
    pick = np.flatnonzero(test & (e >= empties[0]) & (e <= empties[1]) & (data["mp"] > 0))
    pick = pick[np.linspace(0, len(pick) - 1, min(count, len(pick))).astype(np.int64)] if len(pick) else pick
    out = {k: v[pick] for k, v in data.items()}
    out["label"] = np.array([_core.solve(8, int(P), int(O))[0] for P, O in zip(out["P"], out["O"])],
                            dtype=np.float32)
    return out


def errors(weights: "Sequence[int]", data: Data, holdout: float = 0.05) -> list[tuple[str, int, float, float]]:
    """How far weights (as ``patterns.load`` gives them) are from the labels of the held-out
    games of ``data``: ``(empties, positions, mean absolute error, rms error)`` in discs for
    ranges of empty squares, then for all."""
    import numpy as np
    w = np.asarray(weights, dtype=np.float64) / patterns.SCALE
    test = held_out(data, holdout)
    part = {k: v[test] for k, v in data.items()}
    miss = part["label"].astype(np.float64) - w[features(part, patterns.stages(weights))].sum(axis=1)
    empties = 64 - np.array([bin(int(a) | int(b)).count("1") for a, b in zip(part["P"], part["O"])])
    out = []
    for lo, hi in ((1, 14), (15, 24), (25, 34), (35, 44), (45, 60), (1, 60)):
        sel = (empties >= lo) & (empties <= hi)
        if sel.any():
            out.append((f"{lo}-{hi}", int(sel.sum()), float(np.mean(np.abs(miss[sel]))),
                        float(np.sqrt(np.mean(miss[sel] ** 2)))))
    return out


def to_ints(w: "NDArray[Any]") -> list[int]:
    """Weights in discs as the file's whole numbers (1/SCALE disc, clipped to int16)."""
    import numpy as np
    return np.clip(np.rint(w * patterns.SCALE), -32767, 32767).astype(np.int16).tolist()


COLUMNS = {"game": "int64", "P": "uint64", "O": "uint64", "mp": "int16", "mo": "int16", "label": "float32"}
OPTIONAL = {"result": "float32"}     # a labelled file's games' results
MAX_ROWS = 100_000_000              # positions in one data file (3.2 GB): no more is read


def _popcount(a: "NDArray[Any]") -> "NDArray[Any]":
    import numpy as np
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(a).astype(np.int64)
    table = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)
    return table[np.ascontiguousarray(a).view(np.uint8).reshape(-1, 8)].sum(axis=1)


def load_data(path: Union[str, Path]) -> Data:
    """The positions of a data file (``generate``'s or ``label``'s); ValueError when it is not one:
    each column's header is read and checked (stored once, its type, one dimension, one length for
    all, the size the archive declares) before its data, then the boards (no square of both colours, 4 to 64
    discs) and the labels (finite, within 64 discs)."""
    import lzma
    import stat
    import zipfile
    import zlib
    import numpy as np
    fmt = np.lib.format

    def refuse(why: str) -> ValueError:
        return ValueError(f"{path} is not a data file of this program ({why})")

    if not stat.S_ISREG(os.stat(path).st_mode):
        raise ValueError(f"{path} is not a regular file")
    data: Data = {}
    try:
        with zipfile.ZipFile(path) as z:
            listed = [n for n in z.namelist() if n.endswith(".npy")]
            if len(set(listed)) != len(listed):     # (zipfile would read the last copy, np.load too)
                raise refuse("a column stored twice")
            names = {n[:-len(".npy")]: n for n in listed}
            rows = None
            for key, dtype in {**COLUMNS, **OPTIONAL}.items():
                if key not in names:
                    if key in OPTIONAL:
                        continue
                    raise refuse(f"no column {key!r}")
                info = z.getinfo(names[key])
                with z.open(info) as f:
                    version = fmt.read_magic(f)
                    shape, fortran, kind = (fmt.read_array_header_1_0(f) if version == (1, 0)
                                            else fmt.read_array_header_2_0(f))
                    if kind != np.dtype(dtype) or len(shape) != 1 or (rows is not None and shape[0] != rows):
                        raise refuse(f"columns {', '.join(COLUMNS)} of one length expected; {key!r} is "
                                     f"{kind} of shape {shape}")
                    rows = shape[0]
                    size = rows * kind.itemsize
                    if rows > MAX_ROWS or info.file_size > size + 65536 or info.file_size < size:
                        raise refuse(f"column {key!r} says {rows} positions in {info.file_size} bytes")
                    raw = f.read(size)
                    if len(raw) != size:
                        raise refuse(f"column {key!r} is cut short")
                    data[key] = np.frombuffer(raw, dtype=kind).copy()
    except (zipfile.BadZipFile, zlib.error, lzma.LZMAError, OSError, EOFError, KeyError, ValueError,
            NotImplementedError, RuntimeError) as e:   # (damaged bz2: OSError; encrypted: RuntimeError)
        if isinstance(e, ValueError) and str(e).startswith(str(path)):
            raise
        raise refuse(str(e) or type(e).__name__) from None
    P, O = data["P"], data["O"]
    discs = _popcount(P | O)
    if ((P & O) != 0).any() or (discs < 4).any():
        raise refuse("a board with a square of both colours, or with fewer than 4 discs")
    for key in ("label", "result"):
        if key in data and not (np.isfinite(data[key]) & (np.abs(data[key]) <= 64)).all():
            raise refuse(f"a {key} that is not a number of discs from -64 to 64")
    if ((data["mp"] < 0) | (data["mo"] < 0) | (data["mp"] > 64) | (data["mo"] > 64)).any():
        raise refuse("a count of legal moves below 0 or above 64")
    return data


def save_data(data: Data, path: Union[str, Path]) -> None:
    """Write positions to ``path`` (that name exactly, .npz or not): whole or not at all."""
    import numpy as np
    files.write_whole(path, lambda f: np.savez_compressed(f, **data))  # type: ignore[arg-type]  # the stub fears a key "allow_pickle"


def _joined(parts: list[Data]) -> Data:
    import numpy as np
    common = [k for k in parts[0] if all(k in d for d in parts)]   # a labelled file also keeps "result"
    return {k: np.concatenate([d[k] for d in parts]) for k in common}


def _output(text: str) -> Path:
    return Path(output_file(text))


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m engine.fit.weights", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("step", nargs="?", choices=["all", "generate", "label", "fit", "smooth", "check"], default="all",
                    help="all (default): both rounds, the fits and the smoothing; or one step (label: "
                         "the positions of the --data relabelled by searches, written to --labels; smooth: "
                         "--weights FILE made symmetric and blended into --stages stages; check: the "
                         "errors of each --weights FILE on the held-out games of the --data)")
    ap.add_argument("--games", type=whole(1, 10 ** 9), default=50000, help="self-play games (default 50000)")
    ap.add_argument("--games2", type=whole(1, 10 ** 9), default=30000,
                    help="all: games of the second round, played with the first fit (default 30000)")
    ap.add_argument("--depth", type=whole(1, 60), default=None,
                    help="search depth of the self-play (default 6) or of the labels (default 8)")
    ap.add_argument("--exact", type=whole(0, 60), default=None,
                    help="solve exactly from this many empties: the self-play (default 14), the labels "
                         "(default 18)")
    ap.add_argument("--every", type=whole(1, 1_000_000), default=1, metavar="N",
                    help="label: one position in N of the --data (default 1: all)")
    ap.add_argument("--mix", type=number(0, 1), default=0.5, metavar="F",
                    help="label: the share of the game's result in each label, the rest the search's "
                         "value (default 0.5; 0: the search alone)")
    ap.add_argument("--rest", type=_output, default=None, metavar="FILE.npz",
                    help="label: also write the positions not relabelled (with --every), as they were")
    ap.add_argument("--labels", type=_output, default=None, metavar="FILE.npz",
                    help="label: the labelled positions written (their games' results kept as \"result\")")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=whole(1, 256), default=2, help="local processes (default 2)")
    ap.add_argument("--cluster", default=None, metavar="ADDRESS",
                    help="play on a Dask cluster: tcp://HOST:8786, or local:N (docs/training.md)")
    ap.add_argument("--journal", type=file_name, default=None, metavar="DIR",
                    help="keep each batch's games here as they finish; the same command again resumes")
    ap.add_argument("--evaluation", choices=["full", "patterns"], default="full",
                    help="generate: evaluation of the self-play search (patterns: --weights)")
    ap.add_argument("--weights", type=file_name, action="append", default=[],
                    help="generate, label: the weights a patterns self-play or the labels' search uses "
                         "(default the shipped ones); "
                         "check: the weights to measure (may be repeated)")
    ap.add_argument("--stages", type=whole(1, patterns.MAX_STAGES), default=None,
                    help=f"fit: stages of the game, each its own weights (default {patterns.STAGES}); "
                         f"smooth: stages written (default {SMOOTH_STAGES})")
    ap.add_argument("--prior", type=file_name, default=None, metavar="FILE",
                    help="fit: start from these weights (any number of stages) and pull toward "
                         "them instead of toward zero")
    ap.add_argument("--solve", type=whole(0, 100000), default=0, metavar="N",
                    help="check: also on N held-out positions of 16-20 empty squares labelled by the "
                         "exact solver (default 0: only the games' results)")
    ap.add_argument("--ridge", type=number(0, 1e9), default=2.0, help="L2 penalty, 0 or more (default 2.0)")
    ap.add_argument("--iterations", type=whole(1, 100_000), default=150,
                    help="fit: iterations of the solver (default 150)")
    ap.add_argument("--data", type=file_name, action="append", default=[],
                    help="games file (.npz) to write (generate) or read (fit; may be repeated)")
    ap.add_argument("--out", type=_output, default=patterns.WEIGHTS,
                    help="fit, smooth, all: the weights file written (default the shipped one, "
                         "engine/weights.bin.gz; written whole or not at all)")
    a = ap.parse_args(argv)
    try:
        import numpy  # noqa: F401
    except ImportError:
        ap.error("training needs numpy: pip install -e '.[train]'")
    try:
        return _steps(a, ap)
    except (ValueError, OSError, RuntimeError) as e:   # a journal of another run, a file not ours
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"interrupted{jobs.RESUME if a.journal else ''}", file=sys.stderr)
        return 130


def _steps(a: argparse.Namespace, ap: argparse.ArgumentParser) -> int:
    import numpy as np

    stages = a.stages or patterns.STAGES

    def fit_and_save(data: Data) -> None:
        print(f"fitting {len(data['label'])} positions, {stages} stages", file=sys.stderr)
        prior = resample(grown(a.prior), stages) if a.prior else None
        patterns.save(to_ints(fit(data, a.ridge, a.iterations, stages=stages, prior=prior)), a.out)
        print(f"wrote {a.out}")

    def smooth(source: Union[str, Path], count: int) -> None:
        w = patterns.load(source)
        patterns.save(to_ints(interpolated(symmetric(w), count) / patterns.SCALE), a.out)
        print(f"wrote {a.out}: {source} made symmetric, in {count} blended stage{'s' * (count != 1)}")

    def given_data() -> Data:
        return _joined([load_data(f) for f in a.data])

    weights = a.weights[0] if a.weights else patterns.WEIGHTS
    # a file written must not be one read as the other kind (the games file replaced by weights)
    written = {"fit": [("--out", a.out)], "all": [("--out", a.out)],
               "generate": [("--data", a.data[0] if a.data else None)],
               "label": [("--labels", a.labels), ("--rest", a.rest)]}.get(a.step, [])
    read = {"fit": a.data, "all": [], "generate": [weights] if a.evaluation == "patterns" else [],
            "label": [weights]}.get(a.step, [])
    for option, out in written:
        if out is not None and Path(out).resolve() in {Path(f).resolve() for f in read}:
            ap.error(f"{option} {out} is a file this step reads: it would be replaced")
    if a.step == "generate" and len(a.data) > 1:
        ap.error("generate writes one --data file")
    if a.step == "label":
        if not a.data or not a.labels:
            ap.error("label needs --data FILE.npz and --labels FILE.npz")
        inputs = {Path(f).resolve() for f in a.data}      # relabelled in place: only whole
        for option, out in (("--labels", a.labels if a.every > 1 or len(a.data) > 1 else None), ("--rest", a.rest)):
            if out and Path(out).resolve() in inputs:
                ap.error(f"{option} {out} is one of the --data: it would be replaced by a part of them")
        if a.rest and Path(a.rest).resolve() == Path(a.labels).resolve():
            ap.error("--rest and --labels name the same file")
        given = given_data()
        data = label(given, a.depth or 8,
                     18 if a.exact is None else a.exact, a.every, a.workers, weights, a.cluster, a.journal,
                     mix=a.mix)
        save_data(data, a.labels)
        print(f"wrote {a.labels}: {len(data['label'])} positions")
        if a.rest:
            others = np.arange(len(given["label"])) % a.every != 0     # (label takes 0, every, ...)
            rest = {k: v[others] for k, v in given.items()}
            save_data(rest, a.rest)
            print(f"wrote {a.rest}: the {len(rest['label'])} others")
        return 0
    a.depth = a.depth or 6
    a.exact = 14 if a.exact is None else a.exact
    if a.step == "generate":
        if a.data:
            try:
                output_file(str(a.data[0]))
            except argparse.ArgumentTypeError as e:
                ap.error(f"--data: {e}")
        generate(a.games, a.seed, a.depth, a.exact, a.workers, a.evaluation, a.data[0] if a.data else None,
                 weights, a.cluster, a.journal)
    elif a.step == "check":
        if not a.data or not a.weights:
            ap.error("check needs --data FILE.npz and --weights FILE")
        measured = [(f, patterns.load(f)) for f in a.weights]     # every file checked before the work
        data = given_data()
        exact = solved(data, a.solve) if a.solve else None
        for f, w in measured:
            print(f"{f}: held-out positions by empty squares: positions, mean absolute error, rms (discs)")
            rows = errors(w, data)
            for span, n, mae, rms in rows:
                print(f"  {span:>6} {n:9d} {mae:6.2f} {rms:6.2f}")
            if not rows:
                print("  no positions of held-out games (one game in 20 is held out)")
            if exact is not None and not len(exact["label"]):
                print(f"  {'solved':>6}         0  (no held-out position with 16-20 empties)")
            elif exact is not None:
                _, n, mae, rms = errors(w, exact, holdout=1.0)[-1]
                print(f"  {'solved':>6} {n:9d} {mae:6.2f} {rms:6.2f}  (16-20 empties, labelled by the exact solver)")
    elif a.step == "smooth":
        if not a.weights:
            ap.error("smooth needs --weights FILE")
        smooth(a.weights[0], a.stages or SMOOTH_STAGES)
    elif a.step == "fit":
        if not a.data:
            ap.error("fit needs --data FILE.npz")
        fit_and_save(given_data())
    else:
        print("round 1: self-play with the hand-written evaluation", file=sys.stderr)
        first = generate(a.games, a.seed, a.depth, a.exact, a.workers, "full", cluster=a.cluster,
                         journal=a.journal / "round1" if a.journal else None)
        fit_and_save(first)
        print("round 2: self-play with the first fit", file=sys.stderr)
        second = generate(a.games2, a.seed + 1, a.depth, a.exact, a.workers, "patterns", weights=a.out,
                          cluster=a.cluster, journal=a.journal / "round2" if a.journal else None)
        fit_and_save(_joined([first, second]))
        smooth(a.out, SMOOTH_STAGES)
    return 0


if __name__ == "__main__":
    jobs.run_main(main)
