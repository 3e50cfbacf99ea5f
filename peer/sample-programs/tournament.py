"""A tournament: your AIs against each other and the built-in ones, every pair both colours.
総当たり戦: 自作 AI 同士と組み込み AI を、先手後手を入れ替えて対戦させます。

    python tournament.py [GAMES]        (default 4 games a pair / 既定は 1 組 4 局)

The same table as `cardstand-engine tournament first_ai.py:FirstAI table_ai.py:TableAI ...`.
"""
import sys

from engine import tournament
from first_ai import FirstAI
from minimax_ai import MinimaxAI
from table_ai import TableAI

if __name__ == "__main__":      # (each worker process loads this file again: keep the games here)
    text = sys.argv[1] if len(sys.argv) > 1 else "4"
    if not text.isdigit() or not 1 <= int(text) <= 1000:
        sys.exit("usage: python tournament.py [GAMES]   GAMES: a whole number, 1 to 1000 / 1〜1000 の整数")
    games = int(text)
    table = tournament.play([FirstAI, TableAI, MinimaxAI, "random", "greedy"], games=games, seconds=0.2)
    print(table)
    print("winner / 優勝:", tournament.label(table.ranking()[0]))
