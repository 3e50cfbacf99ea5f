"""G1-G6: our move, their move (judged by the match before it is applied), passes, the end and
its acknowledgement."""
import logging
import time

from comm.text import visible
from engine import PASS, notation

from .. import protocol
from ..match import Termination
from ..players import External
from ..protocol import Msg, parse_used
from ..reasons import Reason
from .control import Control
from .recording import Keeper
from .state import State
from .telling import Teller
from .trouble import Wire

log = logging.getLogger("peer")


class Moves:
    """The game itself, once the handshake is done."""

    def __init__(self, st: State, tell: Teller, keeper: Keeper, wire: Wire, control: Control) -> None:
        self.st = st
        self.tell = tell
        self.keeper = keeper
        self.wire = wire
        self.control = control

    def _apply(self, move: int, by_me: bool, ms: int | None = None) -> None:
        """Play ``move`` on our board and save the record; ``ms``: the mover's thinking time in
        milliseconds (None: measured here, from when the turn began).  Our own time used is kept
        on the board too (D7)."""
        now = time.monotonic()
        self.st.match_now.play(move, self.st.clocks.thinking_ms(now) if ms is None else ms, now)
        self.keeper.save()
        if by_me or self.st.mode == "classic":     # (classic: with the opponent's run, H6b)
            self.keeper.save_clock()

    def my_move(self) -> None:
        """Our ply when nothing need be typed for it: a pass, or a computer's move (a person's is
        a command, ``peer.session.commands``)."""
        pos = self.st.game_now.position
        if pos.must_pass():
            self.tell.say("you_pass")
            ms = self.st.clocks.thinking_ms(time.monotonic())     # sent, so that both sides count the same (D7)
            self._apply(PASS, True, ms)
            if self.st.mode == "full":
                self.wire.send(protocol.move("pass", len(self.st.game_now.moves), ms))
            self.tell.show()
            return
        t = time.monotonic()
        move, problem = self.st.player.choose(pos)
        self.wire.idle(True)     # a quit typed while it thought: the move is not sent
        if problem:
            self.tell.say("engine_failed" if isinstance(self.st.player, External) else "ai_failed", reason=problem,
                          move=notation.square_name(move, pos.size))
        self.commit(move, int((time.monotonic() - t) * 1000))

    def commit(self, move: int, think_ms: int | None = None) -> None:
        """G1: apply our move, save the record, then send it, with ``think_ms`` (None: the time
        since our turn began), the figure both sides add to our time used (D7)."""
        if think_ms is None:
            think_ms = self.st.clocks.thinking_ms(time.monotonic())
        self._apply(move, True, think_ms)
        text = notation.square_name(move, self.st.game_now.size)
        if self.st.mode == "full":
            self.wire.send(protocol.move(text, len(self.st.game_now.moves), think_ms))
        else:
            self.wire.send(text)
        self.st.sent_at = time.monotonic()
        self.tell.say("you_played", move=text)
        self.tell.show()

    def _refuse(self, text: str, reason: Reason) -> None:
        """G2: ``text`` from the opponent is not applied: shown here, and ``refused`` (in English)
        to an opponent that speaks control lines (H9)."""
        self.tell.say("refused_theirs", name=self.st.them.name, move=text, reason=reason)
        self.control.control("refused", move=text[:200], reason=reason.english)

    def their_move(self, msg: Msg) -> None:
        """G2: a move is checked against our own board before it is applied."""
        if self.st.them.left_at:
            self.st.them.left_at = None
            self.tell.say("back", name=self.st.them.name)
        text = msg.get("square")
        verdict = self.st.match_now.judge(text, 1 - self.st.colour, msg.fields.get("n"))
        if verdict.duplicate:
            log.info("duplicate move %r ignored", visible(msg.text, 40))
            return
        if verdict.square is None:
            return self._refuse(msg.text, verdict.reason or Reason.own("out_of_turn"))
        sq = verdict.square
        if self.st.stats and self.st.sent_at is not None:
            overhead = (time.monotonic() - self.st.sent_at) * 1000 - msg.get("t", 0)
            with open(self.st.stats, "a", encoding="ascii") as f:
                f.write(f"{overhead:.3f}\n")
        t = msg.fields.get("t")
        self._apply(sq, False, t if isinstance(t, int) else None)
        if sq == PASS:
            self.tell.say("they_pass", name=self.st.them.name)
        else:
            self.tell.say("played", name=self.st.them.name, move=text)
        self.tell.show()

    def their_classic_pass(self) -> None:
        """G3: a classic opponent does not send its pass; we apply it ourselves."""
        self.tell.say("they_pass", name=self.st.them.name)
        self._apply(PASS, False)
        self.tell.show()

    def ended(self) -> bool:
        """Whether the game has ended (G4: ``Match.outcome``)."""
        return self.st.match_now.ended

    def resign(self) -> None:
        """We resign; the time of our turn under way is ours (D7), sent with ``resign``."""
        now = time.monotonic()
        self.st.match_now.resign(self.st.colour, self.st.clocks.thinking_ms(now), now)
        self.keeper.save()
        self.keeper.save_clock()
        self.tell.say("you_resigned")
        if self.st.mode != "full":
            self.tell.say("classic_not_told", other=self.st.other)

    def they_resigned(self, msg: Msg) -> None:
        """G4: the opponent resigns; its ``t``, the time of its turn under way, is added to its time
        used when it was to move (D7).  Said again after a restart (G6), or after the end: nothing."""
        if not self.st.match_now.resign(1 - self.st.colour, parse_used(msg.get("t")), time.monotonic()):
            return
        self.keeper.save()
        self.tell.say("they_resigned", name=self.st.them.name)

    def show_end(self) -> None:
        """G4: both sides see the end on their own boards and show the same count."""
        if self.st.end_shown:
            return
        self.st.end_shown = True
        outcome = self.st.match_now.outcome
        assert outcome is not None, "the game has not ended"
        b, w = outcome.discs
        names = (self.st.record_now.black, self.st.record_now.white)
        winner = outcome.winner     # (None: a draw)
        verdict = {"winner": winner, "winner_name": names[winner] if winner is not None else ""}
        if outcome.termination is Termination.RESIGNATION:
            if self.st.resumed_end:
                self.tell.say("ended_resigned", id=self.st.gid, result=outcome.result)
            self.tell.say("over_resigned", result=outcome.result, b=b, w=w, **verdict)
        else:
            self.tell.say("over", b=b, w=w, **verdict)
        self.say_times()

    def say_times(self) -> None:
        """The time each side has used in the game (D7: a restart's included)."""
        b, w = self.st.clocks.used
        self.tell.say("time_used", b=b, w=w)

    def send_end(self) -> None:
        """G4: our end of the game: ``resign`` if we resigned, then ``result`` (numbered form)."""
        match = self.st.match_now
        if match.resigned == self.st.colour:
            fields: dict[str, object] = {} if match.resign_ms is None else {"t": match.resign_ms}
            self.control.control("resign", retry=True, **fields)
        b, w = self.st.game_now.position.discs()
        self.control.control("result", black=b, white=w, game=self.st.gid)

    def their_result(self, msg: Msg) -> None:
        """G6: the opponent's ``result`` acknowledges the end (after the end on our board only)."""
        if not self.ended() or msg.get("game", self.st.gid) != self.st.gid:
            log.info("ignored a result before the end, or for another game: %r", visible(msg.text, 80))
            return
        if self.st.acked:
            return
        self.st.acked = True
        try:
            self.st.records.acknowledge(self.st.record_now.id, self.st.me)
        except (OSError, ValueError) as e:
            log.warning("could not note the acknowledgement of game %s: %s", self.st.gid, e)
