"""The Python panel emulator on a real pty, the driver against it, and the panel CLI."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import one_line_error

from hardware.driver import Panel, Timing
from hardware.emulator import DeviceModel, VirtualPanel
from hardware.protocol import MSG_LEDS, MSG_PING, Capability, Frame, LedFrame, Pattern
from tests.conftest import ROOT


class RecordingDevice(DeviceModel):
    """A device model that advertises fewer capabilities and records what it receives."""

    def __init__(self, leds: int, capabilities: Capability) -> None:
        super().__init__(leds)
        self.info = type(self.info)(**{**self.info.__dict__, "capabilities": capabilities})
        self.received: list[Frame] = []

    def _handle(self, frame: Frame, now_ms: int) -> bytes:
        self.received.append(frame)
        return super()._handle(frame, now_ms)


def serve(panel: VirtualPanel, stop: threading.Event) -> threading.Thread:
    def loop() -> None:
        while not stop.is_set():
            panel.step(0.01)
    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    return thread


def test_the_driver_never_sends_what_the_device_did_not_advertise(tmp_path: Path) -> None:
    device = RecordingDevice(37, Capability.LEDS)
    virtual = VirtualPanel(device, tmp_path / "panel")
    stop = threading.Event()
    thread = serve(virtual, stop)
    try:
        with Panel(str(tmp_path / "panel"), 37, timing=Timing(heartbeat_interval=0.1)) as panel:
            frame = LedFrame.blank(37, brightness=40).set(3, 2, Pattern.BLINK_FAST)
            panel.show(frame)
            assert panel.wait_shown(3)
            time.sleep(0.5)  # several heartbeat intervals
            assert panel.online
        assert device.frame == LedFrame.blank(37).set(3, 2)  # steady, full brightness
        assert MSG_PING not in {f.type for f in device.received}
    finally:
        stop.set()
        thread.join()
        virtual.close()


def test_button_events_and_heartbeats_with_the_full_model(tmp_path: Path) -> None:
    device = DeviceModel(100)
    virtual = VirtualPanel(device, tmp_path / "panel")
    stop = threading.Event()
    thread = serve(virtual, stop)
    try:
        with Panel(str(tmp_path / "panel"), 100, timing=Timing(heartbeat_interval=0.2)) as panel:
            assert panel.wait_online(3)
            device.button(2, True)
            device.button(2, False)
            time.sleep(0.5)
            events = panel.events()
            assert [(e.button, e.pressed) for e in events] == [(2, True), (2, False)]
            assert not device.dimmed(virtual.now_ms())  # the host's heartbeats keep it awake
    finally:
        stop.set()
        thread.join()
        virtual.close()


class Emulator:
    """``tacticblue panel emulate`` in a subprocess; its output lines arrive on a queue."""

    def __init__(self, link: Path) -> None:
        self.link = link
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tacticblue", "panel", "emulate", "--layout", "hex", "--link", str(link)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT, env=env)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(line) for line in self.process.stdout], daemon=True).start()

    def line(self) -> str:
        return self.lines.get(timeout=10).rstrip("\n")

    def drawing(self) -> list[str]:
        """The next frame the emulator draws (the 7 lines after "frame N")."""
        while not self.line().startswith("frame "):
            pass
        return [self.line() for _ in range(7)]


@pytest.fixture
def emulator(tmp_path: Path):
    emu = Emulator(tmp_path / "panel")
    header = emu.line()
    assert str(emu.link) in header and "37 LEDs" in header
    yield emu
    emu.process.send_signal(signal.SIGTERM)
    emu.process.wait(timeout=5)
    assert not emu.link.exists()


def test_a_panel_whose_port_cannot_be_opened_settles_without_waiting_and_says_why(tmp_path: Path) -> None:
    """A run that ends at once (a short replay) asks whether its panel could answer: at a
    path with nothing behind it the driver settles as soon as it tried it, with the reason,
    not after the handshake time, nor before it tried (which left the players no reason)."""
    began = time.monotonic()
    with Panel(str(tmp_path / "absent"), 37, timing=Timing(handshake_timeout=60)) as panel:
        assert not panel.wait_settled(60)
        assert time.monotonic() - began < 30 and "No such file or directory" in panel.last_problem


def test_emulate_never_replaces_a_file_that_is_no_link(cli, tmp_path: Path) -> None:
    """--link deleted whatever stood at the path (a record, a journal, a device node as root),
    put its link there and removed that on exit.  A stale link a previous run left is replaced."""
    record = tmp_path / "game.txt"
    record.write_text("1. b4:2-c5 e4:+e3\n")
    r = cli("panel", "emulate", "--link", record, timeout=20)
    one_line_error(r)
    assert f"{record} exists and is not a link" in r.stderr
    assert not record.is_symlink() and record.read_text() == "1. b4:2-c5 e4:+e3\n"
    stale = tmp_path / "panel"
    stale.symlink_to(tmp_path / "gone")
    emu = Emulator(stale)
    assert str(stale) in emu.line() and stale.resolve().is_char_device()
    emu.process.send_signal(signal.SIGTERM)
    assert emu.process.wait(timeout=5) == 0 and not stale.is_symlink()


def test_a_second_sigterm_while_the_emulator_leaves_changes_nothing(tmp_path: Path) -> None:
    """``timeout`` passes on the SIGTERM it is sent, so a process run under it and stopped by a
    supervisor gets two: the second, arriving while the first is closing the panel, used to
    kill the emulator by the signal (or print a traceback) instead of letting it leave."""
    emu = Emulator(tmp_path / "panel")
    emu.line()
    emu.process.send_signal(signal.SIGTERM)
    time.sleep(0.01)
    emu.process.send_signal(signal.SIGTERM)
    assert emu.process.wait(timeout=5) == 0
    assert not emu.link.exists()


def test_emulate_and_show_from_the_command_line(cli, emulator) -> None:
    link = emulator.link
    blank = emulator.drawing()
    assert all(set(line[3:]) <= {" ", "."} for line in blank)
    done = cli("panel", "show", "--led", str(link), "--game", "accasta", "--to-move", "b", "--last", "a1,b2",
               "--touched", "d4", "--targets", "e4,d5", "--json")
    assert done.returncode == 0, done.stderr
    assert '"shown": true' in done.stdout
    picture = dict(line.split(maxsplit=1) for line in emulator.drawing())
    assert picture["a"].split() == ["b", ".", ".", "."]        # came from a1 (dim blue)
    assert picture["b"].split() == [".", "B", ".", ".", "."]   # went to b2, Black to move
    assert picture["d"].split()[3:5] == ["C", "G"]             # touched d4, target d5
    assert picture["e"].split()[3] == "G"                      # target e4


def test_probe_reads_the_device(cli, emulator) -> None:
    link = emulator.link
    done = cli("panel", "probe", "--led", str(link), "--json")
    assert done.returncode == 0, done.stderr
    assert '"leds": 37' in done.stdout and '"HEARTBEAT"' in done.stdout


def test_show_errors_are_one_line(cli, emulator, tmp_path: Path) -> None:
    link = emulator.link
    done = cli("panel", "show", "--led", str(link), "--game", "accasta", "--last", "a1,z9")
    assert "z9" in one_line_error(done)
    done = cli("panel", "show", "--led", str(tmp_path / "nothing"), "--game", "accasta", "--last", "a1",
               "--timeout", "0.5")
    assert done.returncode == 1 and "did not confirm" in done.stderr
    done = cli("panel", "show", "--led", str(link), "--game", "accasta", "--led-layout", str(tmp_path / "no.json"))
    assert done.returncode == 2 and "no.json" in done.stderr
    done = cli("panel", "probe", "--led", str(tmp_path / "nothing"), "--timeout", "0.3")
    assert done.returncode == 1 and "no panel answered" in done.stderr


def test_a_device_that_stops_answering_goes_offline_and_comes_back(tmp_path: Path) -> None:
    """A hung device (no unplug, just silence): offline after the bounded retries, online
    again with the current frame once it answers."""
    device = DeviceModel(37)
    virtual = VirtualPanel(device, tmp_path / "panel")
    stop = threading.Event()
    thread = serve(virtual, stop)
    changes: list[str] = []
    try:
        with Panel(str(tmp_path / "panel"), 37, on_online=lambda info: changes.append("online"),
                   on_offline=lambda reason: changes.append(f"offline: {reason}")) as panel:
            frame = LedFrame.blank(37).set(5, 3)
            panel.show(frame)
            assert panel.wait_shown(3)
            stop.set()
            thread.join()  # the device hangs
            later = frame.set(6, 4)
            panel.show(later)
            deadline = time.monotonic() + 3
            while panel.online and time.monotonic() < deadline:
                time.sleep(0.01)
            assert not panel.online
            assert changes[1].startswith("offline: no reply after")
            stop.clear()
            thread = serve(virtual, stop)  # it recovers
            assert panel.wait_shown(4)
            assert device.frame == later and changes[-1] == "online"
    finally:
        stop.set()
        thread.join()
        virtual.close()


def test_selftest_without_the_tools_fails_clearly(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PATH": str(tmp_path)}  # no make, avr-gcc, cc
    done = subprocess.run([sys.executable, "-m", "tacticblue", "panel", "selftest"], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=60)
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 1
    assert lines[0].startswith("FAIL build:") and "gcc-avr avr-libc simavr" in lines[0]
    assert lines[-1] == "0 passed, 1 failed"


class DeafOnce(RecordingDevice):
    """Ignores the first LED frame it receives (as if the frame or its ACK was lost)."""

    def _handle(self, frame: Frame, now_ms: int) -> bytes:
        if frame.type == MSG_LEDS and not any(f.type == MSG_LEDS for f in self.received):
            self.received.append(frame)
            return b""
        return super()._handle(frame, now_ms)


def test_a_resend_carries_the_newest_frame(tmp_path: Path) -> None:
    device = DeafOnce(37, DeviceModel(37).info.capabilities)
    virtual = VirtualPanel(device, tmp_path / "panel")
    stop = threading.Event()
    thread = serve(virtual, stop)
    try:
        with Panel(str(tmp_path / "panel"), 37) as panel:
            assert panel.wait_online(3)
            first, newer = LedFrame.blank(37).set(0, 1), LedFrame.blank(37).set(1, 2)
            panel.show(first)
            time.sleep(0.1)  # sent, no answer yet
            panel.show(newer)
            assert panel.wait_shown(3)
        sent = [LedFrame.from_payload(f.payload) for f in device.received if f.type == MSG_LEDS]
        assert sent == [first, newer]
        assert device.frame == newer
    finally:
        stop.set()
        thread.join()
        virtual.close()


def test_replay_a_record_on_the_emulator(cli, emulator) -> None:
    link = emulator.link
    done = cli("panel", "replay", "samples/records/accasta.txt", "--game", "accasta", "--led", str(link),
               "--delay", "0")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 30 and lines[-1].split()[:2] == ["30.", "black"]
    lit = lines[-1].split("lit: ")[1].split(", ")
    drawing = []
    for _ in range(31):  # the blank frame, then one per turn
        drawing = emulator.drawing()
    shown = {f"{line[0]}{i + 1}": letter for line in drawing for i, letter in enumerate(line[3:].split())}
    assert {p for p, letter in shown.items() if letter != "."} == set(lit)
    assert shown[lit[-1]] == "W" and all(shown[p] == "w" for p in lit[:-1])  # White to move


def test_replay_needs_a_panel(cli, tmp_path: Path) -> None:
    done = cli("panel", "replay", "samples/records/accasta.txt", "--game", "accasta", "--led",
               str(tmp_path / "none"), "--timeout", "0.3")
    assert done.returncode == 1 and "no panel answered" in done.stderr


@pytest.mark.parametrize("command", [["show", "--game", "accasta", "--timeout", "nan"],
                                     ["probe", "--timeout", "inf"],
                                     ["replay", "samples/records/accasta.txt", "--game", "accasta", "--delay", "-1"],
                                     ["replay", "samples/records/accasta.txt", "--game", "accasta", "--delay", "nan"]])
def test_a_wait_that_is_no_time_is_a_one_line_error(cli, emulator, command) -> None:
    """'show --timeout nan' waited for ever; 'replay --delay -1' stopped after the first turn
    with the sleep's 'sleep length must be non-negative'."""
    done = cli("panel", *command, "--led", str(emulator.link), timeout=30)
    one_line_error(done)
    assert "must be a number of seconds, 0 or more" in done.stderr and done.stdout == ""


