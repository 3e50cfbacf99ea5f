"""G1-G5: our move, their move (checked before it is applied), passes, the end of the game."""
import logging
import time

from comm.text import visible
from engine import BLACK, PASS, IllegalMove, notation

from .. import protocol
from ..protocol import NAME_LIMIT
from .leave import Leave

log = logging.getLogger("peer")


class Moves:
    """Mixed into ``Session``: the game itself, once the handshake is done."""

    # -- what the player sees ------------------------------------------------------------
    def _show(self):
        pos = self.game.position
        mine = pos.turn == self.colour
        self.screen.board(pos, last=self.last, flipped=self.flipped,
                          show_legal=mine and self.player.kind == "human",
                          status=self._status_line())
        self.prompted = False

    def _status_line(self):
        pos = self.game.position
        if pos.is_game_over():
            return ""
        s = self.screen
        if pos.turn == self.colour:
            return f"{s.t('turn_line', colour=s.colour_name(pos.turn))} ({visible(self.my_name, NAME_LIMIT)})"
        state = self._their_state()
        extra = f", {s.t(state)}" if state else ""
        return f"{s.t('turn_line', colour=s.colour_name(pos.turn))} ({visible(self.their_name, NAME_LIMIT)}{extra})"

    # -- plies -----------------------------------------------------------------------------
    def _apply(self, move, by_me):
        pos = self.game.position
        self.flipped = pos.flips(move) if move != PASS else 0
        self.game.play(move)
        self.last = move if move != PASS else self.last
        self._save()

    def _my_move(self):
        pos = self.game.position
        if pos.must_pass():
            self.say("you_pass")
            self._apply(PASS, True)
            if self.mode == "full":
                self.send(protocol.move("pass", len(self.game.moves)))
            self._show()
            return
        if self.player.kind == "human":
            return self._human_turn()
        t = time.monotonic()
        move, problem = self.player.choose(pos)
        if problem:
            self.say("engine_failed", reason=problem, move=notation.square_name(move, self.size))
        self._commit(move, (time.monotonic() - t) * 1000)

    def _commit(self, move, think_ms):
        """G1: apply our move, save the record, then send it."""
        self._apply(move, True)
        text = notation.square_name(move, self.size)
        if self.mode == "full":
            self.send(protocol.move(text, len(self.game.moves), think_ms))
        else:
            self.send(text)
        self.sent_at = time.monotonic()
        self.say("you_played", move=text)
        self._show()

    def _refuse(self, text, reason):
        self.say("refused_theirs", name=self.their_name, move=text, reason=reason)
        self.send(protocol.control("refused", move=text[:200], reason=reason))

    def _their_move(self, msg):
        """G2: a move is checked against our own board before it is applied."""
        if self.left_at:
            self.left_at = None
            self.say("back", name=self.their_name)
        pos = self.game.position
        text = msg.get("square")
        n = msg.fields.get("n")
        expected = len(self.game.moves) + 1
        if n is not None:
            if n < expected:
                log.info("duplicate move %s #%d ignored", text, n)
                return
            if n > expected:
                return self._refuse(msg.text, self.screen.t("missing", n=n, expected=expected))
        if pos.is_game_over() or pos.turn == self.colour:
            return self._refuse(msg.text, self.screen.t("out_of_turn"))
        try:
            sq = notation.parse_square(text, self.size)
            if sq == PASS and not pos.must_pass():
                raise IllegalMove(self.screen.t("illegal_pass"))
            pos.play(sq)
        except (ValueError, IllegalMove) as e:
            return self._refuse(msg.text, str(e))
        if self.stats and self.sent_at is not None:
            overhead = (time.monotonic() - self.sent_at) * 1000 - msg.get("t", 0)
            with open(self.stats, "a", encoding="ascii") as f:
                f.write(f"{overhead:.3f}\n")
        self._apply(sq, False)
        if sq == PASS:
            self.say("they_pass", name=self.their_name)
        else:
            self.say("played", name=self.their_name, move=text)
        self._show()

    def _their_classic_pass(self):
        """G3: a classic opponent does not send its pass; we apply it ourselves."""
        self.say("they_pass", name=self.their_name)
        self._apply(PASS, False)
        self._show()

    # -- the end ---------------------------------------------------------------------------
    def _resign(self):
        self.record.status, self.record.result = "resigned", f"{self.me} resigned"
        self._save()
        self.send(protocol.control("resign"))
        self.say("you_resigned")
        raise Leave(0)

    def _they_resigned(self):
        self.record.status, self.record.result = "resigned", f"{self.other} resigned"
        self._save()
        self.say("they_resigned", name=self.their_name)
        raise Leave(0)

    def _over(self):
        """G4: both sides see the end on their own boards and show the same count."""
        pos = self.game.position
        b, w = pos.discs()
        winner = pos.winner()
        s = self.screen
        if winner is None:
            verdict = s.t("draw")
        else:
            wname = self.record.black if winner == BLACK else self.record.white
            verdict = s.t("win", name=f"{wname} ({s.colour_name(winner)})")
        self.say("over", b=b, w=w, verdict=verdict)
        if self.mode == "full":
            self.board.send(self.other, protocol.control("result", black=b, white=w))
        if self.save_failed is None:
            self.say("record", path=self.records.path(self.gid))
