"""Attangle in three editions: the rulebook game, every rule on hand-made positions, perft."""

from __future__ import annotations

import json

import pytest

from rules import BLACK, WHITE, IllegalTurn
from rules.attangle import Attangle, Attangle2008, AttangleSquare, Capture
from rules.stacking import Place


def position(points: dict[str, str], turn: str = WHITE, hands: tuple[int, int] = (10, 10), cls=Attangle) -> Attangle:
    """A board with these stacks, ``turn`` to move and (white, black) pieces in hand."""
    b = cls()
    b.set_position(points, turn)
    b.hands = {WHITE: hands[0], BLACK: hands[1]}
    return b


def captures(board) -> set[str]:
    return {board.turn_notation(t) for t in board.legal_turns() if isinstance(t, Capture)}


def refused(board, text: str, reason: str) -> None:
    with pytest.raises(IllegalTurn, match=reason):
        board.parse_turn(text)


# --- the rulebook game --------------------------------------------------------------

def rulebook_turns(shared) -> list[str]:
    return Attangle.read_record((shared / "rulebook-games" / "attangle.txt").read_text()).turns


def test_rulebook_game_ends_with_whites_third_five_stack_at_turn_25(shared):
    turns = rulebook_turns(shared)
    assert len(turns) == 49
    b = Attangle()
    for i, text in enumerate(turns):
        assert b.outcome() is None, f"game over before ply {i + 1}"
        b.push_notation(text)
        assert b.material() == {WHITE: 50, BLACK: 50}
    result = b.outcome()
    assert result is not None and result.winner == WHITE
    assert b.complete_stacks() == {WHITE: 3, BLACK: 2}
    assert b.legal_turns() == []
    refused(b, "a1", "over")


def test_rulebook_game_uses_180_degree_and_long_captures(shared):
    turns = rulebook_turns(shared)
    b = Attangle()
    for text in turns[:32]:  # up to White's 17. d6,b4-c5
        b.push_notation(text)
    assert turns[32] == "d6,b4-c5"
    g = b.geometry
    side = {g.name(i): d for d in range(6) for i in g.ray(g.index("c5"), d)}
    assert side["d6"] == g.opposite(side["b4"]), "the two pieces come from opposite sides"
    b.push_notation("b4,d6-c5")  # either origin order is read
    assert b.turn_notation(b.move_stack[-1]) == "b4,d6-c5"


