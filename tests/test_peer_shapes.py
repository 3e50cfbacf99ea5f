"""Games on shaped boards: --shape, the version-2 greetings, the record's shape line, holes
on the plain screen, refusals, kills and resume.  The players use ``random`` and ``greedy`` (their moves
go through ``Position``, which knows the holes)."""
import os
import time

import pytest

from engine import Shape
from peer import protocol
from peer.record import Damaged, Record, Records, Untrusted
from conformance.play import _expect as expect

from peertools import board_folder, file_hashes, final_line, finish, game_board, player

SECRET = b"s3cret-for-shapes"


def _holes_kept(rec, shape):
    """The record's game: played on ``shape``, no disc on a hole, over."""
    assert rec.board().same_board(shape), rec.shape
    g = rec.game()
    assert g.start.holes == shape.holes
    for pos in g.positions:
        assert not (pos.black | pos.white) & shape.holes
    return g


def test_whole_games_on_several_shapes(tmp_path):
    """Two processes play whole games on built-in boards and one's own file; both sides see the
    same end, the record carries the shape, and the screen draws the holes."""
    own = tmp_path / "ring.txt"
    own.write_text("# a ring of holes\n######\n#....#\n#.OX.#\n#.XO.#\n#....#\n######\n", encoding="utf-8")
    cases = {"heart": Shape.named("Heart"), "X": Shape.named("X"), "torus": Shape.named("Torus"),
             str(own): Shape.load(own)}
    games = []
    for i, spec in enumerate(cases):
        board = tmp_path / f"b{i}"
        games.append((spec, board, player("black", board, "--ai", "random", "--seed", i, "--shape", spec),
                      player("white", board, "--ai", "greedy")))
    for spec, board, b, w in games:
        rb, ob = finish(b, timeout=240)
        rw, ow = finish(w, timeout=240)
        assert rb == 0 and rw == 0, (spec, ob[-800:], ow[-800:])
        assert final_line(ob) == final_line(ow) is not None
        on_b, on_w = ([line.split(" on ", 1)[1] for line in o.splitlines() if line.startswith("Game on:")]
                      for o in (ob, ow))
        assert on_b == on_w and on_b, (spec, on_b, on_w)        # both name the board alike
        rec = Records(board).current()
        g = _holes_kept(rec, cases[spec])
        assert rec.status == "over" and g.position.is_game_over()
        assert f"shape: {cases[spec].code()}\n" in Records(board).path(rec.id).read_text()
        shape, n = cases[spec], cases[spec].size
        rows = [line for line in ob.splitlines() if line[:3].strip().isdigit()][:n]
        assert len(rows) == n, ob[:2000]
        for y, row in enumerate(rows):      # the first board drawn: a hole is '#', nothing else is
            assert [row[4 + 2 * x] == "#" for x in range(n)] == [bool(shape.holes >> (y * n + x) & 1)
                                                                for x in range(n)], (spec, row)


def test_the_start_line_names_the_shape(tmp_path):
    board = tmp_path / "b"
    b = player("black", board, "--ai", "random", "--shape", "HEART")
    w = player("white", board, "--ai", "random", "--lang", "ja")
    rb, ob = finish(b, timeout=240)
    rw, ow = finish(w, timeout=240)
    assert rb == rw == 0, (ob[-600:], ow[-600:])
    assert "on the Heart board (8x8 with holes)." in ob
    assert "ハートの盤（8×8、穴あり）" in ow


