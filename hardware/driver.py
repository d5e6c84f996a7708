"""Host driver for the serial LED panel (pyserial), built to survive real USB serial.

Use from the live companion (or any loop that must never wait on the panel)::

    from hardware.driver import Panel
    from hardware.protocol import LedFrame

    with Panel("/dev/ttyUSB0", leds=37, on_online=..., on_offline=...) as panel:
        panel.show(frame)            # returns at once; the latest frame wins
        for event in panel.events():  # ButtonEvents since the last call, never blocks
            ...
        panel.online                  # True while a handshaken device answers

For a game, :class:`hardware.panel.GamePanel` wraps this with the point -> LED layout and
shows :class:`hardware.view.PanelView` s.  ``Panel(None, ...)`` scans the USB serial ports
for a panel.  Until the first ``show`` the panel keeps whatever it shows.  One background
thread owns the port and does everything else:

* opens it without asserting DTR/RTS where the platform allows (many Arduino boards reset
  when DTR rises; Linux raises it on the first open regardless, so a reset can still
  happen: the handshake waits it out, and a BOOT notice from the device triggers a new
  handshake), and clears HUPCL so that a reconnect does not reset the board again;
* handshakes (HELLO), checks the protocol version and that the device has enough LEDs,
  and never sends a command the device did not advertise (no PING without HEARTBEAT,
  blinking turned steady without BLINK, full brightness without BRIGHTNESS);
* sends the LED frame at most once per ``Timing.min_interval`` (50 ms) and always the newest
  one, waits for its ACK, and resends a bounded number of times;
* sends a heartbeat (PING) when it has had nothing to say for a second, acknowledges
  button events and drops their duplicates (a lost EVENT_ACK makes the device resend);
* when the device disappears (unplug, read error, no reply after the retries, no frame
  for ``Timing.silence_timeout``) it reports offline, closes the port, rescans every
  ``Timing.rescan_interval`` until a panel answers a handshake again, reports online and
  resends the current frame.

``on_online(info)`` and ``on_offline(reason)`` run on the driver thread: keep them short.
"""

from __future__ import annotations

import collections
import itertools
import os
import select
import termios
import threading
import time
from dataclasses import dataclass
from typing import Callable

import serial
import serial.tools.list_ports

from hardware.protocol import (
    MSG_ACK, MSG_BOOT, MSG_BUTTON, MSG_EVENT_ACK, MSG_HELLO, MSG_HELLO_REPLY, MSG_LEDS, MSG_PING,
    PROTOCOL_VERSION, ButtonEvent, Capability, Decoder, DeviceInfo, Frame, LedFrame, Status, encode,
)

BAUDRATE = 115200


class DeviceLost(Exception):
    """The device stopped answering; the driver goes offline and reconnects."""


def candidate_ports() -> list[str]:
    """USB serial ports that could be a panel, most likely first (Arduino, CH340, FTDI, CP210x)."""
    ports = [p for p in serial.tools.list_ports.comports() if p.vid is not None]
    return [p.device for p in sorted(ports, key=lambda p: p.device)]


def open_port(path: str, baudrate: int = BAUDRATE) -> serial.Serial:
    """Open ``path`` raw and non-blocking, with DTR and RTS low to avoid resetting the board."""
    port = serial.Serial()
    port.port = path
    port.baudrate = baudrate
    port.timeout = 0  # reads never block: the driver waits in select() instead
    port.write_timeout = 1.0
    port.dtr = False
    port.rts = False
    port.open()
    try:  # keep DTR up when we close, so that reopening (a reconnect) does not reset the board
        attrs = termios.tcgetattr(port.fileno())
        attrs[2] &= ~termios.HUPCL
        termios.tcsetattr(port.fileno(), termios.TCSANOW, attrs)
    except termios.error:
        pass
    port.reset_input_buffer()
    return port


@dataclass(frozen=True)
class Timing:
    """The driver's timing in seconds; the defaults are those of PROTOCOL.md."""

    min_interval: float = 0.05
    """Shortest time between two LED frames."""
    ack_timeout: float = 0.2
    """Wait this long for an answer before resending a command."""
    retries: int = 3
    """Resend a command at most this many times, then consider the device gone."""
    handshake_timeout: float = 2.5
    """Keep saying HELLO this long after opening (a board that reset on open is booting)."""
    heartbeat_interval: float = 1.0
    """PING when nothing was sent for this long."""
    silence_timeout: float = 3.5
    """A device that heartbeats and said nothing for this long is gone."""
    rescan_interval: float = 0.2
    """Try to reconnect this often while offline."""


