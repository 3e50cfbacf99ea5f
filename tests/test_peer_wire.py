"""English on the board whatever the screen's language; each screen says a refusal in its own."""
import io

from engine import BLACK
from peer import protocol
from peer.session import Session
from peer.faces.plain import Screen

from peerfakes import FakeBoard, FirstLegal
from test_peer_hostile import _greet_black, _hello_sent, _run


def _japanese_black(folder):
    out = io.StringIO()
    board = FakeBoard(folder)
    s = Session(folder, BLACK, FirstLegal(), Screen("ja", colour=False, stream=out), board=board,
                classic_after=1e9, size=8)
    return s, board, out


def test_a_japanese_players_refusals_go_on_the_board_in_english_and_show_in_japanese(tmp_path):
    s, b, out = _japanese_black(tmp_path / "b")
    b.push("white", _greet_black, after=_hello_sent)
    b.push("white", "a1 #2 t=5", after=lambda b: b.moves_sent() >= 1)     # the engine refuses it
    b.push("white", "c5 #9 t=5")                                            # the session refuses it
    _run(s, b)
    refused = [protocol.parse(body) for _, body in b.sent if body.startswith("#cardstand refused")]
    assert [m.get("reason") for m in refused] == ["a1 flips nothing", "move 9 arrived but 2 was expected"]
    text = out.getvalue()
    assert "a1では相手の石を1つも返せません" in text, text
    assert "2 手目のはずが 9 手目が届きました" in text, text
    assert "flips nothing" not in text and "was expected" not in text, text


def test_a_japanese_players_refusal_of_the_game_goes_on_the_board_in_english(tmp_path):
    s, b, out = _japanese_black(tmp_path / "b")
    b.push("white", lambda b: protocol.control("welcome", v=9, role="white", name="W",
                                               game=protocol.parse(b.last_sent()).get("game"), moves=""),
           after=_hello_sent)
    assert _run(s, b) == 3
    refuse = [protocol.parse(body) for _, body in b.sent if body.startswith("#cardstand refuse ")]
    assert [m.get("reason") for m in refuse] == ["protocol version 9 is not supported (this program speaks 1 and 2)"]
    assert "プロトコルのバージョン 9には対応していません" in out.getvalue(), out.getvalue()
