"""Command line of the players: ``python -m peer`` (and ``black.py`` / ``white.py``)."""
import argparse
import logging
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Callable, Literal, NoReturn

import comm
from comm.adopt import why_unfit
from comm.text import visible
from engine import BLACK, WHITE, Shape, ShapeError, loader, strategies
from engine.shape import names as shape_names
from engine.cliargs import MAX_SECONDS, number, output_file, reader_gone, seconds, whole
from engine.options import size_option, threads_option

from .faces import texts
from .faces.face import Face, on_signals
from .faces.plain import Screen, wants_colour
from .faces.records import follow, replay_lines, replay_window, watch_window
from .players import Computer, External, Human, LineInput, Player, live_terminal
from .protocol import NAME_LIMIT
from .reasons import Explained, Reason
from .record import PLAYING, Records, load_file
from . import installed, samples
from .session import MOVED, Session
from .tables import Seating, ShareError, check_share, usable_table
from .view import View

if TYPE_CHECKING:
    from .faces.window import Window

EPILOG = """examples:
  python black.py                          a person plays black on ./cardstand
  python white.py --ai alphabeta --time 2  the computer plays white, 2 s a move
  python black.py --board //server/share/othello/game1 --name Alice
  python white.py --engine "python my_engine.py"
  python black.py --gui                    play in a window (click a square)
  python black.py --shape heart            a variant board (white learns it from black)
  python -m peer demo                      watch two computer players play
  python -m peer watch --board cardstand   watch a game in progress
  python black.py --share //server/class   sit at the class share's first table waiting for black
  python -m peer lobby --share //server/class   the share's tables, live (docs/teacher.md)
  python -m peer replay cardstand/records/<id>.game [--ggf]
  CARDSTAND_SECRET=... python black.py     sign and check every message (same secret on both sides)

Start black and white in two shells (either first), on one computer or on
two computers that share the board folder. A person types moves like d3,
and 'help' lists the other commands (hint, say, resign, quit).

Starting again resumes the unfinished game on the board (its size and
opponent come from its record); --new starts another one instead. A game
whose end the other side has not confirmed is shown to it first.

exit codes: 0 the game ended (or you left), 2 cannot start (an option, the
board, an unfinished game of another size, the colour already taken, no
window for --gui), 3 the game was refused, 4 the opponent stayed away, 5
the board folder stayed gone or its disk full, 6 another program took this
colour over (--take-over), 130 left at once with a second Ctrl+C or a
second close of the window (the opponent is not told).
"""


_time = seconds   # thinking times, patience: above 0, finite
_pace = number(0, MAX_SECONDS, unit="seconds")


