"""The match core (``peer.match``): plies judged once, the clocks, the end, and which plies a
transcript from the other side may bring; then the same rules through a session in-process.

The state machine drives a ``Match`` with what a hostile opponent or a third writer could make
arrive (any ply with any number, any transcript that replays, resignations, leaving) and what
this side does (its own legal plies): whatever arrives, the game holds only plies this side made
or that the opponent made on its turn, on the board it started on, and it ends only by the rules.
"""
import time

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from engine import BLACK, PASS, WHITE, Game, Shape, square_name
from peer import protocol
from peer.match import Match, Outcome, Termination, resigner

from peerfakes import Exhausted, session

STATEFUL = settings(derandomize=True, database=None, deadline=None, max_examples=150, stateful_step_count=40,
                    suppress_health_check=[HealthCheck.too_slow])


def game_of(transcript, size=8):
    return protocol.replay(transcript, Shape.square(size))


# -- the rules, one at a time ------------------------------------------------------------------

def test_a_ply_is_judged_in_the_order_of_g2():
    m = Match(WHITE, Shape.square(8))
    assert m.judge("f5", BLACK, 1).square is not None
    assert m.judge("f5", BLACK, 0).duplicate
    assert m.judge("f5", BLACK, 3).reason.code == "missing"
    assert m.judge("f5", WHITE, 1).reason.code == "out_of_turn"       # the turn before the square
    assert m.judge("a1", BLACK, 1).reason.code == "illegal_flips_nothing"
    assert m.judge("i9", BLACK).reason.code == "illegal_off_board"
    assert m.judge("pass", BLACK).reason.code.startswith("illegal_")


def test_the_end_is_one_outcome():
    m = Match(BLACK, Shape.square(4))
    assert m.outcome is None and m.my_turn()
    game = Game(4, Shape.square(4).start())
    while not game.position.is_game_over():
        game.play(game.position.legal_moves()[0] if game.position.legal_moves() else PASS)
    m = Match(BLACK, Shape.square(4), game)
    out = m.outcome
    assert out.termination is Termination.NO_MOVES and out.status == "over"
    assert out.result == "%d-%d" % game.position.discs() and out.winner == game.position.winner()
    assert not m.my_turn() and m.to_move() is None


def test_a_resignation_names_the_winner_and_counts_the_turn_under_way():
    m = Match(BLACK, Shape.square(8))
    m.clocks.start(100.0)
    assert m.resign(BLACK, 2500, 102.5)
    assert m.outcome == Outcome(Termination.RESIGNATION, WHITE, (2, 2))
    assert m.outcome.result == "black resigned" and resigner("black resigned") == BLACK
    assert m.clocks.ms == (2500, 0) and m.resign_ms == 2500
    assert not m.resign(WHITE, 100, 103.0) and m.outcome.winner == WHITE       # once
    # a resignation on the other side's turn: the resigner's time does not grow
    m = Match(WHITE, Shape.square(8))
    assert m.resign(WHITE, 4000, 1.0) and m.clocks.ms == (0, 0) and m.resign_ms is None


def test_the_winners_ply_that_crossed_the_resignation_is_still_applied():
    """G6: a move that arrives after the receiver's own resignation is applied as usual; the
    resigner's own plies are not."""
    m = Match(WHITE, Shape.square(8))
    m.resign(WHITE, 0, 0.0)         # white resigns on black's turn
    v = m.judge("f5", BLACK, 1)
    assert v.square is not None
    m.play(v.square, 10, 1.0)
    assert m.outcome.termination is Termination.RESIGNATION and m.outcome.winner == BLACK
    assert m.judge("d6", WHITE, 2).reason.code == "out_of_turn"


def test_clocks_count_what_the_movers_say_and_leaving_counts_the_turn_under_way():
    m = Match(BLACK, Shape.square(8))
    m.clocks.start(10.0)
    assert m.clocks.thinking_ms(11.25) == 1250
    m.play(m.judge("f5", BLACK).square, 1250, 11.25)
    m.play(m.judge("d6", WHITE).square, 700, 12.0)      # white's own figure, not ours
    assert m.clocks.ms == (1250, 700)
    m.leave(WHITE, 5000, 13.0)                          # not white's turn: nothing counted
    m.leave(BLACK, 3000, 15.0)
    assert m.clocks.ms == (4250, 700) and m.clocks.thinking_ms(15.5) == 500


