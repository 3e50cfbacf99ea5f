"""Small file operations that behave the same on local disks and network shares, and never
follow a link planted in a folder that other people can write.

Only operations that NFS and SMB clients honour are used: mkdir, write, fsync, rename,
unlink.  Files are always closed before they are renamed or removed (SMB refuses to unlink
an open file), and files are found by opening their known names rather than by trusting a
(possibly cached) listing.

**A folder others can write** (the board, see docs/PROTOCOL.md B6-B8): ``Root(folder)`` reaches
everything below ``folder`` one name at a time from directory handles, so that no symbolic
link (or Windows junction / reparse point) below it is ever followed, not even one swapped in
between a check and an act:

* POSIX: each folder is opened with ``O_DIRECTORY | O_NOFOLLOW`` relative to its parent's
  descriptor, and files are opened, created, renamed, removed and listed with ``dir_fd=``
  (``openat``, ``renameat``, ``unlinkat``, ...).  A link is then an error, never a way out.
* Windows has no ``dir_fd``: every name is checked with ``lstat`` (a link, or any reparse
  point such as a junction, is refused) just before it is used.  **The race is open there**:
  a link swapped in between the check and the act is followed.

Files are opened ``O_NOFOLLOW | O_NONBLOCK`` and checked with ``fstat``: only regular files
are read (a FIFO never blocks, a folder or device is refused), at most the size the caller
asks for.  What is not what it should be raises ``NotRegular`` (or reads as missing, for
callers that do not ask).  The folder ``folder`` itself may be a link: that is the user's
choice.

The API for code that keeps its own files on the board (``peer`` keeps ``records/``)::

    root = fsops.Root.for_folder(board_folder)     # one per folder and process
    root.replace("records/current", data)          # scratch file in tmp/, then one rename
    text = root.read_text("records/current")       # None when missing or not a regular file
    root.ensure_dir("records")                     # a real folder: a link is set aside first

Paths given to a ``Root`` are relative, ``/``-separated, and may not contain ``..``, ``.``,
empty or absolute parts (``ValueError``).  The older path-taking helpers below
(``replace_with``, ``read_text``, ``read_bytes``, ``remove``, ``remove_tree``, ...) route a path
under a folder opened with ``Root.for_folder`` through that ``Root``; any other path is handled
the same way below its parent folder (only the last names are protected then).
"""
import errno
import logging
import os
import re
import socket
import stat
import threading
import time
import uuid
from abc import ABC, abstractmethod
from contextlib import contextmanager
from pathlib import Path
from typing import Generic, TypeVar

log = logging.getLogger("comm")

HOST = socket.gethostname() or "host"
_HOST_IN_NAMES = re.sub(r"[^A-Za-z0-9.-]", "_", HOST)[:24] or "host"
_RETRY_ERRNOS = {errno.EBUSY, errno.EACCES, errno.EPERM, errno.EIO, errno.EAGAIN}

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

_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_O_BINARY = getattr(os, "O_BINARY", 0)
_O_PATH = getattr(os, "O_PATH", 0)          # Linux: a handle for *at() calls, opens nothing

# Directory handles close the race between checking a name and using it (``DirFdRoot``, else
# ``PortableRoot``).  Tests switch this off to run the portable (Windows) code on POSIX too.
USE_DIR_FD = (os.name != "nt" and bool(_O_NOFOLLOW and _O_DIRECTORY)
              and {os.open, os.mkdir, os.rename, os.unlink, os.rmdir, os.stat} <= os.supports_dir_fd
              and os.scandir in os.supports_fd)

_WALK = (_O_PATH or os.O_RDONLY) | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC
_LIST = os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC
_READ = os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC | _O_BINARY
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | _O_CLOEXEC | _O_BINARY
# what open(O_NOFOLLOW) says about a link: Linux/macOS ELOOP, FreeBSD EMLINK, NetBSD EFTYPE
_LINK_ERRNOS = {errno.ELOOP, errno.EMLINK, getattr(errno, "EFTYPE", errno.ELOOP)}
_REPARSE = getattr(stat, "FILE_ATTRIBUTE_REPARSE_POINT", 0x400)
_IDENTITY = re.compile(r"[0-9A-Za-z]{8,64}")
_UNSET = object()

FILE_MODE = 0o664        # board files: the folder's group can replace and remove them
DIR_MODE = 0o2775        # board folders: group-writable, new entries keep the folder's group


