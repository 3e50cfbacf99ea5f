"""Every text a player reads exists in both languages, and the Japanese ones contain no English."""
import re

import pytest

from engine import IllegalMove, Position
from peer.faces import texts
from peer.commands import WORDS
from peer.reasons import Reason
from peer.faces.plain import Screen

# what the Japanese texts may show in Latin letters: what a person types (commands, options, a
# square), names of things on the disk and in the environment, and abbreviations
TYPED = {w for words in WORDS.values() for w in words if w.isascii()} | {
    "new", "size", "take-over", "secret-file", "CARDSTAND_SECRET", "Ctrl", "Ctrl-C", "A-Z", "a-z", "ID", "MAC",
    "pid", "run", "cardstand", "Enter", "gui", "tkinter", "Python", "ssh", "-X", "Windows", "records", "AI", "threads",
    "ponder", "ai", "best", "time", "game-time", "engine", "name", "trash", "shape", "alive", "machine", "PROTOCOL",
    "Language", "English", "FILE", "CLASS", "py", "docs", "md", "share", "table", "replay"}   # the start screen's first question is in both


def _placeholders(s):
    return {k: "テスト" for k in re.findall(r"\{([a-z_]+)\}", s)}


@pytest.mark.parametrize("key", sorted(texts.TEXTS))
def test_every_text_has_both_languages_with_the_same_fields(key):
    en, ja = texts.TEXTS[key]
    assert en and ja
    assert set(re.findall(r"\{[a-z_]+\}", en)) == set(re.findall(r"\{[a-z_]+\}", ja)), key


@pytest.mark.parametrize("key", sorted(texts.TEXTS))
def test_japanese_texts_have_no_english_words(key):
    _, ja = texts.TEXTS[key]
    shown = texts.text("ja", key, **_placeholders(ja))
    words = set(re.findall(r"[A-Za-z][A-Za-z_-]+", shown)) - TYPED
    assert not words, f"{key}: {shown}"


@pytest.mark.parametrize("move", ["a1", "d4", "z9", "xx", "pass"])
def test_illegal_moves_are_told_in_japanese(move):
    with pytest.raises(IllegalMove) as caught:
        Position.start().play(move)
    reason = Reason.illegal(caught.value, move, 8)
    why = Screen("ja").reason(reason)
    words = set(re.findall(r"[A-Za-z]{2,}", why)) - {move}
    assert not words, why
    assert why != Screen("en").reason(reason)
    assert reason.english == str(caught.value)      # (what goes on the board: the engine's English)


@pytest.mark.parametrize("lang", texts.LANGS)
@pytest.mark.parametrize("columns", [20, 33, 79])
def test_help_wraps_to_the_terminal_width_without_losing_a_character(lang, columns):
    from peer.faces.plain import cwidth, wrap
    text = texts.text(lang, "help")
    lines = wrap(text, columns)
    assert len(lines) > 1 and all(cwidth(line) <= columns for line in lines), lines
    if lang == "en":
        assert " ".join(lines) == text                      # broken between words only
        assert all(not line.startswith(" ") and not line.endswith(" ") for line in lines)
    else:
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")
        assert not any(line[0] in "、。）" for line in lines[1:]), lines     # kinsoku
        assert not any(line[-1] == "（" for line in lines), lines


def test_a_word_longer_than_the_line_is_cut():
    from peer.faces.plain import wrap
    assert wrap("ab " + "x" * 12, 5) == ["ab", "xxxxx", "xxxxx", "xx"]
    assert wrap("", 10) == [""]


def test_the_move_list_lines_up_with_wide_characters():
    """The live screen's move list: a pass (パス, two wide characters) takes the columns it shows."""
    from engine import PASS, Game
    from peer.faces.live import LiveScreen, side_lines
    from peer.view import Side, View
    from peer.faces.plain import cwidth
    g = Game(4)
    for m in "b1 c1 d4 c4 d1 a3 b4 a1 d3 d2".split():
        g.play(m)
    g.play(PASS)
    g.play("a4")                                    # (an entry after the pass, in the same row)
    sides = (Side("黒", "human", True, "waiting", None, 0.0), Side("白", "computer", False, "thinking", 3.0, 1.0))
    view = View(colour=0, size=4, position=g.position, moves=tuple(g.moves), flipped=0, sides=sides,
                show_legal=False)
    rows = ["".join(text for _, text in line) for line in side_lines(view, LiveScreen("ja"), 40, 3)]
    listed = [r for r in rows if r.startswith(" 1 b1") or "11 パス" in r]
    assert listed and "11 パス" in listed[-1], rows
    # the numbers are right-aligned: each ends at the same column in every row
    columns = [[cwidth(r[:m.end(1)]) for m in re.finditer(r"(?:^| )([0-9]+) ", r)] for r in listed]
    assert len(columns) > 1 and all(c == columns[0][:len(c)] for c in columns), (rows, columns)


def test_a_board_that_cannot_be_joined_is_told_in_japanese(tmp_path):
    import comm
    f = tmp_path / "file"
    f.write_text("not a folder")
    with pytest.raises(comm.BoardError) as caught:
        comm.Board(f, "alice").join()
    why = Screen("ja").reason(Reason.board(caught.value))
    system = caught.value.fields["system"]
    assert why.startswith(f"{f}を伝言台として使えません: フォルダーがない") and why.endswith(system), why
    assert not set(re.findall(r"[A-Za-z]{2,}", why.replace(str(f), "").replace(system, ""))), why
    assert Screen("en").reason(Reason.board(caught.value)).startswith(f"cannot use {f} as a board: the folder is gone")
