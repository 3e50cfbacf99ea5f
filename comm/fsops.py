"""Small file operations that behave the same on local disks and network shares.

Only operations that NFS and SMB clients honour are used: mkdir, write,
fsync, rename, unlink.  Files are always closed before they are renamed or
removed (SMB refuses to unlink an open file), and files are found by opening
their known names rather than by trusting a (possibly cached) listing.
"""
import errno
import os
import socket
import time
import uuid
from pathlib import Path

HOST = socket.gethostname() or "host"
_RETRY_ERRNOS = {errno.EBUSY, errno.EACCES, errno.EPERM, errno.EIO, errno.EAGAIN}


def new_token():
    """A name-safe identifier unique across hosts and processes."""
    return uuid.uuid4().hex[:16]


def fsync_dir(path):
    """Make a rename in ``path`` durable where the platform allows (not on Windows)."""
    if os.name == "nt":
        return
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some network filesystems refuse fsync on directories
    finally:
        os.close(fd)


def write_scratch(scratch_dir, data, durable=True):
    """Write ``data`` (bytes) to a fresh scratch file (flushed to disk when ``durable``)."""
    path = Path(scratch_dir) / f"{HOST[:24]}-{os.getpid()}-{new_token()}.tmp"
    with open(path, "xb") as f:
        f.write(data)
        if durable:
            f.flush()
            os.fsync(f.fileno())
    return path


def replace_with(scratch_dir, target, data, durable=True):
    """Atomically make ``target`` hold ``data``: scratch file, fsync, one rename.

    ``durable=False`` skips the fsync, for hints that readers can rebuild.  The
    rename is not forced to disk: after a power cut the old content may return,
    which every file written this way tolerates.
    """
    tmp = write_scratch(scratch_dir, data, durable)
    try:
        # SMB refuses to replace a file another client has open (EEXIST, EACCES): retry briefly
        retry(os.replace, tmp, target, attempts=20, also=(errno.EEXIST,))
    except BaseException:
        remove(tmp)
        raise


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


def read_bytes(path, limit=1 << 20):
    """The bytes of ``path`` opened by name, or None when it does not exist.

    A share's passing error (busy, EIO) is retried a few times before it is raised.
    """
    def read():
        with open(path, "rb") as f:
            return f.read(limit)
    try:
        return retry(read)
    except (FileNotFoundError, NotADirectoryError):
        return None


def present(path):
    """Whether a file exists, by opening it: a share's client may answer ``stat`` from a stale cache."""
    try:
        with open(path, "rb"):
            return True
    except (FileNotFoundError, NotADirectoryError):
        return False
    except IsADirectoryError:
        return True
    except OSError:
        return os.path.lexists(path)


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


def remove(path):
    """Remove a file if it exists (retrying briefly while a share says it is busy)."""
    try:
        retry(os.unlink, path)
        return True
    except FileNotFoundError:
        return False
    except OSError:
        return False


def remove_tree(path):
    """Remove a directory of plain files; what cannot be removed now is left for later."""
    p = Path(path)
    try:
        entries = list(p.iterdir())
    except OSError:
        return
    for e in entries:
        if e.is_dir():
            remove_tree(e)
        else:
            remove(e)
    try:
        retry(os.rmdir, p)
    except OSError:
        pass


def retry(fn, *args, attempts=5, delay=0.01, also=()):
    """Call ``fn``, retrying transient share errors (busy, EIO, and ``also``) a few times."""
    for i in range(attempts):
        try:
            return fn(*args)
        except FileNotFoundError:
            raise
        except OSError as e:
            if (e.errno not in _RETRY_ERRNOS and e.errno not in also) or i == attempts - 1:
                raise
            time.sleep(min(delay * (i + 1), 0.05))
