"""A deliberately broken implementation for the conformance kit's own test: our Python peer with
ONE rule of docs/PROTOCOL.md broken.

    python tests/fake_peer_broken.py RULE serve ...     (python -m comm serve, broken)
    python tests/fake_peer_broken.py RULE play ...      (python -m peer play --ai random, broken)

Each rule patches one thing in this process and then runs the real program, so that everything
else works and the kit must fail the scenario that checks that rule, for that reason
(tests/test_interop.py::test_the_kit_fails_one_broken_rule).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import comm  # noqa: E402
import comm.board  # noqa: E402
import comm.cleanup  # noqa: E402
import comm.mailbox  # noqa: E402
import comm.message  # noqa: E402
from comm.lease import Lease  # noqa: E402
from peer import protocol, record  # noqa: E402
from peer.session import Leave, Session  # noqa: E402
from peer.session import (classic, commands, control, handshake, moves, presence, recording, roles,  # noqa: E402
                          runs, telling, trouble)


def wrap(cls, name, make):
    """Replace ``cls.name`` by ``make(original)``."""
    setattr(cls, name, make(getattr(cls, name)))


# -- the message board (serve) -------------------------------------------------------------

def join_any():
    """I6: joins even while another run of the name is alive (always takes it over)."""
    wrap(comm.Board, "join", lambda join: lambda self, take_over=None: join(self, take_over=True))


def break_live():
    """L3 L5: notes the lock once and never sees its heartbeat change, and breaks it without
    checking that it is still the lock it judged: breaks a live lock after L."""
    def watch(self, sig, now):
        if sig is not None and self._seen is None:
            self._seen, self._since, self._unjudged = sig, now, True
            return True
        return False
    Lease._watch = watch

    def settled(orig):
        def f(self, rel="lock", patience=2.0):
            judged = getattr(self, "judged", None)
            return judged if rel != "lock" and judged is not None else orig(self, rel, patience)
        return f
    wrap(Lease, "_settled_signature", settled)

    def brk(orig):
        def f(self, sig, why):
            self.judged = sig
            return orig(self, sig, why)
        return f
    wrap(Lease, "_break", brk)


def never_break():
    """L4 L5: never breaks a stale lock."""
    Lease._break = lambda self, sig, why: None


def forget_watch():
    """L3: forgets what it watched at every operation (and never waits out a fresh watch)."""
    def acquire(orig):
        def f(self, timeout, patient=True):
            self._seen = None
            return orig(self, timeout, patient=False)
        return f
    wrap(Lease, "acquire", acquire)


def keep_damaged():
    """M4 G3: skips a damaged message but leaves it in the mailbox."""
    comm.Board._set_aside = lambda self, path, why: None


def com0_ok():
    """N1: does not know that COM0 and LPT0 are device names."""
    comm.message._RESERVED = frozenset(comm.message._RESERVED - {"com0", "lpt0"})


def recipient_unchecked():
    """N1 I5: does not check a recipient's name (a/b, .., con...) before touching the board."""
    orig = comm.message.check_name
    for module in (comm.board, comm.mailbox):
        module.check_name = lambda name, what="name": name if what == "recipient" else orig(name, what)


def crash_on_leave():
    """G7 I6: on a gone board or a replaced run, dies with a traceback (exit 1), not 5 or 6."""
    real = trouble.Leave

    def leave(code):
        if code in (5, 6):
            raise RuntimeError(f"boom instead of exit {code}")
        return real(code)
    trouble.Leave = leave
    presence.Leave = leave


def no_percent_decode():
    """P4: takes control-line values as written, never percent-decoded."""
    protocol.unquote = lambda v, errors=None: v


def unknown_key_junk():
    """P4: a control line with a key its verb's row does not list is junk (not ignored)."""
    listed = {"hello": {"v", "role", "name", "size", "game", "moves", "new"}}

    def parse(orig):
        def f(body):
            m = orig(body)
            return protocol.Msg("junk", text=body) if set(m.fields) - listed.get(m.kind, set(m.fields)) else m
        return f
    wrap(protocol, "parse", parse)


def role_checked():
    """H4: refuses a greeting whose role is not the sender's colour (readers MUST NOT check it)."""
    def basics(orig):
        def f(self, msg):
            if msg.get("role") != self.st.other:
                return "bad_version", {"v": "role", "mine": protocol.VERSION}
            return orig(self, msg)
        return f
    wrap(handshake.Handshake, "_greeting_basics", basics)


