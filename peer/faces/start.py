"""The start screen: what the play options set, asked in turn, at the terminal or in a window.

``python -m peer`` with no arguments at a terminal, and ``python -m peer --gui`` with no other
option, ask instead of playing with every default: the language, the board folder, the colour,
who plays it (you, a built-in AI by strength, your own file), the size and the time.  The
answers become the options of ``python -m peer play`` (``Choices.argv``), and the command to
type next time is shown.  A script (no terminal) never sees a question.
"""
from __future__ import annotations

import io
import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, TypeVar

from comm.adopt import unfit_for_a_board
from comm.message import SecretProblem, load_secret
from comm.text import visible
from engine import Shape, check_size, strategies
from engine.shape import ShapeError, names as shape_names

from ..record import PLAYING, Records
from . import texts
from .plain import Screen

# (name, English, Japanese): the built-in players offered, weakest first
LADDER = (("random", "any legal move: the easiest", "ランダムに打つ（いちばん弱い）"),
          ("greedy", "flips the most discs", "いちばん多く返す"),
          ("table", "likes corners, avoids their neighbours", "角を好み、角の隣を避ける"),
          ("alphabeta", "looks 4 moves ahead", "4 手先まで読む"),
          ("iterative", "searches deeper while it has time", "時間いっぱい深く読む"),
          ("best", "the strongest: a book, patterns, exact endgames", "いちばん強い（定石・評価関数・終盤読み切り）"))



def word(key: str, lang: str) -> str:
    return texts.text(lang, "start_" + key)


@dataclass
class Choices:
    """What the start screen asked; ``argv`` gives the play options."""

    lang: str = "en"
    board: str = "cardstand"
    colour: str = "black"
    ai: Optional[str] = None        # None: a person plays; else a built-in name or FILE.py[:CLASS]
    size: Optional[int] = 8         # None: white takes black's
    shape: Optional[str] = None     # a shaped board black proposes: a built-in name or a picture file
    new: bool = False               # the board's unfinished game is closed (abandoned) for a new one
    resume: bool = False            # the board's unfinished game goes on: its record names the board
    share: Optional[str] = None     # a class's share of tables: sit at one of them (``board`` unused)
    table: Optional[str] = None     # with ``share``: this table (None: the first waiting for the colour)
    time: float = 1.0
    gui: bool = False
    program: str = "python -m peer play"     # (``cardstand play`` when started as the installed command)

    def argv(self) -> list[str]:
        where = _option("--board", self.board) if self.share is None else \
            [*_option("--share", self.share), *(_option("--table", self.table) if self.table else [])]
        out = ["--color", self.colour, *where, "--lang", self.lang]
        if self.ai is not None:
            out += [*_option("--ai", self.ai), "--time", f"{self.time:g}"]
        if self.resume:
            pass                    # (the unfinished game's record says its board)
        elif self.shape is not None:
            out += _option("--shape", self.shape)
        elif self.size is not None:
            out += ["--size", str(self.size)]
        if self.new:
            out.append("--new")
        if self.gui:
            out.append("--gui")
        return out

    def command(self) -> str:
        """The command that does the same next time: without ``--new`` (the game this start makes
        is the board's unfinished game then, resumed, not closed again)."""
        return shlex.join([*self.program.split(), *(a for a in self.argv() if a != "--new")])


def _option(name: str, value: str) -> list[str]:
    """``name value``; ``name=value`` when the value starts with '-' (else it is taken for an option)."""
    return [f"{name}={value}"] if value.startswith("-") else [name, value]


# -- each answer checked (None: not acceptable; the screen says the ``bad_*`` words) ------------
def parse_lang(text: str) -> Optional[str]:
    t = text.strip().lower()
    return {"1": "en", "en": "en", "english": "en", "2": "ja", "ja": "ja", "日本語": "ja"}.get(t)


def parse_colour(text: str) -> Optional[str]:
    t = text.strip().lower()
    return {"1": "black", "black": "black", "黒": "black", "2": "white", "white": "white", "白": "white"}.get(t)


def parse_who(text: str) -> Optional[str]:
    return {"1": "person", "2": "ai", "3": "own"}.get(text.strip())


def _number(t: str, most: int) -> Optional[int]:
    """``t`` as a whole number from 1 to ``most`` (ASCII digits only: '²' is a digit to Python)."""
    return int(t) if t.isascii() and t.isdigit() and len(t) <= 4 and 1 <= int(t) <= most else None


