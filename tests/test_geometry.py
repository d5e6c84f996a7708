"""Board geometry: the points, their neighbours and their millimetre positions."""

import math

import pytest

from rules.geometry import (
    DEFAULT_SPEC, KING, BoardSpec, board_outline_mm, hex_geometry, hex_lines, square_cells,
    square_intersections,
)


def test_hex_board_has_37_points_in_rows_of_4_to_7():
    g = hex_geometry()
    assert len(g) == 37
    rows = {}
    for n in g.names:
        rows.setdefault(n[0], []).append(int(n[1:]))
    assert [len(rows[r]) for r in "abcdefg"] == [4, 5, 6, 7, 6, 5, 4]
    assert g.positions_mm()["d4"] == (0.0, 0.0)


def test_hex_neighbours_follow_the_rules_notes():
    g = hex_geometry()
    nb = lambda p: sorted(g.name(i) for i in g.neighbours(g.index(p)))  # noqa: E731
    # lower half: x_i touches x+1_i and x+1_(i+1); upper half mirrors.
    assert nb("a1") == ["a2", "b1", "b2"]
    assert nb("d4") == ["c3", "c4", "d3", "d5", "e3", "e4"]
    assert nb("e1") == ["d1", "d2", "e2", "f1"]
    assert nb("g4") == ["f4", "f5", "g3"]
    assert sum(len(g.neighbours(i)) for i in range(37)) == 2 * len(hex_lines()) == 2 * 90


def test_neighbours_are_exactly_one_spacing_apart():
    g = hex_geometry()
    pos = g.positions_mm()
    for i in range(len(g)):
        for j in range(len(g)):
            d = math.dist(pos[g.name(i)], pos[g.name(j)])
            assert (j in g.neighbours(i)) == math.isclose(d, DEFAULT_SPEC.hex_spacing_mm)


def test_rays_stop_at_the_edge_and_opposites_reverse():
    g = hex_geometry()
    assert [g.name(i) for i in g.ray(g.index("a1"), 1)] == ["b2", "c3", "d4", "e4", "f4", "g4"]
    for i in range(len(g)):
        for d in range(6):
            j = g.step(i, d)
            if j >= 0:
                assert g.step(j, g.opposite(d)) == i


def test_square_boards_are_centred_and_named_from_whites_left():
    cells = square_cells(10)
    assert len(cells) == 100
    pos = cells.positions_mm()
    assert pos["a1"] == (-4.5 * 38, -4.5 * 38) and pos["j10"] == (4.5 * 38, 4.5 * 38)
    dark = square_cells(10, dark_only=True)
    assert len(dark) == 50 and "a1" in dark and "b1" not in dark and "b10" in dark
    alva = square_intersections(9)
    assert alva.positions_mm()["a1"] == (-4 * 38, -4 * 38) and alva.positions_mm()["e5"] == (0, 0)
    middle = square_cells(8, KING)
    assert middle.positions_mm()["a1"] == (-3.5 * 38, -3.5 * 38)
    assert len(middle.neighbours(middle.index("d4"))) == 8
    assert square_intersections(7, KING).positions_mm()["g7"] == (3 * 38, 3 * 38)


def test_spec_overrides_scale_positions_and_bad_specs_are_refused():
    spec = BoardSpec(hex_spacing_mm=40)
    assert hex_geometry().positions_mm(spec)["d7"] == (120.0, 0.0)
    assert BoardSpec.from_dict(spec.to_dict()) == spec
    with pytest.raises(ValueError, match="unknown"):
        BoardSpec.from_dict({"spacing": 3})
    with pytest.raises(ValueError, match="positive"):
        BoardSpec.from_dict({"cell_mm": 0})


def test_outline_encloses_every_point():
    for kind, g in (("hex", hex_geometry()), ("square", square_cells(10))):
        outline = board_outline_mm(kind)
        r = min(math.hypot(x, y) for x, y in outline)
        assert all(math.hypot(x, y) < r for x, y in g.positions_mm().values())


def test_shades_follow_the_draughts_board() -> None:
    """Draughts is played on the dark cells only, and a1 is dark; the middle 8 x 8 keeps the colouring."""
    assert set(square_cells(10, dark_only=True).shades()) == {1}
    ten, eight = square_cells(10), square_cells(8)
    assert sum(ten.shades()) == 50 and sum(eight.shades()) == 32
    assert ten.shades()[ten.index("b2")] == eight.shades()[eight.index("a1")] == 1
    assert set(hex_geometry().shades()) == {0} and set(square_intersections(9).shades()) == {0}
