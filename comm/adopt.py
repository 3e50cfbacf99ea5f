"""Whether a program may make a folder a board: a guard for a mistyped ``--board``.

``Init`` (F2) makes any folder without a marker a board, and the clean-up (S1) then removes
old ``*.tmp`` files and ``lock-*`` folders from its ``tmp/`` and old files from its ``trash/``:
right for a board, wrong for a folder of someone's own files named by mistake (``--board ~``,
``--board /``, ``--board ""``).  A program started by a person calls ``unfit_for_a_board`` before
``Init`` and refuses a folder that holds anything but a board's own names (F2c).
"""
import errno
import os
from pathlib import Path
from typing import NamedTuple

from .text import visible

MARKER = "cardstand.board"
# what a board holds (a board that lost its marker keeps these), and what file managers and
# version control leave in any folder
BOARD_NAMES = frozenset({MARKER, "cardstand.id", "box", "tmp", "trash", "records"})
HOUSEKEEPING = frozenset({"desktop.ini", "thumbs.db", "readme.md", "readme.txt"})
SHOWN = 3


class Unfit(NamedTuple):
    """Why a folder should not be made a board: ``text`` in English, and for a program that words
    it itself ``code`` (``empty_name``, ``a_file``, ``not_a_board``) with its ``fields``: ``file``
    (the file in the way), ``folder``, ``shown`` (a few of the names it holds, made visible)."""
    code: str
    text: str
    fields: dict[str, str]


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:         # (a folder above that may not be looked into)
        return False


def unfit_for_a_board(folder: "str | os.PathLike[str]") -> str:
    """``why_unfit``'s text, or '' when ``folder`` may be made a board."""
    why = why_unfit(folder)
    return why.text if why else ""


def why_unfit(folder: "str | os.PathLike[str]") -> Unfit | None:
    """Why ``folder`` should not be made a board, or None when it may: it is missing (it will be
    made), empty, already a board (its marker is there, whatever else it holds), or holds only a
    board's own names, hidden names (``.gitignore``), a README and ``*.tmp`` files (the scratch
    of the marker another program's Init is writing; S1 never cleans the folder itself).  Reads
    the folder's listing only; a folder that cannot be listed is left for ``Init`` to report."""
    if not os.fspath(folder):
        return Unfit("empty_name", "the board folder's name is empty: name a folder (the default is ./cardstand)", {})
    path = Path(folder)
    foreign: list[str] = []
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                name = entry.name
                if name == MARKER:
                    return None
                if name in BOARD_NAMES or name.startswith(".") or name.lower() in HOUSEKEEPING \
                        or name.endswith(".tmp"):     # (the scratch of a marker another Init is writing)
                    continue
                foreign.append(name)
    except OSError as e:
        # a file there or above it: ENOTDIR here; Windows says "path not found" for one above it,
        # and Wine "invalid name" for the file itself
        above = next((p for p in (path, *path.parents) if _is_file(p)), None)
        if above is not None or isinstance(e, NotADirectoryError):
            file = visible(str(above or path), 200)
            return Unfit("a_file", f"{file} is a file, not a folder: name a new or empty folder for the board",
                         {"file": file})
        if isinstance(e, FileNotFoundError):
            return None
        if e.errno in (errno.ENAMETOOLONG, errno.EINVAL, errno.ELOOP):   # never a folder: say so now
            shown = visible(str(path), 80)
            return Unfit("bad_folder_name", f"{shown} cannot be a folder: {e.strerror}", {"folder": shown,
                                                                                         "why": e.strerror or ""})
        return None     # (a folder that cannot be listed: Init reports it)
    if not foreign:
        return None
    shown = ", ".join(visible(n, 40) for n in sorted(foreign)[:SHOWN]) + (", ..." if len(foreign) > SHOWN else "")
    where = visible(str(path), 200)
    return Unfit("not_a_board", f"{where} is not a board (it has no {MARKER}) and holds other files ({shown}): "
                 "name a new or empty folder, and a board is made there", {"folder": where, "shown": shown})
