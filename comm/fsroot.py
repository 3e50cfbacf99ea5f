"""The operations of ``fsops.Root``, written once over a few primitives on (folder handle,
name) that each platform's class gives (``fsops.DirFdRoot``, ``fsops.PortableRoot``): every
name below the folder is reached one at a time, never through a link (see fsops)."""
import errno
import logging
import os
import re
import signal
import socket
import stat
import threading
import time
import uuid
import weakref
from abc import ABC, abstractmethod
from contextlib import contextmanager
from pathlib import Path
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

from .aside import AsideNews, SetAside, Why
from .fserrors import RETRY_ERRNOS, NotRegular, Swapped, retry
from .records import record_fields

log = logging.getLogger("comm")

HOST = socket.gethostname() or "host"
_HOST_IN_NAMES = re.sub(r"[^A-Za-z0-9.-]", "_", HOST)[:24] or "host"

_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_O_BINARY = getattr(os, "O_BINARY", 0)
_O_PATH = getattr(os, "O_PATH", 0)          # Linux: a handle for *at() calls, opens nothing

_WALK = (_O_PATH or os.O_RDONLY) | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC
_LIST = os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC
_READ = os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC | _O_BINARY
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | _O_CLOEXEC | _O_BINARY
# what open(O_NOFOLLOW) says about a link: Linux/macOS ELOOP, FreeBSD EMLINK, NetBSD EFTYPE
_LINK_ERRNOS = {errno.ELOOP, errno.EMLINK, getattr(errno, "EFTYPE", errno.ELOOP)}
_REPARSE = getattr(stat, "FILE_ATTRIBUTE_REPARSE_POINT", 0x400)
_IDENTITY = re.compile(r"[0-9A-Za-z]{8,64}")
_UNSET: Any = object()

FILE_MODE = 0o664        # board files: the folder's group can replace and remove them
DIR_MODE = 0o2775        # board folders: group-writable, new entries keep the folder's group


def _read_umask() -> int:
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


def make_group_writable(folder: str | os.PathLike[str]) -> None:
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


# Signals whose Python handler may raise: Ctrl+C's KeyboardInterrupt, and SIGTERM or SIGBREAK
# where a program turns them into one too (the players do).
_INTERRUPTS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGBREAK", "SIGTERM", "SIGHUP") if hasattr(signal, n))
# Held on Windows only: there a file this process still has open can be neither renamed nor
# removed (its lock folder stays behind), and Ctrl+C never cuts a blocking call short anyway.
# Elsewhere a lost descriptor costs only a descriptor, and a held Ctrl+C would wait out an open
# that a dead share keeps blocked.
HOLD_INTERRUPTS = os.name == "nt"


class _Held:
    """Interrupts held in the main thread: the Python handlers of ``_INTERRUPTS`` give way to one
    that notes the signal, until ``resume`` puts them back (Ctrl+C's last) and runs what was noted
    (its KeyboardInterrupt then rises from ``resume``).  A signal that comes while the handlers
    are being swapped is not lost either.  Other threads get no signals: nothing to hold."""

    def __init__(self) -> None:
        self.saved: dict[int, Any] = {}
        self.noted: list[tuple[int, Any]] = []
        if not HOLD_INTERRUPTS or threading.current_thread() is not threading.main_thread():
            return
        try:
            for sig in _INTERRUPTS:
                handler = signal.getsignal(sig)
                if callable(handler):
                    self.saved[sig] = handler
                    signal.signal(sig, self._note)  # (runs a pending signal's handler first)
        except BaseException:
            self.resume()       # the handlers swapped so far put back
            raise

    def _note(self, signum: int, frame: Any) -> None:
        self.noted.append((signum, frame))

    def resume(self) -> None:
        saved, self.saved = self.saved, {}
        came: BaseException | None = None
        for sig in reversed(list(saved)):       # SIGINT last
            for _ in range(3):
                try:
                    signal.signal(sig, saved[sig])
                    break
                except BaseException as e:      # a pending signal's handler, run first, raised
                    came = came or e
        noted, self.noted = self.noted, []
        for signum, frame in noted:
            saved[signum](signum, frame)
        if came is not None:
            raise came


