"""Speed of the Attraktion and Alva rules: perft from the start and random complete games.

Run from the repository root: ``python3 benchmarks/squaregames.py [--depth 3] [--games 20]``.
Prints one line per figure; the rules must keep up with a live camera (a few turns a
second at most), so the figures that matter are turns per second and the time of one
legal-turn list, which perft and random play both measure.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules import new_game  # noqa: E402

GAMES = ("attraktion", "attraktion-8x8", "alva")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=3, help="deepest perft depth (default 3)")
    parser.add_argument("--games", type=int, default=20, help="random games per game (default 20)")
    args = parser.parse_args()
    for name in GAMES:
        for depth in range(1, args.depth + 1):
            start = time.perf_counter()
            nodes = new_game(name).perft(depth)
            print(f"{name:15} perft {depth}: {nodes:>9} in {time.perf_counter() - start:7.3f} s")
        rng = random.Random(1)
        plies = 0
        start = time.perf_counter()
        for _ in range(args.games):
            board = new_game(name)
            while not board.is_game_over():
                board.push(rng.choice(board.legal_turns()))
            plies += board.ply
        seconds = time.perf_counter() - start
        print(f"{name:15} {args.games} random games: {plies / args.games:.0f} turns each, "
              f"{plies / seconds:.0f} turns/s")


if __name__ == "__main__":
    main()
