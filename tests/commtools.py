"""Helpers to run comm_worker.py processes."""
import os
import subprocess
import sys
import tempfile
import time
import threading
from pathlib import Path

WINE_INTERNAL_ERROR = 1359    # "Internal error"
WORKER = str(Path(__file__).with_name("comm_worker.py"))


class _Log:
    """A worker's stderr, kept in a file: a pipe nobody reads until the end would stop a worker
    that logs much (a Windows pipe holds 4 KB); ``read`` gives all of it so far."""

    def __init__(self):
        self.file = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")

    def read(self):
        self.file.flush()
        self.file.seek(0)
        return self.file.read()


def spawn(*args, stale=2.0, **kw):
    env = dict(os.environ, COMM_STALE=str(stale))
    log = _Log()
    for attempt in range(3):
        try:
            proc = subprocess.Popen([sys.executable, WORKER, *map(str, args)], stdout=subprocess.PIPE,
                                    stderr=log.file, text=True, env=env, **kw)
            break
        except OSError as e:    # Wine's CreateProcess fails at times after a burst of kills
            if getattr(e, "winerror", None) != WINE_INTERNAL_ERROR or attempt == 2:
                raise
            time.sleep(1.0)
    proc.stderr = log
    return proc


def expect_line(proc, text, timeout=60):
    """The worker's next line is ``text``; fails after ``timeout`` seconds of silence."""
    got = []
    reader = threading.Thread(target=lambda: got.append(proc.stdout.readline()), daemon=True)
    reader.start()
    reader.join(timeout)
    if not got:
        proc.kill()
        raise AssertionError(f"worker said nothing within {timeout} s (expected {text!r})")
    line = got[0].strip()
    assert line == text, f"worker said {line!r}, expected {text!r}; stderr: {proc.stderr.read() if proc.poll() is not None else ''}"


def check_stream(lines, senders):
    """Every body ``name:run:i`` at most once, and per sender in send order."""
    assert len(lines) == len(set(lines)), "a message arrived twice"
    last = {}
    runs = {}
    for body in lines:
        name, run, i = body.split(":")
        assert name in senders, body
        i = int(i)
        order = runs.setdefault(name, [])
        if run not in order:
            order.append(run)
        key = (order.index(run), i)
        assert key > last.get(name, (-1, -1)), f"out of order: {body}"
        last[name] = key


class Clock:
    """A stand-in for a module's ``time`` (``monkeypatch.setattr(module, "time", Clock())``):
    sleeping advances it, nothing waits, and every sleep is kept in ``slept``."""

    def __init__(self):
        self.now = 0.0
        self.slept = []

    def monotonic(self):
        return self.now

    def sleep(self, secs):
        self.now += secs
        self.slept.append(secs)
