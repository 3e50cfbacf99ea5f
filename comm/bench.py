"""``python -m comm bench``: round trips between two real processes, and an idle waiter's CPU."""
import argparse
import os
import platform
import shutil
import signal
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


def _spawn(*args: str, secret: bytes | None = None) -> "subprocess.Popen[str]":
    env = {k: v for k, v in os.environ.items() if k != "CARDSTAND_SECRET"}
    if secret is not None:
        env["CARDSTAND_SECRET"] = secret.decode()
    return subprocess.Popen([sys.executable, "-m", "comm", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env)


class _Pinger:
    """One side of a ping-pong: a ``Board`` on ``dir_a`` and an echo process answering on ``dir_b``."""

    def __init__(self, dir_a: Path, dir_b: Path, secret: "bytes | None" = None) -> None:
        self.echo = _spawn("echo", "--board", str(dir_b), "--name", "echo", secret=secret)
        self.board: Board | None = None
        self.n = 0
        try:
            if self.echo.stdout is None or self.echo.stdout.readline().strip() != "ready":
                raise RuntimeError("echo process did not start")
            self.board = Board(dir_a, "pinger", secret=secret).join()
        except BaseException:
            self.close()
            raise

    def round_trip(self) -> float:
        """Seconds for one message there and back."""
        body = f"ping {self.n}"
        self.n += 1
        board = self.board
        if board is None:
            raise RuntimeError("not joined")
        t = time.perf_counter()
        if not board.send("echo", body):
            raise RuntimeError(board.last_error)
        m = board.wait(timeout=30)
        if m is None or m.body != body:
            raise RuntimeError(f"round {self.n}: bad or missing answer {m!r}")
        return time.perf_counter() - t

    def close(self) -> None:
        """Stop the echo process (asked when it was started, killed if it stays) and leave the board."""
        try:
            if self.board is not None:
                self.board.send("echo", "__stop__")
                self.board.close()
                self.board = None
                self.echo.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
        finally:
            if self.echo.poll() is None:
                self.echo.kill()
                self.echo.wait()
            if self.echo.stdout is not None:
                self.echo.stdout.close()


WARM_UP = 10    # round trips not counted: the first ones warm caches


def ping_pong(dir_a: Path, dir_b: Path, rounds: int, secret: bytes | None = None) -> list[float]:
    """Round-trip seconds: we write on ``dir_a``, the echo process answers on ``dir_b``.

    With ``secret`` both sides sign and check every message (HMAC-SHA256).
    """
    side = _Pinger(dir_a, dir_b, secret)
    try:
        return [side.round_trip() for _ in range(rounds + WARM_UP)][WARM_UP:]
    finally:
        side.close()


def paired_ping_pong(folder: Path, rounds: int, secret: bytes) -> "tuple[list[float], list[float]]":
    """Round-trip seconds (plain, signed): two boards under ``folder``, one plain and one
    signed with ``secret``, each with its echo process, used in turn round by round (which
    one goes first alternates), so that the machine's load at each moment weighs on both."""
    sides = []
    try:
        sides.append(_Pinger(folder / "plain", folder / "plain"))
        sides.append(_Pinger(folder / "signed", folder / "signed", secret))
        times: tuple[list[float], list[float]] = ([], [])
        for i in range(rounds + WARM_UP):
            for j in ((0, 1) if i % 2 else (1, 0)):
                t = sides[j].round_trip()
                if i >= WARM_UP:
                    times[j].append(t)
        return times
    finally:
        for side in sides:
            side.close()


def mac_cpu(folder: Path, rounds: int, secret: bytes) -> "tuple[float, float, float]":
    """CPU seconds of one message sent and received in this process, on two boards (one signed
    with ``secret``) used in turn, ``rounds`` times each: the median plain, the median signed,
    and the median of signed minus plain within each turn.  What signing and checking cost,
    without the waits and the scheduling of two processes."""
    boards = [Board(folder / "cpu-plain", "me").join(), Board(folder / "cpu-signed", "me", secret=secret).join()]
    try:
        times: tuple[list[float], list[float]] = ([], [])
        for i in range(rounds + WARM_UP):
            for j in ((0, 1) if i % 2 else (1, 0)):
                t = time.thread_time()
                if not boards[j].send("me", f"ping {i}") or boards[j].receive() is None:
                    raise RuntimeError(boards[j].last_error)
                if i >= WARM_UP:
                    times[j].append(time.thread_time() - t)
        return (statistics.median(times[0]), statistics.median(times[1]),
                statistics.median(b - a for a, b in zip(*times)))
    finally:
        for b in boards:
            b.close()


def idle_cpu(folder: Path, seconds: float, received: bool = False) -> float:
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


def _row(label: str, times: list[float]) -> None:
    ms = sorted(t * 1000 for t in times)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    print(f"{label:28s} p50 {statistics.median(ms):7.2f} ms   p99 {p99:7.2f} ms   "
          f"{len(ms) / sum(times):8.1f} round trips/s", flush=True)


def _leave(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def run(args: argparse.Namespace) -> int:
    """``python -m comm bench``: print round-trip times and idle CPU; returns the exit code."""
    print(f"comm bench: {platform.machine()} {platform.system()}, Python {platform.python_version()}, "
          f"{args.rounds} round trips per folder", flush=True)
    shares = []
    for spec in args.share:
        label, _, dirs = spec.partition("=")
        a, _, b = dirs.partition(",")
        shares.append((label, Path(a), Path(b)))
    for name in ("SIGTERM", "SIGHUP", "SIGBREAK"):     # leave through the clean-ups below
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), _leave)
    if not args.no_auto_shares:
        for label, (a, b) in AUTO_SHARES.items():
            if os.path.ismount(Path(a).parents[1] if label == "smb" else a) and Path(b).exists():
                shares.append((label, Path(a), Path(b)))
    with tempfile.TemporaryDirectory() as tmp:
        plain, signed = paired_ping_pong(Path(tmp), args.rounds, BENCH_SECRET)
        _row("local disk", plain)
        _row("local disk, signed (MAC)", signed)
        print(f"{'MAC cost (p50 difference)':28s} {(statistics.median(signed) - statistics.median(plain)) * 1000:+.3f} ms",
              flush=True)
        cpu_plain, cpu_signed, more = mac_cpu(Path(tmp), args.rounds, BENCH_SECRET)
        print(f"{'MAC cost, CPU':28s} {more * 2000:+.3f} ms a round trip (two messages; one sent and received "
              f"in one process: {cpu_plain * 1000:.3f} ms plain, {cpu_signed * 1000:.3f} ms signed)", flush=True)
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
