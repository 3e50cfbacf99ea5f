"""One side of a game between two processes: handshake, moves, checks, records, presence."""
import logging
import threading
import time
import uuid

import comm
from comm.text import visible
from engine import BLACK, PASS, WHITE, Game, IllegalMove, notation, strategies

from . import protocol, texts
from .players import EOF_LINE, normalise
from .protocol import NAME_LIMIT, game_id_problem
from .record import Record, Records

log = logging.getLogger("peer")

COLOURS = ("black", "white")
SHOWN_PER_RUN = 5           # messages from a foreign run shown on screen (the rest only logged)


def _new_gid():
    return time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


class Leave(Exception):
    """End the session with an exit code (the reason was already shown)."""

    def __init__(self, code):
        super().__init__(code)
        self.code = code


class Session:
    """Plays ``colour`` on the board folder ``folder`` for ``player`` (Human, Computer or External).

    Options (all optional): ``name``, ``size`` (None: black proposes 8, white
    accepts black's), ``new`` (do not resume), ``classic_after`` (seconds to
    wait for a greeting before speaking the classic protocol), ``gone_after``,
    ``patience`` (seconds a computer waits for a vanished opponent; None: forever),
    ``stats`` (file for per-move overhead figures), ``secret`` (the shared
    secret, bytes, or None: see docs/PROTOCOL.md A1-A6), ``board`` (a
    ``comm.Board``-like object to use instead of joining ``folder``; for tests).

    The game is bound to the opponent's run that completed the handshake
    (``bound_run``): messages from any other run are shown, logged and not applied.
    """

    def __init__(self, folder, colour, player, screen, *, name=None, size=None, new=False,
                 classic_after=10.0, gone_after=6.0, patience=None, stats=None, stale_after=10.0,
                 secret=None, board=None):
        self.colour = colour
        self.me, self.other = COLOURS[colour], COLOURS[1 - colour]
        self.player = player
        self.screen = screen
        self.my_name = name or self.me
        self.their_name = self.other
        self.size = size
        self.want_size = size       # the size asked for on the command line, if any
        self.new = new
        self.classic_after = classic_after
        self.gone_after = gone_after
        self.patience = patience
        self.stats = stats
        self.secret = secret or None
        if board is None:
            board = comm.Board(folder, self.me, stale_after=stale_after, secret=self.secret)
        self.board = board
        self.records = Records(folder)
        self.mode = None            # "full" after a handshake, "classic" without one
        self.game = None
        self.record = None
        self.gid = None
        self.last = None
        self.flipped = 0
        self.prompted = False
        self.alive_seen = None      # (record, monotonic time it last changed)
        self.gone = False
        self.left_at = None
        self.sent_at = None         # when our last move was sent (for --stats)
        self.pending = []           # messages read but not handled yet
        self.classic_run = None     # the classic opponent's run id, to notice it restarting
        self.bound_run = None       # the opponent's run this game is bound to (None: not yet)
        self.save_failed = None     # why the last save of the record failed (None: it did not)
        self.foreign_shown = {}     # run -> messages from it shown (not applied)
        self.stop = threading.Event()

    # -- plumbing ------------------------------------------------------------------
    def say(self, key, **kw):
        self.screen.say(key, **kw)

    def send(self, body):
        """Send until delivered: nothing we decided to send is dropped."""
        warned = False
        while not self.board.send(self.other, body):
            if not warned:
                self.say("send_retry", reason=self.board.last_error)
                warned = True
            self._check_input_only()
            time.sleep(0.5)

    def _presence_loop(self):
        while not self.stop.wait(1.0):
            mine = self.game is not None and self.game.position.turn == self.colour
            self.board.beat("thinking" if mine else "waiting")

    def _check_presence(self):
        if self.mode == "classic" and self.game is not None:
            try:
                run = self.board.member_run(self.other)
            except OSError:
                return  # the share failed a read: no news
            if self.classic_run is not None and run != self.classic_run:
                # A classic program that (re)started dropped what we sent before: repeat our move.
                pos = self.game.position
                if pos.turn != self.colour and self.game.moves and self.game.moves[-1] != PASS:
                    self.send(notation.square_name(self.game.moves[-1], self.size))
            self.classic_run = run
            if run is not None:
                self.bound_run = run    # a classic game is bound to the opponent's member run
        rec = self.board.alive(self.other)
        if rec is None:
            return
        now = time.monotonic()
        key = (rec.get("run"), rec.get("beat"))
        if self.alive_seen is None or self.alive_seen[0] != key:
            if self.gone:
                self.gone = False
                self.say("back", name=self.their_name)
            self.alive_seen = (key, now)
        elif not self.gone and now - self.alive_seen[1] > self.gone_after:
            self.gone = True
            self.say("gone", name=self.their_name, secs=int(self.gone_after))
        if self.gone and self.patience is not None and now - self.alive_seen[1] > self.patience:
            self.say("giving_up_wait", name=self.their_name, secs=int(self.patience))
            raise Leave(4)

    def _next_message(self, timeout):
        if self.pending:
            return self.pending.pop(0)
        m = self.board.wait(timeout=timeout)
        self._check_rejected()
        if m is None:
            return None
        if m.sender.lower() != self.other:
            log.info("ignored a message from %s", visible(m.sender, NAME_LIMIT))
            return None
        msg = protocol.parse(m.body)
        msg.run = m.sender_run or ""
        msg.signed = m.signed
        return msg

    # -- who sent it -------------------------------------------------------------------
    def _is_member_run(self, run):
        """Is ``run`` the opponent's current run on the board (its ``member`` record)?"""
        try:
            current = self.board.member_run(self.other)
        except OSError as e:
            log.info("cannot read %s's member record (%s): taken as its run", self.other, e)
            return True     # a share's passing error is no news; a later greeting checks again
        return current is not None and current == run

    def _greeting_run(self, run):
        """A message from ``run`` is part of a handshake: the first one, or the opponent's restart."""
        return (self.bound_run is None or run != self.bound_run) and self._is_member_run(run)

    def _check_rejected(self):
        """Messages comm refused (a missing or wrong MAC): reported, never applied."""
        for r in self.board.take_rejected():
            who = visible(r.sender, NAME_LIMIT)
            log.warning("refused a message claiming to be from %s (run %s, #%s): %s",
                        who, visible(r.sender_run, 40), r.seq, visible(r.reason))
            if r.sender.lower() != self.other:
                continue
            if self.secret and self.bound_run is None and self._greeting_run(r.sender_run):
                # The opponent itself (its current run) during the handshake: the secrets differ.
                # Once the game is bound, nobody can stop it this way: member records are not
                # signed, so "its current run" is only a claim (A6).
                if r.reason.startswith("no MAC"):
                    self._refuse_game("no_secret_there", other=self.other)
                if r.reason.startswith("wrong MAC"):
                    self._refuse_game("other_secret", other=self.other)
            self.say("mac_refused", name=who, reason=r.reason)

    def _other_run(self, msg):
        """A message from a run this game is not bound to: shown (a few), logged, not applied."""
        what = visible(msg.text, 80)
        log.warning("ignored %r from run %s of %s (the game is bound to run %s)",
                    what, visible(msg.run, 40), self.other, self.bound_run)
        n = self.foreign_shown.get(msg.run, 0)
        if n < SHOWN_PER_RUN:
            self.foreign_shown[msg.run] = n + 1
            self.say("other_run", what=what, colour=self.screen.colour_name(1 - self.colour))

    def _reason(self, key, **kw):
        """(English text for the wire, text in this screen's language) of a refusal reason."""
        return texts.text("en", key, **kw), self.screen.t(key, **kw)

    def _refuse_game(self, key, **kw):
        """``refuse`` the game (H4): tell the other side in English, show why here, exit code 3."""
        wire, here = self._reason(key, **kw)
        try:
            self.board.send(self.other, protocol.control("refuse", reason=wire))
        except (comm.InvalidArgument, OSError) as e:
            log.warning("could not send refuse: %s", e)
        self.say("cannot_play", reason=here)
        raise Leave(3)

    # -- the game record ---------------------------------------------------------------
    def _save(self):
        r = self.record
        r.moves = self.game.transcript(passes=True)
        r.mode = self.mode or "full"
        pos = self.game.position
        if pos.is_game_over() and r.status == "playing":
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

    def _start_game(self, gid, size, moves="", old=None):
        """Start (or resume) game ``gid``; ``old``: its record, when the caller has loaded it."""
        self.gid = gid
        self.size = size
        self.game = Game.from_transcript(moves, size=size) if moves else Game(size)
        names = {self.me: self.my_name, self.other: self.their_name}
        if old is None:
            old = self._load(gid) if gid else None
        self.record = old or Record(id=gid, size=size, black=names["black"], white=names["white"])
        self.record.black, self.record.white = names["black"], names["white"]
        self.last = self.game.moves[-1] if self.game.moves else None
        self._save()

    def _adopt(self, theirs):
        """Take the other side's game when ours is a prefix of it; False if they conflict."""
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

    # -- handshake -------------------------------------------------------------------------
    def _hello(self, verb="hello"):
        fields = {"v": protocol.VERSION, "role": self.me, "name": self.my_name}
        if self.colour == BLACK:
            fields.update(size=self.size, game=self.gid,
                          moves=self.game.transcript(passes=True) if self.game else "")
        else:
            if self.want_size:
                fields["size"] = self.want_size
            if self.game:
                fields.update(game=self.gid, moves=self.game.transcript(passes=True))
        return protocol.control(verb, **fields)

    def _greeting(self, msg):
        """Check a ``hello``/``welcome``: (problem, game).

        ``problem`` is None or ``(key, fields)`` of a refusal reason (texts.py);
        ``game`` is the greeting's transcript replayed (a ``Game``), or None when it
        carries none.  Nothing from the message is trusted before this.
        """
        problem = self._greeting_basics(msg)
        if problem:
            return problem, None
        has_game = "game" in msg.fields
        if has_game or msg.kind == "welcome" or self.colour == WHITE:
            if game_id_problem(msg.get("game")):
                return ("bad_game_id", {"id": visible(msg.get("game"), 80)}), None
        size = self.size
        if "size" in msg.fields or self.colour == WHITE:
            size = protocol.parse_size(msg.get("size") or "8")
            if size is None:
                return ("bad_size", {"size": visible(msg.get("size"), 20)}), None
            if self.colour == BLACK and size != self.size:
                return ("size_wanted", {"theirs": size, "mine": self.size}), None
            if self.colour == WHITE and self.want_size and size != self.want_size:
                return ("size_proposed", {"theirs": size, "mine": self.want_size}), None
        if "moves" not in msg.fields or not has_game:
            return None, None
        try:
            return None, Game.from_transcript(msg.get("moves"), size=size or 8)
        except ValueError as e:
            return ("bad_moves", {"moves": visible(msg.get("moves"), 60), "reason": visible(e, 200)}), None

    def _greeting_basics(self, msg):
        """The checks of any greeting, even one for another game: the secret, the version."""
        if not self.secret and msg.signed:
            return "no_secret_here", {"other": self.other}
        v = msg.get("v")
        if v != str(protocol.VERSION):
            return "bad_version", {"v": visible(v or "?", 20), "mine": protocol.VERSION}
        return None

    def _bad_greeting(self, msg, problem, strict):
        """A greeting that cannot be used: in a handshake ``refuse`` (and stop), else ``refused``."""
        key, kw = problem
        if strict:
            self._refuse_game(key, **kw)
        wire, here = self._reason(key, **kw)
        log.warning("greeting not applied: %s", wire)
        self.say("refused_theirs", name=self.their_name, move=visible(msg.text, 120), reason=here)
        try:
            self.board.send(self.other, protocol.control("refused", move=msg.text[:200], reason=wire))
        except (comm.InvalidArgument, OSError) as e:
            log.warning("could not send refused: %s", e)

    def _take_name(self, msg):
        self.their_name = (msg.get("name") or self.other)[:NAME_LIMIT]

    def _resumable(self):
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
        if resume.status != "playing" or not resume.moves or (self.want_size and resume.size != self.want_size):
            return None
        return resume

    def _handshake(self):
        resume = self._resumable()
        if self.colour == BLACK:
            self.size = resume.size if resume else (self.size or 8)
            gid = resume.id if resume else _new_gid()
            self._start_game(gid, self.size, resume.moves if resume else "")
            if resume:
                self.say("resume", id=gid, n=len(self.game.moves) + 1)
        elif resume:
            self.size = resume.size
            self._start_game(resume.id, resume.size, resume.moves)
            self.say("resume", id=resume.id, n=len(self.game.moves) + 1)
        hello = self._hello()
        sent = self.board.send(self.other, hello)
        joined_at = time.monotonic() if sent else None
        next_hello = time.monotonic() + 2.0
        self.say("waiting_join" if not sent else "waiting_hello", other=self.other, board=self.board.folder)
        while True:
            self._check_input_only()
            msg = self._next_message(0.2)
            now = time.monotonic()
            if msg is None:
                if now >= next_hello:
                    was = sent
                    sent = self.board.send(self.other, self._hello())
                    next_hello = now + 2.0
                    if sent and not was:
                        joined_at = now
                        self.say("waiting_hello", other=self.other)
                if self.colour == BLACK and joined_at and now - joined_at > self.classic_after:
                    self.mode = "classic"
                    self._bind_classic()
                    self.say("classic", other=self.other)
                    return
                continue
            if msg.kind == "junk":
                log.info("ignored junk from %s: %r", self.other, visible(msg.text, 80))
                continue
            if not self._is_member_run(msg.run):
                self._other_run(msg)        # not from the opponent that joined the board
                continue
            if msg.signed and not self.secret:
                self._refuse_game("no_secret_here", other=self.other)
            if msg.kind in ("hello", "welcome"):
                if self.colour == BLACK:
                    if self._black_greeting(msg, strict=True):
                        return
                    continue
                if msg.kind == "welcome":
                    continue
                self._accept_black(msg, strict=True)
                return
            if msg.kind == "refuse":
                self.say("cannot_play", reason=msg.get("reason"))
                raise Leave(3)
            if msg.kind == "move" and "n" not in msg.fields:
                self.mode = "classic"
                self.bound_run = self.classic_run = msg.run
                self.say("classic", other=self.other)
                if self.game is None:
                    self._start_game(_new_gid(), self.size or 8)
                self.pending.insert(0, msg)
                return
            if msg.kind == "say":
                self.say("chat", name=self.their_name, text=msg.get("text"))

    def _bind_classic(self):
        try:
            self.bound_run = self.classic_run = self.board.member_run(self.other)
        except OSError as e:
            log.info("cannot read %s's member record yet: %s", self.other, e)

    def _black_greeting(self, msg, strict):
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
            self.send(self._hello())  # answer a (re)started white
            return False
        self.mode = "full"
        self._refresh_names()
        if theirs is not None and not self._adopt(theirs):
            self._conflict()
        self.bound_run = msg.run
        return True

    def _accept_black(self, msg, strict):
        problem, theirs = self._greeting(msg)
        if problem:
            return self._bad_greeting(msg, problem, strict)
        self._take_name(msg)
        size = protocol.parse_size(msg.get("size") or "8")
        gid = msg.get("game")
        if self.game is not None and gid == self.gid and size != self.size:
            return self._conflict()
        if self.game is None or gid != self.gid:
            old = self._load(gid)
            if old is not None and old.size != size:
                return self._conflict()     # the same game id on another board size
            self.size = size
            self._start_game(gid, size, old.moves if old and old.status == "playing" else "", old=old)
        self.mode = "full"
        self._refresh_names()
        if theirs is not None and not self._adopt(theirs):
            return self._conflict()
        self.bound_run = msg.run
        self.send(self._hello("welcome"))

    def _refresh_names(self):
        self.record.black = self.my_name if self.colour == BLACK else self.their_name
        self.record.white = self.my_name if self.colour == WHITE else self.their_name
        self._save()

    def _conflict(self):
        self._refuse_game("records_differ")

    # -- playing -------------------------------------------------------------------------------
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
        state = "gone_state" if self.gone else None
        if state is None:
            rec = self.board.alive(self.other)
            state = {"thinking": "thinking", "waiting": "waiting"}.get((rec or {}).get("state"))
        extra = f", {s.t(state)}" if state else ""
        return f"{s.t('turn_line', colour=s.colour_name(pos.turn))} ({visible(self.their_name, NAME_LIMIT)}{extra})"

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
        self._apply(move, True)
        text = notation.square_name(move, self.size)
        if self.mode == "full":
            self.send(protocol.move(text, len(self.game.moves), think_ms))
        else:
            self.send(text)
        self.sent_at = time.monotonic()
        self.say("you_played", move=text)
        self._show()

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
                self.send(protocol.control("say", text=rest.strip()))
                self.say("sent_chat")
            return
        if self.game is None:
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
            self._resign()
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
        try:
            self.board.send(self.other, protocol.control("bye"))
        finally:
            self.say("bye")
        raise Leave(0)

    def _resign(self):
        self.record.status, self.record.result = "resigned", f"{self.me} resigned"
        self._save()
        self.send(protocol.control("resign"))
        self.say("you_resigned")
        raise Leave(0)

    # -- their messages -----------------------------------------------------------------------------
    def _handle(self, msg):
        if msg.kind == "junk":
            log.info("ignored junk from %s: %r", self.other, visible(msg.text, 80))
            return
        if self.bound_run is not None and msg.run != self.bound_run:
            if not self._is_member_run(msg.run):
                return self._other_run(msg)
            # The opponent's current run, not the bound one: it restarted.
            if msg.kind == "hello":
                return self._restart(msg)
            if msg.kind == "welcome" and self.colour == BLACK:
                return self._black_greeting(msg, strict=True)
            if self.mode != "classic":
                return self._other_run(msg)
            log.info("%s (classic) restarted: run %s", self.other, visible(msg.run, 40))
            self.bound_run = msg.run
        elif self.bound_run is None and self.mode == "classic":
            if not self._is_member_run(msg.run):
                return self._other_run(msg)
            self.bound_run = msg.run
        k = msg.kind
        if k == "move":
            return self._their_move(msg)
        if k == "say":
            return self.say("chat", name=self.their_name, text=msg.get("text"))
        if k == "resign":
            self.record.status, self.record.result = "resigned", f"{self.other} resigned"
            self._save()
            self.say("they_resigned", name=self.their_name)
            raise Leave(0)
        if k == "bye":
            self.left_at = time.monotonic()
            return self.say("left", name=self.their_name)
        if k == "refused":
            return self.say("they_refused", name=self.their_name, move=msg.get("move"), reason=msg.get("reason"))
        if k == "refuse":
            self.say("cannot_play", reason=msg.get("reason"))
            raise Leave(3)
        if k == "hello":
            if self.colour == BLACK:
                return self._black_greeting(msg, strict=False)
            return self._accept_black(msg, strict=False)
        if k == "welcome":
            if self.colour == BLACK and msg.get("game") == self.gid:
                self._black_greeting(msg, strict=False)
            return
        if k == "result":
            return
        log.info("ignored %s from %s: %r", k, self.other, visible(msg.text, 80))

    def _restart(self, msg):
        """A ``hello`` from the opponent's new run: the handshake rules again, then the game is rebound."""
        log.info("%s restarted: run %s", self.other, visible(msg.run, 40))
        if self.left_at:
            self.left_at = None
            self.say("back", name=self.their_name)
        if self.colour == BLACK:
            return self._black_greeting(msg, strict=True)   # binds on its welcome
        return self._accept_black(msg, strict=True)

    def _refuse(self, text, reason):
        self.say("refused_theirs", name=self.their_name, move=text, reason=reason)
        self.send(protocol.control("refused", move=text[:200], reason=reason))

    def _their_move(self, msg):
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

    def _over(self):
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

    def run(self):
        """Play until the game ends or the player leaves; returns an exit code."""
        try:
            self.board.join()
        except comm.BoardError as e:
            self.say("cannot_play", reason=e)
            return 2
        presence = threading.Thread(target=self._presence_loop, name="presence", daemon=True)
        self.board.beat("waiting")
        presence.start()
        try:
            # Messages left for an earlier run go; a resumed game is re-synchronised by
            # the handshake, which carries each side's whole transcript.
            self.board.quiet()
            for r in self.board.take_rejected():    # refused while dropping what was left for earlier runs
                log.info("refused an old message from %s: %s", visible(r.sender, NAME_LIMIT), visible(r.reason))
            self._handshake()
            names = {self.me: self.my_name, self.other: self.their_name}
            self.say("game_on", black=names["black"], white=names["white"], size=self.size,
                     bd=self.screen.disc(BLACK), wd=self.screen.disc(WHITE))
            self._show()
            next_presence = 0.0
            while True:
                pos = self.game.position
                if pos.is_game_over():
                    self._over()
                    return 0
                if self.pending:
                    self._handle(self.pending.pop(0))
                    continue
                mine = pos.turn == self.colour
                if mine and pos.must_pass():
                    self._my_move()  # pass first: a classic opponent's next move follows at once
                elif mine:
                    self._drain(0)
                    if self.game.position.turn == self.colour and not self.game.position.is_game_over():
                        self._my_move()
                else:
                    if self.mode == "classic" and pos.must_pass():
                        self.say("they_pass", name=self.their_name)
                        self._apply(PASS, False)
                        self._show()
                        continue
                    self._check_input_only()
                    msg = self._next_message(0.1)
                    if msg is not None:
                        self._handle(msg)
                now = time.monotonic()
                if now >= next_presence:
                    next_presence = now + 1.0
                    self._check_presence()
                    if self.left_at and self.patience is not None and now - self.left_at > self.patience:
                        self.say("giving_up_wait", name=self.their_name, secs=int(self.patience))
                        return 4
        except Leave as e:
            return e.code
        except KeyboardInterrupt:
            self.say("bye")
            try:
                self.board.lock_timeout = min(self.board.lock_timeout, 2.0)  # the user wants out now
                self.board.send(self.other, protocol.control("bye"))
            except Exception:  # leaving anyway
                pass
            return 130
        finally:
            self.stop.set()
            self.board.close()

    def _drain(self, timeout):
        """Handle messages that arrived while it is our turn (chat, resign, a restarted peer...)."""
        while True:
            msg = self._next_message(timeout)
            if msg is None:
                return
            self._handle(msg)
