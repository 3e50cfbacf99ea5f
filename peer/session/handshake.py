"""H1-H5: greetings checked and answered, the game they define started or resumed (H5), the
opponent's restarts; what black and white do differently is ``roles``."""
import logging
import time
from typing import Optional

from comm.text import visible
from engine import BLACK, Game, Shape

from .. import protocol
from ..protocol import NAME_LIMIT, Msg, game_id_problem
from ..record import ENDED, PLAYING, Record
from .classic import Classic
from .control import Control
from .presence import Presence
from .recording import Keeper, new_gid
from .roles import ROLES, Problem, shaped
from .runs import Runs
from .leave import Leave
from .state import MOVED, State
from .telling import Teller
from .trouble import Wire

log = logging.getLogger("peer")


class Handshake:
    """Section 13: the handshake, and the greetings that come during the game."""

    def __init__(self, st: State, tell: Teller, keeper: Keeper, wire: Wire, runs: Runs, control: Control,
                 classic: Classic, presence: Presence) -> None:
        self.st = st
        self.tell = tell
        self.keeper = keeper
        self.wire = wire
        self.runs = runs
        self.control = control
        self.classic = classic
        self.presence = presence
        self.role = ROLES[st.colour]

    def _new_game_asked(self) -> None:
        """Black: white's ``hello`` says ``new=1`` (H2): our game is closed, a new one proposed."""
        self.tell.say("new_game_asked", colour=1 - self.st.colour)
        self.keeper.abandon(self.st.record_now, self.st.other)
        self.keeper.start_game(new_gid(), self.keeper.wanted_board(self.st.shape_now))

    def check_greeting(self, msg: Msg) -> tuple[Problem | None, Game | None]:
        """Check a ``hello``/``welcome``: (problem, game).

        ``problem`` is None or ``(key, fields)`` of a refusal reason (texts.py);
        ``game`` is the greeting's transcript replayed (a ``Game``), or None when it
        carries none.  Nothing from the message is trusted before this.
        """
        problem = self._greeting_basics(msg)
        if problem:
            return problem, None
        has_game = "game" in msg.fields
        if self.role.needs_game_id(msg) and game_id_problem(msg.get("game")):
            return ("bad_game_id", {"id": visible(msg.get("game"), 80)}), None
        board = self.st.shape or Shape.square(self.st.size or 8)
        if self.role.reads_size(msg):
            theirs, problem = self._greeting_board(msg)
            if problem or theirs is None:
                return problem, None
            problem = self.role.board_problem(self.st, theirs, shaped(msg))
            if problem:
                return problem, None
            board = self.role.moves_board(self.st, theirs)
        if "moves" not in msg.fields or not has_game:
            return None, None
        try:
            return None, protocol.replay(msg.get("moves"), board)
        except ValueError as e:
            return ("bad_moves", {"moves": visible(msg.get("moves"), 60), "reason": visible(e, 200)}), None

    def _greeting_board(self, msg: Msg) -> tuple[Shape | None, Problem | None]:
        """The board a greeting names: its ``size`` (8 when it has none) and, in version 2, its
        ``shape``; or the problem with them."""
        size = msg.get("size") or "8"
        if protocol.parse_size(size) is None:
            return None, ("bad_size", {"size": visible(size, 20)})
        try:
            return protocol.parse_board(size, msg.get("shape") if shaped(msg) else None), None
        except ValueError as e:
            return None, ("bad_shape", {"reason": visible(e, 200)})

    def _greeting_basics(self, msg: Msg) -> Problem | None:
        """The checks of any greeting, even one for another game: the secret, the version."""
        if not self.st.secret and msg.signed:
            return "no_secret_here", {"other": self.st.other}
        v = msg.get("v")
        if v not in protocol.VERSIONS:
            return "bad_version", {"v": visible(v or "?", 20), "mine": " and ".join(protocol.VERSIONS)}
        return None

    def _say_resumed(self, resume: Record) -> None:
        """H5: what a restart resumes, and that the game (size, opponent) comes from the record."""
        if self.st.resumed_end:
            self.tell.say("offer_end", id=resume.id, result=resume.result, other=self.st.other)
        elif self.st.game_now.moves:       # (a game without plies is simply the one black proposed)
            self.tell.say("resume", id=resume.id, n=len(self.st.game_now.moves) + 1, size=resume.size,
                          shape=resume.board(), colour=1 - self.st.colour, name=self.st.them.name)
        if self.st.recorded_name is not None and self.st.my_name != self.st.recorded_name:
            self.tell.say("renamed_me", name=self.st.my_name, old=self.st.recorded_name)

    def _take_clock(self, msg: Msg) -> None:
        """D7: a greeting for the game we play carries the sender's time used in it (``used``) and
        ours as the sender counts it (``other_used``): each count is the larger of ours and the
        greeting's, so a clock file lost on one side is restored from the other (ours noted
        again); a value that is missing (a program that keeps no clock) or not a count changes
        nothing."""
        for key, colour in (("used", 1 - self.st.colour), ("other_used", self.st.colour)):
            used = protocol.parse_used(msg.get(key))
            if used is not None and used > self.st.clocks.ms[colour]:
                self.st.clocks.set(colour, used)
                if colour == self.st.colour:
                    self.keeper.save_clock()
            elif used is None and key in msg.fields:
                log.info("a greeting's %s=%r is not a time used: ignored", key, visible(msg.get(key), 20))

    def _take_name(self, msg: Msg) -> None:
        name = (msg.get("name") or self.st.other)[:NAME_LIMIT]
        if self.st.them.name_known and name != self.st.them.name:
            self.tell.say("renamed_them", colour=1 - self.st.colour, name=name,
                          old=self.st.them.name)
        self.st.them.name, self.st.them.name_known = name, True
        self.st.them.take_kind(msg.get("kind", ""))

    def handshake(self) -> None:
        """H1: greet the opponent once it has shown that it speaks control lines (H9), every 2 s
        until it answers; H6: black plays classic when white joined but shows nothing, or does
        not answer, within ``classic_after`` seconds.  An opponent that joins and leaves (its
        ``bye``, or its run ended) before the game starts is waited for ``patience`` (G5)."""
        resume = self.keeper.resumable()
        self._start(resume)
        if resume is not None and resume.mode == "classic" and self.st.game is not None \
                and self.classic.classic_again_at_once():
            return
        before = self.runs.member_run()
        gone_run: Optional[str] = None     # a run that came and went: not joined again
        joined_at = time.monotonic() if self.runs.member_joined() else None
        self.st.them.joined = joined_at is not None
        greeted_at = None           # when our first hello was delivered
        silent_told = False         # white: a black that joined and says nothing was told of
        next_hello = next_look = 0.0
        self.tell.say("waiting_hello" if joined_at else "waiting_join", other=self.st.other, board=self.st.board.folder)
        while True:
            self.wire.idle(False)
            msg = self.wire.next_message(0.2)
            now = time.monotonic()
            if msg is None:
                if now >= next_look:
                    next_look = now + 0.5
                    went = self.runs.came_and_went(before, joined_at is not None) if gone_run is None else None
                    if went is not None:
                        gone_run, joined_at, greeted_at = went, None, None
                        self.st.them.left()
                        self.tell.say("left", name=self.st.them.name)
                    if joined_at is None and self.runs.member_joined() and self.runs.member_run() != gone_run:
                        joined_at, self.st.them.joined = now, True
                        gone_run, self.st.them.left_at = None, None
                        self.tell.say("waiting_hello", other=self.st.other)
                    if joined_at is None and gone_run is None and resume is None \
                            and self.st.seating is not None and self.st.seating.alone():
                        raise Leave(MOVED)      # nobody came: to a table where the opponent waits
                    self.presence.check_left()
                    self.classic.check_move_lost()
                    if joined_at is not None and now >= next_hello and self.runs.shown():
                        if self.st.board.send(self.st.other, self.control.hello()) and greeted_at is None:
                            greeted_at = now
                        next_hello = now + 2.0
                since = greeted_at if greeted_at is not None else joined_at
                if not self.role.falls_back_to_classic and joined_at is not None and not silent_told \
                        and now - joined_at > self.st.classic_after and not self.runs.shown() and not self.st.them.move_lost:
                    silent_told = True      # (H6, I2: a classic black's first move may be lost)
                    self.tell.say("classic_silent", other=self.st.other, secs=int(self.st.classic_after))
                if self.role.falls_back_to_classic and since is not None and now - since > self.st.classic_after \
                        and self.runs.member_joined():
                    self.classic.classic_board_ok()
                    self.st.mode = "classic"
                    self.classic.bind_classic()
                    self.tell.say("classic", other=self.st.other)
                    self.classic.classic_resumed()
                    return
                continue
            if msg.kind == "junk":
                log.info("ignored junk from %s: %r", self.st.other, visible(msg.text, 80))
                continue
            if not self.runs.is_member_run(msg.run):
                self.runs.other_run(msg)        # not from the opponent that joined the board
                continue
            if msg.kind in ("hello", "welcome"):
                self.runs.note_greeting(msg)
            if msg.signed and not self.st.secret:
                self.control.refuse_game("no_secret_here", other=self.st.other)
            if msg.kind in ("hello", "welcome"):
                if self.greeting(msg, strict=True):
                    return
                continue
            if msg.kind == "refuse":
                self.control.refused_by_them(msg)
            if msg.kind == "move" and "n" not in msg.fields:
                self.classic.classic_move_first(msg)
                return
            if msg.kind == "say":
                self.tell.say("chat", name=self.st.them.name, text=msg.get("text"))
            if msg.kind == "bye" and gone_run is None:
                gone_run, joined_at, greeted_at = msg.run, None, None
                self.st.them.left()
                self.tell.say("left", name=self.st.them.name)

    def _black_greeting(self, msg: Msg, strict: bool) -> bool:
        """Black gets a ``hello`` or ``welcome``; True when it completed a handshake (and bound the run)."""
        if msg.kind == "welcome" and msg.get("game") != self.st.gid:
            problem = self._greeting_basics(msg)
            if problem:
                self.control.bad_greeting(msg, problem, strict)
            else:
                log.info("a welcome for game %r, not %s: ignored", visible(msg.get("game"), 80), self.st.gid)
            return False  # a welcome to an older hello
        problem, theirs = self.check_greeting(msg)
        if problem:
            self.control.bad_greeting(msg, problem, strict)
            return False
        self._take_name(msg)
        if msg.kind == "hello":
            if msg.get("new") == "1" and "game" not in msg.fields and self.st.game is not None \
                    and (self.st.game_now.moves or self.st.match_now.ended):
                self._new_game_asked()
            self.wire.send(self.control.hello())  # answer a (re)started white
            return False
        if theirs is not None and not self._transcript_ok(msg, theirs, strict):
            return False
        self.st.mode = "full"
        self.keeper.refresh_names()
        if theirs is not None:
            self.keeper.adopt(theirs)
        self._take_clock(msg)
        self._bind(msg.run)
        return True

    def _accept_black(self, msg: Msg, strict: bool) -> None:
        """White gets black's ``hello``: the game it defines is started or resumed (H5), then ``welcome``."""
        problem, theirs = self.check_greeting(msg)
        if problem:
            return self.control.bad_greeting(msg, problem, strict)
        board, _ = self._greeting_board(msg)
        gid = msg.get("game")
        if self.st.asked_new and gid == self.st.asked_new:
            # black has not seen our hello with new=1 yet (H2): not this game again
            log.info("a hello for game %s, which this side closed (--new): not answered", gid)
            return
        self._take_name(msg)
        assert board is not None     # (a bad size or shape: a problem of _greeting)
        if self.st.game is not None and gid == self.st.gid and not board.same_board(self.st.shape_now):
            self.control.conflict()
        if self.st.game is None or gid != self.st.gid:
            old = self.keeper.load(gid)
            if old is not None and not old.board().same_board(board):
                self.control.conflict()     # the same game id on another board
            if old is not None and old.status not in (PLAYING, *ENDED):
                closed = {"id": visible(gid, 80), "status": visible(old.status, 20)}
                return self.control.bad_greeting(msg, ("game_closed", closed), strict)
            if self.st.game is not None:
                self.keeper.abandon(self.st.record_now, self.st.other)  # H5: black started a new game instead
            self.st.asked_new = None
            self.keeper.start_game(gid, board, old.moves if old and old.status in (PLAYING, *ENDED) else "", old=old,
                                   unknown=old is None and self.st.them.bound_run is None)
        if theirs is not None and not self._transcript_ok(msg, theirs, strict):
            return
        self.st.mode = "full"
        self.keeper.refresh_names()
        if theirs is not None:
            self.keeper.adopt(theirs)
        self._take_clock(msg)
        self._bind(msg.run)
        self.wire.send(self.control.hello("welcome"))

    def _transcript_ok(self, msg: Msg, theirs: Game, strict: bool) -> bool:
        """H5: the other side's transcript may be taken (``Match.adoption``): one that is not a
        prefix of ours nor continues it is a conflict (``refuse``, stop); one that plays a ply of
        ours we did not make is refused as a greeting that fails a check (H4)."""
        reason = self.st.match_now.adoption(theirs).reason
        if reason is None:
            return True
        if reason.code == "records_differ":
            self.control.conflict()
        self.control.bad_greeting(msg, (reason.code, dict(reason.fields)), strict)
        return False

    def _bind(self, run: str) -> None:
        """H8: the game is bound to ``run``; a new run of the opponent on its turn has had its turn
        since now (its restart's own clock starts so too: both show the same thinking time)."""
        match = self.st.match
        if self.st.them.bound_run is not None and run != self.st.them.bound_run and match is not None \
                and match.to_move() == 1 - self.st.colour:
            match.clocks.start(time.monotonic())
        self.st.them.bound_run = run

    def restart(self, msg: Msg) -> None:
        """A ``hello`` from the opponent's new run: the handshake rules again, then the game is rebound."""
        self.runs.note_greeting(msg)
        log.info("%s restarted: run %s", self.st.other, visible(msg.run, 40))
        if self.st.them.left_at:
            self.st.them.left_at = None
            self.tell.say("back", name=self.st.them.name)
        self.greeting(msg, strict=True)   # black binds on the welcome that follows


    def _start(self, resume: Record | None) -> None:
        """Before the first greeting: the game of the record is resumed; black makes up a new one
        when there is none (white takes black's)."""
        if resume is not None:
            self.keeper.start_game(resume.id, resume.board(), resume.moves)
            self._say_resumed(resume)
        elif self.st.colour == BLACK:
            self.keeper.start_game(new_gid(), self.keeper.wanted_board())

    def greeting(self, msg: Msg, strict: bool) -> bool:
        """A ``hello`` or ``welcome`` (black takes both, white a ``hello``); True when it completed
        a handshake (and bound the run)."""
        if self.st.colour == BLACK:
            return self._black_greeting(msg, strict)
        if msg.kind != "hello":
            return False
        self._accept_black(msg, strict)
        return True

    def in_game(self, msg: Msg) -> None:
        """A greeting from the bound run during the game."""
        if self.st.colour == BLACK and (msg.kind == "hello" or msg.get("game") == self.st.gid):
            self._black_greeting(msg, strict=False)
        elif self.st.colour != BLACK and msg.kind == "hello":
            self._accept_black(msg, strict=False)
