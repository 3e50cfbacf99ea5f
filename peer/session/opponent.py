"""The other side as this session knows it: who it is, which run of it the game is bound to, and
its signs of life.  One object owns this state; the rules that change it are the session's."""
import time
from dataclasses import dataclass, field
from typing import Dict, Optional, Set, Tuple

KINDS = ("human", "computer")       # what a greeting's ``kind`` may say (H2); anything else: not told


@dataclass
class Opponent:
    name: str                           # as it calls itself (a greeting, a record); its colour until then
    name_known: bool = False            # the name came from a record or a greeting (a change is told)
    kind: str = ""                      # "human", "computer", or "" (not told)
    joined: bool = False                # it has been seen on the board (for the faces)
    bound_run: Optional[str] = None     # its run this game is bound to (None: not yet, H8)
    greeted_runs: Set[str] = field(default_factory=set)     # its runs that sent a greeting (H9)
    classic_run: Optional[str] = None   # a classic program's run, to notice it restarting (H6)
    hello_to_classic: Set[str] = field(default_factory=set)     # classic runs greeted once (H6)
    foreign_shown: Dict[str, int] = field(default_factory=dict)     # run -> messages shown, not applied
    alive_runs: Set[str] = field(default_factory=set)       # its runs an alive record was seen naming (I6)
    no_alive_told: Set[str] = field(default_factory=set)    # its runs said to keep no alive record (I1a)
    classic_played: Optional[str] = None    # its run that Quiet showed had played the game on the board (H6b)
    move_lost: Optional[Tuple[str, float]] = None   # (its run, when): its bare move went to an earlier run of
                                                    # ours, dropped by Quiet (I2)
    alive_seen: Optional[Tuple[object, float]] = None   # (its alive record, monotonic time it last changed)
    gone: bool = False                  # no sign of life for a while (G5)
    left_at: Optional[float] = None     # when it said bye (G5), until it is back

    def take_kind(self, kind: str) -> None:
        """The ``kind`` of its greeting (H2): kept when it is one of ``KINDS``."""
        self.kind = kind if kind in KINDS else ""

    def left(self) -> None:
        """It said ``bye`` (G5)."""
        self.left_at = time.monotonic()
