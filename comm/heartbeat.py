"""A member's heartbeat (I6, P2): its ``alive`` record, rewritten about every second.

The record names the member's run, counts its beats and carries a short state ("waiting",
"thinking").  Others judge a member gone when its record stops changing (on their own clock),
or is removed (a clean close).  Only the member writes its own record: no lock is taken.
"""
import logging
import threading
from typing import Any
from collections.abc import Callable

from . import fsops
from .message import VERSION

log = logging.getLogger("comm")

BEAT_EVERY = 1.0           # s between two beats of a member's alive record (I6; at most L/5)


class Heartbeat:
    """The ``alive`` record at ``rel`` below ``root`` and the thread that keeps it beating."""

    def __init__(self, root: "fsops.Root[Any]", rel: str, name: str) -> None:
        self.root = root
        self.rel = rel
        self.name = name
        self.state = ""
        self._beats = 0
        self._lock = threading.Lock()
        self._stop: threading.Event | None = None

    def write(self, run: str, first: bool = False) -> None:
        """Write one beat of ``run`` now (``first``: the first of a new run, counted from 1)."""
        with self._lock:
            self._beats = 1 if first else self._beats + 1
            text = f"cardstand-alive {VERSION}\nrun: {run}\nbeat: {self._beats}\nstate: {self.state[:64]}"
            self.root.replace(self.rel, fsops.record(text), durable=False)

    def start(self, every: float, beat: Callable[[], bool]) -> None:
        """Call ``beat`` every ``every`` s from a daemon thread until it returns False or
        ``stop`` is called.  What it raises is logged (a share's passing error is no news)."""
        stop = self._stop = threading.Event()
        threading.Thread(target=self._loop, args=(stop, every, beat), daemon=True,
                         name=f"comm-alive-{self.name.lower()}").start()

    def stop(self) -> None:
        """Stop the thread (the record stays as it is)."""
        if self._stop is not None:
            self._stop.set()
            self._stop = None

    def _loop(self, stop: threading.Event, every: float, beat: Callable[[], bool]) -> None:
        while not stop.wait(every):
            try:
                if not beat():
                    return
            except Exception as e:      # a share's passing error, a gone board: no news here
                log.debug("%s: beat skipped: %s", self.name, e)
