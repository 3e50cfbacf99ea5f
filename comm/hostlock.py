"""This host's queue for one board: an exclusive lock on a file, tried without waiting.

The board's own lease (``lease.py``) decides who holds the board; this lock only lines up
the processes (and the threads) of one machine before they try it, so that they do not all
poll the board folder at once.  It is held by an open file: the system frees it when the
process ends, however it ends.  Each thread opens the file for itself, so that two threads
of one process queue on each other as two processes do.  One class per platform, chosen
once (``PlatformLock``):

* POSIX: ``fcntl.flock`` on the whole file;
* Windows: ``LockFile`` on its first byte.

The file stays open between tries and is closed on ``release``, which frees the lock
whatever state an interrupt left it in.  Where the file cannot be opened or locked (its
folder gone, no descriptors left, a file system without locks), the queue stands aside for
``ASIDE`` seconds: ``try_acquire`` answers True at once, after one warning, and the board's
lease alone orders the processes.
"""
import abc
import errno
import functools
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any, ClassVar

log = logging.getLogger("comm")

ASIDE = 60.0        # s the queue stands aside after the lock file could not be opened or locked
_warned: set[Path] = set()      # lock files whose trouble was logged (once a process)


class HostLock(abc.ABC):
    """An exclusive lock on ``path`` (created if need be, never followed if a link), held by
    the thread that took it."""

    BUSY: ClassVar[frozenset[int]]      # the errors of ``_lock`` that mean another holds the lock

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._mine = threading.local()  # this thread's open lock file (fd) and whether it is locked
        self.aside_since: float | None = None   # when the queue last stood aside (monotonic)

    @property
    def _fd(self) -> int | None:
        fd: int | None = getattr(self._mine, "fd", None)
        return fd

    @property
    def held(self) -> bool:
        """Whether this thread may hold the lock: its file is open, and ``release`` is due.
        (An interrupt landing just as the lock was taken leaves it held without our knowing;
        closing the file frees it.)"""
        return self._fd is not None

    def try_acquire(self) -> bool:
        """Take the lock for this thread if it is free; True when it is ours (or when the queue
        stands aside)."""
        mine = self._mine
        if getattr(mine, "locked", False):
            return True
        if self.aside_since is not None:
            if time.monotonic() - self.aside_since < ASIDE:
                return True
            self.aside_since = None
        try:
            if self._fd is None:
                mine.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
                                  | getattr(os, "O_BINARY", 0), 0o600)
            self._lock(mine.fd)
        except OSError as e:
            if e.errno in self.BUSY and self._fd is not None:
                return False
            self.release()
            self.aside_since = time.monotonic()
            if self.path not in _warned:
                _warned.add(self.path)
                log.warning("no host-local lock queue for now: %s cannot be locked (%s); the board's "
                            "lock alone orders processes", self.path, e.strerror or e)
            return True
        mine.locked = True
        return True

    def release(self) -> None:
        """Leave the lock (and close this thread's file); nothing happens when it is not held."""
        mine = self._mine
        fd, locked = self._fd, getattr(mine, "locked", False)
        mine.fd, mine.locked = None, False
        if fd is None:
            return
        try:
            if locked:
                self._unlock(fd)
        except OSError as e:      # closing the file frees it all the same
            log.debug("unlocking %s: %s", self.path, e)
        finally:
            os.close(fd)

    @abc.abstractmethod
    def _lock(self, fd: int) -> None:
        """Lock the open file without waiting; OSError (``BUSY``) when another holds it."""

    @abc.abstractmethod
    def _unlock(self, fd: int) -> None:
        """Unlock the open file (its close would do it as well)."""


class FlockLock(HostLock):
    BUSY = frozenset({errno.EAGAIN, errno.EWOULDBLOCK})

    def _lock(self, fd: int) -> None:
        import fcntl
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(self, fd: int) -> None:
        import fcntl
        fcntl.flock(fd, fcntl.LOCK_UN)


class Win32Lock(HostLock):
    """``LockFile`` on the file's first byte.  (Not ``msvcrt.locking``: under Wine it reports
    a lock held by another file with errno 0, not EACCES, so that busy cannot be told from
    broken there.)"""

    BUSY = frozenset({errno.EACCES})    # (what ``_win32`` makes of a lock violation)

    def _lock(self, fd: int) -> None:
        _win32("LockFile", fd)

    def _unlock(self, fd: int) -> None:
        _win32("UnlockFile", fd)


_LOCK_VIOLATION = 33    # Windows' error for a region another open file has locked


def _win32(name: str, fd: int) -> None:
    """kernel32's ``LockFile`` or ``UnlockFile`` on the first byte of an open file; OSError
    (EACCES when another holds it) where it fails."""
    import ctypes
    import msvcrt
    if not _kernel32()[name](msvcrt.get_osfhandle(fd), 0, 0, 1, 0):     # type: ignore[attr-defined]
        err = ctypes.get_last_error()       # type: ignore[attr-defined]
        raise OSError(errno.EACCES if err == _LOCK_VIOLATION else errno.EIO,
                      f"{name}: {ctypes.FormatError(err)}")     # type: ignore[attr-defined]


@functools.cache
def _kernel32() -> dict[str, Any]:
    import ctypes
    k32 = ctypes.WinDLL("kernel32", use_last_error=True)       # type: ignore[attr-defined]
    calls = {}
    for name in ("LockFile", "UnlockFile"):
        f = getattr(k32, name)
        f.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint32]
        f.restype = ctypes.c_int
        calls[name] = f
    return calls


PlatformLock: type[HostLock] = Win32Lock if os.name == "nt" else FlockLock