def replaced_quiet():
    """I6: a replaced run still runs Quiet and Wipe (and drops the new run's messages)."""
    def drop(orig):
        def f(self, which, doing, *kept):
            self._check_member = lambda: None
            try:
                return orig(self, which, doing, *kept)
            finally:
                del self._check_member
        return f
    wrap(comm.Board, "_drop", drop)


def header_unknown_bad():
    """M1: a message whose header has a key M1 does not list is bad (set aside, never returned)."""
    listed = {b"from", b"from-run", b"to", b"to-run", b"seq", b"length", b"crc32", b"mac"}

    def unframe(orig):
        def f(raw, **kw):
            for line in raw.partition(b"\n\n")[0].split(b"\n")[1:]:
                if line.partition(b": ")[0] not in listed:
                    raise ValueError("bad header: an unknown key")
            return orig(raw, **kw)
        return f
    wrap(comm.mailbox, "unframe", unframe)


def first_line_checked():
    """R1: a member record whose first line is not 'cardstand-member 1' is damaged (not joined)."""
    def fields(orig):
        def f(text, *a, **kw):
            if text is not None and text.startswith("cardstand-member ") and not text.startswith("cardstand-member 1\n"):
                return {}
            return orig(text, *a, **kw)
        return f
    wrap(comm.fsops, "record_fields", fields)


def unknown_status_resumes():
    """D1: a game record of a status the document does not name is resumed like 'playing'."""
    def resumable(orig):
        def f(self):
            rec = self.current_record()
            if rec is not None and rec.status not in ("playing", "over", "resigned", "abandoned", "refused"):
                rec.status = "playing"
                return rec
            return orig(self)
        return f
    wrap(recording.Keeper, "resumable", resumable)


def holder_unnamed():
    """L3: a wait that gives up says only that the lock was not obtained, not who holds it."""
    Lease.timeout_reason = lambda self: "the board lock was not obtained"


def forget_watch_only():
    """L3: forgets what it watched at every operation (but keeps the first-wait rule)."""
    def acquire(orig):
        def f(self, timeout, patient=True):
            self._seen = None
            return orig(self, timeout, patient)
        return f
    wrap(Lease, "acquire", acquire)


def seq_normalised():
    """A2: computes the MAC over ``seq`` as a number (``007`` -> ``7``), not as written."""
    def mac(orig):
        return lambda key, sender, sender_run, to, to_run, seq, data: orig(key, sender, sender_run, to, to_run,
                                                                           str(int(seq)), data)
    wrap(comm.message, "mac", mac)


def clean_by_folder_time():
    """S1: judges a private lock folder ``tmp/lock-<token>`` by the folder's own time only (takes
    a live member's kept folder, whose owner record is rewritten, for old)."""
    def clean(orig):
        def f(self):
            lstat = self.root.lstat
            self.root.lstat = lambda rel: None if rel.endswith("/owner") else lstat(rel)
            try:
                return orig(self)
            finally:
                del self.root.lstat
        return f
    wrap(comm.Board, "_clean_scratch", clean)


def clean_any_name():
    """S1 F3: cleans up every old name in tmp/ and trash/, not only the forms S1 lists."""
    comm.cleanup._cleanable = lambda folder, name, st: True


def no_to_run():
    """M1 M3: frames its messages without a ``to-run`` line (comm's own reader lets that pass)."""
    def frame(orig):
        def f(sender, sender_run, to, to_run, seq, data, key=None):
            raw = orig(sender, sender_run, to, to_run, seq, data, key)
            return raw.replace(f"to-run: {to_run}\n".encode("ascii"), b"", 1)
        return f
    wrap(comm.mailbox, "frame", frame)


def marker_loose():
    """F2: takes any file that mentions ``cardstand-board`` for a marker (U+00A0, a BOM, 10 digits, any size)."""
    def check_marker(self):
        data = self.root.read("cardstand.board", 1 << 20, strict=True)
        if data is None:
            self.root.replace("cardstand.board", b"cardstand-board 1\n", scratch="")
        elif b"cardstand-board" not in data:
            raise comm.board.BoardError(None, "not a cardstand board marker")
    comm.Board._check_marker = check_marker


