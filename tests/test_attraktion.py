"""Attraktion: placement, attraction (order, trains, adjacent pieces), winning patterns, end."""

import json
import random
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import BLACK, WHITE, GAMES, IllegalTurn
from rules.attraktion import Attraktion, Attraktion8x8


def board_with(points, turn=WHITE, cls=Attraktion):
    b = cls()
    b.set_position(points, turn=turn)
    return b


def occupied(b):
    return {n: s for n, s in b if s}


def test_registered_with_the_right_boards_and_hands():
    assert GAMES["attraktion"] is Attraktion and GAMES["attraktion-8x8"] is Attraktion8x8
    big, small = Attraktion(), Attraktion8x8()
    assert len(big.geometry) == 100 and big.hands == {WHITE: 50, BLACK: 50} and big.turn == WHITE
    assert len(small.geometry) == 64 and small.hands == {WHITE: 32, BLACK: 32}
    assert small.geometry.names[0] == "a1" and small.geometry.names[-1] == "h8"


def test_attraction_example_order_and_trains():
    # The published JC Attract example: a piece played on e3; e4 is adjacent and stays;
    # e1, b3, e6, g3 move one cell, then a3 and e7 follow them as trains.  Nearest first;
    # at equal distance east, north, west, south.
    b = board_with({"e4": "b", "e1": "w", "b3": "b", "e6": "w", "g3": "b", "a3": "w", "e7": "b"}, cls=Attraktion8x8)
    assert b.shifts("e3") == [("g3", "f3"), ("e1", "e2"), ("e6", "e5"), ("b3", "c3"), ("e7", "e6"), ("a3", "b3")]
    b.push_notation("e3")
    assert occupied(b) == {"e3": "w", "e4": "b", "e2": "w", "c3": "b", "e5": "w", "f3": "b", "b3": "w", "e6": "b"}
    assert b.hands == {WHITE: 32 - 4, BLACK: 32 - 4} and b.turn == BLACK


def test_pieces_move_one_cell_only_and_never_diagonally():
    b = board_with({"a10": "b", "j1": "b", "b2": "w", "f6": "b"})
    b.push_notation("a1")
    # a10 and j1 are far along the column and row: one cell each; b2 and f6 are diagonal: they stay.
    assert occupied(b) == {"a1": "w", "a9": "b", "i1": "b", "b2": "w", "f6": "b"}


def test_adjacent_piece_stays_and_blocks_the_ones_behind_it():
    b = board_with({"e6": "b", "e7": "w", "e9": "b", "d5": "b", "c5": "w"})
    b.push_notation("e5")
    # e6 is adjacent (stays), e7 has no empty cell ahead (stays), e9 moves to e8;
    # d5 is adjacent and c5 is blocked behind it.
    assert occupied(b) == {"e5": "w", "e6": "b", "e7": "w", "e8": "b", "d5": "b", "c5": "w"}


def test_gap_closes_behind_a_moving_train_only_one_cell():
    b = board_with({"e3": "w", "e4": "b", "e5": "w", "e8": "b"})
    b.push_notation("e1")
    # the train e3-e4-e5 moves as a whole; e8 moves one cell into e7 (it was not behind the train).
    assert occupied(b) == {"e1": "w", "e2": "w", "e3": "b", "e4": "w", "e7": "b"}


def test_attraction_boards_step_one_shift_at_a_time():
    b = board_with({"c4": "b", "c5": "w", "h2": "b"})
    boards = b.attraction_boards("c2")
    assert len(boards) == len(b.shifts("c2")) + 1 == 4
    assert boards[0]["c2"] == "w" and boards[0]["c4"] == "b"
    for before, after, (src, dst) in zip(boards, boards[1:], b.shifts("c2")):
        assert after[dst] == before[src] and after[src] == "" and before[dst] == ""
        assert {k for k in before if before[k] != after[k]} == {src, dst}
    b.push("c2")
    assert boards[-1] == b.visible()


