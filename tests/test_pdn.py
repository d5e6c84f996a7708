"""PDN games in and out for Dame 100: the real collection, round trips, odd input, the CLI."""

from __future__ import annotations

import json
import random
import re

import pytest

from conftest import one_line_error
from rules import IllegalTurn
from rules.dame import Dame100
from rules.pdn import (
    START_FEN, PdnRecord, board_fen, board_from_fen, iter_games, normalise_fen, parse_fen, read_game, read_games,
    replay, write_game, write_games,
)
from rules.record import RecordError, parse_result


@pytest.fixture(scope="module")
def real_text(shared) -> str:
    return (shared / "draughts-games" / "nk2003-amsterdam.pdn").read_text(encoding="utf-8")


def test_every_real_game_replays_to_its_recorded_end(real_text):
    games = read_games(real_text)
    assert len(games) == 33
    assert games[0].tags["White"] == "Gerard Jansen" and games[0].result == "1/2-1/2"
    assert games[-1].turns == [] and games[-1].tags["Result"] == "1-0"
    for game in games:
        board = replay(game)
        assert board.ply == len(game.turns)
        assert board.material() == {"w": 20, "b": 20}
        # every game ended by agreement or resignation, none by the rules
        assert board.outcome() is None, game.tags


def test_real_games_round_trip(real_text):
    games = read_games(real_text)
    text = write_games(games)
    again = read_games(text)
    assert write_games(again) == text
    assert [g.turns for g in again] == [g.turns for g in games]
    assert [g.tags for g in again] == [dict(g.tags, GameType=g.tags.get("GameType", "20")) for g in games]


def test_record_interface_reads_the_first_game_and_writes_pdn(real_text):
    record = Dame100.read_record(real_text)
    assert record.turns[:3] == ["33-29", "17-22", "39-33"]
    assert Dame100.write_record(record) == write_game(record)


def _random_record(seed: int) -> PdnRecord:
    rng = random.Random(seed)
    board = Dame100()
    record = PdnRecord(turns=[], tags={"Event": 'Club "open" \\ 2026', "White": "Ann", "Black": "Bob"},
                       comments=["opening lesson"])
    while board.legal_turns() and board.ply < 300:
        turn = rng.choice(board.legal_turns())
        record.turns.append(board.turn_notation(turn))
        if rng.random() < 0.05:
            record.move_comments[len(record.turns) - 1] = [f"note {board.ply}"]
        board.push(turn)
    outcome = board.outcome()
    record.result = None if outcome is None else "1-1" if outcome.draw else "2-0" if outcome.winner == "w" else "0-2"
    return record


@pytest.mark.parametrize("seed", range(6))
def test_written_games_read_back_to_the_same_text_and_game(seed):
    record = _random_record(seed)
    text = write_game(record)
    back = read_game(text)
    assert write_game(back) == text
    assert (back.turns, back.tags, back.comments, back.move_comments, back.result) == (
        record.turns, dict(record.tags, Result=record.result or "*", GameType="20"), record.comments,
        record.move_comments, record.result)
    assert all(len(line) <= 79 for line in text.splitlines())
    assert board_fen(replay(back)) == board_fen(replay(record))


def test_reader_skips_variations_nags_marks_and_escapes():
    text = """% exported by hand\r
[Event "x"]\r
\r
1. 32-28! 19-23 $3 (1... 18-23 {a (bracket) comment} 2. 28x19) 2. 28x19?? {forced} 2... 14x23 ; rest
3. 33-28 1-1"""
    game = read_game(text)
    assert game.turns == ["32-28", "19-23", "28x19", "14x23", "33-28"]
    assert game.move_comments == {2: ["forced"]} and game.result == "1-1"


def test_move_strength_in_brackets_and_a_placeholder_for_whites_move_are_read_past():
    game = read_game("1.32-28!? 19-23(!?) 2.28x19 {forced} 2. ... 14x23 3. 37-32(?!) *")
    assert game.turns == ["32-28", "19-23", "28x19", "14x23", "37-32"]


def test_several_games_without_tags_and_every_result():
    text = " ".join(f"1. 32-28 {r}" for r in ("2-0", "0-2", "1-1", "1-0", "0-1", "1/2-1/2", "½-½", "0-0", "*"))
    games = list(iter_games(text))
    assert [g.result for g in games] == ["2-0", "0-2", "1-1", "1-0", "0-1", "1/2-1/2", "½-½", "0-0", None]
    assert parse_result(games[6].result).draw
    assert all(g.turns == ["32-28"] for g in games)