def record_newline():
    """R1: writes its records with a ``\\n`` after the last line, before the padding."""
    def record(text):
        data = text.encode("utf-8") + b"\n"
        return data + b" " * (255 - len(data)) + b"\n"
    comm.fsops.record = record


def ops_before_init():
    """CONFORMANCE.md (serve): an operation before init makes the board folder (then fails)."""
    for name in ("send", "receive", "talk", "quiet", "wipe"):
        def make(orig):
            def f(self, *a, **kw):
                Path(self.folder).mkdir(parents=True, exist_ok=True)
                return orig(self, *a, **kw)
            return f
        wrap(comm.Board, name, make)


def no_crc_ok():
    """M1: takes a message without ``crc32`` (as if its CRC were right)."""
    import re
    import zlib

    def unframe(orig):
        def f(raw, **kw):
            head, sep, data = raw.partition(b"\n\n")
            if sep and not re.search(rb"(?m)^crc32: ", head):
                raw = head + f"\ncrc32: {zlib.crc32(data):08x}".encode() + sep + data
            return orig(raw, **kw)
        return f
    wrap(comm.mailbox, "unframe", unframe)


# -- the game (play) -------------------------------------------------------------------------

def end_believed():
    """D5: a record's status and result are believed without replaying its moves."""
    record.Record.verify = lambda self: self.game() if self.moves else None


def unsigned_trusted():
    """D4: records are neither signed nor checked against the shared secret."""
    record.Record.check_mac = lambda self, secret: None
    record.Record.text = lambda self, secret=None: record.MAGIC + "\n" + self.lines()


def no_set_aside():
    """D6: a record that is not used is left where it is."""
    record.Records.set_aside = lambda self, gid: ""


def no_record():
    """D1: keeps no game record."""
    record.Records.save = lambda self, rec: None


def current_unpadded():
    """D1 R1: writes ``records/current`` as the bare id and a newline, without the padding."""
    def save(orig):
        def f(self, rec):
            orig(self, rec)
            self.root.replace("records/current", (rec.id + "\n").encode(), durable=False)
        return f
    wrap(record.Records, "save", save)


def game_unterminated():
    """D1: writes its game record without the ``\\n`` after the last line."""
    wrap(record.Record, "text", lambda text: lambda self, secret=None: text(self, secret).rstrip("\n"))


def no_ack():
    """D3: never notes the acknowledgement of the end."""
    record.Records.acknowledge = lambda self, gid, colour: None


def no_refused():
    """G2: an illegal move is only shown, never answered with ``refused``."""
    moves.Moves._refuse = lambda self, text, reason: self.tell.say("refused_theirs", name=self.st.them.name,
                                                                   move=text, reason=reason)


def any_version():
    """H4: takes a greeting of any protocol version."""
    def basics(orig):
        def f(self, msg):
            why = orig(self, msg)
            return None if why and why[0] == "bad_version" else why
        return f
    wrap(handshake.Handshake, "_greeting_basics", basics)


def v_blank_ok():
    """H4: takes a greeting without ``v``, or with an empty one, for version 1."""
    def basics(orig):
        def f(self, msg):
            why = orig(self, msg)
            return None if why and why[0] == "bad_version" and not msg.get("v") else why
        return f
    wrap(handshake.Handshake, "_greeting_basics", basics)


def bye_after_refuse():
    """H4: says ``bye`` after its ``refuse``."""
    def refuse(orig):
        def f(self, key, **kw):
            try:
                orig(self, key, **kw)
            finally:
                self.control("bye", retry=False)
        return f
    wrap(control.Control, "refuse_game", refuse)


def pass_left_out_ok():
    """H2: replays a transcript with the engine's lenient reader (a pass left out is filled in)."""
    from engine import Game, Shape

    def lenient(moves, board):
        start = board.start() if isinstance(board, Shape) else None
        return Game.from_transcript(moves, board.size if isinstance(board, Shape) else board, start)
    protocol.replay = lenient


def self_pass():
    """G3: applies the opponent's forced pass itself in the numbered form too (as in classic mode)."""
    def check_input(orig):
        def f(self, *args, **kw):
            pos = self.st.game.position if self.st.game is not None else None
            if pos is not None and self.st.them.bound_run is not None and pos.turn != self.st.colour \
                    and pos.must_pass() and not pos.is_game_over():
                self.moves.their_classic_pass()
            return orig(self, *args, **kw)
        return f
    wrap(commands.Commands, "check_input_only", check_input)


