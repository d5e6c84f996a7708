"""Alva: placing, shifting, jumps over 1 or 3+ (never 2), forced continuation, give-back, end and score."""

import json
import random
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import BLACK, GAMES, WHITE, IllegalTurn
from rules.alva import Alva, AlvaTurn


def board_with(points, turn=WHITE, **state):
    b = Alva()
    b.set_position(points, turn=turn, **state)
    return b


def notations(b):
    return sorted(b.turn_notation(t) for t in b.legal_turns())


def captures(b):
    return sorted(b.turn_notation(t) for t in b.legal_turns() if t.jumps)


def occupied(b):
    return {n: s for n, s in b if s}


def test_start_position():
    b = Alva()
    assert GAMES["alva"] is Alva
    assert len(b.geometry) == 81 and b.geometry.names[-1] == "i9"
    assert b.hands == {WHITE: 32, BLACK: 32} and b.turn == WHITE and b.prisoners == {WHITE: 0, BLACK: 0}
    assert notations(b) == sorted(b.geometry.names)  # White places anywhere; no piece to shift yet


def test_jump_over_a_single_piece():
    b = board_with({"e5": "w", "e6": "b"})
    assert captures(b) == ["e5xe7"]
    b.push_notation("e5xe7")
    assert occupied(b) == {"e7": "w"}
    assert b.prisoners == {WHITE: 1, BLACK: 0} and b.pending_captures == 1 and b.turn == BLACK


def test_never_over_exactly_two():
    b = board_with({"e5": "w", "e6": "b", "e7": "b"})
    assert captures(b) == []
    assert all(t.place for t in b.legal_turns())


@pytest.mark.parametrize("row, landing", [(["e6", "e7", "e8"], "e9"), (["b5", "c5", "d5", "e5"], "f5")])
def test_jump_over_a_row_of_three_or_more(row, landing):
    start = "e5" if row[0] == "e6" else "a5"
    b = board_with({start: "w", **{p: "b" for p in row}})
    assert captures(b) == [f"{start}x{landing}"]
    b.push_notation(f"{start}x{landing}")
    assert occupied(b) == {landing: "w"} and b.prisoners[WHITE] == len(row) == b.pending_captures


def test_no_jump_without_an_empty_point_right_behind_the_row():
    assert captures(board_with({"e6": "w", "e7": "b", "e8": "b", "e9": "b"})) == []   # the edge
    assert captures(board_with({"e5": "w", "e6": "b", "e7": "w"})) == []              # own piece behind
    assert captures(board_with({"e5": "w", "e6": "b", "e7": "b", "e8": "b", "e9": "w"})) == []
    assert captures(board_with({"e5": "w", "e6": "w"})) == []                         # own pieces are never jumped
    assert captures(board_with({"e5": "w", "f6": "b"})) == []                         # never diagonally
    assert captures(board_with({"e5": "w", "e7": "b"})) == []                         # contiguous only


def test_jumps_must_continue_even_in_another_direction():
    b = board_with({"a1": "w", "a2": "b", "b3": "b", "c4": "b", "c5": "b", "c6": "b"})
    assert captures(b) == ["a1xa3xc3xc7"]
    with pytest.raises(IllegalTurn):
        b.parse_turn("a1xa3")  # stopping early is not allowed
    b.push_notation("a1xa3xc3xc7")
    assert occupied(b) == {"c7": "w"} and b.prisoners[WHITE] == 5


def test_any_capture_may_be_chosen():
    # one piece north or a row of three east: no majority rule
    b = board_with({"e5": "w", "e6": "b", "f5": "b", "g5": "b", "h5": "b"})
    assert captures(b) == ["e5xe7", "e5xi5"]


def test_capture_is_compulsory_and_comes_without_shift_or_placement():
    b = board_with({"e5": "w", "e6": "b", "a1": "w"})
    assert all(t.jumps for t in b.legal_turns())
    with pytest.raises(IllegalTurn, match="capture"):
        b.parse_turn("b2")
    with pytest.raises(IllegalTurn, match="capture"):
        b.parse_turn("a1-a2,b2")


def test_shift_then_place():
    b = board_with({"e5": "w"})
    turns = b.legal_turns()
    assert len(turns) == 80 + 4 * 80  # place anywhere, or shift e5 one of 4 ways and then place
    assert AlvaTurn(place="e5", shift=("e5", "e6")) in turns  # the vacated point may be used
    for bad in ("e5-f6,a1", "e5-e7,a1", "e5-e6,e6", "a1-a2,b2", "e5-e6"):
        with pytest.raises(IllegalTurn):
            b.parse_turn(bad)
    b.push_notation("e5-e6,a1")
    assert occupied(b) == {"e6": "w", "a1": "w"} and b.hands[WHITE] == 30


