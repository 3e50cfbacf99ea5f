"""gzip data decompressed with a bound on what it expands to (the book, the pattern weights).

A few megabytes of gzip can expand to gigabytes (a "gzip bomb"): ``decompress`` stops
at ``limit`` bytes and refuses the file, never holding more than that.
"""
import os
import stat
import zlib

GZIP_MAGIC = b"\x1f\x8b"


def decompress(raw: bytes, limit: int) -> bytes:
    """The bytes that the gzip data ``raw`` (one or more members) expands to; ValueError when
    they would be more than ``limit`` bytes, or ``raw`` is not whole gzip data."""
    if not raw:
        raise ValueError("the file is empty")
    out = bytearray()
    rest = raw
    try:
        while True:
            d = zlib.decompressobj(wbits=31)     # gzip header and trailer
            out += d.decompress(rest, limit + 1 - len(out))
            if len(out) > limit or d.unconsumed_tail:
                raise ValueError(f"it expands to more than {limit:,} bytes (the most accepted)")
            if not d.eof:
                raise ValueError("the gzip data is truncated")
            rest = d.unused_data.lstrip(b"\0")   # (gzip allows zero padding after a member)
            if not rest:
                return bytes(out)
            if not rest.startswith(GZIP_MAGIC):
                raise ValueError("trailing bytes after the gzip data")
    except zlib.error as e:
        raise ValueError(f"the gzip data does not decompress ({e})") from None


def read_file(path: "str | os.PathLike[str]", limit: int) -> bytes:
    """The bytes of the file ``path``, reading no more than ``limit`` + 1 of them; ValueError when it
    is larger than ``limit`` bytes (OSError when it cannot be read)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:                            # (not blocking: opening a named pipe waits for a writer)
        if not stat.S_ISREG(os.fstat(fd).st_mode):       # a folder, a pipe or a device: never read
            raise ValueError("it is not a regular file")
    except BaseException:
        os.close(fd)
        raise
    with open(fd, "rb") as f:
        raw = f.read(limit + 1)
    if len(raw) > limit:
        raise ValueError(f"it is larger than {limit:,} bytes (the most accepted)")
    return raw