def parse_ai(text: str) -> Optional[str]:
    t = text.strip().lower()
    if _number(t, len(LADDER)) is not None:
        return LADDER[int(t) - 1][0]
    return t if t in strategies.names() else None


def parse_size(text: str) -> Optional[int]:
    t = text.strip()
    if not t.isascii() or not t.isdigit() or len(t) > 3:
        return None
    try:
        return check_size(int(t))
    except ValueError:
        return None


def parse_board_kind(text: str) -> Optional[str]:
    return {"1": "usual", "2": "size", "3": "shape"}.get(text.strip())


def parse_shape(text: str) -> Optional[str]:
    """A shaped board: its number in ``shape_names()``, a built-in name, or a picture file (made
    whole from the folder the screen was started in); None when it is none of them."""
    return shape_answer(text)[0]


def shape_answer(text: str) -> tuple[Optional[str], str]:
    """(the board ``text`` names, as ``parse_shape``; or None and what is wrong with the picture
    file it names, '' when it names none)."""
    t = text.strip()
    names = shape_names()
    number = _number(t, len(names))
    if number is not None:
        return names[number - 1], ""
    if not t or t.isdigit() or len(t) > 1024 or not t.isprintable():
        return None, ""
    try:
        return Shape.named(t).name, ""
    except ShapeError:
        pass
    path = os.path.expanduser(t)
    try:
        Shape.load(path)
    except (OSError, ValueError, ShapeError) as e:     # (no such file, a name too long, a bad picture)
        return None, str(e) if any(c in t for c in "/\\.") else ""     # (only for what reads as a file)
    return str(Path(path).absolute()), ""


def shape_menu(lang: str) -> list[str]:
    """The built-in boards, numbered, as the terminal shows them (in columns of names)."""
    items = [f"{i:>2} {texts.SHAPE_NAMES_JA.get(n, n) if lang == 'ja' else n}" for i, n in enumerate(shape_names(), 1)]
    width = max(len(s) for s in items) + 2
    per_row = 4
    return ["  " + "".join(s.ljust(width) for s in items[i:i + per_row]).rstrip() for i in range(0, len(items), per_row)]


def parse_resume(text: str) -> Optional[str]:
    return {"1": "resume", "2": "new"}.get(text.strip())


def unfinished_game(board: str, lang: str = "en") -> str:
    """The unfinished game on the board folder ``board`` in a few words, in ``lang`` (its players,
    board and next move), or '' when there is none (or its record cannot be used: the game says
    why)."""
    try:
        secret = load_secret()      # (CARDSTAND_SECRET: a record not signed with it is not offered)
    except SecretProblem:
        secret = None
    try:
        if not Path(board).is_dir():
            return ""
        rec = Records(board, secret).current()
        if rec is None or rec.status != PLAYING or not rec.moves:
            return ""
        shape = rec.board()
    except (OSError, ValueError):
        return ""
    screen = Screen(lang, colour=False, stream=io.StringIO())
    return texts.text(lang, "start_game_line", black=visible(rec.black, 40), white=visible(rec.white, 40),
                      board=screen.board_name(shape), n=rec.moves_played() + 1)


def _size_or_blank(text: str) -> Optional[int]:
    return parse_size(text) if text.strip() else 0


def parse_time(text: str) -> Optional[float]:
    try:
        v = float(text.strip())
    except ValueError:
        return None
    return v if 0 < v <= 3600 else None


def board_folder(text: str) -> str:
    """The board folder an answer names: ``~`` is the home folder (as a shell reads it), and a
    relative name is made whole from the folder the screen was started in."""
    return str(Path(os.path.expanduser(text.strip())).absolute())


def board_problem(text: str) -> str:
    """Why ``text`` cannot be the board folder ('' when it can)."""
    if not text.strip():
        return "the folder name is empty"
    if not text.strip().isprintable():
        return "the folder name holds a control character (a tab, a new line, an escape...)"
    try:
        return unfit_for_a_board(os.path.expanduser(text.strip()))
    except (OSError, ValueError) as e:
        return str(e)


def own_spec(text: str) -> str:
    """One's own AI as an answer names it: ``~`` is the home folder, as a shell reads it."""
    return os.path.expanduser(text.strip())


