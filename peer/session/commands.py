"""What a person types at the terminal: a move, hint, say, board, resign, quit, help."""
from engine import PASS, IllegalMove, notation, strategies

from ..players import EOF_LINE, normalise
from .leave import Leave


class Commands:
    """Mixed into ``Session``: a person's lines, read without ever blocking the game."""

    def _human_turn(self):
        if not self.prompted:
            self.say("your_turn", colour=self.screen.colour_name(self.colour))
            self.prompted = True
        line = self.player.lines.get(timeout=0.05)
        if line is None:
            return
        self._command(line, my_turn=True)

    def _check_input_only(self):
        if getattr(self.player, "kind", "") != "human":
            return
        line = self.player.lines.get()
        if line is not None:
            self._command(line, my_turn=False)

    def _command(self, line, my_turn):
        if line is EOF_LINE:
            self._leave()
        text = normalise(line)
        word, _, rest = text.partition(" ")
        cmd = word.lower()
        if not cmd:
            return
        if cmd in ("quit", "exit", "q", "bye", "終了"):
            self._leave()
        if cmd in ("help", "?", "h"):
            return self.say("help")
        if cmd == "say":
            if rest.strip() and self.game is not None:
                if self._control("say", text=rest.strip()):
                    self.say("sent_chat")
                else:
                    self.say("classic_not_told", other=self.other)
            return
        if self.game is None or self.mode is None:     # the handshake is not done yet
            return self.say("waiting_hello", other=self.other)
        pos = self.game.position
        if cmd == "board":
            return self._show()
        if cmd == "hint":
            if pos.turn != self.colour or pos.is_game_over():
                return self.say("not_your_turn", name=self.their_name)
            m = strategies.get("alphabeta").next_move(pos, 0.5)
            return self.say("hint", move=notation.square_name(m, self.size) if m != PASS else "pass")
        if cmd == "resign":
            if self._ended():
                return self.say("already_over")
            return self._resign()
        try:
            sq = notation.parse_square(cmd, self.size)
        except ValueError as e:
            if len(cmd) <= 3 and cmd[:1].isalpha() and cmd[1:].isdigit():
                return self.say("bad_move", move=cmd, reason=e, legal=self._legal_text())
            return self.say("unknown", cmd=text)
        if not my_turn or pos.turn != self.colour:
            return self.say("not_your_turn", name=self.their_name)
        if sq == PASS:
            return self.say("bad_move", move=cmd, reason=self.screen.t("illegal_pass"), legal=self._legal_text())
        try:
            pos.play(sq)
        except IllegalMove as e:
            return self.say("bad_move", move=cmd, reason=e, legal=self._legal_text())
        self._commit(sq, 0)

    def _legal_text(self):
        pos = self.game.position
        return " ".join(notation.square_name(m, self.size) for m in pos.legal_moves()) or "-"

    def _leave(self):
        """``bye`` (G5): we leave, the game stays unfinished and can be resumed (exit code 5 when
        the board is gone: nothing could be said or written)."""
        gone = self.board.problem == "gone"
        try:
            if not gone:
                self._control("bye", retry=False)
        finally:
            self.say("bye")
        raise Leave(5 if gone else 0)
