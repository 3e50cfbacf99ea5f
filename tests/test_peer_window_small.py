"""Long texts in the smallest window (520x420): long names, a long message, the move list."""
import re

import pytest

from peer.record import Record
from peertools import ROOT, player
from test_peer_window import display, whole_in  # noqa: F401  (the fixture)
from windowtools import Driven

pytestmark = pytest.mark.slow


def test_long_names_a_hint_and_the_move_list_in_the_smallest_window(tmp_path, display):  # noqa: F811
    """Names of 64 characters are cut (…) and leave every button whole in the window; the move list,
    with no room at 520x420, is hidden with a note (shown again in a larger window); a hint, longer
    than the message box, is shown from its start, and its labels on the board mark estimates."""
    board = tmp_path / "b"
    w = player("white", board, "--ai", "greedy", "--time", "0.1")
    rec = Record(id="g1", size=8, black="A" * 64, white="B" * 64, moves="f5d6c3d3c4", status="playing")
    (tmp_path / "g1.game").write_text(rec.text(), encoding="utf-8")
    me = Driven(display, [ROOT / "black.py", "--board", board, "--lang", "en", "--name", "N" * 64],
                tmp_path / "p.json", tmp_path / "p.out")
    replay = Driven(display, ["-m", "peer", "replay", tmp_path / "g1.game", "--lang", "en"], tmp_path / "r.json",
                    tmp_path / "r.out")
    try:
        for x, window, title in ((0, me, "^Othello: black on " + re.escape(str(board)) + "$"),
                                 (600, replay, r"g1\.game$")):
            s = window.settled(lambda s: s["board"] is not None)          # (as it opens: 960x680)
            assert s["moves_height"] > 50 and s["moves_title"] == "Moves", s
            window.xdotool("search", "--sync", "--name", title, "windowsize", 520, 420, "windowmove", x, 0)
            s = window.settled(lambda s: (s["window"]["x"], s["window"]["width"], s["window"]["height"])
                               == (x, 520, 420))
            for key, button in s["buttons"].items():
                assert whole_in(s["window"], button) and not button["cut"], (key, s["buttons"])
            named = [label for label, _, _ in s["players"] if re.search("AAAA|BBBB|NNNN", label)]
            assert named and all("…" in label and len(label) < 60 for label in named), s["players"]
            assert s["moves_height"] == 0 and s["moves_title"].startswith("Moves: hidden"), s
        me.click_button("hint")
        s = me.wait("a hint", lambda s: s["hints"])
        assert all(re.fullmatch(r"~[+-]\d+", v) for v in s["hints"].values()), s["hints"]     # move 1: estimates
        assert re.match(r"Hint: [a-h][1-8] ~[+-]\d+", s["messages_seen"]), s["messages_seen"]
        me.xdotool("search", "--sync", "--name", "^Othello: black on ", "windowsize", 960, 680)
        s = me.settled(lambda s: s["window"]["height"] == 680 and s["moves_height"] > 50)
        assert s["moves_title"] == "Moves"
        me.click_button("quit")
        assert me.finish()[0] == 0
    finally:
        me.kill()
        replay.kill()
        w.terminate()
        w.communicate(timeout=30)
