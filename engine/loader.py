"""Your own computer player, by name, wherever a built-in one goes.

``--ai`` takes a built-in name (``best``), and also:

- ``FILE.py:CLASS``: a class in a Python file (``mybot.py:Corners``); ``FILE.py`` alone when the
  file defines exactly one strategy class;
- ``package.module:CLASS``: a class in an importable module;
- a name that an installed package announces in the entry-point group ``cardstand.strategies``
  (``[project.entry-points."cardstand.strategies"] corners = "mybots:Corners"``).

A class is a strategy when it has a ``next_move(position, time_limit=None)`` method (subclassing
``engine.strategies.Strategy`` is the documented way).  Anything that goes wrong is a
``StrategyError`` whose message names the file and line where there is one.

Once loaded, a strategy is not trusted to behave: ``Own`` plays it in a process of its own and
asks it for a move with a time limit; an exception, an illegal answer, an exit or a think that
overruns gives the fallback's move and the reason, never a traceback and never a hang.  That
process is bounded: what it starts is stopped with it (POSIX: its process group; Windows: a job
object), what it prints is shown up to ``SHOWN_A_MINUTE`` bytes a minute, its memory is
limited to ``CARDSTAND_AI_MEMORY`` megabytes (default ``MEMORY_MB``, 0: no limit), and it
imports only what its spec names: the start folder and the file's folder come after Python's
own modules on its path, never before.
"""
from __future__ import annotations

import atexit
import importlib
import importlib.machinery
import importlib.util
import inspect
import json
import operator
import os
import queue
import re
import subprocess
import sys
import threading
import time
import traceback
import weakref
from pathlib import Path
from typing import Any, Optional

from .notation import PASS, square_name
from .position import Position
from .procgroup import NEW_GROUP, contain, kill_group, release

GROUP = "cardstand.strategies"
GRACE = 1.0     # seconds a strategy may overrun its time limit before its move is not waited for
DEFAULT_LIMIT = 10.0    # seconds a move may take when no time limit is given
LOAD_LIMIT = 30.0       # seconds a strategy's file may take to load and make its class
NAME_LIMIT = 64         # characters of a strategy's name kept
MAX_REPLY = 1 << 16     # bytes of one answer from a strategy's process
MEMORY_MB = 2048        # megabytes of memory one's own strategy's process may use (CARDSTAND_AI_MEMORY)
LEAST_MB = 64           # (less does not start Python with the engine)
OUT_OF_MEMORY = 75      # the exit code of a strategy's process that ran out of its memory
SHOWN_A_MINUTE = 64 * 1024      # bytes of what a strategy prints that are shown a minute; the rest is counted
# the child's first statement: Python put the current folder first on its path (``-c``); only
# the folders the spec names are put on it, after Python's own modules (``engine.ownchild``)
BOOT = ("import os, sys; sys.path[:1] == [''] and sys.path.pop(0); "
        "sys.path.append(os.environ['CARDSTAND_ENGINE_HOME']); "
        "from engine.ownchild import main; sys.exit(main(sys.argv[1:]))")
MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


class StrategyError(ValueError):
    """A strategy that cannot be loaded or made; the message says which file, line and why."""


def is_spec(name: str) -> bool:
    """Whether ``name`` names one's own strategy (a file or a module and a class) rather than a
    built-in or announced name."""
    return ":" in name or name.lower().endswith(".py")


def resolve(name: str) -> type:
    """The class ``name`` names: ``FILE.py[:CLASS]``, ``package.module:CLASS`` or an announced
    name (see the module's docstring).  ``StrategyError`` says why not."""
    if not is_spec(name):
        for ep in announced():
            if ep.name.lower() == name.lower():
                try:
                    cls = ep.load()
                except BaseException as e:      # noqa: BLE001 - someone else's code: any failure is theirs
                    raise StrategyError(f"strategy {name!r} ({ep.value}) does not load: {where(e)}") from None
                return _check_class(cls, f"{ep.value}")
        raise StrategyError(f"unknown AI {name!r}")
    if name.lower().endswith(".py"):
        target, cls_name = name, ""
    else:
        target, _, cls_name = name.rpartition(":")
        if not cls_name.isidentifier():
            raise StrategyError(f"{name!r}: {cls_name!r} is not a class name (write FILE.py:CLASS or "
                                f"package.module:CLASS)")
    if target.lower().endswith(".py"):
        module = _load_file(Path(target))
        place = target
    elif MODULE.fullmatch(target):
        try:
            module = importlib.import_module(target)
        except BaseException as e:      # noqa: BLE001 - exit() in a module is its failure too
            hint = (f" (a module beside the game's folder, or installed; for a file write {target}.py:CLASS)"
                    if isinstance(e, ModuleNotFoundError) and e.name == target.split(".")[0] else "")
            raise StrategyError(f"module {target!r} does not load: {where(e)}{hint}") from None
        place = target
    else:
        raise StrategyError(f"{name!r}: write FILE.py:CLASS or package.module:CLASS")
    if not cls_name:
        found = [c for _, c in inspect.getmembers(module, inspect.isclass)
                 if c.__module__ == module.__name__ and _is_strategy(c)]
        if len(found) != 1:
            names = ", ".join(c.__name__ for c in found)
            raise StrategyError(f"{place}: {'no strategy class' if not found else 'several strategy classes (' + names + ')'}"
                                f": name one, as {place}:CLASS")
        return found[0]
    cls = getattr(module, cls_name, None)
    if cls is None:
        raise StrategyError(f"{place}: no class {cls_name!r} in it")
    return _check_class(cls, f"{place}:{cls_name}")


