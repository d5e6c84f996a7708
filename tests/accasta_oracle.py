"""An independent, deliberately naive Accasta move generator, used only as a test oracle.

AbstractPlay's implementation (the suggested outside oracle) is not published on the npm
registry we can reach, so this is a second implementation written straight from the
booklet with nothing shared with ``rules``: its own coordinates (built from the
row/point description in ../shared/rules-notes.md, not from ``rules.geometry``), its own
board (a dict of point name -> stack, copied at every move) and turns as plain tuples of
names.  Slow but obvious.
"""

from __future__ import annotations

ROWS = "abcdefg"
LENGTHS = (4, 5, 6, 7, 6, 5, 4)

# Axial hex coordinates (q, r): going up a row a point touches (q, r+1) and (q-1, r+1).
# Lower half: x_i touches (x+1)_i and (x+1)_(i+1)  => q = i - r.
# Upper half: x_i touches (x+1)_(i-1) and (x+1)_i  => q = i - 3.
NAME_AT: dict[tuple[int, int], str] = {}
for r, length in enumerate(LENGTHS):
    for i in range(length):
        NAME_AT[(i - min(r, 3), r)] = f"{ROWS[r]}{i + 1}"
COORD = {name: qr for qr, name in NAME_AT.items()}
STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))

CASTLES = {
    "w": {"a1", "a2", "a3", "a4", "b2", "b3", "b4", "c3", "c4"},
    "b": {"g1", "g2", "g3", "g4", "f2", "f3", "f4", "e3", "e4"},
}

Turn = tuple[str, tuple[tuple[int, str], ...]]


def line(start: str, step: tuple[int, int], length: int) -> list[str]:
    """Up to ``length`` points from ``start`` (excluded) going ``step``, stopping at the edge."""
    q, r = COORD[start]
    out = []
    for _ in range(length):
        q, r = q + step[0], r + step[1]
        if (q, r) not in NAME_AT:
            break
        out.append(NAME_AT[(q, r)])
    return out


def winner_by_castle(board: dict[str, str], mover: str) -> str | None:
    for colour in (mover, "b" if mover == "w" else "w"):
        enemy = "b" if colour == "w" else "w"
        if sum(1 for p in CASTLES[enemy] if board.get(p, "").endswith(colour)) >= 3:
            return colour
    return None


def turns(board: dict[str, str], me: str) -> set[Turn]:
    """Every legal turn of ``me``: sets of (origin, ((count, destination), ...))."""
    opponent = "b" if me == "w" else "w"
    if winner_by_castle(board, opponent) is not None:
        return set()
    found: set[Turn] = set()

    def more(position: dict[str, str], origin: str, done: tuple[tuple[int, str], ...]) -> None:
        stack = position.get(origin, "")
        if len(done) == 3 or not stack or stack[-1] != me:
            return
        reach = stack.count(me)
        for step in STEPS:
            points = line(origin, step, reach)
            for distance, dest in enumerate(points, 1):
                if any(position.get(p, "") for p in points[:distance - 1]):
                    break
                for count in range(1, len(stack) + 1):
                    new = dict(position)
                    new[dest] = position.get(dest, "") + stack[-count:]
                    new[origin] = stack[:-count]
                    if new[dest].count("w") > 3 or new[dest].count("b") > 3:
                        continue
                    if new[origin] and new[origin][-1] == opponent and origin in CASTLES[me]:
                        continue
                    turn = done + ((count, dest),)
                    found.add((origin, turn))
                    more(new, origin, turn)

    for point in COORD:
        more(board, point, ())
    return found


def play(board: dict[str, str], turn: Turn) -> dict[str, str]:
    origin, moves = turn
    new = dict(board)
    for count, dest in moves:
        stack = new.get(origin, "")
        new[dest] = new.get(dest, "") + stack[-count:]
        new[origin] = stack[:-count]
    return new


def perft(board: dict[str, str], me: str, depth: int) -> int:
    if depth == 0:
        return 1
    found = turns(board, me)
    if depth == 1:
        return len(found)
    other = "b" if me == "w" else "w"
    return sum(perft(play(board, t), other, depth - 1) for t in found)