def test_show_with_no_panel_and_a_timeout_that_is_no_time_does_not_wait_for_ever(cli, tmp_path: Path) -> None:
    done = cli("panel", "show", "--game", "accasta", "--led", str(tmp_path / "none"), "--timeout", "nan", timeout=30)
    assert done.returncode == 2 and "--timeout: must be a number of seconds, 0 or more" in done.stderr


def test_a_device_that_restarts_gets_its_frame_back(tmp_path: Path) -> None:
    """A reset without unplugging (watchdog, DTR, brown-out): the BOOT notice makes the
    driver handshake again and resend the current frame."""
    virtual = VirtualPanel(DeviceModel(37), tmp_path / "panel")
    stop = threading.Event()
    thread = serve(virtual, stop)
    try:
        with Panel(str(tmp_path / "panel"), 37) as panel:
            frame = LedFrame.blank(37).set(9, 5)
            panel.show(frame)
            assert panel.wait_shown(3)
            stop.set()
            thread.join()
            virtual.device = DeviceModel(37)  # the board restarted: blank, and says so
            os.write(virtual.master, virtual.device.boot())
            stop.clear()
            thread = serve(virtual, stop)
            deadline = time.monotonic() + 2
            while virtual.device.frame != frame and time.monotonic() < deadline:
                time.sleep(0.01)
            assert virtual.device.frame == frame
            assert panel.stats["handshakes"] == 2 and panel.online
    finally:
        stop.set()
        thread.join()
        virtual.close()
