"""H2 H3: what black and white do differently in a handshake, as values (``ROLES[colour]``):
black's ``hello`` defines the game, white answers it with ``welcome``.  The handshake itself is
``peer.session.handshake``."""
from typing import Any, Dict, Tuple

from engine import BLACK, WHITE, Shape

from .. import protocol
from ..protocol import Msg
from .state import State

Problem = Tuple[str, Dict[str, Any]]     # a refusal reason: its key in protocol.REASONS and fields


def shaped(msg: Msg) -> bool:
    """Whether a greeting speaks of a shape: ``shape`` is read in a version-2 greeting only."""
    return msg.get("v") == str(protocol.SHAPES_VERSION) and "shape" in msg.fields


def board_fields(board: Shape | None) -> dict[str, object]:
    """What a greeting says of a board that is not plain (H2): ``shape`` beside ``size``, and so
    ``v=2``; nothing for a plain one."""
    if board is None or board.is_plain():
        return {}
    return {"v": protocol.SHAPES_VERSION, "size": board.size, "shape": board.code()}


class Black:
    """Black proposes the game (H2) and binds on white's ``welcome`` (H3)."""

    colour = BLACK
    takes_welcome = True        # a welcome is an answer to our hello
    falls_back_to_classic = True    # H6: our hello delivered, no welcome in time

    def hello_fields(self, st: State) -> dict[str, object]:
        fields: dict[str, object] = {"size": st.size, **board_fields(st.shape)}
        fields.update(game=st.gid, moves=st.game.transcript(passes=True) if st.game else "")
        return fields

    def needs_game_id(self, msg: Msg) -> bool:
        return "game" in msg.fields or msg.kind == "welcome"

    def reads_size(self, msg: Msg) -> bool:
        return "size" in msg.fields or shaped(msg)

    def board_problem(self, st: State, board: Shape, shaped: bool) -> Problem | None:
        """White's ``hello`` requires ``board`` (its size only, unless ``shaped``: it sent a shape)."""
        if board.size != st.size:
            return "size_wanted", {"theirs": board.size, "mine": st.size}
        if shaped and st.shape is not None and not board.same_board(st.shape):
            return "shape_wanted", {"theirs": protocol.named_board(board), "mine": st.shape}
        return None

    def moves_board(self, st: State, board: Shape) -> Shape:
        """The board the other side's transcript is replayed on: black's own."""
        return st.shape or board


class White:
    """White takes black's game (H2) and answers with ``welcome`` (H3)."""

    colour = WHITE
    takes_welcome = False
    falls_back_to_classic = False

    def hello_fields(self, st: State) -> dict[str, object]:
        fields: dict[str, object] = {}
        if st.want_size:
            fields["size"] = st.want_size
        if st.want_shape is not None:
            fields.update(board_fields(st.want_shape))
        if st.game:
            fields.update(game=st.gid, moves=st.game.transcript(passes=True))
        elif st.asked_new:
            fields["new"] = 1       # H2: do not resume; black closes its unfinished game
        return fields

    def needs_game_id(self, msg: Msg) -> bool:
        return True

    def reads_size(self, msg: Msg) -> bool:
        return True

    def board_problem(self, st: State, board: Shape, shaped: bool) -> Problem | None:
        """Black's ``hello`` proposes ``board``; white refuses another size or shape than it requires."""
        if st.want_size and board.size != st.want_size:
            return "size_proposed", {"theirs": board.size, "mine": st.want_size}
        if st.want_shape is not None and not board.same_board(st.want_shape):
            return "shape_proposed", {"theirs": protocol.named_board(board), "mine": st.want_shape}
        return None

    def moves_board(self, st: State, board: Shape) -> Shape:
        """The board the other side's transcript is replayed on: the one black proposes."""
        return board


ROLES = (Black(), White())
