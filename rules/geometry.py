"""Board geometry: point names, lattice coordinates, neighbours and millimetre positions.

This module is the single source of truth for where the points of every game are:
the rules use the lattice (names, neighbours, straight lines), vision projects the
millimetre positions through the camera.

Coordinate conventions
----------------------
* Board plane, millimetres, origin at the centre of the board, ``x`` to the right as
  White sees the board, ``y`` away from White (towards Black), ``z`` up from the board.
* Rows are lettered from White's edge (``a`` is nearest White) and points are numbered
  left to right as White sees them, starting at 1: ``a1`` is at White's left corner.

The hex side has 37 points in rows a..g of lengths 4, 5, 6, 7, 6, 5, 4; ``d4`` is the
centre.  The square side has 10 x 10 cells; games use the cells, the 9 x 9 interior
intersections, the 8 x 8 middle cells or the 7 x 7 middle intersections.

>>> g = hex_geometry()
>>> len(g), g.names[0], g.names[-1]
(37, 'a1', 'g4')
>>> sorted(g.name(n) for n in g.neighbours(g.index('a1')))
['a2', 'b1', 'b2']
>>> [g.name(i) for i in g.ray(g.index('d1'), 0)]
['d2', 'd3', 'd4', 'd5', 'd6', 'd7']
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Callable, Literal

BoardKind = Literal["hex", "square"]

FILES = "abcdefghijklmnopqrstuvwxyz"


DISC_RANGE_MM = ((10.0, 60.0), (2.0, 25.0))
"""The diameters and thicknesses (mm) a set of discs may have: what ``--discs`` accepts and
the sizes :func:`vision.discs.estimate_discs` searches."""


@dataclass(frozen=True)
class BoardSpec:
    """Physical measurements of a tactic blue board and its pieces, in millimetres.

    The defaults describe the box as we model it; every value may be overridden for
    another board (a home-made board, a larger print)."""

    hex_spacing_mm: float = 50.0
    """Distance between neighbouring points on the hex side."""
    hex_border_mm: float = 40.0
    """Margin from the outermost points to the printed hexagonal border."""
    cell_mm: float = 38.0
    """Side of one square cell on the square side."""
    square_frame_mm: float = 20.0
    """Width of the frame around the 10 x 10 cells."""
    piece_diameter_mm: float = 29.0
    """Across one disc."""
    piece_height_mm: float = 7.0
    """One disc's thickness: what a stack rises per disc."""

    def with_discs(self, discs: tuple[float, float] | None) -> "BoardSpec":
        """This board with discs ``(diameter, thickness)`` in mm instead; itself when None.

        >>> BoardSpec().with_discs((32.0, 8.5)).piece_height_mm
        8.5
        """
        if discs is None:
            return self
        return replace(self, piece_diameter_mm=float(discs[0]), piece_height_mm=float(discs[1]))

    def to_dict(self) -> dict[str, float]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    @classmethod
    def from_dict(cls, data: dict[str, float]) -> "BoardSpec":
        unknown = set(data) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"unknown board spec fields: {', '.join(sorted(unknown))}")
        values = {k: float(v) for k, v in data.items()}
        if any(v <= 0 for v in values.values()):
            raise ValueError("board spec values must be positive")
        return cls(**values)


DEFAULT_SPEC = BoardSpec()

# Lattice steps.  Hex lattice coordinates are (X, R): R is the row index 0..6 from
# White's edge and X is twice the x offset from the centre in units of the spacing,
# so horizontal neighbours differ by 2 and diagonal neighbours by (+-1, +-1).
HEX_DIRECTIONS: tuple[tuple[int, int], ...] = ((2, 0), (1, 1), (-1, 1), (-2, 0), (-1, -1), (1, -1))
"""E, NE, NW, W, SW, SE (N = away from White); opposite of direction d is (d + 3) % 6."""
ORTHOGONAL: tuple[tuple[int, int], ...] = ((1, 0), (0, 1), (-1, 0), (0, -1))
"""E, N, W, S; opposite of d is (d + 2) % 4."""
DIAGONAL: tuple[tuple[int, int], ...] = ((1, 1), (-1, 1), (-1, -1), (1, -1))
"""NE, NW, SW, SE; opposite of d is (d + 2) % 4."""
KING: tuple[tuple[int, int], ...] = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))
"""All eight directions, counter-clockwise from E; opposite of d is (d + 4) % 8."""


