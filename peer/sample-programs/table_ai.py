"""A weighted-table AI: every square has a value; play the move on the best square.
評価表の AI: マスごとに点数をつけ、いちばん点の高いマスに打ちます。

    python table_ai.py                         plays it against `greedy` / greedy と対戦
    cardstand-white --ai table_ai.py:TableAI   on the board / 伝言台で (a clone: python white.py)
"""
from typing import Optional

from engine import PASS, Position, strategies

# Corners are worth much, the squares next to them are dangerous (8x8).
# 角は高く、角の隣は危険（8x8 用）。
WEIGHTS = [
    100, -20, 10, 5, 5, 10, -20, 100,
    -20, -50, -2, -2, -2, -2, -50, -20,
    10, -2, 1, 1, 1, 1, -2, 10,
    5, -2, 1, 0, 0, 1, -2, 5,
    5, -2, 1, 0, 0, 1, -2, 5,
    10, -2, 1, 1, 1, 1, -2, 10,
    -20, -50, -2, -2, -2, -2, -50, -20,
    100, -20, 10, 5, 5, 10, -20, 100,
]


class TableAI(strategies.Strategy):
    def __init__(self, weights: Optional[list[int]] = None) -> None:
        self.weights = list(weights or WEIGHTS)

    def value(self, square: int, size: int) -> int:
        """The weight of a square; on other sizes the nearest 8x8 square's / 他のサイズでは近いマス."""
        y, x = divmod(square, size)
        return self.weights[(y * 8 // size) * 8 + x * 8 // size]

    def next_move(self, position: Position, time_limit: Optional[float] = None) -> int:
        moves = position.legal_moves()
        if not moves:
            return PASS
        return max(moves, key=lambda m: self.value(m, position.size))


if __name__ == "__main__":
    from engine import Game
    players = [TableAI(), strategies.get("greedy")]
    game = Game()
    while not game.position.is_game_over():
        pos = game.position
        game.play(players[pos.turn].next_move(pos) if not pos.must_pass() else PASS)
    b, w = game.position.discs()
    print(f"TableAI (black) {b} - greedy (white) {w}")
