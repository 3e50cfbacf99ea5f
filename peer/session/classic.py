"""H6 H9: who speaks control lines, and the classic fallback for a program that does not.

A classic program (the tutorial's: ``Init``, ``Quiet``, bare coordinates through ``Talk``)
takes whatever it receives for the opponent's move: a control line would eat one of its
``Talk`` calls.  So a control line goes only to an opponent that has shown that it speaks them
(H9): by a greeting from its current run, or by its ``alive`` record carrying that run and a
non-empty ``state`` (P2; comm beats an empty state for every member, game peers set one).
"""
import logging
import time
from typing import TYPE_CHECKING

import comm
from engine import PASS, notation
from comm.text import visible

from .. import protocol
from ..protocol import Msg
from ..record import PLAYING
from .leave import Leave
from .recording import new_gid
from .state import State

if TYPE_CHECKING:
    from .core import Session

log = logging.getLogger("peer")


class Classic(State):
    """Mixed into ``Session``: H9 (``_shown``, ``_control``) and H6 (classic mode)."""

    # -- H9: control lines only to those who speak them ------------------------------------
    def _shown(self: "Session") -> bool:
        """Whether the opponent's current run has shown that it speaks control lines (H9)."""
        try:
            run = self.board.member_run(self.other)
        except OSError:
            return False
        if run is None:
            return False
        if run in self.them.greeted_runs:
            return True
        rec = self.board.alive(self.other) or {}
        return rec.get("run") == run and bool(rec.get("state", "").strip())

    def _speaks_control(self: "Session") -> bool:
        if self.mode == "full":
            return True         # the handshake was a greeting
        if self.mode == "classic":
            return False        # no control line at all (H6)
        return self._shown()

    def _control(self: "Session", verb: str, *, retry: bool = True, **fields: object) -> bool:
        """Send a control line (P4) when the opponent speaks them (H9); True when it was sent.

        ``retry``: keep sending until delivered (``Session.send``); else one try, failures
        only logged (a side that stops right after: ``refuse``, ``bye``).
        """
        if self.sending_stopped:
            return False        # replaced (I6): nothing more from this run
        if not self._speaks_control():
            log.info("%s not sent: %s has not shown that it speaks control lines (H9)", verb, self.other)
            return False
        body = protocol.control(verb, **fields)
        if retry:
            self.send(body)
            return True
        try:
            return self.board.send(self.other, body)
        except (comm.InvalidArgument, OSError) as e:
            log.warning("could not send %s: %s", verb, e)
            return False

    def _note_greeting(self: "Session", msg: Msg) -> None:
        """A greeting (even one refused) shows that its run speaks control lines."""
        self.them.greeted_runs.add(msg.run)

    def _move_lost_to_an_earlier_run(self: "Session") -> None:
        """I2, H6: bare moves that the opponent's current run sent to an earlier run of this side,
        which ``Quiet`` dropped.  One that is the last ply of the game on the board was received
        (applied and saved, not yet acknowledged when that run ended): it shows that this run
        played the game (``classic_played``).  Any other was never applied: a classic program
        sends its move once and then waits, so it must be started again; said at once."""
        run = self._member_run()
        if run is None:
            return
        rec = self._current_record(report=False)
        last = ""
        if rec is not None and rec.status == PLAYING and rec.mode == "classic":
            try:
                game = rec.game()
                mover = game.positions[len(game.moves) - 1].turn if game.moves else self.colour
                if game.moves and game.moves[-1] != PASS and mover == 1 - self.colour:
                    last = notation.square_name(game.moves[-1], game.size)
            except ValueError:
                pass
        for m in self.board.quieted:
            if m.sender.lower() != self.other or m.sender_run != run:
                continue
            msg = protocol.parse(m.body)
            if msg.kind != "move" or "n" in msg.fields:
                continue
            if last and msg.get("square") == last:
                self.them.classic_played = run
                continue
            self.them.move_lost = (run, time.monotonic())
            self.say("classic_move_lost", other=self.other, move=visible(m.body, 20))
            return

    def _check_move_lost(self: "Session") -> None:
        """While the opponent whose move was lost (``_move_lost_to_an_earlier_run``) runs on: a
        computer waits its ``patience`` for it to be started again, then leaves (exit code 4)."""
        lost = self.them.move_lost
        if lost is None:
            return
        if self._member_run() != lost[0]:
            self.them.move_lost = None      # started again: its move comes to this run now
        elif self.patience is not None and time.monotonic() - lost[1] > self.patience:
            self.say("classic_move_lost_leave", other=self.other, secs=int(self.patience))
            raise Leave(4)

    # -- H6: classic mode -----------------------------------------------------------------
    def _classic_board_ok(self: "Session") -> None:
        """H6c: a classic program knows only the plain 8x8 board: on another (this side's game's,
        else the one asked for) the game cannot be played with it, said and refused (exit code 3;
        a game with plies stays resumable)."""
        board = self.shape if self.game is not None and self.shape is not None else self.wanted_board()
        if not (board.is_plain() and board.size == 8):
            self._refuse_game("classic_board", other=self.other, shape=board)

    def _classic_move_first(self: "Session", msg: Msg) -> None:
        """A bare move before any greeting: the opponent is a classic program."""
        self._classic_board_ok()
        self.mode = "classic"
        self.them.bound_run = self.them.classic_run = msg.run
        self.say("classic", other=self.other)
        if self.game is None:
            self._start_game(new_gid(), self.wanted_board())
        else:
            self._classic_resumed()
        self.pending.insert(0, msg)

    def _bind_classic(self: "Session") -> None:
        try:
            self.them.bound_run = self.them.classic_run = self.board.member_run(self.other)
        except OSError as e:
            log.info("cannot read %s's member record yet: %s", self.other, e)

    def _follow_classic_run(self: "Session") -> None:
        """A classic game is bound to the opponent's member run; a new run of it started its game
        again (H6b), and one that shows it speaks control lines gets our greeting (H6: the numbered
        form)."""
        if self.mode != "classic" or self.game is None:
            return
        try:
            run = self.board.member_run(self.other)
        except OSError:
            return  # the share failed a read: no news
        if run is not None and self.them.classic_run is not None and run != self.them.classic_run:
            self._classic_started_again(run)
        self.them.classic_run = run
        if run is not None:
            self.them.bound_run = run    # a classic game is bound to the opponent's member run
            if run not in self.them.hello_to_classic and self._shown():
                self.them.hello_to_classic.add(run)
                log.info("%s (run %s) speaks control lines: greeting it", self.other, visible(run, 40))
                self.send(self._hello())

    def _classic_resumed(self: "Session") -> None:
        """H6b: a game with plies resumed from the record and now played in classic mode goes on
        only with the run of the classic program it was played with (noted in this side's clock
        file): any other run knows nothing of it and plays a new game."""
        run = self.them.classic_run
        if not self.game_now.moves or run is None or run in self._classic_runs_of_this_game():
            return
        self._classic_started_again(run)

    def _classic_runs_of_this_game(self: "Session") -> set[str]:
        """The classic opponent's runs known to have played the game on the board: the one this
        side's clock file notes, and one whose dropped move was the game's last ply (H6b)."""
        runs = {self.them.classic_played} if self.them.classic_played else set()
        noted = self.records.classic_run(self.record_now.id, self.me) if self.record is not None else None
        return runs | ({noted} if noted else set())

    def _classic_again_at_once(self: "Session") -> bool:
        """H6b: a classic game (its record says so) resumed with the very run of the classic program it was played with
        goes on in classic mode at once (that program waits for our move, or sends its own: no
        greeting will come).  True when classic mode began."""
        if not self.game_now.moves:
            return False
        run = self._member_run()
        if run is None or run not in self._classic_runs_of_this_game():
            return False
        self._classic_board_ok()
        self.mode = "classic"
        self.them.bound_run = self.them.classic_run = run
        self.say("classic", other=self.other)
        return True

    def _classic_started_again(self: "Session", run: str) -> None:
        """H6b: a classic program keeps no record, so a new run of it plays a new game from the
        start: ours (with plies) is closed as abandoned by it, said, and a new one begins (black
        moves first).  Our last move is never sent again: it would be illegal in the new game."""
        log.info("%s (classic) started again: run %s", self.other, visible(run, 40))
        self.them.bound_run = self.them.classic_run = run
        if not self.game_now.moves:
            return      # (nothing played yet: the same game)
        self.say("classic_new_game", colour=1 - self.colour, id=self.gid, n=len(self.game_now.moves) + 1)
        self._abandon(self.record_now, self.other, said=False)
        self._start_game(new_gid(), self.wanted_board())
        self._show()
