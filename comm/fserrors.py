"""What the file operations of a board raise, and what an error says about the board's disk
or share (docs/PROTOCOL.md T2-T5)."""
import errno
import time
from collections.abc import Callable
from typing import Any, TypeVar

_T = TypeVar("_T")

RETRY_ERRNOS = {errno.EBUSY, errno.EACCES, errno.EPERM, errno.EIO, errno.EAGAIN}

# T2-T5: what an error says about the board's disk or share, by errno (POSIX) and by winerror
# (Windows, looked at first: Python maps several of them to one errno).  The one table.
_E = {name: getattr(errno, name) for name in dir(errno) if name.startswith("E")}
_TROUBLE_ERRNOS = {
    "full": ("ENOSPC", "EDQUOT"),
    "readonly": ("EROFS",),
    "denied": ("EACCES", "EPERM"),
    "disconnected": ("ENOTCONN", "ESTALE", "EHOSTDOWN", "EHOSTUNREACH", "ENXIO", "ENODEV", "ENETDOWN",
                     "ENETUNREACH", "ENETRESET", "ECONNABORTED", "ECONNRESET", "ECONNREFUSED", "ETIMEDOUT",
                     "ENOMEDIUM", "EREMOTEIO", "ESHUTDOWN"),
    "io": ("EIO",),
}
_TROUBLE_WINERRORS = {
    "full": (39, 112, 1295),                # HANDLE_DISK_FULL, DISK_FULL, DISK_QUOTA_EXCEEDED
    "readonly": (19, 6009),                 # WRITE_PROTECT, FILE_READ_ONLY
    "denied": (5, 65),                      # ACCESS_DENIED, NETWORK_ACCESS_DENIED
    "disconnected": (21, 51, 53, 55, 59, 64, 67, 121, 1231, 1236, 2250),
    # NOT_READY, REM_NOT_LIST, BAD_NETPATH, DEV_NOT_EXIST, UNEXP_NET_ERR, NETNAME_DELETED,
    # BAD_NET_NAME, SEM_TIMEOUT, NETWORK_UNREACHABLE, CONNECTION_ABORTED, NOT_CONNECTED
    "io": (23, 1117),                       # CRC, IO_DEVICE
}
_NOT_TROUBLE_WINERRORS = {32, 33}           # SHARING_VIOLATION, LOCK_VIOLATION: a file in use
TROUBLE_BY_ERRNO = {_E[n]: kind for kind, names in _TROUBLE_ERRNOS.items() for n in names if n in _E}
TROUBLE_BY_WINERROR = {w: kind for kind, ws in _TROUBLE_WINERRORS.items() for w in ws}


class Swapped(OSError):
    """The folder at the board's path is not the board that was joined: its identity (F2b,
    ``cardstand.id``) is another, or gone while its marker is there.  Nothing was written."""

    def __str__(self) -> str:
        return self.strerror or ""


class NotRegular(OSError):
    """A name on the board that is not what it should be: a link where a file or folder
    belongs, a FIFO, device, socket or folder where a file belongs, a file where a folder
    belongs, or a file that cannot be opened at all.  ``filename`` is the relative path."""


def trouble(e: BaseException) -> str | None:
    """What an error says about the board's disk or share (T2-T5): "full", "readonly", "denied",
    "disconnected", "io", "swapped", or None (no such thing: the caller looks further)."""
    if isinstance(e, Swapped):
        return "swapped"
    if isinstance(e, NotRegular):       # a name that is not what it should be: one file's matter
        return "denied" if e.errno in (errno.EACCES, errno.EPERM) else None
    if not isinstance(e, OSError):
        return None
    win = getattr(e, "winerror", None)
    if win is not None:
        if win in _NOT_TROUBLE_WINERRORS:
            return None
        if win in TROUBLE_BY_WINERROR:
            return TROUBLE_BY_WINERROR[win]
    return TROUBLE_BY_ERRNO.get(e.errno)


def retry(fn: Callable[..., _T], *args: Any, attempts: int = 5, delay: float = 0.01, also: tuple[int, ...] = (),
          **kw: Any) -> _T:
    """Call ``fn``, retrying transient share errors (busy, EIO, and ``also``) a few times."""
    for i in range(attempts - 1):
        try:
            return fn(*args, **kw)
        except (FileNotFoundError, NotRegular):
            raise
        except OSError as e:
            if e.errno not in RETRY_ERRNOS and e.errno not in also:
                raise
            time.sleep(min(delay * (i + 1), 0.05))
    return fn(*args, **kw)
