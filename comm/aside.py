"""What comm sets aside: garbage found on a board, moved into its ``trash/`` (or removed).

``RootBase.set_aside`` logs each one and tells every ``AsideNews`` of its folder (one a ``Board``:
``Board.take_set_aside``), so that a program can show a person what happened.  comm keeps the
facts; the program words them.
"""
import threading
from dataclasses import dataclass

# what was wrong with what was set aside
KINDS = frozenset({
    "refused",          # a message whose MAC is missing or wrong (A3)
    "damaged",          # a message or record that cannot be read as one
    "not_message",      # something that is not a regular file under a message's name
    "not_file",         # a folder (or another non-file) where a file belongs
    "not_folder",       # a link or a file where a folder belongs
})
KEPT = 100      # set-asides an ``AsideNews`` keeps until taken; beyond, only counted


@dataclass(frozen=True)
class Why:
    """Why something is set aside: ``kind`` (one of ``KINDS``), ``detail`` (what comm or the system
    found, in English: ``checksum mismatch``, ``a symbolic link``) and ``words`` (the log's sentence)."""

    kind: str
    detail: str
    words: str

    def __str__(self) -> str:
        return self.words


@dataclass(frozen=True)
class SetAside:
    """One thing set aside: ``path`` is where it was, relative to the board
    (``box/black/000000000012.msg``); ``kind`` and ``detail`` are its ``Why``'s.  ``path`` and
    ``detail`` may hold text chosen by anyone who can write the board: show them through
    ``comm.text.visible``."""

    path: str
    kind: str
    detail: str


class AsideNews:
    """The set-asides one reader has not taken yet: the first ``KEPT``, and a count of the others
    (a board flooded with junk costs no memory).  Thread-safe: heartbeats set aside too."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: list[SetAside] = []
        self._more = 0

    def put(self, item: SetAside) -> None:
        with self._lock:
            if len(self._kept) < KEPT:
                self._kept.append(item)
            else:
                self._more += 1

    def take(self) -> tuple[list[SetAside], int]:
        """(the set-asides kept, oldest first; how many more there were) since the last call."""
        with self._lock:
            out, more = self._kept, self._more
            self._kept, self._more = [], 0
        return out, more
