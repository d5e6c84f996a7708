"""A virtual panel on a pty, drawn in the terminal, for people without the hardware.

``tacticblue panel emulate`` runs :func:`emulate`: it creates a pty, prints its path,
answers the protocol exactly as the firmware does (:class:`DeviceModel`, a Python twin of
``hardware/firmware/panel.c`` written from the same PROTOCOL.md) and draws the LEDs in
their board layout.  Typing a button number (1, 2, 3) and Enter presses and releases
that button.  The companion's ``--led PATH`` then uses it like a real panel.

When stdout is not a terminal each new LED frame is printed as a plain text drawing, one
letter per LED (see :data:`LETTERS`), after a line ``frame N``.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import time
import tty
from pathlib import Path
from typing import TextIO

from hardware.layout import PANEL_BOARDS, LedLayout
from hardware.protocol import (
    EVENT_RETRY_MS, EVENT_TRIES, HEARTBEAT_MS, HOST_SILENCE_MS, MAX_PAYLOAD, MSG_ACK, MSG_BOOT,
    MSG_BUTTON, MSG_EVENT_ACK, MSG_HEARTBEAT, MSG_HELLO, MSG_HELLO_REPLY, MSG_LEDS, MSG_PING, PALETTE_RGB,
    PROTOCOL_VERSION, ButtonEvent, Capability, Decoder, DeviceInfo, Frame, LedFrame, Pattern, Status, encode,
)

FIRMWARE_VERSION = (1, 0)
LETTERS = ".WRGBYCMOwb"
"""One letter per palette colour, for plain drawings: off, white, red, green, blue, yellow,
cyan, magenta, orange, dim white, dim blue."""


class DeviceModel:
    """The panel's side of the protocol, without hardware; time is passed in (ms)."""

    def __init__(self, leds: int, buttons: int = 3) -> None:
        self.info = DeviceInfo(PROTOCOL_VERSION, FIRMWARE_VERSION, leds, buttons,
                               Capability.LEDS | Capability.BUTTONS | Capability.BLINK | Capability.HEARTBEAT
                               | Capability.DIM_ON_SILENCE | Capability.BRIGHTNESS | Capability.BOOT_NOTICE,
                               len(PALETTE_RGB), len(Pattern), MAX_PAYLOAD)
        self.frame = LedFrame.blank(leds)
        self.frames_received = 0
        self.decoder = Decoder()
        self.host_seen_ms = 0
        self.last_heartbeat_ms = 0
        self.seq = 0
        self.events: list[tuple[int, ButtonEvent]] = []
        self.event_tries = 0
        self.event_sent_ms = 0

    def _frame(self, type: int, payload: bytes = b"", seq: int | None = None) -> bytes:
        if seq is None:
            seq, self.seq = self.seq, (self.seq + 1) % 256
        return encode(Frame(seq, type, payload))

    def boot(self) -> bytes:
        return self._frame(MSG_BOOT)

    def dimmed(self, now_ms: int) -> bool:
        return now_ms - self.host_seen_ms >= HOST_SILENCE_MS

    def button(self, button: int, pressed: bool) -> None:
        """A debounced button change (the firmware debounces for DEBOUNCE_MS first)."""
        if len(self.events) < 8:
            self.events.append((self.seq, ButtonEvent(button, pressed)))
            self.seq = (self.seq + 1) % 256

    def receive(self, data: bytes, now_ms: int) -> bytes:
        """Bytes from the host in, reply bytes out."""
        out = b""
        for frame in self.decoder.feed(data):
            out += self._handle(frame, now_ms)
        return out

    def _handle(self, frame: Frame, now_ms: int) -> bytes:
        if frame.version != PROTOCOL_VERSION and frame.type != MSG_HELLO:
            return b""
        self.host_seen_ms = now_ms
        if frame.type == MSG_HELLO:
            return self._frame(MSG_HELLO_REPLY, self.info.to_payload(), frame.seq)
        if frame.type == MSG_LEDS:
            if len(frame.payload) != 1 + self.info.leds:
                return self._ack(frame.seq, Status.BAD_LENGTH)
            try:
                self.frame = LedFrame.from_payload(frame.payload)
            except ValueError:
                return self._ack(frame.seq, Status.BAD_VALUE)
            self.frames_received += 1
            return self._ack(frame.seq, Status.OK)
        if frame.type == MSG_PING:
            return self._ack(frame.seq, Status.OK if not frame.payload else Status.BAD_LENGTH)
        if frame.type == MSG_EVENT_ACK:
            if self.events and self.event_tries and self.events[0][0] == frame.seq:
                self.events.pop(0)
                self.event_tries = 0
            return b""
        return self._ack(frame.seq, Status.UNKNOWN_TYPE)

    def _ack(self, seq: int, status: Status) -> bytes:
        return self._frame(MSG_ACK, bytes([status]), seq)

    def tick(self, now_ms: int) -> bytes:
        """What the device sends on its own by ``now_ms``: heartbeats, button events."""
        out = b""
        if now_ms - self.last_heartbeat_ms >= HEARTBEAT_MS:
            self.last_heartbeat_ms = now_ms
            out += self._frame(MSG_HEARTBEAT, now_ms.to_bytes(4, "big") + bytes([self.dimmed(now_ms)]))
        if self.events and (not self.event_tries or now_ms - self.event_sent_ms >= EVENT_RETRY_MS):
            if self.event_tries == EVENT_TRIES:
                self.events.pop(0)
                self.event_tries = 0
            else:
                seq, event = self.events[0]
                out += self._frame(MSG_BUTTON, event.to_payload(), seq)
                self.event_tries += 1
                self.event_sent_ms = now_ms
        return out