def test_a_transcript_may_bring_the_other_sides_plies_and_forced_passes_only():
    m = Match(WHITE, Shape.square(8), game_of("f5"))
    assert m.adopt(game_of("f5")).taken == 0
    assert m.adopt(game_of("")).taken == 0                          # ours continues it
    assert m.adopt(game_of("d3")).reason.code == "records_differ"
    v = m.adopt(game_of("f5d6c3"))                                  # d6 is white's: not white's doing
    assert v.reason.code == "not_my_ply" and "d6" in v.reason.english and "white's move 2" in v.reason.english
    assert m.transcript() == "f5"
    m = Match(BLACK, Shape.square(8), game_of("f5"))
    assert m.adopt(game_of("f5d6")).taken == 1 and m.transcript() == "f5d6"
    # a forced pass of ours is the rules', not a choice: taken
    ours, theirs = _a_forced_pass(BLACK)
    m = Match(BLACK, Shape.square(8), ours)
    assert m.adopt(theirs).taken == len(theirs.moves) - len(ours.moves) >= 1


def test_a_side_that_lost_its_record_takes_its_own_plies_back_once():
    """D6: a side going on from no plies under the id of a record set aside takes the plies the
    opponent's transcript brings, its own included; once."""
    m = Match(WHITE, Shape.square(8), recovering=True)
    assert m.adopt(game_of("f5d6c3")).taken == 3 and not m.recovering
    assert m.adopt(game_of("f5d6c3d3c4")).reason.code == "not_my_ply"


def _a_forced_pass(colour):
    """(ours, theirs): a game up to a forced pass of ``colour``, and the same game with that pass
    and the opponent's next ply (from a fixed search)."""
    import random
    rnd = random.Random(7)
    for _ in range(4000):
        g = Game()
        while not g.position.is_game_over():
            pos = g.position
            if pos.must_pass() and pos.turn == colour:
                ours = game_of(g.transcript(passes=True))
                g.play(PASS)
                if not g.position.is_game_over():
                    g.play(rnd.choice(g.position.legal_moves()) if not g.position.must_pass() else PASS)
                return ours, g
            g.play(PASS if pos.must_pass() else rnd.choice(pos.legal_moves()))
    raise AssertionError("no forced pass found")


# -- the state machine: whatever arrives ---------------------------------------------------------

