"""``tacticblue rules``: replay, moves and perft, run as a user runs them (a real subprocess)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import one_line_error

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "samples" / "records" / "accasta.txt"


def bad_copy(tmp_path: Path, old: str, new: str) -> Path:
    text = RECORD.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "bad.txt"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


def test_replay_text(cli) -> None:
    run = cli("rules", "replay", RECORD, "--game", "accasta")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    # One line per turn, numbered as in the record (White's and Black's turn share a number).
    assert lines[0].split() == ["1.", "white", "b4:2-c5"]
    assert lines[1].split() == ["1.", "black", "e4:+e3"]
    assert lines[29].split() == ["15.", "black", "e5:2-c6,xd5"]
    picture = "\n".join(lines[30:])
    assert "wwbwb" in picture and "bbbw" in picture  # a4 and e3 in the final diagram
    assert lines[-1] == "Black wins (as recorded: white concedes)."
    assert run.stderr == ""


def test_replay_json_follows_the_spec(cli, shared: Path) -> None:
    for record in (RECORD, shared / "rulebook-games" / "accasta.txt"):
        run = cli("rules", "replay", record, "--game", "accasta", "--json")
        assert run.returncode == 0, run.stderr
        data = json.loads(run.stdout)
        assert set(data) == {"game", "turns", "final", "to_move", "result"}
        assert data["game"] == "accasta"
        assert len(data["turns"]) == 30 and data["turns"][0] == "b4:2-c5" and data["turns"][-1] == "e5:2-c6,xd5"
        assert len(data["final"]) == 37
        assert data["final"]["a4"] == "wwbwb" and data["final"]["b4"] == "wwwb" and data["final"]["d4"] == ""
        assert sum(map(len, data["final"].values())) == 40
        # The concession is not a rule result: it is reported as recorded, and the game is over.
        assert data["result"] == {"winner": "black", "draw": False, "score": None,
                                  "reason": "as recorded: white concedes"}
        assert data["to_move"] is None


def test_replay_of_an_unfinished_game(cli, tmp_path: Path) -> None:
    path = tmp_path / "short.txt"
    path.write_text("1. b4:2-c5 e4:+e3\n2. a4:3-b4\n", encoding="utf-8")
    data = json.loads(cli("rules", "replay", path, "--game", "accasta", "--json").stdout)
    assert data["to_move"] == "black" and data["result"] is None and data["turns"][-1] == "a4:3-b4"
    text = cli("rules", "replay", path, "--game", "accasta")
    assert text.stdout.splitlines()[-1] == "Game goes on; black to move."


WIN = "1. c3:+b2 g1:-d1,-f1\n2. b2:3xe4 g2:+g1,+g1\n3. e4:xe3,xf4\n"
"""A short game Black helps White win: White's tops on e3, e4 and f4 in Black's castle."""


def test_replay_of_a_rule_decided_win(cli, tmp_path: Path) -> None:
    path = tmp_path / "win.txt"
    path.write_text(WIN, encoding="utf-8")
    data = json.loads(cli("rules", "replay", path, "--game", "accasta", "--json").stdout)
    assert data["final"]["e3"] == "bw" and data["final"]["e4"] == "bw" and data["final"]["f4"] == "bbw"
    assert data["to_move"] is None
    assert data["result"] == {"winner": "white", "draw": False, "score": None,
                              "reason": "white controls 3 or more points of black's castle"}
    path.write_text(WIN + "White wins.\n", encoding="utf-8")  # the record agrees with the rules
    assert json.loads(cli("rules", "replay", path, "--game", "accasta", "--json").stdout)["result"] == data["result"]
    text = cli("rules", "replay", path, "--game", "accasta").stdout.splitlines()
    assert text[-1] == "White wins (white controls 3 or more points of black's castle)."


@pytest.mark.parametrize("text, message", [
    (WIN + "Black wins.\n", "the record says 'Black wins.' but the rules give white controls"),
    (WIN.rstrip("\n") + " g3:-f1\n", "turn 3 (black) 'g3:-f1': the game is already over (white controls"),
    (WIN + "White wins 3:0.\n", "the record says 'White wins 3:0.' but the rules give no score"),
])
def test_a_record_that_disagrees_or_goes_on_after_the_end_is_refused(cli, tmp_path: Path, text: str,
                                                                     message: str) -> None:
    path = tmp_path / "win.txt"
    path.write_text(text, encoding="utf-8")
    run = cli("rules", "replay", path, "--game", "accasta", "--json")
    assert run.returncode == 1 and run.stdout == "" and message in run.stderr


def test_replay_writes_observations(cli, tmp_path: Path) -> None:
    out = tmp_path / "obs"
    run = cli("rules", "replay", RECORD, "--game", "accasta", "--json", "--observations", out)
    assert run.returncode == 0, run.stderr
    files = sorted(p.name for p in out.iterdir())
    assert files == [f"{i:04d}.json" for i in range(1, 31)]
    first = json.loads((out / "0001.json").read_text())
    assert set(first) == {"points"} and len(first["points"]) == 37
    assert first["points"]["c5"] == "ww" and first["points"]["b4"] == "" and first["points"]["a1"] == "www"
    last = json.loads((out / "0030.json").read_text())
    assert last["points"] == json.loads(run.stdout)["final"]


def test_replay_reads_a_record_saved_with_a_byte_order_mark_and_crlf(cli, tmp_path: Path) -> None:
    path = tmp_path / "windows.txt"
    path.write_bytes(b"\xef\xbb\xbf" + RECORD.read_text(encoding="utf-8").replace("\n", "\r\n").encode())
    run = cli("rules", "replay", path, "--game", "accasta", "--json")
    assert run.returncode == 0, run.stderr
    assert len(json.loads(run.stdout)["turns"]) == 30


@pytest.mark.parametrize("old, new, expected", [
    ("5. b4:xd4,2-c4", "5. b4:xd4,3-c4",
     "turn 5 (white) 'b4:xd4,3-c4': move 2 (b4:3-c4): b4 holds 2 pieces, cannot carry 3"),
    ("f4:2-e5", "f4:2-e6", "turn 3 (black) 'f4:2-e6': move 1 (f4:2-e6): not on a straight line from f4"),
    ("7. d4:2xe3,-d3", "7. d4:2+e3,-d3", "turn 7 (white) 'd4:2+e3,-d3': move 1: written '+' but e3 holds an opponent's stack"),
    ("2. a4:3-b4", "2. a4:3-b4x", "turn 2 (white) 'a4:3-b4x': cannot read move"),
])
def test_an_illegal_turn_names_number_turn_and_reason(cli, tmp_path: Path, old: str, new: str, expected: str) -> None:
    out = tmp_path / "obs"
    run = cli("rules", "replay", bad_copy(tmp_path, old, new), "--game", "accasta", "--observations", out)
    assert run.returncode == 1
    assert len(run.stderr.splitlines()) == 1 and expected in run.stderr
    number = int(expected.split()[1])
    played = 2 * (number - 1) + (0 if "(white)" in expected else 1)
    assert len(list(out.iterdir())) == played  # the turns before the bad one are kept


@pytest.mark.parametrize("args, message", [
    (("rules", "replay", "no/such/file.txt", "--game", "accasta"), "no such file: no/such/file.txt"),
    (("rules", "replay", RECORD, "--game", "nosuchgame"), "invalid choice: 'nosuchgame'"),
    (("rules", "replay", RECORD), "required: --game"),
    (("rules", "perft", "--game", "accasta", "--depth", "0"), "--depth must be at least 1"),
    (("rules", "moves", "--game", "accasta", "--record", "missing.txt"), "no such file: missing.txt"),
])
def test_bad_input_gives_one_line_and_non_zero_exit(cli, args: tuple[str, ...], message: str) -> None:
    run = cli(*args)
    assert run.returncode != 0 and run.stdout == ""
    assert len(run.stderr.splitlines()) == 1 and message in run.stderr


def test_a_binary_file_is_refused(cli, tmp_path: Path) -> None:
    path = tmp_path / "photo.txt"
    path.write_bytes(bytes(range(256)))
    run = cli("rules", "replay", path, "--game", "accasta")
    assert run.returncode == 2 and "is not a text file" in run.stderr


@pytest.mark.parametrize("game", ["accasta", "abande", "attangle", "dame100"])
@pytest.mark.parametrize("text", ["", " \n\t\r\n", "\ufeff\n"])
@pytest.mark.parametrize("command", ["replay", "replay --all", "moves"])
def test_an_empty_record_is_one_line_for_every_game(cli, tmp_path: Path, game: str, text: str, command: str) -> None:
    """An empty file (a record saved before anything was typed, a copy that failed) showed the
    start position with exit 0 for the hex games, while a PDN one was 'no game in the file'."""
    path = tmp_path / "game.txt"
    path.write_text(text)
    args = (("replay", path, "--game", game, *command.split()[1:]) if command.startswith("replay")
            else ("moves", "--game", game, "--record", path))
    line = one_line_error(cli("rules", *args))
    assert line == f"tacticblue rules: error: {path}: no game in the file"


@pytest.mark.parametrize("game, text", [("accasta", "# a game to come\n"), ("dame100", '[Event "to come"]\n')])
def test_a_record_of_no_turns_yet_replays_as_the_start_position(cli, tmp_path: Path, game: str, text: str) -> None:
    """A record that holds a header but no turn yet is a game at its start, not an error."""
    path = tmp_path / "game.txt"
    path.write_text(text)
    run = cli("rules", "replay", path, "--game", game, "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["turns"] == [] and data["to_move"] == "white" and data["result"] is None


def test_a_pdn_saved_in_latin_1_is_read(cli, tmp_path: Path) -> None:
    """Draughts software on Windows saves PDN in Latin-1 / Windows-1252 (PDN, like PGN, is
    Latin-1 text): the players' names keep their accents."""
    path = tmp_path / "latin1.pdn"
    path.write_bytes('[White "Jürgen Müller"]\n[Black "François"]\n\n1. 32-28 19-23 {gut für Weiß} 2-0\n'
                     .encode("cp1252"))
    run = cli("rules", "replay", path, "--game", "dame100", "--all", "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)[0]["players"] == "Jürgen Müller - François"
    run = cli("rules", "replay", path, "--game", "dame100", "--json")
    assert run.returncode == 0 and json.loads(run.stdout)["turns"] == ["32-28", "19-23"]


def test_moves(cli, tmp_path: Path) -> None:
    run = cli("rules", "moves", "--game", "accasta")
    assert run.returncode == 0
    lines = run.stdout.splitlines()
    assert lines[-1] == "192 legal turns for white" and "a1:3-d1" in lines and "c4:+b3" in lines
    listed = json.loads(cli("rules", "moves", "--game", "accasta", "--json").stdout)
    assert len(listed) == 192 and set(listed) == set(lines[:-1])
    short = tmp_path / "short.txt"
    short.write_text("1. b4:2-c5\n", encoding="utf-8")
    after = json.loads(cli("rules", "moves", "--game", "accasta", "--record", short, "--json").stdout)
    # Black's turns: from Black's points only; Black cannot reach White's new stack on c5.
    assert len(after) == 192 and "e4:-d5" in after and "g1:3-d1" in after
    assert all(t[0] in "efg" for t in after) and not any("c5" in t for t in after)


def test_moves_after_the_end(cli, tmp_path: Path) -> None:
    path = tmp_path / "win.txt"
    path.write_text(WIN, encoding="utf-8")
    run = cli("rules", "moves", "--game", "accasta", "--record", path)
    assert run.returncode == 0
    assert run.stdout == "0 legal turns for black (game over: white controls 3 or more points of black's castle)\n"
    assert cli("rules", "perft", "--game", "accasta", "--record", path, "-d", "1").stdout.startswith("depth 1: 0 ")


def test_perft(cli) -> None:
    run = cli("rules", "perft", "--game", "accasta", "--depth", "2")
    assert run.returncode == 0
    lines = run.stdout.splitlines()
    assert [line.split(" (")[0] for line in lines] == ["depth 1: 192", "depth 2: 36864"]
    rows = [json.loads(line) for line in cli("rules", "perft", "--game", "accasta", "-d", "2", "--json").stdout.splitlines()]
    assert [(r["depth"], r["nodes"]) for r in rows] == [(1, 192), (2, 36864)] and all(r["seconds"] >= 0 for r in rows)


def test_help(cli) -> None:
    for action in ("replay", "moves", "perft"):
        run = cli("rules", action, "--help")
        assert run.returncode == 0 and "--game" in run.stdout and "--json" in run.stdout


def test_a_whole_pdn_collection_is_checked_game_by_game(cli, shared: Path, tmp_path: Path) -> None:
    collection = shared / "draughts-games" / "nk2003-amsterdam.pdn"
    run = cli("rules", "replay", collection, "--game", "dame100", "--all", "--json")
    assert run.returncode == 0, run.stderr
    games = json.loads(run.stdout)
    assert len(games) > 1 and all(g["legal"] for g in games)
    assert games[1]["players"] and games[1]["turns"] > 0
    # One game spoiled: named by its number and turn, the others still checked, status 1.
    text = collection.read_text(encoding="utf-8-sig")
    second = text.index("[Event", text.index("[Event") + 1)
    bad = tmp_path / "bad.pdn"
    bad.write_text(text[:second] + text[second:].replace("1. ", "1. 31-36 ", 1))
    run = cli("rules", "replay", bad, "--game", "dame100", "--all")
    assert run.returncode == 1
    lines = run.stdout.splitlines()
    assert lines[1].startswith("game   2") and "ILLEGAL: turn 1 (white) '31-36'" in lines[1]
    assert lines[-1] == f"{len(games) - 1} of {len(games)} games legal"


def _replay_collection(cli, tmp_path: Path, games: list[str]) -> tuple[Path, list[dict]]:
    """``rules replay --all --json`` of ``games`` written as one PDN file, one of them unreadable:
    the file and the games' entries."""
    bad = tmp_path / "bad.pdn"
    bad.write_text("\n".join(games))
    run = cli("rules", "replay", bad, "--game", "dame100", "--all", "--json")
    assert run.returncode == 1
    return bad, json.loads(run.stdout)


def test_a_game_of_a_collection_that_cannot_be_read_loses_only_itself(cli, tmp_path: Path) -> None:
    games = ['[Event "a"]\n[White "A"]\n\n1. 32-28 19-23 2. 28x19 14x23 1-1\n',
             '[Event "b"]\n[White "B"]\n\n1. 33-28 hello 18-23 *\n',
             '[Event "c"]\n[White "C"]\n\n1. 31-27 17-21 2-0\n']
    bad, out = _replay_collection(cli, tmp_path, games)
    assert [g["legal"] for g in out] == [True, False, True] and out[2]["players"] == "C"
    assert out[1]["error"] == "line 9: cannot read 'hello' as PDN"  # the file's own line
    run = cli("rules", "replay", bad, "--game", "dame100", "--all")
    assert "game   2: UNREADABLE: line 9" in run.stdout and run.stdout.splitlines()[-1] == "2 of 3 games legal"
    # A file with no game that can be read is still one clear error.
    junk = tmp_path / "junk.pdn"
    junk.write_text("hello world\n")
    run = cli("rules", "replay", junk, "--game", "dame100", "--all")
    assert run.returncode == 2 and "line 1: cannot read 'hello'" in run.stderr


def test_a_game_of_tags_only_keeps_its_place_beside_a_game_that_cannot_be_read(cli, tmp_path: Path) -> None:
    games = ['[Event "a"]\n[White "A"]\n\n1. 32-28 19-23 1-1\n',
             '[Event "b"]\n[White "B"]\n[Result "2-0"]\n',
             '[Event "c"]\n[White "C"]\n\n1. 33-28 hello 18-23 *\n',
             '[Event "d"]\n[White "D"]\n\n1. 31-27 17-21 2-0\n']
    _, out = _replay_collection(cli, tmp_path, games)
    assert [(g["players"], g["legal"]) for g in out] == [("A", True), ("B", True), (None, False), ("D", True)]
    assert out[2]["error"] == "line 13: cannot read 'hello' as PDN"


def test_the_nth_game_of_a_pdn_file_and_a_set_up_position(cli, tmp_path: Path) -> None:
    pdn = tmp_path / "two.pdn"
    pdn.write_text('[White "A"]\n1. 32-28 19-23 *\n\n[White "B"]\n[FEN "W:W28:B23"]\n1. 28x19 2-0\n')
    run = cli("rules", "replay", pdn, "--game", "dame100", "--number", "2", "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["turns"] == ["28x19"] and data["final"]["g7"] == "w"
    assert data["result"]["winner"] == "white" and data["result"]["reason"] == "black has no pieces left"
    run = cli("rules", "replay", pdn, "--game", "dame100", "--number", "3")
    assert run.returncode == 2 and "holds 2 game(s)" in run.stderr and len(run.stderr.splitlines()) == 1


def test_a_result_tag_stands_for_a_missing_result_and_one_that_disagrees_is_warned_of(cli, tmp_path: Path) -> None:
    pdn = tmp_path / "results.pdn"
    pdn.write_text('[White "A"]\n[Result "0-1"]\n1. 32-28 19-23 1/2-1/2\n\n'
                   '[White "B"]\n[Result "2-0"]\n1. 33-28 18-23\n')
    run = cli("rules", "replay", pdn, "--game", "dame100", "--all", "--json")
    assert run.returncode == 0, run.stderr
    first, second = json.loads(run.stdout)
    assert first["result"]["draw"] and first["warnings"] == ["the Result tag says '0-1' but the moves end with '1/2-1/2'"]
    assert second["result"]["winner"] == "white" and second["warnings"] == []
    run = cli("rules", "replay", pdn, "--game", "dame100", "--json")
    assert json.loads(run.stdout)["warnings"] == first["warnings"]
    run = cli("rules", "replay", pdn, "--game", "dame100")
    assert run.returncode == 0 and "Draw" in run.stdout
    assert run.stderr.strip() == "warning: the Result tag says '0-1' but the moves end with '1/2-1/2'"


def test_match_points_written_as_the_result_are_kept_and_warned_of_not_played(cli, tmp_path: Path) -> None:
    """A tournament scored in match points out of 10 (the 2007 DUWO Mini-WK in the public PDN
    test collection) writes ``4-6`` where PDN writes ``0-2``: as its Result tag says, it ends
    the game; before, it was played as a move from square 4 to 6 and the record was illegal."""
    pdn = tmp_path / "match.pdn"
    pdn.write_text('[White "Chizhov"]\n[Black "Valneris"]\n[Result "4-6"]\n\n'
                   '01. 34-29  18-22 02. 32-28  16-21 03. 31-26  11-16 4-6\n')
    run = cli("rules", "replay", pdn, "--game", "dame100", "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["turns"][-1] == "11-16" and len(data["turns"]) == 6 and data["result"] is None
    assert data["warnings"] == ["the result '4-6' states no win, draw or loss (kept as written, not checked)"]


def test_a_pdn_game_both_lost_is_reported_as_recorded(cli, tmp_path: Path) -> None:
    """0-0 in PDN: both players lose (both forfeited, or both over the time limit)."""
    path = tmp_path / "both.pdn"
    path.write_text('[White "A"]\n[Black "B"]\n[Result "0-0"]\n\n1. 32-28 19-23 0-0\n')
    run = cli("rules", "replay", path, "--game", "dame100")
    assert run.returncode == 0 and "Both lose (as recorded: both lose)." in run.stdout
    run = cli("rules", "replay", path, "--game", "dame100", "--json")
    assert json.loads(run.stdout)["result"] == {"winner": None, "draw": False, "score": None,
                                                 "reason": "as recorded: both lose"}
