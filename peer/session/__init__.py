"""One side of a game between two processes (docs/PROTOCOL.md, part 2).

``Session`` is the one implementation every front end (the terminal, the window) sits on.  It
drives the game, a ``peer.match.Match`` (plies judged once, the clocks, the end, which plies a
transcript may bring, no I/O), around the board, the records and the face.  It is composed of
parts, each one set of rules over the one ``State``, each given the parts below it that it uses
(listed here from the bottom up; none calls a part above it):

- ``state``      what the side knows, declared and set once; ``opponent`` (the other side's
                 name, runs and signs of life) and ``keeping`` (the record's trust) its own
- ``telling``    what the face is told (``peer.events``: raw fields, never words), bounded a
                 minute; ``view``: the one snapshot every face draws (``peer.faces``)
- ``recording``  D1-D3 H5: the game record kept in step with the game; what a start
                 resumes, refuses (another size) or closes (abandoned, refused)
- ``trouble``    G7: messages in and out through trouble: the board gone, a full disk, this
                 run replaced
- ``runs``       H7 H8 H9: the opponent's runs: its current one, ended ones, who speaks
                 control lines
- ``control``    H2 H4 H7: control lines: our greeting, refusals, refused MACs
- ``classic``    H6: classic mode, for a program that speaks no control lines; its restarts
- ``presence``   P2 G5: our ``alive`` state, the opponent's signs of life
- ``handshake``  H1-H5: greetings checked and answered; ``roles``: black's and white's
                 differences, as values
- ``moves``      G1-G6: our move, their move, passes, the end and its acknowledgement
- ``commands``   what a person types (moves, hint, say, resign, quit)
- ``core``       ``Session``: the parts put together, and the driver: joining, the phases of a
                 run, routing each message (H8)
"""
from .core import COLOURS, Session
from .leave import Leave
from .state import MOVED, Seating

__all__ = ["COLOURS", "Leave", "MOVED", "Seating", "Session"]
