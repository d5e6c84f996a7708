"""Rules-engine speed: perft (leaf positions N turns deep) for every game in rules.GAMES.

For each game the depth grows until one depth takes about a second (never one predicted
to take more than --max-seconds); that depth is then run --repeat times and the fastest
run is printed: nodes (leaves), seconds, nodes per second.  Seconds are the CPU time of
the process that counts (``time.process_time``), steadier than wall time on a busy
machine.  For dame100 the same count is also run by py-draughts, through its public
legal-moves/push/pop API in its own virtualenv (built by tools/oracles.sh), its runs
interleaved with ours so both see the same machine load.

Then the figure the live loop depends on: the time of one ``legal_turns`` call on the
busiest position met in random games (and on Accasta's crowded stress position, with
thousands of three-move turns), since move inference calls it for every observation.

    python3 benchmarks/rules.py                 # every game
    python3 benchmarks/rules.py dame100 --json  # one game, JSON lines
    python3 benchmarks/rules.py dame100 --depth 7 --repeat 1

Exit status 1 if a count differs from a published one (dame100).
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

KNOWN_PERFT = {"dame100": (1, 9, 81, 658, 4265, 27117, 167140, 1049442, 6483961)}
"""Published perft counts from the start position (index = depth), checked on every run."""


def choose_depth(game: str, min_seconds: float, max_seconds: float, max_depth: int) -> int:
    """The deepest perft depth that fits the time budget (see the module docstring)."""
    board = new_game(game)
    previous = None
    for depth in range(1, max_depth + 1):
        start = time.process_time()
        nodes = board.perft(depth)
        seconds = time.process_time() - start
        growth = nodes / previous if previous else 10.0  # the branching factor
        if seconds >= min_seconds or seconds * max(growth, 2.0) > max_seconds:
            return depth
        previous = nodes
    return max_depth


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


def our_perft(game: str, depth: int) -> tuple[int, float]:
    board = new_game(game)
    start = time.process_time()
    nodes = board.perft(depth)
    return nodes, time.process_time() - start


class PyDraughts:
    """py-draughts counting perft in its own virtualenv (tools/oracles.sh builds it)."""

    def __init__(self) -> None:
        python = ROOT / ".venv-oracles" / "py-draughts" / "bin" / "python"
        if not python.exists():
            raise RuntimeError("not installed (run tools/oracles.sh py-draughts)")
        self.proc = subprocess.Popen([str(python), str(ROOT / "tests" / "oracles" / "draughts_oracle.py"),
                                      "py-draughts"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def perft(self, depth: int) -> tuple[int, float]:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps({"op": "perft", "depth": depth}) + "\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline() or '{"error": "py-draughts died"}')
        if "error" in answer:
            raise RuntimeError(answer["error"])
        return answer["nodes"], answer["seconds"]

    def close(self) -> None:
        assert self.proc.stdin
        self.proc.stdin.close()
        self.proc.wait()


def measure(game: str, depth: int, repeat: int) -> list[dict[str, object]]:
    """Rows for one game: our best of ``repeat`` runs, and for dame100 py-draughts' best,
    the runs of the two interleaved so that both see the same machine load."""
    ours: list[tuple[int, float]] = []
    theirs: list[tuple[int, float]] = []
    other = None
    error = None
    if game == "dame100":
        try:
            other = PyDraughts()
        except RuntimeError as e:
            error = str(e)
    try:
        for _ in range(repeat):
            ours.append(our_perft(game, depth))
            if other is not None:
                theirs.append(other.perft(depth))
    except RuntimeError as e:
        error = f"failed: {e}"
    finally:
        if other is not None:
            other.close()
    rows: list[dict[str, object]] = []
    for engine, runs in (("tacticblue", ours), ("py-draughts", theirs)):
        if runs:
            nodes, seconds = min(runs, key=lambda r: r[1])
            rows.append({"engine": engine, "game": game, "depth": depth, "nodes": nodes, "seconds": seconds,
                         "nodes_per_second": nodes / seconds if seconds else None})
    if error:
        rows.append({"engine": "py-draughts", "game": game, "depth": depth, "error": error})
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", help="games to measure (default: all)")
    parser.add_argument("--min-seconds", type=float, default=1.0, help="stop deepening once a depth takes this long")
    parser.add_argument("--max-seconds", type=float, default=5.0, help="never start a depth predicted to take longer")
    parser.add_argument("--max-depth", type=int, default=12)
    parser.add_argument("--depth", type=int, help="this depth for every game instead of choosing one")
    parser.add_argument("--repeat", type=int, default=3, help="runs per game at the chosen depth; the fastest counts")
    parser.add_argument("--playouts", type=int, default=20, help="random games searched for the busiest position")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    args = parser.parse_args()
    unknown = set(args.games) - set(GAMES)
    if unknown:
        parser.error(f"unknown games {', '.join(sorted(unknown))}; choose from {', '.join(sorted(GAMES))}")
    status = 0
    for game in args.games or sorted(GAMES):
        depth = args.depth or choose_depth(game, args.min_seconds, args.max_seconds, args.max_depth)
        rows = measure(game, depth, args.repeat)
        count, turn_seconds = busiest_position(game, args.playouts)
        rows[0].update(busiest_turns=count, busiest_legal_turns_ms=round(turn_seconds * 1000, 2))
        for row in rows:
            known = KNOWN_PERFT.get(game, ())
            if "nodes" in row and depth < len(known) and row["nodes"] != known[depth]:
                row["error"] = f"WRONG COUNT {row['nodes']}, expected {known[depth]}"
                status = 1
            if args.json:
                print(json.dumps(row), flush=True)
            elif "error" in row:
                print(f"{row['game']:<16} {row['engine']:<12} depth {row['depth']:>2}  {row['error']}", flush=True)
            else:
                busiest = (f"   busiest {row['busiest_turns']} turns in {row['busiest_legal_turns_ms']:.2f} ms"
                           if "busiest_turns" in row else "")
                print(f"{row['game']:<16} {row['engine']:<12} depth {row['depth']:>2} {row['nodes']:>10} nodes "
                      f"{row['seconds']:7.3f} s {row['nodes_per_second']:>11,.0f} nodes/s{busiest}", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