def make(cls: type, **options: Any) -> Any:
    """An instance of one's own strategy class; ``options`` it does not take are left out."""
    try:
        params = inspect.signature(cls).parameters
        takes_all = any(p.kind is p.VAR_KEYWORD for p in params.values())
        kept = {k: v for k, v in options.items() if takes_all or k in params}
        return cls(**kept)
    except BaseException as e:      # noqa: BLE001 - exit() in a constructor is its failure too
        raise StrategyError(f"{cls.__name__}() fails: {where(e)}") from None


def name_of(strategy: Any, cls: type) -> str:
    """The name a strategy is shown by: its ``name`` when that is a short text other than the
    base class's, else its class's name."""
    try:
        name = getattr(strategy, "name", None)
    except BaseException:       # noqa: BLE001 - a property that raises
        name = None
    if not isinstance(name, str) or not name.strip() or name == "strategy":
        name = cls.__name__
    return " ".join(name.split())[:NAME_LIMIT]


def folder_of(spec: str) -> str:
    """The folder of a ``FILE.py[:CLASS]`` spec's file ('' for a module or a name)."""
    target = spec if spec.lower().endswith(".py") else spec.rpartition(":")[0]
    if not target.lower().endswith(".py"):
        return ""
    try:
        return str(Path(target).resolve().parent)
    except (OSError, RuntimeError):
        return ""


def announced() -> list[Any]:
    """The strategies installed packages announce (entry-point group ``cardstand.strategies``:
    ``importlib.metadata.EntryPoint``s)."""
    import importlib.metadata     # (only when asked: it costs a start-up some 30 ms)
    try:
        return list(importlib.metadata.entry_points(group=GROUP))
    except Exception:       # noqa: BLE001 - a broken distribution must not stop the built-in ones
        return []


