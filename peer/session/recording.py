"""D1-D2: the game record kept in step with the game; the unfinished game a restart resumes."""
import logging
import time
import uuid

from comm import fsops
from comm.text import visible
from engine import BLACK, PASS, Game, Shape, notation

from ..match import Match, resigner
from ..protocol import NAME_LIMIT, replay, shape_code
from ..record import ABANDONED, ENDED, PLAYING, REFUSED, RESIGNED, Damaged, Record, Unusable, Untrusted
from .leave import Leave
from .problems import UNWRITABLE
from .state import State
from .telling import Teller

log = logging.getLogger("peer")


# Refusals about the programs, not the game (H4's version, H7's secret): a game with plies that
# was refused for one of these is resumed once the cause is fixed (D1).
PROGRAM_REASONS = frozenset({"bad_version", "no_secret_here", "no_secret_there", "other_secret", "classic_board"})


def new_gid() -> str:
    """A new game id (H2): the date and time, then 6 random hex digits."""
    return time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


class Keeper:
    """The record on the board (``State.record``) mirrors the game (``State.match``)."""

    def __init__(self, st: State, tell: Teller) -> None:
        self.st = st
        self.tell = tell

    def save(self) -> None:
        if not self.st.keeping.writes:
            log.info("record of game %s not written: whether the opponent has the secret is not known yet",
                     self.st.gid)
            return
        r = self.st.record_now
        r.moves = self.st.game_now.transcript(passes=True)
        r.mode = self.st.mode or "full"
        outcome = self.st.match_now.outcome
        if outcome is not None and r.status in (PLAYING, *ENDED):
            r.status, r.result = outcome.status, outcome.result
        try:
            self.st.records.save(r)
            self.st.save_failed = None
        except (OSError, ValueError) as e:
            log.warning("could not save the game record: %s", e)
            if self.st.save_failed is None:
                kind = fsops.trouble(e) if isinstance(e, OSError) else None
                if kind in UNWRITABLE and UNWRITABLE[kind]:     # words, not an errno and a scratch name
                    self.tell.say("record_failed_cause", cause=UNWRITABLE[kind], board=self.st.board.folder)
                else:
                    self.tell.say("record_failed", reason=(e.strerror or str(e)) if isinstance(e, OSError) else e)
            self.st.save_failed = str(e)

    def save_clock(self) -> None:
        """D7: our time used in this game, noted on the board at the end of each of our turns (a
        restart continues from it); a failure is logged, never stops the game (the record's
        save has told the person of a board that cannot be written)."""
        self._budget()
        if self.st.keeping.held is not None or self.st.gid is None:
            return
        try:
            self.st.records.save_clock(self.st.gid, self.st.me, self.st.clocks.ms[self.st.colour],
                                       self.st.them.classic_run if self.st.mode == "classic" else None,
                                       kind=self.st.player.kind)
        except (OSError, ValueError) as e:
            log.warning("could not note the time used in game %s: %s", self.st.gid, e)

    def count_my_turn(self) -> int | None:
        """Leaving on our turn: the time this turn has taken is ours too (D7), noted on the board
        before the times are said (a restart continues from it); the milliseconds counted (None:
        not our turn)."""
        match = self.st.match
        if match is None or self.st.gid is None or not match.my_turn():
            return None
        now = time.monotonic()
        ms = match.clocks.thinking_ms(now)
        match.leave(self.st.colour, ms, now)
        self.save_clock()
        return ms

    def _budget(self) -> None:
        """A budget for the whole game (``--game-time``) is what is left of it after the time this
        side has used in the game, a restart's included (D7)."""
        if self.st.player.clock is not None:
            self.st.player.clock.used(self.st.clocks.used[self.st.colour])

    def load(self, gid: str) -> Record | None:
        """The record of ``gid`` on this board, or None.  A record that cannot be trusted (D4) or
        that contradicts its own moves (D1, D5) is reported, set aside and not used (D6)."""
        try:
            return self.st.records.load(gid)
        except Untrusted as e:
            if self.st.keeping.secret_shared:
                self._set_record_aside(gid, e)
            else:       # D6a: our own secret may be the wrong one; the opponent's first message tells
                log.warning("record of game %s not signed with this side's secret (%s): left alone until "
                            "the opponent shows it has the same secret", gid, e)
                self.st.keeping.held = (gid, e)
                self.st.keeping.set_aside = (gid, self._claimed_board(e))
        except Damaged as e:
            self._set_record_aside(gid, e)
        except (OSError, ValueError) as e:      # a bad id; a record that cannot be read
            log.warning("record of game %s not used: %s", gid, e)
            self.tell.say("bad_record", reason=e)
        return None

    def _claimed_board(self, why: Unusable) -> Shape:
        """The board the game of a record not used goes on at (D6): the one a damaged record
        claimed, else ours; never one read from a record that failed its signature (D4: a forger
        would choose the board)."""
        if isinstance(why, Untrusted):
            return self.wanted_board()
        return why.board or self.wanted_board()

    def _set_record_aside(self, gid: str, why: Unusable) -> None:
        """D6: a record that is not used is moved out of the way (never deleted) and the player told
        why, where it went, and how the game goes on."""
        judged = why.text
        if judged is not None and not self.st.records.unchanged(gid, judged):
            # rewritten since it was judged (the other side set it aside and wrote its own): judged again
            try:
                self.st.records.load(gid)
                log.info("record of game %s was replaced since it was judged: it is sound now", gid)
                return
            except (Untrusted, Damaged) as e:
                why = e
            except (OSError, ValueError) as e:
                log.info("record of game %s changed since it was judged and cannot be read: %s", gid, e)
                return
        where = self.st.records.set_aside(gid)
        log.warning("record of game %s set aside (%s): %s", gid, where or "not moved", why)
        self.st.keeping.set_aside = (gid, self._claimed_board(why))
        if where:
            self.tell.say("record_untrusted" if isinstance(why, Untrusted) else "record_damaged", id=gid,
                          reason=why, where=where)

    def secret_shared(self) -> None:
        """D6a: a message signed with this side's secret came from the opponent, so both have it:
        a record that is not signed with it is set aside now, and the record written."""
        if self.st.keeping.secret_shared:
            return
        self.st.keeping.secret_shared = True
        held, self.st.keeping.held = self.st.keeping.held, None
        if held is not None:
            self._set_record_aside(*held)
            if self.st.game is not None and not self.st.game.moves:
                self.tell.say("recover", id=held[0], colour=1 - self.st.colour)
            if self.st.record is not None:
                self.save()

    def _signed_record_without_secret(self) -> None:
        """D6a: without a secret, the unfinished game of a signed record is not written until the
        opponent's first message shows it has no secret either (else the greeting is refused, H7,
        and the record stays as it was: written unsigned, the side with the secret would set it
        aside).  ``--new`` closes it instead."""
        if self.st.secret or self.st.new:
            return
        rec = self.current_record(report=False)
        if rec is not None and rec.status == PLAYING and rec.mac:
            log.info("record of game %s is signed and this side has no secret: not written until the "
                     "opponent shows it has none either", rec.id)
            self.st.keeping.hold_unsigned = True

    def nobody_signs(self) -> None:
        """D6a: an unsigned message came from the opponent and this side has no secret either: the
        record is written again (unsigned, as both sides write it)."""
        if self.st.keeping.hold_unsigned:
            self.st.keeping.hold_unsigned = False
            if self.st.record is not None:
                self.save()

    def current_record(self, report: bool = True) -> Record | None:
        """The record ``records/current`` names, when it can be used, else None; one that cannot is
        set aside and reported (D6) when ``report``."""
        gid = self.st.records.current_id()
        if gid is None:
            return None
        if report:
            return self.load(gid)
        try:
            return self.st.records.load(gid)
        except (OSError, ValueError):
            return None

    def start_check(self) -> None:
        """H5: a start whose ``--size`` or ``--shape`` differs from the unfinished game of
        ``records/current`` (one ply at least) is refused before the board is touched: exit code
        2, nothing changed."""
        self._signed_record_without_secret()
        if self.st.new or not self.st.want_size:
            return
        rec = self.current_record(report=False)
        if rec is not None and rec.status == PLAYING and rec.moves and not self._wants(rec.board()):
            option = "--shape" if self.st.want_shape is not None else "--size"
            self.tell.say("unfinished_game", id=rec.id, size=rec.size, shape=rec.board(), n=rec.moves_played() + 1,
                          black=rec.black, white=rec.white, option=option,
                     want=str(self.st.want_shape) if self.st.want_shape is not None else self.st.want_size)
            raise Leave(2)

    def _wants(self, board: Shape) -> bool:
        """Whether ``board`` is what the command line asked for (``--shape``, ``--size``: its size only)."""
        if self.st.want_shape is not None:
            return board.same_board(self.st.want_shape)
        return not self.st.want_size or board.size == self.st.want_size

    def wanted_board(self, default: Shape | None = None) -> Shape:
        """The board the command line asked for (``--shape``, ``--size``), else ``default``, else
        the plain 8x8 board."""
        if self.st.want_shape is not None:
            return self.st.want_shape
        if self.st.want_size:
            return Shape.square(self.st.want_size)
        return default or Shape.square(8)

    def resumable(self) -> Record | None:
        """The game of ``records/current`` that this run offers (H5): an unfinished one, or one that
        ended without the opponent's ``result`` (G6); None for a new game (an unfinished one that
        is not resumed, ``--new``, is closed as abandoned first)."""
        resume = self.current_record()
        if resume is None and not self.st.keeping.set_aside:
            gid = self.st.records.current_id()
            if gid is not None and self.st.records.gone_aside(gid):
                # D6: the other side set the record aside first; the game goes on under its id
                log.info("record of game %s was set aside by the other side: going on under its id", gid)
                self.st.keeping.set_aside = (gid, self.wanted_board())
            elif gid is not None and not self.st.new and self.st.records.lost(gid):
                # D2: its record is gone and a side had played in it: said, and the game goes on
                # under its id as D6's (the other side's transcript brings what it still has)
                self.tell.say("record_lost", id=gid)
                self.st.keeping.set_aside = (gid, self.wanted_board())
                # (with a secret: the clock file and ``current`` are not signed, so they cannot
                # show that this side played there: its own plies are not taken back)
                self.st.keeping.lost_unsigned = self.st.secret is not None
        if not self.st.new and not self.st.keeping.set_aside and not self._offers(resume):
            other = self._unfinished_elsewhere(resume.id if resume is not None else self.st.records.current_id())
            if other is not None:
                return other
        if resume is None:
            if self.st.keeping.set_aside and not self.st.new:
                # D6: the game goes on with the plies the opponent's greeting brings (H5), or anew
                gid, board = self.st.keeping.set_aside
                if self._wants(board):
                    if self.st.keeping.held is None:       # (a held record: said once the secret is shared)
                        self.tell.say("recover", id=gid, colour=1 - self.st.colour)
                    return Record(id=gid, size=board.size, shape=shape_code(board))
            return None
        if resume.status == PLAYING:
            if not self.st.new and self._wants(resume.board()):
                return resume       # (with plies and another --size: refused at start)
            # Not resumed.  A game without plies may be the one black has just proposed: only
            # black, which makes its own instead, closes it; white asks for a new game only
            # instead of one with plies (else it would refuse the very game black offers).
            if resume.moves or self.st.colour == BLACK:
                self.abandon(resume, self.st.me)
            if self.st.new and resume.moves:
                self.st.asked_new = resume.id
            return None
        if resume.status in ENDED and resume.mode == "full" and not self.st.records.acknowledged(resume.id, self.st.me):
            return resume
        return None

    def _offers(self, rec: Record | None) -> bool:
        """Whether the game of ``rec`` (``records/current``'s) is one a start offers (H5)."""
        if rec is None:
            return False
        if rec.status == PLAYING:
            return True
        return rec.status in ENDED and rec.mode == "full" and not self.st.records.acknowledged(rec.id, self.st.me)

    def _unfinished_elsewhere(self, current: str | None) -> Record | None:
        """D2: an unfinished game on this board that ``records/current`` does not name (it was
        pointed elsewhere, or rewritten): the newest of the games a side kept a clock of (D7) whose
        record can be used and says ``playing``; said, and offered instead of a new game."""
        for gid in self.st.records.games_with_clocks():
            if gid == current:
                continue
            try:
                rec = self.st.records.load(gid)
            except (OSError, ValueError):
                continue        # (one that cannot be used is D6's when it is resumed by name)
            if rec is not None and rec.status == PLAYING and rec.moves and self._wants(rec.board()):
                self.tell.say("unfinished_elsewhere", id=gid, current=current or "-", n=rec.moves_played() + 1,
                              black=visible(rec.black, NAME_LIMIT), white=visible(rec.white, NAME_LIMIT))
                return rec
        return None

    def abandon(self, rec: Record, by: str, said: bool = True) -> None:
        """D1: close the unfinished game ``rec`` as ``abandoned`` (``by``: the colour that started a
        new game instead) and say so (unless ``said`` already); nothing for a game that is not
        ``playing``."""
        if rec is None or rec.status != PLAYING:
            return
        rec.status, rec.result = ABANDONED, f"abandoned by {by}"
        try:
            self.st.records.save(rec)
        except (OSError, ValueError) as e:
            log.warning("could not close game %s as abandoned: %s", rec.id, e)
        if not rec.moves or not said:
            log.info("game %s closed as abandoned by %s", rec.id, by)
            return
        n = rec.moves_played() + 1
        if by == self.st.me:
            self.tell.say("abandoned_mine", id=rec.id, size=rec.size, n=n)
        else:
            self.tell.say("abandoned_theirs", id=rec.id, size=rec.size, n=n,
                          colour=1 - self.st.colour)

    def close_refused(self, key: str | None, reason: str) -> None:
        """D1: a refused game is closed as ``refused`` (never resumed), but a game with plies that
        was refused for a reason about the programs, not the game (``key`` in PROGRAM_REASONS; or
        a refusal received, ``key`` None: its sender decides), stays resumable."""
        r = self.st.record
        if r is None or r.status != PLAYING:
            return
        if self.st.game_now.moves and (key is None or key in PROGRAM_REASONS):
            return
        r.status, r.result = REFUSED, f"refused: {reason}"[:300]
        self.save()

    def start_game(self, gid: str, board: Shape, moves: str = "", old: Record | None = None,
                   unknown: bool = False) -> None:
        """Start (or resume) game ``gid`` on ``board``; ``old``: its record, when the caller has loaded it;
        ``unknown``: a game the other side's greeting names and this side has no record of."""
        self.st.gid = gid
        self.st.size = board.size
        self.st.shape = board
        if old is None:
            old = self.load(gid) if gid else None
        going = self.st.match is not None and self.st.match.clocks.turn_since is not None
        # a game this side knows none of (D6: under the id of a record not used; one it has no
        # record of): the opponent's transcript may bring this side's plies too, once (H5)
        recovering = not moves and (unknown or self.st.keeping.set_aside is not None and self.st.keeping.set_aside[0] == gid
                                    and not self.st.keeping.lost_unsigned)
        # a side that has just started from the record: that copy may be behind what this side played
        # (both sides write it, D2): its first transcript may bring plies of this side
        first = self.st.them.bound_run is None and self.st.mode is None and not self.st.keeping.lost_unsigned
        self.st.match = Match(self.st.colour, board, replay(moves, board) if moves else None,
                              resigned=resigner(old.result) if old is not None and old.status == RESIGNED else None,
                           recovering=recovering, spare=board.size * board.size if first and old is not None else 0)
        if going:
            self.st.match.clocks.start(time.monotonic())     # a new game in place of the one on
        self.st.acked = self.st.end_shown = False
        self.st.resumed_end = old is not None and old.status in ENDED
        # the names the record knows (our --name, if given, replaces ours); a colour is no name, only
        # what a side wrote for the other before it knew its name
        if old is not None and getattr(old, self.st.me) != self.st.me:
            self.st.recorded_name = getattr(old, self.st.me)[:NAME_LIMIT]     # (a record is from the board)
            if not self.st.name_given:
                self.st.my_name = self.st.recorded_name
        if old is not None and getattr(old, self.st.other) != self.st.other and not self.st.them.name_known:
            self.st.them.name, self.st.them.name_known = getattr(old, self.st.other)[:NAME_LIMIT], True
        # D7: our time used in this game continues from what we noted on the board; the
        # opponent's comes with its greeting (until then: none).  A game that goes on from no
        # plies (its record set aside, D6) starts its time again with them.
        noted = self.st.records.clock(gid, self.st.me)
        anew = not moves
        self.st.clocks.set(self.st.colour, 0 if anew else noted)
        self.st.clocks.set(1 - self.st.colour, 0)
        self._budget()
        names = {self.st.me: self.st.my_name, self.st.other: self.st.them.name}
        self.st.record = old or Record(id=gid, size=board.size, shape=shape_code(board), black=names["black"],
                                       white=names["white"])
        self.st.record_now.black, self.st.record_now.white = names["black"], names["white"]
        self.save()
        if anew and noted:
            self.save_clock()

    def adopt(self, theirs: Game) -> None:
        """Take the other side's game when it continues ours (H5; judged already: ``Match.adoption``).
        The plies taken are announced as moves are (H5b): this side did not see them played."""
        start = self.st.match_now.plies
        if self.st.match_now.adopt(theirs).taken:
            self._announce_adopted(theirs, start)
            self.save()
            self.tell.show()

    def _announce_adopted(self, theirs: Game, start: int) -> None:
        """H5b: each ply of ``theirs`` from ``start`` on, as the opponent's greeting has it."""
        self.tell.say("adopted", n=len(theirs.moves) - start, name=self.st.them.name, first=start + 1)
        for pos, move in zip(theirs.positions[start:], theirs.moves[start:]):
            if pos.turn == self.st.colour:
                self.tell.say("adopted_mine", move=move, size=self.st.size, name=self.st.them.name)
            elif move == PASS:
                self.tell.say("they_pass", name=self.st.them.name)
            else:
                self.tell.say("played", name=self.st.them.name, move=notation.square_name(move, pos.size))

    def refresh_names(self) -> None:
        self.st.record_now.black = self.st.my_name if self.st.me == "black" else self.st.them.name
        self.st.record_now.white = self.st.my_name if self.st.me == "white" else self.st.them.name
        self.save()