def test_captures_with_colon_spaces_and_algebraic_squares():
    game = read_game("1. d4-e5 19 - 23 2. 28:19 14x23 *")
    assert [replay(game).move_stack[i].path for i in range(4)] == [(32, 28), (19, 23), (28, 19), (14, 23)]


@pytest.mark.parametrize("text,message", [
    ("1. 32-28 19-23 2. hello", "line 1: cannot read 'hello'"),
    ("[Event \"x\"]\n\n1. 32-28 (2. 33-29", "never closed"),
    ("1. 32-28 ) 19-23", "closes no variation"),
    ("", "no PDN game"),
])
def test_unreadable_pdn_is_named(text, message):
    with pytest.raises(RecordError, match=message):
        read_game(text)


@pytest.mark.parametrize("text,message", [
    ("[Event \"x\"]\n\n1. 32-28 {a sharp\nmove 19-23 2. 33-29 *", "line 3: comment '{' is never closed"),
    ("1. 32-28 19-23\n2. 33-29 (2. 34-30 {what if} 23-29\n3. 28x19 *", "line 2: variation '(' is never closed"),
    ("1. 32-28 (1. 33-28 (1. 31-27)\n19-23 *", "line 1: variation '(' is never closed"),
    ("1. 32-28 19-23\n2. 33-29 {sharp {very} } *", "line 2: '}' closes no comment (PDN comments do not nest)"),
])
def test_an_unclosed_comment_or_variation_is_named_with_its_line(text, message):
    """An unclosed '{' said only "cannot read '{a' as PDN", an unclosed '(' gave no line, a
    comment nested in another "cannot read '}' as PDN"."""
    with pytest.raises(RecordError, match=re.escape(message)):
        read_game(text)


def test_illegal_and_ambiguous_moves_are_named():
    with pytest.raises(IllegalTurn, match=r"move 3 \(33-29\).*capturing is compulsory"):
        replay(read_game("1. 32-28 19-23 2. 33-29 *"))
    game = read_game('[FEN "W:WK46:B29,33,37,43"]\n\n1. 46x48 *')
    with pytest.raises(IllegalTurn, match=r"move 1 \(46x48\).*ambiguous.*46x23x34x48"):
        replay(game)
    with pytest.raises(RecordError, match="set-up position"):
        Dame100.read_record('[FEN "W:WK46:B29,33,37,43"]\n\n1. 46x48 *')


def test_a_capture_written_by_its_ends_is_settled_by_the_moves_after_it(cli, tmp_path):
    """Published records give a capture by its start and end squares even where two paths
    join them (here a king's 36x16 takes 12 or 8); the moves after it tell which was played."""
    setup = '[FEN "W:W32,37,38,42,45,47,K36:B3,6,8,11,12,14,19,27,34"]\n\n'
    assert replay(read_game(setup + "1. 36x16 12-17 *")).move_stack[0].path == (36, 13, 2, 16)
    assert replay(read_game(setup + "1. 36x16 8-12 *")).move_stack[0].path == (36, 18, 7, 16)
    with pytest.raises(IllegalTurn, match=r"move 1 \(36x16\).*ambiguous.*do not tell which"):
        replay(read_game(setup + "1. 36x16 19-24 *"))
    path = tmp_path / "settled.pdn"
    path.write_text(setup + "1. 36x16 12-17 *\n", encoding="utf-8")
    run = cli("rules", "replay", str(path), "--game", "dame100", "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["turns"] == ["36x13x2x16", "12-17"]


def test_fen_positions():
    assert normalise_fen(START_FEN) == START_FEN
    assert normalise_fen("W:W31-50:B1-20") == START_FEN
    assert board_fen(Dame100()) == START_FEN
    board = board_from_fen("B:WK5,28:B23,K50.")
    assert board.turn == "b" and board["j10"] == "ww" and board["e5"] == "w" and board["i1"] == "bb"
    assert parse_fen(board_fen(board)) == ({5: "ww", 28: "w", 23: "b", 50: "bb"}, "b")
    for bad in ("X:W1", "W:W51", "W:W1,1", "W:Wq"):
        with pytest.raises(RecordError):
            parse_fen(bad)


def test_game_from_a_set_up_position_starting_with_black():
    game = read_game('[FEN "B:W28:B12"]\n\n1... 12-18 2. 28-22 *')
    assert board_fen(replay(game)) == "B:W22:B18"
    text = write_game(game)
    assert "1... 12-18 2. 28-22 *" in text and write_game(read_game(text)) == text


def test_cli_replays_a_real_pdn_game(cli, real_text, tmp_path):
    path = tmp_path / "games.pdn"
    path.write_text(real_text, encoding="utf-8")
    run = cli("rules", "replay", str(path), "--game", "dame100", "--json")
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert len(out["turns"]) == 81 and out["turns"][-1] == "36x27"
    assert out["result"]["draw"] is True and out["to_move"] is None  # agreed drawn, as recorded
    assert sum(v == "w" for v in out["final"].values()) == 8 == sum(v == "b" for v in out["final"].values())


def test_cli_names_the_bad_move_in_a_pdn(cli, tmp_path):
    path = tmp_path / "bad.pdn"
    path.write_text('[Event "x"]\n\n1. 32-28 19-23 2. 33-29 28x19 *\n', encoding="utf-8")
    run = cli("rules", "replay", str(path), "--game", "dame100")
    assert run.returncode == 1
    assert "turn 2 (white) '33-29'" in run.stderr and "28x19" in run.stderr  # move 2 of the record


def test_cli_moves_and_perft(cli):
    run = cli("rules", "moves", "--game", "dame100", "--json")
    assert run.returncode == 0 and len(json.loads(run.stdout)) == 9
    run = cli("rules", "perft", "--game", "dame100", "--depth", "4", "--json")
    assert [json.loads(line)["nodes"] for line in run.stdout.splitlines()] == [9, 81, 658, 4265]


def test_the_bundled_sample_replays_to_a_black_win_with_kings():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "samples" / "records" / "dame100.pdn").read_text(encoding="utf-8")
    game = read_game(text)
    board = replay(game)
    assert game.result == "0-1"
    assert "bb" in board.stacks and write_game(game) == text