class HostileOpponent(RuleBasedStateMachine):
    """This side (``me``) against an opponent that sends anything."""

    @initialize(me=st.sampled_from([BLACK, WHITE]), size=st.sampled_from([4, 6, 8]))
    def start(self, me, size):
        self.me, self.board = me, Shape.square(size)
        self.match = Match(me, self.board)
        self.mine = {}          # ply index -> the square this side chose there
        self.now = 0.0
        self.outcome = None
        self.match.clocks.start(self.now)

    def tick(self, ms):
        self.now += ms / 1000

    @rule(pick=st.integers(0, 63), ms=st.integers(0, 10**6))
    def i_move(self, pick, ms):
        m = self.match
        if not m.my_turn():
            return
        legal = m.position.legal_moves() or [PASS]
        move = legal[pick % len(legal)]
        text = "pass" if move == PASS else square_name(move, self.board.size)
        v = m.judge(text, self.me)
        assert v.square == move
        self.mine[m.plies] = move
        self.tick(ms)
        m.play(move, ms, self.now)

    @rule(square=st.one_of(st.sampled_from(["pass", "PASS", "a1", "z9", "a0"]),
                           st.builds(lambda c, r: f"{c}{r}", st.sampled_from("abcdefgh"), st.integers(1, 8))),
          n=st.one_of(st.none(), st.integers(0, 70)), ms=st.integers(0, 10**6))
    def a_ply_arrives(self, square, n, ms):
        """Anything the opponent sends as its move, on its turn or not (a message from the board is
        always the opponent's: the session never judges one as this side's)."""
        m = self.match
        v = m.judge(square, 1 - self.me, n)
        if v.square is not None:
            assert m.position.turn != self.me, "a ply was accepted on this side's turn"
            m.play(v.square, ms, self.now)

    @rule(seed=st.integers(0, 2**32 - 1), extra=st.integers(0, 12), cut=st.integers(0, 60))
    def a_transcript_arrives(self, seed, extra, cut):
        """Any transcript that replays: ours cut short, ours continued at random, or another game."""
        import random
        rnd = random.Random(seed)
        base = self.match.game.moves[:cut] if rnd.random() < 0.8 else []
        g = Game(self.board.size, self.board.start())
        for mv in base:
            g.play(mv)
        for _ in range(extra):
            pos = g.position
            if pos.is_game_over():
                break
            g.play(PASS if pos.must_pass() else rnd.choice(pos.legal_moves()))
        before = list(self.match.game.moves)
        v = self.match.adopt(g)
        if v.taken:
            assert self.match.game.moves[:len(before)] == before

    @rule(as_me=st.booleans(), ms=st.one_of(st.none(), st.integers(0, 10**6)))
    def someone_resigns(self, as_me, ms):
        self.match.resign(self.me if as_me else 1 - self.me, ms, self.now)

    @rule(ms=st.one_of(st.none(), st.integers(0, 10**6)))
    def they_leave(self, ms):
        self.match.leave(1 - self.me, ms, self.now)

    @invariant()
    def only_plies_i_made_are_mine(self):
        g = getattr(self, "match", None)
        if g is None:
            return
        game = g.game
        for i, (pos, move) in enumerate(zip(game.positions, game.moves)):
            if pos.turn == self.me and not (move == PASS and pos.must_pass()):
                assert self.mine.get(i) == move, f"ply {i + 1} of this side was not made by it"

    @invariant()
    def the_board_is_the_one_it_started_on(self):
        if getattr(self, "match", None) is None:
            return
        assert self.match.game.positions[0] == Game(self.board.size, self.board.start()).position
        protocol.replay(self.match.transcript(), self.board)        # every ply legal

    @invariant()
    def the_end_holds_once_reached(self):
        if getattr(self, "match", None) is None:
            return
        now = self.match.outcome
        if self.outcome is not None:
            assert now is not None and now.termination == self.outcome.termination
            assert now.winner == self.outcome.winner or self.outcome.termination is Termination.NO_MOVES
        if now is not None and now.termination is Termination.NO_MOVES:
            assert self.match.position.is_game_over()
        self.outcome = now

    @invariant()
    def clocks_never_go_back(self):
        if getattr(self, "match", None) is None:
            return
        ms = self.match.clocks.ms
        before = getattr(self, "ms", (0, 0))
        assert ms[0] >= before[0] and ms[1] >= before[1]
        self.ms = ms


HostileOpponent.TestCase.settings = STATEFUL
test_a_hostile_opponent_never_plays_this_sides_plies = HostileOpponent.TestCase


# -- through a session, in-process ---------------------------------------------------------------

def _run(s, b):
    try:
        return s.run()
    except Exhausted:
        return None


def _hello(game="g1", moves="", **kw):
    return protocol.control("hello", v=1, role="black", name="eve", size=8, game=game, moves=moves, **kw)


def _exchanged(b):
    """Black's f5 and the move white sent back."""
    return "f5" + next(protocol.parse(body).get("square") for _, body in b.sent if not body.startswith("#"))


def _a_bad_ending_for_white(start):
    """A transcript from ``start`` to the end in which white always plays its worst-looking move."""
    g = game_of(start)
    while not g.position.is_game_over():
        pos = g.position
        if pos.must_pass():
            g.play(PASS)
        else:
            g.play(pos.legal_moves()[-1 if pos.turn == WHITE else 0])
    return g.transcript(passes=True)


@pytest.mark.parametrize("secret", [None, b"k"])
def test_an_opponent_holding_the_secret_cannot_play_our_moves_through_its_hello(tmp_path, secret):
    """The attack: after one exchange, black's bound run sends a hello whose transcript runs to the
    end of the game with white's moves chosen for it.  White refuses it and the game goes on (before:
    white took every ply, announced them as its own and recorded the game over)."""
    s, b, out = session(tmp_path / "b", WHITE, secret=secret)
    signed = secret is not None
    b.push("black", _hello(), signed=signed)
    b.push("black", "f5 #1", signed=signed)
    b.push("black", lambda b: _hello(moves=_a_bad_ending_for_white(_exchanged(b))), signed=signed,
           after=lambda b: b.moves_sent() == 1)
    assert _run(s, b) is None
    text = out.getvalue()
    assert s.st.game.transcript(passes=True) == _exchanged(b)
    assert s.st.record.status == "playing" and not s.st.match.ended
    assert "which white did not make" in text and "as eve's side has it" not in text, text
    refused = [protocol.parse(body) for _, body in b.sent if body.startswith("#cardstand refused")]
    assert refused and "which white did not make" in refused[-1].get("reason")