def pass_lower_only():
    """P3: takes only ``pass`` in lower case for a pass (``PASS``, ``Pass``: junk)."""
    import re
    protocol._MOVE = re.compile(r"\s*([A-Za-z][0-9]{1,2}|pass)\s*(?:#([0-9]{1,9}))?\s*(?:t=([0-9]{1,9}))?\s*")


def pass_any_case():
    """P3 P5: takes ``pass`` in any case (``pAss``) for a pass."""
    import re
    protocol._MOVE = re.compile(r"\s*([A-Za-z][0-9]{1,2}|(?i:pass))\s*(?:#([0-9]{1,9}))?\s*(?:t=([0-9]{1,9}))?\s*")


def keep_early():
    """H8: keeps the numbered moves that arrive during the handshake and applies them after it."""
    def shake(orig):
        def f(self):
            self.st._early, self.st._shaking = [], True
            try:
                return orig(self)
            finally:
                self.st._shaking = False
                self.st.pending.extend(self.st._early)
        return f
    wrap(handshake.Handshake, "handshake", shake)

    def next_message(orig):
        def f(self, timeout):
            msg = orig(self, timeout)
            if getattr(self.st, "_shaking", False) and msg is not None and msg.kind == "move" and "n" in msg.fields:
                self.st._early.append(msg)
            return msg
        return f
    wrap(trouble.Wire, "next_message", next_message)


def no_rewelcome():
    """H5a: white does not answer a repeated ``hello`` for the game it plays."""
    def in_game(orig):
        return lambda self, msg: None if self.st.colour == 1 and msg.kind == "hello" and msg.get("game") == self.st.gid \
            else orig(self, msg)
    wrap(handshake.Handshake, "in_game", in_game)


def moves_required():
    """P5: a ``hello`` for a game without ``moves`` is refused (not read as no plies)."""
    def greeting(orig):
        def f(self, msg):
            if msg.kind == "hello" and "game" in msg.fields and "moves" not in msg.fields:
                return ("bad_moves", {"moves": "?", "reason": "no moves"}), None
            return orig(self, msg)
        return f
    wrap(handshake.Handshake, "check_greeting", greeting)


def other_welcome():
    """H5a: black takes a ``welcome`` for another game as one for its own."""
    def black_greeting(orig):
        def f(self, msg, strict):
            if msg.kind == "welcome" and msg.get("game") != self.st.gid:
                msg.fields["game"] = self.st.gid
            return orig(self, msg, strict)
        return f
    wrap(handshake.Handshake, "_black_greeting", black_greeting)


def any_run():
    """H8: applies a message from any run of the opponent."""
    Session._from_bound_run = lambda self, msg: True


def forget_end():
    """G6 H5: a start does not offer again a game that ended without the opponent's result."""
    def resumable(orig):
        def f(self):
            rec = orig(self)
            return None if rec is not None and rec.status in record.ENDED else rec
        return f
    wrap(recording.Keeper, "resumable", resumable)


def greet_classic():
    """H9: sends control lines to an opponent that never showed it speaks them."""
    runs.Runs.shown = lambda self: True


def classic_resend():
    """H6b: a classic program that started again is sent our last move again (the old rule)."""
    def again(self, run):
        self.st.them.bound_run = self.st.them.classic_run = run
        from engine import PASS, notation
        moves = self.st.game_now.moves
        if moves and self.st.game_now.position.turn != self.st.colour and moves[-1] != PASS:
            self.wire.send(notation.square_name(moves[-1], self.st.game_now.size))
    classic.Classic.classic_started_again = again


def classic_any_size():
    """H6c: plays classic mode on any board (the old rule)."""
    classic.Classic.classic_board_ok = lambda self: None


def size_unnamed():
    """H5: refuses another --size on an unfinished game without naming the game."""
    def say(orig):
        def f(self, key, **kw):
            if key == "unfinished_game":
                kw["id"] = "(a game)"
            return orig(self, key, **kw)
        return f
    wrap(telling.Teller, "say", say)


def no_abandon():
    """D1 H5: never closes an unfinished game as abandoned."""
    recording.Keeper.abandon = lambda self, rec, by, said=True: None


