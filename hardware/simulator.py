"""Run the real panel firmware in simavr behind a pty: test tooling, no hardware needed.

:func:`build` compiles the firmware (``hardware/firmware``, avr-gcc) and the harness
(``hardware/sim/panel_sim.c``, the system C compiler linked against simavr, which is GPL:
it is built on the user's machine for tests and the selftest only, never shipped).
:class:`SimulatedPanel` starts the harness and reads back what the WS2812 chain shows,
decoded from the simulated data pin::

    tools = build(Path("/tmp/panel-build"), leds=37)
    with SimulatedPanel(tools, link=Path("/tmp/panel")) as sim:
        ...  # Panel("/tmp/panel", leds=37) talks to the firmware
        sim.click(0); sim.wait_for(lambda rgb: rgb[0] == (255, 0, 0), timeout=2)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
FIRMWARE_DIR = HERE / "firmware"
HARNESS_SOURCE = HERE / "sim" / "panel_sim.c"
DEBIAN_PACKAGES = "gcc-avr avr-libc simavr libsimavr-dev libelf-dev"

RGB = tuple[int, int, int]


class ToolsMissing(RuntimeError):
    """The firmware toolchain or simavr is not installed."""


@dataclass(frozen=True)
class SimTools:
    """A built firmware ELF and the harness that runs it."""

    firmware: Path
    harness: Path
    leds: int


def _run(cmd: list[str], what: str) -> None:
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{what} failed:\n{done.stdout}{done.stderr}")


def build(directory: Path, leds: int) -> SimTools:
    """Build (or reuse, when up to date) the firmware for ``leds`` LEDs and the harness."""
    missing = [tool for tool in ("make", "avr-gcc", "cc", "pkg-config") if shutil.which(tool) is None]
    if missing:
        raise ToolsMissing(f"missing {', '.join(missing)}: install the Debian packages {DEBIAN_PACKAGES}")
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "simavr", "simavrparts"],
                           capture_output=True, text=True)
    if flags.returncode != 0:
        raise ToolsMissing(f"simavr's library is not installed: install the Debian packages {DEBIAN_PACKAGES}")
    directory.mkdir(parents=True, exist_ok=True)
    _run(["make", "-s", "-C", str(FIRMWARE_DIR), f"BUILD={directory.resolve()}", f"LEDS={leds}"],
         "building the firmware")
    harness = directory / "panel_sim"
    if not harness.exists() or harness.stat().st_mtime < HARNESS_SOURCE.stat().st_mtime:
        _run(["cc", "-O2", "-Wall", "-o", str(harness), str(HARNESS_SOURCE), *flags.stdout.split(),
              "-lelf", "-lpthread", "-lutil"], "building the simavr harness")
    return SimTools(directory / f"panel-{leds}.elf", harness, leds)


CLOCK_HZ = 16_000_000


@dataclass(frozen=True)
class Waveform:
    """Extremes of one WS2812 frame on the data pin, in nanoseconds."""

    t0h: tuple[float, float]
    """Shortest and longest high time of a 0 bit."""
    t1h: tuple[float, float]
    """Shortest and longest high time of a 1 bit."""
    longest_low: float
    """Longest low time between two bits of the frame."""

    @classmethod
    def from_cycles(cls, cycles: list[int]) -> "Waveform":
        ns = [c * 1e9 / CLOCK_HZ for c in cycles]
        return cls((ns[0], ns[1]), (ns[2], ns[3]), ns[4])


@dataclass(frozen=True)
class Shown:
    """One latched WS2812 frame: when the harness reported it, the RGB of every LED, and
    its waveform."""

    at: float
    rgb: tuple[RGB, ...]
    waveform: Waveform


class SimulatedPanel:
    """The harness process: a firmware on a pty, buttons to press, the LED chain to read."""

    def __init__(self, tools: SimTools, link: Path, seed: int = 1) -> None:
        self.tools = tools
        self.link = link
        self.shown: list[Shown] = []
        self._changed = threading.Condition()
        self.process = subprocess.Popen(
            [str(tools.harness), str(tools.firmware), "--link", str(link), "--seed", str(seed)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.pty = ""
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.startswith("PTY "):
                self.pty = line.split()[1]
                break
        if not self.pty:
            raise RuntimeError("the simulator did not start")
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        waveform = Waveform((0, 0), (0, 0), 0)
        for line in self.process.stdout:
            parts = line.split()
            if len(parts) == 6 and parts[0] == "TIMING":
                waveform = Waveform.from_cycles([int(p) for p in parts[1:]])
            elif len(parts) == 3 and parts[0] == "LEDS":
                data = bytes.fromhex(parts[2])
                rgb = tuple((data[i + 1], data[i], data[i + 2]) for i in range(0, len(data) - 2, 3))
                with self._changed:
                    self.shown.append(Shown(time.monotonic(), rgb, waveform))
                    self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def current(self) -> tuple[RGB, ...] | None:
        """What the chain shows now (None before the first latch)."""
        with self._changed:
            return self.shown[-1].rgb if self.shown else None

    def wait_for(self, predicate: Callable[[tuple[RGB, ...]], bool], timeout: float) -> Shown | None:
        """Wait until the chain shows something ``predicate`` accepts; the Shown or None."""
        deadline = time.monotonic() + timeout
        seen = 0
        with self._changed:
            while True:
                for shown in self.shown[seen:]:
                    if predicate(shown.rgb):
                        return shown
                seen = len(self.shown)
                left = deadline - time.monotonic()
                if left <= 0 or not self.alive:
                    return None
                self._changed.wait(left)

    def _command(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def click(self, button: int, ms: int = 60) -> None:
        """Press ``button`` for ``ms`` ms of the firmware's time, then pause as long; clicks
        queue up, so they stay apart however fast the simulation runs."""
        self._command(f"click {button} {ms}")

    def garbage_in(self, count: int) -> None:
        """``count`` random bytes into the firmware's receiver (noise from the host side)."""
        self._command(f"garbage-in {count}")

    def garbage_out(self, count: int) -> None:
        """``count`` random bytes towards the host (noise from the device side)."""
        self._command(f"garbage-out {count}")

    def kill(self) -> None:
        """Pull the plug: the process dies at once and its pty disappears."""
        if self.alive:
            self.process.kill()
        self.process.wait()
        self._reader.join(timeout=2)

    def close(self) -> None:
        if self.alive:
            try:
                self._command("quit")
                self.process.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()
        if self.link.is_symlink() and not os.path.exists(os.readlink(self.link)):
            self.link.unlink()

    def __enter__(self) -> "SimulatedPanel":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
