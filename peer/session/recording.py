"""D1-D2: the game record kept in step with the game; the unfinished game a restart resumes."""
import logging
import time
import uuid

from engine import Game

from ..record import ENDED, PLAYING, Record

log = logging.getLogger("peer")


def new_gid():
    """A new game id (H2): the date and time, then 6 random hex digits."""
    return time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


class Recording:
    """Mixed into ``Session``: ``self.record`` mirrors ``self.game`` on the board."""

    def _save(self):
        r = self.record
        r.moves = self.game.transcript(passes=True)
        r.mode = self.mode or "full"
        pos = self.game.position
        if pos.is_game_over() and r.status == PLAYING:
            b, w = pos.discs()
            r.status, r.result = "over", f"{b}-{w}"
        try:
            self.records.save(r)
            self.save_failed = None
        except (OSError, ValueError) as e:
            log.warning("could not save the game record: %s", e)
            if self.save_failed is None:
                self.say("record_failed", reason=e)
            self.save_failed = str(e)

    def _load(self, gid):
        """The record of ``gid`` on this board, or None (a damaged one is reported and not used)."""
        try:
            rec = self.records.load(gid)
            if rec is not None:
                rec.game()      # it must replay
            return rec
        except (OSError, ValueError) as e:
            log.warning("record of game %s not used: %s", gid, e)
            self.say("bad_record", reason=e)
            return None

    def _resumable(self):
        """The game of ``records/current`` that this run offers (H5): an unfinished one, or one that
        ended without the opponent's ``result`` (G6); None for a new game."""
        if self.new:
            return None
        resume = self.records.current()
        if resume is None:
            return None
        try:
            resume.game()
        except ValueError as e:
            log.warning("records/current not resumed: %s", e)
            self.say("bad_record", reason=e)
            return None
        if resume.status == PLAYING and resume.moves:
            return resume if not (self.want_size and resume.size != self.want_size) else None
        if resume.status in ENDED and resume.mode == "full" and not self.records.acknowledged(resume.id, self.me):
            self.resumed_end = True
            return resume
        return None

    def _start_game(self, gid, size, moves="", old=None):
        """Start (or resume) game ``gid``; ``old``: its record, when the caller has loaded it."""
        self.gid = gid
        self.size = size
        self.game = Game.from_transcript(moves, size=size) if moves else Game(size)
        if old is None:
            old = self._load(gid) if gid else None
        if old is not None:         # the names the record knows (our --name, if given, replaces ours)
            self.recorded_name = getattr(old, self.me)
            if not self.name_given:
                self.my_name = self.recorded_name
            if not self.their_name_known:
                self.their_name, self.their_name_known = getattr(old, self.other), True
        names = {self.me: self.my_name, self.other: self.their_name}
        self.record = old or Record(id=gid, size=size, black=names["black"], white=names["white"])
        self.record.black, self.record.white = names["black"], names["white"]
        self.last = self.game.moves[-1] if self.game.moves else None
        self._save()

    def _adopt(self, theirs):
        """Take the other side's game when ours is a prefix of it; False if they conflict (H5)."""
        ours = self.game.moves
        if theirs.moves[:len(ours)] == ours:
            if len(theirs.moves) > len(ours):
                self.game = theirs
                self.last = theirs.moves[-1]
                self.flipped = 0
                self._save()
                self._show()
            return True
        return ours[:len(theirs.moves)] == theirs.moves

    def _refresh_names(self):
        self.record.black = self.my_name if self.me == "black" else self.their_name
        self.record.white = self.my_name if self.me == "white" else self.their_name
        self._save()
