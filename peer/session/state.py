"""What one side knows of its game and its opponent, declared and set once: the parts of the
session (``peer.session``) share this one object and keep nothing of it themselves.  The
opponent's state is ``them``, the record's trust ``keeping``, the game itself (its plies, clocks
and end) a ``peer.match.Match``, which does no I/O."""
import os
import threading
from typing import Protocol

import comm
from engine import Game, Shape

from ..match import Clocks, Match
from ..players import Player
from ..protocol import Msg
from ..record import Record, Records
from ..events import Listener
from ..view import Hint
from .keeping import Keeping
from .opponent import Opponent

COLOURS = ("black", "white")
MOVED = -1      # (not an exit code) the side left its table for another one on the share (``Seating``)


class Seating(Protocol):
    """Where a side seated by ``--share`` sits (``peer.tables.Seating``)."""

    def alone(self) -> bool:
        """Asked while nobody has joined: True to leave this table for another one."""

    def busy(self) -> None:
        """This side's colour was taken at this table."""


class State:
    """Options (all optional): ``name``, ``size`` (None: black proposes 8, white accepts black's),
    ``shape`` (a ``engine.Shape``: black proposes it, white requires it), ``new`` (do not resume),
    ``classic_after`` (seconds to wait for a greeting before speaking the classic protocol),
    ``gone_after``, ``patience`` (seconds a computer waits for a vanished opponent; None: forever),
    ``stats`` (file for per-move overhead figures), ``secret`` (the shared secret, bytes, or None:
    see docs/PROTOCOL.md A1-A6), ``ack_wait`` (seconds to wait for the opponent's acknowledgement
    of the end, G6), ``take_over`` (join even if another run of our colour is alive, I6: it is
    replaced), ``board`` (a ``comm.Board``-like object to use instead of joining ``folder``; for
    tests), ``seating`` (a ``Seating``: the side was seated at this table by ``--share`` and may
    move to another one while nobody has joined it)."""

    def __init__(self, folder: str | os.PathLike[str], colour: int, player: Player, screen: Listener, *,
                 name: str | None = None, size: int | None = None, shape: Shape | None = None, new: bool = False,
                 classic_after: float = 10.0, gone_after: float = 6.0, patience: float | None = None,
                 stats: str | None = None, stale_after: float = 10.0, secret: bytes | None = None,
                 board: comm.Board | None = None, ack_wait: float = 20.0, take_over: bool = False,
                 seating: "Seating | None" = None) -> None:
        if shape is not None and size is not None and shape.size != size:
            raise ValueError(f"--size {size} and --shape {shape} ({shape.size}x{shape.size}) disagree")
        self.colour = colour
        self.me, self.other = COLOURS[colour], COLOURS[1 - colour]     # "black" or "white"
        self.player = player
        self.screen: Listener = screen          # the face told what happens
        self.my_name = name or player.default_name
        self.name_given = name is not None      # else a resumed game keeps our name from its record
        self.recorded_name: str | None = None   # our name in the record of the game we resume
        self.them = Opponent(name=self.other)
        self.size: int | None = shape.size if shape is not None else size     # the board's, once known
        self.want_size = self.size              # the size asked for on the command line, if any
        self.shape: Shape | None = shape        # the board's, once known (its size is ``size``)
        self.want_shape: Shape | None = shape   # the board asked for on the command line (--shape), if any
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
        self.seating = seating
        self.records = Records(folder, self.secret)
        self.mode: str | None = None            # "full" after a handshake, "classic" without one
        self.match: Match | None = None         # the game being played (``peer.match``)
        self.record: Record | None = None
        self.gid: str | None = None
        self.prompted = False                   # our turn was said to the person
        self.full_told: str | bool = False      # T2 T5: the cause of an unwritable board last told (False: none)
        self.sent_at: float | None = None       # when our last move was sent (for --stats)
        self.pending: list[Msg] = []            # messages read but not handled yet
        self.save_failed: str | None = None     # why the last save of the record failed (None: it did not)
        self.acked = False                      # G6: the opponent's result for this game has come
        self.end_shown = False                  # the end of this game was shown
        self.resumed_end = False                # this run offers again a game that ended unacknowledged (G6)
        self.asked_new: str | None = None       # white with --new: the game it closed (its hello says new=1, H2)
        self.keeping = Keeping()                # whether the record can be used and written (D6, D6a)
        self.sending_stopped = False            # I6: this run was replaced: it sends nothing more
        self.stop = threading.Event()           # the run is over (the presence thread ends)
        # (game, ply, hints): the last hint, for the faces; asked again in that position, it is repeated
        self.hints: tuple[str | None, int, tuple[Hint, ...]] = (None, -1, ())

    @property
    def game(self) -> Game | None:
        """The plies of the game being played, or None before there is one."""
        match = self.match
        return match.game if match is not None else None

    @property
    def game_now(self) -> Game:
        """The game being played: for the rules that run only once there is one."""
        return self.match_now.game

    @property
    def match_now(self) -> Match:
        """The game being played (as ``game_now``)."""
        assert self.match is not None, "no game yet"
        return self.match

    @property
    def clocks(self) -> Clocks:
        """The time each side has used in the game being played (none before there is one)."""
        match = self.match
        return match.clocks if match is not None else Clocks()

    @property
    def shape_now(self) -> Shape:
        """The board of the game being played (as ``game_now``)."""
        assert self.shape is not None, "no game yet"
        return self.shape

    @property
    def record_now(self) -> Record:
        """The record of the game being played (as ``game_now``)."""
        assert self.record is not None, "no game yet"
        return self.record
