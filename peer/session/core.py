"""The session: joining the board, the phases of a run, and routing each message to its rule."""
import logging
import os
import threading
import time
from typing import Any

import comm
from comm.text import visible
from engine import Shape

from ..players import Player
from ..protocol import NAME_LIMIT, Msg, parse_used
from ..record import Records
from .classic import Classic
from .commands import Commands
from ..events import Event, Listener
from ..reasons import Reason
from ..garbage import Garbage, Noise
from .keeping import Keeping
from .handshake import ROLES, Handshake
from .leave import Leave, uninterrupted
from .moves import Moves
from .opponent import Opponent
from .presence import Presence
from .recording import Recording
from .runs import Runs
from .trouble import Trouble
from .view import Viewing

log = logging.getLogger("peer")

COLOURS = ("black", "white")


class Session(Presence, Trouble, Runs, Classic, Handshake, Moves, Commands, Recording, Viewing):
    """Plays ``colour`` on the board folder ``folder`` for ``player`` (a ``peer.players.Player``),
    telling ``screen`` (a face: ``tell(Event)``) what happens.

    Options (all optional): ``name``, ``size`` (None: black proposes 8, white
    accepts black's), ``shape`` (a ``engine.Shape``: black proposes it, white requires it), ``new`` (do not resume), ``classic_after`` (seconds to
    wait for a greeting before speaking the classic protocol), ``gone_after``,
    ``patience`` (seconds a computer waits for a vanished opponent; None: forever),
    ``stats`` (file for per-move overhead figures), ``secret`` (the shared
    secret, bytes, or None: see docs/PROTOCOL.md A1-A6), ``ack_wait`` (seconds to wait for the
    opponent's acknowledgement of the end, G6), ``take_over`` (join even if another run of our
    colour is alive, I6: it is replaced), ``board`` (a ``comm.Board``-like object to use instead of joining ``folder``; for tests).

    The game is bound to the opponent's run that completed the handshake
    (``them.bound_run``): messages from any other run are shown, logged and not applied.
    """

    def __init__(self, folder: str | os.PathLike[str], colour: int, player: Player, screen: Listener, *,
                 name: str | None = None, size: int | None = None, shape: Shape | None = None, new: bool = False,
                 classic_after: float = 10.0, gone_after: float = 6.0, patience: float | None = None,
                 stats: str | None = None, stale_after: float = 10.0, secret: bytes | None = None,
                 board: comm.Board | None = None, ack_wait: float = 20.0, take_over: bool = False) -> None:
        self.colour = colour
        self.role = ROLES[colour]
        self.me, self.other = COLOURS[colour], COLOURS[1 - colour]
        self.player = player
        self.screen = screen
        self.my_name = name or player.default_name
        self.name_given = name is not None     # else a resumed game keeps our name from its record
        self.them = Opponent(name=self.other)
        self.recorded_name = None       # our name in the record of the game we resume
        if shape is not None and size is not None and shape.size != size:
            raise ValueError(f"--size {size} and --shape {shape} ({shape.size}x{shape.size}) disagree")
        self.size = shape.size if shape is not None else size
        self.want_size = self.size  # the size asked for on the command line, if any
        self.shape = self.want_shape = shape    # the board asked for (--shape), if any
        self.new = new
        self.classic_after = classic_after
        self.gone_after = gone_after
        self.patience = patience
        self.stats = stats
        self.secret = secret or None
        self.ack_wait = ack_wait    # G6: seconds to wait for the opponent's result after sending ours
        if board is None:
            board = comm.Board(folder, self.me, stale_after=stale_after, secret=self.secret, take_over=take_over)
        self.board = board
        self.records = Records(folder, self.secret)
        self.mode = None            # "full" after a handshake, "classic" without one
        self.match = None
        self.record = None
        self.gid = None
        self.prompted = False
        self.full_told = False      # T2: told that the board's disk is full (the opponent's silence)
        self.sent_at = None         # when our last move was sent (for --stats)
        self.pending = []           # messages read but not handled yet
        self.save_failed = None     # why the last save of the record failed (None: it did not)
        self.acked = False          # G6: the opponent's result for this game has come
        self.end_shown = False      # the end of this game was shown
        self.resumed_end = False    # this run offers again a game that ended unacknowledged (G6)
        self.asked_new = None       # white with --new: the game it closed (its hello says new=1, H2)
        self.keeping = Keeping()    # whether the record can be used and written (D6, D6a)
        self.sending_stopped = False    # I6: this run was replaced: it sends nothing more
        self.stop = threading.Event()
        self.garbage = Garbage(self.say)    # what comm set aside, told
        self.noise = Noise()                # what the board may put on the screen a minute

    # -- what the faces are told -----------------------------------------------------
    def say(self, what: str, /, **fields: Any) -> None:
        """Tell the face that ``what`` happened (an ``Event``: raw fields, the face's words)."""
        # (how this side is left, for the texts that say it: a computer side reads no commands)
        human, reads = self.player.kind == "human", self.player.lines is not None
        fields["leave_by"] = "human" if human else "terminal" if reads else "computer"
        if not self.noise.allow(what, time.monotonic()):
            log.info("not shown (too many from the board this minute): %s", what)
            return
        self.screen.tell(Event(what, fields))

    def _tell_noise(self) -> None:
        """The count of what the board sent and the screen was spared, once a minute (``Noise``)."""
        n = self.noise.due(time.monotonic())
        if n:
            self.screen.tell(Event("noise_more", {"n": n}))

    def _show(self) -> None:
        """Tell the face to draw the board as it is now."""
        self.screen.tell(Event("board", {"view": self.view()}))
        self.prompted = False


    def _next_message(self, timeout: float) -> Msg | None:
        if self.pending:
            return self.pending.pop(0)
        m = self.board.wait(timeout=timeout)
        self._check_rejected()
        self.garbage.tell(*self.board.take_set_aside())
        self._tell_noise()
        if m is None:
            self._check_board()     # G7: a gone board returns at once, a replaced run stops
            return None
        return self._as_msg(m)

    # -- routing a message during the game ---------------------------------------------
    def _handle(self, msg: Msg) -> None:
        if msg.kind == "junk":
            log.info("ignored junk from %s: %r", self.other, visible(msg.text, 80))
            return
        if not self._from_bound_run(msg):
            return
        k = msg.kind
        if k == "move":
            return self._their_move(msg)
        if k == "say":
            return self.say("chat", name=self.them.name, text=msg.get("text"))
        if k == "resign":
            return self._they_resigned(msg)
        if k == "result":
            return self._their_result(msg)
        if k == "bye":
            if self.them.left_at:
                return      # said again: it has left already (nothing more is counted or said)
            # D7: the time of its turn under way, when it was to move, is its own (both count it)
            self.match_now.leave(1 - self.colour, parse_used(msg.get("t")), time.monotonic())
            self.them.left()
            self.player.rest()      # no pondering on a position the opponent left
            self.say("left", name=self.them.name)
            return self._say_times()    # the figures the leaver said too (D7)
        if k == "refused":
            return self.say("they_refused", name=self.them.name, move=msg.get("move"),
                            reason=Reason.read(msg.get("reason")))
        if k == "refuse":
            self._refused_by_them(msg)
        if k in ("hello", "welcome"):
            return self.role.in_game(self, msg)
        log.info("ignored %s from %s: %r", k, self.other, visible(msg.text, 80))

    # -- the phases of a run ---------------------------------------------------------
    def run(self) -> int:
        """Play until the game ends or the player leaves; returns an exit code."""
        try:
            self._start_check()     # before anything on the board changes
        except Leave as e:
            return e.code
        joined = False
        try:
            try:
                self.board.join()
            except comm.MemberBusy as e:
                self._busy(e)           # P1: one live run per colour (I6)
                return 2
            except comm.BoardError as e:
                self.say("cannot_play", reason=Reason.board(e))
                return 2
            self.board.beat("waiting")
            threading.Thread(target=self._presence_loop, name="presence", daemon=True).start()
            joined = True
            # Messages left for an earlier run go; a resumed game is re-synchronised by
            # the handshake, which carries each side's whole transcript.
            self.board.quiet()
            self._move_lost_to_an_earlier_run()
            for r in self.board.take_rejected():    # refused while dropping what was left for earlier runs
                log.info("refused an old message from %s: %s", visible(r.sender, NAME_LIMIT), visible(r.reason))
            self._handshake()
            names = {self.me: self.my_name, self.other: self.them.name}
            self.say("game_on", black=names["black"], white=names["white"], size=self.size, shape=self.shape_now)
            if any(self.clocks.ms):
                self._say_times()       # D7: the clocks go on from before the restart
            self.clocks.start(time.monotonic())
            self._show()
            return self._play()
        except Leave as e:
            return e.code
        except KeyboardInterrupt:
            # Ctrl+C (and, without a face, SIGTERM or SIGHUP: see peer.cli) leaves as quit
            # does; a second one while leaving leaves at once
            try:
                self.board.lock_timeout = min(self.board.lock_timeout, 2.0)  # the user wants out now
                if not joined or self.board.problem == "replaced":   # nothing to tell the opponent
                    self.say("bye")
                    return 130
                self._leave()
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
                        self.stop.set()
                        self.board.close()
                    break
                except KeyboardInterrupt:
                    pass

    def _play(self) -> int:
        """Section 14: moves until the game is over and acknowledged (exit code 0), or the opponent
        stays away."""
        next_presence = 0.0
        while True:
            if self._ended():
                if self._finish():
                    return 0
                continue            # a new game replaced it (H5)
            pos = self.game_now.position
            if self.pending:
                self._handle(self.pending.pop(0))
                continue
            mine = pos.turn == self.colour
            if mine and pos.must_pass():
                self._my_move()  # pass first: a classic opponent's next move follows at once
            elif mine:
                self._drain(0)
                if self.game_now.position.turn == self.colour and not self._ended():
                    self._my_move()
            else:
                if self.mode == "classic" and pos.must_pass():
                    self._their_classic_pass()
                    continue
                self._check_input_only()
                msg = self._next_message(0.1)
                if msg is not None:
                    self._handle(msg)
            now = time.monotonic()
            if now >= next_presence:
                next_presence = now + 1.0
                self._check_presence()
                self._check_left()
                self._check_move_lost()

    def _check_left(self) -> None:
        """G5: an opponent that said ``bye`` is waited for ``patience`` seconds (exit code 4)."""
        if self.them.left_at and self.patience is not None and time.monotonic() - self.them.left_at > self.patience:
            self.say("giving_up_wait", name=self.them.name, secs=int(self.patience))
            raise Leave(4)

    def _drain(self, timeout: float) -> None:
        """Handle messages that arrived while it is our turn (chat, resign, a restarted peer...)."""
        while True:
            msg = self._next_message(timeout)
            if msg is None:
                return
            self._handle(msg)