def test_a_welcome_cannot_play_blacks_moves_either(tmp_path):
    s, b, out = session(tmp_path / "b", BLACK)

    def welcome(b):
        hello = protocol.parse(b.last_sent())
        return protocol.control("welcome", v=1, role="white", name="W", game=hello.get("game"),
                                moves=_a_bad_ending_for_white(""))
    b.push("white", welcome, after=lambda b: bool(b.last_sent()))
    assert _run(s, b) == 3          # in the handshake: refused, and this side stops (H4)
    assert "which black did not make" in out.getvalue()
    assert protocol.parse(b.sent[-1][1]).kind == "refuse" and s.st.game.moves == []


def test_a_restarted_opponents_transcript_still_brings_its_own_plies(tmp_path):
    """H5: what the other side played and this side never received is taken (and announced)."""
    s, b, out = session(tmp_path / "b", WHITE)
    b.push("black", _hello())
    b.push("black", "f5 #1")

    def restarted(b):           # black's new run: its member record names it first
        b.runs["black"] = "2" * 16
        return True
    b.push("black", lambda b: _hello(moves=_exchanged(b) + "c3"), run="2" * 16,
           after=lambda b: b.moves_sent() == 1 and restarted(b))
    assert _run(s, b) is None
    assert len(s.st.game.moves) >= 3 and "not make" not in out.getvalue()


def test_with_a_secret_an_unsigned_record_under_another_id_does_not_pick_the_board(tmp_path):
    """The forgery: a writer without the secret plants a record whose ``id:`` differs from its file
    name, on a 4x4 board with a hole.  The signature is checked first: the record is untrusted and
    its board is not used (before: "damaged", and both sides played on the forger's board)."""
    from peer.record import Record, Records, Untrusted
    board = tmp_path / "b"
    s, b, out = session(board, BLACK, secret=b"k")
    forged = Record(id="other", size=4, shape="#.../.XO./.OX./....")
    (board / "records").mkdir(exist_ok=True)
    (board / "records" / "g1.game").write_text(forged.text())
    (board / "records" / "current").write_text("g1\n")
    with pytest.raises(Untrusted) as e:
        Records(board, b"k").load("g1")
    assert e.value.board is None

    def welcome(b):
        hello = protocol.parse(b.last_sent())
        return protocol.control("welcome", v=1, role="white", name="W", game=hello.get("game"), moves="")
    b.push("white", welcome, after=lambda b: bool(b.last_sent()), signed=True)
    assert _run(s, b) is None
    assert s.st.shape.is_plain() and s.st.size == 8, s.st.shape
    assert "size=4" not in b.last_sent() and "shape" not in b.last_sent()


def test_a_restarted_opponents_turn_is_counted_from_its_return(tmp_path):
    """After a resume both screens show the returning side thinking since it came back (before: the
    side that stayed counted from the last ply, the time away included)."""
    import time
    s, b, out = session(tmp_path / "b", WHITE)
    b.push("black", _hello())
    b.push("black", "f5 #1")
    back = []

    def restarted(b):
        b.runs["black"] = "2" * 16
        back.append(time.monotonic())
        return True
    b.push("black", lambda b: _hello(moves=_exchanged(b)), run="2" * 16,
           after=lambda b: b.moves_sent() == 1 and time.sleep(0.5) is None and restarted(b))
    assert _run(s, b) is None
    assert s.st.match.position.turn == BLACK and s.st.them.bound_run == "2" * 16
    assert s.st.clocks.turn_since >= back[0]


