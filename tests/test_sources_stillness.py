"""Frame sources (real video files and folders) and the stillness detector."""

from pathlib import Path

import cv2
import numpy as np
import pytest

from stream_camera import StreamCamera
from tacticblue.sources import CaptureSource, FolderSource, SourceError, open_source
from tacticblue.stillness import StillnessDetector


VIDEO = Path(__file__).resolve().parents[1] / "samples" / "video" / "accasta-rulebook.mp4"


def _scene(t: int, hand_at: int | None, brightness: int = 0) -> np.ndarray:
    """A textured 'board' with an optional bright blob (a hand) at column hand_at."""
    rng = np.random.default_rng(7)
    img = (rng.integers(60, 200, (360, 640, 3))).astype(np.uint8)
    img = cv2.GaussianBlur(img, (9, 9), 0)
    img = cv2.add(img, np.full_like(img, brightness)) if brightness >= 0 else cv2.subtract(img, np.full_like(img, -brightness))
    if hand_at is not None:
        cv2.ellipse(img, (hand_at, 200), (70, 40), 0, 0, 360, (120, 160, 220), -1)
    return img


def _write_video(path: Path, frames: list[np.ndarray], fps: float = 30.0) -> None:
    h, w = frames[0].shape[:2]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (w, h))
    assert writer.isOpened()
    for f in frames:
        writer.write(f)
    writer.release()


def test_video_source_yields_every_frame_with_times_and_says_why_it_ended(tmp_path):
    frames = [_scene(i, 100 + 10 * i) for i in range(20)]
    _write_video(tmp_path / "v.mp4", frames, fps=20)
    src = open_source(str(tmp_path / "v.mp4"))
    got = list(src)
    assert len(got) == 20
    assert got[10].t == pytest.approx(0.5)
    assert src.ended_by == "end of video"
    assert got[0].image.shape == (360, 640, 3)
    assert src.size == (640, 360) and src.note is None  # a recording keeps its own size


def test_a_network_camera_that_drops_out_is_waited_for_and_goes_on_where_it_left_off():
    """A phone's webcam app over Wi-Fi (an MJPEG stream on this machine, read by OpenCV's FFmpeg
    client) stops after its 15th frame and is back 1.5 s later: the source opens it again and
    yields every frame, in order, on one clock, telling what happens as it happens; once the
    camera is gone for good it ends after its wait."""
    camera = StreamCamera.from_video(VIDEO, 40, fps=40, outage=(14, 1.5))
    source = open_source(camera.url, wait_s=4)
    notes: list[tuple[float, str]] = []
    source.on_note = lambda t, message: notes.append((t, message))
    frames = list(source)
    assert source.size == (1280, 720) and source.note is None
    assert len(frames) == 40 and [f.index for f in frames] == list(range(40))
    gap = frames[15].t - frames[14].t
    assert 1.3 < gap < 4 and all(b.t > a.t for a, b in zip(frames, frames[1:]))
    sent = [cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR).astype(int) for jpeg in camera.frames]
    for k in (5, 14, 15, 30):  # each frame is the camera's own, none lost or doubled
        assert min(range(40), key=lambda j: np.abs(frames[k].image - sent[j]).mean()) == k
    said = [message.split(": ", 1)[1] for _, message in notes]
    assert said == ["waiting up to 4 s for it (check the camera and its network); the game is kept",
                    "the game goes on",
                    "waiting up to 4 s for it (check the camera and its network); the game is kept"]
    assert notes[0][1] == f"stream {camera.url} stopped delivering frames: " + said[0]
    assert frames[14].t < notes[0][0] < notes[1][0] < frames[15].t and camera.connections == 2
    assert source.ended_by == f"stream {camera.url} stopped delivering frames and was not back within 4 s"


