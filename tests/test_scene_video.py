"""Videos of played games: turn stages, hand actions, and the per-frame ground truth of a real mp4."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from rules import new_game
from rules.record import parse_record
from tests.conftest import ROOT
from vision.synth.video import actions_between, turn_stages


def test_accasta_turn_stops_after_every_move():
    board = new_game("accasta")
    board.push_notation("b4:2-c5")
    turn = board.parse_turn("f2:+f3,+e3")
    before = board.visible()
    stages = turn_stages(board, turn)
    assert board.visible() == before, "the board must be left unchanged"
    assert len(stages) == 2
    assert len(stages[0]["f3"]) == len(before["f3"]) + 1 and stages[0]["e3"] == before["e3"]
    board.push(turn)
    assert stages[-1] == board.visible()


def test_draughts_captures_are_taken_off_one_by_one_after_the_move():
    board = new_game("dame100")
    board.set_position({"c3": "w", "f6": "b", "d4": "b", "j10": "b"}, turn="w")
    before = board.visible()
    stages = turn_stages(board, board.parse_turn("c3xg7"))
    assert len(stages) == 1 and stages[0]["g7"] == "w"
    actions = actions_between(before, stages[0], board.geometry.positions_mm())
    assert [(a.src, a.dst) for a in actions] == [("c3", "g7"), ("d4", None), ("f6", None)]


def test_cli_video_of_the_rulebook_game(cli, tmp_path):
    out = tmp_path / "game.mp4"
    frames_dir = tmp_path / "frames"
    record = ROOT / "samples" / "records" / "accasta.txt"
    r = cli("scenes", "video", "--game", "accasta", "--record", str(record), "--first", "2", "--size", "320x180",
            "--fps", "6", "--seed", "4", "--out", str(out), "--frames", str(frames_dir), "--json")
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)
    truth = json.loads(out.with_suffix(".json").read_text())
    frames = truth["frames"]
    assert summary["frames"] == len(frames) == len(list(frames_dir.glob("*.jpg")))
    cap = cv2.VideoCapture(str(out))
    assert int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) == len(frames)
    ok, first = cap.read()
    assert ok and first.shape == (180, 320, 3)
    cap.release()

    # The positions are the rules engine's, the stills show them in order and never with a hand.
    board = new_game("accasta")
    expected = [board.visible()]
    for text in parse_record(record.read_text()).turns[:2]:
        board.push_notation(text)
        expected.append(board.visible())
    assert truth["positions"] == expected
    shown = [f["position"] for f in frames if f["position"] is not None]
    assert shown[0] == 0 and shown[-1] == 2 and shown == sorted(shown)
    assert all(not f["hand"] for f in frames if f["position"] is not None)
    hands = [f for f in frames if f["hand"]]
    assert len(hands) > 5

    # A hand frame differs visibly from the still board before it.
    still = cv2.imread(str(frames_dir / f"{shown.index(0):06d}.jpg")).astype(int)
    changed = [int((np.abs(cv2.imread(str(frames_dir / f"{f['index']:06d}.jpg")).astype(int) - still).max(2) > 60).sum())
               for f in hands if f["index"] < len(frames) // 2]
    assert max(changed) > 300


def test_cli_video_rejects_bad_input(cli, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("1. b4:2-c5 zz9\n")
    r = cli("scenes", "video", "--game", "accasta", "--record", str(bad), "--out", str(tmp_path / "v.mp4"))
    assert r.returncode != 0 and "turn 2" in r.stderr and "\n" == r.stderr[-1] and r.stderr.count("\n") == 1
    r = cli("scenes", "video", "--game", "accasta", "--out", str(tmp_path / "v.avi"))
    assert r.returncode == 2 and ".mp4" in r.stderr
    assert not (tmp_path / "v.mp4").exists()


def test_cli_video_rejects_a_frame_rate_or_turn_count_that_is_no_count(cli, tmp_path):
    """--fps nan passed the range check and failed in the writer ('cannot convert float NaN to
    integer'); --first -3 filmed all but the last three turns of the record."""
    record = ROOT / "samples" / "records" / "accasta.txt"
    for option, value, message in [("--fps", "nan", "--fps must be in 0..120"),
                                   ("--first", "-3", "--first must be at least 1")]:
        r = cli("scenes", "video", "--game", "accasta", "--record", str(record), option, value, "--size", "64x64",
                "--out", str(tmp_path / "v.mp4"))
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and message in r.stderr, r.stderr
        assert not (tmp_path / "v.mp4").exists()


@pytest.mark.parametrize("text", ["this is not a record at all\n", "", "# an Accasta game\n1-0\n"])
def test_cli_video_refuses_a_record_without_turns(cli, tmp_path, text):
    """A text file with no turn line was read as a record holding only a result line: it made
    a video of no turns with exit status 0 (--turns and --first refuse fewer than one)."""
    record = tmp_path / "JUNK.txt"
    record.write_text(text)
    r = cli("scenes", "video", "--game", "accasta", "--record", record, "--out", tmp_path / "v.mp4")
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    problem = "no game in the file" if not text else "no turns to film"  # an empty file: as for every command
    assert r.stderr.startswith(f"tacticblue scenes: error: {record}: {problem}")
    assert not (tmp_path / "v.mp4").exists() and not (tmp_path / "v.json").exists()
