"""Perft figures and speed of the Abande and Attangle move generators.

Run from the repository root: ``python3 benchmarks/perft_stacking.py [--depth N]``.
Prints, for each game and depth, the leaf count, the wall time and the CPU time
(the CPU time is the fairer figure on a shared machine).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules import new_game  # noqa: E402

GAMES = {"abande": 5, "abande-square": 4, "attangle": 4, "attangle-square": 3, "attangle-2008": 4}
"""Each game and the default deepest depth (kept to seconds on a laptop)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, help="deepest depth for every game (default: per game)")
    args = parser.parse_args()
    for name, default in GAMES.items():
        board = new_game(name)
        for depth in range(1, (args.depth or default) + 1):
            wall, cpu = time.perf_counter(), time.process_time()
            nodes = board.perft(depth)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            rate = nodes / cpu if cpu > 0 else float("inf")
            print(f"{name:<16} depth {depth}: {nodes:>10}  {wall:7.3f} s wall  {cpu:7.3f} s cpu  {rate:>10.0f} leaves/s",
                  flush=True)


if __name__ == "__main__":
    main()
