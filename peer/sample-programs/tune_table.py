"""Tuning a table by self-play: change one weight a little, play the old table, keep what wins.
自己対戦で評価表を調整: 重みを少し変えて元の表と対戦させ、勝てば採用します。

    python tune_table.py [ROUNDS]       (default 20 rounds, a few seconds / 既定 20 回、数秒)

A real tuner plays many more games per round; this one shows the idea.
本格的な調整はもっと多く対戦しますが、考え方はこれと同じです。
"""
import random
import sys

from engine import PASS, Game
from table_ai import WEIGHTS, TableAI

# the 10 different squares of a symmetric 8x8 table / 対称な 8x8 の表で異なる 10 マス
GROUPS: dict[tuple[int, int], list[int]] = {}
for sq in range(64):
    y, x = divmod(sq, 8)
    y, x = min(y, 7 - y), min(x, 7 - x)
    GROUPS.setdefault((min(y, x), max(y, x)), []).append(sq)


def play(black: TableAI, white: TableAI, opening: str) -> int:
    """Disc difference for black after a game from `opening` / 黒から見た石差."""
    game = Game.from_transcript(opening)
    players = [black, white]
    while not game.position.is_game_over():
        pos = game.position
        game.play(players[pos.turn].next_move(pos) if not pos.must_pass() else PASS)
    b, w = game.position.discs()
    return b - w


def match(new: TableAI, old: TableAI, openings: list[str]) -> int:
    """new's total disc difference over each opening played with both colours / 両色で対戦."""
    return sum(play(new, old, o) - play(old, new, o) for o in openings)


def main(rounds: int = 20, seed: int = 1) -> list[int]:
    rng = random.Random(seed)
    weights = list(WEIGHTS)
    openings = ["f5d6", "f5f6", "f5f4", "f5d6c3d3c4", "f5d6c5f4e3"]
    for r in range(1, rounds + 1):
        group = rng.choice(list(GROUPS))
        step = rng.choice([-10, -5, 5, 10])
        trial = list(weights)
        for sq in GROUPS[group]:
            trial[sq] += step
        margin = match(TableAI(trial), TableAI(weights), openings)
        kept = margin > 0
        if kept:
            weights = trial
        print(f"round {r:2d}: square {group} {step:+d} -> {margin:+d} discs {'kept / 採用' if kept else ''}")
    print("weights / 重み:")
    for y in range(8):
        print(" ".join(f"{w:4d}" for w in weights[y * 8:y * 8 + 8]))
    return weights


if __name__ == "__main__":
    text = sys.argv[1] if len(sys.argv) > 1 else "20"
    if not text.isdigit() or not 1 <= int(text) <= 10000:
        sys.exit("usage: python tune_table.py [ROUNDS]   ROUNDS: a whole number, 1 to 10000 / 1〜10000 の整数")
    main(int(text))