def test_a_camera_whose_picture_freezes_is_opened_again_and_the_players_told():
    """A camera that goes on sending its last picture (a USB camera short of bandwidth, a
    stream whose encoder hangs): the referee saw a still board while the players went on, and
    no one was told.  Here a phone's MJPEG stream repeats a frame for 2 s: after 1 s of a
    picture the same to the level the source says it seems frozen and opens the camera again,
    and says when the picture is live again; the frames after it come in."""
    film = StreamCamera.from_video(VIDEO, 18, fps=20)
    film.close()
    camera = StreamCamera(film.frames[:8] + [film.frames[7]] * 40 + film.frames[8:], fps=20)
    source = CaptureSource(camera.url, wait_s=2, frozen_s=1.0)
    notes: list[tuple[float, str]] = []
    source.on_note = lambda t, message: notes.append((t, message))
    frames = list(source)
    assert [message for _, message in notes[:2]] == [
        f"stream {camera.url}'s picture has not changed for 1 s: it seems frozen, and is opened again (if it stays "
        "so, unplug the camera and plug it back in)",
        f"stream {camera.url}'s picture is live again: the game goes on"]
    assert camera.connections == 2 and notes[0][0] < notes[1][0]
    sent = [cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR).astype(int) for jpeg in film.frames]
    last = min(range(len(sent)), key=lambda j: np.abs(frames[-1].image - sent[j]).mean())
    assert last == len(sent) - 1  # the film's frames after the freeze came in


def test_a_camera_not_waited_for_ends_when_it_stops():
    camera = StreamCamera.from_video(VIDEO, 12, fps=40, outage=(5, 1.0))
    source = open_source(camera.url, wait_s=0)
    notes: list[str] = []
    source.on_note = lambda t, message: notes.append(message)
    frames = list(source)
    assert [f.index for f in frames] == list(range(6)) and notes == []
    assert source.ended_by == f"stream {camera.url} stopped delivering frames and was not back within 0 s"
    camera.close()


def test_folder_source_reads_frames_in_name_order(tmp_path):
    for i in (2, 0, 1):
        cv2.imwrite(str(tmp_path / f"{i:04d}.png"), _scene(i, None, brightness=i * 40))
    frames = list(FolderSource(tmp_path, fps=10))
    assert [f.index for f in frames] == [0, 1, 2]
    assert frames[2].image.mean() > frames[0].image.mean()


