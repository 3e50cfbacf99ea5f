"""A first AI in ten lines: take a corner when you can, else the move that flips the most.
はじめての AI（10 行）: 角が取れれば角、取れなければいちばん多く返せる手。

    python first_ai.py                       plays it against `random` / random と対戦
    cardstand-black --ai first_ai.py:FirstAI plays it on the board / 伝言台で対戦
        (from the project's folder: python black.py --ai mine/first_ai.py:FirstAI)
"""
from engine import strategies
from engine.simple import Board, Move, SimpleAI


class FirstAI(SimpleAI):
    def choose(self, board: Board) -> Move:
        # board.moves: the legal moves, each with .name ("d3"), .x, .y and .flips (discs it turns)
        # board.moves: 打てる手。それぞれ .name（"d3"）, .x, .y, .flips（返せる石の数）
        corners = [m for m in board.moves if m.is_corner]
        return max(corners or board.moves, key=lambda m: m.flips)   # (a pass is played for you)


if __name__ == "__main__":
    from engine import PASS, Game
    players = [FirstAI(), strategies.get("random", seed=1)]     # black, white / 黒, 白
    game = Game()
    while not game.position.is_game_over():
        pos = game.position
        game.play(players[pos.turn].next_move(pos) if not pos.must_pass() else PASS)
    b, w = game.position.discs()
    print(f"FirstAI (black) {b} - random (white) {w}: {game.transcript()}")
