"""The LED panel's wire protocol: frames, COBS, CRC-16 and the message payloads.

Pure functions and small value types, no I/O; hardware/PROTOCOL.md is the prose
description and hardware/firmware/protocol.h holds the same numbers for the firmware.

A frame is ``version, seq, type, length, payload[length], crc16`` (CRC-16/CCITT-FALSE,
big endian, over everything before it), COBS-encoded and terminated by one ``0x00``;
a receiver that sees garbage simply waits for the next ``0x00``.

>>> f = Frame(seq=7, type=MSG_PING)
>>> wire = encode(f)
>>> wire[-1], 0 in wire[:-1]
(0, False)
>>> Decoder().feed(b"\\x13\\x37garbage\\x00" + wire)
[Frame(seq=7, type=3, payload=b'', version=1)]
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum, IntFlag

PROTOCOL_VERSION = 1
HEADER_SIZE = 4
CRC_SIZE = 2
MAX_PAYLOAD = 250

# Host to device; every command is answered by ACK (HELLO by HELLO_REPLY) with its seq.
MSG_HELLO = 0x01
MSG_LEDS = 0x02
MSG_PING = 0x03
MSG_EVENT_ACK = 0x04
# Device to host.
MSG_ACK = 0x80
MSG_HELLO_REPLY = 0x81
MSG_BUTTON = 0x82
MSG_HEARTBEAT = 0x83
MSG_BOOT = 0x84

HEARTBEAT_MS = 1000
HOST_SILENCE_MS = 3000
EVENT_RETRY_MS = 100
EVENT_TRIES = 10
DEBOUNCE_MS = 20
DIM_SHIFT = 3


class Status(IntEnum):
    """The status byte of an ACK."""

    OK = 0
    BAD_LENGTH = 1
    UNKNOWN_TYPE = 2
    BAD_VALUE = 3


class Capability(IntFlag):
    """What a device can do, advertised in its HELLO_REPLY."""

    LEDS = 0x0001
    BUTTONS = 0x0002
    BLINK = 0x0004
    HEARTBEAT = 0x0008
    DIM_ON_SILENCE = 0x0010
    BRIGHTNESS = 0x0020
    BOOT_NOTICE = 0x0040


class Colour(IntEnum):
    """Palette indices (the low nibble of an LED code)."""

    OFF = 0
    WHITE = 1
    RED = 2
    GREEN = 3
    BLUE = 4
    YELLOW = 5
    CYAN = 6
    MAGENTA = 7
    ORANGE = 8
    DIM_WHITE = 9
    DIM_BLUE = 10


PALETTE_RGB: tuple[tuple[int, int, int], ...] = (
    (0, 0, 0), (255, 255, 255), (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 180, 0),
    (0, 255, 255), (255, 0, 255), (255, 80, 0), (40, 40, 40), (0, 0, 48),
)
"""Colour -> (R, G, B) at full brightness, as the firmware's palette."""