class Panel:
    """A serial LED panel, kept connected by a background thread; see the module docstring."""

    def __init__(self, port: str | None, leds: int, *,
                 on_online: Callable[[DeviceInfo], None] | None = None,
                 on_offline: Callable[[str], None] | None = None,
                 baudrate: int = BAUDRATE, timing: Timing = Timing()) -> None:
        self.port_name = port
        self.leds = leds
        self.on_online = on_online
        self.on_offline = on_offline
        self.baudrate = baudrate
        self.timing = timing

        self.device: DeviceInfo | None = None
        self.connected_port: str | None = None
        self.last_problem = ""
        self.stats = collections.Counter[str]()
        self._connecting = False
        self._tried = threading.Event()  # every port was tried once

        self._lock = threading.Lock()
        self._wake_r, self._wake_w = os.pipe()  # show() and close() interrupt the driver's wait
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._stop = threading.Event()
        self._frame: LedFrame | None = None  # nothing to show yet: the panel keeps what it shows
        self._frame_version = 0
        self._shown_version = -1
        self._shown = threading.Condition(self._lock)
        self._events: collections.deque[ButtonEvent] = collections.deque(maxlen=256)
        self._seq = itertools.count()
        self._thread = threading.Thread(target=self._run, name="led-panel", daemon=True)
        self._thread.start()

    # ---- the API the companion uses (never blocks) ----

    @property
    def online(self) -> bool:
        return self.device is not None

    @property
    def connecting(self) -> bool:
        """Whether a port is open and its device not yet handshaken: an answer may be moments away."""
        return self._connecting

    def show(self, frame: LedFrame) -> None:
        """Make ``frame`` the one to show; the driver sends it (or a newer one) soon."""
        if len(frame) != self.leds:
            raise ValueError(f"this panel has {self.leds} LEDs, the frame has {len(frame)}")
        with self._lock:
            if frame != self._frame:
                self._frame = frame
                self._frame_version += 1
        self._wake()

    def events(self) -> list[ButtonEvent]:
        """The button events received since the last call, oldest first."""
        out = []
        while self._events:
            out.append(self._events.popleft())
        return out

    def wait_online(self, timeout: float) -> bool:
        """Wait until a device is handshaken (for tools and tests); whether it is."""
        return self._wait_online_or(lambda: False, timeout)

    def wait_settled(self, timeout: float) -> bool:
        """Wait until a device is handshaken, or every port was tried once and none is being
        handshaken (an answer is not moments away); whether one is online.  For a run that
        ends before its panel could answer: its port may not even have been opened yet."""
        return self._wait_online_or(lambda: self._tried.is_set() and not self.connecting, timeout)

    def _wait_online_or(self, settled: Callable[[], bool], timeout: float) -> bool:
        """Wait up to ``timeout`` until a device is handshaken or ``settled()``; whether one is online."""
        deadline = time.monotonic() + timeout
        while not (self.online or settled()) and time.monotonic() < deadline:
            time.sleep(0.01)
        return self.online

    def wait_shown(self, timeout: float) -> bool:
        """Wait until the device acknowledged the newest frame (for tools and tests)."""
        with self._shown:
            return self._shown.wait_for(lambda: self._shown_version == self._frame_version and self.online,
                                        timeout)

    def _wake(self) -> None:
        try:
            os.write(self._wake_w, b"!")
        except BlockingIOError:  # already woken
            pass

    def close(self) -> None:
        self._stop.set()
        self._wake()
        self._thread.join(timeout=self.timing.handshake_timeout + 1)
        if not self._thread.is_alive():
            os.close(self._wake_r)
            os.close(self._wake_w)

    def __enter__(self) -> "Panel":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- the driver thread ----

    def _run(self) -> None:
        while not self._stop.is_set():
            link = self._connect()
            self._tried.set()
            if link is None:
                self._stop.wait(self.timing.rescan_interval)
                continue
            try:
                self._serve(link)
            except (DeviceLost, serial.SerialException, OSError) as e:
                self._went_offline(str(e) or type(e).__name__)
            finally:
                link.close()
        if self.device is not None:
            self._went_offline("closed")

    def _connect(self) -> "_Link | None":
        for path in [self.port_name] if self.port_name else candidate_ports():
            if self._stop.is_set():
                return None
            try:
                link = _Link(open_port(path, self.baudrate), self)
            except (serial.SerialException, OSError) as e:
                self.last_problem = f"{path}: {e}"
                continue
            self._connecting = True
            try:
                info = link.handshake()
            except (DeviceLost, serial.SerialException, OSError) as e:
                self._connecting = False
                self.last_problem = f"{path}: {e}"
                link.close()
                continue
            self.connected_port = path
            self.device = info
            self._connecting = False  # after device is set: never seen as neither connecting nor online
            self.stats["connects"] += 1
            if self.on_online:
                self.on_online(info)
            return link
        return None

    def _went_offline(self, reason: str) -> None:
        self.device = None
        self.connected_port = None
        self.last_problem = reason
        self.stats["disconnects"] += 1
        if self.on_offline:
            self.on_offline(reason)

    def _newest(self) -> tuple[LedFrame | None, int]:
        with self._lock:
            return self._frame, self._frame_version

    def _serve(self, link: "_Link") -> None:
        last_frame_at = 0.0
        while not self._stop.is_set():
            link.poll()
            if link.rebooted:
                link.handshake()
                link.sent_version = -1
            now = time.monotonic()
            frame, version = self._newest()
            if link.outstanding is None:
                if frame is not None and version != link.sent_version \
                        and now - last_frame_at >= self.timing.min_interval:
                    link.send_leds(frame, version)
                    last_frame_at = now
                elif now - link.last_tx >= self.timing.heartbeat_interval:
                    link.ping()
            done = link.completed()
            if done is not None:
                with self._shown:
                    self._shown_version = done
                    self._shown.notify_all()
            # sleep until the device says something, show() or close() wakes us, or a deadline
            wait = self.timing.heartbeat_interval - (now - link.last_tx)
            if link.outstanding is not None:
                wait = min(wait, link.outstanding[1] + self.timing.ack_timeout - now)
            if frame is not None and version != link.sent_version:
                wait = min(wait, last_frame_at + self.timing.min_interval - now)
            link.wait(min(wait, 0.25))


