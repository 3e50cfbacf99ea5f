"""G1-G5: our move, their move (checked before it is applied), passes, the end of the game."""
import logging
import time
from typing import TYPE_CHECKING

from comm.text import visible
from engine import PASS, notation

from .. import protocol
from ..match import Termination
from ..players import External
from ..protocol import Msg, parse_used
from ..reasons import Reason
from .leave import Leave
from .state import State

if TYPE_CHECKING:
    from .core import Session

log = logging.getLogger("peer")


class Moves(State):
    """Mixed into ``Session``: the game itself, once the handshake is done."""

    # -- plies -----------------------------------------------------------------------------
    def _apply(self: "Session", move: int, by_me: bool, ms: int | None = None) -> None:
        """Play ``move`` on our board and save the record; ``ms``: the mover's thinking time in
        milliseconds (None: measured here, from when the turn began).  Our own time used is kept
        on the board too (D7)."""
        now = time.monotonic()
        self.match_now.play(move, self.clocks.thinking_ms(now) if ms is None else ms, now)
        self._save()
        if by_me or self.mode == "classic":     # (classic: with the opponent's run, H6b)
            self._save_clock()

    def _my_move(self: "Session") -> None:
        pos = self.game_now.position
        if pos.must_pass():
            self.say("you_pass")
            ms = self.clocks.thinking_ms(time.monotonic())     # sent, so that both sides count the same (D7)
            self._apply(PASS, True, ms)
            if self.mode == "full":
                self.send(protocol.move("pass", len(self.game_now.moves), ms))
            self._show()
            return
        if self.player.kind == "human":
            return self._human_turn()
        t = time.monotonic()
        move, problem = self.player.choose(pos)
        self._check_input_only(every=True)     # a quit typed while it thought: the move is not sent
        if problem:
            self.say("engine_failed" if isinstance(self.player, External) else "ai_failed", reason=problem,
                     move=notation.square_name(move, pos.size))
        self._commit(move, int((time.monotonic() - t) * 1000))

    def _commit(self: "Session", move: int, think_ms: int | None = None) -> None:
        """G1: apply our move, save the record, then send it, with ``think_ms`` (None: the time
        since our turn began), the figure both sides add to our time used (D7)."""
        if think_ms is None:
            think_ms = self.clocks.thinking_ms(time.monotonic())
        self._apply(move, True, think_ms)
        text = notation.square_name(move, self.game_now.size)
        if self.mode == "full":
            self.send(protocol.move(text, len(self.game_now.moves), think_ms))
        else:
            self.send(text)
        self.sent_at = time.monotonic()
        self.say("you_played", move=text)
        self._show()

    def _refuse(self: "Session", text: str, reason: Reason) -> None:
        """G2: ``text`` from the opponent is not applied: shown here, and ``refused`` (in English)
        to an opponent that speaks control lines (H9)."""
        self.say("refused_theirs", name=self.them.name, move=text, reason=reason)
        self._control("refused", move=text[:200], reason=reason.english)

    def _their_move(self: "Session", msg: Msg) -> None:
        """G2: a move is checked against our own board before it is applied."""
        if self.them.left_at:
            self.them.left_at = None
            self.say("back", name=self.them.name)
        text = msg.get("square")
        verdict = self.match_now.judge(text, 1 - self.colour, msg.fields.get("n"))
        if verdict.duplicate:
            log.info("duplicate move %r ignored", visible(msg.text, 40))
            return
        if verdict.square is None:
            return self._refuse(msg.text, verdict.reason or Reason.own("out_of_turn"))
        sq = verdict.square
        if self.stats and self.sent_at is not None:
            overhead = (time.monotonic() - self.sent_at) * 1000 - msg.get("t", 0)
            with open(self.stats, "a", encoding="ascii") as f:
                f.write(f"{overhead:.3f}\n")
        t = msg.fields.get("t")
        self._apply(sq, False, t if isinstance(t, int) else None)
        if sq == PASS:
            self.say("they_pass", name=self.them.name)
        else:
            self.say("played", name=self.them.name, move=text)
        self._show()

    def _their_classic_pass(self: "Session") -> None:
        """G3: a classic opponent does not send its pass; we apply it ourselves."""
        self.say("they_pass", name=self.them.name)
        self._apply(PASS, False)
        self._show()

    # -- the end (G4, G6) -------------------------------------------------------------------
    def _ended(self: "Session") -> bool:
        """Whether the game has ended (G4: ``Match.outcome``)."""
        return self.match_now.ended

    def _resign(self: "Session") -> None:
        """We resign; the time of our turn under way is ours (D7), sent with ``resign``."""
        now = time.monotonic()
        self.match_now.resign(self.colour, self.clocks.thinking_ms(now), now)
        self._save()
        self._save_clock()
        self.say("you_resigned")
        if self.mode != "full":
            self.say("classic_not_told", other=self.other)
        # _finish sends ``resign`` (and sends it again to a restarted opponent, G6)

    def _they_resigned(self: "Session", msg: Msg) -> None:
        """G4: the opponent resigns; its ``t``, the time of its turn under way, is added to its time
        used when it was to move (D7).  Said again after a restart (G6), or after the end: nothing."""
        if not self.match_now.resign(1 - self.colour, parse_used(msg.get("t")), time.monotonic()):
            return
        self._save()
        self.say("they_resigned", name=self.them.name)

    def _show_end(self: "Session") -> None:
        """G4: both sides see the end on their own boards and show the same count."""
        if self.end_shown:
            return
        self.end_shown = True
        outcome = self.match_now.outcome
        assert outcome is not None, "the game has not ended"
        b, w = outcome.discs
        names = (self.record_now.black, self.record_now.white)
        winner = outcome.winner     # (None: a draw)
        verdict = {"winner": winner, "winner_name": names[winner] if winner is not None else ""}
        if outcome.termination is Termination.RESIGNATION:
            if self.resumed_end:
                self.say("ended_resigned", id=self.gid, result=outcome.result)
            self.say("over_resigned", result=outcome.result, b=b, w=w, **verdict)
        else:
            self.say("over", b=b, w=w, **verdict)
        self._say_times()

    def _say_times(self: "Session") -> None:
        """The time each side has used in the game (D7: a restart's included)."""
        b, w = self.clocks.used
        self.say("time_used", b=b, w=w)

    def _send_end(self: "Session") -> None:
        """G4: our end of the game: ``resign`` if we resigned, then ``result`` (numbered form)."""
        match = self.match_now
        if match.resigned == self.colour:
            fields: dict[str, object] = {} if match.resign_ms is None else {"t": match.resign_ms}
            self._control("resign", retry=True, **fields)
        b, w = self.game_now.position.discs()
        self._control("result", black=b, white=w, game=self.gid)

    def _their_result(self: "Session", msg: Msg) -> None:
        """G6: the opponent's ``result`` acknowledges the end (after the end on our board only)."""
        if not self._ended() or msg.get("game", self.gid) != self.gid:
            log.info("ignored a result before the end, or for another game: %r", visible(msg.text, 80))
            return
        if self.acked:
            return
        self.acked = True
        try:
            self.records.acknowledge(self.record_now.id, self.me)
        except (OSError, ValueError) as e:
            log.warning("could not note the acknowledgement of game %s: %s", self.gid, e)

    def _finish(self: "Session") -> bool:
        """G4 G6: show the end, send ours, and wait (at most ``ack_wait`` s after our last sending)
        for the opponent's ``result``.

        True when this run is done with the game (acknowledged, or not in time: then the next
        start offers it again); False when a greeting replaced it by a new game (H5).
        """
        self._show_end()
        if self.mode != "full":
            self.acked = True       # a classic program sends no result: nothing to wait for
        sent_to = None
        sent_at = time.monotonic()
        told = False
        next_presence = 0.0
        while self.mode == "full" and not (self.acked and sent_to is not None):
            if not self._ended():
                return False        # a new game began (H5)
            if sent_to != self.them.bound_run:
                self._send_end()    # again to an opponent that restarted (G6)
                sent_to, sent_at = self.them.bound_run, time.monotonic()
                continue
            self._check_input_only()
            msg = self._next_message(0.2)
            if msg is not None:
                self._handle(msg)
            now = time.monotonic()
            if self.acked:
                continue
            if not told and now - sent_at > 2.0:
                told = True
                self.say("waiting_ack", name=self.them.name)
            if now - sent_at > self.ack_wait:
                self.say("no_ack", name=self.them.name, secs=int(self.ack_wait))
                break
            if now >= next_presence:
                next_presence = now + 1.0
                try:
                    self._check_presence()
                    self._check_left()
                except Leave as e:
                    if e.code != 4:
                        raise
                    break       # the opponent stayed away: the game has ended all the same (exit 0)
        if self.save_failed is None:
            self.say("record", path=self.records.path(self.record_now.id))
        return True
