"""Process control: starting the implementation under test (``serve``, ``play``) and our own players, and
stopping each with whatever it started."""
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time

from .common import Fail


def _env(secret=None, base=None):
    """The environment for a program the kit starts: CARDSTAND_SECRET only when a scenario sets it."""
    env = dict(os.environ if base is None else base)
    env.pop("CARDSTAND_SECRET", None)
    if secret is not None:
        env["CARDSTAND_SECRET"] = secret
    return env


_STARTED = []      # every program the kit started: stopped when run() ends, however it ends


class _Player(subprocess.Popen):
    """A program the kit started, its output read as it comes (a program that writes a lot never
    blocks on a full pipe: players may write anything) and kept for the failure messages."""

    KEEP = 1 << 20      # bytes of output kept (the end)

    def __init__(self, argv, **kw):
        super().__init__(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kw)
        self._out = []
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self):
        kept = 0
        while True:
            try:
                chunk = self.stdout.read1(65536)
            except (OSError, ValueError):
                return
            if not chunk:
                return
            self._out.append(chunk)
            kept += len(chunk)
            while kept > self.KEEP and len(self._out) > 1:
                kept -= len(self._out.pop(0))

    def output(self, timeout=10):
        """What it wrote (all of it once it has exited)."""
        if self.poll() is not None:
            self._reader.join(timeout)
        return b"".join(self._out).decode("utf-8", "replace")

    def communicate(self, input=None, timeout=None):
        self.wait(timeout)
        return self.output(), None

    def kill(self):
        _kill_group(self)


# Each program in a process group of its own, so that stopping it stops what it started too (a
# wrapper script, `npm start`, `sh -c '...'`): kill() takes the whole group
_GROUP = {"start_new_session": True} if os.name == "posix" else \
    {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}


def _kill_group(proc):
    """Kill ``proc`` and its process group, and wait (up to 5 s) until the group is gone: a
    wrapper's children die a moment after it."""
    if os.name == "posix":
        try:
            os.killpg(proc.pid, signal.SIGKILL)
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                proc.poll()                     # (reap our own child)
                os.killpg(proc.pid, 0)
                time.sleep(0.01)
            return
        except OSError:
            return
    try:
        subprocess.Popen.kill(proc)
    except OSError:
        pass


def _traceback(out):
    """Whether ``out`` shows a stack trace (Python's, or one like Node's, Java's: "at f (file:12:5)")."""
    return "Traceback (most recent call last)" in out or re.search(r"(?m)^\s+at \S.*:\d+(:\d+)?\)?$", out)


def _start(argv, kind=None, **kw):
    """Start a program (a ``_Player`` unless ``kind`` says otherwise) in a process group of its
    own, kept for ``_stop_all``; a clear failure when it cannot be started at all."""
    try:
        proc = (kind or _Player)(argv, **_GROUP, **kw)
    except OSError as e:
        raise Fail(f"cannot start {' '.join(argv)[:200]!r}: {e.strerror or e}") from None
    _STARTED.append(proc)
    return proc


def _stop_all():
    for p in _STARTED:
        _kill_group(p)      # (even when it has exited: what it started may still run)
        try:
            p.wait(5)
        except subprocess.TimeoutExpired:
            pass
    _STARTED.clear()


class Served:
    """An implementation under test in ``serve`` mode."""

    def __init__(self, cmd, board, name, stale_after=10.0, lock_timeout=10.0, secret=None):
        argv = shlex.split(cmd) + ["serve", "--board", str(board), "--name", name,
                                   "--stale-after", str(stale_after), "--lock-timeout", str(lock_timeout)]
        self._err = tempfile.TemporaryFile()    # what it writes on stderr: shown if it dies
        self.proc = _start(argv, subprocess.Popen, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=self._err, text=True, encoding="utf-8", env=_env(secret))

    def _why_silent(self):
        """How it ended, if it did: its exit code and the end of what it wrote on stderr."""
        code = self.proc.poll()
        if code is None:
            return ""
        size = self._err.seek(0, os.SEEK_END)
        self._err.seek(max(0, size - 400))
        err = self._err.read(400).decode("utf-8", "replace").strip()
        return f" (exit code {code}" + (f"; it said: {err!r})" if err else ")")

    def ask(self, timeout=30, **req):
        try:
            self.proc.stdin.write(json.dumps(req, ensure_ascii=False) + "\n")
            self.proc.stdin.flush()
        except OSError:
            pass                    # it exited (after its last answer, which is read below)
        box = {}

        def read():
            box["line"] = self.proc.stdout.readline()

        t = threading.Thread(target=read, daemon=True)
        t.start()
        t.join(timeout)
        line = box.get("line")
        if not line:
            if self.proc.poll() is None:
                time.sleep(0.1)
            why = self._why_silent()
            if why:
                raise Fail(f"no answer to {req}: it exited before answering{why}")
            raise Fail(f"no answer to {req} within {timeout} s")
        try:
            return json.loads(line)
        except ValueError:
            raise Fail(f"answer is not JSON: {line[:80]!r}") from None

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=0.5 if sys.exc_info()[0] is not None else 5)   # failing: no wait
        except subprocess.TimeoutExpired:
            _kill_group(self.proc)

    def end(self, timeout=20):
        """End of input: the implementation closes its board and exits (its exit code)."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(self.proc)
            raise Fail(f"serve did not exit within {timeout} s of the end of its input") from None

    def kill(self):
        """Kill it at once (SIGKILL where there are signals), with what it started: it closes nothing."""
        _kill_group(self.proc)
        self.proc.wait()


def _reap(proc, timeout=20):
    """Let a scenario's program end by itself for ``timeout`` s, then kill it; at once when the
    scenario is failing (called from a ``finally`` while its ``Fail`` propagates)."""
    if sys.exc_info()[0] is not None:
        timeout = 0.5
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()


def _exit_code(proc, timeout=30):
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise Fail(f"the implementation kept running for {timeout} s") from None
    return proc.returncode


def _kill(proc):
    proc.kill()
    proc.wait()
