"""Messages between programs through a shared folder (the message board, 伝言台).

The tutorial's functions, unchanged::

    import comm
    comm.Init("black", "cardstand")          # join the board folder as "black"
    comm.Quiet()                             # drop what was left for an earlier run
    r, sender, body = comm.Talk("white", "d3")
    # r == 2: a message from `sender` was waiting (returned; nothing was sent)
    # r == 1: "d3" was delivered to white
    # r == -1: nothing waiting and no recipient given (Talk("", ""))
    # r == 0: not delivered; comm.LastError() says why

Lower layer: ``SendMessage(to, body)``, ``RecvMessage()``, ``WipeMessage()``.
Under them sits ``comm.Board``, a mailbox object that ``peer/`` and other code
use directly (a context manager).  The folder format is in docs/PROTOCOL.md.
Text read from a board is shown to a person through ``comm.text.visible``.
"""
import atexit
import os

from .board import (FAILED, MAX_BODY, MAX_UNREAD, NOTHING, RECEIVED, SENT, VERSION, Board,
                    BoardError, InvalidArgument, MemberBusy, Message, Rejected, SecretProblem, TalkResult,
                    check_name, load_secret)
from .lease import Lease, LockLost, LockTimeout

__all__ = ["Init", "Quiet", "Talk", "SendMessage", "RecvMessage", "WipeMessage", "LastError",
           "Board", "BoardError", "MemberBusy", "InvalidArgument", "SecretProblem", "LockTimeout", "LockLost", "Lease", "Message",
           "TalkResult", "Rejected", "load_secret", "RECEIVED", "SENT", "FAILED", "NOTHING", "MAX_BODY", "MAX_UNREAD",
           "VERSION", "check_name"]

_board: Board | None = None


def _default() -> Board:
    if _board is None:
        raise RuntimeError("call comm.Init(name, board_dir) first")
    return _board


def Init(name: str, board_dir: str | os.PathLike[str] = "cardstand", take_over: bool = False) -> Board:
    """Join the board folder ``board_dir`` (created if missing) as ``name``; returns the Board.

    Raises ``MemberBusy`` (naming it) while another program that joined as ``name`` is still
    running; ``take_over=True`` takes the name from it all the same (for one that is truly
    gone but not yet judged so: docs/PROTOCOL.md I6).  With ``CARDSTAND_SECRET`` set,
    messages are signed and checked with it (A1).
    """
    global _board
    board = Board(board_dir, name, secret=load_secret(), take_over=take_over).join()
    if _board is None:
        atexit.register(_close)     # a clean exit acknowledges the last message and leaves (M5, I6)
    if _board is not None:
        _board.close()
    _board = board
    return board


def _close() -> None:
    if _board is not None:
        _board.close()


def Quiet() -> int:
    """Discard messages left for an earlier run of this name; returns how many.

    A message sent to this run, even one that arrived between Init and Quiet, is kept.
    """
    return _default().quiet()


def Talk(to: str, msg: str) -> tuple[int, str, str]:
    """Under the board's lock: return ``(2, sender, body)`` for the oldest waiting message
    (sending nothing); else ``(-1, '', '')`` if ``to`` is ``''``; else deliver ``msg`` to
    ``to`` and return ``(1, '', '')``, or ``(0, '', '')`` if it could not (see LastError).

    No message is lost if this program is killed: a message returned stays on the board
    until the next Talk, RecvMessage, Quiet or WipeMessage (or a new Init) consumes it, so a
    program killed before it was done with it gets it again after a restart (unless it calls
    Quiet).  Within one run a message is returned once."""
    r = _default().talk(to, msg)
    return (r.result, r.sender, r.body)


def SendMessage(to: str, msg: str) -> int:
    """Deliver ``msg`` to ``to``: 1 when delivered, 0 when not (see LastError)."""
    return SENT if _default().send(to, msg) else FAILED


def RecvMessage() -> tuple[int, str, str]:
    """``(2, sender, body)`` for the oldest waiting message, ``(-1, '', '')`` when none,
    ``(0, '', '')`` when the board could not be read (see LastError).

    Like Talk, it loses no message if this program is killed: the message returned stays on
    the board until the next call (or a new Init) consumes it, and a restarted program gets
    it again (unless it calls Quiet).  Within one run a message is returned once."""
    board = _default()
    m = board.receive()
    if m is not None:
        return (RECEIVED, m.sender, m.body)
    return (FAILED if board.last_error else NOTHING, "", "")


def WipeMessage() -> int:
    """Discard every message waiting for this name; returns how many."""
    return _default().wipe()


def LastError() -> str:
    """Why the last call failed ('' when it did not)."""
    return _board.last_error if _board is not None else ""
