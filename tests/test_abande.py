"""Abande and its square variant: the rulebook game, every rule on hand-made positions, perft."""

from __future__ import annotations

import json

import pytest

from rules import BLACK, WHITE, IllegalTurn, new_game
from rules.abande import Abande, AbandeSquare, Pass, Step
from rules.geometry import hex_lines
from rules.stacking import Place


def position(points: dict[str, str], turn: str, hands: tuple[int, int] = (0, 0), cls=Abande) -> Abande:
    """A board with these stacks, ``turn`` to move and (white, black) pieces in hand."""
    b = cls()
    b.set_position(points, turn)
    b.hands = {WHITE: hands[0], BLACK: hands[1]}
    return b


def notations(board) -> set[str]:
    return {board.turn_notation(t) for t in board.legal_turns()}


def steps(board) -> set[str]:
    return {board.turn_notation(t) for t in board.legal_turns() if isinstance(t, Step)}


# --- the rulebook game --------------------------------------------------------------

def test_rulebook_game_replays_and_white_wins_14_13(shared):
    b = Abande()
    record = b.read_record((shared / "rulebook-games" / "abande.txt").read_text())
    material = b.material()
    for i, text in enumerate(record.turns):
        assert b.outcome() is None, f"game over before ply {i + 1}"
        b.push_notation(text)
        assert b.material() == material == {WHITE: 18, BLACK: 18}
    assert len(record.turns) == 52
    result = b.outcome()
    assert result is not None and result.winner == WHITE and result.score == (14, 13)
    assert b.legal_turns() == []
    # The sleeping pieces decide it: counted awake or asleep the score would differ.
    assert b.sleeping()
    with pytest.raises(IllegalTurn, match="over"):
        b.parse_turn("pass")


def test_rulebook_passes_are_made_with_captures_on_the_board(shared):
    b = Abande()
    turns = b.read_record((shared / "rulebook-games" / "abande.txt").read_text()).turns
    for text in turns[:48]:
        b.push_notation(text)
    assert turns[48] == "pass" and b.turn == BLACK and b.hands[BLACK] == 0
    assert steps(b), "Black could capture but passes: passing with an empty hand is always allowed"
    b.push_notation("pass")
    assert b.outcome() is None, "one pass does not end the game"
    b.push_notation("b5")  # White plays on; the next pass pair ends it
    b.push_notation("pass")
    assert b.outcome() is None
    b.push_notation("pass")
    assert b.outcome() is not None


