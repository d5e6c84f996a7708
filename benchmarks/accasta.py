"""Speed of the Accasta turn generator: legal_turns on crowded positions and perft of the start.

Run from the repository root:  python3 benchmarks/accasta.py [--depth 3] [--playouts 50]

Move inference calls ``legal_turns`` live, once per observed change, so its time on the
most crowded positions is the figure that matters (target: well under 50 ms).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules.accasta import Accasta  # noqa: E402

CROWDED = {"c2": "www", "c5": "www", "e2": "bww", "e5": "www", "d4": "www", "b3": "bw", "f3": "bbb",
           "g2": "bbb", "d1": "b", "d7": "bb", "a2": "bb", "f5": "wb", "c3": "w"}
"""White's five open triple stacks in mid-board: thousands of three-move turns."""


def best_of(board: Accasta, repeat: int = 20) -> float:
    """The fastest of ``repeat`` calls of ``legal_turns``, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        board.legal_turns()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=3, help="deepest perft depth (default 3, about 20 s)")
    parser.add_argument("--playouts", type=int, default=50, help="random games searched for the busiest position")
    args = parser.parse_args()

    board = Accasta()
    board.set_position(CROWDED, "w")
    turns = board.legal_turns()
    three = sum(len(t.moves) == 3 for t in turns)
    print(f"crowded position: {len(turns)} turns ({three} of three moves) in {best_of(board) * 1000:.1f} ms")

    rng = random.Random(2024)
    busiest = (0, 0.0)
    for _ in range(args.playouts):
        game = Accasta()
        for _ in range(80):
            turns = game.legal_turns()
            if not turns:
                break
            if len(turns) > busiest[0]:
                busiest = (len(turns), best_of(game, 5))
            game.push(rng.choice(turns))
    print(f"busiest of {args.playouts} random games: {busiest[0]} turns in {busiest[1] * 1000:.1f} ms")

    start_position = Accasta()
    print(f"start position: {len(start_position.legal_turns())} turns in {best_of(start_position) * 1000:.2f} ms")
    for depth in range(1, args.depth + 1):
        start = time.perf_counter()
        nodes = start_position.perft(depth)
        print(f"perft {depth}: {nodes} in {time.perf_counter() - start:.2f} s", flush=True)


if __name__ == "__main__":
    main()
