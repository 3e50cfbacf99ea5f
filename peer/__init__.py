"""A game of Othello between two processes that share a board folder.

``python black.py`` and ``python white.py`` (or ``python -m peer --color ...``)
start the two sides; ``python -m peer demo`` shows two computer players.
``Session`` joins the rules (``engine``) and the message board (``comm``).
"""
from .session import Session

__all__ = ["Session"]
