"""Game messages over the board (docs/PROTOCOL.md, part 2).

A move is a plain coordinate, so the tutorial's classic programs understand
it: ``d3``.  Between two programs that shook hands it carries its number and
the mover's thinking time: ``d3 #5 t=120``; a pass is ``pass #6``.
Everything else is a control line that a classic program ignores:
``#cardstand VERB key=value ...`` with percent-encoded values.
"""
import re
from dataclasses import dataclass, field
from urllib.parse import quote, unquote

VERSION = 1
PREFIX = "#cardstand"
VERBS = ("hello", "welcome", "refuse", "refused", "resign", "bye", "say", "result")

_MOVE = re.compile(r"\s*([A-Za-z][0-9]{1,2}|pass|PASS|Pass)\s*(?:#([0-9]+))?\s*(?:t=([0-9]+))?\s*")


@dataclass
class Msg:
    kind: str                       # "move", one of VERBS, or "junk"
    fields: dict = field(default_factory=dict)
    text: str = ""                  # the raw body

    def get(self, key, default=""):
        return self.fields.get(key, default)


def move(square_text, number=None, think_ms=None):
    """``move('d3') == 'd3'`` (classic); ``move('d3', 5, 120) == 'd3 #5 t=120'``."""
    out = square_text
    if number is not None:
        out += f" #{number}"
        if think_ms is not None:
            out += f" t={int(think_ms)}"
    return out


def control(verb, **fields):
    if verb not in VERBS:
        raise ValueError(f"unknown verb {verb!r}")
    parts = [PREFIX, verb]
    parts += [f"{k}={quote(str(v), safe='')}" for k, v in fields.items() if v is not None]
    return " ".join(parts)


def parse(body):
    """Classify a body; never raises (unknown text is ``junk``)."""
    if not isinstance(body, str):
        return Msg("junk", text=repr(body))
    m = _MOVE.fullmatch(body)
    if m:
        f = {"square": m.group(1).lower()}
        if m.group(2):
            f["n"] = int(m.group(2))
        if m.group(3):
            f["t"] = int(m.group(3))
        return Msg("move", f, body)
    words = body.strip().split(" ")
    if len(words) >= 2 and words[0] == PREFIX and words[1] in VERBS:
        f = {}
        for w in words[2:]:
            k, sep, v = w.partition("=")
            if not sep or not k:
                return Msg("junk", text=body)
            f[k] = unquote(v)
        return Msg(words[1], f, body)
    return Msg("junk", text=body)
