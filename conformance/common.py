"""What every scenario uses: its verdict (``check``, ``Fail``, ``Skip``) and the two views of the board folder."""
import uuid
from typing import TYPE_CHECKING
from pathlib import Path

if TYPE_CHECKING:
    from comm import Board, Message


class Fail(Exception):
    """The implementation does not do what the clause says (the message says what it did)."""


class Skip(Exception):
    """The scenario cannot run here (no symbolic links or FIFOs on this system)."""


def other_view(d: Path) -> Path:
    """The same board folder as the kit's own side sees it (another mount of the share, if given)."""
    a, b = VIEW.get("a"), VIEW.get("b")
    return b / d.relative_to(a) if a and b else d


VIEW: dict[str, Path | None] = {}      # "a": where the boards are made, "b": the same seen through a second mount


def check(cond: object, what: str) -> None:
    if not cond:
        raise Fail(what)


def _secret() -> str:
    """A fresh shared secret (CARDSTAND_SECRET), not ASCII."""
    return f"conformance {uuid.uuid4().hex[:12]} sécret"


def run_of(board: "Board") -> str:
    """The run of a joined ``board`` (the kit's own, for the messages it frames itself)."""
    if board.run is None:
        raise Fail(f"{board.name} has not joined")
    return board.run


def body_of(message: "Message | None") -> str | None:
    """The body of a received message, or None when none was received."""
    return None if message is None else message.body
