"""A game of Othello between two processes that share a board folder.

``python black.py`` and ``python white.py`` (or ``python -m peer --color ...``)
start the two sides; ``python -m peer demo`` shows two computer players.
``Session`` joins the rules (``engine``) and the message board (``comm``).
"""
from typing import Any

__all__ = ["Session"]


def __getattr__(name: str) -> Any:
    # (imported when asked for: ``peer.installed`` must run before anything a Python may lack)
    if name == "Session":
        from .session import Session
        return Session
    raise AttributeError(f"module 'peer' has no attribute {name!r}")