def test_shift_only_onto_an_empty_neighbour_of_an_own_piece():
    b = board_with({"a1": "w", "b1": "b", "c1": "b", "a2": "b", "a3": "b"}, turn=WHITE)
    # a1 cannot jump two pieces either way, and both its neighbours are taken: no shift at all
    assert not any(t.shift and t.shift[0] == "a1" for t in b.legal_turns())
    b.turn = BLACK
    shifts = {t.shift for t in b.legal_turns() if t.shift}
    assert ("b1", "b2") in shifts and ("c1", "d1") in shifts and all(s[0] != "a1" for s in shifts)


def test_equal_capture_in_reply_is_given_back_then_a_new_capture_is_kept():
    b = board_with({"d5": "w", "e5": "b", "h5": "w", "g5": "b", "e4": "w", "e3": "b"})
    assert b.hands == {WHITE: 29, BLACK: 29}
    b.push_notation("d5xf5")
    assert b.prisoners == {WHITE: 1, BLACK: 0} and b.pending_captures == 1
    b.push_notation("g5xe5")  # Black answers with one: he gives White's piece back to White's hand
    assert b.prisoners == {WHITE: 1, BLACK: 0} and b.pending_captures == 0
    assert b.hands == {WHITE: 30, BLACK: 29} and b["f5"] == "" and b["e5"] == "b"
    b.push_notation("e4xe6")  # nothing lies beside the board any more: White keeps this one
    assert b.prisoners == {WHITE: 2, BLACK: 0} and b.pending_captures == 1
    assert b.material() == {WHITE: 32, BLACK: 32}


def test_different_capture_in_reply_is_kept_by_both():
    # White captured 1 last turn; Black now takes 3 and keeps them, White keeps his 1.
    b = board_with({"a5": "b", "b5": "w", "c5": "w", "d5": "w"}, turn=BLACK,
                   prisoners={WHITE: 1}, pending_captures=1)
    assert b.hands == {WHITE: 29, BLACK: 30}
    b.push_notation("a5xe5")
    assert b.prisoners == {WHITE: 1, BLACK: 3} and b.pending_captures == 3 and b.hands == {WHITE: 29, BLACK: 30}
    # and one in reply to two
    b = board_with({"a5": "b", "b5": "w"}, turn=BLACK, prisoners={WHITE: 2}, pending_captures=2)
    b.push_notation("a5xc5")
    assert b.prisoners == {WHITE: 2, BLACK: 1}
    # a placement in between clears what lies beside the board
    b = board_with({"a1": "w"}, prisoners={BLACK: 1}, pending_captures=1)
    b.push_notation("i9")
    assert b.pending_captures == 0


def test_pop_restores_hidden_state():
    b = board_with({"d5": "w", "e5": "b", "h5": "w", "g5": "b", "e4": "w", "e3": "b"})
    key = b.key()
    b.push_notation("d5xf5")
    b.push_notation("g5xe5")
    b.pop()
    b.pop()
    assert b.key() == key and b.hands == {WHITE: 29, BLACK: 29} and b.prisoners == {WHITE: 0, BLACK: 0}


def test_score_counts_prisoners_and_opposing_pieces_on_the_edge():
    b = board_with({"a1": "b", "i5": "b", "e9": "b", "b2": "b", "e5": "w", "a9": "w"},
                   prisoners={WHITE: 4, BLACK: 2})
    assert b.edge_pieces() == {WHITE: 1, BLACK: 3}
    assert b.score() == (4 + 3, 2 + 1)


def test_game_ends_when_the_player_to_move_cannot_take_a_turn():
    # White has placed or lost all 32 pieces and cannot capture: the game is over.
    b = board_with({"a1": "w", "e5": "w", "c3": "b", "i9": "b"}, turn=WHITE,
                   prisoners={BLACK: 30, WHITE: 5}, pending_captures=2)
    assert b.hands[WHITE] == 0 and b.legal_turns() == []
    out = b.outcome()
    assert out.score == (5 + 1, 30 + 1) and out.winner == BLACK and "white cannot take a turn" in out.reason
    with pytest.raises(IllegalTurn):
        b.parse_turn("b2")
    # with a capture available the empty hand does not end the game
    b = board_with({"a1": "w", "e5": "w", "e6": "b"}, turn=WHITE, prisoners={BLACK: 30})
    assert b.outcome() is None and captures(b) == ["e5xe7"]
    b.push_notation("e5xe7")
    assert b.outcome() is None  # Black still has pieces in hand
    # equal scores draw
    b = board_with({"a1": "w", "a9": "b"}, turn=WHITE, prisoners={BLACK: 31, WHITE: 31})
    assert b.outcome().draw and b.outcome().score == (32, 32)


