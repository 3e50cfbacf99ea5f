"""The engine's own option types for command lines (``argparse``'s ``type=``): board size, shape,
threads.

Used by ``python -m engine`` and by the players' command line; the generic checks
(numbers, times, output files) are in ``engine.cliargs``.  The rules behind them
live in the engine (``position.parse_size``, ``backend.MAX_THREADS``); these only
turn a refusal into argparse's one-line error.
"""
import argparse

from .backend import MAX_THREADS
from .position import parse_size
from .shape import Shape, ShapeError


def size_option(text: str) -> int:
    """``parse_size`` for a command-line option."""
    try:
        return parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def shape_option(text: str) -> Shape:
    """``--shape``: a built-in shape's name (any case when unambiguous), else a picture file."""
    try:
        return Shape.find(text)
    except ShapeError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def threads_option(text: str) -> int:
    """A thread count for a command-line option: 1..MAX_THREADS."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if not 1 <= n <= MAX_THREADS:
        raise argparse.ArgumentTypeError(f"threads must be a whole number 1..{MAX_THREADS}: {text!r}")
    return n