class Own:
    """One's own strategy ``spec``, played in a process of its own (``engine.ownchild``): whatever
    it does there (print, read the input, start threads or processes, hold the interpreter, exit)
    the game's process goes on.  ``next_move`` always returns a legal move: when the strategy
    raises, answers what is not a legal move, stops, or has not answered ``GRACE`` seconds after
    the time limit (then it is stopped and started again at once, and a move that comes while it
    is still loading is the fallback's too), the ``fallback``'s move is played and ``problem``
    says why ('' after a good move; ``problems`` counts them).

    Making one loads the file and makes the class at once (waiting up to ``LOAD_LIMIT`` s, or
    ``load_limit``: then one that is still loading plays its first move late, the fallback's meanwhile):
    ``StrategyError`` says why it cannot.  ``memory_mb``: the process's memory limit (None: the
    ``CARDSTAND_AI_MEMORY`` variable, else ``MEMORY_MB``; 0: none)."""

    def __init__(self, spec: str, fallback: Any, options: Optional[dict[str, Any]] = None,
                 memory_mb: Optional[int] = None, load_limit: Optional[float] = None) -> None:
        self.spec = spec
        self.fallback = fallback
        self.options = {k: v for k, v in (options or {}).items() if isinstance(v, (int, float, str, bool))}
        self.memory_mb = memory_limit() if memory_mb is None else memory_mb
        self.name = ""
        self.problem = ""
        self.problems = 0
        self.nodes = 0
        self._proc: Optional[subprocess.Popen[bytes]] = None
        self._follower: Optional[threading.Thread] = None     # reads what the child prints
        self._job: Optional[int] = None     # Windows: the job object the child runs in
        self._prints = _Prints(spec)        # (one bound for all the child's runs)
        _OPEN.add(self)                     # (closed at this program's exit, whatever else happens)
        self._replies: Optional["queue.Queue[Optional[dict[str, Any]]]"] = None
        self._ready = False
        self._spawn()
        self._await_ready(LOAD_LIMIT if load_limit is None else min(LOAD_LIMIT, load_limit))
        if not self._ready and load_limit is None:
            self.close()
            raise StrategyError(f"{self.spec}: did not load within {LOAD_LIMIT:g} s")
        # (with ``load_limit``: a one-shot move's whole time; the move asked now is the fallback's
        # if the strategy has not loaded by then, said so)

    # -- the child ---------------------------------------------------------------------------
    def _spawn(self) -> None:
        """Start the child; it loads the strategy meanwhile (``_await_ready``)."""
        env = dict(os.environ)
        # (the engine's folder goes after Python's own modules too: a random.py beside black.py
        # is not what the strategy's ``import random`` finds)
        env["CARDSTAND_ENGINE_HOME"] = str(Path(__file__).resolve().parent.parent)
        env["PYTHONIOENCODING"] = "utf-8"
        env["CARDSTAND_AI_MEMORY"] = str(self.memory_mb)
        try:
            proc = subprocess.Popen([sys.executable, "-c", BOOT, self.spec, json.dumps(self.options)],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    env=env, **NEW_GROUP)  # Ctrl+C at the terminal is for the game, which stops it
        except OSError as e:
            raise StrategyError(f"{self.spec}: cannot start a process for it: {e.strerror or e}") from None
        self._proc = proc
        self._job = contain(proc, self.memory_mb)     # (Windows: what it starts, and its memory)
        self._ready = False
        self._replies = queue.Queue()
        threading.Thread(target=_read_replies, args=(proc, self._replies), daemon=True,
                         name=f"replies of {self.spec}").start()
        self._follower = threading.Thread(target=self._prints.follow, args=(proc,), daemon=True,
                                          name=f"prints of {self.spec}")
        self._follower.start()

    def _await_ready(self, wait: float) -> None:
        """Wait up to ``wait`` s for the child to have loaded (``_ready``); ``StrategyError`` when
        it cannot load (it said why, or it ended)."""
        reply = self._reply(wait)
        if reply is None:
            return
        if "ready" not in reply:
            why = reply.get("failed") or self._gone_why(reply, "")
            self.close()
            raise StrategyError(str(why))
        self._ready = True
        self.name = self.name or str(reply["ready"])[:NAME_LIMIT] or "own"

    def _reply(self, wait: float) -> Optional[dict[str, Any]]:
        """The child's next answer; None when it has ended or said nothing within ``wait`` s."""
        assert self._replies is not None
        try:
            return self._replies.get(timeout=max(wait, 0.0))
        except queue.Empty:
            return None

    def _gone_why(self, reply: Optional[dict[str, Any]], waited: str) -> str:
        """Why no answer came: the child ended (``reply`` says its output ended), or ``waited``."""
        proc = self._proc
        if reply is not None and reply.get("eof") and proc is not None:
            try:
                proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                return f"{self.spec}: its output ended"
            if proc.returncode == OUT_OF_MEMORY:
                return (f"{self.spec}: it ran out of memory (its memory is limited to {self.memory_mb} MB: "
                        f"CARDSTAND_AI_MEMORY sets it)")
            return f"{self.spec}: the program stopped (exit code {proc.returncode})"
        return f"{self.spec}: {waited}"

    def close(self, wait: float = 0.5) -> None:
        """Stop the child and whatever it started (a strategy's process is never left behind),
        after ``wait`` seconds for it to end by itself at the end of its input."""
        proc, self._proc = self._proc, None
        self._ready = False
        if proc is None:
            return
        try:
            if proc.stdin is not None:
                proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            pass
        kill_group(proc)        # (the child, if it is still there, and what it started)
        job, self._job = self._job, None
        release(job)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        # what it printed last, and the line that counts what was not shown, before we go on (or
        # exit): its standard error ends with it, unless something it started keeps it open
        follower = self._follower
        if follower is not None and follower is not threading.current_thread():
            follower.join(timeout=0.25)
        self._prints.take(b"")

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:       # noqa: BLE001 - at interpreter exit anything may be gone
            pass

    # -- a move --------------------------------------------------------------------------------
    def next_move(self, position: Position, time_limit: Optional[float] = None) -> int:
        move, problem = self._ask(position, DEFAULT_LIMIT if time_limit is None else time_limit)
        if problem:
            move = self.fallback.next_move(position)
        self.problem = f"{self.name or self.spec}: {problem}" if problem else ""
        self.problems += bool(problem)
        return move

    def _ask(self, position: Position, limit: float) -> tuple[int, str]:
        started = time.monotonic()
        if self._proc is None or self._proc.poll() is not None:
            self.close()
            try:
                self._spawn()
            except StrategyError as e:
                return PASS, f"cannot be started again: {e}"
        if not self._ready:
            try:
                self._await_ready(limit)
            except StrategyError as e:
                return PASS, f"cannot be started again: {e}"
            if not self._ready:
                return PASS, f"still loading: not ready within the move's {limit:.3g} s"
        assert self._proc is not None and self._proc.stdin is not None
        left = max(limit - (time.monotonic() - started), 0.0)
        request = {"pos": [position.size, position.player, position.opponent, position.turn, position.holes],
                   "limit": left}
        try:
            self._proc.stdin.write((json.dumps(request) + "\n").encode())
            self._proc.stdin.flush()
        except OSError:
            self.close()
            return PASS, "its process has gone"
        reply = self._reply(left + GRACE)
        if reply is None or reply.get("eof"):
            why = self._gone_why(reply, f"no move within {limit:.3g} s (stopped; started again for the next move)")
            self.close(wait=0)      # (it overran: the fallback's move is due now)
            if reply is None:
                try:
                    self._spawn()       # loading while the game goes on: ready, or not, at the next move
                except StrategyError:
                    pass                # (said at the next move)
            return PASS, why.split(": ", 1)[-1]
        if "error" in reply:
            return PASS, str(reply["error"])[:2000]
        move = reply.get("move")
        problem = _illegal(position, move)
        return (move, "") if not problem and isinstance(move, int) else (PASS, problem)

    def ponder(self, position: Position) -> None:
        """(one's own strategies do not think in the background)"""

    def stop_pondering(self) -> None:
        """(nothing to stop)"""


