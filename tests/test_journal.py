"""The game journal: durable, checked, resumable, and never silently overwritten."""

import json

import pytest

from rules import GAMES, new_game
from rules.record import parse_record
from tacticblue.journal import Journal, JournalError, export_record, read_journal, replay_journal

ACCASTA = ["b4:2-c5", "e4:+e3", "a4:3-b4", "f2:+f3,+e3", "b2:2+c3"]


def _journal_with(path, turns, game="accasta"):
    j = Journal.create(path, game)
    for ply, t in enumerate(turns, 1):
        j.turn(ply, t, t=ply * 10.0)
    return j


def test_turns_are_on_disk_as_soon_as_they_are_written(tmp_path):
    path = tmp_path / "game.jsonl"
    j = _journal_with(path, ACCASTA[:3])
    # read while still open, as after a crash
    assert read_journal(path).turns == ACCASTA[:3]
    j.undo(3)
    j.turn(3, ACCASTA[2])
    j.close()
    contents = read_journal(path)
    assert contents.game == "accasta" and contents.turns == ACCASTA[:3]
    assert replay_journal(contents).visible() == _board_after(ACCASTA[:3]).visible()


def _board_after(turns, game="accasta"):
    b = new_game(game)
    for t in turns:
        b.push_notation(t)
    return b


def test_resume_continues_after_a_write_cut_off_by_a_crash(tmp_path):
    path = tmp_path / "game.jsonl"
    _journal_with(path, ACCASTA[:2]).close()
    with open(path, "a") as f:
        f.write('{"type": "turn", "ply": 3, "tu')  # power cut mid-write
    j, contents = Journal.resume(path)
    assert contents.turns == ACCASTA[:2] and contents.torn_tail is not None
    assert (tmp_path / "game.jsonl.torn").read_text().startswith('{"type": "turn"')
    j.turn(3, ACCASTA[2])
    j.close()
    assert read_journal(path).turns == ACCASTA[:3]


def test_the_discs_the_players_gave_are_remembered_and_a_later_size_wins(tmp_path):
    path = tmp_path / "game.jsonl"
    j = Journal.create(path, "accasta", discs=[32.0, 9.0])
    j.turn(1, ACCASTA[0])
    assert read_journal(path).discs == (32.0, 9.0)
    j.discs((31.5, 8.0))
    j.turn(2, ACCASTA[1])
    j.close()
    contents = read_journal(path)
    assert contents.discs == (31.5, 8.0) and contents.turns == ACCASTA[:2]
    assert read_journal(_journal_with(tmp_path / "plain.jsonl", ACCASTA[:1]).path).discs is None


@pytest.mark.parametrize("size", ["[32, 9, 1]", "[32, -9]", '"32x9"', "[32, null]"])
def test_a_journal_whose_discs_are_no_size_is_refused_naming_the_line(tmp_path, size):
    path = tmp_path / "game.jsonl"
    _journal_with(path, ACCASTA[:1]).close()
    with open(path, "a") as f:
        f.write('{"type": "discs", "discs": ' + size + "}\n")
    with pytest.raises(JournalError, match="line 3: the discs' size .* is not a diameter and thickness in mm"):
        read_journal(path)


@pytest.mark.parametrize("damage, message", [
    (lambda lines: lines[:1] + ["{not json"] + lines[1:], "line 2: corrupt"),
    (lambda lines: [lines[0].replace('"version": 1', '"version": 7')] + lines[1:], "version 7"),
    (lambda lines: lines + ['{"type": "turn", "ply": 4, "turn": "d4:-d5"}'], "line 4"),
    (lambda lines: lines[1:], "no header"),
])
def test_damaged_journals_are_refused_with_the_reason_and_left_untouched(tmp_path, damage, message):
    path = tmp_path / "game.jsonl"
    _journal_with(path, ACCASTA[:2]).close()
    text = "\n".join(damage(path.read_text().splitlines())) + "\n"
    path.write_text(text)
    with pytest.raises(JournalError, match=message):
        Journal.resume(path)
    assert path.read_text() == text


