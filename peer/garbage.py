"""Garbage on the board: what comm set aside into ``trash/`` (a damaged or forged message, a file or
link where a folder belongs...) is told to the person, a line each, a few a minute, the rest counted.
Never waited for: the game goes on as comm left it.  For a player (``Session``) and a watcher."""
import time
from collections.abc import Callable

from comm.aside import SetAside
from comm.text import visible

from .reasons import Reason

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


NOISE_SHOWN = 12        # lines a minute that refused or ignored messages may put on the screen; beyond, counted
CHAT_SHOWN = 30         # chat lines a minute (the opponent's own: a person may chat quickly)
NOISE = {"other_run": "refused", "mac_refused": "refused", "refused_theirs": "refused", "they_refused": "refused",
         "set_aside": "refused", "renamed_them": "refused", "chat": "chat"}


class Quota:
    """What one misbehaving board may put on a screen: ``shown`` lines in each ``every`` seconds,
    whatever they vary (run, MAC, text); the rest are counted, and the count is told once in as
    long (``due``)."""

    def __init__(self, shown: int = NOISE_SHOWN, every: float = ASIDE_EVERY) -> None:
        self.shown, self.every = shown, every
        self.since = -every         # when the lines told one by one began to be counted (monotonic)
        self.told = 0
        self.unsaid = 0
        self.counted = -every       # when the count of the others was last told

    def allow(self, now: float) -> bool:
        """Whether one more line may be shown at ``now``; else it is counted."""
        if now - self.since >= self.every:
            self.since, self.told = now, 0
        if self.told < self.shown:
            self.told += 1
            return True
        self.unsaid += 1
        return False

    def due(self, now: float) -> int:
        """The lines not shown, once they are to be told (at most once every ``every`` s), else 0."""
        if not self.unsaid or now - self.counted < self.every:
            return 0
        n, self.unsaid, self.counted = self.unsaid, 0, now
        return n


class Noise:
    """What the board may put on a screen a minute: refused or ignored messages (``NOISE_SHOWN``),
    chat (``CHAT_SHOWN``), whatever they vary; the rest counted in one line a minute."""

    def __init__(self) -> None:
        self.quotas = {"refused": Quota(NOISE_SHOWN), "chat": Quota(CHAT_SHOWN)}

    def allow(self, what: str, now: float) -> bool:
        """Whether the event ``what`` may be shown at ``now`` (an event that is no noise always may)."""
        kind = NOISE.get(what)
        return kind is None or self.quotas[kind].allow(now)

    def due(self, now: float) -> int:
        """The lines not shown, once they are to be told (``Quota.due``), else 0."""
        return sum(q.due(now) for q in self.quotas.values())


class Garbage:
    """Tells through ``say`` (a session's, a watcher's) what comm set aside: ``set_aside`` events,
    ``ASIDE_SHOWN`` a minute, and one ``set_aside_more`` a minute counting the others."""

    def __init__(self, say: Callable[..., None]) -> None:
        self.say = say
        self.since = -ASIDE_EVERY       # when the told one by one began to be counted (monotonic)
        self.told = 0                   # told one by one since then
        self.unsaid = 0                 # set aside and not told yet
        self.counted = -ASIDE_EVERY     # when the count of the others was last told

    def tell(self, items: list[SetAside], more: int) -> None:
        """Tell ``items`` set aside, and ``more`` not kept (``comm.Board.take_set_aside``); called
        with every look at the board, with nothing new too (a count due is told then)."""
        now = time.monotonic()
        for item in items:
            if now - self.since >= ASIDE_EVERY:
                self.since, self.told = now, 0
            if self.told < ASIDE_SHOWN:
                self.told += 1
                self.say("set_aside", path=shown(item.path, PATH_LIMIT), reason=aside_reason(item))
            else:
                self.unsaid += 1
        self.unsaid += more
        if self.unsaid and now - self.counted >= ASIDE_EVERY:
            self.say("set_aside_more", n=self.unsaid)
            self.unsaid, self.counted = 0, now