@pytest.mark.parametrize("victim", ["black", "white"])
def test_kill_and_resume_on_a_shape(tmp_path, victim):
    board = tmp_path / "b"
    shape = Shape.named("Cross")
    common = ["--ai", "random", "--time", "0.05", "--pace", "0.15"]
    procs = {"black": player("black", board, *common, "--seed", 1, "--shape", "cross"),
             "white": player("white", board, *common, "--seed", 2)}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        rec = Records(board).current()
        if rec and rec.moves_played() >= 8:
            break
        time.sleep(0.05)
    procs[victim].kill()                # (SIGKILL where there is one)
    procs[victim].wait()
    time.sleep(0.5)
    procs[victim] = player(victim, board, *common, "--seed", 3)    # (no --shape: the record has it)
    rb, ob = finish(procs["black"], timeout=180)
    rw, ow = finish(procs["white"], timeout=180)
    assert rb == 0 and rw == 0, (ob[-600:], ow[-600:])
    assert "Resuming game" in (ob if victim == "black" else ow)
    assert final_line(ob) == final_line(ow) is not None
    rec = Records(board).current()
    assert rec.status == "over" and _holes_kept(rec, shape).position.is_game_over()


def test_a_white_that_requires_another_shape_refuses_naming_both(tmp_path):
    board = tmp_path / "b"
    b = player("black", board, "--ai", "random", "--shape", "heart")
    w = player("white", board, "--ai", "random", "--shape", "cross")
    rb, ob = finish(b, timeout=120)
    rw, ow = finish(w, timeout=120)
    assert rb == 3 and rw == 3, (ob[-600:], ow[-600:])
    for out in (ob, ow):
        assert "Heart" in out and "Cross" in out, out[-600:]


def test_a_white_that_requires_a_shape_refuses_the_plain_board(tmp_path):
    board = tmp_path / "b"
    b = player("black", board, "--ai", "random")
    w = player("white", board, "--ai", "random", "--shape", "diamond")
    rb, ob = finish(b, timeout=120)
    rw, ow = finish(w, timeout=120)
    assert rb == 3 and rw == 3, (ob[-600:], ow[-600:])
    for out in (ob, ow):        # (whichever side notices first refuses)
        assert "Diamond" in out and "8x8" in out, out[-600:]


def test_shaped_greetings_are_version_2_and_a_plain_one_stays_version_1(tmp_path):
    board = tmp_path / "b"
    b = player("black", board, "--ai", "random", "--shape", "plus")
    me = game_board(board, "white")
    hello = expect(me, "hello")
    assert hello.get("v") == "2" and hello.get("size") == "8" and hello.get("shape") == Shape.named("Plus").code()
    # a peer that knows no shapes refuses it (H4) by its version: here, one that speaks 1 refuses 2
    me.send("black", protocol.control("refuse", reason="protocol version 2 is not supported (this program speaks 1)"))
    rb, ob = finish(b, timeout=60)
    assert rb == 3 and "version 2" in ob
    board2 = tmp_path / "b2"
    b2 = player("black", board2, "--ai", "random", "--shape", "square-8")      # the plain board by name
    me2 = game_board(board2, "white")
    hello2 = expect(me2, "hello")
    assert hello2.get("v") == "1" and "shape" not in hello2.fields
    b2.kill()
    b2.wait()


@pytest.mark.parametrize("fields, words", [
    (dict(size=8, shape="..../.OX./.XO./...."), "the shape is 4x4, its size says 8"),
    (dict(size=8, shape="########/" * 7 + "########"), "bad board shape"),
    (dict(size=4, shape="..../.OX./.XO./...#/"), "bad board shape"),
])
def test_a_bad_shape_in_a_greeting_is_refused(tmp_path, fields, words):
    board = tmp_path / "b"
    w = player("white", board, "--ai", "random")
    me = game_board(board, "black")
    deadline = time.monotonic() + 30
    while not me.send("white", protocol.control("hello", v=2, role="black", game="g1", moves="", **fields)):
        assert time.monotonic() < deadline, "white never joined"
        time.sleep(0.1)
    assert words in expect(me, "refuse").get("reason")
    rw, ow = finish(w, timeout=60)
    assert rw == 3


