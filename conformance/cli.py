"""Conformance kit: check any implementation of docs/PROTOCOL.md from the outside.

    python -m conformance --peer "node interop/js/peer.js"
    python -m conformance --profile minimal --peer ./minimal     # a peer with only "play"

The implementation offers two commands (see docs/CONFORMANCE.md):

    CMD serve --board DIR --name NAME [--stale-after S] [--lock-timeout S]
        JSON requests on stdin, one JSON answer per line on stdout
    CMD play --board DIR --color black|white
        plays one game on DIR to its end, then exits 0 (non-zero when the game
        was refused)

Each scenario names the clauses of docs/PROTOCOL.md it checks and passes or
fails on its own; the exit status is 0 only when all pass.
"""
import argparse
import logging
import signal
import sys
import tempfile
from pathlib import Path
from types import FrameType
from typing import Sequence

from comm.cliargs import command_words, program

from .runner import JOBS, PROFILES, run


def _jobs(text: str) -> int:
    """--jobs: a whole number, at least 1."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return n


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit status (0: all passed, 1: a failure, 2: cannot start)."""
    ap = argparse.ArgumentParser(prog=program("cardstand-kit", "python -m conformance"), description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--peer", required=True, metavar="CMD", help="the implementation's command")
    ap.add_argument("--player", metavar="CMD",
                    help="the command that plays a game (default: the --peer command followed by 'play')")
    ap.add_argument("--board", metavar="DIR", help="make the boards under DIR (e.g. on a network share)")
    ap.add_argument("--board-b", metavar="DIR",
                    help="DIR as a second mount shows it: the kit and our players use this view")
    ap.add_argument("--profile", choices=sorted(PROFILES), default="full",
                    help="the scenarios of a profile (PROTOCOL.md, Profiles): full (default), or minimal for a peer "
                    "with only a play command; minimal ends by listing the full clauses it did not check")
    ap.add_argument("--only", nargs="+", metavar="SCENARIO", help="run only these scenarios (the names the "
                    "kit prints, e.g. init game_black)")
    ap.add_argument("--jobs", type=_jobs, default=JOBS, metavar="N",
                    help=f"run N scenarios side by side, each on a board and with programs of its own "
                    f"(default: {JOBS}: they mostly wait on the protocol's clocks, so a few at once take about the "
                    "time of the longest and little processor); the report keeps the profile's order.  --jobs 1 "
                    "runs one at a time: for a very slow or busy computer, where the time bounds a scenario "
                    "checks (a lock broken within L) are best judged alone")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)  # the kit's own retries are expected, not news
    if args.board_b and not args.board:
        ap.error("--board-b goes with --board")
    for option, command in (("--peer", args.peer), ("--player", args.player)):
        if command is None:
            continue
        try:
            words = command_words(command)
        except ValueError as e:     # (a quote not closed, a backslash at the end)
            ap.error(f"{option} {command!r} cannot be split into words: {e}")
        if not words:
            ap.error(f"{option} names no command")
    names = [fn.__name__[2:] for fn in PROFILES[args.profile]]
    unknown = [n for n in args.only or () if n not in names]
    if unknown:
        ap.error(f"no scenario {', '.join(map(repr, unknown))} in the {args.profile} profile; its scenarios: "
                 f"{' '.join(names)}")
    for folder in (args.board, args.board_b):
        if folder is None:
            continue
        try:
            Path(folder).mkdir(parents=True, exist_ok=True)
            probe = Path(tempfile.mkdtemp(prefix="kit-probe-", dir=folder))
            probe.rmdir()
        except OSError as e:
            print(f"python -m conformance: cannot make boards under {folder}: {e.strerror or e}",
                  file=sys.stderr)
            return 2
    stopped: dict[str, int] = {}

    def on_term(signum: int, frame: FrameType | None) -> None:     # stopped from outside: as Ctrl+C (programs stopped, summed up)
        stopped["code"] = 128 + signum
        raise KeyboardInterrupt
    if hasattr(signal, "SIGTERM"):
        signal.signal(signal.SIGTERM, on_term)
    try:
        results = run(args.peer, args.player, args.board, args.only, base_b=args.board_b, profile=args.profile,
                      jobs=args.jobs)
    except KeyboardInterrupt:
        return stopped.get("code", 130)
    return 0 if results and all(ok for _, _, ok, _ in results) else 1