class Pattern(IntEnum):
    """How an LED is lit (the high nibble of an LED code)."""

    STEADY = 0
    BLINK_SLOW = 1
    """500 ms on, 500 ms off."""
    BLINK_FAST = 2
    """125 ms on, 125 ms off."""


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor).

    >>> hex(crc16(b"123456789"))
    '0x29b1'
    """
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
        crc &= 0xFFFF
    return crc


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: the result has no zero byte.

    >>> cobs_encode(b"\\x11\\x00\\x22")
    b'\\x02\\x11\\x02"'
    """
    out = bytearray()
    block = bytearray()
    for byte in data:
        if byte == 0:
            out += bytes([len(block) + 1]) + block
            block.clear()
        else:
            block.append(byte)
            if len(block) == 254:
                out += b"\xff" + block
                block.clear()
    out += bytes([len(block) + 1]) + block
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Inverse of :func:`cobs_encode`; ``ValueError`` on malformed input."""
    out = bytearray()
    i = 0
    while i < len(data):
        code = data[i]
        if code == 0 or i + code > len(data):
            raise ValueError("malformed COBS block")
        out += data[i + 1:i + code]
        i += code
        if code < 0xFF and i < len(data):
            out.append(0)
    return bytes(out)


@dataclass(frozen=True)
class Frame:
    """One protocol frame (before COBS)."""

    seq: int
    type: int
    payload: bytes = b""
    version: int = PROTOCOL_VERSION

    def __post_init__(self) -> None:
        for name in ("seq", "type", "version"):
            if not 0 <= getattr(self, name) <= 255:
                raise ValueError(f"frame {name} must be 0..255")
        if len(self.payload) > MAX_PAYLOAD:
            raise ValueError(f"frame payload is longer than {MAX_PAYLOAD} bytes")


def encode(frame: Frame) -> bytes:
    """The bytes to put on the wire for ``frame``, ending in the 0x00 delimiter."""
    body = bytes([frame.version, frame.seq, frame.type, len(frame.payload)]) + frame.payload
    return cobs_encode(body + struct.pack(">H", crc16(body))) + b"\x00"


def decode(packet: bytes) -> Frame:
    """Decode one packet (without its 0x00); ``ValueError`` unless length and CRC check."""
    raw = cobs_decode(packet)
    if len(raw) < HEADER_SIZE + CRC_SIZE or len(raw) != HEADER_SIZE + raw[3] + CRC_SIZE:
        raise ValueError("frame length does not match its header")
    if crc16(raw[:-CRC_SIZE]) != struct.unpack(">H", raw[-CRC_SIZE:])[0]:
        raise ValueError("frame CRC mismatch")
    return Frame(seq=raw[1], type=raw[2], payload=raw[HEADER_SIZE:-CRC_SIZE], version=raw[0])


class Decoder:
    """Incremental receiver: feed it bytes as they come, get the valid frames back.

    Anything that does not decode (garbage, a frame cut by an unplug, a CRC error) is
    dropped and counted in :attr:`rejected`; the next 0x00 resynchronises."""

    MAX_PACKET = HEADER_SIZE + MAX_PAYLOAD + CRC_SIZE + 2

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._overflow = False
        self.rejected = 0

    def feed(self, data: bytes) -> list[Frame]:
        frames: list[Frame] = []
        for byte in data:
            if byte:
                if len(self._buffer) < self.MAX_PACKET:
                    self._buffer.append(byte)
                else:
                    self._overflow = True
                continue
            if self._buffer or self._overflow:
                try:
                    if self._overflow:
                        raise ValueError("packet too long")
                    frames.append(decode(bytes(self._buffer)))
                except ValueError:
                    self.rejected += 1
            self._buffer.clear()
            self._overflow = False
        return frames


# ---- payloads ---------------------------------------------------------------------


@dataclass(frozen=True)
class DeviceInfo:
    """What a device said about itself in its HELLO_REPLY."""

    protocol: int
    firmware: tuple[int, int]
    leds: int
    buttons: int
    capabilities: Capability
    palette_size: int
    patterns: int
    max_payload: int

    FORMAT = ">BBBHBHBBB"

    def to_payload(self) -> bytes:
        return struct.pack(self.FORMAT, self.protocol, *self.firmware, self.leds, self.buttons,
                           int(self.capabilities), self.palette_size, self.patterns, self.max_payload)

    @classmethod
    def from_payload(cls, payload: bytes) -> "DeviceInfo":
        """Parse a HELLO_REPLY payload; ``ValueError`` if it is too short."""
        size = struct.calcsize(cls.FORMAT)
        if len(payload) < size:
            raise ValueError("HELLO_REPLY payload too short")
        p, major, minor, leds, buttons, caps, palette, patterns, max_payload = struct.unpack(
            cls.FORMAT, payload[:size])
        return cls(p, (major, minor), leds, buttons, Capability(caps), palette, patterns, max_payload)

    def to_json(self) -> dict[str, object]:
        return {
            "protocol": self.protocol, "firmware": f"{self.firmware[0]}.{self.firmware[1]}",
            "leds": self.leds, "buttons": self.buttons, "palette_size": self.palette_size,
            "patterns": self.patterns, "max_payload": self.max_payload,
            "capabilities": sorted(c.name for c in Capability if c in self.capabilities and c.name),
        }


@dataclass(frozen=True)
class LedFrame:
    """The whole panel at once: a brightness and one (colour, pattern) per LED.

    Idempotent: sending it twice shows the same thing, so a lost ACK is safely resent.

    >>> LedFrame.blank(3).set(1, Colour.RED, Pattern.BLINK_FAST).to_payload().hex()
    'ff002200'
    """

    colours: tuple[int, ...]
    patterns: tuple[int, ...]
    brightness: int = 255

    def __post_init__(self) -> None:
        if len(self.colours) != len(self.patterns):
            raise ValueError("one pattern per LED")
        if not 0 <= self.brightness <= 255:
            raise ValueError("brightness must be 0..255")
        if any(not 0 <= c < len(PALETTE_RGB) for c in self.colours):
            raise ValueError("colour outside the palette")
        if any(not 0 <= p < len(Pattern) for p in self.patterns):
            raise ValueError("unknown pattern")

    @classmethod
    def blank(cls, leds: int, brightness: int = 255) -> "LedFrame":
        return cls((0,) * leds, (0,) * leds, brightness)

    def __len__(self) -> int:
        return len(self.colours)

    def set(self, index: int, colour: int, pattern: int = Pattern.STEADY) -> "LedFrame":
        """A copy with LED ``index`` changed."""
        colours, patterns = list(self.colours), list(self.patterns)
        colours[index], patterns[index] = int(colour), int(pattern)
        return LedFrame(tuple(colours), tuple(patterns), self.brightness)

    def to_payload(self) -> bytes:
        return bytes([self.brightness]) + bytes((p << 4) | c for c, p in zip(self.colours, self.patterns))

    @classmethod
    def from_payload(cls, payload: bytes) -> "LedFrame":
        if not payload:
            raise ValueError("LEDS payload is empty")
        return cls(tuple(b & 0x0F for b in payload[1:]), tuple(b >> 4 for b in payload[1:]), payload[0])

    def steady(self) -> "LedFrame":
        """The same frame without blinking (for a device without the BLINK capability)."""
        return LedFrame(self.colours, (0,) * len(self), self.brightness)

    def rgb(self, t_ms: int | None = None, dimmed: bool = False) -> list[tuple[int, int, int]]:
        """What each LED emits, as the firmware computes it, at time ``t_ms`` (ms since the
        device started; None: blinking LEDs shown lit) and optionally dimmed for silence."""
        level = self.brightness >> DIM_SHIFT if dimmed else self.brightness
        out = []
        for colour, pattern in zip(self.colours, self.patterns):
            on = t_ms is None or pattern_on(pattern, t_ms)
            out.append(tuple(((v * (level + 1)) >> 8) if on else 0 for v in PALETTE_RGB[colour]))
        return out  # type: ignore[return-value]


def pattern_on(pattern: int, t_ms: int) -> bool:
    """Whether an LED with ``pattern`` is lit at ``t_ms``."""
    if pattern == Pattern.BLINK_SLOW:
        return (t_ms // 500) % 2 == 0
    if pattern == Pattern.BLINK_FAST:
        return (t_ms // 125) % 2 == 0
    return True


@dataclass(frozen=True)
class ButtonEvent:
    """A button pressed (``pressed=True``) or released on the panel."""

    button: int
    pressed: bool

    def to_payload(self) -> bytes:
        return bytes([self.button, 1 if self.pressed else 0])

    @classmethod
    def from_payload(cls, payload: bytes) -> "ButtonEvent":
        if len(payload) != 2:
            raise ValueError("BUTTON payload must be 2 bytes")
        return cls(payload[0], bool(payload[1]))