def test_a_shape_key_in_a_version_1_greeting_is_not_read(tmp_path):
    """Version 1 knows no shapes: its greeting is the plain board whatever else it carries."""
    board = tmp_path / "b"
    w = player("white", board, "--ai", "random", "--shape", "heart")
    me = game_board(board, "black")
    deadline = time.monotonic() + 30
    heart = Shape.named("Heart").code()
    while not me.send("white", protocol.control("hello", v=1, role="black", size=8, shape=heart, game="g1",
                                                moves="")):
        assert time.monotonic() < deadline, "white never joined"
        time.sleep(0.1)
    assert "black proposes the board 8x8, white wants Heart" in expect(me, "refuse").get("reason")
    finish(w, timeout=60)


@pytest.mark.parametrize("picture, why", [
    ("......\n.OX...\n.XO...\n......\n......\n.....\n", "not a rectangle"),
    (".....\n.OX..\n.XO..\n.....\n.....\n", "5x5: a board is even"),
    ("......\n......\n..XX..\n..XX..\n......\n......\n", "no white disc"),
    ("......\n......\n......\n......\n......\n......\n", "no black disc"),
    ("......\n.####.\n.#OX#.\n.#XO#.\n.####.\n......\n", "neither side can move"),
    ("....\n.OX.\n.XO.\n..?.\n", "c4 is '?'"),
])
def test_bad_shape_files_are_refused_with_the_reason(tmp_path, picture, why):
    """One line, exit 2, nothing on the board touched."""
    f = tmp_path / "mine.txt"
    f.write_text(picture, encoding="utf-8")
    board = board_folder(tmp_path / "b")
    before = file_hashes(board)
    for colour in ("black", "white"):
        r, out = finish(player(colour, board, "--ai", "random", "--shape", f), timeout=60)
        assert r == 2, out
        lines = out.strip().splitlines()
        assert len(lines) == 1 and str(f) in lines[0] and why in lines[0], out
    assert file_hashes(board) == before


def test_unknown_names_and_disagreeing_options_are_refused(tmp_path):
    board = tmp_path / "b"
    r, out = finish(player("black", board, "--ai", "random", "--shape", "hearts"), timeout=60)
    assert r == 2 and "no shape is named 'hearts'" in out and "Heart" in out, out
    r, out = finish(player("black", board, "--ai", "random", "--shape", "heart", "--size", "10"), timeout=60)
    assert r == 2 and "--size 10 and --shape Heart (8x8) disagree" in out, out
    assert not board.exists()


def test_another_shape_on_an_unfinished_game_is_refused_at_start(tmp_path):
    board = board_folder(tmp_path / "b")
    rec = Record(id="g-heart", size=8, shape=Shape.named("Heart").code(), moves="d3")
    Records(board).save(rec)
    before = file_hashes(board)
    r, out = finish(player("black", board, "--ai", "random", "--shape", "cross"), timeout=60)
    assert r == 2 and "g-heart" in out and "Heart" in out and "--shape Cross would start another game" in out, out
    assert file_hashes(board) == before


# -- the record ---------------------------------------------------------------------------------

def _shaped_record(moves="c4c3"):
    return Record(id="g-1", size=8, shape=Shape.named("Heart").code(), moves=moves)


def test_a_shaped_record_reads_back_with_its_shape():
    text = _shaped_record().text(SECRET)
    lines = text.splitlines()
    assert lines[1:4] == ["id: g-1", "size: 8", f"shape: {Shape.named('Heart').code()}"]
    rec = Record.parse(text)
    rec.check_mac(SECRET)
    assert rec.board().same_board(Shape.named("Heart")) and rec.verify().moves
    plain = Record(id="g-2", moves="f5").text(SECRET)
    assert "shape:" not in plain                # a plain game's record is as version 1 wrote it
    Record.parse(plain).check_mac(SECRET)


def test_a_forged_shape_fails_the_mac():
    text = _shaped_record().text(SECRET)
    for forged in (text.replace(Shape.named("Heart").code(), Shape.named("Cross").code()),
                   "".join(line for line in text.splitlines(True) if not line.startswith("shape:"))):
        with pytest.raises(Untrusted):
            Record.parse(forged).check_mac(SECRET)


