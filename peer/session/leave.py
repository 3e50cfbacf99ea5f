"""How a session ends from deep inside a rule: ``raise Leave(code)``; its last cleanup,
``uninterrupted``."""
import contextlib
import signal
import threading
from typing import Any, Iterator

from ..installed import hold_off


class Leave(Exception):
    """End the session with an exit code (the reason was already shown)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


@contextlib.contextmanager
def uninterrupted() -> Iterator[None]:
    """Ctrl+C and the stopping signals (SIGTERM, SIGHUP, SIGBREAK) are held off while the block runs,
    then dropped: for a leaving program's last cleanup (taking its lock off the board), which a
    second Ctrl+C must not cut in half.  Outside the main thread signals cannot arrive: nothing
    to do."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old: dict[int, Any] = {}
    try:
        old = hold_off()
        yield
    finally:
        while old:          # (a signal landing here before its own handler is back: restore the rest)
            try:
                sig = next(reversed(old))       # SIGINT last
                signal.signal(sig, old[sig])
                del old[sig]
            except KeyboardInterrupt:
                pass
