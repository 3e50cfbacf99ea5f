"""The session: one side of a game between two processes, composed of its parts (each part one
set of rules, ``peer.session``), and the driver: joining the board, the phases of a run, and
routing each message to its rule (H8)."""
import logging
import os
import threading
import time

import comm
from comm.text import visible
from engine import Shape

from ..events import Listener
from ..players import Player
from ..protocol import NAME_LIMIT, Msg, parse_used
from ..reasons import Reason
from ..view import View
from .classic import Classic
from .commands import Commands
from .control import Control
from .handshake import Handshake
from .leave import Leave, uninterrupted
from .moves import Moves
from .presence import Presence
from .recording import Keeper
from .runs import Runs
from .state import COLOURS, MOVED, Seating, State
from .telling import Teller
from .trouble import Wire
from .view import view

log = logging.getLogger("peer")

__all__ = ["COLOURS", "Session"]


class Session:
    """Plays ``colour`` on the board folder ``folder`` for ``player`` (a ``peer.players.Player``),
    telling ``screen`` (a face: ``tell(Event)``) what happens.  The options are ``State``'s.

    The game is bound to the opponent's run that completed the handshake
    (``them.bound_run``): messages from any other run are shown, logged and not applied.
    """

    def __init__(self, folder: str | os.PathLike[str], colour: int, player: Player, screen: Listener, *,
                 name: str | None = None, size: int | None = None, shape: Shape | None = None, new: bool = False,
                 classic_after: float = 10.0, gone_after: float = 6.0, patience: float | None = None,
                 stats: str | None = None, stale_after: float = 10.0, secret: bytes | None = None,
                 board: comm.Board | None = None, ack_wait: float = 20.0, take_over: bool = False,
                 seating: Seating | None = None) -> None:
        st = self.st = State(folder, colour, player, screen, name=name, size=size, shape=shape, new=new,
                             classic_after=classic_after, gone_after=gone_after, patience=patience, stats=stats,
                             stale_after=stale_after, secret=secret, board=board, ack_wait=ack_wait,
                             take_over=take_over, seating=seating)
        self.tell = tell = Teller(st)
        self.keeper = keeper = Keeper(st, tell)
        # (what the person types is read while the wire waits; what comm refused is reported
        # before each message read: both rules sit above the wire)
        self.wire = wire = Wire(st, tell, keeper, idle=lambda every: self.commands.check_input_only(every),
                                rejected=lambda: self.control.check_rejected())
        self.runs = runs = Runs(st, tell)
        self.control = control = Control(st, tell, keeper, wire, runs)
        self.classic = classic = Classic(st, tell, keeper, wire, runs, control)
        self.presence = presence = Presence(st, tell, wire, classic)
        self.handshake = Handshake(st, tell, keeper, wire, runs, control, classic, presence)
        self.moves = moves = Moves(st, tell, keeper, wire, control)
        self.commands = Commands(st, tell, keeper, moves, control)

    def view(self) -> View:
        """The session now, for a face (safe to call from another thread)."""
        return view(self.st)

    def _handle(self, msg: Msg) -> None:
        if msg.kind == "junk":
            log.info("ignored junk from %s: %r", self.st.other, visible(msg.text, 80))
            return
        if not self._from_bound_run(msg):
            return
        k = msg.kind
        if k == "move":
            return self.moves.their_move(msg)
        if k == "say":
            return self.tell.say("chat", name=self.st.them.name, text=msg.get("text"))
        if k == "resign":
            return self.moves.they_resigned(msg)
        if k == "result":
            return self.moves.their_result(msg)
        if k == "bye":
            if self.st.them.left_at:
                return      # said again: it has left already (nothing more is counted or said)
            # D7: the time of its turn under way, when it was to move, is its own (both count it)
            self.st.match_now.leave(1 - self.st.colour, parse_used(msg.get("t")), time.monotonic())
            self.st.them.left()
            self.st.player.rest()      # no pondering on a position the opponent left
            self.tell.say("left", name=self.st.them.name)
            return self.moves.say_times()    # the figures the leaver said too (D7)
        if k == "refused":
            return self.tell.say("they_refused", name=self.st.them.name, move=msg.get("move"),
                                 reason=Reason.read(msg.get("reason")))
        if k == "refuse":
            self.control.refused_by_them(msg)
        if k in ("hello", "welcome"):
            return self.handshake.in_game(msg)
        log.info("ignored %s from %s: %r", k, self.st.other, visible(msg.text, 80))

    def run(self) -> int:
        """Play until the game ends or the player leaves; returns an exit code."""
        try:
            self.keeper.start_check()     # before anything on the board changes
        except Leave as e:
            return e.code
        joined = False
        try:
            try:
                self.st.board.join()
            except comm.MemberBusy as e:
                if self.st.seating is not None:     # seated by the share: another table
                    self.st.seating.busy()
                    return MOVED
                self.wire.busy(e)           # P1: one live run per colour (I6)
                return 2
            except comm.BoardError as e:
                self.tell.say("cannot_play", reason=Reason.board(e))
                return 2
            self.st.board.beat("waiting")
            threading.Thread(target=self.presence.presence_loop, name="presence", daemon=True).start()
            joined = True
            # Messages left for an earlier run go; a resumed game is re-synchronised by
            # the handshake, which carries each side's whole transcript.
            self.st.board.quiet()
            self.classic.move_lost_to_an_earlier_run()
            for r in self.st.board.take_rejected():    # refused while dropping what was left for earlier runs
                log.info("refused an old message from %s: %s", visible(r.sender, NAME_LIMIT), visible(r.reason))
            self.handshake.handshake()
            names = {self.st.me: self.st.my_name, self.st.other: self.st.them.name}
            self.tell.say("game_on", black=names["black"], white=names["white"], size=self.st.size,
                          shape=self.st.shape_now)
            if any(self.st.clocks.ms):
                self.moves.say_times()       # D7: the clocks go on from before the restart
            self.st.clocks.start(time.monotonic())
            self.tell.show()
            return self._play()
        except Leave as e:
            return e.code
        except KeyboardInterrupt:
            # Ctrl+C (and, without a face, SIGTERM or SIGHUP: see peer.cli) leaves as quit
            # does; a second one while leaving leaves at once
            try:
                self.st.board.lock_timeout = min(self.st.board.lock_timeout, 2.0)  # the user wants out now
                if not joined or self.st.board.problem == "replaced":   # nothing to tell the opponent
                    self.tell.say("bye")
                    return 130
                self.commands.leave()
            except Leave as e:
                return e.code
            except KeyboardInterrupt:
                return 130
            except Exception:  # (bye could not be sent: the opponent sees us gone)
                return 0
        finally:
            while True:     # (a Ctrl+C landing before the signals are held off: once more)
                try:
                    with uninterrupted():
                        self.st.stop.set()
                        self.st.board.close()
                    break
                except KeyboardInterrupt:
                    pass

    def _play(self) -> int:
        """Section 14: moves until the game is over and acknowledged (exit code 0), or the opponent
        stays away."""
        next_presence = 0.0
        while True:
            if self.moves.ended():
                if self._finish():
                    return 0
                continue            # a new game replaced it (H5)
            pos = self.st.game_now.position
            if self.st.pending:
                self._handle(self.st.pending.pop(0))
                continue
            mine = pos.turn == self.st.colour
            if mine and pos.must_pass():
                self.moves.my_move()  # pass first: a classic opponent's next move follows at once
            elif mine:
                self._drain(0)
                if self.st.game_now.position.turn == self.st.colour and not self.moves.ended():
                    if self.st.player.kind == "human":
                        self.commands.human_turn()
                    else:
                        self.moves.my_move()
            else:
                if self.st.mode == "classic" and pos.must_pass():
                    self.moves.their_classic_pass()
                    continue
                self.commands.check_input_only()
                msg = self.wire.next_message(0.1)
                if msg is not None:
                    self._handle(msg)
            now = time.monotonic()
            if now >= next_presence:
                next_presence = now + 1.0
                self.presence.check_presence()
                self.presence.check_left()
                self.classic.check_move_lost()

    def _drain(self, timeout: float) -> None:
        """Handle messages that arrived while it is our turn (chat, resign, a restarted peer...)."""
        while True:
            msg = self.wire.next_message(timeout)
            if msg is None:
                return
            self._handle(msg)

    def _finish(self) -> bool:
        """G4 G6: show the end, send ours, and wait (at most ``ack_wait`` s after our last sending)
        for the opponent's ``result``.

        True when this run is done with the game (acknowledged, or not in time: then the next
        start offers it again); False when a greeting replaced it by a new game (H5).
        """
        self.moves.show_end()
        if self.st.mode != "full":
            self.st.acked = True       # a classic program sends no result: nothing to wait for
        sent_to = None
        sent_at = time.monotonic()
        told = False
        next_presence = 0.0
        while self.st.mode == "full" and not (self.st.acked and sent_to is not None):
            if not self.moves.ended():
                return False        # a new game began (H5)
            if sent_to != self.st.them.bound_run:
                self.moves.send_end()    # again to an opponent that restarted (G6)
                sent_to, sent_at = self.st.them.bound_run, time.monotonic()
                continue
            self.commands.check_input_only()
            msg = self.wire.next_message(0.2)
            if msg is not None:
                self._handle(msg)
            now = time.monotonic()
            if self.st.acked:
                continue
            if not told and now - sent_at > 2.0:
                told = True
                self.tell.say("waiting_ack", name=self.st.them.name)
            if now - sent_at > self.st.ack_wait:
                self.tell.say("no_ack", name=self.st.them.name, secs=int(self.st.ack_wait))
                break
            if now >= next_presence:
                next_presence = now + 1.0
                try:
                    self.presence.check_presence()
                    self.presence.check_left()
                except Leave as e:
                    if e.code != 4:
                        raise
                    break       # the opponent stayed away: the game has ended all the same (exit 0)
        if self.st.save_failed is None:
            self.tell.say("record", path=self.st.records.path(self.st.record_now.id))
        return True

    def _from_bound_run(self, msg: Msg) -> bool:
        """H8 during the game: True when ``msg`` may be applied.  A greeting from the opponent's
        new run is a restart (handled here); anything else from another run is not applied."""
        if self.st.them.bound_run is not None and msg.run != self.st.them.bound_run:
            if not self.runs.is_member_run(msg.run):
                self.runs.other_run(msg)
                return False
            # The opponent's current run, not the bound one: it restarted.
            if msg.kind == "hello":
                self.handshake.restart(msg)
                return False
            if msg.kind == "welcome" and self.handshake.role.takes_welcome:
                self.runs.note_greeting(msg)
                self.handshake.greeting(msg, strict=True)
                return False
            if self.st.mode != "classic":
                self.runs.other_run(msg)
                return False
            self.classic.classic_started_again(msg.run)      # (its move is judged in the new game)
        elif self.st.them.bound_run is None and self.st.mode == "classic":
            if not self.runs.is_member_run(msg.run):
                self.runs.other_run(msg)
                return False
            self.st.them.bound_run = msg.run
        return True
