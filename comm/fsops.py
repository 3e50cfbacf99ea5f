"""Small file operations that behave the same on local disks and network shares, and never
follow a link planted in a folder that other people can write.

Only operations that NFS and SMB clients honour are used: mkdir, write, fsync, rename,
unlink.  Files are always closed before they are renamed or removed (SMB refuses to unlink
an open file), and files are found by opening their known names rather than by trusting a
(possibly cached) listing.

**A folder others can write** (the board, see docs/PROTOCOL.md B6-B8): a ``Root`` reaches
everything below ``folder`` one name at a time from directory handles, so that no symbolic
link (or Windows junction / reparse point) below it is ever followed, not even one swapped in
between a check and an act:

* POSIX (``DirFdRoot``): each folder is opened with ``O_DIRECTORY | O_NOFOLLOW`` relative to
  its parent's descriptor, and files are opened, created, renamed, removed and listed with
  ``dir_fd=`` (``openat``, ``renameat``, ``unlinkat``, ...).  A link is then an error, never a
  way out.
* Windows (``PortableRoot``) has no ``dir_fd``: every name is checked with ``lstat`` (a link,
  or any reparse point such as a junction, is refused) just before it is used.  **The race is
  open there**: a link swapped in between the check and the act is followed.

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
(``replace_with``, ``read_text``, ``read_bytes``, ``read_int``, ``remove_tree``, ...) route a path
under a folder opened with ``Root.for_folder`` through that ``Root``; any other path is handled
the same way below its parent folder (only the last names are protected then).
"""
import errno
import logging
import os
import stat
import threading
from typing import Any
from pathlib import Path

from .fserrors import NotRegular, Swapped, retry, trouble
from .fsroot import (_CHMOD_DIRS, _O_CLOEXEC, _CREATE, _LINK_ERRNOS, _LIST, _O_BINARY, _O_DIRECTORY, _O_NOFOLLOW,
                     _O_NONBLOCK, _READ, _WALK, DIR_MODE, FILE_MODE, HOST, H, RootBase, _close_fd, is_link, _kind,
                     _parent, _regular, make_group_writable, new_token)
from .records import RECORD, parse_record, record, record_fields

__all__ = ["Root", "DirFdRoot", "PortableRoot", "make_root", "NotRegular", "Swapped", "trouble", "retry",
           "record", "parse_record", "record_fields", "RECORD", "HOST", "new_token", "make_group_writable",
           "write_scratch", "replace_with", "read_bytes", "read_text", "read_text_full", "read_int",
           "remove_tree", "is_link", "USE_DIR_FD", "FILE_MODE", "DIR_MODE"]

log = logging.getLogger("comm")

# Directory handles close the race between checking a name and using it (``DirFdRoot``, else
# ``PortableRoot``).  Tests switch this off to run the portable (Windows) code on POSIX too.
USE_DIR_FD = (os.name != "nt" and bool(_O_NOFOLLOW and _O_DIRECTORY)
              and {os.open, os.mkdir, os.rename, os.unlink, os.rmdir, os.stat} <= os.supports_dir_fd
              and os.scandir in os.supports_fd)