def own_problem(text: str) -> str:
    """Why ``text`` is not one's own AI ('' when it is)."""
    if not text.strip():
        return "give a .py file"
    try:
        strategies.check(own_spec(text))
    except ValueError as e:
        return str(e)
    return ""


# -- the terminal ------------------------------------------------------------------------------
Ask = Callable[[str], str]      # input(): raises EOFError at the end of input
T = TypeVar("T")


def ask_terminal(ask: Ask = input, say: Callable[[str], None] = print, lang: str = "en",
                 program: str = "python -m peer play") -> Optional[Choices]:
    """Ask every question in turn (an empty answer takes the default); None when the input ends."""
    c = Choices(lang=lang, program=program)
    try:
        c.lang = _ask(ask, say, c.lang, "lang", "1" if lang == "en" else "2", parse_lang, "bad_choice")
        L = c.lang
        default_board = str(Path("cardstand").resolve())
        while True:
            text = _line(ask, f"{word('board', L)} [{word('default', L)}: {default_board}]: ") or default_board
            if share_tables(text):
                c.share = board_folder(text)
                c.table = _ask_table(ask, say, L, Path(c.share))
                c.board = str(Path(c.share) / c.table) if c.table else c.share
                break
            problem = board_problem(text)
            if not problem:
                c.board = board_folder(text)
                break
            say(problem)
        unfinished = unfinished_game(c.board, L) if c.share is None or c.table else ""
        if unfinished:
            say(texts.text(L, "start_unfinished", game=unfinished))
            c.resume = _ask(ask, say, L, "resume", "1", parse_resume, "bad_choice") == "resume"
            c.new = not c.resume
        c.colour = _ask(ask, say, L, "colour", "1", parse_colour, "bad_choice")
        who = _ask(ask, say, L, "who", "1", parse_who, "bad_choice")
        if who == "ai":
            for i, (name, en, ja) in enumerate(LADDER, 1):
                say(f"  {i} {name:10s} {en if L == 'en' else ja}")
            c.ai = _ask(ask, say, L, "ai", str(len(LADDER)), parse_ai, "bad_ai")
        elif who == "own":
            while True:
                text = _line(ask, f"{word('own', L)}: ")
                problem = own_problem(text)
                if not problem:
                    c.ai = own_spec(text)
                    break
                say(problem)
        if c.resume:
            c.size = None
        elif c.colour == "white":
            c.size = _ask(ask, say, L, "size_white", "", _size_or_blank, "bad_size") or None
        else:
            kind = _ask(ask, say, L, "board_kind", "1", parse_board_kind, "bad_choice")
            if kind == "size":
                c.size = _ask(ask, say, L, "size", "8", parse_size, "bad_size")
            elif kind == "shape":
                for line in shape_menu(L):
                    say(line)
                while True:
                    (c.shape, problem), c.size = shape_answer(_line(ask, f"{word('shape', L)}: ")), None
                    if c.shape is not None:
                        break
                    say(problem or word("bad_shape", L))
        if c.ai is not None:
            c.time = _ask(ask, say, L, "time", "1", parse_time, "bad_time")
    except EOFError:
        say(word("cancelled", c.lang))
        return None
    say(f"{word('starting', c.lang)}  {c.command()}")
    return c


def share_tables(text: str) -> bool:
    """Whether the folder ``text`` names is a class's share: not a board itself, and holding tables."""
    from ..tables import table_names
    folder = Path(os.path.expanduser(text.strip()))
    try:
        return folder.is_dir() and not os.path.lexists(folder / "cardstand.board") and bool(table_names(folder))
    except (OSError, ValueError):
        return False


def _ask_table(ask: Ask, say: Callable[[str], None], lang: str, share: Path) -> Optional[str]:
    """Which table of ``share``: the list shown as the lobby shows it; a number or a name (a new
    one is made), or nothing for the first table waiting for the colour chosen next."""
    from ..tables import ShareError, Tables, usable_table
    from .lobby import rows
    tables = Tables(share).look()
    say(texts.text(lang, "start_share", share=visible(str(share), 200), n=len(tables)))
    for line in rows(Screen(lang), tables[:20]):
        say(line)
    while True:
        text = _line(ask, f"{word('table', lang)} [{word('default', lang)}: {word('first_waiting', lang)}]: ")
        if not text:
            return None
        if text.isdigit() and 1 <= int(text) <= min(len(tables), 20):
            return tables[int(text) - 1].name
        if text.isdigit():      # (a number not in the list is no table's name)
            say(texts.text(lang, "lobby_no_such", table=text))
            continue
        try:
            return usable_table(share, text).name
        except ShareError as e:
            say(Screen(lang).reason(e))


