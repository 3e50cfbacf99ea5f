"""Files written whole or not at all (the book, the weights, training data, ProbCut tables, journals).

The bytes go to a scratch file beside the target, reach the disk, then one rename puts
them in its place: a reader sees the old file or the new one, never a part, and a failed
write leaves the old file and no scratch behind.  A file replaced keeps its permissions.  A
scratch of the same target over an hour old (a writer killed mid-write) is removed by the
next write.
"""
import contextlib
import os
import re
import stat
import time
from pathlib import Path
from typing import BinaryIO, Callable, Union

SCRATCH_NAME = 200      # characters of the target's name kept in the scratch's (names stop at 255)
LEFTOVER_AGE = 3600     # seconds: a scratch this old is no write in progress


def _remove_leftovers(path: Path) -> None:
    """Remove the scratch files of earlier writes of ``path`` that were killed (over an hour old)."""
    pattern = re.compile(re.escape(f".{path.name[:SCRATCH_NAME]}.") + r"[0-9]+\.tmp")
    with contextlib.suppress(OSError):
        for entry in os.scandir(path.parent):
            if pattern.fullmatch(entry.name) and entry.is_file(follow_symlinks=False) \
                    and time.time() - entry.stat(follow_symlinks=False).st_mtime > LEFTOVER_AGE:
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def write_whole(path: "Union[str, os.PathLike[str]]", data: Union[bytes, Callable[[BinaryIO], object]]) -> None:
    """Write ``data`` (bytes, or a function that writes to an open binary file) to ``path``."""
    path = Path(path)
    _remove_leftovers(path)
    scratch = path.with_name(f".{path.name[:SCRATCH_NAME]}.{os.getpid()}.tmp")
    try:
        with open(scratch, "wb") as f:
            if isinstance(data, bytes):
                f.write(data)
            else:
                data(f)
            f.flush()
            os.fsync(f.fileno())
        with contextlib.suppress(OSError):          # (no file there yet; a link or a device: not its mode)
            st = os.lstat(path)
            if stat.S_ISREG(st.st_mode):
                os.chmod(scratch, stat.S_IMODE(st.st_mode))
        os.replace(scratch, path)
    finally:
        with contextlib.suppress(OSError):          # the first error is the one to tell
            scratch.unlink(missing_ok=True)
