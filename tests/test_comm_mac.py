"""The shared secret (docs/PROTOCOL.md A1-A6): signed messages, refused forgeries, who sent it."""
import hashlib
import hmac
import json
import os
import subprocess
import sys

import pytest

import comm
from comm import Board, InvalidArgument, load_secret
from comm import fsops
from comm.board import frame, msg_name, unframe
from comm.text import visible

SECRET = b"correct horse battery staple"


@pytest.fixture
def board(tmp_path):
    return tmp_path / "board"


def raw_messages(folder, key):
    box = folder / "box" / key
    return sorted(p.read_bytes() for p in box.glob("*.msg"))


def spec_mac(key, header, body):
    """The MAC as PROTOCOL.md A2 defines it, computed here from the header's own text."""
    f = dict(line.split(": ", 1) for line in header.split("\n")[1:] if line)
    signed = "cardstand-mac 1\n" + "\n".join(f[k] for k in ("from", "from-run", "to", "to-run", "seq")) + "\n"
    return hmac.new(key, signed.encode("ascii") + body, hashlib.sha256).hexdigest()


def test_signed_messages_carry_the_documented_mac_and_arrive(board):
    a = Board(board, "Alice", secret=SECRET).join()
    b = Board(board, "bob", secret=SECRET.decode()).join()   # str or bytes: the same key
    assert a.send("bob", "d3 #1 t=5")
    (raw,) = raw_messages(board, "bob")
    header, _, body = raw.partition(b"\n\n")
    lines = header.decode("ascii").split("\n")
    assert lines[-1] == "mac: " + spec_mac(SECRET, header.decode("ascii"), body)
    m = b.receive()
    assert (m.sender, m.body, m.signed) == ("Alice", "d3 #1 t=5", True)
    assert b.take_rejected() == []


@pytest.mark.parametrize("sender_secret, reason", [(None, "no MAC"), (b"another secret", "wrong MAC")])
def test_a_reader_with_a_secret_refuses_unsigned_and_wrongly_signed_messages(board, sender_secret, reason):
    good = Board(board, "white", secret=SECRET).join()
    forger = Board(board, "white2", secret=sender_secret).join()
    me = Board(board, "black", secret=SECRET).join()
    assert forger.send("black", "d3 #1")
    assert good.send("black", "f5 #1")
    m = me.receive()
    assert (m.sender, m.body) == ("white", "f5 #1")          # the forgery was skipped, not returned
    assert me.receive() is None
    (rej,) = me.take_rejected()
    assert rej.sender == "white2" and rej.reason.startswith(reason) and rej.sender_run == forger.run
    assert me.take_rejected() == []
    trashed = list((board / "trash").iterdir())
    assert len(trashed) == 1 and b"d3 #1" in trashed[0].read_bytes()


def test_a_tampered_body_with_a_fresh_checksum_is_refused(board):
    a = Board(board, "white", secret=SECRET).join()
    me = Board(board, "black", secret=SECRET).join()
    assert a.send("black", "c4 #3")
    path = board / "box" / "black" / msg_name(1)
    raw = path.read_bytes().replace(b"c4 #3", b"e3 #3")
    head, _, body = raw.partition(b"\n\n")
    import zlib
    head = b"\n".join(line if not line.startswith(b"crc32: ") else b"crc32: %08x" % zlib.crc32(body)
                      for line in head.split(b"\n"))
    path.write_bytes(head + b"\n\n" + body)
    assert me.receive() is None
    assert me.take_rejected()[0].reason.startswith("wrong MAC")


def test_a_reader_without_a_secret_accepts_signed_messages_and_says_so(board):
    a = Board(board, "white", secret=SECRET).join()
    me = Board(board, "black").join()
    assert a.send("black", "hello")
    m = me.receive()
    assert m.body == "hello" and m.signed
    assert Board(board, "white").join().send("black", "plain")
    assert me.receive().signed is False


def test_a_message_copied_into_another_slot_or_mailbox_is_set_aside(board):
    a = Board(board, "white", secret=SECRET).join()
    me = Board(board, "black", secret=SECRET).join()
    other = Board(board, "carol", secret=SECRET).join()
    assert a.send("black", "d3 #1")
    raw = (board / "box" / "black" / msg_name(1)).read_bytes()
    assert me.receive().body == "d3 #1"
    # the replay: the same signed bytes put back as message 2 of black, and as carol's message 1
    (board / "box" / "black" / msg_name(2)).write_bytes(raw)
    (board / "box" / "carol" / msg_name(1)).write_bytes(raw)
    assert me.receive() is None
    assert other.receive() is None
    assert me.take_rejected() == [] and other.take_rejected() == []   # damaged, not merely unsigned
    assert len(list((board / "trash").iterdir())) == 2


@pytest.mark.parametrize("mutate, why", [
    (lambda h: h.replace(b"seq: 1", b"seq: 1x"), "malformed"),
    (lambda h: h + b"\nfrom: mallory", "twice"),
    (lambda h: h.replace(b"from-run: ", b"from-run: ../"), "run id"),
    (lambda h: h.replace(b"to: black", b"to: \xc3\xa9"), "ASCII"),
])
def test_malformed_headers_are_damaged(mutate, why):
    raw = frame("white", "0123456789abcdef", "black", "fedcba9876543210", 1, b"d3", SECRET)
    head, _, body = raw.partition(b"\n\n")
    with pytest.raises(ValueError, match=why):
        unframe(mutate(head) + b"\n\n" + body, box="black", number=1)