class _Link:
    """One open port to one device: the request/ACK bookkeeping of a connection."""

    def __init__(self, port: serial.Serial, panel: Panel) -> None:
        self.port = port
        self.panel = panel
        self.decoder = Decoder()
        self.info: DeviceInfo | None = None
        self.outstanding: tuple[Frame, float, int, int] | None = None  # frame, sent at, tries, version
        self.last_tx = 0.0
        self.last_rx = time.monotonic()
        self.rebooted = False
        self.last_button_seq: int | None = None
        self.sent_version = -1
        """The version of the newest LED frame sent on this link."""
        self._completed: int | None = None

    def close(self) -> None:
        try:
            self.port.close()
        except (serial.SerialException, OSError):
            pass

    def _write(self, frame: Frame) -> None:
        self.port.write(encode(frame))
        self.last_tx = time.monotonic()

    def _next_seq(self) -> int:
        return next(self.panel._seq) % 256

    def handshake(self) -> DeviceInfo:
        """HELLO until a HELLO_REPLY arrives (a board that reset on open needs a moment)."""
        deadline = time.monotonic() + self.panel.timing.handshake_timeout
        self.panel.stats["handshakes"] += 1
        self.rebooted = False
        self.outstanding = None
        while time.monotonic() < deadline:
            seq = self._next_seq()
            self._write(Frame(seq, MSG_HELLO, bytes([PROTOCOL_VERSION])))
            until = min(deadline, time.monotonic() + self.panel.timing.ack_timeout)
            while time.monotonic() < until and not self.panel._stop.is_set():
                self.wait(until - time.monotonic())
                for frame in self._read():
                    if frame.type == MSG_HELLO_REPLY and frame.seq == seq:
                        return self._accept(DeviceInfo.from_payload(frame.payload))
        raise DeviceLost("no handshake reply")

    def _accept(self, info: DeviceInfo) -> DeviceInfo:
        if info.protocol != PROTOCOL_VERSION:
            raise DeviceLost(f"device speaks protocol {info.protocol}, we speak {PROTOCOL_VERSION}")
        if Capability.LEDS not in info.capabilities or info.leds < self.panel.leds:
            raise DeviceLost(f"device has {info.leds} LEDs, the layout needs {self.panel.leds}")
        self.info = info
        self.last_button_seq = None
        self.rebooted = False
        self.last_rx = time.monotonic()
        return info

    def wait(self, timeout: float) -> None:
        """Until the port has data, the panel is woken, or ``timeout`` seconds passed."""
        wake = self.panel._wake_r
        ready = select.select([self.port.fileno(), wake], [], [], max(0.0, timeout))[0]
        if wake in ready:
            while True:
                try:
                    if not os.read(wake, 64):
                        break
                except BlockingIOError:
                    break
        if self.port.fileno() in ready and not self.port.in_waiting:
            raise DeviceLost("the port closed (unplugged?)")

    def _read(self) -> list[Frame]:
        waiting = self.port.in_waiting
        data = self.port.read(waiting) if waiting else b""
        if data:
            rejected = self.decoder.rejected
            frames = self.decoder.feed(data)
            self.panel.stats["rejected"] += self.decoder.rejected - rejected
            if frames:
                self.last_rx = time.monotonic()
            return frames
        return []

    def _leds_frame(self, frame: LedFrame) -> Frame:
        """The LEDS command for ``frame``, within what the device advertised."""
        caps = self.info.capabilities if self.info else Capability(0)
        if Capability.BLINK not in caps:
            frame = frame.steady()
        if Capability.BRIGHTNESS not in caps:
            frame = LedFrame(frame.colours, frame.patterns, 255)
        pad = self.info.leds - len(frame) if self.info else 0
        self.panel.stats["frames"] += 1
        return Frame(self._next_seq(), MSG_LEDS, frame.to_payload() + bytes(pad))

    def send_leds(self, frame: LedFrame, version: int) -> None:
        self._send(self._leds_frame(frame), version)
        self.sent_version = version

    def ping(self) -> None:
        if self.info and Capability.HEARTBEAT in self.info.capabilities:
            self._send(Frame(self._next_seq(), MSG_PING), -1)
        else:
            self.last_tx = time.monotonic()

    def _send(self, frame: Frame, version: int) -> None:
        self._write(frame)
        self.outstanding = (frame, time.monotonic(), 1, version)

    def completed(self) -> int | None:
        """The frame version acknowledged since the last call, if any."""
        done, self._completed = self._completed, None
        return done

    def poll(self) -> None:
        """Read what arrived, handle it, resend an unacknowledged command when due."""
        now = time.monotonic()
        for frame in self._read():
            self._handle(frame)
        if self.outstanding is not None:
            frame, sent_at, tries, version = self.outstanding
            if now - sent_at >= self.panel.timing.ack_timeout:
                if tries > self.panel.timing.retries:
                    raise DeviceLost(f"no reply after {tries} tries")
                self.panel.stats["retries"] += 1
                newest, newest_version = self.panel._newest()
                if version >= 0 and newest is not None and newest_version != version:
                    frame, version = self._leds_frame(newest), newest_version  # resend the latest
                    self.sent_version = version
                self._write(frame)
                self.outstanding = (frame, now, tries + 1, version)
        heartbeats = self.info is not None and Capability.HEARTBEAT in self.info.capabilities
        if heartbeats and now - self.last_rx > self.panel.timing.silence_timeout:
            raise DeviceLost("device silent")

    def _handle(self, frame: Frame) -> None:
        if frame.version != PROTOCOL_VERSION:
            return
        if frame.type == MSG_ACK and self.outstanding and frame.seq == self.outstanding[0].seq:
            status = frame.payload[0] if frame.payload else Status.BAD_LENGTH
            if status != Status.OK:
                self.panel.stats["refused"] += 1
                name = Status(status).name if status in Status.__members__.values() else str(status)
                self.panel.last_problem = f"device refused a command: {name}"
            elif self.outstanding[3] >= 0:
                self._completed = self.outstanding[3]
            self.outstanding = None
        elif frame.type == MSG_BUTTON:
            try:
                event = ButtonEvent.from_payload(frame.payload)
            except ValueError:
                return
            self._write(Frame(frame.seq, MSG_EVENT_ACK))
            if frame.seq != self.last_button_seq:
                self.last_button_seq = frame.seq
                self.panel._events.append(event)
                self.panel.stats["buttons"] += 1
        elif frame.type == MSG_BOOT:
            self.rebooted = True