class Root(RootBase[H]):
    """A folder whose contents others may write: every operation below it is made without
    following links.  Thread-safe; one per folder and process (``Root.for_folder``), of the
    platform's class: ``DirFdRoot`` (POSIX) or ``PortableRoot`` (Windows), chosen once by
    ``make_root``."""

    _registry: dict[str, "Root[Any]"] = {}
    _looks: dict[str, "Root[Any]"] = {}
    _registry_lock = threading.Lock()

    @classmethod
    def for_folder(cls, folder: str | os.PathLike[str], readonly: bool = False) -> "Root[Any]":
        """The ``Root`` of ``folder`` (shared: the path helpers below find it by path).
        ``readonly``: a Root of its own that only looks (never writes, heals or sets aside)."""
        key = os.path.abspath(folder)
        with cls._registry_lock:
            registry = cls._looks if readonly else cls._registry
            r = registry.get(key)
            if r is None:
                r = registry[key] = make_root(folder, guarded=True, readonly=readonly)
            return r

    # -- finding the Root of a path (for the path helpers) -----------------------------------
    @classmethod
    def locate(cls, path: str | os.PathLike[str]) -> "tuple[Root[Any], str] | tuple[None, None]":
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
        if is_link(st) or not stat.S_ISDIR(st.st_mode):
            raise NotRegular(errno.ENOTDIR, f"{_kind(st)}, not a folder", rel)
        return p

    def _lstat_at(self, ph: str, name: str) -> os.stat_result:
        return os.lstat(os.path.join(ph, name))

    def _open_file_at(self, ph: str, name: str, rel: str) -> tuple[int, os.stat_result]:
        # lstat first (a link or reparse point is refused), then open and compare
        p = os.path.join(ph, name)
        st0 = os.lstat(p)
        if is_link(st0) or not stat.S_ISREG(st0.st_mode):
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
        if is_link(st0) or not stat.S_ISREG(st0.st_mode):
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
            if not is_link(st):
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

def make_root(folder: str | os.PathLike[str], guarded: bool = False, readonly: bool = False) -> "Root[Any]":
    """A ``Root`` of ``folder`` for this platform: ``DirFdRoot`` where ``USE_DIR_FD``, else
    ``PortableRoot``.  Code that shares a folder's ``Root`` uses ``Root.for_folder``."""
    return (DirFdRoot if USE_DIR_FD else PortableRoot)(folder, guarded, readonly)


# -- the path-taking helpers (kept for their callers; safe below a registered Root) -------------
def _at(*paths: str | os.PathLike[str]) -> "tuple[Root[Any], list[str]]":
    """A Root and relative paths for ``paths``: the registered board folder holding them, or
    else their common parent folder (followed as given: only the names below it are protected)."""
    located = [Root.locate(p) for p in paths]
    first = located[0][0]
    if first is not None and all(r is first for r, _ in located):
        return first, [rel for _, rel in located if rel is not None]
    parents = [os.path.dirname(os.path.abspath(p)) for p in paths]
    base = os.path.commonpath(parents)
    root = make_root(base)
    rels = [os.path.relpath(os.path.abspath(p), base).replace(os.sep, "/") for p in paths]
    return root, rels


def write_scratch(scratch_dir: str | os.PathLike[str], data: bytes, durable: bool = True) -> Path:
    """Write ``data`` (bytes) to a fresh scratch file (flushed to disk when ``durable``)."""
    root, (rel,) = _at(Path(scratch_dir) / "x")
    parent, _ = _parent(rel)
    return root.path(root.write_scratch(parent, data, durable))


def replace_with(scratch_dir: str | os.PathLike[str], target: str | os.PathLike[str], data: bytes,
                 durable: bool = True) -> None:
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



def read_bytes(path: str | os.PathLike[str], limit: int = 1 << 20) -> bytes | None:
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


def read_text(path: str | os.PathLike[str]) -> str | None:
    """The text of a small file (at most 4096 bytes, as ``read_bytes`` reads it), or None."""
    data = read_bytes(path, 4096)
    if data is None:
        return None
    return data.decode("utf-8", "replace")


def read_text_full(path: str | os.PathLike[str], limit: int = 1 << 20) -> str | None:
    """The text of a file of up to ``limit`` bytes (as ``read_bytes`` reads it), or None."""
    data = read_bytes(path, limit)
    return None if data is None else data.decode("utf-8", "replace")


def read_int(path: str | os.PathLike[str], default: int = 0) -> int:
    """An integer kept in a record; ``default`` when missing or unreadable."""
    text = read_text(path)
    try:
        return int(text.strip()) if text is not None else default
    except ValueError:
        return default


def remove_tree(path: str | os.PathLike[str]) -> None:
    """Remove a folder and what is inside, never following a link; what cannot be removed now
    is left for later."""
    try:
        root, (rel,) = _at(path)
    except ValueError:
        return
    root.remove_tree(rel)
