"""Watching a board and replaying a record: a record's ``View`` (``record_view``), drawn."""
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, cast

from comm.text import visible
from engine import PASS, Game

from ..match import resigner
from ..record import PLAYING, RESIGNED, Record, Records
from ..events import Event
from ..view import View, empty_view, record_view
from .plain import Screen

if TYPE_CHECKING:
    from .live import LiveScreen
    from .window import Window


class _Current:
    """The board's current game for a watcher: a record that cannot be used is told once (D5, D6).
    Watching writes nothing: what a player would set aside (a link where ``records`` belongs...)
    reads as no game."""

    def __init__(self, board: Path, screen: Screen, secret: bytes | None) -> None:
        self.records = Records(board, secret, readonly=True)
        self.say = screen.say
        self.told: str | None = None

    def __call__(self) -> Record | None:
        rec, problem = self.records.current_checked()
        if problem is not None and str(problem) != self.told:
            self.told = str(problem)
            self.say("bad_record", reason=problem)
        return rec


def watch_window(board: Path, window: "Window | LiveScreen", until_over: bool, secret: bytes | None = None,
                 alive: Callable[[], bool] | None = None) -> int:
    """``watch --gui`` (and the demo at a terminal): the board's current game in ``window`` (or
    the live screen), followed in a worker thread until it is closed (or, ``until_over``, the
    game is over)."""
    current = _Current(board, window, secret)
    seen: dict[str, Any] = {"key": None, "view": empty_view()}

    def work() -> int:
        window.say("watching", board=board)
        told = False
        started: str | None = None      # the game whose start was said
        ended: str | None = None        # the game whose end was said
        while not window.closed:
            rec = current()
            if rec is None and not told:
                window.say("no_game")
                told = True
            used = (current.records.clock(rec.id, "black") / 1000, current.records.clock(rec.id, "white") / 1000) \
                if rec else (0.0, 0.0)      # D7: each side's clock file, written after its turn
            key = rec and (rec.id, rec.moves, rec.status, rec.result, used)
            if rec and key != seen["key"]:
                seen["key"] = key           # (read again only when it changes)
                game = rec.game()
                seen["view"] = record_view(rec, game, used=used)
                if rec.id != started and (game.moves or rec.status != PLAYING):
                    # (once a ply is made: both names are in the record then; the message area
                    # says the game, no more "no game yet")
                    started = rec.id
                    window.tell(Event("game_on", {"black": rec.black, "white": rec.white, "size": rec.size,
                                                  "shape": rec.board()}))
                over = rec.status != PLAYING and rec.status != "abandoned"
                if over and rec.id != ended:
                    ended = rec.id
                    window.tell(end_event(rec, game))
                if until_over and over:
                    return 0
            if alive is not None and not alive():
                return 1
            time.sleep(0.1)
        return 0

    return window.run(work, lambda: cast(View, seen["view"]))


def end_event(rec: Record, game: Game) -> Event:
    """How the game of ``rec`` ended, as a player's screen says it (``over``, ``over_resigned``)."""
    b, w = game.position.discs()
    names = (rec.black, rec.white)
    resigned = resigner(rec.result) if rec.status == RESIGNED else None
    winner = (1 - resigned if resigned is not None else game.position.winner()) if rec.status in (
        "over", RESIGNED) else None
    verdict = {"winner": winner, "winner_name": names[winner] if winner is not None else ""}
    if resigned is not None:
        return Event("over_resigned", {"result": rec.result, "b": b, "w": w, **verdict})
    if rec.status == "over":
        return Event("over", {"b": b, "w": w, **verdict})
    return Event("watched_end", {"result": rec.result or rec.status})


def status_text(screen: Screen, rec: Record) -> str:
    """A record's status and result for people (D1), in the screen's language: "over (black 36 -
    white 28)", "resigned (white resigned)", "abandoned (by black)"..."""
    word = {PLAYING: "status_playing", "over": "status_over", "resigned": "status_resigned",
            "abandoned": "status_abandoned", "refused": "status_refused"}.get(rec.status)
    status = screen.t(word) if word else visible(rec.status, 20)
    return f"{status} ({screen.result(rec.result)})" if rec.result else status


def move_line(screen: Screen, view: View) -> str:
    """``white: pass``: the last ply of ``view``, and by whom."""
    mover, last = view.last_mover, view.last
    assert mover is not None and last is not None, "a view before the first ply"
    return f"{screen.colour_name(mover)}: {screen.describe(last, view.size)}"


