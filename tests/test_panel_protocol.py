"""The panel protocol codec: property tests, resynchronisation, and agreement with the firmware."""

from __future__ import annotations

import re
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hardware.emulator
from hardware import protocol
from hardware.protocol import (
    MAX_PAYLOAD, Decoder, DeviceInfo, Frame, LedFrame, cobs_decode, cobs_encode, crc16, decode, encode,
)
from tests.conftest import ROOT

frames = st.builds(Frame, seq=st.integers(0, 255), type=st.integers(0, 255),
                   payload=st.binary(max_size=MAX_PAYLOAD), version=st.integers(0, 255))


@given(st.binary(max_size=600))
def test_cobs_round_trip_has_no_zero(data: bytes) -> None:
    encoded = cobs_encode(data)
    assert 0 not in encoded
    assert cobs_decode(encoded) == data


@given(frames)
def test_any_frame_encodes_and_decodes_to_itself(frame: Frame) -> None:
    wire = encode(frame)
    assert wire.endswith(b"\x00") and 0 not in wire[:-1]
    assert decode(wire[:-1]) == frame
    assert Decoder().feed(wire) == [frame]


@given(st.lists(frames, max_size=5), st.lists(st.binary(max_size=80), max_size=6))
def test_decoder_resynchronises_after_garbage(sent: list[Frame], garbage: list[bytes]) -> None:
    """Garbage (ended by a delimiter, as the next frame's own leading 0x00 guarantees on the
    wire after a cut) never costs a following frame."""
    stream = b""
    for i, frame in enumerate(sent):
        if i < len(garbage):
            stream += garbage[i] + b"\x00"
        stream += encode(frame)
    got = Decoder().feed(stream)
    assert [f for f in got if f in sent] == sent


@settings(max_examples=400)
@given(st.binary(max_size=300))
def test_random_bytes_never_give_a_frame_with_a_wrong_crc(data: bytes) -> None:
    for packet in data.split(b"\x00"):
        try:
            frame = decode(packet)
        except ValueError:
            continue
        raw = cobs_decode(packet)
        assert struct.unpack(">H", raw[-2:])[0] == crc16(raw[:-2])
        assert encode(frame)[:-1] == cobs_encode(raw)


@given(frames, st.data())
def test_any_corrupted_byte_is_rejected(frame: Frame, data) -> None:
    """CRC-16 catches every error burst up to 16 bits: one changed byte is never accepted."""
    raw = bytearray(cobs_decode(encode(frame)[:-1]))
    i = data.draw(st.integers(0, len(raw) - 1))
    raw[i] ^= data.draw(st.integers(1, 255))
    assert Decoder().feed(cobs_encode(bytes(raw)) + b"\x00") == []


def test_crc_check_value() -> None:
    assert crc16(b"123456789") == 0x29B1  # the published CRC-16/CCITT-FALSE check value


def test_decoder_drops_overlong_packets_and_counts_them() -> None:
    decoder = Decoder()
    assert decoder.feed(b"\x01" * 1000 + b"\x00" + encode(Frame(1, 3))) == [Frame(1, 3)]
    assert decoder.rejected == 1


@given(st.lists(st.integers(0, 10), min_size=1, max_size=120), st.integers(0, 255), st.data())
def test_led_frame_payload_round_trip(colours: list[int], brightness: int, data) -> None:
    patterns = data.draw(st.lists(st.integers(0, 2), min_size=len(colours), max_size=len(colours)))
    frame = LedFrame(tuple(colours), tuple(patterns), brightness)
    assert LedFrame.from_payload(frame.to_payload()) == frame


def test_led_frame_rejects_values_outside_the_palette() -> None:
    with pytest.raises(ValueError):
        LedFrame((11,), (0,))
    with pytest.raises(ValueError):
        LedFrame((1,), (3,))


def test_device_info_round_trip() -> None:
    info = hardware.emulator.DeviceModel(37).info
    assert DeviceInfo.from_payload(info.to_payload()) == info
    with pytest.raises(ValueError):
        DeviceInfo.from_payload(b"\x01\x01")


def test_firmware_header_agrees_with_the_host() -> None:
    """hardware/firmware/protocol.h and hardware/protocol.py must hold the same numbers."""
    header = (ROOT / "hardware" / "firmware" / "protocol.h").read_text()
    defines = dict(re.findall(r"#define TB_(\w+) ([0-9x]+)\b", header))
    assert defines, "no #defines found"
    for name, value in defines.items():
        if name.startswith("CAP_"):
            host = protocol.Capability[name[4:]].value
        elif name.startswith("STATUS_"):
            host = protocol.Status[name[7:]].value
        elif name.startswith("PATTERN_") and name != "PATTERN_COUNT":
            host = protocol.Pattern[name[8:]].value
        elif name == "PATTERN_COUNT":
            host = len(protocol.Pattern)
        elif name == "PALETTE_SIZE":
            host = len(protocol.PALETTE_RGB)
        elif name in ("FIRMWARE_MAJOR", "FIRMWARE_MINOR"):
            host = hardware.emulator.FIRMWARE_VERSION[name == "FIRMWARE_MINOR"]
        else:
            host = getattr(protocol, name)
        assert int(value, 0) == host, name
    palette = re.search(r"TB_PALETTE_RGB \{([^}]*)\}", header, re.S)
    assert palette is not None
    numbers = [int(v) for v in re.findall(r"\d+", palette.group(1))]
    assert numbers == [v for rgb in protocol.PALETTE_RGB for v in rgb]