def test_a_game_of_tags_only_is_a_game_of_its_own():
    """A game given by its tags alone (no moves, no result, like the last game of the real
    collection) is followed by the next game's tags: a tag name seen again starts that game."""
    text = ('[Event "a"]\n[White "A"]\n\n1. 32-28 19-23 2-0\n\n'
            '[Event "b"]\n[White "B"]\n[Result "0-2"]\n\n'
            '[Event "c"]\n[White "C"]\n\n1. 34-29 17-21 1-1\n')
    games = read_games(text)
    assert [g.tags.get("White") for g in games] == ["A", "B", "C"]
    assert [g.turns for g in games] == [["32-28", "19-23"], [], ["34-29", "17-21"]]
    assert games[1].tags == {"Event": "b", "White": "B", "Result": "0-2"} and games[2].tags == {"Event": "c", "White": "C"}


def test_a_result_right_before_a_line_comment_or_the_end_of_a_variation_is_a_result():
    game = read_game("1. 32-28 19-23 2-0; White won on time\n")
    assert game.turns == ["32-28", "19-23"] and game.result == "2-0"
    game = read_game("1. 32-28 19-23 (2. 28x19 1/2-1/2) 2. 28x19 14x23 *")
    assert game.turns == ["32-28", "19-23", "28x19", "14x23"] and game.result is None


def test_an_illegal_move_after_a_capture_written_by_its_ends_is_named_itself():
    """The moves after an ambiguous capture settle it; a wrong move further on is the error,
    not the capture (here Black's 24-35 at move 8: the capture 36x16 went by 13 and 2)."""
    setup = '[FEN "W:W32,37,38,42,45,47,K36:B3,6,8,11,12,14,19,27,34"]\n\n'
    moves = "1. 36x16 6-11 2. 16x40 14-20 3. 32-27 19-24 4. 40-44 "
    assert replay(read_game(setup + moves + "24-29 *")).move_stack[0].path == (36, 13, 2, 16)
    with pytest.raises(IllegalTurn, match=r"^move 8 \(24-35\): '24-35' is not legal"):
        replay(read_game(setup + moves + "24-35 *"))


def test_a_capture_written_with_a_capital_x_is_read():
    board = replay(read_game("1. 32-28 19-23 2. 28X19 14X23 *"))
    assert board.ply == 4 and board.visible() == replay(read_game("1. 32-28 19-23 2. 28x19 14x23 *")).visible()


def test_an_algebraic_move_written_without_its_dash_is_read():
    """PDN 3.0 lets alphanumeric moves leave out the '-' (the test collection's ``1.a3b4``
    was 'cannot read' before)."""
    game = read_game("1. d4e5 19-23 2. e5xc7?! *")
    assert game.turns == ["d4-e5", "19-23", "e5xc7"]
    assert replay(read_game("1.d4e5 *")).move_stack[0].path == (32, 28)