def test_pending_shifts_recognises_every_partial_attraction():
    b = board_with({"e4": "b", "e1": "w", "b3": "b", "e6": "w", "g3": "b", "a3": "w", "e7": "b"}, cls=Attraktion8x8)
    shifts = b.shifts("e3")
    boards = b.attraction_boards("e3")
    for i, seen in enumerate(boards):
        assert b.pending_shifts("e3", seen) == shifts[i:]
    # out of the canonical order: the far train a3 moved before g3 and e1 (different lines).
    seen = dict(boards[0])
    for src, dst in [("b3", "c3"), ("a3", "b3"), ("e6", "e5")]:
        seen[dst], seen[src] = seen[src], ""
    assert b.pending_shifts("e3", seen) == [("g3", "f3"), ("e1", "e2"), ("e7", "e6")]
    # unreadable colours are accepted where the shape fits
    assert b.pending_shifts("e3", {**boards[-1], "e5": "?"}) == []
    # a follower cannot move before the piece ahead of it: a3 into b3 while b3 still sits there
    broken = dict(boards[0])
    broken["a3"] = ""
    assert b.pending_shifts("e3", broken) is None
    # a piece that should not move at all has moved
    assert b.pending_shifts("e3", {**boards[-1], "e4": "", "d4": "b"}) is None


def test_winning_pattern_needs_all_four_diagonals_opposing():
    b = board_with({"d4": "w", "c3": "b", "e3": "b", "c5": "b", "e5": "b"})
    assert b.patterns() == {WHITE: 1, BLACK: 0}
    assert b.outcome().winner == WHITE
    b = board_with({"d4": "w", "c3": "b", "e3": "b", "c5": "b", "e5": "w"})
    assert b.patterns() == {WHITE: 0, BLACK: 0} and b.outcome() is None


def test_edge_piece_is_never_a_pattern():
    for cls, edge, diagonals in [(Attraktion, "a5", ("b4", "b6")), (Attraktion, "j10", ("i9",)),
                                 (Attraktion8x8, "h4", ("g3", "g5")), (Attraktion8x8, "d1", ("c2", "e2"))]:
        b = board_with({edge: "w", **{d: "b" for d in diagonals}}, cls=cls)
        assert b.patterns() == {WHITE: 0, BLACK: 0}


def test_a_turn_can_win_the_game_for_the_opponent():
    # White completes a ring of white pieces around black d4: a pattern for Black.
    b = board_with({"d4": "b", "e4": "b", "d5": "b", "c3": "w", "e3": "w", "c5": "w"})
    assert b.shifts("e5") == []
    b.push_notation("e5")
    out = b.outcome()
    assert out.winner == BLACK and "0:1" in out.reason
    assert b.legal_turns() == []
    with pytest.raises(IllegalTurn, match="game is over"):
        b.parse_turn("a1")


def test_the_pull_can_complete_a_pattern():
    # White e4 has black diagonals d3 and d5; Black places on f3 (the third) and pulls f6
    # down column f into f5 (the fourth).  e3 is adjacent to f3 and stays, shielding d3.
    b = board_with({"e4": "w", "e3": "w", "d3": "b", "d5": "b", "f6": "b"}, turn=BLACK)
    assert b.shifts("f3") == [("f6", "f5")]
    b.push_notation("f3")
    assert b.patterns() == {WHITE: 1, BLACK: 0} and b.outcome().winner == WHITE


def test_equal_patterns_play_on():
    b = board_with({"d4": "w", "c3": "b", "e3": "b", "c5": "b", "e5": "b",
                    "h7": "b", "g6": "w", "i6": "w", "g8": "w", "i8": "w"})
    assert b.patterns() == {WHITE: 1, BLACK: 1}
    assert b.outcome() is None and len(b.legal_turns()) == 100 - 10