def memory_limit() -> int:
    """Megabytes one's own strategy's process may use: ``CARDSTAND_AI_MEMORY`` (0: no limit; at
    least ``LEAST_MB``), else ``MEMORY_MB``; ``StrategyError`` for a value that is none of these."""
    value = os.environ.get("CARDSTAND_AI_MEMORY", "").strip()
    if not value:
        return MEMORY_MB
    if not (value.isascii() and value.isdigit() and len(value) <= 9) or 0 < int(value) < LEAST_MB:
        raise StrategyError(f"CARDSTAND_AI_MEMORY={value[:20]!r}: give a whole number of megabytes, "
                            f"{LEAST_MB} or more (0: no limit; unset: {MEMORY_MB})")
    return int(value)


_OPEN: "weakref.WeakSet[Own]" = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    """Every strategy's process still open is stopped, with what it started, as this program ends
    (by its end, an exception, or SIGTERM, which the commands turn into an exit)."""
    for own in list(_OPEN):
        try:
            own.close(wait=0)
        except Exception:       # noqa: BLE001 - at exit: the others still
            pass


class _Prints:
    """What a strategy prints (its standard error), shown on ours: up to ``SHOWN_A_MINUTE`` bytes
    a minute for the strategy, whatever runs of its process there were, control characters (a
    terminal's escape sequences) shown as ``?``; the rest read and counted, said in one line a
    minute (its process never blocks on them)."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.lock = threading.Lock()
        self.window, self.shown, self.hidden = time.monotonic(), 0, 0
        self.at_line_start = True

    def follow(self, proc: "subprocess.Popen[bytes]") -> None:
        assert proc.stderr is not None
        fd = proc.stderr.fileno()
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                chunk = b""
            self.take(chunk)
            if not chunk:
                return

    def take(self, chunk: bytes) -> None:
        with self.lock:
            now = time.monotonic()
            if now - self.window >= 60 or (not chunk and self.hidden):
                if self.hidden:
                    self._write(("" if self.at_line_start else "\n")
                                + f"[{self.spec} printed {self.hidden} more bytes this minute: not shown]\n")
                    self.at_line_start = True
                self.window, self.shown, self.hidden = now, 0, 0
            room = max(SHOWN_A_MINUTE - self.shown, 0)
            part = chunk[:room]
            if part:
                text = _PRINTABLE.sub("?", part.decode("utf-8", "replace"))
                self._write(text)
                self.at_line_start = text.endswith("\n")
            self.shown += len(part)
            self.hidden += len(chunk) - len(part)

    @staticmethod
    def _write(text: str) -> None:
        try:
            sys.stderr.write(text)
            sys.stderr.flush()
        except (OSError, ValueError, UnicodeEncodeError):     # (our standard error closed, or narrow)
            pass


# control characters but tab and newline, and the format characters that reorder text (bidi)
_PRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def _read_replies(proc: "subprocess.Popen[bytes]", out: "queue.Queue[Optional[dict[str, Any]]]") -> None:
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline(MAX_REPLY + 1)
        if not line or len(line) > MAX_REPLY:
            out.put({"eof": True})
            return
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            out.put(value)


def _illegal(position: Position, move: object) -> str:
    if isinstance(move, bool) or not isinstance(move, int):
        return f"next_move returned {brief(move)}, not a square index"
    if move == PASS:
        return "" if not position.legal_moves_mask() else "it passed with a legal move to play"
    if not 0 <= move < position.size * position.size:
        return f"next_move returned {move}, off the {position.size}x{position.size} board"
    if not position.is_legal(move):
        return f"{square_name(move, position.size)} is not a legal move"
    return ""


def brief(value: object) -> str:
    """``value`` shown in a message about what someone's code returned: its ``repr``, cut short."""
    try:
        s = repr(value)
    except Exception:       # noqa: BLE001 - a huge int (over 4300 digits), a __repr__ that raises
        return "a number too long to show" if isinstance(value, int) else f"a {type(value).__name__}"
    return s if len(s) <= 40 else s[:37] + "..."