@pytest.mark.parametrize("secret", [None, b"k"])
def test_one_writer_cannot_flood_the_screen_whatever_it_varies(tmp_path, secret):
    """300 forged messages, each from another run (without a secret), or 300 that fail the MAC (with
    one): a dozen lines a minute at most reach the screen, and one line counts the rest."""
    from comm import Rejected
    from peer.garbage import NOISE_SHOWN
    s, b, out = session(tmp_path / "b", BLACK, secret=secret)

    def welcome(b):
        hello = protocol.parse(b.last_sent())
        return protocol.control("welcome", v=1, role="white", name="W", game=hello.get("game"), moves="")
    b.push("white", welcome, after=lambda b: bool(b.last_sent()), signed=secret is not None)

    def flood(b):
        for i in range(300):
            if secret:
                b.rejected.append(Rejected("white", f"{i:016x}", i, f"wrong MAC ({i})"))
        return b.moves_sent() == 1
    for i in range(300 if not secret else 1):
        b.push("white", f"#cardstand say text=spam{i}", run=f"{i:016x}", after=flood if i == 0 else None)
    b.push("white", "#cardstand say text=last", signed=secret is not None)
    assert _run(s, b) is None
    text = out.getvalue()
    shown = text.count("from another run of white") + text.count("claiming to be from white was refused")
    assert 0 < shown <= NOISE_SHOWN, text[-2000:]
    assert "more lines from the board were not shown" in text, text[-2000:]


def _welcome(b):
    hello = protocol.parse(b.last_sent())
    return protocol.control("welcome", v=1, role="white", name="W", game=hello.get("game"), moves="")


def test_a_game_whose_record_was_deleted_is_said_lost_not_dropped(tmp_path):
    """The record of an unfinished game deleted while both sides were away: the side that starts
    says so and goes on under its id (before: a new game, in silence)."""
    from peer.record import Records
    board = tmp_path / "b"
    s, b, out = session(board, BLACK)
    recs = Records(board)
    (board / "records").mkdir(exist_ok=True)
    (board / "records" / "current").write_text("g-lost\n")
    recs.save_clock("g-lost", "black", 4000)
    b.push("white", _welcome, after=lambda b: bool(b.last_sent()))
    assert _run(s, b) is None
    assert "The record of game g-lost is gone from the board" in out.getvalue()
    assert s.st.gid == "g-lost" and "game=g-lost" in b.last_sent()


def test_with_a_secret_a_current_pointed_at_an_older_game_does_not_drop_the_signed_one(tmp_path):
    """``records/current`` (unsigned) pointed at an older finished game while a signed game is
    unfinished: the signed game is said and resumed (before: a new game, the signed one never
    mentioned)."""
    from peer.record import Record, Records
    board = tmp_path / "b"
    s, b, out = session(board, BLACK, secret=b"k")
    recs = Records(board, b"k")
    recs.save(Record(id="g-old", moves=_a_bad_ending_for_white(""), status="over",
                     result="%d-%d" % game_of(_a_bad_ending_for_white("")).position.discs()))
    recs.acknowledge("g-old", "black")
    recs.save(Record(id="g-live", moves="f5d6", black="B", white="W"))
    recs.save_clock("g-live", "black", 1000)
    (board / "records" / "current").write_text("g-old\n")
    b.push("white", _welcome, after=lambda b: bool(b.last_sent()), signed=True)
    assert _run(s, b) is None
    text = out.getvalue()
    assert "Game g-live (B vs W, next move 3) is unfinished on this board, but records/current names g-old" in text
    assert s.st.gid == "g-live" and s.st.game.transcript(passes=True).startswith("f5d6")


def test_a_new_game_id_mid_game_cannot_bring_our_moves_either(tmp_path):
    """The same attack under another game id: white closes its game for black's new one, but takes
    none of white's plies from it (a side that took part in no game under that id made none)."""
    s, b, out = session(tmp_path / "b", WHITE)
    b.push("black", _hello())
    b.push("black", "f5 #1")
    b.push("black", lambda b: _hello(game="g2", moves=_a_bad_ending_for_white(_exchanged(b))),
           after=lambda b: b.moves_sent() == 1)
    assert _run(s, b) is None
    assert "which white did not make" in out.getvalue()
    assert not s.st.match.ended and len(s.st.game.moves) <= 2


