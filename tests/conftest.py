"""Shared test helpers: run the real CLI in a subprocess, find the shared material."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


def run_cli(*args: str, input: str | None = None, timeout: float = 300,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``tacticblue ARGS`` as a user would (a fresh process, in ``env``, default this
    one's environment), capturing text output."""
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "tacticblue", *map(str, args)], capture_output=True, text=True,
                          input=input, timeout=timeout, env=env, cwd=ROOT)


def ctrl_c_as_in_a_terminal() -> None:
    """Run in a child process before it starts (``preexec_fn``): Ctrl-C (SIGINT) back to the
    default, as in a terminal.  A test run started in the background (``pytest &`` in a script)
    ignores SIGINT, its children inherit that, and Python then never raises KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def one_line_error(run: subprocess.CompletedProcess[str]) -> str:
    """Check that a command refused its input as the CLI promises (exit status 2, one line on
    stderr, no traceback) and give that line."""
    lines = run.stderr.strip().splitlines()
    assert run.returncode == 2 and len(lines) == 1, run.stderr
    return lines[0]


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture(scope="session")
def shared() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"the shared material is not at {SHARED}")
    return SHARED


@pytest.fixture(scope="session")
def random_position():
    """``random_position(board, seed, plies)``: ``board`` after up to ``plies`` random legal turns."""
    return lambda board, seed, plies: board.play_random(random.Random(seed), plies)
