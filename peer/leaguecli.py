"""``python -m peer league``: enter a league, referee it, or read its standings."""
import argparse
import logging
import shutil
import sys
from pathlib import Path
from typing import NoReturn

from comm.text import visible
from engine import loader, strategies
from engine.cliargs import MAX_SECONDS, command_words, number, whole
from engine.options import size_option

from . import installed
from .entrant import Entrant
from .faces.face import Face, on_signals
from .league import standings
from .leaguefiles import MAX_ROUNDS, Entry, LeagueError, LeagueFolder, check_entrant, check_league_name, standings_text
from .protocol import parse_board, shape_code
from .referee import Limits, Referee
from .tables import ShareError, check_share

EPILOG = """A league runs on a class's shared folder (--share): each entrant starts 'league enter'
on its own machine, then one referee, on any machine, starts 'league referee'. The referee pairs
the entrants round robin (both colours), each game is played at a table of its own by the two
entrants' processes, and the standings go to <share>/<league>/standings.html. See docs/teacher.md.

examples:
  {cmd} enter --share S --league week3 --name alice --ai greedy
  {cmd} enter --share S --league week3 --name bob --ai my_ai.py:MyAI
  {cmd} enter --share S --league week3 --name carol --engine "python engine.py"
  {cmd} enter --share S --league week3 --name dave --program "node interop/js/peer.js play"
  {cmd} referee --share S --league week3 --entrants 4
  {cmd} standings --share S --league week3
"""
_seconds = number(0.001, MAX_SECONDS, unit="seconds")
_per_move = number(0.001, 3600, unit="seconds")