def test_a_journal_being_written_is_not_resumed_until_it_is_closed(tmp_path):
    path = tmp_path / "game.jsonl"
    first = _journal_with(path, ACCASTA[:2])
    with open(path, "a") as f:
        f.write('{"type": "turn", "ply": 3, "tu')  # the first session is writing a line
    with pytest.raises(JournalError, match="being written by another tacticblue session"):
        Journal.resume(path)
    assert not (tmp_path / "game.jsonl.torn").exists()  # its line is not cut as torn
    first.close()
    second, contents = Journal.resume(path)
    assert contents.turns == ACCASTA[:2] and contents.torn_tail is not None
    second.close()


def test_a_new_journal_never_overwrites_an_existing_file(tmp_path):
    path = tmp_path / "game.jsonl"
    path.write_text("precious\n")
    with pytest.raises(JournalError, match="exists already"):
        Journal.create(path, "accasta")
    assert path.read_text() == "precious\n"
    with pytest.raises(JournalError, match="not a tacticblue journal"):
        read_journal(path)


def test_export_writes_the_games_own_record_format(tmp_path):
    board = _board_after(ACCASTA)
    text = export_record(board, "White concedes.")
    assert parse_record(text).turns == ACCASTA
    dame = _board_after(["32-28", "19-23", "28x19", "14x23"], "dame100")
    pdn = export_record(dame)
    assert "32-28" in pdn and "28x19" in pdn
    assert new_game("dame100").read_record(pdn).turns == ["32-28", "19-23", "28x19", "14x23"]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_record_exported_before_the_first_turn_is_a_game_at_its_start(game):
    """``--record`` writes the record as soon as the referee starts: a hex game's was a lone
    newline, which ``rules replay`` refuses as "no game in the file"; now every game's names it."""
    board = new_game(game)
    text = export_record(board)
    assert GAMES[game].title in text
    (record,) = type(board).read_records(text)
    assert record.turns == [] and record.result is None
    assert type(board).from_record(record).visible() == board.visible()


def test_a_confirmed_misreading_stands_until_its_point_changes(tmp_path):
    path = tmp_path / "game.jsonl"
    j = _journal_with(path, ACCASTA[:1])  # b4:2-c5: c5 holds ww
    j.misread(1, "c5", "ww", "w")
    j.misread(1, "a1", "www", "ww")
    j.turn(2, ACCASTA[1])  # e4:+e3 changes neither
    assert read_journal(path).misread == {"c5": ("ww", "w"), "a1": ("www", "ww")}
    j.undo(2)
    j.undo(1)  # b4:2-c5 taken back: c5 is empty again, its misreading is gone
    j.close()
    assert read_journal(path).misread == {"a1": ("www", "ww")}
    with open(path, "a") as f:
        f.write('{"type": "misread", "ply": 0, "point": "d4", "stack": "w", "read": "b"}\n')  # d4 is empty
    with pytest.raises(JournalError, match="line 8: misreading 'd4' does not fit"):
        read_journal(path)


DAME_TURNS = ["32-28", "17-22", "28x17", "12x21", "34-29", "7-12"]


def test_turns_the_disk_refuses_are_held_and_written_when_it_takes_them_again(tmp_path):
    """A disk that refuses writes (full; here a file-size limit, as a full disk refuses them
    part-way): the journal keeps whole lines on disk, holds the turns it could not write, says
    why once, and writes them, in order, with the next turn the disk takes."""
    resource = pytest.importorskip("resource")
    path = tmp_path / "j"
    journal = Journal.create(path, "dame100")
    journal.turn(1, DAME_TURNS[0])
    room = len(json.dumps({"type": "turn", "ply": 2, "turn": DAME_TURNS[1]}) + "\n")
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (path.stat().st_size + room + 10, hard))
    try:
        for ply in (2, 3, 4):  # the second fits, the third only in part
            journal.turn(ply, DAME_TURNS[ply - 1])
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    assert journal.problem == f"{path}: cannot write (File too large)" and journal.lacking == 2
    assert journal.news() == (f"{path}: cannot write (File too large): the game goes on, and the turns not yet in "
                              "the journal are written when they can be, tried again after every turn (make room "
                              "on its disk)")
    assert journal.news() is None
    on_disk = read_journal(path)
    assert on_disk.turns == DAME_TURNS[:2] and on_disk.torn_tail is None
    journal.turn(5, DAME_TURNS[4])
    assert journal.problem is None and journal.lacking == 0
    assert journal.news() == f"the journal {path} is written again, with every turn" and journal.news() is None
    assert read_journal(path).turns == DAME_TURNS[:5]
