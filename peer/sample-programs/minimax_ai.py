"""Minimax: look a few moves ahead, assume the opponent answers its best, pick the best line.
ミニマックス: 数手先まで読み、相手も最善を尽くすと考えて、いちばん良い手を選びます。

    python minimax_ai.py                            plays it against table_ai / table_ai と対戦
    cardstand-black --ai minimax_ai.py:MinimaxAI    on the board / 伝言台で (a clone: python black.py)
"""
from typing import Optional

from engine import PASS, Position, strategies
from table_ai import TableAI        # the table scores the positions it reaches / 末端の評価に表を使う


class MinimaxAI(strategies.Strategy):
    def __init__(self, depth: int = 3) -> None:
        self.depth = depth
        self.table = TableAI()

    def score(self, position: Position) -> int:
        """Good for the side to move > 0 / 手番側に有利なら正."""
        n = position.size
        mine = sum(self.table.value(sq, n) for sq in range(n * n) if position.player >> sq & 1)
        theirs = sum(self.table.value(sq, n) for sq in range(n * n) if position.opponent >> sq & 1)
        return mine - theirs

    def search(self, position: Position, depth: int) -> int:
        if depth == 0 or position.is_game_over():
            return self.score(position)
        moves = position.legal_moves() or [PASS]
        return max(-self.search(position.play(m), depth - 1) for m in moves)

    def next_move(self, position: Position, time_limit: Optional[float] = None) -> int:
        moves = position.legal_moves()
        if not moves:
            return PASS
        return max(moves, key=lambda m: -self.search(position.play(m), self.depth - 1))


if __name__ == "__main__":
    from engine import Game
    players = [MinimaxAI(), TableAI()]
    game = Game()
    while not game.position.is_game_over():
        pos = game.position
        game.play(players[pos.turn].next_move(pos) if not pos.must_pass() else PASS)
    b, w = game.position.discs()
    print(f"MinimaxAI (black) {b} - TableAI (white) {w}")
