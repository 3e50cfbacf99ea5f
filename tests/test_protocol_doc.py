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
    with pytest.raises(ValueError, match="its moves do not replay"):    # damaged: D1, D5
        Records(tmp_path).load("g1")
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


# -- B7: how much of a file is read, the same in Python and interop/js ----------------------------

def _js(script, data):
    r = subprocess.run(["node", "-e", script], input=json.dumps(data), capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _header_of(extra):
    """A message to ``alice`` (seq 1) whose header carries an unknown key of ``extra`` bytes."""
    from comm.board import frame
    raw = frame("bob", "0123456789abcdef", "alice", "", 1, b"d3")
    head, _, body = raw.partition(b"\n\n")
    return head + b"\nx-pad: " + b"a" * extra + b"\n\n" + body


def _python_reads_message(folder, raw):
    b = Board(folder, "alice").join()
    try:
        (folder / "box" / "alice" / "000000000001.msg").write_bytes(raw)
        return b.receive() is not None
    finally:
        b.close()


# an unknown header key makes the header 4096 bytes (read) or 4097 (damaged, B7 M4)
HEADERS = [(4096, True), (4097, False)]


@pytest.mark.parametrize("size, ok", HEADERS)
def test_a_message_header_over_4096_bytes_is_damaged(tmp_path, size, ok):
    base = len(_header_of(0).partition(b"\n\n")[0])
    raw = _header_of(size - base)
    assert len(raw.partition(b"\n\n")[0]) == size
    assert _python_reads_message(tmp_path / "b", raw) is ok


@needs_node
def test_javascript_reads_long_headers_as_python_does(tmp_path):
    base = len(_header_of(0).partition(b"\n\n")[0])
    folders = []
    for i, (size, _) in enumerate(HEADERS):
        f = tmp_path / f"b{i}"
        Board(f, "alice").join().close()
        (f / "box" / "alice" / "000000000001.msg").write_bytes(_header_of(size - base))
        folders.append(str(f))
    js = ROOT / "interop" / "js" / "cardstand.js"
    got = _js(f"const cs = require({json.dumps(str(js))});"
              "const dirs = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
              "console.log(JSON.stringify(dirs.map((d) => { const b = new cs.Board(d, 'alice', { log: () => {} });"
              " b.join(); const m = b.receive(); b.close(); return !!m; })));", folders)
    assert got == [ok for _, ok in HEADERS]


def _record_files(folder):
    """Game records the two readers must judge alike (D1, B7): (id, sound?)."""
    from peer.record import MAX_RECORD
    Board(folder, "alice").join().close()
    recs = folder / "records"
    recs.mkdir(exist_ok=True)
    cases = []
    text = Record(id="big", moves="f5").text()
    (recs / "big.game").write_text(text + "x-pad: " + "a" * (MAX_RECORD - len(text)) + "\n")
    cases.append(("big", False))                # 262,151 bytes: damaged
    text = Record(id="fits", moves="f5").text()
    (recs / "fits.game").write_text(text + "x-pad: " + "a" * (MAX_RECORD - len(text) - 8) + "\n")
    cases.append(("fits", True))                # exactly 262,144 bytes
    (recs / "bom.game").write_text("\ufeff" + Record(id="bom").text())
    cases.append(("bom", False))                # a BOM is not white space (D1)
    (recs / "ws.game").write_text(" " + Record(id="ws").text().replace("\n", "\r\n", 1))
    cases.append(("ws", True))
    return cases


def _js_records(folder, body, data):
    """Run ``body`` in Node with ``r``, interop/js's ``Records`` of the board ``folder``, ``fs``, and
    ``data`` (given as JSON); what it prints, as JSON."""
    js = ROOT / "interop" / "js" / "peer.js"
    cs = ROOT / "interop" / "js" / "cardstand.js"
    return _js(f"const p = require({json.dumps(str(js))}); const cs = require({json.dumps(str(cs))}); const fs = require('fs');"
               f"const b = new cs.Board({json.dumps(str(folder))}, 'alice', {{ log: () => {{}} }});"
               "const r = new p.Records(b); const data = JSON.parse(fs.readFileSync(0, 'utf8'));" + body, data)


def _python_loads(folder, gid):
    try:
        return Records(folder).load(gid) is not None
    except ValueError:
        return False


def test_game_records_over_256_kib_or_with_a_bom_are_damaged(tmp_path):
    for gid, ok in _record_files(tmp_path):
        assert _python_loads(tmp_path, gid) is ok, gid


@needs_node
def test_javascript_reads_game_records_as_python_does(tmp_path):
    cases = _record_files(tmp_path)
    got = _js_records(tmp_path, "console.log(JSON.stringify(data.map((id) => { try { return r.load(id) !== null; } "
                                "catch (e) { return false; } })));", [gid for gid, _ in cases])
    assert got == [ok for _, ok in cases]


def _currents(folder):
    """``records/current`` files: the id is read only within the first 4096 bytes (R1, D1)."""
    Board(folder, "alice").join().close()
    Records(folder).save(Record(id="g1", moves="f5"))
    return [(" " * 4000 + "g1", True), (" " * 4094 + "g1", True), (" " * 4095 + "g1", False)]


def test_only_the_first_4096_bytes_of_current_are_read(tmp_path):
    for text, ok in _currents(tmp_path):
        (tmp_path / "records" / "current").write_text(text)
        assert (Records(tmp_path).current() is not None) is ok, len(text)


@needs_node
def test_javascript_reads_current_as_python_does(tmp_path):
    cases = _currents(tmp_path)
    got = _js_records(tmp_path, "console.log(JSON.stringify(data.map((t) => { "
                                f"fs.writeFileSync({json.dumps(str(tmp_path / 'records' / 'current'))}, t); "
                                "return r.current() !== null; })));", [t for t, _ in cases])
    assert got == [ok for _, ok in cases]
