"""Time move inference per observation, for every game: ``python benchmarks/inference.py [GAMES...]``.

Plays seeded random games; before every turn it infers the visible board after that
turn twice: from a fresh game state ("cold": the position's turns are generated and
reduced to visible changes first, as for the first frame after a turn) and again
from the same state ("warm": every later frame of the same position in a live loop).
Prints per game the median and worst CPU milliseconds of each (CPU time of this
process, so that other work on the machine does not inflate the figures), the most legal turns met,
and how the observations were inferred (turn / same position reached by equivalent
turns / ambiguous; a pass is seen only with the reply), which must all be right.
``--hidden`` observes only the top piece of every stack, to count how often that
leaves several turns possible.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, Hashable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules import GAMES, Board, new_game  # noqa: E402
from rules.infer import GameState, Observation, infer  # noqa: E402


def top_only(points: dict[str, str]) -> dict[str, str]:
    """The view of a camera that reads only the top piece of a stack (lower layers ``?``)."""
    return {p: "?" * (len(s) - 1) + s[-1:] for p, s in points.items()}


def after(board: Board[Any], turns: tuple[Any, ...]) -> Hashable:
    """The position key after ``turns`` (the board is left as it was)."""
    for t in turns:
        board.push(t)
    key = board.key()
    for _ in turns:
        board.pop()
    return key


def run(game: str, games: int, plies: int, seed: int, hidden: bool = False) -> dict[str, object]:
    rng = random.Random(f"{seed}-{game}")
    cold: list[float] = []
    warm: list[float] = []
    kinds: Counter[str] = Counter()
    most_turns = 0
    for _ in range(games):
        board = new_game(game)
        passed, passed_turn = None, None  # the board before a pass, whose reply confirms it
        while board.outcome() is None and board.ply < plies:
            turns = board.legal_turns()
            if not turns:
                break
            most_turns = max(most_turns, len(turns))
            turn = rng.choice(turns)
            before = board.visible()
            board.push(turn)
            view, key = board.visible(), board.key()
            board.pop()
            obs = Observation(top_only(view) if hidden else view)
            if view == before:  # a pass: the camera sees it only with the reply
                kinds["pass"] += 1
                passed, passed_turn = (None, None) if passed else (board.copy(), turn)
                board.push(turn)
                continue
            start_board, played = (passed, [passed_turn, turn]) if passed else (board, [turn])
            state = GameState(start_board)
            start = time.process_time()
            result = infer(state, obs)
            cold.append(time.process_time() - start)
            start = time.process_time()
            infer(state, obs)
            warm.append(time.process_time() - start)
            reached = [after(start_board, c.turns) for c in result.candidates]
            if result.kind == "turn":
                right = reached[0] == key
                kinds["turn" if list(result.turns) == played else "equivalent turn" if right else "WRONG"] += 1
            elif result.kind == "ambiguous" and key in reached:
                kinds["ambiguous"] += 1
            else:
                kinds[f"WRONG ({result.kind})"] += 1
            passed = None
            board.push(turn)
    return {"cold": cold, "warm": warm, "kinds": kinds, "most_turns": most_turns}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=sorted(GAMES), help="games to time (default: all)")
    parser.add_argument("--count", type=int, default=10, help="random games per game (default 10)")
    parser.add_argument("--plies", type=int, default=120, help="longest game in plies (default 120)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hidden", action="store_true",
                        help="observe only the top piece of every stack (lower layers '?')")
    args = parser.parse_args()
    print(f"{'game':<16}{'obs':>6}{'cold median':>13}{'cold worst':>12}{'warm median':>13}"
          f"{'warm worst':>12}{'turns max':>11}  inferred as")
    wrong = 0
    for game in args.games:
        r = run(game, args.count, args.plies, args.seed, args.hidden)
        cold, warm, kinds = r["cold"], r["warm"], r["kinds"]
        wrong += sum(v for k, v in kinds.items() if k.startswith("WRONG"))  # type: ignore[union-attr]
        ms = lambda xs, f: f"{1000 * f(xs):.2f} ms"  # noqa: E731
        print(f"{game:<16}{len(cold):>6}{ms(cold, statistics.median):>13}{ms(cold, max):>12}"
              f"{ms(warm, statistics.median):>13}{ms(warm, max):>12}{r['most_turns']:>11}  "
              + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())), flush=True)  # type: ignore[union-attr]
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
