"""Worker processes for the comm tests: ``python comm_worker.py ROLE BOARD ...``."""
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from comm import Board, fsops  # noqa: E402

if os.environ.get("COMM_PORTABLE"):
    fsops.USE_DIR_FD = False   # the Windows code path (check with lstat, then act), on POSIX


def send(board, name, to, count, log, stale, pause=0.0):
    """Send ``name:run:i`` for i from where the log stops; log each i once ``send`` returned True
    (waiting ``pause`` s after each)."""
    done = Path(log).read_text().split() if Path(log).exists() else []
    start = int(done[-1]) + 1 if done else 0
    me = Board(board, name, stale_after=stale, lock_timeout=60).join()
    run = me.run[:6]
    with open(log, "a") as out:
        for i in range(start, count):
            while not me.send(to, f"{name}:{run}:{i}"):
                time.sleep(0.01)
            out.write(f"{i}\n")
            out.flush()
            time.sleep(pause)


def recv(board, name, count, out_path, stale):
    """Receive until ``count`` bodies ending in the last index of each sender... or 'stop'."""
    me = Board(board, name, stale_after=stale, lock_timeout=60).join()
    print("ready", flush=True)
    with open(out_path, "a") as out:
        while True:
            m = me.wait(timeout=120)
            if m is None:       # no "stop" within 120 s, or the board failed: the test must see it
                sys.exit(f"recv: nothing within 120 s ({me.problem or 'timeout'}: {me.last_error})")
            if m.body == "stop":
                return
            out.write(m.body + "\n")
            out.flush()


def counter(board, name, rounds, path, stale):
    """Read-modify-write a counter file under the board lock ``rounds`` times."""
    me = Board(board, name, stale_after=stale, lock_timeout=60).join()
    print("ready", flush=True)
    for _ in range(rounds):
        with me.lease.hold(60):
            p = Path(path)
            n = int(p.read_text()) if p.exists() else 0
            tmp = p.with_name(f"{p.name}.{os.getpid()}")
            tmp.write_text("%012d" % (n + 1))  # fixed size: a share may cache the old size
            os.replace(tmp, p)


def hog(board, name, seconds, stale):
    """Hold the lock for ``seconds`` (heartbeating), then release it."""
    me = Board(board, name, stale_after=stale, lock_timeout=60).join()
    with me.lease.hold(60):
        print("holding", flush=True)
        time.sleep(seconds)
    print("released", flush=True)


def hold_and_die(board, name, stale):
    """Take the lock and get killed while holding it."""
    me = Board(board, name, stale_after=stale, lock_timeout=60).join()
    me.lease.acquire(60)
    print("holding", flush=True)
    time.sleep(600)


def stall(board, name, to, seconds, stale):
    """Join, then send to ``to`` pausing ``seconds`` inside the lock just before delivering
    (the test stops this process there); prints "inside", then "sent" or "failed PROBLEM:
    REASON", then sends once more and prints "sent again" (or the failure)."""
    me = Board(board, name, stale_after=stale, lock_timeout=60).join()
    real = Board._deliver

    def slow(self, *args):
        print("inside", flush=True)
        time.sleep(seconds)
        return real(self, *args)

    Board._deliver = slow
    print("sent" if me.send(to, "from the stalled one") else f"failed {me.problem}: {me.last_error}", flush=True)
    Board._deliver = real
    print("sent again" if me.send(to, "after") else f"failed {me.problem}: {me.last_error}", flush=True)
    me.close()


def do(board, name, actions, stale):
    """Join, then run ``actions`` in turn, printing one line each:
    ``send:TO:BODY`` -> "sent TO" or "failed REASON"; ``recv:SECONDS`` -> "got BODY" or "none";
    ``quiet`` -> "quiet N"; ``beat`` -> "beat"."""
    me = Board(board, name, stale_after=stale, lock_timeout=float(os.environ.get("COMM_LOCK_TIMEOUT", "20")))
    me.join()
    print("joined", flush=True)
    for action in actions:
        verb, _, arg = action.partition(":")
        if verb == "send":
            to, _, body = arg.partition(":")
            print(f"sent {to}" if me.send(to, body) else f"failed {me.last_error}", flush=True)
        elif verb == "recv":
            m = me.wait(timeout=float(arg))
            print(f"got {m.body}" if m else "none", flush=True)
        elif verb == "quiet":
            print(f"quiet {me.quiet()}", flush=True)
        elif verb == "beat":
            me.beat()
            print("beat", flush=True)
        else:
            raise SystemExit(f"unknown action {action!r}")
    me.close()


if __name__ == "__main__":
    role, board = sys.argv[1], sys.argv[2]
    a = sys.argv[3:]
    stale = float(os.environ.get("COMM_STALE", "2"))
    if role == "send":
        send(board, a[0], a[1], int(a[2]), a[3], stale, float(a[4]) if len(a) > 4 else 0.0)
    elif role == "recv":
        recv(board, a[0], int(a[1]), a[2], stale)
    elif role == "counter":
        counter(board, a[0], int(a[1]), a[2], stale)
    elif role == "hog":
        hog(board, a[0], float(a[1]), stale)
    elif role == "hold_and_die":
        hold_and_die(board, a[0], stale)
    elif role == "stall":
        stall(board, a[0], a[1], float(a[2]), stale)
    elif role == "do":
        do(board, a[0], a[1:], stale)
