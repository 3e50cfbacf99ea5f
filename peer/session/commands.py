"""What the player asks (``peer.commands``: a line typed, or a face's command): a move, hint, say,
board, resign, quit, help.  A computer side started at a terminal obeys the ones that are not moves."""
from typing import NoReturn

from engine import Position, notation, strategies

from ..commands import BOARD, HELP, HINT, MOVES, QUIT, UNDO, Answer, Command, Play, Resign, Say, Unknown, parse
from ..players import EndOfInput, Line
from ..protocol import SAY_LIMIT
from ..view import Hint
from .control import Control
from .leave import Leave
from .moves import Moves
from .problems import AWAY
from .recording import Keeper
from .state import State
from .telling import Teller

HINT_SECONDS = 1.0
HINT_MOVES = 3      # the best moves a hint shows, and every move worth as much as the last of them


class Commands:
    """A person's lines (and a face's commands), read without ever blocking the game."""

    def __init__(self, st: State, tell: Teller, keeper: Keeper, moves: Moves, control: Control) -> None:
        self.st = st
        self.tell = tell
        self.keeper = keeper
        self.moves = moves
        self.control = control
        self.resign_asked = False

    def human_turn(self) -> None:
        if not self.st.prompted:
            self.tell.say("your_turn", colour=self.st.colour)
            self.st.prompted = True
        lines = self.st.player.lines
        assert lines is not None, "a person's side reads what is typed"
        line = lines.get(timeout=0.05)
        if line is None:
            return
        self._command(line, my_turn=True)

    def check_input_only(self, every: bool = False) -> None:
        """A line typed (``every``: all the lines typed so far), when it is not our turn or a
        computer chooses our move."""
        while (lines := self.st.player.lines) is not None:
            line = lines.get()
            if line is None:
                return
            self._command(line, my_turn=False)
            if not every:
                return

    def _command(self, line: Line, my_turn: bool) -> None:
        """What the player asked: a line typed (read into a command) or a face's command."""
        if isinstance(line, EndOfInput):
            if self.st.player.kind != "human":     # a computer side goes on playing without its terminal
                self.st.player.lines = None
                return
            self.leave()
        cmd = parse(line) if isinstance(line, str) else line
        if cmd is not None:
            self._do(cmd, my_turn)

    def _do(self, cmd: Command, my_turn: bool) -> None:
        human = self.st.player.kind == "human"
        asked, self.resign_asked = self.resign_asked, False
        if cmd == QUIT:
            self.leave()
        if cmd == HELP:
            return self.tell.say("help" if human else "help_computer")
        if isinstance(cmd, Say):
            if not cmd.text:
                return self.tell.say("say_what")
            if self.st.game is None or self.st.mode is None:     # (the handshake is not done yet)
                return self.tell.say("not_started", other=self.st.other)
            if len(cmd.text) > SAY_LIMIT:      # (more than the other side would show)
                return self.tell.say("say_too_long", n=len(cmd.text), limit=SAY_LIMIT)
            if self.control.control("say", text=cmd.text):
                return self.tell.say("sent_chat")
            return self.tell.say("classic_not_told", other=self.st.other)
        if isinstance(cmd, Unknown):
            if asked:               # (the question stands until it is answered)
                self.resign_asked = True
                return self.tell.say("resign_answer", cmd=cmd.text)
            return self.tell.say("unknown", cmd=cmd.text)
        if self.st.game is None or self.st.mode is None:     # the handshake is not done yet
            return self.tell.say("not_started", other=self.st.other)
        pos = self.st.game_now.position
        if cmd == BOARD:
            return self.tell.show()
        if cmd == MOVES:    # (what a small terminal has no room for: the moves and the clocks)
            b, w = self.st.clocks.used
            return self.tell.say("moves_list", moves=tuple(self.st.game_now.moves), size=self.st.size, b=b, w=w)
        if not human:       # (hint, resign, an answer, undo, a move: the computer plays this side)
            return self.tell.say("computer_plays")
        if cmd == UNDO:
            return self.tell.say("no_undo")
        if cmd == HINT:
            if self.moves.ended():
                return self.tell.say("already_over")
            if pos.turn != self.st.colour:
                return self.tell.say("not_your_turn", name=self.st.them.name)
            moves = self._hint(pos)
            return self.tell.say("hint", moves=moves, size=self.st.size, exact=all(e for _, _, e in moves))
        if isinstance(cmd, Resign) or isinstance(cmd, Answer) and cmd.yes and asked:
            if self.moves.ended():
                return self.tell.say("already_over")
            if not asked and not (isinstance(cmd, Resign) and cmd.confirmed):
                self.resign_asked = True
                return self.tell.say("resign_sure")
            return self.moves.resign()
        if isinstance(cmd, Answer):
            if asked:
                return self.tell.say("resign_cancelled")
            return self.tell.say("nothing_to_answer", cmd=cmd.text)
        assert isinstance(cmd, Play)
        if self.moves.ended():           # (a move while the end is being acknowledged, G6)
            return self.tell.say("already_over")
        if not my_turn or pos.turn != self.st.colour:
            return self.tell.say("not_your_turn", name=self.st.them.name)
        verdict = self.st.match_now.judge(cmd.square, self.st.colour)
        if verdict.square is None:
            return self.tell.say("bad_move", move=cmd.square, reason=verdict.reason, legal=self._legal_text())
        self.moves.commit(verdict.square)

    def _hint(self, pos: Position) -> tuple[Hint, ...]:
        """The best moves and the disc difference each leads to, and whether that is exact (solved
        to the end) or an estimate, best first.  The best
        ``HINT_MOVES`` and every other move of the same value as the last of them (a tie is never
        cut).  Asked again in the same position, the same hint (an estimate would vary a little)."""
        here = (self.st.gid, len(self.st.game_now.moves))
        if self.st.hints[:2] == here:
            return self.st.hints[2]
        end = pos.empties()
        values = [(round(v) + 0, m, d >= end) for v, m, d in strategies.analyse(pos, HINT_SECONDS)]
        values.sort(key=lambda t: -t[0])     # (rounded: two moves of one value in discs tie)
        shown = values[:HINT_MOVES]
        shown += [t for t in values[HINT_MOVES:] if t[0] == shown[-1][0]]
        best = tuple(Hint(m, v, exact) for v, m, exact in shown)       # (+ 0 above: never "-0")
        self.st.hints = (*here, best)
        return best

    def _legal_text(self) -> str:
        pos = self.st.game_now.position
        return " ".join(notation.square_name(m, pos.size) for m in pos.legal_moves()) or "-"

    def leave(self) -> NoReturn:
        """``bye`` (G5): we leave, the game stays unfinished and can be resumed (exit code 5 when
        the board is gone: nothing could be said or written)."""
        gone = self.st.board.problem in AWAY
        ms = None
        if self.st.game is not None and self.st.mode is not None:
            ms = self.keeper.count_my_turn()
            self.moves.say_times()
        try:
            if not gone:    # (with the time of our turn under way: both sides count it, D7)
                fields: dict[str, object] = {} if ms is None else {"t": ms}
                self.control.control("bye", retry=False, **fields)
        finally:
            self.tell.say("bye")
        raise Leave(5 if gone else 0)
