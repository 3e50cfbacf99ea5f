"""A look at a board folder that writes nothing: who is there, for a lobby, a watcher or a
program choosing a board to join.

What it reads is each member's ``member`` record (I6: its latest run) and ``alive`` record (P2:
that run's heartbeat).  Nothing is created, healed or set aside (``fsops.Root.for_folder(...,
readonly=True)``): a link or a file where a folder belongs reads as nobody there.  Whether a
member is there *now* is judged on this process's own clock by ``Beats``, never by file times.
"""
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import fsops
from .lease import pid_alive
from .message import _NAME

__all__ = ["Seat", "Look", "look", "Beats", "MAX_MEMBERS"]

MAX_MEMBERS = 64        # mailboxes looked at on one board (a board of two players has two)


@dataclass(frozen=True)
class Seat:
    """One member as its records say: ``name`` (as it joined), its latest ``run`` and ``host``,
    the ``beat`` and ``state`` of that run's ``alive`` record ('' when there is none for that
    run: it closed, or it keeps none), the record's ``mac`` (check it with ``member_mac``), and
    ``ended``: "gone" (its process, on this machine, is
    gone), "closed" (it runs, but no ``alive`` record names its run), '' when that cannot be
    told from here (judge its beat: ``Beats``)."""
    name: str
    run: str
    host: str = ""
    beat: str = ""
    state: str = ""
    ended: str = ""
    mac: str = ""       # the member record's MAC (with a shared secret, A6), as written


@dataclass(frozen=True)
class Look:
    """What a board folder held when it was looked at: ``board`` (its marker is there) and its
    ``seats`` by mailbox key (the name in lower case)."""
    folder: Path
    board: bool
    seats: dict[str, Seat] = field(default_factory=dict)


def look(folder: "str | os.PathLike[str]", names: Iterable[str] | None = None) -> Look:
    """Who is on the board at ``folder``: the members ``names`` (mailbox names), or every member
    (at most ``MAX_MEMBERS`` mailboxes are read).  Writes nothing; never raises for what the
    folder holds or lacks (a folder that is missing or no board: ``Look(board=False)``)."""
    root = fsops.Root.for_folder(folder, readonly=True)
    path = Path(folder)
    try:
        with root.batch():
            st = root.lstat(fsops.Root.MARKER)
            if st is None:
                return Look(path, False)
            keys = [n.lower() for n in names] if names is not None else root.listdir("box")
            seats = {}
            for key in keys[:MAX_MEMBERS]:
                if not _NAME.fullmatch(key) or key.lower() != key:
                    continue
                seat = _seat(root, key)
                if seat is not None:
                    seats[key] = seat
            return Look(path, True, seats)
    except (OSError, ValueError):
        return Look(path, False)


def _fields(root: "fsops.Root[Any]", rel: str) -> dict[str, str]:
    try:
        return fsops.record_fields(root.read_text(rel, strict=True))
    except (OSError, ValueError):      # (NotRegular is an OSError: a link, a FIFO... reads as none)
        return {}


def _seat(root: "fsops.Root[Any]", key: str) -> Seat | None:
    member = _fields(root, f"box/{key}/member")
    run = member.get("run", "")
    if not run:
        return None
    alive = _fields(root, f"box/{key}/alive")
    beating = alive.get("run") == run
    running = pid_alive(member)
    ended = "" if running is None else "gone" if not running else "" if beating else "closed"
    return Seat(name=member.get("name", key)[:64], run=run[:64], host=member.get("host", "")[:64],
                beat=alive.get("beat", "")[:32] if beating else "", state=alive.get("state", "")[:64] if beating else "",
                ended=ended, mac=member.get("mac", "")[:64])


class Beats:
    """Judges, on this process's clock, whether members are there (P2): a member is there while
    its run has an ``alive`` record and no process is known ended, and its beat has changed
    within ``gone_after`` seconds of being first seen or last changed.  One per watcher; keyed by
    whatever the caller names a seat by (a board and a mailbox)."""

    def __init__(self, gone_after: float = 6.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.gone_after = gone_after
        self.clock = clock
        self._seen: dict[object, tuple[str, str, float, bool]] = {}   # key -> (run, beat, since, changed)

    def there(self, key: object, seat: Seat | None) -> bool:
        """Whether the member ``seat`` (None: no member) is there now."""
        if seat is None or not seat.beat or seat.ended:
            self._seen.pop(key, None)
            return False
        now = self.clock()
        old = self._seen.get(key)
        if old is None or old[0] != seat.run:
            self._seen[key] = (seat.run, seat.beat, now, False)
            return True
        if old[1] != seat.beat:
            self._seen[key] = (seat.run, seat.beat, now, True)
            return True
        return now - old[2] <= self.gone_after

    def beating(self, key: object) -> bool:
        """Whether the member last judged under ``key`` has been seen to beat (its beat changed
        since it was first seen): there for sure, not a record left by a run that died."""
        old = self._seen.get(key)
        return old is not None and old[3]

    def forget(self, keep: Callable[[object], bool]) -> None:
        """Drop what is known of the keys ``keep`` refuses (boards no longer listed)."""
        for key in [k for k in self._seen if not keep(k)]:
            del self._seen[key]