def test_with_a_secret_planted_unsigned_files_do_not_let_the_opponent_play_our_moves(tmp_path):
    """``records/current`` and a clock file are not signed: the lost game they claim goes on under
    its id, but this side's plies are not taken from the opponent's transcript."""
    from peer.record import Records
    board = tmp_path / "b"
    s, b, out = session(board, BLACK, secret=b"k")
    (board / "records").mkdir(exist_ok=True)
    (board / "records" / "current").write_text("g-lost\n")
    Records(board).save_clock("g-lost", "black", 5)

    def welcome(b):
        hello = protocol.parse(b.last_sent())
        return protocol.control("welcome", v=1, role="white", name="W", game=hello.get("game"),
                                moves=_a_bad_ending_for_white(""))
    b.push("white", welcome, after=lambda b: bool(b.last_sent()), signed=True)
    assert _run(s, b) == 3
    assert "which black did not make" in out.getvalue() and s.st.game.moves == []


def test_a_repeated_bye_counts_once(tmp_path):
    s, b, out = session(tmp_path / "b", WHITE)
    b.push("black", _hello())
    b.push("black", "f5 #1 t=10")
    for _ in range(50):
        b.push("black", "#cardstand bye t=999999999", after=lambda b: b.moves_sent() == 1)
    assert _run(s, b) is None
    assert s.st.clocks.ms[BLACK] == 10 + 999999999
    assert out.getvalue().count("Time used") <= 2


def test_typed_lines_are_read_into_commands():
    from peer.commands import HINT, QUIT, Answer, Play, Resign, Say, Unknown, parse
    assert parse("  ｆ５ ") == Play("f5") and parse("PASS") == Play("pass") and parse("pass") == Play("pass")
    assert parse("ヒント") == HINT and parse("q") == QUIT and parse("終了") == QUIT
    assert parse("resign") == parse("投了") == Resign(confirmed=False)
    assert parse("はい") == Answer(True, "はい") and parse("n") == Answer(False, "n")
    assert parse("say  hello  there ") == Say("hello  there") and parse("say") == Say("")
    assert parse("maybe") == Unknown("maybe") and parse("   ") is None


def test_a_confirmed_resignation_from_a_face_is_not_asked_again(tmp_path):
    """A window's second click sends ``Resign(confirmed=True)``: the side resigns at once (it used to
    type ``resign`` and then ``yes``)."""
    from peer.commands import Resign
    from peer.players import Lines
    s, b, out = session(tmp_path / "b", BLACK)
    s.st.player.kind = "human"
    s.st.player.lines = Lines()
    b.push("white", _welcome, after=lambda b: bool(b.last_sent()))
    b.push("white", "#cardstand say text=hi", after=lambda b: s.st.player.lines.put(Resign(confirmed=True)) or True)
    assert _run(s, b) is None
    text = out.getvalue()
    assert "You resigned" in text and "Resign this game?" not in text and s.st.match.resigned == BLACK
    assert b.last_sent("#cardstand resign") and b.last_sent("#cardstand result")


@pytest.mark.parametrize("lang, answers, said", [
    ("en", ["resign", "maybe", "no", "no"], ["Resign this game?", "'maybe' is not an answer", "Not resigned",
                                               "'no': there is no question to answer"]),
    ("ja", ["投了", "たぶん", "いいえ"], ["投了しますか", "「たぶん」", "投了を取り消しました"]),
])
def test_the_resign_question_stands_until_it_is_answered(tmp_path, lang, answers, said):
    """An answer that is not one asks again (it used to cancel in silence); 'no' then cancels, and
    a 'no' with no question pending says there is none (it said "Unknown command 'no'")."""
    from peer.faces.plain import Screen
    from peer.players import Lines
    s, b, out = session(tmp_path / "b", BLACK)
    s.st.screen = s.tell.st.screen = Screen(lang, colour=False, stream=out)
    s.st.player.kind = "human"
    s.st.player.lines = Lines()
    b.push("white", _welcome, after=lambda b: bool(b.last_sent()))
    gates = [None] + said[:-1]      # each answer typed once the screen has said what the last one did
    for line, gate in zip(answers, gates):
        b.push("white", "#cardstand say text=hi",
               after=lambda b, line=line, gate=gate: (gate is None or gate in out.getvalue())
               and (s.st.player.lines.put(line) or True))
    deadline = time.monotonic() + 20
    b.push("white", "#cardstand say text=hi",        # (then the board runs out: the session ends)
           after=lambda b: (said[-1] in out.getvalue() or time.monotonic() > deadline) and not setattr(b, "idle", False))
    b.idle = True       # (a quiet board while the answers are typed)
    _run(s, b)
    text = out.getvalue()
    at = [text.find(words) for words in said]
    assert all(i >= 0 for i in at) and at == sorted(at), (at, text)
    assert s.st.match.resigned is None


