"""H6: the classic fallback, for a program that speaks no control lines (the tutorial's), and
its restarts (H6b); I2: its move lost to an earlier run of this side."""
import logging
import time

from engine import PASS, notation
from comm.text import visible

from .. import protocol
from ..record import PLAYING
from ..protocol import Msg
from .control import Control
from .leave import Leave
from .recording import Keeper, new_gid
from .runs import Runs
from .state import State
from .telling import Teller
from .trouble import Wire

log = logging.getLogger("peer")


class Classic:
    """Classic mode (H6): the game bound to the classic program's member run."""

    def __init__(self, st: State, tell: Teller, keeper: Keeper, wire: Wire, runs: Runs, control: Control) -> None:
        self.st = st
        self.tell = tell
        self.keeper = keeper
        self.wire = wire
        self.runs = runs
        self.control = control

    def move_lost_to_an_earlier_run(self) -> None:
        """I2, H6: bare moves that the opponent's current run sent to an earlier run of this side,
        which ``Quiet`` dropped.  One that is the last ply of the game on the board was received
        (applied and saved, not yet acknowledged when that run ended): it shows that this run
        played the game (``classic_played``).  Any other was never applied: a classic program
        sends its move once and then waits, so it must be started again; said at once."""
        run = self.runs.member_run()
        if run is None:
            return
        rec = self.keeper.current_record(report=False)
        last = ""
        if rec is not None and rec.status == PLAYING and rec.mode == "classic":
            try:
                game = rec.game()
                mover = game.positions[len(game.moves) - 1].turn if game.moves else self.st.colour
                if game.moves and game.moves[-1] != PASS and mover == 1 - self.st.colour:
                    last = notation.square_name(game.moves[-1], game.size)
            except ValueError:
                pass
        for m in self.st.board.quieted:
            if m.sender.lower() != self.st.other or m.sender_run != run:
                continue
            msg = protocol.parse(m.body)
            if msg.kind != "move" or "n" in msg.fields:
                continue
            if last and msg.get("square") == last:
                self.st.them.classic_played = run
                continue
            self.st.them.move_lost = (run, time.monotonic())
            self.tell.say("classic_move_lost", other=self.st.other, move=visible(m.body, 20))
            return

    def check_move_lost(self) -> None:
        """While the opponent whose move was lost (``move_lost_to_an_earlier_run``) runs on: a
        computer waits its ``patience`` for it to be started again, then leaves (exit code 4)."""
        lost = self.st.them.move_lost
        if lost is None:
            return
        if self.runs.member_run() != lost[0]:
            self.st.them.move_lost = None      # started again: its move comes to this run now
        elif self.st.patience is not None and time.monotonic() - lost[1] > self.st.patience:
            self.tell.say("classic_move_lost_leave", other=self.st.other, secs=int(self.st.patience))
            raise Leave(4)

    def classic_board_ok(self) -> None:
        """H6c: a classic program knows only the plain 8x8 board: on another (this side's game's,
        else the one asked for) the game cannot be played with it, said and refused (exit code 3;
        a game with plies stays resumable)."""
        board = self.st.shape if self.st.game is not None and self.st.shape is not None else self.keeper.wanted_board()
        if not (board.is_plain() and board.size == 8):
            self.control.refuse_game("classic_board", other=self.st.other, shape=board)

    def classic_move_first(self, msg: Msg) -> None:
        """A bare move before any greeting: the opponent is a classic program."""
        self.classic_board_ok()
        self.st.mode = "classic"
        self.st.them.bound_run = self.st.them.classic_run = msg.run
        self.tell.say("classic", other=self.st.other)
        if self.st.game is None:
            self.keeper.start_game(new_gid(), self.keeper.wanted_board())
        else:
            self.classic_resumed()
        self.st.pending.insert(0, msg)

    def bind_classic(self) -> None:
        try:
            self.st.them.bound_run = self.st.them.classic_run = self.st.board.member_run(self.st.other)
        except OSError as e:
            log.info("cannot read %s's member record yet: %s", self.st.other, e)

    def follow_classic_run(self) -> None:
        """A classic game is bound to the opponent's member run; a new run of it started its game
        again (H6b), and one that shows it speaks control lines gets our greeting (H6: the numbered
        form)."""
        if self.st.mode != "classic" or self.st.game is None:
            return
        try:
            run = self.st.board.member_run(self.st.other)
        except OSError:
            return  # the share failed a read: no news
        if run is not None and self.st.them.classic_run is not None and run != self.st.them.classic_run:
            self.classic_started_again(run)
        self.st.them.classic_run = run
        if run is not None:
            self.st.them.bound_run = run    # a classic game is bound to the opponent's member run
            if run not in self.st.them.hello_to_classic and self.runs.shown():
                self.st.them.hello_to_classic.add(run)
                log.info("%s (run %s) speaks control lines: greeting it", self.st.other, visible(run, 40))
                self.wire.send(self.control.hello())

    def classic_resumed(self) -> None:
        """H6b: a game with plies resumed from the record and now played in classic mode goes on
        only with the run of the classic program it was played with (noted in this side's clock
        file): any other run knows nothing of it and plays a new game."""
        run = self.st.them.classic_run
        if not self.st.game_now.moves or run is None or run in self._classic_runs_of_this_game():
            return
        self.classic_started_again(run)

    def _classic_runs_of_this_game(self) -> set[str]:
        """The classic opponent's runs known to have played the game on the board: the one this
        side's clock file notes, and one whose dropped move was the game's last ply (H6b)."""
        runs = {self.st.them.classic_played} if self.st.them.classic_played else set()
        noted = self.st.records.classic_run(self.st.record_now.id, self.st.me) if self.st.record is not None else None
        return runs | ({noted} if noted else set())

    def classic_again_at_once(self) -> bool:
        """H6b: a classic game (its record says so) resumed with the very run of the classic program it was played with
        goes on in classic mode at once (that program waits for our move, or sends its own: no
        greeting will come).  True when classic mode began."""
        if not self.st.game_now.moves:
            return False
        run = self.runs.member_run()
        if run is None or run not in self._classic_runs_of_this_game():
            return False
        self.classic_board_ok()
        self.st.mode = "classic"
        self.st.them.bound_run = self.st.them.classic_run = run
        self.tell.say("classic", other=self.st.other)
        return True

    def classic_started_again(self, run: str) -> None:
        """H6b: a classic program keeps no record, so a new run of it plays a new game from the
        start: ours (with plies) is closed as abandoned by it, said, and a new one begins (black
        moves first).  Our last move is never sent again: it would be illegal in the new game."""
        log.info("%s (classic) started again: run %s", self.st.other, visible(run, 40))
        self.st.them.bound_run = self.st.them.classic_run = run
        if not self.st.game_now.moves:
            return      # (nothing played yet: the same game)
        self.tell.say("classic_new_game", colour=1 - self.st.colour, id=self.st.gid, n=len(self.st.game_now.moves) + 1)
        self.keeper.abandon(self.st.record_now, self.st.other, said=False)
        self.keeper.start_game(new_gid(), self.keeper.wanted_board())
        self.tell.show()
