"""One side of a game between two processes (docs/PROTOCOL.md, part 2).

``Session`` is the one implementation every front end (the terminal, the
window) sits on: it drives the game, a ``peer.match.Match`` (plies judged once, the clocks,
the end, which plies a transcript may bring), around the board, the records and the face.
Each rule lives in one module:

- ``core``       the session: joining, the phases of a run, routing each message (H8)
- ``presence``   P2 G5a: our ``alive`` state, the opponent's signs of life
- ``runs``       H7 H8: who sent a message (the bound run, the member run, refused MACs)
- ``classic``    H6 H9: control lines only to an opponent that speaks them; classic mode
- ``handshake``  H1-H5: greetings sent, checked and answered; black's and white's
                 differences (``roles``)
- ``moves``      G1-G6: our move, their move, passes, the end and its acknowledgement
- ``trouble``    G7: sending through trouble; the board gone, a full disk, this run replaced
- ``commands``   what a person types (moves, hint, say, resign, quit)
- ``recording``  D1-D3 H5: the game record kept in step with the game; what a start
                 resumes, refuses (another size) or closes (abandoned, refused)
- ``view``       ``Session.view()``: the one snapshot every face draws (``peer.faces``);
                 ``record_view``: a record as a face draws it (watching, replaying)
- ``state``      what the session knows, declared once; ``opponent`` (the other side's name,
                 runs and signs of life) owns its own; the game itself (its plies, clocks and
                 end) is a ``peer.match.Match``, which does no I/O
- ``events``     what the session tells its face: ``Event`` (raw fields, never words) and
                 ``Reason`` (a refusal: a code for a screen, English for the board)
"""
from .core import COLOURS, Session
from .leave import Leave

__all__ = ["COLOURS", "Leave", "Session"]
