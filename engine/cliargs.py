"""Checks of command-line values, as ``argparse`` ``type=`` helpers.

Each helper refuses a bad value with a one-line reason; argparse then prints it
and exits with code 2, before any work starts.  Numbers must be finite and in
range (no NaN, no infinity, no 20-digit counts); an output file must be one
that can be created: not a folder, not in a missing folder, not something other than a
plain file (a device, a FIFO, a link) that it would replace.

This file is copied, unchanged, as ``comm/cliargs.py`` (``engine`` may not
import ``comm``, nor ``comm`` the Othello engine); tests/test_cli_bad_values.py
checks that the two stay the same.
"""
import argparse
import errno
import math
import os
import shlex
import stat
import sys
from pathlib import Path
from typing import Callable

MAX_SECONDS = 1e6   # about 11 days: the largest time any option takes
MAX_NAME = 255      # characters of a file name to write (where most systems stop)


def _shown(text: str) -> str:
    """``text`` quoted and cut short, for a message."""
    return repr(text if len(text) <= 24 else text[:20] + "...")


def whole(lo: int, hi: int) -> Callable[[str], int]:
    """A ``type=`` for a whole number from ``lo`` to ``hi``."""
    def parse(text: str) -> int:
        try:
            n = int(text) if len(text) <= 40 else None
        except ValueError:
            n = None
        if n is None or not lo <= n <= hi:
            raise argparse.ArgumentTypeError(f"must be a whole number from {lo} to {hi}, not {_shown(text)}")
        return n
    return parse


def number(lo: float, hi: float, above: bool = False, unit: str = "") -> Callable[[str], float]:
    """A ``type=`` for a finite number from ``lo`` (excluded when ``above``) to ``hi``; ``unit``
    names it in the message (``"seconds"``)."""
    def parse(text: str) -> float:
        try:
            v = float(text) if len(text) <= 40 else math.nan
        except ValueError:
            v = math.nan
        if not math.isfinite(v) or v > hi or v < lo or (above and v == lo):
            what = f"a number{' of ' + unit if unit else ''}"
            span = f"above {lo:g} and at most {hi:g}" if above else f"from {lo:g} to {hi:g}"
            raise argparse.ArgumentTypeError(f"must be {what} {span}, not {_shown(text)}")
        return v
    return parse


seconds = number(0, MAX_SECONDS, above=True, unit="seconds")
seconds.__doc__ = "A ``type=`` for a time: seconds above 0, at most MAX_SECONDS."


def file_name(text: str) -> Path:
    """A ``type=`` for a file or folder name: refused when empty (it would mean the current
    folder) or when it holds a NUL, which no system accepts."""
    if not text or "\0" in text:
        raise argparse.ArgumentTypeError(f"{_shown(text)} is not a file name")
    return Path(text)


def output_file(text: str) -> str:
    """A ``type=`` for a file to write (replaced whole): refused when it is a folder, or something
    else that is no plain file (a device such as /dev/null, a FIFO, a symbolic link: the new file
    would take its place), when its folder is missing or not a folder, or when it (or its folder)
    cannot be written."""
    path = file_name(text)
    parent = path.parent
    if len(path.name) > MAX_NAME:
        raise argparse.ArgumentTypeError(f"cannot write {_shown(text)}: a name of more than {MAX_NAME} characters")
    try:
        if path.is_dir():
            raise argparse.ArgumentTypeError(f"{_shown(text)} is a folder, not a file to write")
        if os.path.lexists(path) and not stat.S_ISREG(os.lstat(path).st_mode):
            raise argparse.ArgumentTypeError(f"{_shown(text)} is not a plain file: it would be replaced by one")
        if not parent.is_dir():
            raise argparse.ArgumentTypeError(f"cannot write {_shown(text)}: the folder {_shown(str(parent))} "
                                             f"does not exist")
    except OSError as e:
        raise argparse.ArgumentTypeError(f"cannot write {_shown(text)}: {e.strerror or e}") from None
    # a file is written beside its target, then renamed onto it: the folder must take new files
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise argparse.ArgumentTypeError(f"cannot write {_shown(text)}: permission denied")
    return text


def program(command: str, module: str) -> str:
    """How the person started this command: the installed ``command`` (``cardstand-engine``) when
    that is what ran, else ``module`` (``python -m engine``): for its usage line."""
    return command if sys.argv and os.path.splitext(os.path.basename(sys.argv[0]))[0] == command else module


def reader_gone(e: BaseException) -> bool:
    """Whether an error writing our output means that its reader has gone (``| head``): a broken
    pipe, which Windows reports as EINVAL."""
    return isinstance(e, BrokenPipeError) or (
        os.name == "nt" and isinstance(e, OSError) and e.errno == errno.EINVAL)


def command_words(command: str) -> list[str]:
    """A command line split into its words as the system's shell would: POSIX quotes and escapes;
    on Windows, where a backslash is a path's and not an escape, double quotes around a word (a
    path with spaces: ``"C:\\Program Files\\x.exe" play``) are taken off.  ``ValueError`` for
    an unclosed quote."""
    if os.name != "nt":
        return shlex.split(command)
    return [w[1:-1] if len(w) >= 2 and w[0] == w[-1] == '"' else w for w in shlex.split(command, posix=False)]
