"""A game of Othello between two processes that share a board folder.

``python black.py`` and ``python white.py`` (or ``python -m peer --color ...``)
start the two sides; ``python -m peer demo`` shows two computer players.
``Session`` joins the rules (``engine``) and the message board (``comm``).
"""
__all__ = ["Session"]


TYPE_CHECKING = False   # (typing is not imported: peer.installed runs as early as it can)
if TYPE_CHECKING:
    from typing import Any


def __getattr__(name: str) -> "Any":
    # (imported when asked for: ``peer.installed`` must run before anything a Python may lack)
    if name == "Session":
        from .session import Session
        return Session
    raise AttributeError(f"module 'peer' has no attribute {name!r}")
