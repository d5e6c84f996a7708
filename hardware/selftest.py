"""End-to-end checks of the panel stack against the real firmware running in simavr.

Each check starts the firmware in the simulator behind a pty (:mod:`hardware.simulator`),
drives it with the real host driver (:class:`hardware.driver.Panel`) exactly as over USB,
and reads back what the simulated WS2812 data pin shows.  A check returns a one-line
detail or raises :class:`CheckFailed`.  ``tacticblue panel selftest`` runs them all; the
tests run them with larger counts.
"""

from __future__ import annotations

import random
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from hardware.driver import Panel, Timing
from hardware.protocol import PALETTE_RGB, ButtonEvent, Capability, LedFrame, Pattern
from hardware.simulator import SimTools, SimulatedPanel, build


class CheckFailed(Exception):
    """A check saw the panel do the wrong thing."""


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def random_frame(leds: int, rng: random.Random, brightness: int = 255) -> LedFrame:
    """A steady frame of random palette colours (steady: what the chain shows is exact)."""
    return LedFrame(tuple(rng.randrange(len(PALETTE_RGB)) for _ in range(leds)), (0,) * leds, brightness)


@contextmanager
def session(tools: SimTools, link: Path, timing: Timing = Timing()) -> Iterator[tuple[SimulatedPanel, Panel]]:
    """A simulated panel and a driver connected to it (online when entered)."""
    with SimulatedPanel(tools, link) as sim:
        panel = Panel(str(link), tools.leds, timing=timing)
        try:
            expect(panel.wait_online(3), f"no handshake with the firmware ({panel.last_problem})")
            yield sim, panel
        finally:
            panel.close()


def show_and_see(sim: SimulatedPanel, panel: Panel, frame: LedFrame, timeout: float = 2.0) -> float:
    """Show ``frame``; the seconds until the simulated chain showed it."""
    start = time.monotonic()
    panel.show(frame)
    expected = tuple(frame.rgb())
    seen = sim.wait_for(lambda rgb: rgb == expected, timeout)
    expect(seen is not None, f"the chain did not show the frame within {timeout} s")
    return seen.at - start  # type: ignore[union-attr]


def check_handshake(tools: SimTools, link: Path) -> str:
    with session(tools, link) as (_, panel):
        info = panel.device
        assert info is not None
        expect(info.leds == tools.leds, f"device says {info.leds} LEDs, firmware built for {tools.leds}")
        needed = Capability.LEDS | Capability.BUTTONS | Capability.HEARTBEAT | Capability.BLINK
        expect(needed in info.capabilities, f"capabilities {info.capabilities!r} lack {needed!r}")
        return (f"protocol {info.protocol}, firmware {info.firmware[0]}.{info.firmware[1]}, {info.leds} LEDs, "
                f"{info.buttons} buttons")


WS2812_T0H_NS = (250, 550)
WS2812_T1H_NS = (650, 950)
WS2812_MAX_LOW_NS = 5000
"""WS2812(B) data timing (datasheet: T0H 0.4 us, T1H 0.8 us, each +-150 ns); lows well
below the 50 us reset, which would latch the chain mid-frame."""


def check_full_frame(tools: SimTools, link: Path) -> str:
    """Every LED a different colour, at a brightness below full: the chain shows each
    exactly, and the data pin's waveform is within the WS2812 timing."""
    frame = LedFrame(tuple(i % len(PALETTE_RGB) for i in range(tools.leds)), (0,) * tools.leds, 200)
    with session(tools, link) as (sim, panel):
        seconds = show_and_see(sim, panel, frame)
        wave = sim.shown[-1].waveform
        expect(WS2812_T0H_NS[0] <= wave.t0h[0] and wave.t0h[1] <= WS2812_T0H_NS[1], f"0-bit high {wave.t0h} ns")
        expect(WS2812_T1H_NS[0] <= wave.t1h[0] and wave.t1h[1] <= WS2812_T1H_NS[1], f"1-bit high {wave.t1h} ns")
        expect(wave.longest_low <= WS2812_MAX_LOW_NS, f"a low of {wave.longest_low:.0f} ns inside the frame")
        return (f"{tools.leds} LEDs shown as sent in {seconds * 1000:.0f} ms; WS2812 timing T0H "
                f"{wave.t0h[1]:.0f} ns, T1H {wave.t1h[1]:.0f} ns, longest low {wave.longest_low:.0f} ns")


