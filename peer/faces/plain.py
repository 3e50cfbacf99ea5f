"""What a player sees: the board with coordinates, colours when the terminal has them."""
import os
import re
import sys
import unicodedata
from typing import Any, TextIO

import colorama

from comm.text import visible
from engine import BLACK, PASS, WHITE, Position, Shape, notation
from engine.shape import builtin

from ..protocol import NAME_LIMIT, SAY_LIMIT, named_board
from ..reasons import Explained, Reason
from ..events import Event
from ..view import View
from . import texts

COLOURS = ("black", "white")
HOLE = "#"       # a hole (engine.Shape): never played, never a disc, as in a shape's picture
# the names a side has when none is given, as they go on the wire: the words for them
DEFAULT_NAMES = {"black": "black", "white": "white", "person": "kind_human", "computer": "kind_computer"}
NAME_FIELDS = ("name", "other", "black", "white", "old")      # an event's fields that name a player
LEAVE_BY = {"human": "to_leave_human", "terminal": "to_leave_terminal", "computer": "to_leave_computer"}
# what goes to stderr: why the program cannot start or play on, or leaves (the rest is the game)
ERRORS = frozenset({"cannot_play", "secret_problem", "busy", "unfinished_game", "game_closed", "replaced",
                    "board_gone_leave", "full_leave", "send_leave", "giving_up_wait", "record_failed",
                    "bad_record", "no_board", "record_untrusted", "record_damaged", "record_failed_cause"})


# Japanese line breaking (kinsoku): these never start a line, those never end one
_CLOSE = "、。，．・：；！？）」』】〕ー…"
_OPEN = "（「『【〔"


def cwidth(text: str) -> int:
    """Columns ``text`` takes on a terminal: East Asian wide characters two, combining marks none."""
    return sum(0 if unicodedata.combining(c) else 2 if _wide(c) else 1 for c in text)


def _wide(c: str) -> bool:
    return unicodedata.east_asian_width(c) in "WF"


def _tokens(text: str) -> list[tuple[str, str]]:
    """(spaces before, token): a token is a run of narrow letters (a word) or one wide character,
    with the brackets before it and the punctuation after it that may not be parted from it."""
    out, i, space = [], 0, ""
    while i < len(text):
        if text[i] == " ":
            space += " "
            i += 1
            continue
        j = i
        while j < len(text) and text[j] in _OPEN:
            j += 1
        if j < len(text) and _wide(text[j]):
            j += 1
        else:
            while j < len(text) and text[j] != " " and not _wide(text[j]):
                j += 1
        while j < len(text) and text[j] in _CLOSE:
            j += 1
        j = max(j, i + 1)
        out.append((space, text[i:j]))
        space, i = "", j
    return out


def wrap(text: object, columns: int) -> list[str]:
    """``text`` broken into lines of at most ``columns`` terminal columns: English between words,
    Japanese between characters (not before 。、） nor after （); a word longer than a line is cut."""
    columns = max(columns, 2)
    lines = []
    for para in str(text).split("\n"):
        line = ""
        for space, token in _tokens(para):
            joined = line + space + token if line else token
            if cwidth(joined) <= columns or not line:
                line = joined
            else:
                lines.append(line)
                line = token
            while cwidth(line) > columns:
                cut, used = 0, 0
                while cut < len(line) and (cut == 0 or used + cwidth(line[cut]) <= columns):
                    used += cwidth(line[cut])
                    cut += 1
                lines.append(line[:cut])
                line = line[cut:]
        lines.append(line)
    return lines


def wants_colour(flag_no_color: bool = False, stream: TextIO | None = None) -> bool:
    """Colour only on a terminal, and never with --no-color or NO_COLOR set."""
    stream = stream or sys.stdout
    if flag_no_color or "NO_COLOR" in os.environ:
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def _can_encode(s: str, stream: TextIO) -> bool:
    try:
        s.encode(getattr(stream, "encoding", None) or "ascii")
        return True
    except (UnicodeEncodeError, LookupError):
        return False


def clock(seconds: float) -> str:
    """``1:05`` for 65 seconds (``61:40`` past the hour: a game is not longer)."""
    s = int(seconds)
    return f"{s // 60}:{s % 60:02d}"


