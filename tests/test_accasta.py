"""Accasta (Pari): the rulebook game, every rule on a hand-made position, notation, perft."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import accasta_oracle as oracle
from rules import BLACK, GAMES, WHITE, IllegalTurn, new_game
from rules.accasta import CASTLE, GEOMETRY, Accasta, AccastaTurn
from rules.record import parse_record

ROOT = Path(__file__).resolve().parents[1]

G = GEOMETRY


def board_with(points: dict[str, str], turn: str = WHITE) -> Accasta:
    board = Accasta()
    board.set_position(points, turn)
    return board


def written(board: Accasta) -> set[str]:
    return {board.turn_notation(t) for t in board.legal_turns()}


def from_point(board: Accasta, origin: str) -> set[str]:
    return {n for n in written(board) if n.startswith(origin + ":")}


def named(turn: AccastaTurn) -> oracle.Turn:
    return G.name(turn.origin), tuple((count, G.name(dest)) for count, dest in turn.moves)


# --- the rulebook game ------------------------------------------------------------------
@pytest.fixture(scope="module", params=["shared", "samples"])
def record_text(request) -> str:
    if request.param == "samples":
        return (ROOT / "samples" / "records" / "accasta.txt").read_text(encoding="utf-8")
    path = ROOT.parent / "shared" / "rulebook-games" / "accasta.txt"
    if not path.exists():
        pytest.skip("the shared rulebook games are not here")
    return path.read_text(encoding="utf-8")


def test_rulebook_game_is_legal_and_reads_back_unchanged(record_text: str) -> None:
    record = parse_record(record_text)
    assert len(record.turns) == 30 and record.result == "White concedes."
    board = Accasta()
    for number, text in enumerate(record.turns, 1):
        assert board.outcome() is None, number
        turn = board.parse_turn(text)
        assert board.why_illegal(turn) is None and turn in board.legal_turns(), (number, text)
        assert board.turn_notation(turn) == text  # the booklet's canonical form
        board.push(turn)
    # Final stacks derived by hand, turn by turn, from the booklet's record (not by this code):
    assert board["a4"] == "wwbwb"  # 2. a4:3-b4 empties it, 12... b5:3-a4 then b5:2+a4
    assert board["b4"] == "wwwb"  # 12. a3:3-b4, 12... xb4
    assert board["d5"] == "bwb"  # 14. c4:2-d5 (bw), 15... xd5
    assert board["e3"] == "bbbw"  # 10... -e3 (b), 11. d4:3xe3 (bbw)
    assert board["e4"] == "bw" and board["c6"] == "bb" and board["d2"] == "bbb"
    assert board["d4"] == "" and board["b5"] == "" and board["g3"] == ""
    assert board.material() == {WHITE: 20, BLACK: 20}
    assert board.turn == WHITE and board.outcome() is None  # White conceded; the rules had not ended it


# --- the start ----------------------------------------------------------------------------
def test_start_position_and_registry() -> None:
    board = new_game("accasta")
    assert GAMES["accasta"] is Accasta and Accasta.max_height == 6
    assert board.material() == {WHITE: 20, BLACK: 20}
    assert {G.name(p) for p in CASTLE[WHITE]} == {"a1", "a2", "a3", "a4", "b2", "b3", "b4", "c3", "c4"}
    assert {G.name(p) for p in CASTLE[BLACK]} == {"g1", "g2", "g3", "g4", "f2", "f3", "f4", "e3", "e4"}
    assert board["a1"] == "www" and board["b3"] == "ww" and board["c4"] == "w"
    assert board["g4"] == "bbb" and board["f2"] == "bb" and board["e3"] == "b"
    assert "a1:3-d1" in written(board)  # the booklet's losing first turn


# --- each rule on a hand-made position ----------------------------------------------------
def test_range_counts_own_pieces_only() -> None:
    lone = board_with({"d4": "w"})
    assert written(lone) == {f"d4:-{p}" for p in ("c3", "c4", "d3", "d5", "e3", "e4")}
    # A white piece on three black ones moves one point only.
    assert max(distance("d4", n) for n in from_point(board_with({"d4": "bbbw"}), "d4")) == 1
    assert max(distance("d4", n) for n in from_point(board_with({"d4": "wbw"}), "d4")) == 2
    assert max(distance("d4", n) for n in from_point(board_with({"d4": "www"}), "d4")) == 3
    # Recomputed for each move: after one of three white pieces leaves, the rest reach 2.
    board = board_with({"d4": "www"})
    assert "d4:-d5,-b4" in written(board) and "d4:-d5,-a4" not in written(board)


def distance(origin: str, notation: str) -> int:
    """Lattice distance of the first move of ``notation`` from ``origin``."""
    dest = notation.split(":")[1].split(",")[0].lstrip("0123456789")[1:]
    (x0, y0), (x1, y1) = G.lattice[G.index(origin)], G.lattice[G.index(dest)]
    return max(abs(y1 - y0), (abs(x1 - x0) + abs(y1 - y0)) // 2)


def test_carrying_moves_the_top_pieces_and_keeps_the_range() -> None:
    board = board_with({"d4": "bwbw", "g1": "b"})
    # 2 white pieces: range 2, and any number of pieces (1..4) may go along.
    assert {"d4:-d5", "d4:2-d5", "d4:3-d5", "d4:4-d5", "d4:4-d6"} <= written(board)
    board.push(board.parse_turn("d4:3-d6"))
    assert board["d6"] == "wbw" and board["d4"] == "b"


def test_no_jumping_over_pieces_but_landing_on_them() -> None:
    board = board_with({"a1": "www", "b1": "b", "g4": "b"})
    moves = from_point(board, "a1")
    assert "a1:xb1" in moves and "a1:3xb1" in moves
    assert not any(m.split(",")[0].endswith(("c1", "d1")) for m in moves)
    assert board.why_illegal(AccastaTurn(G.index("a1"), ((1, G.index("c1")),))) == "move 1 (a1:1-c1): cannot jump over b1"
    # An earlier move of the turn blocks later ones, and a later move may land on it.
    board = board_with({"d4": "www", "g4": "b"})
    assert "d4:-d5,+d5" in written(board) and "d4:-d5,-d6" not in written(board)
    assert "d4:-d5,+d5,+d5" in written(board)


def test_a_release_ends_the_turn() -> None:
    board = board_with({"d4": "bw", "g1": "b"})
    assert from_point(board, "d4") >= {"d4:-d5", "d4:2-d5"}
    assert all("," not in n for n in from_point(board, "d4"))
    assert "the turn ends here" in board.why_illegal(board_turn("d4", (1, "d5"), (1, "d6")))
    # Without a release the same piece count may go on.
    board = board_with({"d4": "ww", "g1": "b"})
    assert "d4:-d5,-d3" in written(board)


def board_turn(origin: str, *moves: tuple[int, str]) -> AccastaTurn:
    return AccastaTurn(G.index(origin), tuple((c, G.index(d)) for c, d in moves))


def test_no_release_in_ones_own_castle() -> None:
    board = board_with({"b3": "bw", "f3": "bw", "g1": "b"})
    assert "b3:-c3" not in written(board) and "b3:2-c3" in written(board)  # carrying all is no release
    assert "f3:-e3" in written(board)  # a release in the opponent's castle is fine
    assert "own castle" in board.why_illegal(board_turn("b3", (1, "c3")))
    black = board_with({"f3": "wb", "c3": "wb", "a1": "w"}, BLACK)
    assert "f3:-e3" not in written(black) and "f3:2-e3" in written(black) and "c3:-d3" in written(black)


def test_at_most_three_pieces_of_each_colour_in_a_stack() -> None:
    board = board_with({"d4": "www", "d5": "w", "d1": "bbw", "d2": "bbb", "g1": "b"})
    assert "d4:+d5" in written(board) and "d4:2+d5" in written(board) and "d4:3+d5" not in written(board)
    # Black pieces carried by White count too: bbb + bw would hold four black pieces.
    assert "d1:xd2" in written(board)
    assert "d1:2xd2" not in written(board) and "d1:3xd2" not in written(board)
    assert board.why_illegal(board_turn("d1", (2, "d2"))) == "move 1 (d1:2-d2): d2 would hold 4 black pieces"
    # The limit of six in all is reachable.
    six = board_with({"d4": "bbb", "d5": "www", "g1": "b"}, BLACK)
    six.push(six.parse_turn("d4:3xd5"))
    assert six["d5"] == "wwwbbb"


def test_win_with_three_tops_in_the_opponents_castle_at_once() -> None:
    board = board_with({"g1": "w", "g2": "bw", "f3": "wwb", "e5": "w", "a1": "b", "c1": "bb"})
    assert board.outcome() is None
    board.push(board.parse_turn("e5:-e4"))  # e4 is Black's castle: third white top there
    outcome = board.outcome()
    assert outcome is not None and outcome.winner == WHITE and "castle" in outcome.reason
    assert board.legal_turns() == []  # decided at once: Black does not get a reply
    assert "over" in board.why_illegal(board_turn("c1", (1, "c2")))
    # Tops count, not pieces: a white piece under a black one does not.
    covered = board_with({"g1": "w", "g2": "wb", "f3": "wwb", "a1": "b"}, BLACK)
    assert covered.outcome() is None


def test_a_player_without_a_legal_turn_loses() -> None:
    # Black's only piece, on g1, can go nowhere: every neighbour already holds three black pieces.
    board = board_with({"g1": "b", "g2": "bbbw", "f1": "bbbw", "f2": "bbbw", "a1": "w"}, BLACK)
    assert board.legal_turns() == []
    outcome = board.outcome()
    assert outcome is not None and outcome.winner == WHITE and "no legal turn" in outcome.reason
    # Controlling no stack at all is the same.
    bare = board_with({"d4": "bw"}, BLACK)
    assert bare.outcome() is not None and bare.outcome().winner == WHITE


def test_at_most_three_moves_from_one_origin() -> None:
    board = board_with({"d4": "www", "g1": "b"})
    longest = max(len(t.moves) for t in board.legal_turns())
    assert longest == 3
    assert "1 to 3 moves" in board.why_illegal(board_turn("d4", (1, "d5"), (1, "d3"), (1, "c3"), (0, "c4")))


def test_turns_form_a_prefix_tree() -> None:
    board = new_game("accasta")
    board.push_notation("b4:2-c5")
    board.push_notation("e4:+e3")
    turns = board.legal_turns()
    assert len(set(turns)) == len(turns)
    known = set(turns)
    for t in turns:
        if len(t.moves) > 1:
            prefix = AccastaTurn(t.origin, t.moves[:-1])
            assert prefix in known and t.extends(prefix) and not prefix.extends(t)


def test_different_turns_can_leave_the_same_position() -> None:
    board = board_with({"a1": "www", "g1": "b"})
    after = []
    for text in ("a1:2-b1", "a1:-b1,+b1"):
        board.push(board.parse_turn(text))
        after.append(board.key())
        board.pop()
    assert after[0] == after[1]


# --- notation -------------------------------------------------------------------------------
def test_notation_variants_are_read() -> None:
    board = new_game("accasta")
    expected = board.parse_turn("b4:2-c5")
    for text in ("b4: 2- c5", "b4 : 2 - c5", "B4:2-C5", "b4:2–c5"):
        assert board.parse_turn(text) == expected
    assert board.parse_turn("c4:1-d4") == board.parse_turn("c4:-d4")
    board.push(expected)
    board.push_notation("e4:+e3")
    board.push_notation("a4:3-b4")
    board.push_notation("f2:+f3,+e3")
    board.push_notation("b2:2+c3")
    board.push_notation("f4:2-e5")
    board.push_notation("c4:-d4")
    assert board.turn_notation(board.parse_turn("e3: 1+e5, ×d4")) == "e3:+e5,xd4"
    assert board.parse_turn("e3:-e5,-d4") == board.parse_turn("e3:+e5,xd4")  # "-" is the generic sign


@pytest.mark.parametrize("text, message", [
    ("b4-c5", "cannot read"),
    ("b4:2c5", "cannot read move"),
    ("z9:-c5", "no point 'z9'"),
    ("b4:0-c5", "carries no piece"),
    ("b4:+c5", "holds nothing"),
    ("c4:xc5", "holds nothing"),
    ("b3:-d5", "cannot jump over c4"),
    ("e3:-d4", "controlled by the opponent"),
    ("c5:-d5", "c5 is empty"),
    ("a1:-c4", "not on a straight line"),
])
def test_bad_turns_say_why(text: str, message: str) -> None:
    with pytest.raises(IllegalTurn, match=message):
        new_game("accasta").parse_turn(text)


def random_position(rng: random.Random, plies: int) -> Accasta:
    """A position reached by ``plies`` random legal turns from the start."""
    return Accasta().play_random(rng, plies)


def random_setup(rng: random.Random) -> Accasta:
    """Any position with at most 20 pieces a side and 3 of a colour per stack (not always reachable)."""
    left = {WHITE: rng.randint(1, 20), BLACK: rng.randint(1, 20)}
    points: dict[str, str] = {}
    for name in rng.sample(G.names, rng.randint(2, 20)):
        stack = ""
        for _ in range(rng.randint(1, 6)):
            colour = rng.choice((WHITE, BLACK))
            if left[colour] and stack.count(colour) < 3:
                stack += colour
                left[colour] -= 1
        if stack:
            points[name] = stack
    return board_with(points, rng.choice((WHITE, BLACK)))


positions = st.one_of(
    st.builds(random_position, st.randoms(use_true_random=False), st.integers(0, 40)),
    st.builds(random_setup, st.randoms(use_true_random=False)),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions)
def test_every_legal_turn_reads_back_and_matches_the_oracle(board: Accasta) -> None:
    turns = board.legal_turns()
    for turn in turns:
        text = board.turn_notation(turn)
        assert board.parse_turn(text) == turn, text
        assert board.why_illegal(turn) is None, text
    mover = WHITE if board.turn == BLACK else BLACK
    assert {named(t) for t in turns} == oracle.turns(dict(board.visible()), board.turn)
    assert (oracle.winner_by_castle(dict(board.visible()), mover) is not None) == (board._castle_winner() is not None)


@settings(max_examples=15, deadline=None)
@given(st.randoms(use_true_random=False))
def test_invariants_along_random_games(rng: random.Random) -> None:
    """Pieces are never made or lost, no stack ever holds four of a colour, pop undoes push."""
    board = Accasta()
    for _ in range(60):
        turns = board.legal_turns()
        if not turns:
            assert board.outcome() is not None
            break
        turn = rng.choice(turns)
        before = board.key()
        board.push(turn)
        assert board.material() == {WHITE: 20, BLACK: 20}
        assert all(s.count(WHITE) <= 3 and s.count(BLACK) <= 3 for s in board.stacks)
        assert board.pop() == turn and board.key() == before
        board.push(turn)


@settings(max_examples=40, deadline=None)
@given(positions, st.randoms(use_true_random=False))
def test_referee_agrees_with_the_generator(board: Accasta, rng: random.Random) -> None:
    """Random candidate turns (mostly illegal) are accepted by ``why_illegal`` exactly when generated."""
    legal = set(board.legal_turns())
    for turn in rng.sample(sorted(legal), min(len(legal), 50)):
        origin, moves = turn
        i = rng.randrange(len(moves))
        count, dest = moves[i]
        near = G.neighbours(dest)
        nudged = (count + rng.choice((-1, 1)), dest) if rng.random() < 0.5 else (count, rng.choice(near))
        for candidate in (AccastaTurn(origin, (*moves[:i], nudged, *moves[i + 1:])), AccastaTurn(origin, (*moves, nudged))):
            assert (board.why_illegal(candidate) is None) == (candidate in legal), candidate
    for _ in range(100):
        turn = AccastaTurn(rng.randrange(len(G)), tuple(
            (rng.randint(1, 4), rng.randrange(len(G))) for _ in range(rng.randint(1, 3))))
        assert (board.why_illegal(turn) is None) == (turn in legal), turn


# --- perft ----------------------------------------------------------------------------------
def test_perft_of_the_start_position() -> None:
    board = Accasta()
    assert board.perft(1) == 192
    assert board.perft(2) == 192 * 192  # the two sides cannot reach each other in one turn
    start = {name: stack for name, stack in board.visible().items() if stack}
    assert oracle.perft(start, WHITE, 1) == 192
    assert oracle.perft(start, WHITE, 2) == 192 * 192


@pytest.mark.slow
def test_perft_depth_three() -> None:
    # The naive oracle (accasta_oracle.perft(start, "w", 3)) gives the same count; it takes
    # minutes, so it was run once by hand rather than in every test run.
    assert Accasta().perft(3) == 13_012_864