def test_a_forged_member_record_does_not_crash_the_sender(board):
    a = Board(board, "white").join()
    Board(board, "black").join()
    member = board / "box" / "black" / "member"
    member.write_bytes(fsops.record("cardstand-member 1\nname: black\nrun: é\x1b[2J"))
    assert not a.send("black", "x")
    assert "damaged" in a.last_error


def test_load_secret_from_the_environment_and_from_a_file(tmp_path):
    assert load_secret(environ={}) is None
    assert load_secret(environ={"CARDSTAND_SECRET": "  s3cret\n"}) == b"s3cret"
    f = tmp_path / "secret.txt"
    f.write_bytes(b"from the file\r\n")
    assert load_secret(f, environ={"CARDSTAND_SECRET": "ignored"}) == b"from the file"
    with pytest.raises(InvalidArgument, match="empty"):
        load_secret(environ={"CARDSTAND_SECRET": " \n"})
    f.write_bytes(b"\n")
    with pytest.raises(InvalidArgument, match="empty"):
        load_secret(f)
    with pytest.raises(InvalidArgument, match="cannot read the secret file"):
        load_secret(tmp_path / "missing")
    with pytest.raises(InvalidArgument):
        Board(tmp_path / "b", "x", secret=b"")


def test_init_takes_the_secret_from_the_environment(board, monkeypatch):
    monkeypatch.setenv("CARDSTAND_SECRET", "tutorial secret")
    b = comm.Init("black", str(board))
    try:
        assert b.secret == b"tutorial secret"
    finally:
        b.close()
        comm._board = None


def test_visible_escapes_what_a_terminal_would_obey():
    assert visible("ok") == "ok"
    assert visible("\x1b]0;title\x07\x1b[31mred") == "\\x1b]0;title\\x07\\x1b[31mred"
    assert visible("a\nb\r\tc\x7f\x9b") == "a\\nb\\r\\tc\\x7f\\x9b"
    assert visible("abc\u202edef\u2066") == "abc\\u202edef\\u2066"
    assert visible("日本語 ｄ３ \\x1b") == "日本語 ｄ３ \\x1b"
    assert visible("x" * 10, limit=5) == "xxxx…"


def _serve(folder, name, secret):
    env = {k: v for k, v in os.environ.items() if k != "CARDSTAND_SECRET"}
    if secret is not None:
        env["CARDSTAND_SECRET"] = secret
    p = subprocess.Popen([sys.executable, "-m", "comm", "serve", "--board", str(folder), "--name", name],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)

    def ask(**req):
        p.stdin.write(json.dumps(req) + "\n")
        p.stdin.flush()
        return json.loads(p.stdout.readline())
    return p, ask


def test_real_processes_with_a_secret_refuse_a_forger_and_say_so(board):
    good, ask_good = _serve(board, "white", SECRET.decode())
    forger, ask_forger = _serve(board, "mallory", None)
    me, ask_me = _serve(board, "black", SECRET.decode())
    try:
        for ask in (ask_good, ask_forger, ask_me):
            assert ask(op="init")["ok"]
        assert ask_forger(op="send", to="black", body="resign")["result"] == 1
        assert ask_good(op="send", to="black", body="f5 #1")["result"] == 1
        got = ask_me(op="recv")
        assert (got["result"], got["sender"], got["body"]) == (2, "white", "f5 #1")
        assert ask_me(op="recv")["result"] == -1
        for ask in (ask_good, ask_forger, ask_me):
            ask(op="quit")
        _, err = me.communicate(timeout=30)
        assert "refused message from mallory: no MAC" in err
    finally:
        for p in (good, forger, me):
            if p.poll() is None:
                p.kill()


def test_an_empty_secret_file_is_a_clear_error(tmp_path):
    f = tmp_path / "empty"
    f.write_text("")
    r = subprocess.run([sys.executable, "-m", "comm", "serve", "--board", str(tmp_path / "b"), "--name", "x",
                        "--secret-file", str(f)], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert r.returncode == 2 and "empty" in r.stderr


def test_the_worked_vector_of_protocol_md_a2():
    from pathlib import Path
    from comm.board import mac
    doc = (Path(__file__).resolve().parents[1] / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")
    value = mac(b"s3cret", "black", "0123456789abcdef", "white", "fedcba9876543210", 7, b"d3")
    assert f"`mac: {value}`" in doc


def test_the_bench_measures_plain_and_signed_side_by_side(tmp_path):
    """``python -m comm bench``: the plain and the signed round trips are measured in turn on
    two boards, only the second one signed, and the CPU line is printed."""
    from comm import bench
    plain, signed = bench.paired_ping_pong(tmp_path, 3, SECRET)
    assert len(plain) == len(signed) == 3 and min(plain + signed) > 0
    for side, mark in (("plain", False), ("signed", True)):
        for name in ("pinger", "echo"):
            assert ("\nmac: " in (tmp_path / side / "box" / name / "member").read_text()) is mark, (side, name)
    env = {k: v for k, v in os.environ.items() if k != "CARDSTAND_SECRET"}
    r = subprocess.run([sys.executable, "-m", "comm", "bench", "--rounds", "3", "--idle", "0.05", "--no-auto-shares"],
                       capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    for row in ("local disk ", "local disk, signed (MAC)", "MAC cost (p50 difference)", "MAC cost, CPU"):
        assert row in r.stdout, r.stdout