def test_cli_replays_the_booklet_game_and_the_2008_edition_refuses_it(cli, shared):
    record = shared / "rulebook-games" / "attangle.txt"
    r = cli("rules", "replay", record, "--game", "attangle", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["result"]["winner"] == "white" and len(out["turns"]) == 49 and out["to_move"] is None
    r = cli("rules", "replay", record, "--game", "attangle-2008")
    assert r.returncode == 1
    assert "'d4'" in r.stderr and "d4 must stay empty all game" in r.stderr
    assert r.stderr.count("\n") == 1


def test_2008_edition_refuses_the_booklet_game_at_turn_2(shared):
    b = Attangle2008()
    turns = rulebook_turns(shared)
    for text in turns[:2]:
        b.push_notation(text)
    assert turns[2] == "d4"  # "2. d4", White's second turn
    refused(b, "d4", "d4 must stay empty all game")


# --- booklet rules on hand-made positions ---------------------------------------------

def test_first_turn_not_on_the_centre_but_later_anywhere_vacant():
    b = Attangle()
    refused(b, "d4", "first turn")
    assert Place(b.geometry.index("d4")) not in b.legal_turns()
    b.push_notation("e1")
    b.push_notation("d4")  # Black's first turn may take the centre
    refused(b, "e1", "occupied")


def test_capture_from_opposite_sides_and_from_any_distance():
    b = position({"d1": "w", "d7": "w", "d4": "b"})
    assert captures(b) == {"d1,d7-d4"}
    b.push(b.parse_turn("d7,d1-d4"))
    assert b["d4"] == "bww" and b["d1"] == b["d7"] == ""
    assert b.hands == {WHITE: 10, BLACK: 10}


def test_capture_at_an_angle():
    b = position({"d1": "w", "g4": "w", "a4": "w", "d4": "b"})
    assert captures(b) == {"d1,g4-d4", "a4,d1-d4", "a4,g4-d4"}


def test_no_jumping_over_any_piece():
    b = position({"d1": "w", "d7": "w", "d4": "b", "d2": "b"})
    assert captures(b) == set()
    refused(b, "d1,d7-d4", "d2 is in the way")
    b = position({"d1": "w", "d7": "w", "d6": "w", "d4": "b"})
    assert captures(b) == {"d1,d6-d4"}
    refused(b, "d1,d7-d4", "d6 is in the way")


def test_capture_must_land_on_an_opposing_stack_in_a_straight_line():
    b = position({"d1": "w", "d7": "w", "e1": "w", "d4": "b", "d3": "w"})
    refused(b, "d1,e1-d3", "white's")
    refused(b, "d7,e1-d4", "not in a straight line")
    refused(b, "d1,d7-d5", "empty")
    refused(b, "d4,d7-d5", "empty")
    refused(b, "d1d7-d4", "two origins")
    refused(b, "d1,d9-d4", "no point")


def test_majority_of_exactly_one():
    b = position({"d1": "w", "d7": "bww", "d4": "b"})
    assert captures(b) == {"d1,d7-d4"}
    b.push_notation("d1,d7-d4")
    assert b["d4"] == "bbwww" and b.complete_stacks() == {WHITE: 1, BLACK: 0}
    # Hand-made stacks that no game reaches show the rule itself:
    b = position({"d1": "w", "d7": "www", "d4": "b"})
    refused(b, "d1,d7-d4", "majority of exactly one piece, not 4:1")
    b = position({"d1": "w", "d7": "w", "d4": "bbb"})
    refused(b, "d1,d7-d4", "not 2:3")


def test_two_singles_capture_a_three_stack_but_stacks_stay_at_most_five():
    b = position({"d1": "w", "d7": "w", "d4": "wbb"})
    assert captures(b) == {"d1,d7-d4"}
    b = position({"d1": "w", "d7": "bww", "d4": "wbb"})
    refused(b, "d1,d7-d4", "7 high")
    b = position({"d1": "bww", "d7": "bww", "d4": "b"})
    refused(b, "d1,d7-d4", "7 high")


def test_five_stacks_never_move_never_get_captured_and_block_lines():
    b = position({"d1": "w", "d7": "bbwww", "d4": "b"})
    refused(b, "d1,d7-d4", "only stacks of 1 or 3 may capture")
    b = position({"d1": "w", "d7": "w", "d4": "wwbbb"})
    refused(b, "d1,d7-d4", "never captured")
    b = position({"d1": "w", "d7": "w", "d5": "bbwww", "d4": "b"})
    assert captures(b) == set()


def test_third_five_stack_wins_at_once():
    b = position({"a1": "bbwww", "a4": "bbwww", "d1": "w", "d7": "bww", "d4": "b", "g1": "w"})
    assert b.outcome() is None
    b.push_notation("d1,d7-d4")
    result = b.outcome()
    assert result is not None and result.winner == WHITE and "3 stacks of 5" in result.reason
    assert b.legal_turns() == []


def test_player_without_a_legal_turn_loses():
    b = position({"d1": "w", "d7": "w", "d4": "b"}, BLACK, hands=(10, 0))
    assert b.legal_turns() == []
    result = b.outcome()
    assert result is not None and result.winner == WHITE and "no legal turn" in result.reason
    b.hands[BLACK] = 1  # one piece left: it must be placed
    assert b.outcome() is None and len(b.legal_turns()) == 37 - 3


def test_empty_hand_still_captures():
    b = position({"d1": "w", "d7": "w", "d4": "b"}, WHITE, hands=(0, 5))
    assert [b.turn_notation(t) for t in b.legal_turns()] == ["d1,d7-d4"]


def test_order_inside_a_stack_plays_no_role_for_the_camera():
    assert Attangle.stack_fits("bbwww", "wbwbw") and Attangle.stack_fits("bbwww", "?????")
    assert not Attangle.stack_fits("bbwww", "bbbww") and not Attangle.stack_fits("bww", "bw")
    assert Attangle2008.stack_fits("bbw", "bbw") and not Attangle2008.stack_fits("bbw", "bwb")


def test_square_variant_captures_diagonally_and_needs_five_five_stacks():
    b = position({"a1": "w", "h8": "w", "d4": "b"}, cls=AttangleSquare)
    assert captures(b) == {"a1,h8-d4"}
    b = position({"a1": "bbwww", "a3": "bbwww", "a5": "bbwww", "a7": "bbwww", "h1": "w", "h7": "w", "h4": "wbb"},
                 cls=AttangleSquare)
    assert b.outcome() is None, "four 5-stacks do not win on the square board"
    b.push_notation("h1,h7-h4")
    assert b.outcome() is not None and b.outcome().winner == WHITE
    assert Place(b.geometry.index("d4")) in AttangleSquare().legal_turns(), "no centre point on 8 x 8"


# --- 2008 edition ---------------------------------------------------------------------

def test_2008_top_piece_goes_back_to_the_stock():
    b = position({"a1": "w", "c1": "w", "b1": "b"}, hands=(5, 5), cls=Attangle2008)
    b.push_notation("c1,a1-b1")
    assert b["b1"] == "bw" and b.hands == {WHITE: 6, BLACK: 5}


def test_2008_centre_stays_empty_but_may_be_crossed():
    b = position({"d7": "w", "e1": "w", "d1": "b"}, hands=(5, 5), cls=Attangle2008)
    refused(b, "d4", "must stay empty all game")
    assert captures(b) == {"d7,e1-d1"}
    b.push_notation("d7,e1-d1")
    assert b["d4"] == "" and b["d1"] == "bw"


def test_2008_double_and_single_capture_a_single_with_two_own_pieces_on_top():
    b = position({"a1": "bw", "c1": "w", "b1": "b"}, hands=(5, 5), cls=Attangle2008)
    assert captures(b) == {"a1,c1-b1"}
    b.push_notation("a1,c1-b1")
    assert b["b1"] == "bbw" and b.hands[WHITE] == 6 and b.complete_stacks() == {WHITE: 1, BLACK: 0}


def test_2008_two_singles_capture_a_double_but_nothing_grows_past_three():
    b = position({"a1": "w", "c1": "w", "b1": "wb"}, hands=(5, 5), cls=Attangle2008)
    b.push_notation("a1,c1-b1")
    assert b["b1"] == "wbw"
    b = position({"a1": "bw", "c1": "bw", "b1": "b"}, hands=(5, 5), cls=Attangle2008)
    refused(b, "a1,c1-b1", "4 high")
    b = position({"a1": "wbw", "c1": "w", "b1": "b"}, hands=(5, 5), cls=Attangle2008)
    refused(b, "a1,c1-b1", "only stacks of 1 or 2 may capture")


def test_2008_third_triple_wins_and_an_empty_stock_without_capture_loses():
    b = position({"a2": "bbw", "a4": "wbw", "a1": "bw", "c1": "w", "b1": "b"}, hands=(5, 5), cls=Attangle2008)
    b.push_notation("a1,c1-b1")
    assert b.outcome() is not None and b.outcome().winner == WHITE
    b = position({"a1": "w", "c1": "w", "b1": "b"}, BLACK, hands=(5, 0), cls=Attangle2008)
    assert b.outcome() is not None and b.outcome().winner == WHITE


# --- perft ---------------------------------------------------------------------------

@pytest.mark.parametrize("cls, points", [(Attangle, 37), (AttangleSquare, 64), (Attangle2008, 36)])
def test_perft_counts_placements(cls, points):
    """No capture is possible in the first three turns, so perft counts placements:
    the opening restriction (d4) and the closed centre (2008) show in the figures."""
    b = cls()
    first = points - 1 if cls is Attangle else points
    expected = [first, first * (points - 1), first * (points - 1) * (points - 2)]
    assert [b.perft(d) for d in (1, 2, 3)] == expected
    assert {Attangle: [36, 1296, 45360], AttangleSquare: [64, 4032, 249984],
            Attangle2008: [36, 1260, 42840]}[cls] == expected
