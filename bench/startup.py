"""What a one-shot move costs before it thinks: whole processes, timed from outside.

    python bench/startup.py
    python bench/startup.py --before b7e6dfc --runs 30

Runs, each as a fresh process and in turn (a b c a b c ...): ``python -c pass``
(the interpreter's floor), ``python -c "import engine"``, and the one-shot
command ``python -m engine move`` for a midgame position out of the book
(36 empties), with ``--ai greedy`` (no search, no weights) and with
``--ai best --time 0.01`` (the pattern weights, the book, a 10 ms search);
then the kept engine process that outside programs already have, the NBoard
protocol (``python -m engine nboard``), asked for 1 and for 11 moves in that
position, from which the cost of one more move in a kept process follows.
Prints, per command, the median and the least CPU seconds (user + system, the
operating system's count of the finished child: steadier than wall time on a
busy machine; Linux and macOS only) and the median wall seconds.

``--before REV`` runs the same commands, interleaved, in a copy of this
repository at REV (``git archive``) that borrows this tree's compiled core, or,
when the core's sources differ between REV and this tree, with its own core
built there first (``pip wheel``, about a minute).

The bytecode cache is on, as in an installed package: the commands run with
``PYTHONPYCACHEPREFIX`` set to a temporary folder (nothing is written into the
trees) and one uncounted warm-up run each.
"""
import argparse
import io
import json
import os
import platform
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
CORE_SOURCES = ["engine/_core.pyx", "engine/*.pxi", "engine/*.h", "setup.py"]   # git pathspecs

# f5f4f3f6d3f2g6c3b3b2g4g3b1d2c4c5f1g2g1g5c6a1h6a2: black to move, 36 empties, not in the book
REQUEST = """1
8
-1 1 0 0 0 1 1 0
-1 -1 0 -1 0 1 1 0
0 -1 -1 -1 0 1 1 0
0 0 -1 1 1 1 1 0
0 0 -1 1 -1 -1 1 0
0 0 1 0 0 -1 1 1
0 0 0 0 0 0 0 0
0 0 0 0 0 0 0 0
"""

GGF = ("(;GM[Othello]PC[cardstand]PB[]PW[]TY[8]BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- "
       "-------- *]B[F5]W[F4]B[F3]W[F6]B[D3]W[F2]B[G6]W[C3]B[B3]W[B2]B[G4]W[G3]B[B1]W[D2]B[C4]W[C5]B[F1]W[G2]B[G1]"
       "W[G5]B[C6]W[A1]B[H6]W[A2];)")   # the same position
KEPT_MOVES = 10


def nboard_session(moves: int) -> str:
    """An NBoard session asking ``moves`` times for a move in the position, then quitting."""
    return f"nboard 2\nset game {GGF}\n" + "go\n" * moves + "quit\n"


NBOARD = ["-m", "engine", "nboard", "--ai", "best", "--time", "0.01"]
COMMANDS: list[tuple[str, list[str], str]] = [     # (label, python's arguments, stdin)
    ("python -c pass", ["-c", "pass"], ""),
    ("import engine", ["-c", "import engine"], ""),
    ("move --ai greedy", ["-m", "engine", "move", "--ai", "greedy"], REQUEST),
    ("move --ai best --time 0.01", ["-m", "engine", "move", "--ai", "best", "--time", "0.01"], REQUEST),
    ("nboard (best, 0.01 s): 1 go", NBOARD, nboard_session(1)),
    (f"nboard (best, 0.01 s): {KEPT_MOVES + 1} go", NBOARD, nboard_session(KEPT_MOVES + 1)),
]


PARTS = """
import json, time
T = time.process_time
t = [T()]
import engine; t.append(T())
import argparse, engine.__main__, engine.oneshot; t.append(T())
import engine.strategies as s; t.append(T())
from engine import book, patterns
patterns.install(); t.append(T())
book.learned(); t.append(T())
s.get("best"); t.append(T())
d = [b - a for a, b in zip(t, t[1:])]
print(json.dumps(d))
"""
PART_NAMES = ["import engine (rules, cores, shapes)", "import the command line (argparse, engine.__main__)",
              "import engine.strategies (book, patterns)",
              "pattern weights (patterns.install: mapped from the cache when it holds them)",
              "the learned book (book.learned)",
              "strategies.get('best'): the rest"]


def cpu_seconds() -> Optional[float]:
    """User + system seconds of this process's finished children, None where not counted (Windows)."""
    try:
        import resource
    except ImportError:
        return None
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def machine() -> str:
    """CPU model, cores, system and Python, for the figures' heading."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = f", load average {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    return (f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, "
            f"{platform.python_implementation()} {platform.python_version()}{load}")


def copy_at(rev: str, into: Path) -> Path:
    """This repository at ``rev`` in ``into``, with this tree's compiled core copied in."""
    changed = subprocess.run(["git", "diff", "--quiet", rev, "--", *CORE_SOURCES], cwd=ROOT)
    if changed.returncode not in (0, 1):
        sys.exit(f"git cannot compare {rev!r} with this tree")
    tar = subprocess.run(["git", "archive", "--format=tar", rev], cwd=ROOT, capture_output=True)
    if tar.returncode != 0:
        sys.exit(f"git archive {rev}: {tar.stderr.decode(errors='replace').strip()}")
    with tarfile.open(fileobj=io.BytesIO(tar.stdout)) as t:
        if hasattr(tarfile, "data_filter"):     # Python 3.11.4 and later: no link or path out of ``into``
            t.extractall(into, filter="data")
        else:
            t.extractall(into)
    if changed.returncode == 1:
        build_core(rev, into)
        return into
    cores = [p for p in (ROOT / "engine").glob("_core*") if any(p.name.endswith(s) for s in EXTENSION_SUFFIXES)]
    if not cores:
        sys.exit("this tree's compiled core is not built (pip install -e .)")
    for p in cores:
        (into / "engine" / p.name).write_bytes(p.read_bytes())
    return into