Opened = TypeVar("Opened", int, tuple[int, os.stat_result])


@contextmanager
def _opened(opener: Callable[[], Opened]) -> Iterator[Opened]:
    """``opener()``'s descriptor (or (descriptor, stat)), closed when the block ends.  An
    interrupt that lands while it is being opened waits until it is in hand, then rises and the
    descriptor is closed (see ``HOLD_INTERRUPTS``).  (One landing in the very instant the block
    is entered leaves it to the garbage collector.)"""
    held = _Held()
    try:
        got = opener()
    except BaseException:
        held.resume()
        raise
    fd = got if isinstance(got, int) else got[0]
    try:
        held.resume()
        yield got
    finally:
        os.close(fd)


def new_token() -> str:
    """A name-safe identifier unique across hosts and processes."""
    return uuid.uuid4().hex[:16]


def _kind(st: os.stat_result | None) -> str:
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


def is_link(st: os.stat_result) -> bool:
    return stat.S_ISLNK(st.st_mode) or bool(getattr(st, "st_file_attributes", 0) & _REPARSE)


def _split(rel: str) -> list[str]:
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


def _parent(rel: str) -> tuple[str, str]:
    parent, _, name = rel.rpartition("/")
    return parent, name


def _join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


H = TypeVar("H")     # a folder handle: a descriptor (``DirFdRoot``) or a checked path (``PortableRoot``)

