"""The LED panel link: frames per second at 115200 baud, and move-to-LEDs latency.

    python3 benchmarks/panel.py [--frames 300] [--moves 40] [--json]

Runs the real firmware in simavr behind a pty (needs gcc-avr, avr-libc, simavr,
libsimavr-dev, libelf-dev) with the simulated UART at 115200 baud, and the real host
driver.  Prints, for the 37-LED (hex) and 100-LED (square) firmware:

* the wire limit: LED frame bytes on the wire and the frames per second 115200 baud
  allows for them alone;
* link throughput: frames per second when every frame waits for its ACK (driver's rate
  limit off), i.e. what the protocol and firmware sustain;
* the driver as the companion uses it (one frame per 50 ms at most): frames per second
  delivered when the companion calls ``show`` continuously;
* latency from ``show`` (a move accepted) until the simulated WS2812 data pin latched the
  new frame: median and 95th percentile over ``--moves`` moves spaced like real moves.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hardware.driver import Timing  # noqa: E402
from hardware.protocol import MSG_LEDS, Frame, LedFrame, encode  # noqa: E402
from hardware.selftest import random_frame, session, show_and_see  # noqa: E402
from hardware.simulator import build  # noqa: E402

BAUD = 115200


def throughput(tools, link: Path, frames: int, timing: Timing) -> float:
    """Frames per second shown and acknowledged, each waiting for its ACK."""
    rng = random.Random(1)
    with session(tools, link, timing) as (_, panel):
        start = time.monotonic()
        for _ in range(frames):
            panel.show(random_frame(tools.leds, rng))
            if not panel.wait_shown(2.0):
                raise RuntimeError("a frame was not acknowledged")
        return frames / (time.monotonic() - start)


def continuous(tools, link: Path, seconds: float) -> float:
    """Frames per second the default driver delivers when shown a new frame every 5 ms."""
    rng = random.Random(2)
    with session(tools, link) as (sim, panel):
        first = len(sim.shown)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            panel.show(random_frame(tools.leds, rng))
            time.sleep(0.005)
        panel.wait_shown(1.0)
        return (len(sim.shown) - first) / seconds


def latency(tools, link: Path, moves: int) -> list[float]:
    """Seconds from show() to the chain latching the frame, for moves 150-400 ms apart."""
    rng = random.Random(3)
    out = []
    with session(tools, link) as (sim, panel):
        for _ in range(moves):
            time.sleep(rng.uniform(0.15, 0.4))
            out.append(show_and_see(sim, panel, random_frame(tools.leds, rng)))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=300)
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        link = Path(tmp) / "panel"
        for leds in (37, 100):
            tools = build(Path(tmp) / "build", leds)
            wire = len(encode(Frame(0, MSG_LEDS, LedFrame.blank(leds).to_payload())))
            lat = latency(tools, link, args.moves)
            results[leds] = {
                "wire_bytes": wire,
                "wire_limit_fps": BAUD / 10 / wire,
                "link_fps": throughput(tools, link, args.frames, timing=Timing(min_interval=0.0)),
                "driver_fps": continuous(tools, link, 3.0),
                "latency_median_ms": statistics.median(lat) * 1000,
                "latency_p95_ms": sorted(lat)[int(0.95 * (len(lat) - 1))] * 1000,
            }
    if args.json:
        print(json.dumps(results))
        return 0
    for leds, r in results.items():
        print(f"{leds:>3} LEDs: {r['wire_bytes']} bytes/frame, wire limit {r['wire_limit_fps']:.0f} frames/s; "
              f"link {r['link_fps']:.0f} frames/s with an ACK per frame; "
              f"driver {r['driver_fps']:.1f} frames/s (50 ms limit); "
              f"move -> LEDs {r['latency_median_ms']:.0f} ms median, {r['latency_p95_ms']:.0f} ms p95")
    return 0


if __name__ == "__main__":
    sys.exit(main())
