"""What a player asks of its side, as values: a move, a pass, resign (and the answer to its
question), hint, say, board, help, undo, quit.  A face sends these (a window's button sends
``Resign(confirmed=True)``); a line typed at a terminal is read into one by ``parse``, which knows
the words in English and Japanese.  No I/O."""
import re
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
    "moves": ("moves", "棋譜"),
    "hint": ("hint", "ヒント"),
    "resign": ("resign", "投了"),
    "yes": ("yes", "y", "はい"),
    "no": ("no", "n", "いいえ"),
    "undo": ("undo", "待った"),
}
COMMAND = {w: c for c, words in WORDS.items() for w in words}
_WORD = re.compile(r"(\S+)\s*(.*)", re.S)     # the command word, then the rest (any white space between)
PASS_TYPED = ("パス",)     # a pass in Japanese (passes are made for the player: this is only understood)


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
    """A command without arguments: ``hint``, ``board``, ``moves``, ``help``, ``undo``, ``quit``."""
    name: str


@dataclass(frozen=True)
class Unknown:
    """A line that is no command."""
    text: str


Command = Union[Play, Resign, Answer, Say, Word, Unknown]
HINT, BOARD, MOVES, HELP, UNDO, QUIT = (Word(w) for w in ("hint", "board", "moves", "help", "undo", "quit"))


def normalise(line: str) -> str:
    """Full-width letters and digits (ｄ３) become ASCII; case and spaces do not matter."""
    return unicodedata.normalize("NFKC", line).strip()


def parse(line: str) -> Command | None:
    """The command a typed line gives (None: an empty line).  The command word and a square are
    read whatever their width (ｄ３ is d3); a chat line is sent as it was typed.

    >>> parse("ｄ３"), parse("投了"), parse("say hi there"), parse("y")
    (Play(square='d3'), Resign(confirmed=False), Say(text='hi there'), Answer(yes=True, text='y'))
    """
    m = _WORD.match(line.strip())
    if m is None:
        return None
    first, rest = m.group(1), m.group(2)
    word = normalise(first).lower()
    cmd = COMMAND.get(word, word)
    if cmd == "say":
        return Say(rest.strip())
    if cmd == "resign":
        return Resign()
    if cmd in ("yes", "no"):
        return Answer(cmd == "yes", normalise(line))
    if cmd in WORDS:
        return Word(cmd)
    if cmd in PASS_TYPED:
        return Play("pass")
    if notation.SQUARE.fullmatch(cmd) or cmd in notation.PASS_WORDS:
        return Play(cmd)
    text = normalise(line)
    return Unknown(text)
