"""What the player asks (``peer.commands``: a line typed, or a face's command): a move, hint, say,
board, resign, quit, help.  A computer side started at a terminal obeys the ones that are not moves."""
from typing import TYPE_CHECKING, NoReturn

from engine import Position, notation, strategies

from ..commands import BOARD, HELP, HINT, QUIT, UNDO, Answer, Command, Play, Resign, Say, Unknown, parse

from ..players import EndOfInput, Line
from ..protocol import SAY_LIMIT
from ..reasons import Reason
from ..view import Hint
from .leave import Leave
from .state import State
from .trouble import AWAY

if TYPE_CHECKING:
    from .core import Session

HINT_SECONDS = 1.0
HINT_MOVES = 3      # the best moves a hint shows, and every move worth as much as the last of them


class Commands(State):
    """Mixed into ``Session``: a person's lines, read without ever blocking the game."""

    resign_asked = False
    # (game, ply, hints): the last hint, for the faces; asked again in that position, it is repeated
    hints: tuple[str | None, int, tuple[Hint, ...]] = (None, -1, ())

    def _human_turn(self: "Session") -> None:
        if not self.prompted:
            self.say("your_turn", colour=self.colour)
            self.prompted = True
        lines = self.player.lines
        assert lines is not None, "a person's side reads what is typed"
        line = lines.get(timeout=0.05)
        if line is None:
            return
        self._command(line, my_turn=True)

    def _check_input_only(self: "Session", every: bool = False) -> None:
        """A line typed (``every``: all the lines typed so far), when it is not our turn or a
        computer chooses our move."""
        while (lines := self.player.lines) is not None:
            line = lines.get()
            if line is None:
                return
            self._command(line, my_turn=False)
            if not every:
                return

    def _command(self: "Session", line: Line, my_turn: bool) -> None:
        """What the player asked: a line typed (read into a command) or a face's command."""
        if isinstance(line, EndOfInput):
            if self.player.kind != "human":     # a computer side goes on playing without its terminal
                self.player.lines = None
                return
            self._leave()
        cmd = parse(line) if isinstance(line, str) else line
        if cmd is not None:
            self._do(cmd, my_turn)

    def _do(self: "Session", cmd: Command, my_turn: bool) -> None:
        human = self.player.kind == "human"
        asked, self.resign_asked = self.resign_asked, False
        if cmd == QUIT:
            self._leave()
        if cmd == HELP:
            return self.say("help" if human else "help_computer")
        if isinstance(cmd, Say):
            if not cmd.text:
                return self.say("say_what")
            if self.game is None or self.mode is None:     # (the handshake is not done yet)
                return self.say("not_started", other=self.other)
            if len(cmd.text) > SAY_LIMIT:      # (more than the other side would show)
                return self.say("say_too_long", n=len(cmd.text), limit=SAY_LIMIT)
            if self._control("say", text=cmd.text):
                return self.say("sent_chat")
            return self.say("classic_not_told", other=self.other)
        if isinstance(cmd, Unknown):
            if asked:               # (the question stands until it is answered)
                self.resign_asked = True
                return self.say("resign_answer", cmd=cmd.text)
            return self.say("unknown", cmd=cmd.text)
        if self.game is None or self.mode is None:     # the handshake is not done yet
            return self.say("not_started", other=self.other)
        pos = self.game_now.position
        if cmd == BOARD:
            return self._show()
        if not human:       # (hint, resign, an answer, undo, a move: the computer plays this side)
            return self.say("computer_plays")
        if cmd == UNDO:
            return self.say("no_undo")
        if cmd == HINT:
            if self._ended():
                return self.say("already_over")
            if pos.turn != self.colour:
                return self.say("not_your_turn", name=self.them.name)
            moves = self._hint(pos)
            return self.say("hint", moves=moves, size=self.size, exact=all(e for _, _, e in moves))
        if isinstance(cmd, Resign) or isinstance(cmd, Answer) and cmd.yes and asked:
            if self._ended():
                return self.say("already_over")
            if not asked and not (isinstance(cmd, Resign) and cmd.confirmed):
                self.resign_asked = True
                return self.say("resign_sure")
            return self._resign()
        if isinstance(cmd, Answer):
            if asked:
                return self.say("resign_cancelled")
            return self.say("nothing_to_answer", cmd=cmd.text)
        assert isinstance(cmd, Play)
        if self._ended():           # (a move while the end is being acknowledged, G6)
            return self.say("already_over")
        if not my_turn or pos.turn != self.colour:
            return self.say("not_your_turn", name=self.them.name)
        verdict = self.match_now.judge(cmd.square, self.colour)
        if verdict.square is None:
            return self.say("bad_move", move=cmd.square, reason=verdict.reason, legal=self._legal_text())
        self._commit(verdict.square)

    def _hint(self: "Session", pos: Position) -> tuple[Hint, ...]:
        """The best moves and the disc difference each leads to, and whether that is exact (solved
        to the end) or an estimate, best first.  The best
        ``HINT_MOVES`` and every other move of the same value as the last of them (a tie is never
        cut).  Asked again in the same position, the same hint (an estimate would vary a little)."""
        here = (self.gid, len(self.game_now.moves))
        if self.hints[:2] == here:
            return self.hints[2]
        end = pos.empties()
        values = [(round(v) + 0, m, d >= end) for v, m, d in strategies.analyse(pos, HINT_SECONDS)]
        values.sort(key=lambda t: -t[0])     # (rounded: two moves of one value in discs tie)
        shown = values[:HINT_MOVES]
        shown += [t for t in values[HINT_MOVES:] if t[0] == shown[-1][0]]
        best = tuple(Hint(m, v, exact) for v, m, exact in shown)       # (+ 0 above: never "-0")
        self.hints = (*here, best)
        return best

    def _legal_text(self: "Session") -> str:
        pos = self.game_now.position
        return " ".join(notation.square_name(m, pos.size) for m in pos.legal_moves()) or "-"

    def _leave(self: "Session") -> NoReturn:
        """``bye`` (G5): we leave, the game stays unfinished and can be resumed (exit code 5 when
        the board is gone: nothing could be said or written)."""
        gone = self.board.problem in AWAY
        ms = None
        if self.game is not None and self.mode is not None:
            ms = self._count_my_turn()
            self._say_times()
        try:
            if not gone:    # (with the time of our turn under way: both sides count it, D7)
                fields: dict[str, object] = {} if ms is None else {"t": ms}
                self._control("bye", retry=False, **fields)
        finally:
            self.say("bye")
        raise Leave(5 if gone else 0)
