"""The start screen: what the play options set, asked in turn, at the terminal or in a window.

``python -m peer`` with no arguments at a terminal, and ``python -m peer --gui`` with no other
option, ask instead of playing with every default: the language, the board folder, the colour,
who plays it (you, a built-in AI by strength, your own file), the size and the time.  The
answers become the options of ``python -m peer play`` (``Choices.argv``), and the command to
type next time is shown.  A script (no terminal) never sees a question.
"""
from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, TypeVar

from comm.adopt import unfit_for_a_board
from engine import check_size, strategies

from . import texts

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
    time: float = 1.0
    gui: bool = False
    program: str = "python -m peer play"     # (``cardstand play`` when started as the installed command)

    def argv(self) -> list[str]:
        out = ["--color", self.colour, *_option("--board", self.board), "--lang", self.lang]
        if self.ai is not None:
            out += [*_option("--ai", self.ai), "--time", f"{self.time:g}"]
        if self.size is not None:
            out += ["--size", str(self.size)]
        if self.gui:
            out.append("--gui")
        return out

    def command(self) -> str:
        return shlex.join([*self.program.split(), *self.argv()])


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


def parse_ai(text: str) -> Optional[str]:
    t = text.strip().lower()
    if t.isdigit() and 1 <= int(t) <= len(LADDER):
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
            problem = board_problem(text)
            if not problem:
                c.board = board_folder(text)
                break
            say(problem)
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
        if c.colour == "white":
            c.size = _ask(ask, say, L, "size_white", "", _size_or_blank, "bad_size") or None
        else:
            c.size = _ask(ask, say, L, "size", "8", parse_size, "bad_size")
        if c.ai is not None:
            c.time = _ask(ask, say, L, "time", "1", parse_time, "bad_time")
    except EOFError:
        say(word("cancelled", c.lang))
        return None
    say(f"{word('starting', c.lang)}  {c.command()}")
    return c


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
        self.lang_var = tk.StringVar(root, self.lang)
        self.board_var = tk.StringVar(root, str(Path("cardstand").resolve()))
        self.colour_var = tk.StringVar(root, "black")
        self.who_var = tk.StringVar(root, "person")
        self.ai_var = tk.StringVar(root, LADDER[-1][0])
        self.own_var = tk.StringVar(root, "")
        self.size_var = tk.StringVar(root, "8")
        self.time_var = tk.StringVar(root, "1")
        self.labels: dict[str, tk.Label] = {}
        frame = ttk.Frame(root, padding=12)
        frame.grid(sticky="nsew")
        root.columnconfigure(0, weight=1)
        frame.columnconfigure(1, weight=1)
        row = 0

        def label(key: str) -> None:
            lab = tk.Label(frame, anchor="w", justify="left", wraplength=260)
            lab.grid(row=row, column=0, sticky="nw", padx=(0, 8), pady=3)
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
        label("colour")
        colours = ttk.Frame(frame)
        colours.grid(row=row, column=1, sticky="w")
        self.colour_buttons = [ttk.Radiobutton(colours, value=v, variable=self.colour_var) for v in ("black", "white")]
        for b in self.colour_buttons:
            b.pack(side="left", padx=(0, 8))
        row += 1
        label("who")
        whos = ttk.Frame(frame)
        whos.grid(row=row, column=1, sticky="w")
        self.who_buttons = [ttk.Radiobutton(whos, value=v, variable=self.who_var) for v in ("person", "ai", "own")]
        for b in self.who_buttons:
            b.pack(anchor="w")
        row += 1
        label("ai")
        self.ai_menu = ttk.Combobox(frame, textvariable=self.ai_var, state="readonly", width=38,
                                    values=[name for name, _, _ in LADDER])
        self.ai_menu.grid(row=row, column=1, sticky="ew")
        row += 1
        label("own")
        ttk.Entry(frame, textvariable=self.own_var, width=40).grid(row=row, column=1, sticky="ew")
        self.browse_own = ttk.Button(frame, command=self._pick_own)
        self.browse_own.grid(row=row, column=2, padx=4)
        row += 1
        label("size_white")
        ttk.Combobox(frame, textvariable=self.size_var, width=6,
                     values=[""] + [str(n) for n in range(4, 27, 2)]).grid(row=row, column=1, sticky="w")
        row += 1
        label("time")
        ttk.Entry(frame, textvariable=self.time_var, width=8).grid(row=row, column=1, sticky="w")
        row += 1
        self.error = tk.Label(frame, fg="#c62828", anchor="w", justify="left", wraplength=520)
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
            lab.configure(text=word(key, L).split(":")[0] if key in ("colour", "who") else word(key, L))
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
        self.cancel_button.configure(text=word("cancel", L))

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

    def choices(self) -> tuple[Optional[Choices], str]:
        """The answers as ``Choices``, or None and what is wrong (in the form's language)."""
        L = self.lang
        c = Choices(lang=L, board=self.board_var.get().strip(), colour=self.colour_var.get(), gui=True,
                    program=self.program)
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
        size = self.size_var.get().strip()
        if not size and c.colour == "black":
            size = "8"
        c.size = parse_size(size) if size else None
        if size and c.size is None:
            return None, word("bad_size", L)
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