def test_bad_notation_is_refused():
    b = Alva()
    for bad in ("", "j1", "e5x", "x", "e5-e6,", "e5,e6", "E5"):
        with pytest.raises(IllegalTurn):
            b.parse_turn(bad)
    with pytest.raises(ValueError):
        board_with({"a1": "wb"})
    with pytest.raises(ValueError):
        board_with({"a1": "w"}, prisoners={BLACK: 32})


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 90))
def test_notation_round_trip_visible_board_and_material(random_position, seed, plies):
    b = random_position(Alva(), seed, plies)
    turns = b.legal_turns()
    assert len(set(turns)) == len(turns)
    for t in turns:
        assert b.parse_turn(b.turn_notation(t)) == t
    seen = b.visible()
    assert list(seen) == list(b.geometry.names) and all(s in ("", "w", "b") for s in seen.values())
    assert b.material() == {WHITE: 32, BLACK: 32}


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32), st.integers(10, 90))
def test_every_capture_jumps_1_or_3_plus_opposing_pieces_and_goes_on_to_the_end(random_position, seed, plies):
    b = random_position(Alva(), seed, plies)
    g = b.geometry
    for t in b.legal_turns():
        if not t.jumps:
            continue
        before, mover = b.visible(), b.turn
        b.push(t)
        after = b.visible()
        for a, c in zip(t.jumps, t.jumps[1:]):
            (xa, ya), (xc, yc) = g.lattice[g.index(a)], g.lattice[g.index(c)]
            assert xa == xc or ya == yc
            assert (abs(xc - xa) + abs(yc - ya)) // 2 - 1 in (1, 3, 4, 5, 6, 7)
        gone = {p for p in before if before[p] and not after[p]} - {t.jumps[0]}
        assert gone and all(before[p] != mover for p in gone)
        assert after[t.jumps[-1]] == mover and not b._jump_targets(g.index(t.jumps[-1]))
        b.pop()


def test_perft_from_the_start():
    # 81 placements; Black 80; then White must capture when Black's piece is next to his
    # with an empty point behind it (1 turn), else places on one of 79 points, optionally
    # after shifting his piece to one of its empty neighbours.
    on = lambda c, r: 0 <= c < 9 and 0 <= r < 9  # noqa: E731
    depth3 = 0
    for p in [(c, r) for c in range(9) for r in range(9)]:
        for q in [(c, r) for c in range(9) for r in range(9) if (c, r) != p]:
            dx, dy = q[0] - p[0], q[1] - p[1]
            if abs(dx) + abs(dy) == 1 and on(q[0] + dx, q[1] + dy):
                depth3 += 1
            else:
                free = [(x, y) for x, y in ((1, 0), (0, 1), (-1, 0), (0, -1))
                        if on(p[0] + x, p[1] + y) and (x, y) != (dx, dy)]
                depth3 += 79 * (1 + len(free))
    b = Alva()
    assert [b.perft(d) for d in (1, 2, 3)] == [81, 6480, depth3] == [81, 6480, 2237216]


def test_random_games_reach_an_outcome():
    rng = random.Random(2026)
    start = time.perf_counter()
    for _ in range(20):
        b = Alva()
        while (out := b.outcome()) is None:
            b.push(rng.choice(b.legal_turns()))
            assert b.material() == {WHITE: 32, BLACK: 32}
            assert b.ply < 2000
        assert b.legal_turns() == [] and out.score == b.score()
        assert out.winner == (None if out.draw else WHITE if out.score[0] > out.score[1] else BLACK)
    assert time.perf_counter() - start < 60


def test_cli_replays_the_sample_record_and_refuses_a_skipped_capture(cli, tmp_path):
    r = cli("rules", "replay", "samples/records/alva.txt", "--game", "alva", "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["result"]["winner"] == "white" and data["result"]["score"] == [30, 24]
    assert set(data["final"].values()) <= {"", "w", "b"}
    bad = tmp_path / "bad.txt"
    bad.write_text("1. e5 e6\n2. a1\n")
    r = cli("rules", "replay", str(bad), "--game", "alva")
    assert r.returncode == 1 and "capture" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = cli("rules", "perft", "--game", "alva", "--depth", "2", "--json")
    assert [json.loads(line)["nodes"] for line in r.stdout.splitlines()] == [81, 6480]