@dataclass(frozen=True)
class Geometry:
    """The points one game is played on, and how they connect.

    ``lattice[i]`` is point i's integer lattice coordinate, ``directions`` the lattice
    steps that count as neighbours and straight lines for this game.  Millimetre
    positions come from :meth:`positions_mm` for a given :class:`BoardSpec`."""

    kind: BoardKind
    names: tuple[str, ...]
    lattice: tuple[tuple[int, int], ...]
    directions: tuple[tuple[int, int], ...]
    _index: dict[str, int] = field(init=False, repr=False, compare=False)
    _step: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        index = {n: i for i, n in enumerate(self.names)}
        at = {c: i for i, c in enumerate(self.lattice)}
        step = tuple(
            tuple(at.get((x + dx, y + dy), -1) for dx, dy in self.directions) for x, y in self.lattice
        )
        object.__setattr__(self, "_index", index)
        object.__setattr__(self, "_step", step)

    def __len__(self) -> int:
        return len(self.names)

    def index(self, name: str) -> int:
        """The index of a point by name; ``KeyError`` with a readable message if unknown."""
        try:
            return self._index[name]
        except KeyError:
            raise KeyError(f"no point {name!r} on this board") from None

    def name(self, i: int) -> str:
        return self.names[i]

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def step(self, i: int, d: int) -> int:
        """The neighbour of point i in direction d, or -1 off the board."""
        return self._step[i][d]

    def neighbours(self, i: int) -> list[int]:
        return [j for j in self._step[i] if j >= 0]

    def ray(self, i: int, d: int) -> list[int]:
        """The points in a straight line from i (excluded) in direction d to the edge."""
        out = []
        j = self._step[i][d]
        while j >= 0:
            out.append(j)
            j = self._step[j][d]
        return out

    def opposite(self, d: int) -> int:
        return (d + len(self.directions) // 2) % len(self.directions)

    def on_cells(self) -> tuple[bool, ...]:
        """Per point, whether it is the middle of a cell of the square side (not an intersection,
        not a point of the hex side): the board around it is the cell's one colour.

        >>> square_cells(10).on_cells()[:2], square_intersections(9).on_cells()[:2]
        ((True, True), (False, False))
        """
        return tuple(self.kind == "square" and x % 2 == 1 for x, _ in self.lattice)

    def shades(self) -> tuple[int, ...]:
        """Per point, 1 on a dark cell of the square side, else 0 (a light cell, an intersection,
        a point of the hex side): empty points of one shade look alike.

        >>> square_cells(10).shades()[:3], square_intersections(9).shades()[:2]
        ((1, 0, 1), (0, 0))
        """
        return tuple(int(cell and (x + y) // 2 % 2 == 1) for cell, (x, y) in zip(self.on_cells(), self.lattice))

    def positions_mm(self, spec: BoardSpec = DEFAULT_SPEC) -> dict[str, tuple[float, float]]:
        """Every point's (x, y) on the board plane in millimetres (see module docstring)."""
        return {n: point_position_mm(self.kind, c, spec) for n, c in zip(self.names, self.lattice)}


def point_position_mm(kind: BoardKind, coord: tuple[int, int], spec: BoardSpec = DEFAULT_SPEC) -> tuple[float, float]:
    """Millimetre position of a lattice coordinate.

    Hex: (X, R) -> (X * s / 2, (R - 3) * s * sqrt(3) / 2).  Square: the lattice is in
    half-cells from the board centre, so cell centres and intersections share it."""
    x, y = coord
    if kind == "hex":
        s = spec.hex_spacing_mm
        return (x * s / 2.0, (y - 3) * s * math.sqrt(3) / 2.0)
    c = spec.cell_mm
    return (x * c / 2.0, y * c / 2.0)


HEX_ROW_LENGTHS = (4, 5, 6, 7, 6, 5, 4)


@lru_cache(maxsize=None)
def hex_geometry() -> Geometry:
    """The 37 points of the hex side, a1..g4, with the six hex directions."""
    names, lattice = [], []
    for r, length in enumerate(HEX_ROW_LENGTHS):
        for i in range(length):
            names.append(f"{FILES[r]}{i + 1}")
            lattice.append((2 * i - (length - 1), r))
    return Geometry("hex", tuple(names), tuple(lattice), HEX_DIRECTIONS)


def _square_names(n: int, offset: int, spacing: int, directions: tuple[tuple[int, int], ...],
                  keep: Callable[[int, int], bool] = lambda col, row: True) -> Geometry:
    """Points col, row in 0..n-1 named file+rank, placed on the half-cell lattice.

    The square lattice is in half cells from the centre, so a point with index
    (col, row) lies at ((2 * col - (n - 1)) * spacing/2 ...) which we keep integral by
    using ``offset`` and ``spacing`` in half-cell units."""
    names, lattice = [], []
    for row in range(n):
        for col in range(n):
            if keep(col, row):
                names.append(f"{FILES[col]}{row + 1}")
                lattice.append((offset + spacing * col, offset + spacing * row))
    return Geometry("square", tuple(names), tuple(lattice), tuple((dx * spacing, dy * spacing) for dx, dy in directions))


@lru_cache(maxsize=None)
def square_cells(n: int = 10, directions: tuple[tuple[int, int], ...] = ORTHOGONAL, dark_only: bool = False) -> Geometry:
    """The middle n x n cells of the 10 x 10 board, named a1.. from White's left.

    ``dark_only`` keeps the dark cells (a1 is dark, as in draughts)."""
    if n % 2 or not 2 <= n <= 10:
        raise ValueError("square cell boards are 2..10 cells wide and even")
    return _square_names(n, -(n - 1), 2, directions, (lambda c, r: (c + r) % 2 == 0) if dark_only else (lambda c, r: True))


@lru_cache(maxsize=None)
def square_intersections(n: int = 9, directions: tuple[tuple[int, int], ...] = ORTHOGONAL) -> Geometry:
    """The middle n x n interior intersections of the 10 x 10 board (n odd, at most 9)."""
    if n % 2 == 0 or not 1 <= n <= 9:
        raise ValueError("intersection boards are 1..9 wide and odd")
    return _square_names(n, -(n - 1), 2, directions)


def board_outline_mm(kind: BoardKind, spec: BoardSpec = DEFAULT_SPEC) -> list[tuple[float, float]]:
    """Corners of the physical board's printed border (counter-clockwise, mm).

    Hex: the hexagon around the 37 points at radius 3 * spacing + border, with corners
    at the row ends d1 and d7 and the ends of rows a and g.  Square: the outer edge of
    the frame around the 10 x 10 cells, starting at White's left corner."""
    if kind == "hex":
        r = 3 * spec.hex_spacing_mm + spec.hex_border_mm
        return [(r * math.cos(math.radians(a)), r * math.sin(math.radians(a))) for a in range(0, 360, 60)]
    h = 5 * spec.cell_mm + spec.square_frame_mm
    return [(-h, -h), (h, -h), (h, h), (-h, h)]


@lru_cache(maxsize=None)
def hex_lines() -> tuple[tuple[str, str], ...]:
    """The printed line segments of the hex side: every pair of neighbouring points."""
    g = hex_geometry()
    return tuple(
        (g.name(i), g.name(j)) for i in range(len(g)) for j in g.neighbours(i) if i < j
    )
