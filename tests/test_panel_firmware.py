"""The real firmware ELF in simavr behind a pty, driven by the real host driver.

Needs the Debian packages gcc-avr avr-libc simavr libsimavr-dev libelf-dev
(tools/apt-packages.txt; setup.sh installs them).  What the panel shows is decoded from
the simulated WS2812 data pin.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hardware import selftest
from hardware.simulator import SimTools, build

pytestmark = pytest.mark.skipif(shutil.which("avr-gcc") is None or shutil.which("simavr") is None,
                                reason="needs gcc-avr, avr-libc, simavr, libsimavr-dev (tools/apt-packages.txt)")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[int, SimTools]:
    directory = tmp_path_factory.mktemp("panel-build")
    return {leds: build(directory, leds) for leds in (37, 100)}


@pytest.fixture
def link(tmp_path: Path) -> Path:
    return tmp_path / "panel"


def test_handshake(built, link) -> None:
    assert "37 LEDs, 3 buttons" in selftest.check_handshake(built[37], link)


@pytest.mark.parametrize("leds", [37, 100])
def test_a_full_led_frame_reaches_the_chain(built, link, leds) -> None:
    assert f"{leds} LEDs shown as sent" in selftest.check_full_frame(built[leds], link)


def test_blinking_is_done_by_the_firmware(built, link) -> None:
    selftest.check_blink(built[37], link)


def test_button_events_reach_the_host_once_each(built, link) -> None:
    selftest.check_buttons(built[37], link, rounds=3)


@pytest.mark.slow
def test_a_thousand_frames_without_a_lost_or_corrupted_one(built, link) -> None:
    assert "1000 frames shown exactly, 0 retries" in selftest.check_frames(built[37], link, 1000)


def test_frames_on_the_100_led_firmware(built, link) -> None:
    selftest.check_frames(built[100], link, 100)


@pytest.mark.parametrize("seed", [11, 12])
def test_garbage_both_ways_gives_no_wrong_led_and_no_hang(built, link, seed) -> None:
    selftest.check_garbage(built[37], link, bursts=30, seed=seed)


def test_unplug_and_replug_shows_the_current_frame_within_two_seconds(built, link) -> None:
    selftest.check_unplug(built[37], link)


def test_the_firmware_dims_when_the_host_goes_silent(built, link) -> None:
    selftest.check_dim(built[37], link)


def test_the_device_refuses_a_frame_of_the_wrong_size(built, link) -> None:
    """A host that ignores the advertised LED count gets BAD_LENGTH and the chain is unchanged."""
    import time

    from hardware.driver import open_port
    from hardware.protocol import MSG_ACK, MSG_LEDS, Decoder, Frame, LedFrame, Status, encode
    from hardware.simulator import SimulatedPanel

    with SimulatedPanel(built[37], link) as sim:
        port = open_port(str(link))
        try:
            port.write(encode(Frame(5, MSG_LEDS, LedFrame.blank(36).set(0, 1).to_payload())))
            decoder, acks = Decoder(), []
            deadline = time.monotonic() + 2
            while not acks and time.monotonic() < deadline:
                acks = [f for f in decoder.feed(port.read(256)) if f.type == MSG_ACK]
            assert acks and acks[0].seq == 5 and acks[0].payload == bytes([Status.BAD_LENGTH])
            assert all(rgb == (0, 0, 0) for rgb in sim.current() or ())
        finally:
            port.close()


def test_selftest_command(cli, built) -> None:
    done = cli("panel", "selftest", "--frames", "20", "--build-dir", str(built[37].firmware.parent))
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 0, done.stdout + done.stderr
    assert lines[-1] == f"{len(lines) - 1} passed, 0 failed"
    assert all(line.startswith("ok   ") for line in lines[:-1])
    assert any("unplug" in line for line in lines) and any("garbage" in line for line in lines)
