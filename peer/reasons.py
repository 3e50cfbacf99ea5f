"""Reasons in English, as they go on the wire and in logs, with the code and raw fields a screen
words them from (``peer.faces.texts`` uses these texts as its English column).  Only the standard
library: the check for a missing dependency (``installed``) reads the texts before anything else
loads."""
import re
import string
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:
    from engine import IllegalMove

# The session's reasons for ``refuse`` and ``refused`` (H4, G2), as they go on the board: in
# English, whatever the language of either screen (``peer.faces.texts`` says them on a screen).  The
# engine's reasons for an illegal move are its ``IllegalMove`` messages.
REASONS = {
    "missing": "move {n} arrived but {expected} was expected",
    "out_of_turn": "not your turn",
    "records_differ": "the two sides remember different games (records differ)",
    "classic_board": "{other} shows no greeting, so it plays the classic protocol, which knows only the plain "
                     "8x8 board; this game is on {shape} (start without --size and --shape to play it)",
    "not_my_ply": "the transcript plays {square} as {colour}'s move {n}, which {colour} did not make",
    "bad_game_id": "bad game id '{id}' (1-64 of A-Z a-z 0-9 . _ -, not starting with '.')",
    "bad_size": "bad board size '{size}'",
    "bad_moves": "the moves '{moves}' do not replay: {reason}",
    "bad_version": "protocol version {v} is not supported (this program speaks {mine})",
    "size_wanted": "white wants a board of {theirs}x{theirs}, black proposes {mine}x{mine}",
    "size_proposed": "black proposes a board of {theirs}x{theirs}, white wants {mine}x{mine}",
    "bad_shape": "bad board shape: {reason}",
    "shape_wanted": "white wants the board {theirs}, black proposes {mine}",
    "shape_proposed": "black proposes the board {theirs}, white wants {mine}",
    "no_secret_there": "{other} plays without the shared secret; give both sides the same "
                       "CARDSTAND_SECRET or --secret-file",
    "no_secret_here": "{other} plays with a shared secret and this side has none: give both sides "
                      "the same CARDSTAND_SECRET or --secret-file",
    "other_secret": "{other} plays with a different shared secret (its messages fail the MAC check); "
                    "give both sides the same CARDSTAND_SECRET or --secret-file",
}

# Why a player cannot start ("Cannot play: ..."), and why a game record is not used (D4, D5).
PROBLEMS = {
    "threads_not_ai": "--threads and --ponder are for --ai best, not for a person or --engine",
    "threads_not_best": "--threads and --ponder are for --ai best, not {name}",
    "time_twice": "--time and --game-time are two ways to give the thinking time: give one",
    "name_too_long": "--name is {n} characters long; a name holds at most {limit}",
    "unknown_ai": "unknown AI '{name}'; choose from {names}",
    "own_ai": "your AI cannot be used: {detail}",
    "no_engine_command": "--engine needs a command",
    "engine_unquoted": "the --engine command has a quote that is not closed, or ends with a backslash: {command}",
    "rec_not_record": "not a cardstand game record",
    "rec_no_id": "damaged game record: no id",
    "rec_bad_id": "damaged game record: bad game id '{id}'",
    "rec_bad_size": "damaged game record: bad size '{size}'",
    "rec_bad_shape": "damaged game record: {reason}",
    "rec_other_id": "damaged game record: it says id '{id}', its name '{name}'",
    "rec_unsigned": "it is not signed: it was written without the shared secret",
    "rec_no_line": "its signature cannot be checked: no '{line}' line",
    "rec_bad_mac": "its signature does not match: it was changed, or written with another secret",
    "rec_no_replay": "its moves do not replay: {reason}",
    "rec_not_over": "it says the game is over, but after {n} plies {colour} can still move",
    "rec_wrong_result": "its result '{result}' is not what its moves give ({b}-{w})",
    "rec_not_resigned": "it says a side resigned, but its result is '{result}'",
    "rec_not_regular": "it is {what}",
    "rec_too_big": "too big for a game record",
    "rec_folder": "a folder, not a game record",
    "table_without_share": "--table names a table on a share: give the share with --share",
    "share_empty": "the share's name is empty: name the shared folder that holds the tables",
    "share_unreachable": "the share {share} cannot be reached: {reason}",
    "share_not_folder": "the share {share} is not a folder",
    "share_is_board": "{share} is a board (it holds cardstand.board), not a share of tables: play at it "
                      "with --board, or name the folder above it",
    "table_name": "'{name}' cannot be a table's name: use 1-32 letters, digits, '-' or '_', starting "
                  "with a letter or digit, and not a name Windows keeps for a device (con, nul, com1...)",
    "share_no_table": "cannot make a table on {share}: {reason}",
    "table_not_folder": "the table {name} is not a folder of the share (a link, or a file): it is not used",
    "table_is_league": "{name} is a league's folder, not a table",
    "table_of_league": "the table {name} is for a game of the league {league}: its entrants play there",
}
ENGLISH = {**REASONS, **PROBLEMS}


@dataclass(frozen=True)
class Reason:
    """Why something was refused: ``code`` says it to a screen (a key of ``peer.faces.texts`` with
    ``fields``), ``english`` to the other side and the logs (the wire is English, always)."""

    code: str
    english: str
    fields: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def own(cls, code: str, **fields: Any) -> "Reason":
        """One of this program's reasons (``REASONS``, ``PROBLEMS``)."""
        return cls(code, ENGLISH[code].format(**fields), fields)

    @classmethod
    def illegal(cls, e: "IllegalMove", move: str, size: int) -> "Reason":
        """The engine's refusal of ``move`` (as sent or typed) on a board of ``size``."""
        code = f"illegal_{e.reason}" if e.reason else ""
        return cls(code, str(e), {"square": move, "size": size})

    @classmethod
    def board(cls, e: OSError) -> "Reason | OSError":
        """Why a board could not be joined (a ``comm.BoardError``): its code and fields, with the
        cause a ``Reason`` of its own when comm named its kind (``why_<kind>``: a screen without
        words for that kind shows the system's); else the error itself."""
        code, fields = getattr(e, "code", ""), dict(getattr(e, "fields", {}))
        if not code:
            return e
        if code in ("cannot_use", "cannot_join"):
            system = str(fields.get("system", ""))
            kind = fields.get("kind") or ""
            fields["reason"] = cls(f"why_{kind}", system, {"system": system}) if kind else system
        return cls(f"board_{code}", str(e), fields)

    @classmethod
    def read(cls, english: object) -> "Reason | str":
        """A reason that came in English (from the other side): the ``Reason`` it is, when it is one
        of ``REASONS`` (its fields are text as read); else the text as it is."""
        text = str(english)
        for code, pattern in _READ.items():
            m = pattern.fullmatch(text)
            if m:
                return cls(code, text, m.groupdict())
        return text

    def __str__(self) -> str:
        return self.english


def _pattern(template: str) -> "re.Pattern[str]":
    """A regular expression that reads ``template``'s text back into its fields."""
    out, seen = "", set()
    for literal, name, _, _ in string.Formatter().parse(template):
        out += re.escape(literal)
        if name:
            out += f"(?P={name})" if name in seen else f"(?P<{name}>.+?)"
            seen.add(name)
    return re.compile(out, re.S)


_READ = {code: _pattern(t) for code, t in REASONS.items()}


class Explained(ValueError):
    """A ``ValueError`` that a screen can put in its own words: its ``reason`` (its text: the
    English of ``PROBLEMS``)."""

    def __init__(self, code: str, **fields: Any) -> None:
        self.reason = Reason.own(code, **fields)
        super().__init__(self.reason.english)
