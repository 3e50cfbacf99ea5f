"""Process control: starting the implementation under test (``serve``, ``play``) and our own players, and
stopping each with whatever it started."""
import io
import json
import os
import re
import subprocess
import sys
import threading
import time
from contextvars import ContextVar
from pathlib import Path
from typing import IO, Any, Mapping, TypeVar, cast, overload

from engine.procgroup import NEW_GROUP, group_left, kill_group
from comm.cliargs import command_words

from .common import Fail


def _env(secret: str | None = None, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a program the kit starts: CARDSTAND_SECRET only when a scenario sets it."""
    env = dict(os.environ if base is None else base)
    env.pop("CARDSTAND_SECRET", None)
    if secret is not None:
        env["CARDSTAND_SECRET"] = secret
    return env


class Programs:
    """The programs one scenario started: ``stop`` stops them all, and only them, however the
    scenario ends; a program started after that (by a thread the scenario left behind) is stopped
    at once."""

    def __init__(self) -> None:
        self._procs: list["subprocess.Popen[Any]"] = []
        self._parts: list["Programs"] = []
        self._lock = threading.Lock()
        self._stopped = False

    def part(self) -> "Programs":
        """The programs of one part of the scenario (``common.side_by_side``): stopped with it, and
        on their own when the part's outcome no longer matters."""
        part = Programs()
        with self._lock:
            if not self._stopped:
                self._parts.append(part)
                return part
        part.stop()
        return part

    def add(self, proc: "subprocess.Popen[Any]") -> None:
        with self._lock:
            if not self._stopped:
                self._procs.append(proc)
                return
        _kill_group(proc)
        raise Fail("the scenario was stopped")

    def said(self, why: str) -> str:
        """For a failure ``why``: what each program of the scenario that exited with an error wrote
        last, when ``why`` does not quote it already (a scenario that fails because the
        implementation exited shows the implementation's own error)."""
        with self._lock:
            procs = list(self._procs)
        out = []
        for p in procs:
            if isinstance(p, _Player) and p.poll() not in (None, 0):
                tail = " ".join(p.output(timeout=1).split())[-300:]
                if tail and tail[-60:] not in " ".join(why.split()):
                    name = Path(str(p.args[0] if isinstance(p.args, list) else p.args)).name
                    out.append(f"{name} exited {p.returncode}, saying: {tail!r}")
        return "; ".join(out)

    def explained(self, why: str) -> str:
        """A failure ``why`` with what ``said`` finds, in brackets, when it finds anything."""
        said = self.said(why)
        return f"{why} ({said})" if said else why

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            procs, self._procs = self._procs, []
            parts, self._parts = self._parts, []
        for part in parts:
            part.stop()
        for p in procs:
            _kill_group(p)      # (even when it has exited: what it started may still run)
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                pass


# The programs of the scenario running in this thread (runner.py sets it; a scenario's own threads
# get it by running in a copy of its context).  Outside a scenario a program is its caller's to stop.
PROGRAMS: ContextVar[Programs | None] = ContextVar("conformance_programs", default=None)


class _Player(subprocess.Popen[bytes]):
    """A program the kit started, its output read as it comes (a program that writes a lot never
    blocks on a full pipe: players may write anything) and kept for the failure messages."""

    KEEP = 1 << 20      # bytes of output kept (the end)

    def __init__(self, argv: list[str], **kw: Any) -> None:
        super().__init__(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kw)
        self._pipe = cast(io.BufferedReader, self.stdout)
        self._out: list[bytes] = []
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        kept = 0
        while True:
            try:
                chunk = self._pipe.read1(65536)
            except (OSError, ValueError):
                return
            if not chunk:
                return
            self._out.append(chunk)
            kept += len(chunk)
            while kept > self.KEEP and len(self._out) > 1:
                kept -= len(self._out.pop(0))

    def output(self, timeout: float = 10) -> str:
        """What it wrote (all of it once it has exited)."""
        if self.poll() is not None:
            self._reader.join(timeout)
        return b"".join(self._out).decode("utf-8", "replace")

    def kill(self) -> None:
        _kill_group(self)


def _kill_group(proc: "subprocess.Popen[Any]") -> None:
    """Kill ``proc`` and its process group (``engine.procgroup``), and wait (up to 5 s) until the
    group is gone: a wrapper's children die a moment after it."""
    kill_group(proc)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        proc.poll()                     # (reap our own child)
        if not group_left(proc):
            return
        time.sleep(0.01)


def _traceback(out: str) -> bool:
    """Whether ``out`` shows a stack trace (Python's, or one like Node's, Java's: "at f (file:12:5)")."""
    return "Traceback (most recent call last)" in out or bool(re.search(r"(?m)^\s+at \S.*:\d+(:\d+)?\)?$", out))


_P = TypeVar("_P", bound="subprocess.Popen[Any]")


@overload
def _start(argv: list[str], kind: None = None, **kw: Any) -> _Player: ...
@overload
def _start(argv: list[str], kind: type[_P], **kw: Any) -> _P: ...
def _start(argv: list[str], kind: type["subprocess.Popen[Any]"] | None = None, **kw: Any) -> "subprocess.Popen[Any]":
    """Start a program (a ``_Player`` unless ``kind`` says otherwise) in a process group of its
    own, kept in the running scenario's ``PROGRAMS``; a clear failure when it cannot be started at all."""
    try:
        proc = (kind or _Player)(argv, **NEW_GROUP, **kw)
    except OSError as e:
        raise Fail(f"cannot start {' '.join(argv)[:200]!r}: {e.strerror or e}") from None
    programs = PROGRAMS.get()
    if programs is not None:
        programs.add(proc)
    return proc


ANSWER_LIMIT = 1 << 20      # characters of one answer line of ``serve`` (an answer is a few hundred)


class Tail:
    """The end of what a program writes on a stream (``KEEP`` characters), read by a thread as it
    comes: a program that writes without end neither blocks on a full pipe nor fills memory or disk."""

    KEEP = 1 << 16

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream
        self._kept = ""
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        while True:
            try:
                chunk = self._stream.read(4096)
            except (OSError, ValueError):
                return
            if not chunk:
                return
            with self._lock:
                self._kept = (self._kept + chunk)[-self.KEEP:]

    def text(self, timeout: float = 0) -> str:
        """What was kept (waiting up to ``timeout`` s for the rest, once the stream has ended)."""
        self._reader.join(timeout)
        with self._lock:
            return self._kept


class Served:
    """An implementation under test in ``serve`` mode."""

    def __init__(self, cmd: str, board: Path, name: str, stale_after: float = 10.0, lock_timeout: float = 10.0,
                 secret: str | None = None) -> None:
        argv = command_words(cmd) + ["serve", "--board", str(board), "--name", name,
                                   "--stale-after", str(stale_after), "--lock-timeout", str(lock_timeout)]
        self.proc: subprocess.Popen[str] = _start(argv, subprocess.Popen, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, encoding="utf-8", errors="replace", env=_env(secret))
        self._requests = cast(IO[str], self.proc.stdin)
        self._answers = cast(IO[str], self.proc.stdout)
        # what it writes on stderr, its end kept (shown if it dies): read as it comes, never stored whole
        self._err = Tail(cast(IO[str], self.proc.stderr))

    def _why_silent(self) -> str:
        """How it ended, if it did: its exit code and the end of what it wrote on stderr."""
        code = self.proc.poll()
        if code is None:
            return ""
        err = self._err.text(timeout=2)[-400:].strip()
        return f" (exit code {code}" + (f"; it said: {err!r})" if err else ")")

    def ask(self, timeout: float = 30, **req: Any) -> dict[str, Any]:
        try:
            self._requests.write(json.dumps(req, ensure_ascii=False) + "\n")
            self._requests.flush()
        except OSError:
            pass                    # it exited (after its last answer, which is read below)
        box: dict[str, str] = {}

        def read() -> None:
            box["line"] = self._answers.readline(ANSWER_LIMIT + 1)     # (a line without its end: not read whole)

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
        if len(line) > ANSWER_LIMIT or not line.endswith("\n"):
            raise Fail(f"no answer to {req}: it wrote {line[:80]!r}... ({ANSWER_LIMIT} characters and more "
                       "without the end of the line)" if len(line) > ANSWER_LIMIT else
                       f"answer {line[:80]!r} does not end its line")
        try:
            answer: dict[str, Any] = json.loads(line)
            return answer
        except ValueError:
            raise Fail(f"answer is not JSON: {line[:80]!r}") from None

    def close(self) -> None:
        try:
            self._requests.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=0.5 if sys.exc_info()[0] is not None else 5)   # failing: no wait
        except subprocess.TimeoutExpired:
            _kill_group(self.proc)

    def end(self, timeout: float = 20) -> int:
        """End of input: the implementation closes its board and exits (its exit code)."""
        try:
            self._requests.close()
        except OSError:
            pass
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(self.proc)
            raise Fail(f"serve did not exit within {timeout} s of the end of its input") from None

    def kill(self) -> None:
        """Kill it at once (SIGKILL where there are signals), with what it started: it closes nothing."""
        _kill_group(self.proc)
        self.proc.wait()


def _reap(proc: "subprocess.Popen[Any]", timeout: float = 20) -> None:
    """Let a scenario's program end by itself for ``timeout`` s, then kill it; at once when the
    scenario is failing (called from a ``finally`` while its ``Fail`` propagates)."""
    if sys.exc_info()[0] is not None:
        timeout = 0.5
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()


def _exit_code(proc: "subprocess.Popen[Any]", timeout: float = 30) -> int:
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise Fail(f"the implementation kept running for {timeout} s") from None
    return proc.returncode


def _kill(proc: "subprocess.Popen[Any]") -> None:
    proc.kill()
    proc.wait()