def _common(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--share", required=True, metavar="DIR", help="the class's shared folder")
    ap.add_argument("--league", required=True, metavar="NAME", help="the league's name (1-16 letters, digits, - or _)")
    ap.add_argument("--secret-file", metavar="FILE", help="the class's shared secret (else CARDSTAND_SECRET): the "
                                                           "league's files are signed and checked, every game too")


def parser() -> argparse.ArgumentParser:
    cmd = f"{installed.peer_command()} league"
    ap = argparse.ArgumentParser(prog=cmd, description="A league of the class's programs on a shared folder.",
                                 epilog=EPILOG.format(cmd=cmd), formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True, metavar="{enter,referee,standings}")
    e = sub.add_parser("enter", help="enter the league and play its games from this machine",
                       description="Enter a league on a shared folder and play its games from this machine: stay "
                                   "until the league is over (each game's player is started at its table).")
    _common(e)
    e.add_argument("--name", required=True, help="the entrant's name (1-32 letters, digits, - or _)")
    who = e.add_mutually_exclusive_group(required=True)
    who.add_argument("--ai", metavar="NAME", help=f"a built-in AI ({', '.join(strategies.names())}) or your own, "
                                                   "FILE.py:CLASS (docs/ai.md)")
    who.add_argument("--engine", metavar="CMD", help="an external program in the one-shot format")
    who.add_argument("--program", metavar="CMD", help="a peer in any language, started for each game with "
                                                       "--board TABLE --color C added to CMD")
    e.add_argument("--log", metavar="DIR", help="keep each game's output in this folder")
    e.add_argument("--patience", type=_seconds, default=60.0, help=argparse.SUPPRESS)
    r = sub.add_parser("referee", help="pair the entrants, follow the games, write the standings",
                       description="Referee a league: wait for the entrants, pair them round robin (both colours), "
                                   "decide each game from its record (or a forfeit), write the standings. One "
                                   "referee at a time; a new one goes on from what the share holds.")
    _common(r)
    r.add_argument("--entrants", type=whole(2, 64), metavar="N", help="start once N entrants are there (else "
                                                                      "with those there after --wait)")
    r.add_argument("--wait", type=_seconds, default=300.0, metavar="SECONDS",
                   help="how long to wait for the entrants (default 300)")
    r.add_argument("--rounds", type=whole(1, MAX_ROUNDS), default=1, help="times each pair meets in each colour")
    r.add_argument("--size", type=size_option, default=8, help="the board's size (default 8)")
    r.add_argument("--shape", help="a variant board (its name, a picture file, or its code)")
    r.add_argument("--time", type=_per_move, default=0.1, metavar="SECONDS",
                   help="thinking time a move for built-in and own AIs (default 0.1)")
    for opt, default, what in (("start", 60.0, "for a side to come to its table"),
                               ("gone", 30.0, "for a side that left its game, or the league"),
                               ("move", 60.0, "for the side to move to move"),
                               ("ack", 30.0, "for the end to be acknowledged by both sides")):
        r.add_argument(f"--{opt}-limit", type=_seconds, default=default, metavar="SECONDS",
                       help=f"seconds to wait {what} before a forfeit (default {default:g})")
    r.add_argument("--take-over", action="store_true",
                   help="take the league over from a referee that is still there (only when it is truly gone)")
    s = sub.add_parser("standings", help="print the standings as the share holds them",
                       description="Print a league's standings as its files on the share say (writes nothing).")
    _common(s)
    return ap


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    logging.basicConfig(level=logging.ERROR, format="%(message)s")
    # SIGTERM and SIGHUP (a closed terminal) leave as Ctrl+C does: an entrant stops its player first
    on_signals(Face.signals, lambda *_: _interrupt())

    def say(text: str) -> None:
        print(text, flush=True)
    try:
        share = check_share(args.share)
        check_league_name(args.league)
        secret = _secret(args)
        if args.what == "enter":
            entry = _entry(args)
            log_dir = Path(args.log) if args.log else None
            if log_dir is not None:
                try:
                    log_dir.mkdir(parents=True, exist_ok=True)
                except OSError as e:
                    raise LeagueError(f"--log {visible(str(log_dir), 200)}: not a folder that can be made "
                                      f"({e.strerror or e})") from None
                if not log_dir.is_dir():
                    raise LeagueError(f"--log {visible(str(log_dir), 200)}: not a folder")
            return Entrant(share, args.league, entry, say, secret=secret, secret_file=args.secret_file,
                           log_dir=log_dir, patience=args.patience).run()
        if args.what == "referee":
            shape = ""
            if args.shape:
                board = parse_board(str(args.size), None) if not args.shape else _shape(args.shape)
                shape, args.size = shape_code(board), board.size
            limits = Limits(start=args.start_limit, gone=args.gone_limit, move=args.move_limit, ack=args.ack_limit,
                            entrants=args.wait)
            return Referee(share, args.league, say, secret=secret, rounds=args.rounds, size=args.size, shape=shape,
                           time_per_move=args.time, want=args.entrants, limits=limits, take_over=args.take_over).run()
        folder = LeagueFolder(share, args.league, secret, readonly=True)
        league = folder.settled(folder.load)
        if league is None:
            print(f"No league {args.league} on {visible(str(share), 200)} yet.", file=sys.stderr)
            return 1
        results, due = folder.settled(lambda: folder.results(league))
        print(standings_text(league, standings(league, results), results, due), end="")
        return 0
    except (ShareError, LeagueError, ValueError, OSError) as e:
        print(f"{installed.peer_command()} league: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def _interrupt() -> NoReturn:
    raise KeyboardInterrupt


def _secret(args: argparse.Namespace) -> bytes | None:
    import comm
    try:
        return comm.load_secret(args.secret_file)
    except comm.SecretProblem as e:
        raise LeagueError(str(e)) from None


def _entry(args: argparse.Namespace) -> Entry:
    """What the entrant plays, checked now (not when its first game is due): a built-in AI's name,
    one's own AI file that loads, a command whose program is there."""
    name = check_entrant(args.name)
    if args.ai is not None:
        if loader.is_spec(args.ai):
            try:
                strategies.check(args.ai)
            except ValueError as e:
                raise LeagueError(f"your AI cannot be used: {e}") from None
        elif args.ai.lower() not in strategies.names():
            raise LeagueError(f"unknown AI '{visible(args.ai, 40)}'; choose from {', '.join(strategies.names())}")
        return Entry(name, "ai", args.ai)
    kind, command = ("engine", args.engine) if args.engine is not None else ("program", args.program)
    try:
        words = command_words(command)
    except ValueError as e:
        raise LeagueError(f"the --{kind} command cannot be read ({e}): {visible(command, 120)}") from None
    if not words:
        raise LeagueError(f"--{kind} needs a command")
    if shutil.which(words[0]) is None:
        raise LeagueError(f"the --{kind} command's program is not there (not a file, nor on the PATH): "
                          f"{visible(words[0], 120)}")
    return Entry(name, kind, command)


def _shape(spec: str):  # type: ignore[no-untyped-def]
    from engine import Shape
    return Shape.find(spec)
