"""A Japanese screen says in Japanese why a player cannot start, why the game was refused, and why a
game record is not used; the English screen (and the log a script reads) keeps its words."""
import re
import signal
import subprocess
import sys

import pytest

from comm import SecretProblem, load_secret
from comm.adopt import why_unfit
from peer.faces import texts
from peer.faces.plain import Screen
from peer.reasons import REASONS, Reason
from peer.record import Record, Records

from peertools import ROOT, board_folder, finish, player
from test_texts import TYPED

# what a Japanese message may show in Latin letters besides ``TYPED``: option names and values
# given on the command line, the names of the AIs, paths of the test
ALLOWED = TYPED | {"nosuch", "ab", "notes", "txt", "nb", "big", "empty", "missing"}


def english_words(text):
    """The words in Latin letters of ``text`` that are not typed names, paths or AI names."""
    from engine import strategies
    words = set(re.findall(r"[A-Za-z][A-Za-z_-]+", text))
    return {w for w in words if w not in ALLOWED and w.lower() not in strategies.names()
            and not re.fullmatch(r"[a-z0-9_-]*test[a-z0-9_-]*|[0-9a-f-]+|[a-z]+[0-9]+", w)}


def run(board, *args, lang="ja", env=None):
    return subprocess.run([sys.executable, str(ROOT / "black.py"), "--board", str(board), "--lang", lang,
                           *map(str, args)], capture_output=True, text=True, encoding="utf-8", timeout=60,
                          cwd=ROOT, env=dict(__import__("os").environ, **(env or {})))


def start_ups(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    (tmp_path / "empty").write_text(" \n")
    (tmp_path / "big").write_text("k" * 5000)
    ok = tmp_path / "nb"
    return [(["--threads", 2], "--threads"), (["--ai", "greedy", "--ponder"], "greedy"),
            (["--ai", "random", "--time", 1, "--game-time", 5], "--game-time"),
            (["--ai", "nosuch"], "nosuch"), (["--engine", ""], "--engine"), (["--engine", '"ab'], '"ab'),
            (["--board", tmp_path / "notes.txt"], "notes.txt"), (["--board", tmp_path], "notes.txt"),
            (["--board", ""], "./cardstand"),
            (["--board", ok, "--secret-file", tmp_path / "missing"], "missing"),
            (["--board", ok, "--secret-file", tmp_path], str(tmp_path)),
            (["--board", ok, "--secret-file", tmp_path / "empty"], "empty"),
            (["--board", ok, "--secret-file", tmp_path / "big"], "4096")]


def test_start_up_errors_are_told_in_japanese(tmp_path):
    for args, shown in start_ups(tmp_path):
        ja = run(tmp_path / "nb", *args)
        en = run(tmp_path / "nb", *args, lang="en")
        assert ja.returncode == en.returncode == 2, (args, ja.stderr, en.stderr)
        said = ja.stdout + ja.stderr
        assert ("対局できません" in said or "共有秘密鍵を使えません" in said) and shown in said, (args, said)
        assert not english_words(said.replace(str(tmp_path), "")), (args, said)
        assert en.stderr.startswith(("Cannot play: ", "Cannot use the shared secret: ")) and shown in en.stderr, en.stderr
        assert english_words(en.stderr.replace(str(tmp_path), "")) - {"Cannot", "play", "use", "the", "shared"}
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "cardstand.board").write_text("somebody else's file")
    for lang, said in (("ja", "cardstand の伝言台の目印ではありません"), ("en", "is not a cardstand board marker")):
        foreign = run(theirs, "--ai", "random", lang=lang)
        assert foreign.returncode == 2 and said in foreign.stderr, foreign.stderr
    assert not english_words(foreign_ja := run(theirs, "--ai", "random").stderr.replace(str(theirs), "")), foreign_ja
    empty = run(tmp_path / "nb", env={"CARDSTAND_SECRET": " "})
    assert empty.returncode == 2 and "CARDSTAND_SECRET の共有秘密鍵が空です" in empty.stderr, empty.stderr


def test_the_refused_side_reads_the_size_reason_in_japanese(tmp_path):
    board = tmp_path / "b"
    b = player("black", board, "--ai", "random", "--size", 6, "--lang", "ja")
    w = player("white", board, "--ai", "random", "--size", 8, "--lang", "ja")
    (rb, ob), (rw, ow) = finish(b), finish(w)
    assert rb == rw == 3, (ob, ow)
    for said in (ob, ow):
        assert ("白は 8×8の盤を希望、黒の提案は 6×6です" in said) or ("黒の提案は 6×6の盤、白の希望は 8×8です" in said), said
        assert "wants" not in said and not english_words(said.replace(str(board), "")), said


def test_a_damaged_record_is_told_in_japanese(tmp_path):
    board = board_folder(tmp_path / "b")
    Records(board).save(Record(id="g-1", moves="f5d6", status="over", result="3-2"))
    b = player("black", board, "--ai", "random", "--lang", "ja")
    try:
        b.wait(timeout=3)
    except subprocess.TimeoutExpired:
        b.send_signal(signal.SIGTERM)
    _, out = finish(b)
    assert "棋譜は壊れています: 終局と書かれていますが、2 手目のあと黒にはまだ打てる場所があります" in out, out
    assert not english_words(re.sub(r"g-1(\.set-aside-[0-9a-f]+)?", "", out.replace(str(board), ""))), out
    damaged = Records(board).path("g-1").with_name("x.game")
    damaged.write_text(Record(id="g-1", moves="f5d6", status="resigned", result="nobody").text())
    replayed = subprocess.run([sys.executable, "-m", "peer", "replay", str(damaged), "--lang", "ja"],
                              capture_output=True, text=True, encoding="utf-8", timeout=60, cwd=ROOT)
    assert replayed.returncode == 2 and "投了と書かれていますが、結果が 'nobody' です" in replayed.stderr, replayed.stderr


@pytest.mark.parametrize("code", sorted(REASONS))
def test_a_reason_from_the_other_side_is_read_back_into_its_fields(code):
    fields = {k: f"v{i}" for i, k in enumerate(re.findall(r"\{([a-z]+)\}", REASONS[code]))}
    sent = Reason.own(code, **fields)
    read = Reason.read(sent.english)
    assert read == Reason(code, sent.english, fields)
    assert Screen("ja").reason(read) == texts.text("ja", code, **fields)
    assert Reason.read("anything else: as it is") == "anything else: as it is"


def test_the_english_of_the_board_and_the_secret_is_comms_own(tmp_path):
    """The English column of the ``unfit_*`` and ``secret_*`` texts says what comm says."""
    (tmp_path / "f").write_text("x")
    (tmp_path / "e").write_text("")
    cases = [why_unfit(""), why_unfit(tmp_path / "f"), why_unfit(tmp_path)]
    for why in cases:
        assert Screen("en").reason(Reason(f"unfit_{why.code}", why.text, why.fields)) == why.text
    for file, env in [(tmp_path / "missing", None), (tmp_path, None), (tmp_path / "e", None), (None, {"CARDSTAND_SECRET": ""})]:
        with pytest.raises(SecretProblem) as e:
            load_secret(file, environ=env or {})
        p = e.value
        assert Screen("en").reason(Reason(f"secret_{p.code}", str(p), p.fields)) == str(p)
