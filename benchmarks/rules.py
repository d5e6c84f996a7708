"""Rules-engine speed: perft (leaf positions N turns deep) for every game in rules.GAMES.

For each game the depth grows until one depth takes about a second (never one predicted
to take more than --max-seconds), and the deepest depth measured is printed: nodes
(leaves), seconds, nodes per second.  For dame100 the same count is also run by
py-draughts, through its public legal-moves/push/pop API in its own virtualenv (built by
tools/oracles.sh), side by side in the same run.

Then the figure the live loop depends on: the time of one ``legal_turns`` call on the
busiest position met in random games (and on Accasta's crowded stress position, with
thousands of three-move turns), since move inference calls it for every observation.

    python3 benchmarks/rules.py                 # every game
    python3 benchmarks/rules.py dame100 --json  # one game, JSON lines
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rules import GAMES, new_game  # noqa: E402


def measure(game: str, min_seconds: float, max_seconds: float, max_depth: int) -> tuple[int, int, float]:
    """(depth, nodes, seconds) of the deepest perft run within the time budget."""
    board = new_game(game)
    previous = None
    for depth in range(1, max_depth + 1):
        start = time.perf_counter()
        nodes = board.perft(depth)
        seconds = time.perf_counter() - start
        result = (depth, nodes, seconds)
        growth = nodes / previous[1] if previous and previous[1] else 10.0  # the branching factor
        if seconds >= min_seconds or seconds * max(growth, 2.0) > max_seconds:
            return result
        previous = result
    return previous or (0, 1, 0.0)


STRESS: dict[str, dict[str, str]] = {
    "accasta": {"c2": "www", "c5": "www", "e2": "bww", "e5": "www", "d4": "www", "b3": "bw", "f3": "bbb",
                "g2": "bbb", "d1": "b", "d7": "bb", "a2": "bb", "f5": "wb", "c3": "w"},
}
"""Hand-made worst cases: White's five open triple stacks in mid-board (Accasta)."""


def legal_turns_seconds(board, repeat: int = 5) -> float:
    """The fastest of ``repeat`` calls of ``legal_turns`` (seconds)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        board.legal_turns()
        best = min(best, time.perf_counter() - start)
    return best


def busiest_position(game: str, playouts: int, seed: int = 2024) -> tuple[int, float]:
    """(turn count, legal_turns seconds) of the position with most turns met in random games."""
    rng = random.Random(seed)
    count, seconds = 0, 0.0
    for _ in range(playouts):
        board = new_game(game)
        for _ in range(120):
            turns = board.legal_turns()
            if not turns:
                break
            if len(turns) > count:
                count, seconds = len(turns), legal_turns_seconds(board)
            board.push(rng.choice(turns))
    if game in STRESS:
        board = new_game(game)
        board.set_position(STRESS[game], "w")
        if len(board.legal_turns()) > count:
            count, seconds = len(board.legal_turns()), legal_turns_seconds(board)
    return count, seconds


def py_draughts_perft(depth: int) -> tuple[int, float] | str:
    """(nodes, seconds) of py-draughts' perft, or why it could not run."""
    python = ROOT / ".venv-oracles" / "py-draughts" / "bin" / "python"
    if not python.exists():
        return "not installed (run tools/oracles.sh py-draughts)"
    run = subprocess.run([str(python), str(ROOT / "tests" / "oracles" / "draughts_oracle.py"), "py-draughts"],
                         input=json.dumps({"op": "perft", "depth": depth}) + "\n", capture_output=True, text=True,
                         timeout=600)
    if run.returncode != 0 or not run.stdout.strip():
        return f"failed: {run.stderr.strip().splitlines()[-1:] or run.returncode}"
    answer = json.loads(run.stdout)
    if "error" in answer:
        return f"failed: {answer['error']}"
    return answer["nodes"], answer["seconds"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", help="games to measure (default: all)")
    parser.add_argument("--min-seconds", type=float, default=1.0, help="stop deepening once a depth takes this long")
    parser.add_argument("--max-seconds", type=float, default=5.0, help="never start a depth predicted to take longer")
    parser.add_argument("--max-depth", type=int, default=12)
    parser.add_argument("--playouts", type=int, default=20, help="random games searched for the busiest position")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    args = parser.parse_args()
    unknown = set(args.games) - set(GAMES)
    if unknown:
        parser.error(f"unknown games {', '.join(sorted(unknown))}; choose from {', '.join(sorted(GAMES))}")
    rows = []
    for game in args.games or sorted(GAMES):
        depth, nodes, seconds = measure(game, args.min_seconds, args.max_seconds, args.max_depth)
        count, turn_seconds = busiest_position(game, args.playouts)
        rows.append({"engine": "tacticblue", "game": game, "depth": depth, "nodes": nodes, "seconds": seconds,
                     "busiest_turns": count, "busiest_legal_turns_ms": round(turn_seconds * 1000, 2)})
        if game == "dame100":
            other = py_draughts_perft(depth)
            if isinstance(other, str):
                rows.append({"engine": "py-draughts", "game": game, "depth": depth, "error": other})
            else:
                rows.append({"engine": "py-draughts", "game": game, "depth": depth, "nodes": other[0],
                             "seconds": other[1]})
        for row in rows:
            if "seconds" in row:
                row["nodes_per_second"] = row["nodes"] / row["seconds"] if row["seconds"] else None
            if args.json:
                print(json.dumps(row), flush=True)
            elif "error" in row:
                print(f"{row['game']:<16} {row['engine']:<12} depth {row['depth']:>2}  {row['error']}", flush=True)
            else:
                busiest = (f"   busiest {row['busiest_turns']} turns in {row['busiest_legal_turns_ms']:.1f} ms"
                           if "busiest_turns" in row else "")
                print(f"{row['game']:<16} {row['engine']:<12} depth {row['depth']:>2} {row['nodes']:>10} nodes "
                      f"{row['seconds']:7.3f} s {row['nodes_per_second']:>11,.0f} nodes/s{busiest}", flush=True)
        rows.clear()
    return 0


if __name__ == "__main__":
    sys.exit(main())
