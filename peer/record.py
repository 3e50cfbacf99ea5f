"""Game records kept in the board folder: ``records/<id>.game`` and ``records/current``."""
import time
from dataclasses import dataclass, field
from pathlib import Path

from comm import fsops
from engine import PASS, Game, notation

MAGIC = "cardstand-game 1"


@dataclass
class Record:
    id: str
    size: int = 8
    black: str = "black"
    white: str = "white"
    date: str = field(default_factory=lambda: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    mode: str = "full"
    moves: str = ""               # with passes written out: "f5d6...pass..."
    status: str = "playing"       # playing, over, resigned
    result: str = ""              # "36-28", "black resigned", ...

    def text(self):
        return (f"{MAGIC}\nid: {self.id}\nsize: {self.size}\nblack: {self.black}\nwhite: {self.white}\n"
                f"date: {self.date}\nmode: {self.mode}\nmoves: {self.moves}\nstatus: {self.status}\n"
                f"result: {self.result}\n")

    @classmethod
    def parse(cls, text):
        lines = text.splitlines()
        if not lines or lines[0].strip() != MAGIC:
            raise ValueError("not a cardstand game record")
        f = {}
        for line in lines[1:]:
            k, sep, v = line.partition(": ")
            if sep:
                f[k.strip()] = v.strip()
            elif line.strip().endswith(":"):
                f[line.strip()[:-1]] = ""
        try:
            return cls(id=f["id"], size=int(f.get("size", 8)), black=f.get("black", "black"),
                       white=f.get("white", "white"), date=f.get("date", ""), mode=f.get("mode", "full"),
                       moves=f.get("moves", ""), status=f.get("status", "playing"), result=f.get("result", ""))
        except (KeyError, ValueError) as e:
            raise ValueError(f"damaged game record: {e}") from None

    def game(self):
        """The moves replayed on a board (raises ``IllegalMove`` for a damaged record)."""
        return Game.from_transcript(self.moves, size=self.size)

    def ggf(self):
        """The game in GGF, the format of the Generic Game Server and most Othello tools."""
        g = self.game()
        return g.to_ggf(self.black, self.white, self.ggf_result(g), date=self.date)

    def ggf_result(self, g):
        if self.status == "over":
            b, w = g.position.discs()
            diff = b - w
            e = g.position.empties()
            diff += e if diff > 0 else -e if diff < 0 else 0
            return f"{diff:+d}.000" if diff else "0.000"
        if self.status == "resigned":
            loser_black = self.result.startswith("black")
            return f"{'-' if loser_black else '+'}{n_squares(self.size)}.000:r"
        return ""


def n_squares(size):
    return size * size


class Records:
    """The records folder of one board."""

    def __init__(self, board_folder):
        self.dir = Path(board_folder) / "records"
        self.tmp = Path(board_folder) / "tmp"

    def path(self, gid):
        return self.dir / f"{gid}.game"

    def save(self, record):
        self.dir.mkdir(parents=True, exist_ok=True)
        fsops.replace_with(self.tmp, self.path(record.id), record.text().encode("utf-8"), durable=False)
        fsops.replace_with(self.tmp, self.dir / "current", fsops.record(record.id), durable=False)

    def load(self, gid):
        text = fsops.read_text_full(self.path(gid))
        return Record.parse(text) if text is not None else None

    def current(self):
        """The latest game on this board, or None (a damaged record counts as none)."""
        gid = fsops.read_text(self.dir / "current")
        if not gid or not gid.strip():
            return None
        try:
            return self.load(gid.strip())
        except ValueError:
            return None


def load_file(path):
    text = Path(path).read_text(encoding="utf-8")
    return Record.parse(text)