def play_parser(colour: str | None = None) -> argparse.ArgumentParser:
    others = "" if colour else (f" The other commands (watch, replay, demo, bench): {installed.peer_command()} --help.")
    ap = argparse.ArgumentParser(
        prog=(installed_command(colour) + ("" if colour else " play") if installed_command(colour) else None)
        or {None: "python -m peer [play]", "black": "python black.py",
                                            "white": "python white.py"}[colour],
        description="Play Othello through a shared folder (the message board, 伝言台)." + others,
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    if colour is None:
        ap.add_argument("--color", "--colour", choices=["black", "white"], required=True,
                        help="which side this process plays")
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--board", default=None, metavar="DIR",
                       help="the board folder both players share (default ./cardstand); "
                            "on a network share use a subfolder, not the share's root")
    where.add_argument("--share", metavar="DIR",
                       help="a class's shared folder of tables (each table a board folder in it): sit at "
                            "the first table waiting for this colour, or make one (see 'lobby')")
    ap.add_argument("--table", metavar="NAME",
                    help="with --share: sit at this table (made if it is not there)")
    who = ap.add_mutually_exclusive_group()
    who.add_argument("--ai", metavar="NAME",
                     help=f"a computer plays this side: {', '.join(strategies.names())}, or your "
                          "own class as FILE.py:CLASS or package.module:CLASS (docs/ai.md)")
    who.add_argument("--engine", metavar="CMD",
                     help="an external program plays this side (one-shot format: reads side, size "
                          "and rows on stdin, writes 'x y')")
    ap.add_argument("--size", type=size_option, help="board size, even 4..26 (black proposes, default 8; "
                                               "white refuses a different size if given, and takes any board of that size, holes or not: "
                                               "--shape to insist on one); an unfinished game "
                                               "on the board keeps its size: another one is refused (start "
                                               "without --size to resume it, or with --new)")
    _shape_option(ap, "black proposes it; white refuses another one if given; an unfinished game on the "
                      "board keeps its board: another one is refused")
    ap.add_argument("--name", help=f"your name as the other side sees it, at most {NAME_LIMIT} characters "
                                   "(default: the --ai's name, like greedy; else person, or computer for "
                                   "--engine); a resumed game keeps the name in its record unless this is given")
    _lang_option(ap)
    ap.add_argument("--time", type=_time, default=None, metavar="SECONDS",
                    help="thinking time per move for --ai / --engine (default 1 s; 10 s for --engine)")
    ap.add_argument("--game-time", type=_time, default=None, metavar="SECONDS",
                    help="instead of --time: a budget for the whole game, shared out over the moves")
    ap.add_argument("--threads", type=threads_option, default=None, metavar="N",
                    help="search threads for --ai best (default: every core)")
    ap.add_argument("--ponder", action="store_true",
                    help="--ai best thinks on the opponent's time too (uses the cores while the other "
                         "side thinks)")
    _no_color_option(ap)
    ap.add_argument("--plain", action="store_true",
                    help="plain line-by-line input and output, as without a terminal (also: NO_COLOR set); "
                         "at a terminal the line you type has editing and history, and what arrives is "
                         "shown above it")
    ap.add_argument("--gui", action="store_true",
                    help="play in a window: click a square to move (tkinter: on Linux the python3-tk "
                         "package); Quit or closing the window leaves as quit does")
    ap.add_argument("--gui-state", metavar="FILE", help=argparse.SUPPRESS)
    ap.add_argument("--new", action="store_true",
                    help="start a new game: an unfinished one on the board is closed (abandoned), and the "
                         "other side, if it plays that game, is told")
    ap.add_argument("--secret-file", metavar="FILE",
                    help="a file holding the shared secret (else the CARDSTAND_SECRET variable): every "
                         "message is signed and checked, and a side without the same secret is refused")
    ap.add_argument("--patience", type=_time, default=None, metavar="SECONDS",
                    help="leave when the opponent, or the board folder, has been gone this long, or the "
                         "board's disk full (default: a person waits, a computer waits 120 s); an opponent "
                         "that has not joined yet is waited for without limit")
    ap.add_argument("--take-over", action="store_true",
                    help="play this colour even though another program is playing it on this board "
                         "(only when that program is truly gone: it is stopped)")
    ap.add_argument("--pace", type=_pace, default=0.0, help=argparse.SUPPRESS)
    ap.add_argument("--seed", type=whole(0, 2 ** 64 - 1), default=None, help=argparse.SUPPRESS)
    ap.add_argument("--stats", type=output_file, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--classic-after", type=_time, default=10.0, help=argparse.SUPPRESS)
    ap.add_argument("--verbose", action="store_true", help=argparse.SUPPRESS)
    return ap


def _logs(verbose: bool = False) -> None:
    """The log's warnings (in English, for the developer) stay off the screen unless ``verbose``:
    what a person must know is said on the screen, in its language."""
    logging.basicConfig(level=logging.INFO if verbose else logging.ERROR, format="%(name)s: %(message)s")


def play(argv: list[str], colour: str | None = None) -> int:
    args = play_parser(colour).parse_args(argv)
    colour = colour or args.color
    _logs(args.verbose)
    lang = args.lang or texts.default_lang()
    reads = (args.ai is None and args.engine is None) or (sys.stdin is not None and sys.stdin.isatty())
    live = reads and live_terminal(args.plain)
    screen = Screen(lang, wants_colour(args.no_color))
    player: Player
    try:
        if (args.threads or args.ponder) and args.ai is None:
            raise Explained("threads_not_ai")
        if args.time is not None and args.game_time is not None:
            raise Explained("time_twice")
        if args.name is not None and len(args.name) > NAME_LIMIT:
            raise Explained("name_too_long", n=len(args.name), limit=NAME_LIMIT)
        if args.table is not None and args.share is None:
            raise Explained("table_without_share")
        seating: Seating | None = None
        args.board = _board(args)
        unfit = _unfit(args.board) if args.share is None or args.table is not None else None
        if unfit:
            screen.say("cannot_play", reason=screen.reason(unfit))
            return 2
        shape = board_option(args)
        if args.ai is not None:
            if not loader.is_spec(args.ai) and args.ai.lower() not in strategies.names():
                raise Explained("unknown_ai", name=args.ai, names=", ".join(strategies.names()))
            try:
                player = Computer(args.ai, time_limit=args.time or 1.0, pace=args.pace, seed=args.seed,
                                  game_time=args.game_time, threads=args.threads, ponder=args.ponder)
            except loader.StrategyError as e:
                raise Explained("own_ai", detail=str(e)) from None
        elif args.engine is not None:
            player = External(args.engine, time_limit=args.time or 10.0, game_time=args.game_time)
        else:
            player = Human(lines=False)
    except ValueError as e:
        screen.say("cannot_play", reason=screen.reason(e))
        return 2
    secret = _load_secret(args, screen)
    if secret is False:
        return 2
    if args.share is not None and args.table is None:
        try:
            seating = Seating(Path(args.share), BLACK if colour == "black" else WHITE, secret)
            args.board = str(seating.first())
        except ShareError as e:
            screen.say("cannot_play", reason=screen.reason(e))
            return 2
    patience = args.patience if args.patience else (None if isinstance(player, Human) else 120.0)
    face: Face | None = None       # (None: plain lines, on ``screen``)
    if args.gui:
        face = open_window(lang, human=player.kind == "human", state_file=args.gui_state,
                           title=screen.t("gui_title", colour=screen.t(colour), board=visible(args.board, 80)))
        if face is None:
            return 2
    elif live:
        from .faces.live import LiveScreen
        face = LiveScreen(lang, wants_colour(args.no_color), human=player.kind == "human")
    def at(board: str) -> Session:
        if args.share is not None:
            (face or screen).say("at_table", table=Path(board).name, share=visible(args.share, 200))
        return Session(board, BLACK if colour == "black" else WHITE, player, face or screen,
                       name=args.name, size=args.size, shape=shape, new=args.new, patience=patience,
                       stats=args.stats, classic_after=args.classic_after, secret=secret,
                       take_over=args.take_over, seating=seating)
    session = Seated(at(args.board), at, seating)
    if face is None:
        if reads:
            player.lines = LineInput()
        # without a face, the signals of Face.signals (SIGTERM, SIGHUP...) leave as Ctrl+C does
        old = on_signals(Face.signals, lambda *_: _interrupt())
        try:
            return session.run()
        except KeyboardInterrupt:   # (before the game began, or a second one)
            return 130
        finally:
            while True:     # (a second Ctrl+C landing here is dropped: the player is leaving)
                try:
                    on_signals(Face.signals, old)
                    break
                except KeyboardInterrupt:
                    pass
    player.lines = face.lines
    return face.run(session.run, session.view)


def _board(args: argparse.Namespace) -> str:
    """Where the player sits: ``--board`` (default ./cardstand), or with ``--share`` and ``--table``
    that table's folder; with ``--share`` alone the share (a table is chosen once the secret is
    known: ``Seating``).  ``ShareError`` (a ValueError) for a share or table name that cannot be used."""
    if args.share is None:
        return str(args.board if args.board is not None else "cardstand")
    share = check_share(args.share)
    return str(usable_table(share, args.table)) if args.table is not None else str(share)


class Seated:
    """The session of a player and, when ``--share`` seated it, the next one each time it moves to
    another table (``peer.session.MOVED``): one ``run`` and ``view`` for the faces."""

    def __init__(self, first: Session, at: "Callable[[str], Session]", seating: "Seating | None") -> None:
        self.session, self.at, self.seating = first, at, seating

    def run(self) -> int:
        while True:
            code = self.session.run()
            if code != MOVED or self.seating is None:
                return code
            try:
                self.session = self.at(str(self.seating.next()))
            except ShareError as e:
                self.session.tell.say("cannot_play", reason=e.reason)
                return 2

    def view(self) -> View:
        return self.session.view()


def _unfit(board: str) -> Reason | None:
    """Why ``board`` should not be made a board (``comm.adopt.why_unfit``), or None."""
    why = why_unfit(board)
    return Reason(f"unfit_{why.code}", why.text, why.fields) if why else None


def _interrupt() -> NoReturn:
    raise KeyboardInterrupt


def open_window(lang: str, **options: Any) -> "Window | None":
    """The window of ``peer.faces.window``, open; or None when it cannot be opened here (said why on
    stderr, with what to do)."""
    from .faces.window import Unavailable, Window
    window = Window(lang, **options)
    try:
        window.open()
    except Unavailable as e:
        print(e, file=sys.stderr)
        return None
    return window


# -- watching, replaying, demo ------------------------------------------------------------------

def watch(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog=f"{installed.peer_command()} watch", description="Show a live game, read-only.")
    ap.add_argument("--board", default="cardstand", metavar="DIR",
                    help="the board folder the players share (default ./cardstand)")
    _no_color_option(ap)
    _lang_option(ap)
    ap.add_argument("--until-over", action="store_true", help="stop when the game ends")
    ap.add_argument("--gui", action="store_true", help="show the game in a window")
    ap.add_argument("--gui-state", metavar="FILE", help=argparse.SUPPRESS)
    _secret_option(ap, "records not signed with it are not shown")
    args = ap.parse_args(argv)
    _logs()
    lang = args.lang or texts.default_lang()
    screen = Screen(lang, wants_colour(args.no_color))
    board = Path(args.board)
    if not args.board or not (board / "cardstand.board").is_file():
        print(screen.t("no_board", board=visible(str(board), 300)), file=sys.stderr)
        return 1
    secret = _load_secret(args, screen)
    if secret is False:
        return 2
    if args.gui:
        window = open_window(lang, human=False, mode="watch", state_file=args.gui_state,
                             title=screen.t("gui_watch_title", board=visible(str(board), 80)))
        if window is None:
            return 2
        return watch_window(board, window, until_over=args.until_over, secret=secret)
    return follow(board, screen, until_over=args.until_over, secret=secret)


def lobby(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(
        prog=f"{installed.peer_command()} lobby",
        description="The tables of a class's shared folder (each table a board folder in it), live: who waits, "
                    "who plays, how games ended; from there watch a game or replay it. Looking writes nothing.",
        epilog="Players sit at the share's tables with --share DIR (the first table waiting for their colour, "
               "or a new one) or --share DIR --table NAME.")
    ap.add_argument("--share", required=True, metavar="DIR", help="the shared folder that holds the tables")
    _no_color_option(ap)
    _lang_option(ap)
    ap.add_argument("--gui", action="store_true", help="show the lobby in a window (double-click a table to watch it)")
    ap.add_argument("--once", action="store_true", help="print the list of tables once and stop")
    ap.add_argument("--gui-state", metavar="FILE", help=argparse.SUPPRESS)
    _secret_option(ap, "records not signed with it are shown as unusable")
    args = ap.parse_args(argv)
    _logs()
    lang = args.lang or texts.default_lang()
    screen = Screen(lang, wants_colour(args.no_color))
    try:
        share = check_share(args.share)
    except ShareError as e:
        print(screen.reason(e), file=sys.stderr)
        return 2
    secret = _load_secret(args, screen)
    if secret is False:
        return 2
    if args.gui:
        from .faces.lobby_window import lobby_window
        return lobby_window(share, lang, secret, state_file=args.gui_state, secret_file=args.secret_file)
    from .faces.lobby import Lobby
    return Lobby(share, screen, secret).run(once=args.once)


def league(argv: list[str]) -> int:
    from . import leaguecli
    return leaguecli.main(argv)


def _shape_option(ap: argparse.ArgumentParser, what: str) -> None:
    ap.add_argument("--shape", metavar="NAME|FILE",
                    help=f"a board with holes or its own start: one of {', '.join(shape_names())} (any case), "
                         f"or a picture file ('#' a hole, X black, O white, . empty; one row a line, "
                         f"even size 4..26); {what}")


def board_option(args: argparse.Namespace) -> Shape | None:
    """``--shape`` read (None without it); ``ValueError`` saying why when it is not a board or
    disagrees with ``--size``."""
    if args.shape is None:
        return None
    try:
        shape = Shape.find(args.shape)
    except ShapeError as e:
        raise ValueError(f"--shape: {e}") from None
    if args.size is not None and args.size != shape.size:
        raise ValueError(f"--size {args.size} and --shape {shape} ({shape.size}x{shape.size}) disagree: "
                         f"give one of them")
    return shape


def _no_color_option(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--no-color", action="store_true", help="no colours (also: NO_COLOR set, or not a terminal)")


def _lang_option(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--lang", choices=texts.LANGS, default=None,
                    help="language of the messages (default: from the locale)")


def _secret_option(ap: argparse.ArgumentParser, what: str) -> None:
    ap.add_argument("--secret-file", metavar="FILE",
                    help=f"a file holding the players' shared secret (else the CARDSTAND_SECRET variable): {what}")


def _load_secret(args: argparse.Namespace, screen: Screen) -> bytes | None | Literal[False]:
    """The shared secret of ``--secret-file`` or CARDSTAND_SECRET (A1), None without one; False when
    it cannot be used (said why)."""
    try:
        return comm.load_secret(args.secret_file)
    except comm.SecretProblem as e:
        screen.say("secret_problem", reason=screen.reason(Reason(f"secret_{e.code}", str(e), e.fields)))
        return False


def replay(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog=f"{installed.peer_command()} replay",
                                 description="Replay a recorded game, or export it as GGF. At a terminal it "
                                             "steps: Enter for the next move, b for back, a number to go to "
                                             "that move, q to stop.")
    ap.add_argument("file", help="a game record (BOARD/records/<id>.game)")
    ap.add_argument("--ggf", action="store_true", help="print the game in GGF instead")
    ap.add_argument("--moves", action="store_true", help="print the numbered move list only")
    ap.add_argument("--delay", type=number(0, 3600, unit="seconds"), default=0.0,
                    help="seconds between moves, at most 3600 (shows them all, no stepping)")
    _no_color_option(ap)
    ap.add_argument("--plain", action="store_true", help="show every move at once, without stepping")
    _lang_option(ap)
    ap.add_argument("--gui", action="store_true",
                    help="step through the game in a window (buttons, the arrow keys, or a click on a move)")
    ap.add_argument("--gui-state", metavar="FILE", help=argparse.SUPPRESS)
    _secret_option(ap, "a record not signed with it is refused")
    args = ap.parse_args(argv)
    lang = args.lang or texts.default_lang()
    screen = Screen(lang, wants_colour(args.no_color))
    secret = _load_secret(args, screen)
    if secret is False:
        return 2
    file = visible(args.file, 300)
    if not os.path.lexists(args.file):
        print(screen.t("no_file", file=file), file=sys.stderr)
        return 2
    try:
        rec = load_file(args.file, secret)
        rec.game()
    except (OSError, ValueError) as e:
        print(screen.t("cannot_replay", file=file, reason=visible(screen.reason(e), 300)), file=sys.stderr)
        return 2
    if args.ggf:
        print(rec.ggf())
        return 0
    if args.gui:
        window = open_window(lang, human=False, mode="replay", state_file=args.gui_state,
                             title=screen.t("gui_replay_title", file=visible(Path(args.file).name, 80)))
        if window is None:
            return 2
        return replay_window(window, rec)
    return replay_lines(screen, rec, moves_only=args.moves, delay=args.delay,
                        step=not (args.delay or args.plain) and live_terminal())


def _player_cmd(colour: str, board: Path, ai: str, extra: list[str]) -> list[str]:
    return [sys.executable, "-m", "peer", "--color", colour, "--board", str(board), "--ai", ai,
            "--no-color", *extra]


def demo(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog=f"{installed.peer_command()} demo",
                                 description="Two computer players in two processes, shown as they play.")
    ap.add_argument("--black", default="alphabeta", help="black's AI (default alphabeta)")
    ap.add_argument("--white", default="greedy", help="white's AI (default greedy)")
    ap.add_argument("--size", type=size_option, default=None, help="board size, even 4..26 (default 8)")
    _shape_option(ap, "both play on it")
    ap.add_argument("--pace", type=_pace, default=0.4, help="at least this many seconds a move (default 0.4)")
    ap.add_argument("--time", type=_time, default=0.5, help="AI thinking time per move (default 0.5)")
    ap.add_argument("--board", default=None, help="board folder (default: a new temporary folder)")
    _no_color_option(ap)
    _lang_option(ap)
    args = ap.parse_args(argv)
    _logs()
    for name in (args.black, args.white):
        try:
            strategies.check(name)
        except ValueError as e:
            ap.error(str(e))
    screen = Screen(args.lang or texts.default_lang(), wants_colour(args.no_color))
    unfit = _unfit(args.board) if args.board is not None else None
    if unfit:
        screen.say("cannot_play", reason=screen.reason(unfit))
        return 2
    try:
        board_option(args)
    except ValueError as e:
        screen.say("cannot_play", reason=screen.reason(e))
        return 2
    proposes = ["--shape", args.shape] if args.shape else ["--size", str(args.size or 8)]
    on_signals(("SIGTERM", "SIGHUP", "SIGBREAK"), _stop_demo)     # they stop the players too
    logs_at: Path | None = None
    logs: list[IO[str]] = []
    procs: list[subprocess.Popen[bytes]] = []
    named = False       # a record in the temporary folder was named to the person
    try:
        logs_at = Path(tempfile.mkdtemp(prefix="cardstand-demo-"))
        board = Path(args.board) if args.board else logs_at / "board"
        extra = ["--pace", str(args.pace), "--time", str(args.time), "--new"]
        logs += [open(logs_at / f"{c}.log", "w") for c in ("black", "white")]
        # the players read nothing from the terminal (the keys are the watcher's), and a Ctrl+C
        # there is the demo's: it stops them
        alone: dict[str, Any] = {"stdin": subprocess.DEVNULL, "stderr": subprocess.STDOUT}
        if sys.platform == "win32":
            alone["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP
        else:
            alone["start_new_session"] = True
        procs += [subprocess.Popen(_player_cmd("black", board, args.black, extra + proposes),
                                   stdout=logs[0], **alone),
                  subprocess.Popen(_player_cmd("white", board, args.white, extra),     # (each named by its AI)
                                   stdout=logs[1], **alone)]

        def alive() -> bool:
            return any(p.poll() is None for p in procs)

        stopped = False         # by the person watching (q, Ctrl+C on the live screen)
        if live_terminal():
            from .faces.live import LiveScreen
            face = LiveScreen(screen.lang, screen.colour, human=False, watching=True)
            code = watch_window(board, face, until_over=True, alive=alive)
            stopped = face.closed
        else:
            code = follow(board, screen, until_over=True, timeout=600, alive=alive)
        rec = Records(board).current()
        ended = rec is not None and rec.status != PLAYING
        for p in procs:                 # after the end they leave by themselves; else they are stopped
            try:
                p.wait(timeout=60 if ended else 0 if stopped else 1)
            except subprocess.TimeoutExpired:
                p.terminate()
                p.wait(timeout=10)
        for colour, p, log_file in zip((BLACK, WHITE), procs, logs):
            if p.returncode not in (0, -signal.SIGTERM, 143):   # what the player said before it stopped
                log_file.flush()
                said = Path(log_file.name).read_text("utf-8", "replace").strip().splitlines()[-3:]
                screen.say("demo_player_failed", colour=screen.colour_name(colour), code=p.returncode,
                           said=" / ".join(visible(line, 200) for line in said))
        rec = Records(board).current()
        if rec:
            path = Records(board).path(rec.id)
            screen.say("record", path=path)
            screen.line(f"{installed.peer_command()} replay {path}")
            named = True
        if stopped:
            return 0
        return code if all(p.returncode == 0 for p in procs) else 1
    except KeyboardInterrupt:
        return 130
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
        for f in logs:
            f.close()
        if logs_at is not None and (args.board or not named):   # (a record named there stays)
            shutil.rmtree(logs_at, ignore_errors=True)


def _stop_demo(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def bench(argv: list[str]) -> int:
    """Per-move messaging overhead between two processes with fast computer players."""
    ap = argparse.ArgumentParser(prog=f"{installed.peer_command()} bench", description=COMMANDS["bench"].capitalize()
                                 + ": two computer players in two processes, on a temporary board.")
    ap.add_argument("--games", type=whole(1, 10_000), default=5, help="games to play (default 5)")
    ap.add_argument("--size", type=size_option, default=None, help="board size, even 4..26 (default 8)")
    _shape_option(ap, "both play on it")
    ap.add_argument("--ai", default="random", help="AI for both sides (default random: ~0 thinking)")
    args = ap.parse_args(argv)
    try:
        strategies.check(args.ai)
    except ValueError as e:
        ap.error(str(e))
    try:
        shape = board_option(args)
    except ValueError as e:
        ap.error(str(e))
    board_args = ["--shape", args.shape] if shape else ["--size", str(args.size or 8)]
    values = []
    wall = 0.0
    moves = 0
    with tempfile.TemporaryDirectory() as tmp:
        for g in range(args.games):
            board = Path(tmp) / f"b{g}"
            stats = [Path(tmp) / f"s{g}{c}" for c in ("b", "w")]
            t = time.perf_counter()
            procs = [subprocess.Popen(_player_cmd(c, board, args.ai, ["--new", "--seed", str(g * 2 + i),
                                                                      "--stats", str(stats[i]),
                                                                      *board_args]),
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                     for i, c in enumerate(("black", "white"))]
            for p in procs:
                p.wait(timeout=300)
            wall += time.perf_counter() - t
            rec = Records(board).current()
            moves += len(rec.game().moves) if rec else 0
            for s in stats:
                if s.exists():
                    values += [float(x) for x in s.read_text().split()]
    if not values:
        print("no figures: the games did not run")
        return 1
    values.sort()
    on = f"{shape} ({shape.size}x{shape.size})" if shape else f"{args.size or 8}x{args.size or 8}"
    print(f"peer bench: {args.games} games of {args.ai} vs {args.ai} on {on}, "
          f"{moves} moves, {len(values)} measured")
    print(f"overhead per move (reply time minus the opponent's thinking): "
          f"median {statistics.median(values):.2f} ms, p90 {values[int(len(values) * 0.9)]:.2f} ms, "
          f"max {values[-1]:.2f} ms")
    print(f"whole games incl. process start: {wall / args.games:.2f} s a game")
    return 0


COMMANDS = {"demo": "two computer players in two processes, shown as they play",
            "watch": "show a live game on a board folder, read-only",
            "lobby": "the tables of a class's share, live: watch or replay their games",
            "league": "a league of the class's programs on a share: enter, referee, standings",
            "replay": "replay a recorded game (or export it as GGF)",
            "bench": "measure the messaging overhead per move",
            "samples": "copy the sample programs (your first AI, a tournament...) into a folder"}
def usage() -> str:
    peer = installed.peer_command()
    return (f"usage: {peer} [play] --color {{black,white}} [options]   (or python black.py / white.py)\n"
            + "".join(f"       {peer} {c:7s} ... {what}\n" for c, what in COMMANDS.items())
            + f"       {peer} COMMAND --help    the options of each")


def help_text() -> str:
    peer = installed.peer_command()
    return (f"usage: {peer} [COMMAND] [options]\n\n"
            "Othello for two terminals that play through a shared folder (the message board, 伝言台).\n\n"
            "commands:\n"
            "  play     play one side of a game (the default command): --color black or white, or start\n"
            "           python black.py / python white.py, which need no --color\n"
            + "".join(f"  {c:8s} {COMMANDS[c]}\n" for c in ("watch", "lobby", "league", "replay", "demo", "bench", "samples"))
            + f"\nThe options of each: {peer} COMMAND --help (play: {peer} play --help).")


def installed_command(colour: str | None = None) -> str:
    """``cardstand-black`` (or ``cardstand``...) when this run was started by the console command
    an installed package gives, else ''."""
    return installed.command_name(colour)


def start_screen(gui: bool, lang: str | None = None) -> int:
    """``python -m peer`` alone at a terminal (or ``--gui`` alone, either with ``--lang``): ask
    what the options set, then play; without a terminal (a script), what there is to do (exit 2),
    never a question."""
    from .faces import start
    lang = lang or texts.default_lang()
    if gui:
        try:
            choices = start.StartForm(lang, program=_peer_program()).run()
        except (ImportError, RuntimeError) as e:
            peer = installed.peer_command()
            print(f"{peer} --gui: no window can be opened here ({e}); "
                  f"run {peer} at a terminal to be asked there", file=sys.stderr)
            return 2
    elif sys.stdin is not None and sys.stdin.isatty() and sys.stdout.isatty():
        try:
            choices = start.ask_terminal(lang=lang, program=_peer_program())
        except KeyboardInterrupt:
            print(file=sys.stderr)
            return 130
    else:
        print(help_text(), file=sys.stderr)
        return 2
    if choices is None:
        if gui:
            print(start.word("cancelled", lang))
        return 1
    if gui:
        print(f"{start.word('starting', choices.lang)}  {choices.command()}")
    code = play(choices.argv())
    # (the live screen or the window covered the line said at the start; the game's last words
    # say to start the same command again, which is this one, not the questions again); not
    # after a start that failed: the same command would fail the same way
    if code in (0, 4, 5, 130):
        print(f"{start.word('again', choices.lang)}  {choices.command()}")
    return code


def _start_screen_options(argv: list[str]) -> tuple[bool, str | None] | None:
    """(gui, lang) when ``argv`` asks for the start screen: nothing, ``--gui``, ``--lang L`` or
    both; else None."""
    rest, gui, lang = list(argv), False, None
    while rest:
        word = rest.pop(0)
        if word == "--gui" and not gui:
            gui = True
        elif word == "--lang" and rest and lang is None and rest[0] in texts.LANGS:
            lang = rest.pop(0)
        elif word.startswith("--lang=") and lang is None and word[7:] in texts.LANGS:
            lang = word[7:]
        else:
            return None
    return gui, lang


def _peer_program() -> str:
    return f"{installed.peer_command()} play"


def black() -> int:
    """The ``cardstand-black`` command: ``black.py`` for an installed package."""
    return main(colour="black")


def white() -> int:
    """The ``cardstand-white`` command."""
    return main(colour="white")


def main(argv: list[str] | None = None, colour: str | None = None) -> int:
    """The players' and ``python -m peer``'s command line; returns the exit code."""
    try:
        return _main(argv, colour)
    finally:
        while True:
            try:
                installed.leaving()
                break
            except KeyboardInterrupt:   # (a second Ctrl+C landing just before)
                pass


def _main(argv: list[str] | None, colour: str | None) -> int:
    installed.interruptible()
    argv = list(sys.argv[1:] if argv is None else argv)
    if colour is None and argv[:1] in (["-h"], ["--help"]):
        try:
            print(help_text(), flush=True)
        except OSError as e:
            if not reader_gone(e):
                raise
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())    # ``| head``: the reader has gone
        return 0
    asks = _start_screen_options(argv) if colour is None else None
    if asks is not None:
        return start_screen(*asks)
    if colour is None and argv and not argv[0].startswith("-"):
        cmd = argv.pop(0)
        if cmd in COMMANDS:
            try:
                return {"demo": demo, "watch": watch, "lobby": lobby, "league": league, "replay": replay, "bench": bench,
                        "samples": samples.main}[cmd](argv)
            except KeyboardInterrupt:       # Ctrl+C in a replay's --delay, a bench: stop, quietly
                print(file=sys.stderr)
                return 130
            except OSError as e:
                if not reader_gone(e):
                    raise
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())    # ``| head``: nothing more to say
                return 1
        if cmd != "play":
            print(f"{usage()}\n{installed.peer_command()}: unknown command {visible(cmd, 40)!r}", file=sys.stderr)
            return 2
    try:
        return play(argv, colour)
    except KeyboardInterrupt:   # (one landing outside the session's own handling: still no traceback)
        return 130