def test_cli_replay_reports_the_rulebook_result(cli, shared):
    r = cli("rules", "replay", shared / "rulebook-games" / "abande.txt", "--game", "abande", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["result"]["winner"] == "white" and out["result"]["score"] == [14, 13]
    assert out["to_move"] is None and len(out["turns"]) == 52 and out["turns"][13] == "d5-d4"


# --- the rules on hand-made positions ------------------------------------------------

def test_initiative_turn_anywhere_then_next_to_a_piece():
    b = Abande()
    assert b.turn == BLACK and len(b.legal_turns()) == 37
    assert all(isinstance(t, Place) for t in b.legal_turns())
    b.push_notation("a1")
    assert notations(b) == {"a2", "b1", "b2"}
    with pytest.raises(IllegalTurn, match="touch"):
        b.parse_turn("g4")


def test_no_move_before_black_has_placed_his_second_piece():
    b = Abande()
    b.push_notation("d4")
    b.push_notation("d5")
    assert not steps(b)
    with pytest.raises(IllegalTurn, match="second piece"):
        b.parse_turn("d4-d5")
    b.push_notation("e4")
    assert steps(b) == {"d5-d4", "d5-e4"}


def test_a_move_must_capture_one_step_onto_the_opponent():
    b = position({"d4": "w", "d5": "b", "e4": "w"}, WHITE)
    for text, reason in [("d4-d3", "empty"), ("d4-e4", "own"), ("e4-d6", "not next to"), ("d5-d4", "not white")]:
        with pytest.raises(IllegalTurn, match=reason):
            b.parse_turn(text)
    assert steps(b) == {"d4-d5", "e4-d5"}


def test_chain_rule_checked_after_the_move():
    # c4 - d4 - e4 in a row: the middle piece is bound, moving it would cut e4 off.
    b = position({"c4": "w", "d4": "b", "e4": "w"}, BLACK)
    assert not steps(b)
    with pytest.raises(IllegalTurn, match="chain"):
        b.parse_turn("d4-c4")
    # With a second path (d5 touches both c4 and e4) the chain only changes shape: legal.
    b = position({"c4": "w", "d4": "b", "e4": "w", "d5": "w"}, BLACK)
    assert steps(b) == {"d4-c4", "d4-e4", "d4-d5"}


def test_pieces_must_stay_one_chain_even_when_a_capture_moves_an_end():
    # A white end piece may always capture its neighbour: the chain only changes shape.
    b = position({"a1": "w", "a2": "b", "a3": "b"}, WHITE)
    assert steps(b) == {"a1-a2"}
    b.push(b.parse_turn("a1-a2"))
    assert b["a2"] == "bw" and b["a1"] == ""


def test_stacks_at_most_three_high():
    b = position({"d4": "ww", "d5": "bb", "e4": "b"}, WHITE)
    assert steps(b) == {"d4-e4"}
    with pytest.raises(IllegalTurn, match="4 high"):
        b.parse_turn("d4-d5")
    b.push_notation("d4-e4")
    assert b["e4"] == "bww"
    # A triple never moves again and is never captured.
    b = position({"d4": "bww", "d5": "b", "e4": "w"}, WHITE)
    assert steps(b) == {"e4-d5"}
    b.turn = BLACK
    assert steps(b) == {"d5-e4"}


def test_pass_only_with_an_empty_hand():
    b = position({"d4": "w", "d5": "b"}, WHITE, hands=(1, 0))
    assert Pass() not in b.legal_turns()
    with pytest.raises(IllegalTurn, match="no pieces in hand"):
        b.parse_turn("pass")
    b.hands[WHITE] = 0
    assert notations(b) == {"d4-d5", "pass"}, "with an empty hand: capture or pass"


def test_two_passes_in_a_row_end_the_game_and_a_turn_between_does_not():
    b = position({"d4": "w", "d5": "b", "d6": "b"}, BLACK, hands=(0, 0))
    b.push_notation("pass")
    b.push_notation("d4-d5")  # White captures: the pass count starts again
    assert b.outcome() is None
    b.push_notation("pass")
    assert b.outcome() is None
    b.push_notation("pass")
    result = b.outcome()
    assert result is not None and result.score == (2, 1) and result.winner == WHITE
    b.pop()
    assert b.outcome() is None and b.passes == 1


def test_sleeping_pieces_by_tops_only():
    b = position({
        "a1": "w", "a2": "ww",          # only white tops around: asleep
        "d4": "bw", "d3": "w",          # mixed stack, white on top, only white tops around: asleep
        "g1": "b", "g2": "bw", "f1": "w",  # g1 touches white tops, g2 and f1 touch black g1: awake
    }, WHITE)
    assert b.sleeping() == ["a1", "a2", "d3", "d4"]
    assert b.score() == (3, 1)


def test_sleeping_pieces_are_left_out_of_the_score_and_a_tie_is_a_draw():
    b = position({"d4": "w", "d5": "b", "a1": "www"}, WHITE)
    b.passes = 2
    result = b.outcome()
    assert result is not None and result.draw and result.score == (1, 1) and result.winner is None


def test_square_variant_connects_and_moves_diagonally():
    b = AbandeSquare()
    b.push_notation("d4")
    assert notations(b) == {"c3", "c4", "c5", "d3", "d5", "e3", "e4", "e5"}
    b = position({"d4": "w", "e5": "b", "f6": "b"}, WHITE, cls=AbandeSquare)
    assert steps(b) == {"d4-e5"}
    b = position({"a1": "w", "b2": "b", "c3": "w"}, BLACK, cls=AbandeSquare)
    assert not steps(b), "b2 holds the diagonal chain together"
    assert new_game("abande-square").geometry.names[-1] == "g7"


# --- perft ---------------------------------------------------------------------------

@pytest.mark.parametrize("cls, expected", [(Abande, [37, 180, 1176]), (AbandeSquare, [49, 312, 2784])])
def test_perft(cls, expected):
    b = cls()
    assert [b.perft(d) for d in (1, 2, 3)] == expected
    # Depth 2 is White's reply next to the initiative piece: every ordered pair of neighbours.
    assert expected[1] == sum(len(b.geometry.neighbours(i)) for i in range(len(b.geometry)))
    if cls is Abande:
        assert expected[1] == 2 * len(hex_lines())