def test_bad_sources_give_clear_errors(tmp_path):
    with pytest.raises(SourceError, match="no such video"):
        open_source(str(tmp_path / "missing.mp4"))
    (tmp_path / "junk.mp4").write_bytes(b"not a video at all")
    with pytest.raises(SourceError, match="cannot open"):
        open_source(str(tmp_path / "junk.mp4"))
    (tmp_path / "damaged.jpg").write_bytes(b"\xff\xd8 not a picture")  # OpenCV opens it, decodes no frame
    with pytest.raises(SourceError, match="cannot (open|read a frame from) video"):
        open_source(str(tmp_path / "damaged.jpg"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(SourceError, match="no image files"):
        open_source(str(tmp_path / "empty"))


def test_a_video_gives_its_first_frame_too(tmp_path):
    """The first frame, read when the file is opened to check it holds one, is not lost."""
    path = tmp_path / "three.avi"
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for i in range(3):
        out.write(np.full((48, 64, 3), 40 + 80 * i, np.uint8))
    out.release()
    frames = list(open_source(str(path)))
    assert [f.index for f in frames] == [0, 1, 2]
    assert [round(float(f.image.mean()) / 40) for f in frames] == [1, 3, 5]


def test_stillness_waits_for_the_settle_time_and_ignores_flicker():
    det = StillnessDetector(settle_s=0.4)
    fps = 30
    states = []
    # a hand moves for 1 s, leaves, then the board is still with light flicker.
    for i in range(60):
        t = i / fps
        hand = 100 + 15 * i if i < 30 else None
        flicker = int(8 * np.sin(i)) if i >= 30 else 0
        states.append(det.update(_scene(i, hand, flicker), t))
    assert not any(states[:30])
    first_still = states.index(True)
    # still from frame 31 (frame 30 differs from 29: the hand left), settled 0.4 s later
    assert 30 + 0.4 * fps <= first_still <= 30 + 0.4 * fps + 2
    assert all(states[first_still:])


def test_new_motion_after_a_still_board_is_not_still():
    det = StillnessDetector(settle_s=0.2)
    assert not det.update(_scene(0, None), 0.0)
    assert det.update(_scene(0, None), 0.3)
    assert not det.update(_scene(0, 300), 0.33)  # a hand comes in


def test_a_man_moved_with_no_hand_in_view_counts_as_movement():
    """A time-lapse of Dame 100 ray-traced by POV-Ray (640x360, 5 frames a second): Black's 20-24
    at 10 s changes too few pixels for the share of changed pixels to see it (a black man on
    dark squares), and differs enough from the picture the board settled in: movement once a
    second frame differs too, not still until it settles again."""
    video = Path(__file__).parent / "data" / "live" / "dame100-povray-time-lapse.mp4"
    det = StillnessDetector(settle_s=0.4)
    states = {round(f.t, 1): det.update(f.image, f.t) for f in open_source(video)}
    assert states[9.8] and not states[10.2] and not states[10.4] and states[10.6]
    plain = StillnessDetector(settle_s=0.4, change_limit=float("inf"))
    by_share = {round(f.t, 1): plain.update(f.image, f.t) for f in open_source(video)}
    assert by_share[9.8] and by_share[10.2] and by_share[10.6]


def test_a_folder_of_photos_shows_each_photo_for_a_while(tmp_path):
    from tacticblue.sources import PHOTO_FPS, PHOTO_HOLD_S

    for i in range(3):
        cv2.imwrite(str(tmp_path / f"IMG_{i}.png"), _scene(i, None, 20 * i))
    source = open_source(tmp_path, photos=True)
    frames = list(source)
    per_photo = round(PHOTO_HOLD_S * PHOTO_FPS)
    assert len(frames) == 3 * per_photo and source.ended_by == "end of photos"
    assert [f.index for f in frames] == list(range(3 * per_photo))
    assert frames[per_photo].t == pytest.approx(PHOTO_HOLD_S)
    assert all(f.image is frames[2 * per_photo].image for f in frames[2 * per_photo:])
    assert frames[0].image.mean() < frames[-1].image.mean()  # name order: the brightest last
    with pytest.raises(SourceError, match="not a folder"):
        open_source(tmp_path / "IMG_0.png", photos=True)


def test_a_small_change_counts_on_the_board_only():
    """A clock's hand or a screen beside the board changes a small patch too: once the board's
    place is known (watch), only a patch on it breaks the stillness."""
    board = np.array([[40, 40], [300, 40], [300, 320], [40, 320]])  # the left half of a 640x360 frame
    for spot, counts in (((500, 180), False), ((170, 180), True)):
        det = StillnessDetector(settle_s=0.2)
        det.watch(board, (640, 360))
        still = _scene(0, None)
        changed = still.copy()
        cv2.circle(changed, spot, 7, (20, 20, 20), -1)  # too few pixels for the share of changed ones
        assert not det.update(still, 0.0) and det.update(still, 0.3)
        assert det.update(changed, 0.4)  # a frame apart (a camera shaken) does not count
        assert det.update(changed, 0.5) != counts


def test_a_frame_of_another_size_is_a_new_picture_not_an_error():
    """A camera back at another frame size, or a phone turned: the picture moved."""
    det = StillnessDetector(settle_s=0.2)
    still = _scene(0, None)
    assert not det.update(still, 0.0) and det.update(still, 0.3)
    smaller = cv2.resize(still, (480, 360))
    assert not det.update(smaller, 0.4) and not det.update(smaller, 0.5) and det.update(smaller, 0.7)