def build_core(rev: str, tree: Path) -> None:
    """Build the compiled core of ``tree`` (this repository at ``rev``) into its ``engine/``."""
    print(f"the compiled core's sources differ between {rev} and this tree: building {rev}'s core", flush=True)
    with tempfile.TemporaryDirectory(prefix="startup-wheel-") as out:
        r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", out, str(tree)],
                           capture_output=True, text=True)
        wheels = list(Path(out).glob("*.whl"))
        if r.returncode != 0 or not wheels:
            sys.exit(f"building {rev}'s compiled core failed: {(r.stderr or r.stdout)[-500:]}")
        with zipfile.ZipFile(wheels[0]) as z:
            cores = [n for n in z.namelist() if n.startswith("engine/_core") and n.endswith(tuple(EXTENSION_SUFFIXES))]
            if not cores:
                sys.exit(f"{rev}'s wheel has no compiled core")
            for n in cores:
                (tree / n).write_bytes(z.read(n))


def run(tree: Path, args: list[str], stdin: str, env: dict[str, str]) -> tuple[float, Optional[float]]:
    """(wall, cpu) seconds of one run of ``python ARGS < STDIN`` in ``tree``; exits when the run fails
    (a move that is not ``x y``, an NBoard session without as many ``===`` moves as ``go``)."""
    before = cpu_seconds()
    t = time.perf_counter()
    r = subprocess.run([sys.executable, *args], cwd=tree, env=env, input=stdin, capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = cpu_seconds()
    answered = (len(r.stdout.split()) == 2 if "move" in args else
                r.stdout.count("=== ") == stdin.count("go\n") if "nboard" in args else True)
    if r.returncode != 0 or not answered:
        sys.exit(f"python {' '.join(args)} in {tree} failed (exit {r.returncode}): {(r.stderr or r.stdout)[-500:]}")
    return wall, (after - before if before is not None and after is not None else None)


def check_tree(tree: Path, env: dict[str, str]) -> None:
    """Exit unless ``python -c 'import engine'`` in ``tree`` imports that tree's engine."""
    r = subprocess.run([sys.executable, "-c", "import engine; print(engine.__file__)"], cwd=tree, env=env,
                       capture_output=True, text=True)
    where = Path(r.stdout.strip()).resolve() if r.returncode == 0 else None
    if where is None or tree.resolve() not in where.parents:
        sys.exit(f"in {tree}, 'import engine' gives {where or r.stderr.strip()[-300:]}, not that tree's engine")


def _at_least_one(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if not 1 <= n <= 1000:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1 to 1000, not {text!r}")
    return n


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=_at_least_one, default=20, help="counted runs of each command (default 20)")
    ap.add_argument("--before", metavar="REV", help="also time the commands at this git revision")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="startup-bench-") as tmp:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        trees = [("this tree", ROOT)]
        if args.before:
            trees.insert(0, (args.before, copy_at(args.before, Path(tmp) / "before")))
        for _, tree in trees:
            check_tree(tree, env)
        todo = [(label, tree, name, cmd, stdin) for label, tree in trees for name, cmd, stdin in COMMANDS]
        for _, tree, _, cmd, stdin in todo:
            run(tree, cmd, stdin, env)      # warm-up: writes the bytecode cache
        walls: dict[tuple[str, str], list[float]] = {(label, name): [] for label, _, name, _, _ in todo}
        cpus: dict[tuple[str, str], list[float]] = {(label, name): [] for label, _, name, _, _ in todo}
        for _ in range(args.runs):
            for label, tree, name, cmd, stdin in todo:
                wall, cpu = run(tree, cmd, stdin, env)
                walls[label, name].append(wall)
                if cpu is not None:
                    cpus[label, name].append(cpu)
        parts = [json.loads(subprocess.run([sys.executable, "-c", PARTS], cwd=ROOT, env=env, capture_output=True,
                                           text=True, check=True).stdout) for _ in range(args.runs)]
    print(f"one-shot start-up: {machine()}; {args.runs} runs of each, in turn")
    print(f"{'tree':10s} {'command':30s} {'cpu s median':>12s} {'cpu s least':>11s} {'wall s median':>13s}")
    for label, _, name, _, _ in todo:
        c = cpus[label, name]
        median = f"{statistics.median(c):.3f}" if c else "-"
        least = f"{min(c):.3f}" if c else "-"
        print(f"{label:10s} {name:30s} {median:>12s} {least:>11s} {statistics.median(walls[label, name]):13.3f}")
    for label, _ in trees:
        one, more = (cpus[label, name] for name, _, _ in COMMANDS[-2:])
        if one and more:
            print(f"{label}: a move in a kept NBoard process costs "
                  f"{(statistics.median(more) - statistics.median(one)) / KEPT_MOVES:.3f} s of CPU (the "
                  f"{KEPT_MOVES} more moves' median difference / {KEPT_MOVES}), start-up paid once")
    print(f"where a move of best spends its CPU seconds before it searches (this tree, in one process, "
          f"median of {args.runs}):")
    for i, name in enumerate(PART_NAMES):
        print(f"  {name:54s} {statistics.median(p[i] for p in parts):.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
