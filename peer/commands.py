"""What a player asks of its side, as values: a move, a pass, resign (and the answer to its
question), hint, say, board, help, undo, quit.  A face sends these (a window's button sends
``Resign(confirmed=True)``); a line typed at a terminal is read into one by ``parse``, which knows
the words in English and Japanese.  No I/O."""
import unicodedata
from dataclasses import dataclass
from typing import Union

from engine import notation

# every word a person may type for a command; the first is the one help shows
WORDS = {
    "quit": ("quit", "exit", "q", "bye", "終了", "中断"),
    "help": ("help", "?", "h", "ヘルプ", "説明"),
    "say": ("say", "発言"),
    "board": ("board", "盤面"),
    "hint": ("hint", "ヒント"),
    "resign": ("resign", "投了"),
    "yes": ("yes", "y", "はい"),
    "no": ("no", "n", "いいえ"),
    "undo": ("undo", "待った"),
}
COMMAND = {w: c for c, words in WORDS.items() for w in words}


@dataclass(frozen=True)
class Play:
    """A move (``d3``) or a pass, as typed (``Match.judge`` judges it)."""
    square: str


@dataclass(frozen=True)
class Resign:
    """Resign; ``confirmed``: without asking first (a window's second click)."""
    confirmed: bool = False


@dataclass(frozen=True)
class Answer:
    """``yes`` or ``no``: an answer to the question asked last (resigning)."""
    yes: bool
    text: str


@dataclass(frozen=True)
class Say:
    """A chat line (``text``: empty when none was given)."""
    text: str


@dataclass(frozen=True)
class Word:
    """A command without arguments: ``hint``, ``board``, ``help``, ``undo``, ``quit``."""
    name: str


@dataclass(frozen=True)
class Unknown:
    """A line that is no command."""
    text: str


Command = Union[Play, Resign, Answer, Say, Word, Unknown]
HINT, BOARD, HELP, UNDO, QUIT = (Word(w) for w in ("hint", "board", "help", "undo", "quit"))


def normalise(line: str) -> str:
    """Full-width letters and digits (ｄ３) become ASCII; case and spaces do not matter."""
    return unicodedata.normalize("NFKC", line).strip()


def parse(line: str) -> Command | None:
    """The command a typed line gives (None: an empty line).

    >>> parse("ｄ３"), parse("投了"), parse("say hi there"), parse("y")
    (Play(square='d3'), Resign(confirmed=False), Say(text='hi there'), Answer(yes=True, text='y'))
    """
    text = normalise(line)
    word, _, rest = text.partition(" ")
    cmd = COMMAND.get(word.lower(), word.lower())
    if not cmd:
        return None
    if cmd == "say":
        return Say(rest.strip())
    if cmd == "resign":
        return Resign()
    if cmd in ("yes", "no"):
        return Answer(cmd == "yes", text)
    if cmd in WORDS:
        return Word(cmd)
    if notation.SQUARE.fullmatch(cmd) or cmd in notation.PASS_WORDS:
        return Play(cmd)
    return Unknown(text)
