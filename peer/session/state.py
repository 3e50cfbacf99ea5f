"""What the session knows, declared once for the modules whose rules share it (each is set in
``Session.__init__``; the opponent's state is ``them``, the clocks ``clocks``, the record's
trust ``keeping``)."""
import threading
from typing import TYPE_CHECKING

import comm
from engine import Game, Shape

from ..match import Clocks, Match
from ..players import Player
from ..protocol import Msg
from ..record import Record, Records
from ..events import Listener
from ..garbage import Garbage, Noise
from .keeping import Keeping
from .opponent import Opponent

if TYPE_CHECKING:
    from .handshake import Black, White


class State:
    colour: int
    me: str                     # "black" or "white"
    other: str
    role: "Black | White"       # what black and white do differently (H2, H3)
    player: Player
    screen: Listener            # the face told what happens
    my_name: str
    name_given: bool            # else a resumed game keeps our name from its record
    recorded_name: str | None   # our name in the record of the game we resume
    them: Opponent
    size: int | None            # the board's, once known
    want_size: int | None       # the size asked for on the command line, if any
    shape: Shape | None         # the board's, once known (its size is ``size``)
    want_shape: Shape | None    # the board asked for on the command line (--shape), if any
    new: bool
    classic_after: float
    gone_after: float
    patience: float | None
    stats: str | None
    secret: bytes | None
    ack_wait: float             # G6: seconds to wait for the opponent's result after sending ours
    board: comm.Board
    records: Records
    mode: str | None            # "full" after a handshake, "classic" without one
    match: Match | None         # the game being played: its plies, clocks and end (``peer.match``)
    record: Record | None
    gid: str | None
    prompted: bool
    full_told: str | bool       # T2 T5: the cause of an unwritable board last told (False: none)
    sent_at: float | None       # when our last move was sent (for --stats)
    pending: list[Msg]          # messages read but not handled yet
    save_failed: str | None     # why the last save of the record failed (None: it did not)
    acked: bool                 # G6: the opponent's result for this game has come
    end_shown: bool             # the end of this game was shown
    resumed_end: bool           # this run offers again a game that ended unacknowledged (G6)
    asked_new: str | None       # white with --new: the game it closed (its hello says new=1, H2)
    keeping: Keeping            # whether the record can be used and written (D6, D6a)
    sending_stopped: bool       # I6: this run was replaced: it sends nothing more
    stop: threading.Event
    garbage: Garbage            # tells what comm set aside on the board
    noise: Noise                # what the board may put on the screen a minute

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
