"""H1-H5: greetings sent, checked and answered; refusals; resuming (H6 H9: ``classic``).

Black and white differ only here, in ``Black`` and ``White`` (``ROLES[colour]``):
black's ``hello`` defines the game, white answers it with ``welcome``.
"""
import logging
import time
from typing import TYPE_CHECKING, Any, Dict, NoReturn, Optional, Tuple

from comm.text import visible
from engine import BLACK, WHITE, Game, Shape

from .. import protocol
from ..protocol import NAME_LIMIT, Msg, game_id_problem
from ..record import ENDED, PLAYING, Record
from ..reasons import Reason
from .leave import Leave
from .recording import new_gid
from .state import State

if TYPE_CHECKING:
    from .core import Session

Problem = Tuple[str, Dict[str, Any]]     # a refusal reason: its key in protocol.REASONS and fields

log = logging.getLogger("peer")


class Black:
    """Black proposes the game (H2) and binds on white's ``welcome`` (H3)."""

    colour = BLACK
    takes_welcome = True        # a welcome is an answer to our hello
    falls_back_to_classic = True    # H6: our hello delivered, no welcome in time

    def hello_fields(self, s: "Session") -> dict[str, object]:
        fields: dict[str, object] = {"size": s.size, **board_fields(s.shape)}
        fields.update(game=s.gid, moves=s.game.transcript(passes=True) if s.game else "")
        return fields

    def start(self, s: "Session", resume: Record | None) -> None:
        """Before the first ``hello``: the game is resumed, or a new one made up."""
        board = resume.board() if resume else s.wanted_board()
        gid = resume.id if resume else new_gid()
        s._start_game(gid, board, resume.moves if resume else "")
        if resume:
            s._say_resumed(resume)

    def needs_game_id(self, msg: Msg) -> bool:
        return "game" in msg.fields or msg.kind == "welcome"

    def reads_size(self, msg: Msg) -> bool:
        return "size" in msg.fields or Handshake._shaped(msg)

    def board_problem(self, s: "Session", board: Shape, shaped: bool) -> Problem | None:
        """White's ``hello`` requires ``board`` (its size only, unless ``shaped``: it sent a shape)."""
        if board.size != s.size:
            return "size_wanted", {"theirs": board.size, "mine": s.size}
        if shaped and s.shape is not None and not board.same_board(s.shape):
            return "shape_wanted", {"theirs": protocol.named_board(board), "mine": s.shape}
        return None

    def moves_board(self, s: "Session", board: Shape) -> Shape:
        """The board the other side's transcript is replayed on: black's own."""
        return s.shape or board

    def greeting(self, s: "Session", msg: Msg, strict: bool) -> bool:
        """A ``hello`` or ``welcome``; True when it completed a handshake (and bound the run)."""
        return s._black_greeting(msg, strict)

    def in_game(self, s: "Session", msg: Msg) -> None:
        """A greeting from the bound run during the game."""
        if msg.kind == "hello" or msg.get("game") == s.gid:
            s._black_greeting(msg, strict=False)


class White:
    """White takes black's game (H2) and answers with ``welcome`` (H3)."""

    colour = WHITE
    takes_welcome = False
    falls_back_to_classic = False

    def hello_fields(self, s: "Session") -> dict[str, object]:
        fields: dict[str, object] = {}
        if s.want_size:
            fields["size"] = s.want_size
        if s.want_shape is not None:
            fields.update(board_fields(s.want_shape))
        if s.game:
            fields.update(game=s.gid, moves=s.game.transcript(passes=True))
        elif s.asked_new:
            fields["new"] = 1       # H2: do not resume; black closes its unfinished game
        return fields

    def start(self, s: "Session", resume: Record | None) -> None:
        if resume:
            s._start_game(resume.id, resume.board(), resume.moves)
            s._say_resumed(resume)

    def needs_game_id(self, msg: Msg) -> bool:
        return True

    def reads_size(self, msg: Msg) -> bool:
        return True

    def board_problem(self, s: "Session", board: Shape, shaped: bool) -> Problem | None:
        """Black's ``hello`` proposes ``board``; white refuses another size or shape than it requires."""
        if s.want_size and board.size != s.want_size:
            return "size_proposed", {"theirs": board.size, "mine": s.want_size}
        if s.want_shape is not None and not board.same_board(s.want_shape):
            return "shape_proposed", {"theirs": protocol.named_board(board), "mine": s.want_shape}
        return None

    def moves_board(self, s: "Session", board: Shape) -> Shape:
        """The board the other side's transcript is replayed on: the one black proposes."""
        return board

    def greeting(self, s: "Session", msg: Msg, strict: bool) -> bool:
        if msg.kind != "hello":
            return False
        s._accept_black(msg, strict)
        return True

    def in_game(self, s: "Session", msg: Msg) -> None:
        if msg.kind == "hello":
            s._accept_black(msg, strict=False)