class RootBase(ABC, Generic[H]):
    """A folder whose contents others may write: every operation below it is made without
    following links.  Thread-safe; one per folder and process (``Root.for_folder``).

    The operations are written once, here, over a few primitives on (folder handle, name)
    that each platform's class gives: ``DirFdRoot`` (POSIX) and ``PortableRoot`` (Windows),
    chosen once per folder by ``make_root``."""

    # fixed folders: a link or non-folder found in their place is set aside and, for the
    # first set, recreated
    CREATE = frozenset({"tmp", "trash", "box", "records"})
    REMAKE = frozenset({"tmp", "trash", "box"})      # made again when found missing in use
    TRASH = "trash"
    MARKER = "cardstand.board"
    IDENTITY = "cardstand.id"       # F2b: the board's identity, written once

    def __init__(self, folder: str | os.PathLike[str], guarded: bool = False, readonly: bool = False) -> None:
        self.folder = Path(folder)
        # a look only (a lobby, a watcher): nothing is written, made again or set aside; what a
        # writer would heal is read as missing or refused
        self.readonly = readonly
        # a board folder (``for_folder``): nothing is created directly in it while its marker
        # is missing, except by ``founding`` (Init)
        self.guarded = guarded
        # F2b: the identity of the board last joined through this Root; every write below the
        # folder first checks (once per outermost batch) that the folder still has it
        self.identity: str | None = None
        self._tls = threading.local()
        self._batch = _Batch(self)
        self._news: "weakref.WeakSet[AsideNews]" = weakref.WeakSet()   # told of every set-aside
        self._news_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Root({str(self.folder)!r})"

    @contextmanager
    def founding(self) -> "Iterator[RootBase[H]]":
        """Allow creating in the board folder while its marker is missing (``Init`` only: it
        writes the marker).  Per thread."""
        self._tls.founding = getattr(self._tls, "founding", 0) + 1
        try:
            yield self
        finally:
            self._tls.founding -= 1

    def _check_marked(self, ph: H) -> None:
        """Nothing is created directly in a board folder that has lost its marker: it may be
        the mount point of a share that is no longer mounted, or a folder someone deleted and
        made again.  FileNotFoundError saying so; the folder itself missing raises too."""
        if not self.guarded or getattr(self._tls, "founding", 0) > 0:
            return
        try:
            self._lstat_at(ph, self.MARKER)
        except FileNotFoundError:
            raise FileNotFoundError(errno.ENOENT, f"the board's marker {self.MARKER} is missing: nothing "
                                    "is created there (the board folder was deleted, or is a share no "
                                    "longer mounted)", str(self.folder)) from None

    # -- identity (F2b) --------------------------------------------------------------------
    def identity_now(self) -> str | None:
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

    def check_identity(self, expected: str | None) -> None:
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
    def unguarded(self) -> "Iterator[RootBase[H]]":
        """Writes without the identity check (``Init``, which adopts the identity).  Per thread."""
        self._tls.unguarded = getattr(self._tls, "unguarded", 0) + 1
        try:
            yield self
        finally:
            self._tls.unguarded -= 1

    @contextmanager
    def expecting(self, identity: str | None) -> "Iterator[RootBase[H]]":
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
    def _guarded(self) -> Iterator[None]:
        """``_guard`` as a step of a ``with`` (after the batch is entered)."""
        self._guard()
        yield

    def _guard(self) -> None:
        """Before a write (in a batch): the folder still is the board joined (F2b), checked
        once per outermost batch, so that nothing is ever written into another board."""
        if self.readonly:
            raise PermissionError(errno.EROFS, "a read-only look at the board: nothing is written", str(self.folder))
        t = self._tls
        expected = getattr(t, "expected", _UNSET)
        expected = self.identity if expected is _UNSET else expected
        if expected is None or getattr(t, "unguarded", 0) > 0 or getattr(t, "verified", False):
            return
        self.check_identity(expected)

    def path(self, rel: str) -> Path:
        """A path for messages and for people (never used to reach the file)."""
        return self.folder / rel if rel else self.folder

    # -- directory handles ---------------------------------------------------------------
    def batch(self) -> "_Batch[H]":
        """Keep directory handles open until the outermost ``batch`` ends (per thread).

        Only fixed folders are kept (the root, ``box``, ``box/<key>``, ``tmp``, ``trash``,
        ``records``): others (``lock``) are replaced by other processes and are opened anew
        for every operation.
        """
        return self._batch

    @contextmanager
    def holding(self, rel: str) -> Iterator[None]:
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
    def _keep(rel: str) -> bool:
        parts = rel.split("/") if rel else []
        return len(parts) <= 1 and rel != "lock" or len(parts) == 2 and parts[0] == "box"

    def _forget(self, rel: str) -> None:
        """Close kept handles of ``rel`` and below (before it is renamed or removed)."""
        dirs = getattr(self._tls, "dirs", None)
        if not dirs:
            return
        for k in [k for k in dirs if k == rel or k.startswith(rel + "/") or rel == ""]:
            self._close(dirs.pop(k))

    def _dir(self, rel: str) -> "_Dir[H]":
        """A handle of the folder ``rel`` (a context manager): a descriptor (POSIX) or a checked
        path (portable).  FileNotFoundError when it is missing; ``NotRegular`` when it (or a
        folder on the way) is a link or not a folder.  A fixed folder found so is set aside
        (and recreated)."""
        return _Dir(self, rel)

    def _open_dir(self, rel: str, healed: bool = False, remake: bool = True) -> H:
        if rel == "":
            return self._open_root()
        parent, name = _parent(rel)
        try:
            with self._dir(parent) as ph:
                try:
                    return self._open_sub(ph, name, rel)
                except FileNotFoundError:
                    if healed or not remake or rel not in self.REMAKE or self.readonly:
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
            if healed or e.filename != rel or not self._fixed(rel) or self.readonly:
                raise
            self._heal(rel)
        return self._open_dir(rel, healed=True)

    def _fixed(self, rel: str) -> bool:
        parts = rel.split("/")
        return rel in self.CREATE or (len(parts) == 2 and parts[0] == "box")

    def _heal(self, rel: str) -> None:
        st = self.lstat(rel)
        if st is not None and stat.S_ISDIR(st.st_mode) and not is_link(st):
            return  # someone else put a real folder there meanwhile
        self.set_aside(rel, Why("not_folder", _kind(st), f"{_kind(st)} where the folder {rel!r} belongs"))
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
    def lstat(self, rel: str) -> os.stat_result | None:
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

    def read(self, rel: str, limit: int = 1 << 20, strict: bool = False) -> bytes | None:
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
                    if e.errno in RETRY_ERRNOS and attempt < 4:
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

    def _read_once(self, parent: str, name: str, rel: str, limit: int) -> bytes:
        with _Dir(self, parent) as ph, _opened(lambda: self._open_file_at(ph, name, rel)) as (fd, st):
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

    def read_text(self, rel: str, limit: int = 4096, strict: bool = False) -> str | None:
        """``read`` decoded as UTF-8 (bad bytes replaced)."""
        data = self.read(rel, limit, strict)
        return None if data is None else data.decode("utf-8", "replace")

    def read_int(self, rel: str, default: int = 0) -> int:
        """An integer kept in a record; ``default`` when missing, unreadable or not a number."""
        text = self.read_text(rel)
        try:
            return int(text.strip()) if text is not None else default
        except ValueError:
            return default

    def present(self, rel: str) -> bool:
        """Whether something is there (a file, folder, link, FIFO...), by opening its name
        without following or blocking: a share's client may answer ``stat`` from a stale cache."""
        parent, name = _parent(rel)
        with self._batch:
            try:
                with self._dir(parent) as ph:
                    try:
                        with _opened(lambda: self._open_file_at(ph, name, rel)):
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

    def create(self, rel: str, data: bytes, durable: bool = False) -> None:
        """Write a new file ``rel`` (never through an existing name or a link)."""
        parent, name = _parent(rel)
        _split(rel)
        with self._batch, self._guarded(), self._dir(parent) as ph:
            if not parent:
                self._check_marked(ph)
            with _opened(lambda: self._create_at(ph, name, rel)) as fd:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                if durable:
                    os.fsync(fd)

    def write_scratch(self, dir_rel: str, data: bytes, durable: bool = True) -> str:
        """Write ``data`` to a fresh scratch file in ``dir_rel``; returns its relative path."""
        rel = _join(dir_rel, f"{_HOST_IN_NAMES}-{os.getpid()}-{new_token()}.tmp")
        try:
            self.create(rel, data, durable)
        except BaseException:
            self.remove(rel)
            raise
        return rel

    def rename(self, src: str, dst: str, replace: bool = False, attempts: int = 5,
               also: tuple[int, ...] = ()) -> None:
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

    def replace(self, rel: str, data: bytes, durable: bool = True, scratch: str = "tmp") -> None:
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
                        self.set_aside(rel, Why("not_file", "a folder", f"a folder where the file {rel!r} belongs"))
            except BaseException:
                self.remove(tmp)
                raise

    def remove(self, rel: str) -> bool:
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

    def rmdir(self, rel: str) -> None:
        """Remove the empty folder ``rel``."""
        parent, name = _parent(rel)
        with self._batch, self._guarded():
            self._forget(rel)
            with self._dir(parent) as ph:
                self._rmdir_at(ph, name)

    def remove_tree(self, rel: str, _depth: int = 0, expect: tuple[str, ...] = ()) -> None:
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
                    if not stat.S_ISDIR(st.st_mode) or is_link(st):
                        retry(self._unlink_at, ph, name)
                        return
                    if _depth < 32:
                        for entry in self.listdir(rel):
                            self.remove_tree(_join(rel, entry), _depth + 1)
                    retry(self._rmdir_at, ph, name)
            except OSError:
                pass

    def mkdir(self, rel: str) -> None:
        """Create the folder ``rel``, writable by the folder's group (FileExistsError if there)."""
        parent, name = _parent(rel)
        _split(rel)
        with self._batch, self._guarded(), self._dir(parent) as ph:
            if not parent:
                self._check_marked(ph)
            self._mkdir_at(ph, name)

    def overwrite(self, rel: str, data: bytes) -> None:
        """Write ``data`` over the existing regular file ``rel`` of exactly that size, in place
        (no new space needed on most filesystems; readers may see it half written: only for
        files nobody else reads).  ``NotRegular`` for a link or anything but such a file."""
        parent, name = _parent(rel)
        _split(rel)
        with self._batch, self._guarded(), self._dir(parent) as ph:
            with _opened(lambda: self._open_existing_at(ph, name, rel)) as fd:
                st = os.fstat(fd)
                if not stat.S_ISREG(st.st_mode) or st.st_size != len(data):
                    raise NotRegular(errno.EINVAL, "not a regular file of the expected size", rel)
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]

    def ensure_dir(self, rel: str) -> bool:
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

    def listdir(self, rel: str) -> list[str]:
        """Names in the folder ``rel`` ([] when missing): informational, a listing may be stale."""
        with self._batch:
            try:
                return self._names(rel)
            except (FileNotFoundError, NotADirectoryError, NotRegular):
                return []

    def scan(self, rel: str) -> list[tuple[str, os.stat_result | None]]:
        """[(name, lstat or None)] of the folder ``rel`` (links are not followed)."""
        out: list[tuple[str, os.stat_result | None]] = []
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

    def fsync_dir(self, rel: str) -> None:
        """Make a rename in ``rel`` durable where the platform allows (not on Windows)."""
        if os.name == "nt":
            return
        with self._batch:
            try:
                fd = self._open_for_sync(rel)
            except OSError:
                return
            _fsync_and_close(fd)

    def set_aside(self, rel: str, why: Why) -> bool:
        """Move ``rel`` (whatever it is: a link is moved itself) into ``trash/``, with a log
        line, and tells every ``AsideNews`` (``aside_news``).  Falls back to removing it.  True when
        it is gone from ``rel``.  A read-only look sets nothing aside (False)."""
        if self.readonly:
            return False
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
                self._tell(SetAside(rel, why.kind, why.detail))
                return True
            except FileNotFoundError:
                return True
            except OSError as e:
                if self.remove(rel):
                    log.warning("removed %r on the board %s: %s", rel, str(self.folder), why)
                    self._tell(SetAside(rel, why.kind, why.detail))
                    return True
                log.warning("could not set aside %r on the board %s (%s): %s", rel, str(self.folder),
                            e.strerror or e, why)
                return False

    def aside_news(self) -> AsideNews:
        """A new ``AsideNews``, told of everything this folder's Root sets aside from now on, for as
        long as it is referenced."""
        news = AsideNews()
        with self._news_lock:
            self._news.add(news)
        return news

    def _tell(self, item: SetAside) -> None:
        with self._news_lock:
            readers = list(self._news)
        for news in readers:
            news.put(item)