def test_chat_is_sent_as_typed_and_only_the_command_word_is_read_at_any_width():
    from peer.commands import Play, Say, parse
    assert parse("say  ｈｅｌｌｏ　①") == Say("ｈｅｌｌｏ　①")
    assert parse("ｓａｙ\tこんにちは") == Say("こんにちは") and parse("say　やあ") == Say("やあ")
    assert parse("パス") == Play("pass")


def test_leaving_on_the_other_sides_turn_leaves_its_thinking_alone():
    """A side that leaves while the other thinks changes nothing of that turn; a side that leaves
    twice in one turn (two runs) has both leavings counted."""
    m = Match(WHITE, Shape.square(8))
    m.clocks.start(0.0)
    m.play(m.judge("f5", BLACK).square, 1000, 1.0)     # white to move from 1.0
    m.leave(BLACK, 500, 3.0)                            # black leaves on white's turn
    assert m.clocks.thinking_ms(6.0) == 5000 and m.clocks.ms == (1000, 0)
    m = Match(BLACK, Shape.square(8))
    m.play(m.judge("f5", BLACK).square, 0, 0.0)
    m.leave(WHITE, 2000, 2.0)
    m.leave(WHITE, 4000, 6.0)                           # its second run, in the same turn
    assert m.clocks.ms == (0, 6000)


def test_an_opponent_that_floods_the_chat_gets_a_bounded_share_of_the_screen(tmp_path):
    """Chat has its own share (a person may chat quickly), bounded too, and it is not eaten by a flood
    of refused messages."""
    from peer.garbage import CHAT_SHOWN
    s, b, out = session(tmp_path / "b", BLACK)
    b.push("white", _welcome, after=lambda b: bool(b.last_sent()))
    for i in range(40):
        b.push("white", f"#cardstand say text=from-another-run{i}", run=f"{i:016x}",
               after=(lambda b: b.moves_sent() == 1) if i == 0 else None)
    for i in range(200):
        b.push("white", f"#cardstand say text=chat{i}")
    assert _run(s, b) is None
    text = out.getvalue()
    assert "W says: chat0" in text and text.count("W says: chat") == CHAT_SHOWN
    assert "more lines from the board were not shown" in text


def test_a_peer_without_an_alive_record_that_names_this_computer_is_told_what_is_wrong(tmp_path):
    """A classic peer that writes its real ``machine`` in its member record and keeps no ``alive``
    record (wrong by I1a): comm judges its run closed.  Black says what is wrong with white's member
    record, once (before: only "white left the game. Waiting for them to come back", while white was
    there)."""
    import time
    s, b, out = session(tmp_path / "b", BLACK)
    b.idle = True
    b.states["white"] = None                            # no alive record
    b.left_how = lambda name: "closed" if name == "white" else ""
    start = time.monotonic()

    def later(b):
        if time.monotonic() - start > 2:
            raise Exhausted()
        return False
    b.push("white", "junk", after=later)
    assert _run(s, b) is None
    text = out.getvalue()
    assert "white's member record names this computer and a process that runs, but no alive record names its run" in text
    assert "must then leave machine empty in its member record (PROTOCOL.md I1a)" in text
    assert text.count("no alive record names its run") == 1


def test_a_side_that_has_just_started_takes_back_its_own_plies_once():
    """D2: both sides write the one record, and the last writer's copy may be behind what a side
    played: a side that has just started takes its own plies from the other side's first transcript
    (``spare``), and none once the game goes on."""
    m = Match(BLACK, Shape.square(8), game_of("f5d6"), spare=64)
    assert m.adopt(game_of("f5d6c3d3c4")).taken == 3 and m.spare == 0
    assert m.adopt(game_of("f5d6c3d3c4f4f6")).reason.code == "not_my_ply"
    m = Match(BLACK, Shape.square(8), game_of("f5d6"), spare=1)
    assert m.adoption(game_of("f5d6c3d3c4")).reason.code == "not_my_ply"      # (a spare of one: c4 is a second)
