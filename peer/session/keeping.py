"""What the session knows of whether the game record on the board can be used and written (D6,
D6a).  One object owns this state; the rules that change it are the session's (``recording``)."""
from dataclasses import dataclass
from typing import Optional, Tuple

from engine import Shape

from ..record import Untrusted


@dataclass
class Keeping:
    set_aside: Optional[Tuple[str, Shape]] = None   # (id, board) of the game whose record was set aside (D6)
    held: Optional[Tuple[str, Untrusted]] = None    # a record left alone until the secret is shared (D6a)
    secret_shared: bool = False     # a message signed with our secret came from the opponent (D6a)
    hold_unsigned: bool = False     # no secret, a signed record: not written until the opponent shows none (D6a)
    lost_unsigned: bool = False     # set_aside is a lost record (D2b) judged from unsigned files, with a secret

    @property
    def writes(self) -> bool:
        """Whether the record may be written now (D6a: the board keeps what cannot be judged yet)."""
        return self.held is None and not self.hold_unsigned
