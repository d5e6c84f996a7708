"""Dame 100 (FMJD international draughts): rules, draws, notation, perft, properties."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import GAMES, IllegalTurn, new_game
from rules.dame import GI, SQUARE_OF_NAME, Dame100, DameTurn


def board_with(points: dict[str, str], turn: str = "w") -> Dame100:
    board = Dame100()
    board.set_position(points, turn=turn)  # type: ignore[arg-type]
    return board


def notations(board: Dame100) -> list[str]:
    return sorted(board.turn_notation(t) for t in board.legal_turns())


def test_registered_with_square_geometry():
    board = new_game("dame100")
    assert GAMES["dame100"] is Dame100
    assert len(board.geometry) == 50 and board.geometry.names[0] == "a1"
    assert sum(s == "w" for s in board.stacks) == 20 and sum(s == "b" for s in board.stacks) == 20
    assert board["a1"] == "w" and board["j10"] == "b" and board["a5"] == "" and board.turn == "w"
    assert (SQUARE_OF_NAME["a1"], SQUARE_OF_NAME["b10"], SQUARE_OF_NAME["j10"], SQUARE_OF_NAME["i1"]) == (46, 1, 5, 50)


@pytest.mark.parametrize("depth,nodes", [(1, 9), (2, 81), (3, 658), (4, 4265), (5, 27117), (6, 167140)])
def test_perft_from_the_start(depth, nodes):
    assert Dame100().perft(depth) == nodes


def test_men_move_forward_only_but_capture_backwards():
    board = board_with({"e5": "w", "d4": "b", "a3": "b"})
    assert notations(board) == ["28x37"]  # backward capture is compulsory
    board = board_with({"e5": "w", "a3": "b"})
    assert notations(board) == ["28-22", "28-23"]
    board = board_with({"e5": "b", "a9": "w"}, turn="b")
    assert notations(board) == ["28-32", "28-33"]


def test_majority_capture_counts_kings_like_men():
    # The man on c3 can take one king (d4) or two men (b4, b6): it must take the two men.
    board = board_with({"c3": "w", "d4": "bb", "b4": "b", "b6": "b", "j10": "b"})
    assert notations(board) == ["37x17"]
    # Two more men behind the king make that line the longest (three pieces): it is forced.
    board = board_with({"c3": "w", "d4": "bb", "f6": "b", "h8": "b", "b4": "b", "b6": "b"})
    assert notations(board) == ["37x10"]


def test_flying_king_captures_at_distance_and_lands_anywhere_beyond():
    board = board_with({"a1": "ww", "d4": "b"})
    assert notations(board) == ["46x10", "46x14", "46x19", "46x23", "46x28", "46x5"]  # e5 .. j10
    board = board_with({"a1": "ww", "d4": "b", "e5": "b"})  # two in a row cannot be jumped
    assert "x" not in " ".join(notations(board))


def test_king_must_land_where_the_capture_goes_on():
    # After taking d4 the king must land on f6 (24) to take e7 next: the longest capture.
    board = board_with({"a1": "ww", "d4": "b", "e7": "b"})
    assert notations(board) == ["46x1", "46x12", "46x7"]  # then on to d8, c9 or b10
    turns = board.legal_turns()
    assert {len(t.captured) for t in turns} == {2}
    assert all(t.path[1] == SQUARE_OF_NAME["f6"] for t in turns)


def test_captured_pieces_block_until_the_turn_ends_and_are_not_jumped_twice():
    # The king takes c3, then could only come back over c3 again: it must stop.
    board = board_with({"a1": "ww", "c3": "b", "e5": "b"})
    # Taking c3 then flying on over e5 is one line of two captures.
    assert {len(t.captured) for t in board.legal_turns()} == {2}
    # A ring of four men around the king: each may be taken once; the king ends on its start.
    ring = board_with({"e3": "ww", "d4": "b", "f4": "b", "f6": "b", "d6": "b", "a9": "b"})
    longest = {len(t.captured) for t in ring.legal_turns()}
    assert longest == {4}
    for turn in ring.legal_turns():
        assert len(set(turn.captured)) == 4


def test_promotion_only_when_the_turn_ends_on_the_back_row():
    # b8 jumps c9 to d10 (back row), then must go on jumping e9 back to f8: stays a man.
    board = board_with({"b8": "w", "c9": "b", "e9": "b"})
    (turn,) = board.legal_turns()
    assert SQUARE_OF_NAME["d10"] in turn.path and turn.end == SQUARE_OF_NAME["f8"]
    board.push(turn)
    assert board["f8"] == "w"
    board = board_with({"c9": "w", "a3": "b"})
    board.push_notation("c9-d10")
    assert board["d10"] == "ww" and board.visible()["d10"] == "ww"
    board.pop()
    assert board["c9"] == "w" and board["d10"] == ""


def test_material_counts_captured_pieces():
    board = Dame100()
    rng = random.Random(5)
    while board.legal_turns() and board.ply < 150:
        board.push(rng.choice(board.legal_turns()))
        assert board.material() == {"w": 20, "b": 20}
    assert board.captured["w"] + board.captured["b"] > 0


def test_cannot_move_loses_and_no_pieces_loses():
    board = board_with({"a1": "w", "b2": "b", "c3": "b"})
    assert board.outcome().winner == "b" and board.legal_turns() == []
    board = board_with({"a5": "w", "b6": "b"}, turn="w")
    board.push_notation("26x17")
    assert board.outcome().winner == "w" and "no pieces" in board.outcome().reason


def _wander(board: Dame100, plies: int, rng: random.Random) -> None:
    """Play ``plies`` king moves that capture nothing, leave no capture and never repeat a position
    (a depth-first search in random order, so dead ends are backed out of)."""
    history = list(board.move_stack)
    for _ in history:
        board.pop()
    seen = {board.key()}
    for turn in history:
        board.push(turn)
        seen.add(board.key())

    def walk(left: int) -> bool:
        if left == 0:
            return True
        turns = [t for t in board.legal_turns() if not t.captured and board.stacks[GI[t.start]] in ("ww", "bb")]
        rng.shuffle(turns)
        for turn in turns:
            board.push(turn)
            replies = board.legal_turns()
            drawn = not replies and board.outcome() is not None and board.outcome().draw
            key = board.key()
            if key not in seen and (drawn or replies and not replies[0].captured):
                seen.add(key)
                if walk(left - 1):
                    return True
                seen.discard(key)
            board.pop()
        return False

    assert walk(plies), board.diagram()


def test_threefold_repetition_draws():
    board = board_with({"e1": "ww", "j10": "bb", "a9": "b", "b10": "b"}, turn="w")
    for _ in range(2):
        for text in ("48-42", "5-10", "42-48", "10-5"):
            assert board.outcome() is None
            board.push_notation(text)
    assert board.outcome().draw and board.outcome().reason == "threefold repetition"
    assert board.legal_turns() == []
    board.pop()
    assert board.outcome() is None


def test_25_king_moves_each_draw():
    board = board_with({"a1": "ww", "c1": "ww", "h10": "bb", "j10": "bb"}, turn="w")
    _wander(board, 49, random.Random(3))
    assert board.outcome() is None
    _wander(board, 1, random.Random(4))
    assert board.outcome().draw and "25 moves" in board.outcome().reason


def test_a_man_move_resets_the_25_move_count():
    for seed in range(20):  # find a king walk after which the man can step safely
        board = board_with({"a1": "ww", "c1": "ww", "h10": "bb", "j10": "bb", "f2": "w", "e9": "b"}, turn="w")
        _wander(board, 40, random.Random(seed))
        safe = []
        for turn in board.legal_turns():
            board.push(turn)
            if turn.start == SQUARE_OF_NAME["f2"] and not board.legal_turns()[0].captured:
                safe.append(turn)
            board.pop()
        if safe:
            break
    board.push(safe[0])
    _wander(board, 20, random.Random(2))
    assert board.outcome() is None  # 61 plies in all, but only 20 since the man moved


@pytest.mark.parametrize("points,limit", [
    ({"a1": "ww", "c1": "ww", "e1": "ww", "f10": "bb"}, 32),   # three kings v king: 16 moves each
    ({"a1": "ww", "c1": "ww", "e3": "w", "f10": "bb"}, 32),    # two kings and a man v king
    ({"a1": "ww", "c1": "ww", "f10": "bb"}, 10),               # two kings v king: 5 moves each
    ({"a1": "ww", "f10": "bb"}, 10),                           # king v king
])
def test_endgame_move_limits(points, limit):
    board = board_with(points, turn="w")
    _wander(board, limit - 1, random.Random(limit))
    assert board.outcome() is None
    _wander(board, 1, random.Random(1))
    assert board.outcome().draw and f"{limit // 2} moves" in board.outcome().reason


def test_ambiguous_capture_writes_the_whole_path_and_parse_names_the_candidates():
    # The king on a1 can take three men two ways, ending on e1 both times.
    board = board_with({"a1": "ww", "g5": "b", "f2": "b", "f4": "b", "c3": "b"})
    assert notations(board) == ["46x23x34x48", "46x28x39x48"]
    assert len({frozenset(t.captured) for t in board.legal_turns()}) == 2
    with pytest.raises(IllegalTurn, match="ambiguous.*46x(28x39|23x34)x48.*46x(28x39|23x34)x48"):
        board.parse_turn("46x48")
    assert board.parse_turn("46x23x34x48").path == (46, 23, 34, 48)
    assert board.parse_turn("a1xf6xh4xe1") == board.parse_turn("46x23x34x48")
    assert board.parse_turn("46x23x48") == board.parse_turn("46x23x34x48")  # a partial path that is unique


def test_equivalent_capture_paths_are_one_turn():
    # A king can run round the ring of four men either way: same start, end and captures.
    board = board_with({"e3": "ww", "d4": "b", "f4": "b", "f6": "b", "d6": "b"})
    turns = board.legal_turns()
    assert len(turns) == len(set(turns))
    full = board._generate(every_path=True)
    assert len(full) > len(turns) and set(full) == set(turns)
    for turn in full:
        text = "x".join(map(str, turn.path))
        assert board.parse_turn(text) == turn


@pytest.mark.parametrize("text,message", [
    ("32-27x", "cannot read"),
    ("32-29", "not legal here; legal turns: 31-27, 31-26, 32-28"),
    ("32x29", "not legal here"),
    ("51-46", "square 51 does not exist"),
    ("c4-d5", "light square"),
    ("32-28-23", "not legal here"),
])
def test_parse_errors_are_clear(text, message):
    with pytest.raises(IllegalTurn, match=message):
        Dame100().parse_turn(text)


def test_a_turn_is_named_by_its_squares_whatever_the_separator():
    """Published records now and then write a capture with '-' or a move with 'x'."""
    board = Dame100()
    board.push_notation("32-28")
    board.push_notation("19-23")
    assert board.parse_turn("28-19") == board.parse_turn("28x19") == DameTurn((28, 19), (23,))
    assert Dame100().parse_turn("32x28") == DameTurn((32, 28))
    with pytest.raises(IllegalTurn, match="capturing is compulsory"):
        board.parse_turn("31-27")


def test_forgetting_to_capture_is_refused_with_the_captures():
    board = Dame100()
    for text in ("32-28", "19-23"):
        board.push_notation(text)
    with pytest.raises(IllegalTurn, match="capturing is compulsory.*28x19"):
        board.parse_turn("33-29")


def test_turns_are_hashable_values():
    assert DameTurn((32, 28)) == DameTurn((32, 28), ()) and len({DameTurn((32, 28)), DameTurn((32, 28))}) == 1
    assert DameTurn((10, 28), (19,)) != DameTurn((10, 28), (23,))


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_random_games_keep_every_invariant(data):
    board = Dame100()
    for _ in range(data.draw(st.integers(0, 140), label="plies")):
        turns = board.legal_turns()
        if not turns:
            break
        before = (list(board.stacks), board.turn, board.key())
        for turn in turns:  # every listed turn applies and is taken back exactly
            board.push(turn)
            assert board.material() == {"w": 20, "b": 20}
            assert all(s in ("", "w", "b", "ww", "bb") for s in board.stacks)
            board.pop()
            assert (list(board.stacks), board.turn, board.key()) == before
            text = board.turn_notation(turn)
            parsed = board.parse_turn(text)
            assert parsed == turn and board.turn_notation(parsed) == text
        board.push(data.draw(st.sampled_from(turns), label="turn"))
    assert board.material() == {"w": 20, "b": 20}


def test_set_up_refuses_what_cannot_stand_on_the_board():
    with pytest.raises(ValueError, match=r"white man on square 2 \(d10\) would have been crowned"):
        board_with({"d10": "w"})
    with pytest.raises(ValueError, match="holds 'wb'"):
        board_with({"d4": "wb"})
    with pytest.raises(ValueError, match="at most 20"):
        board_with({name: "w" for name, n in SQUARE_OF_NAME.items() if n > 29})