def check_blink(tools: SimTools, link: Path) -> str:
    """A fast-blinking LED goes off and on again while a steady one stays lit."""
    frame = LedFrame.blank(tools.leds).set(0, 2, Pattern.BLINK_FAST).set(1, 3)
    with session(tools, link) as (sim, panel):
        show_and_see(sim, panel, frame)
        off = sim.wait_for(lambda rgb: rgb[0] == (0, 0, 0) and rgb[1] == PALETTE_RGB[3], 1.0)
        expect(off is not None, "the blinking LED never went off")
        on = sim.wait_for(lambda rgb: rgb[0] == PALETTE_RGB[2] and rgb[1] == PALETTE_RGB[3], 1.0)
        expect(on is not None, "the blinking LED never came back on")
        return "fast blink toggles, steady LED stays lit"


def check_buttons(tools: SimTools, link: Path, rounds: int = 2) -> str:
    """Every button pressed and released: each event reaches the host once, in order."""
    with session(tools, link) as (sim, panel):
        info = panel.device
        assert info is not None
        expected = []
        for _ in range(rounds):
            for b in range(info.buttons):
                sim.click(b)
                expected += [ButtonEvent(b, True), ButtonEvent(b, False)]
        got: list[ButtonEvent] = []
        deadline = time.monotonic() + 5
        while len(got) < len(expected) and time.monotonic() < deadline:
            got += panel.events()
            time.sleep(0.02)
        time.sleep(0.3)  # a duplicate would arrive by now
        got += panel.events()
        expect(got == expected, f"expected {len(expected)} events in order, got {got}")
        return f"{len(got)} button events, in order, no duplicates"


def check_frames(tools: SimTools, link: Path, count: int, seed: int = 7) -> str:
    """``count`` different frames, each waited for: none lost, none corrupted, no retries."""
    rng = random.Random(seed)
    marker = LedFrame.blank(tools.leds).set(0, 1)
    frames = [marker]
    for _ in range(count):
        frame = random_frame(tools.leds, rng)
        while frame == frames[-1]:
            frame = random_frame(tools.leds, rng)
        frames.append(frame)
    frames = frames[1:]
    with session(tools, link, timing=Timing(min_interval=0.0)) as (sim, panel):
        # Once a marker is seen, whatever the chain showed on connecting is behind us.
        show_and_see(sim, panel, marker)
        first = len(sim.shown)
        start = time.monotonic()
        for i, frame in enumerate(frames):
            panel.show(frame)
            expect(panel.wait_shown(5.0), f"frame {i} was not acknowledged within 5 s")
        seconds = time.monotonic() - start
        expected = [tuple(f.rgb()) for f in frames]
        deadline = time.monotonic() + 2
        while len(sim.shown) - first < count and time.monotonic() < deadline:
            time.sleep(0.01)
        shown = [s.rgb for s in sim.shown[first:]]
        expect(shown == expected, f"the chain showed {len(shown)} frames, {sum(a != b for a, b in zip(shown, expected))} "
                                  f"different from the {count} sent")
        expect(panel.stats["retries"] == 0, f"{panel.stats['retries']} retries on a clean link")
        return f"{count} frames shown exactly, 0 retries, {count / seconds:.0f} frames/s"


def check_garbage(tools: SimTools, link: Path, bursts: int = 20, seed: int = 11) -> str:
    """Random bytes injected both ways while frames flow: no wrong LED, no hang."""
    rng = random.Random(seed)
    with session(tools, link, timing=Timing(min_interval=0.0)) as (sim, panel):
        first = len(sim.shown)
        sent = {tuple(LedFrame.blank(tools.leds).rgb())}
        frame = LedFrame.blank(tools.leds)
        for i in range(bursts):
            frame = random_frame(tools.leds, rng)
            sent.add(tuple(frame.rgb()))
            panel.show(frame)
            (sim.garbage_in if i % 2 == 0 else sim.garbage_out)(rng.randrange(20, 300))
            expect(panel.wait_shown(5.0), f"burst {i}: the frame was never acknowledged (hang?)")
        show_and_see(sim, panel, frame, timeout=2.0)
        wrong = [s for s in sim.shown[first:] if s.rgb not in sent]
        expect(not wrong, f"the chain showed {len(wrong)} frames that were never sent")
        expect(panel.online, "the driver went offline")
        return (f"{bursts} bursts: every frame right after retries ({panel.stats['retries']} retries, "
                f"{panel.stats['rejected']} bad packets dropped by the host)")