def no_refused_record():
    """D1: a refused game stays ``playing`` in its record."""
    recording.Keeper.close_refused = lambda self, key, reason: None


def remake_board():
    """T1: makes the board folder again when it is gone."""
    def gone(orig):
        def f(self):
            Path(self.st.board.folder).mkdir(parents=True, exist_ok=True)
            return orig(self)
        return f
    wrap(trouble.Wire, "_board_gone", gone)


def busy_code():
    """P1: a colour taken by a live run exits 1, not 2."""
    wrap(Session, "run", lambda run: lambda self: 1 if (code := run(self)) == 2 else code)


def full_leaves():
    """G7 T2: leaves at once (exit 5) on a full disk, whatever its patience."""
    def full(orig):
        def f(self):
            if orig(self):
                raise Leave(5)
            return False
        return f
    wrap(presence.Presence, "_disk_full", full)

    def send(orig):
        def f(self, body):
            if self.st.board.send(self.st.other, body):
                return None
            if self.st.board.problem == "full":
                raise Leave(5)
            return orig(self, body)
        return f
    wrap(trouble.Wire, "send", send)


def gone_still():
    """P2: sees the opponent's heartbeat as still: judges it gone after 6 s even while it beats."""
    def alive(orig):
        def f(self, name):
            rec = orig(self, name)
            return None if rec is None else dict(rec, beat="1")
        return f
    wrap(comm.Board, "alive", alive)


def never_gone():
    """P2 G7: never judges the opponent gone (waits for ever for one that stopped beating)."""
    presence.Presence.check_presence = lambda self: None


def early_ack():
    """G6: takes a result that arrives before the end as the acknowledgement of the end."""
    def their_result(orig):
        def f(self, msg):
            if not self.ended():
                self.st.acked = True
                return None
            return orig(self, msg)
        return f
    wrap(moves.Moves, "their_result", their_result)


def counts_strict():
    """G6: ignores a result whose counts differ from its own board (PROTOCOL.md does not)."""
    def their_result(orig):
        def f(self, msg):
            b, w = self.st.game.position.discs()
            if (msg.get("black"), msg.get("white")) != (str(b), str(w)):
                return None
            return orig(self, msg)
        return f
    wrap(moves.Moves, "their_result", their_result)


def white_fresh():
    """H2 H5: white's greeting never offers the unfinished game it resumes."""
    def hello(orig):
        def f(self, verb="hello"):
            if verb != "hello" or self.st.me != "white":
                return orig(self, verb)
            fields = {"v": protocol.VERSION, "role": self.st.me, "name": self.st.my_name}
            fields.update({k: v for k, v in self.role.hello_fields(self.st).items() if k not in ("game", "moves")})
            return protocol.control(verb, **fields)
        return f
    wrap(control.Control, "hello", hello)


def shape_unread():
    """H2a: reads a version-2 greeting's board as the plain board of its size (the shape ignored)."""
    roles.shaped = handshake.shaped = lambda msg: False


RULES = {f.__name__: f for f in (shape_unread, end_believed, unsigned_trusted, no_set_aside, seq_normalised, forget_watch_only, holder_unnamed, unknown_status_resumes, header_unknown_bad, first_line_checked, replaced_quiet, no_percent_decode, unknown_key_junk, role_checked, crash_on_leave, recipient_unchecked, clean_by_folder_time, clean_any_name, other_welcome, keep_early, no_rewelcome, moves_required, self_pass, pass_lower_only, pass_any_case, v_blank_ok, bye_after_refuse, pass_left_out_ok, current_unpadded, game_unterminated, no_crc_ok, marker_loose, record_newline, ops_before_init, join_any, break_live, never_break, forget_watch, keep_damaged, com0_ok, no_to_run,
                                 no_record, no_ack, no_refused, any_version, any_run, forget_end, greet_classic, classic_resend, classic_any_size,
                                 size_unnamed, no_abandon, no_refused_record, remake_board, busy_code, full_leaves,
                                 gone_still, never_gone, early_ack, counts_strict, white_fresh)}


if __name__ == "__main__":
    rule, cmd, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    RULES[rule]()
    if cmd == "serve":
        from comm.__main__ import main as serve_main
        sys.exit(serve_main(["serve", *args]))
    from peer.cli import main as play_main
    sys.exit(play_main(["play", "--ai", "random", *args]))