ROLES = (Black(), White())


def board_fields(board: Shape | None) -> dict[str, object]:
    """What a greeting says of a board that is not plain (H2): ``shape`` beside ``size``, and so
    ``v=2``; nothing for a plain one."""
    if board is None or board.is_plain():
        return {}
    return {"v": protocol.SHAPES_VERSION, "size": board.size, "shape": board.code()}


class Handshake(State):
    """Mixed into ``Session``: section 13."""

    # -- refusals (H4) ---------------------------------------------------------------------
    def _refuse_game(self: "Session", key: str, **kw: object) -> NoReturn:
        """``refuse`` the game (H4): tell the other side in English (if it speaks control lines,
        H9), show why here, exit code 3."""
        reason = Reason.own(key, **kw)
        self._control("refuse", retry=False, reason=reason.english)
        self.say("cannot_play", reason=reason)
        self._close_refused(key, reason.english)
        raise Leave(3)

    def _conflict(self: "Session") -> NoReturn:
        self._refuse_game("records_differ")

    def _refused_by_them(self: "Session", msg: Msg) -> NoReturn:
        """The other side refused the game (H4): shown, the record closed (D1), exit code 3."""
        self.say("cannot_play", reason=Reason.read(msg.get("reason")))
        self._close_refused(None, msg.get("reason"))
        raise Leave(3)

    def _new_game_asked(self: "Session") -> None:
        """Black: white's ``hello`` says ``new=1`` (H2): our game is closed, a new one proposed."""
        self.say("new_game_asked", colour=1 - self.colour)
        self._abandon(self.record_now, self.other)
        self._start_game(new_gid(), self.wanted_board(self.shape_now))

    def _bad_greeting(self: "Session", msg: Msg, problem: Problem, strict: bool) -> None:
        """A greeting that cannot be used: in a handshake ``refuse`` (and stop), else ``refused``."""
        key, kw = problem
        if strict:
            self._refuse_game(key, **kw)
        reason = Reason.own(key, **kw)
        log.warning("greeting not applied: %s", reason.english)
        self.say("refused_theirs", name=self.them.name, move=visible(msg.text, 120), reason=reason)
        self._control("refused", retry=False, move=msg.text[:200], reason=reason.english)

    # -- greetings (H2) --------------------------------------------------------------------
    def _hello(self: "Session", verb: str = "hello") -> str:
        fields: dict[str, object] = {"v": protocol.VERSION, "role": self.me, "name": self.my_name,
                                     "kind": self.player.kind}
        fields.update(self.role.hello_fields(self))
        if "game" in fields:    # D7: each side's time used in that game, ours and as we count theirs
            fields.update(used=self.clocks.ms[self.colour], other_used=self.clocks.ms[1 - self.colour])
        return protocol.control(verb, **fields)

    def _greeting(self: "Session", msg: Msg) -> tuple[Problem | None, Game | None]:
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
        board = self.shape or Shape.square(self.size or 8)
        if self.role.reads_size(msg):
            theirs, problem = self._greeting_board(msg)
            if problem or theirs is None:
                return problem, None
            problem = self.role.board_problem(self, theirs, self._shaped(msg))
            if problem:
                return problem, None
            board = self.role.moves_board(self, theirs)
        if "moves" not in msg.fields or not has_game:
            return None, None
        try:
            return None, protocol.replay(msg.get("moves"), board)
        except ValueError as e:
            return ("bad_moves", {"moves": visible(msg.get("moves"), 60), "reason": visible(e, 200)}), None

    @staticmethod
    def _shaped(msg: Msg) -> bool:
        """Whether a greeting speaks of a shape: ``shape`` is read in a version-2 greeting only."""
        return msg.get("v") == str(protocol.SHAPES_VERSION) and "shape" in msg.fields

    def _greeting_board(self: "Session", msg: Msg) -> tuple[Shape | None, Problem | None]:
        """The board a greeting names: its ``size`` (8 when it has none) and, in version 2, its
        ``shape``; or the problem with them."""
        size = msg.get("size") or "8"
        if protocol.parse_size(size) is None:
            return None, ("bad_size", {"size": visible(size, 20)})
        try:
            return protocol.parse_board(size, msg.get("shape") if self._shaped(msg) else None), None
        except ValueError as e:
            return None, ("bad_shape", {"reason": visible(e, 200)})

    def _greeting_basics(self: "Session", msg: Msg) -> Problem | None:
        """The checks of any greeting, even one for another game: the secret, the version."""
        if not self.secret and msg.signed:
            return "no_secret_here", {"other": self.other}
        v = msg.get("v")
        if v not in protocol.VERSIONS:
            return "bad_version", {"v": visible(v or "?", 20), "mine": " and ".join(protocol.VERSIONS)}
        return None

    def _say_resumed(self: "Session", resume: Record) -> None:
        """H5: what a restart resumes, and that the game (size, opponent) comes from the record."""
        if self.resumed_end:
            self.say("offer_end", id=resume.id, result=resume.result, other=self.other)
        elif self.game_now.moves:       # (a game without plies is simply the one black proposed)
            self.say("resume", id=resume.id, n=len(self.game_now.moves) + 1, size=resume.size,
                     shape=resume.board(), colour=1 - self.colour, name=self.them.name)
        if self.recorded_name is not None and self.my_name != self.recorded_name:
            self.say("renamed_me", name=self.my_name, old=self.recorded_name)

    def _take_clock(self: "Session", msg: Msg) -> None:
        """D7: a greeting for the game we play carries the sender's time used in it (``used``) and
        ours as the sender counts it (``other_used``): each count is the larger of ours and the
        greeting's, so a clock file lost on one side is restored from the other (ours noted
        again); a value that is missing (a program that keeps no clock) or not a count changes
        nothing."""
        for key, colour in (("used", 1 - self.colour), ("other_used", self.colour)):
            used = protocol.parse_used(msg.get(key))
            if used is not None and used > self.clocks.ms[colour]:
                self.clocks.set(colour, used)
                if colour == self.colour:
                    self._save_clock()
            elif used is None and key in msg.fields:
                log.info("a greeting's %s=%r is not a time used: ignored", key, visible(msg.get(key), 20))

    def _take_name(self: "Session", msg: Msg) -> None:
        name = (msg.get("name") or self.other)[:NAME_LIMIT]
        if self.them.name_known and name != self.them.name:
            self.say("renamed_them", colour=1 - self.colour, name=name,
                     old=self.them.name)
        self.them.name, self.them.name_known = name, True
        self.them.take_kind(msg.get("kind", ""))

    # -- the handshake (H1) ---------------------------------------------------------------
    def _member_joined(self: "Session") -> bool:
        """The opponent has joined and has not left (a run that ended is not waited for, H6)."""
        try:
            run = self.board.member_run(self.other)
            return run is not None and not self._run_ended(run)
        except OSError:
            return False

    def _member_run(self: "Session") -> Optional[str]:
        try:
            return self.board.member_run(self.other)
        except OSError:
            return None

    def _run_ended(self: "Session", run: str) -> bool:
        """Whether the opponent's current ``run`` is known to have ended (I6).  A run whose process
        runs here but that no ``alive`` record was seen naming either closed at once or is a
        program that keeps none and wrongly names this computer in its member record (I1a): the
        second is said once (what is wrong with its record), and both are taken as ended."""
        alive = self.board.alive(self.other) or {}
        if alive.get("run") == run:
            self.them.alive_runs.add(run)
        how = self.board.left_how(self.other)
        if how == "closed" and run not in self.them.alive_runs and run not in self.them.no_alive_told:
            self.them.no_alive_told.add(run)
            self.say("no_alive_record", colour=1 - self.colour)
        return bool(how)

    def _came_and_went(self: "Session", before: Optional[str], seen: bool) -> Optional[str]:
        """The run of the opponent that joined and has left since the handshake began (one that
        joined after it began, or that it saw joined), or None.  A run that was on the board before
        and had ended (an earlier game's) is not one: an opponent not yet come is waited for."""
        run = self._member_run()
        if run is None or not (seen or run != before):
            return None
        try:
            return run if self._run_ended(run) else None
        except OSError:
            return None

    def _handshake(self: "Session") -> None:
        """H1: greet the opponent once it has shown that it speaks control lines (H9), every 2 s
        until it answers; H6: black plays classic when white joined but shows nothing, or does
        not answer, within ``classic_after`` seconds.  An opponent that joins and leaves (its
        ``bye``, or its run ended) before the game starts is waited for ``patience`` (G5)."""
        resume = self._resumable()
        self.role.start(self, resume)
        if resume is not None and resume.mode == "classic" and self.game is not None and self._classic_again_at_once():
            return
        before = self._member_run()
        gone_run: Optional[str] = None     # a run that came and went: not joined again
        joined_at = time.monotonic() if self._member_joined() else None
        self.them.joined = joined_at is not None
        greeted_at = None           # when our first hello was delivered
        silent_told = False         # white: a black that joined and says nothing was told of
        next_hello = next_look = 0.0
        self.say("waiting_hello" if joined_at else "waiting_join", other=self.other, board=self.board.folder)
        while True:
            self._check_input_only()
            msg = self._next_message(0.2)
            now = time.monotonic()
            if msg is None:
                if now >= next_look:
                    next_look = now + 0.5
                    went = self._came_and_went(before, joined_at is not None) if gone_run is None else None
                    if went is not None:
                        gone_run, joined_at, greeted_at = went, None, None
                        self.them.left()
                        self.say("left", name=self.them.name)
                    if joined_at is None and self._member_joined() and self._member_run() != gone_run:
                        joined_at, self.them.joined = now, True
                        gone_run, self.them.left_at = None, None
                        self.say("waiting_hello", other=self.other)
                    self._check_left()
                    self._check_move_lost()
                    if joined_at is not None and now >= next_hello and self._shown():
                        if self.board.send(self.other, self._hello()) and greeted_at is None:
                            greeted_at = now
                        next_hello = now + 2.0
                since = greeted_at if greeted_at is not None else joined_at
                if not self.role.falls_back_to_classic and joined_at is not None and not silent_told \
                        and now - joined_at > self.classic_after and not self._shown() and not self.them.move_lost:
                    silent_told = True      # (H6, I2: a classic black's first move may be lost)
                    self.say("classic_silent", other=self.other, secs=int(self.classic_after))
                if self.role.falls_back_to_classic and since is not None and now - since > self.classic_after \
                        and self._member_joined():
                    self._classic_board_ok()
                    self.mode = "classic"
                    self._bind_classic()
                    self.say("classic", other=self.other)
                    self._classic_resumed()
                    return
                continue
            if msg.kind == "junk":
                log.info("ignored junk from %s: %r", self.other, visible(msg.text, 80))
                continue
            if not self._is_member_run(msg.run):
                self._other_run(msg)        # not from the opponent that joined the board
                continue
            if msg.kind in ("hello", "welcome"):
                self._note_greeting(msg)
            if msg.signed and not self.secret:
                self._refuse_game("no_secret_here", other=self.other)
            if msg.kind in ("hello", "welcome"):
                if self.role.greeting(self, msg, strict=True):
                    return
                continue
            if msg.kind == "refuse":
                self._refused_by_them(msg)
            if msg.kind == "move" and "n" not in msg.fields:
                self._classic_move_first(msg)
                return
            if msg.kind == "say":
                self.say("chat", name=self.them.name, text=msg.get("text"))
            if msg.kind == "bye" and gone_run is None:
                gone_run, joined_at, greeted_at = msg.run, None, None
                self.them.left()
                self.say("left", name=self.them.name)

    def _black_greeting(self: "Session", msg: Msg, strict: bool) -> bool:
        """Black gets a ``hello`` or ``welcome``; True when it completed a handshake (and bound the run)."""
        if msg.kind == "welcome" and msg.get("game") != self.gid:
            problem = self._greeting_basics(msg)
            if problem:
                self._bad_greeting(msg, problem, strict)
            else:
                log.info("a welcome for game %r, not %s: ignored", visible(msg.get("game"), 80), self.gid)
            return False  # a welcome to an older hello
        problem, theirs = self._greeting(msg)
        if problem:
            self._bad_greeting(msg, problem, strict)
            return False
        self._take_name(msg)
        if msg.kind == "hello":
            if msg.get("new") == "1" and "game" not in msg.fields and self.game is not None \
                    and (self.game_now.moves or self._ended()):
                self._new_game_asked()
            self.send(self._hello())  # answer a (re)started white
            return False
        if theirs is not None and not self._transcript_ok(msg, theirs, strict):
            return False
        self.mode = "full"
        self._refresh_names()
        if theirs is not None:
            self._adopt(theirs)
        self._take_clock(msg)
        self._bind(msg.run)
        return True

    def _accept_black(self: "Session", msg: Msg, strict: bool) -> None:
        """White gets black's ``hello``: the game it defines is started or resumed (H5), then ``welcome``."""
        problem, theirs = self._greeting(msg)
        if problem:
            return self._bad_greeting(msg, problem, strict)
        board, _ = self._greeting_board(msg)
        gid = msg.get("game")
        if self.asked_new and gid == self.asked_new:
            # black has not seen our hello with new=1 yet (H2): not this game again
            log.info("a hello for game %s, which this side closed (--new): not answered", gid)
            return
        self._take_name(msg)
        assert board is not None     # (a bad size or shape: a problem of _greeting)
        if self.game is not None and gid == self.gid and not board.same_board(self.shape_now):
            self._conflict()
        if self.game is None or gid != self.gid:
            old = self._load(gid)
            if old is not None and not old.board().same_board(board):
                self._conflict()     # the same game id on another board
            if old is not None and old.status not in (PLAYING, *ENDED):
                return self._bad_greeting(msg, ("game_closed", {"id": visible(gid, 80), "status": visible(old.status, 20)}),
                                          strict)
            if self.game is not None:
                self._abandon(self.record_now, self.other)  # H5: black started a new game instead
            self.asked_new = None
            self._start_game(gid, board, old.moves if old and old.status in (PLAYING, *ENDED) else "", old=old,
                             unknown=old is None and self.them.bound_run is None)
        if theirs is not None and not self._transcript_ok(msg, theirs, strict):
            return
        self.mode = "full"
        self._refresh_names()
        if theirs is not None:
            self._adopt(theirs)
        self._take_clock(msg)
        self._bind(msg.run)
        self.send(self._hello("welcome"))

    def _transcript_ok(self: "Session", msg: Msg, theirs: Game, strict: bool) -> bool:
        """H5: the other side's transcript may be taken (``Match.adoption``): one that is not a
        prefix of ours nor continues it is a conflict (``refuse``, stop); one that plays a ply of
        ours we did not make is refused as a greeting that fails a check (H4)."""
        reason = self.match_now.adoption(theirs).reason
        if reason is None:
            return True
        if reason.code == "records_differ":
            self._conflict()
        self._bad_greeting(msg, (reason.code, dict(reason.fields)), strict)
        return False

    def _bind(self: "Session", run: str) -> None:
        """H8: the game is bound to ``run``; a new run of the opponent on its turn has had its turn
        since now (its restart's own clock starts so too: both show the same thinking time)."""
        match = self.match
        if self.them.bound_run is not None and run != self.them.bound_run and match is not None \
                and match.to_move() == 1 - self.colour:
            match.clocks.start(time.monotonic())
        self.them.bound_run = run

    def _restart(self: "Session", msg: Msg) -> None:
        """A ``hello`` from the opponent's new run: the handshake rules again, then the game is rebound."""
        self._note_greeting(msg)
        log.info("%s restarted: run %s", self.other, visible(msg.run, 40))
        if self.them.left_at:
            self.them.left_at = None
            self.say("back", name=self.them.name)
        self.role.greeting(self, msg, strict=True)   # black binds on the welcome that follows
