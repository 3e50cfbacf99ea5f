"""Self-play on a local pool against the same jobs on a two-worker Dask cluster (engine.fit.jobs):
the time of each, and whether the data are identical.

    python bench/training.py [--games 600] [--batch 10] [--seed 11]
"""
import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.fit import weights  # noqa: E402


def main(argv: "list[str] | None" = None) -> int:
    ap = argparse.ArgumentParser(prog="python bench/training.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=600)
    ap.add_argument("--batch", type=int, default=10)
    ap.add_argument("--seed", type=int, default=11)
    a = ap.parse_args(argv)
    t = time.monotonic()
    local = weights.generate(a.games, seed=a.seed, workers=2, batch=a.batch)
    t_local = time.monotonic() - t
    t = time.monotonic()
    cluster = weights.generate(a.games, seed=a.seed, cluster="local:2", batch=a.batch)
    t_cluster = time.monotonic() - t
    same = all(local[k].shape == cluster[k].shape and (local[k] == cluster[k]).all() for k in local)
    print(f"{a.games} self-play games (depth 6, exact from 14 empties), {len(local['label'])} positions, "
          f"batches of {a.batch}:")
    print(f"  local pool of 2 processes: {t_local:.1f} s")
    print(f"  Dask cluster local:2 (started for the run, included): {t_cluster:.1f} s")
    print(f"  identical data: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
