"""``view``: what one side knows now, as a face draws it (``peer.view.View``)."""
import time

from comm.text import visible

from ..protocol import NAME_LIMIT
from ..view import Side, View, played
from .state import State


def view(st: State) -> View:
    """The side ``st`` now, for a face (safe to call from another thread)."""
    match = st.match      # (read once: the main thread may replace it)
    game = match.game if match is not None else None
    outcome = match.outcome if match is not None else None
    now = time.monotonic()
    moves, pos, flipped = played(game) if game is not None and st.mode is not None else ((), None, 0)
    sides: list[Side] = []
    mine_kind, clock = st.player.kind, st.player.clock
    clocks = match.clocks if match is not None else None
    turn_since = clocks.turn_since if clocks is not None else None
    since = now - turn_since if turn_since is not None else None
    on_turn = match.to_move() if match is not None and pos is not None else None
    for colour in (0, 1):
        me = colour == st.colour
        name = st.my_name if me else st.them.name
        state, secs = "waiting", None
        if on_turn == colour:
            state, secs = "thinking", since
        if not me:
            if pos is None and not st.them.joined:
                state, secs = "absent", None
            elif st.them.gone and st.them.alive_seen is not None:
                state, secs = "gone", now - st.them.alive_seen[1]
            elif st.them.left_at:
                state, secs = "left", now - st.them.left_at
        sides.append(Side(
            name=visible(name, NAME_LIMIT), kind=mine_kind if me else st.them.kind, me=me, state=state,
            since=secs, used=clocks.used[colour] if clocks is not None else 0.0,
            left=clock.left if me and clock is not None else None,
            per_move=clock.per_move if me and clock is not None and clock.left is None else None))
    gid, ply, hints = st.hints
    return View(colour=st.colour, size=st.size or 8, position=pos, moves=moves,
                flipped=flipped, sides=(sides[0], sides[1]),
                show_legal=on_turn == st.colour and mine_kind == "human",
                result=outcome.result if outcome is not None and pos is not None else "",
                hints=hints if pos is not None and (gid, ply) == (st.gid, len(moves)) else ())