def test_full_board_with_tied_patterns_is_a_draw():
    # A checkerboard has no pattern (diagonal neighbours share a colour); the last cell is Black's.
    cells = {n: ("w" if (ord(n[0]) + int(n[1:])) % 2 else "b") for n in Attraktion8x8.geometry.names}
    del cells["a1"]
    assert cells.get("b1") == "w"
    b = board_with(cells, turn=BLACK, cls=Attraktion8x8)
    assert b.hands == {WHITE: 0, BLACK: 1} and b.legal_turns() == ["a1"]
    b.push_notation("a1")
    out = b.outcome()
    assert out.draw and out.winner is None and b.legal_turns() == []


def test_bad_notation_is_refused_with_a_reason():
    b = Attraktion8x8()
    b.push_notation("d4")
    with pytest.raises(IllegalTurn, match="occupied"):
        b.parse_turn("d4")
    with pytest.raises(IllegalTurn, match="not a cell"):
        b.parse_turn("i9")  # a cell of the 10 x 10 board only
    with pytest.raises(ValueError):
        Attraktion8x8().set_position({"a1": "ww"})


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([Attraktion, Attraktion8x8]), st.integers(0, 2**32), st.integers(0, 60))
def test_notation_round_trip_and_visible_board(random_position, cls, seed, plies):
    b = random_position(cls(), seed, plies)
    for t in b.legal_turns():
        assert b.parse_turn(b.turn_notation(t)) == t
    seen = b.visible()
    assert list(seen) == list(b.geometry.names)
    assert all(s in ("", "w", "b") for s in seen.values())
    assert b.material() == {WHITE: cls.pieces_each, BLACK: cls.pieces_each}


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32), st.integers(10, 50))
def test_trains_and_stages_of_every_turn_agree_with_the_turn(random_position, seed, plies):
    b = random_position(Attraktion8x8(), seed, plies)
    for t in b.legal_turns():
        shifts, trains, boards = b.shifts(t), b.trains(t), b.attraction_boards(t)
        assert sorted(s for train in trains for s in train) == sorted(shifts)
        for train in trains:
            assert all(follower[1] == leader[0] for leader, follower in zip(train, train[1:]))
        assert b.pending_shifts(t, boards[0]) == shifts and b.pending_shifts(t, boards[-1]) == []
        after = b.copy()
        after.push(t)
        assert boards[-1] == after.visible()


@pytest.mark.parametrize("cls, expected", [
    (Attraktion, [100, 9900, 970200]),
    (Attraktion8x8, [64, 4032, 249984]),
])
def test_perft_from_the_start(cls, expected):
    # Nothing can end the game in 3 plies (a pattern needs 5 pieces), so every cell is playable.
    assert [cls().perft(d) for d in (1, 2, 3)] == expected


def test_push_pop_restores_the_position(random_position):
    b = random_position(Attraktion(), 7, 30)
    key = b.key()
    for t in b.legal_turns()[:20]:
        b.push(t)
        b.pop()
        assert b.key() == key


@pytest.mark.parametrize("cls", [Attraktion, Attraktion8x8])
def test_random_games_reach_an_outcome(cls):
    rng = random.Random(2026)
    start = time.perf_counter()
    results = []
    for _ in range(20):
        b = cls()
        while (out := b.outcome()) is None:
            b.push(rng.choice(b.legal_turns()))
            assert b.material() == {WHITE: cls.pieces_each, BLACK: cls.pieces_each}
        assert b.legal_turns() == [] and b.ply <= 2 * cls.pieces_each
        results.append(out)
    assert any(o.winner for o in results)
    assert time.perf_counter() - start < 60


@pytest.mark.parametrize("game, winner", [("attraktion", "white"), ("attraktion-8x8", "black")])
def test_cli_replays_the_sample_records(cli, game, winner):
    r = cli("rules", "replay", f"samples/records/{game}.txt", "--game", game, "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["result"]["winner"] == winner and "winning patterns" in data["result"]["reason"]
    r = cli("rules", "moves", "--game", game, "--json")
    assert len(json.loads(r.stdout)) == len(GAMES[game].geometry)
