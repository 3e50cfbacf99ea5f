"""A misbehaving NBoard engine for tests/test_sprt.py: ``python fake_nboard.py MODE``.

MODE: ``illegal`` answers every ``go`` with D4 (never empty); ``long`` with 100,000 letters;
``crash`` exits at its first ``go``; ``silent`` never answers ``go``.
"""
import sys
import time

from engine import Game, notation
from engine.notation import PASS


def main(mode):
    game = Game()
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        cmd = words[0]
        if cmd == "nboard":
            print(f"set myname fake-{mode}", flush=True)
        elif cmd == "ping":
            print("pong " + " ".join(words[1:]), flush=True)
        elif cmd == "set" and words[1:2] == ["game"]:
            game = Game.from_ggf(line.split(None, 2)[2])
        elif cmd == "move":
            sq = notation.parse_square(words[1].split("/")[0], 8)
            if sq != PASS and game.position.must_pass():
                game.play(PASS)
            game.play(sq)
        elif cmd == "go":
            if mode == "crash":
                sys.exit(3)
            if mode == "silent":
                time.sleep(30)
            move = {"illegal": "D4", "long": "A" * 100_000}.get(mode) or \
                notation.square_name(game.position.legal_moves()[0]).upper()
            print(f"=== {move}", flush=True)
        elif cmd == "quit":
            break


if __name__ == "__main__":
    main(sys.argv[1])
