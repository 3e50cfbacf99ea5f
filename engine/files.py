"""Files written whole or not at all (the book, the weights, training data, ProbCut tables, journals).

The bytes go to a scratch file beside the target, reach the disk, then one rename puts
them in its place: a reader sees the old file or the new one, never a part, and a failed
write leaves the old file and no scratch behind.  A file replaced keeps its permissions.
"""
import contextlib
import os
import stat
from pathlib import Path
from typing import BinaryIO, Callable, Union

SCRATCH_NAME = 200      # characters of the target's name kept in the scratch's (names stop at 255)


def write_whole(path: "Union[str, os.PathLike[str]]", data: Union[bytes, Callable[[BinaryIO], object]]) -> None:
    """Write ``data`` (bytes, or a function that writes to an open binary file) to ``path``."""
    path = Path(path)
    scratch = path.with_name(f".{path.name[:SCRATCH_NAME]}.{os.getpid()}.tmp")
    try:
        with open(scratch, "wb") as f:
            if isinstance(data, bytes):
                f.write(data)
            else:
                data(f)
            f.flush()
            os.fsync(f.fileno())
        with contextlib.suppress(OSError):          # (no file there yet)
            os.chmod(scratch, stat.S_IMODE(os.stat(path).st_mode))
        os.replace(scratch, path)
    finally:
        with contextlib.suppress(OSError):          # the first error is the one to tell
            scratch.unlink(missing_ok=True)