def _line(ask: Ask, prompt: str) -> str:
    return ask(prompt).strip()


def _ask(ask: Ask, say: Callable[[str], None], lang: str, key: str, default: str,
         parse: Callable[[str], Optional[T]], bad: str) -> T:
    shown = f" [{word('default', lang)}: {default}]" if default else ""
    while True:
        text = _line(ask, f"{word(key, lang)}{shown}: ") or default
        value = parse(text)
        if value is not None:
            return value
        say(word(bad, lang))


# -- the window ------------------------------------------------------------------------------
class StartForm:
    """The same questions in a window (tkinter), all on one form; ``run`` returns the
    ``Choices`` when Start is pressed with sound answers, None when the window is closed.
    Raises ``RuntimeError`` with the reason when no window can be opened."""

    def __init__(self, lang: str = "en", program: str = "python -m peer play") -> None:
        self.lang = lang
        self.program = program
        self.result: Optional[Choices] = None

    def build(self) -> None:
        import tkinter as tk
        from tkinter import ttk
        try:
            self.root = root = tk.Tk(className="Cardstand")
        except tk.TclError as e:
            raise RuntimeError(str(e)) from None
        root.protocol("WM_DELETE_WINDOW", root.destroy)
        style = ttk.Style(root)
        if style.theme_use() == "default" and "clam" in style.theme_names():
            style.theme_use("clam")     # (X11's default theme is the 1990s one; Windows and macOS keep theirs)
            # (clam greys only a disabled field's arrow: its text and background too, so that it
            # reads as not in use)
            for kind in ("TCombobox", "TEntry"):
                style.map(kind, foreground=[("disabled", "#8a8a8a")], fieldbackground=[("disabled", "#e6e6e6")])
        self.lang_var = tk.StringVar(root, self.lang)
        self.board_var = tk.StringVar(root, str(Path("cardstand").resolve()))
        self.colour_var = tk.StringVar(root, "black")
        self.who_var = tk.StringVar(root, "person")
        self.ai_var = tk.StringVar(root, LADDER[-1][0])
        self.own_var = tk.StringVar(root, "")
        self.shape_var = tk.StringVar(root, "")     # the board: one of ``_boards()``'s labels
        self.time_var = tk.StringVar(root, "1")
        self.labels: dict[str, ttk.Label] = {}
        frame = ttk.Frame(root, padding=12)
        frame.grid(sticky="nsew")
        root.columnconfigure(0, weight=1)
        root.rowconfigure(0, weight=1)
        frame.columnconfigure(1, weight=1)
        row = 0

        def label(key: str) -> None:
            lab = ttk.Label(frame, anchor="w", justify="left", wraplength=220)
            lab.grid(row=row, column=0, sticky="nw", padx=(0, 8), pady=4)
            self.labels[key] = lab

        label("lang")
        langs = ttk.Frame(frame)
        langs.grid(row=row, column=1, sticky="w")
        for value, text in (("en", "English"), ("ja", "日本語")):
            ttk.Radiobutton(langs, text=text, value=value, variable=self.lang_var,
                            command=self._relabel).pack(side="left", padx=(0, 8))
        row += 1
        label("board")
        ttk.Entry(frame, textvariable=self.board_var, width=40).grid(row=row, column=1, sticky="ew")
        self.browse_board = ttk.Button(frame, command=self._pick_board)
        self.browse_board.grid(row=row, column=2, padx=4)
        row += 1
        label("table")      # (a class's share named as the board folder: one of its tables)
        self.table_var = tk.StringVar(root, "")
        self.table_menu = ttk.Combobox(frame, textvariable=self.table_var, width=38)
        self.table_menu.grid(row=row, column=1, sticky="ew")
        self.board_var.trace_add("write", lambda *_: self._tables_shown())
        row += 1
        label("colour")
        colours = ttk.Frame(frame)
        colours.grid(row=row, column=1, sticky="w")
        self.colour_buttons = [ttk.Radiobutton(colours, value=v, variable=self.colour_var, command=self._colour_chosen)
                               for v in ("black", "white")]
        for b in self.colour_buttons:
            b.pack(side="left", padx=(0, 8))
        row += 1
        label("shape")
        self.shape_menu = ttk.Combobox(frame, textvariable=self.shape_var, state="readonly", width=38)
        self.shape_menu.grid(row=row, column=1, sticky="ew")
        row += 1
        label("who")
        whos = ttk.Frame(frame)
        whos.grid(row=row, column=1, sticky="w")
        self.who_buttons = [ttk.Radiobutton(whos, value=v, variable=self.who_var, command=self._enable)
                            for v in ("person", "ai", "own")]
        for b in self.who_buttons:
            b.pack(anchor="w")
        row += 1
        label("ai")
        self.ai_menu = ttk.Combobox(frame, textvariable=self.ai_var, state="readonly", width=38,
                                    values=[name for name, _, _ in LADDER])
        self.ai_menu.grid(row=row, column=1, sticky="ew")
        row += 1
        label("own")
        self.own_entry = ttk.Entry(frame, textvariable=self.own_var, width=40)
        self.own_entry.grid(row=row, column=1, sticky="ew")
        self.browse_own = ttk.Button(frame, command=self._pick_own)
        self.browse_own.grid(row=row, column=2, padx=4)
        row += 1
        label("time")
        self.time_entry = ttk.Entry(frame, textvariable=self.time_var, width=8)
        self.time_entry.grid(row=row, column=1, sticky="w")
        row += 1
        self.new_var = tk.BooleanVar(root, False)
        self.new_check = ttk.Checkbutton(frame, variable=self.new_var)
        self.new_check.grid(row=row, column=1, columnspan=2, sticky="w", pady=(4, 0))
        row += 1
        self.error = ttk.Label(frame, foreground="#c62828", anchor="w", justify="left", wraplength=520)
        self.error.grid(row=row, column=0, columnspan=3, sticky="ew", pady=(8, 0))
        row += 1
        buttons = ttk.Frame(frame)
        buttons.grid(row=row, column=0, columnspan=3, sticky="e", pady=(8, 0))
        self.start_button = ttk.Button(buttons, command=self.start)
        self.start_button.pack(side="right", padx=4)
        self.cancel_button = ttk.Button(buttons, command=root.destroy)
        self.cancel_button.pack(side="right")
        self._relabel()

    def _relabel(self) -> None:
        L = self.lang = self.lang_var.get()
        self.root.title(word("title", L))
        for key, lab in self.labels.items():
            lab.configure(text=word(f"form_{key}", L))
        for b, (en, ja) in zip(self.colour_buttons, (("black (moves first)", "黒（先手）"), ("white", "白"))):
            b.configure(text=en if L == "en" else ja)
        for b, (en, ja) in zip(self.who_buttons, (("you", "あなた"), ("a computer player", "コンピューター"),
                                                  ("your own AI (a .py file)", "自作 AI（.py ファイル）"))):
            b.configure(text=en if L == "en" else ja)
        self.ai_menu.configure(values=[f"{name} - {en if L == 'en' else ja}" for name, en, ja in LADDER])
        self.ai_var.set(f"{self._ai_name()} - " + dict((n, en if L == "en" else ja) for n, en, ja in LADDER)
                        .get(self._ai_name(), ""))
        self.browse_board.configure(text=word("browse", L))
        self.browse_own.configure(text=word("browse", L))
        self.start_button.configure(text=word("start", L))
        self.new_check.configure(text=word("form_new", L))
        self.cancel_button.configure(text=word("cancel", L))
        self._boards_shown()
        self._tables_shown()
        self._enable()

    def _boards(self) -> list[tuple[str, Optional[int], Optional[str]]]:
        """The boards the form offers (label, size, shape) in its language: black proposes one,
        white takes black's or requires a size."""
        L = self.lang
        Board = tuple[str, Optional[int], Optional[str]]
        sizes: list[Board] = [(texts.text(L, "start_form_size_n", n=n), n, None) for n in range(4, 27, 2)]
        if self.colour_var.get() == "white":
            return [(word("form_blacks", L), None, None), *sizes]
        usual = sizes.pop(2)
        shapes: list[Board] = [(texts.text(L, "start_form_shape_n" if Shape.named(n).holes else "start_form_start_n",
                                           name=texts.SHAPE_NAMES_JA.get(n, n) if L == "ja" else n), None, n)
                               for n in shape_names()]
        return [usual, *sizes, *shapes]

    def _colour_chosen(self) -> None:
        self._boards_shown(keep=False)      # (each colour's own first board: black's 8x8, white: black's)

    def _boards_shown(self, keep: bool = True) -> None:
        """The board menu for the colour and language now (what was chosen kept, when ``keep``
        and it is there)."""
        boards = self._boards()
        labels = [b[0] for b in boards]
        kept = self._board_chosen() if keep else (boards[0][1], boards[0][2])
        self.shape_menu.configure(values=labels)
        chosen = next((b[0] for b in boards if (b[1], b[2]) == kept), labels[0])
        self.shape_var.set(chosen)
        self._chosen = next(((b[1], b[2]) for b in boards if b[0] == chosen), (None, None))

    def _board_chosen(self) -> tuple[Optional[int], Optional[str]]:
        label = self.shape_var.get()
        for text, size, shape in self._boards():
            if text == label:
                return size, shape
        return getattr(self, "_chosen", (8, None))

    def _enable(self) -> None:
        """The fields of the computer player, one's own AI and the time: usable only when they count."""
        who = self.who_var.get()
        for widget, on in ((self.ai_menu, who == "ai"), (self.own_entry, who == "own"),
                           (self.browse_own, who == "own"), (self.time_entry, who != "person")):
            widget.state(["!disabled"] if on else ["disabled"])
        if who == "ai":
            self.ai_menu.state(["readonly"])

    def _tables_shown(self) -> None:
        """The table menu: in use only when the board folder is a class's share (its tables, and
        first of all "the first one waiting for your colour")."""
        first = word("first_waiting", self.lang)
        if share_tables(self.board_var.get()):
            from ..tables import table_names
            self.table_menu.configure(values=[first, *table_names(Path(os.path.expanduser(self.board_var.get().strip())))])
            self.table_menu.state(["!disabled"])
            if not self.table_var.get() or self.table_var.get() in self._first_words():
                self.table_var.set(first)
        else:
            self.table_var.set("")
            self.table_menu.configure(values=[])
            self.table_menu.state(["disabled"])

    @staticmethod
    def _first_words() -> tuple[str, ...]:
        return tuple(word("first_waiting", lang) for lang in texts.LANGS)

    def _ai_name(self) -> str:
        return self.ai_var.get().split(" - ")[0].strip()

    def _pick_board(self) -> None:
        from tkinter import filedialog
        chosen = filedialog.askdirectory(parent=self.root, mustexist=False)
        if chosen:
            self.board_var.set(chosen)

    def _pick_own(self) -> None:
        from tkinter import filedialog
        chosen = filedialog.askopenfilename(parent=self.root, filetypes=[("Python", "*.py")])
        if chosen:
            self.own_var.set(chosen)
            self.who_var.set("own")
            self._enable()

    def choices(self) -> tuple[Optional[Choices], str]:
        """The answers as ``Choices``, or None and what is wrong (in the form's language)."""
        L = self.lang
        c = Choices(lang=L, board=self.board_var.get().strip(), colour=self.colour_var.get(), gui=True,
                    program=self.program)
        if share_tables(c.board):
            from ..tables import ShareError, usable_table
            c.share = c.board = board_folder(c.board)
            table = self.table_var.get().strip()
            if table and table not in self._first_words():
                try:
                    c.table = usable_table(Path(c.share), table).name
                except ShareError as e:
                    return None, Screen(L).reason(e)
                c.board = str(Path(c.share) / c.table)
        else:
            problem = board_problem(c.board)
            if problem:
                return None, problem
            c.board = board_folder(c.board)
        who = self.who_var.get()
        if who == "ai":
            c.ai = parse_ai(self._ai_name())
            if c.ai is None:
                return None, word("bad_ai", L)
        elif who == "own":
            problem = own_problem(self.own_var.get())
            if problem:
                return None, problem
            c.ai = own_spec(self.own_var.get())
        c.size, c.shape = self._board_chosen()
        if (c.share is None or c.table) and unfinished_game(c.board, L):     # (it goes on, or is closed)
            c.new = bool(self.new_var.get())
            c.resume = not c.new
        if c.ai is not None:
            t = parse_time(self.time_var.get())
            if t is None:
                return None, word("bad_time", L)
            c.time = t
        return c, ""

    def start(self) -> None:
        c, problem = self.choices()
        if c is None:
            self.error.configure(text=problem)
            return
        self.result = c
        self.root.destroy()

    def run(self) -> Optional[Choices]:
        self.build()
        self.root.mainloop()
        return self.result
