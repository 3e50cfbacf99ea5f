"""The process one's own strategy plays in (``engine.loader.Own`` starts it, through
``loader.BOOT``: ``main([SPEC, OPTIONS_JSON])``).

It loads ``SPEC`` and makes the class, then answers requests, one JSON object a line on its
standard input (``{"pos": [size, P, O, turn, holes], "limit": seconds}``), with one JSON object a
line on its standard output (``{"move": N}`` or ``{"error": why}``); the first line it writes is
``{"ready": name}`` or ``{"failed": why}``.  The strategy's own prints go to standard error and
its reads of standard input find nothing: neither can disturb the conversation.  It ends when
its input ends.  Its memory is limited to ``CARDSTAND_AI_MEMORY`` megabytes where the system
can (POSIX's ``RLIMIT_AS``; 0: no limit); the limit holds for what it starts too.
"""
import json
import os
import signal
import sys
import threading
import time
from typing import Any, TextIO

from . import loader
from .position import Position


def _channels() -> tuple[TextIO, TextIO]:
    """The conversation's input and output, kept apart from what the strategy may use."""
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)       # print() and C's printf of the strategy: to standard error
    sys.stdin = open(os.devnull, encoding="utf-8")
    sys.stdout = sys.stderr
    return requests, replies


def _send(out: TextIO, value: dict[str, Any]) -> None:
    out.write(json.dumps(value) + "\n")
    out.flush()


def _watch_parent() -> None:
    """End when the game's process has gone (killed: it could not stop us), even in the middle of
    a move, and take what the strategy started with it: this process leads its own group."""
    parent = os.getppid()
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            _end_group()


def _end_group() -> None:
    try:
        if os.getpgrp() == os.getpid():
            os.killpg(os.getpid(), signal.SIGKILL)      # (this process too)
    except OSError:
        pass
    os._exit(0)


def _die_with_parent() -> None:
    """SIGTERM (the game's own stop, and on Linux the kernel's word that the game's process has
    ended: at once, not at the watching thread's next look) ends this process and its group."""
    signal.signal(signal.SIGTERM, lambda signum, frame: _end_group())
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM, 0, 0, 0)     # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _limit_memory() -> str:
    """Limit this process's memory to ``CARDSTAND_AI_MEMORY`` megabytes (POSIX); the words for a
    MemoryError, or '' without a limit."""
    mb = loader.memory_limit()
    if not mb:
        return ""
    words = f" (its memory is limited to {mb} MB: CARDSTAND_AI_MEMORY sets it)"
    try:
        import resource
    except ImportError:         # (Windows: the game's process put this one in a job object that limits it)
        return words
    limit = mb * 1024 * 1024
    for name in ("RLIMIT_AS", "RLIMIT_DATA"):     # (macOS enforces the data segment's)
        which = getattr(resource, name, None)
        if which is None:
            continue
        try:
            hard = resource.getrlimit(which)[1]
            resource.setrlimit(which, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard))
        except (ValueError, OSError):
            continue
    return words


def main(argv: list[str]) -> int:
    if hasattr(signal, "SIGINT"):
        signal.signal(signal.SIGINT, signal.SIG_IGN)     # Ctrl+C is for the game, which stops us
    if os.name != "nt":
        _die_with_parent()
        threading.Thread(target=_watch_parent, daemon=True).start()
    requests, replies = _channels()
    if len(argv) != 2:
        _send(replies, {"failed": "usage: engine.ownchild.main([SPEC, OPTIONS_JSON])"})
        return 2
    spec = argv[0]
    over = _limit_memory()
    # package.module:CLASS beside where the game was started: after Python's own modules, so that
    # a file there named like one of them (random.py) is never imported in its place
    if os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())
    try:
        options = json.loads(argv[1])
        cls = loader.resolve(spec)
        folder = loader.folder_of(spec)
        if folder and folder not in sys.path:
            sys.path.append(folder)      # (its helper modules, imported later, are found too)
        strategy = loader.make(cls, **options)
        name = loader.name_of(strategy, cls)
    except loader.StrategyError as e:
        _send(replies, {"failed": str(e) + (over if "MemoryError" in str(e) else "")})
        return 0
    except BaseException as e:      # noqa: BLE001 - exit() or Ctrl+C raised by the file itself
        _send(replies, {"failed": f"{spec} does not load: {loader.where(e)}" + (over if isinstance(e, MemoryError) else "")})
        return 0
    _send(replies, {"ready": name})
    try:
        _answer(requests, replies, strategy, over)
    except MemoryError:     # (reading the next request, with the strategy holding all it may have)
        os._exit(loader.OUT_OF_MEMORY)
    return 0


def _answer(requests: TextIO, replies: TextIO, strategy: Any, over: str) -> None:
    for line in requests:
        try:
            request = json.loads(line)
            size, P, O, turn, holes = request["pos"]
            position = Position(size, P, O, turn, holes)
            limit = request.get("limit")
        except (ValueError, KeyError, TypeError):
            _send(replies, {"error": "a request that is not one"})
            continue
        try:
            move = strategy.next_move(position, limit)
            reply = loader.answer(position, move)
        except BaseException as e:      # noqa: BLE001 - someone else's code: said, never a crash
            reply = {"error": loader.where(e) + (over if isinstance(e, MemoryError) else "")}
        _send(replies, reply)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
