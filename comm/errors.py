"""What a board raises when it cannot be used, or a member may not go on."""
from collections.abc import Mapping

from .text import visible


class BoardError(OSError):
    """The board folder cannot be used (missing, unreadable, foreign).  For a program that words it
    itself, some say why as a ``code`` with raw ``fields``: ``not_a_marker`` (``marker``: the
    file), ``other_version`` (``folder``, ``version``, ``mine``), ``cannot_use`` and ``cannot_join``
    (``folder``, ``name``, ``kind``: the member's problem code, ``system``: the system's words),
    ``name_contested`` (``folder``, ``name``); else ``code`` is ''."""

    code = ""
    fields: Mapping[str, object] = {}

    @classmethod
    def coded(cls, code: str, text: str, **fields: object) -> "BoardError":
        e = cls(None, text)
        e.code, e.fields = code, fields
        return e

    def __str__(self) -> str:
        return self.strerror if self.strerror and self.errno is None else super().__str__()


class MemberBusy(BoardError):
    """``join`` refused: the name's current run is alive (I6).  Nothing was changed.

    ``name``, ``run``, ``host``, ``machine``, ``pid`` come from its member record (text from
    the board, made visible); ``seen`` is how many seconds ago it last showed life on this
    process's clock (None when judged by its running process); ``how`` says how it was judged.
    """

    def __init__(self, name: str, fields: Mapping[str, str], seen: float | None, how: str) -> None:
        self.name = name
        self.run, self.host, self.machine, self.pid = (visible(fields.get(k, ""), 100)
                                                       for k in ("run", "host", "machine", "pid"))
        self.seen = seen
        self.how = how
        where = f"pid {self.pid or '?'} on {self.host or '?'}" + (f", machine {self.machine}" if self.machine else "")
        super().__init__(None, f"{name} is already on this board and alive ({where}; {how}): another "
                               f"run of the same name would take its messages.  If that program is "
                               f"truly gone, join again taking over its name (take_over=True)")


class Replaced(BoardError):
    """Another run has joined under this member's name (I6): this run must stop."""