def check_dim(tools: SimTools, link: Path) -> str:
    """The host goes silent: the firmware dims the LEDs after about 3 s."""
    frame = LedFrame.blank(tools.leds).set(0, 1).set(1, 2)
    with SimulatedPanel(tools, link) as sim:
        with Panel(str(link), tools.leds) as panel:
            expect(panel.wait_online(3), "no handshake with the firmware")
            show_and_see(sim, panel, frame)
            silent_from = time.monotonic()
        dimmed = tuple(frame.rgb(dimmed=True))
        seen = sim.wait_for(lambda rgb: rgb == dimmed, 5.0)
        expect(seen is not None, "the LEDs were not dimmed after the host went silent")
        after = seen.at - silent_from  # type: ignore[union-attr]
        expect(2.0 <= after <= 4.5, f"dimmed {after:.1f} s after the host went silent, expected about 3 s")
        return f"dimmed {after:.1f} s after the host went silent"


def check_unplug(tools: SimTools, link: Path) -> str:
    """The simulator killed mid-game and restarted: the driver reconnects and the panel
    shows the current frame again within 2 s."""
    rng = random.Random(3)
    changes: list[str] = []
    lock = threading.Lock()

    def note(what: str) -> Callable[[object], None]:
        def record(_: object) -> None:
            with lock:
                changes.append(what)
        return record

    sim = SimulatedPanel(tools, link)
    panel = Panel(str(link), tools.leds, on_online=note("online"), on_offline=note("offline"))
    try:
        expect(panel.wait_online(3), "no handshake with the firmware")
        show_and_see(sim, panel, random_frame(tools.leds, rng))
        sim.kill()
        deadline = time.monotonic() + 2
        while panel.online and time.monotonic() < deadline:
            time.sleep(0.01)
        expect(not panel.online, "the driver did not notice the unplug")
        later = random_frame(tools.leds, rng)
        panel.show(later)  # the game goes on while the panel is away
        time.sleep(0.3)
        sim = SimulatedPanel(tools, link)
        seconds = show_and_see(sim, panel, later, timeout=2.0)
        expect(panel.online, "the driver is not online again")
        with lock:
            expect(changes == ["online", "offline", "online"], f"reported {changes}")
        return f"offline reported, back online and showing the current frame {seconds:.2f} s after replug"
    finally:
        panel.close()
        sim.close()


def run(out: Callable[[str], None], directory: Path | None = None, frames: int = 100) -> tuple[int, int]:
    """Build, then run every check, printing one line each; returns (passed, failed)."""
    passed = failed = 0

    def report(name: str, check: Callable[[], str]) -> bool:
        nonlocal passed, failed
        try:
            detail = check()
        except Exception as e:  # noqa: BLE001 - every failure becomes one report line
            failed += 1
            out(f"FAIL {name}: {type(e).__name__ + ': ' if not isinstance(e, CheckFailed) else ''}{e}")
            return False
        passed += 1
        out(f"ok   {name}: {detail}")
        return True

    with tempfile.TemporaryDirectory(prefix="tacticblue-panel-") as tmp:
        build_dir = directory or Path(tmp) / "build"
        link = Path(tmp) / "panel"
        tools: dict[int, SimTools] = {}

        def build_all() -> str:
            for leds in (37, 100):
                tools[leds] = build(build_dir, leds)
            return f"firmware (37 and 100 LEDs) and simavr harness in {build_dir}"

        if report("build", build_all):
            hexside, square = tools[37], tools[100]
            report("handshake", lambda: check_handshake(hexside, link))
            report("LED frame, 37 LEDs", lambda: check_full_frame(hexside, link))
            report("LED frame, 100 LEDs", lambda: check_full_frame(square, link))
            report("blinking", lambda: check_blink(hexside, link))
            report("buttons", lambda: check_buttons(hexside, link))
            report(f"{frames} frames", lambda: check_frames(hexside, link, frames))
            report("garbage both ways", lambda: check_garbage(hexside, link))
            report("unplug and replug", lambda: check_unplug(hexside, link))
            report("dim when the host is silent", lambda: check_dim(hexside, link))
    out(f"{passed} passed, {failed} failed")
    return passed, failed
