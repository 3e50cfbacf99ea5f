"""Garbage on the board: what comm set aside into ``trash/`` (a damaged or forged message, a file or
link where a folder belongs...) is told to the person, a line each, a few a minute, the rest counted.
Never waited for: the game goes on as comm left it."""
import time
from typing import TYPE_CHECKING

from comm.aside import SetAside
from comm.text import visible

from ..reasons import Reason
from .state import State

if TYPE_CHECKING:
    from .core import Session

ASIDE_SHOWN = 3         # set-asides told one by one in each ASIDE_EVERY s; beyond, counted
ASIDE_EVERY = 60.0      # s; the count of the others is told at most once in as long
PATH_LIMIT = 80         # characters shown of a path or a detail: anyone who can write the board chose them
DETAIL_LIMIT = 120


def shown(text: str, limit: int) -> str:
    """``text`` from the board as a screen may print it: escapes for control and bidi characters
    and for bytes that were not UTF-8 (a file name's), cut to ``limit`` characters."""
    return visible(text.encode("utf-8", "backslashreplace").decode("utf-8"), limit)


def aside_reason(item: SetAside) -> Reason:
    """What was wrong with ``item``: a ``Reason`` (``aside_<kind>``) with its detail made safe."""
    detail = shown(item.detail, DETAIL_LIMIT)
    return Reason(f"aside_{item.kind}", detail, {"detail": detail})


class Garbage(State):
    """Mixed into ``Session``: tells what comm set aside."""

    _aside_since = -ASIDE_EVERY     # when the told one by one began to be counted (monotonic)
    _aside_told = 0                 # told one by one since then
    _aside_unsaid = 0               # set aside and not told yet
    _aside_counted = -ASIDE_EVERY   # when the count of the others was last told

    def _check_set_aside(self: "Session") -> None:
        """Tell what comm set aside since the last look (called with every look at the board)."""
        items, more = self.board.take_set_aside()
        now = time.monotonic()
        for item in items:
            if now - self._aside_since >= ASIDE_EVERY:
                self._aside_since, self._aside_told = now, 0
            if self._aside_told < ASIDE_SHOWN:
                self._aside_told += 1
                self.say("set_aside", path=shown(item.path, PATH_LIMIT), reason=aside_reason(item))
            else:
                self._aside_unsaid += 1
        self._aside_unsaid += more
        if self._aside_unsaid and now - self._aside_counted >= ASIDE_EVERY:
            self.say("set_aside_more", n=self._aside_unsaid)
            self._aside_unsaid, self._aside_counted = 0, now