def test_a_fen_with_an_unknown_side_to_move_takes_the_side_of_the_first_move():
    """A FEN starting ``?`` (side not known, allowed by PDN 3.0) was refused as 'must start
    with W or B'; the first move tells whose turn it is."""
    assert parse_fen("?:W28:B12") == ({28: "w", 12: "b"}, "w")
    assert board_fen(replay(read_game('[FEN "?:W28:B12"]\n\n1. 12-17 *'))) == "W:W28:B17"
    assert board_fen(replay(read_game('[FEN "?:W28:B12"]\n\n1. 28-22 *'))) == "B:W22:B12"
    assert replay(read_game('[FEN "?:W28:B12"]\n\n*')).turn == "w"


@pytest.mark.parametrize("tag,name", [("21", "English draughts"), ("25", "Russian draughts"), ("99", "another game")])
def test_a_game_of_another_game_type_is_refused_by_name(tag, name):
    """A record tagged GameType 21 (English checkers) was replayed as international draughts
    and failed on its first move."""
    with pytest.raises(RecordError, match=f'the game is {name} \\(GameType "{tag}"\\), not international draughts'):
        replay(read_game(f'[GameType "{tag}"]\n\n1. 11-15 23-19 *'))


def test_a_game_type_with_its_attributes_is_international_draughts():
    assert replay(read_game('[GameType "20,W,10,10,N1,0"]\n\n1. 32-28 19-23 *')).ply == 2


def test_cli_refuses_another_game_type_in_one_line(cli, tmp_path):
    path = tmp_path / "english.pdn"
    path.write_text('[Event "club"]\n[GameType "21"]\n\n1. 11-15 23-19 2. 8-11 22-17 *\n', encoding="utf-8")
    assert "English draughts" in one_line_error(cli("rules", "replay", str(path), "--game", "dame100"))
    run = cli("rules", "replay", str(path), "--game", "dame100", "--all", "--json")
    assert run.returncode == 1 and "English draughts" in json.loads(run.stdout)[0]["error"]


def test_cli_says_a_record_without_game_type_may_be_another_game(cli, tmp_path):
    """An English checkers record with no GameType tag failed with only '11-15 is not legal
    here'; the message now asks whether it is another draughts game."""
    path = tmp_path / "untagged.pdn"
    path.write_text('[Event "club"]\n\n1. 11-15 23-19 *\n', encoding="utf-8")
    run = cli("rules", "replay", str(path), "--game", "dame100")
    assert run.returncode == 1 and len(run.stderr.strip().splitlines()) == 1
    assert "'11-15' is not legal here" in run.stderr and "no GameType tag" in run.stderr
    run = cli("rules", "replay", str(path), "--game", "dame100", "--all", "--json")
    assert "no GameType tag" in json.loads(run.stdout)[0]["error"]


def test_a_fen_man_on_its_crowning_row_is_named_by_its_square_number_too():
    """An English checkers problem set up as ``W:W18,K15,1:BK30,K26,2`` (a white man on 1)
    was refused as 'a white man on b10 would have been crowned': the board's name for a
    square the FEN calls 1."""
    with pytest.raises(ValueError, match=r"a white man on square 1 \(b10\) would have been crowned"):
        board_from_fen("W:W18,K15,1:BK30,K26,2.")
    with pytest.raises(ValueError, match=r"a black man on square 46 \(a1\) would have been crowned"):
        board_from_fen("B:W30:B44-47")
    assert parse_fen("W:WK1,31:B45,K46") == ({1: "ww", 31: "w", 45: "b", 46: "bb"}, "w")


def test_cli_says_an_untagged_record_with_an_impossible_set_up_may_be_another_game(cli, tmp_path):
    """An English checkers problem with no GameType tag whose FEN has a white man on square 1
    was refused for the man alone; the message now asks whether it is another draughts game,
    as for an illegal first move.  A record tagged GameType 20 gets no such question."""
    path = tmp_path / "problem.pdn"
    path.write_text('[Event "problem"]\n[FEN "W:W18,K15,1:BK30,K26,2."]\n0-1\n', encoding="utf-8")
    line = one_line_error(cli("rules", "replay", str(path), "--game", "dame100"))
    assert "a white man on square 1 (b10) would have been crowned" in line and "no GameType tag" in line
    run = cli("rules", "replay", str(path), "--game", "dame100", "--all", "--json")
    assert run.returncode == 1 and "no GameType tag" in json.loads(run.stdout)[0]["error"]
    path.write_text('[GameType "20"]\n[FEN "W:W18,K15,1:BK30,K26,2."]\n0-1\n', encoding="utf-8")
    line = one_line_error(cli("rules", "replay", str(path), "--game", "dame100"))
    assert "square 1 (b10) would have been crowned" in line and "GameType" not in line