class Screen:
    def __init__(self, lang: str = "en", colour: bool = False, stream: TextIO | None = None) -> None:
        self.lang = lang
        self._stream = stream
        self.colour = colour
        if colour:
            colorama.just_fix_windows_console()
        fancy = _can_encode("●○·", self.stream)
        self.discs = ("●", "○") if fancy and colour else ("X", "O")
        self.dot = "·" if fancy and colour else "*"

    @property
    def stream(self) -> TextIO:
        """Where the screen writes: ``sys.stdout`` as it is at the time (a test may replace it)."""
        return self._stream or sys.stdout

    def describe(self, move: int, size: int) -> str:
        """A move for people: its square's name, or "pass" in the screen's language."""
        return self.t("pass") if move == PASS else notation.square_name(move, size)

    def t(self, key: str, **kw: object) -> str:
        return texts.text(self.lang, key, **kw)

    # -- what the session tells: events in this screen's words --------------------------
    def tell(self, event: Event) -> None:
        """Show what the session tells: the board (``board``: its ``View``), or a message."""
        if event.what == "board":
            self.draw(event.fields["view"])
        else:
            self.say(event.what, **self.words(event))

    def shown_name(self, name: str) -> str:
        """A player's name as shown: the default names (``black``, ``white``, ``person``,
        ``computer``: ``peer.players``) in this language."""
        return self.t(DEFAULT_NAMES[name]) if name in DEFAULT_NAMES else name

    def names_square(self, reason: object) -> bool:
        """Whether ``reason``, in words, names the square it is about (``d4 is already taken``)."""
        return isinstance(reason, Reason) and reason.code in texts.TEXTS and texts.names(reason.code, "square")

    def reason(self, reason: object) -> str:
        """A ``Reason`` (or an ``Explained`` error's) in this screen's language; anything else (from
        the board, the opponent, the system) as it is."""
        if isinstance(reason, Explained):
            reason = reason.reason
        if not isinstance(reason, Reason) or reason.code not in texts.TEXTS:
            return str(reason)
        fields = self._named(dict(reason.fields))
        if fields.get("colour") in COLOURS:
            fields["colour"] = self.t(fields["colour"])
        if "reason" in fields:
            fields["reason"] = self.reason(fields["reason"])
        if reason.code.startswith("illegal_"):
            size = fields["size"]
            fields.update(square=visible(fields["square"], 8), last=notation.square_name(size * size - 1, size))
        return self.t(reason.code, **fields)

    def _named(self, kw: dict[str, Any]) -> dict[str, Any]:
        for k in NAME_FIELDS:
            if isinstance(kw.get(k), str):
                kw[k] = self.shown_name(kw[k])
        for k, v in kw.items():
            if isinstance(v, Shape):
                kw[k] = self.board_name(v)
        return kw

    def board_name(self, board: Shape) -> str:
        """A board in words: ``8x8`` for a plain one, else its name (the built-in boards' in this
        language), else one's own: the other side, which learns it from a greeting, knows no file
        name, so neither side says one (both see the same words)."""
        n = board.size
        if board.is_plain():
            return self.t("board_plain", size=n)
        board = named_board(board)
        if board.name not in builtin():
            return self.t("board_own", size=n)
        name = texts.SHAPE_NAMES_JA.get(board.name, board.name) if self.lang == "ja" else board.name
        return self.t("board_named" if board.holes else "board_named_start", name=name, size=n)

    def words(self, event: Event) -> dict[str, Any]:
        """The fields of ``event`` as its text (``texts``) takes them, in this screen's language."""
        kw = self._named(dict(event.fields))
        if isinstance(kw.get("colour"), int):
            kw["colour"] = self.colour_name(kw["colour"])
        if "result" in kw:
            kw["result"] = self.result(kw["result"])
        if "reason" in kw:
            kw["reason"] = self.reason(kw["reason"])
        if "leave_by" in kw:
            kw["to_leave"] = self.t(LEAVE_BY[kw.pop("leave_by")])
        if "cause" in kw:
            kw["cause"] = self.t(kw["cause"], board=kw["board"])
        if "winner" in kw:
            winner, name = kw.pop("winner"), self.shown_name(kw.pop("winner_name"))
            kw["verdict"] = self.t("draw") if winner is None else \
                self.t("win", name=f"{name} ({self.colour_name(winner)})")
        if event.what == "game_on":
            kw.update(bd=self.disc(BLACK), wd=self.disc(WHITE))
        elif event.what == "busy":
            seen, machine = kw["seen"], kw["machine"]
            kw["seen"] = self.t("busy_here") if seen is None else self.t("busy_seen", secs=f"{seen:.0f}")
            kw["machine"] = self.t("busy_machine", m=machine) if machine else ""
        elif event.what == "hint":
            kw["moves"] = ", ".join(f"{self.describe(m, kw['size'])} {'' if exact else '~'}{v:+d}"
                                    for m, v, exact in kw["moves"])
            kw["estimate"] = "" if kw.pop("exact") else self.t("hint_estimate")
        elif event.what == "bad_move":
            kw["reason"] = kw["reason"] if self.names_square(event.fields["reason"]) else \
                self.t("move_reason", move=kw["move"], reason=kw["reason"])
        elif event.what == "time_used":
            kw.update(b=clock(kw["b"]), w=clock(kw["w"]))
        elif event.what == "moves_list":
            size = kw.pop("size")
            kw["moves"] = " ".join(f"{i} {self.describe(m, size)}"
                                   for i, m in reversed(list(enumerate(kw["moves"], 1)))) or "-"
            kw.update(b=clock(kw["b"]), w=clock(kw["w"]))
        elif event.what == "adopted_mine":
            kw["move"] = self.describe(kw["move"], kw.pop("size"))
        return kw

    def draw(self, view: View) -> None:
        """The board of ``view`` and, while the game goes on, whose turn it is."""
        if view.position is not None:
            self.board(view.position, last=view.last_square, flipped=view.flipped,
                       show_legal=view.show_legal, status=self.status_line(view))

    def status_line(self, view: View) -> str:
        """``white to move (Ann, thinking)``: whose turn it is, with the opponent's state."""
        pos = view.position
        if pos is None or pos.is_game_over() or view.ended:
            return ""
        side = view.sides[pos.turn]
        name = visible(self.shown_name(side.name), NAME_LIMIT)
        if not side.me:
            name += ", " + self.t("gone_state" if side.state == "gone" else "thinking")
        return f"{self.t('turn_line', colour=self.colour_name(pos.turn))} ({name})"

    def say(self, key: str, **kw: object) -> None:
        """Show message ``key``; every value is made visible first (it may have come from the board)."""
        safe = {k: v if isinstance(v, (int, float)) else visible(v, SAY_LIMIT) for k, v in kw.items()}
        if key in ERRORS and self._stream is None:
            self.stream.flush()
            self.line(self._fitted(self.t(key, **safe), sys.stderr), sys.stderr)
        else:
            self.line(self._fitted(self.t(key, **safe), self.stream))

    def _fitted(self, text: str, stream: TextIO) -> str:
        """``text`` wrapped to the terminal's width when ``stream`` is a terminal."""
        try:
            if not stream.isatty():
                return text
            columns = os.get_terminal_size(stream.fileno()).columns
        except (AttributeError, ValueError, OSError):
            return text
        return "\n".join(wrap(text, columns - 1)) if columns > 1 else text

    def line(self, s: str = "", stream: TextIO | None = None) -> None:
        stream = stream or self.stream
        try:
            print(s, file=stream, flush=True)
        except UnicodeEncodeError:
            enc = getattr(stream, "encoding", None) or "ascii"
            print(s.encode(enc, "replace").decode(enc), file=stream, flush=True)

    def _paint(self, s: str, fore: str = "", back: str = "", bright: bool = False) -> str:
        if not self.colour:
            return s
        style = colorama.Style.BRIGHT if bright else ""
        return f"{style}{fore}{back}{s}{colorama.Style.RESET_ALL}"

    def result(self, result: str) -> str:
        """A record's ``result`` (D1) in this screen's language: "36-28" is "black 36 - white 28",
        "white resigned", "abandoned by black", "refused: why"; anything else made visible."""
        score = re.fullmatch(r"([0-9]{1,3})-([0-9]{1,3})", result)
        who = re.fullmatch(r"(black|white) resigned|abandoned by (black|white)", result)
        if score:
            return self.t("score_text", b=score[1], w=score[2])
        if who and who[1]:
            return self.t("resigned_text", colour=self.t(who[1]))
        if who:
            return self.t("abandoned_by", colour=self.t(who[2]))
        if result.startswith("refused: "):
            return self.t("refused_because", reason=visible(result[9:], 120))
        return visible(result, 120)

    def colour_name(self, c: int) -> str:
        return self.t("black" if c == BLACK else "white")

    def disc(self, c: int) -> str:
        return self.discs[0] if c == BLACK else self.discs[1]

    def board(self, position: Position, last: int | None = None, flipped: int = 0, show_legal: bool = True,
              status: str = "") -> None:
        """Draw ``position``: ``last`` move and ``flipped`` discs highlighted, legal moves marked."""
        n = position.size
        legal = position.legal_moves_mask() if show_legal else 0
        out = ["    " + " ".join(chr(ord("a") + x) for x in range(n))]
        Fore, Back = colorama.Fore, colorama.Back
        for y in range(n):
            cells = []
            for x in range(n):
                sq = y * n + x
                c = position.colour_at(sq)
                if position.holes >> sq & 1:
                    cell = HOLE
                elif c is None:
                    cell = self._paint(self.dot, Fore.GREEN) if legal >> sq & 1 else "."
                else:
                    ch = self.disc(c)
                    fore = Fore.WHITE if c != BLACK else Fore.BLACK
                    back = Back.GREEN
                    if sq == last:
                        back = Back.RED
                    elif flipped >> sq & 1:
                        back = Back.YELLOW
                    if self.colour:
                        cell = self._paint(ch, fore, back, bright=True)
                    elif sq == last:
                        cell = ch.lower() if ch.isalpha() else ch
                    else:
                        cell = ch
                cells.append(cell)
            out.append(f"{y + 1:>3} " + " ".join(cells))
        b, w = position.discs()
        out.append(self.t("discs", b=b, w=w, bd=self.disc(BLACK), wd=self.disc(1)))
        if last is not None and last >= 0:
            out[-1] += f"   ({notation.square_name(last, n)})"
        if status:
            out.append(status)
        self.line("\n".join(out))