def answer(position: Position, move: object) -> dict[str, Any]:
    """What a strategy's process sends back for ``move`` (``engine.ownchild``): ``{"move": N}`` for
    a square index or ``PASS`` (any integer type, numpy's too), else ``{"error": why}``."""
    if isinstance(move, bool):
        return {"error": f"next_move returned {move}, not a square index"}
    try:
        m = int(operator.index(move))    # type: ignore[arg-type]
    except Exception:       # noqa: BLE001 - whatever it returned
        return {"error": f"next_move returned {brief(move)}, not a square index"}
    if m != PASS and not 0 <= m < position.size * position.size:
        shown = m if -10 ** 9 < m < 10 ** 9 else "a number"
        return {"error": f"next_move returned {shown}, off the {position.size}x{position.size} board"}
    return {"move": m}


def _is_strategy(cls: type) -> bool:
    return callable(getattr(cls, "next_move", None))


def _check_class(cls: object, place: str) -> type:
    if not isinstance(cls, type):
        raise StrategyError(f"{place} is not a class")
    if not _is_strategy(cls):
        raise StrategyError(f"{place} is not a strategy: it has no next_move(position, time_limit) method")
    return cls


def _load_file(path: Path) -> Any:
    try:
        real = path.resolve()
    except (OSError, RuntimeError) as e:
        raise StrategyError(f"{path}: {e}") from None
    if not real.is_file():
        raise StrategyError(f"{path}: {'no such file' if not real.exists() else 'not a file'}")
    name = f"cardstand_user_{re.sub(r'[^A-Za-z0-9_]', '_', real.stem)}"
    spec = importlib.util.spec_from_file_location(name, real, loader=importlib.machinery.SourceFileLoader(name, str(real)))
    if spec is None or spec.loader is None:
        raise StrategyError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    if str(real.parent) not in sys.path:      # (its own helper modules beside it import, after Python's own)
        sys.path.append(str(real.parent))
    try:
        spec.loader.exec_module(module)
    except BaseException as e:      # noqa: BLE001 - exit() and Ctrl+C raised by the file are its errors too
        del sys.modules[name]
        raise StrategyError(f"{path} does not load: {where(e)}") from None
    return module


def where(e: BaseException) -> str:
    """``FILE, line N: Kind: message`` for an exception raised in someone's code (the last frame
    outside this package), or ``Kind: message``; at most 500 characters."""
    try:
        message = str(e)
    except Exception:       # noqa: BLE001 - a __str__ that raises
        message = ""
    text = f"{type(e).__name__}: {message}".strip().rstrip(":")
    if isinstance(e, SyntaxError) and e.filename:
        text = f"{e.filename}, line {e.lineno}: {type(e).__name__}: {e.msg}"
    else:
        here = os.path.dirname(os.path.abspath(__file__)) + os.sep
        frames = [f for f in traceback.extract_tb(e.__traceback__)
                  if not os.path.abspath(f.filename).startswith(here) and "importlib" not in f.filename]
        if frames:
            text = f"{frames[-1].filename}, line {frames[-1].lineno}: {text}"
    return text if len(text) <= 500 else text[:497] + "..."