def draw(layout: LedLayout, frame: LedFrame, now_ms: int | None = None, dimmed: bool = False,
         colour: bool = True) -> str:
    """The panel as text: LEDs placed like the board's points, White's edge at the bottom.

    ``colour``: ANSI 24-bit colour dots (blinking and dimming applied at ``now_ms``);
    otherwise one letter per LED from :data:`LETTERS`.

    >>> layout = LedLayout.default("hex")
    >>> print(draw(layout, LedFrame.blank(37).set(0, 2).set(36, 4), colour=False))
    g        .   .   .   B
    f      .   .   .   .   .
    e    .   .   .   .   .   .
    d  .   .   .   .   .   .   .
    c    .   .   .   .   .   .
    b      .   .   .   .   .
    a        R   .   .   .
    """
    geometry = PANEL_BOARDS[layout.board]()
    rows: dict[int, dict[int, int]] = {}
    for led, name in enumerate(layout.chain):
        x, y = geometry.lattice[geometry.index(name)]
        rows.setdefault(y, {})[x] = led
    min_x = min(x for row in rows.values() for x in row)
    unit = 1 if layout.board == "hex" else 2  # lattice units between drawn columns
    rgb = frame.rgb(now_ms, dimmed)

    def dot(led: int) -> str:
        if not colour:
            return LETTERS[frame.colours[led]]
        r, g, b = rgb[led]
        return f"\x1b[38;2;{r};{g};{b}m●\x1b[0m" if (r, g, b) != (0, 0, 0) else "·"

    lines = []
    for y in sorted(rows, reverse=True):
        leftmost = layout.chain[rows[y][min(rows[y])]]
        label = leftmost[0] if layout.board == "hex" else leftmost[1:]
        cells = [" "] * (2 * (max(rows[y]) - min_x) // unit + 1)
        for x, led in rows[y].items():
            cells[2 * (x - min_x) // unit] = dot(led)
        lines.append(f"{label:<3}" + "".join(cells).rstrip())
    if layout.turn_leds:
        lines.append("turn: " + "  ".join(f"{side} {dot(led)}" for side, led in sorted(layout.turn_leds.items())))
    return "\n".join(lines)


class VirtualPanel:
    """A :class:`DeviceModel` answering on a raw pty (and optionally a symlink to it)."""

    def __init__(self, device: DeviceModel, link: Path | None = None) -> None:
        if link is not None and link.exists() and not link.is_symlink():
            # Only a link (a stale one of an earlier run) is replaced: the path may be a typo for
            # a record, a journal or, as root, a device node, which unlinking would delete.
            raise ValueError(f"{link} exists and is not a link: give --link a path that is free")
        self.device = device
        self.link = link
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)
        if link is not None:
            link.unlink(missing_ok=True)
            link.symlink_to(self.path)
        self.start = time.monotonic()
        os.write(self.master, device.boot())

    def now_ms(self) -> int:
        return int((time.monotonic() - self.start) * 1000)

    def step(self, timeout: float, also: list[TextIO] | None = None) -> list[TextIO]:
        """Answer what the host sent within ``timeout`` s and send what is due; returns the
        ones of ``also`` that are ready to read."""
        waiting: list[int | TextIO] = [self.master, *(also or [])]
        ready, _, _ = select.select(waiting, [], [], timeout)
        if self.master in ready:
            os.write(self.master, self.device.receive(os.read(self.master, 4096), self.now_ms()))
        os.write(self.master, self.device.tick(self.now_ms()))
        return [r for r in ready if not isinstance(r, int)]

    def close(self) -> None:
        os.close(self.master)
        os.close(self.slave)
        if self.link is not None:
            self.link.unlink(missing_ok=True)


def _stop(*_: object) -> None:
    """SIGTERM: leave as Ctrl-C does, closing the pty and its link; a second SIGTERM while
    leaving (a supervisor's and ``timeout``'s both) must not cut that short."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    sys.exit(0)


def emulate(layout: LedLayout, link: Path | None, out: TextIO, buttons: int = 3,
            stdin: TextIO | None = None) -> int:
    """Run a virtual panel until interrupted (SIGINT or SIGTERM)."""
    device = DeviceModel(layout.count, buttons)
    panel = VirtualPanel(device, link)
    interactive = out.isatty()
    drawn: tuple[object, ...] = ()
    inputs = [stdin] if stdin is not None else []
    signal.signal(signal.SIGTERM, _stop)  # before the first line, which tells a supervisor the panel is up
    try:
        print(f"panel emulator ({layout.board}, {layout.count} LEDs) on {link or panel.path}"
              + (f" -> {panel.path}" if link else ""), file=out, flush=True)
        while True:
            for source in panel.step(0.02, inputs):
                line = source.readline()
                if not line:  # end of input: keep running without it
                    inputs = []
                elif line.strip().isdigit() and 1 <= int(line) <= buttons:
                    device.button(int(line) - 1, True)
                    device.button(int(line) - 1, False)
            now_ms = panel.now_ms()
            dimmed = device.dimmed(now_ms)
            if interactive:
                state: tuple[object, ...] = (device.frame, dimmed, tuple(device.frame.rgb(now_ms, dimmed)))
                if state != drawn:
                    picture = draw(layout, device.frame, now_ms, dimmed)
                    out.write("\x1b[H\x1b[J" + f"panel on {link or panel.path}  (type 1-{buttons} + Enter to "
                              f"press a button)\n\n{picture}\n")
                    out.flush()
            else:
                state = (device.frames_received,)
                if state != drawn:
                    out.write(f"frame {device.frames_received}\n{draw(layout, device.frame, colour=False)}\n")
                    out.flush()
            drawn = state
    finally:
        panel.close()
