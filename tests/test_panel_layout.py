"""The LED layouts (wiring config, point -> LED per game) and what the LEDs show."""

from __future__ import annotations

import json
import math

import pytest

from hardware.layout import PANEL_BOARDS, LedLayout, game_geometry
from hardware.protocol import Colour, Pattern
from rules import GAMES
from hardware.view import PanelView, render


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_game_point_has_its_own_led_near_it(game: str) -> None:
    geometry = game_geometry(game)
    layout = LedLayout.default(geometry.kind)
    leds = layout.for_game(game)
    assert set(leds.leds) == set(geometry.names)
    assert len(set(leds.leds.values())) == len(geometry)
    panel_xy = PANEL_BOARDS[layout.board]().positions_mm()
    for name, (x, y) in geometry.positions_mm().items():
        led_x, led_y = panel_xy[layout.chain[leds.index(name)]]
        # at the point, or for intersections at a neighbouring cell centre (half a diagonal away)
        assert math.hypot(led_x - x, led_y - y) <= 38 / math.sqrt(2) + 1e-6


def test_serpentine_and_rows_wiring_on_the_square_side() -> None:
    rows = LedLayout.from_dict({"board": "square", "wiring": "rows"})
    snake = LedLayout.from_dict({"board": "square", "wiring": "serpentine"})
    assert rows.chain[9:11] == ("j1", "a2")
    assert snake.chain[9:11] == ("j1", "j2")
    assert snake.chain[19:21] == ("a2", "a3")
    assert rows.count == snake.count == 100
    # the same game point lands on different chain indices
    assert rows.for_game("attraktion").index("a2") == 10
    assert snake.for_game("attraktion").index("a2") == 19


def test_explicit_wiring_and_turn_leds(tmp_path) -> None:
    order = list(reversed(PANEL_BOARDS["hex"]().names))
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({"board": "hex", "wiring": order, "turn_leds": {"white": 37, "black": 38},
                                "brightness": 90}))
    layout = LedLayout.load(path)
    assert layout.count == 39 and layout.brightness == 90
    leds = layout.for_game("accasta")
    assert leds.index("g4") == 0 and leds.index("a1") == 36
    frame = render(PanelView(to_move="b", last_move=("a1", "b1")), leds)
    assert frame.colours[38] == Colour.BLUE and frame.colours[37] == Colour.OFF
    assert frame.brightness == 90


@pytest.mark.parametrize("config, message", [
    ({"board": "round"}, "board"),
    ({"board": "hex", "wiring": "spiral"}, "wiring"),
    ({"board": "hex", "wiring": ["a1", "a1"]}, "every point"),
    ({"board": "hex", "turn_leds": {"white": 3}}, "turn_leds"),
    ({"board": "hex", "brightness": 0}, "brightness"),
    ({"board": "hex", "colour": "red"}, "unknown layout keys"),
])
def test_bad_layouts_are_refused_clearly(tmp_path, config, message) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(config))
    with pytest.raises(ValueError, match=message):
        LedLayout.load(path)
    path.write_text("{not json")
    with pytest.raises(ValueError, match="not a panel layout"):
        LedLayout.load(path)


def test_a_game_of_the_other_side_is_refused() -> None:
    with pytest.raises(ValueError, match="square side"):
        LedLayout.default("hex").for_game("dame100")
    with pytest.raises(ValueError, match="unknown game"):
        game_geometry("chess")


def lit(frame) -> dict[int, tuple[str, str]]:
    return {i: (Colour(c).name, Pattern(p).name) for i, (c, p) in enumerate(zip(frame.colours, frame.patterns)) if c}


def test_what_the_leds_show() -> None:
    leds = LedLayout.default("hex").for_game("accasta")
    a1, b1, b2, d4 = (leds.index(n) for n in ("a1", "b1", "b2", "d4"))
    # an Accasta turn of two moves: a1 -> b1 -> b2, White now to move
    frame = render(PanelView(to_move="w", last_move=("a1", "b1", "b2")), leds)
    assert lit(frame) == {a1: ("DIM_WHITE", "STEADY"), b1: ("DIM_WHITE", "STEADY"), b2: ("WHITE", "STEADY")}
    # teaching: a touched stack and its targets on top of the last move
    frame = render(PanelView(to_move="w", last_move=("a1", "b2"), touched="d4", targets=("b1",)), leds)
    assert lit(frame) == {a1: ("DIM_WHITE", "STEADY"), b2: ("WHITE", "STEADY"), d4: ("CYAN", "STEADY"),
                          b1: ("GREEN", "STEADY")}
    # an illegal move: only the points to put back, blinking red
    frame = render(PanelView(to_move="w", last_move=("a1", "b2"), illegal=("d4", "b1")), leds)
    assert lit(frame) == {d4: ("RED", "BLINK_FAST"), b1: ("RED", "BLINK_FAST")}
    # game over: every point blinks in the winner's colour
    frame = render(PanelView(winner="b"), leds)
    assert set(lit(frame).values()) == {("BLUE", "BLINK_SLOW")} and len(lit(frame)) == 37
    assert set(lit(render(PanelView(winner="draw"), leds)).values()) == {("YELLOW", "BLINK_SLOW")}


def test_unknown_points_are_named() -> None:
    leds = LedLayout.default("square").for_game("dame100")
    with pytest.raises(KeyError, match="b1"):  # a light square: not a dame100 point
        render(PanelView(to_move="w", illegal=("b1",)), leds)


def test_teaching_targets_and_moved_points_from_the_rules() -> None:
    from hardware.view import moved_points, targets
    from rules import new_game

    board = new_game("accasta")
    assert targets(board, "g1") == ()  # Black's stack: White is to move
    assert targets(board, "d4") == ()  # empty
    reach = targets(board, "c4")
    assert reach and all(p not in ("c4",) for p in reach)
    for turn in board.legal_turns():
        before = board.visible()
        board.push(turn)
        moved = moved_points(before, board.visible())
        board.pop()
        if moved[0] == "c4":  # every landing point of a turn from c4 is a target
            assert set(moved[1:]) <= set(reach)
    render(PanelView(to_move="w", touched="c4", targets=reach), LedLayout.default("hex").for_game("accasta"))
