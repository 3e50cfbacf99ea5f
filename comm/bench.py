"""``python -m comm bench``: round trips between two real processes, and an idle waiter's CPU."""
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .board import Board

AUTO_SHARES = {"sshfs": ("/mnt/netfs/sshfs-a", "/mnt/netfs/sshfs-b"),
               "smb": ("/mnt/netfs/smb-a/127.0.0.1/export", "/mnt/netfs/smb-b/127.0.0.1/export")}


BENCH_SECRET = b"bench secret"


def _spawn(*args, secret=None):
    env = {k: v for k, v in os.environ.items() if k != "CARDSTAND_SECRET"}
    if secret is not None:
        env["CARDSTAND_SECRET"] = secret.decode()
    return subprocess.Popen([sys.executable, "-m", "comm", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env)


def ping_pong(dir_a, dir_b, rounds, secret=None):
    """Round-trip seconds: we write on ``dir_a``, the echo process answers on ``dir_b``.

    With ``secret`` both sides sign and check every message (HMAC-SHA256).
    """
    echo = _spawn("echo", "--board", str(dir_b), "--name", "echo", secret=secret)
    try:
        if echo.stdout.readline().strip() != "ready":
            raise RuntimeError("echo process did not start")
        times = []
        with Board(dir_a, "pinger", secret=secret) as me:
            for i in range(rounds + 10):
                t = time.perf_counter()
                if not me.send("echo", f"ping {i}"):
                    raise RuntimeError(me.last_error)
                m = me.wait(timeout=30)
                if m is None or m.body != f"ping {i}":
                    raise RuntimeError(f"round {i}: bad or missing answer {m!r}")
                if i >= 10:  # the first rounds warm caches
                    times.append(time.perf_counter() - t)
            me.send("echo", "__stop__")
        echo.wait(timeout=30)
        return times
    finally:
        if echo.poll() is None:
            echo.kill()


def idle_cpu(folder, seconds, received=False):
    """CPU seconds per second used by a process waiting on an idle board (measured inside it).

    With ``received``, the waiter has first received one message (sent to itself), as a
    program that goes back to waiting after a message does."""
    code = ("import sys, time; from comm import Board\n"
            "b = Board(sys.argv[1], 'idler').join()\n"
            "if sys.argv[3] == '1':\n"
            "    assert b.send('idler', 'one') and b.receive().body == 'one', b.last_error\n"
            "c = time.process_time(); b.wait(timeout=float(sys.argv[2]))\n"
            "print(time.process_time() - c)\n")
    out = subprocess.run([sys.executable, "-c", code, str(folder), str(seconds), "1" if received else "0"],
                         check=True, capture_output=True, text=True).stdout
    return float(out.split()[-1]) / seconds


def _row(label, times):
    ms = sorted(t * 1000 for t in times)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    print(f"{label:28s} p50 {statistics.median(ms):7.2f} ms   p99 {p99:7.2f} ms   "
          f"{len(ms) / sum(times):8.1f} round trips/s", flush=True)


def run(args):
    print(f"comm bench: {platform.machine()} {platform.system()}, Python {platform.python_version()}, "
          f"{args.rounds} round trips per folder", flush=True)
    shares = []
    for spec in args.share:
        label, _, dirs = spec.partition("=")
        a, _, b = dirs.partition(",")
        shares.append((label, Path(a), Path(b)))
    if not args.no_auto_shares:
        for label, (a, b) in AUTO_SHARES.items():
            if os.path.ismount(Path(a).parents[1] if label == "smb" else a) and Path(b).exists():
                shares.append((label, Path(a), Path(b)))
    with tempfile.TemporaryDirectory() as tmp:
        # plain and signed in turn, in halves, so that a drift of the machine's speed hits both
        plain, signed = [], []
        for i in range(4):
            board = Path(tmp) / f"board{i}"
            half = max(1, args.rounds // 2)
            if i % 2:
                signed += ping_pong(board, board, half, secret=BENCH_SECRET)
            else:
                plain += ping_pong(board, board, half)
        _row("local disk", plain)
        _row("local disk, signed (MAC)", signed)
        print(f"{'MAC cost (p50 difference)':28s} {(statistics.median(signed) - statistics.median(plain)) * 1000:+.3f} ms",
              flush=True)
        cpu = idle_cpu(Path(tmp) / "idle", args.idle)
        print(f"{'idle waiter, local disk':28s} {cpu * 100:.3f}% of a core over {args.idle:g} s", flush=True)
        cpu = idle_cpu(Path(tmp) / "idle-after", args.idle, received=True)
        print(f"{'idle waiter, after a message':28s} {cpu * 100:.3f}% of a core over {args.idle:g} s", flush=True)
    for label, a, b in shares:
        sub = f"bench-{os.getpid()}"
        try:
            _row(f"{label} (A writes, B echoes)", ping_pong(a / sub, b / sub, min(args.rounds, 200)))
        except (OSError, RuntimeError) as e:
            print(f"{label}: failed: {e}")
        finally:
            shutil.rmtree(a / sub, ignore_errors=True)
    if not shares:
        print("(no network share mounted: see docs/benchmarks.md for mounting the loopback shares)")
    return 0