def draw_record(screen: Screen, view: View) -> None:
    """The board of a record's ``view`` (watching, replaying): the last ply marked, unless a pass."""
    last = view.last if view.last is not None and view.last != PASS else None
    if view.position is not None:
        screen.board(view.position, last=last, flipped=view.flipped, show_legal=False)


def follow(board: Path, screen: Screen, until_over: bool = True, timeout: float | None = None,
           secret: bytes | None = None, alive: Callable[[], bool] | None = None,
           stop: Callable[[], bool] | None = None) -> int:
    """Show the board's current game on ``screen`` as it changes, until it ends (``until_over``),
    ``timeout`` s pass, Ctrl+C, ``stop()`` says so (0), or ``alive()`` says the players are gone
    (the demo's): 1 then."""
    current = _Current(board, screen, secret)
    screen.say("watching", board=board)
    shown = None
    start = time.monotonic()
    if current() is None:
        screen.say("no_game")
    try:
        while True:
            rec = current()
            key = rec and (rec.id, rec.moves, rec.status)
            if rec and key != shown:
                named = on_board(screen, rec) if not shown or shown[0] != rec.id else ""   # once a game
                shown = key                 # (read again only when it changes)
                game = rec.game()
                view = record_view(rec, game)
                moved = f"   #{len(view.moves)} {move_line(screen, view)}" if view.moves else ""
                screen.line("")
                screen.line(f"{visible(rec.black, 64)} ({screen.t('black')}) - {visible(rec.white, 64)} "
                            f"({screen.t('white')}){named}{moved}   {status_text(screen, rec)}")
                draw_record(screen, view)
                # an abandoned game is followed by the new one (D1); any other status but playing ends
                if until_over and rec.status != PLAYING and rec.status != "abandoned":
                    screen.tell(end_event(rec, game))     # (who won, as a player's screen says it)
                    return 0
            if timeout is not None and time.monotonic() - start > timeout:
                return 1
            if stop is not None and stop():
                return 0
            if alive is not None and not alive():
                last = current()        # what they wrote before they went is shown first
                if not (last and (last.id, last.moves, last.status) != shown):
                    return 1
                continue
            time.sleep(0.1)
    except KeyboardInterrupt:
        return 0


def on_board(screen: Screen, rec: Record) -> str:
    """``, the Heart board (8x8 with holes)`` for a record of a game on a shaped board; '' for a plain one."""
    board = rec.board()
    return "" if board.is_plain() else ", " + screen.board_name(board)


def replay_window(window: "Window", rec: Record) -> int:
    """``replay --gui``: step through ``rec`` in ``window``."""
    g = rec.game()
    window.replaying(g.moves)
    window.say("replay_title", black=visible(rec.black, 64), white=visible(rec.white, 64),
               date=visible(rec.date, 40) + on_board(window, rec), status=status_text(window, rec))
    return window.run(lambda: 0, lambda: record_view(rec, g, window.ply))


def replay_lines(screen: Screen, rec: Record, moves_only: bool = False, delay: float = 0.0,
                 step: bool = False) -> int:
    """``replay``: ``rec`` on ``screen``: the move list only (``moves_only``), every move at once
    (``delay`` seconds apart), or stepping through it as the person types (``step``)."""
    g = rec.game()
    screen.line(f"{visible(rec.black, 64)} ({screen.t('black')}) - {visible(rec.white, 64)} "
                f"({screen.t('white')}), {visible(rec.date, 40)}{on_board(screen, rec)}")
    if moves_only:
        screen.line(" ".join(f"{i}.{screen.describe(m, rec.size)}" for i, m in enumerate(g.moves, 1)))
        screen.line(status_text(screen, rec))
        return 0

    def show(i: int) -> None:
        view = record_view(rec, g, i)
        if i:
            screen.line(f"\n#{i} {move_line(screen, view)}")
        draw_record(screen, view)

    if not step:
        for i in range(len(g.moves) + 1):
            show(i)
            if delay and i:
                time.sleep(delay)
        screen.line(status_text(screen, rec))
        return 0
    i = 0
    show(i)
    while True:
        try:
            line = input(screen.t("replay_prompt", n=i, last=len(g.moves))).strip().lower()
        except (EOFError, KeyboardInterrupt):
            return 0
        if line in ("q", "quit", "終了"):
            return 0
        if line in ("", "n", "next"):
            i = min(i + 1, len(g.moves))
        elif line in ("b", "back", "p"):
            i = max(i - 1, 0)
        elif line.isdigit():
            i = min(int(line), len(g.moves))
        else:
            screen.say("replay_keys")
            continue
        show(i)
        if i == len(g.moves):
            screen.line(status_text(screen, rec))


