"""A first AI in ten lines: take a corner when you can, else the move that flips the most.
はじめての AI（10 行）: 角が取れれば角、取れなければいちばん多く返せる手。

    python first_ai.py                       plays it against `random` / random と対戦
    cardstand-black --ai first_ai.py:FirstAI plays it on the board / 伝言台で対戦 (a clone: python black.py)
"""
from typing import Optional

from engine import PASS, Position, strategies


class FirstAI(strategies.Strategy):
    def next_move(self, position: Position, time_limit: Optional[float] = None) -> int:
        moves = position.legal_moves()          # squares: a1 = 0, b1 = 1, ... / マスの番号
        if not moves:
            return PASS                         # no move: pass / 打てない: パス
        n = position.size
        corners = [m for m in moves if m in (0, n - 1, n * n - n, n * n - 1)]
        return max(corners or moves, key=lambda m: bin(position.flips(m)).count("1"))


if __name__ == "__main__":
    from engine import Game
    players = [FirstAI(), strategies.get("random", seed=1)]     # black, white / 黒, 白
    game = Game()
    while not game.position.is_game_over():
        pos = game.position
        game.play(players[pos.turn].next_move(pos) if not pos.must_pass() else PASS)
    b, w = game.position.discs()
    print(f"FirstAI (black) {b} - random (white) {w}: {game.transcript()}")