def _read_umask():
    try:
        with open("/proc/self/status", "rb") as f:
            for line in f:
                if line.startswith(b"Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    if os.name == "nt":
        return 0
    old = os.umask(0o022)   # no way to read it without setting it (at import: no threads yet)
    os.umask(old)
    return old


_UMASK = _read_umask()
_CHMOD_FILES = os.name != "nt" and bool(_UMASK & (FILE_MODE & 0o777))
_CHMOD_DIRS = os.name != "nt"


def make_group_writable(folder):
    """chmod a folder this process just made to ``DIR_MODE``, through a handle opened without
    following a link (a link swapped in is never chmodded).  Errors are ignored (shares)."""
    if os.name == "nt":
        return
    try:
        fd = os.open(folder, _LIST)
    except OSError:
        return
    try:
        os.fchmod(fd, DIR_MODE)
    except OSError:
        pass
    finally:
        os.close(fd)


def new_token():
    """A name-safe identifier unique across hosts and processes."""
    return uuid.uuid4().hex[:16]


class Swapped(OSError):
    """The folder at the board's path is not the board that was joined: its identity (F2b,
    ``cardstand.id``) is another, or gone while its marker is there.  Nothing was written."""

    def __str__(self):
        return self.strerror


class NotRegular(OSError):
    """A name on the board that is not what it should be: a link where a file or folder
    belongs, a FIFO, device, socket or folder where a file belongs, a file where a folder
    belongs, or a file that cannot be opened at all.  ``filename`` is the relative path."""


def _kind(st):
    """What a file is, in words, from its lstat."""
    if st is None:
        return "missing"
    m = st.st_mode
    if stat.S_ISLNK(m) or getattr(st, "st_file_attributes", 0) & _REPARSE:
        return "a symbolic link" if stat.S_ISLNK(m) else "a reparse point (junction or link)"
    for test, word in ((stat.S_ISDIR, "a folder"), (stat.S_ISREG, "a file"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device")):
        if test(m):
            return word
    return "not a regular file"


def _is_link(st):
    return stat.S_ISLNK(st.st_mode) or bool(getattr(st, "st_file_attributes", 0) & _REPARSE)


def _split(rel):
    """Check a relative board path; returns its parts."""
    if not isinstance(rel, str):
        raise ValueError(f"not a relative board path: {rel!r}")
    if rel == "":
        return []
    parts = rel.split("/")
    for p in parts:
        if p in ("", ".", "..") or "\0" in p or "\\" in p or (os.name == "nt" and ":" in p):
            raise ValueError(f"not a relative board path: {rel!r}")
    return parts


def _parent(rel):
    parent, _, name = rel.rpartition("/")
    return parent, name


def _join(folder, name):
    return f"{folder}/{name}" if folder else name


def trouble(e):
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


def retry(fn, *args, attempts=5, delay=0.01, also=(), **kw):
    """Call ``fn``, retrying transient share errors (busy, EIO, and ``also``) a few times."""
    for i in range(attempts):
        try:
            return fn(*args, **kw)
        except (FileNotFoundError, NotRegular):
            raise
        except OSError as e:
            if (e.errno not in _RETRY_ERRNOS and e.errno not in also) or i == attempts - 1:
                raise
            time.sleep(min(delay * (i + 1), 0.05))


H = TypeVar("H")     # a folder handle: a descriptor (``DirFdRoot``) or a checked path (``PortableRoot``)


class Root(ABC, Generic[H]):
    """A folder whose contents others may write: every operation below it is made without
    following links.  Thread-safe; one per folder and process (``Root.for_folder``).

    The operations are written once, here, over a few primitives on (folder handle, name)
    that each platform's class gives: ``DirFdRoot`` (POSIX) and ``PortableRoot`` (Windows),
    chosen once per folder by ``make_root``."""

    _registry = {}
    _registry_lock = threading.Lock()
    # fixed folders: a link or non-folder found in their place is set aside and, for the
    # first set, recreated
    CREATE = frozenset({"tmp", "trash", "box", "records"})
    REMAKE = frozenset({"tmp", "trash", "box"})      # made again when found missing in use
    TRASH = "trash"
    MARKER = "cardstand.board"
    IDENTITY = "cardstand.id"       # F2b: the board's identity, written once

    def __init__(self, folder, guarded=False):
        self.folder = Path(folder)
        # a board folder (``for_folder``): nothing is created directly in it while its marker
        # is missing, except by ``founding`` (Init)
        self.guarded = guarded
        # F2b: the identity of the board last joined through this Root; every write below the
        # folder first checks (once per outermost batch) that the folder still has it
        self.identity = None
        self._tls = threading.local()
        self._batch = _Batch(self)

    def __repr__(self):
        return f"Root({str(self.folder)!r})"

    @classmethod
    def for_folder(cls, folder):
        """The ``Root`` of ``folder`` (shared: the path helpers below find it by path)."""
        key = os.path.abspath(folder)
        with cls._registry_lock:
            r = cls._registry.get(key)
            if r is None:
                r = cls._registry[key] = make_root(folder, guarded=True)
            return r

    @contextmanager
    def founding(self):
        """Allow creating in the board folder while its marker is missing (``Init`` only: it
        writes the marker).  Per thread."""
        self._tls.founding = getattr(self._tls, "founding", 0) + 1
        try:
            yield self
        finally:
            self._tls.founding -= 1

    def _check_marked(self, ph):
        """Nothing is created directly in a board folder that has lost its marker: it may be
        the mount point of a share that is no longer mounted, or a folder someone deleted and
        made again.  FileNotFoundError saying so; the folder itself missing raises too."""
        if not self.guarded or getattr(self._tls, "founding", 0):
            return
        try:
            self._lstat_at(ph, self.MARKER)
        except FileNotFoundError:
            raise FileNotFoundError(errno.ENOENT, f"the board's marker {self.MARKER} is missing: nothing "
                                    "is created there (the board folder was deleted, or is a share no "
                                    "longer mounted)", str(self.folder)) from None

    # -- identity (F2b) --------------------------------------------------------------------
    def identity_now(self):
        """The identity in the folder's ``cardstand.id`` now: the id, None when there is none,
        "" when it is damaged (not a regular file, or no valid id in it).  OSError when it
        cannot be read (a share's error, say)."""
        try:
            text = self.read_text(self.IDENTITY, 512, strict=True)
        except NotRegular as e:
            if e.errno in (errno.EACCES, errno.EPERM):
                raise
            return ""
        if text is None:
            return None
        value = record_fields(text).get("id", "")
        return value if _IDENTITY.fullmatch(value) else ""

    def check_identity(self, expected):
        """Raise ``Swapped`` unless the folder's identity is ``expected`` (None: nothing to
        check); FileNotFoundError when the folder or its marker is gone (T1)."""
        if expected is None:
            return
        with self._batch:
            now = self.identity_now()
            if now == expected:
                self._tls.verified = True
                return
            if now is None and self.lstat(self.MARKER) is None:
                raise FileNotFoundError(errno.ENOENT, "the board folder or its marker is missing",
                                        str(self.folder))
            raise Swapped(None, f"this is not the board that was joined: the folder was swapped or "
                                f"replaced ({self.folder})")

    @contextmanager
    def unguarded(self):
        """Writes without the identity check (``Init``, which adopts the identity).  Per thread."""
        self._tls.unguarded = getattr(self._tls, "unguarded", 0) + 1
        try:
            yield self
        finally:
            self._tls.unguarded -= 1

    @contextmanager
    def expecting(self, identity):
        """Writes in this block (this thread) check ``identity`` (None: none) rather than the
        identity last joined: a member checks the board it joined itself."""
        t = self._tls
        old = getattr(t, "expected", _UNSET)
        t.expected = identity
        try:
            yield self
        finally:
            t.expected = old

    @contextmanager
    def _guarded(self):
        """``_guard`` as a step of a ``with`` (after the batch is entered)."""
        self._guard()
        yield

    def _guard(self):
        """Before a write (in a batch): the folder still is the board joined (F2b), checked
        once per outermost batch, so that nothing is ever written into another board."""
        t = self._tls
        expected = getattr(t, "expected", _UNSET)
        expected = self.identity if expected is _UNSET else expected
        if expected is None or getattr(t, "unguarded", 0) or getattr(t, "verified", False):
            return
        self.check_identity(expected)

    def path(self, rel):
        """A path for messages and for people (never used to reach the file)."""
        return self.folder / rel if rel else self.folder

    # -- directory handles ---------------------------------------------------------------
    def batch(self):
        """Keep directory handles open until the outermost ``batch`` ends (per thread).

        Only fixed folders are kept (the root, ``box``, ``box/<key>``, ``tmp``, ``trash``,
        ``records``): others (``lock``) are replaced by other processes and are opened anew
        for every operation.
        """
        return self._batch

    @contextmanager
    def holding(self, rel):
        """Keep one handle of the folder ``rel`` for the block (this thread), even one that is
        not kept otherwise (``lock``): several reads in it see one and the same folder."""
        with self._batch:
            dirs = self._tls.dirs
            if rel in dirs:
                yield
                return
            try:
                h = self._open_dir(rel)
            except OSError:
                yield          # the reads in the block will say what is wrong
                return
            dirs[rel] = h
            try:
                yield
            finally:
                if dirs.get(rel) == h:
                    del dirs[rel]
                    self._close(h)

    @staticmethod
    def _keep(rel):
        parts = rel.split("/") if rel else []
        return len(parts) <= 1 and rel != "lock" or len(parts) == 2 and parts[0] == "box"

    def _forget(self, rel):
        """Close kept handles of ``rel`` and below (before it is renamed or removed)."""
        dirs = getattr(self._tls, "dirs", None)
        if not dirs:
            return
        for k in [k for k in dirs if k == rel or k.startswith(rel + "/") or rel == ""]:
            self._close(dirs.pop(k))

    def _dir(self, rel):
        """A handle of the folder ``rel`` (a context manager): a descriptor (POSIX) or a checked
        path (portable).  FileNotFoundError when it is missing; ``NotRegular`` when it (or a
        folder on the way) is a link or not a folder.  A fixed folder found so is set aside
        (and recreated)."""
        return _Dir(self, rel)

    def _open_dir(self, rel, healed=False, remake=True):
        if rel == "":
            return self._open_root()
        parent, name = _parent(rel)
        try:
            with self._dir(parent) as ph:
                try:
                    return self._open_sub(ph, name, rel)
                except FileNotFoundError:
                    if healed or not remake or rel not in self.REMAKE:
                        raise
                    if not parent:
                        self._check_marked(ph)
                    self._guard()
                    log.warning("the folder %r was missing on the board %s: made again", rel, str(self.folder))
                    try:
                        self._mkdir_at(ph, name)
                    except FileExistsError:
                        pass
        except NotRegular as e:
            if healed or e.filename != rel or not self._fixed(rel):
                raise
            self._heal(rel)
        return self._open_dir(rel, healed=True)

    def _fixed(self, rel):
        parts = rel.split("/")
        return rel in self.CREATE or (len(parts) == 2 and parts[0] == "box")

    def _heal(self, rel):
        st = self.lstat(rel)
        if st is not None and stat.S_ISDIR(st.st_mode) and not _is_link(st):
            return  # someone else put a real folder there meanwhile
        self.set_aside(rel, f"{_kind(st)} where the folder {rel!r} belongs")
        if rel in self.CREATE:
            try:
                self.mkdir(rel)
            except FileExistsError:
                pass

    # -- primitives on (parent handle, name): one class per platform below ----------------------
    @abstractmethod
    def _close(self, h: H) -> None:
        """Let go of a folder handle."""

    @abstractmethod
    def _open_root(self) -> H:
        """A handle of the folder itself (which may be a link: the user's choice)."""

    @abstractmethod
    def _open_sub(self, ph: H, name: str, rel: str) -> H:
        """A handle of the folder ``name`` in ``ph``; ``NotRegular`` for a link or a non-folder."""

    @abstractmethod
    def _lstat_at(self, ph: H, name: str) -> os.stat_result:
        """``lstat`` of ``name`` in ``ph`` (a link is not followed)."""

    @abstractmethod
    def _open_file_at(self, ph: H, name: str, rel: str) -> tuple[int, os.stat_result]:
        """Open a regular file for reading: (descriptor, fstat); NotRegular for anything else."""

    @abstractmethod
    def _open_existing_at(self, ph: H, name: str, rel: str) -> int:
        """Open an existing file for writing in place, never through a link (``overwrite``)."""

    @abstractmethod
    def _open_new_at(self, ph: H, name: str) -> int:
        """Create a new file for writing (``O_EXCL``: never through an existing name or a link)."""

    @abstractmethod
    def _unlink_at(self, ph: H, name: str) -> None:
        """Remove a file or a link itself, never its target."""

    @abstractmethod
    def _rmdir_at(self, ph: H, name: str) -> None:
        """Remove an empty folder."""

    @abstractmethod
    def _mkdir_at(self, ph: H, name: str) -> None:
        """Create a folder, writable by the folder's group where the platform has groups."""

    @abstractmethod
    def _rename_at(self, sh: H, sname: str, dh: H, dname: str, replace: bool) -> None:
        """Rename (a link is moved itself, never followed); ``replace`` also on Windows."""

    @abstractmethod
    def _names(self, rel: str) -> list[str]:
        """The names in the folder ``rel`` (FileNotFoundError, NotRegular... when it is none)."""

    @abstractmethod
    def _open_for_sync(self, rel: str) -> int:
        """A descriptor of the folder ``rel`` to fsync."""

    def _create_at(self, ph: H, name: str, rel: str) -> int:
        fd = self._open_new_at(ph, name)
        if _CHMOD_FILES:
            try:
                os.fchmod(fd, FILE_MODE)
            except OSError:
                pass  # a share may not keep modes
        return fd

    # -- public operations ----------------------------------------------------------------------
    def lstat(self, rel):
        """``lstat`` of ``rel`` (a link is not followed), or None when it is missing."""
        parent, name = _parent(rel)
        with self._batch:
            try:
                with self._dir(parent) as ph:
                    return self._lstat_at(ph, name)
            except (FileNotFoundError, NotADirectoryError):
                return None
            except NotRegular:
                return None

    def read(self, rel, limit=1 << 20, strict=False):
        """The bytes of the regular file ``rel`` (at most ``limit``), or None when missing.

        A link, FIFO, folder, device or socket, or a file that cannot be opened: ``NotRegular``
        when ``strict``, else None (and a log line).  Passing share errors are retried.
        """
        _split(rel)
        parent, name = _parent(rel)
        with self._batch:
            for attempt in range(5):
                try:
                    return self._read_once(parent, name, rel, limit)
                except (FileNotFoundError, NotADirectoryError):
                    return None
                except NotRegular as e:
                    err = e
                    break
                except OSError as e:
                    if e.errno in _RETRY_ERRNOS and attempt < 4:
                        time.sleep(min(0.01 * (attempt + 1), 0.05))
                        continue
                    if not isinstance(e, PermissionError):
                        raise
                    err = NotRegular(e.errno, "cannot be opened (permission denied)", rel)
                    break
        if strict:
            raise err
        log.warning("ignored %r on the board: %s", err.filename, err.strerror)
        return None

    def _read_once(self, parent, name, rel, limit):
        with _Dir(self, parent) as ph:
            fd, st = self._open_file_at(ph, name, rel)
            try:
                chunks, left, got = [], limit, 0
                while left > 0:
                    want = min(left, max(st.st_size + 1 - got, 4096), 1 << 20)
                    b = os.read(fd, want)
                    if not b:
                        break
                    chunks.append(b)
                    left -= len(b)
                    got += len(b)
                    if len(b) < want and got >= st.st_size:
                        break   # a short read past the size fstat gave: the end
                return b"".join(chunks) if len(chunks) != 1 else chunks[0]
            finally:
                os.close(fd)

    def read_text(self, rel, limit=4096, strict=False):
        data = self.read(rel, limit, strict)
        return None if data is None else data.decode("utf-8", "replace")

    def read_int(self, rel, default=0):
        """An integer kept in a record; ``default`` when missing, unreadable or not a number."""
        text = self.read_text(rel)
        try:
            return int(text.strip()) if text is not None else default
        except ValueError:
            return default

    def present(self, rel):
        """Whether something is there (a file, folder, link, FIFO...), by opening its name
        without following or blocking: a share's client may answer ``stat`` from a stale cache."""
        parent, name = _parent(rel)
        with self._batch:
            try:
                with self._dir(parent) as ph:
                    try:
                        _close_fd(self._open_file_at(ph, name, rel)[0])
                        return True
                    except NotRegular:
                        return True
                    except (FileNotFoundError, NotADirectoryError):
                        return False
                    except OSError:
                        return self._lstat_at(ph, name) is not None
            except (FileNotFoundError, NotADirectoryError):
                return False
            except NotRegular:
                return False
            except OSError:
                return False

    def create(self, rel, data, durable=False):
        """Write a new file ``rel`` (never through an existing name or a link)."""
        parent, name = _parent(rel)
        _split(rel)
        with self._batch, self._guarded(), self._dir(parent) as ph:
            if not parent:
                self._check_marked(ph)
            fd = self._create_at(ph, name, rel)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                if durable:
                    os.fsync(fd)
            finally:
                os.close(fd)

    def write_scratch(self, dir_rel, data, durable=True):
        """Write ``data`` to a fresh scratch file in ``dir_rel``; returns its relative path."""
        rel = _join(dir_rel, f"{_HOST_IN_NAMES}-{os.getpid()}-{new_token()}.tmp")
        try:
            self.create(rel, data, durable)
        except BaseException:
            self.remove(rel)
            raise
        return rel

    def rename(self, src, dst, replace=False, attempts=5, also=()):
        """Rename ``src`` to ``dst`` (a link is moved itself, never followed).  ``replace``:
        replace an existing file also on Windows (POSIX always does)."""
        sp, sn = _parent(src)
        dp, dn = _parent(dst)
        _split(src), _split(dst)
        with self._batch, self._guarded():
            self._forget(src)
            self._forget(dst)
            with self._dir(sp) as sh, self._dir(dp) as dh:
                retry(self._rename_at, sh, sn, dh, dn, replace, attempts=attempts, also=also)

    def replace(self, rel, data, durable=True, scratch="tmp"):
        """Atomically make ``rel`` hold ``data``: scratch file, fsync, one rename.

        ``durable=False`` skips the fsync, for hints that readers can rebuild.  A folder
        found where the file belongs is set aside first.
        """
        with self._batch:
            tmp = self.write_scratch(scratch, data, durable)
            try:
                for attempt in range(2):
                    try:
                        # SMB refuses to replace a file another client has open (EEXIST, EACCES)
                        self.rename(tmp, rel, replace=True, attempts=20, also=(errno.EEXIST,))
                        return
                    except (IsADirectoryError, NotADirectoryError, OSError) as e:
                        if attempt or e.errno not in (errno.EISDIR, errno.ENOTEMPTY, errno.EEXIST,
                                                      errno.EACCES, errno.EPERM):
                            raise
                        st = self.lstat(rel)
                        if st is None or not stat.S_ISDIR(st.st_mode):
                            raise
                        self.set_aside(rel, f"a folder where the file {rel!r} belongs")
            except BaseException:
                self.remove(tmp)
                raise

    def remove(self, rel):
        """Remove a file or a link (never what it points to); False when not removed."""
        parent, name = _parent(rel)
        with self._batch:
            try:
                self._guard()
                with self._dir(parent) as ph:
                    retry(self._unlink_at, ph, name)
                return True
            except OSError:
                return False

    def rmdir(self, rel):
        parent, name = _parent(rel)
        with self._batch, self._guarded():
            self._forget(rel)
            with self._dir(parent) as ph:
                self._rmdir_at(ph, name)

    def remove_tree(self, rel, _depth=0, expect=()):
        """Remove ``rel`` and what is inside: folders are entered only through handles opened
        without following links, so a link anywhere in it is removed, never followed.  What
        cannot be removed now is left for later.  ``expect``: names it probably holds, removed
        first without listing it (the common case costs no listing)."""
        parent, name = _parent(rel)
        with self._batch:
            try:
                self._guard()
            except OSError:
                return
            if expect:
                try:
                    with self.holding(rel), self._dir(rel) as h:
                        for n in expect:
                            try:
                                self._unlink_at(h, n)
                            except OSError:
                                pass
                    self.rmdir(rel)
                    return
                except OSError:
                    pass
            self._forget(rel)
            try:
                with self._dir(parent) as ph:
                    st = self._lstat_at(ph, name)
                    if not stat.S_ISDIR(st.st_mode) or _is_link(st):
                        retry(self._unlink_at, ph, name)
                        return
                    if _depth < 32:
                        for entry in self.listdir(rel):
                            self.remove_tree(_join(rel, entry), _depth + 1)
                    retry(self._rmdir_at, ph, name)
            except OSError:
                pass

    def mkdir(self, rel):
        """Create the folder ``rel``, writable by the folder's group (FileExistsError if there)."""
        parent, name = _parent(rel)
        _split(rel)
        with self._batch, self._guarded(), self._dir(parent) as ph:
            if not parent:
                self._check_marked(ph)
            self._mkdir_at(ph, name)

    def overwrite(self, rel, data):
        """Write ``data`` over the existing regular file ``rel`` of exactly that size, in place
        (no new space needed on most filesystems; readers may see it half written: only for
        files nobody else reads).  ``NotRegular`` for a link or anything but such a file."""
        parent, name = _parent(rel)
        _split(rel)
        with self._batch, self._guarded(), self._dir(parent) as ph:
            fd = self._open_existing_at(ph, name, rel)
            try:
                st = os.fstat(fd)
                if not stat.S_ISREG(st.st_mode) or st.st_size != len(data):
                    raise NotRegular(errno.EINVAL, "not a regular file of the expected size", rel)
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
            finally:
                os.close(fd)

    def ensure_dir(self, rel):
        """Make sure ``rel`` is a real folder: create it when missing; set aside a link or a
        non-folder in its place first.  True when it was (re)created."""
        created = False
        with self._batch:
            for _ in range(4):
                try:
                    with _Dir(self, rel, remake=False):
                        return created
                except FileNotFoundError:
                    parent, _ = _parent(rel)
                    if parent and self.lstat(parent) is None:
                        self.ensure_dir(parent)
                    try:
                        self.mkdir(rel)
                        created = True
                    except FileExistsError:
                        pass
                except NotRegular:
                    self._heal(rel)
                    if rel not in self.CREATE:
                        try:
                            self.mkdir(rel)
                            created = True
                        except FileExistsError:
                            pass
        raise NotRegular(errno.ENOTDIR, "keeps being replaced by something that is not a folder", rel)

    def listdir(self, rel):
        """Names in the folder ``rel`` ([] when missing): informational, a listing may be stale."""
        with self._batch:
            try:
                return self._names(rel)
            except (FileNotFoundError, NotADirectoryError, NotRegular):
                return []

    def scan(self, rel):
        """[(name, lstat or None)] of the folder ``rel`` (links are not followed)."""
        out = []
        with self._batch:
            names = self.listdir(rel)
            try:
                with self._dir(rel) as h:
                    for n in names:
                        try:
                            out.append((n, self._lstat_at(h, n)))
                        except OSError:
                            out.append((n, None))
            except OSError:
                pass
        return out

    def fsync_dir(self, rel):
        """Make a rename in ``rel`` durable where the platform allows (not on Windows)."""
        if os.name == "nt":
            return
        with self._batch:
            try:
                fd = self._open_for_sync(rel)
            except OSError:
                return
            _fsync_and_close(fd)

    def set_aside(self, rel, why):
        """Move ``rel`` (whatever it is: a link is moved itself) into ``trash/``, with a log
        line.  Falls back to removing it.  True when it is gone from ``rel``."""
        token = new_token()
        flat = rel.replace("/", "-")
        with self._batch:
            try:
                if rel == self.TRASH:
                    # the trash itself: out of the way, a new trash, then into it
                    aside = f"{self.TRASH}-{token}.aside"
                    self.rename(rel, aside)
                    try:
                        self.mkdir(self.TRASH)
                    except FileExistsError:
                        pass
                    dest = f"{self.TRASH}/{token}-{flat}"
                    try:
                        self.rename(aside, dest)
                    except OSError:
                        dest = aside
                else:
                    dest = f"{self.TRASH}/{token}-{flat}"
                    self.rename(rel, dest)
                log.warning("moved %r to %r on the board %s: %s", rel, dest, str(self.folder), why)
                return True
            except FileNotFoundError:
                return True
            except OSError as e:
                if self.remove(rel):
                    log.warning("removed %r on the board %s: %s", rel, str(self.folder), why)
                    return True
                log.warning("could not set aside %r on the board %s (%s): %s", rel, str(self.folder),
                            e.strerror or e, why)
                return False

    # -- finding the Root of a path (for the path helpers) -----------------------------------
    @classmethod
    def locate(cls, path):
        """(Root, rel) for a path below a folder opened with ``for_folder``; (None, None) when
        there is none.  ValueError when the path climbs out of it with ``..``."""
        if not cls._registry:
            return None, None
        raw = os.path.join(os.getcwd(), os.fspath(path))
        parts = Path(raw).parts
        for i in range(len(parts) - 1, 0, -1):
            r = cls._registry.get(os.path.abspath(os.path.join(*parts[:i])))
            if r is not None:
                rest = parts[i:]
                if any(p in ("..", ".") for p in rest):
                    raise ValueError(f"{os.fspath(path)!r} leaves the board folder {str(r.folder)!r}")
                return r, "/".join(rest)
        return None, None


class _Batch:
    """``Root.batch()``: directory handles kept until the outermost one ends (per thread)."""
    __slots__ = ("root",)

    def __init__(self, root):
        self.root = root

    def __enter__(self):
        t = self.root._tls
        depth = getattr(t, "depth", 0)
        if depth == 0:
            t.dirs = {}
            t.verified = False
        t.depth = depth + 1
        return self.root

    def __exit__(self, *exc):
        t = self.root._tls
        t.depth -= 1
        if t.depth == 0:
            dirs, t.dirs, t.verified = t.dirs, {}, False
            for h in dirs.values():
                self.root._close(h)
        return False


class _Dir:
    """``Root._dir(rel)``: a folder's handle, kept in the batch or closed at the end."""
    __slots__ = ("root", "rel", "h", "owned", "remake")

    def __init__(self, root, rel, remake=True):
        self.root, self.rel, self.owned, self.remake = root, rel, False, remake

    def __enter__(self):
        root, rel = self.root, self.rel
        dirs = getattr(root._tls, "dirs", None)
        if dirs is not None:
            h = dirs.get(rel)
            if h is not None:
                return h
        h = root._open_dir(rel, remake=self.remake)
        if dirs is not None and root._keep(rel):
            dirs[rel] = h
        else:
            self.h, self.owned = h, True
        return h

    def __exit__(self, *exc):
        if self.owned:
            self.root._close(self.h)
        return False


class DirFdRoot(Root[int]):
    """POSIX: every folder is a descriptor opened with ``O_DIRECTORY | O_NOFOLLOW`` relative to
    its parent's, and every name is used with ``dir_fd=``: a link is an error, never a way out,
    even one swapped in between a check and an act."""

    def _close(self, h: int) -> None:
        _close_fd(h)

    def _open_root(self) -> int:
        return os.open(self.folder, os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC)  # may be a link

    def _open_sub(self, ph: int, name: str, rel: str) -> int:
        try:
            return os.open(name, _WALK, dir_fd=ph)
        except OSError as e:
            if e.errno not in (errno.ENOTDIR, *_LINK_ERRNOS):
                raise
            try:
                st = os.stat(name, dir_fd=ph, follow_symlinks=False)
            except FileNotFoundError:
                raise FileNotFoundError(errno.ENOENT, "no such folder", rel) from None
            raise NotRegular(e.errno, f"{_kind(st)}, not a folder", rel) from None

    def _lstat_at(self, ph: int, name: str) -> os.stat_result:
        return os.stat(name, dir_fd=ph, follow_symlinks=False)

    def _open_file_at(self, ph: int, name: str, rel: str) -> tuple[int, os.stat_result]:
        try:
            fd = os.open(name, _READ, dir_fd=ph)
        except OSError as e:
            if e.errno in _LINK_ERRNOS:
                raise NotRegular(e.errno, "a symbolic link, not a file", rel) from None
            if e.errno in (errno.ENXIO, errno.EOPNOTSUPP, errno.ENODEV):   # socket, device
                raise NotRegular(e.errno, "not a regular file", rel) from None
            raise
        return fd, _regular(fd, rel)

    def _open_existing_at(self, ph: int, name: str, rel: str) -> int:
        try:
            return os.open(name, os.O_WRONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC, dir_fd=ph)
        except OSError as e:
            if e.errno in _LINK_ERRNOS or e.errno in (errno.ENXIO, errno.EISDIR):
                raise NotRegular(e.errno, "not a regular file", rel) from None
            raise

    def _open_new_at(self, ph: int, name: str) -> int:
        return os.open(name, _CREATE, FILE_MODE, dir_fd=ph)

    def _unlink_at(self, ph: int, name: str) -> None:
        os.unlink(name, dir_fd=ph)

    def _rmdir_at(self, ph: int, name: str) -> None:
        os.rmdir(name, dir_fd=ph)

    def _mkdir_at(self, ph: int, name: str) -> None:
        os.mkdir(name, 0o775, dir_fd=ph)
        if _CHMOD_DIRS:
            try:
                fd = os.open(name, _LIST, dir_fd=ph)   # chmod through a handle: never a link
                try:
                    os.fchmod(fd, DIR_MODE)
                finally:
                    os.close(fd)
            except OSError:
                pass

    def _rename_at(self, sh: int, sname: str, dh: int, dname: str, replace: bool) -> None:
        (os.replace if replace else os.rename)(sname, dname, src_dir_fd=sh, dst_dir_fd=dh)

    def _open_listing(self, rel: str) -> int:
        if rel == "":
            return os.open(self.folder, _LIST & ~_O_NOFOLLOW)
        parent, name = _parent(rel)
        with self._dir(parent) as ph:
            return os.open(name, _LIST, dir_fd=ph)

    def _names(self, rel: str) -> list[str]:
        fd = self._open_listing(rel)
        try:
            return [e.name for e in os.scandir(fd)]
        finally:
            os.close(fd)

    def _open_for_sync(self, rel: str) -> int:
        return self._open_listing(rel)


class PortableRoot(Root[str]):
    """Windows, which has no ``dir_fd`` (and POSIX systems without it): every name is checked
    with ``lstat`` (a link, or any reparse point such as a junction, is refused) just before
    its path is used.  **The race is open here**: a link swapped in between is followed."""

    def _close(self, h: str) -> None:
        pass    # a checked path holds nothing open

    def _open_root(self) -> str:
        if not os.path.isdir(self.folder):
            raise FileNotFoundError(errno.ENOENT, "no such folder", str(self.folder))
        return str(self.folder)

    def _open_sub(self, ph: str, name: str, rel: str) -> str:
        p = os.path.join(ph, name)
        st = os.lstat(p)
        if _is_link(st) or not stat.S_ISDIR(st.st_mode):
            raise NotRegular(errno.ENOTDIR, f"{_kind(st)}, not a folder", rel)
        return p

    def _lstat_at(self, ph: str, name: str) -> os.stat_result:
        return os.lstat(os.path.join(ph, name))

    def _open_file_at(self, ph: str, name: str, rel: str) -> tuple[int, os.stat_result]:
        # lstat first (a link or reparse point is refused), then open and compare
        p = os.path.join(ph, name)
        st0 = os.lstat(p)
        if _is_link(st0) or not stat.S_ISREG(st0.st_mode):
            raise NotRegular(errno.EINVAL, f"{_kind(st0)}, not a regular file", rel)
        fd = os.open(p, _READ)
        st = _regular(fd, rel)
        if (st.st_ino, st.st_dev) != (st0.st_ino, st0.st_dev) and st0.st_ino:
            os.close(fd)
            raise NotRegular(errno.EINVAL, "replaced while being opened", rel)
        return fd, st

    def _open_existing_at(self, ph: str, name: str, rel: str) -> int:
        p = os.path.join(ph, name)
        st0 = os.lstat(p)
        if _is_link(st0) or not stat.S_ISREG(st0.st_mode):
            raise NotRegular(errno.EINVAL, f"{_kind(st0)}, not a regular file", rel)
        return os.open(p, os.O_WRONLY | _O_BINARY)

    def _open_new_at(self, ph: str, name: str) -> int:
        return os.open(os.path.join(ph, name), _CREATE, FILE_MODE)  # O_EXCL: never through a link

    def _unlink_at(self, ph: str, name: str) -> None:
        p = os.path.join(ph, name)
        try:
            os.unlink(p)     # a link itself, never its target
        except (IsADirectoryError, PermissionError):
            st = os.lstat(p)
            if not _is_link(st):
                raise
            os.rmdir(p)      # Windows: a directory link or junction goes with rmdir, alone

    def _rmdir_at(self, ph: str, name: str) -> None:
        os.rmdir(os.path.join(ph, name))

    def _mkdir_at(self, ph: str, name: str) -> None:
        os.mkdir(os.path.join(ph, name), 0o775)

    def _rename_at(self, sh: str, sname: str, dh: str, dname: str, replace: bool) -> None:
        # moves a link itself, never its target
        (os.replace if replace else os.rename)(os.path.join(sh, sname), os.path.join(dh, dname))

    def _names(self, rel: str) -> list[str]:
        with self._dir(rel) as h:
            return [e.name for e in os.scandir(h)]

    def _open_for_sync(self, rel: str) -> int:
        with self._dir(rel) as h:
            return os.open(h, os.O_RDONLY)


def make_root(folder: str | os.PathLike[str], guarded: bool = False) -> Root:
    """A ``Root`` of ``folder`` for this platform: ``DirFdRoot`` where ``USE_DIR_FD``, else
    ``PortableRoot``.  Code that shares a folder's ``Root`` uses ``Root.for_folder``."""
    return DirFdRoot(folder, guarded) if USE_DIR_FD else PortableRoot(folder, guarded)


def _regular(fd: int, rel: str) -> os.stat_result:
    """The fstat of ``fd`` if it is a regular file; else it is closed and NotRegular raised."""
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegular(errno.EINVAL, f"{_kind(st)}, not a regular file", rel)
    except BaseException:
        os.close(fd)
        raise
    return st


def _close_fd(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


# -- the path-taking helpers (kept for their callers; safe below a registered Root) -------------
def _at(*paths):
    """A Root and relative paths for ``paths``: the registered board folder holding them, or
    else their common parent folder (followed as given: only the names below it are protected)."""
    located = [Root.locate(p) for p in paths]
    roots = {r for r, _ in located}
    if len(roots) == 1 and None not in roots:
        return roots.pop(), [rel for _, rel in located]
    parents = [os.path.dirname(os.path.abspath(p)) for p in paths]
    base = os.path.commonpath(parents)
    root = make_root(base)
    rels = [os.path.relpath(os.path.abspath(p), base).replace(os.sep, "/") for p in paths]
    return root, rels


def _fsync_and_close(fd):
    try:
        os.fsync(fd)
    except OSError:
        pass  # some network filesystems refuse fsync on directories
    finally:
        os.close(fd)


def write_scratch(scratch_dir, data, durable=True):
    """Write ``data`` (bytes) to a fresh scratch file (flushed to disk when ``durable``)."""
    root, (rel,) = _at(Path(scratch_dir) / "x")
    parent, _ = _parent(rel)
    return root.path(root.write_scratch(parent, data, durable))


def replace_with(scratch_dir, target, data, durable=True):
    """Atomically make ``target`` hold ``data``: scratch file, fsync, one rename.

    ``durable=False`` skips the fsync, for hints that readers can rebuild.  The rename is
    not forced to disk: after a power cut the old content may return, which every file
    written this way tolerates.  Under a board folder the target's folder is made a real
    folder first (a link there is set aside) and nothing is ever written through a link.
    """
    try:
        root, (srel, trel) = _at(Path(scratch_dir) / "x", target)
    except ValueError as e:
        raise OSError(errno.EINVAL, str(e), str(target)) from None
    sdir, _ = _parent(srel)
    tdir, _ = _parent(trel)
    with root.batch():
        if tdir and root is Root._registry.get(os.path.abspath(root.folder)):
            root.ensure_dir(tdir)
        root.replace(trel, data, durable, scratch=sdir)


RECORD = 256


def record(text):
    """Small state files are padded to a fixed 256 bytes.

    A share's client may keep a file's old size for a while after it was
    replaced (sshfs does): a read of a record of the same size is never cut.
    """
    data = text.encode("utf-8")
    if len(data) >= RECORD:
        raise ValueError("record too long")
    return data + b" " * (RECORD - 1 - len(data)) + b"\n"


def parse_record(text, strict=False):
    r"""``(first line, {key: value})`` of a record (R1), a game record (D1) or a message
    header (M1): a first line that says what it is, then ``key: value`` lines.

    Lines end at ``\n`` only (never at another line break a value may hold).  A value is the
    text after the first ``": "``, as written (readers of padded records strip it).

    Not ``strict`` (records: damaged or forged lines never stop a reader; R1): a CR before
    the ``\n`` is dropped, a line without ``": "`` (or with nothing before it) is skipped, and
    a key given twice keeps its first value; keys are taken as written.  ``strict`` (a message
    header): a line without ``": "`` or a key given twice raises ``ValueError`` saying which;
    lines are taken exactly as they are.

    >>> parse_record("cardstand-member 1\nname: Black\nrun: 9e2f \nrun: other\njunk\r\nstate:\n run: x")
    ('cardstand-member 1', {'name': 'Black', 'run': '9e2f ', ' run': 'x'})
    >>> parse_record("cardstand-msg 1\nfrom: a\nfrom: b", strict=True)
    Traceback (most recent call last):
    ValueError: header key 'from' given twice
    """
    first, *lines = text.split("\n")
    fields = {}
    for line in lines:
        if strict:
            key, sep, value = line.partition(": ")
            if not sep:
                raise ValueError(f"bad header line {line[:40]!r}")
            if key in fields:
                raise ValueError(f"header key {key[:40]!r} given twice")
        else:
            if line.endswith("\r"):
                line = line[:-1]
            key, sep, value = line.partition(": ")
            if not sep or not key or key in fields:
                continue
        fields[key] = value
    return first, fields


def record_fields(text):
    """The ``key: value`` fields of a record (R1) as ``record`` writes it, values stripped of the
    padding (``parse_record``, not strict: damaged lines are skipped); {} for None."""
    return {k: v.strip(" \t") for k, v in parse_record(text or "")[1].items()}


def read_bytes(path, limit=1 << 20):
    """The bytes of the regular file ``path``, or None when it does not exist or is not a
    regular file (a link, FIFO, folder...: never followed, never blocks; logged).

    A share's passing error (busy, EIO) is retried a few times before it is raised.
    """
    try:
        root, (rel,) = _at(path)
    except ValueError as e:
        log.warning("ignored %s", e)
        return None
    return root.read(rel, limit)


def read_text(path):
    data = read_bytes(path, 4096)
    if data is None:
        return None
    return data.decode("utf-8", "replace")


def read_text_full(path, limit=1 << 20):
    data = read_bytes(path, limit)
    return None if data is None else data.decode("utf-8", "replace")


def read_int(path, default=0):
    """An integer kept in a record; ``default`` when missing or unreadable."""
    text = read_text(path)
    try:
        return int(text.strip()) if text is not None else default
    except ValueError:
        return default


def remove_tree(path):
    """Remove a folder and what is inside, never following a link; what cannot be removed now
    is left for later."""
    try:
        root, (rel,) = _at(path)
    except ValueError:
        return
    root.remove_tree(rel)