class _Batch(Generic[H]):
    """``Root.batch()``: directory handles kept until the outermost one ends (per thread)."""
    __slots__ = ("root",)

    def __init__(self, root: RootBase[H]) -> None:
        self.root = root

    def __enter__(self) -> RootBase[H]:
        t = self.root._tls
        depth = getattr(t, "depth", 0)
        if depth == 0:
            t.dirs = {}
            t.verified = False
        t.depth = depth + 1
        return self.root

    def __exit__(self, *exc: object) -> None:
        t = self.root._tls
        t.depth -= 1
        if t.depth == 0:
            dirs, t.dirs, t.verified = t.dirs, {}, False
            for h in dirs.values():
                self.root._close(h)


class _Dir(Generic[H]):
    """``Root._dir(rel)``: a folder's handle, kept in the batch or closed at the end."""
    __slots__ = ("root", "rel", "h", "owned", "remake")

    def __init__(self, root: RootBase[H], rel: str, remake: bool = True) -> None:
        self.root, self.rel, self.owned, self.remake = root, rel, False, remake

    def __enter__(self) -> H:
        root, rel = self.root, self.rel
        dirs: dict[str, H] | None = getattr(root._tls, "dirs", None)
        if dirs is not None:
            kept = dirs.get(rel)
            if kept is not None:
                return kept
        h = root._open_dir(rel, remake=self.remake)
        if dirs is not None and root._keep(rel):
            dirs[rel] = h
        else:
            self.h, self.owned = h, True
        return h

    def __exit__(self, *exc: object) -> None:
        if self.owned:
            self.root._close(self.h)


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


def _fsync_and_close(fd: int) -> None:
    try:
        os.fsync(fd)
    except OSError:
        pass  # some network filesystems refuse fsync on directories
    finally:
        os.close(fd)
