"""Answers docs/PROTOCOL.md gives an implementer, where Python and interop/js once read them apart."""
import json
import shutil
import subprocess

import pytest

from comm import Board, BoardError
from engine import WHITE, IllegalMove
from peer import protocol
from peer.record import Record, Records

from peerfakes import session
from peertools import ROOT

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")

# A 4x4 game in which white has no move at ply 11: the pass is written out (H2, D1)
WITH_PASS = "b1c1d4c4d1a3b4a1d3d2passa4a2"
WITHOUT_PASS = WITH_PASS.replace("pass", "")

TRANSCRIPTS = [
    (WITH_PASS, 4, True), (WITH_PASS.upper(), 4, True), ("", 8, True), ("f5D6c3", 8, True),
    ("f05", 8, True),                                   # a leading zero is read (never written)
    (WITHOUT_PASS, 4, False),                           # a pass left out
    ("f5 d6", 8, False), ("f5,d6", 8, False), ("f5d6;", 8, False), ("f5pa", 8, False), ("f5--", 8, False),
    ("f5@@", 8, False), ("passf5", 8, False), ("f5d6c3pass", 8, False), ("i1", 8, False), ("f5\u0661", 8, False),
]


def _python_replays(moves, size):
    try:
        protocol.replay(moves, size)
        return True
    except ValueError:              # IllegalMove is a ValueError
        return False


@pytest.mark.parametrize("moves, size, ok", TRANSCRIPTS)
def test_a_transcript_is_square_names_and_every_pass_written_out(moves, size, ok):
    assert _python_replays(moves, size) is ok


@needs_node
def test_python_and_javascript_replay_the_same_transcripts():
    """H2: a transcript one side takes and the other refuses would stop only one of them."""
    js = ROOT / "interop" / "js" / "peer.js"
    r = subprocess.run(["node", "-e", f"const p = require({json.dumps(str(js))});"
                        "const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
                        "const pl = Object.create(p.Player.prototype);"
                        "console.log(JSON.stringify(cases.map(([m, n]) => { const l = p.splitTranscript(m);"
                        " return l !== null && pl.replayed(l, n) instanceof p.Rules; })));"],
                       input=json.dumps([[m, n] for m, n, _ in TRANSCRIPTS]), capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == [ok for _, _, ok in TRANSCRIPTS]


def test_a_greeting_that_leaves_a_pass_out_is_refused(tmp_path):
    s, b, out = session(tmp_path / "b", WHITE)
    b.push("black", protocol.control("hello", v=1, role="black", name="B", size=4, game="g1", moves=WITHOUT_PASS))
    assert s.run() == 3
    assert "do not replay" in out.getvalue()
    assert protocol.parse(b.sent[-1][1]).kind == "refuse"


def test_a_record_that_leaves_a_pass_out_is_damaged(tmp_path):
    Board(tmp_path, "alice").join().close()
    Records(tmp_path).save(Record(id="g1", size=4, moves=WITHOUT_PASS))
    with pytest.raises(IllegalMove):
        Records(tmp_path).load("g1").game()
    Records(tmp_path).save(Record(id="g2", size=4, moves=WITH_PASS))
    assert Records(tmp_path).load("g2").game().transcript(passes=True) == WITH_PASS


# -- F2: the marker -------------------------------------------------------------------------------

MARKERS = [
    ("cardstand-board 1\n", True), ("  cardstand-board\t 1\r\n\n", True), ("cardstand-board 1", True),
    ("cardstand-board\u00a01\n", False), ("cardstand-board\u20031\n", False), ("\ufeffcardstand-board 1\n", False),
    ("cardstand-board\x0b1\n", False), ("cardstand-board 1\x0c", False), ("cardstand-board 0000000001\n", False),
    ("cardstand-board 1" + " " * 4079, True), ("cardstand-board 1" + " " * 4080, False), ("", False),
    ("cardstand-board 1 1\n", False), ("Cardstand-board 1\n", False),
]


def _python_takes(folder, marker):
    folder.mkdir()
    (folder / "cardstand.board").write_bytes(marker.encode("utf-8"))
    try:
        Board(folder, "alice").join().close()
        return True
    except BoardError as e:
        assert "not a cardstand board marker" in str(e)
        return False


@pytest.mark.parametrize("marker, ok", MARKERS)
def test_the_marker_is_two_words_between_ascii_white_space(tmp_path, marker, ok):
    assert _python_takes(tmp_path / "b", marker) is ok


@needs_node
def test_javascript_reads_the_marker_as_python_does(tmp_path):
    folders = []
    for i, (marker, _) in enumerate(MARKERS):
        f = tmp_path / f"b{i}"
        f.mkdir()
        (f / "cardstand.board").write_bytes(marker.encode("utf-8"))
        folders.append(str(f))
    js = ROOT / "interop" / "js" / "cardstand.js"
    r = subprocess.run(["node", "-e", f"const cs = require({json.dumps(str(js))});"
                        "const dirs = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
                        "console.log(JSON.stringify(dirs.map((d) => { const b = new cs.Board(d, 'alice', { log: () => {} });"
                        " try { b.join(); b.close(); return true; } catch (e) {"
                        " if (!/not a cardstand board marker/.test(e.message)) throw e; return false; } })));"],
                       input=json.dumps(folders), capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == [ok for _, ok in MARKERS]
