#!/usr/bin/env bash
# Build the two draughts libraries we use as test oracles, each in its own virtualenv
# (both install as the import name `draughts`, so they cannot share one):
#   .venv-oracles/py-draughts  py-draughts (GPL-3; pulls in a web-server stack)
#   .venv-oracles/pydraughts   pydraughts (MIT; slow but independent)
# They are only oracles for the tests (tests/oracles/), never imported by the product.
# Usage: tools/oracles.sh [py-draughts|pydraughts ...]   (default: both). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
root=.venv-oracles
python=${PYTHON:-python3}
wanted=("$@")
[ ${#wanted[@]} -gt 0 ] || wanted=(py-draughts pydraughts)
for pkg in "${wanted[@]}"; do
    case "$pkg" in
        py-draughts) spec="py-draughts==1.10.1" ;;
        pydraughts) spec="pydraughts==0.6.7" ;;
        *) echo "oracles: unknown oracle $pkg (py-draughts or pydraughts)" >&2; exit 2 ;;
    esac
    venv="$root/$pkg"
    if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import draughts" 2>/dev/null; then
        continue
    fi
    rm -rf "$venv"
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check "$spec"
    "$venv/bin/python" -c "import draughts" || { echo "oracles: $pkg does not import" >&2; exit 1; }
    echo "oracles: $pkg ready in $venv"
done
