"""The packages no camera or array library runs through: pure, strictly typed Python.

``rules`` is the one source of truth for the games and their geometry, imported by vision,
the live session and the reporters alike, and by programs that never see a camera (a record
checker, a tutor): it must import nothing beyond the standard library.  It and ``hardware``
(the panel's protocol, driver and emulator) are type-checked strictly, as python-chess's core is.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_rules_imports_only_the_standard_library() -> None:
    """Every game module imported in a fresh interpreter: no image, array or serial library comes with it."""
    probe = ("import json, sys; before = set(sys.modules); "
             "import rules, rules.pdn, rules.record, rules.diagram, rules.infer; "
             "print(json.dumps(sorted({m.split('.')[0] for m in set(sys.modules) - before})))")
    r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True)
    loaded = set(json.loads(r.stdout))
    outside = {m for m in loaded if m not in sys.stdlib_module_names and not m.startswith("_")} - {"rules"}
    assert "rules" in loaded and not outside, outside


def test_rules_and_the_panel_driver_type_check_strictly() -> None:
    """``mypy --strict`` finds nothing in ``rules`` (its turns, boards, records and inference)
    nor in ``hardware`` (the panel's protocol, driver and emulator), the two packages no
    camera or array library runs through."""
    r = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "rules", "hardware"],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-1000:]
    assert "Success: no issues found" in r.stdout