def test_a_forged_shape_that_the_moves_do_not_fit_is_damaged(tmp_path):
    """D5 without a secret: the moves replay from the shape's start, or the record is damaged."""
    # c4 is played on the Heart; on the X c4 is a hole
    text = _shaped_record().text().replace(Shape.named("Heart").code(), Shape.named("X").code())
    with pytest.raises(Damaged, match="do not replay"):
        Record.parse(text).verify()
    board = board_folder(tmp_path / "b")
    (board / "records").mkdir()
    (board / "records" / "g-1.game").write_text(text, encoding="utf-8")
    with pytest.raises(Damaged) as e:
        Records(board).load("g-1")
    assert e.value.board is not None and e.value.board.same_board(Shape.named("X"))


@pytest.mark.parametrize("line, why", [("shape: ..../.OX./.XO./....", "the shape is 4x4, its size says 8"),
                                       ("shape: nonsense", "bad shape")])
def test_a_bad_shape_line_is_damaged(line, why):
    text = Record(id="g-1", moves="f5").text().replace("size: 8\n", f"size: 8\n{line}\n")
    with pytest.raises(Damaged, match=why):
        Record.parse(text)


def test_a_set_aside_shaped_game_goes_on_on_its_shape(tmp_path):
    """D6: the record of a shaped game that is not used is set aside; the game goes on under its id
    on the board it claimed (from the plies the other side's greeting brings)."""
    from peerfakes import session
    from engine import WHITE
    heart = Shape.named("Heart")
    s, b, out = session(tmp_path, WHITE)
    text = _shaped_record().text().replace("status: playing", "status: over")    # D5: not over
    s.st.records.root.ensure_dir("records")
    (s.st.records.dir / "g-1.game").write_text(text, encoding="utf-8")
    (s.st.records.dir / "current").write_text("g-1\n", encoding="utf-8")
    resume = s.keeper.resumable()
    assert resume is not None and resume.id == "g-1" and resume.board().same_board(heart)


def test_replay_and_watch_draw_the_holes(tmp_path):
    import subprocess
    import sys
    from peertools import ROOT
    board = board_folder(tmp_path / "b")
    heart = Shape.named("Heart")
    Records(board).save(_shaped_record("c4c3"))
    path = Records(board).path("g-1")
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1", PYTHONIOENCODING="utf-8")
    for cmd in (["replay", str(path), "--plain", "--lang", "en"], ["watch", "--board", str(board), "--lang", "en"]):
        try:
            out = subprocess.run([sys.executable, "-m", "peer", *cmd], capture_output=True, text=True, env=env,
                                 cwd=ROOT, timeout=5 if cmd[0] == "watch" else 60).stdout
        except subprocess.TimeoutExpired as e:       # (watch follows the game until it is stopped)
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        rows = [line for line in out.splitlines() if line[:3].strip().isdigit()]
        assert len(rows) >= 8, out
        assert cmd[0] != "replay" or ", the Heart board (8x8 with holes)" in out.splitlines()[0], out
        last = rows[-8:]
        assert all((r[4 + 2 * x] == "#") == bool(heart.holes >> (y * 8 + x) & 1)
                   for y, r in enumerate(last) for x in range(8)), out


def test_the_protocol_documents_the_mac_of_a_shaped_record():
    """docs/PROTOCOL.md D4's example of a record with a shape line is what the code computes."""
    import re
    from peertools import ROOT
    doc = (ROOT / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")
    code = Shape.named("X").code()
    assert f"shape: {code}" in doc
    rec = Record(id="g-1", size=8, shape=code, black="Ann", white="Bob", date="2026-11-25T00:00:00Z", moves="")
    mac = rec.text(b"s3cret").splitlines()[-1]
    shaped = re.search(r"after `size: 8` and `moves: ` \(empty\) give\s+`(mac: [0-9a-f]{64})`", doc)
    assert shaped and shaped.group(1) == mac
