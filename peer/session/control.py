"""H2 H4 H7 H9: control lines to the opponent: our greeting, a refusal of the game (ours, and
theirs received), and messages comm refused for their MAC."""
import logging
from typing import Any, Dict, NoReturn, Tuple

import comm
from comm.text import visible

from .. import protocol
from ..protocol import NAME_LIMIT, Msg
from ..reasons import Reason
from .leave import Leave
from .recording import Keeper
from .roles import ROLES
from .runs import Runs
from .state import State
from .telling import Teller
from .trouble import Wire

Problem = Tuple[str, Dict[str, Any]]     # a refusal reason: its key in protocol.REASONS and fields

log = logging.getLogger("peer")


class Control:
    """Control lines (P4), only to an opponent that speaks them (H9)."""

    def __init__(self, st: State, tell: Teller, keeper: Keeper, wire: Wire, runs: Runs) -> None:
        self.st = st
        self.tell = tell
        self.keeper = keeper
        self.wire = wire
        self.runs = runs
        self.role = ROLES[st.colour]

    def _speaks_control(self) -> bool:
        if self.st.mode == "full":
            return True         # the handshake was a greeting
        if self.st.mode == "classic":
            return False        # no control line at all (H6)
        return self.runs.shown()

    def control(self, verb: str, *, retry: bool = True, **fields: object) -> bool:
        """Send a control line (P4) when the opponent speaks them (H9); True when it was sent.

        ``retry``: keep sending until delivered (``Wire.send``); else one try, failures
        only logged (a side that stops right after: ``refuse``, ``bye``).
        """
        if self.st.sending_stopped:
            return False        # replaced (I6): nothing more from this run
        if not self._speaks_control():
            log.info("%s not sent: %s has not shown that it speaks control lines (H9)", verb, self.st.other)
            return False
        body = protocol.control(verb, **fields)
        if retry:
            self.wire.send(body)
            return True
        try:
            return self.st.board.send(self.st.other, body)
        except (comm.InvalidArgument, OSError) as e:
            log.warning("could not send %s: %s", verb, e)
            return False

    def refuse_game(self, key: str, **kw: object) -> NoReturn:
        """``refuse`` the game (H4): tell the other side in English (if it speaks control lines,
        H9), show why here, exit code 3."""
        reason = Reason.own(key, **kw)
        self.control("refuse", retry=False, reason=reason.english)
        self.tell.say("cannot_play", reason=reason)
        self.keeper.close_refused(key, reason.english)
        raise Leave(3)

    def conflict(self) -> NoReturn:
        self.refuse_game("records_differ")

    def refused_by_them(self, msg: Msg) -> NoReturn:
        """The other side refused the game (H4): shown, the record closed (D1), exit code 3."""
        self.tell.say("cannot_play", reason=Reason.read(msg.get("reason")))
        self.keeper.close_refused(None, msg.get("reason"))
        raise Leave(3)

    def bad_greeting(self, msg: Msg, problem: Problem, strict: bool) -> None:
        """A greeting that cannot be used: in a handshake ``refuse`` (and stop), else ``refused``."""
        key, kw = problem
        if strict:
            self.refuse_game(key, **kw)
        reason = Reason.own(key, **kw)
        log.warning("greeting not applied: %s", reason.english)
        self.tell.say("refused_theirs", name=self.st.them.name, move=visible(msg.text, 120), reason=reason)
        self.control("refused", retry=False, move=msg.text[:200], reason=reason.english)

    def hello(self, verb: str = "hello") -> str:
        fields: dict[str, object] = {"v": protocol.VERSION, "role": self.st.me, "name": self.st.my_name,
                                     "kind": self.st.player.kind}
        fields.update(self.role.hello_fields(self.st))
        if "game" in fields:    # D7: each side's time used in that game, ours and as we count theirs
            fields.update(used=self.st.clocks.ms[self.st.colour], other_used=self.st.clocks.ms[1 - self.st.colour])
        return protocol.control(verb, **fields)

    def check_rejected(self) -> None:
        """Messages comm refused (a missing or wrong MAC): reported, never applied (H7)."""
        for r in self.st.board.take_rejected():
            who = visible(r.sender, NAME_LIMIT)
            log.warning("refused a message claiming to be from %s (run %s, #%s): %s",
                        who, visible(r.sender_run, 40), r.seq, visible(r.reason))
            if r.sender.lower() != self.st.other:
                continue
            if self.st.secret and self.st.them.bound_run is None and self.runs.greeting_run(r.sender_run):
                # The opponent itself (its current run) during the handshake: the secrets differ.
                # Once the game is bound, nobody can stop it this way: member records are not
                # signed, so "its current run" is only a claim (A6).
                if r.reason.startswith("no MAC"):
                    self.refuse_game("no_secret_there", other=self.st.other)
                if r.reason.startswith("wrong MAC"):
                    self.refuse_game("other_secret", other=self.st.other)
            self.tell.say("mac_refused", name=who, reason=r.reason)
